"""One Card engine: each rule and ruling, then random playouts over every option (hypothesis)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.games import find_game
from host.games.base import (
    ChanceKind,
    IllegalAction,
    InvalidAction,
    NotYourTurn,
    OptionError,
    RulesError,
    Termination,
)
from host.games.one_card import CALL, DRAW, Call, Draw, OneCard, Play
from host.games.one_card import engine as one_card_engine
from host.games.playout import check_invariants, garbage_wire, playout, probe, view_leaks
from protocol.cards import DECK_54, Suit, card


def order_for(
    hands: list[list[str]], top: list[str], stock: list[str], *, dealer: int = 0
) -> list[str]:
    """A deck order (top first) that deals ``hands``, turns up ``top``, then ``stock``."""
    n = len(hands)
    seq = [(dealer + 1 + i) % n for i in range(n)]
    per = len(hands[0])
    out = [hands[seat][r] for r in range(per) for seat in seq]
    out += top + stock
    used = Counter(out)
    assert all(v == 1 for v in used.values()), used
    return out + [c.code for c in DECK_54 if c.code not in used]


def new_game(
    hands: list[list[str]],
    top: str | list[str],
    stock: Sequence[str] = (),
    *,
    dealer: int = 0,
    **options: object,
) -> OneCard:
    game = OneCard(seats=len(hands), options=options, dealer=dealer)
    tops = [top] if isinstance(top, str) else top
    game.apply_chance([card(c) for c in order_for(hands, tops, list(stock), dealer=dealer)])
    return game


def play(game: OneCard, seat: int, *codes: str, suit: str | None = None) -> list[str]:
    action = Play(tuple(card(c) for c in codes), Suit(suit) if suit else None)
    game.check(seat, action)  # as the host's runner does: apply takes a checked action
    return [e.kind for e in game.apply(seat, action)]


def hand(game: OneCard, seat: int) -> list[str]:
    return list(game.view(seat)["hand"])


TWO = [
    ["3H", "4H", "KH", "8D", "6S", "QC", "8H"],
    ["7S", "5C", "9D", "2D", "JC", "10C", "3C"],
]


# --------------------------------------------------------------------------- deal and start


def test_registry_and_options() -> None:
    assert find_game("one-card").state is OneCard
    names = [o.name for o in OneCard.game.option_specs]
    assert names == [
        "direction",
        "defence",
        "play_after_attack",
        "multi_play",
        "attack_cap",
        "ranking",
        "must_play_if_able",
        "bankrupt_at",
    ]
    defaults = OneCard.game.validate_options({})
    assert defaults["direction"] == "counter-clockwise"
    assert defaults["defence"] == "match"
    assert defaults["play_after_attack"] is True
    assert defaults["multi_play"] is False
    assert defaults["attack_cap"] == 0
    assert defaults["must_play_if_able"] is False
    with pytest.raises(OptionError):
        OneCard(seats=9)
    with pytest.raises(OptionError):
        OneCard(seats=2, options={"defence": "dodge"})


def test_deal_one_at_a_time_from_the_dealers_left_and_first_player_on_the_right() -> None:
    game = OneCard(seats=4, dealer=1)
    request = game.chance_request()
    assert request is not None and request.kind is ChanceKind.DEAL and request.stream == 0
    assert request.cards == DECK_54 and not request.choose_dealer
    assert game.to_act() == ()
    events = game.apply_chance(list(DECK_54))
    deal = events[0]
    assert deal.kind == "deal" and deal.to is None
    assert deal.data["seats"][:5] == [2, 3, 0, 1, 2]
    assert deal.data["positions"][:2] == [[0, 0], [0, 1]]
    assert [len(game.view(s)["hand"]) for s in range(4)] == [5, 5, 5, 5]
    assert game.view(2)["hand"] == ["AS", "5S", "9S", "KS", "4H"]
    private = [e for e in events if e.kind == "dealt"]
    assert [e.to for e in private] == [0, 1, 2, 3]
    assert private[2].data["cards"] == ["AS", "5S", "9S", "KS", "4H"]
    assert private[2].data["positions"] == [[0, 0], [0, 4], [0, 8], [0, 12], [0, 16]]
    # counter-clockwise by default: the dealer's right is seat 0 (dealer 1, decreasing numbers)
    assert game.to_act() == (0,)
    assert game.view(None)["top"] == "8H"  # position 20


def test_clockwise_starts_left_of_the_dealer_and_two_players_get_seven() -> None:
    game = OneCard(seats=3, dealer=2, options={"direction": "clockwise"})
    game.apply_chance(list(DECK_54))
    assert game.to_act() == (0,)
    two = new_game(TWO, "5H")
    assert [len(hand(two, s)) for s in (0, 1)] == [7, 7]
    assert two.view(None)["stock"] == 54 - 15


def test_dealer_from_chance() -> None:
    game = OneCard(seats=3)
    request = game.chance_request()
    assert request is not None and request.choose_dealer
    with pytest.raises(ValueError):
        game.apply_chance(list(DECK_54))
    game.apply_chance(list(DECK_54), dealer=2)
    assert game.dealer == 2 and game.to_act() == (1,)


def test_bad_chance_answer_is_rejected() -> None:
    game = OneCard(seats=2, dealer=0)
    with pytest.raises(ValueError):
        game.apply_chance(list(DECK_54[:-1]))
    with pytest.raises(ValueError):
        game.apply_chance([*DECK_54[:-1], DECK_54[0]])


def test_first_card_joker_is_covered_and_a_seven_keeps_its_suit() -> None:
    game = new_game(TWO, ["JB", "JR", "7C"])
    view = game.view(None)
    assert view["discards"] == ["JB", "JR", "7C"]
    assert view["top"] == "7C" and view["suit"] == "C" and view["damage"] == 0
    assert game.legal_actions(1).count(Play((card("3C"),))) == 1
    assert Play((card("9D"),)) not in game.legal_actions(1)


# --------------------------------------------------------------------------- matching


def test_match_suit_or_rank() -> None:
    game = new_game(TWO, "5H")
    legal = game.legal_actions(1)
    assert Play((card("5C"),)) in legal  # rank
    assert Play((card("9D"),)) not in legal
    assert DRAW in legal  # a player may always draw
    with pytest.raises(IllegalAction):
        game.check(1, Play((card("9D"),)))
    with pytest.raises(NotYourTurn):
        game.check(0, Play((card("3H"),)))
    with pytest.raises(InvalidAction):
        game.check(1, Play((card("3H"),)))  # not in the hand
    assert play(game, 1, "5C") == ["play", "turn"]
    assert Play((card("QC"),)) in game.legal_actions(0)


def test_seven_is_wild_and_names_one_suit() -> None:
    game = new_game(TWO, "5H")
    sevens = [a for a in game.legal_actions(1) if isinstance(a, Play) and a.cards[0].code == "7S"]
    assert [a.suit for a in sevens] == list(Suit)
    play(game, 1, "7S", suit="D")
    assert game.view(0)["suit"] == "D"
    assert Play((card("8D"),)) in game.legal_actions(0)
    assert Play((card("8H"),)) not in game.legal_actions(0)


def test_jokers_follow_colour_and_any_joker_plays_on_a_joker() -> None:
    hands = [
        ["JR", "3H", "4S", "5S", "6S", "8S", "9S"],
        ["JB", "2H", "9D", "9C", "10S", "KC", "8C"],
    ]
    game = new_game(hands, "5D", bankrupt_at=0)  # 23 damage: no bankruptcy here
    assert Play((card("JB"),)) not in game.legal_actions(1)
    play(game, 1, "9D")
    assert Play((card("JR"),)) in game.legal_actions(0)
    play(game, 0, "JR")  # attack 13 on seat 1
    legal = game.legal_actions(1)
    assert Play((card("JB"),)) in legal and Play((card("2H"),)) in legal
    assert Play((card("8C"),)) not in legal
    play(game, 1, "JB")
    assert game.view(None)["damage"] == 23
    game.apply(0, DRAW)
    assert game.view(0)["phase"] == "after_attack"


def test_cards_of_the_jokers_colour_play_on_it() -> None:
    hands = [
        ["JB", "3H", "4H", "5D", "6D", "8S", "9S"],
        ["JR", "2H", "QD", "9C", "10D", "KC", "5C"],
    ]
    game = new_game(hands, "5S", play_after_attack=False)
    play(game, 1, "5C")
    play(game, 0, "JB")  # black joker: 10 damage to seat 1
    game.apply(1, DRAW)  # takes the 10 cards; the turn ends
    assert len(hand(game, 1)) == 16
    legal = game.legal_actions(0)
    assert Play((card("8S"),)) in legal and Play((card("9S"),)) in legal
    assert Play((card("3H"),)) not in legal


# --------------------------------------------------------------------------- K, Q, J


THREE = [
    ["KS", "QS", "JS", "5S", "6S"],
    ["3H", "4H", "5H", "6H", "8H"],
    ["3D", "4D", "5D", "6D", "8D"],
]


def test_king_gives_another_turn() -> None:
    game = new_game(THREE, "9S")  # dealer 0: seat 2 starts, play goes 2 -> 1 -> 0
    game.apply(2, DRAW)
    game.apply(1, DRAW)
    events = game.apply(0, Play((card("KS"),)))
    assert [e.to_wire() for e in events if e.kind == "extra_turn"] == [
        {"kind": "extra_turn", "seat": 0, "count": 1}
    ]  # said, like Black Jack's skips and reversals, so every player reads it
    assert game.to_act() == (0,)
    play(game, 0, "5S")
    assert game.to_act() == (2,)


def test_jack_skips_and_queen_reverses() -> None:
    game = new_game(THREE, "9S")
    game.apply(2, DRAW)
    game.apply(1, DRAW)
    events = game.apply(0, Play((card("JS"),)))  # skips seat 2
    assert [e.to_wire() for e in events if e.kind == "skip"] == [{"kind": "skip", "seat": 2}]
    assert game.to_act() == (1,)
    game.apply(1, DRAW)
    events = game.apply(0, Play((card("QS"),)))  # now clockwise: 0 -> 1
    assert [e.to_wire() for e in events if e.kind == "reverse"] == [
        {"kind": "reverse", "direction": "clockwise"}
    ]
    assert game.view(None)["direction"] == "clockwise"
    assert game.to_act() == (1,)


def test_two_player_queen_acts_as_jack() -> None:
    hands = [
        ["QH", "3H", "4S", "5S", "6S", "8S", "9S"],
        ["2C", "2H", "QD", "9C", "10S", "KC", "8C"],
    ]
    game = new_game(hands, "5H")
    game.apply(1, DRAW)
    assert play(game, 0, "QH") == ["play", "skip", "turn"]  # the queen skips the opponent
    assert game.to_act() == (0,)
    assert game.view(None)["direction"] == "counter-clockwise"


# --------------------------------------------------------------------------- attacks


ATTACK = [
    ["2H", "AH", "AS", "5C", "6C", "8C", "9C"],
    ["2S", "3D", "4D", "5D", "6D", "8D", "9D"],
]


def test_damage_adds_up_and_is_drawn_then_a_drawn_card_may_be_played() -> None:
    game = new_game(ATTACK, "2D", ["10H", "JH", "KH", "3H", "4H"])
    assert game.to_act() == (1,)
    play(game, 1, "2S")  # 2 on the 2 of diamonds: damage 2 to seat 0
    play(game, 0, "AS")  # ace of spades on a spade two: 2 + 5
    assert game.view(None)["damage"] == 7
    legal = game.legal_actions(1)
    assert legal == [DRAW]  # no attack card
    events = game.apply(1, DRAW)
    draw = next(e for e in events if e.kind == "draw")
    assert draw.data["count"] == 7 and draw.data["reason"] == "attack"
    assert draw.data["positions"] == [[0, p] for p in range(15, 22)]
    assert game.view(1)["phase"] == "after_attack" and game.to_act() == (1,)
    assert game.view(1)["fresh"] == ["10H", "JH", "KH", "3H", "4H", "3S", "4S"]
    assert game.view(0)["fresh"] == []  # only the drawing seat sees them


def test_after_attack_only_fresh_cards_and_drawing_one_more_ends_the_turn() -> None:
    game = new_game(ATTACK, "2D", ["10S", "JH", "KH"])
    play(game, 1, "2S")
    game.apply(0, DRAW)  # takes 2: 10S, JH
    assert game.view(0)["fresh"] == ["10S", "JH"]
    legal = game.legal_actions(0)
    assert Play((card("10S"),)) in legal  # spade on the two of spades
    assert Play((card("AS"),)) not in legal  # held before: not playable now
    with pytest.raises(IllegalAction):
        game.check(0, Play((card("AS"),)))
    game.apply(0, DRAW)
    assert len(hand(game, 0)) == 10 and game.to_act() == (1,)


def test_play_after_attack_off_ends_the_turn() -> None:
    game = new_game(ATTACK, "2D", play_after_attack=False)
    play(game, 1, "2S")
    game.apply(0, DRAW)
    assert game.to_act() == (1,) and len(hand(game, 0)) == 9


def test_defence_match_needs_a_legal_attack_card() -> None:
    game = new_game(ATTACK, "2D")
    play(game, 1, "2S")
    legal = game.legal_actions(0)
    assert Play((card("2H"),)) in legal and Play((card("AS"),)) in legal
    assert Play((card("AH"),)) not in legal  # no suit, no rank
    assert Play((card("5C"),)) not in legal


def test_defence_any_ignores_suit() -> None:
    game = new_game(ATTACK, "2D", defence="any")
    play(game, 1, "2S")
    assert Play((card("AH"),)) in game.legal_actions(0)


def test_defence_escalate_lower_card_costs_one() -> None:
    hands = [
        ["AS", "3C", "5C", "6C", "8C", "9C", "10C"],
        ["AH", "2H", "5D", "6D", "8D", "9D", "4D"],
    ]
    game = new_game(hands, "3H", ["JS"], defence="escalate")
    play(game, 1, "AH")
    play(game, 0, "AS")  # 3 + 5: higher, no cost
    assert game.view(None)["damage"] == 8
    kinds = play(game, 1, "2H")  # lower than the ace of spades: costs one
    assert "draw" in kinds and len(hand(game, 1)) == 6
    assert game.view(None)["damage"] == 10


def test_escalate_penalty_keeps_two_cards_so_no_call_window_opens() -> None:
    hands = [
        ["AD", "3C", "4C", "6C", "8C", "10C", "KC"],
        ["9H", "9S", "9C", "9D", "5D", "5C", "2H"],
    ]
    game = new_game(hands, "5H", ["JS", "QS"], defence="escalate", multi_play=True)
    play(game, 1, "9H", "9S", "9C", "9D")
    game.apply(0, DRAW)
    play(game, 1, "5D")
    play(game, 0, "AD")
    kinds = play(game, 1, "2H")  # a two on an ace: one penalty card
    assert "call_window" not in kinds and "draw" in kinds
    assert hand(game, 1) == ["QS", "5C"] and game.view(None)["call_window"] is None
    assert CALL not in game.legal_actions(0)


def test_attack_cap() -> None:
    hands = [
        ["JR", "3C", "5C", "6C", "8C", "9C", "10C"],
        ["JB", "2H", "5D", "6D", "8D", "9D", "4D"],
    ]
    game = new_game(hands, "2D", attack_cap=20)
    play(game, 1, "2H")
    play(game, 0, "JR")
    assert game.view(None)["damage"] == 15
    play(game, 1, "JB")
    assert game.view(None)["damage"] == 20


def test_seven_cannot_answer_an_attack() -> None:
    hands = [
        ["7C", "3C", "5C", "6C", "8C", "9C", "10C"],
        ["2H", "2S", "5D", "6D", "8D", "9D", "4D"],
    ]
    game = new_game(hands, "4H")
    play(game, 1, "2H")
    assert game.legal_actions(0) == [DRAW]


# --------------------------------------------------------------------------- the call


def _down_to_one() -> OneCard:
    hands = [
        ["3H", "4H", "KH", "8D", "6S", "QC", "8H"],
        ["5S", "5D", "9C", "9D", "9S", "10D", "9H"],
    ]
    game = new_game(hands, "5H")
    # seat 1 sheds down to one card; seat 0 keeps drawing
    for code in ["5S", "9S", "9C", "9H", "9D", "5D"]:
        play(game, 1, code)
        if code != "5D":
            game.apply(0, DRAW)
    return game


def test_call_window_opens_at_one_card() -> None:
    game = _down_to_one()
    assert hand(game, 1) == ["10D"]
    assert game.view(None)["call_window"] == {"holder": 1, "target": 0}
    assert CALL in game.legal_actions(1) and CALL in game.legal_actions(0)
    assert game.to_act() == (0,)


def test_holder_calls_first_next_seat_draws() -> None:
    game = _down_to_one()
    before = len(hand(game, 0))
    events = game.apply(1, CALL)
    assert [e.kind for e in events][:2] == ["call", "draw"]
    assert events[0].data == {"seat": 1, "holder": 1, "penalized": 0}
    assert len(hand(game, 0)) == before + 1
    with pytest.raises(IllegalAction):
        game.check(0, CALL)  # the first call closed the window


def test_other_calls_first_holder_draws() -> None:
    game = _down_to_one()
    game.apply(0, CALL)
    assert len(hand(game, 1)) == 2 and game.view(None)["call_window"] is None


def test_call_without_window_is_illegal_and_moves_nothing() -> None:
    game = new_game(TWO, "5H")
    before = Counter(c.code for c in game.all_cards())
    counts = game.view(None)["hand_counts"]
    with pytest.raises(IllegalAction):
        game.check(0, CALL)
    assert game.view(None)["hand_counts"] == counts
    assert Counter(c.code for c in game.all_cards()) == before


def test_window_closes_at_the_next_turn_action() -> None:
    game = _down_to_one()
    game.apply(0, DRAW)
    assert game.view(None)["call_window"] is None
    assert CALL not in game.legal_actions(1)


# --------------------------------------------------------------------------- stock


def test_reshuffle_is_a_chance_request_of_the_discards_minus_top() -> None:
    hands = [
        ["3H", "4H", "KH", "8D", "6S", "QC", "8H"],
        ["5S", "5D", "9C", "9D", "9S", "10D", "9H"],
    ]
    game = new_game(hands, "5H", bankrupt_at=0)  # draws the whole stock
    game.apply(1, Play((card("5S"),)))
    game.apply(0, Play((card("6S"),)))
    game.apply(1, Play((card("9S"),)))
    # empty the stock by drawing
    while game.view(None)["stock"] > 0:
        game.apply(game.to_act()[0], DRAW)
    seat = game.to_act()[0]
    events = game.apply(seat, DRAW)
    assert events[-1].kind == "reshuffle"
    request = game.chance_request()
    assert request is not None and request.kind is ChanceKind.RESHUFFLE and request.stream == 1
    assert [c.code for c in request.cards] == ["5S", "6S", "5H"]  # canonical order
    assert game.to_act() == () and game.legal_actions(seat) == []
    events = game.apply_chance(list(reversed(request.cards)))
    draw = next(e for e in events if e.kind == "draw")
    assert draw.data["positions"] == [[1, 0]] and draw.data["seat"] == seat
    private = next(e for e in events if e.kind == "drawn")
    assert private.to == seat and private.data["cards"] == [request.cards[-1].code]
    assert game.view(None)["discards"] == ["9S"]


def test_owing_more_than_available_is_forgiven_without_bankruptcy() -> None:
    game = new_game(ATTACK, "2D", bankrupt_at=0)
    play(game, 1, "2S")
    game.apply(0, DRAW)
    game.apply(0, DRAW)
    while game.view(None)["stock"] > 0:
        game.apply(game.to_act()[0], DRAW)
    # stock empty; discards are 2D 2S only: one card can be recycled
    seat = game.to_act()[0]
    game.apply(seat, DRAW)
    request = game.chance_request()
    assert request is not None and len(request.cards) == 1
    game.apply_chance(list(request.cards))
    assert game.view(None)["stock"] == 0
    # now nothing can be drawn at all: the draw is forgiven, nothing stays pending
    nxt = game.to_act()[0]
    counts = game.view(None)["hand_counts"]
    events = game.apply(nxt, DRAW)
    assert [e.kind for e in events] == ["forgiven", "turn"]
    assert events[0].data == {"seat": nxt, "count": 1, "reason": "draw"}
    assert game.view(None)["hand_counts"] == counts and game.chance_request() is None
    assert game.to_act() == (1 - nxt,)


# --------------------------------------------------------------------------- going out, options


def test_a_bankrupt_seat_is_told_it_plays_no_more() -> None:
    game = new_game(
        [
            ["3C", "4C", "6C", "8C", "9C"],
            ["3D", "4D", "6D", "8D", "9D"],
            ["3S", "4S", "6S", "8S", "9S"],
        ],
        "5H",
        bankrupt_at=6,
    )
    game.apply(2, DRAW)  # a sixth card: bankrupt
    assert game.view(None)["bankrupt"] == [2] and game.to_act() == (1,)
    assert game.legal_actions(2) == []
    with pytest.raises(NotYourTurn, match="bankrupt"):
        game.check(2, DRAW)


def test_a_bankrupt_seat_catches_nobody() -> None:
    """Before, a player out of the game still caught the others' "One Card!"."""
    game = new_game(
        [
            ["4C", "6D", "8S", "10C", "10D"],
            ["4H", "6C", "8D", "9S", "10H"],
            ["3S", "4S", "6S", "3D", "9C"],
        ],
        "5H",
        bankrupt_at=6,
    )
    game.apply(2, DRAW)  # a sixth card: bankrupt
    for seat, code in ((1, "4H"), (0, "4C"), (1, "6C"), (0, "6D"), (1, "8D"), (0, "8S")):
        play(game, seat, code)
    play(game, 1, "9S")  # one card left: the call window opens
    assert CALL in game.legal_actions(0) and CALL not in game.legal_actions(2)
    with pytest.raises(IllegalAction, match="bankrupt"):
        game.check(2, CALL)


