"""Play, fair-dealing wrapper, reconnect and chat messages (``spec/PROTOCOL.md`` 4-6), and the
one place to reach every table message: the lobby messages (section 3) of
:mod:`protocol.lobby_messages` are re-exported here.

How it works: each message is a registered frozen dataclass like the core ones in
:mod:`protocol.messages`, so the same registry decodes, encodes, validates and documents them.
Requests from a client carry an ``id``; the host answers each with exactly one reply carrying
``re`` (the reply type named in the request's docstring, or ``error``). Pushes from the host
(``table_info``, ``state``, ``event``, ``fair``, ``game_start``, ``game_over``, ``chat_line``)
carry no ``re``. Messages about a table carry its id in ``table``; messages the host journals
carry the table's ``seq`` (increasing, with gaps), which a client keeps to resume.
:mod:`protocol.registry` holds the registry of every type, in the order of the spec's sections.

Game-specific maps (views, actions, events, outcomes, options) are free-form maps here; their
contents are specified per game in ``spec/RULES.md`` and by the engines' ``to_wire``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from protocol.cards import Card
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.limits import MAX_CHAT_LEN, MAX_NAME_LEN
from protocol.lobby_messages import (
    C2H,
    H2C,
    SEAT,
    TABLE_ID,
    AddBot,
    BotAdded,
    CreateTable,
    Games,
    Join,
    Joined,
    Leave,
    Left,
    ListGames,
    ListTables,
    Ok,
    Ready,
    TableCreated,
    TableInfo,
    Tables,
    Watch,
    Watching,
)
from protocol.messages import (
    AnyMap,
    Bool,
    Bytes,
    CardKind,
    Direction,
    Int,
    Kind,
    ListOf,
    Message,
    Nullable,
    Row,
    Str,
    register,
    wire,
)

__all__ = [
    "MAX_OPENS",
    "OPEN_ENTRY",
    "Ack",
    "Act",
    "AddBot",
    "BotAdded",
    "ChatLine",
    "ChatSay",
    "CreateTable",
    "EventPush",
    "Explain",
    "Explained",
    "FairCommit",
    "FairPush",
    "FairReveal",
    "GameOver",
    "GameStart",
    "Games",
    "GetRecord",
    "Join",
    "Joined",
    "Leave",
    "Left",
    "ListGames",
    "ListRecords",
    "ListTables",
    "Ok",
    "Ready",
    "RecordPart",
    "Records",
    "Resume",
    "Resumed",
    "SignedKind",
    "StatePush",
    "TableCreated",
    "TableInfo",
    "Tables",
    "Watch",
    "Watching",
]

_SEQ = Int(0, 2**53 - 1)
#: most stock positions one play of a private table opens (``act.open``)
MAX_OPENS = 16
_KEY = Bytes(32, 32)
_SAMPLE_KEY = bytes([1]) + bytes(31)
OPEN_ENTRY = Row(
    (Int(0, 0xFFFFFFFE), Int(0, 107), ListOf(_KEY, 2, 16)),
    ("stream", "pos", "keys"),
    ((0, 3, (_SAMPLE_KEY, _SAMPLE_KEY)), (1, 0, (_SAMPLE_KEY, bytes(32), _SAMPLE_KEY))),
)
"""``[stream, pos, keys]`` of ``act.open``: a played position and every seat's key for it, in
seat order (private tables, PROTOCOL.md 10.11)."""
#: longest chunk of record JSON text in one ``record_part``
RECORD_CHUNK_CHARS = 6000


class SignedKind(Kind):
    """A signed fairness message ``[type str, body bin, sig bin[64]]`` (section 7)."""

    def coerce(self, value: object, path: str) -> list[Any]:
        ok = (
            isinstance(value, list | tuple)
            and len(value) == 3
            and isinstance(value[0], str)
            and 0 < len(value[0]) <= 32
            and isinstance(value[1], bytes | bytearray)
            and isinstance(value[2], bytes | bytearray)
            and len(value[2]) == 64
        )
        if not ok:
            raise LocalProtocolError(
                f"field {path!r}: expected [type str, body bin, sig bin[64]]",
                code=ErrorCode.BAD_FIELD,
            )
        assert isinstance(value, list | tuple)
        return [value[0], bytes(value[1]), bytes(value[2])]

    def describe(self) -> str:
        return "[str, bin, bin[64]] (signed message)"

    def examples(self) -> tuple[Any, ...]:
        return (["hand_commit", b"\x80", bytes(64)], ["card", b"\x81\xa1a\x01", bytes(range(64))])


# --------------------------------------------------------------------------- play


@register
@dataclass(frozen=True, kw_only=True)
class GameStart(Message):
    """Pushed (journaled) when a game starts at the table: names in seat order."""

    TYPE: ClassVar[str] = "game_start"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seq: int = wire(_SEQ, "table seq")
    game_no: int = wire(Int(1), "game number at this table")
    game: str = wire(Str(max_len=32), "game name")
    names: tuple[str, ...] = wire(ListOf(Str(max_len=MAX_NAME_LEN), max_len=16), "seat names")


@register
@dataclass(frozen=True, kw_only=True)
class StatePush(Message):
    """Pushed after every change: what this connection may see and, for a seat, its legal moves."""

    TYPE: ClassVar[str] = "state"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seq: int = wire(_SEQ, "table seq of the last journaled message before this view")
    game_no: int = wire(Int(), "game number")
    phase: str = wire(Str(max_len=16), "table phase (`dealing`: a fair-deal round is open)")
    seat: int | None = wire(Nullable(SEAT), "the seat this view is for; nil: spectator")
    view: dict[str, Any] = wire(AnyMap(), "the game's view for this seat (per game)")
    legal: tuple[dict[str, Any], ...] = wire(
        ListOf(AnyMap(), max_len=1024), "legal actions of this seat now, in wire form"
    )
    to_act: tuple[int, ...] = wire(ListOf(SEAT, max_len=16), "seats whose turn it is")
    turn_ms: int | None = wire(
        Nullable(Int()), "milliseconds left on the turn timer; nil: no timer running"
    )


@register
@dataclass(frozen=True, kw_only=True)
class Act(Message):
    """A seat's action; `seq` increases per game; a retried seq is not applied twice."""

    TYPE: ClassVar[str] = "act"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    seq: int = wire(Int(1), "client action seq: 1, 2, ... within a game")
    action: dict[str, Any] = wire(AnyMap(), "the action in wire form (one of `state.legal`)")
    open: tuple[tuple[int, int, tuple[bytes, ...]], ...] = wire(
        ListOf(OPEN_ENTRY, max_len=MAX_OPENS),
        "private tables (10.11): `[stream, pos, keys]` per stock position the play puts face "
        "up, every seat's key for it in seat order; empty elsewhere",
        default=(),
    )


