"""Messages: one frozen, keyword-only, validated dataclass per wire message type.

How it works (after h11 ``_events.py``):

* Every message is a map with a ``type`` string and the optional envelope fields ``id`` (chosen
  by the sender, int or str) and ``re`` (on a reply: the ``id`` of the message it answers).
  :class:`Message` holds the envelope; each subclass adds its fields.
* Each field is declared with :func:`wire`, naming a :class:`Kind` (``Int``, ``Str``,
  ``ListOf``, ``CardKind`` ...; defined in :mod:`protocol.kinds`, re-exported here). A kind
  coerces a value (wire form or Python form) to its Python form and validates it, renders it
  back to the wire and describes itself for the spec. So one declaration drives construction,
  decoding, encoding, the spec table and test strategies.
* ``@register`` checks a class and declares it a message type (only a declared type can be
  built). This module defines the core types (section 2); :mod:`protocol.registry` imports it
  and the other message modules in the spec's order and holds ``MESSAGE_TYPES``, the one
  registry that decodes (``message_from_wire``). ``Message.to_wire`` encodes.

Rules: invalid values raise ``LocalProtocolError(code=bad_field)`` naming the field (``bad_card``
for a card code). Unknown map keys are ignored (forward compatibility: a newer peer may add
optional fields). Absent optional fields take their default. Never subclass a concrete message.

Adding a message type: define it in the ``protocol/`` module of its spec section (this one,
:mod:`protocol.lobby_messages` or :mod:`protocol.table_messages`; a new module also goes in
:data:`protocol.registry.SPEC_ORDER`), then regenerate the spec with
``python -m protocol --write-spec``. A custom :class:`Kind` also needs ``examples()`` for the
property tests. For example::

    @register
    @dataclass(frozen=True, kw_only=True)
    class Chat(Message):
        \"\"\"A chat line from a player to the table.\"\"\"

        TYPE: ClassVar[str] = "chat"
        DIRECTION: ClassVar[Direction] = Direction.CLIENT_TO_HOST
        text: str = wire(Str(min_len=1, max_len=MAX_CHAT_LEN), "the line")
        cards: tuple[Card, ...] = wire(ListOf(CardKind(), max_len=5), "cards shown", default=())
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

from protocol.errors import ErrorCode, LocalProtocolError, ProtocolError
from protocol.framing import WireDict
from protocol.kinds import (
    AnyMap,
    Bool,
    Bytes,
    CardKind,
    EnumKind,
    Int,
    Kind,
    ListOf,
    MapOf,
    MessageId,
    MessageIdKind,
    Nullable,
    Row,
    Str,
    bad_field,
)
from protocol.limits import (
    MAX_NAME_LEN,
    MAX_RETRY_AFTER_S,
    MAX_SOFTWARE_LEN,
    MAX_TEXT_LEN,
    MAX_VERSION,
    MAX_VERSIONS,
)

__all__ = [
    "AnyMap",
    "Bool",
    "Bye",
    "Bytes",
    "CardKind",
    "Direction",
    "EnumKind",
    "Error",
    "FieldSpec",
    "Hello",
    "Int",
    "Kind",
    "ListOf",
    "MapOf",
    "Message",
    "MessageId",
    "MessageIdKind",
    "Nullable",
    "Ping",
    "Pong",
    "Row",
    "ServerClosing",
    "Str",
    "Welcome",
    "field_required",
    "field_specs",
    "message_id_of",
    "register",
    "registered_types",
    "spec_table",
    "wire",
]

# --------------------------------------------------------------------------- fields

_SPEC = "onecard.wire"


@dataclass(frozen=True)
class FieldSpec:
    """What :func:`wire` stores in a dataclass field's metadata."""

    kind: Kind
    doc: str


def wire(kind: Kind, doc: str, *, default: Any = dataclasses.MISSING) -> Any:
    """Declare a message field: its wire kind, a one-line doc and an optional default.

    A field with a default may be absent on the wire. Mutable defaults are not allowed (use a
    tuple for lists).
    """
    return dataclasses.field(default=default, metadata={_SPEC: FieldSpec(kind, doc)})


