"""bench/private.py: a tiny run over loopback gives every figure, for both kinds of table."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def bench(bench_loader: Callable[[str, str], ModuleType]) -> ModuleType:
    return bench_loader("private.py", "bench_private")  # with its helpers beside it


def test_a_small_run_measures_both_kinds_of_table(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    args = bench.parse_args(["--seats", "2", "--games", "one-card", "--hands", "1"])
    tallies = bench.run(args)
    assert set(tallies) == {("one-card", 2, False), ("one-card", 2, True)}
    for tally in tallies.values():
        assert tally.games >= 1 and tally.hands >= 1
        assert tally.acts > 0
        assert tally.seat_cpu > 0 and tally.host_cpu > 0
        assert tally.bytes > 0
        assert len(tally.deals) == tally.hands and all(d > 0 for d in tally.deals)
        assert all(r >= 0 for r in tally.reshuffles)
    normal, private = tallies["one-card", 2, False], tallies["one-card", 2, True]
    hand, move = bench.ratios(normal, private)
    assert math.isfinite(hand) and hand > 0 and math.isfinite(move) and move > 0
    printed = capsys.readouterr().out
    assert "one-card       2 normal" in printed and "one-card       2 private" in printed


def test_bad_options_are_refused_with_a_message(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, said in (
        (["--seats", "1,4"], "seat counts are from 2 to 10"),
        (["--seats", "four"], "not a list of seat counts"),
        (["--games", "poker"], "unknown game poker"),
        (["--hands", "0"], "--hands must be at least 1"),
    ):
        with pytest.raises(SystemExit):
            bench.parse_args(argv)
        assert said in capsys.readouterr().err
    quick = bench.parse_args(["--quick"])
    assert (quick.seats, quick.games, quick.hands) == ([2, 4], ["one-card"], 2)
