"""Every registered engine, dealt through HandDealer and checked by every seat's HandVerifier.

How it works: a seeded random game runs until it ends, 300 actions pass, or (ONE) the next
hand asks for a new deal. Chance requests are answered by :meth:`HandDealer.answer`; the
``positions`` of each event's cards become DRAW/CARD messages the way the host maps them (a
private event gives the seat a CARD, a public event showing as many cards as positions deals
them face up, anything else goes to nobody). Each seat verifies everything it receives, the
hand's record must verify, and every card a seat was given must be the one the engine put in
its hand at that moment (the event's cards are the derived cards at its positions).
"""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games import find_game, game_names
from host.games.base import ChanceKind, Event
from protocol.cards import Card
from protocol.fairness import (
    HandDealer,
    HandReport,
    HandVerifier,
    SecretLedger,
    SignedMessage,
    public_key_bytes,
    ruleset_id,
)
from protocol.hand_records import build_record, verify_record

SK = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


class Table:
    def __init__(self, game_name: str, seats: int, rng: random.Random) -> None:
        self.rng = rng
        self.game = find_game(game_name).new_initial_state(seats=seats, options=None, dealer=None)
        request = self.game.chance_request()
        assert request is not None and request.kind is ChanceKind.DEAL
        self.pids = [f"seat{i}" for i in range(seats)]
        self.dealer = HandDealer(
            signing_key=SK,
            table_id="engines",
            hand_no=1,
            ruleset_id=ruleset_id(game_name, self.game.options),
            deck=request.cards,
            pids=self.pids,
            ledger=SecretLedger(),
        )
        pk = public_key_bytes(SK)
        self.verifiers = {p: HandVerifier(pk, pid=p, pids=self.pids) for p in self.pids}
        self.received: dict[int, list[Card]] = {s: [] for s in range(seats)}
        self.checked = 0  # cards whose engine position matched the derived one

    def broadcast(self, msg: SignedMessage) -> list[Card | HandReport | None]:
        return [v.receive(msg) for v in self.verifiers.values()]

    def open_round(self) -> None:
        d = self.dealer
        self.broadcast(d.hand_commit)
        for p, v in self.verifiers.items():
            d.accept_commit(p, v.player_commit())
        self.broadcast(d.lock())
        for p, v in self.verifiers.items():
            d.accept_reveal(p, v.reveal())
        self.broadcast(d.reveals())

    def deal_out(self, events: list[Event]) -> None:
        owner: dict[tuple[int, int], int] = {}
        shown: set[tuple[int, int]] = set()
        named: list[tuple[int, int]] = []
        # (positions, cards) an event shows; an engine may list a hand sorted, so compare sets
        groups: list[tuple[list[tuple[int, int]], list[str]]] = []
        for ev in events:
            pos = [(int(s), int(p)) for s, p in ev.data.get("positions") or []]
            faces = ev.data.get("cards", ev.data.get("card"))
            faces = [faces] if isinstance(faces, str) else faces
            if isinstance(faces, list) and len(faces) == len(pos):
                groups.append((pos, faces))
            if ev.to is not None:
                owner.update(dict.fromkeys(pos, ev.to))
                continue
            named.extend(pos)
            if pos and isinstance(faces, list) and len(faces) == len(pos):
                shown.update(pos)
        derived: dict[tuple[int, int], str] = {}
        for s, p in sorted(set(named) | set(owner)):
            to = owner.get((s, p))
            dealt = self.dealer.record_draw(s, p, to, public=(s, p) in shown and to is None)
            derived[s, p] = dealt.card.code
            self.broadcast(dealt.draw)
            if dealt.private is not None:
                assert to is not None
                got = self.verifiers[self.pids[to]].receive(dealt.private)
                assert got is dealt.card
                self.received[to].append(dealt.card)
        for pos, faces in groups:
            assert sorted(derived[p] for p in pos) == sorted(faces), pos
            self.checked += len(pos)

    def play(self, max_steps: int) -> int:
        steps = deals = 0
        while steps < max_steps:
            request = self.game.chance_request()
            if request is not None:
                deals += request.kind is ChanceKind.DEAL
                if deals > 1:  # ONE: the next hand is a new fairness round
                    break
                answer = self.dealer.answer(request)
                for m in answer.messages:
                    self.broadcast(m)
                self.deal_out(self.game.apply_chance(answer.order, answer.dealer))
                continue
            if self.game.outcome() is not None:
                break
            seat = self.rng.choice(self.game.to_act())
            default = self.game.default_action(seat)
            legal = self.game.legal_actions(seat)
            action = default if default is not None and self.rng.random() < 0.6 else None
            self.deal_out(self.game.apply(seat, action or self.rng.choice(legal)))
            steps += 1
        return steps


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", game_names())
def test_engine_hand_is_dealt_fairly_and_verifies(name: str, seed: int) -> None:
    t = Table(name, 3, random.Random(seed))
    t.open_round()
    t.play(300)
    outcome = t.game.outcome()
    end = t.dealer.hand_end(None if outcome is None else outcome.to_wire())
    reports = t.broadcast(end)
    assert all(isinstance(r, HandReport) for r in reports)
    assert len({r.fingerprint for r in reports if isinstance(r, HandReport)}) == 1
    assert sum(len(cards) for cards in t.received.values()) > 0
    assert t.checked > 0
    record = build_record(t.dealer, game=name, options=t.game.options)
    verdict = verify_record(record)
    assert verdict.ok, verdict.message
    assert verdict.report is not None and verdict.report.dealer == t.dealer.dealer
