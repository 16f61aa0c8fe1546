"""The blind-engine machinery (host/games/private.py) and its wire shapes."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Mapping

import pytest

from host.games import find_blind, make_blind, private_refusal
from host.games.base import ChanceError, ChanceKind, Hidden, InvalidAction, NeedOpen, OptionError
from host.games.black_jack.engine import BlackJack
from host.games.blind_playout import twin_playout
from host.games.one.engine import One
from host.games.one_card.engine import OneCard
from host.games.private import Blind, Position, hidden_in
from protocol.cards import DECK_54, card


def test_a_hidden_position_refuses_to_show_its_face() -> None:
    h = Hidden(1, 7)
    assert h == Hidden(1, 7) and h != Hidden(0, 7) and h.to_wire() == [1, 7]
    assert h.code == "?"
    for attr in ("rank", "suit", "color", "index", "is_joker"):
        with pytest.raises(NeedOpen) as info:
            getattr(h, attr)
        assert info.value.positions == ((1, 7),) and not info.value.by_rule
    assert hidden_in([[h, card("5H")], (Hidden(0, 1),), {"x": [h]}]) == [h, Hidden(0, 1), h]


def test_an_unknown_game_or_option_is_refused_on_a_private_table() -> None:
    with pytest.raises(OptionError, match="unknown game 'no-such-game'"):
        find_blind("no-such-game")
    assert private_refusal("no-such-game", {}) == (
        "unknown game 'no-such-game' (known: one-card, black-jack, one)"
    )
    assert find_blind("black-jack").game.name == "black-jack"
    why = private_refusal("black-jack", {"jokers": 1})
    assert why is not None and why.startswith("option jokers cannot be used on a private table")
    assert private_refusal("black-jack", {"jokers": 0, "chain": False}) is None
    with pytest.raises(OptionError, match="option chain"):
        make_blind(BlackJack(seats=2, options={"chain": True}))


def test_a_game_goes_private_only_before_its_first_deal() -> None:
    game = OneCard(seats=2, dealer=0)
    game.apply_chance(list(DECK_54))
    with pytest.raises(ChanceError, match="before its first deal"):
        make_blind(game)


def test_a_blind_engine_takes_only_its_hidden_positions_in_order() -> None:
    game = make_blind(OneCard(seats=2, dealer=1))
    with pytest.raises(ChanceError, match="hidden positions of stream 0 in order"):
        game.apply_chance(list(DECK_54))
    with pytest.raises(ChanceError, match="in order"):
        game.apply_chance([Hidden(0, i) for i in reversed(range(54))])
    game.apply_chance([Hidden(0, i) for i in range(54)])
    request = game.chance_request()
    assert request is not None and request.kind is ChanceKind.OPEN
    with pytest.raises(ChanceError, match="answer with reveal"):
        game.apply_chance([Hidden(0, i) for i in range(54)])
    with pytest.raises(Exception, match="waiting for cards to be opened"):
        game.check(0, game.parse_action({"type": "draw"}))


def test_a_joker_turned_up_asks_for_the_next_position() -> None:
    game = make_blind(OneCard(seats=2, dealer=0))
    game.apply_chance([Hidden(0, i) for i in range(54)])
    assert game.reveal({(0, 14): card("JB")}) == []
    request = game.chance_request()
    assert request is not None and request.positions == ((0, 15),)
    events = game.reveal({(0, 15): card("3D")})
    (turn_up,) = [e for e in events if e.kind == "turn_up"]
    assert turn_up.data["cards"] == ["JB", "3D"]
    assert turn_up.data["positions"] == [[0, 14], [0, 15]]
    assert game.view(None)["top"] == "3D"


def test_a_seat_opens_only_its_own_face_down_positions() -> None:
    game = make_blind(OneCard(seats=2, dealer=0))
    game.apply_chance([Hidden(0, i) for i in range(54)])
    with pytest.raises(ChanceError, match="no play now"):
        game.reveal_play(1, {(0, 0): card("5H")})
    game.reveal({(0, 14): card("5H")})
    assert game.positions_of(1)[0] == (0, 0)
    with pytest.raises(InvalidAction, match=r"position \[0, 1\] is not one of your"):
        game.reveal_play(1, {(0, 1): card("5C")})  # seat 0's card
    with pytest.raises(InvalidAction, match="not one of your"):
        game.reveal_play(1, {(0, 40): card("5C")})  # the stock
    game.reveal_play(1, {(0, 0): card("5C")})
    assert game.positions_of(1)[0] == (0, 2)


def test_a_refused_chance_answer_leaves_no_trace_in_the_log() -> None:
    game = make_blind(OneCard(seats=2))  # the first deal must name the dealer
    with pytest.raises(ChanceError, match="must name the dealer"):
        game.apply_chance([Hidden(0, i) for i in range(54)])
    assert game._log == []
    game.apply_chance([Hidden(0, i) for i in range(54)], 1)
    assert game._log == [("chance", tuple((0, i) for i in range(54)), 1)]


@pytest.mark.parametrize(
    ("normal_cls", "seats"),
    [(OneCard, 2), (OneCard, 5), (BlackJack, 2), (BlackJack, 4), (One, 2), (One, 4)],
)
def test_a_card_opened_on_a_clone_leaves_the_engine_as_it_was(
    monkeypatch: pytest.MonkeyPatch, normal_cls: type[OneCard | BlackJack | One], seats: int
) -> None:
    """The host checks a play on :meth:`Blind.trial_play`, a shallow clone with the cards
    opened: every reveal of whole games is first made on a clone, which must leave the
    engine it came from untouched (no list or dict deeper than a clone copies holds a card)."""
    real = Blind.reveal
    tried = 0

    def reveal_on_a_clone_first(self: Blind, cards: Mapping[Position, object]) -> object:
        nonlocal tried
        before = repr(self.__dict__)
        with contextlib.suppress(Exception):  # the real reveal below raises it again
            real(self.clone(), cards)  # type: ignore[arg-type]
        assert repr(self.__dict__) == before
        tried += 1
        return real(self, cards)  # type: ignore[arg-type]

    monkeypatch.setattr(Blind, "reveal", reveal_on_a_clone_first)
    twin_playout(normal_cls, seats=seats, rng=random.Random(seats))
    assert tried >= 5
