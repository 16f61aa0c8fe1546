"""The journaled game state machine: a journal replays to the same game, byte for byte.

The tests are async only because the runner reads trio's clock to set its deadlines.
"""

from __future__ import annotations

import random
import secrets

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games import find_game
from host.runner import Batch, GameRunner, Seat, TablePhase
from host.store import JournalKind, JournalRow
from protocol.records import verify_record


def new_runner(game: str, seats: int, key: Ed25519PrivateKey) -> GameRunner:
    runner = GameRunner(
        table_id="t-replay", game_cls=find_game(game), seats=seats, options={},
        signing_key=key, turn_timer=None, round_timeout=20.0,
    )  # fmt: skip
    for i in range(seats):
        runner.seats[i] = Seat(i, f"p{i}", None, sit_out=True)  # the host plays every seat
    return runner


def play(runner: GameRunner, rng: random.Random, max_inputs: int = 400) -> list[JournalRow]:
    journal: list[JournalRow] = []

    def feed(kind: JournalKind, payload: dict[str, object]) -> None:
        batch = Batch()
        runner._input(batch, kind, payload)
        while runner._needs_open:
            runner._needs_open = False
            for s in runner.seats:
                assert s is not None
                s.sit_out = True
            runner._input(batch, JournalKind.FAIR, runner._open_payload())
        journal.extend(batch.rows)

    names = [f"p{i}" for i in range(runner.nseats)]
    feed(JournalKind.GAME, {"game_no": 1, "names": names})
    for _ in range(max_inputs):
        if runner.phase is not TablePhase.PLAYING or runner.engine is None:
            break
        seat = runner.engine.to_act()[0]
        action = rng.choice(runner.engine.legal_actions(seat)).to_wire()
        feed(JournalKind.ACTION, {"seat": seat, "action": action, "cseq": None, "note": None})
    return journal


@pytest.mark.parametrize("game", ["one-card", "one", "black-jack"])
async def test_replaying_a_journal_rebuilds_the_same_game(game: str) -> None:
    key = Ed25519PrivateKey.generate()
    live = new_runner(game, 3, key)
    journal = play(live, random.Random(secrets.randbits(32)))
    assert live.engine is not None and live.deal is not None
    again = new_runner(game, 3, key)
    again.replay(journal)
    assert again.engine is not None and again.deal is not None
    assert again.seq == live.seq == journal[-1].seq
    assert again.phase is live.phase
    for seat in (None, 0, 1, 2):
        assert again.engine.view(seat) == live.engine.view(seat)
    assert again.deal.dealer.messages == live.deal.dealer.messages
    assert [r.seq for r in journal] == list(range(1, len(journal) + 1))


async def test_finished_hands_leave_verifiable_records() -> None:
    live = new_runner("one-card", 2, Ed25519PrivateKey.generate())
    play(live, random.Random(7), max_inputs=2000)
    assert live.phase is TablePhase.FINISHED
    assert live.pending_records
    for _, record in live.pending_records:
        verdict = verify_record(record)
        assert verdict.ok, verdict.message
        assert record["outcome"] is not None and record["actions"]
