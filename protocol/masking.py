"""``cardmask/v1``: masking a deck so that no one, the host included, sees a card it does not hold.

How it works (normative text: ``spec/PROTOCOL.md`` section 10): every card of a round (the deck,
or the cards a reshuffle recycles) is a point of edwards25519's prime-order group, hashed to the
curve from ``ctx``, the round and the card (Elligator 2, libsodium's
``crypto_core_ed25519_from_uniform``), so no discrete log between two cards is known. Each seat in
turn masks every point with its deck key (a scalar) and permutes them (a Fisher-Yates of 7.5
driven by its own key); then each seat in turn swaps its deck key for a key per position. A
position opens when every seat's key for it is known: the product's inverse times the point is a
card point. A seat hands its key for a position to that position's holder in a sealed box
(``crypto_box_seal``) to the holder's per-hand X25519 key, so a relaying host learns nothing.
Every key, permutation and box key derives from one 32-byte secret per seat and hand, committed
to at the start and revealed at the end, when :func:`verify_round` re-derives every stage.

All group and scalar arithmetic is libsodium's (PyNaCl bindings); this module only strings the
calls together and validates every point and scalar it is given. It does no I/O.

The deterministic calls here (everything but sealing a key and drawing a secret) are pure
functions of their inputs, and the same ones come again and again: a seat's own passes when it
audits the round at the hand's end, and in a process that plays several parties (a host and its
bot seats, a test) every party's audit of the same round, its checks of the same relayed points
and its openings of the same sealed keys. So a round's card points, the keys a secret derives,
whole passes, point verdicts and opened boxes are kept in bounded caches
(:func:`functools.lru_cache`). A cache hit returns what the same call returned before; a call
that raised is never kept, so a bad input fails every time.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from nacl import bindings as sodium
from nacl.exceptions import CryptoError

from protocol.cardfair import CommitmentError, ContextError, FairnessError, Stream, enc, u32

__all__ = [
    "GROUP_ORDER",
    "LABEL_PREFIX",
    "POINT_BYTES",
    "SCALAR_BYTES",
    "SCHEME",
    "SEALED_KEY_BYTES",
    "SECRET_BYTES",
    "KeyMismatchError",
    "KeyRoute",
    "MaskSecret",
    "MaskingError",
    "Openings",
    "PointError",
    "ScalarError",
    "SealError",
    "StageError",
    "UnmaskError",
    "card_points",
    "check_point",
    "check_scalar",
    "identify",
    "label",
    "mask_commitment",
    "mask_pass",
    "open_key",
    "permutation",
    "rekey_pass",
    "seal_key",
    "unmask",
    "unmask_card",
    "verify_round",
]

SCHEME: Final = "cardmask/v1"
LABEL_PREFIX: Final = "cardmask/v1/"
POINT_BYTES: Final = 32
SCALAR_BYTES: Final = 32
SECRET_BYTES: Final = 32
#: ``l``, the order of edwards25519's prime-order subgroup (scalars are taken modulo it)
GROUP_ORDER: Final = 2**252 + 27742317777372353535851937790883648493
#: a sealed position key: :meth:`KeyRoute.plaintext` (130 bytes) plus libsodium's 48
SEALED_KEY_BYTES: Final = 178
_P: Final = 2**255 - 19
#: passes kept (:func:`mask_pass`, :func:`rekey_pass`): a hand's rounds times 2k passes (12 a
#: round at six seats); an entry holds two or three decks of points, 10-20 KB at 54-108 cards,
#: so the cache stays under some 5 MB; past it, a pass is computed again
PASS_CACHE: Final = 256
#: point verdicts (:func:`check_point`): every stage of a few rounds (32 bytes and a bool each)
POINT_CACHE: Final = 8192
#: sealed keys opened (:func:`open_key`) and box key pairs derived: a hand's boxes, a few hands
BOX_CACHE: Final = 4096


# --------------------------------------------------------------------------- errors


class MaskingError(FairnessError):
    """A masking check failed; the message says which seat, stage and position (and
    :attr:`seat`, when set, the seat to blame)."""


class PointError(MaskingError):
    """A point is not 32 bytes or not a canonical element of the prime-order group (not on the
    curve, of small order, or with a small-order component)."""


class ScalarError(MaskingError):
    """A key is not 32 bytes, not reduced modulo ``l`` (non-canonical), or zero."""


class SealError(MaskingError):
    """A sealed key does not open with the recipient's key, or names another hand, round,
    position, sender or recipient than expected."""


class UnmaskError(MaskingError):
    """The keys given for a position do not turn its point into a card of the round."""


class KeyMismatchError(MaskingError):
    """A key a seat published or sealed differs from the one its revealed secret gives."""


class StageError(MaskingError):
    """A pass's output has the wrong length or differs from the one its revealed secret
    gives (the audit of :func:`verify_round`)."""


# --------------------------------------------------------------------------- encodings


def label(name: str) -> bytes:
    """The label ``M"name"`` = UTF-8 of ``"cardmask/v1/" + name``."""
    return (LABEL_PREFIX + name).encode()


def _point_problem(p: bytes) -> str:
    """Why libsodium refuses ``p`` (informative wording; the verdict is libsodium's)."""
    if len(p) != POINT_BYTES:
        return f"is {len(p)} bytes, not {POINT_BYTES}"
    if int.from_bytes(p, "little") & ((1 << 255) - 1) >= _P:
        return "is not canonical (y >= 2^255-19)"
    try:
        sodium.crypto_core_ed25519_add(p, _BASE_HINT)
    except CryptoError:
        return "is not on the curve"
    return "is of small order or outside the prime-order subgroup"


def check_point(p: object, where: str) -> bytes:
    """``p`` if it is a valid group element (``crypto_core_ed25519_is_valid_point``), else
    :class:`PointError` naming ``where``."""
    if not isinstance(p, bytes):
        raise PointError(f"{where}: a point must be bytes, not {type(p).__name__}")
    if len(p) != POINT_BYTES or not _valid_point(p):
        raise PointError(f"{where}: the point {_point_problem(p)}")
    return p


@functools.lru_cache(maxsize=POINT_CACHE)
def _valid_point(p: bytes) -> bool:
    return bool(sodium.crypto_core_ed25519_is_valid_point(p))


def check_scalar(k: object, where: str) -> bytes:
    """``k`` if it is 32 bytes, little-endian, below ``l`` and not zero, else ScalarError."""
    if not isinstance(k, bytes) or len(k) != SCALAR_BYTES:
        size = len(k) if isinstance(k, bytes) else type(k).__name__
        raise ScalarError(f"{where}: a key must be {SCALAR_BYTES} bytes, not {size}")
    n = int.from_bytes(k, "little")
    if n >= GROUP_ORDER:
        raise ScalarError(f"{where}: the key is not reduced modulo l (non-canonical)")
    if n == 0:
        raise ScalarError(f"{where}: the key is zero")
    return k


@functools.lru_cache(maxsize=4096)  # a few rounds of a few seats' position keys
def _scalar(secret: bytes, *fields: bytes) -> bytes:
    """``reduce(HMAC-SHA512(m, enc(fields)))``: a uniform non-zero scalar (zero has
    probability 2^-252; it is refused rather than used)."""
    wide = hmac.new(secret, enc(*fields), hashlib.sha512).digest()
    return check_scalar(sodium.crypto_core_ed25519_scalar_reduce(wide), "derived key")


def _times(k: bytes, p: bytes, where: str) -> bytes:
    """``k * p``: libsodium refuses a point that is not a valid group element (the checks of
    ``crypto_core_ed25519_is_valid_point``), which is a PointError with the reason."""
    if not isinstance(p, bytes) or len(p) != POINT_BYTES:
        check_point(p, where)
    try:
        return sodium.crypto_scalarmult_ed25519_noclamp(k, p)
    except CryptoError:
        raise PointError(f"{where}: the point {_point_problem(p)}") from None


# --------------------------------------------------------------------------- card points


def card_points(ctx: bytes, stream: int, cards: Sequence[str]) -> tuple[bytes, ...]:
    """The round's card points: ``from_uniform(H(enc(M"card", ctx, u32(stream), u32(j), id_j)))``
    for the ``j``-th card of the round's list (the deck for stream 0, a reshuffle's ``cards``)."""
    return _card_points(ctx, stream, tuple(cards))


@functools.lru_cache(maxsize=64)
def _card_points(ctx: bytes, stream: int, cards: tuple[str, ...]) -> tuple[bytes, ...]:
    pts = tuple(
        sodium.crypto_core_ed25519_from_uniform(
            hashlib.sha256(enc(label("card"), ctx, u32(stream), u32(j), code)).digest()
        )
        for j, code in enumerate(cards)
    )
    if len(set(pts)) != len(pts):  # a SHA-256 collision, in effect never
        raise MaskingError(f"two cards of stream {stream} hash to the same point")
    return pts


#: a fixed valid point, used only to ask libsodium whether another point is on the curve
_BASE_HINT: Final = sodium.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))


