"""Tests of protocol.hand_records: building, loading and verifying hand records, and the vectors."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from host.games.base import ChanceKind, ChanceRequest
from protocol import hand_records
from protocol.cards import DECK_ONE
from protocol.fairness import HandDealer, SeatSecret, SecretLedger
from protocol.hand_records import (
    RECORD_FORMAT,
    RecordError,
    build_record,
    dump_record,
    load_record,
    record_messages,
    verify_record,
)

VECTORS = Path(__file__).resolve().parents[2] / "spec" / "vectors"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "cardfair_generate", VECTORS.parents[1] / "tools" / "generate_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _valid() -> dict[str, Any]:
    obj = json.loads((VECTORS / "hand_record.json").read_text(encoding="utf-8"))
    assert isinstance(obj, dict)
    return obj


def _cases() -> list[dict[str, Any]]:
    obj = json.loads((VECTORS / "tampered_records.json").read_text(encoding="utf-8"))
    cases = obj["cases"]
    assert isinstance(cases, list)
    return cases


def test_vector_files_are_up_to_date() -> None:
    gen = _generator()
    texts = gen.build_all()
    for name, text in texts.items():
        assert (VECTORS / name).read_text(encoding="utf-8") == text, f"{name} is stale"


def test_spec_holds_no_code() -> None:
    """The vectors' generator is the reference's code, not part of the contract (issue 24.6):
    ``spec/`` holds the documents and the JSON vectors only, and the generator writes there."""
    files = [p for p in VECTORS.parent.rglob("*") if p.is_file()]
    assert files and not [p for p in files if p.suffix not in (".md", ".json")]
    assert _generator().HERE == VECTORS


def test_valid_record_verifies() -> None:
    v = verify_record(_valid())
    assert v.ok, v.message
    assert v.failure is None and v.report is not None and not v.voided
    assert v.report.cards_checked == 22
    assert v.message.startswith("valid: table table-1 hand 1, 3 seats, 22 cards checked")
    assert v.fingerprint == _valid()["fingerprint"]
    # the derived orders let a replayer answer the engine's chance requests
    assert sorted(v.report.orders) == [0, 1, 2] and len(v.report.orders[0]) == 54


@pytest.mark.parametrize("case", _cases(), ids=lambda c: str(c["name"]))
def test_tampered_record_fails_exactly(case: dict[str, Any]) -> None:
    v = verify_record(case["record"])
    assert not v.ok
    assert (v.failure, v.message_index, v.message) == (
        case["failure"],
        case["message_index"],
        case["message"],
    )


@pytest.mark.parametrize("case", _cases(), ids=lambda c: str(c["name"]))
def test_fast_and_thorough_checks_name_the_same_failure(case: dict[str, Any]) -> None:
    fast, full = verify_record(case["record"]), verify_record(case["record"], thorough=True)
    assert (fast.failure, fast.message_index, fast.message) == (
        full.failure,
        full.message_index,
        full.message,
    )
    assert full.signatures_checked == 0  # failures carry no count: nothing was established


def test_complete_record_needs_one_signature_check() -> None:
    rec = _valid()
    fast, full = verify_record(rec), verify_record(rec, thorough=True)
    assert fast.ok and full.ok and fast.message == full.message
    assert fast.signatures_checked == 1  # HAND_END: prev chains the rest, 'private' the CARDs
    assert full.signatures_checked == len(rec["messages"])


def test_partial_bundle_checks_each_card_signature() -> None:
    rec = _valid()
    mine = [m for m in rec["messages"] if m[0] != "card" or b"\xa2to\x00" in bytes.fromhex(m[1])]
    cards = sum(m[0] == "card" for m in mine)
    assert 0 < cards < sum(m[0] == "card" for m in rec["messages"])
    bundle = {k: rec[k] for k in ("format", "scheme", "table_id", "hand_no", "pids", "host_pk")}
    bundle.update(messages=mine, partial=True)
    v = verify_record(bundle)
    assert v.ok, v.message
    assert v.signatures_checked == 1 + cards  # a bundle lacks other seats' CARDs for 'private'
    assert v.message.startswith("valid (partial: only its own cards): table table-1 hand 1")


def test_defer_signatures_is_for_auditors_only() -> None:
    from protocol.fairness import FairnessStateError, HandVerifier

    with pytest.raises(FairnessStateError, match="only an auditor"):
        HandVerifier(bytes.fromhex(_valid()["host_pk"]), defer_signatures=True)


def test_tampered_cases_cover_the_brief() -> None:
    names = {c["name"] for c in _cases()}
    assert {
        "card_changed",
        "position_skipped",
        "position_repeated",
        "reshuffle_changed",
        "commitment_changed",
        "reveal_not_opening",
        "secret_not_opening",
        "bad_signature",
        "copied_commitments",
    } <= names


def _one_hand(void: bool = False) -> HandDealer:
    sk = Ed25519PrivateKey.generate()
    d = HandDealer(
        signing_key=sk,
        table_id="t9",
        hand_no=4,
        ruleset_id="one?target=200",
        deck=DECK_ONE,
        pids=["p", "q"],
        ledger=SecretLedger(),
    )
    seats = [SeatSecret.new(d.context.digest, p) for p in ("p", "q")]
    for s in seats:
        d.accept_commit(s.pid, s.commit_body(4))
    d.lock()
    d.accept_reveal("p", seats[0].reveal_body(4))
    if void:
        d.void("reveal timeout")
        return d
    d.accept_reveal("q", seats[1].reveal_body(4))
    d.reveals()

    d.answer(ChanceRequest(ChanceKind.DEAL, 4, 0, DECK_ONE))
    for i in range(10):
        d.draw(0, i % 2)
    d.draw(0, None, public=True)
    d.hand_end({"winners": [1]})
    return d


def test_build_record_round_trip(tmp_path: Path) -> None:
    d = _one_hand()
    rec = build_record(
        d, game="one", options={"target": 200}, dealer_seat=1, actions=[{"a": 1}], outcome=None
    )
    assert rec["format"] == RECORD_FORMAT and rec["dealer"] == 1 and not rec["dealer_chosen"]
    path = tmp_path / "hand.json"
    path.write_text(dump_record(rec), encoding="utf-8")
    v = verify_record(load_record(path))
    assert v.ok, v.message
    assert v.report is not None and v.report.outcome == {"winners": [1]}
    assert v.report.cards_checked == 11


def test_build_record_refuses_wrong_ruleset() -> None:
    with pytest.raises(RecordError, match="ruleset"):
        build_record(_one_hand(), game="one", options={})


def test_void_record_verifies_and_checks_partial_reveals() -> None:
    rec = build_record(_one_hand(void=True), game="one", options={"target": 200})
    v = verify_record(rec)
    assert v.ok and v.voided, v.message
    assert "voided, missing q" in v.message
    bad = copy.deepcopy(rec)
    bad["reveals"][0][1] = bytes(32).hex()
    v2 = verify_record(bad)
    assert not v2.ok and v2.message == "record reveal of p does not open its LOCK commitment"


def test_a_void_record_without_lock_lists_no_reveal() -> None:
    """PROTOCOL.md 8.1 (issue 24.3): a hand voided before LOCK has no commitment to open, so
    its record's ``reveals`` is empty, and any entry in it fails."""
    sk = Ed25519PrivateKey.generate()
    d = HandDealer(
        signing_key=sk,
        table_id="t9",
        hand_no=4,
        ruleset_id="one?target=200",
        deck=DECK_ONE,
        pids=["p", "q"],
        ledger=SecretLedger(),
    )
    d.accept_commit("p", SeatSecret.new(d.context.digest, "p").commit_body(4))
    d.void("commit timeout")
    rec = build_record(d, game="one", options={"target": 200})
    assert rec["reveals"] == [] and verify_record(rec).ok
    rec["reveals"] = [["p", bytes(32).hex()]]
    assert verify_record(rec).message == "record reveal of p does not open its LOCK commitment"


