"""Benchmark: our rules engines against RLCard's UNO, side by side, CPU per action.

How it works: each repeat plays ``--games`` seeded random games of every subject in turn, so a
busy machine slows them all alike, and measures CPU time (``time.process_time``, steadier than
wall time on a shared machine); the figure is the median over ``--repeats`` repeats (each repeat
plays new seeds, so no cache is warmed by replaying a game). The subjects:

* our engines (One Card, ONE, Black Jack), played by :func:`host.games.playout.playout`, the
  driver of ``bench/engine.py``: chance answered by a seeded shuffle, a uniformly random legal
  action per step (the seat's default action 10% of the time), ``legal_actions`` computed for
  every step;
* ``rlcard-uno``: RLCard's UNO game engine (``rlcard.games.uno.game.UnoGame``), driven the
  same way: each ``step`` returns the next player's state with its legal actions, and a seeded
  ``random.Random`` picks one of them uniformly; the deck is shuffled by the game's own
  ``numpy`` generator, seeded per game. This is the like-for-like engine figure (its driver
  does less per step than ``playout``: no default action, no out-of-turn offers);
* ``rlcard-env``: RLCard's UNO as it is normally run, ``rlcard.make("uno")`` with a
  ``RandomAgent`` per seat (``env.run``), which adds the observation tensors an agent reads.
  Issue 15's "RLCard UNO 75 us" is this figure: its ratio to One Card there (75 / 22) is the
  ratio this bench measures between ``rlcard-env`` and One Card, not ``rlcard-uno``'s.

The ratios printed divide each RLCard figure by ours, against issue 15's target of at least 3x
for One Card and ONE; Black Jack is compared with its 40 us budget. The load average is printed
before and after: on a shared machine, repeat until the figures are stable.

RLCard is a bench-only dependency, never needed by the package: install it into the project's
environment with ``python -m pip install rlcard`` run by its Python (1.2.0 was measured; it
brings ``numpy``).

Run: ``python bench/engines_vs_rlcard.py [--games 200] [--repeats 5] [--seats 2]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from host.games import find_game
from host.games.playout import playout

#: a subject plays ``games`` games from ``seed`` on ``seats`` seats; returns (actions, cpu s)
Subject = Callable[[int, int, int], tuple[int, float]]

MAX_STEPS = 20_000  # a random UNO game that has not ended by then is cut (none was, measured)


def ours(name: str) -> Subject:
    cls = find_game(name).state

    def play(games: int, seed: int, seats: int) -> tuple[int, float]:
        actions = 0
        cpu0 = time.process_time()
        for i in range(games):
            actions += playout(cls, seats=seats, rng=random.Random(seed + i)).steps
        return actions, time.process_time() - cpu0

    return play


def rlcard_game() -> Subject:
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    def play(games: int, seed: int, seats: int) -> tuple[int, float]:
        actions = 0
        cpu0 = time.process_time()
        for i in range(games):
            rng = random.Random(seed + i)
            game = UnoGame(num_players=seats)
            game.np_random = np.random.RandomState(seed + i)
            state, _ = game.init_game()
            steps = 0
            while not game.is_over() and steps < MAX_STEPS:
                legal = state["legal_actions"]
                state, _ = game.step(legal[rng.randrange(len(legal))])
                steps += 1
            actions += steps
        return actions, time.process_time() - cpu0

    return play


def rlcard_env() -> Subject:
    import numpy as np
    import rlcard
    from rlcard.agents import RandomAgent

    envs: dict[int, Any] = {}

    def play(games: int, seed: int, seats: int) -> tuple[int, float]:
        env = envs.get(seats)
        if env is None:
            env = envs[seats] = rlcard.make("uno", config={"game_num_players": seats})
            env.set_agents([RandomAgent(num_actions=env.num_actions)] * seats)
        actions = 0
        cpu0 = time.process_time()
        for i in range(games):
            env.seed(seed + i)  # the deck's shuffles
            np.random.seed(seed + i)  # RandomAgent draws from numpy's global generator
            trajectories, _ = env.run(is_training=False)
            actions += sum((len(t) - 1) // 2 for t in trajectories)  # state, action, ..., state
        return actions, time.process_time() - cpu0

    return play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per subject and repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the median is shown)")
    parser.add_argument("--seats", type=int, default=2, help="seats per game")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    args = parser.parse_args()
    subjects: dict[str, Subject] = {n: ours(n) for n in ("one-card", "one", "black-jack")}
    try:
        subjects["rlcard-uno"] = rlcard_game()
        subjects["rlcard-env"] = rlcard_env()
    except ImportError:
        sys.exit("RLCard is not installed: pip install rlcard into the project venv (bench only)")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"engines vs RLCard UNO: {args.seats} seats, {args.games} random games per subject")
    print(f"  x {args.repeats} repeats, median of CPU us/action; load average {load}", flush=True)
    for play in subjects.values():  # warm up: imports, tables built once
        play(5, args.seed + 10**6, args.seats)
    runs: dict[str, list[tuple[int, float]]] = {name: [] for name in subjects}
    for r in range(args.repeats):
        seed = args.seed + r * args.games
        for name, play in subjects.items():
            runs[name].append(play(args.games, seed, args.seats))
    per_action = {n: statistics.median(1e6 * c / a for a, c in v) for n, v in runs.items()}
    for name, figures in runs.items():
        games_s = statistics.median(args.games / c for _, c in figures)
        each = ", ".join(f"{1e6 * c / a:.1f}" for a, c in figures)
        actions = sum(a for a, _ in figures) / (args.games * len(figures))
        print(
            f"  {name:10} {per_action[name]:6.1f} us/action (cpu, median; runs {each}); "
            f"{games_s:6.0f} games/s (cpu), {actions:6.1f} actions/game",
            flush=True,
        )
    for ref in ("rlcard-env", "rlcard-uno"):
        for name in ("one-card", "one"):
            ratio = per_action[ref] / per_action[name]
            verdict = "ok" if ratio >= 3 else "below the 3x target"
            print(f"  {ref} / {name:8}: {ratio:4.1f}x per action ({verdict})")
    bj = per_action["black-jack"]
    print(f"  black-jack: {bj:.1f} us/action ({'within' if bj <= 40 else 'over'} the 40 us budget)")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"  load average after: {load}")


if __name__ == "__main__":
    main()
