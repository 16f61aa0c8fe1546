"""Benchmark of cardfair/v1: the cost of a deal and of verifying a full hand record.

How it works: each step runs many times and its median CPU time (``time.process_time``,
steadier than wall time on a busy machine) is printed in milliseconds.
"Deal" is everything the host does before the first card (fresh S and HAND_COMMIT, the seats'
commitments, LOCK, reveals checked, REVEALS with K derived, the dealer drawn, the 54-card
shuffle, all signatures); the seat side is measured separately. "Verify" is
``verify_record`` on a JSON-parsed record: the spec's vector hand, a typical 4-seat hand
(7 cards each, a starter, 20 draws), a made-up worst case (the whole deck dealt, then two
reshuffles dealt out: 190 signed messages) and real games: seeded 4-seat One Card games played
to the end by the host's heuristic bots through the host's own :class:`host.table.dealing.Deal` (the
same signed messages a table sends), the median one and the longest. The default check
verifies one signature per record (HAND_END's, which chains every other message, PROTOCOL.md
8.2); "thorough" verifies every signature (~0.1 ms each here) and is what a record costs
without the chained signatures. Run: ``python bench/fairness.py [-n N] [--games G]``.
Targets: deal < 2 ms, full verification < 20 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.bots.policy import heuristic_choice
from host.games import find_game
from host.games.base import ChanceKind, ChanceRequest
from host.table.dealing import Deal
from protocol.cards import DECK_54, sort_canonical
from protocol.fairness import HandDealer, SeatSecret, SecretLedger
from protocol.hand_records import build_record, dump_record, verify_record

VECTORS = Path(__file__).resolve().parents[1] / "spec" / "vectors"
SK = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))  # reproducible games
PIDS = ["ann", "ben", "cat", "dan"]
#: a game that has not ended after this many actions is cut short (the engines stop sooner)
MAX_ACTIONS = 5000


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1000


def _seats(ctx: bytes) -> list[SeatSecret]:
    return [SeatSecret.new(ctx, p) for p in PIDS]


def deal(seats: list[SeatSecret] | None = None) -> HandDealer:
    d = HandDealer(
        signing_key=SK,
        table_id="bench",
        hand_no=1,
        ruleset_id="one-card",
        deck=DECK_54,
        pids=PIDS,
        ledger=SecretLedger(),
    )
    seats = seats or _seats(d.context.digest)
    for s in seats:
        d.accept_commit(s.pid, s.commit_body(1))
    d.lock()
    for s in seats:
        d.accept_reveal(s.pid, s.reveal_body(1))
    d.reveals()
    d.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54, choose_dealer=True))
    return d


def typical_record() -> dict[str, Any]:
    """4 seats: 7 cards each, a face-up starter, then 20 cards drawn during play."""
    d = deal()
    for i in range(28):
        d.draw(0, i % 4)
    d.draw(0, None, public=True)
    for i in range(20):
        d.draw(0, i % 4)
    d.hand_end({"termination": "went_out", "winners": [0]})
    return build_record(d, game="one-card", outcome={"termination": "went_out", "winners": [0]})


def long_record() -> dict[str, Any]:
    """4 seats, every card dealt (one in four face up), then two reshuffles drawn out."""
    d = deal()
    seat = 0
    for stream in range(3):
        n = len(d.order(stream))
        for i in range(n):
            d.draw(stream, seat % 4, public=i % 4 == 3)
            seat += 1
        if stream < 2:
            recycled = sort_canonical(d.order(stream)[: 30 - 10 * stream])
            d.answer(ChanceRequest(ChanceKind.RESHUFFLE, 1, stream + 1, tuple(recycled)))
    d.hand_end({"termination": "went_out", "winners": [0]})
    return build_record(d, game="one-card", outcome={"termination": "went_out", "winners": [0]})


def real_game_record(seed: int, seats: int = 4, game: str = "one-card") -> dict[str, Any]:
    """One hand played to its end by the host's heuristic bots, dealt as a table deals it."""
    rng = random.Random(seed)
    engine = find_game(game).new_initial_state(seats=seats, options=None, dealer=None)
    request = engine.chance_request()
    assert request is not None and request.kind is ChanceKind.DEAL
    deal = Deal(
        signing_key=SK,
        table_id="bench",
        hand_no=1,
        game=game,
        options=engine.options,
        deck=request.cards,
        names=PIDS[:seats],
        secret=rng.randbytes(32),
        host_r={s: rng.randbytes(32) for s in range(seats)},
    )
    deal.progress()
    for _ in range(MAX_ACTIONS):
        request = engine.chance_request()
        if request is not None:
            order, dealer, _ = deal.answer(request)
            deal.draws(engine.apply_chance(order, dealer))
            continue
        if engine.outcome() is not None:
            break
        seat = rng.choice(engine.to_act())
        legal = engine.legal_actions(seat)
        wire = heuristic_choice(engine.view(seat), [a.to_wire() for a in legal])
        action = legal[0] if wire is None else engine.parse_action(wire)
        engine.check(seat, action)
        deal.actions.append({"seat": seat, "action": action.to_wire(), "note": None})
        deal.draws(engine.apply(seat, action))
    outcome = engine.outcome()
    deal.end(None if outcome is None else outcome.to_wire())
    return deal.record("bench")


def real_games(count: int) -> list[dict[str, Any]]:
    """``count`` seeded real games' records (JSON round-tripped), shortest first."""
    records = [json.loads(dump_record(real_game_record(seed))) for seed in range(count)]
    return sorted(records, key=lambda rec: len(rec["messages"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=300, help="runs per measurement")
    parser.add_argument("--games", type=int, default=40, help="real games to pick from")
    args = parser.parse_args()
    runs = args.runs
    games = real_games(args.games)

    probe = deal()
    ctx = probe.context.digest
    seats = _seats(ctx)
    print(f"cardfair/v1 benchmark, median of {runs} runs, {len(PIDS)} seats, 54 cards")
    msg = probe.hand_commit
    pk = SK.public_key()
    sig = SK.sign(msg.body)
    rows: list[tuple[str, Callable[[], object], int]] = [
        ("seat: make r_i and c_i", lambda: _seats(ctx)[0], runs),
        ("host: deal (commit .. shuffle, all signed)", lambda: deal(seats), runs),
        ("one Ed25519 signature", lambda: SK.sign(msg.body), runs),
        ("one Ed25519 verification", lambda: pk.verify(sig, msg.body), runs),
    ]
    for name, rec in (
        ("vector hand", json.loads((VECTORS / "hand_record.json").read_text("utf-8"))),
        ("typical hand", json.loads(dump_record(typical_record()))),
        ("worst case", json.loads(dump_record(long_record()))),
        ("real game, median", games[len(games) // 2]),
        ("real game, longest", games[-1]),
    ):
        assert verify_record(rec).ok
        label = f"verify record: {name} ({len(rec['messages'])} msgs)"
        rows.append((label, _bind(rec), max(runs // 5, 20)))
        rows.append(("  the same, --thorough", _bind(rec, thorough=True), max(runs // 10, 10)))
    for label, fn, n in rows:
        print(f"  {label:44} {_median_ms(fn, n):8.3f} ms")


def _bind(rec: dict[str, Any], *, thorough: bool = False) -> Callable[[], object]:
    return lambda: verify_record(rec, thorough=thorough)


if __name__ == "__main__":
    main()
