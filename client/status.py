"""The table's status as one block of lines: the table, whose turn, the hand and the moves.

How it works: :func:`status_block` draws what a player needs between two events, from what the
client last heard (the seat's ``state``, the ``table_info``, the menu of moves): the table as
:func:`client.table_view.render_table` draws it (top card, what may follow, every seat with its
cards, connection and score, the turn marker), the player's hand and moves
(:meth:`client.choices.Menu.render`), a follow-up question's options, and one line saying whose
turn it is, with the seconds left when a turn timer runs. :class:`client.screen.Screen` keeps
it at the bottom of the terminal; the plain front end prints the same table on its turns. No
rule is known here: the words come from the host (the catalogue), the layout from the view.

:func:`grid` and :func:`common_prefix` lay out long lists of options (a run of several lengths,
a joker's declarations) in columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

import protocol.table_messages as tm
from client.choices import Choice, Menu
from client.table_view import render_table
from protocol.text import safe_text

__all__ = ["Status", "common_prefix", "counts_down", "grid", "status_block", "turn_line"]

#: rows kept free when a follow-up question lists its options; a longer list goes in columns
LIST_MARGIN = 6


@dataclass(slots=True)
class Status:
    """What the block is drawn from (the front end keeps it up to date)."""

    names: Sequence[str]
    seat: int | None
    table_id: str = ""
    state: tm.StatePush | None = None
    info: tm.TableInfo | None = None
    menu: Menu | None = None
    pending: Choice | None = None  #: a follow-up question's choice
    seconds_left: float | None = None  #: on the turn timer, when one runs
    over: bool = False  #: the game is over (its last state may still name a seat to act)
    info_age: float = 0.0  #: seconds since ``info`` came (an away seat's grace counts down)
    #: the connection is down: what is done about it (shown instead of whose turn it is)
    offline: str | None = None


def grid(items: list[Text], width: int, rows: int, gap: int = 3) -> Text:
    """``items`` down columns: the fewest columns that keep to ``rows`` lines, if they fit in
    ``width``; else as many columns as fit (at least one).

    >>> print(grid([Text(str(n)) for n in range(1, 8)], 20, 3).plain)
    1   4   7
    2   5
    3   6
    """
    n = len(items)

    def layout(cols: int) -> tuple[int, list[int]]:
        per = -(-n // cols)
        widths = [max(i.cell_len for i in items[c * per : (c + 1) * per]) for c in range(cols)]
        return per, widths

    def fits(cols: int) -> bool:
        widths = layout(cols)[1]
        return sum(widths) + gap * (len(widths) - 1) <= width

    shapes = [c for c in range(1, n + 1) if (c - 1) * -(-n // c) < n]  # no empty column
    fitting = [c for c in shapes if fits(c)]
    short = [c for c in fitting if -(-n // c) <= rows]
    cols = min(short) if short else max(fitting, default=1)
    per, widths = layout(cols)
    out = Text()
    for r in range(per):
        if r:
            out.append("\n")
        for c in range(cols):
            k = c * per + r
            if k >= n:
                break
            if c:
                out.append(" " * (gap + widths[c - 1] - items[k - per].cell_len))
            out.append_text(items[k])
    return out


def common_prefix(labels: list[Text]) -> int:
    """How many characters all ``labels`` start with, up to a word's end (0 for one label).

    >>> common_prefix([Text("play 6♦ 7♦"), Text("play 6♦ 7♦ 8♦"), Text("play 6♦")])
    5
    """
    if len(labels) < 2:
        return 0
    words = [label.plain.split(" ") for label in labels]
    shared = 0
    for column in zip(*words, strict=False):
        if len(set(column)) != 1:
            break
        shared += 1
    if shared == min(len(w) for w in words):  # a label all shared: keep its last word
        shared -= 1
    return sum(len(w) + 1 for w in words[0][:shared])


def options_text(choice: Choice, *, ascii_only: bool, width: int, rows: int) -> Text:
    """A follow-up question's numbered options: one per line, or in columns (the words all
    share said once) when there are more than ``rows``."""
    labels = choice.options(ascii_only=ascii_only)
    out = Text("Choose: ").append_text(choice.label).append("\n")
    if len(labels) <= max(4, rows):
        for i, label in enumerate(labels, 1):
            out.append_text(Text(f"  {i}) ").append_text(label)).append("\n")
        return out
    cut = common_prefix(labels)
    if cut:
        out.append_text(Text("Each option: ").append_text(labels[0][:cut]).append("...\n"))
    items = [Text(f"{i}) ").append_text(label[cut:]) for i, label in enumerate(labels, 1)]
    return out.append_text(grid(items, width, max(4, rows - (2 if cut else 1)))).append("\n")


def turn_line(status: Status) -> Text:
    """Whose turn it is, with the seconds left on the turn timer: ``▶ Your turn (12 s
    left)``, ``▶ Bob's turn``; or what the table waits for.

    >>> print(turn_line(Status(["Ann", "Bob"], 0)).plain)
    Waiting for the game to start
    >>> print(turn_line(Status(["Ann", "Bob"], 0, over=True)).plain)
    Game over
    >>> print(turn_line(Status(["Ann", "Bob"], 0, offline="connection lost")).plain)
    Disconnected: connection lost
    """
    if status.offline is not None:
        return Text(f"Disconnected: {safe_text(status.offline)}", style="bold red")
    state = status.state
    if status.over or (state is not None and state.phase == "finished"):
        return Text("Game over", style="bold")
    if state is None:
        return Text("Waiting for the game to start", style="dim")
    if state.phase == "dealing" or not state.to_act:
        return Text("Dealing: the fair-deal round runs", style="dim")
    mine = status.seat is not None and status.seat in state.to_act
    who = [_name(status.names, s) for s in state.to_act if s != status.seat]
    if mine:
        words = "Your turn" + (f" (and {', '.join(who)}'s)" if who else "")
    elif len(who) == 1:
        words = f"{who[0]}'s turn"
    else:
        words = f"{' and '.join(who)} to act"
    left = status.seconds_left
    if left is not None:
        words += f" ({max(0, round(left))} s left)"
    return Text(f"▶ {words}", style="bold reverse" if mine else "bold")


def _name(names: Sequence[str], seat: int) -> str:
    if 0 <= seat < len(names) and names[seat]:
        return safe_text(str(names[seat]))
    return f"seat {seat}"


def status_block(status: Status, *, ascii_only: bool, width: int, height: int = 24) -> Text:
    """The whole block (see the module docstring), in ``width`` columns."""
    out = Text()
    state = status.state
    if state is None:
        out.append_text(_seating(status)).append("\n")
        return out.append_text(turn_line(status))
    seats = _seats_now(status.info, status.info_age) if status.info is not None else ()
    if status.over:  # the last state is from before the last move: the outcome above says
        return turn_line(status)  # how it ended, a table would show stale scores and cards
    view, to_act, menu = state.view, state.to_act, status.menu
    table = render_table(
        view,
        status.names,
        me=state.seat,
        to_act=to_act,
        ascii_only=ascii_only,
        game_no=state.game_no,
        width=width,
        presence=seats,
    )
    out.append_text(table)
    if menu is not None and (menu.hand or menu.choices) and status.offline is None:
        mine = status.seat is not None and status.seat in to_act
        out.append_text(menu.render(ascii_only=ascii_only, width=width, dim=mine))
    if status.pending is not None:
        rows = height - LIST_MARGIN - len(out.plain.splitlines())
        out.append_text(options_text(status.pending, ascii_only=ascii_only, width=width, rows=rows))
    return out.append_text(turn_line(status))


def counts_down(info: tm.TableInfo | None) -> bool:
    """Whether a seat of ``info`` has a grace period counting down (the block then changes
    every second)."""
    return info is not None and any(isinstance(s, Mapping) and "away_ms" in s for s in info.seats)


def _seats_now(info: tm.TableInfo, age: float) -> list[Any]:
    """``info``'s seats, an away player's ``away_ms`` turned into ``away_s``, the seconds left
    now (``age`` seconds after ``info`` came).

    >>> info = tm.TableInfo(table="t1", name="t", game="g", options={}, phase="playing",
    ...     seats=(None, {"seat": 1, "away_ms": 30000}), game_no=1, spectators=0,
    ...     turn_timer=None, voids=0)
    >>> _seats_now(info, 12.4)[1]["away_s"]
    18
    """
    out: list[Any] = []
    for seat in info.seats:
        ms = seat.get("away_ms") if isinstance(seat, Mapping) else None
        if isinstance(ms, int) and not isinstance(ms, bool) and isinstance(seat, Mapping):
            out.append({**seat, "away_s": max(0, round(ms / 1000 - age))})
        else:
            out.append(seat)
    return out


def _seating(status: Status) -> Text:
    """Before a game: who sits where (``Seats at t1: Ann, Bob (not ready), (empty)``)."""
    info = status.info
    if info is None:
        return Text(f"Table {safe_text(status.table_id)}")
    names = [
        "(empty)"
        if s is None
        else safe_text(str(s.get("name"))) + ("" if s.get("ready") else " (not ready)")
        for s in info.seats
    ]
    return Text(f"Seats at {safe_text(info.name)}: {', '.join(names)}")
