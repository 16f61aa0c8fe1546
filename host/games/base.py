"""The interface every game implements: its static rules (:class:`Game`) and its running hand
(:class:`State`).

How it works (after OpenSpiel's game/state split and python-chess's parse-then-apply):

* A game is two objects, as in OpenSpiel (``KuhnPokerGame`` / ``KuhnPokerState``). Its
  :class:`Game`, one instance (``GAME``) in the game's ``engine.py`` and the thing the registry
  names, holds what never changes: name, title, seat range, option specs; it checks a seat count
  and options and makes the running hand (:meth:`Game.new_initial_state`). Its :class:`State`
  subclass (``OneCard``, ``BlackJack``, ``One``) is the running hand: a pure, synchronous state
  machine made from validated options, a seat count and a dealer seat, which reads its rules
  through :attr:`State.game`. It does no I/O, reads no clock and draws no random numbers. The
  game's cards, points and rank order are stated once in its ``rules.py``.
* Chance is supplied from outside. Whenever the engine needs a shuffled deck (a new hand) or a
  reshuffle of the discard pile, :meth:`State.chance_request` returns a :class:`ChanceRequest`
  naming the stream and the cards in canonical order; the caller (the host, through the fairness
  module, or a scenario file, or a test's seeded RNG) answers with :meth:`State.apply_chance`.
  While a request is pending no seat may act. A game therefore replays exactly from its chance
  outcomes plus its action log.
* Seats act through value-object :class:`Action` subclasses. Wire maps become actions through
  :meth:`State.parse_action` (raises :class:`InvalidAction`); :meth:`State.check` raises
  :class:`NotYourTurn` or :class:`IllegalAction`; :meth:`State.apply` applies a checked action
  (it does not check again: the host's runner parses and checks each move once) and returns
  the :class:`Event` list describing what happened, public events and private ones (addressed
  to one seat) in order.
* :meth:`State.view` is the single place that decides what a seat (or a spectator, ``None``)
  may see. Its result is a wire-ready dict (str keys; str/int/bool/None/list/dict values) that
  always has the common core :data:`protocol.views.VIEW_CORE_KEYS`, plus keys of its own.
* :meth:`State.hidden_from` lists the cards a seat may not see: what ``view`` must never show.
* :meth:`State.outcome` is ``None`` until the game is over, then an :class:`Outcome`.

Cards drawn from the stock carry their fairness coordinates: every public event that moves
cards off the stock includes ``"positions": [[stream, position], ...]`` so clients can check
that the host dealt the next unused position of the current stream.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from protocol.cards import Card, CardCodeError, parse_card
from protocol.errors import ErrorCode, LocalProtocolError

__all__ = [
    "TURN_LIMIT",
    "Action",
    "ChanceError",
    "ChanceKind",
    "ChanceRequest",
    "Event",
    "Explanation",
    "Game",
    "Hidden",
    "IllegalAction",
    "InvalidAction",
    "InvalidCard",
    "NeedOpen",
    "NotYourTurn",
    "OptionError",
    "OptionSpec",
    "Outcome",
    "RulesError",
    "SeatError",
    "State",
    "Termination",
    "WireMap",
    "describe_outcome",
    "parse_wire_card",
    "played_cards",
]

TURN_LIMIT = 1000
"""Turns after which a shedding game stops as :attr:`Termination.TURN_LIMIT` (fewest cards
win): a safety stop, since legal play can cycle for ever (a card played, drawn back through a
reshuffle, played again; two jokers passed back and forth through a one-card stock)."""

WireMap = dict[str, Any]
"""A msgpack/JSON-ready map: str keys; str, int, bool, None, list or dict values."""

# --------------------------------------------------------------------------- errors


class RulesError(LocalProtocolError, ValueError):
    """Base of the errors an action can meet; each carries its wire code."""


class InvalidAction(RulesError):
    """The action is malformed: unknown type, missing or mistyped field, cards not held.

    A card code that does not parse is the subclass :class:`InvalidCard` (``bad_card``).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.BAD_FIELD)


class InvalidCard(InvalidAction):
    """A card code in the action could not be parsed (wire code ``bad_card``).

    A subclass of :class:`InvalidAction`, so ``except InvalidAction`` still catches it. A code
    that parses but names a card the seat does not hold stays :class:`InvalidAction`
    (``bad_field``): such a card was never put down.
    """

    def __init__(self, message: str) -> None:
        RulesError.__init__(self, message, code=ErrorCode.BAD_CARD)


