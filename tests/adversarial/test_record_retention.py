"""Hand records filled the disk: any client could run bots-only games writing records for ever
(about 311 MB an hour) and nothing deleted them. Now the host prunes them by age and size, a
pruned hand answers ``pruned``, and a restart does not bring pruned records back."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from host.storage.record_files import PRUNE_EVERY_S, PRUNED_FILE
from host.table.seats import TablePhase
from net.session import RequestError
from protocol.errors import ErrorCode

Lab = Any  # tests/adversarial/conftest.py (test modules cannot import it)


async def test_a_pruned_hand_answers_pruned_and_stays_pruned_after_a_restart(
    autojump_clock: trio.testing.MockClock, lab: Lab
) -> None:
    lab.config = dataclasses.replace(lab.config, keep_records_days=0)
    first = await lab.start()
    records = first.host.lobby.store.records
    table = await first.host.create_table("one-card", seats=2)
    await first.host.add_bots(table, 2)  # a bots-only game, to its end
    played = first.host.lobby.table(table)
    with trio.fail_after(3600):
        while played.phase is not TablePhase.FINISHED:
            await trio.sleep(1)
        hands = await records.list_records(table)
        assert hands
        await trio.sleep(PRUNE_EVERY_S)  # the host's pruning pass
    assert await records.list_records(table) == []
    assert [p.name for p in records.records_dir.iterdir()] == [PRUNED_FILE]
    async with lab.connect(first) as c:
        with pytest.raises(RequestError) as gone:
            await c.request(tm.GetRecord(table=table, hand_no=hands[0]))
        assert gone.value.code is ErrorCode.PRUNED and not gone.value.error.fatal
        assert "--keep-records-days" in gone.value.error.message
        with pytest.raises(RequestError) as never:  # a hand never played is still not_found
            await c.request(tm.GetRecord(table=table, hand_no=hands[-1] + 5))
        assert never.value.code is ErrorCode.NOT_FOUND
    await first.host.shutdown()
    lab.config = dataclasses.replace(lab.config, keep_records_days=None, max_records_bytes=None)
    second = await lab.start()
    await trio.testing.wait_all_tasks_blocked()
    kept = await second.host.lobby.store.records.list_records(table)
    assert not set(hands) & set(kept)  # the pruned ones are not rebuilt from the journal
    async with lab.connect(second) as c:
        with pytest.raises(RequestError) as gone:
            await c.request(tm.GetRecord(table=table, hand_no=hands[0]))
        assert gone.value.code is ErrorCode.PRUNED
