"""Each game's normal-level player (its ``strategy`` module) on positions with a clear answer."""

from __future__ import annotations

from host.bots.policy import heuristic_choice
from host.games.black_jack import strategy as black_jack
from host.games.one import strategy as one
from host.games.one.strategy import bid_value
from host.games.one_card import strategy as one_card
from protocol.cards import parse_card

DRAW = {"type": "draw"}


def _play(*cards: str, **extra: object) -> dict[str, object]:
    return {"type": "play", "cards": list(cards), **extra}


def test_one_card_goes_out_when_it_can() -> None:
    view = {"seat": 0, "hand": ["5H", "2H"], "hand_counts": [2, 6], "damage": 0}
    legal = [_play("2H"), _play("5H"), DRAW]
    assert one_card.choose({**view, "hand": ["5H"]}, [_play("5H"), DRAW]) == _play("5H")
    assert one_card.choose(view, legal) == _play("5H")  # the attack card is kept for defence


def test_one_card_keeps_its_attack_cards_for_defence() -> None:
    view = {"seat": 0, "hand": ["5H", "2H", "JR"], "hand_counts": [3, 6], "damage": 0}
    legal = [_play("2H"), _play("JR"), _play("5H"), DRAW]
    assert one_card.choose(view, legal) == _play("5H")
    assert one_card.choose(view, [_play("2H"), DRAW]) == _play("2H")  # rather than draw
    faced = {**view, "damage": 3, "target": 0}
    assert one_card.choose(faced, [_play("2H"), _play("JR"), DRAW]) == _play("JR")  # the most


def test_one_card_attacks_hardest_when_it_bankrupts_the_next_player() -> None:
    view = {
        "seat": 0,
        "hand": ["AH", "2H", "9H", "9D"],
        "hand_counts": [4, 14],
        "damage": 0,
        "direction": "clockwise",
        "options": {"bankrupt_at": 17},
    }
    legal = [_play("2H"), _play("AH"), _play("9H"), DRAW]
    assert one_card.choose(view, legal) == _play("AH")  # 14 + 3 cards reach 17 (2H: 16)


def test_one_card_keeps_a_seven_for_when_nothing_else_plays() -> None:
    view = {"seat": 0, "hand": ["7H", "9S", "4D"], "hand_counts": [3, 5], "damage": 0}
    legal = [_play("7H", suit="S"), _play("9S"), DRAW]
    assert one_card.choose(view, legal) == _play("9S")
    assert one_card.choose(view, [_play("7H", suit="S"), _play("7H", suit="C"), DRAW]) == (
        _play("7H", suit="S")  # names the suit the rest of the hand holds most of
    )


def test_one_bids_a_strong_hand_and_passes_a_weak_one() -> None:
    strong = ["AS", "KS", "QS", "JS", "10S"]
    weak = ["9H", "10D", "9C", "10C", "9D"]
    legal = [{"type": "bid", "value": 6}, {"type": "bid", "value": 7}, {"type": "pass"}]
    view = {"game": "one", "seats": 2, "phase": "auction"}
    assert bid_value([parse_card(c) for c in strong], 2) > bid_value(
        [parse_card(c) for c in weak], 2
    )
    assert one.choose({**view, "hand": weak}, legal) == {"type": "pass"}
    chosen = one.choose({**view, "hand": [*strong, "JK"]}, legal)
    assert chosen == {"type": "bid", "value": 6}  # the lowest bid, never more than needed


def test_one_takes_a_trick_with_points_and_throws_cheap_on_one_it_cannot_take() -> None:
    view = {
        "game": "one",
        "seats": 2,
        "hand": ["AS", "9S", "KH"],
        "trump": "H",
        "no_trump": False,
        "ranking": "uptown",
        "trick": {"cards": [{"seat": 1, "card": "QS"}], "led": "S", "leader": 1},
    }
    legal = [{"type": "play", "card": c} for c in ("AS", "9S")]
    assert one.choose(view, legal) == {"type": "play", "card": "AS"}
    lost = {**view, "hand": ["10S", "9S"]}
    legal = [{"type": "play", "card": c} for c in ("10S", "9S")]
    assert one.choose(lost, legal) == {"type": "play", "card": "9S"}


def test_black_jack_passes_a_pick_up_on_rather_than_cancelling_or_taking_it() -> None:
    view = {"seat": 0, "hand": ["2C", "JH", "5S"], "hand_counts": [3, 7], "pending": 2}
    legal = [_play("JH"), _play("2C"), DRAW]
    assert black_jack.choose(view, legal) == _play("2C")
    assert black_jack.choose(view, [_play("JH"), DRAW]) == _play("JH")


def test_black_jack_keeps_counters_and_aces_until_they_are_needed() -> None:
    view = {"seat": 0, "hand": ["2S", "AS", "6S", "9D"], "hand_counts": [4, 7], "pending": 0}
    legal = [_play("2S"), _play("AS", suit="D"), _play("6S"), DRAW]
    assert black_jack.choose(view, legal) == _play("6S")
    close = {**view, "hand_counts": [4, 2]}
    assert black_jack.choose(close, legal) == _play("2S")  # a rival is about to go out