def test_going_out_wins_the_game() -> None:
    hands = [
        ["3H", "4H", "KH", "8D", "6S", "QC", "8H"],
        ["JH", "JD", "9C", "9D", "9S", "10D", "9H"],
    ]
    game = new_game(hands, "5H")
    for code in ["9H", "9S", "9C", "9D", "10D"]:
        play(game, 1, code)
        game.apply(0, DRAW)
    play(game, 1, "JD")  # skips seat 0
    assert hand(game, 1) == ["JH"] and game.outcome() is None
    kinds = play(game, 1, "JH")
    assert kinds == ["play", "out", "game_over"]
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.WENT_OUT
    assert outcome.winners == (1,)
    assert game.to_act() == () and game.legal_actions(0) == []
    with pytest.raises(IllegalAction):
        game.check(0, DRAW)


def test_turn_limit_stops_the_game_and_the_fewest_cards_win(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(one_card_engine, "TURN_LIMIT", 3)
    game = new_game(TWO, "5H")
    game.apply(1, DRAW)
    game.apply(0, DRAW)
    play(game, 1, "5C")  # the third turn action: seat 1 has 7 cards, seat 0 has 8
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.TURN_LIMIT
    assert outcome.winners == (1,) and game.to_act() == ()


def test_ranking_plays_on_to_a_finishing_order() -> None:
    rng = random.Random(5)
    result = playout(OneCard, seats=4, rng=rng, options={"ranking": True})
    outcome = result.outcome
    assert outcome is not None
    assert outcome.termination in (Termination.RANKED, Termination.EXHAUSTED)
    assert outcome.ranking is not None and sorted(outcome.ranking) == [0, 1, 2, 3]
    assert outcome.winners == (outcome.ranking[0],)


def test_must_play_if_able() -> None:
    game = new_game(TWO, "5H", must_play_if_able=True)
    assert DRAW not in game.legal_actions(1)
    with pytest.raises(IllegalAction):
        game.check(1, DRAW)


def test_multi_play_jacks_skip_each() -> None:
    hands = [
        ["JS", "JH", "JD", "5S", "6S"],
        ["3H", "4H", "5H", "6H", "8H"],
        ["3D", "4D", "5D", "6D", "8D"],
        ["3C", "4C", "5C", "6C", "8C"],
    ]
    game = new_game(hands, "9S", dealer=1, multi_play=True)
    assert game.to_act() == (0,)
    legal = game.legal_actions(0)
    assert Play((card("JH"), card("JS"))) not in legal  # first card must match
    assert Play((card("JS"), card("JH"), card("JD"))) in legal
    events = game.apply(0, Play((card("JS"), card("JH"))))  # counter-clockwise: skips 3 and 2
    assert [e.data["seat"] for e in events if e.kind == "skip"] == [3, 2]
    assert game.to_act() == (1,)
    assert game.view(None)["suit"] == "H"


def test_multi_play_is_off_by_default() -> None:
    hands = [
        ["JS", "JH", "5C", "6C", "8C", "9C", "10C"],
        ["3H", "4H", "5H", "6H", "8H", "KD", "QD"],
    ]
    game = new_game(hands, "9S", dealer=1)
    with pytest.raises(IllegalAction):
        game.check(0, Play((card("JS"), card("JH"))))


# --------------------------------------------------------------------------- wire


def test_wire_round_trip_and_malformed_actions() -> None:
    game = new_game(TWO, "5H")
    for action in [Play((card("7S"),), Suit.HEARTS), Play((card("5C"),)), Draw(), Call()]:
        assert game.parse_action(action.to_wire()) == action
    assert Play((card("7S"),), Suit.HEARTS).to_wire() == {
        "type": "play",
        "cards": ["7S"],
        "suit": "H",
    }
    bad: list[object] = [
        None,
        [],
        {"type": "pass"},
        {"type": "play"},
        {"type": "play", "cards": []},
        {"type": "play", "cards": ["ZZ"]},
        {"type": "play", "cards": [7]},
        {"type": "play", "cards": ["7S"]},
        {"type": "play", "cards": ["7S"], "suit": "X"},
        {"type": "play", "cards": ["5C"], "suit": "H"},
        {"type": "play", "cards": ["5C", "5C"]},
        {"type": "play", "cards": ["5C"], "extra": 1},
        {"type": "draw", "cards": ["5C"]},
        {"type": "draw", 1: "x", "cards": []},  # keys of mixed types (msgpack allows them)
        {"type": "call", None: 1, "suit": "H"},
    ]
    for wire in bad:
        with pytest.raises(InvalidAction):
            game.parse_action(wire)


def test_views_hide_other_hands_and_the_stock() -> None:
    game = new_game(TWO, "5H")
    spectator = game.view(None)
    assert spectator["seat"] is None and spectator["hand"] is None and spectator["legal"] == []
    assert spectator["hand_counts"] == [7, 7]
    for seat in (0, 1, None):
        assert view_leaks(game, seat) == set()
    assert game.view(1)["legal"][-1] == {"type": "draw"}
    assert game.view(0)["legal"] == []


# --------------------------------------------------------------------------- playouts


OPTION_SETS = [
    dict(
        zip(
            (
                "direction",
                "defence",
                "play_after_attack",
                "multi_play",
                "attack_cap",
                "ranking",
                "must_play_if_able",
            ),
            combo,
            strict=True,
        ),
        bankrupt_at=(20, 0, 8)[i % 3],
    )
    for i, combo in enumerate(
        itertools.product(
            ("counter-clockwise", "clockwise"),
            ("match", "any", "escalate"),
            (True, False),
            (False, True),
            (0, 20),
            (False, True),
            (False, True),
        )
    )
]


@pytest.mark.parametrize("index", range(len(OPTION_SETS)))
def test_every_option_combination_keeps_invariants_and_ends(index: int) -> None:
    options = OPTION_SETS[index]
    seats = 2 + index % 7
    checked = playout(
        OneCard, seats=seats, rng=random.Random(index), options=options, check=True, max_steps=30
    )
    assert checked.steps == 30 or checked.outcome is not None
    full = playout(OneCard, seats=seats, rng=random.Random(1000 + index), options=options)
    assert full.outcome is not None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=st.sampled_from(OPTION_SETS),
    seats=st.integers(2, 8),
    seed=st.integers(0, 2**32),
)
def test_random_playouts_keep_every_invariant(
    options: dict[str, object], seats: int, seed: int
) -> None:
    result = playout(
        OneCard, seats=seats, rng=random.Random(seed), options=options, check=True, max_steps=3000
    )
    assert result.outcome is not None  # the turn limit guarantees an end
    assert result.game.view(None)["phase"] == "over"


