"""ONE's actions and their wire forms, and the words of its state (phases, rankings).

How it works: :class:`Bid`, :class:`Pass`, :class:`Play` (a no-trump joker lead also names the
suit to follow) and :class:`DowntownChoice` are frozen value objects; :func:`parse_one_action`
turns a wire map into one, raising :class:`InvalidAction` for a malformed map (a card code that
does not parse: :class:`~host.games.base.InvalidCard`). The rules are in ``spec/RULES.md``,
section ONE; the engine is :mod:`host.games.one.engine`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from host.games.base import Action, InvalidAction, WireMap, parse_wire_card
from host.games.one.rules import DECK_SET, JOKER, MAX_BID
from protocol.cards import DECK_ONE, Card, CardCodeError, Suit

__all__ = [
    "BIDS",
    "DOWNTOWN_CHOICES",
    "JOKER_LEADS",
    "PASS",
    "PLAY_OF",
    "Bid",
    "DowntownChoice",
    "DowntownRule",
    "Pass",
    "Phase",
    "Play",
    "Ranking",
    "parse_one_action",
]


class Phase(enum.Enum):
    DEAL = "deal"  #: waiting for chance to shuffle and deal the next hand
    AUCTION = "auction"  #: seats bid or pass in turn
    PLAY = "play"  #: tricks are being played
    DOWNTOWN = "downtown"  #: the joker's capturer chooses whether to switch the ranking
    OVER = "over"  #: someone won the match


class DowntownRule(enum.Enum):
    """Option ``downtown``: when capturing the joker lets its capturer reverse the ranking."""

    NO_TRUMP = "no-trump"  #: only in an all-pass (no-trump) hand (the default ruling)
    ALWAYS = "always"  #: after any capture of the joker, bid hands included
    NEVER = "never"  #: the ranking is always uptown


class Ranking(enum.Enum):
    UPTOWN = "uptown"  #: A K Q J 10 9
    DOWNTOWN = "downtown"  #: 9 10 J Q K A


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """``{"type": "bid", "value": 9}``: bid a number of points (higher than the last bid)."""

    value: int

    def to_wire(self) -> WireMap:
        return {"type": "bid", "value": self.value}


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """``{"type": "pass"}``: drop out of the auction for the rest of the hand."""

    def to_wire(self) -> WireMap:
        return {"type": "pass"}


@dataclass(frozen=True, slots=True)
class Play(Action):
    """``{"type": "play", "card": "QS"}``; a no-trump joker lead adds ``"suit": "H"``."""

    card: Card
    suit: Suit | None = None

    def to_wire(self) -> WireMap:
        out: WireMap = {"type": "play", "card": self.card.code}
        if self.suit is not None:
            out["suit"] = self.suit.value
        return out


@dataclass(frozen=True, slots=True)
class DowntownChoice(Action):
    """``{"type": "downtown", "switch": true}``: the joker's capturer picks the ranking."""

    switch: bool

    def to_wire(self) -> WireMap:
        return {"type": "downtown", "switch": self.switch}


PASS = Pass()
#: the actions the engine offers, built once (value objects: any equal action is accepted too)
PLAY_OF = {c: Play(c) for c in DECK_ONE}
JOKER_LEADS = tuple(Play(JOKER, s) for s in Suit)  #: a no-trump joker lead names the suit
BIDS = tuple(Bid(v) for v in range(MAX_BID + 1))  #: ``BIDS[v]`` is ``Bid(v)``
DOWNTOWN_CHOICES = (DowntownChoice(False), DowntownChoice(True))
_FIELDS = {"bid": {"value"}, "pass": set(), "play": {"card", "suit"}, "downtown": {"switch"}}


def parse_one_action(wire: object) -> Action:
    """Turn a wire map into an action.

    Wire forms: ``{"type": "bid", "value": 6..15}``, ``{"type": "pass"}``,
    ``{"type": "play", "card": "QS"}`` (``"suit": "S"|"H"|"D"|"C"`` only with ``"JR"``, and
    required when the joker leads a no-trump trick), ``{"type": "downtown", "switch": bool}``.

    Raises:
        InvalidAction: not a map, unknown type, missing or unknown field, wrong field type,
            a card that is not a card of the ONE deck, or a suit on a card not the joker.
        InvalidCard: a card code that does not parse (``bad_card``).
    """
    if not isinstance(wire, Mapping):
        raise InvalidAction(f"an action must be a map, not {type(wire).__name__}")
    kind = wire.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise InvalidAction(f"unknown action type {kind!r} (expected bid, pass, play, downtown)")
    extra = sorted(str(k) for k in wire if k != "type" and k not in _FIELDS[kind])
    if extra:
        raise InvalidAction(f"unknown field {extra[0]!r} in a {kind} action")
    if kind == "pass":
        return PASS
    if kind == "bid":
        value = wire.get("value")
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidAction(f"a bid's value must be a whole number, not {value!r}")
        return Bid(value)
    if kind == "downtown":
        switch = wire.get("switch")
        if not isinstance(switch, bool):
            raise InvalidAction(f"downtown's switch must be true or false, not {switch!r}")
        return DowntownChoice(switch)
    c = parse_wire_card(wire.get("card"), "card")
    try:
        suit = None if wire.get("suit") is None else Suit.parse(wire.get("suit"))
    except CardCodeError as exc:
        raise InvalidAction(exc.message) from None
    if c not in DECK_SET:
        raise InvalidAction(f"{c.code} is not a card of the ONE deck")
    if suit is not None and c is not JOKER:
        raise InvalidAction("only the joker's play names a suit")
    return Play(c, suit)
