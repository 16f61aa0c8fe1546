"""Field kinds: how one message field looks on the wire (:class:`Kind` and the stock kinds).

How it works: a message field is declared with :func:`protocol.messages.wire`, naming a kind.
A kind does three things for its field: :meth:`Kind.coerce` turns a value in wire form or in
Python form into the Python form and validates it (raising ``LocalProtocolError`` with code
``bad_field``, or ``bad_card`` for a card code, naming the field's path), :meth:`Kind.to_wire`
renders a valid value back to its wire form, and :meth:`Kind.describe` names it in the spec's
message table. Kinds compose (``Nullable``, ``ListOf``, ``MapOf`` wrap others) and are frozen
dataclasses, so they compare by value. :meth:`Kind.examples` feeds the property tests: a kind
defined outside this module should implement it.

The messages themselves (the registry, decoding, encoding) live in :mod:`protocol.messages`,
which re-exports every name here.
"""

from __future__ import annotations

import abc
import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.cards import Card, parse_card
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.framing import check_tree, trees_checked
from protocol.limits import (
    MAX_ID_LEN,
    MAX_LIST_FIELD_LEN,
    MAX_MAP_LEN,
    MAX_MESSAGE_ID,
    MAX_TEXT_LEN,
)

__all__ = [
    "AnyMap",
    "Bool",
    "Bytes",
    "CardKind",
    "EnumKind",
    "Int",
    "Kind",
    "ListOf",
    "MapOf",
    "MessageId",
    "MessageIdKind",
    "Nullable",
    "Row",
    "Str",
    "bad_field",
]

MessageId = int | str
"""A message ``id``: an int in 0..2^53-1 or a non-empty str of at most 64 code points."""


def bad_field(path: str, problem: str, code: ErrorCode = ErrorCode.BAD_FIELD) -> LocalProtocolError:
    """The error for a bad value of the field at ``path`` (``bad_field`` unless ``code``)."""
    return LocalProtocolError(f"field {path!r}: {problem}", code=code)


def _type_name(value: object) -> str:
    return "nil" if value is None else type(value).__name__


class Kind(abc.ABC):
    """How one field looks on the wire: coerce/validate, encode, describe."""

    @abc.abstractmethod
    def coerce(self, value: object, path: str) -> Any:
        """Return the Python form of ``value`` (wire or Python form), or raise bad_field."""

    def to_wire(self, value: Any) -> Any:
        """The wire form of a valid Python value (identity unless overridden)."""
        return value

    @abc.abstractmethod
    def describe(self) -> str:
        """A short type description for the spec table, e.g. ``int 1..65535``."""

    def examples(self) -> tuple[Any, ...]:
        """A few valid Python values. Tests draw from them for kinds they do not know, so a
        custom kind (defined outside this module) should override this."""
        raise NotImplementedError(f"{type(self).__name__}.examples() is not implemented")