# --------------------------------------------------------------------------- the passes


def permutation(perm_key: bytes, stream: int, n: int) -> tuple[int, ...]:
    """``shuffle`` of PROTOCOL.md 7.5 applied to ``[0, .., n-1]`` on stream ``stream`` under
    ``perm_key``: output position ``i`` takes input position ``result[i]``."""
    reader = Stream(perm_key, stream)
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = reader.below(i + 1)
        a[i], a[j] = a[j], a[i]
    return tuple(a)


def mask_pass(deck: Sequence[bytes], key: bytes, perm: Sequence[int]) -> tuple[bytes, ...]:
    """A seat's masking pass: ``out[i] = key * deck[perm[i]]``; every input point is checked."""
    check_scalar(key, "deck key")
    if sorted(perm) != list(range(len(deck))):
        raise StageError(f"the permutation does not rearrange {len(deck)} positions")
    return _mask_pass(_points(deck), key, tuple(perm))


@functools.lru_cache(maxsize=PASS_CACHE)
def _mask_pass(deck: tuple[bytes, ...], key: bytes, perm: tuple[int, ...]) -> tuple[bytes, ...]:
    return tuple(_times(key, deck[j], f"position {j}") for j in perm)


def rekey_pass(
    deck: Sequence[bytes], deck_key: bytes, position_keys: Sequence[bytes]
) -> tuple[bytes, ...]:
    """A seat's re-keying pass: ``out[i] = (b_i * a^-1) * deck[i]``: its deck key ``a`` off,
    its key ``b_i`` for position ``i`` on. Every input point is checked."""
    if len(position_keys) != len(deck):
        raise StageError(f"{len(position_keys)} position keys for {len(deck)} positions")
    check_scalar(deck_key, "deck key")
    keys = tuple(check_scalar(b, f"key {i}") for i, b in enumerate(position_keys))
    return _rekey_pass(_points(deck), deck_key, keys)