_SPECS_CACHE: dict[type[Message], dict[str, FieldSpec]] = {}
_REQUIRED_CACHE: dict[type[Message], frozenset[str]] = {}


def field_specs(cls: type[Message]) -> dict[str, FieldSpec]:
    """The declared wire fields of a message class (envelope excluded), in order (cached: do
    not mutate the result)."""
    specs = _SPECS_CACHE.get(cls)
    if specs is None:
        specs = _SPECS_CACHE[cls] = {
            f.name: f.metadata[_SPEC]
            for f in dataclasses.fields(cls)
            if f.name not in _ENVELOPE and _SPEC in f.metadata
        }
    return specs


def field_required(cls: type[Message], name: str) -> bool:
    """Whether a field must be present on the wire (it has no default)."""
    required = _REQUIRED_CACHE.get(cls)
    if required is None:
        required = _REQUIRED_CACHE[cls] = frozenset(
            f.name
            for f in dataclasses.fields(cls)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        )
    return name in required


# --------------------------------------------------------------------------- messages


class Direction(enum.Enum):
    """Who may send a message type."""

    #: Only a client sends it.
    CLIENT_TO_HOST = "client→host"
    #: Only the host sends it.
    HOST_TO_CLIENT = "host→client"
    #: Either side sends it.
    BOTH = "both"


_ENVELOPE = ("id", "re")
_ID_KIND = MessageIdKind()


@dataclass(frozen=True, kw_only=True)
class Message:
    """Base of all messages: the envelope. Never instantiated directly."""

    TYPE: ClassVar[str]
    DIRECTION: ClassVar[Direction]

    #: Sender-chosen id; a reply carries it back in ``re``.
    id: MessageId | None = None
    #: On a reply: the ``id`` of the message answered.
    re: MessageId | None = None

    def __post_init__(self) -> None:
        if _DECLARED.get(getattr(self, "TYPE", "")) is not type(self):
            raise TypeError(f"{type(self).__name__} is not a registered message type")
        for name in _ENVELOPE:
            value = getattr(self, name)
            if value is not None:
                _ID_KIND.coerce(value, name)
        for name, spec in field_specs(type(self)).items():
            object.__setattr__(self, name, spec.kind.coerce(getattr(self, name), name))
        self.check()

    def check(self) -> None:
        """Cross-field validation hook (runs after every field is coerced); raise bad_field."""

    def to_wire(self) -> WireDict:
        """This message as a wire map (``id``/``re`` omitted when None)."""
        out: WireDict = {"type": self.TYPE}
        for name in _ENVELOPE:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        for name, spec in field_specs(type(self)).items():
            out[name] = spec.kind.to_wire(getattr(self, name))
        return out

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> Self:
        """The message of this type a decoded wire map describes (its ``type`` is not read:
        :func:`protocol.registry.message_from_wire` picks the class by it).

        Raises:
            LocalProtocolError: ``bad_field`` for a missing or invalid field (the message names
                it), ``bad_card`` for a bad card code. Unknown extra keys are ignored.
        """
        kwargs: dict[str, Any] = {}
        for name in _ENVELOPE:
            if data.get(name) is not None:
                kwargs[name] = data[name]
        for name in field_specs(cls):
            if name in data:
                kwargs[name] = data[name]
            elif field_required(cls, name):
                raise bad_field(name, f"missing from {cls.TYPE!r}")
        return cls(**kwargs)


_BASE_FIELDS = {f.name: f for f in dataclasses.fields(Message)}

_DECLARED: dict[str, type[Message]] = {}
"""Every class :func:`register` has checked, by wire ``type``, in the order they were declared
(the decoding registry is :data:`protocol.registry.MESSAGE_TYPES`)."""

_TYPE_RE = re.compile(r"[a-z][a-z0-9_]{0,31}")
M = TypeVar("M", bound=type[Message])


