"""spec/vectors/private_hand.json: a whole private hand record verifies, and each tampered
copy fails with the kind and at the message the vectors give (PROTOCOL.md 10.11)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from protocol.hand_records import verify_record

VECTORS = Path(__file__).resolve().parents[2] / "spec" / "vectors" / "private_hand.json"
DATA: dict[str, Any] = json.loads(VECTORS.read_text())


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "private_hand_generate", VECTORS.parents[2] / "tools" / "generate_private_hand_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_private_hand_record_verifies() -> None:
    rec = DATA["record"]
    assert rec["private"] is True
    for thorough in (False, True):
        verdict = verify_record(rec, thorough=thorough)
        assert verdict.ok, verdict.message
        assert "private: 2 masked rounds audited" in verdict.message


@pytest.mark.parametrize("case", DATA["tampered"], ids=lambda c: c["name"])
def test_each_tampered_private_hand_fails_as_the_vectors_say(case: dict[str, Any]) -> None:
    for thorough in (False, True):
        verdict = verify_record(case["record"], thorough=thorough)
        assert not verdict.ok
        assert verdict.failure == case["failure"]
        assert verdict.message_index == case["message_index"]


def test_every_masking_failure_kind_has_a_tampered_record() -> None:
    kinds = {c["failure"] for c in DATA["tampered"]}
    for kind in ("PointError", "StageError", "SealError", "UnmaskError", "CommitmentError"):
        assert kind in kinds


def test_a_fresh_generation_fails_the_same_way() -> None:
    gen = _generator()
    fresh = gen.build()
    assert gen.check(fresh) == []
    assert gen.check(DATA) == []
    assert [(c["name"], c["failure"]) for c in fresh["tampered"]] == [
        (c["name"], c["failure"]) for c in DATA["tampered"]
    ]


def test_a_private_record_claimed_but_not_masked_is_refused() -> None:
    hand_record = json.loads((VECTORS.parent / "hand_record.json").read_text())
    rec = hand_record.get("record", hand_record)
    rec = dict(rec, private=True)
    verdict = verify_record(rec)
    assert not verdict.ok and verdict.failure == "FairnessStateError"
