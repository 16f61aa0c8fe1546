"""A table's journal keeps at most two games (host/storage/compaction.py, run by Store.append)."""

from __future__ import annotations

from pathlib import Path

from host.storage.journal import JournalKind, JournalRow
from host.storage.store import Store

GAME, ACTION = JournalKind.GAME, JournalKind.ACTION


def game(first_seq: int, game_no: int, actions: int = 3) -> list[JournalRow]:
    rows = [JournalRow(first_seq, GAME, None, {"game_no": game_no})]
    rows += [JournalRow(first_seq + i, ACTION, 0, {"n": i}) for i in range(1, actions + 1)]
    return rows


async def seqs(store: Store, table: str) -> list[int]:
    (row,) = await store.load_tables(only=table)
    return [j.seq for j in row.journal]


async def test_a_new_game_deletes_the_games_before_the_previous_one(tmp_path: Path) -> None:
    store = Store(tmp_path, in_thread=False)
    await store.open()
    try:
        for table in ("t1", "t2"):
            await store.put_table(table, 1, {"game": "one-card", "seats": 2, "options": {}})
        await store.append("t1", [JournalRow(1, JournalKind.SEAT, 0, {"op": "x"})])
        await store.append("t1", game(2, 1))
        await store.append("t1", game(6, 2))
        # the seat change before game 1 goes with game 2: both games stay
        assert await seqs(store, "t1") == list(range(2, 10))
        await store.append("t2", game(1, 1))
        for n, first in enumerate((10, 14, 18), start=3):
            await store.append("t1", game(first, n))
            assert (await seqs(store, "t1"))[0] == first - 4  # the previous game's GAME row
        assert await seqs(store, "t1") == list(range(14, 22))
        assert await seqs(store, "t2") == [1, 2, 3, 4]  # other tables untouched
    finally:
        await store.close()


async def test_no_compaction_while_records_of_the_table_wait_for_the_disk(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path, in_thread=False)
    await store.open()
    try:
        await store.put_table("t1", 1, {"game": "one-card", "seats": 2, "options": {}})
        store.records._unwritten[store.records.record_path("t1", 1)] = b"{}"
        for n, first in enumerate((1, 5, 9), start=1):
            await store.append("t1", game(first, n))
        assert await seqs(store, "t1") == list(range(1, 13))  # kept: it may rebuild hand 1
    finally:
        store.records._unwritten.clear()
        await store.close()
