"""The host's relay (protocol.mask_relay) and the verifier's masking checks one request at a
time: resends, requests out of turn or for the wrong position, and whom each failure blames."""

from __future__ import annotations

import pytest

from protocol.cardfair import (
    CommitmentError,
    ContextError,
    FairnessStateError,
    MessageType,
    PositionError,
)
from protocol.cards import parse_card
from protocol.hand_records import verify_record
from protocol.mask_seat import Outgoing
from protocol.mask_sim import PrivateHand
from protocol.masking import (
    KeyMismatchError,
    KeyRoute,
    ScalarError,
    SealError,
    UnmaskError,
    seal_key,
)
from protocol.verifier import HandVerifier

OUTCOME = {"termination": "went_out", "winners": [0], "ranking": None, "scores": None}


def _started(k: int = 3) -> PrivateHand:
    hand = PrivateHand(k)
    hand.start()
    return hand


def test_a_commitment_resent_is_ok_and_a_different_one_refused() -> None:
    hand = PrivateHand(2)
    relay = hand.relay
    body = {"hand_no": 1, "commit": bytes([1]) * 32, "box_pk": bytes([2]) * 32}
    relay.accept_commit(0, body)
    relay.accept_commit(0, body)  # a resend after a lost reply
    with pytest.raises(CommitmentError):
        relay.accept_commit(0, {**body, "commit": bytes([3]) * 32})
    with pytest.raises(CommitmentError):  # a copy of another seat's
        relay.accept_commit(1, body)
    with pytest.raises(ContextError):
        relay.accept_commit(1, {**body, "hand_no": 2})
    with pytest.raises(FairnessStateError):
        relay.lock()  # seat 1 has not committed
    assert relay.missing_commits() == [1]


def test_a_pass_out_of_turn_is_refused_and_changes_nothing() -> None:
    hand = PrivateHand(3)
    hand.silent.update({0, 1, 2})
    hand.start()
    assert hand.relay.due() == (0, "mask", 0)
    points = list(hand.relay.rounds[0].points)
    with pytest.raises(FairnessStateError):
        hand.relay.accept_pass(1, {"hand_no": 1, "stream": 0, "step": "mask", "points": points})
    with pytest.raises(FairnessStateError):
        hand.relay.accept_pass(0, {"hand_no": 1, "stream": 0, "step": "rekey", "points": points})
    with pytest.raises(FairnessStateError):
        hand.relay.accept_pass(0, {"hand_no": 1, "stream": 3, "step": "mask", "points": points})
    assert hand.relay.rounds[0].stages == [] and hand.relay.waiting_for() == [0]


def test_boxes_for_a_position_not_dealt_to_that_seat_are_refused() -> None:
    hand = _started()
    hand.silent.add(1)
    (where,) = hand.deal(0)
    box = bytes(178)
    relay = hand.relay
    for bad in ([where[1], 2, box], [where[1] + 1, 0, box], [where[1], None, box]):
        with pytest.raises(PositionError):
            relay.accept_boxes(1, {"hand_no": 1, "stream": 0, "boxes": [bad]})
    with pytest.raises(PositionError):  # its own position
        relay.accept_boxes(0, {"hand_no": 1, "stream": 0, "boxes": [[where[1], 0, box]]})
    with pytest.raises(SealError) as err:
        relay.accept_boxes(1, {"hand_no": 1, "stream": 0, "boxes": [[where[1], 0, box[:-1]]]})
    assert err.value.seat == 1
    assert relay.waiting_for() == [1]
    # the seat's real box: released at once, a resend changes nothing, another box is refused
    real = hand.maskers[1].secret.seal_for(0, where[1], 0, relay.box_pks[0])
    out = relay.accept_boxes(1, {"hand_no": 1, "stream": 0, "boxes": [[where[1], 0, real]]})
    assert [m.type for m in out] == ["sealed"]
    assert relay.accept_boxes(1, {"hand_no": 1, "stream": 0, "boxes": [[where[1], 0, real]]}) == []
    with pytest.raises(SealError):
        relay.accept_boxes(1, {"hand_no": 1, "stream": 0, "boxes": [[where[1], 0, box]]})


def test_the_relay_opens_only_table_positions_face_up() -> None:
    hand = _started()
    (mine,) = hand.deal(0)
    with pytest.raises(PositionError):
        hand.relay.open_face_up(0, [mine[1]])
    with pytest.raises(PositionError):
        hand.relay.open_face_up(0, [mine[1] + 1])  # never drawn
    (table,) = hand.deal(None)
    hand.silent.add(2)
    hand.send([hand.relay.open_face_up(0, [table[1]])])
    hand.pump()
    assert hand.relay.waiting_for() == [2]
    with pytest.raises(PositionError):
        hand.relay.open_face_up(0, [table[1]])  # already being opened
    with pytest.raises(ScalarError) as err:
        hand.relay.accept_open_keys(2, {"hand_no": 1, "stream": 0, "keys": [[table[1], bytes(32)]]})
    assert err.value.seat == 2
    with pytest.raises(PositionError):  # a position nobody asked for
        hand.relay.accept_open_keys(2, {"hand_no": 1, "stream": 0, "keys": [[mine[1], b"\1" * 32]]})
    key = hand.maskers[2].secret.position_key(0, table[1])
    msgs, cards = hand.relay.accept_open_keys(
        2, {"hand_no": 1, "stream": 0, "keys": [[table[1], key]]}
    )
    assert [m.type for m in msgs] == ["opened"] and list(cards) == [table]
    again = {"hand_no": 1, "stream": 0, "keys": [[table[1], key]]}
    assert hand.relay.accept_open_keys(2, again) == ([], {})  # a resend after a lost reply


