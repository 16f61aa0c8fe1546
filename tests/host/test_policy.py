"""Bot policies choose from the legal actions using only the seat's view."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

from host.bots import policy
from host.bots.policy import (
    call_to_make,
    call_types,
    choose,
    features,
    heuristic_choice,
    passive_types,
    random_choice,
    with_say,
)
from host.games import find_bot, game_names


def test_no_legal_action_means_no_choice() -> None:
    assert heuristic_choice({"game": "one-card"}, []) is None
    assert random_choice([]) is None


def test_random_choice_is_one_of_the_legal_actions() -> None:
    legal = [{"type": "draw"}, {"type": "play", "cards": ["7S"], "suit": "H"}]
    rng = random.Random(4)
    assert all(choose("random", {}, legal, rng=rng) in legal for _ in range(20))


def test_calls_come_first_but_never_twice_in_a_row() -> None:
    legal = [{"type": "draw"}, {"type": "call"}]
    assert heuristic_choice({"game": "one-card"}, legal) == {"type": "call"}
    assert heuristic_choice({"game": "one-card"}, legal, last={"type": "call"}) == {"type": "draw"}


def test_a_black_jack_bot_declares_only_a_hand_that_could_go_out() -> None:
    """A private table offers the declaration in every window (its host cannot see the hand):
    the bot makes it only when its hand could go out next turn, as a normal table offers it."""
    declare = {"type": "declare", "declaration": "cards"}
    legal = [declare]
    view = {"game": "black-jack", "seat": 0, "hand_counts": [2, 6], "to_act": [1]}
    assert heuristic_choice({**view, "hand": ["5H", "9C"]}, legal) is None
    assert heuristic_choice({**view, "hand": ["5H", "6H"]}, legal) == declare
    assert heuristic_choice({**view, "hand": ["QH", "9C"]}, legal) == declare  # a queen covered
    assert heuristic_choice({**view, "hand": None}, legal) == declare  # no hand to judge by
    turn = [{"type": "draw"}, declare]
    assert heuristic_choice({**view, "hand": ["5H", "9C"], "to_act": [0]}, turn) == {"type": "draw"}


def test_a_black_jack_play_listed_without_say_goes_with_the_declaration_its_hand_needs() -> None:
    """A private table lists Black Jack's plays without ``say`` (its host cannot see what a
    play leaves): the bot adds the one a normal table would list, so it declares with the play
    instead of in a request of its own that the next seat can beat; then it does not declare
    again in the window after."""
    declare = {"type": "declare", "what": "cards"}
    view = {"game": "black-jack", "seat": 0, "hand_counts": [3, 6], "to_act": [0]}
    five = {"type": "play", "cards": ["5H"]}
    nine = {"type": "play", "cards": ["9C"]}
    assert with_say({**view, "hand": ["5H", "6H", "7H"]}, five) == {**five, "say": "cards"}
    assert with_say({**view, "hand": ["5H", "7H", "9C"]}, five) == five  # 7H, 9C: two turns
    assert with_say({**view, "hand": ["5H", "9C"]}, five) == {**five, "say": "last_card"}
    assert with_say({**view, "hand": ["5H"]}, five) == five  # going out says nothing
    assert with_say({**view, "hand": ["9C"]}, five) == five  # not a play of this hand
    assert with_say({**view, "hand": ["5H", "XX"]}, five) == five  # a code that is no card
    lower = {"type": "play", "cards": ["5h"]}  # cards compared as cards, not as spellings
    assert with_say({**view, "hand": ["5H", "9S", "TS"]}, lower) == {**lower, "say": "cards"}
    assert with_say({**view, "hand": ["5H", "9C"]}, {**five, "say": "cards"})["say"] == "cards"
    hand = ["5H", "9C", "10C"]  # it cannot go out yet: no declaration before its play
    chosen = heuristic_choice({**view, "hand": hand}, [{"type": "draw"}, declare, five])
    assert chosen == {**five, "say": "cards"}  # 9C, 10C left: a run
    after = {**view, "hand": ["9C", "10C"], "to_act": [1]}
    assert call_to_make(after, [declare], last=chosen) is None  # declared with the play
    assert call_to_make(after, [declare], last=nine) == declare  # a play that did not say it
    assert with_say({"game": "one-card", "hand": ["5H", "9C"]}, five) == five  # no such call


def test_one_card_plays_beat_draws_and_attacks_and_kings_go_first() -> None:
    """One Card's normal bot sheds rather than draws, keeps its attack cards for defence when
    another card plays (issue 28), and plays a king (another turn) first."""
    legal = [
        {"type": "draw"},
        {"type": "play", "cards": ["2H"]},
        {"type": "play", "cards": ["5H"]},
    ]
    calm = {"game": "one-card", "seat": 0, "hand": ["2H", "5H", "9C"], "hand_counts": [3, 6]}
    assert heuristic_choice(calm, legal) == {"type": "play", "cards": ["5H"]}
    assert heuristic_choice(calm, legal[:2]) == {"type": "play", "cards": ["2H"]}  # not draw
    kings = [{"type": "play", "cards": ["5H"]}, {"type": "play", "cards": ["KH"]}]
    assert heuristic_choice({**calm, "hand": ["5H", "KH"]}, kings) == kings[1]
    sevens = [{"type": "play", "cards": ["7S"], "suit": "H"}, {"type": "play", "cards": ["5H"]}]
    assert heuristic_choice({**calm, "hand": ["7S", "5H"]}, sevens) == sevens[1]  # keep the 7


def test_black_jack_counters_wait_for_a_low_opponent() -> None:
    legal = [
        {"type": "draw"},
        {"type": "play", "cards": ["2H"]},
        {"type": "play", "cards": ["5H"]},
    ]
    calm = {"game": "black-jack", "seat": 0, "hand": ["2H", "5H", "9C"], "hand_counts": [3, 6]}
    assert heuristic_choice(calm, legal) == {"type": "play", "cards": ["5H"]}
    urgent = {**calm, "hand_counts": [3, 1]}
    assert heuristic_choice(urgent, legal) == {"type": "play", "cards": ["2H"]}


def test_seven_names_the_suit_held_most() -> None:
    view = {"game": "one-card", "seat": 0, "hand": ["7S", "3D", "5D", "9D"], "hand_counts": [4, 5]}
    legal = [{"type": "play", "cards": ["7S"], "suit": s} for s in "SHDC"]
    assert heuristic_choice(view, legal) == {"type": "play", "cards": ["7S"], "suit": "D"}


def test_one_bids_with_high_cards_and_passes_without() -> None:
    legal = [{"type": "pass"}, *({"type": "bid", "value": v} for v in range(8, 16))]
    strong = {
        "game": "one",
        "seats": 2,
        "hand": ["JR", "AS", "AH", "KS", "KH", "QS", "QH", "JS", "AD", "KD", "QD", "JD"],
    }
    weak = {
        "game": "one",
        "seats": 2,
        "hand": ["9S", "9H", "10S", "10H", "9D", "10D", "9C", "10C", "JC", "QC", "JH", "QD"],
    }
    assert heuristic_choice(strong, legal) == {"type": "bid", "value": 8}
    assert heuristic_choice(weak, legal) == {"type": "pass"}


def test_black_jack_plays_announce_the_last_card() -> None:
    view = {"game": "black-jack", "seat": 0, "hand": ["5H", "9C"], "hand_counts": [2, 6]}
    legal = [
        {"type": "draw"},
        {"type": "play", "cards": ["5H"]},
        {"type": "play", "cards": ["5H"], "say": "last_card"},
    ]
    assert heuristic_choice(view, legal) == {"type": "play", "cards": ["5H"], "say": "last_card"}


def test_what_a_bot_knows_of_a_game_is_the_games_own_declaration() -> None:
    """Before, the policy tested game names and listed call types no engine has ("one_card",
    "knock", "pick_up", "cover_draw")."""
    source = Path(policy.__file__).read_text("utf-8")
    assert not re.search(r'"(one-card|black-jack|one)"', source)
    for name in game_names():
        assert features({"game": name}) is find_bot(name)
    assert {"call", "declare"} == call_types() and {"draw", "pass"} == passive_types()


def test_a_game_the_host_does_not_run_is_played_without_card_knowledge() -> None:
    view = {"game": "snap", "seat": 0, "hand": ["2H", "7S"], "hand_counts": [2, 1]}
    legal = [{"type": "draw"}, {"type": "call"}, {"type": "play", "cards": ["2H"]}]
    assert heuristic_choice(view, legal) == {"type": "call"}  # every game's calls still count
    assert heuristic_choice(view, legal, last={"type": "call"}) == legal[2]
    assert features(view).attack == frozenset() and features({}).passive == passive_types()


def test_one_switches_downtown_with_more_nines_and_tens_than_aces_and_kings() -> None:
    legal = [{"type": "downtown", "switch": False}, {"type": "downtown", "switch": True}]
    low = {"game": "one", "hand": ["9S", "10S", "9H", "AS"]}
    assert heuristic_choice(low, legal) == legal[1]
    assert heuristic_choice({**low, "hand": ["9S", "AS", "KH"]}, legal) == legal[0]


def test_importing_the_policy_loads_no_game() -> None:
    """The registry loads a game when it is first asked for; the policy must not defeat that
    (it once built every game's call types at import)."""
    code = (
        "import sys, host.bots.policy\n"
        "print(sorted(m for m in sys.modules if m.startswith(('host.games.one', "
        "'host.games.black_jack'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