@register
@dataclass(frozen=True, kw_only=True)
class Ack(Message):
    """Reply to `act`: applied, or `duplicate` if that seq was applied before."""

    TYPE: ClassVar[str] = "ack"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seq: int = wire(Int(1), "the client action seq acknowledged")
    duplicate: bool = wire(Bool(), "true: already applied earlier; nothing changed")


@register
@dataclass(frozen=True, kw_only=True)
class Explain(Message):
    """Asks why the sender's seat cannot play a card it holds now; answered by `explained`.

    Changes nothing and is not journaled.
    """

    TYPE: ClassVar[str] = "explain"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    card: Card = wire(CardKind(), "the card asked about, e.g. `QS`")


@register
@dataclass(frozen=True, kw_only=True)
class Explained(Message):
    """Reply to `explain`: why no legal move plays the card now, and whether it may be blundered."""

    TYPE: ClassVar[str] = "explained"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    card: Card = wire(CardKind(), "the card asked about")
    reason: str = wire(
        Str(max_len=1000), 'why no legal move plays the card now; "": a legal move does'
    )
    blunder: bool = wire(
        Bool(), "true: `action` sent with `act` is accepted as a blunder (its cost is in `reason`)"
    )
    action: dict[str, Any] | None = wire(
        Nullable(AnyMap()),
        "the one action (wire form, for `act`) that puts down this card alone and is accepted "
        "now, as a legal move or a blunder; nil: none, or several (e.g. a seven naming a suit)",
    )


@register
@dataclass(frozen=True, kw_only=True)
class EventPush(Message):
    """Pushed (journaled): something happened; private events go only to their seat."""

    TYPE: ClassVar[str] = "event"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seq: int = wire(_SEQ, "table seq")
    event: dict[str, Any] = wire(
        AnyMap(), "`{kind, ...}` from the engine; host kinds `timeout`, `substitute`, `stood_up`"
    )


@register
@dataclass(frozen=True, kw_only=True)
class GameOver(Message):
    """Pushed (journaled) when the game ends, with the outcome."""

    TYPE: ClassVar[str] = "game_over"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seq: int = wire(_SEQ, "table seq")
    game_no: int = wire(Int(1), "game number")
    outcome: dict[str, Any] = wire(AnyMap(), "`{termination, winners, ranking, scores}`")


# --------------------------------------------------------------------------- fair dealing


