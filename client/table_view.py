"""The table as one seat sees it, drawn from the view fields the host declares for its game.

How it works: :func:`render_table` is a pure function from a game's ``view`` (and the seat
names) to a rich :class:`~rich.text.Text`, easy to snapshot. It draws a rule with the game's
title, then the game's ``table`` lines, then one line per seat: a marker for the seats to act,
the name, the cards held, the game's ``seat_columns`` (ONE's score) and in brackets ``you``,
whether the player is away, ``dealer`` (these from the view's core keys and ``table_info``)
and the game's ``seat_tags`` (``out #1``, ``bankrupt``). The lines, columns and tags are
templates over the view that the host sends in its ``games`` reply (``spec/PROTOCOL.md`` 3.5,
kept in :data:`client.catalogue.CATALOGUE`) and :func:`client.wording.fill_view` fills in: this
module reads no view key but the core keys every game has (``hand_counts``, ``to_act``,
``dealer``), so a game added to the host is drawn without a change here. A host that declares
no table for a game gets its view's other fields shown as they are (``name: value``).
Everything from the host is made safe to show first (:func:`client.catalogue.host_data`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text

from client.catalogue import CATALOGUE, Catalogue, host_data
from client.wording import fill_view
from protocol.text import safe_text
from protocol.views import VIEW_CORE_KEYS

__all__ = ["CORE_KEYS", "render_table"]

#: the keys every game's view has (spec/RULES.md conventions), drawn by this module itself
CORE_KEYS = frozenset(VIEW_CORE_KEYS)


def render_table(
    view: Mapping[str, Any],
    names: Sequence[str],
    *,
    me: int | None,
    to_act: Sequence[int] = (),
    ascii_only: bool = False,
    game_no: int = 1,
    width: int | None = None,
    presence: Sequence[object] = (),
    catalogue: Catalogue | None = None,
) -> Text:
    """The table as ``me`` sees it (no hand: :mod:`client.choices` draws it with the moves);
    ``game_no`` (the table's game, from 1) words a hand after a rematch; the rule at the top
    fits in ``width`` columns (the terminal's); ``presence``, the ``table_info`` seats, marks a
    seat whose player is away or played by the host.

    >>> top = render_table({"game": "snap"}, [], me=None, width=30).plain.splitlines()[0]
    >>> len(top), top[:10]
    (30, '── snap ──')
    >>> house = Catalogue([{"name": "snap", "table": ["Pile: {pile:cards}"],
    ...                     "seat_tags": [{"if": {"in": ["row", "snapped"]}, "then": "snap!"}]}])
    >>> print(render_table({"game": "snap", "pile": ["7S"], "hand_counts": [3, 2],
    ...                     "snapped": [1]}, ["Ann", "Bob"], me=0, ascii_only=True,
    ...                    catalogue=house).plain)
    -- snap ------------------------------------
    Pile: 7S
       Ann   3 cards  (you)
       Bob   2 cards  (snap!)
    <BLANKLINE>
    """
    catalogue = CATALOGUE if catalogue is None else catalogue
    view, names = host_data(view), [safe_text(str(name)) for name in names]
    game = str(view.get("game", ""))
    out = Text()
    title = catalogue.title(game)
    rule = "-" if ascii_only else "─"
    out.append(f"{rule * 2} {title} ", style="bold")
    length = 40 - len(title) if width is None else min(40, width) - 4 - len(title)
    out.append(rule * max(2, length) + "\n")
    described = catalogue.games.get(game)

    def fill(template: Any, row: int | None = None) -> Text | None:
        return fill_view(
            template,
            view,
            lambda seat: _name(names, seat),
            me=me,
            row=row,
            ascii_only=ascii_only,
            game_no=game_no,
            game=game,
            catalogue=catalogue,
        )

    if described is None or described.table is None:
        out.append_text(_undeclared(view))
    else:
        for line in described.table:
            stressed = isinstance(line, Mapping) and "strong" in line
            text = fill(line["strong"] if stressed else line)
            if text is not None and text.plain:
                out.append_text(text).append("\n")
                if stressed:
                    out.stylize("bold", len(out) - len(text) - 1, len(out) - 1)
    # a host's view is only "some map" on the wire: what is not a count or a seat is dropped
    counts = [_count(c) for c in _list(view.get("hand_counts"))]
    turn = list(to_act) or [s for s in _list(view.get("to_act")) if isinstance(s, int)]
    width_names = max((len(n) for n in names), default=4)
    for seat, count in enumerate(counts):
        marker = ">" if ascii_only else "▶"
        out.append(f" {marker} " if seat in turn else "   ", style="bold")
        out.append(f"{_name(names, seat):<{width_names}}", style="bold" if seat == me else "")
        out.append(f"  {count:>2} card{'s' if count != 1 else ' '}")
        for column in described.seat_columns if described is not None else ():
            text = fill(column, seat)
            if text is not None:
                out.append_text(text)
        tags = _core_tags(view, seat, me, presence)
        for tag in described.seat_tags if described is not None else ():
            text = fill(tag, seat)
            if text is not None and text.plain:
                tags.append(text.plain)
        if tags:
            out.append("  (" + ", ".join(tags) + ")")
        out.append("\n")
    return out


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _count(value: object) -> int:
    """A hand count as the host sent it, 0 if it is not a count (bool is not one)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _name(names: Sequence[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"seat {seat}"


def _core_tags(
    view: Mapping[str, Any], seat: int, me: int | None, presence: Sequence[object]
) -> list[str]:
    """The tags every game's seat line may have: ``you``, the player away, the dealer."""
    tags = []
    if seat == me:
        tags.append("you")
    held = presence[seat] if seat < len(presence) else None
    if isinstance(held, Mapping) and held.get("substitute"):
        tags.append("a bot plays")
    elif isinstance(held, Mapping) and isinstance(held.get("away_s"), int):
        tags.append(f"away: a bot plays in {held['away_s']} s")  # the host's grace left
    elif isinstance(held, Mapping) and held.get("connected") is False:
        tags.append("away")
    if view.get("dealer") == seat:
        tags.append("dealer")
    return tags


def _undeclared(view: Mapping[str, Any]) -> Text:
    """A view whose game declares no table: its fields beyond the core keys, as they are."""
    out = Text()
    for key, value in view.items():
        if key not in CORE_KEYS:
            out.append(f"{key}: {value}\n")
    return out
