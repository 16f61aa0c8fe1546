"""The deal proofs a client keeps: one folder per table, pruned by age and count.

How it works: after every hand the client saves its proof bundle (``TABLE-handN.json``,
:mod:`net.fairplay`) and the host's record (``TABLE-handN-record.json``,
:mod:`client.record_fetch`) in ``proofs/TABLE/`` under the state directory (:func:`table_dir`).
:func:`list_tables` groups what is there by table, newest first (a table's age is that of its
newest file; files an older version saved flat in ``proofs/`` are grouped by the table their
name starts with). :func:`prune` removes the proofs of every table past the ``keep`` newest,
or untouched for more than ``days`` days; ``onecard play`` and ``onecard join`` call it when
they end (``--keep-proofs``, ``--keep-days``), ``onecard proofs --clean`` on demand. Only files
named as proofs are removed, then the table's folder if that left it empty: pointing the state
directory somewhere odd cannot delete anything else.
"""

from __future__ import annotations

import logging
import re
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_KEEP_DAYS",
    "DEFAULT_KEEP_TABLES",
    "TableProofs",
    "list_tables",
    "prune",
    "table_dir",
]

log = logging.getLogger(__name__)

#: the proofs of this many tables are kept (the newest), by default
DEFAULT_KEEP_TABLES = 50
#: and none untouched for longer than this, in days
DEFAULT_KEEP_DAYS = 30

#: a proof file's name: the table, the hand, and "-record" for the host's record ("-2": a copy)
_PROOF = re.compile(r"(?P<table>[A-Za-z0-9_-]+?)-hand(?P<hand>\d+)(?:-record)?(?:-\d+)?\.json")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def table_dir(root: Path, table: str) -> Path:
    """The folder of one table's proofs under ``root`` (the table id as the wire allows it:
    letters, digits, ``_`` and ``-``; anything else is dropped, so it stays one folder)."""
    return root / (_UNSAFE.sub("", table) or "_")


@dataclass(frozen=True, slots=True)
class TableProofs:
    """What is kept for one table."""

    table: str
    files: tuple[Path, ...]
    hands: tuple[int, ...]  #: the hands with a proof or a record, in order
    newest: float  #: modification time of the newest file (seconds since the epoch)
    size: int  #: bytes, all files together

    def line(self) -> str:
        """``t1a2b3c  3 hands (1-3)  6 files  41 kB  2026-12-01 15:40``."""
        n = len(self.hands)
        hands = f"{n} hand{'' if n == 1 else 's'}"
        if n:
            hands += f" ({self.hands[0]}-{self.hands[-1]})" if n > 1 else f" ({self.hands[0]})"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.newest))
        return f"{self.table}  {hands}  {len(self.files)} files  {kilobytes(self.size)}  {when}"

    def to_json(self) -> dict[str, object]:
        return {
            "table": self.table,
            "hands": list(self.hands),
            "files": [str(f) for f in self.files],
            "bytes": self.size,
            "newest": self.newest,
        }


def kilobytes(size: int) -> str:
    return f"{size / 1000:.0f} kB" if size < 1_000_000 else f"{size / 1_000_000:.1f} MB"


def _proof_files(root: Path) -> dict[str, list[Path]]:
    groups: dict[str, list[Path]] = {}
    try:
        entries = sorted(root.iterdir())
    except OSError:  # no proofs yet
        return groups
    for entry in entries:
        if entry.is_dir():
            files = [f for f in sorted(entry.iterdir()) if _PROOF.fullmatch(f.name)]
            if files:
                groups.setdefault(entry.name, []).extend(files)
        elif (match := _PROOF.fullmatch(entry.name)) is not None:  # saved flat by 0.1.0
            groups.setdefault(match["table"], []).append(entry)
    return groups


def list_tables(root: Path) -> list[TableProofs]:
    """The tables with proofs under ``root``, newest first."""
    out = []
    for table, files in _proof_files(root).items():
        stats = []
        for path in files:
            try:
                stats.append((path, path.stat()))
            except OSError:  # removed meanwhile
                continue
        if not stats:
            continue
        hands = sorted({int(m["hand"]) for p, _ in stats if (m := _PROOF.fullmatch(p.name))})
        out.append(
            TableProofs(
                table=table,
                files=tuple(p for p, _ in stats),
                hands=tuple(hands),
                newest=max(s.st_mtime for _, s in stats),
                size=sum(s.st_size for _, s in stats),
            )
        )
    out.sort(key=lambda t: (t.newest, t.table), reverse=True)
    return out


def prune(root: Path, *, keep: int, days: float, now: float | None = None) -> list[TableProofs]:
    """Remove the proofs of the tables past the ``keep`` newest or older than ``days`` days;
    return those tables. A file that cannot be removed is left (and logged), never raised."""
    cutoff = (time.time() if now is None else now) - days * 86_400
    removed = []
    for i, table in enumerate(list_tables(root)):
        if i < keep and table.newest >= cutoff:
            continue
        for path in table.files:
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("cannot remove %s: %s", path, exc.strerror or exc)
        folder = table_dir(root, table.table)
        with suppress(OSError):
            folder.rmdir()  # only if empty: a file of someone else's is left alone
        removed.append(table)
    if removed:
        size = kilobytes(sum(t.size for t in removed))
        log.info("removed the proofs of %d tables (%s) from %s", len(removed), size, root)
    return removed
