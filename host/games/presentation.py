"""How a game presents itself to people and to bots, declared once, next to its engine.

How it works: each game package has a ``presentation`` module holding one :class:`Presentation`
(the ``?`` help line, the letters a person types for actions, and the wording of every event and
action, as templates) and a ``strategy`` module holding one :class:`BotFeatures` (what the host's
bots need to know about its actions and cards). The registry (:mod:`host.games`) names both, so
the engines stay pure state machines that import neither.

The host sends the presentation in its ``games`` reply (:meth:`Presentation.to_wire`,
``spec/PROTOCOL.md`` section 3.5), and clients word everything from it: no client holds a table
per game. A *template* is plain data a client fills in: ``None`` (no line), a string with
``{field}`` / ``{field:format}`` placeholders, a list of templates said one after the other, or
``{"if": condition, "then": template, "else": template}``; :func:`when` and the condition
helpers (:func:`has`, :func:`truthy`, :func:`falsy`, :func:`is_`, :func:`same`, :func:`mine`)
build them. The table a client draws is declared the same way (``table``, ``seat_columns``,
``seat_tags``: templates over the seat's view, :func:`strong` for a line to stress, and the
conditions :func:`in_` and :func:`some`), so a client reads the view fields a game declares,
never a key it knows by name. Wording shared by several games, and the host's own event kinds,
are in :mod:`host.games.wording`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.cards import Card, Rank

__all__ = [
    "FORMATS",
    "GENERIC",
    "GENERIC_BOT",
    "BotFeatures",
    "Condition",
    "Key",
    "Presentation",
    "Strategy",
    "Template",
    "cases",
    "falsy",
    "has",
    "in_",
    "is_",
    "mine",
    "same",
    "some",
    "strong",
    "truthy",
    "when",
]

Strategy = Callable[[dict[str, Any], Sequence[dict[str, Any]]], dict[str, Any] | None]
"""A game's normal-level player: ``(view, legal turn actions) -> action`` (wire maps)."""
Template = Any
"""``None``, a string with placeholders, a list of templates, or an ``if`` map (see above)."""
Condition = dict[str, Any]
"""A map of tests that must all hold: ``has``, ``true``, ``false``, ``is``, ``same``, ``mine``,
``in``, ``some``."""

#: the placeholder formats a client understands (``spec/PROTOCOL.md`` section 3.5)
FORMATS = frozenset(
    {
        "name",
        "cards",
        "card_list",
        "played",
        "suit",
        "suit_name",
        "word",
        "seats",
        "by_seat",
        "hand",
        "action",
        "follow",
        "seat_cards",
        "place",
        "points",
    }
)


def when(condition: Condition, then: Template, otherwise: Template = "") -> dict[str, Any]:
    """``then`` where ``condition`` holds, else ``otherwise`` (nothing by default)."""
    return {"if": condition, "then": then, "else": otherwise}


def has(name: str) -> Condition:
    """The field is there and not null."""
    return {"has": name}


def truthy(name: str) -> Condition:
    """The field is there and not null, false, 0, empty text, an empty list or map."""
    return {"true": name}


def falsy(name: str) -> Condition:
    """The opposite of :func:`truthy` (a missing field is falsy)."""
    return {"false": name}


def is_(**fields: object) -> Condition:
    """Each field equals its value, or one of the values of a list (a missing field is null).

    >>> is_(count=1, reason=["draw", None])
    {'is': {'count': 1, 'reason': ['draw', None]}}
    """
    return {"is": dict(fields)}


def same(first: str, second: str) -> Condition:
    """The two fields are equal."""
    return {"same": [first, second]}


def mine(name: str) -> Condition:
    """The field is the viewer's own seat (never true for a spectator)."""
    return {"mine": name}


def in_(item: str, array: str) -> Condition:
    """The first field's value is an element of the second, an array (``in_("me", "to_act")``)."""
    return {"in": [item, array]}


def some(name: str) -> Condition:
    """The field is an array with at least one truthy element (``[0, 2]``, not ``[0, 0]``)."""
    return {"some": name}


def strong(template: Template) -> dict[str, Any]:
    """A ``table`` line a client stresses (bold): ``Pending attack: ...``."""
    return {"strong": template}


def cases(name: str, by_value: Mapping[str, Template], otherwise: Template) -> Template:
    """The template for the field's value, ``otherwise`` for any other value: nested ``if``s.

    >>> cases("switch", {"on": "up"}, "down")
    {'if': {'is': {'switch': 'on'}}, 'then': 'up', 'else': 'down'}
    """
    out = otherwise
    for value, template in reversed(list(by_value.items())):
        out = when(is_(**{name: value}), template, out)
    return out


@dataclass(frozen=True, slots=True)
class Key:
    """The letter a person types for one action type, and what typing it says when the host
    does not offer that action now (``you cannot draw now``)."""

    letter: str
    unavailable: str


