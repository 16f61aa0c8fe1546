"""The host's full hand records: fetch one, check it and save it next to the proof bundles.

How it works: :func:`fetch_record_text` sends ``get_record {table, hand_no}`` and collects the
multi-part ``record_part`` reply (``spec/PROTOCOL.md`` 4.6): the parts must come in order
``0..parts-1`` for the hand asked for, and their texts joined are the record's JSON (section 8).
:func:`check_record_text` parses that text and runs :func:`protocol.hand_records.verify_record`
(every signature, commitment, position and card), then binds the record to what this client
knows: the table and hand it asked for, the host's deal-signing key (pinned or learnt during the
game) and the transcript fingerprint it verified live, when it has them. :func:`fetch_and_save`
does both and writes the text verbatim (even when it fails a check: it is evidence) as
``<table>/<table>-hand<N>-record.json`` next to the client's own proof bundles (``<table>/
<table>-hand<N>.json``, one folder per table), where ``onecard verify`` reads either. It never
raises for a host that has no record, a dropped connection or a bad record: the
:class:`RecordResult` says so.

:func:`proof_keeper` saves the client's own proof bundles there (the
:class:`net.fairplay.DealChecker` of every seat hands it each finished hand).

Used after every hand by the table loop (``onecard play``/``onecard join``) and by ``onecard
records`` (:mod:`client.records_cmd`).
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

import protocol.table_messages as tm
from client.proofs import table_dir
from net.fairplay import KeepProof
from net.session import REPLY_TIMEOUT, ClientSession, Disconnected, RequestError
from protocol.fairness import key_fingerprint
from protocol.hand_records import MAX_RECORD_BYTES, verify_record

__all__ = [
    "GOOD",
    "RecordFetchError",
    "RecordResult",
    "check_record_text",
    "fetch_and_save",
    "fetch_record_text",
    "record_path",
    "save_new",
]

#: statuses of a fetched record that count as fine
GOOD = ("valid", "void")


class RecordFetchError(Exception):
    """The host's ``record_part`` reply was incomplete, out of order or too large."""


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What became of one hand's record."""

    table: str
    hand_no: int
    #: ``valid``, ``void`` (a correctly voided round), ``invalid`` (failed a check),
    #: ``unreadable`` (not a JSON object) or ``unavailable`` (not fetched or not saved)
    status: str
    message: str  #: the verifier's summary, the first failure, or why it is unavailable
    path: Path | None = None  #: where the record's text was saved
    fingerprint: str | None = None  #: the record's transcript fingerprint, when it verified

    @property
    def ok(self) -> bool:
        return self.status in GOOD

    def line(self) -> str:
        """One line for people: ``record saved: PATH (valid)`` or what went wrong."""
        if self.path is None:
            return f"record of hand {self.hand_no} not saved: {self.message}"
        if self.ok:
            return f"record saved: {self.path} ({self.status})"
        return f"record saved: {self.path} ({self.status.upper()}: {self.message})"

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "hand_no": self.hand_no,
            "ok": self.ok,
            "status": self.status,
            "message": self.message,
            "file": None if self.path is None else str(self.path),
            "fingerprint": self.fingerprint,
        }


def record_path(directory: Path, table: str, hand_no: int) -> Path:
    """Where the host's record of one hand is saved: the table's folder in ``directory``, next
    to the proof bundle of that hand (:func:`client.proofs.table_dir`)."""
    return table_dir(directory, table) / f"{table}-hand{hand_no}-record.json"


async def fetch_record_text(
    session: ClientSession, table: str, hand_no: int, *, timeout: float = REPLY_TIMEOUT
) -> str:
    """The host's record of one hand as JSON text (the ``record_part`` texts joined).

    Raises:
        RequestError: the host refused (``not_found``: no such table or no record of the hand).
        RecordFetchError: the parts were missing, out of order, for another hand or too big.
        Disconnected, trio.TooSlowError: no complete answer.
    """
    request = tm.GetRecord(table=table, hand_no=hand_no)
    replies = await session.request_all(request, timeout=timeout)
    parts = [r for r in replies if isinstance(r, tm.RecordPart)]
    if len(parts) != len(replies) or not parts:
        kinds = ", ".join(sorted({r.TYPE for r in replies})) or "nothing"
        raise RecordFetchError(f"the host answered get_record with {kinds}, not record_part")
    total = parts[0].parts
    for i, part in enumerate(parts):
        if part.part != i or part.parts != total:
            raise RecordFetchError(
                f"record part {part.part}/{part.parts} arrived where part {i}/{total} belongs"
            )
        if part.table != table or part.hand_no != hand_no:
            raise RecordFetchError(
                f"the host sent a part of table {part.table} hand {part.hand_no}, "
                f"not of table {table} hand {hand_no}"
            )
    if len(parts) != total:
        raise RecordFetchError(f"the host sent {len(parts)} of the record's {total} parts")
    text = "".join(p.text for p in parts)
    if len(text.encode("utf-8")) > MAX_RECORD_BYTES:
        raise RecordFetchError(f"the record is larger than {MAX_RECORD_BYTES} bytes")
    return text


