"""Tests of protocol.masking (``cardmask/v1``): card points, the passes, unmasking, sealed keys,
point and key validation and the end-of-round audit, with hypothesis for the properties."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl import bindings as sodium
from nacl.exceptions import CryptoError

from protocol.cardfair import CommitmentError, ContextError, FairnessError
from protocol.cards import DECK_54
from protocol.errors import ErrorCode
from protocol.masking import (
    GROUP_ORDER,
    SEALED_KEY_BYTES,
    KeyRoute,
    MaskSecret,
    Openings,
    PointError,
    ScalarError,
    SealError,
    StageError,
    UnmaskError,
    card_points,
    check_point,
    check_scalar,
    mask_pass,
    open_key,
    permutation,
    seal_key,
    unmask,
    unmask_card,
    verify_round,
)

CTX = hashlib.sha256(b"a test hand").digest()
CARDS = [c.code for c in DECK_54]
SMALL = ["AS", "7H", "10D", "KC", "JR", "AS"]  # a repeated card (two packs) included
#: points libsodium refuses, each for a different reason
IDENTITY = (1).to_bytes(32, "little")
ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
NON_CANONICAL = ((1 << 255) - 18).to_bytes(32, "little")  # y = p + 1
SECRETS = st.binary(min_size=32, max_size=32)


def _seats(secrets: list[bytes]) -> list[MaskSecret]:
    return [MaskSecret(CTX, s, m) for s, m in enumerate(secrets)]


def _off_curve() -> bytes:
    for y in range(2, 100):
        p = y.to_bytes(32, "little")
        try:
            sodium.crypto_core_ed25519_add(p, card_points(CTX, 0, ["AS"])[0])
        except CryptoError:
            return p
    raise AssertionError("no y below 100 is off the curve")


def _mixed_order() -> bytes:
    """A point with a prime-order part and an order-8 part: on the curve, not in the group."""
    return sodium.crypto_core_ed25519_add(card_points(CTX, 0, ["AS"])[0], ORDER_8)


def _deal(seats: list[MaskSecret], stream: int, cards: list[str]) -> list[tuple[bytes, ...]]:
    deck = card_points(CTX, stream, cards)
    stages = []
    for seat in seats:
        deck = seat.mask(stream, deck)
        stages.append(deck)
    for seat in seats:
        deck = seat.rekey(stream, deck)
        stages.append(deck)
    return stages


# --------------------------------------------------------------------------- card points


def test_card_points_are_valid_distinct_and_bound_to_the_hand_and_round() -> None:
    pts = card_points(CTX, 0, CARDS)
    assert len(set(pts)) == 54
    assert all(sodium.crypto_core_ed25519_is_valid_point(p) for p in pts)
    assert card_points(CTX, 0, CARDS) == pts
    assert set(card_points(CTX, 1, CARDS)).isdisjoint(pts)
    assert set(card_points(bytes(32), 0, CARDS)).isdisjoint(pts)
    # two copies of one card are two points: masked copies cannot be linked
    twin = card_points(CTX, 0, SMALL)
    assert twin[0] != twin[5]


@pytest.mark.parametrize(
    ("point", "reason"),
    [
        (IDENTITY, "small order"),
        (ORDER_8, "small order"),
        (NON_CANONICAL, "not canonical"),
        (b"\x01" * 31, "31 bytes"),
    ],
)
def test_invalid_points_are_refused_with_the_reason(point: bytes, reason: str) -> None:
    with pytest.raises(PointError, match=reason):
        check_point(point, "test")
    key = MaskSecret(CTX, 0, bytes(32)).deck_key(0)
    with pytest.raises(PointError, match="position 1"):
        mask_pass([card_points(CTX, 0, ["AS"])[0], point], key, (0, 1))


def test_off_curve_and_mixed_order_points_are_refused() -> None:
    with pytest.raises(PointError, match="not on the curve"):
        check_point(_off_curve(), "test")
    with pytest.raises(PointError, match="outside the prime-order subgroup"):
        check_point(_mixed_order(), "test")
    seat = MaskSecret(CTX, 0, bytes(32))
    with pytest.raises(PointError):
        seat.rekey(0, [_mixed_order()])
    with pytest.raises(PointError):
        unmask(_off_curve(), [seat.deck_key(0)])


def test_a_seat_secret_needs_a_32_byte_ctx_and_secret() -> None:
    with pytest.raises(ContextError):
        MaskSecret(CTX[:31], 0, bytes(32))
    with pytest.raises(CommitmentError):
        MaskSecret(CTX, 0, bytes(31))
    with pytest.raises(StageError, match="rearrange"):
        mask_pass(
            card_points(CTX, 0, ["AS", "KS"]), MaskSecret(CTX, 0, bytes(32)).deck_key(0), (0, 0)
        )


def test_a_masking_error_is_a_fairness_error() -> None:
    with pytest.raises(FairnessError) as info:
        check_point(IDENTITY, "test")
    assert info.value.code is ErrorCode.FAIRNESS


@given(st.binary(min_size=32, max_size=32))
def test_any_32_bytes_are_masked_exactly_when_libsodium_calls_them_a_point(raw: bytes) -> None:
    key = MaskSecret(CTX, 0, bytes(32)).deck_key(0)
    if sodium.crypto_core_ed25519_is_valid_point(raw):
        assert mask_pass([raw], key, (0,))[0] != raw
    else:
        with pytest.raises(PointError):
            mask_pass([raw], key, (0,))


@pytest.mark.parametrize(
    "key",
    [
        bytes(32),
        GROUP_ORDER.to_bytes(32, "little"),
        (GROUP_ORDER + 1).to_bytes(32, "little"),
        b"\xff" * 32,
        b"\x01" * 31,
    ],
)
def test_bad_keys_are_refused(key: bytes) -> None:
    with pytest.raises(ScalarError):
        check_scalar(key, "test")
    with pytest.raises(ScalarError):
        unmask(card_points(CTX, 0, ["AS"])[0], [key])


# --------------------------------------------------------------------------- passes and unmasking


def test_a_masking_pass_permutes_by_the_seats_permutation() -> None:
    seat = MaskSecret(CTX, 1, b"\x07" * 32)
    pts = card_points(CTX, 0, CARDS)
    out = seat.mask(0, pts)
    perm = seat.permutation(0, 54)
    assert sorted(perm) == list(range(54)) and perm != tuple(range(54))
    a = seat.deck_key(0)
    assert out == tuple(sodium.crypto_scalarmult_ed25519_noclamp(a, pts[j]) for j in perm)
    assert set(out).isdisjoint(pts)


def test_a_pass_asked_for_again_is_not_computed_again_and_a_bad_one_fails_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The audit derives every seat's passes again, and a process playing several parties
    (a host and its bot seats) derives the same ones: a pass, a valid point and an opened box
    are computed once; a failure is never kept."""
    calls = {"mult": 0, "valid": 0, "open": 0}
    mult, valid = (
        sodium.crypto_scalarmult_ed25519_noclamp,
        sodium.crypto_core_ed25519_is_valid_point,
    )
    seal_open = sodium.crypto_box_seal_open

    def counting(name: str, fn: Any) -> Any:
        def wrapper(*args: Any) -> Any:
            calls[name] += 1
            return fn(*args)

        return wrapper

    monkeypatch.setattr(sodium, "crypto_scalarmult_ed25519_noclamp", counting("mult", mult))
    monkeypatch.setattr(sodium, "crypto_core_ed25519_is_valid_point", counting("valid", valid))
    monkeypatch.setattr(sodium, "crypto_box_seal_open", counting("open", seal_open))
    seat = MaskSecret(CTX, 2, b"\x0b" * 32)
    pts = card_points(CTX, 5, CARDS)
    masked = seat.mask(5, pts)
    rekeyed = seat.rekey(5, masked)
    assert calls["mult"] == 2 * 54
    assert seat.mask(5, list(pts)) == masked and seat.rekey(5, list(masked)) == rekeyed
    assert calls["mult"] == 2 * 54
    for p in rekeyed:
        check_point(p, "test")
        check_point(p, "test")
    assert calls["valid"] == 54
    other = MaskSecret(CTX, 0, b"\x0c" * 32)
    box = seat.seal_for(5, 3, 0, other.box_keypair[0])
    assert other.open_from(box, 5, 3, 2) == other.open_from(box, 5, 3, 2)
    assert calls["open"] == 1
    bad = [*masked[:53], ORDER_8]
    junk: list[Any] = [[1, 2], *pts[1:]]
    for _ in range(2):
        with pytest.raises(PointError, match="position 53"):
            seat.rekey(5, bad)
        with pytest.raises(PointError, match="position 0: a point must be bytes, not list"):
            mask_pass(junk, seat.deck_key(5), seat.permutation(5, 54))
        with pytest.raises(SealError):
            seat.open_from(box, 5, 3, 0)  # sealed to seat 0, not to seat 2
    assert calls["open"] == 3