def test_game_without_options_means_a_game_without_options() -> None:
    """PROTOCOL.md 8.2 (issue 24.3): ``game`` alone is checked as ``ruleset_id(game, {})``: the
    record of a table with options must give them; ``options`` alone cannot be checked."""
    rec = build_record(_one_hand(), game="one", options={"target": 200})
    del rec["options"]
    assert verify_record(rec).message.startswith("game and options give ruleset 'one', signed")
    del rec["game"]
    assert verify_record(rec).ok  # neither: nothing to compare


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.pop("messages"), "record lacks field 'messages'"),
        (lambda r: r.update(host_pk=r["host_pk"].upper()), "record field host_pk is not lowercase"),
        (lambda r: r.update(secret=" " + r["secret"]), "record field secret is not lowercase hex"),
        (lambda r: r.pop("game"), "record field 'options' without 'game'"),
        (lambda r: r.update(partial=1), "record field 'partial' is not true or false"),
        (lambda r: r.update(dealer_chosen="yes"), "record field 'dealer_chosen' is not true or"),
        (lambda r: r.update(hand_no=1.0), "record field 'hand_no' is not an integer"),
        (lambda r: r.pop("format"), "not a hand record (no 'format' field)"),
        (lambda r: r.update(format="x"), "record format 'x' is not 'onecard-hand-record/1'"),
        (lambda r: r.update(host_pk="zz"), "record field host_pk is not lowercase hex"),
        (lambda r: r.update(hand_no="1"), "record field 'hand_no' is not an integer"),
        (lambda r: r["messages"].__setitem__(3, ["draw", "00"]), "message 3 is not [type, "),
        (lambda r: r.update(pids=["alice", "bob"]), "message 0 (HAND_COMMIT): HAND_COMMIT seats"),
        (lambda r: r.update(game="one"), "game and options give ruleset 'one', signed"),
        (lambda r: r.update(hand_no=2), "record says hand 2, HAND_COMMIT says 1"),
    ],
)
def test_malformed_records_are_named(edit: Any, message: str) -> None:
    rec = _valid()
    edit(rec)
    v = verify_record(rec)
    assert not v.ok and v.message.startswith(message), v.message


