"""Fixes from a LAN game night (three players and a spectator, a host restart): who left at a
rematch, a bot for the empty seat, plain wording, a spectator's table and last game, a quiet
reconnect, where the proofs are, and what "cards checked" counts."""

from __future__ import annotations

import io
from pathlib import Path

from client.fairplay import DealChecker, FairKind, FairNotice, TableClient
from client.frontends import HumanUI
from client.records_cmd import records_listed
from client.render import describe_event, make_console


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


def _human() -> tuple[HumanUI, io.StringIO]:
    out = io.StringIO()
    return HumanUI(make_console(file=out)), out


def _tc(seat: int | None = 0) -> TableClient:
    tc = TableClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
    tc.seat, tc.names = seat, ["Ann", "Bob", "Cat"]
    return tc


def test_the_verdict_line_says_where_the_proof_is_saved() -> None:
    """Before, only the record's path was ever shown; the proof bundle's never."""
    ui, out = _human()
    proof = Path("/state/proofs/t1-hand2.json")
    verdict = FairNotice(FairKind.VERIFIED, 2, "deal verified: 9 cards you saw checked",
                         "56b6-a629", 9, proof)  # fmt: skip
    ui._fair(verdict)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].endswith(f"· proof {proof}")


def test_cards_checked_says_they_are_the_cards_this_client_saw() -> None:
    """Before: "deal verified: 64 cards checked" here, 83 there, 239 in the record."""
    checker = DealChecker(table_id="t1", pid=None)
    report = type("R", (), {"voided": False, "hand_no": 1, "cards_checked": 64,
                            "fingerprint": "ab"})()  # fmt: skip
    notice = checker._finish(report)  # type: ignore[arg-type]
    assert notice.message == "deal verified: 64 cards you saw checked"
    assert notice.to_json()["cards_checked"] == 64


def test_records_list_counts_and_names_the_hands() -> None:
    """Before: "table t713814: 1"."""
    assert records_listed([1]) == "1 hand record (hand 1)"
    assert records_listed([1, 2, 3]) == "3 hand records (hands 1-3)"
    assert records_listed([2, 5]) == "2 hand records (hands 2, 5)"
    assert records_listed([]) == "no hand records yet"
