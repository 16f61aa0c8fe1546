"""Hand records: one JSON file per hand, enough to verify it (``cardfair/v1``) and to replay it.

How it works (normative text: ``spec/PROTOCOL.md`` section 8): :func:`build_record` turns a
finished :class:`~protocol.fairness.HandDealer` plus the caller's game name, options, dealer,
action log and outcome into a JSON-ready dict, bytes as lowercase hex, every signed message
verbatim in sending order. :func:`verify_record` feeds those messages to an auditor
:class:`~protocol.fairness.HandVerifier` (the chain, every position and, once ``S`` is out,
every card), then checks that every plain field of the record agrees with what was signed.
Signatures: by default only the one that chains all the others is verified (HAND_END's, see
PROTOCOL.md 8.2); any failure is re-checked with every signature verified in order, so the
verdict is the one ``thorough=True`` gives, ten times faster (for any record not made with the
host's own key: see 8.2 for the one case where they differ). It never raises on bad input:
the :class:`Verdict` names the first failure (which message, card, position or signature).
"""

from __future__ import annotations

import json
import lzma
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from protocol.cardfair import (
    SCHEME,
    BadMessageError,
    FairnessError,
    RulesetError,
    SignedMessage,
    fingerprint,
    key_fingerprint,
    player_commitment,
    ruleset_id,
)
from protocol.fairness import HandDealer, HandReport, HandVerifier

__all__ = [
    "GZIP_MAGIC",
    "MAX_RECORD_BYTES",
    "RECORD_FORMAT",
    "XZ_MAGIC",
    "RecordError",
    "Verdict",
    "build_record",
    "dump_record",
    "load_record",
    "record_messages",
    "unpack_record_bytes",
    "verify_record",
]

RECORD_FORMAT: Final = "onecard-hand-record/1"
#: Records larger than this are refused unread (a long hand is well under 1 MB).
MAX_RECORD_BYTES: Final = 16 * 1024 * 1024

_REQUIRED = ("format", "scheme", "table_id", "hand_no", "host_pk", "pids", "messages")


class RecordError(FairnessError):
    """A record file is unreadable, not JSON, or not shaped like a hand record."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The result of :func:`verify_record`: ``ok`` and a one-line ``message``."""

    ok: bool
    message: str  #: one line: a summary when ok, else the first failure
    failure: str | None = None  #: the error class of the first failure (``CardMismatchError``)
    message_index: int | None = None  #: index in ``messages`` of the message that failed
    report: HandReport | None = None  #: what was established (derived orders, dealer, ...)
    table_id: str | None = None
    hand_no: int | None = None
    #: Ed25519 checks made on the way to this verdict (the fast path needs few; see 8.2)
    signatures_checked: int = 0

    @property
    def voided(self) -> bool:
        return self.report is not None and self.report.voided

    @property
    def fingerprint(self) -> str | None:
        return None if self.report is None else self.report.fingerprint

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "status": ("void" if self.voided else "valid") if self.ok else "invalid",
            "message": self.message,
            "failure": self.failure,
            "message_index": self.message_index,
            "table_id": self.table_id,
            "hand_no": self.hand_no,
            "fingerprint": self.fingerprint,
        }


# --------------------------------------------------------------------------- building


