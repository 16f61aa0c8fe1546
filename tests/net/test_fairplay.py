"""net/fairplay.py: a seat's deal checks (DealChecker) against a real HandDealer: an honest
hand verifies, a card the host changed is caught at the hand's end with exactly what failed, a
card shown in our hand that was never dealt to us is caught at once, and the evidence is saved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import protocol.table_messages as tm
from client.record_fetch import proof_keeper
from host.games.base import ChanceKind, ChanceRequest
from net.fairplay import DealChecker, FairKind
from net.seat import SeatClient
from protocol.cards import DECK_52
from protocol.fairness import HandDealer, SeatSecret, SignedMessage, key_fingerprint, sign_message
from protocol.hand_records import verify_record
from protocol.messages import Message

PIDS = ["Ann", "Bob"]


class _Table:
    """A host side for one hand, feeding a checker seated as Ann."""

    def __init__(self, tmp_path: Path) -> None:
        self.sk = Ed25519PrivateKey.generate()
        self.dealer = HandDealer(
            signing_key=self.sk,
            table_id="t1",
            hand_no=1,
            ruleset_id="black-jack",
            deck=DECK_52,
            pids=PIDS,
        )
        self.checker = DealChecker(table_id="t1", pid="Ann", keep=proof_keeper(tmp_path / "proofs"))
        self.seq = 0
        self.notices: list[Any] = []

    def push(self, msg: SignedMessage, host_seats: tuple[int, ...] = ()) -> list[Any]:
        if msg.type == "draw":  # a host names where a card goes in an event before its DRAW
            body = msg.decode()
            where = {"positions": [[body["stream"], body["pos"]]], "seats": [body["to"]]}
            self.notices.extend(self.checker.shown({"kind": "draw", **where}))
        self.seq += 1
        push = tm.FairPush(
            table="t1", seq=self.seq, hand_no=1, msg=msg.to_wire(), host_seats=host_seats
        )
        out, notices = self.checker.receive(push)
        self.notices.extend(notices)
        return out

    def open_round(self) -> None:
        (commit,) = self.push(self.dealer.hand_commit)
        assert isinstance(commit, tm.FairCommit) and commit.hand_no == 1
        self.dealer.accept_commit("Ann", {"hand_no": 1, "c": commit.c})
        bob = SeatSecret.new(self.dealer.context.digest, "Bob")
        self.dealer.accept_commit("Bob", bob.commit_body(1))
        (reveal,) = self.push(self.dealer.lock())
        assert isinstance(reveal, tm.FairReveal)
        self.dealer.accept_reveal("Ann", {"hand_no": 1, "r": reveal.r})
        self.dealer.accept_reveal("Bob", bob.reveal_body(1))
        assert self.push(self.dealer.reveals()) == []
        answer = self.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, tuple(DECK_52)))
        for msg in answer.messages:
            self.push(msg)


def test_an_honest_hand_is_verified_and_its_proof_saved(tmp_path: Path) -> None:
    t = _Table(tmp_path)
    t.open_round()
    got = []
    for to in (0, 1, 0):
        dealt = t.dealer.draw(0, to)
        t.push(dealt.draw)
        if to == 0:
            assert dealt.private is not None
            t.push(dealt.private)
            got.append(dealt.card.code)
    assert t.checker.check_hand(got) == []
    t.push(t.dealer.hand_end(None))
    (notice,) = t.notices
    assert notice.kind is FairKind.VERIFIED and notice.cards_checked == 2
    assert notice.message == "deal verified: 2 cards you saw checked"
    assert notice.fingerprint and notice.proof is not None
    bundle = json.loads(notice.proof.read_text())
    assert bundle["table_id"] == "t1" and len(bundle["messages"]) == 9
    assert verify_record(bundle).ok  # onecard verify accepts the saved proof


def test_a_changed_card_is_caught_at_the_hands_end(tmp_path: Path) -> None:
    t = _Table(tmp_path)
    t.open_round()
    dealt = t.dealer.draw(0, 0)
    t.push(dealt.draw)
    assert dealt.private is not None
    body = dealt.private.decode()
    other = "2C" if body["card"] != "2C" else "3C"
    forged = sign_message(t.sk, "card", {**body, "card": other})  # the host lies about a card
    t.push(forged)
    t.push(t.dealer.hand_end(None))
    (notice,) = t.notices
    assert notice.kind is FairKind.FAILED
    assert f"card at stream 0 position 0 is {other}, derived {body['card']}" in notice.message
    assert notice.proof is not None
    verdict = verify_record(json.loads(notice.proof.read_text()))
    assert not verdict.ok and verdict.failure == "CardMismatchError"  # transferable evidence


def test_a_card_never_dealt_to_us_is_caught_at_once(tmp_path: Path) -> None:
    t = _Table(tmp_path)
    t.open_round()
    dealt = t.dealer.draw(0, 0)
    t.push(dealt.draw)
    assert dealt.private is not None
    t.push(dealt.private)
    (notice,) = t.checker.check_hand([dealt.card.code, "JR"])
    assert notice.kind is FairKind.FAILED and "JR" in notice.message
    t.push(t.dealer.hand_end(None))
    assert t.notices[-1].kind is FairKind.FAILED
    assert t.notices[-1].message.startswith("deal NOT verified: the host shows JR")


def test_we_never_reveal_before_a_valid_lock(tmp_path: Path) -> None:
    t = _Table(tmp_path)
    t.push(t.dealer.hand_commit)
    bogus = sign_message(Ed25519PrivateKey.generate(), "lock", {"seq": 1})  # not the host's key
    assert t.push(bogus) == []
    assert t.notices and t.notices[0].kind is FairKind.FAILED
    assert "signature" in t.notices[0].message.lower()


def test_after_a_failed_check_a_seat_sends_the_host_nothing_more_for_that_hand(
    tmp_path: Path,
) -> None:
    """PROTOCOL.md 7.9 (issue 24.5): a failed check is the client's verdict, not a message:
    it sends no ``error``, and no commitment or reveal for the rest of that hand (here its
    reveal, so the host voids the round); it keeps the messages and reports at the end."""
    t = _Table(tmp_path)
    (commit,) = t.push(t.dealer.hand_commit)
    t.dealer.accept_commit("Ann", {"hand_no": 1, "c": commit.c})
    t.dealer.accept_commit("Bob", SeatSecret.new(t.dealer.context.digest, "Bob").commit_body(1))
    lock = t.dealer.lock()
    body = lock.decode()
    body["commits"] = body["commits"][::-1]  # one entry per seat, but not in seat order
    assert t.push(sign_message(t.sk, "lock", body)) == []
    (failed,) = t.notices
    assert failed.kind is FairKind.FAILED and "one entry per seat" in failed.message
    assert t.push(lock) == []  # even the real LOCK gets no reveal now
    assert t.push(t.dealer.void("reveal timeout")) == []
    assert t.notices[-1].kind is FairKind.FAILED
    assert t.notices[-1].message.startswith("deal NOT verified: LOCK lists seats")
    assert t.notices[-1].proof is not None  # the evidence is kept


def test_hand_numbers_and_host_commitments_are_remembered_per_table_for_the_run(
    tmp_path: Path,
) -> None:
    """PROTOCOL.md 7.9 (issue 24.11): the last ``hand_no`` and the host commitments seen are
    kept per table for as long as the client follows it, voided hands included; a client
    that starts afresh (a new checker) accepts any at first."""
    t = _Table(tmp_path)
    t.push(t.dealer.hand_commit)
    t.push(t.dealer.void("commit timeout"))
    again = sign_message(t.sk, "hand_commit", t.dealer.hand_commit.decode())  # hand_no 1 again
    push = tm.FairPush(table="t1", seq=10, hand_no=1, msg=again.to_wire(), host_seats=())
    sent, (failed,) = t.checker.receive(push)
    assert sent == [] and failed.kind is FairKind.FAILED
    assert "hand_no 1 does not exceed 1" in failed.message
    fresh = DealChecker(table_id="t1", pid="Ann")
    (commit,), notices = fresh.receive(push)
    assert isinstance(commit, tm.FairCommit) and notices == []


def test_a_seat_sitting_out_sends_nothing_and_still_checks_its_cards(tmp_path: Path) -> None:
    t = _Table(tmp_path)
    assert t.push(t.dealer.hand_commit, host_seats=(0,)) == []  # the host supplies our r
    ctx = t.dealer.context.digest
    secrets = {pid: SeatSecret.new(ctx, pid) for pid in PIDS}
    for pid, sec in secrets.items():
        t.dealer.accept_commit(pid, sec.commit_body(1))
    assert t.push(t.dealer.lock()) == []  # no reveal from a seat that did not commit
    for pid, sec in secrets.items():
        t.dealer.accept_reveal(pid, sec.reveal_body(1))
    t.push(t.dealer.reveals())
    t.dealer.answer(ChanceRequest(ChanceKind.DEAL, 1, 0, tuple(DECK_52)))
    dealt = t.dealer.draw(0, 0)
    t.push(dealt.draw)
    assert dealt.private is not None
    t.push(dealt.private)
    t.push(t.dealer.hand_end(None))
    assert [n.kind for n in t.notices] == [FairKind.VERIFIED]
    assert t.notices[0].cards_checked == 1
    assert t.notices[0].message == "deal verified: 1 card you saw checked"


def test_a_hand_joined_midway_is_reported_once_as_unchecked(tmp_path: Path) -> None:
    t = _Table(tmp_path)
    # the HAND_COMMIT was sent before we arrived: we see the LOCK first
    for pid in PIDS:
        t.dealer.accept_commit(pid, SeatSecret.new(t.dealer.context.digest, pid).commit_body(1))
    assert t.push(t.dealer.lock()) == []
    assert t.push(t.dealer.void("timeout", ["Ann", "Bob"])) == []
    assert [(n.kind, n.hand_no) for n in t.notices] == [(FairKind.UNCHECKED, 1)]
    assert "cannot be verified" in t.notices[0].message


def test_a_deal_signed_by_another_key_than_the_pinned_one_fails(tmp_path: Path) -> None:
    t = _Table(tmp_path)
    other = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    t.checker = DealChecker(table_id="t1", pid="Ann", host_pk=other)
    assert t.push(t.dealer.hand_commit) == []  # no commitment to an impostor's hand
    (notice,) = t.notices
    assert notice.kind is FairKind.FAILED
    assert "the host's deal key changed" in notice.message  # named, not a bad signature
    assert key_fingerprint(other) in notice.message


def test_a_first_hand_commit_whose_signature_fails_pins_no_deal_key(tmp_path: Path) -> None:
    """PROTOCOL.md 7.6 (issue 17, point 5): on first use the key comes from the hand_commit's
    own body, and is pinned only once that message's signature verified under it."""
    t = _Table(tmp_path)
    honest = t.dealer.hand_commit
    forged = SignedMessage(honest.type, honest.body, honest.sig[:-1] + bytes([honest.sig[-1] ^ 1]))
    assert t.push(forged) == []
    (notice,) = t.notices
    assert notice.kind is FairKind.FAILED and "signature" in notice.message
    assert t.checker.host_pk is None  # nothing pinned from a message that did not verify
    t.checker = DealChecker(table_id="t1", pid="Ann", keep=proof_keeper(tmp_path / "proofs"))
    (commit,) = t.push(honest)
    assert isinstance(commit, tm.FairCommit)
    assert t.checker.host_pk == t.sk.public_key().public_bytes_raw()