@dataclass(frozen=True, slots=True)
class Presentation:
    """Everything a client needs to show one game to people; see the module docstring.

    ``keys`` maps action types to their :class:`Key`; ``absent_keys`` maps letters other games
    use, which this game never offers, to what typing one says instead. ``events`` and
    ``actions`` map event kinds and action types to templates; ``words`` maps wire values
    (``last_card``) to words (``last card``) for the ``word`` format; ``endings`` maps each
    way the game can end (an outcome's ``termination``) to the words that say why it ended;
    ``guide`` is what ``?`` teaches (the rules that matter, the scoring, the keys): paragraphs,
    each a template whose fields are the seat's view and the table's options.
    ``calls`` lists the
    action types that are announcements a seat may make out of its turn. ``layout`` says how a
    client draws the table: ``shedding`` (a pile to match) or ``tricks`` (trump, the auction,
    the trick on the table). ``table`` is what a client draws above the seats, one line a
    template over the seat's view (or :func:`strong`); ``seat_columns`` and ``seat_tags`` are
    templates over the view and ``row`` (the seat of the row) that add to each seat's line
    a column (the score) and tags in brackets (``dealer`` is every game's: clients add it).
    """

    help: str = ""
    layout: str = ""
    keys: Mapping[str, Key] = field(default_factory=dict)
    absent_keys: Mapping[str, str] = field(default_factory=dict)
    calls: frozenset[str] = frozenset()
    events: Mapping[str, Template] = field(default_factory=dict)
    actions: Mapping[str, Template] = field(default_factory=dict)
    words: Mapping[str, str] = field(default_factory=dict)
    endings: Mapping[str, str] = field(default_factory=dict)
    guide: tuple[Template, ...] = ()
    table: tuple[Template, ...] = ()
    seat_columns: tuple[Template, ...] = ()
    seat_tags: tuple[Template, ...] = ()

    def to_wire(self) -> dict[str, Any]:
        """The presentation's keys of a ``games`` entry (``spec/PROTOCOL.md`` section 3.5); the
        host adds the wording of its own event kinds (:func:`host.games.game_entry`)."""
        return {
            "help": self.help,
            "layout": self.layout,
            "keys": {t: {"key": k.letter, "none": k.unavailable} for t, k in self.keys.items()},
            "absent_keys": dict(self.absent_keys),
            "calls": sorted(self.calls),
            "events": dict(self.events),
            "actions": dict(self.actions),
            "words": dict(self.words),
            "endings": dict(self.endings),
            "guide": list(self.guide),
            "table": list(self.table),
            "seat_columns": list(self.seat_columns),
            "seat_tags": list(self.seat_tags),
        }


GENERIC = Presentation()
"""A game that declares nothing: clients word its events and actions generically."""


@dataclass(frozen=True, slots=True)
class BotFeatures:
    """What the host's bots (:mod:`host.bots.policy`) know about a game, declared by the game.

    * ``calls``: action types that are announcements, not turns: made once when legal;
    * ``passive``: action types that give up the turn without shedding (draw, pass);
    * ``attack``: cards that make another player pick up; ``attack_early``: play them at once
      (they shed a card and grow a rival's hand) rather than keep them until a rival is down to
      two cards;
    * ``wild``: cards that play on anything, kept for when nothing else plays;
    * ``extra_turn``: cards that give their player another turn (worth playing early);
    * ``trick_order``: a trick-taking game: lead the strongest card, follow with the weakest,
      by this strength of each rank (empty: a shedding game);
    * ``bid``: the action type of a bid (an int ``value``); ``bid_strength``: what each rank
      held is worth, the lowest bid is made when the hand is worth it, else a passive action;
    * ``switch``: the action type of a yes/no choice (a bool ``switch``), taken when the hand
      holds more cards of the ranks ``switch_for`` than of ``stay_for`` (ONE's downtown);
    * ``strategy``: the game's own player for the ``normal`` level, given the seat's view and its
      legal turn actions in wire form (announcements already made); ``None``, or a ``None``
      answer, leaves the choice to the generic rules above;
    * ``call_worth``: whether a call on offer is worth making, given the view and the call
      (``None``: every call is). A private table offers Black Jack's declaration in every
      window, since its host cannot tell whether a hand could go out: the bot can;
    * ``say_with``: the ``say`` a play of the bot's own should carry, given the view and the
      play (``None``: none). A private table lists Black Jack's plays without one (its host
      cannot tell whether the hand left could go out): a bot that played first and declared
      after, in a request of its own, was too late whenever the next seat moved at once.
    """

    calls: frozenset[str] = frozenset()
    passive: frozenset[str] = frozenset()
    attack: frozenset[Card] = frozenset()
    attack_early: bool = False
    wild: frozenset[Card] = frozenset()
    extra_turn: frozenset[Card] = frozenset()
    trick_order: Mapping[Rank, int] = field(default_factory=dict)
    bid: str = ""
    bid_strength: Mapping[Rank, float] = field(default_factory=dict)
    switch: str = ""
    switch_for: frozenset[Rank] = frozenset()
    stay_for: frozenset[Rank] = frozenset()
    strategy: Strategy | None = None
    call_worth: Callable[[dict[str, Any], dict[str, Any]], bool] | None = None
    say_with: Callable[[dict[str, Any], dict[str, Any]], str | None] | None = None


GENERIC_BOT = BotFeatures()
"""A game that declares nothing: bots play any card, prefer shedding and never call."""