def build_record(
    dealer: HandDealer,
    *,
    game: str,
    options: Mapping[str, bool | int | str] | None = None,
    dealer_seat: int | None = None,
    actions: Sequence[Any] | None = None,
    outcome: Mapping[str, Any] | None = None,
    audit: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON-ready record of a hand that ended (HAND_END) or was voided (VOID).

    ``dealer_seat`` is the hand's dealer (the chosen one if a DEALER message was sent);
    ``actions`` is the caller's action log, stored as given (JSON-ready values only);
    ``audit`` a private hand's audit finding (``spec/PROTOCOL.md`` 8.1), if it found one.
    """
    ctx = dealer.context
    reveals = dealer.reveals_by_pid
    opts = dict(options or {})
    if ruleset_id(game, opts) != ctx.ruleset_id:
        raise RecordError(
            f"game {game!r} with these options has ruleset {ruleset_id(game, opts)!r}, "
            f"but the hand was dealt under {ctx.ruleset_id!r}"
        )
    last = dealer.messages[-1]
    voided = last.type == "void"
    missing = list(last.decode()["missing"]) if voided else []
    private = {"private": True} if dealer.private else {}
    found = {} if audit is None else {"audit": dict(audit)}
    return {
        **private,
        **found,
        "format": RECORD_FORMAT,
        "scheme": SCHEME,
        "game": game,
        "options": opts,
        "table_id": ctx.table_id,
        "hand_no": ctx.hand_no,
        "ruleset_id": ctx.ruleset_id,
        "pids": list(ctx.pids),
        "deck": list(ctx.deck),
        "host_pk": ctx.host_pk.hex(),
        "ctx": ctx.digest.hex(),
        "dealer": dealer.dealer if dealer.dealer is not None else dealer_seat,
        "dealer_chosen": dealer.dealer is not None,
        "messages": [[m.type, m.body.hex(), m.sig.hex()] for m in dealer.messages],
        "secret": dealer.secret.hex(),
        # seat order (the order of pids), whatever order the reveals arrived in (8.1)
        "reveals": [[p, reveals[p].hex()] for p in ctx.pids if p in reveals],
        "voided": voided,
        "missing": missing,
        "actions": None if actions is None else list(actions),
        "outcome": None if outcome is None else dict(outcome),
        "transcript": dealer.transcript.hex(),
        "fingerprint": fingerprint(dealer.transcript),
    }


def dump_record(record: Mapping[str, Any]) -> str:
    """The record as JSON text (sorted keys, one space indent, trailing newline)."""
    return json.dumps(record, indent=1, sort_keys=True) + "\n"


#: the first bytes of an xz file: hosts keep their records xz-compressed (``.json.xz``)
XZ_MAGIC: Final = b"\xfd7zXZ\x00"
#: the first bytes of a gzip file (read too)
GZIP_MAGIC: Final = b"\x1f\x8b"


def unpack_record_bytes(raw: bytes) -> bytes:
    """A record file's JSON bytes: ``raw`` itself, or ``raw`` decompressed if it is xz or gzip
    (at most ``MAX_RECORD_BYTES`` of output; :class:`RecordError` if damaged or larger)."""
    inflate: Any
    errors: type[Exception]
    if raw.startswith(XZ_MAGIC):
        inflate, kind, errors = lzma.LZMADecompressor(lzma.FORMAT_XZ), "xz", lzma.LZMAError
    elif raw.startswith(GZIP_MAGIC):
        inflate, kind, errors = zlib.decompressobj(wbits=31), "gzip", zlib.error
    else:
        return bytes(raw)
    try:
        out: bytes = inflate.decompress(raw, MAX_RECORD_BYTES + 1)
    except errors as exc:
        raise RecordError(f"a damaged {kind} file ({exc})") from None
    if len(out) > MAX_RECORD_BYTES:
        raise RecordError(f"larger than {MAX_RECORD_BYTES} bytes once decompressed")
    if not inflate.eof:
        raise RecordError(f"a damaged {kind} file (it ends early)")
    return out


def load_record(path: str | Path) -> dict[str, Any]:
    """Read and parse a record file (JSON, or xz- or gzip-compressed JSON: a host keeps its
    records xz-compressed); raise
    :class:`RecordError` with a one-line reason."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            raw = fh.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"larger than {MAX_RECORD_BYTES} bytes")
    raw = unpack_record_bytes(raw)
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise RecordError("not JSON (nested too deeply)") from None
    if not isinstance(obj, dict):
        raise RecordError("not a hand record (the top level is not an object)")
    return obj


# --------------------------------------------------------------------------- verifying


#: bytes in a record: lowercase hex digits, two per byte, nothing else (PROTOCOL.md 8.1)
_HEX = re.compile(r"(?:[0-9a-f]{2})*")


def _hex(value: object, what: str, size: int | None = None) -> bytes:
    if not isinstance(value, str):
        raise RecordError(f"record field {what} is not a hex string")
    if _HEX.fullmatch(value) is None:
        raise RecordError(f"record field {what} is not lowercase hex")
    b = bytes.fromhex(value)
    if size is not None and len(b) != size:
        raise RecordError(f"record field {what} must be {size} bytes, not {len(b)}")
    return b


def record_messages(record: Mapping[str, Any]) -> list[SignedMessage]:
    """The signed messages of a record, in order; raise :class:`RecordError` if malformed."""
    raw = record.get("messages")
    if not isinstance(raw, list) or not raw:
        raise RecordError("record field 'messages' is not a non-empty list")
    out = []
    for i, item in enumerate(raw):
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)):
            raise RecordError(f"message {i} is not [type, body hex, sig hex]")
        body = _hex(item[1], f"messages[{i}] body")
        out.append(SignedMessage(item[0], body, _hex(item[2], f"messages[{i}] sig")))
    return out