def test_a_hand_we_lost_track_of_ends_without_a_verdict(tmp_path: Path) -> None:
    """A spectator that watched again after a drop missed messages: no false alarm."""
    t = _Table(tmp_path)
    t.open_round()
    t.push(t.dealer.draw(0, 1).draw)
    t.checker.lose_track()
    t.dealer.draw(0, 1)  # missed while reconnecting: the chain has a gap for us
    t.push(t.dealer.draw(0, 1).draw)
    t.push(t.dealer.hand_end(None))
    assert t.notices == []  # neither "verified" nor "NOT verified"
    assert t.checker.failure is None


def test_two_clients_sharing_a_proofs_dir_keep_both_bundles(tmp_path: Path) -> None:
    """Ann and a spectator on one machine (one state dir): the second bundle of the hand goes
    beside the first, not over it."""
    t = _Table(tmp_path)
    bob = DealChecker(table_id="t1", pid=None, keep=proof_keeper(tmp_path / "proofs"))
    t.open_round()
    dealt = t.dealer.draw(0, 0)  # a card to Ann: her bundle holds it, the spectator's cannot
    assert dealt.private is not None
    t.push(dealt.draw)
    t.push(dealt.private)
    for msg in t.dealer.messages:
        if msg.type == "draw":
            bob.shown({"kind": "draw", "positions": [[0, 0]], "seats": [0]})
        if msg.type != "card":
            bob.receive(tm.FairPush(table="t1", seq=1, hand_no=1, msg=msg.to_wire()))
    end = t.dealer.hand_end(None)
    t.push(end)
    _, notices = bob.receive(tm.FairPush(table="t1", seq=2, hand_no=1, msg=end.to_wire()))
    assert [n.kind for n in (*t.notices, *notices)] == [FairKind.VERIFIED] * 2
    assert t.notices[0].message == "deal verified: 1 card you saw checked"
    # (before, the spectator was told "1 card you saw checked" too, as if dealt one)
    assert notices[0].message == "deal verified: 0 cards shown to the table checked"
    ann_proof, bob_proof = t.notices[0].proof, notices[0].proof
    assert ann_proof is not None and bob_proof is not None and ann_proof != bob_proof
    assert json.loads(ann_proof.read_text()) != json.loads(bob_proof.read_text())


