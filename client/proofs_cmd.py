"""``onecard proofs``: list the deal proofs kept per table, and clean them up.

How it works: :func:`proofs_command` parses its options and calls :func:`show_proofs`, which
lists (and with ``--clean`` first prunes, :func:`client.proofs.prune`) the tables under
``proofs/`` in the state directory. :func:`keep_options` are the two limits, ``--keep-proofs``
(how many tables, the newest) and ``--keep-days``; ``onecard play`` and ``onecard join`` take
them too (:func:`client.commands.common_options`) and prune when they end
(:func:`prune_when_done`: the table just played is the newest, so it is kept unless
``--keep-proofs 0``). Both read ``ONECARD_KEEP_PROOFS`` and ``ONECARD_KEEP_DAYS``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from client.proofs import DEFAULT_KEEP_DAYS, DEFAULT_KEEP_TABLES, kilobytes, list_tables, prune
from client.tokens import default_state_dir

__all__ = ["keep_options", "proofs_command", "prune_when_done", "show_proofs"]


def keep_options(*, expose: bool) -> list[Callable[[Any], Any]]:
    """``--keep-proofs`` and ``--keep-days``; not ``expose``d, they prune when the command ends
    (:func:`prune_when_done`) instead of reaching the command's function."""
    extra: dict[str, Any] = {} if expose else {"expose_value": False, "callback": _remember}
    return [
        click.option(
            "--keep-proofs",
            type=click.IntRange(min=0),
            default=DEFAULT_KEEP_TABLES,
            show_default=True,
            envvar="ONECARD_KEEP_PROOFS",
            metavar="TABLES",
            help="Keep the deal proofs of this many tables, the newest (0: none).",
            **extra,
        ),
        click.option(
            "--keep-days",
            type=click.FloatRange(min=0),
            default=DEFAULT_KEEP_DAYS,
            show_default=True,
            envvar="ONECARD_KEEP_DAYS",
            metavar="DAYS",
            help="Remove the proofs of tables untouched for longer than this.",
            **extra,
        ),
    ]


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    limits = ctx.meta.setdefault("onecard.keep", {})
    if not limits:
        ctx.call_on_close(lambda: prune_when_done(ctx.params.get("state_dir"), limits))
    limits[param.name] = value


def prune_when_done(state_dir: Path | None, limits: dict[str, Any]) -> None:
    """Prune the proofs under ``state_dir`` (or the default) by the limits a command was given."""
    root = (state_dir or default_state_dir()) / "proofs"
    prune(
        root,
        keep=int(limits.get("keep_proofs", DEFAULT_KEEP_TABLES)),
        days=float(limits.get("keep_days", DEFAULT_KEEP_DAYS)),
    )


def show_proofs(
    state_dir: Path | None, *, clean: bool, keep: int, days: float, as_json: bool
) -> None:
    """Print the tables with proofs (after pruning them, with ``clean``)."""
    root = (state_dir or default_state_dir()) / "proofs"
    removed = prune(root, keep=keep, days=days) if clean else []
    tables = list_tables(root)
    if as_json:
        out = {
            "dir": str(root),
            "tables": [t.to_json() for t in tables],
            "removed": [t.to_json() for t in removed],
        }
        click.echo(json.dumps(out, indent=1))
        return
    for table in removed:
        click.echo(f"removed {table.line()}")
    for table in tables:
        click.echo(table.line())
    size = kilobytes(sum(t.size for t in tables))
    n = len(tables)
    click.echo(f"{n} table{'' if n == 1 else 's'} with proofs, {size}, in {root}")


def _options(func: Any) -> Any:
    for option in reversed(keep_options(expose=True)):
        func = option(func)
    return func


@click.command("proofs", short_help="List the deal proofs kept per table; clean them up.")
@click.option(
    "--clean",
    is_flag=True,
    help="First remove the proofs of tables past --keep-proofs or older than --keep-days.",
)
@_options
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    envvar="ONECARD_STATE_DIR",
    help="Where deal proofs are kept (default: user state dir).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of one line per table.")
def proofs_command(
    *, clean: bool, keep_proofs: int, keep_days: float, state_dir: Path | None, as_json: bool
) -> None:
    """List the tables whose deal proofs and hand records this client keeps, newest first.

    After every hand `onecard play` and `onecard join` save the hand's signed messages and the
    host's record under STATE_DIR/proofs/TABLE/ (`onecard verify` checks them), and when they
    end they remove the proofs of tables past --keep-proofs or older than --keep-days. With
    --clean this command does the same now (--keep-proofs 0: remove them all).
    """
    show_proofs(state_dir, clean=clean, keep=keep_proofs, days=keep_days, as_json=as_json)
