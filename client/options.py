"""Click options shared by the commands that connect to a host (``join``, ``records``).

How it works: :func:`connection_options` applies ``--insecure`` and ``--known-hosts`` to a
command, so both commands spell, default and document them the same way; the command receives
``insecure: bool`` and ``known_hosts: Path | None`` (``None``: the user config dir's file,
:func:`net.trust.default_known_hosts`). :func:`table_id` is the click callback that checks a
table id before anything connects.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

__all__ = ["TABLE_ID", "connection_options", "table_id"]

#: a table id as the protocol spells it (``protocol.table_messages``: ``[A-Za-z0-9_-]``, 1-64)
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

F = TypeVar("F", bound=Callable[..., Any])


def connection_options(fn: F) -> F:
    """Add ``--insecure`` and ``--known-hosts`` (also ``ONECARD_KNOWN_HOSTS``) to a command."""
    fn = click.option(
        "--known-hosts",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        envvar="ONECARD_KNOWN_HOSTS",
        help="The file of pinned host fingerprints (default: user config dir/known_hosts).",
    )(fn)
    return click.option(
        "--insecure", is_flag=True, help="Plain TCP, no TLS (the host runs --insecure)."
    )(fn)


def table_id(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: ``value`` unless it cannot be a table id (``None`` passes)."""
    if value is not None and not TABLE_ID.fullmatch(value):
        raise click.BadParameter(f"{value!r} is not a table id (1-64 of A-Z a-z 0-9 _ -)")
    return value
