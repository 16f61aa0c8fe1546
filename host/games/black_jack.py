"""Black Jack, the British shedding game (``black-jack``): rules engine.

How it works: one :class:`BlackJack` object is one hand. It asks chance for the deal (stream 0)
and, whenever a draw finds the stock empty, for a reshuffle of the discards below the top card
(stream k for the k-th reshuffle); owed cards wait in a queue (``_owed``) while a reshuffle is
pending, so a draw split across a reshuffle resumes where it stopped. The table state is the top
card *as it acts* (``_top_as``: a joker's declared identity), the suit named by an ace, the
pick-up owed by the seat to act, whether that seat must cover its queen, and the direction.

A play is checked in two layers: shape (cards held, one declaration per joker, a suit exactly
when the last card acts as an ace) raises :class:`InvalidAction`; the rules (turn, matching,
runs, counters) give a reason string. With ``blunders`` on, a play that breaks the rules or comes
out of turn passes :meth:`check` and :meth:`apply` penalises it (two cards, taken back); with it
off, :meth:`check` raises. :meth:`legal_actions` lists every legal play (generated lazily:
singles, then runs, then chains, up to :data:`PLAY_LIMIT`). Two safety stops end a hand: a full
round of draws that found nothing (``exhausted``) and :data:`TURN_LIMIT` turns (``turn_limit``).
The rules and rulings are in ``spec/RULES.md``, section Black Jack.

Wire actions: ``{"type": "play", "cards": [...], "suit"?: "H", "declare"?: [...], "say"?: ...}``
(``declare``: one identity per joker, in play order; ``say``: ``"last_card"``/``"cards"`` said at
the end of this turn), ``{"type": "draw", "say"?: ...}``, ``{"type": "declare", "what": ...}``
(said after one's own turn, until the next turn action).
"""

from __future__ import annotations

import enum
import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from host.games.base import (
    Action,
    ChanceError,
    ChanceKind,
    ChanceRequest,
    Event,
    Game,
    IllegalAction,
    InvalidAction,
    NotYourTurn,
    OptionSpec,
    Outcome,
    RulesError,
    Termination,
    WireMap,
    parse_wire_card,
)
from host.games.black_jack_plays import (
    _NATURAL,
    BLUNDER_CARDS,
    _chains,
    _finishable,
    _is_black_jack,
    _is_chain,
    _is_run,
    _runs,
    _Seq,
    blunder_cost,
    single_forms,
)
from protocol.cards import (
    Card,
    CardCodeError,
    Rank,
    Suit,
    deck_for,
)

__all__ = [
    "PLAY_LIMIT",
    "TURN_LIMIT",
    "BlackJack",
    "Declaration",
    "Declare",
    "Draw",
    "Phase",
    "Play",
]

_MAX_PLAY = 30  # no legal play is longer (13-card run); caps malformed input early
_SUITS = tuple(Suit)

PLAY_LIMIT = 300
"""The most plays :meth:`BlackJack.legal_actions` lists. Runs and chains filled by jokers grow
combinatorially (a chain may reorder its cards, a joker may stand for any card that links); the
list keeps its order (singles, runs, other chains shortest first) and stops before the play that
would pass this many, so a ``state`` message stays well inside the protocol's frame and list
limits. A legal play left out is still accepted when sent."""

TURN_LIMIT = 1000
"""Turns after which a hand stops as ``TURN_LIMIT`` (fewest cards win): a safety stop, since
legal play can cycle for ever (a card played, drawn back through a reshuffle, played again)."""


class Phase(enum.Enum):
    DEALING = "dealing"  #: waiting for the deal (chance)
    PLAYING = "playing"  #: a seat is to act
    RESHUFFLING = "reshuffling"  #: a draw is waiting for a reshuffle of the discards (chance)
    OVER = "over"  #: the hand is finished