def test_garbage_bodies_never_raise() -> None:
    rec = _valid()
    rec["messages"][5][1] = "c1"  # msgpack "never used" byte, but the signature fails first
    assert verify_record(rec).failure == "SignatureError"
    assert not verify_record([1, 2]).ok
    assert not verify_record({"format": RECORD_FORMAT}).ok


def test_load_record_errors(tmp_path: Path) -> None:
    cases = {"a.json": b"{not json", "b.json": b"\xff\xfe", "c.json": b"[1, 2]"}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    with pytest.raises(RecordError, match=r"not JSON \(Expecting property name"):
        load_record(tmp_path / "a.json")
    with pytest.raises(RecordError, match="not UTF-8"):
        load_record(tmp_path / "b.json")
    with pytest.raises(RecordError, match="top level is not an object"):
        load_record(tmp_path / "c.json")
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**70) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_verify_record_never_raises_on_mutated_fields(data: st.DataObject) -> None:
    rec = _valid()
    key = data.draw(st.sampled_from(sorted(rec)))
    rec[key] = data.draw(_JSON)
    v = verify_record(rec)
    assert isinstance(v.ok, bool) and "\n" not in v.message


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_any_flipped_byte_breaks_a_signature(data: st.DataObject) -> None:
    rec = _valid()
    i = data.draw(st.integers(0, len(rec["messages"]) - 1))
    part = data.draw(st.sampled_from([1, 2]))
    raw = bytearray.fromhex(rec["messages"][i][part])
    pos = data.draw(st.integers(0, len(raw) - 1))
    raw[pos] ^= data.draw(st.integers(1, 255))
    rec["messages"][i][part] = raw.hex()
    v = verify_record(rec)
    assert (v.ok, v.failure, v.message_index) == (False, "SignatureError", i)
    assert verify_record(rec, thorough=True).message == v.message


def test_reveals_are_written_in_seat_order_whatever_order_they_arrived_in() -> None:
    """PROTOCOL.md 8.1 (issue 17, point 1): a host wrote arrival order; a strict checker
    following the vector's seat order rejected real records."""
    d = HandDealer(
        signing_key=Ed25519PrivateKey.generate(),
        table_id="t9",
        hand_no=1,
        ruleset_id="one?target=200",
        deck=DECK_ONE,
        pids=["p", "q", "r"],
        ledger=SecretLedger(),
    )
    seats = [SeatSecret.new(d.context.digest, p) for p in ("p", "q", "r")]
    for s in seats:
        d.accept_commit(s.pid, s.commit_body(1))
    d.lock()
    for s in reversed(seats):  # r, q, p
        d.accept_reveal(s.pid, s.reveal_body(1))
    d.reveals()
    d.void("host stopped")
    rec = build_record(d, game="one", options={"target": 200})
    assert [p for p, _ in rec["reveals"]] == ["p", "q", "r"]
    assert verify_record(rec).ok


