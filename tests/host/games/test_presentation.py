"""Each game's presentation and bot features: complete, well formed, consistent across games.

The event kinds and action types of a game are read from its package's source (every
``Event("kind", ...)`` and every ``{"type": ...}`` wire map), so a kind an engine starts to emit
without wording, or wording for a kind no engine emits, fails here.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from host.games import (
    GAMES as REGISTRY,
)
from host.games import (
    GameEntry,
    find_blind,
    find_bot,
    find_game,
    find_presentation,
    game_entries,
    game_entry,
    game_names,
)
from host.games.base import State
from host.games.presentation import FORMATS, GENERIC, Presentation, cases, is_, when
from host.games.wording import EVENTS, HOST_EVENTS
from protocol.framing import decode_body, encode_frame
from protocol.registry import message_from_wire
from protocol.table_messages import Games

CONDITIONS = {"has", "true", "false", "is", "same", "mine"}
PLACEHOLDER = re.compile(r"(?<!\{)\{([^{}]*)\}(?!\})")


def _package(game: type[State]) -> Path:
    module = importlib.import_module(game.__module__)
    return Path(module.__file__ or "").parent


def _source_trees(game: type[State]) -> list[ast.AST]:
    """The game's package, and the shared classes of ``host.games.private`` its blind engine
    is built on (events a private table adds, such as ``audit``, are emitted there)."""
    package = _package(game)
    trees = [ast.parse(p.read_text("utf-8")) for p in sorted(package.glob("*.py"))]
    if REGISTRY[game.game.name].blind is not None:
        for cls in find_blind(game.game.name).__mro__:
            if cls.__module__ in ("host.games.private",):
                trees.append(ast.parse(textwrap.dedent(inspect.getsource(cls))))
    return trees


def emitted_kinds(game: type[State]) -> set[str]:
    """The first argument of every ``Event(...)`` call in the game's package."""
    kinds = set()
    for tree in _source_trees(game):
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Event"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                kinds.add(str(node.args[0].value))
    return kinds


def action_types(game: type[State]) -> set[str]:
    """Every ``"type"`` of a wire map literal in the game's package (its actions' wire forms)."""
    types = set()
    for tree in _source_trees(game):
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    is_type = isinstance(key, ast.Constant) and key.value == "type"
                    if is_type and isinstance(value, ast.Constant):
                        types.add(str(value.value))
    return types


GAMES = [find_game(name).state for name in game_names()]


def _templates(template: Any) -> list[Any]:
    """Every template inside ``template`` (itself included)."""
    out = [template]
    if isinstance(template, list):
        for part in template:
            out += _templates(part)
    elif isinstance(template, dict):
        out += _templates(template["then"]) + _templates(template.get("else", ""))
    return out


def _check_template(template: Any) -> None:
    for part in _templates(template):
        if part is None or isinstance(part, list):
            continue
        if isinstance(part, dict):
            assert set(part) <= {"if", "then", "else"} and "if" in part and "then" in part
            assert part["if"] and set(part["if"]) <= CONDITIONS, part["if"]
            continue
        assert isinstance(part, str)
        for placeholder in PLACEHOLDER.findall(part):
            name, _, fmt = placeholder.partition(":")
            assert re.fullmatch(r"[a-z_]+(\.[a-z_]+)?", name), placeholder
            assert not fmt or fmt in FORMATS, placeholder


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.game.name)
def test_every_event_kind_the_engine_emits_is_worded_and_no_other(game: type[State]) -> None:
    """Before, the client worded kinds by a 31-branch function and the bots looked for call
    types ("one_card", "knock", "pick_up") that no engine has."""
    assert find_presentation(game.game.name) is not GENERIC
    assert set(find_presentation(game.game.name).events) == emitted_kinds(game)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.game.name)
def test_every_action_type_is_worded_and_keys_calls_and_bot_features_name_real_ones(
    game: type[State],
) -> None:
    types = action_types(game)
    text = find_presentation(game.game.name)
    bot = find_bot(game.game.name)
    assert set(text.actions) == types
    assert set(text.keys) <= types and text.calls <= types
    assert bot.calls == text.calls and bot.passive <= types
    assert {t for t in (bot.bid, bot.switch) if t} <= types
    letters = [key.letter for key in text.keys.values()]
    assert len(letters) == len(set(letters)) and not set(letters) & set(text.absent_keys)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.game.name)
def test_templates_use_only_known_conditions_and_formats(game: type[State]) -> None:
    entry = game_entry(game.game.name)
    for template in [*entry["events"].values(), *entry["actions"].values()]:
        _check_template(template)


def test_a_kind_two_games_share_is_worded_the_same_in_both() -> None:
    """So a client that does not know which game an event came from may word it from any."""
    seen: dict[str, Any] = {}
    for entry in game_entries():
        for table in ("events", "actions"):
            for kind, template in entry[table].items():
                assert seen.setdefault(f"{table}:{kind}", template) == template, (entry, kind)


def test_every_game_entry_carries_the_host_kinds_and_the_shared_words() -> None:
    for entry in game_entries():
        for kind, template in HOST_EVENTS.items():
            assert entry["events"][kind] == template
        shared = set(entry["events"]) & set(EVENTS)
        assert all(entry["events"][k] == EVENTS[k] for k in shared)


def test_the_games_reply_fits_a_frame_and_says_the_old_fields_as_before() -> None:
    entries = game_entries()
    frame = encode_frame(Games(games=tuple(entries), re=1).to_wire())
    assert len(frame) < 32 * 1024  # half the frame limit: room for more games
    assert message_from_wire(decode_body(frame[4:])) == Games(games=tuple(entries), re=1)
    one_card = entries[0]
    assert (one_card["name"], one_card["title"], one_card["min_seats"]) == (
        "one-card",
        "One Card",
        2,
    )
    assert one_card["keys"]["draw"] == {"key": "d", "none": "you cannot draw now"}


BARE = Presentation()


class Bare(find_game("one-card").state):  # type: ignore[misc]
    pass


BARE_GAME = replace(find_game("one-card"), name="bare", state=Bare)


def test_a_game_that_declares_nothing_is_described_generically(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one_card = REGISTRY["one-card"]
    bare = GameEntry(f"{__name__}:BARE_GAME", f"{__name__}:BARE", one_card.bot, one_card.support)
    monkeypatch.setitem(REGISTRY, "bare", bare)
    entry = game_entry("bare")
    assert entry["help"] == "" and entry["keys"] == {} and entry["events"] == HOST_EVENTS


def test_template_helpers_build_plain_data() -> None:
    assert when(is_(count=1), "1 card", "{count} cards") == {
        "if": {"is": {"count": 1}},
        "then": "1 card",
        "else": "{count} cards",
    }
    assert cases("r", {"a": "A", "b": "B"}, "?") == when(
        is_(r="a"), "A", when(is_(r="b"), "B", "?")
    )


def test_every_way_a_game_ends_is_worded_and_each_reads_differently() -> None:
    """A game stopped by the turn limit used to read "nothing left to play or draw", like an
    exhausted one: each termination has its own words, and every game words those it has."""
    from host.games.base import Termination
    from host.games.wording import ENDINGS

    assert set(ENDINGS) == {t.value for t in Termination}
    assert len(set(ENDINGS.values())) == len(ENDINGS)
    for game in GAMES:
        endings = find_presentation(game.game.name).endings
        assert endings, game.game.name
        assert set(endings) <= set(ENDINGS)
        assert game_entry(game.game.name)["endings"] == dict(endings)
    assert {"exhausted", "turn_limit"} <= set(find_presentation("one-card").endings)
