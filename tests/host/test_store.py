"""The sqlite journal: durability settings, audiences, seats, hand records."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio

from host.storage.datadir import DB_FILE
from host.storage.journal import ChatRow, JournalKind, JournalRow, SeatRow
from host.storage.store import Store


async def test_journal_round_trips_and_filters_messages_by_audience(tmp_path: Path) -> None:
    store = Store(tmp_path)
    await store.open()
    try:
        await store.put_table("t1", 5, {"game": "one-card", "seats": 2})
        await store.put_seat("t1", SeatRow(0, "ann", b"h" * 32, None))
        await store.put_seat("t1", SeatRow(1, "bob", None, "host:heuristic"))
        await store.append(
            "t1",
            [
                JournalRow(1, JournalKind.GAME, None, {"game_no": 1}),
                JournalRow(2, JournalKind.MESSAGE, None, {"type": "event", "n": 2}),
                JournalRow(3, JournalKind.MESSAGE, 0, {"type": "event", "n": 3}),
                JournalRow(4, JournalKind.MESSAGE, 1, {"type": "event", "n": 4, "b": b"\x01"}),
            ],
        )
        (row,) = await store.load_tables()
        assert row.table_id == "t1" and row.meta["game"] == "one-card"
        assert [s.name for s in row.seats] == ["ann", "bob"]
        assert [j.seq for j in row.journal] == [1, 2, 3, 4]
        assert row.journal[3].payload["b"] == b"\x01"
        seat0 = await store.messages_after("t1", 0, 0)
        assert [r.payload["n"] for r in seat0] == [2, 3]
        assert [r.payload["n"] for r in await store.messages_after("t1", 2, 1)] == [4]
        assert [r.payload["n"] for r in await store.messages_after("t1", 0, None)] == [2]
        await store.delete_seat("t1", 1)
        (row,) = await store.load_tables()
        assert [s.name for s in row.seats] == ["ann"]
        await store.records.save_record("t1", 2, {"hand_no": 2})
        assert await store.records.list_records("t1") == [2]
        assert await store.records.load_record("t1", 2) == {"hand_no": 2}
        assert await store.records.load_record("t1", 3) is None
    finally:
        await store.close()
    db = sqlite3.connect(tmp_path / DB_FILE)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


async def test_synchronous_full_is_set_on_the_connection(tmp_path: Path) -> None:
    store = Store(tmp_path)
    await store.open()
    try:
        assert store._db is not None
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        await store.close()


async def test_one_table_loads_alone(tmp_path: Path) -> None:
    store = Store(tmp_path)
    await store.open()
    try:
        for n, table_id in enumerate(("t1", "t2"), start=1):
            await store.put_table(table_id, n, {"game": "one-card", "seats": 2})
            await store.put_seat(table_id, SeatRow(0, f"ann{n}", None, None))
            await store.append(table_id, [JournalRow(1, JournalKind.GAME, None, {"game_no": n})])
        (row,) = await store.load_tables(only="t2")
        assert row.table_id == "t2" and [s.name for s in row.seats] == ["ann2"]
        assert [j.payload["game_no"] for j in row.journal] == [2]
        assert await store.load_tables(only="t3") == []
        assert [r.table_id for r in await store.load_tables()] == ["t1", "t2"]
    finally:
        await store.close()


async def test_chat_keeps_the_last_lines_per_table_and_goes_with_the_table(tmp_path: Path) -> None:
    store = Store(tmp_path)
    await store.open()
    try:
        for table_id in ("t1", "t2"):
            await store.put_table(table_id, 1, {"game": "one-card", "seats": 2})
        for n in range(1, 8):
            line = {"type": "chat_line", "table": "t1", "seat": 0, "name": "ann", "text": f"{n}"}
            await store.append_chat("t1", [ChatRow(n, 10 * n, line)], keep=3)
        await store.append_chat("t2", [ChatRow(1, 0, {"text": "other"})], keep=3)
        with pytest.raises(ValueError, match="keep at least one"):
            await store.append_chat("t1", [ChatRow(8, 80, {"text": "8"})], keep=0)
        t1, t2 = await store.load_tables()
        kept = [(c.n, c.seq, c.line["text"]) for c in t1.chat]
        assert kept == [(5, 50, "5"), (6, 60, "6"), (7, 70, "7")]
        assert [c.line["text"] for c in t2.chat] == ["other"]
        await store.delete_table("t1")
        await store.put_table("t1", 2, {"game": "one-card", "seats": 2})
        (fresh,) = await store.load_tables(only="t1")
        assert fresh.chat == []
    finally:
        await store.close()


def _rows(first: int, count: int) -> list[JournalRow]:
    return [
        JournalRow(first + i, JournalKind.MESSAGE, None, {"n": first + i}) for i in range(count)
    ]


async def _append_from_many_tables(
    store: Store, tables: int, bad: str | None = None
) -> dict[str, Exception | None]:
    """Each table appends rows 1-3 at the same moment; table ``bad`` repeats seq 1."""
    outcome: dict[str, Exception | None] = {}

    async def one(table_id: str) -> None:
        rows = _rows(1, 3) + (_rows(1, 1) if table_id == bad else [])
        try:
            await store.append(table_id, rows)
            outcome[table_id] = None
        except sqlite3.Error as exc:
            outcome[table_id] = exc

    async with trio.open_nursery() as nursery:
        for n in range(tables):
            nursery.start_soon(one, f"t{n}")
    return outcome


async def test_appends_made_during_a_commit_share_the_next_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)
    await store.open()
    commits = 0
    run = store._run

    async def counting_run(fn: Any) -> Any:
        nonlocal commits
        commits += 1
        return await run(fn)

    try:
        monkeypatch.setattr(store, "_run", counting_run)
        outcome = await _append_from_many_tables(store, 20)
        assert outcome == {f"t{n}": None for n in range(20)}
        # the first caller commits alone; the 19 who came meanwhile go in together
        assert commits <= 3
        monkeypatch.setattr(store, "_run", run)
        for n in range(20):
            journal = await store.messages_after(f"t{n}", 0, None)
            assert [r.seq for r in journal] == [1, 2, 3]
    finally:
        await store.close()


async def test_one_tables_bad_rows_fail_only_that_table_in_a_group_commit(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path)
    await store.open()
    try:
        outcome = await _append_from_many_tables(store, 6, bad="t3")
        assert isinstance(outcome.pop("t3"), sqlite3.IntegrityError)
        assert outcome == {f"t{n}": None for n in (0, 1, 2, 4, 5)}
        assert await store.messages_after("t3", 0, None) == []  # its transaction rolled back
        assert [r.seq for r in await store.messages_after("t4", 0, None)] == [1, 2, 3]
    finally:
        await store.close()
