"""net/seat.py: what a seat tracks from pushes and how its requests are numbered."""

from __future__ import annotations

from typing import Any

import pytest

import protocol.table_messages as tm
from net.seat import SeatClient
from protocol.errors import LocalProtocolError


class _Session:
    """Answers every request with a reply from ``replies`` (else the request) and keeps it."""

    def __init__(self, *replies: Any) -> None:
        self.sent: list[Any] = []
        self.replies = list(replies)

    async def request(self, msg: Any) -> Any:
        self.sent.append(msg)
        return self.replies.pop(0) if self.replies else msg


def _start(seq: int, game_no: int) -> tm.GameStart:
    return tm.GameStart(table="t1", seq=seq, game="one-card", game_no=game_no, names=("Ann", "Bob"))


async def test_a_seat_the_host_stands_up_becomes_a_spectator() -> None:
    """Its token is dead: a later drop must be followed by watching again, not a resume."""
    tc = SeatClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
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
    session = _Session()
    tc = SeatClient(session, table_id="t1", name="Ann")  # type: ignore[arg-type]
    with pytest.raises(LocalProtocolError):
        await tc.act({"type": 1.5})
    assert tc.act_seq == 0 and session.sent == []
    await tc.act({"type": "draw"})
    assert [m.seq for m in session.sent] == [1]


async def test_action_seqs_restart_with_each_game_but_not_for_a_replayed_start() -> None:
    """PROTOCOL.md 4.2: 1, 2, ... within a game. After a resume the host says which seq it
    applied last in the current game; a ``game_start`` replayed from the backlog must not undo
    that, a live one restarts the count."""
    resumed = tm.Resumed(table="t1", seat=0, name="Ann", seq=40, act_seq=3)
    session = _Session(resumed)
    tc = SeatClient(session, table_id="t1", name="Ann")  # type: ignore[arg-type]
    tc.last_seq = 12
    await tc.resume("k" * 43)
    assert (session.sent[0].last_seq, tc.act_seq, tc.backlog_until) == (12, 3, 40)
    await tc.handle(_start(30, 2))  # the backlog: this game's start, before the resume
    assert (tc.act_seq, tc.game_no, tc.last_seq) == (3, 2, 30)
    await tc.act({"type": "draw"})
    assert session.sent[-1].seq == 4
    await tc.handle(_start(41, 3))  # a new game, live
    assert (tc.act_seq, tc.game_no, tc.last_seq) == (0, 3, 41)
    await tc.act({"type": "draw"})
    assert session.sent[-1].seq == 1


async def test_join_names_the_seat_and_labels_a_bot_seat() -> None:
    """The name given is the one the fair-dealing round knows us by (our ``pid``)."""
    joined = tm.Joined(table="t1", seat=2, token="k" * 43)
    session = _Session(joined)
    tc = SeatClient(session, table_id="t1")  # type: ignore[arg-type]
    assert await tc.join("Ann", bot="easy") == 2
    (sent,) = session.sent
    assert (sent.name, sent.seat, sent.bot) == ("Ann", None, "easy")
    assert (tc.seat, tc.token, tc.name, tc.checker.pid) == (2, "k" * 43, "Ann", "Ann")
