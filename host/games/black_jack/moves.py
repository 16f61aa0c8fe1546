"""Black Jack's actions and their wire forms.

How it works: :class:`Play`, :class:`Draw` and :class:`Declare` are frozen value objects (a
:class:`Declaration` is what a player says when able to finish next turn);
:func:`parse_black_jack_action` turns a wire map into one, raising :class:`InvalidAction` for a
malformed map (a card code that does not parse: :class:`~host.games.base.InvalidCard`). Wire
forms: ``{"type": "play", "cards": [...], "suit"?: "H", "declare"?: [...], "say"?: ...}``
(``declare``: one identity per joker, in play order; ``say``: ``"last_card"``/``"cards"`` said at
the end of this turn), ``{"type": "draw", "say"?: ...}``, ``{"type": "declare", "what": ...}``
(said after one's own turn, until the next turn action). The rules are in ``spec/RULES.md``,
section Black Jack.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from host.games.base import Action, InvalidAction, WireMap, parse_wire_card
from protocol.cards import Card, CardCodeError, Suit

__all__ = ["MAX_PLAY", "Declaration", "Declare", "Draw", "Play", "parse_black_jack_action"]

MAX_PLAY = 30  # no legal play is longer (13-card run); caps malformed input early


class Declaration(enum.Enum):
    """What a player says when able to finish next turn; either word counts."""

    LAST_CARD = "last_card"  #: one card left
    CARDS = "cards"  #: more than one card, all playable next turn ("knocking" is the same)


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Put ``cards`` down, first card first (a single card, a run, or a chain with ``chain``).

    ``declare`` gives each joker's identity in play order; ``suit`` is named when the last card
    acts as an ace; ``say`` is the last-card declaration made at the end of this turn.

    >>> from protocol.cards import card
    >>> Play((card("7H"), card("8H"))).to_wire()
    {'type': 'play', 'cards': ['7H', '8H']}
    """

    cards: tuple[Card, ...]
    suit: Suit | None = None
    declare: tuple[Card, ...] = ()
    say: Declaration | None = None

    def to_wire(self) -> WireMap:
        out: WireMap = {"type": "play", "cards": [c.code for c in self.cards]}
        if self.suit is not None:
            out["suit"] = self.suit.value
        if self.declare:
            out["declare"] = [c.code for c in self.declare]
        if self.say is not None:
            out["say"] = self.say.value
        return out


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw: one card, or the pick-up owed, or one card for an uncovered queen; ends the turn."""

    say: Declaration | None = None

    def to_wire(self) -> WireMap:
        out: WireMap = {"type": "draw"}
        if self.say is not None:
            out["say"] = self.say.value
        return out


@dataclass(frozen=True, slots=True)
class Declare(Action):
    """Say "last card" / "cards" after one's own turn, before the next turn action."""

    what: Declaration

    def to_wire(self) -> WireMap:
        return {"type": "declare", "what": self.what.value}


# --------------------------------------------------------------------------- wire fields


def _cards_field(wire: Mapping[str, object], key: str, *, required: bool) -> tuple[Card, ...]:
    raw = wire.get(key)
    if raw is None and not required:
        return ()
    if not isinstance(raw, list) or (required and not raw) or len(raw) > MAX_PLAY:
        raise InvalidAction(f"{key!r} must be a non-empty list of at most {MAX_PLAY} card codes")
    return tuple(parse_wire_card(c, key) for c in raw)


def _say_field(wire: Mapping[str, object], key: str, *, required: bool) -> Declaration | None:
    raw = wire.get(key)
    if raw is None and not required:
        return None
    try:
        return Declaration(raw)
    except ValueError:
        raise InvalidAction(f"{key!r} must be 'last_card' or 'cards', not {raw!r}") from None


_FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "cards", "suit", "declare", "say"}),
    "draw": frozenset({"type", "say"}),
    "declare": frozenset({"type", "what"}),
}


def parse_black_jack_action(wire: object) -> Action:
    """The action for a wire map; raise :class:`InvalidAction` if it is malformed."""
    if not isinstance(wire, dict):
        raise InvalidAction(f"an action is a map, not {type(wire).__name__}")
    kind = wire.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise InvalidAction(f"unknown action type {kind!r} (play, draw, declare)")
    extra = sorted(str(k) for k in wire if k not in _FIELDS[kind])
    if extra:
        raise InvalidAction(f"unknown field {extra[0]!r} in a {kind} action")
    if kind == "draw":
        return Draw(_say_field(wire, "say", required=False))
    if kind == "declare":
        what = _say_field(wire, "what", required=True)
        assert what is not None
        return Declare(what)
    suit: Suit | None = None
    if wire.get("suit") is not None:
        try:
            suit = Suit.parse(wire["suit"])
        except CardCodeError as exc:
            raise InvalidAction(exc.message) from None
    return Play(
        _cards_field(wire, "cards", required=True),
        suit,
        _cards_field(wire, "declare", required=False),
        _say_field(wire, "say", required=False),
    )
