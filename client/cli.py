"""The ``onecard`` command: a click group whose subcommands only parse options and call plain
async functions elsewhere (uvicorn/flask style). Domain errors become ``click.ClickException``.

How it works: :data:`COMMANDS` names each subcommand's module and its one-line help, and
:class:`LazyGroup` imports a subcommand's module only when that subcommand runs (or prints its
own help): ``onecard --help`` prints the registry's lines and imports neither trio nor rich nor
the host (``bench/cli_startup.py`` measures it; a test checks what it imports). Loading a
command adds the options every command shares (:func:`shared_options`): ``-v``/``-q`` set how
much is logged to stderr, and each option shows the ``ONECARD_*`` environment variable that
sets it (click's ``auto_envvar_prefix``: ``ONECARD_<COMMAND>_<NAME>``).

:func:`main` ends the program quietly with status 1 when the reader of stdout goes away
(``onecard play --watch | head -2``): stdout is pointed at the null device so that nothing
fails again while Python shuts down, as the Python docs' "Note on SIGPIPE" recommends.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any, NamedTuple

import click

from protocol.exit_codes import EPILOG, ExitCode

__all__ = ["COMMANDS", "ENVIRONMENT", "LazyGroup", "cli", "main", "shared_options"]


class Entry(NamedTuple):
    """Where a subcommand lives (``module:attribute`` of a ``click.Command``) and its one-line
    help, shown by ``onecard --help`` without importing the module."""

    target: str
    short_help: str


#: command name -> its entry; the order ``onecard --help`` lists them in
COMMANDS: dict[str, Entry] = {
    "play": Entry(
        "client.play_cmd:play_command", "Play against bots right now (embedded host, no setup)."
    ),
    "join": Entry(
        "client.join_cmd:join_command",
        "Join a host on the LAN (discovers hosts without ADDRESS).",
    ),
    "discover": Entry(
        "client.discover_cmd:discover_command", "List onecard hosts advertised on the LAN."
    ),
    "host": Entry("host.tools.cli:host_command", "Run a host for the LAN."),
    "bot": Entry("host.tools.cli:bot_command", "Run bots against a host."),
    "verify": Entry(
        "client.verify_cmd:verify_command",
        "Check hand records: signatures, commitments, every card.",
    ),
    "records": Entry(
        "client.records_cmd:records_command",
        "Fetch a table's hand records from a host and check them.",
    ),
    "proofs": Entry(
        "client.proofs_cmd:proofs_command", "List the deal proofs kept per table; clean them up."
    ),
    "replay": Entry(
        "host.tools.replay_cmd:replay_command", "Play a scenario file and print every event."
    ),
    "rules": Entry("client.rules_cmd:rules_command", "Print a game's rules (from spec/RULES.md)."),
}

#: the environment variables every command reads, for ``onecard --help`` and README
ENVIRONMENT = (
    "Environment: every option can be set as ONECARD_<COMMAND>_<NAME> "
    "(ONECARD_PLAY_GAME=one, a flag as 1; each command's --help names them); "
    "ONECARD_STATE_DIR (resume tokens, deal proofs), ONECARD_KNOWN_HOSTS (pinned hosts), "
    "ONECARD_VERBOSE and ONECARD_QUIET apply to every command; NO_COLOR turns colour off."
)

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "ONECARD"}

#: logging levels (ERROR, WARNING, INFO, DEBUG) by -v count minus -q count; ``logging`` itself
#: is imported only when one is given
_LEVELS = {-1: 40, 0: 30, 1: 20, 2: 10}


def _set_verbosity(ctx: click.Context, param: click.Parameter, value: int) -> None:
    """-v/-q callback: once either is given, log at the level they add up to."""
    counts = ctx.meta.setdefault("onecard.verbosity", {"verbose": 0, "quiet": 0})
    counts[param.name or ""] = int(value or 0)
    if not any(counts.values()):
        return  # the default: warnings and errors, as each command sets up
    import logging  # noqa: PLC0415 (not for --help)

    level = _LEVELS[max(-1, min(2, counts["verbose"] - counts["quiet"]))]
    logging.basicConfig(level=level)
    logging.getLogger().setLevel(level)


def shared_options() -> list[click.Parameter]:
    """The options every command gets: ``-v`` (repeatable) and ``-q``."""
    return [
        click.Option(
            ["-v", "--verbose"],
            count=True,
            expose_value=False,
            callback=_set_verbosity,
            envvar="ONECARD_VERBOSE",
            help="Log what the command does to stderr (-vv: debug details).",
        ),
        click.Option(
            ["-q", "--quiet"],
            count=True,
            expose_value=False,
            callback=_set_verbosity,
            envvar="ONECARD_QUIET",
            help="Log errors only (no warnings).",
        ),
    ]


class LazyGroup(click.Group):
    """A group that imports each subcommand's module when it is used (see the module doc)."""

    def __init__(self, *args: Any, entries: dict[str, Entry], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.entries = entries

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.entries, *(n for n in super().list_commands(ctx) if n not in self.entries)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in self.entries:
            return super().get_command(ctx, cmd_name)
        module_name, _, attr = self.entries[cmd_name].target.partition(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        prepare(command)
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, entry.short_help) for name, entry in self.entries.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def prepare(command: click.Command) -> None:
    """Give a command (and a group's subcommands) the shared options, and show in its help
    which environment variable sets each option."""
    names = {opt for param in command.params for opt in getattr(param, "opts", [])}
    if "--verbose" not in names:
        command.params.extend(shared_options())
    for param in command.params:
        if isinstance(param, click.Option):
            param.show_envvar = True
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            prepare(sub)


@click.group(
    cls=LazyGroup,
    entries=COMMANDS,
    context_settings=CONTEXT_SETTINGS,
    epilog=f"{ENVIRONMENT}\n\n{EPILOG}",
)
@click.version_option(package_name="onecard", prog_name="onecard")
def cli() -> None:
    """Host and play One Card, ONE and Black Jack on a LAN, with verifiably fair deals."""


def main() -> None:
    """Console-script entry point (through :func:`onecard.startup.main`)."""
    try:
        cli()
    except BaseException as exc:  # trio wraps the failure in groups
        if not any(_is_output_closed(leaf) for leaf in _leaves(exc)):
            raise
        output_closed()


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _is_output_closed(exc: BaseException) -> bool:
    render = sys.modules.get("client.render")  # not loaded: nothing wrote to the screen yet
    closed = getattr(render, "OutputClosed", None)
    return isinstance(exc, BrokenPipeError) or (closed is not None and isinstance(exc, closed))


def output_closed() -> None:
    """Exit with status 1, saying nothing: stdout's reader is gone (see the module docstring)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing to redirect
        pass
    sys.exit(ExitCode.FAILED)
