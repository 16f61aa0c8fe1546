"""Game engines, registered by name (like python-chess's ``VARIANTS`` / ``find_variant``).

Each engine lives in its own package, named here as ``"module:Class"`` by its wire name in
``GAMES`` and imported by :func:`find_game` when first asked for. The host imports every one of
them when it starts (:mod:`host.policy` reads each game's bot features at import): a game
package missing from the build is left out (:func:`game_names`), one that fails to import stops
the host. Only a tool that asks for one game imports that game alone.
:func:`game_entry` is what the host says about one game in its ``games`` reply: name, title,
seats, options and the game's presentation (help, letters, wording), plus the wording of the
host's own event kinds (``spec/PROTOCOL.md`` sections 3.2 and 3.5).
"""

from __future__ import annotations

import importlib

from host.games.base import Game, OptionError, WireMap
from host.games.wording import HOST_EVENTS

__all__ = ["GAMES", "find_game", "game_entries", "game_entry", "game_names"]

GAMES: dict[str, str] = {
    "one-card": "host.games.one_card:OneCard",
    "black-jack": "host.games.black_jack:BlackJack",
    "one": "host.games.one:One",
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


def find_game(name: str) -> type[Game]:
    """The engine class for a game name; raise :class:`OptionError` for an unknown name."""
    target = GAMES.get(name)
    if target is None:
        raise OptionError(f"unknown game {name!r} (known: {', '.join(GAMES)})")
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise OptionError(f"game {name!r} is not available in this build") from None
        raise
    cls = getattr(module, attr)
    assert isinstance(cls, type) and issubclass(cls, Game)
    return cls


def game_entry(cls: type[Game]) -> WireMap:
    """One game as the ``games`` reply describes it (``spec/PROTOCOL.md`` 3.2 and 3.5)."""
    text = cls.presentation.to_wire()
    text["events"] = {**text["events"], **HOST_EVENTS}
    return {
        "name": cls.name,
        "title": cls.title,
        "min_seats": cls.min_seats,
        "max_seats": cls.max_seats,
        "options": [spec.to_wire() for spec in cls.OPTIONS],
        **text,
    }


def game_entries() -> list[WireMap]:
    """:func:`game_entry` of every game whose engine can be imported, in registry order."""
    return [game_entry(find_game(name)) for name in game_names()]
