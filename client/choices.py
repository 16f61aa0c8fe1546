"""Numbered choices built from the host's list of legal actions, and parsing what the user types.

How it works: the client never works out what is legal; the host's ``state.legal`` list is the
whole truth. :func:`build_menu` groups those actions for a person:

* actions that put down a card (``{"type": "play", "cards": [...]}`` or ``"card": ...``) are
  grouped by their first card; those cards get numbers 1, 2, ... in the order of the hand, and
  the hand's other cards are shown dimmed without a number. The hand is shown in canonical
  order (:func:`canonical_hand`): a normal table's view gives it so, but a private table's
  state lists our cards in the order of their positions, which is the shuffle's;
* the other actions get the letter the host gives their type in this game (One Card's ``d``
  draw and ``c`` "One Card!", ONE's ``p`` pass: ``keys`` of the ``games`` reply, kept in
  :data:`client.catalogue.CATALOGUE`); a bid is keyed by its own value (``9) bid 9``), so the
  number a bidder types is the bid, never a menu position; the rest continue the numbering
  (the downtown question). A number is never both a position and a value: cards are numbered
  by position, but a card typed by itself needs its suit (``9H``).

A choice holding several actions (a seven with a suit to name, a run of several lengths, a
joker's declarations, an ace's suit) asks a follow-up question with numbered options: see
:meth:`Choice.options`. :meth:`Menu.resolve` accepts a number, a letter, a card code (``7S``,
``7♠``, ``10h``) or a word found in one move's label only (``uptown`` for ``1) stay uptown``)
and answers with the choice or with one line saying what was wrong; a letter with no move now
gets the host's line for it (``you cannot draw now``, ``ONE has no calls to make``). Labels are
worded by :mod:`client.wording`, and :data:`GAME_HELP` gives each game's ``?`` help line, both
from what the host said. Whatever the host's lists hold is shown made safe
(:func:`protocol.text.safe_text`: card codes through :mod:`client.render`, actions through
:mod:`client.wording`, bids and counts here); the actions themselves are sent back as the host
listed them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from client.catalogue import CATALOGUE, Catalogue
from client.render import SUIT_SYMBOLS, card_text
from client.wording import describe_action
from protocol.cards import CardCodeError, parse_card
from protocol.text import safe_text

__all__ = [
    "GAME_HELP",
    "Choice",
    "Menu",
    "StrayBids",
    "build_menu",
    "clip",
    "flow",
    "normalise_card",
]

GAME_HELP = CATALOGUE.helps
"""Each game's ``?`` help line as the host gave it (a live view of the catalogue)."""
_SYMBOL_TO_LETTER = {v: k for k, v in SUIT_SYMBOLS.items()}
_RANKS = frozenset({"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"})


@dataclass(slots=True)
class Choice:
    """One thing the user can pick: a key, a label and the legal action(s) behind it."""

    key: str
    label: Text
    actions: list[dict[str, Any]]
    card: str | None = None
    game: str = ""  #: the view's game, for wording only
    catalogue: Catalogue = field(default=CATALOGUE, repr=False, compare=False)

    def options(self, *, ascii_only: bool = False) -> list[Text]:
        """Labels of the follow-up options when this choice holds several actions."""
        return [
            describe_action(a, ascii_only=ascii_only, game=self.game, catalogue=self.catalogue)
            for a in self.actions
        ]


