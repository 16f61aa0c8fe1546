"""Game engines, registered by name (like python-chess's ``VARIANTS`` / ``find_variant``).

How it works: :data:`GAMES` maps each wire name to one :class:`GameEntry`, which names, as
``"module:attribute"``, the four things the host uses of a game: its engine (the game's
:class:`~host.games.base.Game`, its static rules, which makes the running hand), its
presentation (the wording clients get), what the host's bots know of it (``BotFeatures``, from
the game's ``strategy`` module) and what the searching bot needs (``GameSupport``, from its
``worlds`` module), and for a game that private tables can play, its blind engine (from its
``private`` module). Each is imported on first use, so a broken or slow import of one game never
affects the others, and loading an engine never loads its bot. Adding a game is its package,
one entry here, its section of ``spec/RULES.md`` and its deck's row in ``protocol.decks.DECKS``
(kept out of this registry on purpose: players verify deals from it; docs/ADDING-A-GAME.md).
Nothing imports a game until something asks for it (:mod:`host.bots.policy` reads the bots'
features on first use).

:func:`game_entry` is what the host says about one game in its ``games`` reply: name, title,
seats, options and the game's presentation (help, letters, wording), plus the wording of the
host's own event kinds (``spec/PROTOCOL.md`` sections 3.2 and 3.5).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass

from host.games.base import ChanceError, ChanceKind, Game, OptionError, State, WireMap
from host.games.presentation import BotFeatures, Presentation
from host.games.private import Blind
from host.games.support import GameSupport
from host.games.wording import HOST_EVENTS

__all__ = [
    "GAMES",
    "GameEntry",
    "find_blind",
    "find_bot",
    "find_game",
    "find_presentation",
    "find_support",
    "game_entries",
    "game_entry",
    "game_names",
    "make_blind",
    "private_refusal",
]


@dataclass(frozen=True, slots=True)
class GameEntry:
    """Where the host finds one game's parts, each as ``"module:attribute"``."""

    #: the game's :class:`~host.games.base.Game` (static rules; makes the running hand)
    engine: str
    #: the :class:`~host.games.presentation.Presentation` sent to clients
    presentation: str
    #: the :class:`~host.games.presentation.BotFeatures` the easy and normal bots play by
    bot: str
    #: the :class:`~host.games.support.GameSupport` the hard bot searches with
    support: str
    #: the game's blind engine for private tables (:class:`~host.games.private.Blind`), or
    #: ``None``: the game is refused on private tables
    blind: str | None = None


GAMES: dict[str, GameEntry] = {
    "one-card": GameEntry(
        engine="host.games.one_card.engine:GAME",
        presentation="host.games.one_card.presentation:PRESENTATION",
        bot="host.games.one_card.strategy:BOT",
        support="host.games.one_card.worlds:SUPPORT",
        blind="host.games.one_card.private:BlindOneCard",
    ),
    "black-jack": GameEntry(
        engine="host.games.black_jack.engine:GAME",
        presentation="host.games.black_jack.presentation:PRESENTATION",
        bot="host.games.black_jack.strategy:BOT",
        support="host.games.black_jack.worlds:SUPPORT",
        blind="host.games.black_jack.private:BlindBlackJack",
    ),
    "one": GameEntry(
        engine="host.games.one.engine:GAME",
        presentation="host.games.one.presentation:PRESENTATION",
        bot="host.games.one.strategy:BOT",
        support="host.games.one.worlds:SUPPORT",
        blind="host.games.one.private:BlindOne",
    ),
}


def game_names() -> list[str]:
    """Names of the games whose engine can be imported, in registry order."""
    names = []
    for name in GAMES:
        try:
            find_game(name)
        except OptionError:
            continue
        names.append(name)
    return names


def _entry(name: str) -> GameEntry:
    entry = GAMES.get(name)
    if entry is None:
        raise OptionError(f"unknown game {name!r} (known: {', '.join(GAMES)})")
    return entry


def _load(name: str, target: str) -> object:
    """The attribute ``target`` (``"module:attribute"``) names, for the game ``name``."""
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise OptionError(f"game {name!r} is not available in this build") from None
        raise
    return getattr(module, attr)


def find_game(name: str) -> Game:
    """The static rules of a game (its ``GAME``); raise :class:`OptionError` for an unknown name.

    ``find_game(name).new_initial_state(seats=...)`` makes a running hand; ``.state`` is its
    class."""
    game = _load(name, _entry(name).engine)
    assert isinstance(game, Game)
    return game


def find_presentation(name: str) -> Presentation:
    """How the game ``name`` is shown to people; raise :class:`OptionError` if unknown."""
    text = _load(name, _entry(name).presentation)
    assert isinstance(text, Presentation)
    return text


def find_bot(name: str) -> BotFeatures:
    """What the host's bots know of the game ``name``; raise :class:`OptionError` if unknown."""
    bot = _load(name, _entry(name).bot)
    assert isinstance(bot, BotFeatures)
    return bot


@functools.lru_cache(maxsize=16)
def find_support(name: str) -> GameSupport:
    """What the searching bot needs of the game ``name``.

    Raises:
        OptionError: no such game, or the game declares no support for the search.
    """
    support = _load(name, _entry(name).support)
    if not isinstance(support, GameSupport):
        raise OptionError(f"game {name!r} has no support for searching bots")
    return support


def find_blind(name: str) -> type[Blind]:
    """The blind engine class of the game ``name``, for private tables.

    Raises:
        OptionError: no such game, or it cannot be played on a private table (yet).
    """
    target = _entry(name).blind
    if target is None:
        raise OptionError(f"{name} cannot be played on a private table yet")
    cls = _load(name, target)
    assert isinstance(cls, type) and issubclass(cls, Blind)
    return cls


def private_refusal(name: str, options: dict[str, object]) -> str | None:
    """Why a private table of ``name`` cannot take ``options`` (validated), or ``None``."""
    try:
        cls = find_blind(name)
    except OptionError as exc:
        return exc.message
    return cls.refuse(options)


def make_blind(game: State) -> Blind:
    """The blind twin of ``game``, which must not have dealt yet (same seats, options, dealer).

    Raises:
        OptionError: the game, or one of its options, cannot be played on a private table
            (the message says which and why).
        ChanceError: ``game`` has dealt already.
    """
    request = game.chance_request()
    if request is None or request.kind is not ChanceKind.DEAL or request.hand_no != 1:
        raise ChanceError("a game goes private before its first deal, not after")
    cls = find_blind(game.game.name)
    why = cls.refuse(game.options)
    if why is not None:
        raise OptionError(why)
    dealer = None if request.choose_dealer else getattr(game, "dealer", None)
    blind = cls(seats=game.seats, options=game.options, dealer=dealer)
    assert isinstance(blind, State)
    return blind


def game_entry(name: str) -> WireMap:
    """One game as the ``games`` reply describes it (``spec/PROTOCOL.md`` 3.2 and 3.5)."""
    game = find_game(name)
    text = find_presentation(name).to_wire()
    text["events"] = {**text["events"], **HOST_EVENTS}
    return {
        "name": game.name,
        "title": game.title,
        "min_seats": game.min_seats,
        "max_seats": game.max_seats,
        "options": [spec.to_wire() for spec in game.option_specs],
        **text,
    }


def game_entries() -> list[WireMap]:
    """:func:`game_entry` of every game whose engine can be imported, in registry order."""
    return [game_entry(name) for name in game_names()]
