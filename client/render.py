"""Rendering with rich: cards, the table as this seat sees it, outcomes.

How it works: everything here is a pure function from what the host sent (a game's ``view``,
an outcome) plus the seat names to a rich :class:`~rich.text.Text`, so it is
easy to snapshot (``Console(record=True, width=80)``) and never decides anything about the
rules. Cards are wire codes (``7S``, ``10H``, ``JR``) shown as ``7♠``; hearts and diamonds are
red, spades and clubs use the terminal's default foreground (never hard-coded black), and with
``ascii`` the wire code itself is shown. Colour is off when the output is not a terminal or
``NO_COLOR`` is set: rich's :class:`~rich.console.Console` already decides that, see
:func:`make_console`. When the reader of our output goes away (``onecard ... | head -2``), the
console raises :class:`OutputClosed` instead of rich's ``SystemExit`` (which trio would wrap
in a group and print as a traceback); ``client.cli.main`` ends the program quietly on it.

Host text is never shown raw: every string these functions take from the host (names, view
fields, reasons) goes through :func:`protocol.text.safe_text` first (:func:`host_data` for whole
maps), so an ESC sequence, a bidi override or a newline in it is shown escaped (``\\x1b``),
never acted on by the terminal; rich markup in it is never parsed (``markup=False``, and text
goes into :class:`~rich.text.Text` as plain text). The console of
:func:`make_console` escapes, as a last line of defence, any control character that still
reaches it other than the line breaks it lays out itself.

No game is named here: the table is drawn by :mod:`client.table_view` from the view fields the
host declares, the hand with its numbered legal moves by :mod:`client.choices`, and events and
actions are worded by :mod:`client.wording`, all with the pieces here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from client.catalogue import CATALOGUE, host_data
from protocol.text import safe_text

__all__ = [
    "GAME_TITLES",
    "SUIT_NAMES",
    "Names",
    "OutputClosed",
    "card_text",
    "cards_in_text",
    "cards_text",
    "follow_text",
    "hand_label",
    "host_data",
    "make_console",
    "name_seats",
    "render_outcome",
    "suit_text",
]

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RED = "red"
GAME_TITLES = CATALOGUE.titles
"""Each game's title as the host gave it (a live view of :data:`client.catalogue.CATALOGUE`)."""

Names = Callable[[object], str]


class OutputClosed(Exception):
    """Our output's reader went away (a broken pipe): nothing more can be shown.

    Deliberately not an ``OSError``, so that it is never mistaken for a network error.
    """


class _Console(Console):
    def on_broken_pipe(self) -> None:
        self.quiet = True  # rich's own handler exits the process; we let the caller decide
        raise OutputClosed("the output was closed")

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        """Rich's segments, any control character in their text escaped but line breaks (the
        callers escape host text themselves; this catches what slips past them)."""
        for segment in super().render(renderable, options):
            text = segment.text
            if segment.control or text.isprintable() or text == "\n":
                yield segment
            else:
                shown = "\n".join(safe_text(line) for line in text.split("\n"))
                yield Segment(shown, segment.style)


def make_console(*, ascii_only: bool = False, file: IO[str] | None = None) -> Console:
    """A console for the game: no markup surprises, colour only on a terminal, NO_COLOR obeyed.

    A broken pipe raises :class:`OutputClosed`.
    """
    return _Console(
        file=file,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=True,  # long lines (fingerprints) wrap in the terminal, not mid-token
        safe_box=ascii_only,
    )


def _safe_names(names: Names) -> Names:
    """``names`` with each name made safe to show."""
    return lambda seat: safe_text(str(names(seat)))


def _safe_name_list(names: Sequence[object]) -> list[str]:
    return [safe_text(str(name)) for name in names]


# --------------------------------------------------------------------------- cards


def card_text(code: str, *, ascii_only: bool = False, dim: bool = False) -> Text:
    """One card: ``7♠`` (``7S`` in ASCII), red for hearts, diamonds and the red joker.

    >>> card_text("10H").plain, card_text("10H", ascii_only=True).plain, card_text("JB").plain
    ('10♥', '10H', 'Joker(B)')
    """
    code = safe_text(code)  # a host's card code is shown, never acted on
    if code in ("JR", "JB"):
        label = code if ascii_only else ("Joker(R)" if code == "JR" else "Joker(B)")
        style = RED if code == "JR" else ""
    else:
        rank, suit = code[:-1], code[-1:]
        label = code if ascii_only else rank + SUIT_SYMBOLS.get(suit, suit)
        style = RED if suit in ("H", "D") else ""
    if dim:
        style = f"{style} dim".strip()
    return Text(label, style=style)