@dataclass(slots=True)
class Menu:
    """The choices for one ``state`` and the hand to draw with them."""

    choices: list[Choice]
    hand: list[str] = field(default_factory=list)
    game: str = ""  #: the view's game, for wording only
    catalogue: Catalogue = field(default=CATALOGUE, repr=False, compare=False)

    def __bool__(self) -> bool:
        return bool(self.choices)

    def by_key(self, key: str) -> Choice | None:
        return next((c for c in self.choices if c.key == key), None)

    def calls(self, view: Mapping[str, Any]) -> tuple[list[Choice], str | None]:
        """The moves a seat may make out of its turn (a call, a declaration), and a key for
        this offer in the view's window (None: none on offer): a hint is said once a key, so
        the same call offered again in another player's window is said again."""
        out_of_turn = self.catalogue.calls(self.game or None)  # the host's ``calls``
        calls = [c for c in self.choices if c.actions[0].get("type") in out_of_turn]
        window = view.get("call_window") or view.get("declare_window")
        key = json.dumps([[c.actions for c in calls], window], sort_keys=True)
        return calls, key if calls else None

    def resolve(self, text: str) -> Choice | str:
        """The choice the user meant by ``text``, or an error line to show.

        >>> house = Catalogue([{"name": "g", "actions": {"draw": "draw"}, "keys": {
        ...     "draw": {"key": "d", "none": "you cannot draw now"},
        ...     "call": {"key": "c", "none": "no call to make now"}}}])
        >>> m = build_menu({"hand": ["7S", "9H"]}, [{"type": "play", "cards": ["9H"]},
        ...                                          {"type": "draw"}], catalogue=house)
        >>> m.resolve("1").key, m.resolve("9h").key, m.resolve("d").key
        ('1', '1', 'd')
        >>> m.resolve("7S")
        '7S is not one of your moves now: a numbered card or d draw'
        >>> m.resolve("c")
        'no call to make now'
        >>> m.resolve("bid 9")
        'no bid to make now: a numbered card or d draw'
        """
        raw = text.strip()
        if not raw:
            return "type a number, a card code like 7S, or a letter shown above"
        key = raw.lower()
        found = self.by_key(key) or self.by_word(key)
        if found is not None:
            return found
        not_now = self.catalogue.refusal(self.game, key)
        if not_now is not None:
            return not_now
        if key.startswith("b"):
            value = key.removeprefix("bid").removeprefix("b").strip()
            for c in self.choices:
                if any(a.get("type") == "bid" and str(a.get("value")) == value for a in c.actions):
                    return c
            if value.isdigit():  # a bid out of range, or none to make now
                bids = self.bids()
                if bids:
                    return f"no bid of {value} now: bid {bids[0]} to {bids[-1]}, or p to pass"
                return f"no bid to make now: {self.offer()}"
        code = normalise_card(raw)
        if code is not None:
            for c in self.choices:
                if c.card == code:
                    return c
            if code in self.hand:
                return f"{code} is not one of your moves now: {self.offer()}"
            return f"you do not hold {code}"
        bids = self.bids()
        if raw.isdigit() and bids:
            return (
                f"there is no move {raw}: bid {bids[0]} to {bids[-1]} (type the bid), or p to pass"
            )
        if raw.isdigit():  # (with no numbered move on offer, "the numbers shown" are none)
            return f"there is no move {raw}: {self.offer()}"
        return (
            f"not understood: {clip(raw)!r}; type a number, a card code like 7S, or a letter shown"
        )

    def by_word(self, typed: str) -> Choice | None:
        """The one move (not a card) whose label has the word ``typed`` (``uptown`` for ``2)
        stay uptown``), or its whole label; None when no move or several have it.

        >>> house = Catalogue([{"name": "g", "actions": {"downtown": {"if": {"true": "switch"},
        ...     "then": "switch to downtown (9 high)", "else": "stay uptown"}}}])
        >>> m = build_menu({}, [{"type": "downtown", "switch": False},
        ...                     {"type": "downtown", "switch": True}], catalogue=house)
        >>> m.by_word("Downtown").key, m.by_word("uptown").key, m.by_word("to") is None
        ('2', '1', False)
        """
        typed = " ".join(typed.lower().split())
        if len(typed) < 2 or typed.isdigit():
            return None
        hits = [
            c
            for c in self.choices
            if c.card is None and (typed in _words(c.label.plain) or typed == c.label.plain)
        ]
        return hits[0] if len(hits) == 1 else None

    def words(self) -> list[str]:
        """A word that picks each numbered move that is not a card, for the help line.

        >>> house = Catalogue([{"name": "g", "actions": {"downtown": {"if": {"true": "switch"},
        ...     "then": "switch to downtown (9 high)", "else": "stay uptown"}}}])
        >>> build_menu({}, [{"type": "downtown", "switch": False},
        ...                 {"type": "downtown", "switch": True}], catalogue=house).words()
        ['uptown', 'downtown']
        """
        out = []
        for c in self.choices:
            if c.card is None and c.key.isdigit():
                word = self._word(c)
                if word:
                    out.append(word)
        return out

    def _word(self, choice: Choice) -> str:
        """The longest word that picks ``choice`` alone, or ``""``."""
        unique = [w for w in _words(choice.label.plain) if self.by_word(w) is choice]
        return max(unique, key=len) if unique else ""

    def offer(self) -> str:
        """What is on offer, in a few words, from the moves only (no rules).

        >>> house = Catalogue([{"name": "g", "keys": {"pass": {"key": "p"}},
        ...                     "actions": {"bid": "bid {value}", "pass": "pass"}}])
        >>> build_menu({"hand": ["9S"]}, [{"type": "bid", "value": 7}, {"type": "bid",
        ...            "value": 8}, {"type": "pass"}], catalogue=house).offer()
        'bids 7-8 or p pass'
        """
        parts = []
        if any(c.card is not None for c in self.choices):
            parts.append("a numbered card")
        bids = self.bids()
        if bids:
            parts.append(f"bid {bids[0]}" if len(bids) == 1 else f"bids {bids[0]}-{bids[-1]}")
        for c in self.choices:
            if c.card is None and c.key.isdigit() and not _is_bid(c):
                parts.append(f"{c.key} {self._word(c)}".strip())
        parts += self.letters()
        if not parts or len(parts) > 4:
            return "type ? to list your moves"
        return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"

    def bids(self) -> list[str]:
        """The bids on offer, lowest first (empty outside an auction), as they are shown."""
        bids = (a.get("value") for c in self.choices for a in c.actions if a["type"] == "bid")
        return [safe_text(str(value)) for value in bids]

    def letters(self) -> list[str]:
        """The lettered moves on offer, as ``"d draw"``, for the help line.

        >>> house = Catalogue([{"name": "g", "actions": {"draw": "draw", "call": "call"},
        ...     "keys": {"draw": {"key": "d"}, "call": {"key": "c"}}}])
        >>> build_menu({}, [{"type": "draw"}, {"type": "call"}], catalogue=house).letters()
        ['d draw', 'c call']
        """
        letters = self.catalogue.letters()
        return [f"{c.key} {c.label.plain}" for c in self.choices if c.key in letters]

    def render(
        self, *, ascii_only: bool = False, width: int | None = None, dim: bool = True
    ) -> Text:
        """The hand (legal cards numbered, others dimmed unless ``dim`` is false: while
        others play, nothing is) and the other moves; in ``width`` columns, a line breaks
        between two items, never inside one.

        >>> house = Catalogue([{"name": "g", "actions": {"downtown": {"if": {"true": "switch"},
        ...     "then": "switch to downtown (9 high)", "else": "stay uptown"}}}])
        >>> m = build_menu({"hand": ["7S", "9H"]}, [{"type": "downtown", "switch": False},
        ...                 {"type": "downtown", "switch": True}], catalogue=house)
        >>> print(m.render(ascii_only=True, width=24).plain, end="")
        Your hand: 7S  9H
        Moves: 1) stay uptown
          2) switch to downtown (9 high)
        """
        out = Text()
        card_keys = {c.card: c.key for c in self.choices if c.card is not None}
        if self.hand:
            cards = []
            for code in self.hand:
                item = Text()
                key = card_keys.get(code)
                if key is not None:
                    item.append(f"{key})", style="bold")
                item.append_text(card_text(code, ascii_only=ascii_only, dim=dim and key is None))
                cards.append(item)
            out.append_text(flow("Your hand: ", cards, "  ", width))
        others = [c for c in self.choices if c.card is None]
        if others:
            moves = [Text(f"{c.key}) ", style="bold").append_text(c.label) for c in others]
            out.append_text(flow("Moves: ", moves, "   ", width))
        return out


