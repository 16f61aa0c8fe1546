"""A private hand end to end in memory (protocol.mask_sim): the seats' machines, the host's
relay, the record and its verification, tampered runs and a seat restored mid-hand."""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.cardfair import CommitmentError, FairnessError, FairnessStateError, MessageType
from protocol.framing import encode_frame
from protocol.hand_records import verify_record
from protocol.limits import FRAME_HEADER_BYTES, MAX_REQUEST_BYTES
from protocol.mask_messages import (
    MAX_BOXES,
    MAX_PASS_POINTS,
    MAX_POSITION_KEYS,
    MaskPass,
    OpenKeys,
    PassKind,
    SealedKeys,
)
from protocol.mask_seat import Outgoing, SeatMasker
from protocol.mask_sim import PrivateHand, Tamper
from protocol.masking import (
    PointError,
    SealError,
    StageError,
    UnmaskError,
)
from protocol.messages import field_specs
from protocol.registry import message_from_wire
from protocol.table_messages import MAX_OPENS, Act

OUTCOME = {"termination": "went_out", "winners": [0], "ranking": None, "scores": None}


def _play(k: int, **kw: Any) -> tuple[PrivateHand, dict[str, Any]]:
    hand = PrivateHand(k, **kw)
    for _ in hand.scripted(cards_each=3):
        pass
    return hand, hand.finish(OUTCOME)


@pytest.mark.parametrize("k", [2, 3, 4, 6])
def test_a_private_hand_records_and_verifies(k: int) -> None:
    hand, record = _play(k)
    verdict = verify_record(record)
    assert verdict.ok, verdict.message
    types = Counter(m[0] for m in record["messages"])
    assert types["mask_lock"] == 1
    assert types["mask_stage"] == 2 * k * 2  # two rounds: the deal and one reshuffle
    assert types["sealed"] == 3 * k + k  # every face-down card, each round
    assert types["opened"] == 1 + k + 1  # the starter, one play each, a play of round 1
    assert types["mask_end"] == 1 and types["card"] == 0
    assert record["messages"][-1][0] == "hand_end"
    # the cards the seats saw are the ones the audit puts at their positions
    stocks = hand.relay.audit()
    for seat in range(k):
        for (stream, pos), card in hand.maskers[seat].cards().items():
            assert stocks[stream][pos] == card.code
    # every public message passed every seat's live checks too
    assert all(v.report is not None and not v.report.voided for v in hand.verifiers)


def test_the_host_never_holds_a_card_before_it_opens() -> None:
    hand = PrivateHand(3)
    hand.start()
    hand.deal(0, 2)
    hand.deal(1, 2)
    # the relay has points and boxes: no position is tied to a card until it opens
    rnd = hand.relay.rounds[0]
    assert hand.relay.opened == {} and rnd.openings is not None and rnd.openings.card_at == {}
    assert all(m.type != "card" and b"card" not in m.body[:0] for m in hand.dealer.messages)
    draws = [m.decode() for m in hand.dealer.messages if m.type == "draw"]
    assert draws and all(d["card"] is None for d in draws)
    where, card = hand.turn_up()
    assert hand.relay.opened[where].card == card.code


def _masked_pass_of(seat: int, change: Any) -> Tamper:
    def tamper(s: int, item: Outgoing) -> Outgoing | None:
        first = item.type == "mask_pass" and item.fields["stream"] == 0
        if s == seat and first and item.fields["step"] == "mask":
            fields = dict(item.fields)
            fields["points"] = change(list(fields["points"]))
            return Outgoing(item.type, fields)
        return item

    return tamper


def test_an_invalid_point_in_a_stage_is_refused_and_blames_its_sender() -> None:
    bad = _masked_pass_of(1, lambda pts: [bytes(32), *pts[1:]])
    hand = PrivateHand(3, tamper=bad)
    with pytest.raises(PointError) as err:
        hand.start()
    assert err.value.seat == 1


def test_a_copied_point_is_refused_at_once() -> None:
    hand = PrivateHand(3, tamper=_masked_pass_of(2, lambda pts: [pts[1], *pts[1:]]))
    with pytest.raises(StageError) as err:
        hand.start()
    assert err.value.seat == 2


def test_a_stage_of_the_wrong_length_is_refused() -> None:
    hand = PrivateHand(2, tamper=_masked_pass_of(0, lambda pts: pts[:-1]))
    with pytest.raises(StageError) as err:
        hand.start()
    assert err.value.seat == 0


