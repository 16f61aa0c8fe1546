"""The table screen's status block (client/status.py), as snapshots a person reads: each game
on our turn and on another's with a turn timer, a seat away and one a bot plays, a follow-up
question, and the block after the game (tests/data/render/status-blocks.txt)."""

from __future__ import annotations

import dataclasses
import io
import os
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import protocol.table_messages as tm
from client.choices import build_menu
from client.status import Status, status_block
from host.games import find_game, game_names

DATA = Path(__file__).parent.parent / "data" / "render"
REGEN = os.environ.get("ONECARD_REGEN_RENDER") == "1"
NAMES = ["Ann", "Bob", "Cy"]


def _seat(seat: int, **state: Any) -> dict[str, Any]:
    return {
        "seat": seat,
        "name": NAMES[seat],
        "bot": None,
        "connected": True,
        "ready": True,
        "substitute": False,
        **state,
    }


def _status(game: str, steps: int, **extra: Any) -> Status:
    """The status of seat 1 after the first legal action was played ``steps`` times."""
    engine: Any = find_game(game).new_initial_state(seats=3, dealer=0)
    engine.apply_chance(list(engine.chance_request().cards))
    for _ in range(steps):
        while engine.chance_request() is not None:
            engine.apply_chance(list(engine.chance_request().cards))
        seat = engine.to_act()[0]
        legal = [a.to_wire() for a in engine.legal_actions(seat)]
        pick = next((a for a in legal if a["type"] == "play"), legal[0])
        engine.apply(seat, engine.parse_action(pick))
    to_act = tuple(engine.to_act())
    legal = [a.to_wire() for a in engine.legal_actions(1)] if 1 in to_act else []
    view = engine.view(1)
    state = tm.StatePush(
        table="t1",
        seq=1,
        game_no=1,
        phase="playing",
        seat=1,
        view=view,
        legal=tuple(legal),
        to_act=to_act,
        turn_ms=None,
    )
    info = tm.TableInfo(
        table="t1",
        name="t",
        game=game,
        options={},
        phase="playing",
        seats=(_seat(0), _seat(1), _seat(2, connected=False)),
        game_no=1,
        spectators=0,
        turn_timer=None,
        voids=0,
    )
    return Status(NAMES, 1, "t1", state, info, build_menu(view, legal), **extra)


def test_status_blocks() -> None:
    console = Console(record=True, width=80, file=io.StringIO(), highlight=False, markup=False)

    def show(title: str, status: Status) -> None:
        console.print(f"#### {title}")
        console.print(status_block(status, ascii_only=False, width=79, height=24))

    for game in game_names():
        mine = next(s for s in range(12) if 1 in _status(game, s).state.to_act)  # type: ignore[union-attr]
        show(f"{game}: our turn", _status(game, mine))
        theirs = next(s for s in range(mine, 20) if 1 not in _status(game, s).state.to_act)  # type: ignore[union-attr]
        show(f"{game}: another's turn, 12 s left", _status(game, theirs, seconds_left=12.4))
        show(f"{game}: game over", _status(game, theirs, over=True))
    status = _status("one-card", 0)
    assert status.info is not None
    seats = (
        _seat(0, connected=False, substitute=True),
        _seat(1),
        _seat(2, connected=False, away_ms=52_000),
    )
    info = dataclasses.replace(status.info, seats=seats)
    left = Status(NAMES, 1, "t1", status.state, info, status.menu, info_age=9.6)
    show("one-card: Ann left (a bot plays), Cy away (52 s of grace left 9.6 s ago)", left)
    sevens = _status("one-card", 1)  # our turn
    assert sevens.state is not None
    view = {
        "game": "one-card",
        "hand": ["7S", "9H"],
        "top": "7D",
        "suit": "D",
        "hand_counts": [5, 2, 4],
        "direction": "counter-clockwise",
        "stock": 30,
    }
    legal = [{"type": "play", "cards": ["7S"], "suit": s} for s in "SHDC"]
    state = dataclasses.replace(sevens.state, view=view, legal=tuple(legal))
    menu = build_menu(view, [*legal, {"type": "draw"}])
    show(
        "a follow-up question",
        Status(NAMES, 1, "t1", state, sevens.info, menu, pending=menu.choices[0]),
    )
    show("before the game", Status(NAMES, 1, "t1", None, sevens.info))
    text = console.export_text()
    path = DATA / "status-blocks.txt"
    if REGEN or not path.exists():
        path.write_text(text, encoding="utf-8")
        if not REGEN:
            pytest.fail(f"wrote missing snapshot {path}; run again")
    assert text == path.read_text(encoding="utf-8"), f"{path} differs (ONECARD_REGEN_RENDER=1)"
