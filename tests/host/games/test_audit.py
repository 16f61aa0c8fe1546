"""The end-of-hand audit (host/games/audit.py): replay, check, the first violation."""

from __future__ import annotations

import pytest

from host.games.audit import Violation, audit
from host.games.base import ChanceError
from host.games.one.engine import One
from host.games.one.moves import PASS, Play
from protocol.cards import DECK_ONE, card


def _steps(plays: list[tuple[int, str]]) -> list[tuple[str, object, object]]:
    steps: list[tuple[str, object, object]] = [("chance", list(DECK_ONE), None)]
    steps += [("act", s, PASS) for s in (1, 2, 0)]  # no trump: seat 1 leads
    steps += [("act", s, Play(card(c))) for s, c in plays]
    return steps


def test_an_honest_log_audits_clean() -> None:
    # unshuffled, 3 seats, dealer 0: seat 0 holds 10S KS 10H KH .., seat 1 AS JS AH JH ..,
    # seat 2 9S QS 9H QH ..
    assert audit(One(seats=3, dealer=0), _steps([(1, "AS"), (2, "9S"), (0, "KS")])) is None


def test_the_first_illegal_action_is_the_proof() -> None:
    found = audit(One(seats=3, dealer=0), _steps([(1, "AS"), (2, "9H"), (0, "KD")]))
    assert found == Violation(
        2, Play(card("9H")), "you must follow suit (S) and can", "illegal_action", 4
    )
    assert found.to_wire() == {
        "seat": 2,
        "action": {"type": "play", "card": "9H"},
        "reason": "you must follow suit (S) and can",
        "code": "illegal_action",
        "index": 4,
    }


def test_a_log_that_does_not_fit_the_engine_is_not_blamed_on_a_seat() -> None:
    with pytest.raises(ChanceError):
        audit(One(seats=3, dealer=0), [("act", 1, PASS)])
