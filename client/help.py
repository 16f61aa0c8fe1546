"""What ``?`` says at the table: the keys that work now, then the game's guide from the host.

How it works: :func:`help_lines` gives the lines ``?`` prints. The first says how to pick a
move, with only the letters and words the moves on offer have (:class:`client.choices.Menu`).
Then comes the game's *guide*, the host's paragraphs on the rules that matter, the scoring and
the keys (a ``guide`` list of templates in the ``games`` reply, ``spec/PROTOCOL.md`` 3.5,
filled in with the seat's view and the table's options, so a paragraph may speak of the phase
or of the target score of this table); a host that sends no guide gets its one-line ``help``.
Last, the commands that always work. The client knows no rule: everything about the game is
the host's text. ``onecard rules GAME`` prints the whole rules section (:mod:`client.rules_cmd`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from client.catalogue import CATALOGUE, Catalogue, host_data
from client.choices import Menu
from client.wording import fill_with

__all__ = ["COMMANDS_HELP", "help_lines", "help_text"]

#: the commands that are always there, for the help line
COMMANDS_HELP = (
    "Other commands: t shows the table again, say TEXT chats, ? this help, q leaves "
    "(onecard rules GAME prints all the rules)."
)


def help_text(menu: Menu, game: str = "") -> str:
    """The first ``?`` line: how to pick a move, with only the letters the host offers now.

    >>> help_text(Menu([]))[:60]
    'Type the number of a move or a card code (7S, 10H, QD, JR; 7'
    """
    bids = menu.bids()
    if bids:
        low, high = bids[0], bids[-1]
        text = (
            f"Type the number of a move: a bid is its own number, {low} to {high} (bid {low} too)"
        )
    else:
        text = "Type the number of a move or a card code (7S, 10H, QD, JR; 7♠ works too)"
    letters = menu.letters()
    if letters:
        text += ", or a letter: " + ", ".join(letters)
    words = menu.words()
    if words:  # a choice such as "1) stay uptown  2) switch to downtown"
        text += ", or a word of the move: " + ", ".join(words)
    return text + "."


def help_lines(
    menu: Menu,
    game: str,
    view: Mapping[str, Any] | None = None,
    *,
    ascii_only: bool = False,
    catalogue: Catalogue | None = None,
) -> list[Text]:
    """Every line ``?`` prints (see the module docstring), the guide filled in with ``view``.

    >>> house = Catalogue([{"name": "g", "help": "one line",
    ...                     "guide": ["First to {target} wins.", {"if": {"is": {"phase":
    ...                     "auction"}}, "then": "Bid or pass."}]}])
    >>> [t.plain for t in help_lines(Menu([]), "g", {"target": 30, "phase": "play"},
    ...                               catalogue=house)][1:-1]
    ['First to 30 wins.']
    """
    catalogue = CATALOGUE if catalogue is None else catalogue
    lines = [Text(help_text(menu, game))]
    view = host_data(dict(view or {}))
    options = view.get("options")
    fields = {**(options if isinstance(options, Mapping) else {}), **view}
    guide = catalogue.guide(game)
    for template in guide:
        filled = fill_with(template, fields, ascii_only=ascii_only, game=game, catalogue=catalogue)
        if filled is not None and filled.plain.strip():
            lines.append(filled)
    if not guide and catalogue.help(game):
        lines.append(Text(catalogue.help(game)))
    lines.append(Text(COMMANDS_HELP))
    return lines
