"""``onecard rules GAME``: print a game's rules, from its section of ``spec/RULES.md``.

How it works: each game's section of the rules file (``## One Card (`one-card`)``) is in two
parts: the rules, for players, then a ``### Notes for implementers`` heading and everything a
program needs (sources, wire forms, events, measurements). :func:`rules_text` cuts the game's
section out of the file and keeps what comes before that heading, so what is for players is
chosen by the file's structure, not by sifting lines; the *Reason* that ends each rule's list
item is left out too unless ``--reasons`` asks for it. The rules file is the spec's
(:data:`protocol.spec_tables.SPEC_DIR`: inside the protocol package of an installed wheel, the
repository's ``spec/`` in an editable install). The text is Markdown, drawn by rich's
:class:`~rich.markdown.Markdown` for the terminal (styles, wrapped to its width); in a pipe the
same drawing comes out as plain text, without styles or trailing spaces. The games it knows are
the sections the rules file has (:func:`rules_games`): the client holds no list of games, and a
game added to the host's registry comes with its section (docs/ADDING-A-GAME.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import click
from rich.markdown import Markdown

from client.render import make_console
from protocol.exit_codes import ExitCode

__all__ = ["NOTES_HEADING", "rules_command", "rules_file", "rules_games", "rules_text"]

#: the heading in a game's section after which everything is for implementers
NOTES_HEADING = "### Notes for implementers"
#: a game's section heading: ``## One Card (`one-card`)``
_SECTION = re.compile(r"(?m)^## [^\n]*\(`([^`\n]+)`\)[ \t]*$")
_REASON = re.compile(r" *\*Reason\*:.*?(?=\n\s*\n|\n *- |\n#|\Z)", re.DOTALL)


def rules_file() -> Path:
    """Where the rules are: the spec's folder, in the wheel or in the repository."""
    from protocol.spec_tables import SPEC_DIR  # noqa: PLC0415 (only when the command runs)

    return SPEC_DIR / "RULES.md"


def rules_games(source: str) -> list[str]:
    """The games ``source`` (the rules file) has a section for, in its order.

    >>> rules_games("# rules\\n## Snap (`snap`)\\nIntro.\\n## Scenario files\\n## Go (`go`)\\n")
    ['snap', 'go']
    """
    return _SECTION.findall(source)


def rules_text(source: str, game: str, *, reasons: bool = False) -> str:
    """The players' part of ``game``'s section of ``source`` (the rules file).

    >>> text = ("# rules\\n## Snap (`snap`)\\nIntro.\\n### Play\\n- Say snap. *Reason*: fun.\\n"
    ...         "- Be quick.\\n### Notes for implementers\\n#### Wire forms\\n- `snap`\\n"
    ...         "### More notes\\n## Other (`other`)\\nNo.\\n")
    >>> print(rules_text(text, "snap"))
    ## Snap (`snap`)
    Intro.
    ### Play
    - Say snap.
    - Be quick.
    >>> rules_text(text, "nope")
    ''
    """
    sections = re.split(r"(?m)^(?=## )", source)
    found = next((s for s in sections if re.match(rf"## [^\n]*\(`{re.escape(game)}`\)", s)), "")
    players = re.split(rf"(?m)^{re.escape(NOTES_HEADING)}$", found, maxsplit=1)[0].strip()
    return players if reasons else _REASON.sub("", players)


@click.command("rules", short_help="Print a game's rules (from spec/RULES.md).")
@click.argument("game")
@click.option("--reasons", is_flag=True, help="Keep the reason given for each rule.")
def rules_command(game: str, reasons: bool) -> None:
    """Print the rules of GAME (a game the rules file has a section for: onecard play --help
    lists the games): the deck and the deal, turns, the special cards, scoring and the end,
    and the table options (``--option`` of ``onecard play``)."""
    try:
        source = rules_file().read_text(encoding="utf-8")
    except OSError as exc:
        click.echo(f"the rules file cannot be read: {exc}", err=True)
        raise SystemExit(ExitCode.DATA) from None
    games = rules_games(source)
    if game not in games:
        raise click.BadParameter(
            f"{game!r} is not one of {', '.join(map(repr, games))}", param_hint="'GAME'"
        )
    rules = Markdown(rules_text(source, game, reasons=reasons))
    console = make_console()
    if console.is_terminal:
        console.print(rules, soft_wrap=False)
        return
    with console.capture() as drawn:  # no terminal: no styles; rich pads lines to the width
        console.print(rules, soft_wrap=False)
    click.echo("\n".join(line.rstrip() for line in drawn.get().splitlines()))
