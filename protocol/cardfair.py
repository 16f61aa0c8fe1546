"""``cardfair/v1`` primitives: encodings, labels, commitments, the HMAC stream, signed messages.

How it works (normative text: ``spec/PROTOCOL.md`` section 7): every hash input is ``enc(...)``,
length-prefixed fields whose first field is a ``cardfair/v1/...`` label. ``ctx`` binds a hand to
its table, number, ruleset, deck, seats and host key; commitments, ``mix`` and the deck key ``K``
are hashes/HMACs over it. :class:`Stream` is the counter-mode HMAC word stream, ``below`` its
rejection sampler and :func:`shuffle` the Fisher-Yates built on it. A :class:`SignedMessage`
keeps the exact msgpack body bytes it was signed over; receivers verify before decoding.
The field checkers turn a malformed body into a precise :class:`BadMessageError`.
The per-hand state objects built on these live in :mod:`protocol.dealer` (host) and
:mod:`protocol.verifier` (client), both re-exported by :mod:`protocol.fairness`.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
import struct
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from protocol.cards import Card, CardCodeError, parse_card
from protocol.errors import ErrorCode, LocalProtocolError

__all__ = [
    "DEALER_STREAM",
    "LABEL_PREFIX",
    "MAX_STREAM_WORDS",
    "SCHEME",
    "SECRET_BYTES",
    "BadMessageError",
    "CardMismatchError",
    "CommitmentError",
    "Context",
    "ContextError",
    "DeckError",
    "FairnessError",
    "FairnessStateError",
    "MessageType",
    "PositionError",
    "ReusedSecretError",
    "RulesetError",
    "SeatSecret",
    "SignatureError",
    "SignedMessage",
    "Stream",
    "card_code",
    "choose_dealer",
    "deck_digest",
    "deck_key",
    "digest",
    "enc",
    "exact_card",
    "field_b32",
    "field_get",
    "field_int",
    "field_list",
    "field_pairs",
    "field_seat",
    "field_str",
    "fingerprint",
    "host_commitment",
    "key_fingerprint",
    "label",
    "mix",
    "pack_body",
    "player_commitment",
    "private_next",
    "public_key_bytes",
    "ruleset_id",
    "shuffle",
    "sign_message",
    "stream_block",
    "transcript_next",
    "u32",
    "u64",
]

SCHEME: Final = "cardfair/v1"
LABEL_PREFIX: Final = "cardfair/v1/"
#: Reserved stream id for choosing the first dealer: ``below(seats)`` on this stream.
DEALER_STREAM: Final = 0xFFFFFFFF
#: A stream never yields more words than this (a guard against a runaway rejection loop; the
#: chance of needing even 64 words for one ``below`` is below 2^-64).
MAX_STREAM_WORDS: Final = 1 << 20
SECRET_BYTES: Final = 32


# --------------------------------------------------------------------------- errors


class FairnessError(LocalProtocolError):
    """A fairness check failed; the message names exactly what (card, position, signature).

    :attr:`seat` is the seat to blame when the check can name one (a private table's relay
    and audit set it, PROTOCOL.md 10.11), else None."""

    seat: int | None = None

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.FAIRNESS)

    def blaming(self, seat: int | None) -> FairnessError:
        """This error, naming ``seat`` as the one at fault."""
        self.seat = seat
        return self


class SignatureError(FairnessError):
    """A host signature does not verify under the pinned host key."""


class BadMessageError(FairnessError):
    """A signed body is not a well-formed body of its type (field missing, wrong type/size)."""


class ContextError(FairnessError):
    """The hand's context (table, hand number, ruleset, deck, seats, host key) is wrong."""


class RulesetError(ContextError):
    """The signed ``ruleset_id`` is not the table's, changed between hands, or names a game or
    deck option the deck table of 7.3 does not know."""


class DeckError(ContextError):
    """The signed deck is not the deck its ruleset and seat count imply (7.3), or changed."""


class CommitmentError(FairnessError):
    """A commitment is missing, altered, duplicated, or a revealed value does not open it."""


class PositionError(FairnessError):
    """A draw is not the next unused position of the current stream, or a chain link is off."""


class CardMismatchError(FairnessError):
    """A card (or the dealer) differs from the one derived from ``S`` and the reveals."""


class FairnessStateError(FairnessError):
    """A message or call arrived at a step of the hand where it is not allowed."""


class ReusedSecretError(FairnessError):
    """A host secret ``S`` was offered for a second hand."""


