"""``onecard play``: an embedded host on this machine, bots in the other seats, no setup.

How it works: :func:`play_command` only parses options and calls :func:`run_play` with
``trio.run``. ``run_play`` starts :func:`host.server.serve_host` in its own nursery (loopback,
a free port, a throw-away data directory; with ``--lan`` every interface, port 7531, the user
data directory so the fingerprint stays the same, and LAN advertising), creates the table, then
connects to it like any other client: TLS 1.3 pinned to the fingerprint the embedded host
reported, the handshake, ``join`` and ``ready`` (or ``watch`` with ``--watch``, when bots play
every seat). The table loop (:mod:`client.table_loop`) then runs until the game is over (a
human is asked "Play again?", ``--json`` only with ``--rematch``; ``y`` sends ``ready`` again,
the rematch, and the bots, always ready, play on in the same seats); the host shuts down and the
command exits 0.

With ``--lan`` the person hosting sits at seat 0 and waits: friends ``onecard join`` (they are
ready as soon as they sit down); pressing Enter fills the empty seats with bots and starts.
After the game everyone seated is asked "Play again?"; the next game starts when every seat is
ready again, and until then the table loop says whom it waits for (a friend who left frees the
seat: someone may ``onecard join`` it).

A persistent data directory (``--lan``, or ``--data-dir``) holds the host's identity (TLS and
deal-signing keys, shared with ``onecard host``, so the fingerprint friends pinned stays the
same), but each ``play`` session serves from a fresh directory of its own under
``DATA/play-sessions/`` (:func:`new_session_dir`: the identity files linked in), so the lobby
shows only this session's table, never tables left by earlier sessions or by ``onecard host``.
When the session ends its journal database and the links are removed and its ``records/``
(the host's hand records, for ``onecard verify``) stay; a session with no records leaves
nothing behind. A session that died without tidying (a crash, a kill) is tidied the same way
by the next one (:func:`sweep_sessions`, by the process id in its ``owner.pid``). The client
fetches each hand's record into the proofs directory as well.
``onecard join`` itself lives in :mod:`client.join_cmd`.
"""

from __future__ import annotations

import functools
import getpass
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import click
import platformdirs
import trio

from client.discover import lan_addresses
from client.fairplay import TableClient
from client.human_ui import HumanUI
from client.json_ui import JsonUI
from client.render import GAME_TITLES, make_console
from client.session import Disconnected, RequestError, default_state_dir, open_session
from client.table_loop import Frontend, Quit, leaves, run_table
from client.trust import TrustError, open_stream
from host.identity import (
    CERT_FILE,
    KEY_FILE,
    LOCK_FILE,
    SIGNING_KEY_FILE,
    IdentityError,
    load_or_create_identity,
)
from host.server import DEFAULT_TURN_TIMER, HostConfig, HostInfo, serve_host
from host.store import DB_FILE, HOST_LOCK_FILE, RECORDS_DIR, DataDirError
from protocol.errors import ProtocolError
from protocol.text import safe_text

__all__ = [
    "GAME_CHOICES",
    "ClientError",
    "common_options",
    "default_name",
    "end_session_dir",
    "new_session_dir",
    "parse_options",
    "play_command",
    "run_play",
    "sweep_sessions",
]

GAME_CHOICES = ("one-card", "one", "black-jack")
#: the port a LAN game listens on (the host's default)
LAN_PORT = 7531
#: under a persistent host data directory: one directory per ``play`` session
SESSIONS_DIR = "play-sessions"
#: the identity files a session directory links to
IDENTITY_FILES = (CERT_FILE, KEY_FILE, SIGNING_KEY_FILE)
#: in a session directory: the process id of the ``play`` that owns it
OWNER_FILE = "owner.pid"


class ClientError(click.ClickException):
    """A failure the user should see as one line (exit status 1).

    The message often quotes the host (a refusal, why it closed the connection), so it is made
    safe to show (:func:`protocol.text.safe_text`): one line, nothing the terminal acts on.
    """

    def __init__(self, message: str) -> None:
        super().__init__(safe_text(message))


