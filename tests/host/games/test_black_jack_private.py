"""Black Jack on a private table (host/games/black_jack/private.py).

The key property (host/games/blind_playout.py): the blind engine against the normal one,
on whole seeded games that end and on the first turns of many more; the audit of
``must_play_if_able``; the refused options. Random Black Jack rarely ends before the turn
limit, so the whole games are chosen seeds.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from host.games import make_blind
from host.games.base import Action, Hidden, OptionError, State
from host.games.black_jack.engine import BlackJack
from host.games.black_jack.moves import Draw
from host.games.black_jack.private import BlindBlackJack
from host.games.blind_playout import cards_held, twin_playout
from protocol.cards import Card, card

WHOLE_GAMES = [  # (seed, seats, options): games that end well before the turn limit
    (0, 6, {}),
    (0, 2, {"must_play_if_able": True}),
    (2, 6, {"must_play_if_able": True}),
    (0, 2, {"ranking": True}),
    (2, 6, {"aces_anytime": True, "decks": "2"}),
]


@pytest.mark.parametrize(("seed", "seats", "options"), WHOLE_GAMES)
def test_whole_games_play_as_on_the_normal_engine(
    seed: int, seats: int, options: dict[str, object]
) -> None:
    rng = random.Random(seed)
    result = twin_playout(
        BlackJack, seats=seats, rng=rng, options=options, pass_rate=0.05, check_memory=True
    )
    assert result.outcome is not None and result.outcome.termination.value in ("went_out", "ranked")
    assert result.violation is None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 10),
    options=st.sampled_from(
        [{}, {"must_play_if_able": True}, {"aces_anytime": True}, {"decks": "2"}]
    ),
)
def test_the_first_turns_play_as_on_the_normal_engine(
    seed: int, seats: int, options: dict[str, object]
) -> None:
    rng = random.Random(seed)
    twin_playout(BlackJack, seats=seats, rng=rng, options=options, max_steps=120)


def test_the_blind_view_lists_singles_and_runs_over_the_cards_a_hand_may_hold() -> None:
    game = make_blind(BlackJack(seats=3, dealer=0))
    assert isinstance(game, BlindBlackJack)
    assert game.apply_chance([Hidden(0, i) for i in range(52)]) == []
    events = game.reveal({(0, 21): card("5H")})
    assert [e.kind for e in events][-2:] == ["turn_up", "turn"]
    assert cards_held(game) == {card("5H")}
    view = game.view(1)
    assert view["hand"] is None and len(view["positions"]) == 7
    (only,) = view["legal_sets"]
    plays = [a["cards"] for a in only["actions"]]
    assert ["5S"] in plays and ["6H"] in plays and ["9C"] not in plays
    assert ["6H", "7H", "8H"] in plays and ["4H", "3H"] in plays
    assert ["5S", "6S"] in plays  # a run may start on a card of the same rank
    # the 5H lies face up on the discard pile: no hand holds it
    assert not [p for p in plays if "5H" in p] and ["6H", "5H"] not in plays
    # no run longer than the hand of seven, none of seven that would go out on a queen
    assert max(len(p) for p in plays) == 7
    assert ["7H", "8H", "9H", "10H", "JH", "QH", "KH"] in plays
    assert ["6H", "7H", "8H", "9H", "10H", "JH", "QH"] not in plays
    assert {"type": "draw"} in view["legal"]


@pytest.mark.parametrize("options", [{"jokers": 1}, {"chain": True}], ids=["jokers", "chain"])
def test_jokers_and_chains_are_refused_on_a_private_table(options: dict[str, object]) -> None:
    name = next(iter(options))
    with pytest.raises(OptionError, match=f"option {name} cannot be used on a private table"):
        make_blind(BlackJack(seats=2, options=options))


def _draw_while_able(normal: State, seat: int, hand: list[Card]) -> Action | None:
    legal = normal.legal_actions(seat)
    if legal and not any(isinstance(a, Draw) for a in legal):
        return Draw()
    return None


@pytest.mark.parametrize("seed", range(4))
def test_a_draw_while_able_is_caught_and_forfeits(seed: int) -> None:
    result = twin_playout(
        BlackJack,
        seats=3,
        rng=random.Random(seed),
        options={"must_play_if_able": True, "ranking": True},
        cheat=_draw_while_able,
        cheat_rate=0.5,
        pass_rate=0.05,
    )
    assert result.cheated is not None, "the seed gave no chance to cheat"
    violation = result.violation
    assert violation is not None and violation.seat == result.cheated[0]
    assert "must_play_if_able" in violation.reason
    outcome = result.outcome
    assert outcome is not None and outcome.forfeited == (violation.seat,)
    assert outcome.ranking is not None and outcome.ranking[-1] == violation.seat