_CARD_CODE = re.compile(r"\b(?:10|[2-9AKQJ])[SHDC]\b|\bJ[RB]\b")


def cards_in_text(text: str, *, ascii_only: bool = False) -> Text:
    """``text`` (made safe) with every card code in it shown as the table shows cards, so a
    refusal reads ``10♠ matches neither ... of Q♥`` beside a hand of 10♠ and Q♥.

    >>> print(cards_in_text("10S matches neither the suit nor the rank of QH (JR, 9C)").plain)
    10♠ matches neither the suit nor the rank of Q♥ (Joker(R), 9♣)
    """
    text, out, at = safe_text(text), Text(), 0
    for found in _CARD_CODE.finditer(text):
        out.append(text[at : found.start()])
        out.append_text(card_text(found.group(), ascii_only=ascii_only))
        at = found.end()
    return out.append(text[at:])


def cards_text(codes: Sequence[object], *, ascii_only: bool = False, sep: str = " ") -> Text:
    """Several cards separated by ``sep``."""
    out = Text()
    for i, code in enumerate(codes):
        if i:
            out.append(sep)
        out.append_text(card_text(str(code), ascii_only=ascii_only))
    return out


def suit_text(suit: object, *, ascii_only: bool = False, named: bool = False) -> Text:
    """A suit letter as ``♥`` (``H``), optionally followed by its name."""
    s = safe_text(str(suit))
    label = s if ascii_only else SUIT_SYMBOLS.get(s, s)
    if named:
        label += " " + SUIT_NAMES.get(s, s)
    return Text(label, style=RED if s in ("H", "D") else "")


# --------------------------------------------------------------------------- events


def hand_label(hand_no: object, game_no: int = 1) -> str:
    """A hand as the game counts it: ``Hand 3``, or ``Game 2, hand 1`` after a rematch.

    The fairness verdicts and hand records number every hand dealt at the table instead
    (``table hand 4``): see :mod:`client.human_ui`.

    >>> hand_label(3), hand_label(1, game_no=2)
    ('Hand 3', 'Game 2, hand 1')
    """
    return f"Game {game_no}, hand {hand_no}" if game_no > 1 else f"Hand {hand_no}"


_SEAT = re.compile(r"\bseat (\d+)('s)?")


def name_seats(text: str, names: Names, me: int | None = None) -> str:
    """Host wording with players' names for its seat numbers (the host's reasons name seats:
    "it is seat 1's turn"); our own seat becomes "you"/"your"/"yours".

    >>> name_seats("it is seat 1's turn, not seat 0's", ["Ann", "Bob"].__getitem__, me=0)
    "it is Bob's turn, not yours"
    >>> name_seats("too late: seat 1 already called", ["Ann", "Bob"].__getitem__)
    'too late: Bob already called'
    """
    text, names = safe_text(text), _safe_names(names)

    def one(m: re.Match[str]) -> str:
        seat, possessive = int(m.group(1)), m.group(2)
        if seat != me:
            return names(seat) + (possessive or "")
        if not possessive:
            return "you"
        after = text[m.end() :]
        return "your" if after[:1] == " " and after[1:2].isalpha() else "yours"

    return _SEAT.sub(one, text)


# --------------------------------------------------------------------------- the table


