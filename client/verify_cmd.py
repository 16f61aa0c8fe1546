"""``onecard verify FILE...``: check hand records offline, one verdict line per file.

How it works: each file is read with :func:`protocol.hand_records.load_record` and checked with
:func:`protocol.hand_records.verify_record`, which recomputes every commitment, signature, position
and card of the hand from the host's revealed secret. Nothing here talks to the network. A file
that cannot be read or is not JSON gets a one-line reason, never a traceback. Exit status: 0 when
every record is valid (a correctly voided hand counts as valid), 1 when any record fails a check,
65 (``ExitCode.DATA``) when none failed but some file could not be read. A verdict may quote a
field of the record, which its host wrote: each line is made safe to show
(:func:`protocol.text.safe_text`), and ``--json`` escapes everything outside ASCII.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from protocol.exit_codes import ExitCode
from protocol.hand_records import RecordError, load_record, verify_record
from protocol.text import safe_text

__all__ = ["verify_command", "verify_files"]


def _unreadable(path: Path, reason: str) -> dict[str, Any]:
    return {"file": str(path), "ok": False, "status": "unreadable", "message": reason}


def verify_files(paths: list[Path], *, thorough: bool = False) -> list[dict[str, Any]]:
    """One result map per file: ``file``, ``status`` (valid/void/invalid/unreadable), ...

    ``thorough`` checks every signature one by one instead of the one that chains the rest;
    the verdicts are the same (``verify_record``), it only costs more.
    """
    out: list[dict[str, Any]] = []
    secrets_seen: dict[bytes, tuple[str, bytes]] = {}  # S -> (first file, ctx of its hand)
    for path in paths:
        try:
            verdict = verify_record(load_record(path), thorough=thorough)
        except RecordError as exc:
            out.append(_unreadable(path, exc.message))
            continue
        except Exception as exc:  # a verifier bug must still give one line per file
            out.append(_unreadable(path, f"internal error: {type(exc).__name__}: {exc}"))
            continue
        report = verdict.report
        if report is not None and report.secret:
            first, ctx = secrets_seen.setdefault(report.secret, (str(path), report.ctx))
            if ctx != report.ctx:  # the same S in another hand (a copy of one hand is fine)
                verdict = dataclasses.replace(
                    verdict,
                    ok=False,
                    message=f"host secret S was already used by {first}",
                    failure="ReusedSecretError",
                )
        out.append({"file": str(path), **verdict.to_json()})
    return out


@click.command("verify", short_help="Check hand records: signatures, commitments, every card.")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of results instead.")
@click.option(
    "--thorough",
    is_flag=True,
    help="Check every message's signature one by one (same verdicts, about 10x slower).",
)
def verify_command(files: tuple[Path, ...], as_json: bool, thorough: bool) -> None:
    """Verify hand records (the JSON files the host keeps per hand).

    Prints one line per FILE: its verdict, or the first check that failed (which message,
    signature, position or card). Exits 0 if all are valid, 1 if any failed a check, 65 if
    none failed but some could not be read.
    """
    results = verify_files(list(files), thorough=thorough)
    if as_json:
        click.echo(json.dumps(results, indent=1))
    else:
        for r in results:
            tag = "" if r["ok"] else ("INVALID: " if r["status"] == "invalid" else "unreadable: ")
            click.echo(safe_text(f"{r['file']}: {tag}{r['message']}"))
    ctx = click.get_current_context()
    if any(r["status"] == "invalid" for r in results):
        ctx.exit(ExitCode.FAILED)
    if any(r["status"] == "unreadable" for r in results):
        ctx.exit(ExitCode.DATA)
