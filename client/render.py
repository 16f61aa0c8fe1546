"""Rendering with rich: cards, the table as this seat sees it, event log lines, outcomes.

How it works: everything here is a pure function from what the host sent (a game's ``view``,
an ``event`` map, an outcome) plus the seat names to a rich :class:`~rich.text.Text`, so it is
easy to snapshot (``Console(record=True, width=80)``) and never decides anything about the
rules. Cards are wire codes (``7S``, ``10H``, ``JR``) shown as ``7♠``; hearts and diamonds are
red, spades and clubs use the terminal's default foreground (never hard-coded black), and with
``ascii`` the wire code itself is shown. Colour is off when the output is not a terminal or
``NO_COLOR`` is set: rich's :class:`~rich.console.Console` already decides that, see
:func:`make_console`. When the reader of our output goes away (``onecard ... | head -2``), the
console raises :class:`OutputClosed` instead of rich's ``SystemExit`` (which trio would wrap
in a group and print as a traceback); ``client.cli.main`` ends the program quietly on it.

Host text is never shown raw: every string these functions take from the host (names, event
and view fields, reasons, actions) goes through :func:`protocol.text.safe_text` first
(:func:`host_data` for whole maps), so an ESC sequence, a bidi override or a newline in it is
shown escaped (``\\x1b``), never acted on by the terminal; rich markup in it is never parsed
(``markup=False``, and text goes into :class:`~rich.text.Text` as plain text). The console of
:func:`make_console` escapes, as a last line of defence, any control character that still
reaches it other than the line breaks it lays out itself.

Per game: :func:`render_table` draws the header, the pile, what is pending, every seat (hand
size, turn, dealer, calls) and the scores for ONE; the hand with its numbered legal moves is
drawn by :mod:`client.choices`. :func:`describe_event` turns one event into a log line such
as "Bob plays 7♠", or None for events that only matter to the table display.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from protocol.text import safe_text

__all__ = [
    "GAME_TITLES",
    "SUIT_NAMES",
    "OutputClosed",
    "card_text",
    "cards_text",
    "describe_action",
    "describe_event",
    "hand_label",
    "host_data",
    "make_console",
    "render_outcome",
    "render_table",
    "suit_text",
]

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RED = "red"
GAME_TITLES = {"one-card": "One Card", "black-jack": "Black Jack", "one": "ONE"}

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


def host_data(value: Any) -> Any:
    r"""``value`` from the host with every string in it, keys included, made safe to show
    (:func:`protocol.text.safe_text`); maps and lists are copied, other values kept.

    >>> host_data({"kind": "chat", "text": ["hi\x1b[2K"], "n": 3})
    {'kind': 'chat', 'text': ['hi\\x1b[2K'], 'n': 3}
    """
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, Mapping):
        return {host_data(k): host_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [host_data(v) for v in value]
    return value


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


# --------------------------------------------------------------------------- actions


def describe_action(action: Mapping[str, Any], *, ascii_only: bool = False) -> Text:
    """A legal action in words: ``7♠ naming ♥ hearts``, ``draw``, ``bid 9`` ...

    >>> describe_action({"type": "play", "cards": ["7S"], "suit": "H"}, ascii_only=True).plain
    'play 7S naming H hearts'
    """
    action = host_data(action)
    kind = action.get("type")
    out = Text()
    if kind == "play":
        cards = action.get("cards")
        played = cards if isinstance(cards, list) else [action.get("card")]
        out.append("play ")
        out.append_text(cards_text(played, ascii_only=ascii_only))
        declare = action.get("declare")
        if isinstance(declare, list) and declare:
            out.append(" with the joker as ")
            out.append_text(cards_text(declare, ascii_only=ascii_only, sep=", "))
        if action.get("suit") is not None:
            out.append(" leading " if "card" in action else " naming ")
            out.append_text(suit_text(action["suit"], ascii_only=ascii_only, named=True))
    elif kind == "draw":
        out.append("draw")
    elif kind == "call":
        out.append('call "One Card!"')
    elif kind == "declare":
        out.append(f'declare "{_say(action.get("what"))}"')
    elif kind == "bid":
        out.append(f"bid {action.get('value')}")
    elif kind == "pass":
        out.append("pass")
    elif kind == "downtown":
        out.append("switch to downtown (9 high)" if action.get("switch") else "stay uptown")
    else:
        out.append(" ".join(f"{k}={v}" for k, v in action.items()))
    if kind in ("play", "draw") and action.get("say"):
        out.append(f' and say "{_say(action["say"])}"')
    return out


def _say(what: object) -> str:
    return "last card" if what == "last_card" else str(what)


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


def describe_event(
    event: Mapping[str, Any],
    names: Names,
    *,
    me: int | None = None,
    ascii_only: bool = False,
    game_no: int = 1,
) -> Text | None:
    """One log line for an event, or None when the table display already shows it.

    ``game_no`` (the table's game, from 1) words the deal line after a rematch."""
    event, names = host_data(event), _safe_names(names)
    kind = event.get("kind")
    seat = event.get("seat")
    who = names(seat)

    def cards(key: str = "cards") -> Text:
        value = event.get(key)
        return cards_text(value if isinstance(value, list) else [value], ascii_only=ascii_only)

    def line(*parts: str | Text) -> Text:
        out = Text()
        for part in parts:
            out.append_text(part if isinstance(part, Text) else Text(part))
        return out

    if kind == "play":
        out = line(who, " plays ", _played(event, ascii_only))
        if event.get("suit") is not None:
            out.append_text(line(" and names ", suit_text(event["suit"], ascii_only=ascii_only)))
        for key, text in (("damage", "attack now {} cards"), ("pending", "pick-up now {}")):
            if event.get(key):
                out.append(f" ({text.format(event[key])})")
        if event.get("cancelled"):
            out.append(" (the pick-up is cancelled)")
        if event.get("penalty"):
            out.append(" (a weaker answer: one penalty card)")
        return out
    if kind in ("draw", "drawn"):
        verb = " is dealt " if event.get("reason") == "deal" else " draws "
        if "cards" in event:
            return line(names(me) if seat is None else who, verb, cards(), _reason(event))
        if seat == me:
            return None  # our own draw: the private event with the cards follows
        n = int(event.get("count", 1))
        return line(who, f"{verb}{n} card{'s' if n != 1 else ''}", _reason(event))
    if kind in ("dealt", "hand"):
        return line(names(me), " is dealt ", cards())
    if kind == "deal":
        dealer = names(event.get("dealer"))
        hand = ""
        if "hand_no" in event and kind == "deal":
            hand = hand_label(event["hand_no"], game_no) + ": "
        return line(hand, dealer, " deals")
    if kind == "turn_up":
        return line("Turned up: ", cards("cards" if "cards" in event else "card"))
    if kind == "start":
        return line(names(event.get("first")), f" starts; play goes {event.get('direction')}")
    if kind == "call_window":
        return line(names(event.get("holder")), " has one card left!")
    if kind == "call":
        holder, victim = event.get("holder"), event.get("penalized")
        if seat == holder:
            return line(who, ' calls "One Card!"; ', names(victim), " draws a penalty card")
        return line(who, " catches ", names(holder), ' with one card: "One Card!"; ',
                    names(victim), " draws a penalty card")  # fmt: skip
    if kind == "reshuffle":  # all discards but the top card become the new stock
        shuffled = event.get("count")
        many = shuffled != 1
        return Text(
            f"{shuffled} discarded card{'s' if many else ''} {'are' if many else 'is'} shuffled "
            "into a new stock"
        )
    if kind == "forgiven":  # owed cards that neither the stock nor the discards can supply
        owed = event.get("count")
        empty = ": the stock is empty and no discards are left to shuffle"
        if owed == 1 and event.get("reason", "draw") == "draw":
            return line(who, " draws nothing", empty)
        plural = "" if owed == 1 else "s"
        return line(who, f" is let off {owed} card{plural}", _reason(event), empty)
    if kind == "out":
        return line(who, f" is out (place {event.get('place')})")
    if kind == "bankrupt":  # One Card: the hand goes under the top discard, face up
        held = event.get("count")
        why = " and cannot pay" if event.get("reason") == "cannot_pay" else ""
        place = f" (place {event['place']})" if event.get("place") else ""
        return line(who, f" is bankrupt with {held} card{'s' if held != 1 else ''}{why}", place,
                    ": out of the game, the cards go under the top discard")  # fmt: skip
    if kind == "declare":
        return line(who, f' declares "{_say(event.get("what"))}"')
    if kind == "skip":
        return line(who, " misses a turn")
    if kind == "reverse":
        return Text(f"Play now goes {event.get('direction')}")
    if kind == "cover":
        return line(who, " must cover the queen")
    if kind == "undeclared":
        return line(who, f" went out without declaring: picks up {event.get('penalty', 2)}")
    if kind == "blunder":
        reason = name_seats(str(event.get("reason")), names, me)
        return line(who, " blunders with ", cards(), f": {reason}")
    if kind == "bid":
        return line(who, f" bids {event.get('value')}")
    if kind == "pass":
        return line(who, " passes")
    if kind == "auction_end":
        if event.get("no_trump"):
            return line("Everyone passed: no trump; ", names(event.get("leader")), " leads")
        return line(names(event.get("bidder")), f" wins the auction with {event.get('bid')}")
    if kind == "trump":
        return line("Trump is ", suit_text(event.get("suit"), ascii_only=ascii_only, named=True))
    if kind == "trick":
        return line(names(event.get("winner")), f" takes the trick ({_pts(event.get('points'))})")
    if kind == "downtown_offer":
        return line(who, " may switch the ranking to downtown")
    if kind == "downtown":
        return line(who, " switches to downtown" if event.get("switch") else " stays uptown")
    if kind == "centre":
        return line("The centre card ", cards("card"), " goes to ", who)
    if kind == "hand_end":
        return _hand_end(event, names)
    if kind in ("timeout", "substitute"):
        action = event.get("action")
        what = describe_action(action, ascii_only=ascii_only) if isinstance(action, dict) else ""
        why = " ran out of time" if kind == "timeout" else " is away"
        return line(who, why, "; the host plays: ", what)
    if kind == "left":  # a player left mid-game: the host's bot plays the seat to the end
        return line(who, " left; a bot plays ", who, " to the end of the game")
    if kind == "stood_up":
        missed = event.get("misses")
        rounds = f" {missed} deal rounds in a row" if isinstance(missed, int) else " deal rounds"
        return line(who, " missed", rounds, " and is stood up: the host plays the seat to the end")
    if kind in ("turn", "game_over", "match_end"):
        return None
    rest = " ".join(f"{k}={v}" for k, v in event.items() if k not in ("kind", "to"))
    return Text(f"{kind}: {rest}".strip())


def _reason(event: Mapping[str, Any]) -> str:
    reason = event.get("reason")
    if reason in (None, "draw", "deal"):
        return ""
    return {"attack": " (the attack)", "pickup": " (the pick-up)", "call": " (penalty)"}.get(
        str(reason), f" ({reason})"
    )


def _pts(points: object) -> str:
    """``1 pt``, ``3 pts``."""
    return f"{points} pt" if points == 1 else f"{points} pts"


def _played(event: Mapping[str, Any], ascii_only: bool) -> Text:
    """The cards of a play, each joker followed by what it stands for: ``JR (as 4D) 5D``."""
    played = event.get("cards")
    codes = [str(c) for c in played] if isinstance(played, list) else [str(event.get("card"))]
    declared = event.get("declare")
    stand_ins = iter(declared if isinstance(declared, list) else [])
    out = Text()
    for i, code in enumerate(codes):
        if i:
            out.append(" ")
        out.append_text(card_text(code, ascii_only=ascii_only))
        if code in ("JR", "JB"):
            as_card = next(stand_ins, None)
            if as_card is not None:
                out.append(" (as ")
                out.append_text(card_text(str(as_card), ascii_only=ascii_only))
                out.append(")")
    return out


def _hand_end(event: Mapping[str, Any], names: Names) -> Text:
    out = Text("Hand over")
    bidder = event.get("bidder")
    if bidder is not None:
        made = "made" if event.get("made") else "missed"
        out.append(f": {names(bidder)} {made} the bid of {event.get('bid')}")
    elif "bidder" in event:
        out.append(": no one bid")
    points = event.get("points")
    if isinstance(points, list):
        out.append(". Points taken: " + ", ".join(f"{names(i)} {p}" for i, p in enumerate(points)))
    scores = event.get("scores")
    if isinstance(scores, list):
        out.append(". Scores: " + ", ".join(f"{names(i)} {s}" for i, s in enumerate(scores)))
    return out


# --------------------------------------------------------------------------- the table


def render_table(
    view: Mapping[str, Any],
    names: Sequence[str],
    *,
    me: int | None,
    to_act: Sequence[int] = (),
    ascii_only: bool = False,
    game_no: int = 1,
    width: int | None = None,
) -> Text:
    """The table as ``me`` sees it (no hand: :mod:`client.choices` draws it with the moves);
    ``game_no`` (the table's game, from 1) words ONE's hand after a rematch; the rule at the
    top fits in ``width`` columns (the terminal's).

    >>> top = render_table({"game": "one-card"}, [], me=None, width=30).plain.splitlines()[0]
    >>> len(top), top[:14]
    (30, '── One Card ──')
    """
    view, names = host_data(view), _safe_name_list(names)
    game = str(view.get("game", ""))
    out = Text()
    title = GAME_TITLES.get(game, game)
    rule = "-" if ascii_only else "─"
    out.append(f"{rule * 2} {title} ", style="bold")
    length = 40 - len(title) if width is None else min(40, width) - 4 - len(title)
    out.append(rule * max(2, length) + "\n")
    if game == "one":
        _one_table(out, view, names, ascii_only=ascii_only, me=me, game_no=game_no)
    else:
        _shedding_table(out, view, ascii_only)
    out.append_text(_seats(view, names, me=me, to_act=to_act, ascii_only=ascii_only))
    return out


def _shedding_table(out: Text, view: Mapping[str, Any], ascii_only: bool) -> None:
    top = view.get("top")
    out.append("Top card: ")
    out.append_text(card_text(str(top), ascii_only=ascii_only) if top else Text("none"))
    suit = view.get("suit")
    if suit is not None:
        named = view.get("named_suit") is not None
        out.append("   suit to match: " if not named else "   named suit: ")
        out.append_text(suit_text(suit, ascii_only=ascii_only, named=True))
    out.append(f"   stock: {view.get('stock', '?')}\n")
    out.append(f"Direction: {view.get('direction', '?')}")
    if view.get("extra_turns"):
        out.append(f"   extra turns owed: {view['extra_turns']}")
    out.append("\n")
    damage = view.get("damage")
    if damage:
        out.append(f"Pending attack: {damage} cards to pick up unless answered\n", style="bold")
    pickup = view.get("pending")
    if pickup:  # Black Jack's word (spec/RULES.md): a pick-up, answered by a counter
        out.append(f"Pick-up: {pickup} cards to pick up unless countered\n", style="bold")
    if view.get("cover"):
        out.append("The queen must be covered\n", style="bold")


def _one_table(
    out: Text,
    view: Mapping[str, Any],
    names: Sequence[str],
    *,
    ascii_only: bool,
    me: int | None,
    game_no: int,
) -> None:
    out.append(f"{hand_label(view.get('hand_no'), game_no)}   target {view.get('target')}   ")
    out.append(f"phase: {view.get('phase')}   ranking: {view.get('ranking')}\n")
    trump = view.get("trump")
    out.append("Trump: ")
    if trump:
        out.append_text(suit_text(trump, ascii_only=ascii_only, named=True))
    else:
        out.append("no trump" if view.get("no_trump") else "not yet")
    auction = view.get("auction")
    bidder = auction.get("bidder") if isinstance(auction, dict) else None
    leading = view.get("phase") == "play" and me is not None and me in (view.get("to_act") or [])
    if not trump and not view.get("no_trump") and leading and bidder == me:
        out.append(" (you won the auction: the suit of the card you lead now is trump)")
    if isinstance(auction, dict):
        high, bidder = auction.get("high"), auction.get("bidder")
        if high is not None and bidder is not None:
            out.append(f"   bid: {high} by {_name(names, bidder)}")
        elif view.get("phase") == "auction":
            out.append(f"   no bid yet (minimum {auction.get('min')})")
    out.append("\n")
    taken = view.get("points_taken")
    if isinstance(taken, list) and any(taken):
        points = ", ".join(f"{_name(names, i)} {p}" for i, p in enumerate(taken))
        out.append(f"Points taken this hand: {points}\n")
    trick = view.get("trick")
    if isinstance(trick, dict) and trick.get("cards"):
        out.append("Trick: ")
        for i, item in enumerate(trick["cards"]):
            if i:
                out.append(", ")
            out.append(_name(names, item.get("seat")) + " ")
            out.append_text(card_text(str(item.get("card")), ascii_only=ascii_only))
        out.append("\n")


def _name(names: Sequence[str], seat: object) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return f"seat {seat}"


def _seats(
    view: Mapping[str, Any],
    names: Sequence[str],
    *,
    me: int | None,
    to_act: Sequence[int],
    ascii_only: bool,
) -> Text:
    counts = view.get("hand_counts") or []
    scores = view.get("scores")
    declared = view.get("declared")
    finished = view.get("finished") or view.get("out") or []
    window = view.get("call_window")
    turn = list(to_act) or list(view.get("to_act") or [])
    width = max((len(n) for n in names), default=4)
    out = Text()
    for seat, count in enumerate(counts):
        marker = ">" if ascii_only else "▶"
        out.append(f" {marker} " if seat in turn else "   ", style="bold")
        out.append(f"{_name(names, seat):<{width}}", style="bold" if seat == me else "")
        out.append(f"  {count:>2} card{'s' if count != 1 else ' '}")
        if isinstance(scores, list) and seat < len(scores):
            out.append(f"  {scores[seat]:>3} pts")
        tags = []
        if seat == me:
            tags.append("you")
        if view.get("dealer") == seat:
            tags.append("dealer")
        if seat in finished:
            tags.append(f"out #{list(finished).index(seat) + 1}")
        if seat in (view.get("bankrupt") or []):
            tags.append("bankrupt")
        if isinstance(declared, list) and seat < len(declared) and declared[seat]:
            said = declared[seat]  # Black Jack's view has a flag; a word is shown as said
            tags.append("declared" if said is True else f'said "{_say(said)}"')
        if isinstance(window, dict) and window.get("holder") == seat:
            tags.append("ONE CARD!")
        if tags:
            out.append("  (" + ", ".join(tags) + ")")
        out.append("\n")
    return out


# --------------------------------------------------------------------------- outcome


#: how a game ended, where the winner line alone does not say it
_ENDINGS = {
    "exhausted": "nothing left to play or draw: fewest cards",
    "turn_limit": "the game reached its turn limit: fewest cards",
    "last_standing": "last player standing: everyone else went bankrupt",
}


def render_outcome(
    outcome: Mapping[str, Any], names: Sequence[str], cards_left: Sequence[int] | None = None
) -> Text:
    """``Bob wins!`` with the ranking or scores when the game has them, and for a shedding
    game the cards each seat was left holding (``cards_left``, by seat, when known; a negative
    count marks a One Card seat that went bankrupt).

    >>> print(render_outcome({"winners": [1], "scores": None}, ["Ann", "Bob"], [3, 0]).plain)
    Bob wins! Cards left: Ann 3, Bob 0
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
    if termination in _ENDINGS:
        out.append(f" ({_ENDINGS[termination]})")
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
    return out