def test_black_jack_leaves_a_card_the_next_player_is_unlikely_to_follow() -> None:
    # 7D on top, the 7H or the 7C to play: the same but for the suit the next player must follow
    clubs = ["3C", "4C", "5C", "6C", "8C", "9C", "10C", "KC"]
    hearts = ["3H", "4H", "5H", "6H", "8H", "9H", "10H", "KH"]
    view = {
        "seat": 0,
        "seats": 3,
        "options": {"jokers": 0, "decks": "auto"},
        "hand": ["7H", "7C", "4S"],
        "hand_counts": [3, 2, 6],
        "pending": 0,
    }
    legal = [_play("7H"), _play("7C"), DRAW]
    # most clubs are on the pile: the next player (2 cards) likely holds none
    assert black_jack.choose({**view, "discards": [*clubs, "7D"]}, legal) == _play("7C")
    assert black_jack.choose({**view, "discards": [*hearts, "7D"]}, legal) == _play("7H")
    # with two players the turn comes straight back: no play is preferred for it (the first)
    two = {**view, "seats": 2, "hand_counts": [3, 2], "discards": [*clubs, "7D"]}
    assert black_jack.choose(two, legal) == _play("7H")


def test_black_jack_counts_a_hand_in_plays_a_run_of_one_suit_once_and_a_joker_half() -> None:
    def left(*codes: str) -> float:
        return black_jack.plays_left([parse_card(c) for c in codes])

    assert left() == 0
    assert left("4S", "5S", "6S") == 1  # one run
    assert left("4S", "6S") == 2  # a gap breaks it
    assert left("4S", "5H") == 2  # so does a change of suit
    assert left("AS", "2S", "KS") == 2  # the ace is low: K A is no run
    assert left("KS", "AH") == 2  # nor across suits (their indexes 12 and 13 are neighbours)
    assert left("4S", "4S", "5S") == 1  # a second deck's twin joins its run
    assert left("JR", "JB", "9D") == 2  # each joker half a play
    assert left("JR", "QC", "KC", "AC", "2C") == 2.5


def test_black_jack_counts_a_hand_a_queens_cover_can_finish_as_one_play() -> None:
    def needed(*codes: str) -> float:
        return black_jack.plays_needed([parse_card(c) for c in codes])

    assert needed("QS", "9D") == 1  # the queen, then the 9D as its cover
    assert needed("10H", "JH", "QH", "4C", "5C") == 1  # the run ends on the queen
    assert needed("QS", "9D", "4C") == 3  # one cover: the 4C needs a turn of its own
    assert needed("4S", "9D") == 2  # no queen: as plays_left counts it


def test_black_jack_goes_out_through_a_queen_and_its_cover() -> None:
    # 5D on top: the queen, covered by the 3D (any card covers a queen), goes out this turn;
    # the 3D alone would leave the queen, which cannot be a last card, though every other
    # diamond and 3 is on the pile, so the next player (1 card) could not follow it
    seen = ["AD", "2D", "4D", "6D", "7D", "8D", "9D", "10D", "JD", "KD", "3S", "3H", "3C", "5D"]
    view = {
        "seat": 0,
        "seats": 4,
        "options": {"jokers": 0, "decks": "auto"},
        "hand": ["3D", "QD"],
        "hand_counts": [2, 1, 5, 5],
        "declared": [True, False, False, False],
        "discards": seen,
        "pending": 0,
    }
    legal = [_play("3D"), _play("QD"), DRAW]
    assert black_jack.choose(view, legal) == _play("QD")


def test_black_jack_keeps_a_queen_for_the_finish() -> None:
    # 7S on top: the 5S leaves QS 9D, which goes out in one turn (the queen covered by the 9D)
    view = {"seat": 0, "hand": ["QS", "5S", "9D"], "hand_counts": [3, 5], "pending": 0}
    legal = [_play("QS"), _play("5S"), DRAW]
    assert black_jack.choose(view, legal) == _play("5S")
    # and with more to shed the queen still waits: the 5S sheds as much and keeps the queen
    more = {**view, "hand": ["QS", "5S", "9D", "4C"], "hand_counts": [4, 5]}
    assert black_jack.choose(more, legal) == _play("5S")


def test_black_jack_goes_out_only_having_declared() -> None:
    view = {"seat": 0, "hand": ["4S", "5S"], "hand_counts": [2, 5], "pending": 0}
    legal = [_play("4S", "5S"), _play("4S"), DRAW]
    assert black_jack.choose({**view, "declared": [True, False]}, legal) == _play("4S", "5S")
    assert black_jack.choose({**view, "declared": [False, False]}, legal) == _play("4S")


def test_the_policy_asks_the_games_strategy_and_keeps_calls_first() -> None:
    view = {"game": "one-card", "seat": 0, "hand": ["5H"], "hand_counts": [1, 6], "damage": 0}
    assert heuristic_choice(view, [{"type": "call"}, _play("5H"), DRAW]) == {"type": "call"}
    assert heuristic_choice(view, [_play("5H"), DRAW]) == _play("5H")
