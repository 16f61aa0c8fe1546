"""The host's garbage-collector policy (``host/server/gc_tuning.py``): survivors of each full
collection are frozen, and the freeze is lifted every ``thaw_every`` seconds so that cycles
among them are still collected."""

from __future__ import annotations

import functools
import gc
import weakref

import trio
import trio.testing

from host.server.gc_tuning import keep_full_collections_short


class Node:
    """An object that can sit in a reference cycle."""

    other: Node | None = None


async def test_full_collections_freeze_what_survives_and_a_thaw_collects_cycles(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with trio.open_nursery() as nursery:
        await nursery.start(
            functools.partial(keep_full_collections_short, poll=1.0, thaw_every=100.0)
        )
        frozen = gc.get_freeze_count()
        assert frozen > 0  # what start-up made
        kept = [Node() for _ in range(1000)]
        cycle = Node()
        cycle.other = cycle
        alive = weakref.ref(cycle)
        gc.collect()
        await trio.sleep(1.5)
        # the survivors of that full collection are out of the next one's way
        assert gc.get_freeze_count() >= frozen + len(kept)
        del cycle
        gc.collect()
        await trio.sleep(1.5)
        assert alive() is not None  # a cycle among frozen objects waits for the thaw
        await trio.sleep(100)
        gc.collect()  # the first full collection after thaw_every: the freeze is lifted
        await trio.sleep(1.5)
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert alive() is None
        nursery.cancel_scope.cancel()
    assert gc.get_freeze_count() == 0  # nothing stays frozen once the host stops
    assert len(kept) == 1000
