"""The move prompt at the terminal (HumanUI), fed host states directly: one question at a time
(a leave question, our own chat line), words and letters as answers, refusals that say what is
on offer and echo a bad line cut short, menus that fit the terminal; and the JSON channel's
answer to a command without "cmd". (Found in a tester's session at the terminal.)"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest

import protocol.table_messages as tm
from client.choices import canonical_hand
from client.human_ui import HumanUI
from client.intents import ActIntent, ChatIntent, ExplainIntent, LeaveIntent
from client.json_ui import JsonUI
from client.table_client import TableClient


def _said(ui: HumanUI, tc: TableClient, typed: str, out: io.StringIO) -> str:
    before = len(out.getvalue())
    assert ui.on_line(tc, typed) is None
    return out.getvalue()[before:]


VIEW = {
    "game": "one-card",
    "hand": ["7S", "9H", "KC"],
    "top": "7D",
    "suit": "D",
    "hand_counts": [5, 3, 4],
    "direction": "clockwise",
    "stock": 20,
}


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("play", "The game ends here"),
        ("join", "The host's bot takes your seat and plays it to the end"),
    ],
)
def test_the_leave_question_is_the_only_prompt_until_answered(
    command: str,
    words: str,
    table_client: Callable[..., Any],
    push_state: Callable[..., Any],
    human_ui: Callable[..., Any],
) -> None:
    """Before, "Your move: " followed the question, so y/n was typed at a move prompt."""
    ui, out = human_ui(command)
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [{"type": "draw"}], [1]), [])
    asked = _said(ui, tc, "q", out)
    assert asked.endswith("[y/N] ") and "Your move" not in asked and words in asked
    assert "LAN host" not in asked and "a game of play" not in asked
    ui.on_push(tc, tm.ChatLine(table="t1", seat=0, name="Ann", text="hm"), [])
    assert out.getvalue().endswith("[chat] Ann: hm\n" + ui.leave_question)
    assert _said(ui, tc, "n", out).endswith("staying at the table\nYour move: ")
    assert ui.on_line(tc, "q") is None
    assert ui.on_line(tc, "y") == LeaveIntent(give_up=True)


DOWNTOWN = [{"type": "downtown", "switch": False}, {"type": "downtown", "switch": True}]
ONE_VIEW = {"game": "one", "hand": ["9S", "KH"], "phase": "downtown", "hand_counts": [2, 2, 2]}


@pytest.mark.parametrize(
    ("typed", "switch"), [("uptown", False), ("Downtown", True), ("STAY", False), ("1", False)]
)
def test_a_choice_can_be_typed_as_a_word_of_its_label(
    typed: str,
    switch: bool,
    table_client: Callable[..., Any],
    push_state: Callable[..., Any],
    human_ui: Callable[..., Any],
) -> None:
    """Before, only the numbers worked: "downtown" was "not understood"."""
    ui, _ = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, ONE_VIEW, DOWNTOWN, [1]), [])
    assert ui.on_line(tc, typed) == ActIntent({"type": "downtown", "switch": switch})


def test_help_mentions_the_words_of_the_moves_on_offer(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, ONE_VIEW, DOWNTOWN, [1]), [])
    assert "or a word of the move: uptown, downtown" in _said(ui, tc, "?", out)


def test_c_in_black_jack_names_its_own_declaration(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, Black Jack answered c with "no One Card call to make now"."""
    ui, out = human_ui()
    tc = table_client()
    view = {"game": "black-jack", "hand": ["6D", "9S"], "top": "6C", "hand_counts": [2, 2, 2]}
    ui.on_push(
        tc, push_state(tc, view, [{"type": "play", "cards": ["6D"]}, {"type": "draw"}], [1]), []
    )
    said = _said(ui, tc, "c", out)
    assert "One Card call" not in said and '"last card"' in said and "l after your turn" in said


