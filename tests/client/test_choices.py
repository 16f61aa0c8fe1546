"""The menu built from the host's legal list: keys, what a typed line resolves to."""

from __future__ import annotations

from typing import Any

from client.choices import build_menu

AUCTION: list[dict[str, Any]] = [{"type": "pass"}] + [
    {"type": "bid", "value": v} for v in range(9, 16)
]


def test_a_bare_number_in_the_auction_is_the_bid() -> None:
    """Before, the bids were numbered 1) bid 7 ... 9) bid 15, so typing 9 bid 15."""
    menu = build_menu({"game": "one", "hand": ["AS", "KS"]}, AUCTION)
    assert "p) pass   9) bid 9   10) bid 10" in menu.render(ascii_only=True).plain
    for typed in ("9", "bid 9", "b9"):
        found = menu.resolve(typed)
        assert not isinstance(found, str) and found.actions == [{"type": "bid", "value": 9}]
    assert menu.resolve("7") == "there is no move 7: bid 9 to 15 (type the bid), or p to pass"
    assert not isinstance(found := menu.resolve("p"), str) and found.actions == [{"type": "pass"}]


def test_a_bid_too_low_or_out_of_the_auction_is_explained() -> None:
    """Before, ``bid 7`` under the lowest bid said "not understood", like a typo."""
    menu = build_menu({"game": "one", "hand": ["AS", "KS"]}, AUCTION)
    assert menu.resolve("bid 7") == "no bid of 7 now: bid 9 to 15, or p to pass"
    tricks = build_menu({"game": "one", "hand": ["AS"]}, [{"type": "play", "card": "AS"}])
    assert isinstance(said := tricks.resolve("bid 9"), str) and said.startswith("no bid to make")


def test_drawing_instead_of_covering_a_queen_says_one_card() -> None:
    """Before, a Black Jack seat covering its own queen on a pending pick-up was offered "draw
    5 (take the pick-up)" and drew one: the pick-up waits for the next seat."""
    view = {"game": "black-jack", "hand": ["3D"], "pending": 5, "cover": True}
    menu = build_menu(view, [{"type": "draw"}])
    assert "d) draw 1 (instead of covering the queen)" in menu.render(ascii_only=True).plain
    view = {**view, "cover": False}
    menu = build_menu(view, [{"type": "draw"}])
    assert "d) draw 5 (take the pick-up)" in menu.render(ascii_only=True).plain


def test_cards_keep_their_position_numbers() -> None:
    menu = build_menu({"hand": ["9S", "KS"]}, [{"type": "play", "card": "KS"}])
    found = menu.resolve("1")
    assert not isinstance(found, str) and found.card == "KS"


def test_help_in_the_auction_says_the_number_is_the_bid() -> None:
    from client.help import help_text

    text = help_text(build_menu({"game": "one"}, AUCTION))
    assert text.startswith("Type the number of a move: a bid is its own number, 9 to 15")
    assert "p pass" in text


def test_a_number_with_no_numbered_move_says_what_there_is() -> None:
    """Before: "there is no move 99; pick one of the numbers shown" when none were shown."""
    menu = build_menu({"game": "one-card", "hand": ["AS", "KS"]}, [{"type": "draw"}])
    said = menu.resolve("99")
    assert isinstance(said, str) and said.startswith("there is no move 99: ")
    assert "numbers shown" not in said and "draw" in said


def test_a_private_table_hand_is_shown_and_numbered_in_canonical_order() -> None:
    """A private table's state lists our cards in the order of their positions (the shuffle's):
    before, the hand was shown and numbered in that random order; now as at a normal table."""
    view = {"game": "one-card", "hand": ["KC", "2D", "8S", "JR", "4D"]}
    plays = [{"type": "play", "cards": [c]} for c in ("KC", "4D", "JR")]
    menu = build_menu(view, [*plays, {"type": "draw"}])
    assert menu.render(ascii_only=True).plain.startswith("Your hand: 8S  2D  1)4D  2)KC  3)JR")
    found = menu.resolve("2")
    assert not isinstance(found, str) and found.actions == [{"type": "play", "cards": ["KC"]}]
