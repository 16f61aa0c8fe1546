"""Shared hypothesis strategies for protocol tests, built from the message registry.

Test files cannot import each other (``--import-mode=importlib``), so the strategies are handed
out by session fixtures: ``message_strategy(cls)`` draws valid instances of one registered
message class, derived from its declared field kinds, so a newly registered type is covered
without touching the tests. A :class:`~protocol.messages.Kind` subclass unknown here is drawn
from its ``examples()`` (the tests fail loudly if it has none).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from hypothesis import assume
from hypothesis import strategies as st

from protocol.cards import ALL_CARDS
from protocol.errors import LocalProtocolError
from protocol.limits import MAX_ID_LEN, MAX_MESSAGE_ID
from protocol.messages import (
    AnyMap,
    Bool,
    Bytes,
    CardKind,
    Direction,
    EnumKind,
    Int,
    Kind,
    ListOf,
    MapOf,
    Message,
    MessageIdKind,
    Nullable,
    Str,
    field_specs,
    register,
    wire,
)
from protocol.registry import MESSAGE_TYPES

# Drawn sizes are capped to keep examples fast; boundaries are tested explicitly elsewhere.
_SIZE_CAP = 6

scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=20)
protocol_values = st.recursive(
    scalars | st.binary(max_size=16),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
"""Arbitrary values of the protocol's msgpack subset (nesting well under the limit)."""

_ANY_CHAR = st.characters(exclude_categories=("Cs",))
# str.isprintable() is false exactly for categories C* and Z* except the ASCII space.
_PRINTABLE = st.characters(exclude_categories=("C", "Z")) | st.just(" ")

message_ids = st.integers(0, MAX_MESSAGE_ID) | st.text(min_size=1, max_size=MAX_ID_LEN)


def kind_strategy(kind: Kind) -> st.SearchStrategy[Any]:
    """Valid Python values of one field kind."""
    if isinstance(kind, Int):
        return st.integers(kind.min_value, kind.max_value)
    if isinstance(kind, Bool):
        return st.booleans()
    if isinstance(kind, Str):
        if kind.pattern is not None:
            base = st.from_regex(kind.pattern, fullmatch=True)
        else:
            alphabet = _PRINTABLE if kind.printable else _ANY_CHAR
            base = st.text(alphabet, min_size=kind.min_len, max_size=min(kind.max_len, 40))
            if kind.printable:  # Unicode versions may differ between hypothesis and Python
                base = base.filter(str.isprintable)
        return base.filter(lambda s: kind.min_len <= len(s) <= kind.max_len)
    if isinstance(kind, Bytes):
        return st.binary(min_size=kind.min_len, max_size=min(kind.max_len, 64))
    if isinstance(kind, EnumKind):
        return st.sampled_from(list(kind.enum_type))
    if isinstance(kind, CardKind):
        return st.sampled_from(ALL_CARDS)
    if isinstance(kind, Nullable):
        return st.none() | kind_strategy(kind.inner)
    if isinstance(kind, ListOf):
        return st.lists(
            kind_strategy(kind.item),
            min_size=kind.min_len,
            max_size=max(kind.min_len, min(kind.max_len, _SIZE_CAP)),
        ).map(tuple)
    if isinstance(kind, MapOf):
        return st.dictionaries(
            kind_strategy(kind.key), kind_strategy(kind.value), max_size=min(kind.max_len, 8)
        )
    if isinstance(kind, AnyMap):
        return st.dictionaries(st.text(max_size=8), protocol_values, max_size=4)
    if isinstance(kind, MessageIdKind):
        return message_ids
    # A kind defined elsewhere: drawn from its own examples (see Kind.examples()).
    return st.sampled_from(kind.examples())


def message_strategy(cls: type[Message]) -> st.SearchStrategy[Message]:
    """Valid instances of ``cls`` (cross-field ``check()`` failures are discarded)."""

    @st.composite
    def build(draw: st.DrawFn) -> Message:
        kwargs = {name: draw(kind_strategy(spec.kind)) for name, spec in field_specs(cls).items()}
        kwargs["id"] = draw(st.none() | message_ids)
        kwargs["re"] = draw(st.none() | message_ids)
        try:
            return cls(**kwargs)
        except LocalProtocolError:
            assume(False)
            raise

    return build()


def any_message() -> st.SearchStrategy[Message]:
    """An instance of any registered type (resolved lazily, so late registrations count)."""
    return st.sampled_from(sorted(MESSAGE_TYPES)).flatmap(
        lambda t: message_strategy(MESSAGE_TYPES[t])
    )


@pytest.fixture(scope="session")
def strategies() -> Callable[[type[Message]], st.SearchStrategy[Message]]:
    """``strategies(cls)``: the message strategy factory, for use with ``st.data()``."""
    return message_strategy


@pytest.fixture(scope="session")
def wire_values() -> st.SearchStrategy[Any]:
    """Arbitrary values of the protocol's msgpack subset."""
    return protocol_values


@register
@dataclass(frozen=True, kw_only=True)
class Show(Message):
    """Test-only: shows some cards."""

    TYPE: ClassVar[str] = "test_show"
    DIRECTION: ClassVar[Direction] = Direction.CLIENT_TO_HOST
    cards: tuple[Any, ...] = wire(ListOf(CardKind(), max_len=5), "cards shown")
    note: str = wire(Str(max_len=20), "a note", default="")


@pytest.fixture
def app_message() -> Iterator[type[Message]]:
    """An application message with a card field, in the registry for one test (declared once,
    here: protocol.registry built its registry before, so it is added by hand)."""
    MESSAGE_TYPES[Show.TYPE] = Show
    try:
        yield Show
    finally:
        del MESSAGE_TYPES[Show.TYPE]
