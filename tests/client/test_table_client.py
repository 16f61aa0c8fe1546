"""client/table_client.py: what a seat tracks from pushes and how its requests are numbered."""

from __future__ import annotations

from typing import Any

import pytest

import protocol.table_messages as tm
from client.table_client import TableClient
from protocol.errors import LocalProtocolError


async def test_a_seat_the_host_stands_up_becomes_a_spectator() -> None:
    """Its token is dead: a later drop must be followed by watching again, not a resume."""
    tc = TableClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
    tc.seat, tc.token = 1, "secret-token"
    other = {"kind": "stood_up", "seat": 0, "name": "Bob", "misses": 2}
    assert await tc.handle(tm.EventPush(table="t1", seq=5, event=other)) == []
    assert (tc.seat, tc.token, tc.watching) == (1, "secret-token", False)
    ours = {"kind": "stood_up", "seat": 1, "name": "Ann", "misses": 2}
    assert await tc.handle(tm.EventPush(table="t1", seq=6, event=ours)) == []
    assert (tc.seat, tc.token, tc.watching) == (None, None, True)


async def test_an_action_that_cannot_be_sent_uses_up_no_seq() -> None:
    """The act message is built before the seq moves on: a bad action map raises before any
    request and the next good action still gets the next seq."""

    class Session:
        def __init__(self) -> None:
            self.sent: list[Any] = []

        async def request(self, msg: Any) -> Any:
            self.sent.append(msg)
            return msg

    session = Session()
    tc = TableClient(session, table_id="t1", name="Ann")  # type: ignore[arg-type]
    with pytest.raises(LocalProtocolError):
        await tc.act({"type": 1.5})
    assert tc.act_seq == 0 and session.sent == []
    await tc.act({"type": "draw"})
    assert [m.seq for m in session.sent] == [1]


def test_a_chat_line_already_shown_is_told_apart_by_its_number() -> None:
    tc = TableClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]

    def line(n: int) -> tm.ChatLine:
        return tm.ChatLine(table="t1", seat=0, name="Ann", text=f"line {n}", n=n)

    assert [tc.new_chat(line(n)) for n in (1, 2, 1, 2, 3)] == [True, True, False, False, True]
    assert tc.new_chat(line(0)) and tc.new_chat(line(0))  # unnumbered: always shown