def check_record_text(
    text: str,
    *,
    table: str,
    hand_no: int,
    host_pk: bytes | None = None,
    transcript: str | None = None,
) -> tuple[str, str, str | None]:
    """Verify a record's text: ``(status, message, fingerprint)``.

    Besides :func:`protocol.hand_records.verify_record`, the record must be of ``table`` and
    ``hand_no``, signed by ``host_pk`` (the host's deal key, when known) and end in the
    ``transcript`` fingerprint this client verified during the hand (when it did).
    """
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return "unreadable", f"not JSON ({exc})", None
    if not isinstance(obj, dict):
        return "unreadable", "not a hand record (the top level is not an object)", None
    if obj.get("partial") is True:  # a proof bundle may lack CARDs; the host's record may not
        return "invalid", "the host sent a partial record (it need not hold every card)", None
    verdict = verify_record(obj)
    if not verdict.ok:
        return "invalid", verdict.message, None
    status = "void" if verdict.voided else "valid"
    if verdict.table_id != table or verdict.hand_no != hand_no:
        where = f"table {verdict.table_id} hand {verdict.hand_no}"
        return "invalid", f"it is the record of {where}, not of table {table} hand {hand_no}", None
    if host_pk is not None and obj.get("host_pk") != host_pk.hex():
        signer = key_fingerprint(bytes.fromhex(str(obj["host_pk"])))
        return (
            "invalid",
            f"signed by key {signer}, not by the host's deal key {key_fingerprint(host_pk)}",
            verdict.fingerprint,
        )
    if transcript is not None and verdict.fingerprint != transcript:
        return (
            "invalid",
            f"its transcript {verdict.fingerprint} differs from {transcript}, the one this "
            "client verified during the hand",
            verdict.fingerprint,
        )
    return status, verdict.message, verdict.fingerprint


#: how many differing records of one hand are kept side by side (``-2``, ``-3``, ...)
MAX_RECORD_COPIES = 100


def save_new(path: Path, text: str) -> Path:
    """Save ``text`` at ``path``, or beside it, never over a different file; return where.

    A saved record may be evidence, so it is never replaced: the same text again is left as it
    is, a different text (a second host that reused the table id, a host that changed its story)
    goes to ``NAME-2.json``, ``NAME-3.json``, ... Each file appears whole (written under a unique
    temporary name, then hard-linked into place, which fails rather than replace), so two
    clients sharing a state directory may save the same hand at once.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:  # verbatim: no \r\n
            fh.write(text)
        for n in range(1, MAX_RECORD_COPIES + 1):
            target = path if n == 1 else path.with_name(f"{path.stem}-{n}{path.suffix}")
            try:
                os.link(tmp, target)
                return target
            except FileExistsError:
                if _holds(target, text):
                    return target
            except OSError:  # a file system without hard links: exclusive create instead
                try:
                    with open(target, "x", encoding="utf-8", newline="") as fh:
                        fh.write(text)
                    return target
                except FileExistsError:
                    if _holds(target, text):
                        return target
        raise OSError(f"{MAX_RECORD_COPIES} different records of this hand are already saved")
    finally:
        with suppress(OSError):
            os.unlink(tmp)


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_bytes() == text.encode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def proof_keeper(root: Path) -> KeepProof:
    """Where a :class:`~net.fairplay.DealChecker` saves each hand's proof bundle: as
    ``<table>/<table>-hand<N>.json`` under ``root`` (None returned if it cannot be written)."""

    def keep(table: str, hand_no: int, bundle: dict[str, Any]) -> Path | None:
        path = table_dir(root, table) / f"{table}-hand{hand_no}.json"
        try:  # never over another bundle (two seats sharing a state dir): beside it as -2
            return save_new(path, json.dumps(bundle, indent=1))
        except OSError:
            return None

    return keep


async def fetch_and_save(
    session: ClientSession,
    table: str,
    hand_no: int,
    directory: Path,
    *,
    host_pk: bytes | None = None,
    transcript: str | None = None,
    timeout: float = REPLY_TIMEOUT,
) -> RecordResult:
    """Fetch one hand's record, check it (:func:`check_record_text`) and save it verbatim."""

    def unavailable(why: str) -> RecordResult:
        return RecordResult(table, hand_no, "unavailable", why)

    try:
        text = await fetch_record_text(session, table, hand_no, timeout=timeout)
    except RequestError as exc:
        return unavailable(f"the host offers no record of it: {exc}")
    except RecordFetchError as exc:
        return unavailable(str(exc))
    except Disconnected as exc:
        return unavailable(f"the connection ended first ({exc})")
    except trio.TooSlowError:
        return unavailable(f"no complete answer within {timeout:g} s")

    def check() -> tuple[str, str, str | None]:
        return check_record_text(
            text, table=table, hand_no=hand_no, host_pk=host_pk, transcript=transcript
        )

    # up to 16 MB of JSON, checked twice when it fails: not on the event loop
    status, message, fingerprint = await trio.to_thread.run_sync(check)
    path = record_path(directory, table, hand_no)
    try:
        path = await trio.to_thread.run_sync(save_new, path, text)
    except OSError as exc:
        return unavailable(f"cannot write {path}: {exc.strerror or exc}")
    return RecordResult(table, hand_no, status, message, path, fingerprint)