@functools.lru_cache(maxsize=PASS_CACHE)
def _rekey_pass(
    deck: tuple[bytes, ...], deck_key: bytes, position_keys: tuple[bytes, ...]
) -> tuple[bytes, ...]:
    inv = sodium.crypto_core_ed25519_scalar_invert(deck_key)
    return tuple(
        _times(sodium.crypto_core_ed25519_scalar_mul(b, inv), p, f"position {i}")
        for i, (p, b) in enumerate(zip(deck, position_keys, strict=True))
    )


def _points(deck: Sequence[object]) -> tuple[bytes, ...]:
    """``deck`` as a tuple, once every entry is 32 bytes (a cache key must be); whether each is
    a group element, libsodium's multiplication says."""
    for j, p in enumerate(deck):
        if type(p) is not bytes or len(p) != POINT_BYTES:
            check_point(p, f"position {j}")
    return tuple(deck)  # type: ignore[arg-type]


def unmask(point: bytes, keys: Sequence[bytes]) -> bytes:
    """``(b_1 * .. * b_k)^-1 * point``: the card point under a position's keys, one per seat."""
    if not keys:
        raise ScalarError("no keys to unmask with")
    total = check_scalar(keys[0], "key of seat 0")
    for s, k in enumerate(keys[1:], 1):
        total = sodium.crypto_core_ed25519_scalar_mul(total, check_scalar(k, f"key of seat {s}"))
    return _times(sodium.crypto_core_ed25519_scalar_invert(total), point, "masked card")


