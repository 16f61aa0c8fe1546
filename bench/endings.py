"""How games end: seeded games per seat count, with random playouts and with the host's bots.

How it works: for each seat count (``--seats``, default every count the game allows) play
``--games`` seeded games twice: once with :func:`host.games.playout.playout`'s random player
(the property tests' driver) and once with every seat played by the host's heuristic bot
(:func:`host.bots.policy.heuristic_choice`, fed each seat's own ``view`` and legal actions in wire
form, as a bot client gets them). Out of turn, a seat that may act (a One Card call, a Black Jack
declaration) is offered its actions half the time, which models bots racing to call. Each line
prints how the games ended (termination counts), the share that ended as a game should (going
out, a bankruptcy's last player standing, a ranking or a target score) against the safety stops
(``exhausted``, ``turn_limit``), and the median and 95th-percentile actions per game.

Run: ``python bench/endings.py [--game one-card] [--games 1000] [--seats 4] [--option K=V]``.
Target (issue 12): with default options at least 99.5% of One Card games end as games at every
seat count 2-8 with both players, and 4 heuristic seats need a median under 150 actions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from host.bots.policy import heuristic_choice
from host.games import find_game
from host.games.base import Action, State
from host.games.playout import playout

#: terminations that are real ends of a game; the rest are safety stops
GAME_ENDS = frozenset({"went_out", "last_standing", "ranked", "target"})


def heuristic(game: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The host's heuristic bot, seeing only its seat's view, as a playout chooser."""
    wire = [a.to_wire() for a in legal]
    chosen = heuristic_choice(game.view(seat), wire)
    if chosen is None:
        return legal[0]
    return legal[wire.index(chosen)]


def measure(
    name: str, seats: int, games: int, seed: int, options: dict[str, str], *, bots: bool
) -> tuple[Counter[str], list[int], float]:
    cls = find_game(name).state
    ends: Counter[str] = Counter()
    lengths: list[int] = []
    cpu0 = time.process_time()
    for i in range(games):
        rng = random.Random(seed + i)
        if bots:
            result = playout(
                cls, seats=seats, rng=rng, options=options, chooser=heuristic, out_of_turn=0.5
            )
        else:
            result = playout(cls, seats=seats, rng=rng, options=options)
        ends[result.outcome.termination.value if result.outcome else "unfinished"] += 1
        lengths.append(result.steps)
    return ends, lengths, time.process_time() - cpu0


def percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="one-card", help="game name (default one-card)")
    parser.add_argument("--games", type=int, default=1000, help="games per seat count and player")
    parser.add_argument("--seats", type=int, action="append", help="seat count (repeatable)")
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--option", action="append", default=[], help="table option NAME=VALUE")
    parser.add_argument("--only", choices=("random", "bots"), help="one player kind only")
    args = parser.parse_args()
    cls = find_game(args.game).state
    options = dict(o.split("=", 1) for o in args.option)
    counts = args.seats or list(range(cls.game.min_seats, cls.game.max_seats + 1))
    kinds = [args.only == "bots"] if args.only else [False, True]
    print(f"{args.game}: {args.games} seeded games per line, options {options or 'default'}")
    head = f"{'player':9} {'seats':>5} {'ended':>7} {'median':>6} {'p95':>5} {'ms/game':>7}"
    print(f"{head}  endings")
    for bots in kinds:
        for seats in counts:
            ends, lengths, cpu = measure(
                args.game, seats, args.games, args.seed, options, bots=bots
            )
            good = sum(n for k, n in ends.items() if k in GAME_ENDS)
            share = 100.0 * good / args.games
            how = ", ".join(f"{k} {n}" for k, n in ends.most_common())
            print(
                f"{'bots' if bots else 'random':9} {seats:5} {share:6.1f}% "
                f"{statistics.median(lengths):6.0f} {percentile(lengths, 0.95):5} "
                f"{1000 * cpu / args.games:7.2f}  {how}",
                flush=True,
            )


if __name__ == "__main__":
    main()
