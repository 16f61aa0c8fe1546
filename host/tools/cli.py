"""``onecard host`` and ``onecard bot``: click commands that only parse options.

How it works: each command turns its options into arguments of a plain async function and runs
it with ``trio.run``: :func:`run_host` (serve until Ctrl-C or SIGTERM, then shut down
gracefully: clients get ``server_closing``) and :func:`host.bots.bots.run_bots`. Domain errors
(unreadable key files, a port in use, a refused table) become ``click.ClickException`` so the
user sees one clean line and a non-zero exit status. What a peer said is never printed raw:
the ``-v`` log escapes it (:mod:`host.logs`, on the stderr handler too, for the records of
other libraries), and ``onecard bot`` makes the host's refusals, notices and outcome safe to
show (:func:`protocol.text.safe_text`). Errors reach here inside trio's exception
groups (``serve_host`` runs in a nursery, and ``nursery.start`` wraps what its task raised):
:func:`net.session.first_leaf` unwraps them, and anything unexpected is re-raised as itself, not
as a group.

``onecard host`` exits (:mod:`protocol.exit_codes`) with 0 after Ctrl-C or SIGTERM; 1 when it
cannot start (the port is taken, the data directory is in use, cannot be made or written); 2
for bad options (click); 65 (``DATA``, ``EX_DATAERR``) when a file in the data directory is
damaged or unreadable: the database, a key file, a ``records`` path that is not a directory,
an empty database beside hand records. The message names the file and what to do; starting
again will not help until someone does, so a supervisor should not restart on it (systemd:
``RestartPreventExitStatus=65``).
"""

from __future__ import annotations

import functools
import logging
import signal
from pathlib import Path

import click
import platformdirs
import trio

from host.bots.bots import TableFinished, run_bots
from host.bots.thinking import SEARCH_WAIT_S, SEARCHES_PER_WORKER, ThinkingLimits
from host.logs import SafeText
from host.server.gc_tuning import keep_full_collections_short
from host.server.identity import IdentityError, IdentityUnreadable, default_host_name
from host.server.lobby import MAX_BOTS_PER_CLIENT, MAX_HARD_BOTS_PER_CLIENT, MAX_TABLES, BotLimits
from host.server.server import (
    DEFAULT_TURN_TIMER,
    KEEP_RECORDS_DAYS,
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_ADDRESS,
    MAX_RECORDS_BYTES,
    HostConfig,
    HostInfo,
    serve_host,
)
from host.storage.datadir import DataDirDamaged, DataDirError
from host.storage.record_files import prune_data_dir
from host.table.cheats import CheatKind, banner
from net.address import DEFAULT_PORT, Address, join_target, split_address
from net.session import RequestError, first_leaf
from net.trust import HostKeyChanged, TrustError
from protocol.errors import ProtocolError
from protocol.exit_codes import ExitCode
from protocol.lobby_messages import BOT_KINDS
from protocol.text import safe_text

__all__ = ["bot_command", "host_command", "run_host"]

APP_NAME = "onecard"
MB = 1024 * 1024
#: ``onecard bot --count``: bots one command runs
BOT_COUNT = click.IntRange(1, 16)


class DamagedDataError(click.ClickException):
    """A damaged data-directory file: one line, exit status :attr:`ExitCode.DATA`."""

    exit_code = ExitCode.DATA


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