# --------------------------------------------------------------------------- encodings


def u32(n: int) -> bytes:
    """4-byte big-endian unsigned integer."""
    if not 0 <= n <= 0xFFFFFFFF:
        raise ValueError(f"u32 out of range: {n}")
    return n.to_bytes(4, "big")


def u64(n: int) -> bytes:
    """8-byte big-endian unsigned integer."""
    if not 0 <= n <= 0xFFFFFFFFFFFFFFFF:
        raise ValueError(f"u64 out of range: {n}")
    return n.to_bytes(8, "big")


def label(name: str) -> bytes:
    """The domain-separation label ``L"name"`` = UTF-8 of ``"cardfair/v1/" + name``."""
    return (LABEL_PREFIX + name).encode()


def enc(*fields: bytes | str) -> bytes:
    """Concatenate ``u32be(len(f)) || f`` for each field; strings are UTF-8."""
    out = bytearray()
    for f in fields:
        b = f.encode() if isinstance(f, str) else bytes(f)
        out += len(b).to_bytes(4, "big")
        out += b
    return bytes(out)


def digest(*fields: bytes | str) -> bytes:
    """``H(enc(fields))`` with H = SHA-256."""
    return hashlib.sha256(enc(*fields)).digest()


def _hmac(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


def card_code(c: Card | str) -> str:
    return c if isinstance(c, str) else c.code


def deck_digest(cards: Sequence[Card | str]) -> bytes:
    """``H(enc(L"deck", u32(n), id_0 .. id_{n-1}))`` over card codes in canonical order."""
    return digest(label("deck"), u32(len(cards)), *(card_code(c) for c in cards))


def ruleset_id(game: str, options: Mapping[str, bool | int | str] | None = None) -> str:
    """The ruleset string bound into ``ctx``: ``game`` or ``game?k1=v1&k2=v2`` (keys sorted).

    Booleans are ``true``/``false``, integers decimal, strings verbatim.
    """
    if not options:
        return game
    parts = []
    for k in sorted(options):
        v = options[k]
        text = ("true" if v else "false") if isinstance(v, bool) else str(v)
        parts.append(f"{k}={text}")
    return game + "?" + "&".join(parts)


def public_key_bytes(key: Ed25519PublicKey | Ed25519PrivateKey) -> bytes:
    """The raw 32-byte Ed25519 public key."""
    pub = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return pub.public_bytes(Encoding.Raw, PublicFormat.Raw)


def fingerprint(t: bytes) -> str:
    """Short human form of a transcript digest: the first 8 bytes as 4 groups of 4 hex digits."""
    h = t[:8].hex()
    return "-".join(h[i : i + 4] for i in range(0, 16, 4))


def key_fingerprint(host_pk: bytes) -> str:
    """What clients show for the pinned host key: ``H(host_pk)[:8]`` as :func:`fingerprint`."""
    return fingerprint(hashlib.sha256(host_pk).digest())


# --------------------------------------------------------------------------- context, commitments


@dataclass(frozen=True, slots=True)
class Context:
    """Everything a hand is bound to; :attr:`digest` is ``ctx``."""

    table_id: str
    hand_no: int
    ruleset_id: str
    deck: tuple[str, ...]  #: card codes in canonical order (repeats for multi-deck games)
    pids: tuple[str, ...]  #: seat ids in seat order
    host_pk: bytes
    digest: bytes = field(init=False, repr=False)
    deck_digest: bytes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.table_id:
            raise ContextError("table_id is empty")
        if not 1 <= self.hand_no <= 0xFFFFFFFFFFFFFFFF:
            raise ContextError(f"hand_no must be 1..2^64-1, not {self.hand_no}")
        if not self.deck:
            raise ContextError("the deck is empty")
        for code in self.deck:
            exact_card(code, "deck")
        if sorted(self.deck, key=lambda c: parse_card(c).index) != list(self.deck):
            raise ContextError("the deck is not in canonical order")
        if not self.pids or any(not p for p in self.pids):
            raise ContextError("seat ids must be non-empty strings")
        if len(set(self.pids)) != len(self.pids):
            raise ContextError(f"seat ids repeat: {list(self.pids)}")
        if len(self.host_pk) != 32:
            raise ContextError(f"host_pk must be 32 bytes, not {len(self.host_pk)}")
        dd = deck_digest(self.deck)
        ctx = digest(
            label("ctx"),
            self.table_id,
            u64(self.hand_no),
            self.ruleset_id,
            dd,
            u32(len(self.pids)),
            *self.pids,
            self.host_pk,
        )
        object.__setattr__(self, "deck_digest", dd)
        object.__setattr__(self, "digest", ctx)

    @classmethod
    def create(
        cls,
        *,
        table_id: str,
        hand_no: int,
        ruleset_id: str,
        deck: Iterable[Card | str],
        pids: Iterable[str],
        host_pk: bytes,
    ) -> Context:
        return cls(table_id, hand_no, ruleset_id, tuple(map(card_code, deck)), tuple(pids), host_pk)

    def seat_of(self, pid: str) -> int:
        try:
            return self.pids.index(pid)
        except ValueError:
            raise ContextError(f"{pid!r} is not seated at this hand") from None


def host_commitment(ctx: bytes, secret: bytes) -> bytes:
    """``C_S = H(enc(L"host-commit", ctx, S))``."""
    return digest(label("host-commit"), ctx, secret)


def player_commitment(ctx: bytes, pid: str, r: bytes) -> bytes:
    """``c_i = H(enc(L"player-commit", ctx, pid_i, r_i))``."""
    return digest(label("player-commit"), ctx, pid, r)


def mix(ctx: bytes, reveals: Sequence[bytes]) -> bytes:
    """``mix = H(enc(L"mix", ctx, u32(k), r_1 .. r_k))`` in seat order."""
    return digest(label("mix"), ctx, u32(len(reveals)), *reveals)


def deck_key(secret: bytes, ctx: bytes, mixed: bytes) -> bytes:
    """``K = HMAC-SHA256(key=S, msg=enc(L"deck-key", ctx, mix))``."""
    return _hmac(secret, enc(label("deck-key"), ctx, mixed))


@dataclass(frozen=True, slots=True)
class SeatSecret:
    """A seat's random ``r`` and its commitment ``c`` for one hand."""

    pid: str
    r: bytes
    c: bytes

    @classmethod
    def new(cls, ctx: bytes, pid: str, phrase: str | None = None) -> SeatSecret:
        """Fresh ``r = token_bytes(32)``; a user phrase is mixed in, never used instead."""
        r = secrets.token_bytes(SECRET_BYTES)
        if phrase:
            r = digest(label("seat-phrase"), r, phrase)
        return cls.from_r(ctx, pid, r)

    @classmethod
    def from_r(cls, ctx: bytes, pid: str, r: bytes) -> SeatSecret:
        if len(r) != SECRET_BYTES:
            raise CommitmentError(f"r for {pid} must be 32 bytes, not {len(r)}")
        return cls(pid, r, player_commitment(ctx, pid, r))

    def commit_body(self, hand_no: int) -> dict[str, Any]:
        """Body of the seat's PLAYER_COMMIT message."""
        return {"hand_no": hand_no, "c": self.c}

    def reveal_body(self, hand_no: int) -> dict[str, Any]:
        """Body of the seat's REVEAL message (send only after verifying LOCK)."""
        return {"hand_no": hand_no, "r": self.r}


# --------------------------------------------------------------------------- the stream


def stream_block(key: bytes, stream: int, j: int) -> bytes:
    """``block_j = HMAC(K, enc(L"stream", u32(s), u64(j)))``."""
    return _hmac(key, enc(label("stream"), u32(stream), u64(j)))


_STREAM_LABEL = enc(label("stream"))
_U64_FRAME = (8).to_bytes(4, "big")  # enc() length prefix of the u64 block counter
_WORDS = struct.Struct(">8I")


class Stream:
    """The counter-mode HMAC word stream ``s`` under ``K``, read as big-endian u32 words.

    Equal to concatenating :func:`stream_block` for j = 0, 1, ..; the HMAC state after the
    constant prefix ``enc(L"stream", u32(s))`` is computed once and copied per block.
    """

    __slots__ = ("_block", "_buf", "_key", "stream", "words_used")

    def __init__(self, key: bytes, stream: int) -> None:
        self._key = hmac.new(key, _STREAM_LABEL + enc(u32(stream)), hashlib.sha256)
        self.stream = stream
        self._block = 0
        self._buf: list[int] = []
        self.words_used = 0

    def next_word(self) -> int:
        if not self._buf:
            if self.words_used >= MAX_STREAM_WORDS:
                raise FairnessError(f"stream {self.stream} exhausted its word budget")
            h = self._key.copy()
            h.update(_U64_FRAME + self._block.to_bytes(8, "big"))
            self._buf = list(reversed(_WORDS.unpack(h.digest())))
            self._block += 1
        self.words_used += 1
        return self._buf.pop()

    def below(self, n: int) -> int:
        """Uniform in ``[0, n)``: reject words below ``2^32 mod n`` (``arc4random_uniform``)."""
        if n < 2:
            return 0
        if n > 0x100000000:
            raise ValueError(f"below({n}): n exceeds 2^32")
        lo = 0x100000000 % n
        while True:
            w = self.next_word()
            if w >= lo:
                return w % n


def shuffle(stream: Stream, cards: Sequence[Card]) -> list[Card]:
    """Fisher-Yates: for i = n-1 down to 1, j = below(i+1), swap; position 0 is the top."""
    a = list(cards)
    for i in range(len(a) - 1, 0, -1):
        j = stream.below(i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def choose_dealer(key: bytes, seats: int) -> int:
    """The first dealer: ``below(seats)`` on the reserved :data:`DEALER_STREAM`."""
    return Stream(key, DEALER_STREAM).below(seats)


def transcript_next(prev: bytes, msg_type: str, body: bytes, sig: bytes) -> bytes:
    """``T_i = H(enc(L"transcript", T_{i-1}, type, body, sig))``.

    The signature is chained too, so one verified signature (HAND_END's) vouches for the exact
    bytes of every public message before it, signatures included: a record verifier may skip
    the other signature checks (``spec/PROTOCOL.md`` 8.2).
    """
    return digest(label("transcript"), prev, msg_type, body, sig)


def private_next(prev: bytes, transcript: bytes, body: bytes, sig: bytes) -> bytes:
    """``P_i = H(enc(L"private", P_{i-1}, T, body, sig))`` over the CARDs, ``P_0 = ctx``.

    ``T`` is the transcript when the CARD is sent (just after its DRAW), so the chain binds
    where each CARD sits among the public messages too. HAND_END and VOID sign the final ``P``
    (field ``private``); only a holder of every CARD (a full record) can recompute it.
    """
    return digest(label("private"), prev, transcript, body, sig)


# --------------------------------------------------------------------------- signed messages


class MessageType(enum.StrEnum):
    """Signed host message types (the ``type`` field signed with the body)."""

    HAND_COMMIT = "hand_commit"
    LOCK = "lock"
    REVEALS = "reveals"
    DEALER = "dealer"
    DRAW = "draw"
    CARD = "card"  #: private: the only signed message outside the transcript
    RESHUFFLE = "reshuffle"
    HAND_END = "hand_end"
    VOID = "void"
    # private tables (``cardmask/v1``, PROTOCOL.md 10.11): public, chained like the rest
    MASK_LOCK = "mask_lock"  #: every seat's masking commitment and box key, after LOCK
    MASK_STAGE = "mask_stage"  #: one seat's checked pass of a round
    SEALED = "sealed"  #: the other seats' sealed keys for a position dealt face down
    MASK_OPEN = "mask_open"  #: positions dealt to the table that every seat must now open
    OPENED = "opened"  #: a position opened face up: every seat's key and the card
    MASK_END = "mask_end"  #: every seat's revealed masking secret, before HAND_END


def pack_body(body: Mapping[str, Any]) -> bytes:
    """The msgpack bytes of a body (str keys, bin for bytes); the signed, stored form."""
    packed = msgpack.packb(dict(body), use_bin_type=True)
    assert isinstance(packed, bytes)
    return packed


@dataclass(frozen=True, slots=True)
class SignedMessage:
    """``[type, body, sig]``: ``body`` are the exact signed bytes, kept verbatim."""

    type: str
    body: bytes
    sig: bytes

    @property
    def name(self) -> str:
        return self.type.upper()

    def signed_bytes(self) -> bytes:
        return enc(label("sig"), self.type, self.body)

    def verify(self, host_pk: Ed25519PublicKey) -> None:
        """Raise :class:`SignatureError` unless ``sig`` verifies over the exact bytes."""
        if len(self.sig) != 64:
            raise SignatureError(f"signature on {self.name} invalid (length {len(self.sig)})")
        signed = self.signed_bytes()
        key = (
            host_pk.public_bytes(Encoding.Raw, PublicFormat.Raw),
            self.sig,
            hashlib.sha512(signed).digest(),
        )
        with _GOOD_LOCK:
            if key in _GOOD_SIGNATURES:
                _GOOD_SIGNATURES.move_to_end(key)
                return
        try:
            host_pk.verify(self.sig, signed)
        except InvalidSignature:
            raise SignatureError(f"signature on {self.name} invalid") from None
        with _GOOD_LOCK:
            _GOOD_SIGNATURES[key] = None
            if len(_GOOD_SIGNATURES) > SIGNATURE_CACHE:
                _GOOD_SIGNATURES.popitem(last=False)

    def decode(self) -> dict[str, Any]:
        """Decode the body (call :meth:`verify` first); raise :class:`BadMessageError`."""
        try:
            obj = msgpack.unpackb(self.body, raw=False, strict_map_key=True)
        except Exception as exc:
            raise BadMessageError(f"{self.name} body is not msgpack: {exc}") from None
        if not isinstance(obj, dict):
            raise BadMessageError(f"{self.name} body is not a map")
        return obj

    def to_wire(self) -> list[Any]:
        return [self.type, self.body, self.sig]

    @classmethod
    def from_wire(cls, obj: object) -> SignedMessage:
        if not (isinstance(obj, list | tuple) and len(obj) == 3):
            raise BadMessageError("a signed message is [type, body, sig]")
        t, b, s = obj
        if not (isinstance(t, str) and isinstance(b, bytes) and isinstance(s, bytes)):
            raise BadMessageError("a signed message is [str type, bin body, bin sig]")
        return cls(t, b, s)


#: signatures found good, most recent last: every party a process plays (a host's bot seats,
#: the tests' seats) checks each signed message the host sends. Kept: (host key, signature,
#: SHA-512 of the signed bytes), never the bytes; a bad signature is never kept, so it is
#: checked (and refused) every time and cannot push good ones out
SIGNATURE_CACHE: Final = 4096
_GOOD_SIGNATURES: OrderedDict[tuple[bytes, bytes, bytes], None] = OrderedDict()
_GOOD_LOCK = threading.Lock()  # (records may be checked in worker threads)


def sign_message(key: Ed25519PrivateKey, msg_type: str, body: Mapping[str, Any]) -> SignedMessage:
    """Pack ``body`` and sign ``enc(L"sig", type, body_bytes)`` with Ed25519."""
    raw = pack_body(body)
    return SignedMessage(msg_type, raw, key.sign(enc(label("sig"), msg_type, raw)))


# --------------------------------------------------------------------------- body field checks


def exact_card(code: object, where: str) -> Card:
    try:
        c = parse_card(code)
    except CardCodeError as exc:
        raise BadMessageError(f"{where}: {exc.message}") from None
    if c.code != code:
        raise BadMessageError(f"{where}: card code {code!r} is not in canonical form {c.code!r}")
    return c


def field_get(body: Mapping[str, Any], key: str, kind: type | tuple[type, ...], name: str) -> Any:
    if key not in body:
        raise BadMessageError(f"{name} lacks field {key!r}")
    v = body[key]
    if not isinstance(v, kind) or (isinstance(v, bool) and kind is int):
        raise BadMessageError(f"{name} field {key!r} has the wrong type")
    return v


def field_int(body: Mapping[str, Any], key: str, name: str) -> int:
    v = field_get(body, key, int, name)
    assert isinstance(v, int)
    if v < 0:
        raise BadMessageError(f"{name} field {key!r} is negative")
    return v


def field_b32(body: Mapping[str, Any], key: str, name: str) -> bytes:
    v = field_get(body, key, bytes, name)
    assert isinstance(v, bytes)
    if len(v) != 32:
        raise BadMessageError(f"{name} field {key!r} must be 32 bytes, not {len(v)}")
    return v


def field_str(body: Mapping[str, Any], key: str, name: str) -> str:
    v = field_get(body, key, str, name)
    assert isinstance(v, str)
    return v


def field_list(body: Mapping[str, Any], key: str, name: str) -> list[Any]:
    v = field_get(body, key, list, name)
    assert isinstance(v, list)
    return v


def field_pairs(body: Mapping[str, Any], key: str, name: str) -> list[tuple[str, bytes]]:
    out = []
    for item in field_list(body, key, name):
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], bytes)
            and len(item[1]) == 32
        ):
            raise BadMessageError(f"{name} field {key!r} must hold [pid, 32 bytes] pairs")
        out.append((item[0], item[1]))
    return out


def field_seat(body: Mapping[str, Any], key: str, name: str, seats: int) -> int | None:
    if key not in body:
        raise BadMessageError(f"{name} lacks field {key!r}")
    v = body[key]
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < seats:
        raise BadMessageError(f"{name} field {key!r} is not a seat 0..{seats - 1}")
    return v
