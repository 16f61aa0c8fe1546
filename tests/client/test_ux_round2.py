"""Fixes from a LAN game night (three players and a spectator, a host restart): who left at a
rematch, a bot for the empty seat, plain wording, a spectator's table and last game, a quiet
reconnect, where the proofs are, and what "cards checked" counts."""

from __future__ import annotations

from client.render import describe_event


def _names(seat: object) -> str:
    return ["Ann", "Bob", "Cat"][seat] if isinstance(seat, int) else "?"


def _line(event: dict[str, object]) -> str:
    text = describe_event(event, _names, me=0)
    assert text is not None
    return text.plain


def test_a_reshuffle_of_one_card_and_a_dry_draw_read_right() -> None:
    """Before: "The discards (1 cards) are shuffled" and "Cat is spared 1: nothing left to
    draw" for a plain draw from an empty stock."""
    assert _line({"kind": "reshuffle", "stream": 1, "count": 1}) == (
        "1 discarded card is shuffled into a new stock"
    )
    assert _line({"kind": "reshuffle", "stream": 2, "count": 12}) == (
        "12 discarded cards are shuffled into a new stock"
    )
    assert _line({"kind": "forgiven", "seat": 2, "count": 1, "reason": "draw"}) == (
        "Cat draws nothing: the stock is empty and no discards are left to shuffle"
    )
    assert _line({"kind": "forgiven", "seat": 1, "count": 3, "reason": "attack"}) == (
        "Bob is let off 3 cards (the attack): the stock is empty and no discards are left to "
        "shuffle"
    )