class IllegalAction(RulesError):
    """The action is well-formed but not legal now (e.g. a card that does not match)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.ILLEGAL_ACTION)


class NotYourTurn(RulesError):
    """The seat may not act now."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.NOT_YOUR_TURN)


class ChanceError(LocalProtocolError, ValueError):
    """A chance answer the engine cannot use (nothing pending, not a permutation, no dealer)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.FAIRNESS)


class SeatError(LocalProtocolError, ValueError):
    """A seat number the game does not have (seats are 0..n-1; ``None`` is a spectator)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.NOT_FOUND)


class OptionError(LocalProtocolError, ValueError):
    """A table option is unknown or has a bad value."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.BAD_FIELD)


def parse_wire_card(code: object, field: str = "cards") -> Card:
    """The card for one wire card code of an action.

    Raises:
        InvalidAction: ``code`` is not a string (a mistyped field: ``bad_field``).
        InvalidCard: a string that is not a card code (``bad_card``).
    """
    if not isinstance(code, str):
        raise InvalidAction(f"{field!r} takes card codes (strings), not {type(code).__name__}")
    try:
        return parse_card(code)
    except CardCodeError as exc:
        raise InvalidCard(exc.message) from None


# --------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One table option (house rule) of a game: name, type, default, allowed values, help.

    Every integer option without ``choices`` has both ``minimum`` and ``maximum`` (a test
    checks it), so no value beyond what a JSON client holds exactly (2**53 - 1) is accepted
    and echoed in ``table_info``.
    """

    name: str
    default: bool | int | str
    help: str
    choices: tuple[bool | int | str, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def validate(self, value: object) -> bool | int | str:
        """Coerce and check one value; accepts the strings a CLI gives (``"on"``, ``"20"``)."""
        kind = type(self.default)
        coerced: object = value
        if kind is bool:
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("1", "true", "on", "yes"):
                    coerced = True
                elif low in ("0", "false", "off", "no"):
                    coerced = False
            if not isinstance(coerced, bool):
                raise OptionError(f"option {self.name} takes on/off, not {value!r}")
        elif kind is int:
            if isinstance(value, str):
                try:
                    coerced = int(value.strip())
                except ValueError:
                    raise OptionError(f"option {self.name} takes a number, not {value!r}") from None
            if isinstance(coerced, bool) or not isinstance(coerced, int):
                raise OptionError(f"option {self.name} takes a number, not {value!r}")
            too_low = self.minimum is not None and coerced < self.minimum
            if too_low or (self.maximum is not None and coerced > self.maximum):
                # the value is not echoed: it may be any length
                raise OptionError(f"option {self.name} must be {self._range_text()}")
        elif isinstance(value, int) and not isinstance(value, bool) and self.choices is not None:
            # a text option whose choices include numbers ("auto", "1", "2") takes the number too
            coerced = str(value)
        elif not isinstance(coerced, str):
            raise OptionError(f"option {self.name} takes text, not {value!r}")
        if self.choices is not None and coerced not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise OptionError(f"option {self.name} must be one of {allowed}, not {value!r}")
        assert isinstance(coerced, bool | int | str)
        return coerced

    def _range_text(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f"{self.minimum}-{self.maximum}"
        if self.minimum is not None:
            return f"at least {self.minimum}"
        return f"at most {self.maximum}"

    def to_wire(self) -> WireMap:
        out: WireMap = {"name": self.name, "default": self.default, "help": self.help}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.maximum is not None:
            out["max"] = self.maximum
        return out


# --------------------------------------------------------------------------- chance


class ChanceKind(enum.Enum):
    DEAL = "deal"  #: a new hand: shuffle the whole deck (stream 0)
    RESHUFFLE = "reshuffle"  #: the discard pile (minus the top card) becomes the stock
    #: a blind engine (private table) needs ``positions`` face up: answered by ``reveal``
    OPEN = "open"


@dataclass(frozen=True, slots=True)
class ChanceRequest:
    """What the engine needs from chance before anyone may act.

    ``cards`` is in canonical order (for a reshuffle: the recycled discards sorted by canonical
    index; ``kept``: what the rules leave on the pile). The answer is a permutation of ``cards``,
    top of the new stock first. For a ``DEAL``
    with ``choose_dealer`` set (the first hand of a game), the answer also names the dealer,
    drawn from the fairness module's reserved dealer stream.
    """

    kind: ChanceKind
    hand_no: int  # 1-based
    stream: int  # 0 for a deal, k for the k-th reshuffle of the hand
    cards: tuple[Card, ...]
    choose_dealer: bool = False
    #: a reshuffle's cards that stay face up on the discard pile (the top card), canonical order
    kept: tuple[Card, ...] = ()
    #: ``OPEN``: the ``(stream, position)`` pairs to open, in order (``cards`` is then empty)
    positions: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Hidden:
    """Position ``pos`` of fair-deal stream ``stream``: a card a blind engine does not know.

    On a private table (``spec/PROTOCOL.md`` 10) the host answers a chance request with these
    in place of cards (position ``i`` of the answer is ``Hidden(stream, i)``) and the engine
    deals them as cards. They compare by coordinates. Asking one for what only a card knows
    (``rank``, ``suit``, ``color``, ``index``, ``is_joker``) raises :class:`NeedOpen`, which a
    blind engine turns into an ``OPEN`` chance request; its ``code`` is ``"?"``, never a card
    code (a blind engine strips the private events that list codes).
    """

    stream: int
    pos: int

    @property
    def code(self) -> str:
        return "?"

    @property
    def rank(self) -> Any:
        raise NeedOpen(((self.stream, self.pos),))

    @property
    def suit(self) -> Any:
        raise NeedOpen(((self.stream, self.pos),))

    @property
    def color(self) -> Any:
        raise NeedOpen(((self.stream, self.pos),))

    @property
    def index(self) -> int:
        raise NeedOpen(((self.stream, self.pos),))

    @property
    def is_joker(self) -> bool:
        raise NeedOpen(((self.stream, self.pos),))

    def to_wire(self) -> list[int]:
        """``[stream, pos]``, the form events' ``positions`` use."""
        return [self.stream, self.pos]


class NeedOpen(Exception):
    """A blind engine met a :class:`Hidden` whose card the rules need now (turned face up).

    Raised inside a trial step of :mod:`host.games.private`, which then asks for ``positions``
    with an ``OPEN`` chance request and runs the step again once they are revealed.
    ``by_rule`` is true when a blind engine raises it on purpose for cards the rules turn face
    up from a hand (a bankrupt hand, the hand's end); a ``Hidden`` asked for its face raises it
    with ``by_rule`` false, and may then never name a card a seat holds.
    """

    def __init__(self, positions: tuple[tuple[int, int], ...], *, by_rule: bool = False) -> None:
        super().__init__(f"positions {list(positions)} must be opened first")
        self.positions = positions
        self.by_rule = by_rule


# --------------------------------------------------------------------------- actions, events


class Action(abc.ABC):
    """A seat's intent, as a frozen value object. Subclasses are frozen dataclasses.

    ``to_wire()`` gives the map a client sends (``{"type": "play", "cards": ["7S"], ...}``);
    each game's ``parse_action`` is its inverse.
    """

    @abc.abstractmethod
    def to_wire(self) -> WireMap: ...

    def __str__(self) -> str:
        wire = self.to_wire()
        rest = " ".join(
            f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
            for k, v in wire.items()
            if k != "type"
        )
        return f"{wire['type']} {rest}".strip()


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened. ``to is None``: public; otherwise private to seat ``to``.

    ``data`` is wire-ready and never holds a card that its audience may not see.
    """

    kind: str
    data: WireMap = field(default_factory=dict)
    to: int | None = None

    def to_wire(self) -> WireMap:
        out: WireMap = {"kind": self.kind, **self.data}
        if self.to is not None:
            out["to"] = self.to
        return out


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a held card cannot be played now (:meth:`State.explain`); wire form: ``explained``.

    ``reason`` is empty when a legal action plays the card. ``blunder`` is true when the play
    would be accepted anyway as a blunder (the reason then says what it costs). ``action`` is
    the one action that puts down this card alone and would be accepted (legal or a blunder),
    or ``None`` when there is none or several (a seven or a joker naming a suit).
    """

    reason: str
    blunder: bool = False
    action: Action | None = None

    def to_wire(self) -> WireMap:
        action = None if self.action is None else self.action.to_wire()
        return {"reason": self.reason, "blunder": self.blunder, "action": action}


def played_cards(action: Action) -> list[str]:
    """The card codes an action puts down (its wire ``cards``, or ``card``); ``[]`` if none."""
    wire = action.to_wire()
    cards = wire.get("cards", [wire["card"]] if "card" in wire else [])
    return [str(c) for c in cards]


# --------------------------------------------------------------------------- outcome


class Termination(enum.Enum):
    WENT_OUT = "went_out"  #: a player shed their last card
    RANKED = "ranked"  #: ranking option: play went on until one player was left
    TARGET = "target"  #: ONE: a player reached the target score
    EXHAUSTED = "exhausted"  #: no cards left anywhere to play or draw (a safety stop)
    TURN_LIMIT = "turn_limit"  #: the turn limit was reached (a safety stop real play never meets)
    LAST_STANDING = "last_standing"  #: One Card: every other player went bankrupt


@dataclass(frozen=True, slots=True)
class Outcome:
    termination: Termination
    winners: tuple[int, ...]
    #: finishing order, first to last, when the game produces one
    ranking: tuple[int, ...] | None = None
    #: final scores by seat, for scored games
    scores: tuple[int, ...] | None = None
    #: private tables: seats the end-of-hand audit caught, who forfeited (``host.games.audit``)
    forfeited: tuple[int, ...] = ()

    def to_wire(self) -> WireMap:
        out: WireMap = {
            "termination": self.termination.value,
            "winners": list(self.winners),
            "ranking": None if self.ranking is None else list(self.ranking),
            "scores": None if self.scores is None else list(self.scores),
        }
        if self.forfeited:  # only on a private table, only when the audit caught a seat
            out["forfeited"] = list(self.forfeited)
        return out


def describe_outcome(outcome: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """One readable line: ``seat 1 (Ann) went out``, ``seat 0 (Bo) reached the target ...``."""

    def who(seat: object) -> str:
        name = names.get(seat) if isinstance(seat, int) else None
        return f"seat {seat}" + (f" ({name})" if name else "")

    winners = [who(w) for w in outcome.get("winners") or []]
    termination = outcome.get("termination")
    if not winners:
        line = "nobody won"
    else:
        verb = {
            "went_out": "went out",
            "target": "reached the target score",
            "exhausted": "won (nothing left to play or draw: fewest cards)",
            "turn_limit": "won (the game reached its turn limit: fewest cards)",
            "last_standing": "won (last player standing: the others went bankrupt)",
        }.get(str(termination), "won")
        line = f"{' and '.join(winners)} {verb}"
    ranking = outcome.get("ranking")
    if isinstance(ranking, list) and ranking:
        line += "; finishing order: " + ", ".join(who(s) for s in ranking)
    scores = outcome.get("scores")
    if isinstance(scores, list) and scores:
        line += "; scores: " + ", ".join(f"{who(i)} {v}" for i, v in enumerate(scores))
    return line


# --------------------------------------------------------------------------- the game


@dataclass(frozen=True, eq=False)
class Game:
    """One game's static rules (OpenSpiel's ``Game``): what is true of every hand of it.

    One instance per game, ``GAME`` in the game's ``engine.py``, is what the registry names.
    It holds the game's identity, seat range and option specs, checks a seat count and a set of
    options, and makes the running hand, :meth:`new_initial_state`. It never changes.
    """

    #: registry name, e.g. ``"one-card"``
    name: str
    #: human title, e.g. ``"One Card"``
    title: str
    min_seats: int
    max_seats: int
    #: the table options the game takes, with defaults and help
    option_specs: tuple[OptionSpec, ...]
    #: the :class:`State` subclass that plays one hand (one match for ONE) of the game
    state: type[State]

    def __post_init__(self) -> None:
        # Bind the running hand's class to its rules, so a state made directly (as the tests
        # do, ``OneCard(seats=2)``) checks its seats and options against them too.
        self.state.game = self

    def new_initial_state(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> State:
        """A new running hand for ``seats`` players (``dealer=None``: chance chooses one)."""
        return self.state(seats=seats, options=options, dealer=dealer)

    def check_seats(self, seats: int) -> None:
        """Raise :class:`OptionError` unless the game is played by ``seats`` players: the one
        seat-count check (a table checks it when it is created, the engine when it is made)."""
        if not self.min_seats <= seats <= self.max_seats:
            raise OptionError(
                f"{self.title} takes {self.min_seats}-{self.max_seats} players, not {seats}"
            )

    def validate_options(self, options: Mapping[str, object]) -> dict[str, bool | int | str]:
        """All options with defaults filled in; raise :class:`OptionError` on unknown/bad ones."""
        specs = {s.name: s for s in self.option_specs}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            known = ", ".join(specs) or "none"
            raise OptionError(f"unknown option {unknown[0]!r} for {self.name} (known: {known})")
        return {
            n: (s.validate(options[n]) if n in options else s.default) for n, s in specs.items()
        }


class State(abc.ABC):
    """A running game (one hand, or a whole match for ONE; OpenSpiel's ``State``).

    Everything here changes as the hand is played; the static rules are :attr:`game`'s.
    """

    #: the game's static rules, bound by :class:`Game` when the game's ``GAME`` is made
    game: ClassVar[Game]

    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        """``dealer=None`` means the first hand's dealer comes from chance (``choose_dealer``)."""
        self.game.check_seats(seats)
        if dealer is not None and not 0 <= dealer < seats:
            raise OptionError(f"dealer must be a seat 0..{seats - 1}, not {dealer}")
        self.seats = seats
        self.options = self.game.validate_options(options or {})

    # -- chance
    @abc.abstractmethod
    def chance_request(self) -> ChanceRequest | None:
        """The pending chance request, or ``None`` when seats may act (or the game is over)."""

    @abc.abstractmethod
    def apply_chance(self, order: Sequence[Card], dealer: int | None = None) -> list[Event]:
        """Answer the pending request with a permutation of its cards (top first)."""

    # -- acting
    @abc.abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats whose turn it is (usually one; empty while chance is pending or at the end).

        Out-of-turn actions that a game allows (a One Card call, a Black Jack blunder) are not
        turns: they appear in ``legal_actions`` of their seat without that seat being listed.
        """

    @abc.abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, in a stable order (empty if none)."""

    @abc.abstractmethod
    def parse_action(self, wire: object) -> Action:
        """Turn a wire map into an action; raise :class:`InvalidAction` if malformed."""

    @abc.abstractmethod
    def check(self, seat: int, action: Action) -> None:
        """Raise :class:`NotYourTurn` or :class:`IllegalAction` (or :class:`InvalidAction` for a
        card the seat does not hold) unless ``seat`` may take ``action`` now (see :meth:`apply`).
        """

    @abc.abstractmethod
    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``action`` for ``seat``; return the events, in order.

        ``action`` must be one :meth:`check` accepted, or one :meth:`legal_actions` listed, in
        this very state: it is not checked again, and an unchecked one may leave the game in
        any state (the host's runner is the one place that parses and checks a move).
        """

    def default_action(self, seat: int) -> Action | None:
        """What the host plays for a seat whose turn timer ran out (draw / pass)."""
        legal = self.legal_actions(seat)
        return legal[0] if legal else None

    # -- explaining
    def explain(self, seat: int, card: Card) -> Explanation:
        """Why ``seat`` cannot play ``card`` now, without changing anything.

        The contract, in this order:

        * ``card`` not in the seat's hand: the reason says so (never a blunder, no action);
        * some action in :meth:`legal_actions` puts ``card`` down (alone or with others):
          ``reason`` is ``""``; ``action`` is the legal action putting it down alone, if there
          is exactly one such (a seven or a joker naming a suit has several: ``None``);
        * otherwise the reason is the engine's verdict (:meth:`_why_not`) on putting the card
          down alone: not the seat's turn, the wrong phase, or the rule that forbids it. When
          the engine would accept the play as a blunder, ``blunder`` is true, the reason says
          what it costs and ``action`` is that play (for several forms, the first of
          :meth:`_single_plays`: a blunder's cards come back whatever they named).

        Raises :class:`SeatError` for a seat that is not a seat here; never raises otherwise
        and never mutates the game.
        """
        if seat is None:
            raise SeatError("a spectator holds no cards")
        self.require_seat(seat)
        hand = self.view(seat)["hand"] or []
        if card.code not in hand:
            return Explanation(f"{card.code} is not in your hand")
        playing = [a for a in self.legal_actions(seat) if card.code in played_cards(a)]
        if playing:
            alone = [a for a in playing if played_cards(a) == [card.code]]
            return Explanation("", action=alone[0] if len(alone) == 1 else None)
        verdicts = [(form, *self._why_not(seat, form)) for form in self._single_plays(card)]
        for form, reason, blunder in verdicts:
            if blunder:
                return Explanation(reason, True, form)
        reasons = [reason for _, reason, _ in verdicts if reason]
        return Explanation(reasons[0] if reasons else f"{card.code} cannot be played now")

    def _single_plays(self, card: Card) -> list[Action]:
        """Every well-formed action putting down ``card`` alone (every suit it may name...)."""
        return []

    def _why_not(self, seat: int, action: Action) -> tuple[str, bool]:
        """``(reason, blunder)`` for an action not among the legal ones: by default the message
        :meth:`check` raises (``""`` if it accepts). Engines override it for better wording or
        for plays they accept as blunders."""
        try:
            self.check(seat, action)
        except RulesError as exc:
            return exc.message, False
        return "", False

    # -- seeing
    def require_seat(self, seat: int | None) -> None:
        """Raise :class:`SeatError` unless ``seat`` is ``None`` (a spectator) or a seat here.

        Every :meth:`view` calls this first, so a bad seat number is a clear typed error
        rather than an ``IndexError`` (or, for -1, another seat's hand).
        """
        if seat is None:
            return
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise SeatError(f"a seat is a number 0..{self.seats - 1} or None, not {seat!r}")
        if not 0 <= seat < self.seats:
            raise SeatError(
                f"there is no seat {seat}: this {self.game.title} game"
                f" has seats 0..{self.seats - 1}"
            )

    @abc.abstractmethod
    def view(self, seat: int | None) -> WireMap:
        """Everything ``seat`` may see (``None``: a spectator, public information only).

        A seat number outside ``0..seats-1`` raises :class:`SeatError` (see
        :meth:`require_seat`).

        Every game's view has the common core :data:`protocol.views.VIEW_CORE_KEYS`, always
        present (for a spectator too) and meaning the same in every game:

        * ``game`` (str): the registry name; ``seats`` (int): the seat count;
        * ``seat`` (int or null): the viewer's seat, null for a spectator;
        * ``dealer`` (int or null): the dealer seat (null until chance has chosen it);
        * ``hand_no`` (int): the engine's hand number, from 1 (games of one hand: always 1);
        * ``phase`` (str): the game's phase name; ``to_act`` (list of int): :meth:`to_act`;
        * ``hand`` (list of card codes or null): the viewer's cards, null for a spectator;
        * ``hand_counts`` (list of int): how many cards each seat holds, by seat;
        * ``legal`` (list of maps): the viewer's :meth:`legal_actions` in wire form; empty for a
          spectator or while the seat may not act;
        * ``options`` (map): the table options; ``outcome`` (map or null): null until the end,
          then :meth:`Outcome.to_wire`.

        Any other key is the game's own.
        """

    @abc.abstractmethod
    def hidden_from(self, seat: int | None) -> list[Card]:
        """The cards ``seat`` (``None``: a spectator) may not see: other hands, the stock,
        face-down centre cards. :meth:`view` must show none of them (the tests' playouts check
        it, :func:`host.games.playout.view_leaks`), and a searching bot deals exactly these
        into the worlds it imagines."""

    @abc.abstractmethod
    def outcome(self) -> Outcome | None:
        """``None`` while the game goes on."""

    # -- trying moves
    def clone(self) -> Self:
        """A copy to try moves on (``Board.copy()``): lists, dicts and sets copied two levels
        down, the rest (immutable) shared. An engine with deeper mutable state overrides this."""
        twin = object.__new__(type(self))
        twin.__dict__.update({k: _copied(v) for k, v in self.__dict__.items()})
        return twin

    # -- accounting (tests check card conservation with this)
    @abc.abstractmethod
    def all_cards(self) -> list[Card]:
        """Every card in the game wherever it lies (hands, stock, discards, centre, tricks)."""


_CONTAINERS = (list, dict, set)


def _copied(value: object) -> object:
    """``value`` copied two levels down where it is a list, dict or set (:meth:`State.clone`)."""
    kind = type(value)
    if kind is list:
        assert isinstance(value, list)
        return [v.copy() if type(v) in _CONTAINERS else v for v in value]
    if kind is dict:
        assert isinstance(value, dict)
        return {k: v.copy() if type(v) in _CONTAINERS else v for k, v in value.items()}
    if kind is set:
        assert isinstance(value, set)
        return value.copy()
    return value