def flow(head: str, items: Sequence[Text], sep: str, width: int | None) -> Text:
    """``head`` and ``items`` separated by ``sep``, broken into lines of at most ``width``
    columns between items (a line goes on indented by two spaces); one line when ``width``
    is None. Ends with a newline.

    >>> print(flow("Hand: ", [Text("aa"), Text("bb"), Text("cc")], "  ", 12).plain, end="")
    Hand: aa  bb
      cc
    """
    out = Text(head)
    column = out.cell_len
    for i, item in enumerate(items):
        if i and width is not None and column + len(sep) + item.cell_len > width:
            out.append("\n  ")
            column = 2
        elif i:
            out.append(sep)
            column += len(sep)
        out.append_text(item)
        column += item.cell_len
    out.append("\n")
    return out


#: how much of a line that is not understood is shown back
ECHO_LIMIT = 40


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters (``...`` marks the cut), to echo a typed line.

    >>> clip("x" * 50)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'
    """
    return text if len(text) <= limit else text[:limit] + "..."


def _is_bid(choice: Choice) -> bool:
    return any(a.get("type") == "bid" for a in choice.actions)


def _words(label: str) -> list[str]:
    """The words of a move's label, lower case (``switch to downtown (9 high)``: ``switch``,
    ``to``, ``downtown``, ``high``)."""
    return re.findall(r"[^\W\d_]+", label.lower())


def normalise_card(text: str) -> str | None:
    """A typed card as a wire code (``7s``, ``7♠``, ``10H``, ``jr``), or None.

    >>> normalise_card("7♠"), normalise_card("10h"), normalise_card("qd"), normalise_card("x")
    ('7S', '10H', 'QD', None)
    """
    t = text.strip().upper()
    if not t:
        return None
    if t in ("JR", "JB", "JOKER"):
        return "JR" if t == "JOKER" else t
    suit = _SYMBOL_TO_LETTER.get(t[-1], t[-1])
    rank = t[:-1]
    if suit in "SHDC" and rank in (
        "A",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "10",
        "J",
        "Q",
        "K",
    ):
        return rank + suit
    return None


def _first_card(action: Mapping[str, Any]) -> str | None:
    if action.get("type") != "play":
        return None
    cards = action.get("cards")
    if isinstance(cards, list) and cards:
        return str(cards[0])
    card = action.get("card")
    return str(card) if card is not None else None


def canonical_hand(hand: Sequence[str]) -> list[str]:
    """The hand's codes in canonical order (suits S H D C, ranks A to K, then the jokers); a
    code that names no card keeps its place after the cards.

    >>> canonical_hand(["KC", "2D", "JR", "8S", "??", "2D"])
    ['8S', '2D', '2D', 'KC', 'JR', '??']
    """

    def key(code: str) -> tuple[int, int]:
        try:
            return (0, parse_card(code).index)
        except CardCodeError:
            return (1, 0)

    return sorted(hand, key=key)


def build_menu(
    view: Mapping[str, Any],
    legal: Sequence[Mapping[str, Any]],
    *,
    ascii_only: bool = False,
    catalogue: Catalogue | None = None,
) -> Menu:
    """Group ``legal`` into numbered and lettered choices (see the module docstring); the
    letters and labels are the host's, from ``catalogue`` (by default, what the host said)."""
    catalogue = CATALOGUE if catalogue is None else catalogue
    game = str(view.get("game") or "")
    hand_raw = view.get("hand")
    hand = canonical_hand([str(c) for c in hand_raw]) if isinstance(hand_raw, list) else []
    by_card: dict[str, list[dict[str, Any]]] = {}
    others: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        a = dict(action)
        card = _first_card(a)
        if card is not None:
            by_card.setdefault(card, []).append(a)
            continue
        kind = str(a.get("type"))
        group = kind if catalogue.key(game, kind) else f"{kind}:{len(others)}"
        others.setdefault(group, []).append(a)
    choices: list[Choice] = []
    order = [c for c in hand if c in by_card] + [c for c in by_card if c not in hand]
    seen: set[str] = set()
    for code in order:
        if code in seen:
            continue
        seen.add(code)
        label = card_text(code, ascii_only=ascii_only)
        number = str(len(choices) + 1)
        choices.append(Choice(number, label, by_card[code], code, game, catalogue))
    count = len(choices)
    for group, actions in others.items():
        kind = group.partition(":")[0]
        letter = catalogue.key(game, kind)
        if letter:
            key = letter
        elif kind == "bid" and not by_card:  # no card numbers to collide with
            key = safe_text(str(actions[0].get("value")))  # typed, and shown
        else:
            count += 1
            key = str(count)
        label = describe_action(
            actions[0], ascii_only=ascii_only, view=view, game=game, catalogue=catalogue
        )
        choices.append(Choice(key, label, actions, None, game, catalogue))
    return Menu(choices, hand, game, catalogue)