@pytest.mark.parametrize(
    ("dealer", "chosen", "message"),
    [
        (1, False, None),
        (None, None, None),
        (2, False, "record field 'dealer' is 2, not a seat or null"),
        ("1", False, "record field 'dealer' is '1', not a seat or null"),
        (1, True, "record says the dealer was chosen, but there is no DEALER"),
    ],
)
def test_a_dealer_not_chosen_by_lot_must_be_a_seat_or_null(
    dealer: Any, chosen: bool | None, message: str | None
) -> None:
    """PROTOCOL.md 8.2 step 4 (issue 17, point 12): with ``dealer_chosen`` false there is no
    DEALER message to compare with, so ``dealer`` (unsigned) need only be a seat or null."""
    rec = build_record(_one_hand(), game="one", options={"target": 200}, dealer_seat=1)
    rec["dealer"] = dealer
    if chosen is None:
        rec.pop("dealer_chosen")
    else:
        rec["dealer_chosen"] = chosen
    v = verify_record(rec)
    assert v.ok is (message is None), v.message
    if message is not None:
        assert v.message == message


def _audited(**change: Any) -> dict[str, Any]:
    """A record of :func:`_one_hand` whose audit found seat q's third action illegal (the
    hand is not masked: the audit line is checked on its own, :func:`_audit_line_of`)."""
    actions = [
        {"seat": 1, "action": {"type": "bid", "value": 10}},
        {"seat": 0, "action": {"type": "pass"}},
        {"seat": 1, "action": {"type": "play", "card": "9H"}},
    ]
    audit = {
        "seat": 1,
        "action": {"type": "play", "card": "9H"},
        "reason": "you must follow suit (S) and can",
        "code": "illegal_action",
        "index": 2,
    }
    rec = build_record(_one_hand(), game="one", options={"target": 200}, actions=actions)
    return {**rec, "audit": {**audit, **change}}


def _audit_line_of(rec: dict[str, Any]) -> str:
    """What ``verify_record`` adds for ``rec``'s audit, were the hand private."""
    report = verify_record({k: v for k, v in rec.items() if k != "audit"}).report
    assert report is not None
    return hand_records._audit_line({**rec, "private": True}, report, record_messages(rec))


def test_verify_shows_an_audit_finding_with_the_cards_dealt_to_its_seat() -> None:
    rec = _audited()
    report = verify_record({k: v for k, v in rec.items() if k != "audit"}).report
    assert report is not None
    dealt = [c.code for c in report.orders[0][1:10:2]]  # q drew positions 1, 3, .. 9
    assert _audit_line_of(rec) == (
        "; audit: q forfeits the hand: action 3 of the hand (play card=9H) broke a rule: you "
        "must follow suit (S) and can (the host's finding, not signed; the signed cards: q was "
        f"dealt {' '.join(dealt)})"
    )
    assert "audit" not in build_record(_one_hand(), game="one", options={"target": 200})
    # only a private hand that ended has an audit to show
    normal = verify_record(rec)
    assert not normal.ok
    assert normal.message == "record field 'audit' belongs only to a private hand that ended"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seat": 2}, "record field 'audit' names no seat of this hand: 2"),
        ({"seat": True}, "record field 'audit' names no seat of this hand: True"),
        ({"index": -1}, "record field 'audit' names no action: -1"),
        ({"reason": None}, "record field 'audit' lacks its action or its reason"),
        ({"index": 1}, "record field 'audit' names action 1 of seat 1, which is not that action"),
        ({"action": {"type": "pass"}}, "record field 'audit' names action 2 of seat 1, which"),
        ({"index": 9}, "record field 'audit' names action 9 of seat 1, which is not that action"),
    ],
)
def test_a_malformed_audit_finding_fails_the_record(change: dict[str, Any], message: str) -> None:
    with pytest.raises(RecordError) as info:
        _audit_line_of(_audited(**change))
    assert info.value.message.startswith(message), info.value.message
    with pytest.raises(RecordError, match="record field 'audit' is not a map"):
        _audit_line_of({**_audited(), "audit": [1]})
