"""One Card on a private table (host/games/one_card/private.py).

The key property: over many seeded games, a blind engine fed the same deal (as hidden
positions, opened as the seats would open them) and the same moves reaches the same events
(private card lists aside) and outcome as a normal engine, and at every turn what an honest
client derives from its blind view and its hand is exactly the normal engine's legal actions.
Then: the audit catches each hand-dependent rule broken, and the forfeit ruling, with goldens.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.games import make_blind, private_refusal
from host.games.base import (
    Action,
    Hidden,
    IllegalAction,
    OptionError,
    Outcome,
    State,
    Termination,
)
from host.games.blind_playout import cards_held, twin_playout
from host.games.one_card.engine import OneCard
from host.games.one_card.moves import DRAW
from host.games.one_card.private import BlindOneCard, PrivateOneCard
from host.games.private import forfeit
from protocol.cards import DECK_54, Card, card

OPTION_SETS = [
    {},
    {"must_play_if_able": True},
    {"ranking": True, "bankrupt_at": 8},
    {"defence": "escalate", "play_after_attack": False},
    {"bankrupt_at": 0, "ranking": True},
    {"defence": "any", "attack_cap": 5, "direction": "clockwise"},
]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 8),
    options=st.sampled_from(OPTION_SETS),
)
def test_blind_engine_plays_as_the_normal_one(
    seed: int, seats: int, options: dict[str, object]
) -> None:
    rng = random.Random(seed)
    result = twin_playout(OneCard, seats=seats, rng=rng, options=options, check_memory=True)
    assert result.outcome is not None  # the twin compared events, moves and the outcome
    assert result.violation is None and result.outcome.forfeited == ()
    assert result.opens >= 2  # the start card, the end


def test_blind_views_and_events_show_no_hidden_card() -> None:
    game = make_blind(OneCard(seats=3, dealer=0))
    assert isinstance(game, BlindOneCard)
    events = game.apply_chance([Hidden(0, i) for i in range(54)])
    assert events == []  # the deal waits for the start card to be opened
    request = game.chance_request()
    assert request is not None and request.positions == ((0, 15),)
    assert game.to_act() == ()
    events = game.reveal({(0, 15): card("5H")})
    kinds = [e.kind for e in events]
    assert kinds == ["deal", "dealt", "dealt", "dealt", "turn_up", "start", "turn"]
    for e in events:
        assert "?" not in repr(e.data)
        if e.to is not None:
            assert "cards" not in e.data and len(e.data["positions"]) == 5
    view = game.view(1)
    assert view["hand"] is None
    assert view["positions"] == [[0, p] for p in range(0, 15, 3)]
    assert view["legal"] == []  # seat 2 is to act (counter-clockwise from dealer 0)
    turn = game.view(2)
    assert turn["legal"] == [{"type": "draw"}] and turn["unless_met"] == []
    (only,) = turn["legal_sets"]
    codes = {a["cards"][0] for a in only["actions"]}
    assert "5S" in codes and "9H" in codes and "7C" in codes and "9S" not in codes
    assert game.hidden_from(None) == []  # the host knows no hidden card
    assert cards_held(game) == {card("5H")}  # nothing in its memory but the start card
    normal = OneCard(seats=3, dealer=0)
    normal.apply_chance(list(DECK_54))
    assert len(normal.hidden_from(None)) == 53  # (the same probe on a normal table)
    assert "?" not in repr(game.view(None))


def test_a_play_opens_its_position_then_checks_as_usual() -> None:
    game = make_blind(OneCard(seats=2, dealer=0))
    game.apply_chance([Hidden(0, i) for i in range(54)])
    game.reveal({(0, 14): card("5H")})
    assert isinstance(game, BlindOneCard)
    seat = game.to_act()[0]
    (first, *_) = game.positions_of(seat)
    game.reveal({first: card("9S")})  # the seat plays from `first`: not a heart, not a five
    play = game.parse_action({"type": "play", "cards": ["9S"]})
    with pytest.raises(Exception, match="9S"):
        game.check(seat, play)
    game.reveal({game.positions_of(seat)[0]: card("5C")})
    ok = game.parse_action({"type": "play", "cards": ["5C"]})
    game.check(seat, ok)
    events = game.apply(seat, ok)
    assert events[0].kind == "play" and events[0].data["cards"] == ["5C"]


def test_reveal_refuses_a_position_opened_to_another_card() -> None:
    game = make_blind(OneCard(seats=2, dealer=0))
    game.apply_chance([Hidden(0, i) for i in range(54)])
    with pytest.raises(Exception, match="still to open"):
        game.reveal({(0, 3): card("5H")})
    game.reveal({(0, 14): card("5H")})
    with pytest.raises(Exception, match="opened as 5H"):
        game.reveal({(0, 14): card("6H")})


def test_multi_play_is_refused_on_a_private_table() -> None:
    with pytest.raises(OptionError, match="multi_play cannot be used on a private table"):
        make_blind(OneCard(seats=2, options={"multi_play": True}))
    assert private_refusal("one-card", {"multi_play": True}) is not None
    assert private_refusal("one-card", {"multi_play": False}) is None
    with pytest.raises(OptionError, match="multi_play"):
        BlindOneCard(seats=2, options={"multi_play": True})


def _draw_while_able(normal: State, seat: int, hand: list[Card]) -> Action | None:
    """With must_play_if_able: draw although a card plays (the host cannot see it)."""
    assert isinstance(normal, PrivateOneCard)
    if any(a is not DRAW for a in normal.legal_actions(seat)) and DRAW not in normal.legal_actions(
        seat
    ):
        return DRAW
    return None


@pytest.mark.parametrize("seed", range(12))
def test_the_audit_catches_a_draw_while_able_and_the_seat_forfeits(seed: int) -> None:
    result = twin_playout(
        OneCard,
        seats=3,
        rng=random.Random(seed),
        options={"must_play_if_able": True, "ranking": True},
        cheat=_draw_while_able,
        cheat_rate=0.3,
    )
    assert result.cheated is not None, "the seed gave no chance to cheat"
    violation = result.violation
    assert violation is not None
    assert (violation.seat, violation.action) == result.cheated
    assert "must_play_if_able" in violation.reason and violation.code == "illegal_action"
    outcome = result.outcome
    assert outcome is not None and outcome.forfeited == (violation.seat,)
    assert outcome.ranking is not None and outcome.ranking[-1] == violation.seat
    assert violation.seat not in outcome.winners


def test_the_stuck_rule_is_checked_by_the_audit_engine() -> None:
    game, plain = PrivateOneCard(seats=2, dealer=0), OneCard(seats=2, dealer=0)
    for g in (game, plain):
        g.apply_chance(list(DECK_54))
        g._pos = len(g._stock)  # nothing to draw, nothing to recycle
    seat = game.turn
    assert game._stuck_rule() and game._plays(seat)
    assert DRAW not in game.legal_actions(seat)
    with pytest.raises(IllegalAction, match="nothing to draw"):
        game.check(seat, DRAW)
    assert DRAW in plain.legal_actions(seat)  # a normal table lets it pass
    plain.check(seat, DRAW)


# ------------------------------------------------------------------ the forfeit (goldens)

WENT_OUT = Outcome(Termination.WENT_OUT, (2,))


def test_forfeit_of_the_seat_that_went_out_without_ranking_leaves_no_winner() -> None:
    got = forfeit(WENT_OUT, 2)
    assert got == Outcome(Termination.WENT_OUT, (), forfeited=(2,))
    assert got.to_wire()["forfeited"] == [2] and got.to_wire()["winners"] == []


def test_forfeit_with_ranking_puts_the_seat_last_and_passes_the_win_on() -> None:
    ranked = Outcome(Termination.RANKED, (1,), ranking=(1, 0, 2))
    assert forfeit(ranked, 1) == Outcome(
        Termination.RANKED, (0,), ranking=(0, 2, 1), forfeited=(1,)
    )
    assert forfeit(ranked, 2) == Outcome(
        Termination.RANKED, (1,), ranking=(1, 0, 2), forfeited=(2,)
    )


def test_forfeit_of_one_of_tied_winners_leaves_the_others() -> None:
    tied = Outcome(Termination.EXHAUSTED, (0, 2))
    assert forfeit(tied, 0) == Outcome(Termination.EXHAUSTED, (2,), forfeited=(0,))


def test_forfeit_of_a_loser_changes_no_winner() -> None:
    assert forfeit(WENT_OUT, 0) == Outcome(Termination.WENT_OUT, (2,), forfeited=(0,))
    assert "forfeited" not in WENT_OUT.to_wire()  # a normal outcome's wire is unchanged


def test_a_bankrupt_hand_opens_mid_game_at_four_seats_as_on_a_normal_table() -> None:
    """A hand limit just above the deal: seats go bankrupt while three or more still play; the
    blind engine asks for the bankrupt hand (an ``OPEN`` by rule) and plays on as the normal one
    (the twin compares every event, the ``bankrupt`` one with its cards included)."""
    mid_game = 0
    for seed in range(20):
        result = twin_playout(OneCard, seats=4, rng=random.Random(seed), options={"bankrupt_at": 8})
        assert result.outcome is not None and result.violation is None
        kinds = [e.kind for e in result.events]
        if "bankrupt" not in kinds:
            continue
        first = next(e for e in result.events if e.kind == "bankrupt")
        assert len(first.data["cards"]) == first.data["count"] >= 8
        # the game went on: turns after the first bankruptcy
        if "turn" in kinds[kinds.index("bankrupt") :]:
            mid_game += 1
    assert mid_game >= 3


def test_bankruptcy_is_played_on_private_tables_of_any_size() -> None:
    for seats in (2, 3, 8):
        game = make_blind(OneCard(seats=seats, options={"bankrupt_at": 20}))
        assert game.options["bankrupt_at"] == 20
    assert BlindOneCard.refuse({"bankrupt_at": 20}) is None
    assert BlindOneCard.refuse({"multi_play": True}) is not None