def identify(point: bytes, points: Sequence[bytes]) -> int:
    """The index of ``point`` among the round's card points, else UnmaskError."""
    try:
        return points.index(point)
    except ValueError:
        raise UnmaskError("the keys do not open this position to a card of the round") from None


def unmask_card(point: bytes, keys: Sequence[bytes], points: Sequence[bytes]) -> int:
    """Open a position: the index (into the round's card list) of the card under ``point``."""
    return identify(unmask(point, keys), points)


class Openings:
    """The positions of one round opened so far, each to its card: a card that opens at two
    positions proves that a pass copied a point (StageError, live; the audit names the seat)."""

    def __init__(self, points: Sequence[bytes]) -> None:
        self.points = tuple(points)
        self.card_at: dict[int, int] = {}
        self._pos_of: dict[int, int] = {}

    def open(self, pos: int, point: bytes, keys: Sequence[bytes]) -> int:
        """Open ``pos``; the index of its card in the round's list."""
        j = unmask_card(point, keys, self.points)
        if self.card_at.get(pos, j) != j:
            raise UnmaskError(f"position {pos} opened to two different cards")
        other = self._pos_of.setdefault(j, pos)
        if other != pos:
            raise StageError(f"card {j} of the round opens at positions {other} and {pos}")
        self.card_at[pos] = j
        return j


# --------------------------------------------------------------------------- sealed keys


@dataclass(frozen=True, slots=True)
class KeyRoute:
    """Where a sealed key belongs: ``sender``'s key for ``pos`` of round ``stream`` of the hand
    ``ctx``, to ``recipient``. It is inside the box, so a box moved elsewhere fails to open."""

    ctx: bytes
    stream: int
    pos: int
    sender: int
    recipient: int

    def __str__(self) -> str:
        return f"sealed key of seat {self.sender} for stream {self.stream} position {self.pos}"

    def plaintext(self, key: bytes) -> bytes:
        """``enc(M"sealed-key", ctx, u32(stream), u32(pos), u32(from), u32(to), key)``."""
        return enc(
            label("sealed-key"),
            self.ctx,
            u32(self.stream),
            u32(self.pos),
            u32(self.sender),
            u32(self.recipient),
            key,
        )


def seal_key(route: KeyRoute, recipient_pk: bytes, key: bytes) -> bytes:
    """Seal ``key`` along ``route`` to the recipient's X25519 key (randomized)."""
    check_scalar(key, str(route))
    if len(recipient_pk) != sodium.crypto_box_PUBLICKEYBYTES:
        raise SealError(f"{route}: the recipient key is {len(recipient_pk)} bytes, not 32")
    return sodium.crypto_box_seal(route.plaintext(key), recipient_pk)