def test_a_stage_that_is_not_its_derivation_is_caught_by_the_audit() -> None:
    def swap(pts: list[bytes]) -> list[bytes]:
        return [pts[1], pts[0], *pts[2:]]

    hand = PrivateHand(3)
    lie = _masked_pass_of(1, swap)

    def cheat(s: int, item: Outgoing) -> Outgoing | None:
        sent = lie(s, item)
        if sent is not item and sent is not None:  # a cheating seat believes its own lie
            hand.maskers[s].rounds[0].mine["mask"] = tuple(sent.fields["points"])
        return sent

    hand.tamper = cheat
    for _ in hand.scripted(cards_each=3):
        pass
    with pytest.raises(StageError) as live:  # every seat's verifier audits MASK_END
        hand.finish(OUTCOME)
    assert live.value.seat == 1
    record = hand.record(OUTCOME)
    with pytest.raises(StageError) as err:
        hand.relay.audit()
    assert err.value.seat == 1
    verdict = verify_record(record)
    assert not verdict.ok and verdict.failure == "StageError"
    assert "seat 1" in verdict.message


def test_a_moved_box_does_not_open_for_its_holder() -> None:
    def move(s: int, item: Outgoing) -> Outgoing | None:
        if s == 1 and item.type == "sealed_keys":
            rows = [list(r) for r in item.fields["boxes"]]
            # seat 1's boxes to seat 0 for two positions, swapped: each names the other route
            mine = [r for r in rows if r[1] == 0]
            if len(mine) >= 2:
                mine[0][2], mine[1][2] = mine[1][2], mine[0][2]
            return Outgoing(item.type, {**item.fields, "boxes": rows})
        return item

    hand = PrivateHand(3, tamper=move)
    hand.start()
    with pytest.raises(SealError) as err:
        hand.deal(0, 2)  # one batch: seat 1 seals both positions in one sealed_keys
    assert err.value.seat == 1


def test_wrong_published_keys_are_refused_with_the_play() -> None:
    hand = PrivateHand(3)
    hand.start()
    hand.deal(0, 2)
    where = min(hand.maskers[0].cards())
    card = hand.maskers[0].cards()[where]
    (entry,) = hand.maskers[0].play_keys([where])
    keys = list(entry[2])
    keys[2] = hand.maskers[0].secret.position_key(0, 0)  # not seat 2's key
    with pytest.raises(UnmaskError) as err:
        hand.relay.accept_play(0, [(entry[0], entry[1], tuple(keys))], [card])
    assert err.value.seat == 0
    other = next(c for c in hand.deck if c.code != card.code)
    with pytest.raises(UnmaskError):  # the right keys, another card named
        hand.relay.accept_play(0, [(entry[0], entry[1], tuple(entry[2]))], [other])
    assert hand.relay.opened == {}  # nothing opened by a refused play


def test_a_wrong_secret_is_refused() -> None:
    def lie(s: int, item: Outgoing) -> Outgoing | None:
        if item.type == "mask_reveal" and s == 2:
            return Outgoing(item.type, {**item.fields, "secret": bytes(32)})
        return item

    hand = PrivateHand(3, tamper=lie)
    for _ in hand.scripted(cards_each=1):
        pass
    with pytest.raises(CommitmentError):
        hand.finish(OUTCOME)
    assert hand.relay.missing_secrets() == [2]


def test_a_seat_that_withholds_is_named() -> None:
    hand = PrivateHand(4)
    hand.silent.add(2)
    hand.start()  # seats 0 and 1 mask; seat 2 stays silent
    assert hand.relay.waiting_for() == [2]
    assert hand.relay.due() == (0, "mask", 2)
    hand.silent.clear()
    hand.pump()  # nothing was queued: a silent seat's pass is lost, so it is still due
    assert hand.relay.waiting_for() == [2]
    with pytest.raises(FairnessStateError):
        hand.relay.deal(0, 0, 1)


def test_a_seat_withholding_its_boxes_is_named() -> None:
    hand = PrivateHand(3)
    hand.start()
    hand.silent.add(1)
    hand.deal(0)
    assert hand.relay.waiting_for() == [1]
    assert hand.maskers[0].cards() == {}


def test_a_seat_refuses_to_open_another_seats_card() -> None:
    hand = PrivateHand(3)
    hand.start()
    (where,) = hand.deal(1)
    cheat = hand.dealer.publish(MessageType.MASK_OPEN, {"stream": 0, "positions": [where[1]]})
    with pytest.raises(FairnessError):
        hand.maskers[0].receive(cheat)
    assert all(o.type != "open_keys" for o in hand.maskers[0].drain())


def test_a_seat_restored_from_its_key_store_finishes_the_hand() -> None:
    hand = PrivateHand(3)
    hand.start()
    hand.deal(0, 2)
    hand.deal(1, 2)
    stored = hand.maskers[1].to_bytes()
    before = hand.maskers[1].cards()
    hand.maskers[1] = SeatMasker.from_bytes(stored)  # the client restarted
    assert hand.maskers[1].cards() == before
    hand.deal(1)  # boxes sealed to the restored seat open with its restored keys
    assert len(hand.maskers[1].cards()) == 3
    hand.play(1, min(hand.maskers[1].cards()))
    hand.turn_up()
    stream = hand.reshuffle([hand.deck[0], hand.deck[5]])
    assert stream == 1
    hand.deal(2)
    verdict = verify_record(hand.finish(OUTCOME))
    assert verdict.ok, verdict.message


