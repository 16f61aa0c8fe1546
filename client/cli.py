"""The ``onecard`` command: a click group whose subcommands only parse options and call plain
async functions elsewhere (uvicorn/flask style). Domain errors become ``click.ClickException``.

Subcommands are registered from their own modules in ``_register()``; a module that is not
built yet is simply absent from the group.

:func:`main` ends the program quietly with status 1 when the reader of stdout goes away
(``onecard play --watch | head -2``): stdout is pointed at the null device so that nothing
fails again while Python shuts down, as the Python docs' "Note on SIGPIPE" recommends.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from client.render import OutputClosed
from net.session import leaves
from protocol.exit_codes import EPILOG, ExitCode

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "auto_envvar_prefix": "ONECARD"}

#: command name -> "module:attribute" of a click.Command
COMMANDS: dict[str, str] = {
    "replay": "host.replay_cmd:replay_command",
    "verify": "client.verify_cmd:verify_command",
    "host": "host.cli:host_command",
    "bot": "host.cli:bot_command",
    "play": "client.play_cmd:play_command",
    "join": "client.join_cmd:join_command",
    "discover": "client.discover_cmd:discover_command",
    "records": "client.records_cmd:records_command",
    "rules": "client.rules_cmd:rules_command",
}


@click.group(context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@click.version_option(package_name="onecard", prog_name="onecard")
def cli() -> None:
    """Host and play One Card, ONE and Black Jack on a LAN, with verifiably fair deals."""


def _register() -> None:
    for name, target in COMMANDS.items():
        module_name, _, attr = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # not built yet
            raise
        command = getattr(module, attr)
        assert isinstance(command, click.Command)
        cli.add_command(command, name)


_register()


def main() -> None:
    """Console-script entry point."""
    try:
        cli()
    except BaseException as exc:  # trio wraps the failure in groups
        if not any(isinstance(leaf, OutputClosed | BrokenPipeError) for leaf in leaves(exc)):
            raise
        output_closed()


def output_closed() -> None:
    """Exit with status 1, saying nothing: stdout's reader is gone (see the module docstring)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing to redirect
        pass
    sys.exit(ExitCode.FAILED)
