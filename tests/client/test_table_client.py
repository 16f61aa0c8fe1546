"""client/table_client.py: what the terminal client adds to the seat client (net/seat.py)."""

from __future__ import annotations

import protocol.table_messages as tm
from client.table_client import TableClient


def test_a_chat_line_already_shown_is_told_apart_by_its_number() -> None:
    tc = TableClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]

    def line(n: int) -> tm.ChatLine:
        return tm.ChatLine(table="t1", seat=0, name="Ann", text=f"line {n}", n=n)

    assert [tc.new_chat(line(n)) for n in (1, 2, 1, 2, 3)] == [True, True, False, False, True]
    assert tc.new_chat(line(0)) and tc.new_chat(line(0))  # unnumbered: always shown
