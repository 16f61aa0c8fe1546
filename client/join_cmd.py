"""``onecard join``: connect to a host on the LAN, pick a table in its lobby, play or watch.

How it works: :func:`join_command` parses options and calls :func:`run_join`, which

1. finds the host: ``ADDRESS`` (``host[:port]``, ``[v6]:port``) or, without one, the hosts
   heard on the LAN (:func:`client.discover.browse`), offered as a numbered list;
2. connects with :func:`client.trust.open_stream`: TLS 1.3, the fingerprint checked against the
   known_hosts pin before anything is sent (``--insecure``: plain TCP), and shows the
   fingerprint so the players can compare it with the host's screen. A first fingerprint is
   pinned only after the host's ``welcome`` (:func:`client.trust.host_session`): a TLS server
   that is no onecard host is reported as such and never pinned;
3. takes back a seat held at this host (a resume token in the state directory, kept per host
   and player name: only without ``--name`` or with the same name, never with ``--new``) or
   runs the lobby: list the tables, then join, watch or create one
   (``--table``/``--create``/``--watch`` skip the questions, for scripts and ``--json``);
4. says ``ready`` and runs :func:`client.table_loop.run_table` until the game is over,
   reconnecting and resuming if the connection drops; a seated player is then asked "Play
   again?" (``--json``: only with ``--rematch``), and one who leaves a finished table gives the
   seat up (``leave``) so the others see it free and anyone, this player included, may take it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
import trio

import protocol.table_messages as tm
from client.choices import clip
from client.discover import browse
from client.fairplay import TableClient
from client.human_ui import HumanUI
from client.json_ui import JsonUI
from client.options import connection_options, table_id
from client.play_cmd import (
    ClientError,
    common_options,
    default_name,
    make_ui,
    parse_options,
    run_sync,
    want_ascii,
)
from client.session import (
    ClientSession,
    Disconnected,
    RequestError,
    SavedSeat,
    TokenStore,
    expect_reply,
)
from client.table_loop import Quit, run_table
from client.trust import (
    Connected,
    HostKeyChanged,
    KnownHosts,
    TrustError,
    host_session,
    open_stream,
)
from protocol.errors import LocalProtocolError

__all__ = ["DEFAULT_PORT", "join_command", "run_join", "split_address"]

DEFAULT_PORT = 7531
#: seats a new table may have (``--seats`` and the lobby's ``c``); host bots go up to one less
SEATS_RANGE = (2, 10)
#: the lobby's create command, as its errors name it
CREATE_USAGE = "c GAME [SEATS] [BOTS] [KEY=VALUE ...]"
LOBBY_HELP = (
    f"Type a table number to join it, w NUMBER to watch, {CREATE_USAGE} to create a "
    f"table and sit down (games: one-card, one, black-jack; SEATS {SEATS_RANGE[0]}-"
    f"{SEATS_RANGE[1]}; BOTS fill seats; KEY=VALUE sets a table option, as --option: "
    "black-jack 3 1 jokers=2), r to list the tables again, ? for this help, q to quit."
)


def split_address(address: str) -> tuple[str, int]:
    """``host[:port]`` (or ``[v6]:port``) as (host, port).

    >>> split_address("den.local"), split_address("10.0.0.2:7000"), split_address("[::1]:9")
    (('den.local', 7531), ('10.0.0.2', 7000), ('::1', 9))
    """
    text = address.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, ""
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise click.BadParameter(f"bad port in {address!r}", param_hint="ADDRESS")
    if not host:
        raise click.BadParameter(f"no host in {address!r}", param_hint="ADDRESS")
    return host, int(port) if port else DEFAULT_PORT


async def _readline() -> str | None:
    line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
    return line.rstrip("\r\n") if line else None


async def _pick_host(ui: HumanUI | JsonUI, timeout: float) -> tuple[list[str], int]:
    """A host heard on the LAN: its addresses (to try in turn) and port."""
    ui.info(f"Looking for hosts on the LAN ({timeout:g} s)...", kind="discovering")
    try:
        hosts = await browse(timeout)
    except OSError as exc:
        raise ClientError(f"cannot look for hosts ({exc}); give an ADDRESS") from None
    if not hosts:
        raise ClientError("no hosts found on the LAN (multicast may be blocked); give an ADDRESS")
    if len(hosts) == 1 or isinstance(ui, JsonUI):
        if len(hosts) > 1:
            found = ", ".join(h.target for h in hosts)
            raise ClientError(f"several hosts found ({found}); give an ADDRESS")
        ui.info(f"Found {hosts[0].name} at {', '.join(hosts[0].targets)}")
        return list(hosts[0].candidates), hosts[0].port
    for i, ad in enumerate(hosts, 1):
        ui.info(f"  {i}) {ad.name}  {ad.target}  fingerprint {ad.fingerprint}")
    while True:
        if isinstance(ui, HumanUI):
            ui.prompt(f"Host 1-{len(hosts)} (q to quit): ")
        line = await _readline()
        if line is None or line.strip().lower() == "q":
            raise Quit
        if line.strip().isdigit() and 1 <= int(line) <= len(hosts):
            ad = hosts[int(line) - 1]
            return list(ad.candidates), ad.port
        ui.info(f"type a number from 1 to {len(hosts)}")


def _describe_table(i: int, t: dict[str, Any]) -> str:
    seats = t.get("seats") or []
    taken = [s["name"] for s in seats if s]
    who = f" ({', '.join(taken)})" if taken else ""
    return f"  {i}) {t.get('table')}  {t.get('game')}  {len(taken)}/{len(seats)} seats  " + (
        f"{t.get('phase')}{who}"
    )


async def _read_lobby_line(session: ClientSession) -> str | None:
    """The next input line, or :class:`Disconnected` as soon as the host closes meanwhile."""
    line: str | None = None
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            nonlocal line
            line = await _readline()
            nursery.cancel_scope.cancel()

        async def watch_close() -> None:
            await session.closed.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(read)
        nursery.start_soon(watch_close)
    if line is None and session.closed.is_set():
        raise Disconnected(session.closed_reason or "the host closed the connection")
    return line


async def _lobby(
    session: ClientSession,
    tc_args: dict[str, Any],
    ui: HumanUI | JsonUI,
    *,
    name: str,
) -> tuple[TableClient, bool]:
    """Ask what to do until a table is joined or watched; return it and whether we sat down.

    People see the tables and the help once, then again on ``r`` (list) and ``?`` (help) and
    after the host refuses something; a typo only gets its own message. ``--json`` scripts get
    a ``tables`` event after every command.
    """
    try:
        return await _lobby_loop(session, tc_args, ui, name=name)
    except Disconnected as exc:
        raise Disconnected(session.closed_reason or str(exc)) from None


async def _lobby_loop(
    session: ClientSession,
    tc_args: dict[str, Any],
    ui: HumanUI | JsonUI,
    *,
    name: str,
) -> tuple[TableClient, bool]:
    json_mode = isinstance(ui, JsonUI)
    show_tables = show_help = True
    tables: list[dict[str, Any]] = []
    while True:
        if show_tables:
            reply = expect_reply(await session.request(tm.ListTables()), tm.Tables)
            tables = [dict(t) for t in reply.tables]
            if isinstance(ui, JsonUI):
                ui.emit({"type": "tables", "tables": tables})
            else:
                ui.info("Tables:" if tables else "No tables yet.")
                for i, t in enumerate(tables, 1):
                    ui.info(_describe_table(i, t))
        if isinstance(ui, HumanUI):
            if show_help:
                ui.info(LOBBY_HELP)
            ui.prompt("Lobby> ")
        show_tables, show_help = json_mode, False
        line = await _read_lobby_line(session)
        if line is None:
            raise Quit
        try:
            verb, arg, extra = _parse_lobby(line, tables, json_mode=json_mode)
        except ValueError as exc:
            if str(exc):
                ui.info(str(exc), kind="error")
            else:  # an empty message means "list again"
                show_tables = True
            continue
        try:
            if verb == "quit":
                raise Quit
            if verb == "help":
                show_help = True
                continue
            if verb == "create":
                arg = await _create(
                    session, arg, int(extra.get("seats", 2)), extra.get("options") or {},
                    bots=int(extra.get("bots", 0)),
                )  # fmt: skip
                verb = "join"
            if verb in ("join", "watch"):
                tc = TableClient(session, table_id=arg, name=name, **tc_args)
                if verb == "watch":
                    tc.name = tc.checker.pid = None
                    await tc.watch(name)
                    return tc, False
                await tc.join()
                return tc, True
        except RequestError as exc:
            ui.info(f"the host refused: {exc}", kind="error")
            show_tables = True
        except LocalProtocolError as exc:  # a request we could not even build
            ui.info(f"not sent: {exc.message}", kind="error")


async def _create(
    session: ClientSession, game: str, seats: int, options: dict[str, Any], *, bots: int
) -> str:
    """Create a table and seat ``bots`` host bots in it (we take a seat next); return its id."""
    created = await session.request(tm.CreateTable(game=game, seats=seats, options=options))
    assert isinstance(created, tm.TableCreated)
    for _ in range(min(bots, seats - 1)):
        await session.request(tm.AddBot(table=created.table))
    return created.table


def _count(cmd: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    """``cmd[key]`` as a whole number within ``low..high`` (``ValueError`` says what is wrong)."""
    value = cmd.get(key, default)  # a JSON integer ("1", a string, is refused)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be a whole number from {low} to {high}")
    if not low <= value <= high:
        raise ValueError(f"{key} must be from {low} to {high}, not {value}")
    return value


def _too_many_bots(seats: int, bots: int) -> str:
    """Why ``bots`` do not fit at a new table of ``seats`` (you take a seat too)."""
    return (
        f"{bots} bots do not fit at a table of {seats} seats: at most {seats - 1} "
        "(you take a seat too)"
    )


def _create_extra(cmd: dict[str, Any]) -> dict[str, Any]:
    """The checked ``seats``, ``bots`` and ``options`` of a create command (as ``--seats``...)."""
    seats = _count(cmd, "seats", 2, *SEATS_RANGE)
    bots = _count(cmd, "bots", 0, 0, SEATS_RANGE[1] - 1)
    if bots > seats - 1:
        raise ValueError(_too_many_bots(seats, bots))
    options = cmd.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError("options must be an object of KEY: VALUE")
    return {"seats": seats, "bots": bots, "options": options}


def _parse_lobby(
    line: str, tables: list[dict[str, Any]], *, json_mode: bool
) -> tuple[str, str, dict[str, Any]]:
    """A lobby command as (verb, table or game, extra); ``ValueError`` explains a bad one.

    >>> _parse_lobby("c one 3 1", [], json_mode=False)
    ('create', 'one', {'seats': 3, 'bots': 1, 'options': {}})
    >>> _parse_lobby("c black-jack 3 jokers=2 decks=2", [], json_mode=False)
    ('create', 'black-jack', {'seats': 3, 'bots': 0, 'options': {'jokers': '2', 'decks': '2'}})
    >>> _parse_lobby("5", [{"table": "t1"}], json_mode=False)
    Traceback (most recent call last):
    ValueError: no table 5 (tables are numbered 1-1)
    """
    if json_mode:
        try:
            cmd = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"not JSON: {exc}") from None
        if not isinstance(cmd, dict):
            raise ValueError("a command is a JSON object")
        verb = cmd.get("cmd")
        if "cmd" not in cmd:
            raise ValueError(
                'missing "cmd": lobby commands are join/watch {table}, create {game, seats, '
                "bots, options}, list, quit"
            )
        if verb == "quit":
            return "quit", "", {}
        if verb == "list":
            raise ValueError("")  # just list again
        if verb in ("join", "watch") and isinstance(cmd.get("table"), str):
            return str(verb), str(cmd["table"]), {}
        if verb == "create" and isinstance(cmd.get("game"), str):
            return "create", str(cmd["game"]), _create_extra(cmd)
        raise ValueError(
            "lobby commands: join/watch {table}, create {game, seats, bots, options}, list, quit"
        )
    words = line.split()
    if not words or words[0].lower() == "r":
        raise ValueError("")
    head = words[0].lower()
    if head == "q":
        return "quit", "", {}
    if head in ("?", "h", "help"):
        return "help", "", {}
    if head == "c" and len(words) >= 2:
        rest = words[2:]
        numbers: list[int] = []
        while rest and len(numbers) < 2 and rest[0].isdigit():
            numbers.append(int(rest.pop(0)))
        if any("=" not in word for word in rest):
            raise ValueError(
                f"{CREATE_USAGE}: SEATS and BOTS are numbers, then table options as KEY=VALUE"
            )
        try:
            options = parse_options(tuple(rest))  # as join --option
        except click.BadParameter as exc:
            raise ValueError(f"{CREATE_USAGE}: {exc.message}") from None
        extra: dict[str, Any] = dict(zip(("seats", "bots"), numbers, strict=False))
        return "create", words[1], _create_extra({**extra, "options": options})
    watch = head == "w"
    rest = words[1:] if watch else words
    if len(rest) == 1 and rest[0].isdigit():
        number = rest[0]
        if 1 <= int(number) <= len(tables):
            return ("watch" if watch else "join"), str(tables[int(number) - 1]["table"]), {}
        if not tables:
            raise ValueError(f"no table {number}: there are no tables yet (c GAME creates one)")
        raise ValueError(f"no table {number} (tables are numbered 1-{len(tables)})")
    raise ValueError(f"not understood: {clip(line.strip())!r} (? for help)")


async def _connect_first(
    candidates: list[str], port: int, ui: HumanUI | JsonUI, *, insecure: bool, pins: KnownHosts
) -> tuple[str, Connected]:
    """Connect to the first of a host's addresses that answers (a discovered host may advertise
    several: IPv4 and IPv6, one per interface); raise the last failure if none does."""
    for i, host in enumerate(candidates):
        try:
            connected = await open_stream(
                host, port, insecure=insecure, known_hosts=pins, pin=False
            )
        except HostKeyChanged:
            raise
        except TrustError as exc:
            if i == len(candidates) - 1:
                raise
            ui.info(f"({exc}; trying the next address)", kind="retry")
            continue
        return host, connected
    raise TrustError("no address to connect to")


async def run_join(
    *,
    address: str | None,
    name: str | None = None,
    insecure: bool = False,
    known_hosts: Path | None = None,
    state_dir: Path | None = None,
    ascii_only: bool = False,
    json_mode: bool = False,
    table: str | None = None,
    watch: bool = False,
    create: str | None = None,
    seats: int = 2,
    bots: int = 0,
    options: dict[str, Any] | None = None,
    timeout: float = 2.0,
    new: bool = False,
    rematch: bool = False,
) -> dict[str, Any] | None:
    """Join (or watch) a table at a host and play it to the end; return the outcome.

    A seat saved for this host is resumed unless ``new``, ``watch``, ``create`` or another
    ``table`` is asked for, or ``name`` is given and differs from the saved seat's name.
    A seated player is asked "Play again?" after each game (``--json``: only with ``rematch``).
    """
    ui = make_ui(json_mode=json_mode, ascii_only=ascii_only, command="join")
    asked_name = name
    name = name or default_name()
    if address:
        host, port = split_address(address)
        candidates = [host]
    else:
        candidates, port = await _pick_host(ui, timeout)
    pins = KnownHosts(known_hosts)
    host, connected = await _connect_first(candidates, port, ui, insecure=insecure, pins=pins)
    key = connected.key

    async def reconnect() -> trio.abc.Stream:
        return (await open_stream(host, port, insecure=insecure, known_hosts=pins)).stream

    tokens = TokenStore(state_dir)
    async with host_session(connected, insecure=insecure) as session:
        # the deal-signing key, pinned like the certificate (read after the session's first-use
        # pin: a certificate pinned afresh drops the deal key of the host it replaced)
        fair_key = pins.deal_key(key)
        tc_args: dict[str, Any] = {"proofs_dir": tokens.directory / "proofs", "host_pk": fair_key}
        if connected.fingerprint is None:
            ui.info(f"Connected to {key} WITHOUT encryption (--insecure)", kind="connected",
                    tls=False)  # fmt: skip
        else:
            note = " (first connection: pinned; compare it with the host's screen)"
            ui.info(
                f"Connected to {key}, TLS 1.3, fingerprint {connected.fingerprint}"
                + (note if connected.first_use else ""),
                kind="connected",
                fingerprint=connected.fingerprint,
                first_use=connected.first_use,
                tls=True,
            )
        welcome = session.welcome
        ui.info(f"Host: {welcome.host_name if welcome else '?'}", kind="welcome")
        tc: TableClient | None = None
        saved = None if new else _saved_seat(tokens, key, asked_name, table)
        if saved is not None and not watch and table in (None, saved.table) and create is None:
            tc = TableClient(session, table_id=saved.table, name=saved.name, **tc_args)
            try:
                await tc.resume(saved.token)
                ui.info(f"Resumed your seat {tc.seat} at table {saved.table} as {tc.name}",
                        kind="resumed", table=saved.table, seat=tc.seat)  # fmt: skip
            except RequestError:
                tokens.forget(saved.host)
                tc = None
        slot = saved.host if tc is not None and saved is not None else None
        held = tokens.get(key) if tc is None and not new else None
        if held is not None and held.name != name and isinstance(ui, HumanUI):
            ui.info(f"(a seat of {held.name} at table {held.table} is saved for this host: "
                    f"join --name {held.name} takes it back)")  # fmt: skip
        seated = tc is not None
        if tc is None:
            if create is not None:
                table = await _create(session, create, seats, options or {}, bots=bots)
            if table is not None:
                tc = TableClient(session, table_id=table, name=None if watch else name, **tc_args)
                if watch:
                    await tc.watch(name)
                else:
                    await tc.join()
                seated = not watch
            else:
                tc, seated = await _lobby(session, tc_args, ui, name=name)
            if seated:
                assert tc.token is not None and tc.seat is not None and tc.name is not None
                slot = _seat_slot(tokens, key, tc.name, tc.table_id)
                tokens.put(SavedSeat(slot, tc.table_id, tc.name, tc.seat, tc.token))
                if slot.endswith(f" at {tc.table_id}") and isinstance(ui, HumanUI):
                    ui.info(f"(your other seat stays saved too: join --table {tc.table_id} "
                            "takes this one back, join alone the other)")  # fmt: skip
                ui.info(f"Seated at table {tc.table_id}, seat {tc.seat}, as {tc.name}; ready",
                        kind="seated", table=tc.table_id, seat=tc.seat)  # fmt: skip
                await tc.ready()
            else:
                ui.info(f"Watching table {tc.table_id}", kind="watching", table=tc.table_id)
        try:
            outcome = await run_table(
                tc,
                ui,
                read_input=True,
                reconnect=reconnect,
                records_dir=tc_args["proofs_dir"],
                # a person watching stays for the table's next game (q leaves); --json exits
                until_game_over=seated or not isinstance(ui, HumanUI),
                offer_rematch=seated and (rematch or isinstance(ui, HumanUI)),
                leave_when_done=seated,
            )
        finally:
            learnt = tc.checker.host_pk
            if fair_key is None and learnt is not None:
                pins.pin_deal_key(key, learnt)
        if outcome is not None and seated and slot is not None:
            tokens.forget(slot)
        await session.bye("leaving")
    return outcome


def _saved_seat(
    tokens: TokenStore, key: str, name: str | None, table: str | None = None
) -> SavedSeat | None:
    """The seat to take back at ``key``: the one saved there when no ``--name`` was given,
    else only a seat saved under that very name (another player's seat is left alone); with
    ``table``, only a seat at that table (one saved apart for it included)."""
    slots = [key] if name is None else [key, _named_slot(key, name)]
    if table is not None:
        slots += [f"{slot} at {table}" for slot in slots]
    for slot in slots:
        saved = tokens.get(slot)
        if saved is None or (name is not None and saved.name != name):
            continue
        if table is None or saved.table == table:
            return saved
    return None


def _named_slot(key: str, name: str) -> str:
    """The token store entry of a second player from this state directory at ``key``."""
    return f"{key} as {name}"  # a host:port has no spaces


def _seat_slot(tokens: TokenStore, key: str, name: str, table: str) -> str:
    """Where to save a new seat of ``name`` at ``table``: the host's own entry unless it holds
    someone else's seat, which must stay resumable (``join --name THEM``); and apart, under
    ``... at TABLE``, when that entry holds this player's seat at another table (``--new``,
    ``--create``, ``--table``), which stays resumable too."""
    held = tokens.get(key)
    slot = key
    if held is not None and held.name != name:
        slot = _named_slot(key, name)
        held = tokens.get(slot)
    if held is not None and held.table != table:
        return f"{slot} at {table}"
    return slot


def _check_combination(
    *,
    table: str | None,
    watch: bool,
    create: str | None,
    seats: int,
    bots: int,
    option_pairs: tuple[str, ...],
) -> None:
    """Refuse options that would be silently ignored, up front (``--table`` is checked by
    :func:`client.options.table_id`)."""
    ctx = click.get_current_context()

    def given(param: str) -> bool:
        source = ctx.get_parameter_source(param)
        return source is not None and source is not click.core.ParameterSource.DEFAULT

    if create is None:
        unused = [opt for opt, param in (("--seats", "seats"), ("--bots", "bots")) if given(param)]
        if option_pairs:
            unused.append("--option")
        if unused:
            raise click.UsageError(
                f"{' and '.join(unused)} only appl{'ies' if len(unused) == 1 else 'y'} to a "
                "new table: add --create GAME"
            )
    elif table is not None:
        raise click.UsageError("--create makes a new table; --table joins one: give only one")
    elif bots > seats - 1:
        raise click.UsageError(_too_many_bots(seats, bots))
    if watch and table is None and create is None:
        raise click.UsageError("--watch needs --table TABLE (the table id to watch)")


@click.command("join", short_help="Join a host on the LAN (discovers hosts without ADDRESS).")
@click.argument("address", required=False)
@connection_options
@click.option("--table", default=None, callback=table_id,
              help="Join (or with --watch, watch) this table id.")  # fmt: skip
@click.option("--watch", is_flag=True, help="Watch instead of taking a seat.")
@click.option("--create", type=click.Choice(["one-card", "one", "black-jack"]), default=None,
              help="Create a table of this game and sit down at it.")  # fmt: skip
@click.option(
    "--seats",
    type=click.IntRange(*SEATS_RANGE),
    default=2,
    show_default=True,
    help="Seats for --create.",
)
@click.option(
    "--bots", type=click.IntRange(0, SEATS_RANGE[1] - 1), default=0, show_default=True,
    help="Host bots seated at a --create table.",
)  # fmt: skip
@click.option("--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
              help="A table option for --create; repeatable.")  # fmt: skip
@click.option(
    "--new",
    is_flag=True,
    help="Do not resume a saved seat: join as a new player (by default a seat saved for this "
    "host is taken back when --name is not given or matches it).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0.2, 60),
    default=2.0,
    show_default=True,
    help="Seconds to look for hosts when no ADDRESS is given.",
)
@common_options
def join_command(
    *,
    address: str | None,
    insecure: bool,
    known_hosts: Path | None,
    table: str | None,
    watch: bool,
    create: str | None,
    seats: int,
    bots: int,
    option_pairs: tuple[str, ...],
    timeout: float,
    new: bool,
    name: str | None,
    ascii_only: bool,
    json_mode: bool,
    state_dir: Path | None,
    rematch: bool,
) -> None:
    """Connect to the host at ADDRESS (host[:port], default port 7531) and play.

    Without ADDRESS, hosts advertised on the LAN are listed to pick from. The host's TLS
    fingerprint is pinned on first use; a changed fingerprint is refused.

    A seat you held at this host (the game was left unfinished: a crash, a lost connection) is
    taken back automatically when --name is not given or is the name you sat down with;
    another --name, --table, --create, --watch or --new joins as a new player and leaves the
    saved seat for later (a second seat of the same name is saved beside it: --table TABLE
    takes that one back).
    """
    if address is not None:
        split_address(address)  # a bad address is a usage error before anything runs
    _check_combination(table=table, watch=watch, create=create, seats=seats, bots=bots,
                       option_pairs=option_pairs)  # fmt: skip
    run_sync(
        run_join,
        address=address, name=name, insecure=insecure, known_hosts=known_hosts,
        state_dir=state_dir, ascii_only=want_ascii(ascii_only), json_mode=json_mode,
        table=table, watch=watch, create=create, seats=seats, bots=bots,
        options=parse_options(option_pairs), timeout=timeout, new=new, rematch=rematch,
    )  # fmt: skip