@register
@dataclass(frozen=True, kw_only=True)
class FairPush(Message):
    """Pushed (journaled): one signed `cardfair/v1` host message (CARD only to its seat)."""

    TYPE: ClassVar[str] = "fair"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seq: int = wire(_SEQ, "table seq")
    hand_no: int = wire(Int(1), "fairness hand number (ctx hand_no)")
    msg: list[Any] = wire(SignedKind(), "the signed message, verify before decoding")
    host_seats: tuple[int, ...] = wire(
        ListOf(SEAT, max_len=16),
        "on `hand_commit`: seats whose entropy the host contributes this hand (sitting out "
        "after a missed reveal, or played by the host); they send no commit or reveal",
        default=(),
    )


@register
@dataclass(frozen=True, kw_only=True)
class FairCommit(Message):
    """A seat's PLAYER_COMMIT `c_i`, sent after verifying HAND_COMMIT; answered by `ok`."""

    TYPE: ClassVar[str] = "fair_commit"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "hand_no of the HAND_COMMIT")
    c: bytes = wire(Bytes(32, 32), 'c_i = H(enc(L"player-commit", ctx, pid, r_i))')


@register
@dataclass(frozen=True, kw_only=True)
class FairReveal(Message):
    """A seat's REVEAL `r_i`, sent only after verifying LOCK; answered by `ok`."""

    TYPE: ClassVar[str] = "fair_reveal"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "hand_no of the LOCK")
    r: bytes = wire(Bytes(32, 32), "the 32-byte r_i")


@register
@dataclass(frozen=True, kw_only=True)
class ListRecords(Message):
    """Asks which hand records a table has; answered by `records`."""

    TYPE: ClassVar[str] = "list_records"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")


@register
@dataclass(frozen=True, kw_only=True)
class Records(Message):
    """Reply to `list_records`: the fairness hand numbers with a stored record."""

    TYPE: ClassVar[str] = "records"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    hands: tuple[int, ...] = wire(ListOf(Int(1), max_len=4096), "hand numbers")


@register
@dataclass(frozen=True, kw_only=True)
class GetRecord(Message):
    """Fetches one finished hand's record; answered by one or more `record_part`."""

    TYPE: ClassVar[str] = "get_record"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "fairness hand number")


@register
@dataclass(frozen=True, kw_only=True)
class RecordPart(Message):
    """A chunk of a hand record's JSON text; concatenate parts 0..parts-1 and parse."""

    TYPE: ClassVar[str] = "record_part"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    hand_no: int = wire(Int(1), "fairness hand number")
    part: int = wire(Int(0, 65535), "this chunk's index")
    parts: int = wire(Int(1, 65536), "number of chunks")
    text: str = wire(Str(max_len=RECORD_CHUNK_CHARS), "JSON text chunk (section 8 format)")


# --------------------------------------------------------------------------- reconnect


@register
@dataclass(frozen=True, kw_only=True)
class Resume(Message):
    """Reclaims a seat after a disconnect or restart; answered by `resumed`, then the backlog."""

    TYPE: ClassVar[str] = "resume"
    DIRECTION: ClassVar[Direction] = C2H
    token: str = wire(Str(min_len=16, max_len=128), "the token from `joined`")
    last_seq: int = wire(_SEQ, "highest table seq received; 0: none", default=0)


@register
@dataclass(frozen=True, kw_only=True)
class Resumed(Message):
    """Reply to `resume`: the seat is yours again; missed messages and a `state` follow."""

    TYPE: ClassVar[str] = "resumed"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seat: int = wire(SEAT, "your seat")
    name: str = wire(Str(max_len=MAX_NAME_LEN), "your name")
    seq: int = wire(_SEQ, "the table's current seq")
    act_seq: int = wire(
        _SEQ, "highest `act` seq the host applied from this seat in the current game"
    )


# --------------------------------------------------------------------------- chat


@register
@dataclass(frozen=True, kw_only=True)
class ChatSay(Message):
    """A chat line to everyone at the table (seated or watching); answered by `ok`."""

    TYPE: ClassVar[str] = "chat"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    text: str = wire(Str(min_len=1, max_len=MAX_CHAT_LEN, printable=True), "the line")


@register
@dataclass(frozen=True, kw_only=True)
class ChatLine(Message):
    """Pushed to everyone at the table: a chat line (not journaled)."""

    TYPE: ClassVar[str] = "chat_line"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seat: int | None = wire(Nullable(SEAT), "sender's seat; nil: a spectator")
    name: str = wire(Str(max_len=MAX_NAME_LEN), "sender's name")
    text: str = wire(Str(max_len=MAX_CHAT_LEN), "the line")
    n: int = wire(Int(0), "the line's number at this table: 1, 2, ... (0: not numbered)", default=0)
