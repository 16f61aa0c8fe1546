"""Who is sent what after a change (host/table/views.py): order, privacy and views."""

from __future__ import annotations

from typing import Any

from host.table.seating import SeatBook
from host.table.seats import Seat
from host.table.views import fan_out


class Conn:
    closed = False

    def __init__(self, name: str) -> None:
        self.name = name

    def deliver(self, msgs: list[dict[str, Any]]) -> bool:
        return True

    def deliver_backlog(self, msgs: list[dict[str, Any]]) -> None:
        pass

    def close_politely(self, msg: dict[str, Any]) -> None:
        pass


def book_of(ann: Conn, bob: Conn | None, watcher: Conn) -> SeatBook:
    seats: list[Seat | None] = [Seat(0, "ann", None, conn=ann), Seat(1, "bob", None, conn=bob)]
    book = SeatBook(seats, lambda: 0.0, "t1")
    book.spectators[watcher] = "spectator"
    return book


def views(seat: int | None) -> list[dict[str, Any]]:
    return [{"type": "state", "seat": seat}]


def test_each_member_gets_its_ack_then_its_messages_in_order_then_its_own_view() -> None:
    ann, bob, watcher = Conn("ann"), Conn("bob"), Conn("watcher")
    out = [(None, {"n": 1}), (0, {"n": 2, "hand": "ann's"}), (1, {"n": 3}), (None, {"n": 4})]
    ack = (ann, {"type": "ack"})
    got = {c.name: msgs for c, msgs in fan_out(book_of(ann, bob, watcher), out, ack, views)}
    assert got["ann"] == [
        {"type": "ack"},
        {"n": 1},
        {"n": 2, "hand": "ann's"},
        {"n": 4},
        {"type": "state", "seat": 0},
    ]
    assert got["bob"] == [{"n": 1}, {"n": 3}, {"n": 4}, {"type": "state", "seat": 1}]
    assert got["watcher"] == [{"n": 1}, {"n": 4}, {"type": "state", "seat": None}]


def test_an_absent_seat_and_a_gone_acker_get_nothing() -> None:
    ann, watcher, gone = Conn("ann"), Conn("watcher"), Conn("gone")
    out = [(1, {"n": 1, "hand": "bob's"})]
    got = fan_out(book_of(ann, None, watcher), out, (gone, {"type": "ack"}), views)
    names = {c.name: msgs for c, msgs in got}
    assert set(names) == {"ann", "watcher"}  # bob is away: his private message goes nowhere
    assert all(m.get("hand") != "bob's" for msgs in names.values() for m in msgs)
