"""Tests for host/tools/scenario_file.py: the format's defaults and which mistake is named first.

Each field's own error messages are tested in test_scenario.py (through ``host.tools.scenario``,
which re-exports this module's names); here a file with several mistakes must name the
first one in the documented order, whichever helper checks it.
"""

from __future__ import annotations

from typing import Any

import pytest

import host.tools.scenario
from host.tools import scenario_file
from host.tools.scenario_file import Scenario, ScenarioError, parse_scenario
from protocol.cards import card


def parsed(**top: Any) -> Scenario:
    return parse_scenario({"game": "one-card", "seats": 2, **top}, source="f.json")


def first_error(top: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(top, source="f.json")
    return str(info.value)


def test_every_name_is_still_importable_from_host_scenario() -> None:
    for name in scenario_file.__all__:
        assert getattr(host.tools.scenario, name) is getattr(scenario_file, name)
        assert name in host.tools.scenario.__all__


def test_defaults() -> None:
    plain = parsed()
    assert plain.names == ("seat 0", "seat 1")
    assert plain.dealer == 0
    assert (plain.deals, plain.reshuffles, plain.seed, plain.steps) == ((), (), None, ())
    assert plain.fairness == ()
    assert not plain.has_expect_outcome
    assert plain.expect_outcome is None
    assert plain.description == ""
    going_on = parsed(expect_outcome=None)
    assert going_on.has_expect_outcome
    assert going_on.expect_outcome is None


def test_explicit_orders() -> None:
    one = parsed(deck=["7S", "3H"], reshuffles=[["QC"]], seed=5)
    assert one.deals == ((card("7S"), card("3H")),)
    assert one.reshuffles == ((card("QC"),),)
    assert one.seed == 5
    two = parsed(deals=[["7S"], []], dealer=1)
    assert two.deals == ((card("7S"),), ())
    assert two.dealer == 1


# each case: mistakes in two parts; the earlier part (in the documented order) is named
@pytest.mark.parametrize(
    ("top", "named"),
    [
        ({"gmae": 1, "game": 3}, "f.json: gmae: unknown key"),
        ({"game": "chess", "seats": 0}, "f.json: game: unknown game"),
        ({"game": "one-card", "seats": 1, "options": 3}, "f.json: seats: must be 2..8, not 1"),
        (
            {"game": "one-card", "seats": 2, "options": 3, "fairness": 3},
            "f.json: options: expected an object",
        ),
        (
            {"game": "one-card", "seats": 2, "fairness": 3, "dealer": 9},
            "f.json: fairness: expected an object",
        ),
        (
            {"game": "one-card", "seats": 2, "dealer": 9, "deck": "7S"},
            "f.json: dealer: must be 0..1, not 9",
        ),
        (
            {"game": "one-card", "seats": 2, "deck": "7S", "reshuffles": 3},
            "f.json: deck: expected a list of card codes",
        ),
        (
            {"game": "one-card", "seats": 2, "reshuffles": 3, "seed": -1},
            "f.json: reshuffles: expected a list of card lists",
        ),
        (
            {"game": "one-card", "seats": 2, "seed": -1, "steps": 3},
            "f.json: seed: must be 0..9223372036854775808, not -1",
        ),
        (
            {"game": "one-card", "seats": 2, "steps": 3, "expect_outcome": 3},
            "f.json: steps: expected a list",
        ),
        (
            {"game": "one-card", "seats": 2, "expect_outcome": 3, "description": 3},
            "f.json: expect_outcome: expected an object",
        ),
        ({"game": "one-card", "seats": 2, "description": 3}, "f.json: description: expected"),
    ],
)
def test_the_first_mistake_in_documented_order_is_named(top: dict[str, Any], named: str) -> None:
    assert first_error(top).startswith(named)


def test_fairness_excludes_explicit_orders_before_reading_its_entries() -> None:
    message = first_error({"game": "one-card", "seats": 2, "fairness": [3], "seed": 1})
    assert message == "f.json: fairness: give fairness or deck/deals/reshuffles/seed, not both"
    listed = first_error({"game": "one-card", "seats": 2, "fairness": [3]})
    assert listed == "f.json: fairness[0]: expected an object"