async def run_host(config: HostConfig, *, echo: bool = True, freeze_gc: bool = False) -> None:
    """Serve until SIGINT/SIGTERM, then shut down gracefully.

    ``freeze_gc`` (a host process of its own, never a test) keeps the garbage collector's full
    collections short (:mod:`host.server.gc_tuning`): with a thousand tables each one stopped the
    event loop for up to 0.7 s.
    """
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            info: HostInfo = await nursery.start(serve_host, config)
            if freeze_gc:
                await nursery.start(keep_full_collections_short)
            if echo:
                scheme = "tcp (insecure)" if config.insecure else "tls"
                for address, port in info.addresses:
                    where = join_target(address, port)  # an IPv6 address in brackets
                    click.echo(f"onecard host listening on {where} ({scheme})")
                if config.insecure:  # no TLS: there is no certificate to compare or pin
                    click.echo("no TLS (--insecure): traffic is readable and the host unproven")
                else:
                    click.echo(f"TLS fingerprint: {info.fingerprint}")
                click.echo(f"fair-dealing key: {info.signing_key_fingerprint}")
                click.echo(f"host name: {config.name} (players see it; --name changes it)")
                click.echo(f"data directory: {config.data_dir}")
                if config.advertise and not info.advertised:
                    click.echo("not advertised on the LAN: it listens on a loopback address only")
            async for _ in signals:
                if echo:
                    click.echo("shutting down...")
                await info.host.shutdown()
                break
            nursery.cancel_scope.cancel()  # the collector's task, once the host has stopped


