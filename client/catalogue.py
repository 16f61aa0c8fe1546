"""What the host says about its games: titles, help, letters and wording, from its ``games``.

How it works: the client holds no table per game. It asks the host ``list_games`` once
(:meth:`client.table_client.TableClient.join`, ``watch`` and ``resume`` do, while nothing has been
learned yet: a command talks to one host) and keeps the answer in :data:`CATALOGUE`, one
:class:`GameText` per game, every string in it made safe to show
(:func:`host_data`). :mod:`client.render` takes the titles from it,
:mod:`client.choices` the help line and the letters, and :mod:`client.wording` the templates
that word events and actions (``spec/PROTOCOL.md`` section 3.5).

Lookups take the table's game when the caller knows it; without one (or for a game the host did
not describe) they use the first game the host listed that has the kind, type or letter: the
reference host words a kind the same way in every game that has it. A host that sends none of
these keys, or a game it does not list, gets generic wording: the game's name for a title, no
help, no letters (every move numbered) and events and actions as their fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from protocol.text import safe_text

__all__ = ["CATALOGUE", "MISSING", "Catalogue", "GameText", "host_data"]

MISSING: Any = object()
"""What a template lookup gives when no game the host described words that kind or type."""


def host_data(value: Any) -> Any:
    r"""``value`` from the host with every string in it, keys included, made safe to show
    (:func:`protocol.text.safe_text`); maps and lists are copied, other values kept.

    >>> host_data({"kind": "chat", "text": ["hi\x1b[2K"], "n": 3})
    {'kind': 'chat', 'text': ['hi\\x1b[2K'], 'n': 3}
    """
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, Mapping):
        return {host_data(k): host_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [host_data(v) for v in value]
    return value


def _str_map(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): str(v) for k, v in value.items() if isinstance(v, str)}


def _map(value: object) -> dict[str, Any]:
    return {str(k): v for k, v in value.items()} if isinstance(value, Mapping) else {}


@dataclass(frozen=True, slots=True)
class GameText:
    """One game as the host describes it (see ``spec/PROTOCOL.md`` 3.5 for each field)."""

    name: str
    title: str = ""
    help: str = ""
    layout: str = ""  #: "shedding" or "tricks": how the table is drawn
    keys: Mapping[str, str] = field(default_factory=dict)  #: action type -> letter
    unavailable: Mapping[str, str] = field(default_factory=dict)  #: letter -> "not now" line
    absent_keys: Mapping[str, str] = field(default_factory=dict)  #: letter -> "never" line
    calls: frozenset[str] = frozenset()
    events: Mapping[str, Any] = field(default_factory=dict)
    actions: Mapping[str, Any] = field(default_factory=dict)
    words: Mapping[str, str] = field(default_factory=dict)
    endings: Mapping[str, str] = field(default_factory=dict)  #: termination -> why it ended
    guide: tuple[Any, ...] = ()  #: the ``?`` paragraphs, templates over the view

    @classmethod
    def from_wire(cls, entry: Mapping[str, Any]) -> GameText | None:
        """The game of one ``games`` entry (made safe already); None without a name. A key of
        the wrong type is left out, as if the host had not sent it."""
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            return None
        keys: dict[str, str] = {}
        unavailable: dict[str, str] = {}
        for action_type, key in _map(entry.get("keys")).items():
            letter = key.get("key") if isinstance(key, Mapping) else None
            if isinstance(letter, str) and letter:
                keys[action_type] = letter.lower()
                unavailable[letter.lower()] = str(key.get("none") or f"no {action_type} now")
        calls = entry.get("calls")
        title = entry.get("title")
        return cls(
            name=name,
            title=title if isinstance(title, str) and title else name,
            help=str(entry.get("help") or ""),
            layout=str(entry.get("layout") or ""),
            keys=keys,
            unavailable=unavailable,
            absent_keys={k.lower(): v for k, v in _str_map(entry.get("absent_keys")).items()},
            calls=frozenset(c for c in calls if isinstance(c, str))
            if isinstance(calls, list)
            else frozenset(),
            events=_map(entry.get("events")),
            actions=_map(entry.get("actions")),
            words=_str_map(entry.get("words")),
            endings=_str_map(entry.get("endings")),
            guide=tuple(guide) if isinstance(guide := entry.get("guide"), list) else (),
        )


class _View(Mapping[str, str]):
    """A live read-only mapping from game name to one :class:`GameText` field."""

    def __init__(self, catalogue: Catalogue, attribute: str) -> None:
        self._catalogue, self._attribute = catalogue, attribute

    def __getitem__(self, name: str) -> str:
        found = self._catalogue.games.get(name)
        if found is None:
            raise KeyError(name)
        return str(getattr(found, self._attribute))

    def __iter__(self) -> Iterator[str]:
        return iter(self._catalogue.games)

    def __len__(self) -> int:
        return len(self._catalogue.games)


class Catalogue:
    """The games one host described, by name, in the order it listed them.

    >>> c = Catalogue([{"name": "snap", "title": "Snap", "keys": {"snap": {"key": "s",
    ...                 "none": "nothing to snap"}}, "events": {"snap": "{seat:name} snaps"}}])
    >>> c.title("snap"), c.title("other"), c.key("snap", "snap"), c.refusal("", "s")
    ('Snap', 'other', 's', 'nothing to snap')
    >>> c.event("snap"), c.event("turn") is MISSING
    ('{seat:name} snaps', True)
    """

    def __init__(self, entries: Iterable[Mapping[str, Any]] = ()) -> None:
        self.games: dict[str, GameText] = {}
        #: whether a host has answered ``list_games`` (so nobody asks again)
        self.learned = False
        #: the ``?`` help line of each game, and its title: live views for lookups by name
        self.helps: Mapping[str, str] = _View(self, "help")
        self.titles: Mapping[str, str] = _View(self, "title")
        if entries:
            self.learn(entries)

    def learn(self, entries: Iterable[Mapping[str, Any]]) -> None:
        """Take what a host's ``games`` reply says (its ``games`` list), replacing what was
        known; every string in it is made safe to show first."""
        games: dict[str, GameText] = {}
        for entry in entries:
            if isinstance(entry, Mapping):
                game = GameText.from_wire(host_data(entry))
                if game is not None:
                    games.setdefault(game.name, game)
        self.games = games
        self.learned = True

    def forget(self) -> None:
        """Back to knowing nothing (generic wording), as before any host answered."""
        self.games = {}
        self.learned = False

    def _in_order(self, game: str | None) -> list[GameText]:
        """The named game first (when described), then every game in the host's order."""
        first = self.games.get(game) if game else None
        rest = [g for g in self.games.values() if g is not first]
        return [first, *rest] if first is not None else rest

    def title(self, game: str) -> str:
        """The game's title, or its name when the host did not give one."""
        found = self.games.get(game)
        return found.title if found is not None else game

    def layout(self, game: str) -> str:
        """How the host says to draw the game's table (``""`` when it did not say)."""
        found = self.games.get(game)
        return found.layout if found is not None else ""

    def help(self, game: str) -> str:
        """The game's ``?`` help line; ``""`` when the host gave none."""
        found = self.games.get(game)
        return found.help if found is not None else ""

    def key(self, game: str | None, action_type: str) -> str | None:
        """The letter a person types for ``action_type`` (None: the move is numbered): the
        table's game's, else the one another game of the host gives that type."""
        for text in self._in_order(game):
            if action_type in text.keys:
                return text.keys[action_type]
        return None

    def letters(self) -> frozenset[str]:
        """Every letter any game uses for a move."""
        return frozenset(letter for text in self.games.values() for letter in text.keys.values())

    def refusal(self, game: str | None, letter: str) -> str | None:
        """What typing ``letter`` says when no move has it now (None: it is no move's letter):
        the game's own line for a letter it never offers, else what the letter's move says."""
        own = self.games.get(game) if game else None
        if own is not None and letter in own.absent_keys:
            return own.absent_keys[letter]
        for text in self._in_order(game):
            if letter in text.unavailable:
                return text.unavailable[letter]
        return None

    def event(self, kind: str, game: str | None = None) -> Any:
        """The template wording events of ``kind`` (None: no line), or :data:`MISSING`."""
        for text in self._in_order(game):
            if kind in text.events:
                return text.events[kind]
        return MISSING

    def action(self, action_type: str, game: str | None = None) -> Any:
        """The template wording actions of ``action_type``, or :data:`MISSING`."""
        for text in self._in_order(game):
            if action_type in text.actions:
                return text.actions[action_type]
        return MISSING

    def guide(self, game: str) -> tuple[Any, ...]:
        """The game's ``?`` paragraphs (templates filled in with the view); empty when the host
        gave none."""
        found = self.games.get(game)
        return found.guide if found is not None else ()

    def ending(self, termination: str, game: str | None = None) -> str | None:
        """Why a game ended, in words, for an outcome's ``termination``; None when no game
        the host described words it (a client then shows the value as it is)."""
        for text in self._in_order(game):
            if termination in text.endings:
                return text.endings[termination]
        return None

    def word(self, value: str, game: str | None = None) -> str:
        """The words for a wire value (``last_card``: ``last card``), else the value."""
        for text in self._in_order(game):
            if value in text.words:
                return text.words[value]
        return value


CATALOGUE = Catalogue()
"""What the host this process talks to said about its games (empty until it answers)."""
