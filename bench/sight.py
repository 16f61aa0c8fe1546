"""What the hard bot would win if it saw more than its seat (hard:normal, shedding games).

The check behind docs/BOTS.md's account of the four-seat shedding games (issue 28, tenth and
eleventh parts), made reproducible.

How it works: for each ``--sight`` in turn, the hard bot plays the normal bot on bench/bots.py's
seeded duplicate deals (the same deals, seats and bot generators for every sight), and its
search's worlds (the hidden cards it deals afresh for every iteration) are given more than its
seat can see. The bench wraps two things in each worker process before it plays
(:func:`install`): the arena's ``_next_move``, to keep the real engine of the game in play, and
the game's ``SeatMemory.sample``, to deal the hidden cards through the same
:class:`host.games.deal.WorldTemplate` with some cards fixed in their real places
(``deal_hidden``'s ``known``; the template is the memory's own, ``template(view)``). The
sights:

- ``seat``: nothing added; the hard bot as it plays (bench/bots.py's row on the same deals).
- ``next-hand``: the next player's real hand (the seat an attack, a skip or a named suit is
  aimed at); every other hidden card dealt.
- ``old-cards``: of the next player's hand, only the cards it held when its last turn began and
  holds still: all that its plays could ever tell; the cards it drew since are dealt (One
  Card's attack taken mid-turn among them: a turn begins when its seat comes to act, not when
  it may play again after drawing the attack).
- ``all-hands``: every other seat's real hand; the stock dealt.
- ``answer-bits``: worlds as the hard bot deals them, drawn again (up to :data:`ANSWER_TRIES`
  times, else the last one drawn) until the next player could answer each of the search's
  candidate moves exactly as in the real game (it has a play once the move is made): one bit a
  candidate, what an ideal reading of the next hand's answers would know.

Black Jack's worlds keep the cards a blunder showed; a sighted world drops the memory's other
readings (what a seat showed it lacks), which the cards fixed outdo. Nothing of this is in the
bots themselves: it measures what a reading of the table could be worth, not a level.

What it prints: for each sight the hard bot's share and its 95% interval over the duplicate
pairs, and, the figure to read, its difference from ``seat`` deal by deal (the mean over the
deals and its standard error): the luck of a deal cancels, as it does within a duplicate pair,
so a hundred deals tell apart what the intervals of the shares cannot.

Run: ``python bench/sight.py --game black-jack [--seats 4] [--games 200] [--iterations 300]
[--sight next-hand ...] [--jobs 2] [--results FILE]`` (``--results`` keeps finished batches, as
for bench/bots.py). The figures in docs/BOTS.md: ``--game black-jack --games 200 --iterations
300`` (the tenth part's next hand and real hands, the eleventh's old cards and answer bits) and
``--game one-card --games 100 --iterations 400`` (the eleventh part's).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bots import (
    Results,
    Tally,
    Task,
    code_digest,
    code_of,
    kept_as_finished,
    load,
    paired_interval,
    run,
)

from host.bots.ai import arena
from host.bots.ai.ismcts import Budget
from host.games.black_jack import worlds as black_jack_worlds
from host.games.black_jack.moves import Play as BlackJackPlay
from host.games.deal import WorldTemplate, deal_hidden
from host.games.one_card import worlds as one_card_worlds
from host.games.one_card.engine import Phase
from host.games.one_card.moves import Play as OneCardPlay
from protocol.cards import Card

#: the sights, in the order they are played and printed (``seat`` is the baseline)
SIGHTS = ("seat", "next-hand", "old-cards", "all-hands", "answer-bits")
#: ``answer-bits``: worlds drawn at most this many times for one that answers as the real game
ANSWER_TRIES = 60
#: games a worker process plays per task, as in bench/bots.py
BATCH = 10


class Memory(Protocol):
    """What the bench uses of a game's ``SeatMemory``."""

    seat: int

    def template(self, view: dict[str, Any]) -> WorldTemplate[Any]: ...

    def sample(self, view: dict[str, Any], rng: random.Random) -> Any: ...


