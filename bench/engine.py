"""Benchmark of the rules engines: CPU per action, finished games per second, how games end.

How it works: for every registered game (or those named with ``--game``), play ``--games``
seeded random games with :func:`host.games.playout.playout` (the same driver the property tests
use, without invariant checks) and report, single-core: microseconds of CPU per action first
(the engine's own cost, whatever the game's length), then finished games per second (games
that ended with an outcome, on CPU and wall-clock time; the CPU figure is steadier on a busy
machine), the mean actions per game, and how the games ended (termination counts: a safety
stop, ``exhausted`` or ``turn_limit``, means the game did not end as a game). With ``--jobs N``
(N > 1) the same games are also split over N worker processes and the aggregate finished games
per second is reported. ``bench/endings.py`` measures endings over every seat count.

Run: ``python bench/engine.py [--game one-card] [--seats 2] [--games 400] [--jobs 2]``.
Target: at least 1,200 two-player One Card games per second on the 2-core reference machine.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from host.games import find_game, game_names
from host.games.playout import playout


@dataclass(frozen=True, slots=True)
class Figures:
    games: int
    actions: int
    unfinished: int
    wall: float
    cpu: float
    #: how the games ended (termination value -> count)
    ends: Counter[str] = field(default_factory=Counter)
    #: hands dealt in all (ONE plays a match of several hands per game)
    hands: int = 0


def run(name: str, seats: int, games: int, seed: int, options: dict[str, str]) -> Figures:
    """Play ``games`` random games of ``name`` (seeds ``seed``, ``seed + 1``, ...)."""
    cls = find_game(name).state
    actions = unfinished = hands = 0
    ends: Counter[str] = Counter()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for i in range(games):
        result = playout(cls, seats=seats, rng=random.Random(seed + i), options=options)
        actions += result.steps
        hand_no = result.game.view(None).get("hand_no", 1)
        hands += hand_no if isinstance(hand_no, int) else 1
        if result.outcome is None:
            unfinished += 1
        else:
            ends[result.outcome.termination.value] += 1
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return Figures(games, actions, unfinished, wall, cpu, ends, hands)


def _run_args(args: tuple[str, int, int, int, dict[str, str]]) -> Figures:
    return run(*args)


def parallel(
    name: str, *, seats: int, games: int, seed: int, options: dict[str, str], jobs: int
) -> float:
    """Games per second with ``jobs`` processes sharing ``games`` games (wall-clock)."""
    share = -(-games // jobs)
    work = [(name, seats, share, seed + j * share, options) for j in range(jobs)]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        pool.map(_run_args, [(name, seats, 2, seed, options)] * jobs)  # warm up the workers
        t0 = time.perf_counter()
        done = pool.map(_run_args, work)
        wall = time.perf_counter() - t0
    return sum(f.games - f.unfinished for f in done) / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="game name (repeatable; default: all)")
    parser.add_argument("--seats", type=int, default=2, help="seats per game")
    parser.add_argument("--games", type=int, default=400, help="games per measurement")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--jobs", type=int, default=1, help="also measure with this many processes")
    parser.add_argument(
        "--option", action="append", default=[], help="table option NAME=VALUE (repeatable)"
    )
    args = parser.parse_args()
    options = dict(o.split("=", 1) for o in args.option)
    names = args.game or game_names()
    print(f"engine benchmark: {args.seats} seats, {args.games} random games each, seed {args.seed}")
    for name in names:
        run(name, args.seats, min(20, args.games), args.seed, options)  # warm up
        f = run(name, args.seats, args.games, args.seed, options)
        done = f.games - f.unfinished
        line = (
            f"  {name:10} {1e6 * f.cpu / max(1, f.actions):6.1f} us/action (cpu); "
            f"{done} finished games in {f.wall:6.2f} s: {done / f.cpu:7.0f} games/s (cpu), "
            f"{done / f.wall:7.0f}/s (wall), {f.actions / f.games:6.1f} actions/game"
        )
        if f.hands > f.games:
            line += f", {f.hands / f.games:.1f} hands/game: {f.hands / f.wall:7.0f} hands/s"
        if f.unfinished:
            line += f", {f.unfinished} unfinished"
        print(line, flush=True)
        ends = ", ".join(f"{k} {v}" for k, v in f.ends.most_common())
        print(f"  {'':10} endings: {ends}", flush=True)
        if args.jobs > 1:
            rate = parallel(
                name,
                seats=args.seats,
                games=args.games,
                seed=args.seed,
                options=options,
                jobs=args.jobs,
            )
            print(f"  {name:10} {args.jobs} processes: {rate:7.0f} games/s", flush=True)


if __name__ == "__main__":
    main()