def test_the_permutation_is_the_fisher_yates_of_7_5() -> None:
    from protocol.cardfair import Stream, shuffle
    from protocol.cards import parse_card

    key = b"\x09" * 32
    ids = shuffle(Stream(key, 3), [parse_card(c) for c in CARDS])
    assert tuple(CARDS.index(c.code) for c in ids) == permutation(key, 3, 54)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(SECRETS, min_size=2, max_size=4, unique=True),
    st.randoms(use_true_random=False),
    st.integers(0, 3),
)
def test_unmasking_after_any_order_of_passes_yields_the_deck(
    secrets: list[bytes], rnd: random.Random, stream: int
) -> None:
    seats = _seats(secrets)
    mask_order = list(seats)
    rekey_order = list(seats)
    rnd.shuffle(mask_order)
    rnd.shuffle(rekey_order)
    pts = card_points(CTX, stream, SMALL)
    deck = pts
    order = tuple(range(len(SMALL)))
    for seat in mask_order:
        perm = seat.permutation(stream, len(deck))
        deck = seat.mask(stream, deck)
        order = tuple(order[j] for j in perm)
    for seat in rekey_order:
        deck = seat.rekey(stream, deck)
    for i, point in enumerate(deck):
        keys = [seat.position_key(stream, i) for seat in seats]
        assert unmask_card(point, keys, pts) == order[i]
    assert sorted(order) == list(range(len(SMALL)))


