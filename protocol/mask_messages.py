"""Private-table messages (``spec/PROTOCOL.md`` 10.11): what a seat sends for ``cardmask/v1``.

How it works: like every request of :mod:`protocol.table_messages`, each is a registered frozen
dataclass, validated on decode (``bad_field`` naming the field) and answered by ``ok`` or an
``error``. A seat commits to its masking secret and box key (``mask_commit``, with its
``fair_commit``), runs its passes (``mask_pass``), seals its keys for the positions dealt face down
to the other seats (``sealed_keys``), publishes its own keys for a position turned face up
(``open_keys``), puts face up the positions it holds that the rules turn face up (``show_hand``:
One Card's bankrupt hand, asked by the host's ``show_hand`` event) and reveals its secret when the
hand is over (``mask_reveal``). The keys a play opens travel with the play itself (``act.open``, in
:mod:`protocol.table_messages`); ``show_hand`` carries them in the same rows. The host's answers
are signed ``cardfair/v1`` messages in the hand's transcript
(:class:`~protocol.cardfair.MessageType` ``MASK_*``, ``SEALED``, ``OPENED``), carried by the
``fair`` push; :mod:`protocol.mask_relay` builds their bodies, :mod:`protocol.mask_checks` checks
them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar, Final

from protocol.lobby_messages import C2H, SEAT, TABLE_ID
from protocol.messages import Bytes, Direction, EnumKind, Int, ListOf, Message, Row, register, wire
from protocol.table_messages import MAX_OPENS, OPEN_ENTRY

__all__ = [
    "BOX_ENTRY",
    "MAX_BOXES",
    "MAX_PASS_POINTS",
    "MAX_POSITION_KEYS",
    "POSITION_KEY",
    "MaskCommit",
    "MaskPass",
    "MaskReveal",
    "OpenKeys",
    "PassKind",
    "SealedKeys",
    "ShowHand",
    "show_rows",
]

#: most points in one stage: the largest deck (Black Jack, two packs with four jokers)
MAX_PASS_POINTS: Final = 108
#: most boxes in one ``sealed_keys`` (so that a request stays under ``max_request_bytes``)
MAX_BOXES: Final = 20
#: most positions in one ``open_keys``
MAX_POSITION_KEYS: Final = 64


def show_rows(seats: int) -> int:
    """How many ``[stream, pos, keys]`` rows one ``show_hand`` carries at ``seats`` seats: as
    many as keep the request under ``max_request_bytes`` (4096; a row of ``k`` keys packs to at
    most ``12 + 34k`` bytes, 3800 bytes left for them), at most ``MAX_OPENS``."""
    return max(1, min(MAX_OPENS, 3800 // (12 + 34 * seats)))


_B32 = Bytes(32, 32)
_POS = Int(0, MAX_PASS_POINTS - 1)
_STREAM = Int(0, 0xFFFFFFFE)
_SAMPLE_KEY = bytes([1]) + bytes(31)

BOX_ENTRY: Final = Row(
    (_POS, SEAT, Bytes(178, 178)),
    ("pos", "to", "box"),
    ((0, 1, bytes(178)), (53, 0, bytes(range(178)))),
)
"""``[pos, to, box]``: the sender's key for ``pos`` sealed to seat ``to`` (10.7)."""

POSITION_KEY: Final = Row((_POS, _B32), ("pos", "key"), ((0, _SAMPLE_KEY), (7, bytes(32))))
"""``[pos, key]``: the sender's own key for ``pos``."""


class PassKind(enum.StrEnum):
    """The two passes of a round (10.5): masking, then re-keying."""

    MASK = "mask"
    REKEY = "rekey"


@register
@dataclass(frozen=True, kw_only=True)
class MaskCommit(Message):
    """A seat's masking commitment and box key, sent with its `fair_commit`; answered by `ok`."""

    TYPE: ClassVar[str] = "mask_commit"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "hand_no of the HAND_COMMIT")
    commit: bytes = wire(_B32, 'c_s = H(enc(M"mask-commit", ctx, u32(s), m_s))')
    box_pk: bytes = wire(_B32, "pk_s: the seat's X25519 key for this hand (10.4)")


@register
@dataclass(frozen=True, kw_only=True)
class MaskPass(Message):
    """A seat's pass of a round, when the previous stage reached it; answered by `ok`."""

    TYPE: ClassVar[str] = "mask_pass"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "hand_no of the HAND_COMMIT")
    stream: int = wire(_STREAM, "the round (0: the deal, k: the k-th reshuffle)")
    step: PassKind = wire(EnumKind(PassKind), "which pass: `mask` or `rekey`")
    points: tuple[bytes, ...] = wire(
        ListOf(_B32, 1, MAX_PASS_POINTS), "the pass's output, one point per position"
    )


@register
@dataclass(frozen=True, kw_only=True)
class SealedKeys(Message):
    """A seat's keys for positions dealt face down to other seats, each sealed to its holder."""

    TYPE: ClassVar[str] = "sealed_keys"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "hand_no of the HAND_COMMIT")
    stream: int = wire(_STREAM, "the round the positions belong to")
    boxes: tuple[tuple[int, int, bytes], ...] = wire(
        ListOf(BOX_ENTRY, 1, MAX_BOXES), "`[pos, to, box]` per position (box: 178 bytes, 10.7)"
    )


@register
@dataclass(frozen=True, kw_only=True)
class OpenKeys(Message):
    """A seat's own keys for positions a MASK_OPEN turns face up; answered by `ok`."""

    TYPE: ClassVar[str] = "open_keys"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "hand_no of the HAND_COMMIT")
    stream: int = wire(_STREAM, "the round of the positions")
    keys: tuple[tuple[int, bytes], ...] = wire(
        ListOf(POSITION_KEY, 1, MAX_POSITION_KEYS), "`[pos, key]` per position asked"
    )


@register
@dataclass(frozen=True, kw_only=True)
class ShowHand(Message):
    """A seat's keys for the hand the host's `show_hand` event asks it to put face up.

    One Card's bankrupt hand; answered by `ok`."""

    TYPE: ClassVar[str] = "show_hand"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "hand_no of the HAND_COMMIT")
    open: tuple[tuple[int, int, tuple[bytes, ...]], ...] = wire(
        ListOf(OPEN_ENTRY, 1, MAX_OPENS),
        "`[stream, pos, keys]` per position asked (as `act.open`): every seat's key for it, in "
        "seat order; a hand of more positions is sent in several requests",
    )


@register
@dataclass(frozen=True, kw_only=True)
class MaskReveal(Message):
    """A seat's masking secret `m_s`, sent once the hand is over; answered by `ok`."""

    TYPE: ClassVar[str] = "mask_reveal"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "hand_no of the HAND_COMMIT")
    secret: bytes = wire(_B32, "m_s, which opens `mask_commit.commit`")