def _centre(card: str, position: int) -> tm.EventPush:
    event = {"kind": "centre", "seat": 0, "card": card, "position": [0, position]}
    return tm.EventPush(table="t1", seq=99, event=event)


async def test_a_card_dealt_face_down_and_turned_up_later_is_checked(tmp_path: Path) -> None:
    """ONE's centre card: dealt face down to the table, shown by a game event at the last
    trick. Before, no client compared it with the deal (PROTOCOL.md 7.9 says it must)."""
    for honest in (True, False):
        t = _Table(tmp_path / str(honest))
        tc = SeatClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
        tc.checker = t.checker
        t.open_round()
        centre = t.dealer.draw(0, None)  # face down to the table: no card in the DRAW
        t.push(centre.draw)
        real = centre.card.code
        shown = real if honest else ("2C" if real != "2C" else "3C")
        assert await tc.handle(_centre(shown, 0)) == []
        t.push(t.dealer.hand_end(None))
        (notice,) = t.notices
        if honest:
            assert notice.kind is FairKind.VERIFIED and notice.cards_checked == 1
        else:
            assert notice.kind is FairKind.FAILED
            assert f"card at stream 0 position 0 is {shown}, derived {real}" in notice.message


async def test_a_shown_card_waits_for_its_draw_and_one_never_drawn_fails_at_the_end(
    tmp_path: Path,
) -> None:
    """An event may name a position before its DRAW arrives (Black Jack's turn-up): it waits;
    at HAND_END a position still never drawn is a failure."""
    t = _Table(tmp_path)
    tc = SeatClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
    tc.checker = t.checker
    t.open_round()
    up = t.dealer.draw(0, None, public=True)
    assert await tc.handle(_centre(up.card.code, 0)) == []  # before its DRAW: waits
    t.push(up.draw)
    assert await tc.handle(_centre("JR", 7)) == []
    t.push(t.dealer.hand_end(None))
    failed, told = t.notices
    assert failed.kind is FairKind.FAILED and "position 7 was never drawn" in failed.message
    assert told.message == "deal NOT verified: stream 0 position 7 was never drawn"


