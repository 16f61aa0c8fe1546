"""Fetching the host's full hand records (client.record_fetch) from a real loopback host where bots
played a game: every record is saved verbatim, verifies and is accepted by ``onecard verify``;
a hand without a record, a dropped connection, parts out of order and records that fail a check
(or are of another table, hand, key or transcript) are reported, never raised."""

from __future__ import annotations

import json
import lzma
from pathlib import Path
from typing import Any, cast

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

import protocol.table_messages as tm
from client import record_fetch
from client.record_fetch import (
    RecordFetchError,
    check_record_text,
    fetch_and_save,
    fetch_record_text,
    record_path,
)
from client.verify_cmd import verify_files
from host.server.server import HostInfo
from net.session import ClientSession, Disconnected, RequestError, open_session
from net.trust import open_stream
from protocol.errors import ErrorCode
from protocol.fairness import key_fingerprint
from protocol.hand_records import load_record
from protocol.messages import Error, Message


def _host_pk(info: HostInfo) -> bytes:
    key = info.host.lobby.signing_key.public_key()
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


async def _session(info: HostInfo) -> Any:
    connected = await open_stream("127.0.0.1", info.port, expect=info.fingerprint)
    return open_session(connected.stream)


async def test_every_hand_record_is_fetched_saved_verbatim_and_verifies(
    played: tuple[HostInfo, str], tmp_path: Path
) -> None:
    info, table = played
    out = tmp_path / "proofs"
    async with await _session(info) as session:
        listed = await session.request(tm.ListRecords(table=table))
        assert isinstance(listed, tm.Records) and listed.hands
        results = [
            await fetch_and_save(session, table, hand, out, host_pk=_host_pk(info))
            for hand in listed.hands
        ]
    for hand, result in zip(listed.hands, results, strict=True):
        assert result.status == "valid" and result.ok, result.message
        saved = out / table / f"{table}-hand{hand}-record.json"
        assert result.path == record_path(out, table, hand) == saved
        assert result.line() == f"record saved: {result.path} (valid)"
        kept = info.host.lobby.store.records.record_path(table, hand)
        assert json.loads(result.path.read_text("utf-8")) == load_record(kept)  # kept as xz
        assert result.fingerprint is not None and result.fingerprint in result.message
        assert result.to_json()["file"] == str(result.path)
    verdicts = verify_files([r.path for r in results if r.path is not None])
    assert [v["status"] for v in verdicts] == ["valid"] * len(results)


async def test_a_missing_hand_or_table_is_unavailable_not_an_error(
    played: tuple[HostInfo, str], tmp_path: Path
) -> None:
    info, table = played
    async with await _session(info) as session:
        missing = await fetch_and_save(session, table, 9999, tmp_path / "out")
        no_table = await fetch_and_save(session, "nosuch", 1, tmp_path / "out")
    for result in (missing, no_table):
        assert result.status == "unavailable" and not result.ok and result.path is None
        assert "offers no record" in result.message and "(not_found)" in result.message
    assert missing.line().startswith("record of hand 9999 not saved: the host offers no record")
    assert not (tmp_path / "out").exists()  # nothing written


async def test_record_bound_to_table_hand_key_and_transcript(
    played: tuple[HostInfo, str],
) -> None:
    info, table = played
    async with await _session(info) as session:
        text = await fetch_record_text(session, table, 1)
    status, message, fingerprint = check_record_text(text, table=table, hand_no=1)
    assert status == "valid" and fingerprint is not None
    assert check_record_text(
        text, table=table, hand_no=1, host_pk=_host_pk(info), transcript=fingerprint
    ) == (status, message, fingerprint)

    status, message, _ = check_record_text(text, table="tother", hand_no=1)
    assert status == "invalid" and f"record of table {table} hand 1, not of table tother" in message
    status, message, _ = check_record_text(text, table=table, hand_no=2)
    assert status == "invalid" and "not of table" in message and "hand 2" in message
    other = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    status, message, _ = check_record_text(text, table=table, hand_no=1, host_pk=other)
    assert status == "invalid"
    assert message == (
        f"signed by key {key_fingerprint(_host_pk(info))}, not by the host's deal key "
        f"{key_fingerprint(other)}"
    )
    status, message, _ = check_record_text(text, table=table, hand_no=1, transcript="0000-0000")
    assert status == "invalid" and "differs from 0000-0000" in message