def test_a_play_before_its_keys_were_released_or_of_another_seat_is_refused() -> None:
    hand = _started()
    hand.silent.add(2)
    (where,) = hand.deal(0)  # seat 2 withholds its box: no SEALED yet
    with pytest.raises(FairnessStateError):
        hand.relay.accept_play(0, [(0, where[1], (b"\1" * 32,) * 3)])
    hand.silent.clear()
    (other,) = hand.deal(1)
    with pytest.raises(PositionError):
        hand.relay.accept_play(0, [(0, other[1], (b"\1" * 32,) * 3)])


def test_a_secret_resent_is_ok() -> None:
    hand = _started(2)
    reveal = hand.maskers[0].reveal()
    hand.relay.accept_secret(0, reveal.fields)
    hand.relay.accept_secret(0, reveal.fields)
    assert hand.relay.missing_secrets() == [1] == hand.relay.waiting_for(ending=True)
    with pytest.raises(FairnessStateError):
        hand.relay.end()


def test_a_wrong_key_sealed_with_the_right_route_is_pinned_on_its_sender() -> None:
    hand = PrivateHand(3)

    def wrong(s: int, item: Outgoing) -> Outgoing | None:
        if s != 2 or item.type != "sealed_keys":
            return item
        rows = []
        for pos, to, _ in item.fields["boxes"]:
            route = KeyRoute(hand.dealer.context.digest, 0, pos, 2, to)
            rows.append([pos, to, seal_key(route, hand.relay.box_pks[to], b"\5" + bytes(31))])
        return Outgoing(item.type, {**item.fields, "boxes": rows})

    hand.tamper = wrong
    hand.start()
    with pytest.raises(UnmaskError):  # the holder cannot open its card, nor say whose key
        hand.deal(0)
    for s in range(3):
        hand.relay.accept_secret(s, hand.maskers[s].reveal().fields)
    with pytest.raises(KeyMismatchError) as err:
        hand.relay.audit()
    assert err.value.seat == 2


def test_a_table_that_is_not_private_refuses_masking_and_a_private_one_requires_it() -> None:
    hand = _started(2)
    msgs = hand.dealer.messages
    plain = HandVerifier(hand.verifiers[0].host_pk, private=False)
    plain.receive(msgs[0])
    plain.receive(msgs[1])  # lock
    with pytest.raises(FairnessStateError):
        plain.receive(msgs[2])  # mask_lock
    assert msgs[2].type == MessageType.MASK_LOCK
    # a hand without masking where the table said private
    normal = PrivateHand(2, seed="other")
    d = normal.dealer
    want = HandVerifier(normal.verifiers[0].host_pk, private=True)
    want.receive(d.hand_commit)
    for s, v in enumerate(normal.verifiers):
        v.receive(d.hand_commit)
        d.accept_commit(normal.pids[s], v.player_commit())
    want.receive(d.lock())
    for s, v in enumerate(normal.verifiers):
        d.accept_reveal(normal.pids[s], {"hand_no": 1, "r": v.seat.r if v.seat else b""})
    with pytest.raises(FairnessStateError):
        want.receive(d.reveals())


def test_a_card_shown_by_an_opened_is_checked_against_the_stock() -> None:
    hand = _started(2)
    _, card = hand.turn_up()
    assert hand.verifiers[0].masks.opened  # every live verifier saw it open
    record = hand.finish(OUTCOME)
    verdict = verify_record(record)
    assert verdict.ok and verdict.report is not None
    assert card == parse_card(hand.relay.opened[min(hand.relay.opened)].card)


def test_a_hand_voided_while_a_seat_withholds_records_as_void() -> None:
    hand = PrivateHand(3)
    hand.silent.add(1)
    hand.start()
    missing = [hand.pids[s] for s in hand.relay.waiting_for()]
    assert missing == ["seat1"]
    hand.send([hand.dealer.void("seat1 did not send its masking pass", missing)])
    hand.deliver()
    verdict = verify_record(hand.record())
    assert verdict.ok and verdict.voided, verdict.message


def test_a_hand_voided_after_every_secret_still_runs_the_audit() -> None:
    hand = PrivateHand(2)
    hand.start()
    hand.deal_all([0, 1])
    for s in range(2):
        hand.relay.accept_secret(s, hand.maskers[s].reveal().fields)
    hand.send([hand.relay.end(), hand.dealer.void("a seat's keys opened no card", [])])
    hand.deliver()
    verdict = verify_record(hand.record())
    assert verdict.ok and verdict.voided, verdict.message
    assert hand.verifiers[0].masks.stocks[0]  # the audit ran at MASK_END
