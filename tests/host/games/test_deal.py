"""Dealing the hidden cards: sizes, known cards, the placing rule, and its fallback."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from host.games.deal import deal_hidden
from protocol.cards import DECK_54, Suit


def test_every_card_is_dealt_once_into_places_of_the_given_sizes() -> None:
    pool = list(DECK_54[:20])
    places = deal_hidden(pool, [5, 3, 12], random.Random(1))
    assert [len(p) for p in places] == [5, 3, 12]
    assert Counter(c for p in places for c in p) == Counter(pool)


def test_sizes_that_do_not_add_up_are_refused() -> None:
    with pytest.raises(ValueError, match="do not fill"):
        deal_hidden(list(DECK_54[:5]), [2, 2], random.Random(1))


def test_known_cards_stay_where_they_are_known_and_stale_ones_are_ignored() -> None:
    pool = list(DECK_54[:10])
    stale = DECK_54[30]
    for seed in range(20):
        places = deal_hidden(pool, [3, 7], random.Random(seed), known=[[pool[4], stale], []])
        assert pool[4] in places[0]
        assert stale not in places[0]
        assert Counter(c for p in places for c in p) == Counter(pool)


def test_the_rule_keeps_a_suit_out_of_a_place_that_lacks_it() -> None:
    pool = list(DECK_54[:26])
    spades = sum(c.suit is Suit.SPADES for c in pool)
    for seed in range(20):
        places = deal_hidden(
            pool,
            [6, len(pool) - 6],
            random.Random(seed),
            allowed=lambda place, card: place != 0 or card.suit is not Suit.SPADES,
        )
        assert not any(c.suit is Suit.SPADES for c in places[0])
        assert sum(c.suit is Suit.SPADES for c in places[1]) == spades


def test_a_rule_no_deal_can_keep_is_dropped_rather_than_stopping_the_bot() -> None:
    pool = list(DECK_54[:4])
    places = deal_hidden(pool, [2, 2], random.Random(3), allowed=lambda place, card: False)
    assert Counter(c for p in places for c in p) == Counter(pool)