def register(cls: M) -> M:
    """Class decorator declaring a message type after checking the class.

    Checks: a frozen keyword-only dataclass subclass of :class:`Message`; ``TYPE`` unique and
    ``[a-z][a-z0-9_]*``; ``DIRECTION`` set; a docstring (its first line goes in the spec); every
    field declared with :func:`wire`; no field named ``type``, ``id`` or ``re``.
    """
    if not (isinstance(cls, type) and issubclass(cls, Message) and cls is not Message):
        raise TypeError("@register applies to Message subclasses")
    params = getattr(cls, "__dataclass_params__", None)
    if "__dataclass_fields__" not in cls.__dict__ or params is None or not params.frozen:
        raise TypeError(f"{cls.__name__}: needs @dataclass(frozen=True, kw_only=True)")
    type_name = cls.__dict__.get("TYPE")
    if not isinstance(type_name, str) or _TYPE_RE.fullmatch(type_name) is None:
        raise TypeError(f"{cls.__name__}: TYPE must be a str matching {_TYPE_RE.pattern}")
    if type_name in _DECLARED:
        raise TypeError(f"message type {type_name!r} is already registered")
    if not isinstance(cls.__dict__.get("DIRECTION"), Direction):
        raise TypeError(f"{cls.__name__}: DIRECTION must be a Direction")
    if not (cls.__doc__ or "").strip():
        raise TypeError(f"{cls.__name__}: needs a docstring (its first line goes in the spec)")
    for f in dataclasses.fields(cls):
        if f.name == "type":
            raise TypeError(f"{cls.__name__}: 'type' is reserved for the envelope")
        if f.name in _ENVELOPE:
            if f is not _BASE_FIELDS[f.name]:
                raise TypeError(f"{cls.__name__}: {f.name!r} is reserved for the envelope")
            continue
        if _SPEC not in f.metadata:
            raise TypeError(f"{cls.__name__}.{f.name}: declare the field with wire(...)")
        if not f.kw_only:
            raise TypeError(f"{cls.__name__}: use @dataclass(frozen=True, kw_only=True)")
    _DECLARED[type_name] = cls
    return cls


def registered_types() -> list[type[Message]]:
    """Every class declared with :func:`register` so far, in the order of declaration."""
    return list(_DECLARED.values())


def message_id_of(data: Mapping[str, Any]) -> MessageId | None:
    """The valid ``id`` of a wire map, or None: used to set ``re`` on an error about it."""
    value = data.get("id")
    try:
        return None if value is None else _ID_KIND.coerce(value, "id")
    except LocalProtocolError:
        return None


# --------------------------------------------------------------------------- core messages


@register
@dataclass(frozen=True, kw_only=True)
class Hello(Message):
    """First message of a connection: the client names the protocol and the versions it speaks."""

    TYPE: ClassVar[str] = "hello"
    DIRECTION: ClassVar[Direction] = Direction.CLIENT_TO_HOST

    protocol: str = wire(Str(min_len=1, max_len=32), 'protocol name, always "onecard"')
    versions: tuple[int, ...] = wire(
        ListOf(Int(1, MAX_VERSION), min_len=1, max_len=MAX_VERSIONS),
        "protocol versions the client supports",
    )
    software: str = wire(
        Str(min_len=1, max_len=MAX_SOFTWARE_LEN, printable=True),
        'client software and version, e.g. "onecard-cli/0.1.0"',
    )


@register
@dataclass(frozen=True, kw_only=True)
class Welcome(Message):
    """The host accepts the handshake: chosen version, identity and limits."""

    TYPE: ClassVar[str] = "welcome"
    DIRECTION: ClassVar[Direction] = Direction.HOST_TO_CLIENT

    version: int = wire(Int(1, MAX_VERSION), "the chosen version: highest one both sides speak")
    host_name: str = wire(
        Str(min_len=1, max_len=MAX_NAME_LEN, printable=True), "the host's display name"
    )
    software: str = wire(
        Str(min_len=1, max_len=MAX_SOFTWARE_LEN, printable=True), "host software and version"
    )
    fingerprint: str = wire(
        Str(min_len=71, max_len=71, pattern="sha256:[0-9a-f]{64}"),
        "`sha256:` + hex SHA-256 of the host key (DER SubjectPublicKeyInfo)",
    )
    limits: dict[str, int] = wire(
        MapOf(Str(min_len=1, max_len=32), Int(0, 2**63 - 1), max_len=64),
        "the host's limits, by lower-case name (section 2.8)",
    )


