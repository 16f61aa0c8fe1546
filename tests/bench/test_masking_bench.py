"""bench/masking.py: a masked deal runs through every party and counts its bytes."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def bench(bench_loader: Callable[[str, str], ModuleType]) -> ModuleType:
    return bench_loader("masking.py", "bench_masking")


def test_a_masked_deal_charges_every_party_and_counts_bytes(bench: ModuleType) -> None:
    two = bench.masked_deal(2)
    three = bench.masked_deal(3)
    costs, path, up, down = two
    assert set(costs) == {"seat0", "seat1", "host"}
    assert 0 <= path <= sum(costs.values())
    # two seats: 2 masking + 2 re-keying passes of 54 points (~1.8 KB each), 7 boxes each way
    assert 4 * 54 * 32 < up < 4 * 54 * 32 + 14 * 250 + 400
    assert three[2] > up and three[3] > down
