"""bench/sight.py: a sighted world holds the real cards it is given and deals the rest; the
bench puts the bots back as they were, compares deal by deal, and resumes from its results."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from host.bots.ai import arena
from host.bots.ai.ismcts import Budget
from host.bots.ai.levels import make_bot
from host.games import find_game
from host.games.one_card.engine import Phase
from host.games.playout import answer_chance

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def sight(bench_loader: Callable[[str, str], ModuleType]) -> ModuleType:
    return bench_loader("sight.py", "bench_sight")  # it imports bench/bots.py beside it


def _dealt(name: str, seed: int) -> object:
    engine = find_game(name).new_initial_state(seats=4, options=None, dealer=None)
    rng = random.Random(seed)
    while engine.chance_request() is not None:
        answer_chance(engine, rng)
    return engine


@pytest.mark.parametrize("name", ["one-card", "black-jack"])
@pytest.mark.parametrize("seen", ["next-hand", "old-cards", "all-hands"])
def test_a_sighted_world_holds_the_real_cards_it_is_given(
    sight: ModuleType, name: str, seen: str
) -> None:
    game = sight.GAMES[name]
    engine = _dealt(name, 7)
    seat = 0
    nxt = game.next_seat(engine, seat)
    others = [s for s in range(4) if s != seat]
    sight.install(name, seen)
    try:
        sight.WATCH.engine = engine
        # the next player began its last turn holding three of the cards it holds now
        sight.WATCH.at_turn = {nxt: game.hand(engine, nxt)[:3]}
        memory = game.memory(seat)
        view = engine.view(seat)
        rng = random.Random(11)
        worlds = [memory.sample(view, rng) for _ in range(12)]
    finally:
        sight.install(name, "seat")
    for world in worlds:
        real = {s: Counter(game.hand(engine, s)) for s in others}
        dealt = {s: Counter(game.hand(world, s)) for s in others}
        assert Counter(game.hand(world, seat)) == Counter(game.hand(engine, seat))
        assert all(sum(dealt[s].values()) == sum(real[s].values()) for s in others)
        if seen == "all-hands":
            assert dealt == real
        elif seen == "next-hand":
            assert dealt[nxt] == real[nxt]
        else:
            assert Counter(game.hand(engine, nxt)[:3]) <= dealt[nxt]
    # what was not given is dealt afresh: some world differs from the real game there
    hidden = [s for s in others if seen != "all-hands" and s != nxt]
    assert not hidden or any(
        Counter(game.hand(w, s)) != Counter(game.hand(engine, s)) for w in worlds for s in hidden
    )
    if seen == "old-cards":  # the cards drawn since are dealt
        assert any(Counter(game.hand(w, nxt)) != Counter(game.hand(engine, nxt)) for w in worlds)


@pytest.mark.parametrize("name", ["one-card", "black-jack"])
def test_each_sight_fixes_its_cards_and_no_others(sight: ModuleType, name: str) -> None:
    game = sight.GAMES[name]
    engine = _dealt(name, 3)
    seat = 0
    nxt = game.next_seat(engine, seat)
    third = next(s for s in range(4) if s not in (seat, nxt))
    real = {s: Counter(game.hand(engine, s)) for s in range(4)}
    memory = game.memory(seat)
    sight.WATCH.engine = engine
    # its last turn began with three cards it holds now and one it has played since (here a
    # card of another hand: a card gone from its hand, whatever became of it)
    gone = game.hand(engine, third)[0]
    sight.WATCH.at_turn = {nxt: [*game.hand(engine, nxt)[:3], gone]}
    try:
        for seen, expected in {
            "next-hand": {nxt: real[nxt]},
            "all-hands": {s: real[s] for s in range(1, 4)},
            "old-cards": {nxt: Counter(game.hand(engine, nxt)[:3])},
        }.items():
            fixed = sight.fixed_cards(game, seen, memory)
            got = {s: fixed(s) for s in range(1, 4)}
            assert {s: c for s, c in got.items() if c} == expected, seen
    finally:
        sight.install(name, "seat")


def test_a_turn_begins_when_its_seat_comes_to_act_not_after_an_attack_it_drew(
    sight: ModuleType,
) -> None:
    """``old-cards``: the hand kept for One Card's seat is the one it held when its turn
    began; the cards of an attack it then drew (it may play on) are new, not old."""
    game = sight.GAMES["one-card"]
    sight.install("one-card", "old-cards")
    watching = arena._next_move
    after_attack = 0

    def spy(engine: object, *args: object, **kwargs: object) -> object:
        nonlocal after_attack
        before = {s: list(h) for s, h in sight.WATCH.at_turn.items()}
        acting = list(engine.to_act())  # type: ignore[attr-defined]
        hands = {s: game.hand(engine, s) for s in acting}
        phase = engine.phase  # type: ignore[attr-defined]
        out = watching(engine, *args, **kwargs)
        after = sight.WATCH.at_turn
        for s in acting:
            if phase is Phase.AFTER_ATTACK:
                after_attack += 1
                assert after[s] == before[s] and Counter(after[s]) != Counter(hands[s])
            else:
                assert after[s] == hands[s]
        return out

    arena._next_move = spy
    try:
        for seed in range(20):
            bots = [make_bot("normal", rng=random.Random(f"{seed}/{s}")) for s in range(4)]
            arena.play_match("one-card", bots, seed=seed)
            if after_attack:
                break
    finally:
        sight.install("one-card", "seat")
    assert after_attack, "no attack was taken in twenty games"


@pytest.mark.parametrize("name", ["one-card", "black-jack"])
def test_answer_bits_worlds_answer_the_candidates_as_the_real_game(
    sight: ModuleType, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = sight.GAMES[name]
    # a deal whose first seat to act has two candidates or more, some worlds answering them
    # otherwise than the real game (the seeds are fixed: the same deal every run)
    for seed in range(40):
        engine = _dealt(name, seed)
        (seat,) = engine.to_act()
        candidates = game.candidates(engine, seat)
        nxt = game.next_seat(engine, seat)
        real = sight.answers(game, engine, seat, candidates, nxt)
        plain = game.memory(seat)
        rng = random.Random(seed)
        dealt = [plain.sample(engine.view(seat), rng) for _ in range(30)]
        if len(candidates) >= 2 and any(
            sight.answers(game, w, seat, candidates, nxt) != real for w in dealt
        ):
            break
    else:
        pytest.fail("no deal with candidates the worlds answer otherwise")
    monkeypatch.setattr(sight, "ANSWER_TRIES", 2_000)  # never the last world for want of one
    sight.install(name, "answer-bits")
    try:
        sight.WATCH.engine = engine
        memory = game.memory(seat)
        view = engine.view(seat)
        worlds = [memory.sample(view, random.Random(i)) for i in range(8)]
    finally:
        sight.install(name, "seat")
    assert all(sight.answers(game, w, seat, candidates, nxt) == real for w in worlds)
    assert sight.WATCH.answered is None  # cleared with the sight


def test_the_seat_sight_is_the_hard_bot_as_it_plays(sight: ModuleType) -> None:
    for name, game in sight.GAMES.items():
        sight.install(name, "next-hand")
        assert game.memory.sample is not sight._ORIGINAL_SAMPLE[name]
        sight.install(name, "seat")
        assert game.memory.sample is sight._ORIGINAL_SAMPLE[name]
        assert arena._next_move is sight._ORIGINAL_NEXT_MOVE
    with pytest.raises(ValueError, match="unknown sight"):
        sight.install("one-card", "every-card")
    # a batch is another batch once the bench's own code changes (comments aside)
    assert sight.sight_digest() == sight.sight_digest(BENCH / "sight.py")
    assert len(sight.sight_digest()) == 16


def test_a_sighted_run_plays_its_games_and_puts_the_bots_back(sight: ModuleType) -> None:
    task = sight.Task("one-card", 4, "hard", "normal", 1, 0, 2, Budget(iterations=6))
    tally = sight.run_sighted("next-hand", task)
    assert tally.games == 2 and set(tally.pairs) == {0}
    assert arena._next_move is sight._ORIGINAL_NEXT_MOVE
    assert sight.GAMES["one-card"].memory.sample is sight._ORIGINAL_SAMPLE["one-card"]


def test_the_difference_is_taken_deal_by_deal(sight: ModuleType) -> None:
    base = sight.Tally(games=6, share=2.0, pairs={0: 1.0, 1: 0.0, 2: 1.0})
    other = sight.Tally(games=8, share=6.0, pairs={0: 2.0, 1: 1.0, 2: 1.0, 3: 2.0})
    diff = sight.difference(base, other)
    assert diff.deals == 3  # deal 3 was not played by both
    assert diff.mean == pytest.approx(1 / 3)
    assert diff.error == pytest.approx(1 / 6)  # the differences 0.5, 0.5 and 0
    assert sight.difference(base, sight.Tally()).deals == 0


def test_a_run_prints_every_sight_and_resumes_from_its_results(tmp_path: Path) -> None:
    results = tmp_path / "sight.jsonl"
    command = [
        sys.executable,
        str(BENCH / "sight.py"),
        "--game",
        "black-jack",
        "--games",
        "2",
        "--iterations",
        "4",
        "--sight",
        "next-hand",
        "--jobs",
        "1",
        "--results",
        str(results),
    ]
    first = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600)
    rows = [line for line in first.stdout.splitlines() if line.startswith("| ")]
    assert [r.split(" | ")[0] for r in rows[1:]] == ["| seat", "| next-hand"]
    assert "over 1 deals" in rows[-1]
    kept = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(json.loads(k["key"])["sight"] for k in kept) == ["next-hand", "seat"]
    again = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600)
    assert [line for line in again.stdout.splitlines() if line.startswith("| ")] == rows
    assert len(results.read_text().splitlines()) == 2  # nothing played again
    assert "2 of 2 batches already played" in again.stdout
    bad = subprocess.run(
        [*command[:2], "--game", "one-card", "--jobs", "0"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "--jobs must be at least 1" in bad.stderr