async def test_an_unknown_card_shown_fails_at_once(tmp_path: Path) -> None:
    t = _Table(tmp_path)
    tc = SeatClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
    tc.checker = t.checker
    t.open_round()
    (notice,) = await tc.handle(_centre("ZZ", 0))
    assert notice.kind is FairKind.FAILED and "unknown card 'ZZ'" in notice.message


async def test_watching_again_after_a_drop_keeps_the_chat_name() -> None:
    """``rewatch`` (after a reconnect) sends the name ``watch`` was given, and stops the live
    check of the hand in progress (a spectator gets no backlog)."""
    sent: list[Message] = []

    class Session:
        async def request(self, msg: Message) -> Message:
            sent.append(msg)
            return tm.Watching(table="t1")

    tc = SeatClient(Session(), table_id="t1", name=None)  # type: ignore[arg-type]
    await tc.watch("Sam")
    assert sent == [tm.Watch(table="t1", name="Sam")] and tc.watching
    lost: list[bool] = []
    tc.checker.lose_track = lambda: lost.append(True)  # type: ignore[method-assign]
    await tc.rewatch()
    assert sent[-1] == tm.Watch(table="t1", name="Sam") and lost == [True]


async def test_a_card_dealt_face_down_to_the_table_must_be_shown_by_the_hands_end(
    tmp_path: Path,
) -> None:
    """A host that never turns the centre card up (so nobody checks it) fails the hand."""
    t = _Table(tmp_path)
    t.open_round()
    t.push(t.dealer.draw(0, None).draw)  # face down to the table, never shown
    t.push(t.dealer.hand_end(None))
    assert t.notices[0].kind is FairKind.FAILED
    assert "dealt face down to the table at stream 0 position 0 was never shown" in (
        t.notices[0].message
    )