@settings(max_examples=15, deadline=None)
@given(st.lists(SECRETS, min_size=2, max_size=4, unique=True), st.data())
def test_a_wrong_key_does_not_open_a_position(secrets: list[bytes], data: st.DataObject) -> None:
    seats = _seats(secrets)
    deck = _deal(seats, 0, SMALL)[-1]
    pts = card_points(CTX, 0, SMALL)
    pos = data.draw(st.integers(0, len(SMALL) - 1))
    liar = data.draw(st.integers(0, len(seats) - 1))
    other = data.draw(st.integers(0, len(SMALL) - 1).filter(lambda j: j != pos))
    keys = [seat.position_key(0, pos) for seat in seats]
    keys[liar] = seats[liar].position_key(0, other)  # its key for another position
    with pytest.raises(UnmaskError):
        unmask_card(deck[pos], keys, pts)
    keys[liar] = seats[liar].deck_key(0)  # its deck key, no longer in the point
    with pytest.raises(UnmaskError):
        unmask_card(deck[pos], keys, pts)
    with pytest.raises(UnmaskError):  # one key missing
        unmask_card(deck[pos], keys[:liar] + keys[liar + 1 :], pts)


@settings(max_examples=15, deadline=None)
@given(st.lists(SECRETS, min_size=2, max_size=3, unique=True), st.data())
def test_a_tampered_point_is_rejected_or_fails_to_open(
    secrets: list[bytes], data: st.DataObject
) -> None:
    seats = _seats(secrets)
    deck = list(card_points(CTX, 0, SMALL))
    pos = data.draw(st.integers(0, len(deck) - 1))
    byte = data.draw(st.integers(0, 31))
    bit = data.draw(st.integers(0, 7))
    deck[pos] = bytes(b ^ (1 << bit if i == byte else 0) for i, b in enumerate(deck[pos]))
    try:
        out = seats[0].mask(0, deck)
    except PointError:
        return  # refused at once: most flipped bits leave the group
    # a flip that lands on another group element is masked, but opens to no card
    for seat in seats[1:]:
        out = seat.mask(0, out)
    for seat in seats:
        out = seat.rekey(0, out)
    pts = card_points(CTX, 0, SMALL)
    opened = []
    for i, point in enumerate(out):
        try:
            opened.append(unmask_card(point, [s.position_key(0, i) for s in seats], pts))
        except UnmaskError:
            opened.append(-1)
    assert opened.count(-1) == 1 and pos not in opened


