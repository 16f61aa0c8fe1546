from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from host.games import find_game, game_names
from host.games.base import (
    Action,
    Event,
    OptionError,
    OptionSpec,
    SeatError,
    State,
    describe_outcome,
)
from host.games.playout import answer_chance, playout
from protocol.cards import ALL_CARDS
from protocol.errors import ErrorCode
from protocol.views import VIEW_CORE_KEYS


def test_bool_option_accepts_cli_words() -> None:
    spec = OptionSpec("multi_play", False, "help")
    assert spec.validate("on") is True and spec.validate("off") is False
    assert spec.validate(True) is True
    with pytest.raises(OptionError, match="on/off"):
        spec.validate("maybe")


def test_int_option_checks_bounds() -> None:
    spec = OptionSpec("attack_cap", 0, "help", minimum=0, maximum=100)
    assert spec.validate("20") == 20
    with pytest.raises(OptionError, match="must be 0-100"):
        spec.validate(-1)
    with pytest.raises(OptionError, match="a number"):
        spec.validate(True)


def test_text_option_with_numeric_choices_accepts_numbers() -> None:
    spec = OptionSpec("decks", "auto", "help", ("auto", "1", "2"))
    assert spec.validate(2) == "2"
    assert spec.validate("auto") == "auto"
    with pytest.raises(OptionError, match="one of auto, 1, 2"):
        spec.validate(3)
    with pytest.raises(OptionError, match="takes text"):
        OptionSpec("name", "x", "help").validate(5)


def test_black_jack_decks_given_as_a_number() -> None:
    cls = find_game("black-jack")
    assert cls.validate_options({"decks": 2})["decks"] == "2"


