"""Tests for :meth:`host.games.base.State.explain`: why a held card cannot be played now.

A table of hand-made situations per game pins the wording (turn, phase, the rule that forbids
the card, a card not held, a Black Jack blunder and its cost), and a hypothesis property samples
states of random playouts of every game: for each seat and card, ``explain`` never raises, never
changes the game, gives ``reason == ""`` exactly when some legal action puts the card down
(alone or with others), and its ``action`` is accepted by ``check`` (and, unless a blunder,
is one of the legal actions).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.games import find_game
from host.games.base import Explanation, State, played_cards
from host.games.black_jack import BlackJack
from host.games.one import One
from host.games.one_card import OneCard
from host.games.playout import playout
from protocol.cards import ALL_CARDS, DECK_54, DECK_ONE, Card, card

# --------------------------------------------------------------------------- set-ups


def one_card(hands: Sequence[str], top: str, **options: object) -> OneCard:
    """Two seats, dealer 0 (seat 1 acts first): ``hands[s]`` dealt to seat s, ``top`` up."""
    wanted = [h.split() for h in hands]
    per = len(wanted[0])
    order = [wanted[(1 + i) % 2][i // 2] for i in range(per * 2)] + [top]
    rest = [c.code for c in DECK_54 if c.code not in order]
    game = OneCard(seats=2, dealer=0, options=options)
    game.apply_chance([card(c) for c in order + rest])
    return game


def one(hands: Sequence[str], centre: str = "JH", **options: object) -> One:
    """Four seats, dealer 3 (seat 0 bids first), six cards each."""
    queues = [[card(c) for c in h.split()] for h in hands]
    order = [queues[p % 4].pop(0) for p in range(24)]
    game = One(seats=4, dealer=3, options=options)
    game.apply_chance([*order, card(centre)])
    return game


def black_jack(hands: Mapping[int, str], up: str, **options: object) -> BlackJack:
    """Two seats, dealer 1 (seat 0 acts first); unlisted cards fill hands and stock."""
    game = BlackJack(seats=2, dealer=1, options=options)
    request = game.chance_request()
    assert request is not None
    wanted = {s: [card(c) for c in h.split()] for s, h in hands.items()}
    rest = Counter(request.cards)
    rest.subtract([c for h in wanted.values() for c in h] + [card(up)])
    spare = [c for c in request.cards if rest[c] > 0 and not rest.subtract([c])]
    full = [wanted.get(s, []) for s in range(2)]
    for held in full:
        while len(held) < game.hand_size:
            held.append(spare.pop(0))
    dealt = [full[i % 2][i // 2] for i in range(game.hand_size * 2)]
    game.apply_chance([*dealt, card(up), *spare])
    return game


def act(game: State, seat: int, wire: dict[str, object]) -> None:
    game.apply(seat, game.parse_action(wire))


# --------------------------------------------------------------------------- situations


def test_one_card_reasons() -> None:
    game = one_card(["3H 4H KH 8D 6S QC 8H", "7S 5C 9D 2D JC 10C 3C"], "9S")
    assert game.explain(1, card("5C")).reason == "5C matches neither the suit nor the rank of 9S"
    assert "not in your hand" in game.explain(1, card("KH")).reason
    assert "seat 1's turn" in game.explain(0, card("6S")).reason
    seven = game.explain(1, card("7S"))
    assert seven == Explanation("")  # legal, but names a suit: no single action
    nine = game.explain(1, card("9D"))
    assert nine == Explanation("", action=game.parse_action({"type": "play", "cards": ["9D"]}))
    act(game, 1, {"type": "play", "cards": ["7S"], "suit": "D"})
    assert "named by the seven (diamonds)" in game.explain(0, card("6S")).reason
    assert game.explain(0, card("8D")).action is not None


def test_one_card_attack_reasons() -> None:
    game = one_card(["3H 4H KH 8D 6S QC 8H", "AH 5C 9D 2D JC 10C 3C"], "9H")
    act(game, 1, {"type": "play", "cards": ["AH"]})
    why = game.explain(0, card("4H")).reason
    assert "4H is not an attack card" in why and "you face an attack of 3" in why
    assert "or draw 3" in why


def test_one_reasons() -> None:
    hands = ["9S 10S JS QS KS AS", "9H 10H JH QH KH AH", "9D 10D JD QD KD AD", "9C 10C QC KC AC JR"]
    game = one(hands, centre="JC")
    assert game.explain(0, card("9S")).reason.startswith("it is the bidding: bid or pass")
    assert "not in your hand" in game.explain(0, card("9H")).reason
    assert "seat 0's turn" in game.explain(1, card("9H")).reason
    act(game, 0, {"type": "pass"})
    act(game, 1, {"type": "pass"})
    act(game, 2, {"type": "pass"})
    act(game, 3, {"type": "bid", "value": 6})  # seat 3 leads, trump is its suit
    assert game.view(3)["phase"] == "play"
    assert "may not lead the joker to the first trick" in game.explain(3, card("JR")).reason
    act(game, 3, {"type": "play", "card": "9C"})
    assert "not in your hand" in game.explain(0, card("9C")).reason
    assert game.explain(0, card("10S")).action == game.parse_action({"type": "play", "card": "10S"})


def test_one_must_follow_suit() -> None:
    hands = ["9S 10S JS QS KS 9C", "9H 10H JH QH KH AH", "9D 10D JD QD KD AD", "AS 10C QC KC AC JR"]
    game = one(hands, centre="JC")
    for _ in range(3):
        act(game, game.to_act()[0], {"type": "pass"})
    act(game, 3, {"type": "bid", "value": 6})
    act(game, 3, {"type": "play", "card": "10C"})
    why = game.explain(0, card("9S")).reason
    assert why == "you must follow suit: clubs were led and you can follow"


def test_black_jack_reasons_and_blunders() -> None:
    game = black_jack({0: "QS 3D 4D 5D 6D 7D 8D", 1: "2H 3H 4H 5H 6H 7H 8H"}, "10C")
    why = game.explain(0, card("QS"))
    assert why.blunder and why.action == game.parse_action({"type": "play", "cards": ["QS"]})
    assert why.reason.startswith(
        "QS matches neither the rank nor the suit of 10C; playing it anyway is a blunder"
    )
    assert "take the cards back and pick up 2" in why.reason and "turn ends" in why.reason
    out = game.explain(1, card("2H"))
    assert out.blunder and "out of turn" in out.reason and "turn stays where it is" in out.reason
    assert "not in your hand" in game.explain(0, card("2H")).reason
    game.check(0, why.action)  # accepted: a blunder is a legal event
    strict = black_jack({0: "QS 3D 4D 5D 6D 7D 8D"}, "10C", blunders=False)
    off = strict.explain(0, card("QS"))
    assert off == Explanation("QS matches neither the rank nor the suit of 10C")


def test_black_jack_ace_blunder_names_the_first_suit() -> None:
    game = black_jack({0: "3D 4D 5D 6D 7D 8D 9D", 1: "AH 3H 4H 5H 6H 7H 8H"}, "10C")
    why = game.explain(1, card("AH"))
    assert why.blunder and why.action is not None
    assert why.action.to_wire() == {"type": "play", "cards": ["AH"], "suit": "S"}


# --------------------------------------------------------------------------- property

GAMES: list[tuple[str, int, dict[str, object]]] = [
    ("one-card", 3, {}),
    ("one-card", 2, {"multi_play": True, "defence": "any", "must_play_if_able": True}),
    ("one", 4, {}),
    ("black-jack", 3, {}),
    ("black-jack", 2, {"blunders": False, "chain": True, "aces_anytime": True}),
    ("black-jack", 7, {"jokers": 2, "decks": "2"}),  # jokers' forms, two of a card in a hand
]


def snapshot(game: State) -> tuple[object, ...]:
    views = [game.view(s) for s in range(game.seats)]
    return (views, game.view(None), sorted(c.index for c in game.all_cards()))


def check_explain(game: State, seat: int, c: Card) -> None:
    before = snapshot(game)
    got = game.explain(seat, c)
    assert snapshot(game) == before, "explain changed the game"
    held = c.code in (game.view(seat)["hand"] or [])
    legal = game.legal_actions(seat)
    playing = [a for a in legal if c.code in played_cards(a)]
    if not held:
        assert got == Explanation(f"{c.code} is not in your hand")
        return
    assert (got.reason == "") == bool(playing), (got, playing)
    if got.action is not None:
        assert played_cards(got.action) == [c.code]
        game.check(seat, got.action)  # accepted, as a legal play or a blunder
        assert got.blunder or got.action in legal
    if got.blunder:
        assert got.action is not None and "playing it anyway is a blunder" in got.reason
    else:
        assert got.action is None or got.action in legal


@pytest.mark.parametrize(("name", "seats", "options"), GAMES)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_explain_agrees_with_the_legal_actions_and_changes_nothing(
    name: str, seats: int, options: dict[str, object], seed: int
) -> None:
    rng = random.Random(seed)
    deck = DECK_ONE if name == "one" else (DECK_54 if name == "one-card" else ALL_CARDS)
    checked = 0

    def on_step(game: State, _seat: int, _action: object, _events: object) -> None:
        nonlocal checked
        if game.chance_request() is not None or rng.random() > 0.2 or checked > 40:
            return
        checked += 1
        seat = rng.randrange(game.seats)
        hand = [card(code) for code in game.view(seat)["hand"] or []]
        for c in [*hand, rng.choice(deck)]:
            check_explain(game, seat, c)

    result = playout(
        find_game(name).state, seats=seats, options=options, rng=rng, on_step=on_step, max_steps=400
    )
    for c in [card(code) for code in result.game.view(0)["hand"] or []][:3]:
        check_explain(result.game, 0, c)  # the end, or wherever max_steps stopped
