"""What the client's commands share: one-line errors with their exit status, options, running.

How it works: every client command (``play``, ``join``, ``records``, ``verify``) parses its
options with click and hands a plain async function to :func:`run_sync`, which runs it with
``trio.run``, turns Ctrl-C into exit status 130, a :class:`Quit` (the user left the lobby) into
a quiet end and a failure reaching or talking to a host into one :class:`ClientError` line
(:func:`host_error`), each with its status from :mod:`protocol.exit_codes`; a failure no path
foresaw is one line too, its traceback under ``-vv``. :func:`common_options` are the options
``play`` and ``join`` share; :func:`make_ui` picks the front end (rich text for people, NDJSON
for scripts).
"""

from __future__ import annotations

import getpass
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import click
import trio

from client.human_ui import HumanUI
from client.json_ui import JsonUI
from client.proofs_cmd import keep_options
from client.render import OutputClosed, make_console
from client.table_loop import DealCheckFailed, interrupt_note, leaves
from net.session import REPLY_TIMEOUT, Disconnected, RequestError
from net.trust import HostKeyChanged, TrustError
from protocol.errors import ErrorCode, ProtocolError
from protocol.exit_codes import ExitCode
from protocol.text import safe_text

__all__ = [
    "ClientError",
    "HostUnavailable",
    "Quit",
    "bug_line",
    "common_options",
    "default_name",
    "host_error",
    "make_ui",
    "parse_options",
    "run_sync",
    "want_ascii",
]


class Quit(Exception):
    """The user asked to leave before a table was reached (the lobby, the list of hosts):
    :func:`run_sync` ends the command quietly, exit status 0."""

    def __init__(self) -> None:
        super().__init__("quit")


class ClientError(click.ClickException):
    """A failure the user should see as one line (exit status ``FAILED``).

    The message often quotes the host (a refusal, why it closed the connection), so it is made
    safe to show (:func:`protocol.text.safe_text`): one line, nothing the terminal acts on.
    """

    exit_code = ExitCode.FAILED

    def __init__(self, message: str) -> None:
        super().__init__(safe_text(message))


class HostUnavailable(ClientError):
    """The host could not be reached or lost, or has no such table or hand (``UNAVAILABLE``:
    trying again later may help)."""

    exit_code = ExitCode.UNAVAILABLE


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


def host_error(exc: BaseException) -> ClientError | None:
    """The one-line error (and exit status) for a failure while reaching or talking to a
    host, if it is one: an unreachable, lost or silent host is ``UNAVAILABLE``, a changed
    certificate, a failed deal check or a refusal ``FAILED`` (a refused option ``USAGE``: it
    was the command line)."""
    if isinstance(exc, HostKeyChanged | DealCheckFailed):
        return ClientError(str(exc))
    if isinstance(exc, TrustError | Disconnected):
        return HostUnavailable(str(exc))
    if isinstance(exc, RequestError):
        kind = HostUnavailable if exc.code is ErrorCode.NOT_FOUND else ClientError
        return kind(f"the host refused: {exc}")
    if isinstance(exc, ProtocolError):
        return ClientError(exc.message)
    if isinstance(exc, OSError):
        return HostUnavailable(f"network error: {exc.strerror or exc}")
    if isinstance(exc, trio.TooSlowError):  # a request's reply never came (REPLY_TIMEOUT)
        return HostUnavailable(f"the host did not answer within {REPLY_TIMEOUT:g} s")
    return None


class _FlagNamedOption(click.Option):
    """An option whose environment variable is also read under its flag's name: ``--ascii``
    (parameter ``ascii_only``) reads ``ONECARD_PLAY_ASCII`` as README's pattern
    ``ONECARD_<COMMAND>_<OPTION>`` says, besides click's ``ONECARD_PLAY_ASCII_ONLY``."""

    def resolve_envvar_value(self, ctx: click.Context) -> str | None:
        value = super().resolve_envvar_value(ctx)
        if value is None and ctx.auto_envvar_prefix is not None:
            flag = self.opts[0].lstrip("-").replace("-", "_").upper()
            value = os.environ.get(f"{ctx.auto_envvar_prefix}_{flag}") or None
        return value


def common_options(func: Any) -> Any:
    """Options shared by ``play`` and ``join`` (``--keep-proofs`` and ``--keep-days`` prune the
    deal proofs when the command ends: :mod:`client.proofs_cmd`)."""
    for option in reversed(
        [
            click.option("--name", default=None, help="Your player name (default: login name)."),
            click.option(
                "--ascii",
                "ascii_only",
                is_flag=True,
                cls=_FlagNamedOption,
                help="Cards as 7S/QH, no symbols.",
            ),
            click.option(
                "--json",
                "json_mode",
                is_flag=True,
                help="One JSON object per event on stdout, one JSON command per line on stdin "
                "(CLIENT-JSON.md, shipped with onecard: python -m protocol --spec-dir prints "
                "its folder).",
            ),
            click.option(
                "--rematch",
                is_flag=True,
                help="With --json: after a game, ask to play again (a rematch event; answer "
                '{"cmd": "rematch"}) instead of ending. People at a terminal are always asked.',
            ),
            click.option(
                "--state-dir",
                type=click.Path(file_okay=False, path_type=Path),
                default=None,
                envvar="ONECARD_STATE_DIR",
                help="Where resume tokens and deal proofs are kept (default: user state dir).",
            ),
            *keep_options(expose=False),  # prune the proofs when the command ends
        ]
    ):
        func = option(func)
    return func


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
    """``trio.run`` a plain async function; errors become one line with their exit status
    (:class:`protocol.exit_codes.ExitCode`), Ctrl-C exits with 130.

    Trio nurseries wrap exceptions in groups; the first meaningful one inside is reported. Any
    other failure (a bug) is one line too (:func:`bug_line`); ``-vv`` shows its traceback.
    """
    try:
        return trio.run(_interruptible, func, kwargs)
    except BaseException as exc:
        found_all = leaves(exc)
        for kind in (KeyboardInterrupt, Quit, click.ClickException):
            found = next((leaf for leaf in found_all if isinstance(leaf, kind)), None)
            if isinstance(found, KeyboardInterrupt):
                click.echo(interrupt_note() or "", err=True)  # what becomes of the seat
                sys.exit(ExitCode.INTERRUPTED)
            if isinstance(found, Quit):
                return None
            if isinstance(found, click.ClickException):
                raise found from None
        for leaf in found_all:
            mapped = host_error(leaf)
            if mapped is not None:
                raise mapped from None
        bug = next((leaf for leaf in found_all if isinstance(leaf, Exception)), None)
        if bug is None or any(isinstance(leaf, OutputClosed) for leaf in found_all):
            raise  # client.cli.main ends quietly on a closed output
        if logging.getLogger().isEnabledFor(logging.DEBUG):
            raise bug from None  # -vv: its own traceback, for whoever fixes it
        raise ClientError(bug_line(bug)) from None


def bug_line(exc: Exception) -> str:
    """The one line for a failure no error path foresaw (a bug, maybe set off by what a host
    sent): what it was, and how to see where.

    >>> bug_line(KeyError("hand"))
    "internal error (KeyError: 'hand'): a bug in onecard; run again with -vv to see where"
    """
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return f"internal error ({what}): a bug in onecard; run again with -vv to see where"