def follow_text(follow: object, *, ascii_only: bool = False, game: str = "") -> Text | None:
    """What may be played on the top card, from a view's ``follow`` (the host's sets of suits,
    ranks and cards): ``any ♥, any 9 or Joker(R)``; ``any card`` when every suit plays; None
    when the view has none. A ``follow`` with ``only`` (One Card's ``drawn``: after taking an
    attack) opens with the host's words for it: ``only a card just drawn: 5♦``.

    >>> follow_text({"suits": ["H"], "ranks": ["9"], "cards": ["JR"]}).plain
    'any ♥, any 9 or Joker(R)'
    >>> follow_text({"suits": ["S", "H", "D", "C"], "ranks": [], "cards": ["JR"]}).plain
    'any card'
    >>> follow_text({"suits": ["C"], "ranks": [], "cards": []}, ascii_only=True).plain
    'any clubs'
    """
    if not isinstance(follow, Mapping):
        return None
    only = follow.get("only")
    if isinstance(only, str) and only:
        words = safe_text(CATALOGUE.word(only, game))  # (the value itself from a silent host)
        sets = _follow_sets(follow, ascii_only)
        return Text(f"{words}: ").append_text(sets if sets.plain != "nothing" else Text("none"))
    return _follow_sets(follow, ascii_only)


def _follow_sets(follow: Mapping[str, Any], ascii_only: bool) -> Text:
    suits, ranks, cards = (follow.get(k) for k in ("suits", "ranks", "cards"))
    suits = suits if isinstance(suits, list) else []
    if len(suits) >= len(SUIT_SYMBOLS):
        return Text("any card")
    parts: list[Text] = []
    for suit in suits:
        name = SUIT_NAMES.get(str(suit), safe_text(str(suit)))
        label = Text(name) if ascii_only else suit_text(suit, ascii_only=False)
        parts.append(Text("any ").append_text(label))
    for rank in ranks if isinstance(ranks, list) else []:
        parts.append(Text(f"any {safe_text(str(rank))}"))
    for code in cards if isinstance(cards, list) else []:
        parts.append(card_text(str(code), ascii_only=ascii_only))
    if not parts:
        return Text("nothing")
    out = Text()
    for i, part in enumerate(parts):
        if i:
            out.append(" or " if i == len(parts) - 1 else ", ")
        out.append_text(part)
    return out


def _name(names: Sequence[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"seat {seat}"


# --------------------------------------------------------------------------- outcome


def render_outcome(
    outcome: Mapping[str, Any],
    names: Sequence[str],
    cards_left: Sequence[int] | None = None,
    *,
    game: str | None = None,
) -> Text:
    """``Bob wins!`` and why the game ended (in the host's words for the ``termination``, of
    ``game`` when known; the value itself when the host gave none), with the ranking or scores
    when the game has them, and for a shedding game the cards each seat was left holding
    (``cards_left``, by seat, when known; a negative count marks a One Card seat that went
    bankrupt). On a private table the seats the end-of-hand audit caught (``forfeited``,
    PROTOCOL.md 10.13) are named on a line of their own.

    >>> print(render_outcome({"winners": [1], "scores": None}, ["Ann", "Bob"], [3, 0]).plain)
    Bob wins! Cards left: Ann 3, Bob 0
    >>> print(render_outcome({"winners": [1], "forfeited": [0]}, ["Ann", "Bob"]).plain)
    Bob wins!
    Forfeited (the audit caught an illegal move): Ann
    """
    outcome, names = host_data(outcome), _safe_name_list(names)
    winners = [_name(names, w) for w in outcome.get("winners") or []]
    out = Text()
    if not winners:
        out.append("Game over: nobody wins", style="bold")
    else:
        verb = "wins" if len(winners) == 1 else "win"
        out.append(f"{' and '.join(winners)} {verb}!", style="bold")
    termination = outcome.get("termination")
    if isinstance(termination, str) and termination:
        out.append(f" ({CATALOGUE.ending(termination, game) or termination})")
    scores = outcome.get("scores")
    if cards_left and not (isinstance(scores, list) and scores):
        left = ", ".join(
            f"{_name(names, i)} {n if n >= 0 else 'bankrupt'}" for i, n in enumerate(cards_left)
        )
        out.append(f" Cards left: {left}")
    ranking = outcome.get("ranking")
    if isinstance(ranking, list) and ranking:
        out.append("\nFinishing order: " + ", ".join(_name(names, s) for s in ranking))
    if isinstance(scores, list) and scores:
        out.append("\nScores: " + ", ".join(f"{_name(names, i)} {s}" for i, s in enumerate(scores)))
    forfeited = outcome.get("forfeited")
    if isinstance(forfeited, list) and forfeited:
        who = ", ".join(_name(names, s) for s in forfeited)
        out.append("\nForfeited (the audit caught an illegal move): ", style="bold red")
        out.append(who, style="bold red")
    return out
