"""Sampled worlds agree with everything the seat can see, and hide what it cannot.

Each game's ``worlds`` module samples a full engine state from one seat's view and the events
it received; these tests play seeded games with the normal bots and, at the seat's turns,
compare the sampled world's view of the seat with the real one.
"""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from host.bots.ai.arena import seat_turns
from host.games import find_support, game_names
from host.games.base import OptionError, State, WireMap
from host.games.black_jack.worlds import BlackJackMemory
from host.games.one_card.worlds import OneCardMemory
from host.games.support import SeatMemory
from protocol.cards import parse_card

#: view keys a world may tell differently: the stock's position counts from its top afresh
_BOOKKEEPING = {"next_position", "legal"}


def _turns(name: str, seats: int, seed: int) -> Iterator[tuple[State, SeatMemory]]:
    """The real game and seat 0's memory at each of its turns of a seeded game."""
    memory = find_support(name).memory(0)
    for engine in seat_turns(name, seats, seed, observe=memory.observe):
        yield engine, memory


def _public(view: WireMap) -> WireMap:
    return {k: v for k, v in view.items() if k not in _BOOKKEEPING}


@pytest.mark.parametrize("seats", [2, 4])
@pytest.mark.parametrize("name", game_names())
def test_a_world_shows_the_seat_exactly_what_the_real_game_shows(name: str, seats: int) -> None:
    rng = random.Random(5)
    checked = 0
    for seed in range(3):
        for engine, memory in _turns(name, seats, seed):
            view = engine.view(0)
            for world in [memory.sample(view, rng) for _ in range(2)]:  # a search samples many
                mine = world.view(0)
                assert _public(mine) == _public(view)
                assert sorted(map(str, mine["legal"])) == sorted(map(str, view["legal"]))
                assert Counter(world.all_cards()) == Counter(engine.all_cards())
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("name", game_names())
def test_the_hidden_cards_of_a_world_vary_with_the_sample(name: str) -> None:
    """The worlds are dealt at random: the real hidden cards are not what the seat gets."""
    engine, memory = next(t for i, t in enumerate(_turns(name, 4, 2)) if i == 2)
    view = engine.view(0)
    dealt = {tuple(memory.sample(view, random.Random(s)).hidden_from(0)) for s in range(8)}
    assert len(dealt) > 1


def test_a_one_card_world_after_the_first_of_a_view_is_the_one_its_deal_would_build() -> None:
    """Later worlds of a view are copies of the first with the hidden cards dealt afresh: each
    is the world a fresh memory builds from the view with the same deal."""
    checked = 0
    for engine, memory in _turns("one-card", 4, 1):
        view = engine.view(0)
        memory.sample(view, random.Random(1))  # the first world of the view
        world = memory.sample(view, random.Random(7))
        fresh = OneCardMemory(0).sample(view, random.Random(7))
        assert vars(world) == vars(fresh)
        world.apply(0, world.legal_actions(0)[0])  # the template is not played on
        assert vars(memory.sample(view, random.Random(7))) == vars(fresh)
        checked += 1
    assert checked > 5


@pytest.mark.parametrize("seats", [2, 4])
def test_a_black_jack_world_after_the_first_of_a_view_is_the_one_its_deal_would_build(
    seats: int,
) -> None:
    """As in One Card: later worlds of a view are copies of the first with the hidden cards
    dealt afresh, each the world a memory without a template (the same events seen, pickled
    as a search job carries it) builds from the view with the same deal."""
    checked = lacking = 0
    for seed in range(3):
        for engine, memory in _turns("black-jack", seats, seed):
            view = engine.view(0)
            memory.sample(view, random.Random(1))  # the first world of the view
            world = memory.sample(view, random.Random(7))
            blank = pickle.loads(pickle.dumps(memory))
            assert blank._template is None
            fresh = blank.sample(view, random.Random(7))
            assert vars(world) == vars(fresh)
            for action in world.legal_actions(world.turn)[:1]:  # type: ignore[attr-defined]
                world.apply(world.turn, action)  # type: ignore[attr-defined]
            assert vars(memory.sample(view, random.Random(7))) == vars(fresh)  # not played on
            checked += 1
            lacking += bool(memory.lacks)  # type: ignore[attr-defined]
    assert checked > 10 and lacking > 0


def test_a_game_without_search_support_is_refused() -> None:
    with pytest.raises(OptionError):
        find_support("no-such-game")


