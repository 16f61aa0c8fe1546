"""Tests for protocol/stream_checks.py, fed bodies directly (no signatures, no state table).

The checks as a client meets them, through signed messages and HandVerifier, are tested in
test_fairness.py and test_records.py (with the tampered-record vectors).
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol.cardfair import (
    BadMessageError,
    CardMismatchError,
    Context,
    PositionError,
    Stream,
    shuffle,
)
from protocol.cards import card
from protocol.stream_checks import StreamChecks

DECK = ["AS", "2S", "3S", "4S", "5S"]
CTX = Context.create(
    table_id="t1", hand_no=1, ruleset_id="r", deck=DECK, pids=["ann", "bob"], host_pk=bytes(32)
)
KEY = bytes(range(32))
ORDER = shuffle(Stream(KEY, 0), [card(c) for c in DECK])


def draw(pos: int, to: int | None, code: str | None, stream: int = 0) -> dict[str, Any]:
    return {"stream": stream, "pos": pos, "to": to, "card": code}


def dealt(*draws: dict[str, Any]) -> StreamChecks:
    """Checks that accepted ``draws`` as public messages 1, 2, ..."""
    checks = StreamChecks()
    for seq, body in enumerate(draws, start=1):
        checks.on_draw(seq, "DRAW", body, CTX)
    return checks


def test_draws_take_the_next_unused_position() -> None:
    checks = dealt(draw(0, 0, None), draw(1, None, ORDER[1].code))
    assert checks.drawn(0, 1)
    assert not checks.drawn(0, 2)
    with pytest.raises(PositionError, match="position 3 skips: next unused position is 2"):
        checks.on_draw(3, "DRAW", draw(3, 1, None), CTX)
    with pytest.raises(PositionError, match="position 1 repeats"):
        checks.on_draw(3, "DRAW", draw(1, 1, None), CTX)
    with pytest.raises(PositionError, match="the current stream is 0"):
        checks.on_draw(3, "DRAW", draw(2, 1, None, stream=1), CTX)
    with pytest.raises(BadMessageError, match="lacks field 'card'"):
        checks.on_draw(3, "DRAW", {"stream": 0, "pos": 2, "to": 1}, CTX)


def test_a_stream_has_only_as_many_positions_as_cards() -> None:
    checks = dealt(*(draw(i, None, ORDER[i].code) for i in range(len(DECK))))
    with pytest.raises(PositionError, match="the stream has 5 cards"):
        checks.on_draw(9, "DRAW", draw(5, None, None), CTX)


def test_a_card_must_match_its_draw_and_its_reader() -> None:
    checks = dealt(draw(0, 1, None), draw(1, 0, ORDER[1].code))
    body = {"seq": 1, "stream": 0, "pos": 0, "to": 1, "card": ORDER[0].code}
    with pytest.raises(PositionError, match="addressed to seat 1, not to us"):
        checks.on_card("CARD", body, CTX, auditor=False, pid="ann")
    with pytest.raises(PositionError, match="matches no DRAW"):
        checks.on_card("CARD", {**body, "seq": 7}, CTX, auditor=True, pid=None)
    with pytest.raises(PositionError, match="face-up draw"):
        checks.on_card("CARD", {**body, "seq": 2, "pos": 1, "to": 0}, CTX, auditor=True, pid=None)
    assert checks.on_card("CARD", body, CTX, auditor=False, pid="bob") is ORDER[0]
    with pytest.raises(PositionError, match="a second CARD"):
        checks.on_card("CARD", body, CTX, auditor=True, pid=None)


def test_a_card_before_any_draw_matches_nothing_even_without_a_context() -> None:
    with pytest.raises(PositionError, match="matches no DRAW"):
        StreamChecks().on_card("CARD", {"seq": 0}, None, auditor=True, pid=None)


def test_reshuffles_open_the_next_stream_over_sorted_deck_cards() -> None:
    checks = dealt(draw(0, 0, None))
    with pytest.raises(PositionError, match="expected 1"):
        checks.on_reshuffle("RESHUFFLE", {"stream": 2, "cards": ["AS"], "kept": []}, CTX)
    with pytest.raises(BadMessageError, match="not sorted"):
        checks.on_reshuffle("RESHUFFLE", {"stream": 1, "cards": ["2S", "AS"], "kept": []}, CTX)
    with pytest.raises(CardMismatchError, match="more often than the deck has"):
        checks.on_reshuffle("RESHUFFLE", {"stream": 1, "cards": ["AS", "AS"], "kept": []}, CTX)
    checks.on_reshuffle("RESHUFFLE", {"stream": 1, "cards": ["AS", "3S"], "kept": []}, CTX)
    checks.on_draw(2, "DRAW", draw(0, 1, None, stream=1), CTX)
    orders = checks.derive(KEY, CTX.deck)
    assert orders[0] == ORDER
    assert orders[1] == shuffle(Stream(KEY, 1), [card("AS"), card("3S")])


def test_cards_learnt_are_compared_with_the_derived_order() -> None:
    checks = dealt(draw(0, None, None), draw(1, None, ORDER[1].code))
    assert checks.unshown_table_cards() == [(0, 0)]
    checks.note_shown(0, 0, ORDER[0])
    assert checks.unshown_table_cards() == []
    with pytest.raises(CardMismatchError, match="but was"):
        checks.note_shown(0, 1, ORDER[2])
    with pytest.raises(PositionError, match="never drawn"):
        checks.note_shown(0, 4, ORDER[4])
    assert checks.compare(checks.derive(KEY, CTX.deck)) == 2
    wrong = {0: [ORDER[1], ORDER[0], *ORDER[2:]]}
    with pytest.raises(CardMismatchError, match="derived"):
        checks.compare(wrong)


def test_hand_end_used_counts_and_missing_cards() -> None:
    checks = dealt(draw(0, 0, None), draw(1, None, ORDER[1].code))
    checks.check_used("HAND_END", {"used": [[0, 2]]})
    with pytest.raises(PositionError, match="used 1 positions, the DRAWs used 2"):
        checks.check_used("HAND_END", {"used": [[0, 1]]})
    with pytest.raises(BadMessageError, match=r"\[stream, count\] pairs"):
        checks.check_used("HAND_END", {"used": [[0, True]]})
    with pytest.raises(PositionError, match="no CARD for the private DRAW seq 1"):
        checks.check_every_card_received()
    checks.on_card(
        "CARD",
        {"seq": 1, "stream": 0, "pos": 0, "to": 0, "card": ORDER[0].code},
        CTX,
        auditor=True,
        pid=None,
    )
    checks.check_every_card_received()


def test_a_live_draw_goes_where_the_game_event_said() -> None:
    """PROTOCOL.md 7.9 (issue 17, point 4): ``draw.to`` is checked against the ``seats`` of the
    event that named the position, with no rules code."""
    checks = StreamChecks(live=True)
    with pytest.raises(PositionError, match="no game event said where that card goes"):
        checks.on_draw(0, "DRAW", draw(0, 1, None), CTX)
    checks.announce(0, 0, 0)
    with pytest.raises(PositionError, match="goes to seat 1, but the game event said seat 0"):
        checks.on_draw(0, "DRAW", draw(0, 1, None), CTX)
    checks.on_draw(0, "DRAW", draw(0, 0, None), CTX)


def test_a_live_reshuffle_recycles_the_pile_the_events_built() -> None:
    """PROTOCOL.md 7.9 (issue 17, point 2): ``cards`` plus ``kept`` must be the discard pile that
    the events' ``pile`` lists built since the last reshuffle; afterwards the pile is ``kept``."""
    checks = StreamChecks(live=True)
    checks.announce(0, 0, None)
    checks.on_draw(0, "DRAW", draw(0, None, None), CTX)
    checks.discard([card("3S"), card("AS"), card("2S")])
    body = {"stream": 1, "cards": ["AS", "3S"], "kept": ["2S"]}
    with pytest.raises(CardMismatchError, match="leaves out 2S"):
        checks.on_reshuffle("RESHUFFLE", {**body, "kept": []}, CTX)
    with pytest.raises(CardMismatchError, match="names 4S that the pile does not hold"):
        checks.on_reshuffle("RESHUFFLE", {**body, "cards": ["AS", "3S", "4S"]}, CTX)
    checks.on_reshuffle("RESHUFFLE", body, CTX)
    checks.discard([card("5S")])
    with pytest.raises(CardMismatchError, match="leaves out 2S"):  # the kept card is still there
        checks.on_reshuffle("RESHUFFLE", {"stream": 2, "cards": ["5S"], "kept": []}, CTX)


def test_a_private_hand_may_name_a_drawn_position_later_but_must_agree_and_name_it() -> None:
    """On a private hand (10.13) the deal's events wait for the start card, so a DRAW may come
    before the event naming its position: checked when the event comes, and at HAND_END."""
    checks = StreamChecks(live=True)
    checks.late_events = True
    checks.on_draw(1, "DRAW", draw(0, 0, None), CTX)
    checks.on_draw(2, "DRAW", draw(1, 1, None), CTX)
    checks.announce(0, 0, 0)  # agrees
    with pytest.raises(PositionError, match="no game event said where that card goes"):
        checks.check_all_named()  # position 1 still unnamed
    with pytest.raises(PositionError, match="goes to seat 1, but the game event said seat 0"):
        checks.announce(0, 1, 0)
    checks.announce(0, 1, 1)
    checks.check_all_named()
    strict = StreamChecks(live=True)
    with pytest.raises(PositionError, match="no game event said where that card goes"):
        strict.on_draw(1, "DRAW", draw(0, 0, None), CTX)