def default_name() -> str:
    """The login name, capitalised, as the default player name."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = ""
    name = "".join(ch for ch in name if ch.isprintable())[:32]
    return name.capitalize() or "Player"


def parse_options(pairs: tuple[str, ...]) -> dict[str, str]:
    """``KEY=VALUE`` strings as a dict; the host validates the values."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        out[key.strip()] = value.strip()
    return out


def new_session_dir(base: Path, *, name: str = "onecard host") -> Path:
    """A fresh host data directory for one ``play`` session, sharing ``base``'s identity.

    The identity is created in ``base`` first if it is missing (``name`` goes into a new
    certificate), then linked (copied where links are not allowed) into
    ``base/play-sessions/<YYYYmmdd-HHMMSS>-<random>/``.

    Raises:
        ClientError: ``base`` cannot be written or holds unreadable key files.
    """
    try:
        load_or_create_identity(base, name=name)
        root = base / SESSIONS_DIR
        root.mkdir(parents=True, exist_ok=True)
        sweep_sessions(root)
        session = Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=root))
    except IdentityError as exc:
        raise ClientError(str(exc)) from None
    except OSError as exc:
        raise ClientError(f"cannot prepare the host data directory {base}: {exc}") from None
    try:
        (session / OWNER_FILE).write_text(f"{os.getpid()}\n", encoding="ascii")
        for file in IDENTITY_FILES:
            try:
                os.symlink((base / file).resolve(), session / file)
            except OSError:  # no symlinks here: a private copy, 0600 from the start
                _copy_private(base / file, session / file)
    except OSError as exc:
        shutil.rmtree(session, ignore_errors=True)  # never leave half a session behind
        raise ClientError(f"cannot prepare the host data directory {base}: {exc}") from None
    return session


def _copy_private(src: Path, dst: Path) -> None:
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(src.read_bytes())


def sweep_sessions(root: Path) -> list[Path]:
    """Tidy the session directories whose ``play`` died without tidying (a crash, a kill).

    A directory is left alone while the process named in its ``owner.pid`` runs (or when that
    cannot be told); one whose owner is gone is tidied like a finished session
    (:func:`end_session_dir`: the journal and key files go, hand records stay). Returns the
    directories tidied. Never raises.
    """
    tidied = []
    with suppress(OSError):
        for session in root.iterdir():
            if session.is_dir() and not _owner_alive(session / OWNER_FILE):
                end_session_dir(session)
                tidied.append(session)
    return tidied


