"""Hard bots think in worker processes, never on the host's event loop.

How it works: a hard bot's search (:func:`host.bots.ai.levels.run_search`) is seconds of pure
Python; run in the host's process, even in a thread, it holds the GIL against the event loop,
and a dozen tables of hard bots stalled every other table (hardening issue 25, point 1). So
every search goes through one :class:`Thinkers` per host, which runs it in a worker process of
a pool (trio-parallel: a cached worker per search running at once, killed on cancel) and
decides who searches when:

* at most ``workers`` searches run at once, each in its own process (default: the machine's
  cores);
* at most ``searches`` are underway at once host-wide, running or waiting for a worker; a bot
  asking for one more does not wait at all: it plays the normal move;
* waiting searches are served fairly between *queues* (a table each): when a worker frees, the
  next table in turn gets it, however many bots another table has waiting;
* a search that waited ``wait`` seconds for a worker gives up: the bot plays the normal move;
* the workers run at a lower CPU priority than the host (``nice`` +10): when every core is
  searching, the host's event loop and the players' clients still get the CPU first.

What crosses to the worker is the :class:`~host.bots.ai.levels.SearchJob` (the bot's view, its
memory, a seed and the budget), never a table; back comes a :class:`~host.bots.ai.levels.Found`. A
worker that dies is logged and its bot plays the normal move. The same search, with the same
budget, decides as it did in process: only where it runs changed.
"""

from __future__ import annotations

import functools
import os
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import trio
import trio_parallel

from host.bots.ai.levels import Found, SearchJob, run_search
from host.logs import get_logger

__all__ = [
    "SEARCHES_PER_WORKER",
    "SEARCH_WAIT_S",
    "Thinkers",
    "ThinkingLimits",
    "current_thinkers",
    "default_workers",
    "in_worker_process",
    "open_thinkers",
]

log = get_logger(__name__)

#: seconds a search may wait for a worker before its bot plays the normal move instead
SEARCH_WAIT_S = 2.0
#: searches underway (running or waiting) per worker, by default
SEARCHES_PER_WORKER = 4

#: how much lower the workers' CPU priority is than the host's (a POSIX ``nice`` increment)
WORKER_NICE = 10
#: seconds the workers get to stop when the host does, before they are killed
WORKER_GRACE_S = 5.0

Runner = Callable[[SearchJob], Awaitable[Found]]
"""Runs one job to its end somewhere off the event loop (a worker process by default)."""


def default_workers() -> int:
    """The pool's size by default: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on every platform
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class ThinkingLimits:
    """How a host's hard bots share its cores (``onecard host --bot-workers`` and co.)."""

    #: searches running at once, one worker process each
    workers: int = 0  # 0: default_workers()
    #: searches underway at once host-wide (running or waiting); 0: SEARCHES_PER_WORKER each
    searches: int = 0
    #: seconds a search waits for a worker before its bot plays the normal move
    wait: float = SEARCH_WAIT_S

    def __post_init__(self) -> None:
        if self.workers < 0 or self.searches < 0:
            raise ValueError("worker and search counts cannot be negative")
        if self.wait < 0:
            raise ValueError("the wait for a worker cannot be negative")

    @property
    def pool(self) -> int:
        return self.workers or default_workers()

    @property
    def cap(self) -> int:
        return max(self.searches or SEARCHES_PER_WORKER * self.pool, 1)


class _FairSlots:
    """``total`` slots; waiters queue per key and are served key by key in turn."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.busy = 0
        #: key -> its waiters, oldest first; keys in the order they are next served
        self._queues: OrderedDict[str, deque[trio.Event]] = OrderedDict()

    def waiting(self) -> int:
        return sum(len(q) for q in self._queues.values())

    def try_acquire(self) -> bool:
        """Take a slot if one is free and nobody waits for it."""
        if self.busy < self.total and not self._queues:
            self.busy += 1
            return True
        return False

    async def acquire(self, key: str) -> None:
        """Take a slot, waiting in ``key``'s queue for it if none is free."""
        await trio.lowlevel.checkpoint_if_cancelled()
        if self.try_acquire():
            await trio.lowlevel.cancel_shielded_checkpoint()
            return
        granted = trio.Event()
        self._queues.setdefault(key, deque()).append(granted)
        try:
            await granted.wait()
        except BaseException:
            if granted.is_set():  # given a slot as the wait was cancelled: pass it on
                self.release()
            else:
                queue = self._queues[key]
                queue.remove(granted)
                if not queue:
                    del self._queues[key]
            raise

    def release(self) -> None:
        """Free a slot: it goes to the oldest waiter of the next key in turn, if any."""
        if not self._queues:
            self.busy -= 1
            return
        key, queue = next(iter(self._queues.items()))
        granted = queue.popleft()
        del self._queues[key]
        if queue:
            self._queues[key] = queue  # to the back of the line: other tables go first
        granted.set()