def test_unreadable_and_tampered_text() -> None:
    assert check_record_text("{not json", table="t1", hand_no=1)[0] == "unreadable"
    status, message, _ = check_record_text("[1, 2]", table="t1", hand_no=1)
    assert (status, message) == ("unreadable", "not a hand record (the top level is not an object)")
    status, message, _ = check_record_text('{"format": "x"}', table="t1", hand_no=1)
    assert status == "invalid" and message


async def test_a_tampered_record_is_saved_as_evidence_and_flagged(
    played: tuple[HostInfo, str], tmp_path: Path
) -> None:
    info, table = played
    path = info.host.lobby.store.records.record_path(table, 1)
    record = load_record(path)
    record["secret"] = "00" * 32  # a plain field that disagrees with what was signed
    path.write_bytes(lzma.compress(json.dumps(record).encode("utf-8")))
    async with await _session(info) as session:
        result = await fetch_and_save(session, table, 1, tmp_path)
    assert result.status == "invalid" and not result.ok and result.path is not None
    assert result.line().startswith(f"record saved: {result.path} (INVALID: ")
    assert json.loads(result.path.read_text("utf-8"))["secret"] == "00" * 32
    (verdict,) = verify_files([result.path])
    assert verdict["status"] == "invalid"


class _FakeSession:
    """Answers every multi-part request with the given replies (or raises the given error)."""

    def __init__(self, replies: list[Message] | BaseException) -> None:
        self.replies = replies

    async def request_all(self, msg: Message, *, timeout: float) -> list[Message]:
        assert isinstance(msg, tm.GetRecord) and msg.table == "t1" and msg.hand_no == 3
        if isinstance(self.replies, BaseException):
            raise self.replies
        return self.replies


def _part(part: int, parts: int, text: str, *, hand_no: int = 3) -> tm.RecordPart:
    return tm.RecordPart(table="t1", hand_no=hand_no, part=part, parts=parts, text=text)


def _fake(replies: list[Message] | BaseException) -> ClientSession:
    return cast(ClientSession, _FakeSession(replies))


async def test_parts_are_joined_in_order() -> None:
    parts: list[Message] = [_part(0, 3, '{"a"'), _part(1, 3, ": "), _part(2, 3, "1}")]
    assert await fetch_record_text(_fake(parts), "t1", 3) == '{"a": 1}'


@pytest.mark.parametrize(
    ("replies", "message"),
    [
        ([_part(1, 2, "x"), _part(0, 2, "y")], "record part 1/2 arrived where part 0/2 belongs"),
        ([_part(0, 3, "x"), _part(1, 3, "y")], "the host sent 2 of the record's 3 parts"),
        ([_part(0, 2, "x"), _part(1, 3, "y")], "record part 1/3 arrived where part 1/2 belongs"),
        ([_part(0, 1, "x", hand_no=4)], "a part of table t1 hand 4, not of table t1 hand 3"),
        ([tm.Ok()], "answered get_record with ok, not record_part"),
    ],
)
async def test_bad_parts_are_refused(replies: list[Message], message: str) -> None:
    with pytest.raises(RecordFetchError, match=message):
        await fetch_record_text(_fake(replies), "t1", 3)


async def test_an_oversized_record_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(record_fetch, "MAX_RECORD_BYTES", 4)
    with pytest.raises(RecordFetchError, match="larger than 4 bytes"):
        await fetch_record_text(_fake([_part(0, 1, "12345")]), "t1", 3)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (Disconnected("gone"), "the connection ended first (gone)"),
        (trio.TooSlowError(), "no complete answer within 30 s"),
        (None, "record part 1/2 arrived where part 0/2 belongs"),
    ],
)
async def test_fetch_and_save_reports_failures(
    error: BaseException | None, message: str, tmp_path: Path
) -> None:
    replies: list[Message] | BaseException = error if error is not None else [_part(1, 2, "x")]
    result = await fetch_and_save(_fake(replies), "t1", 3, tmp_path)
    assert (result.status, result.message, result.path) == ("unavailable", message, None)
    assert result.to_json() == {
        "table": "t1",
        "hand_no": 3,
        "ok": False,
        "status": "unavailable",
        "message": message,
        "file": None,
        "fingerprint": None,
    }


