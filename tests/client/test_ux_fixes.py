"""Fixes from a tester's session at the terminal: one prompt at a time, plain wording, watch
mode that stops on q, words as answers, short refusals, layouts that fit the terminal."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console

import protocol.table_messages as tm
from client.fairplay import TableClient
from client.frontends import HumanUI
from client.render import make_console
from client.table_loop import Quit


def _tc(seat: int = 1) -> TableClient:
    tc = TableClient(None, table_id="t1", name="Bob")  # type: ignore[arg-type]
    tc.seat, tc.names = seat, ["Ann", "Bob", "Cy"]
    return tc


def _state(
    tc: TableClient, view: dict[str, Any], legal: list[dict[str, Any]], to_act: list[int]
) -> tm.StatePush:
    state = tm.StatePush(
        table="t1", seq=5, game_no=1, phase="playing", seat=tc.seat, view=view,
        legal=tuple(legal), to_act=tuple(to_act), turn_ms=None,
    )  # fmt: skip
    tc.state = state
    return state


def _human(command: str = "join", **console: Any) -> tuple[HumanUI, io.StringIO]:
    out = io.StringIO()
    if console:
        con = Console(file=out, highlight=False, markup=False, emoji=False, **console)
        return HumanUI(con, command=command), out
    return HumanUI(make_console(file=out), command=command), out


def _said(ui: HumanUI, tc: TableClient, typed: str, out: io.StringIO) -> str:
    before = len(out.getvalue())
    assert ui.on_line(tc, typed) is None
    return out.getvalue()[before:]


VIEW = {"game": "one-card", "hand": ["7S", "9H", "KC"], "top": "7D", "suit": "D",
        "hand_counts": [5, 3, 4], "direction": "clockwise", "stock": 20}  # fmt: skip


@pytest.mark.parametrize(
    ("command", "words"),
    [("play", "The game ends here"), ("join", "run onecard join again to take your seat back")],
)
def test_the_leave_question_is_the_only_prompt_until_answered(command: str, words: str) -> None:
    """Before, "Your move: " followed the question, so y/n was typed at a move prompt."""
    ui, out = _human(command)
    tc = _tc()
    ui.on_push(tc, _state(tc, VIEW, [{"type": "draw"}], [1]), [])
    asked = _said(ui, tc, "q", out)
    assert asked.endswith("[y/N] ") and "Your move" not in asked and words in asked
    assert "LAN host" not in asked and "a game of play" not in asked
    ui.on_push(tc, tm.ChatLine(table="t1", seat=0, name="Ann", text="hm"), [])
    assert out.getvalue().endswith("[chat] Ann: hm\n" + ui.leave_question)
    assert _said(ui, tc, "n", out).endswith("staying at the table\nYour move: ")
    assert ui.on_line(tc, "q") is None
    with pytest.raises(Quit):
        ui.on_line(tc, "y")
