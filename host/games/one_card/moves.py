"""One Card's moves: the actions a seat sends, their wire forms, and which cards play on which.

How it works: :class:`Play`, :class:`Draw` and :class:`Call` are frozen value objects;
:func:`parse_one_card_action` turns a wire map into one (raising :class:`InvalidAction` for a
malformed map). Legality is table-driven: :func:`follow_set` and :func:`defend_set` give the
frozenset of cards that may be played on a top card and suit, built once per key, and
:func:`plays_from` lists the plays a pool of cards allows (one card, or with ``multi_play``
every ordering of a same-rank group whose first card is allowed). The rules are in
``spec/RULES.md``, section One Card; the engine is :mod:`host.games.one_card.engine`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from host.games.base import Action, InvalidAction, WireMap, parse_wire_card
from host.games.one_card.rules import ATTACKERS, WILD
from protocol.cards import DECK_54, Card, CardCodeError, Rank, Suit

__all__ = [
    "CALL",
    "DRAW",
    "PLAYS_OF",
    "Call",
    "Draw",
    "Play",
    "check_suit_field",
    "defend_set",
    "follow_set",
    "parse_one_card_action",
    "plays_from",
]

# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play ``cards`` (first card on the top card; several only with ``multi_play``).

    ``suit`` is required when the cards are sevens (the suit they name) and forbidden otherwise.
    """

    cards: tuple[Card, ...]
    suit: Suit | None = None

    def to_wire(self) -> WireMap:
        wire: WireMap = {"type": "play", "cards": [c.code for c in self.cards]}
        if self.suit is not None:
            wire["suit"] = self.suit.value
        return wire


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw one card (ends the turn), or the whole pending attack damage."""

    def to_wire(self) -> WireMap:
        return {"type": "draw"}


@dataclass(frozen=True, slots=True)
class Call(Action):
    """Call "One Card!" while a call window is open (any seat, out of turn)."""

    def to_wire(self) -> WireMap:
        return {"type": "call"}


DRAW = Draw()
CALL = Call()


def parse_one_card_action(wire: object) -> Action:
    """The action for a wire map; raise :class:`InvalidAction` if it is malformed."""
    if not isinstance(wire, dict):
        raise InvalidAction(f"an action must be a map, not {type(wire).__name__}")
    kind = wire.get("type")
    if kind in ("draw", "call"):
        if len(wire) != 1:
            extra = sorted(str(k) for k in wire if k != "type")
            raise InvalidAction(f"{kind} takes no fields, got {', '.join(map(str, extra))}")
        return DRAW if kind == "draw" else CALL
    if kind != "play":
        raise InvalidAction(f"unknown action type {kind!r} (play, draw, call)")
    extra = sorted(str(k) for k in wire if k not in ("type", "cards", "suit"))
    if extra:
        raise InvalidAction(f"unknown field {extra[0]!r} in play (cards, suit)")
    codes = wire.get("cards")
    if not isinstance(codes, list) or not codes:
        raise InvalidAction("play needs a non-empty list of card codes in 'cards'")
    if len(codes) > len(DECK_54):
        raise InvalidAction("too many cards")
    cards = tuple(parse_wire_card(code) for code in codes)
    try:
        raw_suit = wire.get("suit")
        suit = None if raw_suit is None else Suit.parse(raw_suit)
    except CardCodeError as exc:
        raise InvalidAction(exc.message) from None
    if len(set(cards)) != len(cards):
        raise InvalidAction("a card is listed twice")
    check_suit_field(cards, suit)
    return Play(cards, suit)


def check_suit_field(cards: Sequence[Card], suit: Suit | None) -> None:
    if cards[0].rank is WILD and suit is None:
        raise InvalidAction("a seven is wild: name the next suit in 'suit' (S, H, D or C)")
    if cards[0].rank is not WILD and suit is not None:
        raise InvalidAction("only sevens name a suit")


# --------------------------------------------------------------------------- card tables

_PLAY1 = {c: Play((c,)) for c in DECK_54 if c.rank is not WILD}
_PLAY7 = {c: tuple(Play((c,), s) for s in Suit) for c in DECK_54 if c.rank is WILD}
PLAYS_OF: dict[Card, tuple[Play, ...]] = {**{c: (p,) for c, p in _PLAY1.items()}, **_PLAY7}
_FOLLOW: dict[tuple[Card, Suit | None], frozenset[Card]] = {}
_DEFEND: dict[tuple[Card, Suit | None], frozenset[Card]] = {}


def _follows(c: Card, top: Card, suit: Suit | None) -> bool:
    """Whether ``c`` plays on ``top`` (current suit ``suit``) with no attack pending."""
    if c.rank is WILD:
        return True
    if top.is_joker:
        return c.is_joker or c.color is top.color
    if c.is_joker:
        return suit is not None and c.color is suit.color
    return c.suit is suit or c.rank is top.rank


def follow_set(top: Card, suit: Suit | None) -> frozenset[Card]:
    """The cards that may be played on ``top`` when the suit to match is ``suit``."""
    key = (top, suit)
    found = _FOLLOW.get(key)
    if found is None:
        found = _FOLLOW[key] = frozenset(c for c in DECK_54 if _follows(c, top, suit))
    return found


def defend_set(top: Card, suit: Suit | None) -> frozenset[Card]:
    """``defence=match``: the attack cards legal on ``top`` (suit, rank or joker colour)."""
    key = (top, suit)
    found = _DEFEND.get(key)
    if found is None:
        found = _DEFEND[key] = follow_set(top, suit) & ATTACKERS
    return found


def plays_from(pool: Iterable[Card], allowed: frozenset[Card], *, multi: bool) -> list[Action]:
    """Every play of cards from ``pool`` whose first card is in ``allowed``, in pool order.

    Without ``multi`` (option ``multi_play``) a play is one card (a seven once per suit it may
    name); with it, every ordering of every same-rank group whose first card is allowed.
    """
    out: list[Action] = []
    if not multi:
        plays_of = PLAYS_OF
        for c in pool:
            if c in allowed:
                out += plays_of[c]
        return out
    by_rank: dict[Rank, list[Card]] = {}
    for c in pool:
        by_rank.setdefault(c.rank, []).append(c)
    for group in by_rank.values():
        if not any(c in allowed for c in group):
            continue
        for k in range(1, len(group) + 1):
            for perm in itertools.permutations(group, k):
                if perm[0] in allowed:
                    if perm[0].rank is WILD:
                        out.extend(Play(perm, s) for s in Suit)
                    else:
                        out.append(Play(perm))
    return out