@pytest.mark.parametrize("seats", [2, 4])
def test_black_jack_worlds_keep_out_the_cards_a_seat_drew_rather_than_play(seats: int) -> None:
    """A normal bot draws only when nothing plays, so at seat 0's next turn the seat after it
    holds none of the cards that could have started a play then, bar the one it drew; and the
    worlds give it one of those about as often as the real games do (not nearly always)."""
    rng = random.Random(3)
    real_has, world_has = [], []
    for seed in range(40):
        for engine, memory in _turns("black-jack", seats, seed):
            lack = memory.lacks.get(1)  # type: ignore[attr-defined]
            if lack is None or lack.fresh(aces_anytime=False) != 1:
                continue
            real = sum(lack.excludes(c, aces_anytime=False) for c in engine.hands[1])  # type: ignore[attr-defined]
            assert real <= 1  # the inference holds in the real game
            real_has.append(real)
            for _ in range(5):
                world = memory.sample(engine.view(0), rng)
                held = world.hands[1]  # type: ignore[attr-defined]
                lacked = sum(lack.excludes(c, aces_anytime=False) for c in held)
                assert lacked <= 1
                world_has.append(lacked)
                assert Counter(world.all_cards()) == Counter(engine.all_cards())
    assert len(real_has) > 20
    real_rate, world_rate = sum(real_has) / len(real_has), sum(world_has) / len(world_has)
    assert abs(world_rate - real_rate) < 0.15, (real_rate, world_rate)


def test_black_jack_memory_reads_a_lack_only_from_the_first_draw_of_a_seats_own_turn() -> None:
    def draw(seat: int, reason: str, count: int) -> WireMap:
        return {"kind": "draw", "seat": seat, "reason": reason, "count": count, "seats": [seat]}

    memory = BlackJackMemory(0)
    memory.observe({"kind": "deal", "dealer": 0, "hand_no": 1})
    memory.observe({"kind": "turn_up", "card": "9C"})
    memory.observe({"kind": "turn", "seat": 1, "pending": 0, "cover": False})
    memory.observe(draw(1, "draw", 1))  # nothing played on 9C: no club, no 9, no joker
    lack = memory.lacks[1]
    assert (lack.top, lack.fresh(aces_anytime=False)) == (parse_card("9C"), 1)
    assert lack.excludes(parse_card("KC"), aces_anytime=False)
    assert lack.excludes(parse_card("9H"), aces_anytime=False)
    assert not lack.excludes(parse_card("KH"), aces_anytime=False)
    assert lack.excludes(parse_card("AH"), aces_anytime=True)  # the table's option counts
    memory.observe({"kind": "play", "seat": 0, "cards": ["2C"], "pending": 2})
    memory.observe({"kind": "turn", "seat": 1, "pending": 2, "cover": False})
    memory.observe(draw(1, "pickup", 1))  # the stock ran out: a reshuffle, then the rest
    memory.observe({"kind": "reshuffle", "stream": 1, "count": 20})
    memory.observe(draw(1, "pickup", 1))
    lack = memory.lacks[1]
    assert (lack.top, lack.fresh(aces_anytime=False)) == (None, 2)  # two cards taken since
    assert lack.excludes(parse_card("JD"), aces_anytime=False)  # no counter then
    assert not lack.excludes(parse_card("9H"), aces_anytime=False)
    memory.observe({"kind": "turn", "seat": 1, "pending": 0, "cover": False})
    memory.observe({"kind": "blunder", "seat": 1, "cards": ["5D"], "in_turn": True})
    memory.observe(draw(1, "blunder", 2))  # a blunder shows no lack
    assert (memory.lacks[1].top, memory.lacks[1].fresh(aces_anytime=False)) == (None, 4)
    memory.observe({"kind": "play", "seat": 1, "cards": ["2D"], "pending": 2})
    assert memory.lacks[1].fresh(aces_anytime=False) == 3  # a counter: one taken since


def test_a_lone_queen_is_not_taken_for_a_lack() -> None:
    """A queen cannot be the last card out: a seat whose one card is the queen of the suit
    to follow must draw, and may still hold it."""
    memory = BlackJackMemory(0)
    memory.observe({"kind": "deal", "dealer": 0, "hand_no": 1})
    memory.observe({"kind": "draw", "seat": 1, "reason": "deal", "count": 1, "seats": [1]})
    memory.observe({"kind": "turn_up", "card": "3C"})
    memory.observe({"kind": "turn", "seat": 1, "pending": 0, "cover": False})
    memory.observe({"kind": "draw", "seat": 1, "reason": "draw", "count": 1, "seats": [1]})
    lack = memory.lacks[1]
    assert lack.lone
    assert not lack.excludes(parse_card("QC"), aces_anytime=False)
    assert lack.excludes(parse_card("KC"), aces_anytime=False)
