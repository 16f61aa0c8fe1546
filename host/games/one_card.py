"""One Card, the Korean shedding game of the Crazy Eights family (rules: ``spec/RULES.md``).

How it works: :class:`OneCard` is a pure state machine on the shared interface of
:mod:`host.games.base`. Its first chance request is the deal (stream 0, the 54 cards in
canonical order); the answer's position 0 is the top of the stock. Cards are dealt one at a time
clockwise from the dealer's left, then the first non-joker is turned up and the seat after the
dealer in the direction of play (default counter-clockwise) acts. A turn is one action: ``Play``
(one card, or with ``multi_play`` several of one rank; a seven names a suit) or ``Draw`` (one
card, or the whole pending attack damage). ``Call`` ("One Card!") is an out-of-turn action any
seat may send while a call window is open.

Every draw goes through one queue of owed cards (``_owed``) settled by :meth:`_settle`: when the
stock runs dry and the discards (minus the top) can be recycled, it stops and raises a
``RESHUFFLE`` chance request; :meth:`apply_chance` installs the new stock and settles the rest.
The turn, phase and direction are decided before the queue is settled, so a suspended draw
never needs a continuation. With ``bankrupt_at`` on, :meth:`_settle` also makes a seat bankrupt
when a draw leaves it holding that many cards or when it owes what cannot be paid
(:meth:`_go_bankrupt`: the hand goes under the top discard and the turn moves on if it was
that seat's); the game ends when a player goes out or one player is left. Legality is
table-driven (frozensets of the cards that may be played on a given top card and suit, built
once per key) and ``legal_actions`` is cached until the next mutation, which keeps random
playouts fast.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Mapping, Sequence
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
    Termination,
    WireMap,
    parse_wire_card,
)
from host.games.one_card_explain import mismatch_reason
from protocol.cards import DECK_54, JOKER_BLACK, JOKER_RED, Card, CardCodeError, Rank, Suit
from protocol.cards import card as _c

__all__ = ["Call", "ChanceError", "Draw", "OneCard", "Phase", "Play", "parse_one_card_action"]


class Phase(enum.Enum):
    DEAL = "deal"  #: waiting for the deal's shuffle
    PLAY = "play"  #: the seat to act plays or draws (perhaps against a pending attack)
    AFTER_ATTACK = "after_attack"  #: took the damage: may play a card just drawn, or draw one
    OVER = "over"  #: the game has ended


_DEAL, _PLAY, _AFTER, _OVER = Phase.DEAL, Phase.PLAY, Phase.AFTER_ATTACK, Phase.OVER
_SEVEN, _JACK, _QUEEN, _KING = Rank.SEVEN, Rank.JACK, Rank.QUEEN, Rank.KING

# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play ``cards`` (first card on the top card; several only with ``multi_play``).

    ``suit`` is required when the cards are sevens (the suit they name) and forbidden otherwise.
    """

    cards: tuple[Card, ...]
    suit: Suit | None = None

    def to_wire(self) -> WireMap:
        wire: WireMap = {"type": "play", "cards": [c.code for c in self.cards]}
        if self.suit is not None:
            wire["suit"] = self.suit.value
        return wire


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """Draw one card (ends the turn), or the whole pending attack damage."""

    def to_wire(self) -> WireMap:
        return {"type": "draw"}


@dataclass(frozen=True, slots=True)
class Call(Action):
    """Call "One Card!" while a call window is open (any seat, out of turn)."""

    def to_wire(self) -> WireMap:
        return {"type": "call"}


DRAW = Draw()
CALL = Call()


