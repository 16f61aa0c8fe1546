from __future__ import annotations

import pytest

from protocol.cards import (
    ALL_CARDS,
    DECK_52,
    DECK_54,
    DECK_ONE,
    CardCodeError,
    Color,
    Rank,
    Suit,
    card,
    deck_for,
    parse_card,
    parse_cards,
)
from protocol.errors import ErrorCode


def test_canonical_order_and_codes() -> None:
    assert len(ALL_CARDS) == 54
    assert [c.code for c in ALL_CARDS[:13]] == [
        "AS",
        "2S",
        "3S",
        "4S",
        "5S",
        "6S",
        "7S",
        "8S",
        "9S",
        "10S",
        "JS",
        "QS",
        "KS",
    ]
    assert [c.code for c in ALL_CARDS[-2:]] == ["JB", "JR"]
    assert [c.index for c in ALL_CARDS] == list(range(54))
    assert len({c.code for c in ALL_CARDS}) == 54


@pytest.mark.parametrize("code", [c.code for c in ALL_CARDS])
def test_round_trip_is_interned(code: str) -> None:
    assert parse_card(code) is parse_card(code.lower())
    assert parse_card(code).code == code


def test_parse_forgiving_forms() -> None:
    assert parse_card(" th ") is card("10H")
    assert card("jb").color is Color.BLACK and card("JR").color is Color.RED
    assert card("QD").suit is Suit.DIAMONDS and card("QD").rank is Rank.QUEEN
    assert card("JB").suit is None and card("JB").is_joker


@pytest.mark.parametrize("bad", ["", "1S", "11H", "JX", "ZZ", "10", "S", "JJ", 7, None, ["AS"]])
def test_parse_errors_are_typed(bad: object) -> None:
    with pytest.raises(CardCodeError) as info:
        parse_card(bad)
    assert info.value.code is ErrorCode.BAD_CARD
    assert isinstance(info.value.message, str) and info.value.message


def test_parse_cards_list() -> None:
    assert parse_cards(["AS", "JR"]) == [card("AS"), card("JR")]
    with pytest.raises(CardCodeError):
        parse_cards("AS")


def test_decks() -> None:
    assert len(DECK_54) == 54 and len(DECK_52) == 52
    assert len(DECK_ONE) == 25
    assert {c.rank for c in DECK_ONE if not c.is_joker} == {
        Rank.NINE,
        Rank.TEN,
        Rank.JACK,
        Rank.QUEEN,
        Rank.KING,
        Rank.ACE,
    }
    assert [c for c in DECK_ONE if c.is_joker] == [card("JR")]
    assert deck_for(jokers=0) == list(DECK_52)
    assert deck_for(jokers=1)[-1] is card("JR") and len(deck_for(jokers=1)) == 53
    two = deck_for(jokers=2, decks=2)
    assert len(two) == 108 and two.count(card("AS")) == 2 and two[:2] == [card("AS")] * 2
    # PROTOCOL.md 7.3 (issue 17, point 10): copies side by side, the jokers too, at the end
    assert [c.code for c in two[-6:]] == ["KC", "KC", "JB", "JB", "JR", "JR"]
    assert [c.code for c in deck_for(jokers=1, decks=2)[-3:]] == ["KC", "JR", "JR"]
    with pytest.raises(ValueError):
        deck_for(decks=0)


def test_suit_parse_and_colour() -> None:
    assert Suit.parse("h") is Suit.HEARTS and Suit.HEARTS.color is Color.RED
    assert Suit.CLUBS.color is Color.BLACK
    with pytest.raises(CardCodeError):
        Suit.parse("X")