def test_a_point_swapped_for_its_negative_is_masked_but_opens_to_no_card() -> None:
    """Flipping the sign bit gives another group element (-P): no pass can refuse it, but the
    position it lands on opens to no card, and the audit names the stage."""
    seats = _seats([b"\x01" * 32, b"\x02" * 32])
    pts = card_points(CTX, 0, SMALL)
    deck = list(seats[0].mask(0, pts))
    deck[2] = deck[2][:31] + bytes([deck[2][31] ^ 0x80])
    out = seats[0].rekey(0, seats[1].mask(0, deck))
    out = seats[1].rekey(0, out)
    failures = 0
    for i, point in enumerate(out):
        try:
            unmask_card(point, [s.position_key(0, i) for s in seats], pts)
        except UnmaskError:
            failures += 1
    assert failures == 1


def test_a_copied_point_is_caught_when_its_second_position_opens() -> None:
    seats = _seats([b"\x01" * 32, b"\x02" * 32])
    pts = card_points(CTX, 0, SMALL)
    deck = list(seats[0].mask(0, pts))
    deck[4] = deck[1]  # seat 0 duplicates a card it cannot see
    out = seats[1].rekey(0, seats[0].rekey(0, seats[1].mask(0, deck)))
    openings = Openings(pts)
    cards = []
    with pytest.raises(StageError, match="opens at positions"):
        for i, point in enumerate(out):
            cards.append(openings.open(i, point, [s.position_key(0, i) for s in seats]))
    assert len(cards) < len(SMALL)
    again = Openings(pts)
    honest = seats[1].rekey(0, seats[0].rekey(0, seats[1].mask(0, seats[0].mask(0, pts))))
    keys = [s.position_key(0, 2) for s in seats]
    j = again.open(2, honest[2], keys)
    assert again.open(2, honest[2], keys) == j  # opening a position twice is harmless


# --------------------------------------------------------------------------- sealed keys


@settings(max_examples=15, deadline=None)
@given(st.lists(SECRETS, min_size=3, max_size=4, unique=True), st.data())
def test_sealed_keys_open_only_for_their_recipient_and_route(
    secrets: list[bytes], data: st.DataObject
) -> None:
    seats = _seats(secrets)
    sender, recipient, outsider = data.draw(st.permutations(range(len(seats))))[:3]
    pos = data.draw(st.integers(0, 53))
    pk, sk = seats[recipient].box_keypair
    sealed = seats[sender].seal_for(0, pos, recipient, pk)
    assert len(sealed) == SEALED_KEY_BYTES
    assert seats[sender].seal_for(0, pos, recipient, pk) != sealed  # randomized
    key = seats[recipient].open_from(sealed, 0, pos, sender)
    assert key == seats[sender].position_key(0, pos)
    with pytest.raises(SealError, match="does not open"):
        seats[outsider].open_from(sealed, 0, pos, sender)
    with pytest.raises(SealError, match="another hand"):
        seats[recipient].open_from(sealed, 0, (pos + 1) % 54, sender)
    with pytest.raises(SealError, match="another hand"):
        seats[recipient].open_from(sealed, 1, pos, sender)
    with pytest.raises(SealError, match="another hand"):
        seats[recipient].open_from(sealed, 0, pos, outsider)
    with pytest.raises(SealError, match="another hand"):  # another hand's ctx
        open_key(KeyRoute(bytes(32), 0, pos, sender, recipient), sealed, pk, sk)
    flipped = bytes([sealed[0] ^ 1]) + sealed[1:]
    with pytest.raises(SealError):
        seats[recipient].open_from(flipped, 0, pos, sender)
    with pytest.raises(SealError, match="not 178 bytes"):
        seats[recipient].open_from(sealed[:-1], 0, pos, sender)