async def test_a_card_shown_after_the_hands_end_is_still_checked(tmp_path: Path) -> None:
    for honest in (True, False):
        t = _Table(tmp_path / str(honest))
        tc = SeatClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
        tc.checker = t.checker
        t.open_round()
        centre = t.dealer.draw(0, None)
        t.push(centre.draw)
        real = centre.card.code
        assert await tc.handle(_centre(real, 0)) == []  # shown in time: the hand verifies
        t.push(t.dealer.hand_end(None))
        assert [n.kind for n in t.notices] == [FairKind.VERIFIED]
        late = real if honest else ("2C" if real != "2C" else "3C")
        notices = await tc.handle(_centre(late, 0))  # shown again, after HAND_END
        if honest:
            assert notices == []
        else:
            (notice,) = notices
            assert notice.kind is FairKind.FAILED and "after the hand's end" in notice.message


def test_cards_checked_says_they_are_the_cards_this_client_saw() -> None:
    """Before: "deal verified: 64 cards checked" here, 83 there, 239 in the record."""
    checker = DealChecker(table_id="t1", pid="ann")
    checker.seated = True
    report = type(
        "R", (), {"voided": False, "hand_no": 1, "cards_checked": 64, "fingerprint": "ab"}
    )()
    notice = checker._finish(report)  # type: ignore[arg-type]
    assert notice.message == "deal verified: 64 cards you saw checked"
    assert notice.to_json()["cards_checked"] == 64


def _commit(sk: Ed25519PrivateKey, hand_no: int, rid: str, deck: Any = DECK_52) -> SignedMessage:
    d = HandDealer(
        signing_key=sk, table_id="t1", hand_no=hand_no, ruleset_id=rid, deck=deck, pids=PIDS
    )
    return d.hand_commit


def test_the_ruleset_is_the_tables_and_does_not_change_between_hands(tmp_path: Path) -> None:
    """With ``table_info`` the signed ruleset must be the table's; without it, the first
    hand's, and every hand's deck must be its ruleset's."""
    sk = Ed25519PrivateKey.generate()

    def first_failure(checker: DealChecker, *commits: SignedMessage) -> str:
        for n, msg in enumerate(commits, 1):
            push = tm.FairPush(table="t1", seq=n, hand_no=n, msg=msg.to_wire())
            _, notices = checker.receive(push)
            if notices:
                (notice,) = notices
                assert notice.kind is FairKind.FAILED and notice.proof is not None
                verdict = verify_record(json.loads(notice.proof.read_text("utf-8")))
                return f"{verdict.failure}: {notice.message}"
        return ""

    told = DealChecker(table_id="t1", pid="Ann", keep=proof_keeper(tmp_path / "a"))
    told.table_options("black-jack", {"jokers": 0, "chain": False})
    other = _commit(sk, 1, "black-jack?chain=true&jokers=0")
    assert first_failure(told, other).startswith("RulesetError: fairness check failed: ")
    assert "ruleset 'black-jack?chain=true&jokers=0', expected 'black-jack?chain=false" in (
        first_failure(told, other)
    )
    alone = DealChecker(table_id="t1", pid="Ann", keep=proof_keeper(tmp_path / "b"))
    changed = first_failure(alone, _commit(sk, 1, "black-jack"), _commit(sk, 2, "black-jack?x=1"))
    assert "ruleset 'black-jack?x=1' changed from 'black-jack'" in changed
    short = DealChecker(table_id="t1", pid="Ann", keep=proof_keeper(tmp_path / "c"))
    caught = first_failure(short, _commit(sk, 1, "one-card", DECK_52))
    assert caught.startswith("DeckError: ") and "without JB JR" in caught
