"""``onecard join``: connect to a host on the LAN, pick a table in its lobby, play or watch.

How it works: :func:`join_command` parses options and calls :func:`run_join`, which

1. finds the host: ``ADDRESS`` (``host[:port]``, ``[v6]:port``) or, without one, the hosts
   heard on the LAN (:func:`net.discover.browse`), offered as a numbered list (a host whose
   advertised fingerprint is pinned says "joined before");
2. connects with :func:`net.trust.open_stream`: TLS 1.3, the fingerprint checked against the
   known_hosts pin before anything is sent (``--insecure``: plain TCP), and shows the
   fingerprint so the players can compare it with the host's screen. A discovered host must
   present the certificate its advertisement claims, and a new one may not take the name of
   a pinned host (:class:`net.trust.NotTheAdvertisedHost`). A first fingerprint is
   pinned only after the host's ``welcome`` (:func:`net.trust.host_session`): a TLS server
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

import dataclasses
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import trio

import protocol.table_messages as tm
from client.commands import (
    ClientError,
    HostUnavailable,
    Quit,
    common_options,
    default_name,
    make_ui,
    parse_options,
    run_sync,
    want_ascii,
)
from client.human_ui import HumanUI
from client.json_ui import JsonUI
from client.lobby import SEATS_RANGE, create_table, run_lobby, too_many_bots
from client.options import connection_options, table_id
from client.stdin import read_line
from client.table_client import TableClient
from client.table_loop import LEAVE_WAIT, run_table
from client.tokens import SavedSeat, TokenStore
from net.address import Address, split_address
from net.discover import HostAd, browse
from net.session import ClientSession, Disconnected, RequestError
from net.trust import (
    Advertised,
    Connected,
    HostKeyChanged,
    KnownHosts,
    TrustError,
    host_session,
    open_stream,
)

__all__ = ["join_command", "run_join"]


async def _pick_host(ui: HumanUI | JsonUI, timeout: float, pins: KnownHosts) -> HostAd:
    """A host heard on the LAN (its addresses are tried in turn; its advertisement binds the
    certificate it must present: :class:`net.trust.Advertised`)."""
    ui.info(f"Looking for hosts on the LAN ({timeout:g} s)...", kind="discovering")
    try:
        hosts = await browse(timeout)
    except OSError as exc:
        raise ClientError(f"cannot look for hosts ({exc}); give an ADDRESS") from None
    if not hosts:
        raise HostUnavailable(
            "no hosts found on the LAN (multicast may be blocked); give an ADDRESS"
        )
    if len(hosts) == 1 or isinstance(ui, JsonUI):
        if len(hosts) > 1:
            found = ", ".join(h.target for h in hosts)
            raise ClientError(f"several hosts found ({found}); give an ADDRESS")
        ui.info(f"Found {hosts[0].name} at {', '.join(hosts[0].targets)}{_known(hosts[0], pins)}")
        return hosts[0]
    for i, ad in enumerate(hosts, 1):
        ui.info(f"  {i}) {ad.name}  {ad.target}  fingerprint {ad.fingerprint}{_known(ad, pins)}")
    while True:
        if isinstance(ui, HumanUI):
            ui.prompt(f"Host 1-{len(hosts)} (q to quit): ")
        line = await read_line()
        if line is None or line.strip().lower() == "q":
            raise Quit
        if line.strip().isdigit() and 1 <= int(line) <= len(hosts):
            return hosts[int(line) - 1]
        ui.info(f"type a number from 1 to {len(hosts)}")


def _known(ad: HostAd, pins: KnownHosts) -> str:
    """`` (joined before)`` when the advertised fingerprint is that of a pinned host (a hint:
    the certificate is checked on connecting).

    >>> import tempfile; pins = KnownHosts(Path(tempfile.mkdtemp()) / "kh")
    >>> pins.pin("10.0.0.2:7531", "SHA256:ab:cd:ef")
    >>> _known(HostAd("Den", "10.0.0.9", 7531, "abcd", "1"), pins)
    ' (joined before)'
    >>> _known(HostAd("Den", "10.0.0.9", 7531, "abce", "1"), pins)
    ''
    """
    claimed = Advertised(ad.name, ad.fp)
    pinned = {v for _, v in pins.pinned()}
    return " (joined before)" if ad.fp and any(claimed.matches(fp) for fp in pinned) else ""


async def _connect_first(
    candidates: list[str],
    port: int,
    ui: HumanUI | JsonUI,
    *,
    insecure: bool,
    pins: KnownHosts,
    advertised: Advertised | None = None,
) -> tuple[str, Connected]:
    """Connect to the first of a host's addresses that answers (a discovered host may advertise
    several: IPv4 and IPv6, one per interface); raise the last failure if none does. A host
    whose certificate is not the one ``advertised`` claims is refused at once."""
    for i, host in enumerate(candidates):
        try:
            connected = await open_stream(
                host, port, insecure=insecure, known_hosts=pins, pin=False, advertised=advertised
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
    private: bool = False,
) -> dict[str, Any] | None:
    """Join (or watch) a table at a host and play it to the end; return the outcome.

    A seat saved for this host is resumed unless ``new``, ``watch``, ``create`` or another
    ``table`` is asked for, or ``name`` is given and differs from the saved seat's name.
    A seated player is asked "Play again?" after each game (``--json``: only with ``rematch``).
    """
    ui = make_ui(json_mode=json_mode, ascii_only=ascii_only, command="join")
    asked_name = name
    name = name or default_name()
    pins = KnownHosts(known_hosts)
    advertised: Advertised | None = None
    if address:
        host, port = split_address(address)
        candidates = [host]
    else:
        ad = await _pick_host(ui, timeout, pins)
        candidates, port, advertised = list(ad.candidates), ad.port, Advertised(ad.name, ad.fp)
    host, connected = await _connect_first(
        candidates, port, ui, insecure=insecure, pins=pins, advertised=advertised
    )
    key = connected.key

    async def reconnect() -> trio.abc.Stream:
        return (await open_stream(host, port, insecure=insecure, known_hosts=pins)).stream

    tokens = TokenStore(state_dir)
    async with host_session(connected, insecure=insecure) as session:
        # the deal-signing key, pinned like the certificate (read after the session's first-use
        # pin: a certificate pinned afresh drops the deal key of the host it replaced)
        fair_key = pins.deal_key(key)
        tc_args: dict[str, Any] = {
            "proofs_dir": tokens.directory / "proofs",
            "host_pk": fair_key,
            "keys_dir": tokens.directory,
        }
        _say_connected(ui, connected, key)
        welcome = session.welcome
        ui.info(f"Host: {welcome.host_name if welcome else '?'}", kind="welcome")
        want = _Want(
            name=name,
            asked_name=asked_name,
            table=table,
            watch=watch,
            create=create,
            seats=seats,
            bots=bots,
            options=options or {},
            new=new,
            private=private,
        )
        while True:
            tc, seated, slot = await _take_seat(
                session, ui, tokens, key, tc_args=tc_args, want=want
            )
            try:
                records = tc_args["proofs_dir"]
                outcome = await _play_table(
                    tc, ui, seated=seated, reconnect=reconnect, rematch=rematch, records=records
                )
            finally:
                learnt = tc.checker.host_pk
                if fair_key is None and learnt is not None:
                    pins.pin_deal_key(key, learnt)
                    fair_key = tc_args["host_pk"] = learnt
            if not (isinstance(ui, HumanUI) and _back_to_lobby(tc, want)):
                break
            await _back_in_lobby(tc, ui, tokens, slot if seated else None)
            want = dataclasses.replace(want, new=True)  # (no saved seat to take back now)
        if seated and slot is not None and (outcome is not None or tc.token is None):
            tokens.forget(slot)  # (a seat left mid-game is the host's bot's: nothing to resume)
        await session.bye("leaving")
    return outcome


async def _play_table(
    tc: TableClient,
    ui: HumanUI | JsonUI,
    *,
    seated: bool,
    reconnect: Callable[[], Awaitable[trio.abc.Stream]],
    rematch: bool,
    records: Path,
) -> dict[str, Any] | None:
    """The table loop, as ``join`` runs it; the game's outcome."""
    return await run_table(
        tc,
        ui,
        read_input=True,
        reconnect=reconnect,
        records_dir=records,
        # a person watching stays for the table's next game (q leaves); --json exits
        until_game_over=seated or not isinstance(ui, HumanUI),
        offer_rematch=seated and (rematch or isinstance(ui, HumanUI)),
        leave_when_done=seated,
    )