@click.command("host", short_help="Run a host for the LAN.")
@click.option("--bind", default=None, help="Address to listen on (default: every interface).")
@click.option(
    "--port",
    default=DEFAULT_PORT,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="TCP port; 0 picks a free one.",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where keys, the database and hand records live (default: the user data dir).",
)
@click.option(
    "--name",
    default=default_host_name(),
    show_default=True,
    help="Host display name, shown in the LAN list and to players (at most 32 characters; "
    "by default 'onecard on' and this machine's name): give each host on a LAN its own.",
)
@click.option("--insecure", is_flag=True, help="Plain TCP instead of TLS 1.3 (trusted LANs only).")
@click.option(
    "--turn-timer",
    type=click.FloatRange(0, 3600),
    default=DEFAULT_TURN_TIMER,
    show_default=True,
    help="Seconds per turn unless a table asks otherwise; on expiry the host's bot plays the "
    "move (twice in a row: 10 s turns until the player acts). 0: no timer.",
)
@click.option(
    "--grace",
    type=click.FloatRange(0, 86400),
    default=60.0,
    show_default=True,
    help="Seconds a disconnected player is waited for before a bot plays for them.",
)
@click.option("--no-advertise", is_flag=True, help="Do not announce the host on the LAN.")
@click.option(
    "--bot-think",
    type=click.FloatRange(0, 60),
    default=0.5,
    show_default=True,
    help="Seconds the host's own bots wait before each move.",
)
@click.option(
    "--bot-workers",
    type=click.IntRange(0, 256),
    default=0,
    help="Worker processes hard bots search in, one search each at a time (default 0: one "
    "per core). The host's event loop never searches.",
)
@click.option(
    "--bot-searches",
    type=click.IntRange(0, 10_000),
    default=0,
    help="Hard-bot searches underway at once host-wide, running or waiting for a worker; past "
    f"it a hard bot plays the normal move (default 0: {SEARCHES_PER_WORKER} per worker).",
)
@click.option(
    "--bot-wait",
    type=click.FloatRange(0, 60),
    default=SEARCH_WAIT_S,
    show_default=True,
    help="Seconds a hard bot's search may wait for a worker (tables take turns) before the "
    "bot plays the normal move instead; 0: search only when a worker is free.",
)
@click.option(
    "--max-bots-per-client",
    type=click.IntRange(0, 10_000),
    default=MAX_BOTS_PER_CLIENT,
    show_default=True,
    help="Host bots one connection may have seated at once (one address: twice as many).",
)
@click.option(
    "--max-hard-bots-per-client",
    type=click.IntRange(0, 10_000),
    default=MAX_HARD_BOTS_PER_CLIENT,
    show_default=True,
    help="Of those, hard bots (one address: twice as many).",
)
@click.option(
    "--max-connections",
    type=click.IntRange(1, 10_000),
    default=MAX_CONNECTIONS,
    show_default=True,
    help="Connections served at once; more are refused with error 'full'.",
)
@click.option(
    "--max-connections-per-address",
    type=click.IntRange(1, 10_000),
    default=MAX_CONNECTIONS_PER_ADDRESS,
    show_default=True,
    help="Connections served at once from one IP address (IPv6: one /64; loopback is not "
    "limited). When the host is full, a player resuming a seat still gets in.",
)
@click.option(
    "--max-tables",
    type=click.IntRange(1, 100_000),
    default=MAX_TABLES,
    show_default=True,
    help="Tables kept at once; a new one past this replaces a table nobody uses (game over, "
    "no player seated) or is refused with error 'full'.",
)
@click.option(
    "--keep-records-days",
    type=click.FloatRange(0, 100_000),
    default=KEEP_RECORDS_DAYS,
    show_default=True,
    help="Days hand records are kept; older ones are deleted (checked every minute), and a "
    "client asking for one is told 'pruned'. 0: delete them at the next check.",
)
@click.option(
    "--max-records-mb",
    type=click.IntRange(0, 100_000_000),
    default=MAX_RECORDS_BYTES // MB,
    show_default=True,
    help="Megabytes the hand records may take on disk; past this the oldest are deleted. "
    "0: no cap.",
)
@click.option(
    "--prune",
    is_flag=True,
    help="Delete the hand records that --keep-records-days and --max-records-mb do not keep, "
    "print what went, and exit (while no host serves the data directory).",
)
@click.option(
    "--cheat",
    type=click.Choice([k.value for k in CheatKind]),
    default=None,
    help="Deal DISHONESTLY on purpose, one way, to test that clients catch it "
    "(PROTOCOL.md 7.15). Never for real games.",
)
def host_command(
    *,
    bind: str | None,
    port: int,
    data_dir: Path | None,
    name: str,
    insecure: bool,
    turn_timer: float | None,
    grace: float,
    no_advertise: bool,
    bot_think: float,
    bot_workers: int,
    bot_searches: int,
    bot_wait: float,
    max_bots_per_client: int,
    max_hard_bots_per_client: int,
    max_connections: int,
    max_connections_per_address: int,
    max_tables: int,
    keep_records_days: float,
    max_records_mb: int,
    prune: bool,
    cheat: str | None,
) -> None:
    """Host tables on this machine until Ctrl-C; prints where it listens and its fingerprint.

    -v logs connections, seats and games to stderr.

    Exit status: 0 after Ctrl-C or SIGTERM, 1 if the host cannot start (port taken, data
    directory in use or not writable), 65 if a file in the data directory is damaged or
    unreadable (the message names it and what to do; starting again will not help).
    """
    # warnings and errors to stderr, unless -v/-q (every command's: client/cli.py) set it up
    logging.basicConfig(level=logging.WARNING)
    for handler in logging.getLogger().handlers:  # other libraries' records, escaped too
        if not any(isinstance(f, SafeText) for f in handler.filters):
            handler.addFilter(SafeText())
    max_records_bytes = max_records_mb * MB or None
    if prune:
        _prune(data_dir or default_data_dir(), keep_records_days, max_records_bytes)
        return
    cheat_kind = None if cheat is None else CheatKind(cheat)
    if cheat_kind is not None:  # loudly, on both streams: a cheating host must not pass unseen
        click.echo(banner(cheat_kind))
        click.echo(banner(cheat_kind), err=True)
    config = HostConfig(
        cheat=cheat_kind,
        data_dir=data_dir or default_data_dir(),
        bind=bind,
        port=port,
        name=name,
        insecure=insecure,
        turn_timer=turn_timer or None,
        grace=grace,
        advertise=not no_advertise,
        bot_think=bot_think,
        thinking=ThinkingLimits(workers=bot_workers, searches=bot_searches, wait=bot_wait),
        bot_limits=BotLimits(
            per_client=max_bots_per_client, hard_per_client=max_hard_bots_per_client
        ),
        max_connections=max_connections,
        max_connections_per_address=max_connections_per_address,
        max_tables=max_tables,
        keep_records_days=keep_records_days,
        max_records_bytes=max_records_bytes,
    )
    try:
        trio.run(functools.partial(run_host, config, freeze_gc=True))
    except BaseException as raised:
        exc = first_leaf(raised)
        if isinstance(exc, DataDirDamaged | IdentityUnreadable):
            raise DamagedDataError(str(exc)) from None
        if isinstance(exc, IdentityError | DataDirError | ValueError):
            raise click.ClickException(str(exc)) from None
        if isinstance(exc, OSError):
            where = f"port {port} (every address)" if bind is None else join_target(bind, port)
            raise click.ClickException(f"cannot listen on {where}: {exc.strerror or exc}") from None
        if exc is not raised and isinstance(exc, Exception):
            raise exc from None  # a bug: its own traceback, not trio's groups around it
        raise