class StrayBids:
    """Asks again before a number that was a bid a moment ago plays a card (ONE).

    In an auction a bidder types the bid (``9``); once it is over, the same digits pick a
    numbered card, so a bid typed a beat too late would play one. After an auction, a bare
    number that was on offer as a bid, typed as the first move, is answered with a question;
    typing it again plays the move. Any move made, or any state with bids again, resets it.

    >>> house = Catalogue([{"name": "g", "actions": {"bid": "bid {value}", "play": "play"}}])
    >>> stray = StrayBids()
    >>> stray.seen(build_menu({}, [{"type": "bid", "value": 2}, {"type": "bid", "value": 9}],
    ...                       catalogue=house))
    >>> play = build_menu({"hand": ["9S", "JH"]}, [{"type": "play", "cards": ["9S"]},
    ...                                            {"type": "play", "cards": ["JH"]}],
    ...                   catalogue=house)
    >>> stray.seen(play)
    >>> stray.check(play, "2")
    'the auction is over: 2 now plays move 2 (a card); type 2 again to play it'
    >>> stray.check(play, "2") is None
    True
    >>> stray.check(play, "2") is None  # moves made: numbers are moves again
    True
    """

    def __init__(self) -> None:
        self.bids: frozenset[str] = frozenset()
        self.asked: str | None = None

    def seen(self, menu: Menu) -> None:
        """A new menu: remember an auction's bids; keep them past it until a move is made."""
        bids = menu.bids()
        if bids:
            self.bids, self.asked = frozenset(bids), None

    def check(self, menu: Menu, typed: str) -> str | None:
        """The question to ask before ``typed`` is taken as a move, or None to take it."""
        text = typed.strip()
        if not self.bids or menu.bids():
            return None
        found = menu.resolve(text)
        if text in self.bids and text != self.asked and isinstance(found, Choice):
            self.asked = text
            return (
                f"the auction is over: {text} now plays move {text} (a card); "
                f"type {text} again to play it"
            )
        if isinstance(found, Choice):  # a move: numbers mean moves from now on
            self.bids, self.asked = frozenset(), None
        return None
