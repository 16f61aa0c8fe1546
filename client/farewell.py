"""The line that ends a table loop: why it ended and what becomes of the seat.

How it works: :func:`ending_line` turns the loop's reason (``you left the table``, ``end of
input``, ``disconnected: ...``) into the sentence a person reads last, naming the seat's fate:
with ``onecard play`` the host ran in the same command, so the game ends with it; with
``onecard join`` the seat waits for its player (:func:`seat_fate`).
"""

from __future__ import annotations

from client.table_client import TableClient
from protocol.text import safe_text

__all__ = ["ending_line", "interrupt_line", "seat_fate"]


def ending_line(tc: TableClient, reason: str, command: str) -> str:
    """The line that ends the table loop, saying what becomes of the seat."""
    in_game = tc.seat is not None and tc.outcome is None and tc.state is not None
    if reason == "you left the table" and tc.seat is None:
        return f"You stopped watching table {safe_text(tc.table_id)}"
    if reason == "you left the table" and in_game:
        if command == "play":
            return "You left: the game ends here"
        return "You left the table: the host's bot plays your seat to the end of the game"
    if reason == "end of input" and in_game:
        return f"End of input: {seat_fate(command)}"
    return safe_text(reason)


def seat_fate(command: str) -> str:
    """What becomes of a seat whose player goes without leaving (Ctrl-C, Ctrl-D).

    >>> seat_fate("play")
    'the game ends here (its host ran in this command)'
    """
    if command == "play":
        return "the game ends here (its host ran in this command)"
    return (
        "your seat waits for you (onecard join takes it back); the host's bot plays it "
        "after the grace period"
    )


def interrupt_line(tc: TableClient, command: str) -> str | None:
    """What Ctrl-C during the game means for the seat (printed as the command ends), or None
    when no game of ours is on."""
    if tc.seat is None or tc.outcome is not None or tc.state is None:
        return None
    return f"Interrupted: {seat_fate(command)}"