def _prune(data_dir: Path, keep_days: float, max_bytes: int | None) -> None:
    """``onecard host --prune``: one pruning of the data directory's hand records."""
    try:
        done = prune_data_dir(data_dir, keep_days=keep_days, max_bytes=max_bytes)
    except DataDirError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot prune {data_dir}: {exc.strerror or exc}") from None
    click.echo(
        f"deleted {done.deleted} hand record(s) ({done.freed} bytes); "
        f"{done.kept} kept ({done.kept_bytes} bytes) in {data_dir / 'records'}"
    )


@click.command("bot", short_help="Run bots against a host.")
@click.argument("address", type=Address())
@click.option("--count", default=1, show_default=True, type=BOT_COUNT, help="Number of bots.")
@click.option("--table", "table_id", default=None, help="Join this table id.")
@click.option("--create", default=None, help="Create a table of this game (e.g. one-card).")
@click.option(
    "--seats",
    default=None,
    type=click.IntRange(1, 16),
    help="Seats of a created table (default: --count).",
)
@click.option(
    "--level",
    "--kind",
    "level",
    type=click.Choice(BOT_KINDS, case_sensitive=False),
    default="normal",
    show_default=True,
    help="How well the bots play: easy (random), normal (heuristic) or hard (a search, under a "
    "second a move); --kind and the names random and heuristic are the older spellings.",
)
@click.option(
    "--think",
    default=0.5,
    show_default=True,
    type=click.FloatRange(0, 60),
    help="Seconds a bot waits before each move.",
)
@click.option("--insecure", is_flag=True, help="Plain TCP (the host runs with --insecure).")
@click.option(
    "--fingerprint",
    default=None,
    help="Expected host TLS fingerprint (SHA256:..); default: trust on first use.",
)
def bot_command(
    *,
    address: str,
    count: int,
    table_id: str | None,
    create: str | None,
    seats: int | None,
    level: str,
    think: float,
    insecure: bool,
    fingerprint: str | None,
) -> None:
    """Connect bots to the host at ADDRESS[:PORT]; exits 0 when their game is over."""
    if (table_id is None) == (create is None):
        raise click.UsageError("give exactly one of --table ID or --create GAME")
    host, port = split_address(address)
    try:
        outcomes = trio.run(
            lambda: run_bots(
                address=host,
                port=port,
                count=count,
                table_id=table_id,
                create=create,
                seats=seats,
                kind=level,
                think=think,
                insecure=insecure,
                fingerprint=fingerprint,
                notice=lambda line: click.echo(safe_text(line), err=True),
            )
        )
    except BaseException as raised:
        exc = first_leaf(raised)
        if isinstance(exc, RequestError):
            raise click.ClickException(safe_text(f"the host refused: {exc}")) from None
        if isinstance(exc, TableFinished):
            raise click.ClickException(safe_text(str(exc))) from None
        if isinstance(exc, ProtocolError):
            raise click.ClickException(safe_text(exc.message)) from None
        if isinstance(exc, HostKeyChanged):
            raise click.ClickException(safe_text(str(exc))) from None
        if isinstance(exc, TrustError | OSError):  # no host there, or no TLS handshake
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise click.ClickException(f"cannot reach {address}: {reason}") from None
        raise
    if outcomes:
        click.echo(safe_text(f"game over: {outcomes[0].line()}"))  # the host's seat names