def test_a_damaged_key_store_is_refused() -> None:
    hand = PrivateHand(2)
    hand.start()
    with pytest.raises(FairnessStateError):
        SeatMasker.from_bytes(hand.maskers[0].to_bytes()[:-5])
    data = hand.maskers[0].to_dict()
    data["format"] = "other"
    with pytest.raises(FairnessStateError):
        SeatMasker.from_dict(data)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    k=st.integers(2, 4),
    deals=st.lists(st.integers(0, 3), min_size=1, max_size=6),
    plays=st.integers(0, 3),
)
def test_any_sequence_of_deals_and_plays_verifies(k: int, deals: list[int], plays: int) -> None:
    hand = PrivateHand(k, seed=None)
    hand.start()
    for to in deals:
        hand.deal(to % k)
    for _ in range(plays):
        holders = [s for s in range(k) if hand.maskers[s].cards()]
        if not holders:
            break
        seat = holders[0]
        hand.play(seat, min(hand.maskers[seat].cards()))
    verdict = verify_record(hand.finish(OUTCOME))
    assert verdict.ok, verdict.message


def test_the_largest_private_requests_fit_a_request_frame() -> None:
    """max_request_bytes (2.8): a 108-point pass, 20 boxes, 64 keys, a 16-card play at 6 seats."""
    big = [
        MaskPass(
            id=2**53 - 1,
            table="t" * 64,
            hand_no=2**53 - 1,
            stream=2**32 - 2,
            step=PassKind.REKEY,
            points=(bytes(32),) * MAX_PASS_POINTS,
        ),
        SealedKeys(
            id=2**53 - 1,
            table="t" * 64,
            hand_no=2**53 - 1,
            stream=2**32 - 2,
            boxes=((107, 255, bytes(178)),) * MAX_BOXES,
        ),
        OpenKeys(
            id=2**53 - 1,
            table="t" * 64,
            hand_no=2**53 - 1,
            stream=2**32 - 2,
            keys=((107, bytes(32)),) * MAX_POSITION_KEYS,
        ),
        Act(
            id=2**53 - 1,
            table="t" * 64,
            seq=2**53 - 1,
            action={"type": "play", "cards": ["10H"] * MAX_OPENS},
            open=((2**32 - 2, 107, (bytes(32),) * 6),) * MAX_OPENS,
        ),
    ]
    for msg in big:
        assert len(encode_frame(msg.to_wire())) - FRAME_HEADER_BYTES <= MAX_REQUEST_BYTES


def _over_the_wire(s: int, item: Outgoing) -> Outgoing | None:
    """Each request as the host would get it: encoded, decoded through the registry, handed
    to the relay as the message's fields."""
    wire = {"type": item.type, "id": 1, "table": "private-1", **item.fields}
    msg = message_from_wire(decode_frame_body(encode_frame(wire)))
    fields = {f: getattr(msg, f) for f in field_specs(type(msg)) if f != "table"}
    return Outgoing(item.type, fields)


def decode_frame_body(frame: bytes) -> dict[str, Any]:
    out = msgpack.unpackb(frame[FRAME_HEADER_BYTES:], raw=False)
    assert isinstance(out, dict)
    return out


def test_every_request_of_a_hand_is_a_valid_message_the_relay_takes_as_decoded() -> None:
    hand = PrivateHand(3, tamper=_over_the_wire)
    hand.start()
    hand.deal_all([0, 1, 2, 0, 1, 2])
    hand.turn_up()
    where = min(hand.maskers[1].cards())
    card = hand.maskers[1].cards()[where]
    act = Act(
        id=9,
        table="private-1",
        seq=1,
        action={"type": "play", "cards": [card.code]},
        open=tuple((st, p, tuple(k)) for st, p, k in hand.maskers[1].play_keys([where])),
    )
    decoded = message_from_wire(decode_frame_body(encode_frame(act.to_wire())))
    assert isinstance(decoded, Act)
    msgs, cards = hand.relay.accept_play(1, decoded.open, decoded.action["cards"])
    assert [m.type for m in msgs] == ["opened"] and cards == {where: card}
    for s in range(3):
        reveal = _over_the_wire(s, hand.maskers[s].reveal())
        assert reveal is not None
        hand.relay.accept_secret(s, reveal.fields)
    hand.send([*msgs, hand.relay.end(), hand.dealer.hand_end(OUTCOME)])
    hand.deliver()
    verdict = verify_record(hand.record(OUTCOME))
    assert verdict.ok, verdict.message


def test_every_seat_restored_after_every_step_finishes_the_hand() -> None:
    hand = PrivateHand(3)
    for _ in hand.scripted(cards_each=2):
        hand.maskers = [SeatMasker.from_dict(m.to_dict()) for m in hand.maskers]
    verdict = verify_record(hand.finish(OUTCOME))
    assert verdict.ok, verdict.message
