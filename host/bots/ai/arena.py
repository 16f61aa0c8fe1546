"""One game between bots, in process, each bot seeing only what its seat's client would.

How it works: :func:`play_match` creates the engine, answers chance from a seeded generator
(as the fairness module would) and loops. Every event goes to each bot that would receive it
(public events to all, a private one to its seat only: :meth:`host.bots.ai.levels.Bot.observe`).
Before each turn the seats with something to do race as bots at a host do: every seat with a
legal action (the seat to act, and any seat that may announce out of turn, a One Card call or
a Black Jack declaration) is asked in a random order, and the first that answers acts; a seat
off its turn only ever announces. A bot is handed its seat's ``view`` with the legal actions in
wire form, never the engine, and its answer goes through ``parse_action``, ``check`` and
``apply`` as the host's would. The result records the winners, each seat's decisions and
thinking times, and for ONE each hand's bidder and whether the bid was made. The tournament
bench (``bench/bots.py``) and the tests use it. :func:`seat_turns` walks a seeded game of normal
bots and stops at each turn of one seat, for tests of what that seat may know.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from host.bots import policy
from host.bots.ai.levels import Bot
from host.games import find_game
from host.games.base import Event, State, WireMap
from host.games.playout import answer_chance

__all__ = ["MAX_ACTIONS", "MatchRecord", "play_match", "seat_turns"]

#: actions after which a match is abandoned (no engine needs this many: a safety net)
MAX_ACTIONS = 20_000


@dataclass(slots=True)
class MatchRecord:
    """How one game between bots went."""

    winners: tuple[int, ...] = ()
    termination: str = "unfinished"
    actions: int = 0
    #: per seat, the wall-clock seconds of each decision that had a choice to make
    think: list[list[float]] = field(default_factory=list)
    #: ONE: per hand, ``(bidder, made)`` for a hand with a bid
    bids: list[tuple[int, bool]] = field(default_factory=list)
    hands: int = 0  #: hands played to the end (ONE: each an auction every seat could bid in)
    #: ONE: per seat, the hands in which the auction offered it a bid, and those it bid in
    bid_offered: list[int] = field(default_factory=list)
    bid_made: list[int] = field(default_factory=list)
    _offered: set[int] = field(default_factory=set)
    _bidding: set[int] = field(default_factory=set)

    def note_turn(self, seat: int, legal: Sequence[WireMap], chosen: WireMap) -> None:
        """Count an auction turn: the seat was offered a bid, and took one or not."""
        if any(a.get("type") == "bid" for a in legal):
            self._offered.add(seat)
            if chosen.get("type") == "bid":
                self._bidding.add(seat)

    def end_hand(self) -> None:
        self.hands += 1
        for seat in self._offered:
            self.bid_offered[seat] += 1
        for seat in self._bidding:
            self.bid_made[seat] += 1
        self._offered.clear()
        self._bidding.clear()

    def share(self, seats: Sequence[int]) -> float:
        """The part of the win that went to ``seats`` (winners share a win equally)."""
        if not self.winners:
            return 0.0
        return sum(1 for w in self.winners if w in seats) / len(self.winners)


def play_match(
    game: str,
    bots: Sequence[Bot],
    *,
    seed: int | str,
    options: Mapping[str, object] | None = None,
) -> MatchRecord:
    """Play one game of ``game`` with ``bots[i]`` in seat ``i``; ``seed`` drives chance."""
    engine = find_game(game).new_initial_state(seats=len(bots), options=options, dealer=None)
    rng = random.Random(seed)
    record = MatchRecord(
        think=[[] for _ in bots], bid_offered=[0] * len(bots), bid_made=[0] * len(bots)
    )
    last: list[WireMap | None] = [None] * len(bots)
    for bot in bots:
        bot.new_game()
    while record.actions < MAX_ACTIONS and engine.outcome() is None:
        if engine.chance_request() is not None:
            _deliver(bots, answer_chance(engine, rng), record)
            continue
        seat, wire = _next_move(engine, bots, last, rng, record)
        action = engine.parse_action(wire)
        engine.check(seat, action)  # a bot's answer is checked as the host checks it
        events = engine.apply(seat, action)
        last[seat] = wire
        record.actions += 1
        _deliver(bots, events, record)
    outcome = engine.outcome()
    if outcome is not None:
        record.winners, record.termination = outcome.winners, outcome.termination.value
    return record


def _next_move(
    engine: State,
    bots: Sequence[Bot],
    last: list[WireMap | None],
    rng: random.Random,
    record: MatchRecord,
) -> tuple[int, WireMap]:
    """The race for the next action: the first seat, in a random order, whose bot acts."""
    to_act = engine.to_act()
    seats = [s for s in range(len(bots)) if s in to_act or engine.legal_actions(s)]
    rng.shuffle(seats)
    for seat in seats:
        view = engine.view(seat)
        legal = view["legal"]
        started = time.perf_counter()
        wire = bots[seat].choose(view, legal, last=last[seat])
        if len(legal) > 1 and seat in to_act:
            record.think[seat].append(time.perf_counter() - started)
        if wire is not None:
            record.note_turn(seat, legal, wire)
            return seat, wire
    raise RuntimeError(f"no bot would act for seats {list(to_act)} of {engine.game.name}")


def _deliver(bots: Sequence[Bot], events: Sequence[Event], record: MatchRecord) -> None:
    for event in events:
        wire = event.to_wire()
        if event.kind == "hand_end":
            record.end_hand()
        if event.kind == "hand_end" and event.data.get("bidder") is not None:
            record.bids.append((int(event.data["bidder"]), bool(event.data["made"])))
        for seat, bot in enumerate(bots):
            if event.to is None or event.to == seat:
                bot.observe(wire)


def seat_turns(
    game: str,
    seats: int,
    seed: int,
    *,
    seat: int = 0,
    choices_only: bool = False,
    observe: Callable[[WireMap], None] | None = None,
    limit: int = 400,
) -> Iterator[State]:
    """The engine at each turn of ``seat`` (only those with a choice, with ``choices_only``),
    before it acts, in a seeded game whose every seat, the seat to act, plays the normal bot's
    choice; ``observe`` gets each event ``seat`` receives, in order, as its client would. The
    walk stops at the outcome or after ``limit`` steps. Chance comes from ``seed``."""
    rng = random.Random(seed)
    engine = find_game(game).new_initial_state(seats=seats, options=None, dealer=None)
    for _ in range(limit):
        if engine.outcome() is not None:
            return
        if engine.chance_request() is not None:
            events = answer_chance(engine, rng)
        else:
            to = engine.to_act()[0]
            if to == seat and (not choices_only or len(engine.view(seat)["legal"]) > 1):
                yield engine
            view = engine.view(to)
            wire = policy.heuristic_choice(view, view["legal"])
            assert wire is not None, f"no normal choice for seat {to} of {game}"
            action = engine.parse_action(wire)
            engine.check(to, action)
            events = engine.apply(to, action)
        if observe is not None:
            for event in events:
                if event.to is None or event.to == seat:
                    observe(event.to_wire())