def test_unknown_option_and_game_are_named() -> None:
    cls = find_game("one-card")
    with pytest.raises(OptionError, match="unknown option 'nope'"):
        cls.validate_options({"nope": 1})
    with pytest.raises(OptionError, match="unknown game"):
        find_game("poker")
    assert game_names() == ["one-card", "black-jack", "one"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_core(game: State, seat: int | None) -> None:
    """``game.view(seat)`` has every core key, typed and meaning what base.py says."""
    view = game.view(seat)
    who = f"{game.game.name} view of {'spectator' if seat is None else f'seat {seat}'}"
    missing = [k for k in VIEW_CORE_KEYS if k not in view]
    assert not missing, f"{who} lacks {missing}"
    assert view["game"] == game.game.name, who
    assert _is_int(view["seats"]) and view["seats"] == game.seats, who
    assert view["seat"] == seat and (seat is None or _is_int(view["seat"])), who
    dealer = view["dealer"]
    assert dealer is None or (_is_int(dealer) and 0 <= dealer < game.seats), who
    assert _is_int(view["hand_no"]) and view["hand_no"] >= 1, who
    assert isinstance(view["phase"], str) and view["phase"], who
    assert view["to_act"] == list(game.to_act()), who
    assert all(_is_int(s) for s in view["to_act"]), who
    counts = view["hand_counts"]
    assert isinstance(counts, list) and len(counts) == game.seats, who
    assert all(_is_int(n) and n >= 0 for n in counts), who
    assert isinstance(view["options"], dict) and view["options"] == dict(game.options), who
    outcome = game.outcome()
    assert view["outcome"] == (None if outcome is None else outcome.to_wire()), who
    if seat is None:
        assert view["hand"] is None and view["legal"] == [], who
    else:
        hand = view["hand"]
        codes = {c.code for c in ALL_CARDS}
        assert isinstance(hand, list) and all(c in codes for c in hand), who
        assert len(hand) == counts[seat], who
        legal = view["legal"]
        assert isinstance(legal, list) and all(isinstance(a, dict) for a in legal), who
        assert legal == [a.to_wire() for a in game.legal_actions(seat)], who


def _check_all_views(game: State) -> None:
    for seat in [*range(game.seats), None]:
        _check_core(game, seat)


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seed", range(3))
def test_every_view_has_the_common_core(name: str, seed: int) -> None:
    rules = find_game(name)
    cls = rules.state
    rng = random.Random(seed)
    seats = (rules.min_seats, rules.max_seats, rng.randint(rules.min_seats, rules.max_seats))[seed]
    _check_all_views(cls(seats=seats, dealer=None))  # before the deal: chance pending
    _check_all_views(cls(seats=seats, dealer=seats - 1))
    every = rng.randint(3, 9)

    def on_step(game: State, seat: int, action: Action, events: list[Event]) -> None:
        nonlocal every
        every -= 1
        if every == 0 or game.outcome() is not None:
            _check_all_views(game)
            every = rng.randint(3, 9)

    result = playout(cls, seats=seats, rng=rng, max_steps=3000, on_step=on_step)
    _check_all_views(result.game)


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seat", [-1, -3, 3, 10, 255])
def test_a_view_for_a_seat_the_game_lacks_is_a_seat_error(name: str, seat: int) -> None:
    game = find_game(name).new_initial_state(seats=3, dealer=None)
    for dealt in (False, True):  # before the deal (chance pending) and while playing
        with pytest.raises(SeatError, match=rf"there is no seat {seat}: .* seats 0\.\.2") as info:
            game.view(seat)
        assert info.value.code is ErrorCode.NOT_FOUND
        assert isinstance(info.value, ValueError) and not isinstance(info.value, IndexError)
        if not dealt:
            answer_chance(game, random.Random(seat))
    assert game.view(2)["seat"] == 2 and game.view(None)["seat"] is None


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seat", [True, "0", 1.0])
def test_a_view_for_a_seat_that_is_not_a_number_is_a_seat_error(name: str, seat: object) -> None:
    game = find_game(name).new_initial_state(seats=2, dealer=0)
    with pytest.raises(SeatError, match=r"a seat is a number 0\.\.1 or None"):
        game.view(seat)  # type: ignore[arg-type]


def test_an_outcome_reads_as_one_line_with_names() -> None:
    names = {0: "Ann", 1: "bot1-ab12"}
    went_out = {"termination": "went_out", "winners": [1], "ranking": None, "scores": None}
    assert describe_outcome(went_out, names) == "seat 1 (bot1-ab12) went out"
    ranked = {"termination": "ranked", "winners": [0], "ranking": [0, 2, 1], "scores": None}
    assert describe_outcome(ranked, names) == (
        "seat 0 (Ann) won; finishing order: seat 0 (Ann), seat 2, seat 1 (bot1-ab12)"
    )
    assert describe_outcome({"termination": "exhausted", "winners": []}, {}) == "nobody won"


def _snapshot(game: State) -> list[object]:
    """Everything observable about a game: every view, the chance request, the cards."""
    views: list[object] = [game.view(s) for s in [*range(game.seats), None]]
    return [*views, game.chance_request(), sorted(c.index for c in game.all_cards())]


def _step(game: State, rng: random.Random) -> list[Event]:
    """Answer chance, or let a random seat to act take a random legal action."""
    if game.chance_request() is not None:
        return answer_chance(game, rng)
    seat = rng.choice(game.to_act())
    return game.apply(seat, rng.choice(game.legal_actions(seat)))


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(game_names()),
    seats=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    before=st.integers(0, 60),
)
def test_a_clone_plays_on_without_touching_its_original(
    name: str, seats: int, seed: int, before: int
) -> None:
    rng = random.Random(seed)
    game = find_game(name).new_initial_state(seats=seats, dealer=None)
    for _ in range(before):
        if game.outcome() is not None:
            break
        _step(game, rng)
    was = _snapshot(game)
    twin = game.clone()
    assert type(twin) is type(game) and _snapshot(twin) == was
    replay = random.Random(seed + 1)
    for _ in range(40):  # the twin moves on; the original stays as it was
        if twin.outcome() is not None:
            break
        _step(twin, replay)
    assert _snapshot(game) == was
    replay, again = random.Random(seed + 1), random.Random(seed + 1)
    copy = game.clone()
    for _ in range(40):  # the same moves on the original and on a fresh clone: the same game
        if game.outcome() is not None:
            break
        assert _step(game, replay) == _step(copy, again)
        assert _snapshot(game) == _snapshot(copy)
