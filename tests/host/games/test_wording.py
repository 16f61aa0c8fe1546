"""The wording of engine refusals a player reads: a lost One Card call race, a late or early
Black Jack declaration, and ``explain`` reasons (jokers, named suits, blunders).

Each situation is set up from a scripted deck (the golden scenarios' decks) and the refusal's
message is pinned exactly: a client shows it after "The host refused ...".
"""

from __future__ import annotations

import random

import pytest

from host.games.base import IllegalAction, NotYourTurn, State
from host.games.black_jack import BlackJack
from host.games.one_card import OneCard
from host.games.playout import answer_chance
from host.tools.scenario import parse_scenario, run_scenario
from protocol.cards import DECK_54, card

ONE_CARD_DECK = ["5S", "3H", "5D", "4H", "9C", "KH", "9D", "8D", "9S", "6S", "10D", "QC", "9H"]
# seat 1 plays down to one card (the call window opens for it, seat 0 is next)
TO_ONE_CARD = [
    (1, {"type": "play", "cards": ["5S"]}),
    (0, {"type": "draw"}),
    (1, {"type": "play", "cards": ["9S"]}),
    (0, {"type": "draw"}),
    (1, {"type": "play", "cards": ["9C"]}),
    (0, {"type": "draw"}),
    (1, {"type": "play", "cards": ["9H"]}),
    (0, {"type": "draw"}),
    (1, {"type": "play", "cards": ["9D"]}),
    (0, {"type": "draw"}),
    (1, {"type": "play", "cards": ["5D"]}),
]


def scripted(game: str, seats: int, dealer: int, deck: list[str], steps: list[object]) -> State:
    data = {
        "game": game,
        "seats": seats,
        "dealer": dealer,
        "deck": deck,
        "steps": [{"seat": s, "action": a} for s, a in steps],  # type: ignore[misc]
    }
    played, _ = run_scenario(parse_scenario(data))
    return played


def refusal(game: State, seat: int, wire: dict[str, object]) -> str:
    with pytest.raises(IllegalAction) as info:
        game.check(seat, game.parse_action(wire))
    return info.value.message


CALL: dict[str, object] = {"type": "call"}


def test_a_call_with_no_window_says_when_one_opens() -> None:
    game = scripted("one-card", 2, 0, ONE_CARD_DECK, [])
    assert refusal(game, 0, CALL) == (
        "no One Card call is open: one opens when a player goes down to one card "
        "and closes at the next turn"
    )


def test_losing_the_call_race_names_the_seat_that_called_first() -> None:
    game = scripted("one-card", 2, 0, ONE_CARD_DECK, [*TO_ONE_CARD, (0, CALL)])
    assert refusal(game, 1, CALL) == "too late: seat 0 already called One Card on you"
    assert refusal(game, 0, CALL) == "you already called One Card"


def test_a_call_after_the_holder_called_says_so() -> None:
    game = scripted("one-card", 2, 0, ONE_CARD_DECK, [*TO_ONE_CARD, (1, CALL)])
    assert refusal(game, 0, CALL) == (
        "too late: seat 1 already called One Card on their own last card"
    )


def test_a_call_after_the_next_turn_says_the_window_closed() -> None:
    game = scripted("one-card", 2, 0, ONE_CARD_DECK, [*TO_ONE_CARD, (0, {"type": "draw"})])
    assert refusal(game, 1, CALL) == (
        "too late: the One Card call closed when seat 0 took a turn after you went down to one card"
    )
    assert refusal(game, 0, CALL) == (
        "too late: the One Card call closed when you took a turn after seat 1 went down to one card"
    )


def test_a_third_seat_losing_the_race_hears_who_called_on_whom() -> None:
    rng = random.Random(7)
    for _ in range(50):
        game = OneCard(seats=3, dealer=0)
        deck = list(DECK_54)
        rng.shuffle(deck)
        game.apply_chance(deck)
        while game.outcome() is None and game.chance_request() is None:
            view = game.view(None)
            window = view["call_window"]
            if isinstance(window, dict):
                holder, target = window["holder"], window["target"]
                assert isinstance(holder, int) and isinstance(target, int)
                third = 3 - holder - target
                game.apply(target, game.parse_action(CALL))
                assert refusal(game, third, CALL) == (
                    f"too late: seat {target} already called One Card on seat {holder}"
                )
                return
            seat = game.to_act()[0]
            legal = [a for a in game.legal_actions(seat) if a.to_wire() != CALL]
            game.apply(seat, rng.choice(legal))
    pytest.fail("no call window opened in 50 random games")


BJ_DECK = [
    "3C",
    "3H",
    "3S",
    "4C",
    "4H",
    "4S",
    "5C",
    "5H",
    "5S",
    "6C",
    "6H",
    "6S",
    "7C",
    "7H",
    "7S",
    "8C",
    "8H",
    "9S",
    "9C",
    "9H",
    "10S",
    "2C",
]
RUN = (0, {"type": "play", "cards": ["3C", "4C", "5C", "6C", "7C"]})
DECLARE: dict[str, object] = {"type": "declare", "what": "cards"}
HOW = "say it with your play or draw, or declare right after it"


