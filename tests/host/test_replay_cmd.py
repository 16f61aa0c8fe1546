"""``onecard replay``: text and JSON output, and one-line failures with exit status 1."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from client.cli import cli
from host.tools import scenario
from host.tools.replay_cmd import replay_command

DATA = Path(__file__).resolve().parents[1] / "data" / "one-card"


def test_registered_in_the_cli() -> None:
    """The group loads it on first use (``client.cli.LazyGroup``), so ask the group for it."""
    with click.Context(cli) as ctx:
        assert cli.get_command(ctx, "replay") is replay_command


def test_text_output_lists_every_event_and_the_outcome() -> None:
    result = CliRunner().invoke(cli, ["replay", str(DATA / "going-out-wins.json")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "-- chance: deal"
    assert any(
        line.startswith("   dealt (to seat 1) cards=[JH JD 9C 9D 9S 10D 9H]") for line in lines
    )
    assert "-- step 10: seat 1 play cards=JD" in lines
    assert lines[-1] == "outcome: termination=went_out winners=[1] ranking=- scores=-"


def test_expected_rejections_are_shown() -> None:
    result = CliRunner().invoke(cli, ["replay", str(DATA / "seven-wild-names-suit.json")])
    assert result.exit_code == 0, result.output
    assert '-- step 1: seat 1 {"type": "play", "cards": ["7S"]}' in result.output
    assert "   rejected as expected: bad_field: a seven is wild" in result.output
    assert result.output.splitlines()[-1] == "outcome: the game is not over"


def test_json_output_is_one_object_per_line() -> None:
    result = CliRunner().invoke(
        cli, ["replay", "--json", str(DATA / "ranking-finishing-order.json")]
    )
    assert result.exit_code == 0, result.output
    objects = [json.loads(line) for line in result.output.splitlines()]
    assert objects[0] == {"type": "chance", "kind": "deal"}
    assert {o["type"] for o in objects} == {"chance", "action", "event"} | {"outcome"}
    actions = [o for o in objects if o["type"] == "action"]
    assert actions[0] == {
        "type": "action",
        "step": 0,
        "seat": 2,
        "action": {"type": "play", "cards": ["3H"]},
    }
    private = [o for o in objects if o["type"] == "event" and "to" in o]
    assert {o["kind"] for o in private} == {"dealt", "drawn"}
    assert objects[-1] == {
        "type": "outcome",
        "outcome": {"termination": "ranked", "winners": [2], "ranking": [2, 1, 0], "scores": None},
    }


def test_failed_expectation_is_one_line_and_exit_status_1(tmp_path: Path) -> None:
    data = json.loads((DATA / "seven-wild-names-suit.json").read_text(encoding="utf-8"))
    data["steps"][2]["expect_view"]["suit"] = "C"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert error_lines == [
        f"Error: {path}: step 2 (seat 1 "
        '{"type": "play", "cards": ["7S"], "suit": "D"}): seat 1 view.suit: expected "C", got "D"'
    ]
    assert (
        "   play seat=1 cards=[7S] pile=[7S] suit=D" in result.output
    )  # events before the failure


def test_illegal_action_stops_the_replay(tmp_path: Path) -> None:
    data = json.loads((DATA / "seven-wild-names-suit.json").read_text(encoding="utf-8"))
    del data["steps"][3]["expect"]
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", "--json", str(path)])
    assert result.exit_code == 1
    last = result.output.splitlines()[-1]
    assert last.startswith("Error: ") and "illegal_action: 3H does not play on 7S" in last


def test_invalid_or_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "one-card", "seats": 9}', encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(bad)])
    assert result.exit_code == 1
    assert result.output == f"Error: {bad}: seats: must be 2..8, not 9\n"
    missing = CliRunner().invoke(cli, ["replay", str(tmp_path / "nope.json")])
    assert missing.exit_code == 1 and "cannot read" in missing.output
    assert "Traceback" not in missing.output


def test_a_hand_record_points_at_verify(tmp_path: Path) -> None:
    """Before, replaying a hand record said "actions: unknown key"."""
    record = tmp_path / "t1-hand1-record.json"
    record.write_text('{"format": "onecard-hand-record/1", "actions": []}', encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(record)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {record}: a hand record, not a scenario: check it with onecard verify {record}\n"
    )


def test_unreadable_files_are_one_line_and_exit_status_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000, encoding="utf-8")
    big = tmp_path / "big.json"
    big.write_text(" " * 64 + "{}", encoding="utf-8")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{}")
    cases = {
        deep: "unreadable: JSON nested too deeply",
        tmp_path: "cannot read: Is a directory",  # as a missing file: 1, not a usage error
    }
    check(cases)
    monkeypatch.setattr(scenario, "MAX_SCENARIO_BYTES", 64)  # reads at most 65 bytes
    cases = {
        big: "unreadable: larger than 64 bytes",
        binary: "unreadable: not UTF-8 text",
    }
    check(cases)


def check(cases: dict[Path, str]) -> None:
    for path, reason in cases.items():
        result = CliRunner().invoke(cli, ["replay", str(path)])
        assert result.exit_code == 1, (path, result.output)
        assert result.output == f"Error: {path}: {reason}\n"


def test_the_help_states_the_exit_status() -> None:
    result = CliRunner().invoke(cli, ["replay", "--help"])
    assert "file cannot be read" in " ".join(result.output.split())