def _owner_alive(path: Path) -> bool:
    try:
        pid = int(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        return not (path.parent / DB_FILE).exists()  # no owner and no journal: records only
    except (OSError, ValueError):
        return True  # cannot tell: leave it
    if pid == os.getpid() or sys.platform == "win32":  # (os.kill would end it there)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def end_session_dir(session: Path) -> Path | None:
    """Tidy a finished session directory; return its ``records/`` if any record was kept.

    The journal database and the identity links (or copies) go; the hand records stay. A
    session without records is removed entirely. Nothing here raises: a leftover is harmless.
    """
    leftovers = (
        DB_FILE, DB_FILE + "-wal", DB_FILE + "-shm", OWNER_FILE, LOCK_FILE, HOST_LOCK_FILE,
    )  # fmt: skip
    for file in (*IDENTITY_FILES, *leftovers):
        with suppress(OSError):
            (session / file).unlink()
    records = session / RECORDS_DIR
    with suppress(OSError):
        if records.is_dir() and any(records.iterdir()):
            return records
    shutil.rmtree(session, ignore_errors=True)
    return None


def want_ascii(flag: bool) -> bool:
    """ASCII cards when asked, or when stdout cannot encode the suit symbols."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    return flag or encoding not in ("utf8", "utf_8")


def make_ui(*, json_mode: bool, ascii_only: bool, command: str = "play") -> HumanUI | JsonUI:
    """The front end: NDJSON for scripts, rich text for people (``command``, ``play`` or
    ``join``, words the question asked before leaving a game)."""
    if json_mode:
        return JsonUI()
    return HumanUI(make_console(ascii_only=ascii_only), ascii_only=ascii_only, command=command)


def _host_error(exc: BaseException) -> ClientError | None:
    """The one-line error for a failure while starting or talking to a host, if it is one."""
    if isinstance(exc, TrustError | Disconnected):
        return ClientError(str(exc))
    if isinstance(exc, RequestError):
        return ClientError(f"the host refused: {exc}")
    if isinstance(exc, ProtocolError):
        return ClientError(exc.message)
    if isinstance(exc, OSError):
        return ClientError(f"network error: {exc.strerror or exc}")
    return None


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
        await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
        nursery.cancel_scope.cancel()


async def run_play(
    *,
    game: str = "one-card",
    bots: int = 2,
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
    seats = bots + 1
    proofs = (state_dir or default_state_dir()) / "proofs"
    with tempfile.TemporaryDirectory(prefix="onecard-play-") as tmp:
        session_dir: Path | None = None
        if data_dir is None and not lan:
            host_dir = Path(tmp)
        else:  # persistent keys, a fresh directory for this session's tables and records
            base = data_dir or Path(platformdirs.user_data_dir("onecard"))
            host_dir = session_dir = new_session_dir(base, name=f"{name}'s table"[:32])
            kept = session_dir / RECORDS_DIR
            ui.info(
                f"This session's tables and hand records: {session_dir} (records in {kept}; "
                "earlier sessions keep theirs in their own folders next to it)",
                kind="host_data", dir=str(session_dir), records=str(kept),
            )  # fmt: skip
        config = HostConfig(
            data_dir=host_dir,
            bind=None if lan else "127.0.0.1",
            port=(LAN_PORT if port is None else port) if lan else (port or 0),
            name=f"{name}'s table"[:32],
            advertise=lan,
            bot_think=delay,
            # alone with bots nobody waits on you; friends on the LAN get the host's default
            turn_timer=DEFAULT_TURN_TIMER if lan else None,
        )
        play = functools.partial(
            _play_at, ui=ui, game=game, seats=seats, options=options or {}, name=name,
            watch=watch, lan=lan, proofs=proofs, rematch=rematch or not json_mode,
        )  # fmt: skip
        try:
            return await _serve_and_play(config, play)
        finally:
            if session_dir is not None:
                end_session_dir(session_dir)


async def _serve_and_play(
    config: HostConfig, play: Callable[[HostInfo], Awaitable[dict[str, Any] | None]]
) -> dict[str, Any] | None:
    """Run the embedded host while ``play`` plays at it; shut the host down after."""
    async with trio.open_nursery() as nursery:
        try:
            info = await nursery.start(serve_host, config)
        except DataDirError as exc:
            raise ClientError(str(exc)) from None
        except OSError as exc:
            raise ClientError(f"cannot start the host: {exc.strerror or exc}") from None
        try:
            outcome = await play(info)
        except (TrustError, Disconnected, RequestError, ProtocolError, OSError) as exc:
            raise (_host_error(exc) or exc) from None
        finally:
            with trio.move_on_after(5):
                await info.host.shutdown()
            nursery.cancel_scope.cancel()
    return outcome


async def _play_at(
    info: HostInfo,
    *,
    ui: HumanUI | JsonUI,
    game: str,
    seats: int,
    options: dict[str, Any],
    name: str,
    watch: bool,
    lan: bool,
    proofs: Path,
    rematch: bool,
) -> dict[str, Any] | None:
    host = info.host
    table = await host.create_table(game, seats=seats, options=options)
    address, port = _loopback(info)
    connected = await open_stream(address, port, expect=info.fingerprint)

    async def reconnect() -> trio.abc.Stream:
        return (await open_stream(address, port, expect=info.fingerprint)).stream

    async with open_session(connected.stream) as session:
        tc = TableClient(session, table_id=table, name=None if watch else name, proofs_dir=proofs)
        if watch:
            await tc.watch()  # first, so that we see the first deal's commitment
            await host.add_bots(table, seats)
            title = GAME_TITLES.get(game, game)
            ui.info(f"Watching {seats} bots play {title} (table {table})", kind="watching",
                    table=table)  # fmt: skip
            return await run_table(tc, ui, reconnect=reconnect, records_dir=proofs)
        await tc.join(0)
        if lan:
            targets = [f"{a}:{port}" for a in lan_addresses(info)]
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
                    await host.add_bots(table, 1)
                except ProtocolError:
                    break  # a friend took the last seat meanwhile
        else:
            await host.add_bots(table, seats - 1)
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
        return await run_table(
            tc, ui, reconnect=reconnect, offer_rematch=rematch, records_dir=proofs
        )


# --------------------------------------------------------------------------- click


def common_options(func: Any) -> Any:
    """Options shared by ``play`` and ``join``."""
    for option in reversed(
        [
            click.option("--name", default=None, help="Your player name (default: login name)."),
            click.option("--ascii", "ascii_only", is_flag=True, help="Cards as 7S/QH, no symbols."),
            click.option(
                "--json", "json_mode", is_flag=True,
                help="One JSON object per event on stdout, one JSON command per line on stdin "
                "(spec/CLIENT-JSON.md).",
            ),
            click.option(
                "--rematch", is_flag=True,
                help="With --json: after a game, ask to play again (a rematch event; answer "
                '{"cmd": "rematch"}) instead of ending. People at a terminal are always asked.',
            ),
            click.option(
                "--state-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                envvar="ONECARD_STATE_DIR",
                help="Where resume tokens and deal proofs are kept (default: user state dir).",
            ),
        ]
    ):  # fmt: skip
        func = option(func)
    return func


@click.command("play", short_help="Play against bots right now (embedded host, no setup).")
@click.option(
    "--game",
    type=click.Choice(GAME_CHOICES),
    default="one-card",
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
    "--option",
    "option_pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="A table option (house rule) of the chosen game, e.g. --game black-jack --option "
    "jokers=2; repeatable.",
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
@common_options
def play_command(
    *,
    game: str,
    bots: int,
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
) -> None:
    """Start a host on this machine, fill the other seats with bots and play a game."""
    if watch and lan:
        raise click.UsageError("--watch and --lan do not go together")
    options = parse_options(option_pairs)
    run_sync(
        run_play,
        game=game, bots=bots, options=options, name=name, watch=watch, delay=delay,
        ascii_only=want_ascii(ascii_only), json_mode=json_mode, lan=lan, port=port,
        data_dir=data_dir, state_dir=state_dir, rematch=rematch,
    )  # fmt: skip


async def _interruptible(func: Any, kwargs: dict[str, Any]) -> Any:
    """Run ``func``; Ctrl-C (SIGINT) raises KeyboardInterrupt here, wherever the game is."""
    result: Any = None

    async def main() -> None:
        nonlocal result
        result = await func(**kwargs)
        nursery.cancel_scope.cancel()

    async def interrupt() -> None:
        with trio.open_signal_receiver(signal.SIGINT) as signals:
            async for _ in signals:
                raise KeyboardInterrupt

    async with trio.open_nursery() as nursery:
        nursery.start_soon(interrupt)
        nursery.start_soon(main)
    return result


def run_sync(func: Any, **kwargs: Any) -> Any:
    """``trio.run`` a plain async function; errors become one line, Ctrl-C exits with 130.

    Trio nurseries wrap exceptions in groups; the first meaningful one inside is reported.
    """
    try:
        return trio.run(_interruptible, func, kwargs)
    except BaseException as exc:
        found_all = leaves(exc)
        for kind in (KeyboardInterrupt, Quit, click.ClickException):
            found = next((leaf for leaf in found_all if isinstance(leaf, kind)), None)
            if isinstance(found, KeyboardInterrupt):
                click.echo("", err=True)
                sys.exit(130)
            if isinstance(found, Quit):
                return None
            if isinstance(found, click.ClickException):
                raise found from None
        for leaf in found_all:
            mapped = _host_error(leaf)
            if mapped is not None:
                raise mapped from None
        raise