def _back_to_lobby(tc: TableClient, want: _Want) -> bool:
    """Whether the table loop ended with the player leaving a table picked in the lobby
    before any game started there: the lobby comes back instead of the program ending."""
    picked = want.table is None and want.create is None
    connected = not tc.session.closed.is_set()
    return picked and connected and tc.state is None and tc.outcome is None


async def _back_in_lobby(
    tc: TableClient, ui: HumanUI, tokens: TokenStore, slot: str | None
) -> None:
    """Give our seat (``slot``, None when we watched) up at once, so the lobby lists it free."""
    if slot is not None:
        with suppress(RequestError, Disconnected, trio.TooSlowError):
            await tc.session.request(tm.Leave(table=tc.table_id), timeout=LEAVE_WAIT)
        tokens.forget(slot)
    ui.info("Back in the lobby", kind="lobby")


def _say_connected(ui: HumanUI | JsonUI, connected: Connected, key: str) -> None:
    """How we are connected: the fingerprint to compare with the host's screen, or no TLS."""
    if connected.fingerprint is None:
        ui.info(f"Connected to {key} WITHOUT encryption (--insecure)", kind="connected", tls=False)
        return
    note = " (first connection: pinned; compare it with the host's screen)"
    ui.info(
        f"Connected to {key}, TLS 1.3, fingerprint {connected.fingerprint}"
        + (note if connected.first_use else ""),
        kind="connected",
        fingerprint=connected.fingerprint,
        first_use=connected.first_use,
        tls=True,
    )