_SUIT_NAMES = {
    Suit.SPADES: "spades",
    Suit.HEARTS: "hearts",
    Suit.DIAMONDS: "diamonds",
    Suit.CLUBS: "clubs",
}

_WAIT = {
    Phase.DEALING: "nobody may act before the cards are dealt",
    Phase.RESHUFFLING: "nobody may act while the discards are reshuffled into a new stock",
    Phase.OVER: "the hand is over",
}
"""Why no seat may act, by phase (every phase but ``PLAYING``)."""


class Declaration(enum.Enum):
    """What a player says when able to finish next turn; either word counts."""

    LAST_CARD = "last_card"  #: one card left
    CARDS = "cards"  #: more than one card, all playable next turn ("knocking" is the same)


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Put ``cards`` down, first card first (a single card, a run, or a chain with ``chain``).

    ``declare`` gives each joker's identity in play order; ``suit`` is named when the last card
    acts as an ace; ``say`` is the last-card declaration made at the end of this turn.

    >>> from protocol.cards import card
    >>> Play((card("7H"), card("8H"))).to_wire()
    {'type': 'play', 'cards': ['7H', '8H']}
    """

    cards: tuple[Card, ...]
    suit: Suit | None = None
    declare: tuple[Card, ...] = ()
    say: Declaration | None = None

    def to_wire(self) -> WireMap:
        out: WireMap = {"type": "play", "cards": [c.code for c in self.cards]}
        if self.suit is not None:
            out["suit"] = self.suit.value
        if self.declare:
            out["declare"] = [c.code for c in self.declare]
        if self.say is not None:
            out["say"] = self.say.value
        return out


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw: one card, or the pick-up owed, or one card for an uncovered queen; ends the turn."""

    say: Declaration | None = None

    def to_wire(self) -> WireMap:
        out: WireMap = {"type": "draw"}
        if self.say is not None:
            out["say"] = self.say.value
        return out


@dataclass(frozen=True, slots=True)
class Declare(Action):
    """Say "last card" / "cards" after one's own turn, before the next turn action."""

    what: Declaration

    def to_wire(self) -> WireMap:
        return {"type": "declare", "what": self.what.value}


# --------------------------------------------------------------------------- wire fields


def _cards_field(wire: Mapping[str, object], key: str, *, required: bool) -> tuple[Card, ...]:
    raw = wire.get(key)
    if raw is None and not required:
        return ()
    if not isinstance(raw, list) or (required and not raw) or len(raw) > _MAX_PLAY:
        raise InvalidAction(f"{key!r} must be a non-empty list of at most {_MAX_PLAY} card codes")
    return tuple(parse_wire_card(c, key) for c in raw)


def _say_field(wire: Mapping[str, object], key: str, *, required: bool) -> Declaration | None:
    raw = wire.get(key)
    if raw is None and not required:
        return None
    try:
        return Declaration(raw)
    except ValueError:
        raise InvalidAction(f"{key!r} must be 'last_card' or 'cards', not {raw!r}") from None


_FIELDS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "cards", "suit", "declare", "say"}),
    "draw": frozenset({"type", "say"}),
    "declare": frozenset({"type", "what"}),
}


# --------------------------------------------------------------------------- the game


