"""client/json_ui.py on its own: the objects it prints for pushes and the commands it reads."""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import protocol.table_messages as tm
from client.intents import ActIntent, ChatIntent, LeaveIntent
from client.json_ui import JsonUI
from client.render import OutputClosed
from host.games import find_game

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


def test_json_commands_and_events(
    table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    out = io.StringIO()
    ui, tc = JsonUI(out), table_client()
    state = push_state(tc, VIEW, [*SEVENS, {"type": "draw"}], [1])
    ui.on_push(tc, state, [])
    ui.on_push(
        tc, tm.EventPush(table="t1", seq=6, event={"kind": "play", "seat": 0, "cards": ["QH"]}), []
    )
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["type"] == "state" and first["my_turn"] is True and first["legal"][0] == SEVENS[0]
    assert second["type"] == "event" and second["seq"] == 6 and second["text"] == "Ann plays QH"
    assert second["event"] == {"kind": "play", "seat": 0, "cards": ["QH"]}
    assert ui.on_line(tc, '{"cmd": "act", "index": 4}') == ActIntent({"type": "draw"})
    assert ui.on_line(tc, '{"cmd": "act", "action": {"type": "call"}}') == ActIntent(
        {"type": "call"}
    )
    assert ui.on_line(tc, '{"cmd": "chat", "text": "hi"}') == ChatIntent("hi")
    for bad in ("nope", "[1]", '{"cmd": "act", "index": 9}', '{"cmd": "dance"}'):
        assert ui.on_line(tc, bad) is None
    errors = [json.loads(line) for line in out.getvalue().splitlines()][2:]
    assert [e["type"] for e in errors] == ["error"] * 4
    assert ui.on_line(tc, '{"cmd": "quit"}') == LeaveIntent()
    assert ui.on_line(tc, '{"cmd": "leave"}') == LeaveIntent(give_up=True)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"cmd": "chat", "text": ""}', "nothing to say"),
        ('{"cmd": "chat", "text": "' + "x" * 501 + '"}', "too long (501 characters, at most 500)"),
        ('{"cmd": "chat", "text": "a\\u0007"}', "it contains control characters"),
        ('{"cmd": "chat", "text": 7}', "chat needs a 'text' string"),
        ('{"cmd": "chat"}', "chat needs a 'text' string"),
        ("[" * 100_000, "not JSON: nested too deeply"),
    ],
)
def test_json_commands_the_protocol_forbids_are_errors(
    line: str, said: str, table_client: Callable[..., Any]
) -> None:
    out = io.StringIO()
    ui, tc = JsonUI(out), table_client()
    assert ui.on_line(tc, line) is None
    error = json.loads(out.getvalue())
    assert error["type"] == "error" and said in error["message"]


class _ClosedPipe(io.StringIO):
    """An output whose reader has gone away."""

    def write(self, s: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_output_is_not_a_network_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the BrokenPipeError (an OSError) reached ``play``, which reported
    "network error: Broken pipe"."""
    monkeypatch.setattr(os, "dup2", lambda *args: None)  # never touch the test's own stdout
    with pytest.raises(OutputClosed):
        JsonUI(_ClosedPipe()).info("Watching", kind="watching")


@pytest.mark.parametrize(
    ("cmd", "legal", "said"),
    [
        ({"index": 0}, [], "no legal moves now: not your turn"),
        ({}, [], "no legal moves now: not your turn"),
        ({"index": 5}, [{"type": "draw"}], "'index' must be a whole number from 0 to 0, not 5"),
        ({"index": "0"}, [{"type": "draw"}], "from 0 to 0, not '0'"),
        ({"index": True}, [{"type": "draw"}], "from 0 to 0, not True"),
        ({}, [{"type": "draw"}, {"type": "pass"}], "act needs 'action' or 'index' (0 to 1)"),
        ({"action": "draw"}, [{"type": "draw"}], "'action' must be a JSON object"),
    ],
)
def test_a_json_act_that_names_no_move_says_why(
    cmd: dict[str, Any],
    legal: list[dict[str, Any]],
    said: str,
    table_client: Callable[..., Any],
    push_state: Callable[..., Any],
) -> None:
    """Before: "act needs 'action' or an 'index' below 0" when there were no legal moves."""
    out = io.StringIO()
    ui, tc = JsonUI(out), table_client()
    push_state(tc, VIEW, legal, [1] if legal else [2])
    assert ui.on_line(tc, json.dumps({"cmd": "act", **cmd})) is None
    error = json.loads(out.getvalue())
    assert error["type"] == "error" and said in error["message"]


def test_the_json_specs_create_examples_are_real_tables() -> None:
    """Before, spec/CLIENT-JSON.md created a One Card table with Black Jack's ``jokers``."""
    spec = (Path(__file__).parents[2] / "spec" / "CLIENT-JSON.md").read_text(encoding="utf-8")
    examples = re.findall(r'`(\{"cmd": "create".*?\})`', spec, flags=re.DOTALL)
    assert examples
    for example in examples:
        cmd = json.loads(example.replace("\n", " "))
        engine = find_game(cmd["game"])
        engine.validate_options(cmd.get("options", {}))  # raises on an unknown option
        assert engine.min_seats <= cmd["seats"] <= engine.max_seats


def test_a_bare_ok_is_not_printed_as_a_json_object(table_client: Callable[..., Any]) -> None:
    """Before, the host's ``ok`` to the client's own fair_commit and fair_reveal (no ``re``)
    appeared as ``{"type": "ok"}`` about twice per hand, matching nothing the script sent."""
    out = io.StringIO()
    ui, tc = JsonUI(out), table_client()
    ui.on_push(tc, tm.Ok(), [])
    assert out.getvalue() == ""
    spec = (Path(__file__).parents[2] / "spec" / "CLIENT-JSON.md").read_text(encoding="utf-8")
    assert "`ok` has no `re`) are not printed" in spec
    assert "`play` says `One Card: Ann at seat 0 of 2`, `join` says `Seated at table" in spec
