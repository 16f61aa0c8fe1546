"""ONE on a private table (host/games/one/private.py).

The key property over many seeded matches (the blind engine against the normal one, see
host/games/blind_playout.py), the follow-suit audit (issue 29's Done-when: a seat that plays
off-suit is caught at the hand's end and forfeits as ruled) and goldens of the forfeit.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.games import make_blind
from host.games.base import Action, Hidden, State
from host.games.blind_playout import cards_held, twin_playout
from host.games.one.engine import One
from host.games.one.moves import Play
from host.games.one.private import BlindOne, forfeit
from protocol.cards import Card, card


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 4),
    downtown=st.sampled_from(["no-trump", "always", "never"]),
)
def test_blind_engine_plays_as_the_normal_one(seed: int, seats: int, downtown: str) -> None:
    options = {"target": 25, "downtown": downtown}
    rng = random.Random(seed)
    result = twin_playout(One, seats=seats, rng=rng, options=options, check_memory=True)
    assert result.outcome is not None  # the twin compared events, moves and the outcome
    audits = [e for e in result.events if e.kind == "audit"]
    hands = [e for e in result.events if e.kind == "hand_end"]
    assert len(audits) == len(hands) > 0
    assert all(e.data["violation"] is None for e in audits)


def _off_suit(normal: State, seat: int, hand: list[Card]) -> Action | None:
    """Follow with a card of another suit while holding the led suit."""
    assert isinstance(normal, One)
    if not normal.trick:
        return None
    legal = {a.card for a in normal.legal_actions(seat) if isinstance(a, Play)}
    bad = [c for c in hand if c not in legal]
    return Play(bad[0]) if bad else None


@pytest.mark.parametrize("seed", range(10))
def test_an_off_suit_play_is_caught_at_the_hands_end_and_forfeits(seed: int) -> None:
    result = twin_playout(
        One,
        seats=3,
        rng=random.Random(seed),
        options={"target": 20},
        cheat=_off_suit,
        cheat_rate=0.3,
    )
    assert result.cheated is not None, "the seed gave no chance to cheat"
    violation = result.violation
    assert violation is not None
    assert (violation.seat, violation.action) == result.cheated
    assert violation.code == "illegal_action"
    assert "follow suit" in violation.reason or "joker" in violation.reason
    # the hand it happened in: the audit event before its hand_end, then the forfeit scored
    at = next(
        i
        for i, e in enumerate(result.events)
        if e.kind == "audit" and e.data["violation"] is not None
    )
    assert result.events[at].data["violation"]["seat"] == violation.seat
    hand_end = next(e for e in result.events[at:] if e.kind == "hand_end")
    assert hand_end.data["forfeited"] == [violation.seat]
    assert hand_end.data["points"][violation.seat] == 0
    assert hand_end.data["hand_scores"][violation.seat] == 0
    if hand_end.data["bidder"] == violation.seat:
        assert hand_end.data["made"] is False


def test_the_blind_view_offers_follow_then_anything() -> None:
    game = make_blind(One(seats=3, dealer=0))
    assert isinstance(game, BlindOne)
    events = game.apply_chance([Hidden(0, i) for i in range(25)])
    assert [e.kind for e in events] == ["deal", "hand", "hand", "hand"]
    assert all("cards" not in e.data for e in events)
    assert cards_held(game) == set()  # the host holds no card of the hand
    assert game.positions_of(1) == [(0, p) for p in range(0, 24, 3)]
    view = game.view(1)
    assert view["hand"] is None and view["legal_sets"] == []
    assert {"type": "pass"} in view["legal"]
    for seat in (1, 2, 0):  # everyone passes: no trump, the leader is opposite the dealer
        game.apply(seat, game.parse_action({"type": "pass"}))
    leader = game.to_act()[0]
    (lead,) = game.view(leader)["legal_sets"]
    assert {"type": "play", "card": "JR", "suit": "H"} in lead["actions"]
    first = game.positions_of(leader)[0]
    game.reveal({first: card("QH")})
    game.apply(leader, game.parse_action({"type": "play", "card": "QH"}))
    follower = game.to_act()[0]
    hearts, anything = game.view(follower)["legal_sets"]
    assert {a["card"] for a in hearts["actions"]} == {"9H", "10H", "JH", "QH", "KH", "AH"}
    assert len(anything["actions"]) == 25


# ------------------------------------------------------------------ the forfeit (goldens)


def test_forfeit_of_the_bidder_fails_its_contract_and_zeroes_its_points() -> None:
    assert forfeit([20, 5, 3], True, seat=0, bidder=0) == ([0, 5, 3], False)


def test_forfeit_of_another_seat_keeps_the_contract_as_taken() -> None:
    assert forfeit([20, 5, 3], True, seat=2, bidder=0) == ([20, 5, 0], True)
    assert forfeit([2, 25, 3], False, seat=1, bidder=0) == ([2, 0, 3], False)
    assert forfeit([2, 25, 3], None, seat=1, bidder=None) == ([2, 0, 3], None)