@dataclass(frozen=True)
class Int(Kind):
    """An integer in ``min_value..max_value`` (bool is not an int on the wire)."""

    min_value: int = 0
    max_value: int = MAX_MESSAGE_ID

    def coerce(self, value: object, path: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad_field(path, f"expected int, got {_type_name(value)}")
        if not self.min_value <= value <= self.max_value:
            raise bad_field(path, f"{value} is outside {self.min_value}..{self.max_value}")
        return value

    def describe(self) -> str:
        return f"int {self.min_value}..{self.max_value}"


@dataclass(frozen=True)
class Bool(Kind):
    """``true`` or ``false``."""

    def coerce(self, value: object, path: str) -> bool:
        if not isinstance(value, bool):
            raise bad_field(path, f"expected bool, got {_type_name(value)}")
        return value

    def describe(self) -> str:
        return "bool"


@dataclass(frozen=True)
class Str(Kind):
    """A str of ``min_len..max_len`` code points; ``printable`` forbids control characters."""

    min_len: int = 0
    max_len: int = MAX_TEXT_LEN
    pattern: str | None = None
    printable: bool = False

    def coerce(self, value: object, path: str) -> str:
        if not isinstance(value, str):
            raise bad_field(path, f"expected str, got {_type_name(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            raise bad_field(path, f"length {len(value)} is outside {self.min_len}..{self.max_len}")
        if self.printable and not value.isprintable():
            raise bad_field(path, "contains control or non-printable characters")
        if self.pattern is not None and re.fullmatch(self.pattern, value) is None:
            raise bad_field(path, f"{value!r} does not match {self.pattern!r}")
        return value

    def describe(self) -> str:
        text = f"str {self.min_len}..{self.max_len}"
        if self.printable:
            text += " printable"
        if self.pattern is not None:
            text += f" `{self.pattern}`"
        return text


@dataclass(frozen=True)
class Bytes(Kind):
    """A msgpack bin of ``min_len..max_len`` bytes (hashes, nonces, signatures only)."""

    min_len: int = 0
    max_len: int = 64

    def coerce(self, value: object, path: str) -> bytes:
        if not isinstance(value, bytes | bytearray):
            raise bad_field(path, f"expected bin, got {_type_name(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            raise bad_field(path, f"length {len(value)} is outside {self.min_len}..{self.max_len}")
        return bytes(value)

    def describe(self) -> str:
        if self.min_len == self.max_len:
            return f"bin[{self.min_len}]"
        return f"bin {self.min_len}..{self.max_len}"


@dataclass(frozen=True)
class EnumKind(Kind):
    """A str naming a member of a ``StrEnum``; ``fallback`` (if set) replaces unknown values."""

    enum_type: type[enum.StrEnum]
    fallback: enum.StrEnum | None = None

    def coerce(self, value: object, path: str) -> enum.StrEnum:
        if isinstance(value, self.enum_type):
            return value
        if not isinstance(value, str):
            raise bad_field(path, f"expected str, got {_type_name(value)}")
        try:
            return self.enum_type(value)
        except ValueError:
            if self.fallback is not None:
                return self.fallback
            choices = [m.value for m in self.enum_type]
            raise bad_field(path, f"{value!r} is not one of {choices}") from None

    def to_wire(self, value: Any) -> str:
        return str(value.value)

    def describe(self) -> str:
        return f"str ({self.enum_type.__name__})"


@dataclass(frozen=True)
class CardKind(Kind):
    """A card code such as ``"10H"``, ``"QS"``, ``"JB"``; Python form :class:`Card`."""

    def coerce(self, value: object, path: str) -> Card:
        if isinstance(value, Card):
            return value
        try:
            return parse_card(value)
        except LocalProtocolError as err:
            raise bad_field(path, err.message, err.code) from err

    def to_wire(self, value: Any) -> str:
        return str(value.code)

    def describe(self) -> str:
        return "card"


@dataclass(frozen=True)
class Nullable(Kind):
    """``nil`` or a value of ``inner``; Python form ``None`` or the inner form."""

    inner: Kind

    def coerce(self, value: object, path: str) -> Any:
        return None if value is None else self.inner.coerce(value, path)

    def to_wire(self, value: Any) -> Any:
        return None if value is None else self.inner.to_wire(value)

    def describe(self) -> str:
        return f"{self.inner.describe()} or nil"


@dataclass(frozen=True)
class ListOf(Kind):
    """An array of ``item`` values, ``min_len..max_len`` long; Python form a tuple."""

    item: Kind
    min_len: int = 0
    max_len: int = MAX_LIST_FIELD_LEN

    def coerce(self, value: object, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise bad_field(path, f"expected array, got {_type_name(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            raise bad_field(path, f"length {len(value)} is outside {self.min_len}..{self.max_len}")
        return tuple(self.item.coerce(v, f"{path}[{i}]") for i, v in enumerate(value))

    def to_wire(self, value: Any) -> list[Any]:
        return [self.item.to_wire(v) for v in value]

    def describe(self) -> str:
        return f"array of ({self.item.describe()}), {self.min_len}..{self.max_len} items"


@dataclass(frozen=True)
class Row(Kind):
    """A fixed-length array whose ``i``-th element is of ``items[i]`` (a ``[pos, to, box]``
    entry, say); Python form a tuple. ``samples`` are its examples for the property tests."""

    items: tuple[Kind, ...]
    names: tuple[str, ...]
    samples: tuple[tuple[Any, ...], ...] = ()

    def coerce(self, value: object, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise bad_field(path, f"expected array, got {_type_name(value)}")
        if len(value) != len(self.items):
            raise bad_field(path, f"expected {len(self.items)} items, got {len(value)}")
        return tuple(
            kind.coerce(v, f"{path}[{i}]")
            for i, (kind, v) in enumerate(zip(self.items, value, strict=True))
        )

    def to_wire(self, value: Any) -> list[Any]:
        return [kind.to_wire(v) for kind, v in zip(self.items, value, strict=True)]

    def describe(self) -> str:
        inner = ", ".join(
            f"{name} {kind.describe()}" for name, kind in zip(self.names, self.items, strict=True)
        )
        return f"[{inner}]"

    def examples(self) -> tuple[Any, ...]:
        if not self.samples:
            raise NotImplementedError("Row.examples() needs samples")
        return self.samples


@dataclass(frozen=True)
class MapOf(Kind):
    """A map from ``key`` strings to ``value`` values; Python form a new dict."""

    key: Str
    value: Kind
    max_len: int = MAX_MAP_LEN

    def coerce(self, value: object, path: str) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise bad_field(path, f"expected map, got {_type_name(value)}")
        if len(value) > self.max_len:
            raise bad_field(path, f"{len(value)} entries; at most {self.max_len}")
        return {
            self.key.coerce(k, f"{path} key"): self.value.coerce(v, f"{path}.{k}")
            for k, v in value.items()
        }

    def to_wire(self, value: Any) -> dict[str, Any]:
        return {k: self.value.to_wire(v) for k, v in value.items()}

    def describe(self) -> str:
        return f"map ({self.key.describe()}) to ({self.value.describe()})"


@dataclass(frozen=True)
class AnyMap(Kind):
    """A free-form map of protocol values (str keys; nil, bool, int, str, bin, array, map)."""

    def coerce(self, value: object, path: str) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise bad_field(path, f"expected map, got {_type_name(value)}")
        copy = dict(value)
        if trees_checked():  # a decoded frame: its whole tree passed check_tree already
            return copy
        try:
            check_tree(copy)
        except LocalProtocolError as err:
            raise bad_field(path, err.message) from err
        return copy

    def describe(self) -> str:
        return "map"


@dataclass(frozen=True)
class MessageIdKind(Kind):
    """The envelope ``id``/``re``: int 0..2^53-1 or str of 1..64 code points."""

    def coerce(self, value: object, path: str) -> MessageId:
        if isinstance(value, str):
            return Str(min_len=1, max_len=MAX_ID_LEN).coerce(value, path)
        return Int(0, MAX_MESSAGE_ID).coerce(value, path)

    def describe(self) -> str:
        return f"int 0..2^53-1 or str 1..{MAX_ID_LEN}"