def _fail(exc: FairnessError, index: int | None, rec: Mapping[str, Any]) -> Verdict:
    where = "" if index is None else f"message {index} ({_type_at(rec, index)}): "
    hand = rec.get("hand_no")
    return Verdict(
        False,
        where + exc.message,
        type(exc).__name__,
        index,
        None,
        rec.get("table_id") if isinstance(rec.get("table_id"), str) else None,
        hand if isinstance(hand, int) and not isinstance(hand, bool) else None,
    )


def _type_at(rec: Mapping[str, Any], index: int) -> str:
    return str(rec["messages"][index][0]).upper()


def verify_record(obj: object, *, thorough: bool = False) -> Verdict:
    """Check a parsed hand record completely; the verdict names the first failure.

    By default the signatures the transcript already vouches for are not checked one by one
    (``spec/PROTOCOL.md`` 8.2): one Ed25519 check for the whole chain instead of one per
    message. Any failure on that fast path is re-checked with every signature verified
    (``thorough``), so the failure reported is always the first one in message order, and a
    changed byte anywhere, a signature included, is caught either way.
    """
    if not thorough:
        fast = _verify_safely(obj, defer=True)
        if fast.ok:
            return fast
    return _verify_safely(obj, defer=False)


def _verify_safely(obj: object, *, defer: bool) -> Verdict:
    try:
        return _verify(obj, defer)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        # a shape the checks above do not name precisely; still one line, never a traceback
        rec = obj if isinstance(obj, dict) else {}
        return _fail(RecordError(f"malformed record ({type(exc).__name__}: {exc})"), None, rec)


def _verify(obj: object, defer: bool) -> Verdict:
    if not isinstance(obj, dict):
        return Verdict(False, "not a hand record (not a JSON object)", "RecordError")
    rec: dict[str, Any] = obj
    try:
        _check_shape(rec)
        host_pk = _hex(rec["host_pk"], "host_pk", 32)
        messages = record_messages(rec)
    except FairnessError as exc:
        return _fail(exc, None, rec)
    try:
        v = HandVerifier(
            host_pk,
            table_id=rec["table_id"],
            pids=rec["pids"],
            ruleset_id=rec.get("ruleset_id"),
            deck=rec.get("deck"),
            auditor=True,
            complete=rec.get("partial") is not True,
            defer_signatures=defer,
            private=True if rec.get("private") is True else None,
        )
    except FairnessError as exc:
        return _fail(exc, None, rec)
    for i, msg in enumerate(messages):
        try:
            v.receive(msg)
        except FairnessError as exc:
            return _fail(exc, i, rec)
        except (TypeError, ValueError, KeyError, IndexError) as exc:  # a gap in the body checks
            return _fail(BadMessageError(f"malformed {msg.name} body ({exc})"), i, rec)
    try:
        v.verify_deferred()
    except FairnessError as exc:
        return _fail(exc, None, rec)
    try:
        report = _check_fields(rec, v)
    except FairnessError as exc:
        return _fail(exc, None, rec)
    n = report.cards_checked
    what = (
        f"voided, missing {', '.join(report.missing) or 'nobody'}, S opens its commitment"
        if report.voided
        else f"{n} card{'s' * (n != 1)} checked"
    )
    partial = " (partial: only its own cards)" if rec.get("partial") is True else ""
    if v.private:
        rounds = len(v.masks.stocks)
        what += f", private: {rounds} masked round{'s' * (rounds != 1)} audited"
    summary = (
        f"{'void' if report.voided else 'valid'}{partial}: "
        f"table {rec['table_id']} hand {rec['hand_no']}, "
        f"{len(rec['pids'])} seats, {what}, host key {key_fingerprint(host_pk)}, "
        f"fingerprint {report.fingerprint}"
    )
    if rec.get("actions"):  # (PROTOCOL.md 8.1: proof is the signed messages only)
        summary += "; its actions list is not signed, so not covered by this check"
    if rec.get("audit") is not None:
        try:
            summary += _audit_line(rec, report, messages)
        except FairnessError as exc:
            return _fail(exc, None, rec)
    return Verdict(
        True,
        summary,
        None,
        None,
        report,
        rec["table_id"],
        rec["hand_no"],
        v.signatures_checked,
    )


