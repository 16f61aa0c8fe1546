"""Events and actions in words, filled in from the templates the host sends.

How it works: the host's ``games`` reply says how each event kind and action type of a game reads
(``spec/PROTOCOL.md`` section 3.5; kept in :data:`client.catalogue.CATALOGUE`). A template is
``None`` (no line), a string with ``{field}`` / ``{field:format}`` placeholders, a list of
templates said one after the other, or ``{"if": condition, "then": ..., "else": ...}``.
:func:`describe_event` and :func:`describe_action` fill one in with the event's (or action's)
fields: seat numbers become the players' names, card codes cards (``7♠``, red for hearts and
diamonds, the code itself in ASCII), suit letters symbols, through :mod:`client.render`. This
module knows no game: a kind or type the host did not word is shown generically, as its name
and fields (``bid: seat=1 value=9``, ``bid value=9``). A field may be a path into the map
(``auction.bidder``; on an array, a number or the name of a field holding one:
``scores.row``), which is how :mod:`client.table_view` fills the table a game declares.

Host text is never shown raw: the fields go through :func:`client.catalogue.host_data` first and
the templates were made safe when they were learnt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from client.catalogue import CATALOGUE, MISSING, Catalogue, host_data
from client.render import (
    Names,
    card_text,
    cards_text,
    follow_text,
    hand_label,
    name_seats,
    suit_text,
)
from protocol.text import safe_text

__all__ = ["describe_action", "describe_event", "fill", "fill_view", "fill_with"]

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_JOKERS = ("JR", "JB")


def _numbered(seat: object) -> str:
    return f"seat {seat}"


@dataclass(frozen=True, slots=True)
class _Context:
    """What a template is filled in with."""

    fields: Mapping[str, Any]  #: the event or action map, made safe
    names: Names = _numbered
    me: int | None = None
    ascii_only: bool = False
    game_no: int = 1
    game: str | None = None
    catalogue: Catalogue = CATALOGUE
    view: Mapping[str, Any] = field(default_factory=dict)  #: the seat's view (moves on offer)


def describe_event(
    event: Mapping[str, Any],
    names: Names,
    *,
    me: int | None = None,
    ascii_only: bool = False,
    game_no: int = 1,
    game: str | None = None,
    catalogue: Catalogue | None = None,
) -> Text | None:
    """One log line for an event, or None when the table display already shows it.

    ``names`` gives a seat's player name, ``me`` is our seat, ``game_no`` (the table's game,
    from 1) words the deal line after a rematch; ``game``, when known, picks that game's
    wording first.

    >>> c = Catalogue([{"name": "g", "events": {"bid": "{seat:name} bids {value}"}}])
    >>> describe_event({"kind": "bid", "seat": 1, "value": 9}, ["Ann", "Bob"].__getitem__,
    ...                catalogue=c).plain
    'Bob bids 9'
    >>> describe_event({"kind": "pass", "seat": 1}, ["Ann", "Bob"].__getitem__, catalogue=c).plain
    'pass: seat=1'
    """
    event = host_data(event)
    names = _safe_names(names)
    catalogue = CATALOGUE if catalogue is None else catalogue
    kind = event.get("kind")
    template = catalogue.event(str(kind), game)
    if template is MISSING:
        rest = " ".join(f"{k}={v}" for k, v in event.items() if k not in ("kind", "to"))
        return Text(f"{kind}: {rest}".strip())
    context = _Context(event, names, me, ascii_only, game_no, game, catalogue)
    return fill(template, context)


def describe_action(
    action: Mapping[str, Any],
    *,
    ascii_only: bool = False,
    view: Mapping[str, Any] | None = None,
    game: str | None = None,
    catalogue: Catalogue | None = None,
    names: Names = _numbered,
) -> Text:
    """An action in words (``play 7♠ naming ♥ hearts``, ``draw``, ``bid 9``); ``view``, the
    seat's view, lets a move on offer say what it takes (``draw 3 (take the attack)``).

    >>> c = Catalogue([{"name": "g", "actions": {"play": "play {cards:cards}"}}])
    >>> describe_action({"type": "play", "cards": ["7S"]}, ascii_only=True, catalogue=c).plain
    'play 7S'
    >>> describe_action({"type": "bid", "value": 9}, catalogue=c).plain
    'bid value=9'
    """
    action = host_data(action)
    catalogue = CATALOGUE if catalogue is None else catalogue
    kind = action.get("type")
    template = catalogue.action(str(kind), game)
    if template is MISSING:
        rest = [f"{k}={_plain(v)}" for k, v in action.items() if k != "type"]
        return Text(" ".join([str(kind), *rest]))
    context = _Context(action, names, None, ascii_only, 1, game, catalogue, view or {})
    return fill(template, context) or Text()


def fill_with(
    template: Any,
    fields: Mapping[str, Any],
    *,
    ascii_only: bool = False,
    game: str | None = None,
    catalogue: Catalogue | None = None,
) -> Text | None:
    """``template`` filled in with ``fields`` (already made safe), numbered seats for names:
    the game's ``guide`` paragraphs, whose fields are the seat's view (:mod:`client.help`)."""
    catalogue = CATALOGUE if catalogue is None else catalogue
    context = _Context(fields, _numbered, None, ascii_only, 1, game, catalogue, fields)
    return fill(template, context)


def fill(template: Any, context: _Context) -> Text | None:
    """``template`` filled in (see the module docstring); None when it says no line."""
    if template is None:
        return None
    if isinstance(template, str):
        return _fill_text(template, context)
    if isinstance(template, list):
        out = Text()
        for part in template:
            text = fill(part, context)
            if text is None:
                return None
            out.append_text(text)
        return out
    if isinstance(template, Mapping):
        holds = _holds(template.get("if"), context)
        return fill(template.get("then") if holds else template.get("else", ""), context)
    return Text(safe_text(str(template)))


def _value(name: str, context: _Context) -> Any:
    if name == "me":
        return context.me
    if name.startswith("view."):
        return host_data(context.view.get(name[5:]))
    head, *path = name.split(".")
    value = context.me if head == "me" else context.fields.get(head)
    for part in path:
        if isinstance(value, Mapping):
            value = value.get(part)
        elif isinstance(value, list):
            at = int(part) if part.isdigit() else _value(part, context)
            ok = isinstance(at, int) and not isinstance(at, bool) and 0 <= at < len(value)
            value = value[at] if ok else None
        else:
            return None
    return value


def _holds(condition: object, context: _Context) -> bool:
    """Whether every test of ``condition`` holds (an unknown test, or no map, does not)."""
    if not isinstance(condition, Mapping) or not condition:
        return False
    return all(_test(str(test), arg, context) for test, arg in condition.items())


def _test(test: str, arg: object, context: _Context) -> bool:
    """One test of a condition (``spec/PROTOCOL.md`` 3.5)."""
    if test == "is":
        if not isinstance(arg, Mapping):
            return False
        return all(
            _value(str(name), context) in (allowed if isinstance(allowed, list) else [allowed])
            for name, allowed in arg.items()
        )
    if test in ("same", "in"):
        if not isinstance(arg, list) or len(arg) != 2:
            return False
        first, second = (_value(str(name), context) for name in arg)
        if test == "same":
            return bool(first == second)
        return isinstance(second, list) and first in second
    value = _value(str(arg), context)
    if test == "some":
        return isinstance(value, list) and any(value)
    if test == "has":
        return value is not None
    if test == "true":
        return bool(value)
    if test == "false":
        return not value
    if test == "mine":
        return context.me is not None and value == context.me
    return False


def _fill_text(text: str, context: _Context) -> Text:
    out = Text()
    at = 0
    for match in _PLACEHOLDER.finditer(text):
        out.append(text[at : match.start()])
        at = match.end()
        if match.group(1) is None:
            out.append(match.group(0)[0])  # "{{" or "}}"
            continue
        name, _, form = match.group(1).partition(":")
        out.append_text(_format(_value(name.strip(), context), form.strip(), context))
    out.append(text[at:])
    return out


def _format(value: Any, form: str, context: _Context) -> Text:
    """One placeholder's value in its format (``spec/PROTOCOL.md`` 3.5)."""
    ascii_only = context.ascii_only
    codes = value if isinstance(value, list) else [value]
    if form == "name":
        return Text(context.names(value))
    if form in ("cards", "card_list"):
        return cards_text(codes, ascii_only=ascii_only, sep=" " if form == "cards" else ", ")
    if form == "played":
        return _played(codes, context.fields.get("declare"), ascii_only)
    if form in ("suit", "suit_name"):
        return suit_text(value, ascii_only=ascii_only, named=form == "suit_name")
    if form == "word":
        return Text(context.catalogue.word(str(value), context.game))
    if form == "seats":
        return Text(name_seats(str(value), context.names, context.me))
    if form == "by_seat":
        items = value if isinstance(value, list) else []
        return Text(", ".join(f"{context.names(i)} {v}" for i, v in enumerate(items)))
    if form == "hand":
        return Text(hand_label(value, context.game_no))
    if form == "follow":
        return follow_text(value, ascii_only=ascii_only, game=context.game or "") or Text()
    if form == "seat_cards":
        return _seat_cards(value, context)
    if form == "place":
        row = context.fields.get("row")
        return Text(str(value.index(row) + 1) if isinstance(value, list) and row in value else "")
    if form == "points":
        return Text(f"{value:>3} pt{' ' if value == 1 else 's'}" if _number(value) else str(value))
    if form == "action":
        if not isinstance(value, Mapping):
            return Text()
        return describe_action(
            value,
            ascii_only=ascii_only,
            game=context.game,
            catalogue=context.catalogue,
            names=context.names,
        )
    return Text(str(value))


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _seat_cards(value: object, context: _Context) -> Text:
    """An array of ``{seat, card}`` maps as ``NAME CARD, NAME CARD`` (a trick on the table)."""
    out = Text()
    for i, item in enumerate(value if isinstance(value, list) else []):
        if not isinstance(item, Mapping):
            continue
        if i:
            out.append(", ")
        out.append(context.names(item.get("seat")) + " ")
        out.append_text(card_text(str(item.get("card")), ascii_only=context.ascii_only))
    return out


