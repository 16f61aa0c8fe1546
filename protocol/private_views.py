"""What a seat may send on a private table: its view's sets met by the cards it opened.

How it works (normative text: ``spec/PROTOCOL.md`` 10.13 and 10.14). On a private table the
host does not know a seat's hand, so a seat's view has ``hand: null`` and, instead,
``positions`` (the seat's face-down positions), ``legal_sets`` (an ordered list of sets of
plays: the seat plays from the first set its hand meets), ``legal`` (actions that put no card
down) and ``unless_met`` (actions allowed only when the hand meets no set). The seat opened
each of its positions itself (:class:`~protocol.mask_seat.SeatMasker`), so it knows the card
at each. This module intersects the two, with no game rules at all: an action's cards are its
wire ``cards`` (or ``card``); a hand *holds* an action when it can give each of those cards
from a distinct position (a card listed twice needs two copies), taken only from the set's
``positions`` when the set names some. :func:`allowed` returns every action the seat may send
with the positions each play uses (whose keys travel in ``act.open``), :func:`default_move`
the turn timer's move, :func:`hand_of` the hand as cards in position order. Sans-I/O and pure;
a malformed view is a :class:`ViewError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Allowed",
    "Position",
    "ViewError",
    "action_cards",
    "allowed",
    "default_move",
    "first_met",
    "hand_of",
    "holds",
    "is_private_view",
    "unopened",
]

Position = tuple[int, int]
"""``(stream, pos)``: a position of a fair-deal stream (``[stream, pos]`` on the wire)."""


class ViewError(ValueError):
    """A private view whose ``positions``, ``legal_sets``, ``legal`` or ``unless_met`` is not
    of the form 10.13 gives."""


@dataclass(frozen=True, slots=True)
class Allowed:
    """One action the seat may send: its wire form and the positions it plays from (in the
    order of the action's cards; empty for an action that puts no card down)."""

    action: dict[str, Any]
    positions: tuple[Position, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "positions": [list(p) for p in self.positions]}


def is_private_view(view: Mapping[str, Any]) -> bool:
    """Whether ``view`` is a seat's view on a private table (``hand`` null, ``legal_sets``)."""
    return view.get("hand", 0) is None and "legal_sets" in view


def action_cards(action: Mapping[str, Any]) -> list[str]:
    """The card codes ``action`` puts down: its ``cards``, else its ``card``; ``[]`` if none."""
    cards = action.get("cards")
    if cards is None:
        card = action.get("card")
        return [] if card is None else [_code(card, "an action's card")]
    if not isinstance(cards, list | tuple):
        raise ViewError(f"an action's cards must be a list, not {cards!r}")
    return [_code(c, "an action's card") for c in cards]


def hand_of(view: Mapping[str, Any], opened: Mapping[Position, str]) -> list[str]:
    """The seat's cards in the order of its ``positions``; a position not opened yet (its
    ``sealed`` has not come) is left out (:func:`unopened` lists those)."""
    return [opened[p] for p in _positions(view.get("positions", []), "positions") if p in opened]


def unopened(view: Mapping[str, Any], opened: Mapping[Position, str]) -> list[Position]:
    """The view's positions whose cards the seat does not know yet."""
    return [p for p in _positions(view.get("positions", []), "positions") if p not in opened]


def holds(
    action: Mapping[str, Any],
    held: Sequence[tuple[Position, str]],
    only: Sequence[Position] | None = None,
) -> tuple[Position, ...] | None:
    """The positions a play of ``action`` uses from ``held`` (``(position, card)`` in hand
    order), each card from the earliest free position holding it (from ``only`` if given);
    None if the hand cannot give every card of the action. An action with no card: None."""
    cards = action_cards(action)
    if not cards:
        return None
    allowed_from = None if only is None else set(only)
    used: set[Position] = set()
    out: list[Position] = []
    for card in cards:
        for where, have in held:
            if (
                have == card
                and where not in used
                and (allowed_from is None or where in allowed_from)
            ):
                used.add(where)
                out.append(where)
                break
        else:
            return None
    return tuple(out)


def first_met(
    view: Mapping[str, Any], opened: Mapping[Position, str]
) -> tuple[int, list[Allowed]] | None:
    """The index of the first set of ``legal_sets`` the hand meets and the plays of it the hand
    holds (in the set's order), or None if it meets none."""
    held = _held(view, opened)
    sets = view.get("legal_sets", [])
    if not isinstance(sets, list | tuple):
        raise ViewError(f"legal_sets must be a list, not {sets!r}")
    for i, one in enumerate(sets):
        if not isinstance(one, Mapping):
            raise ViewError(f"legal_sets[{i}] must be a map with 'actions', not {one!r}")
        actions = _actions(one.get("actions"), f"legal_sets[{i}].actions")
        only = one.get("positions")
        limit = None if only is None else _positions(only, f"legal_sets[{i}].positions")
        plays = []
        for action in actions:
            used = holds(action, held, limit)
            if used is not None:
                plays.append(Allowed(dict(action), used))
        if plays:
            return i, plays
    return None


def allowed(view: Mapping[str, Any], opened: Mapping[Position, str]) -> list[Allowed]:
    """Every action the seat may send (10.13): the plays it holds of the first set its hand
    meets, then ``legal``, then ``unless_met`` if its hand meets no set."""
    met = first_met(view, opened)
    plays = [] if met is None else met[1]
    legal = [Allowed(dict(a)) for a in _actions(view.get("legal", []), "legal")]
    unless = _actions(view.get("unless_met", []), "unless_met")
    extra = [Allowed(dict(a)) for a in unless] if met is None else []
    return [*plays, *legal, *extra]


def default_move(view: Mapping[str, Any], opened: Mapping[Position, str]) -> Allowed | None:
    """The turn timer's move, the client's on a private table (10.13): the first play the hand
    holds of the first set it meets, else the first of ``unless_met`` (when no set is met),
    else the first of ``legal``; None when the seat may send nothing."""
    met = first_met(view, opened)
    if met is not None:
        return met[1][0]
    unless = _actions(view.get("unless_met", []), "unless_met")
    legal = _actions(view.get("legal", []), "legal")
    first = [*unless, *legal]
    return Allowed(dict(first[0])) if first else None


def _held(view: Mapping[str, Any], opened: Mapping[Position, str]) -> list[tuple[Position, str]]:
    return [
        (p, opened[p]) for p in _positions(view.get("positions", []), "positions") if p in opened
    ]


def _code(card: object, what: str) -> str:
    if not isinstance(card, str) or not card:
        raise ViewError(f"{what} must be a card code, not {card!r}")
    return card


def _positions(raw: object, what: str) -> list[Position]:
    if not isinstance(raw, list | tuple):
        raise ViewError(f"{what} must be a list of [stream, pos], not {raw!r}")
    out = []
    for item in raw:
        if (
            not isinstance(item, list | tuple)
            or len(item) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in item)
        ):
            raise ViewError(f"{what} holds {item!r}, not a [stream, pos] pair")
        out.append((int(item[0]), int(item[1])))
    return out


def _actions(raw: object, what: str) -> list[Mapping[str, Any]]:
    if not isinstance(raw, list | tuple):
        raise ViewError(f"{what} must be a list of actions, not {raw!r}")
    for item in raw:
        if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
            raise ViewError(f"{what} holds {item!r}, not an action map with a 'type'")
    return list(raw)
