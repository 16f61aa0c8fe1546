"""What a spectator at the terminal sees (HumanUI fed host states directly): the table redrawn
each time the turn passes, and the last game's outcome told once to one who arrives after it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import protocol.table_messages as tm
from client.table_client import TableClient


def _watching() -> TableClient:
    tc = TableClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
    tc.seat, tc.names = None, ["Ann", "Bob", "Cat"]
    return tc


def _watched(phase: str, to_act: tuple[int, ...], game_no: int = 1, **view: Any) -> tm.StatePush:
    shown = {
        "game": "one-card",
        "top": "7D",
        "suit": "D",
        "hand_counts": [5, 3, 4],
        "direction": "clockwise",
        "stock": 20,
        "hand_no": 1,
        **view,
    }
    return tm.StatePush(
        table="t1",
        seq=5,
        game_no=game_no,
        phase=phase,
        seat=None,
        view=shown,
        legal=(),
        to_act=to_act,
        turn_ms=None,
    )


def test_a_spectator_s_table_is_redrawn_once_each_time_the_turn_passes(
    human_ui: Callable[..., Any],
) -> None:
    """Before, a watcher's table was drawn once per hand and its turn marker went stale."""
    ui, out = human_ui()
    tc = _watching()
    for to_act in ((1,), (1,), (2,), (2,), (0,)):
        ui.on_push(tc, _watched("playing", to_act), [])
    markers = [line.split()[1] for line in out.getvalue().splitlines() if "▶" in line]
    assert markers == ["Bob", "Cat", "Ann"]


def test_a_spectator_new_to_a_finished_table_is_told_the_last_outcome_once(
    human_ui: Callable[..., Any],
) -> None:
    """Before, a watcher arriving between games saw the seats and chat, not who had won."""
    ui, out = human_ui()
    tc = _watching()
    finished = _watched("finished", (), outcome={"winners": [2], "scores": None})
    ui.on_push(tc, finished, [])
    ui.on_push(tc, finished, [])  # a second state (say, after a chat): said once
    told = [x for x in out.getvalue().splitlines() if "Last game" in x]
    assert told == ["Last game: Cat wins! Cards left: Ann 5, Bob 3, Cat 4"]
    ui, out = human_ui()  # a watcher who saw game 1 played hears of its end from game_over only
    ui.on_push(tc, _watched("playing", (0,)), [])
    ui.on_push(tc, finished, [])
    assert "Last game" not in out.getvalue()
