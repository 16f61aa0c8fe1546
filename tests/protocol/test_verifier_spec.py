"""PROTOCOL.md 7.8 and 7.9 as tables, held against the reference verifier (issue 24, point 1).

The spec writes out which public message may follow which (7.8) and, for every client check,
the order it runs in and the kind of its failure (7.9). These tests read both tables from the
spec itself and check that :class:`protocol.verifier.HandVerifier` (and the tampered vectors it
generated) agree, so the spec cannot drift from the code: a stranger implementing the tables
reproduces the reference's verdicts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games.base import ChanceKind, ChanceRequest
from protocol import verifier
from protocol.cards import DECK_54, DECK_ONE
from protocol.fairness import (
    FairnessError,
    HandDealer,
    HandVerifier,
    SeatSecret,
    SecretLedger,
    SignedMessage,
    public_key_bytes,
    sign_message,
)

ROOT = Path(__file__).resolve().parents[2]
SPEC = (ROOT / "spec" / "PROTOCOL.md").read_text(encoding="utf-8")
VECTORS = ROOT / "spec" / "vectors"
SK = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
PK = public_key_bytes(SK)
PIDS = ["alice", "bob"]
#: the failure kinds of PROTOCOL.md 8.2
KINDS = {
    "RecordError",
    "SignatureError",
    "BadMessageError",
    "ContextError",
    "DeckError",
    "RulesetError",
    "CommitmentError",
    "PositionError",
    "CardMismatchError",
    "FairnessStateError",
}


def _table_after(heading: str) -> list[list[str]]:
    """The rows (cells stripped) of the first markdown table after ``heading``."""
    start = SPEC.index(heading)
    rows = []
    for line in SPEC[start:].splitlines()[1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # header and rule


def _spec_kinds() -> dict[str, str]:
    """7.9: check name -> failure kind."""
    out = {}
    for check, _message, _when, kind in _table_after("**Order of the checks and the kind"):
        out[check.split()[0].strip("`")] = kind.strip("`")
    return out


def test_the_transition_table_of_7_8_is_the_verifiers() -> None:
    spec: dict[str | None, set[str]] = {}
    for after, allowed in _table_after("As a transition table over the public messages"):
        key = None if after == "(nothing yet)" else after.strip("`")
        spec[key] = set(re.findall(r"`(\w+)`", allowed))
    code = {k if k is None else k.value: {m.value for m in v} for k, v in verifier._NEXT.items()}
    assert spec == code


def test_every_check_of_7_9_has_one_of_the_kinds_of_8_2() -> None:
    kinds = _spec_kinds()
    assert len(kinds) > 40 and set(kinds.values()) <= KINDS


#: tampered vectors (tools/generate_vectors.py) and the 7.9 check each must fail
VECTOR_CHECKS = {
    "unknown_type": "type",
    "hand_commit_prev_not_ctx": "prev-ctx",
    "short_deck": "ruleset-deck",
    "deck_without_jokers": "ruleset-deck",
    "jokers_not_in_ruleset": "ruleset-deck",
    "lock_seats_reordered": "lock-seats",
    "commitment_changed": "reveals-open",  # an auditor has no own c_i: bob's r fails instead
    "copied_commitments": "lock-copies",
    "reveals_entry_missing": "reveals-seats",
    "reveal_not_opening": "reveals-open",
    "dealer_stream_wrong": "dealer-stream",
    "dealer_seats_wrong": "dealer-seats",
    "draw_to_no_seat": "draw-to",
    "wrong_stream": "draw-stream",
    "position_skipped": "draw-pos",
    "reshuffle_extra_copy": "reshuffle-copies",
    "reshuffle_unsorted": "reshuffle-lists",
    "secret_not_opening": "end-secret",
    "dealer_changed": "end-dealer",
    "bad_signature": "signature",
    "card_signature_flipped": "signature",
    "card_moved": "end-private",
    "used_count_changed": "end-counts",
    "card_changed": "end-cards",
    "card_withheld": "end-every-card",
    "private_digest_changed": "end-private",
    "chain_broken": "prev",
}


def test_each_tampered_vector_fails_with_the_kind_7_9_gives_its_check() -> None:
    kinds = _spec_kinds()
    vectors = json.loads((VECTORS / "tampered_records.json").read_text())
    cases = {c["name"]: c for c in vectors["cases"]}
    for name, check in VECTOR_CHECKS.items():
        assert cases[name]["failure"] == kinds[check], (name, check)


def _dealer(deck: Any = DECK_54, hand_no: int = 1) -> HandDealer:
    return HandDealer(
        signing_key=SK,
        table_id="t1",
        hand_no=hand_no,
        pids=PIDS,
        deck=deck,
        ruleset_id="one" if deck == DECK_ONE else "one-card",
        ledger=SecretLedger(),
    )


def _dealt(deck: Any = DECK_54) -> tuple[HandDealer, list[SignedMessage]]:
    """A hand through REVEALS and one face-down DRAW to seat 0 (its CARD last)."""
    d = _dealer(deck)
    seats = [SeatSecret.new(d.context.digest, p) for p in PIDS]
    for s in seats:
        d.accept_commit(s.pid, s.commit_body(1))
    d.lock()
    for s in seats:
        d.accept_reveal(s.pid, s.reveal_body(1))
    d.reveals()
    d.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, tuple(deck)))
    dealt = d.draw(0, 0)
    assert dealt.private is not None
    return d, [m for m in d.messages if m.type != "card"] + [dealt.private]


def _resigned(msg: SignedMessage, **changes: Any) -> SignedMessage:
    body = msg.decode()
    body.update(changes)
    return sign_message(SK, msg.type, body)


def _failure(v: HandVerifier, messages: list[SignedMessage]) -> str:
    with pytest.raises(FairnessError) as failed:
        for m in messages:
            v.receive(m)
    return type(failed.value).__name__


def test_a_hand_no_that_does_not_increase_fails_as_7_9_says() -> None:
    d = _dealer(hand_no=3)
    assert _failure(HandVerifier(PK, last_hand_no=3), [d.hand_commit]) == _spec_kinds()["hand_no"]
    HandVerifier(PK, last_hand_no=2).receive(d.hand_commit)  # a higher one passes


def test_a_reused_host_commitment_fails_as_7_9_says() -> None:
    d = _dealer()
    seen = d.hand_commit.decode()["commit"]
    v = HandVerifier(PK, seen_commitments={seen})
    assert _failure(v, [d.hand_commit]) == _spec_kinds()["commit-reused"]


def test_a_card_the_deck_does_not_hold_fails_as_7_9_says() -> None:
    _, messages = _dealt(DECK_ONE)  # ONE: no twos
    forged = _resigned(messages[-1], card="2S")
    v = HandVerifier(PK, auditor=True, complete=False)
    assert _failure(v, [*messages[:-1], forged]) == _spec_kinds()["card-deck"]


def test_a_missing_body_field_fails_even_where_nil_is_allowed() -> None:
    """7.6: every field of 7.7 is present; nil is written, never left out."""
    _, messages = _dealt()
    draw = messages[-2]
    assert draw.type == "draw" and draw.decode()["card"] is None
    body = draw.decode()
    del body["card"]
    v = HandVerifier(PK, auditor=True, complete=False)
    assert _failure(v, [*messages[:-2], sign_message(SK, "draw", body)]) == "BadMessageError"
    body = draw.decode()
    del body["to"]
    v = HandVerifier(PK, auditor=True, complete=False)
    assert _failure(v, [*messages[:-2], sign_message(SK, "draw", body)]) == "BadMessageError"


def test_a_draw_to_no_seat_fails_before_its_position_is_looked_at() -> None:
    """7.9's order: ``draw-to`` comes before ``draw-pos``: both wrong, the kind is the first's."""
    _, messages = _dealt()
    both = _resigned(messages[-2], to=7, pos=9)
    v = HandVerifier(PK, auditor=True, complete=False)
    assert _failure(v, [*messages[:-2], both]) == _spec_kinds()["draw-to"] == "BadMessageError"