@dataclass(frozen=True, slots=True)
class Game:
    """How the bench reads one game's engine (the engines' own fields: this is a measuring
    tool, not a client of the games' public interface)."""

    memory: Any  #: the game's ``SeatMemory`` class, whose ``sample`` a sight replaces
    next_seat: Callable[[Any, int], int]
    hand: Callable[[Any, int], list[Card]]
    #: the seats whose turn begins in this engine state (One Card: not the part of a turn after
    #: an attack was drawn, when the seat may play again)
    turns: Callable[[Any], Sequence[int]]
    #: the cards of seat ``s`` the memory knows anyway (Black Jack: shown by a blunder)
    known: Callable[[Any, int], Counter[Card]]
    #: the search's candidate moves for a seat (``GameSupport.turn_actions``)
    candidates: Callable[[Any, int], list[Any]]
    play: type  #: the game's ``Play`` action (an answer is a play)


GAMES: dict[str, Game] = {
    "one-card": Game(
        memory=one_card_worlds.OneCardMemory,
        next_seat=lambda engine, seat: engine._next_active(seat),
        hand=lambda engine, seat: list(engine._hands[seat]),
        turns=lambda engine: () if engine.phase is Phase.AFTER_ATTACK else engine.to_act(),
        known=lambda memory, seat: Counter(),
        candidates=one_card_worlds.SUPPORT.turn_actions,
        play=OneCardPlay,
    ),
    "black-jack": Game(
        memory=black_jack_worlds.BlackJackMemory,
        next_seat=lambda engine, seat: engine._next(seat),
        hand=lambda engine, seat: list(engine.hands[seat]),
        turns=lambda engine: engine.to_act(),  # a draw ends a turn there
        known=lambda memory, seat: Counter(memory.known.get(seat, Counter())),
        candidates=black_jack_worlds.SUPPORT.turn_actions,
        play=BlackJackPlay,
    ),
}

#: what the wrapped functions were, so that ``seat`` (or a test) can put them back
_ORIGINAL_SAMPLE = {name: game.memory.sample for name, game in GAMES.items()}
_ORIGINAL_NEXT_MOVE = arena._next_move


@dataclass(slots=True)
class _Watch:
    """The real game, as the wrapped ``_next_move`` last saw it."""

    engine: Any = None
    #: seat -> its hand when its latest turn began (``old-cards``)
    at_turn: dict[int, list[Card]] = field(default_factory=dict)
    moves: int = 0  #: calls of ``_next_move`` so far: the real game changes only between them
    #: ``answer-bits``: the real game's answers for the latest (moves, seat) asked: its
    #: candidates, the next player and the answers
    answered: tuple[tuple[int, int], list[Any], int, tuple[bool | None, ...]] | None = None


WATCH = _Watch()


def fixed_cards(game: Game, sight: str, memory: Memory) -> Callable[[int], Counter[Card]]:
    """``sight``'s cards of each other seat, fixed in every world ``memory`` samples."""
    engine = WATCH.engine
    assert engine is not None, "no game in play: install() wraps the arena first"
    nxt = game.next_seat(engine, memory.seat)

    def fixed(other: int) -> Counter[Card]:
        known = game.known(memory, other)
        if sight == "all-hands" or (sight == "next-hand" and other == nxt):
            return Counter(game.hand(engine, other))
        if sight == "old-cards" and other == nxt:
            held = Counter(game.hand(engine, other))
            return (Counter(WATCH.at_turn.get(other, [])) & held) | known
        return known

    return fixed


def answers(
    game: Game, world: Any, seat: int, candidates: list[Any], nxt: int
) -> tuple[bool | None, ...]:
    """For each candidate move of ``seat`` in ``world``: whether ``nxt`` has a play once it is
    made (``None``: the move is not legal there, or ``nxt`` is not to act after it)."""
    out: list[bool | None] = []
    legal = world.legal_actions(seat)
    for candidate in candidates:
        if candidate not in legal:
            out.append(None)
            continue
        after = world.clone()
        after.apply(seat, candidate)
        if nxt not in after.to_act():
            out.append(None)
            continue
        out.append(any(isinstance(a, game.play) for a in after.legal_actions(nxt)))
    return tuple(out)


