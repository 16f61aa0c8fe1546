"""Keep the garbage collector's full collections short in a long-running host process.

How it works. CPython frees most objects by reference counting; its cyclic collector also scans
every tracked object in a *full* (generation 2) collection, which it starts whenever a quarter
more objects have survived into the oldest generation. A host holding 1,000 tables and 4,000
connections tracks over a million objects, so each full collection stopped the event loop for
350-700 ms, every few seconds under load (``bench/server.py --tables 1000``, measured with
``gc.callbacks``), and almost none of them found any garbage: that was the probe's ping p99.

:func:`keep_full_collections_short` runs in the host's nursery. After each full collection it
moves the survivors into the permanent generation (:func:`gc.freeze`), so the next one scans only
what was made since: the objects the tables and connections hold long-term are looked at once,
not every few seconds. Frozen objects are still freed by reference counting the moment nothing
uses them; what freezing gives up is finding reference *cycles* among them. So every
``THAW_S`` seconds the freeze is lifted (:func:`gc.unfreeze`) and the next full collection scans
everything once, collecting any cycles that formed meanwhile (a table's objects after it was
dropped, say): one long pause every quarter of an hour instead of several a minute. Cycles
held until then cost memory, so the host's own objects form none: a dropped table and an ended
connection are freed by reference counting (``tests/host/test_memory.py``, ``bench/memory.py``).

Only ``onecard host`` (a process of its own) runs it: an in-process host in tests or in
``onecard play`` shares the interpreter with other code whose garbage must stay collectable.
"""

from __future__ import annotations

import gc

import trio

__all__ = ["POLL_S", "THAW_S", "keep_full_collections_short"]

#: seconds between two looks at the collector's statistics
POLL_S = 1.0
#: seconds after which the freeze is lifted, so that one full collection sees every object
THAW_S = 900.0


def full_collections() -> int:
    """How many full (generation 2) collections this process has run."""
    return int(gc.get_stats()[2]["collections"])


async def keep_full_collections_short(
    *,
    poll: float = POLL_S,
    thaw_every: float = THAW_S,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Freeze what survives each full collection; lift the freeze every ``thaw_every`` s.

    Runs until cancelled; on the way out the freeze is lifted, so nothing stays hidden from the
    collector after the host stops.
    """
    gc.freeze()  # what start-up made: modules, classes, functions
    seen = full_collections()
    thawed_at = trio.current_time()
    task_status.started()
    try:
        while True:
            await trio.sleep(poll)
            now = full_collections()
            if now == seen:
                continue
            seen = now
            if trio.current_time() - thawed_at >= thaw_every:
                gc.unfreeze()  # the next full collection looks at everything once
                thawed_at = trio.current_time()
            else:
                gc.freeze()
    finally:
        gc.unfreeze()