def test_a_sealed_bad_key_is_refused_when_opened() -> None:
    seat = MaskSecret(CTX, 1, b"\x05" * 32)
    pk, sk = seat.box_keypair
    route = KeyRoute(CTX, 0, 3, 0, 1)
    sealed = sodium.crypto_box_seal(route.plaintext(bytes(32)), pk)
    with pytest.raises(ScalarError, match="zero"):
        open_key(route, sealed, pk, sk)
    big = sodium.crypto_box_seal(route.plaintext(GROUP_ORDER.to_bytes(32, "little")), pk)
    with pytest.raises(ScalarError, match="not reduced"):
        open_key(route, big, pk, sk)
    with pytest.raises(ScalarError):
        seal_key(route, pk, bytes(32))


# --------------------------------------------------------------------------- the audit


def _round(secrets: list[bytes]) -> tuple[list[MaskSecret], list[tuple[bytes, ...]]]:
    seats = _seats(secrets)
    return seats, _deal(seats, 0, CARDS)


def _audit(seats: list[MaskSecret], stages: list[tuple[bytes, ...]]) -> tuple[str, ...]:
    k = len(seats)
    return verify_round(
        CTX,
        0,
        CARDS,
        seat_secrets=[s.secret for s in seats],
        commitments=[s.commitment for s in seats],
        masked=stages[:k],
        rekeyed=stages[k:],
    )


def test_the_audit_returns_the_stock_every_position_opens_to() -> None:
    seats, stages = _round([bytes([i]) * 32 for i in (1, 2, 3)])
    stock = _audit(seats, stages)
    pts = card_points(CTX, 0, CARDS)
    opened = [
        CARDS[unmask_card(p, [s.position_key(0, i) for s in seats], pts)]
        for i, p in enumerate(stages[-1])
    ]
    assert list(stock) == opened
    assert sorted(stock) == sorted(CARDS) and list(stock) != CARDS


@pytest.mark.parametrize("stage", range(6))
def test_the_audit_finds_a_changed_stage_and_names_its_seat(stage: int) -> None:
    seats, stages = _round([bytes([i]) * 32 for i in (1, 2, 3)])
    changed = list(stages[stage])
    changed[7], changed[8] = changed[8], changed[7]  # two valid points swapped
    stages[stage] = tuple(changed)
    kind = "masking" if stage < 3 else "re-keying"
    with pytest.raises(StageError, match=f"{kind} pass of seat {stage % 3}: position 7"):
        _audit(seats, stages)


def test_the_audit_checks_commitments_and_shape() -> None:
    seats, stages = _round([bytes([i]) * 32 for i in (1, 2, 3)])
    wrong = [s.secret for s in seats]
    wrong[1] = b"\x09" * 32
    with pytest.raises(CommitmentError, match="seat 1"):
        verify_round(
            CTX,
            0,
            CARDS,
            seat_secrets=wrong,
            commitments=[s.commitment for s in seats],
            masked=stages[:3],
            rekeyed=stages[3:],
        )
    stages[4] = stages[4][:-1]
    with pytest.raises(StageError, match="53 points, expected 54"):
        _audit(seats, stages)
    with pytest.raises(StageError, match="one each per seat"):
        _audit(seats[:2], stages)