def open_key(route: KeyRoute, sealed: object, recipient_pk: bytes, recipient_sk: bytes) -> bytes:
    """The key inside ``sealed``, checked to be the one ``route`` names; SealError when it does
    not open with the recipient's keys or names another route, ScalarError when the key itself
    is bad."""
    size = len(route.plaintext(bytes(SCALAR_BYTES))) + sodium.crypto_box_SEALBYTES
    if not isinstance(sealed, bytes) or len(sealed) != size:
        raise SealError(f"{route}: not {size} bytes")
    return _open_key(route, sealed, recipient_pk, recipient_sk)


@functools.lru_cache(maxsize=BOX_CACHE)
def _open_key(route: KeyRoute, sealed: bytes, recipient_pk: bytes, recipient_sk: bytes) -> bytes:
    try:
        plain = sodium.crypto_box_seal_open(sealed, recipient_pk, recipient_sk)
    except CryptoError:
        raise SealError(f"{route}: does not open with seat {route.recipient}'s key") from None
    head = route.plaintext(b"")[:-4]  # everything before the key field
    if not plain.startswith(head) or plain[len(head) : len(head) + 4] != u32(SCALAR_BYTES):
        raise SealError(f"{route}: it holds a key for another hand, round, position or seat")
    return check_scalar(plain[-SCALAR_BYTES:], str(route))


# --------------------------------------------------------------------------- a seat's secret


def mask_commitment(ctx: bytes, seat: int, secret: bytes) -> bytes:
    """``H(enc(M"mask-commit", ctx, u32(seat), m))``: binds the seat to ``m`` before any pass."""
    return hashlib.sha256(enc(label("mask-commit"), ctx, u32(seat), secret)).digest()


@dataclass(frozen=True, slots=True)
class MaskSecret:
    """One seat's masking secret ``m`` for one hand, and everything derived from it."""

    ctx: bytes
    seat: int
    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.ctx) != 32:
            raise ContextError(f"ctx is 32 bytes, not {len(self.ctx)}")
        if len(self.secret) != SECRET_BYTES:
            raise CommitmentError(
                f"a masking secret is {SECRET_BYTES} bytes, not {len(self.secret)}"
            )
        u32(self.seat)

    @classmethod
    def new(cls, ctx: bytes, seat: int) -> MaskSecret:
        """A fresh secret from the OS CSPRNG."""
        return cls(ctx, seat, secrets.token_bytes(SECRET_BYTES))

    @property
    def commitment(self) -> bytes:
        return mask_commitment(self.ctx, self.seat, self.secret)

    def _fields(self, name: str, *more: bytes) -> tuple[bytes, ...]:
        return (label(name), self.ctx, u32(self.seat), *more)

    def deck_key(self, stream: int) -> bytes:
        """``a = reduce(HMAC-SHA512(m, enc(M"deck-key", ctx, u32(seat), u32(stream))))``."""
        return _scalar(self.secret, *self._fields("deck-key", u32(stream)))

    def position_key(self, stream: int, pos: int) -> bytes:
        """``b_pos = reduce(HMAC-SHA512(m, enc(M"position-key", ctx, u32(seat), u32(stream),
        u32(pos))))``."""
        return _scalar(self.secret, *self._fields("position-key", u32(stream), u32(pos)))

    def position_keys(self, stream: int, n: int) -> tuple[bytes, ...]:
        return tuple(self.position_key(stream, i) for i in range(n))

    @property
    def permutation_key(self) -> bytes:
        """``HMAC-SHA256(m, enc(M"permutation", ctx, u32(seat)))``, the key of 7.5's stream."""
        return hmac.new(self.secret, enc(*self._fields("permutation")), hashlib.sha256).digest()

    def permutation(self, stream: int, n: int) -> tuple[int, ...]:
        return permutation(self.permutation_key, stream, n)

    @property
    def box_keypair(self) -> tuple[bytes, bytes]:
        """``crypto_box_seed_keypair(HMAC-SHA256(m, enc(M"box-key", ctx, u32(seat))))``:
        (public, secret) X25519 keys to which the other seats seal their keys."""
        seed = hmac.new(self.secret, enc(*self._fields("box-key")), hashlib.sha256).digest()
        return _box_keypair(seed)

    def mask(self, stream: int, deck: Sequence[bytes]) -> tuple[bytes, ...]:
        """This seat's masking pass over ``deck`` (the previous seat's output)."""
        return mask_pass(deck, self.deck_key(stream), self.permutation(stream, len(deck)))

    def rekey(self, stream: int, deck: Sequence[bytes]) -> tuple[bytes, ...]:
        """This seat's re-keying pass over ``deck`` (the previous re-keyed deck)."""
        return rekey_pass(deck, self.deck_key(stream), self.position_keys(stream, len(deck)))

    def seal_for(self, stream: int, pos: int, recipient: int, recipient_pk: bytes) -> bytes:
        """This seat's key for ``pos``, sealed to ``recipient``."""
        route = KeyRoute(self.ctx, stream, pos, self.seat, recipient)
        return seal_key(route, recipient_pk, self.position_key(stream, pos))

    def open_from(self, sealed: bytes, stream: int, pos: int, sender: int) -> bytes:
        """Open ``sender``'s key for ``pos`` sealed to this seat."""
        pk, sk = self.box_keypair
        return open_key(KeyRoute(self.ctx, stream, pos, sender, self.seat), sealed, pk, sk)


