"""Tests for protocol/lobby_messages.py: the lobby types, their re-export and registry order.

Every registered type is also round-tripped by test_messages.py; here are the module's own
promises.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import protocol.table_messages as tm
from protocol import lobby_messages
from protocol.errors import LocalProtocolError
from protocol.lobby_messages import SEAT, TABLE_ID, CreateTable, Join
from protocol.messages import Message
from protocol.registry import MESSAGE_TYPES, message_from_wire

ROOT = Path(__file__).resolve().parents[2]
LOBBY = [
    getattr(lobby_messages, name)
    for name in lobby_messages.__all__
    if isinstance(getattr(lobby_messages, name), type)
]


def test_every_lobby_message_is_registered_and_reached_through_table_messages() -> None:
    assert len(LOBBY) == 17
    for cls in LOBBY:
        assert issubclass(cls, Message)
        assert MESSAGE_TYPES[cls.TYPE] is cls
        assert getattr(tm, cls.__name__) is cls
        assert cls.__name__ in tm.__all__


def test_the_registry_lists_the_lobby_between_the_core_and_the_play_types() -> None:
    order = list(MESSAGE_TYPES)
    lobby = sorted(order.index(cls.TYPE) for cls in LOBBY)
    assert lobby == list(range(min(lobby), min(lobby) + len(LOBBY)))
    assert max(lobby) < order.index(tm.GameStart.TYPE)
    assert min(lobby) > order.index("server_closing")


def test_shared_field_kinds() -> None:
    assert TABLE_ID.coerce("t-1_A", "table") == "t-1_A"
    for bad in ("", "t 1", "x" * 65):
        with pytest.raises(LocalProtocolError):
            TABLE_ID.coerce(bad, "table")
    assert SEAT.coerce(255, "seat") == 255
    with pytest.raises(LocalProtocolError):
        SEAT.coerce(256, "seat")


def test_create_table_options_default_to_an_empty_map() -> None:
    msg = message_from_wire({"type": "create_table", "game": "one-card", "seats": 2})
    assert msg == CreateTable(game="one-card", seats=2, options={})
    assert CreateTable(game="one", seats=4).to_wire()["options"] == {}


def test_join_seat_and_bot_are_optional() -> None:
    join = Join(table="t1", name="ann")
    assert (join.seat, join.bot) == (None, None)
    wire = {"type": "join", "table": "t1", "name": "ann", "seat": None, "bot": None}
    assert join.to_wire() == wire
