"""``onecard rules GAME``: print a game's rules, from its section of ``spec/RULES.md``.

How it works: :func:`rules_text` cuts the game's section (``## One Card (`one-card`)``) out of
the rules file and leaves out what only implementers need: the subsections on the wire forms
and translation notes, and the *Reason* notes that follow each rule (``--reasons`` keeps them).
The rules file is the spec's (:data:`protocol.spec_tables.SPEC_DIR`: inside the protocol package
of an installed wheel, the repository's ``spec/`` in an editable install). On a terminal the
text is drawn as Markdown, wrapped to the terminal's width; in a pipe it is printed as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
from rich.markdown import Markdown

from client.render import make_console
from protocol.exit_codes import ExitCode

__all__ = ["GAMES", "rules_command", "rules_file", "rules_text"]

#: the games the rules file describes (their section headings name them)
GAMES = ("one-card", "one", "black-jack")
#: subsections for implementers, left out of a player's rules
_LEFT_OUT = ("Wire forms", "Translation notes", "Actions, events and the view")
_REASON = re.compile(r" *\*Reason\*:.*?(?=\n\s*\n|\n *- |\n#|\Z)", re.DOTALL)


def rules_file() -> Path:
    """Where the rules are: the spec's folder, in the wheel or in the repository."""
    from protocol.spec_tables import SPEC_DIR  # noqa: PLC0415 (only when the command runs)

    return SPEC_DIR / "RULES.md"


def rules_text(source: str, game: str, *, reasons: bool = False) -> str:
    """The section of ``source`` (the rules file) for ``game``, for players.

    >>> text = ("# rules\\n## Snap (`snap`)\\nIntro.\\n### Play\\n- Say snap. *Reason*: fun.\\n"
    ...         "- Be quick.\\n### Wire forms\\n- `snap`\\n## Other (`other`)\\nNo.\\n")
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
    parts = re.split(r"(?m)^(?=### )", found)
    kept = [p for p in parts if not p.startswith(tuple(f"### {t}" for t in _LEFT_OUT))]
    text = "".join(kept).strip()
    return text if reasons else _REASON.sub("", text)


@click.command("rules", short_help="Print a game's rules (from spec/RULES.md).")
@click.argument("game", type=click.Choice(GAMES))
@click.option("--reasons", is_flag=True, help="Keep the reason given for each rule.")
def rules_command(game: str, reasons: bool) -> None:
    """Print the rules of GAME: the deck and the deal, turns, the special cards, scoring and
    the end, and the table options (``--option`` of ``onecard play``)."""
    try:
        source = rules_file().read_text(encoding="utf-8")
    except OSError as exc:
        click.echo(f"the rules file cannot be read: {exc}", err=True)
        raise SystemExit(ExitCode.DATA) from None
    text = rules_text(source, game, reasons=reasons)
    console = make_console()
    if console.is_terminal:
        console.print(Markdown(text))
    else:
        click.echo(text)
