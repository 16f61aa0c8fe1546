"""bench/bots.py: duplicate pairs share a deal, the interval is taken over the pairs, and a
run kept in a results file resumes where it stopped."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from host.bots.ai.ismcts import Budget
from host.bots.ai.levels import table_budget
from host.games import game_names


@pytest.fixture(scope="module")
def bench(bench_loader: Callable[[str, str], ModuleType]) -> ModuleType:
    return bench_loader("bots.py", "bench_bots")


def test_the_two_games_of_a_pair_are_dealt_alike_with_the_levels_swapped(
    bench: ModuleType,
) -> None:
    task = bench.Task("black-jack", 2, "normal", "easy", 1, 0, 4, Budget(iterations=1))
    tally = bench.run(task)
    assert tally.games == 4
    assert sorted(tally.pairs) == [0, 1]  # games 0, 1 are deal 0; games 2, 3 deal 1
    assert tally.share == pytest.approx(sum(tally.pairs.values()))


def test_the_interval_is_over_the_pairs(bench: ModuleType) -> None:
    # pairs that split evenly carry no evidence either way: the interval is around 0.5
    low, high = bench.paired_interval([0.5] * 28 + [1.0, 0.0])
    assert low < 0.5 < high
    # most pairs won outright by A: the interval is all above an even share
    low, high = bench.paired_interval([1.0, 1.0, 0.5, 1.0, 0.0] * 6)
    assert 0.5 < low < high <= 1.0
    # too few pairs for the approximation: no interval, even if every pair went A's way
    assert bench.paired_interval([1.0] * (bench.MIN_PAIRS - 1)) == (0.0, 1.0)


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("seats", [2, 4])
def test_the_greedy_baseline_plays_only_legal_moves(
    bench: ModuleType, game: str, seats: int
) -> None:
    chosen: list[bool] = []

    class Checked(bench.GreedyBot):  # type: ignore[name-defined,misc]
        def choose(self, view: Any, legal: Any, *, last: Any = None) -> Any:
            action = super().choose(view, legal, last=last)
            chosen.append(action is None or action in legal)
            return action

    from host.bots.ai.arena import play_match

    for seed in range(3):
        bots = [Checked(rng=random.Random(s)) for s in range(seats)]
        record = play_match(game, bots, seed=f"greedy/{seed}")  # an illegal move would raise
        assert record.termination != "unfinished"
    assert chosen and all(chosen)


def test_bench_pairs_the_greedy_player_by_name(bench: ModuleType) -> None:
    task = bench.Task("one", 2, "normal", "greedy", 1, 0, 2, Budget(iterations=1))
    tally = bench.run(task)
    assert set(tally.bids) == {"normal", "greedy"}
    for contracts, made, chances, offered, bid_in in tally.bids.values():
        assert 0 <= made <= contracts <= chances
        assert 0 < offered <= chances  # each seat is offered a bid at most once a hand
        assert 0 <= bid_in <= offered
    assert sum(counts[0] for counts in tally.bids.values()) > 0  # someone took a contract


def test_the_speed_measure_counts_the_searches_it_ran(bench: ModuleType) -> None:
    searches, iterations, cpu = bench.search_speed("one-card", 2, Budget(iterations=3), games=1)
    assert searches > 0
    assert 0 < iterations <= 3 * searches  # a search stops at its budget
    assert cpu > 0


def test_the_hard_bot_thinks_what_a_table_buys_unless_told(bench: ModuleType) -> None:
    told = bench.Task("one-card", 2, "hard", "normal", 1, 0, 2, Budget(iterations=7))
    assert told.hard_budget() == Budget(iterations=7)
    for game in ("one-card", "black-jack", "one"):
        task = bench.Task(game, 2, "hard", "normal", 1, 0, 2, None)
        assert task.hard_budget() == table_budget(game)


def test_a_run_kept_in_a_results_file_resumes_where_it_stopped(
    bench: ModuleType, tmp_path: Path
) -> None:
    path = tmp_path / "results.jsonl"
    code = bench.code_digest("black-jack")
    first, second = (
        bench.Task("black-jack", 2, "normal", "easy", 1, start, 2, Budget(iterations=1))
        for start in (0, 2)
    )
    played = bench.run(first)
    bench.Results(path).keep(first.key(code), played)
    path.write_text(path.read_text() + '{"key": "cut sh')  # a run killed mid-write
    again = bench.Results(path)
    assert set(again.done) == {first.key(code)}  # the torn line is played again, not trusted
    assert again.done[first.key(code)] == played  # read back as it was played
    again.keep(second.key(code), bench.run(second))  # on a line of its own, after the torn one
    assert set(bench.Results(path).done) == {first.key(code), second.key(code)}
    assert bench.Results(None).done == {}  # no file: nothing kept
    # another batch, another seed, another budget or other code is another batch
    assert second.key(code) != first.key(code)
    assert first.key("other code") != first.key(code)
    other_budget = bench.Task("black-jack", 2, "normal", "easy", 1, 0, 2, Budget(iterations=2))
    assert other_budget.key(code) != first.key(code)


def test_the_code_digest_follows_the_sources_that_decide_a_move(
    bench: ModuleType, tmp_path: Path
) -> None:
    for top in ("protocol", "host/bots", "host/games/one_card", "host/games/black_jack"):
        (tmp_path / top).mkdir(parents=True, exist_ok=True)
        (tmp_path / top / "a.py").write_text("x = 1\n")
    (tmp_path / "host/games/base.py").write_text("x = 1\n")
    before = {game: bench.code_digest(game, tmp_path) for game in ("one-card", "black-jack")}
    assert before["one-card"] != before["black-jack"]
    (tmp_path / "README.md").write_text("not code that moves\n")
    assert bench.code_digest("one-card", tmp_path) == before["one-card"]
    (tmp_path / "host/games/black_jack/a.py").write_text("x = 2\n")  # Black Jack's own
    assert bench.code_digest("one-card", tmp_path) == before["one-card"]
    assert bench.code_digest("black-jack", tmp_path) != before["black-jack"]
    # what a file says about itself is not code: documenting a bot mid-run keeps the run
    documented = '"""A bot."""\n\n\ndef f() -> int:\n    """One."""\n    return 1  # one\n'
    plain = "def f() -> int:\n    return 1\n"
    (tmp_path / "host/bots/b.py").write_text(plain)
    now = bench.code_digest("one-card", tmp_path)
    (tmp_path / "host/bots/b.py").write_text(documented)
    assert bench.code_digest("one-card", tmp_path) == now
    (tmp_path / "host/bots/b.py").write_text(documented.replace("return 1", "return 2"))
    assert bench.code_digest("one-card", tmp_path) != now
    # what in bench/bots.py plays the games counts; what reports them does not
    (tmp_path / "bench").mkdir()
    bots = tmp_path / "bench/bots.py"
    bots.write_text("def run() -> int:\n    return 1\n\n\ndef row() -> str:\n    return 'a'\n")
    now = bench.code_digest("one-card", tmp_path)
    bots.write_text(bots.read_text().replace("'a'", "'b'"))
    assert bench.code_digest("one-card", tmp_path) == now
    bots.write_text(bots.read_text().replace("return 1", "return 2"))
    assert bench.code_digest("one-card", tmp_path) != now
    with pytest.raises(ValueError, match="no package host/games/chess"):
        bench.code_digest("chess", tmp_path)
    for shared in ("host/bots/a.py", "host/games/base.py", "protocol/a.py"):
        now = bench.code_digest("one-card", tmp_path)
        (tmp_path / shared).write_text(f"x = {shared!r}\n")
        assert bench.code_digest("one-card", tmp_path) != now, shared


def test_a_stopped_run_has_kept_the_batches_it_finished(tmp_path: Path) -> None:
    """Each batch is written as it finishes, not when the run ends: a run stopped early keeps
    what it played, and the same command run again plays only the rest."""
    script = Path(__file__).resolve().parents[2] / "bench" / "bots.py"
    results = tmp_path / "results.jsonl"
    command = [sys.executable, str(script), "--game", "black-jack", "--seats", "2"]
    command += ["--pair", "normal:easy", "--jobs", "1", "--results", str(results)]
    run = subprocess.Popen(
        [*command, "--games", "4000"], stdout=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        while not results.exists() or not results.read_text().endswith("\n"):
            assert run.poll() is None, "the run ended before its first batch was kept"
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        os.killpg(run.pid, signal.SIGKILL)  # the run and its worker process, as a kill would
        run.wait()
    kept = len(results.read_text().splitlines())
    assert 1 <= kept < 400  # stopped with batches written and most not yet played
    again = subprocess.run(
        [*command, "--games", "20"], capture_output=True, text=True, check=True
    ).stdout
    assert f"{min(kept, 2)} of 2 batches already played" in again
    assert "| black-jack | 2 | normal:easy | 20 |" in again