def _answering_sample(name: str) -> Callable[[Any, dict[str, Any], random.Random], Any]:
    game = GAMES[name]
    original = _ORIGINAL_SAMPLE[name]

    def sample(memory: Memory, view: dict[str, Any], rng: random.Random) -> Any:
        seat = memory.seat
        key = (WATCH.moves, seat)
        if WATCH.answered is None or WATCH.answered[0] != key:  # a search on a new position
            real = WATCH.engine.clone()  # nothing the candidates' scoring does reaches the game
            candidates = game.candidates(real, seat) if seat in real.to_act() else []
            nxt = game.next_seat(real, seat)
            bits = answers(game, real, seat, candidates, nxt) if candidates else ()
            WATCH.answered = (key, candidates, nxt, bits)
        _, candidates, nxt, bits = WATCH.answered
        world = original(memory, view, rng)
        if len(candidates) < 2:
            return world
        for _ in range(ANSWER_TRIES):
            if answers(game, world, seat, candidates, nxt) == bits:
                return world
            world = original(memory, view, rng)
        return world

    return sample


def _sighted_sample(name: str, sight: str) -> Callable[[Any, dict[str, Any], random.Random], Any]:
    game = GAMES[name]
    if sight == "answer-bits":
        return _answering_sample(name)

    def sample(memory: Memory, view: dict[str, Any], rng: random.Random) -> Any:
        template = memory.template(view)
        fixed = fixed_cards(game, sight, memory)
        known = [list(fixed(other).elements()) for other in template.others]
        return template.world(deal_hidden(template.pool, template.sizes, rng, known=known))

    return sample


def _watching_next_move(name: str) -> Callable[..., tuple[int, Any]]:
    game = GAMES[name]

    def next_move(engine: Any, *args: Any, **kwargs: Any) -> tuple[int, Any]:
        WATCH.moves += 1
        if engine is not WATCH.engine:  # a new game
            WATCH.at_turn.clear()
            WATCH.engine = engine
        for seat in game.turns(engine):
            WATCH.at_turn[seat] = game.hand(engine, seat)
        return _ORIGINAL_NEXT_MOVE(engine, *args, **kwargs)

    return next_move


def install(name: str, sight: str) -> None:
    """Make this process's hard bot search ``name`` with ``sight`` (``seat``: as it plays)."""
    if sight not in SIGHTS:
        raise ValueError(f"unknown sight {sight!r}: one of {', '.join(SIGHTS)}")
    for game_name, game in GAMES.items():
        game.memory.sample = _ORIGINAL_SAMPLE[game_name]
    arena._next_move = _ORIGINAL_NEXT_MOVE
    WATCH.engine = None
    WATCH.at_turn.clear()
    WATCH.answered = None
    if sight != "seat":
        GAMES[name].memory.sample = _sighted_sample(name, sight)
        arena._next_move = _watching_next_move(name)


def run_sighted(sight: str, task: Task) -> Tally:
    """Play ``task``'s games with the hard bot's worlds given ``sight``."""
    install(task.game, sight)
    try:
        return run(task)
    finally:
        install(task.game, "seat")


@dataclass(frozen=True, slots=True)
class Difference:
    """One sight's share minus the baseline's, over the deals both played."""

    deals: int
    mean: float
    error: float  #: the standard error of the mean over the deals


def difference(base: Tally, other: Tally) -> Difference:
    """``other``'s share minus ``base``'s, deal by deal over the deals both played whole (each
    deal's share: the mean of its duplicate pair's two games)."""
    common = sorted(set(base.pairs) & set(other.pairs))
    diffs = [(other.pairs[d] - base.pairs[d]) / 2 for d in common]
    if len(diffs) < 2:
        return Difference(len(diffs), statistics.fmean(diffs) if diffs else 0.0, math.inf)
    return Difference(
        len(diffs), statistics.fmean(diffs), statistics.stdev(diffs) / math.sqrt(len(diffs))
    )