@register
@dataclass(frozen=True, kw_only=True)
class Error(Message):
    """Reports a problem; `re` names the offending message's id; fatal means the sender closes."""

    TYPE: ClassVar[str] = "error"
    DIRECTION: ClassVar[Direction] = Direction.BOTH

    code: ErrorCode = wire(
        EnumKind(ErrorCode, fallback=ErrorCode.INTERNAL),
        "error code (section 2.7); an unknown code reads as `internal`",
    )
    message: str = wire(Str(max_len=MAX_TEXT_LEN), "human-readable detail (English)")
    fatal: bool = wire(Bool(), "true if the sender closes the connection after this message")
    next_seq: int | None = wire(
        Nullable(Int(1, 2**53 - 1)),
        "on `conflict` for an `act`: the next free action `seq` (4.2); nil otherwise",
        default=None,
    )

    @classmethod
    def from_exception(
        cls, err: ProtocolError, *, re: MessageId | None = None, fatal: bool | None = None
    ) -> Error:
        """The error message reporting ``err``; ``fatal`` defaults to ``err.code.fatal``."""
        return cls(
            code=err.code,
            message=err.message[:MAX_TEXT_LEN],
            fatal=err.code.fatal if fatal is None else fatal,
            re=re,
            next_seq=getattr(err, "next_seq", None),
        )

    def to_wire(self) -> WireDict:
        """As :meth:`Message.to_wire`, leaving out ``next_seq`` when it is nil (most errors)."""
        out = super().to_wire()
        if out.get("next_seq") is None:
            out.pop("next_seq", None)
        return out


@register
@dataclass(frozen=True, kw_only=True)
class Ping(Message):
    """Heartbeat request; the peer answers `pong` with `re` set to this `id`."""

    TYPE: ClassVar[str] = "ping"
    DIRECTION: ClassVar[Direction] = Direction.BOTH

    def response(self) -> Pong:
        """The matching pong.

        >>> Ping(id=7).response().to_wire()
        {'type': 'pong', 're': 7}
        """
        return Pong(re=self.id)


@register
@dataclass(frozen=True, kw_only=True)
class Pong(Message):
    """Heartbeat answer to a `ping`."""

    TYPE: ClassVar[str] = "pong"
    DIRECTION: ClassVar[Direction] = Direction.BOTH


@register
@dataclass(frozen=True, kw_only=True)
class Bye(Message):
    """The sender ends the session politely and closes; nothing follows it."""

    TYPE: ClassVar[str] = "bye"
    DIRECTION: ClassVar[Direction] = Direction.BOTH

    reason: str = wire(Str(max_len=MAX_TEXT_LEN), "why, for humans", default="")


@register
@dataclass(frozen=True, kw_only=True)
class ServerClosing(Message):
    """The host is shutting down and closes the connection after this message."""

    TYPE: ClassVar[str] = "server_closing"
    DIRECTION: ClassVar[Direction] = Direction.HOST_TO_CLIENT

    retry_after: int | None = wire(
        Nullable(Int(0, MAX_RETRY_AFTER_S)),
        "seconds after which reconnecting may succeed; nil if unknown",
        default=None,
    )
    reason: str = wire(Str(max_len=MAX_TEXT_LEN), "why, for humans", default="")


# --------------------------------------------------------------------------- spec table


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def spec_table(registry: Mapping[str, type[Message]]) -> str:
    """The Markdown message table of ``spec/PROTOCOL.md`` section 9 for the ``registry`` given
    (:data:`protocol.registry.MESSAGE_TYPES`).

    Rows are sorted by type; each field reads ``name: kind`` with ``?`` marking optional fields.
    """
    lines = [
        "| Type | Direction | Fields (`?` = optional) | Meaning |",
        "|---|---|---|---|",
    ]
    for type_name in sorted(registry):
        cls = registry[type_name]
        parts = []
        for name, spec in field_specs(cls).items():
            optional = "" if field_required(cls, name) else "?"
            parts.append(f"`{name}{optional}`: {spec.kind.describe()} — {spec.doc}")
        fields = "<br>".join(parts) if parts else "—"
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        lines.append(f"| `{type_name}` | {cls.DIRECTION.value} | {_cell(fields)} | {_cell(doc)} |")
    return "\n".join(lines) + "\n"