async def test_an_unwritable_directory_is_unavailable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = await fetch_and_save(_fake([_part(0, 1, "{}")]), "t1", 3, blocker / "proofs")
    assert result.status == "unavailable" and result.message.startswith("cannot write ")


async def test_two_clients_sharing_a_state_dir_save_the_same_hand_at_once(tmp_path: Path) -> None:
    text = '{"format": "not a record"}'
    results: list[Any] = []

    async def save() -> None:
        results.append(await fetch_and_save(_fake([_part(0, 1, text)]), "t1", 3, tmp_path))

    async with trio.open_nursery() as nursery:
        for _ in range(8):
            nursery.start_soon(save)
    assert {r.path for r in results} == {tmp_path / "t1" / "t1-hand3-record.json"}
    assert {r.status for r in results} == {"invalid"}
    kept = [p.name for p in (tmp_path / "t1").iterdir()]
    assert kept == ["t1-hand3-record.json"]  # no temp files left
    assert (tmp_path / "t1" / "t1-hand3-record.json").read_text("utf-8") == text


class _SlowDown(_FakeSession):
    """Refuses every request as rate_limited (after ClientSession's own resends)."""

    async def request_all(self, msg: Message, *, timeout: float) -> list[Message]:
        raise RequestError(Error(code=ErrorCode.RATE_LIMITED, message="slow down", fatal=False))


async def test_a_fetch_the_host_keeps_refusing_as_rate_limited_is_unavailable() -> None:
    """(The resends after "slow down" are ClientSession's; tests/net/test_session.py.)"""
    result = await fetch_and_save(cast(ClientSession, _SlowDown([])), "t1", 3, Path("unused"))
    assert result.status == "unavailable" and "rate_limited" in result.message


def test_a_host_record_marked_partial_is_invalid() -> None:
    """``partial`` is not signed: a host's record claiming it could hide a withheld CARD."""
    vectors = Path(__file__).resolve().parents[2] / "spec" / "vectors"
    rec = json.loads((vectors / "hand_record.json").read_text("utf-8"))
    del rec["messages"][next(i for i, m in enumerate(rec["messages"]) if m[0] == "card")]
    rec["partial"] = True
    status, message, _ = check_record_text(json.dumps(rec), table="table-1", hand_no=1)
    assert (status, message) == (
        "invalid",
        "the host sent a partial record (it need not hold every card)",
    )


def test_a_saved_record_is_never_replaced(tmp_path: Path) -> None:
    """The same text again stays one file; a different text goes beside it, not over it."""
    path = record_path(tmp_path, "t1", 3)
    assert record_fetch.save_new(path, "first") == path
    assert record_fetch.save_new(path, "first") == path
    second = record_fetch.save_new(path, "second")
    assert second == path.with_name("t1-hand3-record-2.json")
    assert second.read_text("utf-8") == "second"
    assert record_fetch.save_new(path, "second") == second
    assert path.read_text("utf-8") == "first"
    assert {p.name for p in path.parent.iterdir()} == {path.name, second.name}  # no temp left


def test_a_record_is_kept_byte_for_byte_and_compared_so(tmp_path: Path) -> None:
    """A saved record is evidence: compared as text, a copy whose line endings had changed
    (\\r\\n) passed for the same record, and a new fetch was never kept beside it."""
    text = '{\n  "hand_no": 1\n}\n'
    path = tmp_path / "t1-hand1-record.json"
    path.write_bytes(text.replace("\n", "\r\n").encode())
    saved = record_fetch.save_new(path, text)
    assert saved == tmp_path / "t1-hand1-record-2.json"
    assert saved.read_bytes() == text.encode()
    assert record_fetch.save_new(path, text) == saved  # the same bytes again: kept as they are