@dataclass(frozen=True)
class _Want:
    """What the command line asked for: a name, a table, to watch or create one."""

    name: str
    asked_name: str | None
    table: str | None
    watch: bool
    create: str | None
    seats: int
    bots: int
    options: dict[str, Any]
    new: bool
    private: bool = False


async def _take_seat(
    session: ClientSession,
    ui: HumanUI | JsonUI,
    tokens: TokenStore,
    key: str,
    *,
    tc_args: dict[str, Any],
    want: _Want,
) -> tuple[TableClient, bool, str | None]:
    """Resume a saved seat, or join, watch or create a table (the lobby when the command line
    did not say which); return the table, whether we sat down, and the token entry kept."""
    tc: TableClient | None = None
    saved = None if want.new else tokens.saved_seat(key, want.asked_name, want.table)
    if (
        saved is not None
        and not want.watch
        and want.create is None
        and (want.table in (None, saved.table))
    ):
        tc = TableClient(session, table_id=saved.table, name=saved.name, **tc_args)
        try:
            await tc.resume(saved.token)
            ui.info(
                f"Resumed your seat {tc.seat} at table {saved.table} as {tc.name}",
                kind="resumed",
                table=saved.table,
                seat=tc.seat,
            )
            return tc, True, saved.host
        except RequestError:
            tokens.forget(saved.host)
    held = tokens.get(key) if not want.new else None
    if held is not None and held.name != want.name and isinstance(ui, HumanUI):
        ui.info(
            f"(a seat of {held.name} at table {held.table} is saved for this host: "
            f"join --name {held.name} takes it back)"
        )
    table = want.table
    if want.create is not None:
        table = await create_table(
            session, want.create, want.seats, want.options, bots=want.bots, private=want.private
        )
    if table is None:
        tc, seated = await run_lobby(session, tc_args, ui, name=want.name)
    else:
        tc = TableClient(session, table_id=table, name=None if want.watch else want.name, **tc_args)
        seated = not want.watch
        await (tc.watch(want.name) if want.watch else tc.join())
    if not seated:
        ui.info(f"Watching table {tc.table_id}", kind="watching", table=tc.table_id)
        return tc, False, None
    assert tc.token is not None and tc.seat is not None and tc.name is not None
    slot = tokens.seat_slot(key, tc.name, tc.table_id)
    tokens.put(SavedSeat(slot, tc.table_id, tc.name, tc.seat, tc.token))
    if slot.endswith(f" at {tc.table_id}") and isinstance(ui, HumanUI):
        ui.info(
            f"(your other seat stays saved too: join --table {tc.table_id} "
            "takes this one back, join alone the other)"
        )
    ui.info(
        f"Seated at table {tc.table_id}, seat {tc.seat}, as {tc.name}; ready",
        kind="seated",
        table=tc.table_id,
        seat=tc.seat,
    )
    await tc.ready()
    return tc, True, slot


