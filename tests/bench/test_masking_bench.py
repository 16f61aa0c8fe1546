"""bench/masking.py: a masked deal runs through every party and counts its bytes."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "masking.py"
    spec = importlib.util.spec_from_file_location("bench_masking", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_masked_deal_charges_every_party_and_counts_bytes() -> None:
    bench = _bench()
    two = bench.masked_deal(2)
    three = bench.masked_deal(3)
    costs, path, up, down = two
    assert set(costs) == {"seat0", "seat1", "host"}
    assert 0 <= path <= sum(costs.values())
    # two seats: 2 masking + 2 re-keying passes of 54 points (~1.8 KB each), 7 boxes each way
    assert 4 * 54 * 32 < up < 4 * 54 * 32 + 14 * 250 + 400
    assert three[2] > up and three[3] > down