def parse_one_card_action(wire: object) -> Action:
    """The action for a wire map; raise :class:`InvalidAction` if it is malformed."""
    if not isinstance(wire, dict):
        raise InvalidAction(f"an action must be a map, not {type(wire).__name__}")
    kind = wire.get("type")
    if kind in ("draw", "call"):
        if len(wire) != 1:
            extra = sorted(str(k) for k in wire if k != "type")
            raise InvalidAction(f"{kind} takes no fields, got {', '.join(map(str, extra))}")
        return DRAW if kind == "draw" else CALL
    if kind != "play":
        raise InvalidAction(f"unknown action type {kind!r} (play, draw, call)")
    extra = sorted(str(k) for k in wire if k not in ("type", "cards", "suit"))
    if extra:
        raise InvalidAction(f"unknown field {extra[0]!r} in play (cards, suit)")
    codes = wire.get("cards")
    if not isinstance(codes, list) or not codes:
        raise InvalidAction("play needs a non-empty list of card codes in 'cards'")
    if len(codes) > len(DECK_54):
        raise InvalidAction("too many cards")
    cards = tuple(parse_wire_card(code) for code in codes)
    try:
        raw_suit = wire.get("suit")
        suit = None if raw_suit is None else Suit.parse(raw_suit)
    except CardCodeError as exc:
        raise InvalidAction(exc.message) from None
    if len(set(cards)) != len(cards):
        raise InvalidAction("a card is listed twice")
    _check_suit_field(cards, suit)
    return Play(cards, suit)


def _check_suit_field(cards: Sequence[Card], suit: Suit | None) -> None:
    if cards[0].rank is Rank.SEVEN and suit is None:
        raise InvalidAction("a seven is wild: name the next suit in 'suit' (S, H, D or C)")
    if cards[0].rank is not Rank.SEVEN and suit is not None:
        raise InvalidAction("only sevens name a suit")


# --------------------------------------------------------------------------- card tables

DAMAGE: dict[Card, int] = {
    **{c: 2 for c in DECK_54 if c.rank is Rank.TWO},
    **{c: 3 for c in DECK_54 if c.rank is Rank.ACE},
    _c("AS"): 5,
    JOKER_BLACK: 10,
    JOKER_RED: 13,
}
ATTACKERS = frozenset(DAMAGE)
_PLAY1 = {c: Play((c,)) for c in DECK_54 if c.rank is not Rank.SEVEN}
_PLAY7 = {c: tuple(Play((c,), s) for s in Suit) for c in DECK_54 if c.rank is Rank.SEVEN}
_PLAYS_OF: dict[Card, tuple[Play, ...]] = {**{c: (p,) for c, p in _PLAY1.items()}, **_PLAY7}
_FOLLOW: dict[tuple[Card, Suit | None], frozenset[Card]] = {}
_DEFEND: dict[tuple[Card, Suit | None], frozenset[Card]] = {}


def _follows(c: Card, top: Card, suit: Suit | None) -> bool:
    """Whether ``c`` plays on ``top`` (current suit ``suit``) with no attack pending."""
    if c.rank is Rank.SEVEN:
        return True
    if top.is_joker:
        return c.is_joker or c.color is top.color
    if c.is_joker:
        return suit is not None and c.color is suit.color
    return c.suit is suit or c.rank is top.rank


def follow_set(top: Card, suit: Suit | None) -> frozenset[Card]:
    """The cards that may be played on ``top`` when the suit to match is ``suit``."""
    key = (top, suit)
    found = _FOLLOW.get(key)
    if found is None:
        found = _FOLLOW[key] = frozenset(c for c in DECK_54 if _follows(c, top, suit))
    return found


def defend_set(top: Card, suit: Suit | None) -> frozenset[Card]:
    """``defence=match``: the attack cards legal on ``top`` (suit, rank or joker colour)."""
    key = (top, suit)
    found = _DEFEND.get(key)
    if found is None:
        found = _DEFEND[key] = follow_set(top, suit) & ATTACKERS
    return found


# --------------------------------------------------------------------------- the game

_DIRECTIONS = {1: "clockwise", -1: "counter-clockwise"}

TURN_LIMIT = 1000
"""Turns after which a game stops as ``EXHAUSTED`` (fewest cards wins): a safety stop for
games that cycle, e.g. two jokers passed back and forth through a one-card stock."""


