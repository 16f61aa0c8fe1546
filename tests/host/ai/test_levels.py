"""The three levels: names, full games at every level, and a hard bot blind to hidden cards."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from host.bots.ai.arena import play_match, seat_turns
from host.bots.ai.ismcts import DEFAULT_BUDGET, Budget
from host.bots.ai.levels import (
    EasyBot,
    HardBot,
    Level,
    NormalBot,
    make_bot,
    parse_level,
    table_budget,
)
from host.games import find_support, game_names
from host.games.base import OptionError, State, WireMap
from protocol.lobby_messages import BOT_KINDS, BOT_LEVELS

QUICK = Budget(iterations=30)


def test_levels_and_the_older_bot_kinds_name_a_level() -> None:
    assert [parse_level(k).value for k in BOT_LEVELS] == list(BOT_LEVELS)
    assert parse_level("random") is Level.EASY
    assert parse_level(" Heuristic ") is Level.NORMAL
    assert set(BOT_KINDS) >= set(BOT_LEVELS)
    with pytest.raises(ValueError, match="not a bot level"):
        parse_level("grandmaster")


def test_make_bot_gives_each_level_its_player() -> None:
    assert isinstance(make_bot("easy"), EasyBot)
    assert isinstance(make_bot(Level.NORMAL), NormalBot)
    hard = make_bot("hard", budget=QUICK)
    assert isinstance(hard, HardBot)
    assert hard.budget == QUICK


def test_a_tournament_gives_the_hard_bot_what_its_time_at_a_table_buys() -> None:
    """Each game declares the iterations its 0.6 s at a table buy (its search speed differs):
    a budget of iterations alone, so that a tournament replays from its seed."""
    budgets = {name: table_budget(name) for name in game_names()}
    for name, budget in budgets.items():
        assert budget == Budget(iterations=find_support(name).table_iterations)
        assert budget.seconds is None
        assert DEFAULT_BUDGET.iterations is not None
        assert 100 < (budget.iterations or 0) < DEFAULT_BUDGET.iterations
    slowest = budgets["black-jack"].iterations or 0
    assert slowest < (budgets["one-card"].iterations or 0)  # the slowest search buys the fewest
    with pytest.raises(OptionError):
        table_budget("no-such-game")


@pytest.mark.parametrize("name", game_names())
def test_every_level_plays_whole_games_legally(name: str) -> None:
    """``play_match`` applies each answer through ``parse_action``: an illegal one raises."""
    levels = ["hard", "normal", "easy"]
    bots = [make_bot(lv, rng=random.Random(i), budget=QUICK) for i, lv in enumerate(levels)]
    record = play_match(name, bots, seed=f"levels/{name}")
    assert record.winners
    assert len(record.think[0]) > 0


def test_a_seeded_hard_bot_replays_its_game() -> None:
    def once() -> tuple[tuple[int, ...], int]:
        bots = [make_bot("hard", rng=random.Random(1), budget=QUICK), make_bot("normal")]
        record = play_match("one-card", bots, seed=3)
        return record.winners, record.actions

    assert once() == once()


def _seat_zero_turns(name: str, seats: int, seed: int) -> Iterator[tuple[State, list[WireMap]]]:
    """The game at seat 0's turns of a seeded game between normal bots, with the events seat 0
    has received so far."""
    seen: list[WireMap] = []
    for engine in seat_turns(name, seats, seed, choices_only=True, observe=seen.append, limit=300):
        yield engine, list(seen)


def _redeal(game: State, rng: random.Random) -> State:
    """A copy of ``game`` with the cards seat 0 cannot see shuffled among the places that hide
    them (other hands, the stock, ONE's centre card), each place keeping its size."""
    twin = game.clone()
    hidden = twin.hidden_from(0)
    rng.shuffle(hidden)
    cards = iter(hidden)
    # the same places, in the order each engine's hidden_from lists them
    if twin.game.name == "one-card":
        pos = twin._pos  # type: ignore[attr-defined]
        stock = twin._stock  # type: ignore[attr-defined]
        stock[pos:] = [next(cards) for _ in stock[pos:]]
        hands = twin._hands  # type: ignore[attr-defined]
        twin._legal = {}  # type: ignore[attr-defined]
    else:
        hands = twin.hands  # type: ignore[attr-defined]
    for s, hand in enumerate(hands):
        if s != 0:
            hand[:] = [next(cards) for _ in hand]
    if twin.game.name == "black-jack":
        stock, pos = twin.stock, twin.position  # type: ignore[attr-defined]
        stock[pos:] = [next(cards) for _ in stock[pos:]]
    elif twin.game.name == "one" and len(hidden) > sum(map(len, hands[1:])):
        twin.centre = next(cards)  # type: ignore[attr-defined]
    return twin


@pytest.mark.parametrize("name", game_names())
def test_the_hard_bot_decides_the_same_whatever_the_hidden_cards_are(name: str) -> None:
    """A bot sees only its seat's view and events: two tables that differ only in the cards
    seat 0 cannot see show it the same view, and a seeded hard bot plays the same move at both
    (it is handed a view, never the engine, so it has no way to read another hand)."""
    compared = 0
    for i, (engine, seen) in enumerate(_seat_zero_turns(name, 4, 7)):
        twin = _redeal(engine, random.Random(i))
        if i % 2 or twin.hidden_from(0) == engine.hidden_from(0):
            continue
        assert twin.view(0) == engine.view(0)
        chosen = []
        for table in (engine, twin):
            bot = make_bot("hard", rng=random.Random(11), budget=QUICK)
            for event in seen:
                bot.observe(event)
            view = table.view(0)
            chosen.append(bot.choose(view, view["legal"]))
        assert chosen[0] == chosen[1]
        assert chosen[0] in engine.view(0)["legal"]
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("name", game_names())
def test_the_hard_bot_hands_its_search_the_normal_move(name: str) -> None:
    """The search keeps the normal bot's move unless it finds better by a margin: the job
    carries that move, as the normal bot would choose it from the same view."""
    bot = HardBot(rng=random.Random(1), budget=QUICK)
    bot.new_game()
    jobs = 0
    for engine in seat_turns(name, 2, 6, choices_only=True, observe=bot.observe, limit=200):
        view = engine.view(0)
        job, _ = bot.prepare(view, view["legal"])
        if job is None:
            continue
        assert job.default is not None
        assert job.default == NormalBot().choose(view, view["legal"])
        jobs += 1
    assert jobs >= 3
