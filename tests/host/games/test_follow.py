"""What may follow the top card (a shedding game's ``follow`` view key): whole suits, whole
ranks, then single cards, for the situations a newcomer could not read from the top card."""

from __future__ import annotations

from host.games import find_presentation
from host.games.black_jack import BlackJack
from host.games.follow import follow_map
from host.games.one_card import OneCard
from protocol.cards import DECK_54, card


def test_a_set_is_said_as_suits_ranks_and_the_cards_left_over() -> None:
    every = [c for c in DECK_54 if not c.is_joker]
    assert follow_map(every) == {"suits": ["S", "H", "D", "C"], "ranks": [], "cards": []}
    assert follow_map([]) == {"suits": [], "ranks": [], "cards": []}


def _one_card(top: str) -> OneCard:
    """Two seats, dealer 0, seat 1 to play first, ``top`` turned up."""
    game = OneCard(seats=2, dealer=0)
    hands = ["3S", "4S", "5S", "6S", "8S", "9S", "10S", "3C", "4C", "5C", "6C", "8C", "9C", "10C"]
    tops = ["JB", top] if top == "JR" else [top]  # a joker turned up first is covered
    used = set(hands) | set(tops)
    deck = hands + tops + [c.code for c in DECK_54 if c.code not in used]
    game.apply_chance([card(c) for c in deck])
    return game


def test_one_card_says_what_plays_on_a_plain_card_and_on_a_joker() -> None:
    view = _one_card("9H").view(None)
    assert view["follow"] == {"suits": ["H"], "ranks": ["7", "9"], "cards": ["JR"]}
    game = OneCard(seats=2, dealer=0)
    assert game.view(None)["follow"] is None  # nothing on the table before the deal


def test_black_jack_says_what_counters_a_pick_up() -> None:
    game = BlackJack(seats=2, dealer=0)
    game.apply_chance(list(game.chance_request().cards))  # canonical order: 2H... on top
    follow = game.view(None)["follow"]
    assert follow is not None and follow["suits"]  # the top card's suit plays
    game.pending = 2  # a pick-up is owed: only a 2 or a jack may be played
    assert game.view(None)["follow"] == {"suits": [], "ranks": ["2", "J"], "cards": []}


def test_after_taking_an_attack_only_the_cards_just_drawn_may_follow() -> None:
    """Before, the table said "May follow: any ♠" although only a drawn card played."""
    game = OneCard(seats=2, dealer=0)
    hands = ["2S", "4S", "5S", "6S", "8S", "9S", "3H", "AS", "3C", "4C", "5C", "6C", "8C", "9C"]
    deck = [*hands, "2D", "10S", "JH", "KH"]
    game.apply_chance([card(c) for c in [*deck, *(c.code for c in DECK_54 if c.code not in deck)]])
    game.apply(1, game.parse_action({"type": "play", "cards": ["2S"]}))  # seat 0 takes 2
    game.apply(0, game.parse_action({"type": "draw"}))  # 10S and JH
    assert game.view(0)["fresh"] == ["10S", "JH"]
    mine = game.view(0)["follow"]  # AS, held before, would match the top 2S
    assert mine == {"suits": [], "ranks": [], "cards": ["10S"], "only": "drawn"}
    public = game.view(None)["follow"]  # others do not know which cards were drawn
    assert public["only"] == "drawn" and public["suits"] == ["S"]
    assert game.view(1)["follow"] == public
    words = find_presentation(game.game.name).to_wire()["words"]
    assert words["drawn"] == "only a card just drawn"