def test_black_jack_declarations_say_when_they_may_be_made() -> None:
    game = scripted("black-jack", 3, 2, BJ_DECK, [RUN])
    assert isinstance(game, BlackJack) and game.turn == 1
    assert refusal(game, 1, DECLARE) == f"you declare at the end of your turn: {HOW}"
    assert refusal(game, 2, DECLARE) == (
        "you may declare only at the end of your own turn, before the next player acts"
    )
    game.apply(0, game.parse_action(DECLARE))
    assert refusal(game, 0, DECLARE) == "you have already declared for this turn"


def test_a_late_black_jack_declaration_names_who_acted_since() -> None:
    game = scripted("black-jack", 3, 2, BJ_DECK, [RUN, (1, {"type": "draw"})])
    late = "too late to declare for your last turn: seat 1 took a turn since"
    assert refusal(game, 0, DECLARE) == late
    game.apply(2, game.parse_action({"type": "draw"}))
    assert refusal(game, 0, DECLARE) == f"{late}; to declare at the end of this turn, {HOW}"


# --------------------------------------------------------------------------- explain


def one_card_on(top: str, hand: str, **options: object) -> OneCard:
    """Two seats, dealer 0; seat 1 (to act) holds ``hand`` (seven cards), ``top`` is up."""
    mine = hand.split()
    others = [c.code for c in DECK_54 if c.code not in (*mine, top)][:7]
    order = [x for pair in zip(mine, others, strict=True) for x in pair] + [top]
    rest = [c.code for c in DECK_54 if c.code not in order]
    game = OneCard(seats=2, dealer=0, options=options)
    game.apply_chance([card(c) for c in order + rest])
    return game


def test_one_card_explains_a_joker_by_its_colour_and_suits() -> None:
    game = one_card_on("9S", "JR 3H 4H KH 8D 6D QD")
    assert game.explain(1, card("JR")).reason == (
        "JR is the red joker: it plays only on hearts or diamonds, and the suit to match is spades"
    )


def test_one_card_explains_an_attack_in_cards() -> None:
    game = one_card_on("9H", "AH 3C 4C KC 8C 6C QC")
    game.apply(1, game.parse_action({"type": "play", "cards": ["AH"]}))
    hand = game.view(0)["hand"]
    assert isinstance(hand, list)
    plain = next(c for c in map(card, hand) if c.rank.code not in ("2", "A") and not c.is_joker)
    assert game.explain(0, plain).reason == (
        f"{plain.code} is not an attack card; you face an attack of 3 cards: answer with an "
        "attack card matching the top card's suit or rank or draw 3"
    )


def test_black_jack_blunder_reasons_say_what_playing_anyway_costs() -> None:
    game = scripted("black-jack", 3, 2, BJ_DECK, [])  # 2C up, seat 0 to act
    early = game.explain(1, card("3H"))
    assert early.blunder and early.reason == (
        "out of turn: it is seat 0's turn; playing it anyway is a blunder: "
        "you take the cards back and pick up 2, and the turn stays where it is"
    )
    game.apply(0, game.parse_action({"type": "play", "cards": ["3C"]}))
    game.apply(1, game.parse_action({"type": "play", "cards": ["3H"]}))
    late = game.explain(2, card("9S"))
    assert late.blunder and late.reason == (
        "9S matches neither the rank nor the suit of 3H; playing it anyway is a blunder: "
        "you take the cards back and pick up 2, and your turn ends"
    )


def test_a_play_out_of_turn_with_blunders_off_says_whose_turn_it_is() -> None:
    """It said "played out of turn", though nothing was played (a tester read it as played)."""
    game = BlackJack(seats=2, options={"blunders": False}, dealer=0)
    rng = random.Random(3)
    while game.chance_request() is not None:
        answer_chance(game, rng)
    (turn,) = game.to_act()
    other = 1 - turn
    held = game.view(other)["hand"][0]
    with pytest.raises(NotYourTurn) as refused:
        game.check(other, game.parse_action({"type": "play", "cards": [held]}))
    assert refused.value.message == f"it is seat {turn}'s turn"


def test_one_card_explains_a_joker_attack_by_its_colour() -> None:
    """A joker has no suit or rank: "matching the top card's suit or rank" said nothing true."""
    game = one_card_on("9H", "JR 2C AS KC 8C 6C QC", bankrupt_at=0)  # 7 + 13: no bankruptcy
    game.apply(1, game.parse_action({"type": "play", "cards": ["JR"]}))
    hand = game.view(0)["hand"]
    assert isinstance(hand, list)
    red = card("JR").color
    attack = next(c for c in map(card, hand) if c.rank.code in ("2", "A") and c.color is not red)
    assert game.explain(0, attack).reason == (
        f"{attack.code} is not red (the colour of JR); you face an attack of 13 cards: answer "
        "with a red attack card or a joker or draw 13"
    )
    plain = next(c for c in map(card, hand) if c.rank.code not in ("2", "A"))
    with pytest.raises(IllegalAction, match="does not answer the attack on JR"):
        game.check(0, game.parse_action({"type": "play", "cards": [plain.code]}))
    while game.to_act() == (0,) and game.chance_request() is None:  # take it; play nothing
        game.apply(0, game.parse_action({"type": "draw"}))
    assert game.chance_request() is None and game.to_act() == (1,)  # JR on top, no attack
    assert refusal(game, 1, {"type": "play", "cards": ["2C"]}) == (
        "2C does not play on JR (on a joker: a card of its colour, a joker or a seven)"
    )
