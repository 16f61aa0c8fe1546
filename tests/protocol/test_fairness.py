"""Tests of protocol.fairness: primitives, HandDealer, HandVerifier and tampering."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games.base import ChanceKind, ChanceRequest
from protocol.cards import DECK_54, DECK_ONE, Card, card, parse_card
from protocol.errors import ErrorCode
from protocol.fairness import (
    DEALER_STREAM,
    CardMismatchError,
    CommitmentError,
    Context,
    ContextError,
    FairnessError,
    FairnessStateError,
    HandDealer,
    HandReport,
    HandVerifier,
    PositionError,
    ReusedSecretError,
    SeatSecret,
    SecretLedger,
    SignatureError,
    SignedMessage,
    Stream,
    choose_dealer,
    deck_key,
    enc,
    host_commitment,
    label,
    mix,
    pack_body,
    player_commitment,
    public_key_bytes,
    ruleset_id,
    shuffle,
    sign_message,
    stream_block,
    u32,
    u64,
)

PIDS = ["alice", "bob", "carol"]
SK = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
PK = public_key_bytes(SK)


def _dealer(**kw: Any) -> HandDealer:
    args: dict[str, Any] = {
        "signing_key": SK,
        "table_id": "table-1",
        "hand_no": 1,
        "ruleset_id": "one-card",
        "deck": DECK_54,
        "pids": PIDS,
        "ledger": SecretLedger(),
    }
    args.update(kw)
    return HandDealer(**args)


@dataclasses.dataclass
class Table:
    dealer: HandDealer
    verifiers: dict[str, HandVerifier]
    sent: list[tuple[SignedMessage, str | None]]  # (message, addressee pid or None = all)

    def broadcast(self, msg: SignedMessage) -> None:
        self.sent.append((msg, None))
        for v in self.verifiers.values():
            v.receive(msg)

    def send_to(self, pid: str, msg: SignedMessage) -> Card:
        self.sent.append((msg, pid))
        got = self.verifiers[pid].receive(msg)
        assert isinstance(got, Card)
        return got


def _setup(deck: tuple[Card, ...] = DECK_54, ruleset_id: str = "one-card") -> Table:
    d = _dealer(deck=deck, ruleset_id=ruleset_id)
    vs = {p: HandVerifier(PK, pid=p, table_id="table-1", pids=PIDS) for p in PIDS}
    t = Table(d, vs, [])
    t.broadcast(d.hand_commit)
    for p, v in vs.items():
        d.accept_commit(p, v.player_commit())
    t.broadcast(d.lock())
    for p, v in vs.items():
        d.accept_reveal(p, v.reveal())
    t.broadcast(d.reveals())
    return t


def _deal_some(t: Table, per_seat: int = 3, choose: bool = True) -> list[Card]:
    req = ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54, choose_dealer=choose)
    ans = t.dealer.answer(req)
    for m in ans.messages:
        t.broadcast(m)
    got: list[Card] = []
    for _ in range(per_seat):
        for seat, p in enumerate(PIDS):
            dealt = t.dealer.draw(0, seat)
            t.broadcast(dealt.draw)
            assert dealt.private is not None
            got.append(t.send_to(p, dealt.private))
    starter = t.dealer.draw(0, None, public=True)
    assert starter.private is None
    t.broadcast(starter.draw)
    return got


# --------------------------------------------------------------------------- primitives


def test_encodings() -> None:
    assert u32(1) == b"\0\0\0\1" and u64(258) == b"\0" * 6 + b"\1\2"
    assert enc("ab", b"\xff") == b"\0\0\0\2ab\0\0\0\1\xff"
    assert enc() == b"" and enc(b"") == b"\0\0\0\0"
    assert label("mix") == b"cardfair/v1/mix"
    for bad in (-1, 2**32):
        with pytest.raises(ValueError):
            u32(bad)
    with pytest.raises(ValueError):
        u64(2**64)


def test_design_note_vector() -> None:
    """FAIRNESS.md 2.11, regenerated: prefixes and the deck order must match the note."""
    ctx = Context.create(
        table_id="table-1",
        hand_no=1,
        ruleset_id="one-card/1",
        deck=DECK_54,
        pids=PIDS,
        host_pk=bytes(32),
    )
    assert ctx.deck_digest.hex().startswith("100abbfd")
    assert ctx.digest.hex().startswith("51cbe590") and ctx.digest.hex().endswith("f7de")
    s = bytes(range(32))
    assert host_commitment(ctx.digest, s).hex().startswith("48f0557a")
    rs = [bytes([0x11]) * 32, bytes([0x22]) * 32, bytes([0x33]) * 32]
    assert player_commitment(ctx.digest, "alice", rs[0]).hex().startswith("e6eee00b")
    m = mix(ctx.digest, rs)
    assert m.hex().startswith("b8590bac")
    k = deck_key(s, ctx.digest, m)
    assert k.hex().startswith("1ea506af") and k.hex().endswith("1bbf")
    st = Stream(k, 0)
    assert [st.next_word() for _ in range(3)] == [0xCF9735A4, 0x2392BF94, 0xDF0EA1A7]
    deck = [c.code for c in shuffle(Stream(k, 0), DECK_54)]
    assert deck[:12] == ["QC", "8D", "QS", "4H", "AC", "8S", "2D", "9S", "7H", "QD", "5H", "KC"]
    assert deck[-3:] == ["10D", "5S", "KD"]
    recycled = [parse_card(x) for x in ["5S", "10S", "KH", "2D", "9C", "JB"]]
    assert [c.code for c in shuffle(Stream(k, 1), recycled)] == [
        "JB",
        "KH",
        "10S",
        "2D",
        "5S",
        "9C",
    ]


def test_below_rejects_low_words() -> None:
    """below(n) rejects words under 2^32 mod n and never returns n or more."""
    key = bytes(32)
    for n in (1, 2, 3, 7, 54, 2**31 + 1, 2**32):
        st = Stream(key, 5)
        for _ in range(200):
            assert 0 <= st.below(n) < max(n, 1)
    # n = 2^31 + 1: lo = 2^31 - 1, so about half of all words are rejected
    st = Stream(key, 5)
    draws = [st.below(2**31 + 1) for _ in range(100)]
    assert st.words_used > 150 and len(draws) == 100
    assert Stream(key, 0).below(1) == 0


def test_stream_reads_the_blocks_in_order() -> None:
    key = bytes(range(32))
    for s in (0, 3, DEALER_STREAM):
        st = Stream(key, s)
        words = [st.next_word() for _ in range(24)]
        blocks = b"".join(stream_block(key, s, j) for j in range(3))
        assert words == [int.from_bytes(blocks[i : i + 4], "big") for i in range(0, 96, 4)]
        assert st.words_used == 24


def test_ruleset_id_is_canonical() -> None:
    assert ruleset_id("one") == "one"
    assert ruleset_id("one-card", {"z": 3, "a": True, "m": "x"}) == "one-card?a=true&m=x&z=3"


def test_context_validation() -> None:
    good: dict[str, Any] = {
        "table_id": "t",
        "hand_no": 1,
        "ruleset_id": "r",
        "deck": DECK_ONE,
        "pids": PIDS,
        "host_pk": PK,
    }
    Context.create(**good)
    changes: list[dict[str, Any]] = [
        {"hand_no": 0},
        {"table_id": ""},
        {"deck": []},
        {"deck": list(reversed(DECK_ONE))},
        {"pids": ["a", "a"]},
        {"host_pk": b"x"},
    ]
    for change in changes:
        with pytest.raises(ContextError):
            Context.create(**(good | change))


# --------------------------------------------------------------------------- full hands


def test_full_hand_verifies_for_every_seat() -> None:
    t = _setup()
    got = _deal_some(t)
    assert len(got) == 9
    end = t.dealer.hand_end()
    reports = [v.receive(end) for v in t.verifiers.values()]
    assert all(isinstance(r, HandReport) for r in reports)
    fps = {r.fingerprint for r in reports if isinstance(r, HandReport)}
    assert len(fps) == 1  # every seat saw the same transcript
    r0 = reports[0]
    assert isinstance(r0, HandReport) and r0.cards_checked == 4 and not r0.voided
    assert r0.dealer == t.dealer.dealer
    order = t.dealer.order(0)
    assert got[:3] == order[:3]


def test_chance_answer_is_the_derived_order_and_dealer() -> None:
    t = _setup()
    ans = t.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54, choose_dealer=True))
    ctx = t.dealer.context.digest
    rs = [t.dealer.reveals_by_pid[p] for p in PIDS]
    key = deck_key(t.dealer._secret, ctx, mix(ctx, rs))
    assert ans.order == shuffle(Stream(key, 0), DECK_54)
    assert ans.dealer == choose_dealer(key, 3) == Stream(key, DEALER_STREAM).below(3)
    assert sorted(ans.order) == sorted(DECK_54)


def test_reshuffle_flow() -> None:
    t = _setup()
    _deal_some(t, per_seat=1, choose=False)
    recycled = tuple(sorted([card("5S"), card("KH"), card("JB"), card("2D")]))
    ans = t.dealer.answer(ChanceRequest(ChanceKind.RESHUFFLE, 1, 1, recycled))
    for m in ans.messages:
        t.broadcast(m)
    assert sorted(ans.order) == list(recycled)
    assert ans.messages[0].decode()["kept"] == []  # what the rules leave on the pile: none here
    dealt = t.dealer.draw(1, 0)
    t.broadcast(dealt.draw)
    assert dealt.private is not None
    assert t.send_to("alice", dealt.private) is ans.order[0]
    with pytest.raises(PositionError, match="current stream is 1"):
        t.dealer.draw(0, 1)
    with pytest.raises(FairnessStateError, match="stream must be 2, not 3"):
        t.dealer.answer(ChanceRequest(ChanceKind.RESHUFFLE, 1, 3, recycled))
    one = _setup(
        deck=DECK_ONE, ruleset_id="one"
    )  # a single AS in this deck: recycling two is refused
    one.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_ONE))
    one.dealer.draw(0, 0)
    with pytest.raises(ContextError, match="recycled cards not in the deck: AS"):
        one.dealer.answer(ChanceRequest(ChanceKind.RESHUFFLE, 1, 1, (card("AS"),) * 2))
    end = t.dealer.hand_end()
    rep = t.verifiers["alice"].receive(end)
    assert isinstance(rep, HandReport) and rep.orders[1] == ans.order


def test_void_reveals_secret_and_names_missing() -> None:
    d = _dealer()
    v = HandVerifier(PK, pid="alice")
    v.receive(d.hand_commit)
    d.accept_commit("alice", v.player_commit())
    for p in ("bob", "carol"):
        d.accept_commit(p, SeatSecret.new(d.context.digest, p).commit_body(1))
    v.receive(d.lock())
    d.accept_reveal("alice", v.reveal())
    assert d.missing_reveals() == ["bob", "carol"]
    with pytest.raises(FairnessStateError, match="none from bob, carol"):
        d.reveals()
    rep = v.receive(d.void("reveal timeout"))
    assert isinstance(rep, HandReport) and rep.voided and rep.missing == ("bob", "carol")
    assert host_commitment(d.context.digest, d.secret) == d.commitment


# --------------------------------------------------------------------------- host-side refusals


def test_secret_reuse_refused() -> None:
    ledger = SecretLedger()
    s = bytes(32)
    _dealer(secret=s, ledger=ledger)
    with pytest.raises(ReusedSecretError) as err:
        _dealer(secret=s, ledger=ledger, hand_no=2)
    assert err.value.code is ErrorCode.FAIRNESS
    a, b = _dealer(ledger=ledger), _dealer(ledger=ledger)
    assert a.commitment != b.commitment  # fresh secrets by default


def test_copied_commitment_refused_by_host() -> None:
    d = _dealer()
    c = SeatSecret.new(d.context.digest, "alice")
    d.accept_commit("alice", c.commit_body(1))
    d.accept_commit("alice", c.commit_body(1))  # idempotent repeat
    with pytest.raises(CommitmentError, match="bob copies that of alice"):
        d.accept_commit("bob", c.commit_body(1))
    with pytest.raises(CommitmentError, match="different value"):
        d.accept_commit("alice", SeatSecret.new(d.context.digest, "alice").commit_body(1))
    with pytest.raises(FairnessStateError, match="no commitment from bob, carol"):
        d.lock()


def test_reveal_must_open_commitment() -> None:
    d = _dealer()
    secrets_ = {p: SeatSecret.new(d.context.digest, p) for p in PIDS}
    for p, s in secrets_.items():
        d.accept_commit(p, s.commit_body(1))
    with pytest.raises(FairnessStateError):
        d.accept_reveal("alice", secrets_["alice"].reveal_body(1))  # before LOCK
    d.lock()
    with pytest.raises(CommitmentError, match="r of bob does not open"):
        d.accept_reveal("bob", secrets_["alice"].reveal_body(1))


def test_host_refuses_out_of_order_positions() -> None:
    t = _setup()
    t.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54))
    with pytest.raises(PositionError, match="position 1, next unused is 0"):
        t.dealer.record_draw(0, 1, 0, public=False)
    t.dealer.record_draw(0, 0, 0, public=False)
    with pytest.raises(PositionError, match="position 0, next unused is 1"):
        t.dealer.record_draw(0, 0, 1, public=False)


# --------------------------------------------------------------------------- client tampering


def _resign(msg: SignedMessage, edit: Callable[[dict[str, Any]], None]) -> SignedMessage:
    body = msg.decode()
    edit(body)
    return sign_message(SK, msg.type, body)


def test_client_refuses_to_reveal_before_lock() -> None:
    d = _dealer()
    v = HandVerifier(PK, pid="alice")
    with pytest.raises(FairnessStateError):
        v.player_commit()
    v.receive(d.hand_commit)
    v.player_commit()
    with pytest.raises(FairnessStateError, match="before a valid LOCK"):
        v.reveal()


def test_bad_signature_caught() -> None:
    d = _dealer()
    v = HandVerifier(PK, pid="alice")
    forged = SignedMessage(d.hand_commit.type, d.hand_commit.body, bytes(64))
    with pytest.raises(SignatureError, match="signature on HAND_COMMIT invalid"):
        v.receive(forged)
    other = Ed25519PrivateKey.generate()
    with pytest.raises(SignatureError):
        v.receive(SignedMessage("hand_commit", d.hand_commit.body, other.sign(b"x")))


def test_a_signature_is_judged_the_same_every_time_under_the_key_it_is_checked_with() -> None:
    """Checks are kept (every party a process plays checks the same messages): a good
    signature holds again, a forged one fails again, and one checked under another key fails."""
    d = _dealer()
    good, pk = d.hand_commit, SK.public_key()
    forged = SignedMessage(good.type, good.body, bytes(63) + b"\x01")
    other = Ed25519PrivateKey.generate().public_key()
    for _ in range(2):
        good.verify(pk)
        with pytest.raises(SignatureError):
            forged.verify(pk)
        with pytest.raises(SignatureError):
            good.verify(other)
        with pytest.raises(SignatureError):
            SignedMessage("lock", good.body, good.sig).verify(pk)  # another type signed


def _locked_pair() -> tuple[HandDealer, HandVerifier, dict[str, SeatSecret]]:
    d = _dealer()
    v = HandVerifier(PK, pid="alice")
    v.receive(d.hand_commit)
    d.accept_commit("alice", v.player_commit())
    others = {p: SeatSecret.new(d.context.digest, p) for p in ("bob", "carol")}
    for p, s in others.items():
        d.accept_commit(p, s.commit_body(1))
    return d, v, others


def test_lock_missing_or_altered_own_commitment() -> None:
    d, v, _ = _locked_pair()
    lock = d.lock()

    def alter(body: dict[str, Any]) -> None:
        body["commits"][0][1] = bytes(32)

    v2 = HandVerifier(PK, pid="alice", seat_secret=v.seat)
    v2.receive(d.hand_commit)
    with pytest.raises(CommitmentError, match="alters our own commitment"):
        v2.receive(_resign(lock, alter))

    def drop(body: dict[str, Any]) -> None:
        del body["commits"][0]

    v3 = HandVerifier(PK, pid="alice", seat_secret=v.seat)
    v3.receive(d.hand_commit)
    with pytest.raises(CommitmentError, match="one entry per seat"):
        v3.receive(_resign(lock, drop))
    v.receive(lock)  # the real one passes
    v.reveal()


def test_lock_with_copied_commitments_rejected() -> None:
    d, v, _ = _locked_pair()
    lock = d.lock()

    def copy(body: dict[str, Any]) -> None:
        body["commits"][2][1] = body["commits"][1][1]

    with pytest.raises(CommitmentError, match="carol equals that of bob"):
        v.receive(_resign(lock, copy))


def test_reveals_not_opening_commitment_rejected() -> None:
    d, v, others = _locked_pair()
    v.receive(d.lock())
    d.accept_reveal("alice", v.reveal())
    for p, s in others.items():
        d.accept_reveal(p, s.reveal_body(1))
    reveals = d.reveals()

    def swap(body: dict[str, Any]) -> None:
        body["reveals"][1][1] = bytes(32)

    with pytest.raises(CommitmentError, match="r of bob does not open"):
        v.receive(_resign(reveals, swap))


def test_skipped_and_repeated_positions_caught_at_draw_time() -> None:
    for pos, word in ((5, "skips"), (2, "repeats")):
        t = _setup()
        _deal_some(t, per_seat=1, choose=False)  # positions 0..3 used
        bad = t.dealer.draw(0, 0)
        body = bad.draw.decode()
        body["pos"] = pos
        forged = sign_message(SK, "draw", body)
        with pytest.raises(PositionError, match=f"position {pos} {word}: next unused position"):
            t.verifiers["bob"].receive(forged)


def test_changed_card_caught_at_hand_end() -> None:
    t = _setup()
    t.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54))
    dealt = t.dealer.draw(0, 0)
    t.broadcast(dealt.draw)
    assert dealt.private is not None
    real = dealt.card
    fake = card("QS") if real is not card("QS") else card("4H")
    forged = _resign(dealt.private, lambda b: b.__setitem__("card", fake.code))
    assert t.send_to("alice", forged) is fake
    with pytest.raises(CardMismatchError) as err:
        t.verifiers["alice"].receive(t.dealer.hand_end())
    assert str(err.value) == f"card at stream 0 position 0 is {fake}, derived {real}"


def test_cards_shown_later_are_checked_at_the_end() -> None:
    t = _setup()
    t.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54))
    for seat in (0, None):  # a card to alice, then one face down to the table (a centre card)
        dealt = t.dealer.draw(0, seat)
        t.broadcast(dealt.draw)
        if dealt.private is not None:
            t.send_to("alice", dealt.private)
    order = t.dealer.order(0)
    bob, carol = t.verifiers["bob"], t.verifiers["carol"]
    bob.note_shown(0, 1, order[1])  # the centre card, turned up honestly
    bob.note_shown(0, 0, order[0])  # alice plays her card
    wrong = card("QS") if order[1] is not card("QS") else card("4H")
    carol.note_shown(0, 1, wrong)  # the host shows carol another centre card
    with pytest.raises(CardMismatchError, match="is shown as"):
        carol.note_shown(0, 1, order[1])
    with pytest.raises(PositionError, match="never drawn"):
        carol.note_shown(0, 2, order[2])
    with pytest.raises(CardMismatchError, match="is shown as"):
        t.verifiers["alice"].note_shown(0, 0, order[1])
    end = t.dealer.hand_end()
    rep = bob.receive(end)
    assert isinstance(rep, HandReport) and rep.cards_checked == 2
    with pytest.raises(CardMismatchError) as err:
        carol.receive(end)
    assert str(err.value) == f"card at stream 0 position 1 is {wrong}, derived {order[1]}"


def test_wrong_secret_caught() -> None:
    t = _setup()
    _deal_some(t, per_seat=1)
    end = _resign(t.dealer.hand_end(), lambda b: b.__setitem__("secret", bytes(32)))
    with pytest.raises(CommitmentError, match="does not open C_S"):
        t.verifiers["carol"].receive(end)


def test_errors_are_typed_with_fairness_code() -> None:
    err = PositionError("x")
    assert isinstance(err, FairnessError) and err.code is ErrorCode.FAIRNESS


def test_body_is_verified_before_decoding() -> None:
    d = _dealer()
    v = HandVerifier(PK)
    raw = d.hand_commit.body
    assert pack_body(d.hand_commit.decode()) == raw
    # the same map re-encoded with a wider integer for seq (0xcc 0x00): same value, other bytes
    assert b"\xa3seq\x00" in raw
    wide = raw.replace(b"\xa3seq\x00", b"\xa3seq\xcc\x00")
    assert SignedMessage("hand_commit", wide, b"").decode() == d.hand_commit.decode()
    with pytest.raises(SignatureError, match="signature on HAND_COMMIT invalid"):
        v.receive(SignedMessage("hand_commit", wide, d.hand_commit.sig))
    v.receive(d.hand_commit)


# --------------------------------------------------------------------------- evidence, purity


def test_bundle_is_a_transferable_proof() -> None:
    from protocol.hand_records import RECORD_FORMAT, verify_record

    t = _setup()
    t.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54))
    honest = t.dealer.draw(0, 1)
    t.broadcast(honest.draw)
    assert honest.private is not None
    t.send_to("bob", honest.private)
    dealt = t.dealer.draw(0, 0)
    t.broadcast(dealt.draw)
    assert dealt.private is not None
    fake = card("QS") if dealt.card is not card("QS") else card("4H")
    t.send_to("alice", _resign(dealt.private, lambda b: b.__setitem__("card", fake.code)))
    v = t.verifiers["alice"]
    end = t.dealer.hand_end()
    with pytest.raises(CardMismatchError):
        v.receive(end)
    t.verifiers["bob"].receive(end)
    bundle = v.bundle()
    assert bundle["format"] == RECORD_FORMAT and bundle["partial"] is True
    verdict = verify_record(bundle)
    assert not verdict.ok and verdict.failure == "CardMismatchError"
    assert f"card at stream 0 position 1 is {fake}, derived {dealt.card}" in verdict.message
    # bob's own bundle of the same hand is valid (partial: only his private cards)
    assert verify_record(t.verifiers["bob"].bundle()).ok


def test_withheld_hand_end_shows_in_the_bundle() -> None:
    from protocol.hand_records import verify_record

    t = _setup()
    _deal_some(t, per_seat=1)
    verdict = verify_record(t.verifiers["carol"].bundle())
    assert not verdict.ok and verdict.message == "record ends before HAND_END or VOID"


def test_void_before_lock_names_seats_without_commitment() -> None:
    d = _dealer()
    d.accept_commit("bob", SeatSecret.new(d.context.digest, "bob").commit_body(1))
    v = HandVerifier(PK)
    v.receive(d.hand_commit)
    rep = v.receive(d.void("commit timeout"))
    assert isinstance(rep, HandReport) and rep.missing == ("alice", "carol")
    with pytest.raises(FairnessStateError):
        d.void("again")


def test_protocol_fairness_is_sans_io() -> None:
    import subprocess
    import sys

    code = (
        "import sys, protocol.fairness, protocol.hand_records\n"
        "bad = [m for m in ('trio', 'socket', 'click') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr


# --------------------------------------------------------------------------- the order table

#: PROTOCOL.md 7.8, written out: the public messages allowed after each one
SPEC_NEXT = {
    "hand_commit": {"lock", "void"},
    "lock": {"reveals", "void"},
    "reveals": {"dealer", "draw", "hand_end", "void"},
    "dealer": {"draw", "hand_end", "void"},
    "draw": {"draw", "reshuffle", "hand_end", "void"},
    "reshuffle": {"draw", "reshuffle", "hand_end", "void"},
}
PUBLIC = ["hand_commit", "lock", "reveals", "dealer", "draw", "reshuffle", "hand_end", "void"]


def _hand_with_everything() -> list[SignedMessage]:
    t = _setup()
    ans = t.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, DECK_54, choose_dealer=True))
    t.dealer.draw(0, 0)
    recycled = tuple(sorted(ans.order[:5]))
    t.dealer.answer(ChanceRequest(ChanceKind.RESHUFFLE, 1, 1, recycled))
    t.dealer.draw(1, None, public=True)
    t.dealer.hand_end()
    return [m for m in t.dealer.messages if m.type != "card"]


def test_every_message_type_after_every_state() -> None:
    msgs = _hand_with_everything()
    templates = {m.type: m.decode() for m in msgs}
    templates["void"] = {"secret": bytes(32), "missing": [], "reason": "test"}
    for n, last in enumerate(msgs[:-1]):
        for mtype in PUBLIC:
            v = HandVerifier(PK, auditor=True, complete=False)
            for m in msgs[: n + 1]:
                v.receive(m)
            body = dict(templates[mtype])
            body.update(seq=n + 1, prev=v.transcript)
            probe = sign_message(SK, mtype, body)
            if mtype not in SPEC_NEXT[last.type]:
                with pytest.raises(FairnessStateError, match="out of order"):
                    v.receive(probe)
            else:
                try:
                    v.receive(probe)
                except FairnessError as exc:  # allowed here, but its content may not fit
                    assert not isinstance(exc, FairnessStateError), (last.type, mtype, exc)
    end = HandVerifier(PK, auditor=True, complete=False)
    for m in msgs:
        end.receive(m)
    with pytest.raises(FairnessStateError, match="after the hand ended"):
        end.receive(msgs[-1])