def _audit_line(rec: Mapping[str, Any], report: HandReport, messages: Sequence[Any]) -> str:
    """The record's ``audit`` finding (8.1) said in words, with the cards the signed messages
    dealt the seat it names: what a reader needs to see the rule broken (``onecard verify``).

    Raises:
        RecordError: the finding is malformed, or names a seat or action the record has not.
    """
    found = rec["audit"]
    if rec.get("private") is not True or report.voided:
        raise RecordError("record field 'audit' belongs only to a private hand that ended")
    if not isinstance(found, dict):
        raise RecordError("record field 'audit' is not a map")
    seat, index = found.get("seat"), found.get("index")
    pids = rec["pids"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(pids):
        raise RecordError(f"record field 'audit' names no seat of this hand: {seat!r}")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise RecordError(f"record field 'audit' names no action: {index!r}")
    action, reason = found.get("action"), found.get("reason")
    if not isinstance(action, dict) or not isinstance(reason, str):
        raise RecordError("record field 'audit' lacks its action or its reason")
    actions = rec.get("actions")
    if isinstance(actions, list):
        entry = actions[index] if index < len(actions) else None
        if not isinstance(entry, dict) or (entry.get("seat"), entry.get("action")) != (
            seat,
            action,
        ):
            raise RecordError(
                f"record field 'audit' names action {index} of seat {seat}, which is not "
                "that action of the record's actions list"
            )
    dealt = []
    for msg in messages:
        if msg.type != "draw":
            continue
        body = msg.decode()
        if body.get("to") == seat:
            dealt.append(report.orders[body["stream"]][body["pos"]].code)
    said = " ".join(f"{k}={v}" for k, v in action.items() if k != "type")
    return (
        f"; audit: {pids[seat]} forfeits the hand: action {index + 1} of the hand "
        f"({action.get('type')} {said}) broke a rule: {reason} (the host's finding, not "
        f"signed; the signed cards: {pids[seat]} was dealt {' '.join(dealt) or 'nothing'})"
    )


def _check_shape(rec: Mapping[str, Any]) -> None:  # noqa: C901
    if "format" not in rec:
        raise RecordError("not a hand record (no 'format' field)")
    for key in _REQUIRED:
        if key not in rec:
            raise RecordError(f"record lacks field {key!r}")
    if rec["format"] != RECORD_FORMAT:
        raise RecordError(f"record format {rec['format']!r} is not {RECORD_FORMAT!r}")
    if rec["scheme"] != SCHEME:
        raise RecordError(f"record scheme {rec['scheme']!r} is not {SCHEME!r}")
    if not isinstance(rec["table_id"], str):
        raise RecordError("record field 'table_id' is not a string")
    hand = rec["hand_no"]
    if isinstance(hand, bool) or not isinstance(hand, int):
        raise RecordError("record field 'hand_no' is not an integer")
    pids = rec["pids"]
    if not isinstance(pids, list) or not all(isinstance(p, str) for p in pids):
        raise RecordError("record field 'pids' is not a list of strings")
    for key, kind in (("ruleset_id", str), ("game", str), ("options", dict), ("deck", list)):
        if key in rec and not isinstance(rec[key], kind):
            raise RecordError(f"record field {key!r} has the wrong type")
    if "deck" in rec and not all(isinstance(c, str) for c in rec["deck"]):
        raise RecordError("record field 'deck' is not a list of card codes")
    options = rec.get("options") or {}
    if not all(isinstance(v, bool | int | str) for v in options.values()):
        raise RecordError("record field 'options' has a value that is not a bool, int or str")
    if "options" in rec and "game" not in rec:
        raise RecordError("record field 'options' without 'game': they are checked together")
    for key in ("partial", "voided", "dealer_chosen", "private"):
        if key in rec and not isinstance(rec[key], bool):
            raise RecordError(f"record field {key!r} is not true or false")


def _check_fields(rec: Mapping[str, Any], v: HandVerifier) -> HandReport:
    """Every plain record field must agree with the signed messages."""
    report = v.report
    ctx = v.context
    if report is None or ctx is None:
        raise RecordError("record ends before HAND_END or VOID")
    if rec["hand_no"] != ctx.hand_no:
        raise RecordError(f"record says hand {rec['hand_no']}, HAND_COMMIT says {ctx.hand_no}")
    if "game" in rec:
        rid = ruleset_id(rec["game"], rec.get("options") or {})
        if rid != ctx.ruleset_id:
            raise RulesetError(f"game and options give ruleset {rid!r}, signed {ctx.ruleset_id!r}")
    if "ctx" in rec and _hex(rec["ctx"], "ctx", 32) != ctx.digest:
        raise RecordError("record field 'ctx' differs from the ctx of HAND_COMMIT")
    if "secret" in rec and _hex(rec["secret"], "secret", 32) != report.secret:
        raise RecordError("record field 'secret' differs from the S revealed by the host")
    if "voided" in rec and rec["voided"] is not report.voided:
        raise RecordError(f"record says voided={rec['voided']}, the messages say {report.voided}")
    if "missing" in rec and list(report.missing) != rec["missing"]:
        raise RecordError("record field 'missing' differs from the VOID message")
    _check_reveals(rec, v)
    _check_dealer(rec, report, len(ctx.pids))
    if (
        report.outcome is not None
        and rec.get("outcome") is not None
        and not _same_json(rec["outcome"], report.outcome)
    ):
        raise RecordError("record field 'outcome' differs from the outcome signed in HAND_END")
    if "transcript" in rec and _hex(rec["transcript"], "transcript", 32) != report.transcript:
        raise RecordError("record field 'transcript' differs from the final transcript")
    if "fingerprint" in rec and rec["fingerprint"] != report.fingerprint:
        raise RecordError(
            f"record fingerprint {rec['fingerprint']}, transcript gives {report.fingerprint}"
        )
    return report


def _same_json(a: object, b: object) -> bool:
    """Equal as JSON values are: of one JSON type each (``2.0`` is not ``2``, ``true`` not
    ``1``), maps by key, lists in order."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _check_dealer(rec: Mapping[str, Any], report: HandReport, seats: int) -> None:
    """8.2 step 4: ``dealer_chosen`` true needs the DEALER message and its seat; false (or
    absent) needs no DEALER message, and ``dealer`` is then unsigned: a seat or null."""
    if rec.get("dealer_chosen"):
        if report.dealer is None:
            raise RecordError("record says the dealer was chosen, but there is no DEALER")
        if rec.get("dealer") != report.dealer:
            raise RecordError(f"record dealer {rec.get('dealer')}, DEALER says {report.dealer}")
        return
    if report.dealer is not None and "dealer_chosen" in rec:
        raise RecordError("record says the dealer was not chosen, but it holds a DEALER")
    dealer = rec.get("dealer")
    if dealer is not None and (
        isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < seats
    ):
        raise RecordError(f"record field 'dealer' is {dealer!r}, not a seat or null")


def _check_reveals(rec: Mapping[str, Any], v: HandVerifier) -> None:
    if "reveals" not in rec:
        return
    raw = rec["reveals"]
    if not isinstance(raw, list):
        raise RecordError("record field 'reveals' is not a list of [pid, r hex]")
    signed = v.reveals_by_pid
    commits = v.commits_by_pid
    ctx = v.context
    assert ctx is not None
    for item in raw:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            raise RecordError("record field 'reveals' is not a list of [pid, r hex]")
        pid, r = item[0], _hex(item[1], f"reveals of {item[0]}", 32)
        if signed:
            if signed.get(pid) != r:
                raise RecordError(f"record reveal of {pid} differs from REVEALS")
        elif pid not in commits or player_commitment(ctx.digest, pid, r) != commits[pid]:
            raise RecordError(f"record reveal of {pid} does not open its LOCK commitment")
    if signed and len(raw) != len(signed):
        raise RecordError("record field 'reveals' does not list every seat")