@functools.lru_cache(maxsize=BOX_CACHE)
def _box_keypair(seed: bytes) -> tuple[bytes, bytes]:
    pk, sk = sodium.crypto_box_seed_keypair(seed)
    return pk, sk


# --------------------------------------------------------------------------- the audit


def verify_round(
    ctx: bytes,
    stream: int,
    cards: Sequence[str],
    *,
    seat_secrets: Sequence[bytes],
    commitments: Sequence[bytes],
    masked: Sequence[Sequence[bytes]],
    rekeyed: Sequence[Sequence[bytes]],
) -> tuple[str, ...]:
    """Re-derive a whole round from every seat's revealed secret and compare each stage.

    ``masked[s]`` / ``rekeyed[s]`` are the outputs of seat ``s``'s masking / re-keying pass as
    relayed; each secret must open its commitment (CommitmentError). The first stage that
    differs is a StageError naming the seat, the pass and the position. Returns the round's
    stock: the card at each position, top (position 0) first.
    """
    k = len(seat_secrets)
    if not (len(commitments) == len(masked) == len(rekeyed) == k) or k == 0:
        raise StageError(
            f"{k} secrets, {len(commitments)} commitments, {len(masked)} masking and "
            f"{len(rekeyed)} re-keying passes: one each per seat"
        )
    seats = [MaskSecret(ctx, s, m) for s, m in enumerate(seat_secrets)]
    for s, (seat, c) in enumerate(zip(seats, commitments, strict=True)):
        if seat.commitment != c:
            raise CommitmentError(f"seat {s}'s masking secret does not open its commitment")
    deck: tuple[bytes, ...] = card_points(ctx, stream, cards)
    order = tuple(range(len(cards)))
    for s, seat in enumerate(seats):
        perm = seat.permutation(stream, len(deck))
        deck = mask_pass(deck, seat.deck_key(stream), perm)
        order = tuple(order[j] for j in perm)
        _compare(deck, masked[s], f"masking pass of seat {s}")
    for s, seat in enumerate(seats):
        deck = seat.rekey(stream, deck)
        _compare(deck, rekeyed[s], f"re-keying pass of seat {s}")
    return tuple(cards[j] for j in order)


def _compare(derived: Sequence[bytes], relayed: Sequence[bytes], where: str) -> None:
    if len(relayed) != len(derived):
        raise StageError(f"{where}: {len(relayed)} points, expected {len(derived)}")
    for i, (d, r) in enumerate(zip(derived, relayed, strict=True)):
        if d != r:
            raise StageError(f"{where}: position {i} differs from the one its secret gives")
