"""A seat's secrets for private hands, kept on the player's machine so a restarted client resumes.

How it works: at a private table (``spec/PROTOCOL.md`` section 10) every seat draws a secret per
hand from which every key it uses derives; a seat that loses it mid-hand cannot open its cards
or answer its duties, and the hand is void. A key store keeps, per hand, the bytes the seat's
duties serialize (opaque here), under a :class:`KeySlot`: the host's signing key, the table,
the seat and the hand number, so two hosts with tables of the same name never share an entry.

* :class:`FileKeyStore` (the terminal client) writes one file per slot under
  ``<state dir>/private-keys/`` (directory mode 0700, files 0600: the secret is the seat's
  cards), atomically (a temporary file in the same directory, flushed and fsynced, then
  ``os.replace``), so a crash leaves the old content or the new, never half of it. A file that
  cannot be read back as what was written is treated as absent (the caller then says the hand
  cannot be resumed), never as a crash. :meth:`FileKeyStore.drop` removes a hand's file once
  its secret is public (the hand ended); :meth:`FileKeyStore.prune` removes what is older than
  :data:`KEEP_FOR` (a hand that never ended has nothing left to resume).
* :class:`MemoryKeyStore` does the same in memory, for the host's bots, whose keys are the
  host's own anyway.

A write that fails raises :class:`KeyStoreError`: the seat can still play on from memory, but
its owner must be told that a crash would now void the hand.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = [
    "FORMAT",
    "KEEP_FOR",
    "FileKeyStore",
    "KeySlot",
    "KeyStore",
    "KeyStoreError",
    "MemoryKeyStore",
]

#: the ``format`` field of every key file
FORMAT = "onecard-private-keys/1"

#: seconds a key file is kept when its hand never ended (then :meth:`FileKeyStore.prune`)
KEEP_FOR = 14 * 24 * 3600

#: the directory under the state directory
DIRECTORY = "private-keys"

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class KeyStoreError(OSError):
    """A seat's secret could not be written: a restart would lose the hand."""


@dataclass(frozen=True, slots=True)
class KeySlot:
    """Whose secret: the host (its Ed25519 public key), the table, the seat and the hand."""

    host_pk: bytes
    table_id: str
    seat: int
    hand_no: int

    def file_name(self) -> str:
        """A name safe on every file system that still says what it holds to a person."""
        digest = hashlib.sha256(
            json.dumps([self.host_pk.hex(), self.table_id, self.seat, self.hand_no]).encode("utf-8")
        ).hexdigest()[:16]
        table = _UNSAFE.sub("_", self.table_id)[:40] or "table"
        return f"{table}-hand{self.hand_no}-seat{self.seat}-{digest}.key"

    def to_json(self) -> dict[str, object]:
        return {
            "host_pk": self.host_pk.hex(),
            "table": self.table_id,
            "seat": self.seat,
            "hand_no": self.hand_no,
        }


class KeyStore(Protocol):
    """Where a seat keeps its private hands' secrets."""

    def put(self, slot: KeySlot, secret: bytes) -> None:
        """Keep ``secret`` for ``slot`` (replacing what was there); :class:`KeyStoreError`."""

    def get(self, slot: KeySlot) -> bytes | None:
        """What was kept for ``slot``, or ``None`` (never kept, dropped, or unreadable)."""

    def drop(self, slot: KeySlot) -> None:
        """Forget ``slot`` (its hand ended); nothing happens if it is not kept."""


class MemoryKeyStore:
    """Secrets in memory: enough for the host's bots, which restart with the host."""

    def __init__(self) -> None:
        self._kept: dict[KeySlot, bytes] = {}

    def put(self, slot: KeySlot, secret: bytes) -> None:
        self._kept[slot] = bytes(secret)

    def get(self, slot: KeySlot) -> bytes | None:
        return self._kept.get(slot)

    def drop(self, slot: KeySlot) -> None:
        self._kept.pop(slot, None)

    def __len__(self) -> int:
        return len(self._kept)


class FileKeyStore:
    """One 0600 file per slot under ``<state dir>/private-keys/``, written atomically."""

    def __init__(self, state_dir: Path) -> None:
        self.directory = state_dir / DIRECTORY

    def path(self, slot: KeySlot) -> Path:
        return self.directory / slot.file_name()

    def put(self, slot: KeySlot, secret: bytes) -> None:
        body = json.dumps({"format": FORMAT, **slot.to_json(), "secret": secret.hex()})
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(self.directory, 0o700)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".key")
        except OSError as exc:
            raise KeyStoreError(f"cannot keep the hand's keys in {self.directory}: {exc}") from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:  # mkstemp made it 0600
                fh.write(body)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path(slot))
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise KeyStoreError(f"cannot keep the hand's keys in {self.directory}: {exc}") from exc

    def get(self, slot: KeySlot) -> bytes | None:
        try:
            data = json.loads(self.path(slot).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        if {k: data.get(k) for k in ("host_pk", "table", "seat", "hand_no")} != slot.to_json():
            return None  # another slot's file under this name: never hand out its secret
        secret = data.get("secret")
        if not isinstance(secret, str):
            return None
        try:
            return bytes.fromhex(secret)
        except ValueError:
            return None

    def drop(self, slot: KeySlot) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(slot).unlink()

    def prune(self, *, now: float | None = None, keep_for: float = KEEP_FOR) -> int:
        """Remove key files (and left-over temporary files) older than ``keep_for`` seconds.

        Returns how many were removed; a directory that cannot be read removes none.
        """
        now = time.time() if now is None else now
        removed = 0
        try:
            entries = list(self.directory.iterdir())
        except OSError:
            return 0
        for entry in entries:
            if entry.suffix != ".key":
                continue
            try:
                if now - entry.stat().st_mtime > keep_for:
                    entry.unlink()
                    removed += 1
            except OSError:
                continue
        return removed
