"""client/human_ui.py on its own, fed host states directly: the wild suit choice, the One Card
call, joker declarations, bad entries, chat, leaving, and the prompts."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from rich.console import Console

import protocol.table_messages as tm
from client.human_ui import HumanUI
from client.intents import ActIntent, ChatIntent, ExplainIntent, LeaveIntent
from client.json_ui import JsonUI
from client.render import OutputClosed, make_console
from client.screen import Screen
from client.table_client import TableClient
from net.fairplay import FairKind, FairNotice

SEVENS = [{"type": "play", "cards": ["7S"], "suit": s} for s in "SHDC"]


VIEW = {
    "game": "one-card",
    "hand": ["7S", "9H", "KC"],
    "top": "7D",
    "suit": "D",
    "hand_counts": [5, 3, 4],
    "direction": "clockwise",
    "stock": 20,
}


def test_a_wild_suit_choice_is_asked_as_numbered_options(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    text = out.getvalue()
    assert "Your hand: 1)7♠  9♥  K♣" in text and "d) draw" in text and "Your move: " in text
    assert ui.on_line(tc, "7s") is None  # the seven stands for four actions: ask which
    asked = out.getvalue()
    assert "1) play 7♠ naming ♠ spades" in asked and "4) play 7♠ naming ♣ clubs" in asked
    assert ui.on_line(tc, "9") is None and "type a number from 1 to 4" in out.getvalue()
    assert ui.on_line(tc, "2") == ActIntent({"type": "play", "cards": ["7S"], "suit": "H"})


def test_the_one_card_call_is_one_key_when_it_matters(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client()
    view = {**VIEW, "call_window": {"holder": 0, "target": 1}}
    ui.on_push(tc, push_state(tc, view, [{"type": "call"}], [2]), [])
    assert 'Press c + Enter to call "One Card!"' in out.getvalue()
    assert "Your move" not in out.getvalue()  # not our turn: no table redraw
    assert ui.on_line(tc, "c") == ActIntent({"type": "call"})
    ui.on_push(tc, push_state(tc, VIEW, [], [2]), [])  # the window closed
    assert "Nothing to do right now (waiting for Cy)" in _said(ui, tc, "1", out)


def test_joker_declarations_and_runs_are_offered_by_the_host_list(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client()
    legal = [
        {"type": "play", "cards": ["JR"], "declare": ["6D"]},
        {"type": "play", "cards": ["JR"], "declare": ["6H"]},
        {"type": "play", "cards": ["6D", "7D", "8D"]},
        {"type": "play", "cards": ["6D"], "say": "last_card"},
        {"type": "declare", "what": "last_card"},
    ]
    view = {"game": "black-jack", "hand": ["6D", "7D", "8D", "JR"], "top": "6C"}
    ui.on_push(tc, push_state(tc, view, legal, [1]), [])
    assert 'l) declare "last card"' in out.getvalue()
    ui.on_line(tc, "2")
    assert "play Joker(R) with the joker as 6♥" in out.getvalue()
    ui.on_line(tc, "x")
    ui.on_line(tc, "1")
    assert 'play 6♦ and say "last card"' in out.getvalue()
    assert ui.on_line(tc, "2") == ActIntent({"type": "play", "cards": ["6D"], "say": "last_card"})


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("zz", "not understood: 'zz'"),
        ("9H", ""),  # a held card that is no move: the host's answer is the one line said
        ("QS", "you do not hold Q♠"),  # the card as the hand shows cards
        ("7", "there is no move 7"),
        ("?", "Type the number of a move"),
        ("c", "no One Card call to make now"),
    ],
)
def test_bad_entries_say_what_was_wrong(
    typed: str,
    said: str,
    table_client: Callable[..., Any],
    push_state: Callable[..., Any],
    human_ui: Callable[..., Any],
) -> None:
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    before = out.getvalue()
    asked = ui.on_line(tc, typed)  # a held card that is no move asks the host why
    assert asked == (ExplainIntent("9H") if typed == "9H" else None)
    assert said in out.getvalue()[len(before) :]
    assert (out.getvalue() == before) is (typed == "9H")


def test_quit_and_chat(table_client: Callable[..., Any], human_ui: Callable[..., Any]) -> None:
    ui, _ = human_ui()
    tc = table_client()
    assert ui.on_line(tc, "say hello all") == ChatIntent("hello all")
    assert ui.on_line(tc, "q") == LeaveIntent()


def test_q_in_the_middle_of_a_game_asks_first(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """A stray "q" used to end the game at once (with `play`, for good)."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [{"type": "draw"}], [0]), [])
    assert ui.on_line(tc, "q") is None
    assert "Leave in the middle of the game?" in out.getvalue()
    assert ui.on_line(tc, "n") is None and "staying at the table" in out.getvalue()
    assert ui.on_line(tc, "q") is None
    assert ui.on_line(tc, "y") == LeaveIntent(give_up=True)
    tc.outcome = {"termination": "went_out", "winners": [0]}  # the game is over: at once
    assert ui.on_line(tc, "q") == LeaveIntent()
    watcher = table_client()
    watcher.seat = None
    push_state(watcher, VIEW, [], [0])
    assert ui.on_line(watcher, "quit") == LeaveIntent()


