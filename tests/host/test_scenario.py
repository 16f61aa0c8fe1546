"""Scenario files: validation, running, expectations, and every golden One Card scenario."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from host.games.base import ChanceKind
from host.games.playout import view_leaks
from host.tools.scenario import (
    ScenarioError,
    ScenarioFailure,
    ScenarioRunner,
    load_scenario,
    parse_scenario,
    run_scenario,
    subset_mismatch,
)
from protocol.cards import DECK_54

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = sorted((DATA / "one-card").glob("*.json"))

BASE: dict[str, Any] = {
    "game": "one-card",
    "seats": 2,
    "dealer": 0,
    "deck": [
        "7S",
        "3H",
        "5C",
        "4H",
        "9D",
        "KH",
        "2D",
        "8D",
        "JC",
        "6S",
        "10C",
        "QC",
        "3C",
        "8H",
        "5H",
    ],
    "steps": [
        {"seat": 1, "action": {"type": "play", "cards": ["5C"]}, "expect_to_act": [0]},
    ],
}


def scenario(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data.update(changes)
    return data


def failure(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioFailure) as info:
        run_scenario(parse_scenario(data, source="t.json"))
    message = str(info.value)
    assert "\n" not in message
    return message


def test_golden_files_exist_for_the_rules() -> None:
    names = {p.stem for p in GOLDEN}
    for required in [
        "seven-wild-names-suit",
        "attack-damage-adds-up",
        "defence-escalate-lower-costs-one",
        "one-card-call-holder-first",
        "one-card-call-other-first",
        "reshuffle-when-stock-empty",
        "multi-play-jacks-skip-each",
        "attack-cap",
        "ranking-finishing-order",
        "two-player-queen-acts-as-jack",
    ]:
        assert required in names


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_scenario(path: Path) -> None:
    loaded = load_scenario(path)
    assert loaded.description
    game, results = run_scenario(loaded)
    assert len([r for r in results if r.index is not None]) == len(loaded.steps)
    assert results[0].chance is ChanceKind.DEAL
    assert Counter(game.all_cards()) == Counter(DECK_54)
    for seat in [*range(game.seats), None]:
        assert view_leaks(game, seat) == set()


def test_run_yields_chance_then_steps_and_checks_expectations() -> None:
    runner = ScenarioRunner(parse_scenario(scenario()))
    results = list(runner.run())
    assert results[0].chance is ChanceKind.DEAL and results[0].index is None
    assert results[1].index == 0 and results[1].seat == 1
    assert [e.kind for e in results[1].events] == ["play", "turn"]
    assert runner.game.view(1)["hand"] == ["7S", "2D", "9D", "3C", "10C", "JC"]


def test_unlisted_cards_follow_in_canonical_order_or_seeded() -> None:
    game, _ = run_scenario(parse_scenario(scenario(steps=[])))
    assert game.view(None)["stock"] == 39
    stock = game.all_cards()[14:-1]
    assert [c.code for c in stock[:3]] == ["AS", "2S", "3S"]
    seeded = [run_scenario(parse_scenario(scenario(steps=[], seed=3)))[0] for _ in range(2)]
    orders = [[c.code for c in g.all_cards()] for g in seeded]
    assert orders[0] == orders[1] and orders[0] != [c.code for c in game.all_cards()]


def test_expected_error_is_checked_and_the_run_goes_on() -> None:
    steps = [
        {
            "seat": 1,
            "action": {"type": "play", "cards": ["9D"]},
            "expect": {"error": "illegal_action"},
        },
        {"seat": 1, "action": {"type": "play", "cards": ["5C"]}},
    ]
    _, results = run_scenario(parse_scenario(scenario(steps=steps)))
    assert results[1].error is not None and results[1].error.startswith("illegal_action")
    assert results[1].events == ()
    assert [e.kind for e in results[2].events] == ["play", "turn"]


@pytest.mark.parametrize(
    ("step", "needle"),
    [
        ({"seat": 1, "action": {"type": "play", "cards": ["9D"]}}, "step 0 (seat 1"),
        (
            {
                "seat": 1,
                "action": {"type": "play", "cards": ["5C"]},
                "expect": {"error": "bad_field"},
            },
            "expected error bad_field, but it was accepted",
        ),
        (
            {
                "seat": 1,
                "action": {"type": "play", "cards": ["9D"]},
                "expect": {"error": "bad_field"},
            },
            "expected error bad_field, got illegal_action",
        ),
        (
            {"seat": 1, "action": {"type": "play", "cards": ["5C"]}, "expect_view": {"top": "9D"}},
            'view.top: expected "9D", got "5C"',
        ),
        (
            {"seat": 1, "action": {"type": "play", "cards": ["5C"]}, "expect_to_act": [1]},
            "expected to_act [1], got [0]",
        ),
        (
            {"seat": 1, "action": {"type": "play", "cards": ["5C"]}, "expect_legal_count": 3},
            "expected 3 legal actions for seat 1",
        ),
        (
            {
                "seat": 1,
                "action": {"type": "play", "cards": ["5C"]},
                "expect_events": [{"kind": "draw"}],
            },
            "expected event #0",
        ),
        (
            {
                "seat": 1,
                "action": {"type": "play", "cards": ["9D"]},
                "expect": {"error": "illegal_action", "message": "zebra"},
            },
            "zebra",
        ),
        (
            {"seat": 1, "expect_views": {"spectator": {"hand_counts": [7, 6]}}},
            "spectator view.hand_counts[1]",
        ),
    ],
)
def test_failures_are_one_line_and_name_the_step(step: dict[str, Any], needle: str) -> None:
    message = failure(scenario(steps=[step]))
    assert message.startswith("t.json: step 0")
    assert needle in message


def test_outcome_expectations() -> None:
    assert "not over" in failure(scenario(expect_outcome={"winners": [1]}))
    run_scenario(parse_scenario(scenario(expect_outcome=None)))


def test_deck_cards_must_belong_to_the_request() -> None:
    assert "7S is not among" in failure(scenario(deck=["7S", "7S"]))


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"gmae": "x"}, "gmae: unknown key"),
        ({"game": "chess"}, "game: unknown game"),
        ({"game": 3}, "game: missing"),
        ({"seats": 1}, "seats: must be 2..8"),
        ({"seats": {"count": 2, "names": ["a"]}}, "seats.names: expected 2 names"),
        ({"options": {"defence": "dodge"}}, "options: option defence"),
        ({"dealer": 5}, "dealer: must be 0..1"),
        ({"deck": ["7S", "XX"]}, "deck: not a card"),
        ({"deals": [[]]}, "deck: give either deck or deals"),
        ({"reshuffles": "7S"}, "reshuffles: expected a list"),
        ({"fairness": {}}, "fairness: give fairness or deck"),
        ({"steps": [{"seat": 2, "action": {"type": "draw"}}]}, "steps[0].seat: must be 0..1"),
        ({"steps": [{"action": {"type": "draw"}}]}, "steps[0].seat: an action needs a seat"),
        ({"steps": [{"seat": 0, "expect": {"error": "x"}}]}, "an expected error needs an action"),
        ({"steps": [{"seat": 0, "bogus": 1}]}, "steps[0].bogus: unknown key"),
        ({"steps": [{"expect_views": {"9": {}}}]}, "view key must be a seat"),
        ({"steps": [{"seat": 0, "action": "draw"}]}, "steps[0].action: expected an object"),
    ],
)
def test_validation_names_the_bad_field(change: dict[str, Any], needle: str) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(scenario(**change), source="t.json")
    assert needle in str(info.value)
    assert str(info.value).startswith("t.json: ")


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ScenarioError, match="not JSON"):
        load_scenario(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(scenario(seats={"count": 2, "names": ["ann", "bob"]})))
    assert load_scenario(good).names == ("ann", "bob")


def test_subset_mismatch() -> None:
    assert subset_mismatch({"a": 1}, {"a": 1, "b": 2}) is None
    assert subset_mismatch({"a": [1, {"x": 2}]}, {"a": [1, {"x": 2, "y": 3}]}) is None
    assert subset_mismatch({"a": True}, {"a": 1}) == ".a: expected true, got 1"
    assert subset_mismatch({"a": [1]}, {"a": [1, 2]}) == ".a: expected [1], got [1, 2]"
    assert subset_mismatch({"c": 1}, {"a": 1}) == ".c: missing"
    assert subset_mismatch({"a": {"b": 1}}, {"a": 3}) == ".a: expected an object, got 3"


VECTOR = Path(__file__).resolve().parents[2] / "spec" / "vectors" / "hand_record.json"


def fair_inputs() -> dict[str, Any]:
    record = json.loads(VECTOR.read_text(encoding="utf-8"))
    return {
        "table_id": record["table_id"],
        "pids": record["pids"],
        "host_pk": record["host_pk"],
        "secret": record["secret"],
        "reveals": [r for _, r in record["reveals"]],
    }


def test_fair_dealing_inputs_reproduce_the_vector_deal() -> None:
    from protocol.fairness import SignedMessage

    record = json.loads(VECTOR.read_text(encoding="utf-8"))
    data = {"game": "one-card", "seats": 3, "fairness": fair_inputs()}
    game, results = run_scenario(parse_scenario(data))
    assert game.view(None)["dealer"] == record["dealer"]
    ours: dict[int, str] = {}  # stream-0 position -> card, from the engine's deal events
    for event in results[0].events:
        if event.kind in ("dealt", "turn_up"):
            for (_, pos), code in zip(event.data["positions"], event.data["cards"], strict=True):
                ours[pos] = code
    theirs: dict[int, str] = {}  # the same, from the vector's signed CARD / DRAW messages
    for t, body, sig in record["messages"]:
        msg = SignedMessage.from_wire([t, bytes.fromhex(body), bytes.fromhex(sig)])
        fields = msg.decode()
        if msg.type in ("card", "draw") and fields.get("card") and fields["stream"] == 0:
            theirs[fields["pos"]] = fields["card"]
    shared = set(ours) & set(theirs)
    assert len(shared) >= 15
    assert {p: ours[p] for p in shared} == {p: theirs[p] for p in shared}


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"secret": "00"}, "fairness.secret: expected 32 bytes as hex"),
        ({"reveals": ["11" * 32]}, "fairness.reveals: expected 3 reveals"),
        ({"pids": ["a", "b"]}, "fairness.pids: expected 3 seat ids"),
        ({"colour": 1}, "fairness.colour: unknown key"),
        ({"table_id": ""}, "fairness.table_id: expected a non-empty string"),
    ],
)
def test_fair_dealing_validation(change: dict[str, Any], needle: str) -> None:
    data = {"game": "one-card", "seats": 3, "fairness": {**fair_inputs(), **change}}
    with pytest.raises(ScenarioError, match=needle.replace("(", r"\(")):
        parse_scenario(data)
    with pytest.raises(ScenarioError, match="not both"):
        parse_scenario({**data, "fairness": fair_inputs(), "deck": ["7S"]})