def test_a_card_that_is_no_move_says_what_is_on_offer(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, ONE's auction said "pick a numbered card" where no card had a number."""
    ui, out = human_ui()
    tc = table_client()
    view = {"game": "one", "hand": ["9S", "KH"], "phase": "auction", "hand_counts": [2, 2, 2]}
    bids = [{"type": "bid", "value": v} for v in range(7, 16)]
    ui.on_push(tc, push_state(tc, view, [*bids, {"type": "pass"}], [1]), [])
    assert ui.on_line(tc, "9S") == ExplainIntent("9S")  # the host says why (test_explain), alone
    ui.on_push(tc, push_state(tc, ONE_VIEW, DOWNTOWN, [1]), [])
    said = _said(ui, tc, "bid 9", out)
    assert "no bid to make now: 1 uptown or 2 downtown" in said
    assert "numbered card" not in out.getvalue()


def test_a_long_line_not_understood_is_echoed_cut_short(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, a 5000-character line came back whole."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [{"type": "draw"}], [1]), [])
    said = _said(ui, tc, "z" * 5000, out)
    assert f"not understood: '{'z' * 40}...'" in said and len(said) < 200


def test_a_json_command_without_cmd_says_so(table_client: Callable[..., Any]) -> None:
    """Before: "unknown command None"."""
    out = io.StringIO()
    JsonUI(out).on_line(table_client(), '{"nocmd": 1}')
    said = json.loads(out.getvalue())["message"]
    assert said == 'missing "cmd" (act, explain, chat, state, quit)'
    out = io.StringIO()
    JsonUI(out).on_line(table_client(), json.dumps({"cmd": "x" * 5000}))
    assert len(json.loads(out.getvalue())["message"]) < 100


def test_our_own_chat_line_is_followed_by_the_prompt_not_preceded(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, "say hi" printed an empty "Your move: " and the echoed line came after it."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [{"type": "draw"}], [1]), [])
    before = len(out.getvalue())
    assert ui.on_line(tc, "say hi") == ChatIntent("hi")
    ui.on_push(tc, tm.ChatLine(table="t1", seat=1, name="Bob", text="hi"), [])
    assert out.getvalue()[before:] == "[chat] Bob: hi\nYour move: "
    assert ui.on_line(tc, "say no") == ChatIntent("no")
    ui.info("chat not sent: slow down", kind="error")  # refused: the prompt comes back too
    assert out.getvalue().endswith("chat not sent: slow down\nYour move: ")


def test_a_narrow_terminal_gets_a_fitting_rule_and_lists_broken_between_items(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, at 40 columns the rule wrapped and "2) switch to downtown" broke inside."""
    ui, out = human_ui(width=40, height=30)
    tc = table_client()
    view = {**ONE_VIEW, "hand": ["9S", "KH", "10D", "JC", "QS", "AH", "7C", "8D", "9D", "10C"]}
    legal = [{"type": "draw"}, {"type": "pass"}, *DOWNTOWN]
    ui.on_push(tc, push_state(tc, view, legal, [1]), [])
    lines = out.getvalue().splitlines()
    assert all(len(line) <= 40 for line in lines), lines
    assert lines[0].startswith("── ONE ──") and len(lines[0]) == 40
    text = "\n".join(lines)
    for item in ("1) stay uptown", "2) switch to downtown (9 high)", "10♣", "d) draw"):
        assert item in text


def test_a_long_list_of_options_is_shown_in_columns_that_fit_the_screen(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, 65 options (Black Jack with chain=on) took 65 rows of a 30-row terminal."""
    ui, out = human_ui(width=80, height=30)
    tc = table_client()
    view = {"game": "black-jack", "hand": ["JR", "9S"], "top": "6C", "hand_counts": [2, 2, 2]}
    legal = [
        {"type": "play", "cards": ["JR"], "declare": [f"{rank}{suit}"]}
        for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
        for suit in "SHDC"
    ] + [{"type": "play", "cards": ["JR"], "declare": [c]} for c in ("AS", "AH", "AD")]
    assert len(legal) == 55
    ui.on_push(tc, push_state(tc, view, legal, [1]), [])
    shown = _said(ui, tc, "1", out)
    assert len(shown.splitlines()) <= 30 - 3, shown
    assert "Each option: play Joker(R) with the joker as ..." in shown
    assert "1) A♠" in shown and "55) A♦" in shown
    assert shown.endswith("Option 1-55 (x to cancel): ")
    assert ui.on_line(tc, "55") == ActIntent(legal[54])


def test_a_bid_typed_after_the_auction_asks_before_it_plays_a_card(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Issue 16: bids (7-15) and card numbers (1-8) overlap in ONE, so a bid typed a beat late
    played a card. Now the first such number after the auction is asked about; typed again, it
    plays; once a move is made numbers are moves."""
    ui, out = human_ui()
    tc = table_client()
    # in canonical order, as a host's view gives a hand
    hand = canonical_hand(
        [f"{r}{s}" for r in ("9", "10", "J", "Q", "K", "A") for s in ("S", "H")][:9]
    )
    auction = {"game": "one", "hand": hand, "phase": "auction", "hand_counts": [9, 9, 9]}
    bids = [{"type": "bid", "value": v} for v in range(7, 16)]
    ui.on_push(tc, push_state(tc, auction, [*bids, {"type": "pass"}], [1]), [])
    assert ui.on_line(tc, "9") == ActIntent({"type": "bid", "value": 9})
    play = {**auction, "phase": "play"}
    plays = [{"type": "play", "card": c} for c in hand]
    ui.on_push(tc, push_state(tc, play, [], [0]), [])  # the auction is over: seat 0 leads
    ui.on_push(tc, push_state(tc, play, plays, [1]), [])
    said = _said(ui, tc, "9", out)
    assert "the auction is over: 9 now plays move 9 (a card); type 9 again to play it" in said
    assert ui.on_line(tc, "9") == ActIntent(plays[8])
    assert ui.on_line(tc, "8") == ActIntent(plays[7])  # no question once a move was made


def test_d_in_one_says_the_game_has_no_drawing(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, ONE answered d with One Card's "you cannot draw now", as if later it could."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, ONE_VIEW, DOWNTOWN, [1]), [])
    said = _said(ui, tc, "d", out)
    assert "ONE has no drawing" in said and "cannot draw now" not in said