def lower_priority() -> bool:
    """A worker's start: give the CPU to the host first (trio-parallel calls it in the worker)."""
    if hasattr(os, "nice"):  # POSIX
        os.nice(WORKER_NICE)
    return True


async def in_worker_process(
    job: SearchJob,
    *,
    search: Callable[[SearchJob], Found] = run_search,
    context: trio_parallel.WorkerContext | None = None,
) -> Found:
    """``search(job)`` in a worker process of trio-parallel's pool (killed if cancelled):
    ``context``'s (:func:`open_thinkers`), else trio-parallel's default one."""
    run = trio_parallel.run_sync if context is None else context.run_sync
    found = await run(search, job, kill_on_cancel=True, limiter=trio.CapacityLimiter(1))
    assert isinstance(found, Found)
    return found


class Thinkers:
    """The host's searches: a worker pool, a cap, fair queues and the wait (module docstring)."""

    def __init__(self, limits: ThinkingLimits | None = None, *, run: Runner | None = None) -> None:
        self.limits = limits or ThinkingLimits()
        self._run = run or in_worker_process
        self._slots = _FairSlots(self.limits.pool)
        #: searches running or waiting now
        self.underway = 0
        #: searches refused at the cap, given up after the wait, failed in a worker: each a
        #: normal move played instead
        self.refused = 0
        self.timed_out = 0
        self.failed = 0

    def running(self) -> int:
        return self._slots.busy

    def waiting(self) -> int:
        return self._slots.waiting()

    async def search(self, queue: str, job: SearchJob) -> Found | None:
        """Run ``job`` in a worker when ``queue``'s turn comes; ``None``: play the normal move
        (the host is at its cap, no worker was free within the wait, or the worker failed)."""
        if self.underway >= self.limits.cap:
            self.refused += 1
            await trio.lowlevel.checkpoint()
            return None
        self.underway += 1
        try:
            got = self._slots.try_acquire()
            if got:
                await trio.lowlevel.cancel_shielded_checkpoint()
            else:
                with trio.move_on_after(self.limits.wait):
                    await self._slots.acquire(queue)
                    got = True
            if not got:
                self.timed_out += 1
                return None
            try:
                return await self._run(job)
            except Exception as exc:  # a worker that died or a search that raised
                self.failed += 1
                log.warning("a hard bot's search failed (%s: %s)", type(exc).__name__, exc)
                return None
            finally:
                self._slots.release()
        finally:
            self.underway -= 1


@asynccontextmanager
async def open_thinkers(limits: ThinkingLimits | None = None) -> AsyncIterator[Thinkers]:
    """A host's :class:`Thinkers`, with worker processes of their own that run at a lower
    priority than the host (``nice`` +10), so that a machine whose cores are all searching
    still answers its players first; the workers stop when the block ends."""
    async with trio_parallel.open_worker_context(
        init=lower_priority, grace_period=WORKER_GRACE_S
    ) as context:
        yield Thinkers(limits, run=functools.partial(in_worker_process, context=context))


_CURRENT: trio.lowlevel.RunVar[Thinkers] = trio.lowlevel.RunVar("onecard_thinkers")


def current_thinkers() -> Thinkers:
    """This trio run's own :class:`Thinkers`, with the default limits, for bots that no host
    hands one (``onecard bot``: its bots share one pool)."""
    try:
        return _CURRENT.get()
    except LookupError:
        thinkers = Thinkers()
        _CURRENT.set(thinkers)
        return thinkers
