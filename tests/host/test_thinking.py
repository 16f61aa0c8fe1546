"""host/bots/thinking.py: hard bots search in worker processes, within a cap, fairly, never for
long.

The pool's rules (cap, wait, fair turns between tables, a failed worker) are checked with a
stand-in runner on trio's mock clock; the real runner is checked to run the search in another
process and to return what the search found.
"""

from __future__ import annotations

import functools
import os
import random

import pytest
import trio
import trio.testing
import trio_parallel

from host.bots.ai.arena import seat_turns
from host.bots.ai.ismcts import Budget
from host.bots.ai.levels import Found, HardBot, SearchJob, run_search
from host.bots.policy import heuristic_choice
from host.bots.thinking import (
    WORKER_NICE,
    Thinkers,
    ThinkingLimits,
    in_worker_process,
    lower_priority,
    open_thinkers,
)


def _job() -> tuple[SearchJob, list[dict[str, object]]]:
    """A hard bot's search job at seat 0's first turn with a choice in a seeded game."""
    seen: list[dict[str, object]] = []
    bot = HardBot(rng=random.Random(5), budget=Budget(iterations=30))
    engine = next(seat_turns("one-card", 3, 11, choices_only=True, observe=seen.append))
    for event in seen:
        bot.observe(event)
    view = engine.view(0)
    job, answer = bot.prepare(view, view["legal"])
    assert job is not None and answer is None
    return job, view["legal"]


def _where(job: SearchJob) -> Found:
    """Stands in for the search: says which process ran it."""
    return Found({"pid": os.getpid()}, 0)


def _niceness(job: SearchJob) -> Found:
    return Found({"nice": os.nice(0)}, 0)


def _boom(job: SearchJob) -> Found:
    raise RuntimeError("the worker broke")


async def test_the_search_runs_in_another_process() -> None:
    job, _ = _job()
    found = await in_worker_process(job, search=_where)
    assert found.action is not None and found.action["pid"] != os.getpid()


async def test_a_hosts_workers_give_the_cpu_to_the_host_first() -> None:
    job, _ = _job()
    async with trio_parallel.open_worker_context(init=lower_priority) as context:
        found = await in_worker_process(job, search=_niceness, context=context)
    assert found.action == {"nice": min(19, os.nice(0) + WORKER_NICE)}


async def test_open_thinkers_searches_in_its_own_workers() -> None:
    job, legal = _job()
    async with open_thinkers(ThinkingLimits(workers=1)) as thinkers:
        found = await thinkers.search("t1", job)
    assert found is not None and found.action in legal and found.iterations == 30


async def test_the_worker_runs_the_same_search_with_the_same_budget() -> None:
    job, legal = _job()
    found = await Thinkers(ThinkingLimits(workers=1)).search("t1", job)
    assert found is not None
    assert found == run_search(job)  # seeded: the same answer as searching in process
    assert found.iterations == 30 and found.action in legal