def _played(codes: list[Any], declared: object, ascii_only: bool) -> Text:
    """The cards of a play, each joker followed by what it stands for: ``JR (as 4D) 5D``."""
    stand_ins = iter(declared if isinstance(declared, list) else [])
    out = Text()
    for i, code in enumerate(str(c) for c in codes):
        if i:
            out.append(" ")
        out.append_text(card_text(code, ascii_only=ascii_only))
        if code in _JOKERS:
            as_card = next(stand_ins, None)
            if as_card is not None:
                out.append(" (as ")
                out.append_text(card_text(str(as_card), ascii_only=ascii_only))
                out.append(")")
    return out


def _plain(value: object) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _safe_names(names: Names) -> Names:
    """``names`` with each name made safe to show."""
    return lambda seat: safe_text(str(names(seat)))


def fill_view(
    template: Any,
    view: Mapping[str, Any],
    names: Names,
    *,
    me: int | None = None,
    row: int | None = None,
    ascii_only: bool = False,
    game_no: int = 1,
    game: str | None = None,
    catalogue: Catalogue | None = None,
) -> Text | None:
    """``template`` filled in with a seat's ``view`` (made safe already): a line of the table
    a game declares, or with ``row`` (the seat of a seat's line) one of its columns or tags.

    >>> view = {"scores": [3, 1], "trick": {"cards": [{"seat": 1, "card": "9H"}]}}
    >>> fill_view("{trick.cards:seat_cards}, {scores.row:points}", view,
    ...           ["Ann", "Bob"].__getitem__, row=1, ascii_only=True).plain
    'Bob 9H,   1 pt '
    """
    catalogue = CATALOGUE if catalogue is None else catalogue
    fields = view if row is None else {**view, "row": row}
    context = _Context(fields, _safe_names(names), me, ascii_only, game_no, game, catalogue, view)
    return fill(template, context)