@settings(max_examples=40, deadline=None)
@given(options=st.sampled_from(OPTION_SETS), seats=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_garbage_actions_are_rejected_with_typed_errors(
    options: dict[str, object], seats: int, seed: int
) -> None:
    rng = random.Random(seed)
    probed = rejected = 0

    def fuzz(game: object, seat: int, action: object, events: object) -> None:
        nonlocal probed, rejected
        assert isinstance(game, OneCard)
        target = rng.randrange(game.seats)
        wires = [a.to_wire() for a in game.legal_actions(target)]
        for _ in range(2):
            found = probe(game, target, garbage_wire(rng, wires))
            probed += 1
            rejected += found is None

    result = playout(OneCard, seats=seats, rng=rng, options=options, on_step=fuzz, max_steps=300)
    assert probed == 2 * result.steps
    assert rejected > 0 or result.steps < 5


def test_rejected_actions_change_nothing() -> None:
    rng = random.Random(11)
    game = OneCard(seats=3, dealer=0)
    game.apply_chance(list(DECK_54))
    deck = Counter(game.all_cards())
    snapshot = game.view(None)
    for _ in range(300):
        wire = garbage_wire(rng, [a.to_wire() for a in game.legal_actions(0)])
        for seat in range(3):
            try:
                action = game.parse_action(wire)
                game.check(seat, action)
            except RulesError:
                continue
            game.apply(seat, action)
            break
        else:
            assert game.view(None) == snapshot
            continue
        snapshot = game.view(None)
    check_invariants(game, deck)


def test_docstring_examples() -> None:
    import doctest

    result = doctest.testmod(one_card_engine)
    assert result.attempted >= 5 and result.failed == 0