def row(sight: str, tally: Tally, base: Tally | None) -> str:
    share = tally.share / tally.games
    low, high = paired_interval([s / 2 for s in tally.pairs.values()])
    told = ""
    if base is not None:
        diff = difference(base, tally)
        error = "-" if math.isinf(diff.error) else f"{diff.error:.3f}"
        told = f"{diff.mean:+.3f} ({error}) over {diff.deals} deals"
    return f"| {sight} | {tally.games} | {share:.3f} | {low:.3f}-{high:.3f} | {told} |"


def sight_digest(path: Path = Path(__file__)) -> str:
    """A digest of this bench's own code (docstrings and comments left out): a batch played
    by other sights is another batch."""
    return hashlib.sha256(code_of(path.read_text()).encode()).hexdigest()[:16]


def key(sight: str, task: Task, code: str) -> str:
    """A batch's key in ``--results``: bench/bots.py's (``code``: the game's and this bench's
    digests), with the sight."""
    return json.dumps({"sight": sight, "task": task.key(code)}, sort_keys=True)


def play(
    sights: Sequence[str], tasks: list[Task], code: str, results: Results, jobs: int
) -> dict[str, Tally]:
    """Play the batches ``results`` lacks in ``jobs`` processes; every sight's whole tally."""
    keys = {(sight, task): key(sight, task, code) for sight in sights for task in tasks}
    if results.path is not None:
        kept = sum(k in results.done for k in keys.values())
        print(f"results file {results.path}: {kept} of {len(keys)} batches already played")
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures: dict[Future[Tally], str] = {
            pool.submit(run_sighted, sight, task): k
            for (sight, task), k in keys.items()
            if k not in results.done
        }
        for _ in kept_as_finished(pool, futures, results):
            done = sum(k in results.done for k in keys.values())
            print(f"{done} of {len(keys)} batches played", flush=True)
    whole: dict[str, Tally] = {}
    for (sight, _), k in keys.items():
        whole.setdefault(sight, Tally()).add(results.done[k])
    return whole


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--seats", type=int, default=4, help="seat count (default 4)")
    parser.add_argument("--games", type=int, default=200, help="games per sight (default 200)")
    parser.add_argument(
        "--iterations", type=int, default=300, help="hard: iterations a move (default 300)"
    )
    parser.add_argument("--seed", type=int, default=1, help="tournament seed")
    parser.add_argument(
        "--sight",
        action="append",
        choices=SIGHTS,
        help="what the worlds are given (repeatable; default all; seat is always played)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="keep finished batches in this file and play only those it lacks (resume a run)",
    )
    args = parser.parse_args(argv)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be even and at least 2: games come in duplicate pairs")
    if args.seats < 2:
        parser.error("--seats must be at least 2: a hard and a normal bot")
    if args.iterations < 1 or args.jobs < 1:
        parser.error("--iterations and --jobs must be at least 1")
    sights = [s for s in SIGHTS if s == "seat" or s in (args.sight or SIGHTS)]
    budget = Budget(iterations=args.iterations)
    tasks = [
        Task(
            args.game,
            args.seats,
            "hard",
            "normal",
            args.seed,
            i,
            min(BATCH, args.games - i),
            budget,
        )
        for i in range(0, args.games, BATCH)
    ]
    print(
        f"{args.game} at {args.seats} seats, hard:normal, {args.games} games a sight, seed "
        f"{args.seed}, {args.iterations} iterations a move, {args.jobs} jobs; "
        f"load average at the start: {load()}",
        flush=True,
    )
    started = time.monotonic()
    code = f"{code_digest(args.game)}/{sight_digest()}"
    whole = play(sights, tasks, code, Results(args.results), args.jobs)
    print("| sight | games | hard's share | 95% interval (pairs) | difference from seat (se) |")
    print("|---|---:|---:|---|---|")
    for sight in sights:
        print(row(sight, whole[sight], None if sight == "seat" else whole["seat"]))
    minutes = (time.monotonic() - started) / 60
    print(f"load average at the end: {load()}; {minutes:.1f} minutes")


if __name__ == "__main__":
    main()
