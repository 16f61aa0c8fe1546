"""``onecard play``: an embedded host on this machine, bots in the other seats, no setup.

How it works: :func:`play_command` only parses options and calls :func:`run_play` with
``trio.run``. ``run_play`` starts a host in this process through the client's one entry into the
host, :func:`host.tools.embedded.embedded_host` (loopback, a free port, a throw-away data directory;
with ``--lan`` every interface, the default port, a play directory under the user data
directory so the fingerprint stays the same, and LAN advertising), creates the table, then
connects to it like any other client: TLS 1.3 pinned to the fingerprint the embedded host
reported, the handshake, ``join`` and ``ready`` (or ``watch`` with ``--watch``, when bots play
every seat). The table loop (:mod:`client.table_loop`) then runs until the game is over (a
human is asked "Play again?", ``--json`` only with ``--rematch``; ``y`` sends ``ready`` again,
the rematch, and the bots, always ready, play on in the same seats); the host shuts down and the
command exits 0 (1 when it left the table because a deal check failed:
:class:`client.table_loop.DealCheckFailed`).

With ``--lan`` the person hosting sits at seat 0 and waits: friends ``onecard join`` (they are
ready as soon as they sit down); pressing Enter fills the empty seats with bots and starts.
After the game everyone seated is asked "Play again?"; the next game starts when every seat is
ready again, and until then the table loop says whom it waits for (a friend who left frees the
seat: someone may ``onecard join`` it).

A persistent data directory (``--lan``, or ``--data-dir``) holds the host's identity (TLS and
deal-signing keys, shared with ``onecard host``, so the fingerprint friends pinned stays the
same), but each ``play`` session serves from a fresh directory of its own under
``DATA/play-sessions/`` (:func:`host.tools.embedded.new_play_dir`: the identity files linked
in), so the lobby shows only this session's table, never tables left by earlier sessions or
by ``onecard host``. When the session ends its journal database and the links are removed
and its ``records/`` (the host's hand records, for ``onecard verify``) stay; a session with
no records leaves nothing behind. A session that died without tidying (a crash, a kill) is
tidied the same way by the next one (:func:`host.tools.embedded.sweep_play_dirs`, by the process id
in its ``owner.pid``). The client
fetches each hand's record into the proofs directory as well (not with ``--watch``: bots play
every seat, the deals are checked and nothing is kept).
``onecard join`` itself lives in :mod:`client.join_cmd`.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import Any

import click
import platformdirs
import trio

from client.commands import (
    ClientError,
    common_options,
    default_name,
    host_error,
    make_ui,
    parse_options,
    run_sync,
    want_ascii,
)
from client.human_ui import HumanUI
from client.json_ui import JsonUI
from client.lobby import create_table
from client.render import GAME_TITLES
from client.stdin import read_line
from client.table_client import TableClient
from client.table_loop import Frontend, run_table
from client.tokens import default_state_dir
from host.tools.embedded import (
    EmbeddedError,
    HostInfo,
    Setup,
    embedded_host,
    find_game,
    game_names,
    records_dir,
)
from net.address import join_target
from net.discover import lan_addresses
from net.session import ClientSession, Disconnected, RequestError, open_session
from net.trust import TrustError, open_stream
from protocol.errors import ErrorCode, ProtocolError
from protocol.lobby_messages import BOT_LEVELS, Leave

__all__ = ["GAME_CHOICES", "play_command", "run_play"]

#: the games the embedded host runs, from its registry (the first is the default)
GAME_CHOICES = tuple(game_names())


def _option_example() -> str:
    """``--option``'s example: a real option of a game of the registry, set to a value other
    than its default when it has a list of them."""
    for game in GAME_CHOICES:
        for spec in find_game(game).option_specs:
            others = [c for c in spec.choices or () if c != spec.default]
            value = others[0] if others else spec.default
            shown = ("on" if value else "off") if isinstance(value, bool) else str(value)
            return f", e.g. --game {game} --option {spec.name}={shown}"
    return ""


#: seconds the host of a LAN game waits after it for friends to finish and leave
FRIENDS_LINGER_S = 30.0
FRIENDS_POLL_S = 0.2
#: seconds the host of a LAN game waits for nothing but its own player's connection to end
FRIENDS_QUIET_S = 1.0


def _loopback(info: HostInfo) -> tuple[str, int]:
    """Where this machine reaches the embedded host (IPv4 and IPv6 may differ on port 0)."""
    for address, port in info.addresses:
        if ":" not in address:
            return "127.0.0.1", port
    return "::1", info.port


async def _wait_for_start(tc: TableClient, ui: Frontend) -> None:
    """LAN hosting: show who sits down until the host player presses Enter."""
    async with trio.open_nursery() as nursery:

        async def show() -> None:
            async for push in tc.session.pushes:
                ui.on_push(tc, push, await tc.handle(push))

        nursery.start_soon(show)
        await read_line()
        nursery.cancel_scope.cancel()


async def run_play(
    *,
    game: str = GAME_CHOICES[0],
    bots: int = 2,
    level: str = "normal",
    options: dict[str, Any] | None = None,
    name: str | None = None,
    watch: bool = False,
    delay: float = 1.0,
    ascii_only: bool = False,
    json_mode: bool = False,
    lan: bool = False,
    port: int | None = None,
    data_dir: Path | None = None,
    state_dir: Path | None = None,
    rematch: bool = False,
    private: bool = False,
) -> dict[str, Any] | None:
    """Host a game here, sit down (or watch the bots) and play it to the end.

    A person at the terminal is asked "Play again?" after each game (with ``--lan`` too: the
    friends still seated are asked as well, and the next game starts when all are ready);
    ``--json`` is asked only with ``rematch``.

    Returns:
        The game's outcome (``{termination, winners, ranking, scores}``), or None if the user
        left first.

    Raises:
        ClientError: the host could not start, or refused the table or its options.
    """
    ui = make_ui(json_mode=json_mode, ascii_only=ascii_only)
    name = name or default_name()
    proofs = (state_dir or default_state_dir()) / "proofs"
    setup = Setup(
        name=f"{name}'s table"[:32], lan=lan, port=port, data_dir=data_dir, bot_think=delay
    )
    play = functools.partial(
        _play_at,
        ui=ui,
        game=game,
        seats=bots + 1,
        level=level,
        options=options or {},
        name=name,
        watch=watch,
        lan=lan,
        proofs=proofs,
        rematch=rematch or not json_mode,
        private=private,
    )
    base = Path(platformdirs.user_data_dir("onecard", appauthor=False))
    try:
        async with embedded_host(setup, base=base) as (info, session):
            if session is not None:
                kept = records_dir(session)
                ui.info(
                    f"This session's tables and hand records: {session} (records in {kept}; "
                    "earlier sessions keep theirs in their own folders next to it)",
                    kind="host_data",
                    dir=str(session),
                    records=str(kept),
                )
            try:
                return await play(info)
            except (TrustError, Disconnected, RequestError, ProtocolError, OSError) as exc:
                raise (host_error(exc) or exc) from None
    except EmbeddedError as exc:
        raise ClientError(str(exc)) from None


async def _play_at(
    info: HostInfo,
    *,
    ui: HumanUI | JsonUI,
    game: str,
    seats: int,
    level: str,
    options: dict[str, Any],
    name: str,
    watch: bool,
    lan: bool,
    proofs: Path,
    rematch: bool,
    private: bool = False,
) -> dict[str, Any] | None:
    host = info.host
    address, port = _loopback(info)
    connected = await open_stream(address, port, expect=info.fingerprint)

    async def reconnect() -> trio.abc.Stream:
        return (await open_stream(address, port, expect=info.fingerprint)).stream

    async with open_session(connected.stream) as session:
        table = await _new_table(info, session, game, seats, options, private=private)
        # bots at every seat: the deals are still checked, but nobody needs a proof kept
        kept = None if watch else proofs
        tc = TableClient(
            session,
            table_id=table,
            name=None if watch else name,
            proofs_dir=kept,
            keys_dir=proofs.parent,
        )
        if watch:
            await tc.watch()  # first, so that we see the first deal's commitment
            await host.add_bots(table, seats, level=level)
            title = GAME_TITLES.get(game, game)
            ui.info(
                f"Watching {seats} bots play {title} (table {table})", kind="watching", table=table
            )
            return await run_table(tc, ui, reconnect=reconnect)
        await tc.join(seat=0)
        if lan:
            targets = [join_target(a, port) for a in lan_addresses(info)]  # ([fe80::1]:7531)
            ui.info(
                f"Hosting {game} on the LAN at {', '.join(targets)}, fingerprint "
                f"{info.fingerprint}. Friends run: onecard join {targets[0]} --name THEIR_NAME "
                "(or just onecard join, to pick this host from a list). "
                "Press Enter to start; empty seats get bots.",
                kind="hosting",
                fingerprint=info.fingerprint,
                port=port,
                table=table,
            )
            await _wait_for_start(tc, ui)
            empty = sum(1 for s in (tc.info.seats if tc.info else ()) if s is None)
            if tc.info is None:
                empty = seats - 1
            for _ in range(empty):
                try:
                    await host.add_bots(table, 1, level=level)
                except ProtocolError:
                    break  # a friend took the last seat meanwhile
        else:
            await host.add_bots(table, seats - 1, level=level)
        title = GAME_TITLES.get(game, game)
        ui.info(
            f"{title}: {name} at seat 0 of {seats}",  # the text front end adds how to play
            kind="seated",
            table=table,
            seat=0,
        )
        await tc.ready()
        # a rematch needs every seat ready again: bots are; friends on the LAN are asked too,
        # and the loop says whom it waits for (one who left leaves an empty seat to join)
        outcome = await run_table(
            tc, ui, reconnect=reconnect, offer_rematch=rematch, records_dir=proofs
        )
        if lan and not session.closed.is_set():  # friends see our seat empty: we are not back
            with contextlib.suppress(RequestError, Disconnected):
                await session.request(Leave(table=table))
    if lan:
        await _let_friends_finish(info, ui, table)
    return outcome


async def _new_table(
    info: HostInfo,
    session: ClientSession,
    game: str,
    seats: int,
    options: dict[str, Any],
    *,
    private: bool,
) -> str:
    """Create the table; a refusal of what the command line asked (an option, a value, a
    number of players, a private table) is a usage error."""
    if private:  # asked for over the protocol, as any client would
        try:
            return await create_table(session, game, seats, options, bots=0, private=True)
        except RequestError as exc:  # a host without private tables, an option refused
            if exc.code is not ErrorCode.BAD_FIELD:
                raise
            text = f"the host refused a private table: {exc.error.message}"
            raise click.UsageError(text) from None
    try:
        return await info.host.create_table(game, seats=seats, options=options)
    except ProtocolError as exc:
        if exc.code is not ErrorCode.BAD_FIELD:
            raise
        raise click.UsageError(exc.message) from None


def _friends_busy(info: HostInfo, table: str) -> bool:
    """Whether a connection other than the host's bots is still doing something: anything
    but sitting ready for another game at our table (it may still fetch the last hand's
    records, or play at a table of its own)."""
    at_table = info.host.lobby.tables.get(table)
    seats = at_table.seats if at_table is not None else []
    waiting = {s.conn for s in seats if s is not None and s.ready}
    return any(not c.closed and not c.trusted and c not in waiting for c in info.host.connections)


async def _let_friends_finish(info: HostInfo, ui: HumanUI | JsonUI, table: str) -> None:
    """Keep the host up while friends' clients still fetch the last hand records and leave,
    at most ``FRIENDS_LINGER_S``: the host closing at once cut their record checks off with
    "the host is shutting down". Friends who said they would play again are done: the host
    stops at once for them (they are told it has stopped)."""
    with trio.move_on_after(FRIENDS_QUIET_S):  # our own connection's end reaching the host
        while _friends_busy(info, table):
            await trio.sleep(FRIENDS_POLL_S)
    if not _friends_busy(info, table):
        return
    ui.info(
        f"Waiting up to {FRIENDS_LINGER_S:.0f} s for friends to finish before the host stops "
        "(Ctrl-C stops it now)",
        kind="lingering",
    )
    with trio.move_on_after(FRIENDS_LINGER_S):
        while _friends_busy(info, table):
            await trio.sleep(FRIENDS_POLL_S)


# --------------------------------------------------------------------------- click


@click.command("play", short_help="Play against bots right now (embedded host, no setup).")
@click.option(
    "--game",
    type=click.Choice(GAME_CHOICES),
    default=GAME_CHOICES[0],
    show_default=True,
    help="Which game.",
)
@click.option(
    "--bots",
    type=click.IntRange(1, 9),
    default=2,
    show_default=True,
    help="Other seats, filled by bots (with --lan: by friends first).",
)
@click.option(
    "--level",
    type=click.Choice(BOT_LEVELS, case_sensitive=False),
    default="normal",
    show_default=True,
    help="How well the bots play: easy (random), normal (each game's heuristic) or hard "
    "(a search; it thinks within --delay, under a second a move).",
)
@click.option(
    "--option",
    "option_pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help=f"A table option (house rule) of the chosen game{_option_example()}; onecard rules "
    "GAME lists them; repeatable.",
)
@click.option(
    "--watch", is_flag=True, help="Bots play every seat; you watch. Ends by itself; q stops it."
)
@click.option(
    "--delay",
    type=click.FloatRange(0, 60),
    default=1.0,
    show_default=True,
    help="Seconds each bot waits before moving (0: full speed).",
)
@click.option(
    "--lan", is_flag=True, help="Host on the LAN and advertise it; friends join with onecard join."
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port to listen on (default: a free loopback port; 7531 with --lan).",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Host data directory: its keys, and each session's hand records under "
    "play-sessions/ (default: temporary; with --lan the user data dir).",
)
@click.option(
    "--private",
    is_flag=True,
    help="A private table: the host never sees a hidden card (each seat masks the deck and "
    "opens its own cards; your keys are kept in the state directory).",
)
@common_options
def play_command(
    *,
    game: str,
    bots: int,
    level: str,
    option_pairs: tuple[str, ...],
    watch: bool,
    delay: float,
    lan: bool,
    port: int | None,
    data_dir: Path | None,
    name: str | None,
    ascii_only: bool,
    json_mode: bool,
    state_dir: Path | None,
    rematch: bool,
    private: bool,
) -> None:
    """Start a host on this machine, fill the other seats with bots and play a game."""
    if watch and lan:
        raise click.UsageError("--watch and --lan do not go together")
    options = parse_options(option_pairs)
    run_sync(
        run_play,
        game=game,
        bots=bots,
        level=level,
        options=options,
        name=name,
        watch=watch,
        delay=delay,
        ascii_only=want_ascii(ascii_only),
        json_mode=json_mode,
        lan=lan,
        port=port,
        data_dir=data_dir,
        state_dir=state_dir,
        rematch=rematch,
        private=private,
    )