def _check_combination(
    *,
    table: str | None,
    watch: bool,
    create: str | None,
    seats: int,
    bots: int,
    option_pairs: tuple[str, ...],
    private: bool = False,
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
        if private:
            unused.append("--private")
        if unused:
            raise click.UsageError(
                f"{' and '.join(unused)} only appl{'ies' if len(unused) == 1 else 'y'} to a "
                "new table: add --create GAME"
            )
    elif table is not None:
        raise click.UsageError("--create makes a new table; --table joins one: give only one")
    elif bots > seats - 1:
        raise click.UsageError(too_many_bots(seats, bots))
    if watch and table is None and create is None:
        raise click.UsageError("--watch needs --table TABLE (the table id to watch)")


@click.command("join", short_help="Join a host on the LAN (discovers hosts without ADDRESS).")
@click.argument("address", required=False, type=Address())
@connection_options
@click.option(
    "--table", default=None, callback=table_id, help="Join (or with --watch, watch) this table id."
)
@click.option("--watch", is_flag=True, help="Watch instead of taking a seat.")
@click.option(
    "--create",
    metavar="GAME",
    default=None,
    help="Create a table of this game (one the host runs: it names them if not) and sit down.",
)
@click.option(
    "--seats",
    type=click.IntRange(*SEATS_RANGE),
    default=2,
    show_default=True,
    help="Seats for --create.",
)
@click.option(
    "--bots",
    type=click.IntRange(0, SEATS_RANGE[1] - 1),
    default=0,
    show_default=True,
    help="Host bots seated at a --create table.",
)
@click.option(
    "--option",
    "option_pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="A table option for --create; repeatable.",
)
@click.option(
    "--private",
    is_flag=True,
    help="With --create: a private table, where the host never sees a hidden card (each "
    "seat masks the deck and opens its own cards; keys kept in the state directory).",
)
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
    private: bool,
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
    _check_combination(
        table=table,
        watch=watch,
        create=create,
        seats=seats,
        bots=bots,
        option_pairs=option_pairs,
        private=private,
    )
    run_sync(
        run_join,
        address=address,
        name=name,
        insecure=insecure,
        known_hosts=known_hosts,
        state_dir=state_dir,
        ascii_only=want_ascii(ascii_only),
        json_mode=json_mode,
        table=table,
        watch=watch,
        create=create,
        seats=seats,
        bots=bots,
        options=parse_options(option_pairs),
        timeout=timeout,
        new=new,
        rematch=rematch,
        private=private,
    )