def _said(ui: HumanUI, tc: TableClient, typed: str, out: io.StringIO) -> str:
    before = len(out.getvalue())
    assert ui.on_line(tc, typed) is None
    return out.getvalue()[before:]


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("say " + "x" * 600, "chat not sent: too long (600 characters, at most 500)"),
        ("say   ", "nothing to say"),
        ("say", "nothing to say"),
        ("say a\tb", "chat not sent: it contains control characters"),
    ],
)
def test_a_chat_line_the_protocol_forbids_is_not_sent(
    typed: str, said: str, table_client: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, these lines went to the loop, whose message validation ended the client."""
    ui, out = human_ui()
    assert said in _said(ui, table_client(), typed, out)


class _ClosedPipe(io.StringIO):
    """An output whose reader has gone away."""

    def write(self, s: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_terminal_is_not_a_network_error() -> None:
    """Before, the BrokenPipeError (an OSError) reached ``play``, which reported
    "network error: Broken pipe"."""
    ui = HumanUI(make_console(file=_ClosedPipe()))
    with pytest.raises(OutputClosed):
        ui.prompt("Your move: ")


def test_the_move_prompt_is_asked_again_after_other_lines(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, "Your move:" was printed once; after a typing mistake or the "reconnected" line
    the screen ended with that line and looked stuck."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    assert out.getvalue().endswith("Your move: ")
    assert _said(ui, tc, "zz", out).endswith(
        "not understood: 'zz'; type a number, a card code like 7S, or a letter shown\nYour move: "
    )
    assert _said(ui, tc, "?", out).endswith("Your move: ")
    ui.info("connection lost (reset); reconnecting", kind="disconnected")
    ui.info("reconnected: seat 1 resumed as Bob", kind="reconnected")
    assert out.getvalue().endswith("reconnected: seat 1 resumed as Bob\nYour move: ")
    chat = tm.ChatLine(table="t1", seat=0, name="Ann", text="hurry up")
    ui.on_push(tc, chat, [])
    assert out.getvalue().endswith("[chat] Ann: hurry up\nYour move: ")
    ui.on_push(tc, tm.ChatLine(table="t1", seat=None, name="Sam", text="go on"), [])
    assert out.getvalue().endswith("[chat] Sam (watching): go on\nYour move: ")
    assert ui.on_line(tc, "7s") is None  # a follow-up question stands in its turn
    assert _said(ui, tc, "9", out).endswith("or x to cancel\nOption 1-4 (x to cancel): ")
    assert _said(ui, tc, "x", out) == "cancelled; pick another move\nYour move: "
    before = len(out.getvalue())
    # answered: no prompt until the host says
    assert ui.on_line(tc, "d") == ActIntent({"type": "draw"})
    ui.info("hand 1 record: valid")
    assert out.getvalue()[before:] == "hand 1 record: valid\n"


def test_no_move_prompt_when_it_is_not_our_turn(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    ui.on_push(tc, push_state(tc, VIEW, [], [2]), [])  # the turn passed (a timer)
    ui.info("reconnected: seat 1 resumed as Bob", kind="reconnected")
    assert "Your move" not in _said(ui, tc, "zz", out)
    assert out.getvalue().endswith(
        "reconnected: seat 1 resumed as Bob\nNothing to do right now (waiting for Cy)\n"
    )


def test_help_and_letters_follow_what_the_host_offers_now(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, ``?`` always listed "c call One Card" and typing ``c`` without a call to make
    said "not understood: 'c'"."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    helped = _said(ui, tc, "?", out)
    assert "or a letter: d draw." in helped and 'c call "One' not in helped
    assert "no One Card call to make now" in _said(ui, tc, "c", out)
    assert "you cannot pass now" in _said(ui, tc, "p", out)
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS], [1]), [])
    helped = _said(ui, tc, "?", out)
    assert "letter" not in helped and "you cannot draw now" in _said(ui, tc, "d", out)
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "call"}], [1]), [])
    assert 'or a letter: c call "One Card!".' in _said(ui, tc, "?", out)


PLAY_SEATED = "One Card: Ann at seat 0 of 2"


def test_only_a_person_is_told_which_keys_to_type_once_seated(human_ui: Callable[..., Any]) -> None:
    """Before, ``--json`` clients were told to type move numbers and ``?`` for help."""
    out = io.StringIO()
    JsonUI(out).info(PLAY_SEATED, kind="seated", table="t1", seat=0)
    JsonUI(out).info("Seated at table t1, seat 1, as Bob; ready", kind="seated")
    play, join = (json.loads(line)["message"] for line in out.getvalue().splitlines())
    assert play == "One Card: Ann at seat 0 of 2" and join.endswith("as Bob; ready")
    ui, shown = human_ui()
    ui.info(PLAY_SEATED, kind="seated")
    ui.info("Seated at table t1, seat 1, as Bob; ready", kind="seated")
    assert shown.getvalue().count("? for help") == 2


@pytest.mark.parametrize(
    ("game", "said"),
    [
        ("black-jack", "a run in one suit (6♦ 7♦ 8♦) whose first card matches"),
        ("black-jack", "A play that leaves you so says it for you"),
        ("one-card", "Calling it on yourself makes the next player draw a penalty card"),
        ("one", "a bidder who takes fewer than the bid scores 0 for the hand"),
        ("one", "First to 30 points wins the match"),
    ],
)
def test_help_describes_the_moves_of_the_game_at_hand(
    game: str,
    said: str,
    table_client: Callable[..., Any],
    push_state: Callable[..., Any],
    human_ui: Callable[..., Any],
) -> None:
    """Before, ``?`` in Black Jack said nothing about runs, jokers or "last card", and in ONE
    nothing of the scoring a bid is judged by: ``?`` now gives the host's guide to the game."""
    ui, out = human_ui()
    tc = table_client()
    view = {**VIEW, "game": game, "options": {"target": 30}}
    ui.on_push(tc, push_state(tc, view, [{"type": "draw"}], [1]), [])
    assert said in _said(ui, tc, "?", out)


def test_a_leave_question_lapses_when_the_game_ends_before_the_answer(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, the question outlived its game: "y" went to "Play again?" and the next game's
    first move was swallowed as "staying at the table"."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [{"type": "draw"}], [0]), [])
    assert ui.on_line(tc, "q") is None  # asked to confirm
    over = tm.GameOver(
        table="t1", seq=9, game_no=1, outcome={"termination": "went_out", "winners": [0]}
    )
    tc.outcome = dict(over.outcome)
    ui.on_push(tc, over, [])
    assert "you are still at the table" in out.getvalue()
    tc.outcome = None
    ui.on_push(tc, push_state(tc, VIEW, [{"type": "draw"}], [1]), [])
    assert ui.on_line(tc, "d") == ActIntent({"type": "draw"})  # a move again, not an answer


def test_the_verdict_line_says_where_the_proof_is_saved(human_ui: Callable[..., Any]) -> None:
    """Before, only the record's path was ever shown; the proof bundle's never."""
    ui, out = human_ui()
    proof = Path("/state/proofs/t1-hand2.json")
    verdict = FairNotice(
        FairKind.VERIFIED, 2, "deal verified: 9 cards you saw checked", "56b6-a629", 9, proof
    )
    ui._fair(verdict)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].endswith(f"· proof {proof}")


@pytest.mark.parametrize(
    ("command", "fate"),
    [
        ("play", "the game ends here (its host ran in this command)"),
        ("join", "your seat waits for you (onecard join takes it back)"),
    ],
)
def test_ctrl_c_and_ctrl_d_in_a_game_say_what_becomes_of_the_seat(
    command: str, fate: str, table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    """Before, Ctrl-C and Ctrl-D left a game without a word while q asked first."""
    out = io.StringIO()
    ui = HumanUI(make_console(file=out), command=command)
    tc = table_client()
    assert ui.interrupt_note() is None  # no game yet: nothing to say
    ui.on_push(tc, push_state(tc, VIEW, [{"type": "draw"}], [0]), [])
    note = ui.interrupt_note()
    assert note is not None and note.startswith("Interrupted: " + fate)
    ui.end(tc, "end of input")
    assert "End of input: " + fate in out.getvalue()


def test_leaving_and_stopping_watching_say_so(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [{"type": "draw"}], [0]), [])
    ui.end(tc, "you left the table")
    assert "You left the table: the host's bot plays your seat to the end" in out.getvalue()
    watcher, shown = human_ui()
    tc = table_client()
    tc.seat = None
    watcher.end(tc, "you left the table")
    assert shown.getvalue().strip() == "You stopped watching table t1"


def test_the_block_says_the_connection_is_down_and_counts_to_the_next_try(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, the block kept "▶ Your turn (91 s left)" while the client reconnected."""
    ui, _ = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    block = ui._status()
    assert block is not None and "Your turn" in block.plain
    ui.info("connection lost (reset); reconnecting", kind="disconnected")
    block = ui._status()
    assert block is not None and "Your turn" not in block.plain and "Moves:" not in block.plain
    assert block.plain.endswith("Disconnected: connection lost (reset); reconnecting")
    text = "trying again in 5 s to resume your seat (try 3; Ctrl-C stops)"
    ui.info(text, kind="reconnecting", attempt=3, wait=5.0)
    block = ui._status()
    assert block is not None
    found = r"Disconnected: trying again in [45] s to resume your seat \(try 3"
    assert re.search(found, block.plain)
    ui.info("reconnected: seat 1 resumed as Bob", kind="reconnected")
    block = ui._status()
    assert block is not None and "Your turn" in block.plain


def test_a_move_the_timer_played_asks_nothing_more(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, a stray "Your move:" followed the line of the move the host's bot played when
    the turn timer ran out: event lines asked again before the state said the turn was over."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    assert out.getvalue().endswith("Your move: ")
    played = {"kind": "play", "seat": 1, "cards": ["7S"]}  # the timer ran out: the bot played
    ui.on_push(tc, tm.EventPush(table="t1", seq=6, event=played), [])
    assert out.getvalue().endswith("\n") and not out.getvalue().endswith("Your move: ")
    ui.on_push(tc, push_state(tc, VIEW, [], [0]), [])
    assert "Your move: " not in out.getvalue().rpartition("Your move: ")[2]
    assert not out.getvalue().endswith("Your move: ")


async def test_plain_lines_say_the_time_left_as_it_runs_out(
    autojump_clock: trio.testing.MockClock,
    table_client: Callable[..., Any],
    push_state: Callable[..., Any],
    human_ui: Callable[..., Any],
) -> None:
    """Before, "Your move (119 s left):" was all a pipe or --ascii ever said of the timer."""
    ui, out = human_ui()
    tc = table_client()
    state = push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1])
    ui.on_push(tc, dataclasses.replace(state, turn_ms=30_500), [])
    assert out.getvalue().endswith("Your move (30 s left): ")
    ui.clock.start(35_000, now=time.monotonic() - 5.0)  # as if 5 s of a 35 s turn went by
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ui._remind)
        await trio.sleep(1.5)
        nursery.cancel_scope.cancel()
    assert out.getvalue().endswith("Your move (30 s left): \n30 s left for your move\nYour move: ")


def test_a_rematch_opens_the_table_screen_again(table_client: Callable[..., Any]) -> None:
    """Before, the block closed at the end of game 1 and game 2 after "Play again? y" fell
    back to plain lines, for play and join alike."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, color_system="standard")
    ui = HumanUI(console)
    read, write = os.pipe()  # (no terminal: the screen's cbreak mode is skipped)
    ui.screen = Screen(console, ui._status, fd=read)  # (stdin is no terminal under pytest)
    tc = table_client()
    ui.screen.open()
    ui.screen.reading = True  # (as Screen.read_lines sets it)
    tc.outcome = {"winners": [0]}
    ui.end(tc, "game over")
    assert not ui.on_screen
    tc.outcome = None
    ui.on_push(
        tc, tm.GameStart(table="t1", seq=9, game_no=2, game="one-card", names=("A", "B")), []
    )
    assert ui.on_screen and "Game 2 starts" in out.getvalue()
    ui.screen.reading = False
    os.close(read)
    os.close(write)


def test_a_resumed_turn_says_the_time_really_left(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, "Your move (119 s left):" stood after a resume with 63 s left: the fresh state
    offered the same moves, so nothing was said again."""
    ui, out = human_ui()
    tc = table_client()
    state = push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1])
    ui.on_push(tc, dataclasses.replace(state, turn_ms=119_500), [])
    assert out.getvalue().endswith("Your move (119 s left): ")
    ui.info("reconnected: seat 1 resumed as Bob", kind="reconnected")
    ui.on_push(tc, dataclasses.replace(state, turn_ms=63_400), [])  # the state after resumed
    assert out.getvalue().endswith("\n63 s left for your move\nYour move: ")
    before = out.getvalue()
    ui.on_push(tc, dataclasses.replace(state, turn_ms=63_000), [])  # the same clock: quiet
    assert out.getvalue() == before


def test_the_call_hint_is_said_for_every_window(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, a window that closed during our turn left the hint marked as said, so the next
    window (the same call, another player down to one card) said nothing."""
    ui, out = human_ui()
    tc = table_client()
    hint = 'Press c + Enter to call "One Card!"'
    first = {**VIEW, "call_window": {"holder": 0, "target": 1}}
    ui.on_push(tc, push_state(tc, first, [{"type": "call"}], [2]), [])
    assert out.getvalue().count(hint) == 1
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])  # our turn: closed
    ui.on_push(tc, push_state(tc, first, [{"type": "call"}], [2]), [])  # Ann down to one again
    assert out.getvalue().count(hint) == 2
    second = {**VIEW, "call_window": {"holder": 2, "target": 0}}  # at once Cy's window
    ui.on_push(tc, push_state(tc, second, [{"type": "call"}], [0]), [])
    assert out.getvalue().count(hint) == 3
    ui.on_push(tc, push_state(tc, second, [{"type": "call"}], [0]), [])  # the same window
    assert out.getvalue().count(hint) == 3


def test_the_call_hint_is_said_on_our_own_turn_too(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, a window that opened on our turn said no hint (only another's turn did)."""
    ui, out = human_ui()
    tc = table_client()
    view = {**VIEW, "call_window": {"holder": 0, "target": 1}}
    ui.on_push(tc, push_state(tc, view, [*SEVENS, {"type": "draw"}, {"type": "call"}], [1]), [])
    said = out.getvalue()
    assert said.count('Press c + Enter to call "One Card!"') == 1 and "Your move" in said
    ui.on_push(tc, push_state(tc, view, [{"type": "call"}], [2]), [])  # our turn over, same window
    assert out.getvalue().count("Press c + Enter") == 1


def test_a_follow_up_question_goes_when_the_turn_passes(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, the "Choose: 7S" options stayed in the bottom block after the timer played for
    the seat, and the next turn's number answered the stale question."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    assert ui.on_line(tc, "7s") is None  # asks which suit
    block = ui._status()
    assert block is not None and "Choose:" in block.plain
    ui.on_push(tc, push_state(tc, VIEW, [], [2]), [])  # the timer played for us
    assert "the turn passed before the choice was answered" in out.getvalue()
    block = ui._status()
    assert block is not None and "Choose:" not in block.plain
    ui.on_push(tc, push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1]), [])
    assert out.getvalue().endswith("Your move: ")
    assert ui.on_line(tc, "d") == ActIntent({"type": "draw"})