class OneCard(Game):
    """One Card for 2-8 players; see the module docstring and ``spec/RULES.md``.

    >>> game = OneCard(seats=2, dealer=0)
    >>> _ = game.apply_chance(list(DECK_54))  # unshuffled: seat 1 gets AS 3S 5S 7S 9S JS KS
    >>> game.to_act(), game.view(None)["top"]
    ((1,), '2H')
    >>> [a.to_wire() for a in game.legal_actions(1)][::4]  # the 7S naming S H D C, then draw
    [{'type': 'play', 'cards': ['7S'], 'suit': 'S'}, {'type': 'draw'}]
    >>> [e.kind for e in game.apply(1, game.parse_action({"type": "draw"}))]
    ['draw', 'drawn', 'turn']
    """

    name: ClassVar[str] = "one-card"
    title: ClassVar[str] = "One Card"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 8
    OPTIONS: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "direction",
            "counter-clockwise",
            "direction of play; the first player is the dealer's neighbour that way",
            choices=("counter-clockwise", "clockwise"),
        ),
        OptionSpec(
            "defence",
            "match",
            "against an attack: match = a legal attack card; any = any attack card; "
            "escalate = any, a lower one costs a penalty card",
            choices=("match", "any", "escalate"),
        ),
        OptionSpec("play_after_attack", True, "after drawing the damage, may play a drawn card"),
        OptionSpec("multi_play", False, "play several cards of one rank at once"),
        OptionSpec(
            "attack_cap",
            0,
            "most cards an attack can cost (0: no cap)",
            minimum=0,
            maximum=len(DECK_54),
        ),
        OptionSpec("ranking", False, "play on until one player is left (finishing order)"),
        OptionSpec("must_play_if_able", False, "drawing is allowed only with no legal play"),
        OptionSpec(
            "bankrupt_at",
            20,
            "a player who holds this many cards after taking cards, or cannot pay an attack or "
            "a penalty, is bankrupt and leaves the game (0: off)",
            minimum=0,
            maximum=len(DECK_54),
        ),
    )

    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        super().__init__(seats=seats, options=options, dealer=dealer)
        opts = self.options
        self.dealer = dealer
        self._multi = bool(opts["multi_play"])
        self._defence = str(opts["defence"])
        self._after_attack = bool(opts["play_after_attack"])
        self._cap = int(opts["attack_cap"])
        self._ranking = bool(opts["ranking"])
        self._must_play = bool(opts["must_play_if_able"])
        self._limit = int(opts["bankrupt_at"])
        self._dir = 1 if opts["direction"] == "clockwise" else -1
        self._phase = _DEAL
        self._request: ChanceRequest | None = ChanceRequest(
            ChanceKind.DEAL, 1, 0, DECK_54, choose_dealer=dealer is None
        )
        self._hands: list[list[Card]] = [[] for _ in range(seats)]
        self._stock: list[Card] = list(DECK_54)  # stock[pos:] is the stock, top first
        self._pos = 0
        self._stream = 0
        self._discards: list[Card] = []
        self._recycle: list[Card] = []  # discards waiting for a reshuffle answer
        self._suit: Suit | None = None  # the suit to match (None on a joker)
        self._turn = 0
        self._damage = 0
        self._extra = 0  # extra turns owed (kings) to whoever is next in line
        self._fresh: list[Card] = []  # cards just drawn as attack damage
        self._window: tuple[int, int] | None = None  # (holder, seat after the holder)
        # why no call is open, for the refusal only: the last call (caller, holder) until the
        # next turn action, or the window that turn action closed (holder, seat that acted)
        self._called: tuple[int, int] | None = None
        self._closed: tuple[int, int] | None = None
        self._owed: list[tuple[int, int, str]] = []  # (seat, count, reason) still to draw
        self._active = [True] * seats
        self._n_active = seats
        self._finished: list[int] = []
        self._bankrupt: list[int] = []  # bankrupt seats, earliest first
        self._idle = 0  # consecutive turns that moved no card and had no play
        self._turns = 0  # turn actions taken (see TURN_LIMIT)
        self._outcome: Outcome | None = None
        self._legal: dict[int, list[Action]] = {}  # legal_actions cache, reset by every change

    # ------------------------------------------------------------------ chance

    def chance_request(self) -> ChanceRequest | None:
        return self._request

    def apply_chance(self, order: Sequence[Card], dealer: int | None = None) -> list[Event]:
        request = self._request
        if request is None:
            raise ChanceError("no chance request is pending")
        if sorted(c.index for c in order) != [c.index for c in request.cards]:
            raise ChanceError(f"the answer is not a permutation of the {len(request.cards)} cards")
        if request.choose_dealer and (dealer is None or not 0 <= dealer < self.seats):
            raise ChanceError("this deal must name the dealer")
        self._legal = {}
        self._request = None
        events: list[Event] = []
        if request.kind is ChanceKind.RESHUFFLE:
            self._stock, self._pos, self._stream = list(order), 0, request.stream
            self._recycle = []
            self._settle(events)
            self._announce_turn(events)
            return events
        if request.choose_dealer:
            self.dealer = dealer
        assert self.dealer is not None
        self._deal(list(order), self.dealer, events)
        return events

    def _deal(self, stock: list[Card], dealer: int, events: list[Event]) -> None:
        n = self.seats
        self._stock, self._pos, self._stream = stock, 0, 0
        order = [(dealer + 1 + i) % n for i in range(n)]
        per = 7 if n == 2 else 5
        got: list[list[int]] = [[] for _ in range(n)]
        for _ in range(per):
            for seat in order:
                got[seat].append(self._pos)
                self._hands[seat].append(stock[self._pos])
                self._pos += 1
        events.append(
            Event(
                "deal",
                {
                    "dealer": dealer,
                    "per_seat": per,
                    "seats": [order[p % n] for p in range(per * n)],
                    "positions": [[0, p] for p in range(per * n)],
                },
            )
        )
        for seat in range(n):
            data = {
                "cards": [c.code for c in self._hands[seat]],
                "positions": [[0, p] for p in got[seat]],
            }
            events.append(Event("dealt", data, to=seat))
        first = self._pos
        while True:  # the first face-up card: jokers are covered by the next card
            top = stock[self._pos]
            self._pos += 1
            self._discards.append(top)
            if not top.is_joker:
                break
        turned = self._discards
        events.append(
            Event(
                "turn_up",
                {
                    "cards": [c.code for c in turned],
                    "positions": [[0, p] for p in range(first, self._pos)],
                },
            )
        )
        self._suit = top.suit
        self._phase = _PLAY
        self._turn = (dealer + self._dir) % n
        events.append(Event("start", {"first": self._turn, "direction": _DIRECTIONS[self._dir]}))
        self._announce_turn(events)

    # ------------------------------------------------------------------ acting

    def to_act(self) -> tuple[int, ...]:
        if self._request is not None or self._phase is _OVER or self._phase is _DEAL:
            return ()
        return (self._turn,)

    def _allowed(self) -> frozenset[Card]:
        top = self._discards[-1]
        if self._damage:
            return defend_set(top, self._suit) if self._defence == "match" else ATTACKERS
        return follow_set(top, self._suit)

    def _plays(self, seat: int) -> list[Action]:
        pool = self._fresh if self._phase is _AFTER else self._hands[seat]
        allowed = self._allowed()
        out: list[Action] = []
        if not self._multi:
            plays_of = _PLAYS_OF
            for c in pool:
                if c in allowed:
                    out += plays_of[c]
            return out
        by_rank: dict[Rank, list[Card]] = {}
        for c in pool:
            by_rank.setdefault(c.rank, []).append(c)
        for group in by_rank.values():
            if not any(c in allowed for c in group):
                continue
            for k in range(1, len(group) + 1):
                for perm in itertools.permutations(group, k):
                    if perm[0] in allowed:
                        if perm[0].rank is _SEVEN:
                            out.extend(Play(perm, s) for s in Suit)
                        else:
                            out.append(Play(perm))
        return out

    def _legal_for(self, seat: int) -> list[Action]:
        """The cached legal list (never handed out: callers get a copy)."""
        cached = self._legal.get(seat)
        if cached is None:
            cached = []
            if self._request is None and self._phase in (_PLAY, _AFTER) and 0 <= seat < self.seats:
                if seat == self._turn:
                    cached = self._plays(seat)
                    if not (self._must_play and cached):
                        cached.append(DRAW)
                if self._window is not None:
                    cached.append(CALL)
            self._legal[seat] = cached
        return cached

    def legal_actions(self, seat: int) -> list[Action]:
        return list(self._legal_for(seat))

    def default_action(self, seat: int) -> Action | None:
        """Draw when the seat may (what the host does when a turn timer runs out)."""
        legal = self._legal_for(seat)
        if legal and (legal[-1] is DRAW or (len(legal) > 1 and legal[-2] is DRAW)):
            return DRAW  # the draw is listed last, or just before a call
        return legal[0] if legal else None

    def parse_action(self, wire: object) -> Action:
        return parse_one_card_action(wire)

    def check(self, seat: int, action: Action) -> None:
        if not 0 <= seat < self.seats:
            raise InvalidAction(f"no seat {seat}")
        if self._phase is _OVER:
            raise IllegalAction("the game is over")
        if isinstance(action, Call) and self._window is None and self._phase is not _DEAL:
            raise IllegalAction(self._no_call_reason(seat))
        if self._request is not None or self._phase is _DEAL:
            raise NotYourTurn("waiting for the shuffle")
        if isinstance(action, Call):
            return
        if seat != self._turn:
            if seat in self._bankrupt:
                raise NotYourTurn("you went bankrupt: you play no more turns in this game")
            raise NotYourTurn(f"it is seat {self._turn}'s turn")
        if isinstance(action, Draw):
            if self._must_play and self._plays(seat):
                raise IllegalAction("you must play a card when you can (must_play_if_able)")
            return
        if not isinstance(action, Play):
            raise InvalidAction(f"not a One Card action: {action!r}")
        cards = action.cards
        if not cards or len(set(cards)) != len(cards):
            raise InvalidAction("a play needs distinct cards")
        _check_suit_field(cards, action.suit)
        hand = self._hands[seat]
        for c in cards:
            if c not in hand:
                raise InvalidAction(f"{c.code} is not in your hand")
        if self._phase is _AFTER and any(c not in self._fresh for c in cards):
            raise IllegalAction("after taking an attack, only a card just drawn may be played")
        if len(cards) > 1:
            if not self._multi:
                raise IllegalAction("one card at a time (multi_play is off)")
            if any(c.rank is not cards[0].rank for c in cards):
                raise IllegalAction("several cards played together must share a rank")
        if cards[0] not in self._allowed():
            top = self._discards[-1].code
            if self._damage:
                raise IllegalAction(
                    f"{cards[0].code} does not answer the attack on {top}: play an attack card "
                    f"({self._defence} defence) or draw {self._damage}"
                )
            if self._suit is None:  # a joker on top: it has no suit, only a colour
                raise IllegalAction(
                    f"{cards[0].code} does not play on {top} (on a joker: a card of its colour, "
                    "a joker or a seven)"
                )
            raise IllegalAction(f"{cards[0].code} does not play on {top} (suit {self._suit.value})")

    def _no_call_reason(self, seat: int) -> str:
        """Why ``seat`` may not call now: someone just called, the next turn closed it, or none."""
        if self._called is not None:
            caller, holder = self._called
            if seat == caller:
                return "you already called One Card"
            if caller == holder:
                return f"too late: seat {holder} already called One Card on their own last card"
            if seat == holder:
                return f"too late: seat {caller} already called One Card on you"
            return f"too late: seat {caller} already called One Card on seat {holder}"
        if self._closed is not None:
            holder, actor = self._closed
            who = "you" if actor == seat else f"seat {actor}"
            went = "you" if holder == seat else f"seat {holder}"
            return (
                f"too late: the One Card call closed when {who} took a turn "
                f"after {went} went down to one card"
            )
        return (
            "no One Card call is open: one opens when a player goes down to one card "
            "and closes at the next turn"
        )

    def _single_plays(self, card: Card) -> list[Action]:
        return list(_PLAYS_OF.get(card, ()))

    def _why_not(self, seat: int, action: Action) -> tuple[str, bool]:
        reason, _ = super()._why_not(seat, action)
        if reason and isinstance(action, Play) and self._phase is _PLAY and seat == self._turn:
            top, c = self._discards[-1], action.cards[0]
            if self._request is None and c not in self._allowed():
                args = (c, top, self._suit, self._damage, self._defence)
                return mismatch_reason(*args, is_attacker=c in ATTACKERS), False
        return reason, False

    def apply(self, seat: int, action: Action) -> list[Event]:
        offered = self._legal.get(seat)
        if offered is None or not any(a is action for a in offered):
            self.check(seat, action)  # an action object we offered is known legal
        self._legal = {}
        events: list[Event] = []
        if isinstance(action, Call):
            assert self._window is not None  # check() saw it open
            holder, target = self._window
            self._window = None
            self._called, self._closed = (seat, holder), None
            victim = target if seat == holder else holder
            events.append(Event("call", {"seat": seat, "holder": holder, "penalized": victim}))
            self._owed.append((victim, 1, "call"))
            turn, phase = self._turn, self._phase
            self._settle(events)
            if (self._turn, self._phase) != (turn, phase):  # the seat to act went bankrupt
                self._announce_turn(events)
            return events
        window, self._window, self._called = self._window, None, None
        self._closed = None if window is None else (window[0], seat)
        if isinstance(action, Play):
            self._play(seat, action, events)
        else:
            self._draw(seat, events)
        self._turns += 1
        if self._turns >= TURN_LIMIT and self._phase is not _OVER:
            self._stop(events, Termination.TURN_LIMIT)
        self._settle(events)
        self._announce_turn(events)
        return events

    def _play(self, seat: int, play: Play, events: list[Event]) -> None:
        hand = self._hands[seat]
        cards = play.cards
        for c in cards:
            hand.remove(c)
        if self._phase is _AFTER:
            self._fresh = []
            self._phase = _PLAY
        under = self._discards[-1]
        self._discards.extend(cards)
        last = cards[-1]
        named = play.suit if hand else None  # a seven going out names nothing (effect ignored)
        self._suit = named if named is not None else last.suit
        data: WireMap = {
            "seat": seat,
            "cards": [last.code] if len(cards) == 1 else [c.code for c in cards],
        }
        if named is not None:
            data["suit"] = named.value
        events.append(Event("play", data))
        self._idle = 0
        if not hand:
            self._go_out(seat, events)
            return
        penalty = (
            self._damage > 0
            and self._defence == "escalate"
            and DAMAGE[cards[0]] < DAMAGE.get(under, 0)
        )
        rank, k, steps = last.rank, len(cards), 1
        if last in ATTACKERS:
            self._damage += DAMAGE[last] if k == 1 else sum(DAMAGE[c] for c in cards)
            if self._cap and self._damage > self._cap:
                self._damage = self._cap
            data["damage"] = self._damage
            self._extra = 0  # the next *other* player owes it: extra turns still owed lapse
        elif rank is _JACK or (rank is _QUEEN and self._n_active == 2):
            # each jack skips one more player, but a skip never passes over its own player
            steps = min(1 + k, self._n_active)
        elif rank is _QUEEN:
            if k % 2:
                self._dir = -self._dir
            data["direction"] = _DIRECTIONS[self._dir]
        elif rank is _KING:
            self._extra += k
        self._turn = self._advance(seat, steps)
        if penalty:
            data["penalty"] = 1
            self._owed.append((seat, 1, "escalate"))
        elif len(hand) == 1:
            self._window = (seat, self._next_active(seat))
            events.append(Event("call_window", {"holder": seat}))

    def _draw(self, seat: int, events: list[Event]) -> None:
        if self._damage:  # take the whole attack
            self._owed.append((seat, self._damage, "attack"))
            self._damage = 0
            self._idle = 0
            if self._after_attack:  # still this seat's turn: play a drawn card or draw one
                self._phase = _AFTER
                self._fresh = []
                return
            self._turn = self._advance(seat, 1)
            return
        if self._pos >= len(self._stock) and len(self._discards) <= 1 and not self._plays(seat):
            self._idle += 1  # a pass: nothing to draw and nothing to play
        else:
            self._idle = 0
        self._owed.append((seat, 1, "draw"))
        if self._phase is _AFTER:
            self._phase = _PLAY
            self._fresh = []
        if self._idle >= self._n_active:  # nobody can play or draw
            self._stop(events, Termination.EXHAUSTED)
            return
        self._turn = self._advance(seat, 1)

    def _stop(self, events: list[Event], termination: Termination) -> None:
        """A safety stop: the active seats with the fewest cards win."""
        live = [s for s in range(self.seats) if self._active[s]]
        fewest = min(len(self._hands[s]) for s in live)
        winners = tuple(s for s in live if len(self._hands[s]) == fewest)
        ranking = None
        if self._ranking:
            by_cards = sorted(live, key=lambda s: len(self._hands[s]))
            ranking = (*self._finished, *by_cards, *reversed(self._bankrupt))
            if self._finished:  # whoever went out first has won already
                winners = (self._finished[0],)
        self._finish(Outcome(termination, winners, ranking=ranking), events)

    def _next_active(self, seat: int) -> int:
        n, step = self.seats, self._dir
        seat = (seat + step) % n
        while not self._active[seat]:
            seat = (seat + step) % n
        return seat

    def _advance(self, seat: int, steps: int) -> int:
        """Pass the turn ``steps`` times; an owed extra turn is used up before moving on."""
        for _ in range(steps):
            if self._extra:
                self._extra -= 1
            else:
                seat = self._next_active(seat)
        return seat

    def _go_out(self, seat: int, events: list[Event]) -> None:
        self._finished.append(seat)
        self._active[seat] = False
        self._n_active -= 1
        self._extra = 0
        events.append(Event("out", {"seat": seat, "place": len(self._finished)}))
        if not self._ranking:
            self._finish(Outcome(Termination.WENT_OUT, (seat,)), events)
        elif self._n_active == 1:
            self._last_one(events)
        else:
            self._turn = self._next_active(seat)

    def _last_one(self, events: list[Event]) -> None:
        """One player is left: with ``ranking`` the finishing order is complete; without it,
        everyone else went bankrupt and the last player standing wins."""
        last = self._active.index(True)
        if self._ranking:
            ranking = (*self._finished, last, *reversed(self._bankrupt))
            self._finish(Outcome(Termination.RANKED, (ranking[0],), ranking=ranking), events)
        else:
            self._finish(Outcome(Termination.LAST_STANDING, (last,)), events)

    def _go_bankrupt(self, seat: int, reason: str, events: list[Event]) -> None:
        """``seat`` leaves the game: its hand goes, face up, under the top card of the discard
        pile (recycled by the next reshuffle); what it still owes is dropped; play passes on as
        if its seat were empty."""
        hand = sorted(self._hands[seat], key=_index)
        self._hands[seat] = []
        self._discards[-1:-1] = hand
        self._owed[:] = [o for o in self._owed if o[0] != seat]  # _settle holds this list
        self._active[seat] = False
        self._n_active -= 1
        self._bankrupt.append(seat)
        data: WireMap = {
            "seat": seat,
            "reason": reason,
            "count": len(hand),
            "cards": [c.code for c in hand],
        }
        if self._ranking:
            data["place"] = self.seats - len(self._bankrupt) + 1
        events.append(Event("bankrupt", data))
        if self._n_active == 1:
            self._last_one(events)
            return
        if self._window is not None:
            holder, target = self._window
            if holder == seat:
                self._window = None
            elif target == seat:
                self._window = (holder, self._next_active(holder))
        if self._turn == seat:
            self._extra = 0
            self._fresh = []
            if self._phase is _AFTER:
                self._phase = _PLAY
            self._turn = self._next_active(seat)

    def _finish(self, outcome: Outcome, events: list[Event]) -> None:
        self._outcome = outcome
        self._phase = _OVER
        self._window = None
        self._owed = []
        self._fresh = []
        events.append(Event("game_over", outcome.to_wire()))

    def _settle(self, events: list[Event]) -> None:
        """Deal out the owed draws; stop at a reshuffle request, forgive what cannot be had."""
        owed = self._owed
        if not owed:
            return
        while owed:
            seat, count, reason = owed[0]
            avail = len(self._stock) - self._pos
            if self._limit and reason != "draw" and count > avail + len(self._discards) - 1:
                self._go_bankrupt(seat, "cannot_pay", events)  # owes more than there is
                if self._phase is _OVER:
                    return
                continue
            if not avail:
                if len(self._discards) > 1:
                    recycled = sorted(self._discards[:-1], key=_index)
                    del self._discards[:-1]
                    self._recycle = recycled
                    stream = self._stream + 1
                    self._request = ChanceRequest(ChanceKind.RESHUFFLE, 1, stream, tuple(recycled))
                    events.append(Event("reshuffle", {"stream": stream, "count": len(recycled)}))
                    return
                events.append(Event("forgiven", {"seat": seat, "count": count, "reason": reason}))
                del owed[0]
                continue
            k = count if count <= avail else avail
            pos = self._pos
            cards = self._stock[pos : pos + k]
            self._pos = pos + k
            self._hands[seat].extend(cards)
            if reason == "attack" and self._phase is _AFTER:
                self._fresh.extend(cards)
            positions = [[self._stream, p] for p in range(pos, pos + k)]
            events.append(
                Event("draw", {"seat": seat, "count": k, "reason": reason, "positions": positions})
            )
            events.append(
                Event("drawn", {"cards": [c.code for c in cards], "positions": positions}, to=seat)
            )
            if k == count:
                del owed[0]
            else:
                owed[0] = (seat, count - k, reason)
            if self._limit and len(self._hands[seat]) >= self._limit:
                self._go_bankrupt(seat, "limit", events)
                if self._phase is _OVER:
                    return

    def _announce_turn(self, events: list[Event]) -> None:
        if self._phase is _OVER or self._request is not None:
            return
        data: WireMap = {"seat": self._turn, "phase": self._phase.value}
        if self._damage:
            data["damage"] = self._damage
        events.append(Event("turn", data))

    # ------------------------------------------------------------------ seeing

    def view(self, seat: int | None) -> WireMap:
        self.require_seat(seat)
        top = self._discards[-1] if self._discards else None
        phase = "reshuffle" if self._request is not None and self._phase is not _DEAL else None
        window = self._window
        out: WireMap = {
            "game": self.name,
            "seats": self.seats,
            "seat": seat,
            "dealer": self.dealer,
            "hand_no": 1,
            "phase": phase or self._phase.value,
            "turn": None if self._phase in (_DEAL, _OVER) else self._turn,
            "to_act": list(self.to_act()),
            "direction": _DIRECTIONS[self._dir],
            "top": None if top is None else top.code,
            "suit": None if self._suit is None else self._suit.value,
            "damage": self._damage,
            "extra_turns": self._extra,
            "discards": [c.code for c in self._discards],
            "stock": 0 if self._phase is _DEAL else len(self._stock) - self._pos,
            "stream": self._stream,
            "next_position": self._pos,
            "hand_counts": [len(h) for h in self._hands],
            "finished": list(self._finished),
            "bankrupt": list(self._bankrupt),
            "call_window": None if window is None else {"holder": window[0], "target": window[1]},
            "options": dict(self.options),
            "outcome": None if self._outcome is None else self._outcome.to_wire(),
            "hand": None,
            "legal": [],
        }
        if seat is not None:
            out["hand"] = [c.code for c in sorted(self._hands[seat], key=_index)]
            after = self._phase is _AFTER and seat == self._turn
            fresh = self._fresh if after else []
            out["fresh"] = [c.code for c in fresh]
            out["legal"] = [a.to_wire() for a in self.legal_actions(seat)]
        return out

    def outcome(self) -> Outcome | None:
        return self._outcome

    def all_cards(self) -> list[Card]:
        cards = [c for hand in self._hands for c in hand]
        return cards + self._stock[self._pos :] + self._discards + self._recycle

    def hidden_from(self, seat: int | None) -> list[Card]:
        """The cards ``seat`` may not see: the stock and every other seat's hand."""
        hidden = self._stock[self._pos :]
        for s, hand in enumerate(self._hands):
            if s != seat:
                hidden.extend(hand)
        return hidden


def _index(c: Card) -> int:
    return c.index
