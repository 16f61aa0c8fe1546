"""Asking the host why a held card cannot be played (``explain``), from the terminal and --json.

The front ends are driven with a table client that has no session (their decisions only);
one test runs the table loop against a host on the mock clock, end to end."""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Callable
from typing import Any

import trio
import trio.testing

import protocol.table_messages as tm
from client import table_loop
from client.human_ui import HumanUI
from client.intents import ActIntent, ExplainIntent
from client.json_ui import JsonUI
from client.render import make_console
from client.table_client import TableClient
from protocol.cards import parse_card

VIEW = {
    "game": "black-jack",
    "hand": ["QS", "9H", "KC"],
    "top": "10C",
    "suit": "C",
    "hand_counts": [5, 3],
    "stock": 20,
}
PLAY_9H = {"type": "play", "cards": ["9H"]}
PLAY_QS = {"type": "play", "cards": ["QS"]}


def _explained(reason: str, *, blunder: bool, action: dict[str, Any] | None) -> tm.Explained:
    card = parse_card("QS")
    return tm.Explained(table="t1", card=card, reason=reason, blunder=blunder, action=action)


def test_a_held_card_that_is_no_move_asks_the_host_why(
    human_ui: Callable[..., Any], table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client(names=("Ann", "Bob"))
    push_state(tc, VIEW, [PLAY_9H, {"type": "draw"}], (1,))
    ui.on_push(tc, tc.state, [])  # type: ignore[arg-type]
    assert ui.on_line(tc, "qs") == ExplainIntent("QS")
    before = out.getvalue()  # the host's answer is the one line said about it
    assert ui.on_line(tc, "AD") is None  # not held: the client says so, nothing to ask
    assert "you do not hold A♦" in out.getvalue()  # cards as the hand shows them
    ui.on_explained(
        tc, _explained("QS matches neither rank 10 nor suit C", blunder=False, action=None)
    )
    assert out.getvalue().endswith("Q♠ matches neither rank 10 nor suit C\nYour move: ")
    assert out.getvalue()[len(before) :].count("Q♠") == 1  # before, the client's own came too
    ui.on_explained(tc, _explained("out of turn: it is seat 0's turn", blunder=False, action=None))
    assert out.getvalue().endswith("Q♠: out of turn: it is Ann's turn\nYour move: ")  # names
    ui.on_explained(tc, _explained("", blunder=False, action=None))  # only with other cards
    assert "Q♠ goes down now only together with other cards: t shows your moves" in out.getvalue()


def test_a_blunder_the_host_offers_is_played_only_on_yes(
    human_ui: Callable[..., Any], table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client(names=("Ann", "Bob"))
    push_state(tc, VIEW, [PLAY_9H, {"type": "draw"}], (1,))
    ui.on_push(tc, tc.state, [])  # type: ignore[arg-type]
    reason = "QS matches neither rank 10 nor suit C (played anyway: a blunder, pick up 2)"
    assert ui.on_line(tc, "QS") == ExplainIntent("QS")
    ui.on_explained(tc, _explained(reason, blunder=True, action=PLAY_QS))
    assert out.getvalue().endswith("Play Q♠ anyway, as a blunder? [y/N] ")
    assert ui.on_line(tc, "n") is None
    assert out.getvalue().endswith("Q♠ stays in your hand\nYour move: ")
    assert ui.on_line(tc, "1") == ActIntent(PLAY_9H)  # the question is gone: lines are moves again
    assert ui.on_line(tc, "QS") == ExplainIntent("QS")
    ui.on_explained(tc, _explained(reason, blunder=True, action=PLAY_QS))
    assert ui.on_line(tc, "y") == ActIntent(PLAY_QS)


def _moved_on(tc: TableClient, seq: int) -> tm.StatePush:
    assert tc.state is not None
    tc.state = dataclasses.replace(tc.state, seq=seq)
    return tc.state


def test_a_blunder_offer_lapses_when_the_game_moves_on(
    human_ui: Callable[..., Any], table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    """A review found the question outliving its turn: the next move typed answered it (and
    was lost), or a y played an out-of-turn blunder in turn, at another cost."""
    ui, out = human_ui()
    tc = table_client(names=("Ann", "Bob"))
    push_state(tc, VIEW, [PLAY_9H, {"type": "draw"}], (1,))
    ui.on_push(tc, tc.state, [])  # type: ignore[arg-type]
    assert ui.on_line(tc, "QS") == ExplainIntent("QS")
    ui.on_explained(tc, _explained("why (a blunder)", blunder=True, action=PLAY_QS))
    event = tm.EventPush(table="t1", seq=6, event={"kind": "play", "seat": 0, "cards": ["5S"]})
    ui.on_push(tc, event, [])  # someone moved: another situation, said before any re-ask
    assert "the blunder offer lapsed" in out.getvalue()
    assert out.getvalue().count("Play Q♠ anyway, as a blunder? [y/N]") == 1
    ui.on_push(tc, _moved_on(tc, 6), [])
    assert ui.on_line(tc, "1") == ActIntent(PLAY_9H)  # a move again, not an answer
    assert ui.on_line(tc, "QS") == ExplainIntent("QS")
    _moved_on(tc, 7)  # the answer comes after the game moved on: no offer
    ui.on_explained(tc, _explained("why (a blunder)", blunder=True, action=PLAY_QS))
    assert "moved on since you asked" in out.getvalue()
    assert ui.on_line(tc, "y") is None


def test_out_of_turn_a_held_card_asks_the_host_instead_of_nothing_to_do(
    human_ui: Callable[..., Any], table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    ui, out = human_ui()
    tc = table_client(names=("Ann", "Bob"))
    push_state(tc, VIEW, [], (0,))
    ui.on_push(tc, tc.state, [])  # type: ignore[arg-type]
    assert ui.on_line(tc, "QS") == ExplainIntent("QS")
    assert ui.on_line(tc, "hello") is None
    assert "Nothing to do right now" in out.getvalue()


def test_the_json_client_asks_with_a_command_and_prints_the_answer(
    table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    out = io.StringIO()
    ui = JsonUI(out)
    tc = table_client(names=("Ann", "Bob"))
    push_state(tc, VIEW, [PLAY_9H], (1,))
    assert ui.on_line(tc, json.dumps({"cmd": "explain", "card": "qs"})) == ExplainIntent("QS")
    assert ui.on_line(tc, json.dumps({"cmd": "explain", "card": "ZZ"})) is None
    ui.on_explained(tc, _explained("no", blunder=True, action=PLAY_QS))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert "card" in lines[0]["message"]
    assert lines[1] == {
        "type": "explained",
        "table": "t1",
        "card": "QS",
        "reason": "no",
        "blunder": True,
        "action": PLAY_QS,
    }


class _Session:
    def __init__(self) -> None:
        self.push_send, self.pushes = trio.open_memory_channel[Any](8)
        self.closed = trio.Event()
        self.closed_reason = ""


class _AskingTable:
    """The parts of TableClient the loop uses, answering ``explain`` from a script."""

    def __init__(self) -> None:
        self.session = _Session()
        self.table_id, self.seat, self.outcome = "t1", 1, None
        self.asked: list[str] = []

    async def explain(self, card: str) -> tm.Explained:
        self.asked.append(card)
        return _explained("because", blunder=False, action=None)


class _AskingUI:
    def __init__(self) -> None:
        self.answers: list[tm.Explained] = []

    def on_line(self, tc: object, line: str, **_: Any) -> ExplainIntent:
        return ExplainIntent(line)

    def on_explained(self, tc: object, reply: tm.Explained) -> None:
        self.answers.append(reply)


async def test_the_table_loop_sends_the_question_and_hands_the_answer_to_the_ui(
    monkeypatch: Any,
) -> None:
    table, ui = _AskingTable(), _AskingUI()

    async def one_line(send: trio.MemorySendChannel[Any], _ui: object = None) -> None:
        await send.send(table_loop._Item("line", "QS"))

    monkeypatch.setattr(table_loop, "read_lines", one_line)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table_loop.run_table, table, ui)
            while not ui.answers:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert table.asked == ["QS"] and ui.answers[0].reason == "because"


def test_the_hosts_refusal_shows_its_cards_as_the_hand_does(
    human_ui: Callable[..., Any], table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    """Before, "The host refused play Q♠: you do not hold QS" mixed two notations."""
    ui, out = human_ui()
    tc = table_client(names=("Ann", "Bob"))
    push_state(tc, VIEW, [PLAY_9H, {"type": "draw"}], (1,))
    ui.on_refused(tc, PLAY_QS, "you do not hold QS")
    assert "The host refused play Q♠: you do not hold Q♠" in out.getvalue()
    ascii_out = io.StringIO()
    ascii_ui = HumanUI(make_console(file=ascii_out), ascii_only=True)  # the player's choice
    ascii_ui.on_refused(tc, PLAY_QS, "you do not hold QS")
    assert "you do not hold QS" in ascii_out.getvalue() and "♠" not in ascii_out.getvalue()