class BlackJack(Game):
    """One hand of Black Jack; see the module docstring and ``spec/RULES.md``."""

    name: ClassVar[str] = "black-jack"
    title: ClassVar[str] = "Black Jack"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 10
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("jokers", 0, "jokers per deck, each declared as any card", choices=(0, 1, 2)),
        OptionSpec("decks", "auto", "auto: two decks beyond five players", ("auto", "1", "2")),
        OptionSpec("black_jack_pickup", 5, "cards a black jack adds", minimum=1, maximum=20),
        OptionSpec("aces_anytime", False, "an ace may be played on anything but a pick-up"),
        OptionSpec("chain", False, "multi-card plays where each card matches the previous"),
        OptionSpec("ranking", False, "play on until one player is left (the loser)"),
        OptionSpec("must_play_if_able", False, "a player who can play may not draw"),
        OptionSpec("blunders", True, "illegal or out-of-turn plays are taken back for 2 cards"),
    )

    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        super().__init__(seats=seats, options=options, dealer=dealer)
        decks = self.options["decks"]
        self.decks = (2 if seats > 5 else 1) if decks == "auto" else int(decks)
        self.hand_size = 5 if seats > 5 else 7
        self.dealer = dealer
        self.phase = Phase.DEALING
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.stock: list[Card] = []
        self.discards: list[Card] = []
        self.stream = 0
        self.position = 0  # next unused position of the current stream
        self.current = 0
        self.direction = 1  # +1 clockwise (increasing seat numbers)
        self.pending = 0  # pick-up owed by the seat to act (or its successor while covering)
        self.covering = False  # the seat to act must cover its queen
        self.active = [True] * seats
        self.finished: list[int] = []
        self.declared = [False] * seats  # said at the end of the seat's previous turn
        self.window: int | None = None  # seat that may still declare for its last turn
        # per seat, the seat whose turn action closed its last window (for refusals only)
        self._closed_by: list[int | None] = [None] * seats
        self._top_as: Card | None = None
        self._named: Suit | None = None
        self._said = False  # a declaration made during the current turn
        self._owed: list[tuple[int, int, str]] = []  # (seat, count, reason) waiting to be drawn
        self._dry = 0  # consecutive turns ending in a draw that found nothing
        self.turns = 0  # turns ended so far (see TURN_LIMIT)
        self._outcome: Outcome | None = None
        self._bjp = int(self.options["black_jack_pickup"])

    # ------------------------------------------------------------------ chance

    def chance_request(self) -> ChanceRequest | None:
        if self.phase is Phase.DEALING:
            deck = deck_for(jokers=int(self.options["jokers"]), decks=self.decks)
            return ChanceRequest(ChanceKind.DEAL, 1, 0, tuple(deck), self.dealer is None)
        if self.phase is Phase.RESHUFFLING:
            recycled = sorted(self.discards[:-1], key=lambda c: c.index)
            return ChanceRequest(ChanceKind.RESHUFFLE, 1, self.stream + 1, tuple(recycled))
        return None

    def apply_chance(self, order: Sequence[Card], dealer: int | None = None) -> list[Event]:
        request = self.chance_request()
        if request is None:
            raise ChanceError("no chance request is pending")
        if Counter(c.index for c in order) != Counter(c.index for c in request.cards):
            raise ChanceError("the chance outcome is not a permutation of the requested cards")
        events: list[Event] = []
        self.stock = list(order)
        self.position = 0
        if request.kind is ChanceKind.RESHUFFLE:
            self.stream = request.stream
            del self.discards[:-1]
            events.append(Event("reshuffle", {"stream": self.stream, "count": len(order)}))
            return self._settle(events)
        if request.choose_dealer:
            if dealer is None or not 0 <= dealer < self.seats:
                raise ChanceError("the first deal must name a dealer seat")
            self.dealer = dealer
        assert self.dealer is not None
        events.append(Event("deal", {"dealer": self.dealer, "hand_no": 1}))
        dealt: list[list[tuple[Card, int]]] = [[] for _ in range(self.seats)]
        for i in range(self.hand_size * self.seats):
            dealt[(self.dealer + 1 + i) % self.seats].append((self.stock[i], i))
        del self.stock[: self.hand_size * self.seats]
        self.position = self.hand_size * self.seats
        for seat, got in enumerate(dealt):
            self.hands[seat] = [c for c, _ in got]
            self._draw_events(events, seat, got, "deal")
        while True:  # turn up the first card; a joker is covered by the next one
            up = self.stock.pop(0)
            self.discards.append(up)
            events.append(Event("turn_up", {"card": up.code, "positions": [[0, self.position]]}))
            self.position += 1
            if not up.is_joker:
                break
        self._top_as = self.discards[-1]
        self.current = (self.dealer + 1) % self.seats
        self.phase = Phase.PLAYING
        return self._settle(events)

    # ------------------------------------------------------------------ acting

    def to_act(self) -> tuple[int, ...]:
        return (self.current,) if self.phase is Phase.PLAYING else ()

    def parse_action(self, wire: object) -> Action:
        if not isinstance(wire, dict):
            raise InvalidAction(f"an action is a map, not {type(wire).__name__}")
        kind = wire.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            raise InvalidAction(f"unknown action type {kind!r} (play, draw, declare)")
        extra = sorted(str(k) for k in wire if k not in _FIELDS[kind])
        if extra:
            raise InvalidAction(f"unknown field {extra[0]!r} in a {kind} action")
        if kind == "draw":
            return Draw(_say_field(wire, "say", required=False))
        if kind == "declare":
            what = _say_field(wire, "what", required=True)
            assert what is not None
            return Declare(what)
        suit: Suit | None = None
        if wire.get("suit") is not None:
            try:
                suit = Suit.parse(wire["suit"])
            except CardCodeError as exc:
                raise InvalidAction(exc.message) from None
        return Play(
            _cards_field(wire, "cards", required=True),
            suit,
            _cards_field(wire, "declare", required=False),
            _say_field(wire, "say", required=False),
        )

    def check(self, seat: int, action: Action) -> None:
        self._judge(seat, action)

    def apply(self, seat: int, action: Action) -> list[Event]:
        blunder = self._judge(seat, action)
        events: list[Event] = []
        if isinstance(action, Declare):
            self.declared[seat] = True
            events.append(Event("declare", {"seat": seat, "what": action.what.value}))
            return events
        if blunder is not None:
            assert isinstance(action, Play)
            return self._blunder(seat, action, blunder, events)
        self._close_window(seat)
        if isinstance(action, Draw):
            self._said |= action.say is not None
            nothing = not self.stock and len(self.discards) <= 1
            self._dry = self._dry + 1 if nothing else 0
            if self.covering:
                owed, reason = 1, "queen"
            elif self.pending:
                owed, reason, self.pending = self.pending, "pickup", 0
            else:
                owed, reason = 1, "draw"
            self._owed.append((seat, owed, reason))
            self._end_turn(seat, events)
            return self._settle(events)
        assert isinstance(action, Play)
        self._play(seat, action, events)
        return self._settle(events)

    def _single_plays(self, card: Card) -> list[Action]:
        return [Play((card,), s, d) for s, d in single_forms(card)]

    def _why_not(self, seat: int, action: Action) -> tuple[str, bool]:
        try:
            blunder = self._judge(seat, action)
        except RulesError as exc:
            return exc.message, False
        if blunder is None:
            return "", False
        pickup = 0 if self.covering else self.pending
        cost = blunder_cost(in_turn=seat == self.current, pickup=pickup)
        if seat != self.current:
            blunder = f"out of turn: it is seat {self.current}'s turn"
        return f"{blunder}; playing it anyway is a blunder: {cost}", True

    def _judge(self, seat: int, action: Action) -> str | None:
        """Raise unless ``action`` may be applied; for a blunder, return why it is one."""
        if self.phase is not Phase.PLAYING:
            raise NotYourTurn(_WAIT[self.phase])
        if not 0 <= seat < self.seats:
            raise NotYourTurn(f"there is no seat {seat}")
        if isinstance(action, Declare):
            if self.window != seat:
                raise IllegalAction(self._no_declare_reason(seat))
            if self.declared[seat]:
                raise IllegalAction("you have already declared for this turn")
            return None
        if isinstance(action, Draw):
            if seat != self.current:
                raise NotYourTurn(f"it is seat {self.current}'s turn")
            if self.options["must_play_if_able"] and self._has_play(seat):
                raise IllegalAction("you may not draw while you can play (must_play_if_able)")
            return None
        if not isinstance(action, Play):
            raise InvalidAction(f"not a Black Jack action: {action!r}")
        acting = self._shape(seat, action)
        if seat != self.current:
            if not self.options["blunders"]:
                raise NotYourTurn(f"it is seat {self.current}'s turn")
            return f"played out of turn (seat {self.current} is to act)"
        error = self._rule_error(seat, acting)
        if error is not None and not self.options["blunders"]:
            raise IllegalAction(error)
        return error

    def _no_declare_reason(self, seat: int) -> str:
        """Why ``seat`` may not send a ``declare`` now (its window is not open)."""
        how = "say it with your play or draw, or declare right after it"
        closer = self._closed_by[seat]
        if closer is not None:
            who = "you" if closer == seat else f"seat {closer}"
            late = f"too late to declare for your last turn: {who} took a turn since"
            if seat == self.current:
                return f"{late}; to declare at the end of this turn, {how}"
            return late
        if seat == self.current:
            return f"you declare at the end of your turn: {how}"
        return "you may declare only at the end of your own turn, before the next player acts"

    def _shape(self, seat: int, play: Play) -> list[Card]:
        """The cards as they act (jokers replaced); raise :class:`InvalidAction` on bad shape."""
        if not play.cards or len(play.cards) > _MAX_PLAY:
            raise InvalidAction("a play puts down 1 to 30 cards")
        missing = Counter(play.cards) - Counter(self.hands[seat])
        if missing:
            raise InvalidAction(f"seat {seat} does not hold {next(iter(missing)).code}")
        jokers = sum(c.is_joker for c in play.cards)
        if len(play.declare) != jokers or any(c.is_joker for c in play.declare):
            raise InvalidAction("declare one non-joker card for each joker played, in order")
        names = iter(play.declare)
        acting = [next(names) if c.is_joker else c for c in play.cards]
        if (acting[-1].rank is Rank.ACE) != (play.suit is not None):
            raise InvalidAction("name a suit exactly when the last card acts as an ace")
        return acting

    def _matches(self, c: Card) -> bool:
        top = self._top_as
        assert top is not None
        if self.options["aces_anytime"] and c.rank is Rank.ACE:
            return True
        return c.rank is top.rank or c.suit is (self._named or top.suit)

    def _rule_error(self, seat: int, acting: Sequence[Card]) -> str | None:
        """Why the seat to act may not play ``acting`` now, or ``None`` if it may."""
        left = len(self.hands[seat]) - len(acting)
        first = acting[0]
        if self.pending and not self.covering:
            if len(acting) != 1:
                return f"against a pick-up of {self.pending} only a single counter may be played"
            if first.rank not in (Rank.TWO, Rank.JACK):
                return f"{first.code} does not counter a pick-up (a 2 or a jack)"
            return None
        if not self.covering and not self._matches(first):
            top = self._top_as
            assert top is not None
            if self._named is not None:
                named = _SUIT_NAMES[self._named]
                why = f"neither the rank of {top.code} nor the suit named with it ({named})"
            else:
                why = f"neither the rank nor the suit of {top.code}"
            if self.discards[-1].is_joker:
                why += f" (the joker on top stands for {top.code})"
            return f"{first.code} matches {why}"
        if len(acting) > 1 and not _is_run(acting):
            if not (self.options["chain"] and _is_chain(acting)):
                return "several cards must form a run in one suit"
            if left == 0:
                return "a chain may not finish the hand"
        if left == 0 and acting[-1].rank is Rank.QUEEN:
            return "a queen cannot be the last card out"
        return None

    def _has_play(self, seat: int) -> bool:
        return any(isinstance(a, Play) for a in self._plays(seat, first_only=True))

    # ------------------------------------------------------------------ effects

    def _play(self, seat: int, play: Play, events: list[Event]) -> None:
        acting = self._shape(seat, play)
        hand = self.hands[seat]
        for c in play.cards:
            hand.remove(c)
        self.discards.extend(play.cards)
        self._dry = 0
        self._said |= play.say is not None
        last = acting[-1]
        data: WireMap = {"seat": seat, **play.to_wire()}
        del data["type"]
        data.pop("say", None)
        if (
            self.pending
            and not self.covering
            and last.rank is Rank.JACK
            and not _is_black_jack(last)
        ):
            data["cancelled"] = self.pending
            self.pending = 0
        else:
            self.pending += sum(
                2 if c.rank is Rank.TWO else self._bjp if _is_black_jack(c) else 0 for c in acting
            )
        self._top_as, self._named = last, play.suit
        data["pending"] = self.pending
        events.append(Event("play", data))
        if play.say is not None:
            events.append(Event("declare", {"seat": seat, "what": play.say.value}))
        undeclared = False
        if not hand:
            if self.declared[seat]:
                events.append(Event("out", {"seat": seat, "place": len(self.finished) + 1}))
                self.finished.append(seat)
                self.active[seat] = False
                if not self.options["ranking"]:
                    self._finish(Termination.WENT_OUT, events)
                    return
                if sum(self.active) == 1:
                    self._finish(Termination.RANKED, events)
                    return
            else:
                undeclared = True
                events.append(Event("undeclared", {"seat": seat, "penalty": 2}))
        if last.rank is Rank.QUEEN:
            self.covering = True
            events.append(Event("cover", {"seat": seat}))
            return
        if last.rank is Rank.KING and sum(self.active) > 2:
            self.direction = -self.direction
            events.append(Event("reverse", {"direction": self._direction_name()}))
        self._end_turn(seat, events, skip=last.rank is Rank.EIGHT)
        if undeclared:
            self._owed.append((seat, 2, "undeclared"))

    def _blunder(self, seat: int, play: Play, reason: str, events: list[Event]) -> list[Event]:
        in_turn = seat == self.current
        cards = [c.code for c in play.cards]
        events.append(
            Event("blunder", {"seat": seat, "cards": cards, "reason": reason, "in_turn": in_turn})
        )
        self._owed.append((seat, BLUNDER_CARDS, "blunder"))
        if in_turn:
            self._close_window(seat)
            if self.pending and not self.covering:
                self._owed.append((seat, self.pending, "pickup"))
                self.pending = 0
            self._dry = 0
            self._end_turn(seat, events)
        return self._settle(events)

    def _close_window(self, actor: int) -> None:
        """A turn action by ``actor`` ends the declaration window of the last turn."""
        if self.window is not None:
            self._closed_by[self.window] = actor
        self.window = None

    def _next(self, seat: int) -> int:
        s = (seat + self.direction) % self.seats
        while not self.active[s]:
            s = (s + self.direction) % self.seats
        return s

    def _end_turn(self, seat: int, events: list[Event], *, skip: bool = False) -> None:
        self.turns += 1
        self.declared[seat] = self._said
        self._said = False
        self.covering = False
        self.window = seat if self.active[seat] else None
        nxt = self._next(seat)
        if skip:
            events.append(Event("skip", {"seat": nxt}))
            nxt = self._next(nxt)
        self.current = nxt

    def _settle(self, events: list[Event]) -> list[Event]:
        """Draw whatever is owed (pausing for a reshuffle), then announce the turn."""
        while self._owed:
            seat, count, reason = self._owed[0]
            take = self.stock[:count]
            del self.stock[:count]
            got = [(c, self.position + i) for i, c in enumerate(take)]
            self.position += len(take)
            self.hands[seat].extend(take)
            if got:
                self._draw_events(events, seat, got, reason)
            if len(take) < count:
                if len(self.discards) > 1:
                    self._owed[0] = (seat, count - len(take), reason)
                    if self.phase is not Phase.OVER:
                        self.phase = Phase.RESHUFFLING
                    return events
                events.append(Event("forgiven", {"seat": seat, "count": count - len(take)}))
            self._owed.pop(0)
        if self.phase is not Phase.OVER:
            if self._dry >= sum(self.active):  # a full round found nothing to draw
                self._finish(Termination.EXHAUSTED, events)
            elif self.turns >= TURN_LIMIT:  # play that may cycle for ever
                self._finish(Termination.TURN_LIMIT, events)
        if self.phase is Phase.OVER:
            return events
        self.phase = Phase.PLAYING
        data: WireMap = {"seat": self.current, "pending": self.pending, "cover": self.covering}
        events.append(Event("turn", data))
        return events

    def _draw_events(
        self, events: list[Event], seat: int, got: list[tuple[Card, int]], reason: str
    ) -> None:
        positions = [[self.stream, p] for _, p in got]
        base: WireMap = {"seat": seat, "count": len(got), "reason": reason}
        events.append(Event("draw", {**base, "positions": positions}))
        cards = [c.code for c, _ in got]
        events.append(Event("draw", {**base, "positions": positions, "cards": cards}, to=seat))

    def _finish(self, termination: Termination, events: list[Event]) -> None:
        left = sorted(
            (s for s in range(self.seats) if self.active[s]),
            key=lambda s: (len(self.hands[s]), s),
        )
        ranking = tuple(self.finished) + tuple(left)
        if self.finished:
            winners: tuple[int, ...] = (self.finished[0],)
        else:
            fewest = len(self.hands[left[0]])
            winners = tuple(s for s in left if len(self.hands[s]) == fewest)
        stopped = termination in (Termination.EXHAUSTED, Termination.TURN_LIMIT)
        ranked = bool(self.options["ranking"]) or stopped
        self._outcome = Outcome(termination, winners, ranking if ranked else None)
        self.phase = Phase.OVER
        self.window = None
        events.append(Event("game_over", self._outcome.to_wire()))

    def _direction_name(self) -> str:
        return "clockwise" if self.direction == 1 else "counter-clockwise"

    # ------------------------------------------------------------------ offering

    def legal_actions(self, seat: int) -> list[Action]:
        """Draw (when allowed), a declaration in the seat's window, then every legal play.

        Plays come in a stable order: every single card (held cards in canonical order, then
        each joker as each identity it may take), then every run of two or more (from each legal
        first card, the same order; upwards then downwards; in each place the held card first,
        then each joker standing for it; all prefixes), then with ``chain`` every other chain,
        shortest first. An ace as last card comes once per suit. Equal plays come once (a
        second deck's twin cards are one choice). At most :data:`PLAY_LIMIT` plays are listed.
        A play after which the hand could finish carries ``say`` (``check`` takes any ``say``).
        Blunders are never offered: they are mistakes that :meth:`check` accepts so that
        :meth:`apply` can penalise them.
        """
        if self.phase is not Phase.PLAYING or not 0 <= seat < self.seats:
            return []
        out: list[Action] = []
        hand = self.hands[seat]
        if seat == self.current:
            plays = self._plays(seat, first_only=False)
            if not (self.options["must_play_if_able"] and plays):
                out.append(Draw())
        else:
            plays = []
        if self.window == seat and not self.declared[seat] and _finishable(hand):
            out.append(Declare(Declaration.LAST_CARD if len(hand) == 1 else Declaration.CARDS))
        return out + plays

    def _plays(self, seat: int, *, first_only: bool) -> list[Action]:
        """The plays offered to ``seat`` (see :meth:`legal_actions`); one if ``first_only``."""
        hand = self.hands[seat]
        counts = Counter(hand)
        held = sorted(counts, key=lambda c: c.index)
        attacked = self.pending and not self.covering
        allowed = self._counter if attacked else self._may_start
        starts = [(c, c) for c in held if not c.is_joker and allowed(c)]
        jokers = [c for c in held if c.is_joker]
        if jokers:  # each joker as each identity that may start
            names = [n for n in _NATURAL if allowed(n)]
            starts += [(j, n) for j in jokers for n in names]
        seqs: Iterable[_Seq] = (((c,), (a,)) for c, a in starts)
        if not attacked:
            seqs = itertools.chain(seqs, _runs(starts, counts))
            if self.options["chain"]:
                seqs = itertools.chain(seqs, _chains(starts, counts))
        out: list[Action] = []
        for cards, acting in seqs:
            if self._rule_error(seat, acting) is not None:
                continue
            declare = tuple(a for c, a in zip(cards, acting, strict=True) if c.is_joker)
            suits: Sequence[Suit | None] = _SUITS if acting[-1].rank is Rank.ACE else (None,)
            if first_only:
                return [Play(cards, suits[0], declare)]
            if len(out) + len(suits) > PLAY_LIMIT:
                break
            say = None
            if len(hand) > len(cards):
                rest = list(hand)
                for c in cards:
                    rest.remove(c)
                if _finishable(rest):
                    say = (
                        Declaration.LAST_CARD if len(cards) + 1 == len(hand) else Declaration.CARDS
                    )
            out.extend(Play(cards, s, declare, say) for s in suits)
        return out

    def _counter(self, c: Card) -> bool:
        return c.rank is Rank.TWO or c.rank is Rank.JACK

    def _may_start(self, c: Card) -> bool:
        return self.covering or self._matches(c)

    def default_action(self, seat: int) -> Action | None:
        """The draw for the seat to act (a forced play under ``must_play_if_able``)."""
        playing = self.phase is Phase.PLAYING and seat == self.current
        if playing and not self.options["must_play_if_able"]:
            return Draw()
        legal = self.legal_actions(seat)
        return legal[0] if legal else None

    # ------------------------------------------------------------------ seeing

    def view(self, seat: int | None) -> WireMap:
        """Every public fact, plus the seat's own hand and legal moves (not for a spectator)."""
        self.require_seat(seat)
        top = self._top_as
        suit = self._named or (top.suit if top is not None else None)
        out: WireMap = {
            "game": self.name,
            "phase": self.phase.value,
            "seats": self.seats,
            "seat": seat,
            "dealer": self.dealer,
            "hand_no": 1,
            "to_act": list(self.to_act()),
            "direction": self._direction_name(),
            "top": self.discards[-1].code if self.discards else None,
            "rank": top.rank.code if top is not None else None,
            "suit": suit.value if suit is not None else None,
            "named_suit": self._named.value if self._named is not None else None,
            "pending": self.pending,
            "cover": self.covering,
            "discards": [c.code for c in self.discards],
            "stock": len(self.stock),
            "stream": self.stream,
            "next_position": self.position,
            "hand_counts": [len(h) for h in self.hands],
            "declared": list(self.declared),
            "declare_window": self.window,
            "out": list(self.finished),
            "options": dict(self.options),
            "outcome": self._outcome.to_wire() if self._outcome is not None else None,
            "hand": None,
            "legal": [],
        }
        if seat is not None:
            out["hand"] = [c.code for c in sorted(self.hands[seat], key=lambda c: c.index)]
            out["legal"] = [a.to_wire() for a in self.legal_actions(seat)]
        return out

    def hidden_from(self, seat: int | None) -> list[Card]:
        """The cards ``seat`` (``None``: a spectator) may not see: the stock and other hands."""
        return [c for s, h in enumerate(self.hands) if s != seat for c in h] + self.stock

    def outcome(self) -> Outcome | None:
        return self._outcome

    def all_cards(self) -> list[Card]:
        """Every card: before the deal, the whole (undealt) deck."""
        if self.phase is Phase.DEALING:
            return deck_for(jokers=int(self.options["jokers"]), decks=self.decks)
        return [c for h in self.hands for c in h] + self.stock + self.discards