class _Held:
    """A stand-in runner: each search runs until the test lets it finish; records the order."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.finish = trio.Event()

    async def __call__(self, job: SearchJob) -> Found:
        self.started.append(str(job.game))
        await self.finish.wait()
        return Found(None, 1)


def _named(job: SearchJob, name: str) -> SearchJob:
    """``job`` marked with ``name`` (in its game field) so the stand-in can record it."""
    return SearchJob(name, job.view, job.memory, job.seed, job.budget)


async def test_past_the_cap_a_bot_does_not_wait_it_plays_the_normal_move(
    autojump_clock: trio.testing.MockClock,
) -> None:
    job, _ = _job()
    held = _Held()
    thinkers = Thinkers(ThinkingLimits(workers=1, searches=2, wait=60), run=held)
    results: list[Found | None] = []

    async def one(queue: str) -> None:
        results.append(await thinkers.search(queue, job))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(one, "t1")
        nursery.start_soon(one, "t2")
        await trio.testing.wait_all_tasks_blocked()
        assert (thinkers.running(), thinkers.waiting(), thinkers.underway) == (1, 1, 2)
        started = trio.current_time()
        assert await thinkers.search("t3", job) is None  # a third: refused at once
        assert trio.current_time() == started and thinkers.refused == 1
        held.finish.set()
    assert results == [Found(None, 1), Found(None, 1)]
    assert thinkers.underway == 0 and thinkers.running() == 0


async def test_a_search_that_waits_too_long_for_a_worker_gives_up(
    autojump_clock: trio.testing.MockClock,
) -> None:
    job, legal = _job()
    held = _Held()
    thinkers = Thinkers(ThinkingLimits(workers=1, searches=10, wait=2.0), run=held)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(thinkers.search, "t1", job)  # takes the only worker, for ever
        await trio.testing.wait_all_tasks_blocked()
        started = trio.current_time()
        assert await thinkers.search("t2", job) is None
        assert trio.current_time() - started == pytest.approx(2.0)
        assert thinkers.timed_out == 1 and thinkers.waiting() == 0
        held.finish.set()
    # the bot then plays the normal move
    bot = HardBot(rng=random.Random(1))
    assert bot.conclude(job.view, legal, None) == heuristic_choice(job.view, legal)
    assert bot.iterations == 0


async def test_with_no_wait_a_bot_searches_only_when_a_worker_is_free(
    autojump_clock: trio.testing.MockClock,
) -> None:
    job, _ = _job()
    held = _Held()
    thinkers = Thinkers(ThinkingLimits(workers=1, searches=10, wait=0), run=held)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(thinkers.search, "t1", job)  # a worker is free: it searches
        await trio.testing.wait_all_tasks_blocked()
        assert held.started == ["one-card"] and thinkers.running() == 1
        assert await thinkers.search("t2", job) is None  # none is: the normal move at once
        assert thinkers.timed_out == 1 and thinkers.waiting() == 0
        held.finish.set()
    assert thinkers.running() == 0 and thinkers.underway == 0


async def test_tables_take_turns_for_the_workers(autojump_clock: trio.testing.MockClock) -> None:
    """Four searches of one table queued before one of another: the other goes second, not
    last."""
    job, _ = _job()
    order: list[str] = []
    gates = {name: trio.Event() for name in ("a1", "a2", "a3", "a4", "b1")}

    async def run(job: SearchJob) -> Found:
        order.append(job.game)
        await gates[job.game].wait()
        return Found(None, 1)

    thinkers = Thinkers(ThinkingLimits(workers=1, searches=10, wait=60), run=run)
    async with trio.open_nursery() as nursery:
        for name in ("a1", "a2", "a3", "a4", "b1"):
            nursery.start_soon(thinkers.search, name[0], _named(job, name))
            await trio.testing.wait_all_tasks_blocked()
        for name in ("a1", "a2", "b1", "a3", "a4"):
            assert order[-1] == name
            gates[name].set()
            await trio.testing.wait_all_tasks_blocked()
    assert order == ["a1", "a2", "b1", "a3", "a4"]


async def test_a_failed_worker_costs_one_normal_move(
    autojump_clock: trio.testing.MockClock, caplog: pytest.LogCaptureFixture
) -> None:
    job, _ = _job()

    async def broken(job: SearchJob) -> Found:
        raise RuntimeError("the worker broke")

    thinkers = Thinkers(ThinkingLimits(workers=1), run=broken)
    assert await thinkers.search("t1", job) is None
    assert thinkers.failed == 1 and thinkers.running() == 0
    assert "the worker broke" in caplog.text


async def test_a_search_raising_in_the_worker_process_is_a_failure_too() -> None:
    job, _ = _job()
    run = functools.partial(in_worker_process, search=_boom)
    thinkers = Thinkers(ThinkingLimits(workers=1), run=run)
    assert await thinkers.search("t1", job) is None
    assert thinkers.failed == 1


def test_limits_default_to_the_cores_and_refuse_nonsense() -> None:
    limits = ThinkingLimits()
    assert limits.pool >= 1 and limits.cap == 4 * limits.pool
    assert ThinkingLimits(workers=3, searches=5).cap == 5
    for bad in ({"workers": -1}, {"searches": -1}, {"wait": -0.5}):
        with pytest.raises(ValueError):
            ThinkingLimits(**bad)
