"""Black Jack, the British shedding game (``black-jack``): rules engine.

How it works: :data:`GAME` holds the static rules (name, seats, :data:`OPTIONS`) and one
:class:`BlackJack` object is one running hand: its first half keeps the table and its bookkeeping
(deal, stock, owed cards, the end, views), its second half the turns. A play is checked in two
layers: shape (cards held, one declaration per joker, a suit exactly when the last card acts as an
ace) raises :class:`InvalidAction`; the rules (turn, matching, runs, counters) give a reason string.
With ``blunders`` on, a play that breaks the rules or comes out of turn passes :meth:`check` and
:meth:`apply` penalises it (two cards, taken back); with it off, :meth:`check` raises.
:meth:`legal_actions` lists every legal play (generated lazily: singles, then runs, then chains, up
to :data:`PLAY_LIMIT`). The actions, their wire forms and the play shapes are
:mod:`host.games.black_jack.moves`'; refusals are worded by :mod:`host.games.black_jack.explain`.
The rules and rulings are in ``spec/RULES.md``, section Black Jack.

The running hand asks chance for the deal (stream 0) and, whenever a draw finds the stock empty, for
a reshuffle of the discards below the top card (stream k for the k-th reshuffle); owed cards wait in
a queue (``_owed``) while a reshuffle is pending, so a draw split across a reshuffle resumes where
it stopped. The table is the top card *as it acts* (``_top_as``: a joker's declared identity), the
suit named by an ace, the pick-up owed by the seat to act, whether that seat must cover its queen,
and the direction. Two safety stops end a hand: a full round of draws that found nothing
(``exhausted``) and :data:`~host.games.base.TURN_LIMIT` turns (``turn_limit``). :meth:`view` alone
decides what a seat may see.
"""

from __future__ import annotations

import enum
import itertools
import operator
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Self

from host.games.base import (
    TURN_LIMIT,
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
    State,
    Termination,
    WireMap,
)
from host.games.black_jack.explain import SUIT_NAMES, WAIT, no_declare_reason
from host.games.black_jack.moves import (
    MAX_PLAY,
    Declaration,
    Declare,
    Draw,
    Play,
    _chains,
    _finishable_without,
    _is_black_jack,
    _is_chain,
    _is_run,
    _runs,
    _Seq,
    blunder_cost,
    declaration_for,
    finishing_slack,
    hand_masks,
    matching,
    parse_black_jack_action,
    single_forms,
)
from host.games.black_jack.rules import ANY_CARD, BLUNDER_CARDS, COUNTERS, NATURAL
from host.games.follow import follow_map
from protocol.cards import (
    ALL_CARDS,
    JOKER_BLACK,
    JOKER_RED,
    Card,
    Color,
    Rank,
    Suit,
    parse_card,
)
from protocol.decks import deck_of

__all__ = ["GAME", "OPTIONS", "PLAY_LIMIT", "BlackJack", "Phase"]


class Phase(enum.Enum):
    DEAL = "dealing"  #: waiting for the deal (chance); the values are the wire names
    PLAY = "playing"  #: a seat is to act
    RESHUFFLING = "reshuffling"  #: a draw is waiting for a reshuffle of the discards (chance)
    OVER = "over"  #: the hand is finished


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("jokers", 0, "jokers per deck, each declared as any card", choices=(0, 1, 2)),
    OptionSpec("decks", "auto", "auto: two decks beyond five players", ("auto", "1", "2")),
    OptionSpec("black_jack_pickup", 5, "cards a black jack adds", minimum=1, maximum=20),
    OptionSpec("aces_anytime", False, "an ace may be played on anything but a pick-up"),
    OptionSpec("chain", False, "multi-card plays where each card matches the previous"),
    OptionSpec("ranking", False, "play on until one player is left (the loser)"),
    OptionSpec("must_play_if_able", False, "a player who can play may not draw"),
    OptionSpec("blunders", True, "illegal or out-of-turn plays are taken back for 2 cards"),
)

_SUITS = tuple(Suit)
_QUEEN_AT = int(Rank.QUEEN) - 1  #: a queen's rank in a natural card's canonical index
_JOKER = Rank.JOKER
#: enum members bound once: reading a member off its class runs Python code (about 0.13 us
#: against 0.01 for a global), and every action reads several
_DEAL, _PLAY, _RESHUFFLING, _OVER = Phase.DEAL, Phase.PLAY, Phase.RESHUFFLING, Phase.OVER
_ACE, _TWO, _EIGHT, _JACK, _QUEEN, _KING = (
    Rank.ACE,
    Rank.TWO,
    Rank.EIGHT,
    Rank.JACK,
    Rank.QUEEN,
    Rank.KING,
)
_BLACK, _LAST_CARD, _CARDS = Color.BLACK, Declaration.LAST_CARD, Declaration.CARDS
_INDEX = operator.attrgetter("index")

PLAY_LIMIT = 300
"""The most plays :meth:`BlackJack.legal_actions` lists. Runs and chains filled by jokers grow
combinatorially (a chain may reorder its cards, a joker may stand for any card that links); the
list keeps its order (singles, runs, other chains shortest first) and stops before the play that
would pass this many, so a ``state`` message stays well inside the protocol's frame and list
limits. A legal play left out is still accepted when sent."""


class BlackJack(State):
    """One hand of Black Jack; see the module docstring and ``spec/RULES.md``."""

    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        super().__init__(seats=seats, options=options, dealer=dealer)
        #: the deck of 7.3 (``decks=auto``: two packs beyond five seats), from the one table
        self.deck = deck_of(self.game.name, self.options, seats)
        self.hand_size = 5 if seats > 5 else 7
        self.dealer = dealer
        self.phase = _DEAL
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.stock: list[Card] = []
        self.discards: list[Card] = []
        self.stream = 0
        self.position = 0  # next unused position of the current stream
        self.turn = 0
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
        # per seat, its legal actions as listed since the last action or chance outcome
        self._legal: dict[int, tuple[Action, ...]] = {}

    @classmethod
    def from_view(
        cls, view: Mapping[str, Any], hands: Sequence[Sequence[Card]], stock: Sequence[Card]
    ) -> Self:
        """A hand in the position ``view`` shows, with the cards it hides filled in.

        ``hands`` holds every seat's cards (the viewer's as its view shows them, the others as
        many as ``hand_counts`` says) and ``stock`` the stock, top first. The result is one
        world consistent with what the viewer sees, for a bot to search (determinization); it
        never goes back to the host. The turn count and the run of empty draws start afresh.

        Raises:
            ValueError: the view is not of a hand in play, or the cards do not fit it.
        """
        if view.get("phase") != _PLAY.value:
            raise ValueError(f"no world to sample in phase {view.get('phase')!r}")
        if [len(h) for h in hands] != list(view["hand_counts"]) or len(stock) != view["stock"]:
            raise ValueError("the cards do not fit the view's hand and stock counts")
        game = cls(seats=int(view["seats"]), options=view["options"], dealer=view["dealer"])
        game.phase = _PLAY
        game.hands = [list(h) for h in hands]
        game.stock, game.position, game.stream = list(stock), 0, int(view["stream"])
        game.discards = [parse_card(c) for c in view["discards"]]
        game.turn = int(view["to_act"][0])
        game.direction = 1 if view["direction"] == "clockwise" else -1
        game.pending, game.covering = int(view["pending"]), bool(view["cover"])
        game.finished = list(view["out"])
        game.active = [s not in game.finished for s in range(game.seats)]
        game.declared = list(view["declared"])
        game.window = view["declare_window"]
        named = view["named_suit"]
        game._named = None if named is None else Suit(named)
        top = game.discards[-1]
        # a joker on top acts as the rank and suit the view gives (the suit named after an ace)
        game._top_as = parse_card(view["rank"] + view["suit"]) if top.is_joker else top
        return game

    def redealt(self, hands: Sequence[Sequence[Card]], stock: Sequence[Card]) -> Self:
        """A copy of this world (one :meth:`from_view` built, not yet played on) with its hidden
        cards dealt as ``hands`` and ``stock`` say: the world ``from_view`` would build from the
        same view, made without reading the view again (a bot samples hundreds a move)."""
        game = self.clone()
        game.hands = [list(h) for h in hands]
        game.stock, game.position = list(stock), 0
        game._legal = {}
        return game

    def chance_request(self) -> ChanceRequest | None:
        if self.phase is _DEAL:
            return ChanceRequest(ChanceKind.DEAL, 1, 0, self.deck, self.dealer is None)
        if self.phase is _RESHUFFLING:
            recycled = sorted(self.discards[:-1], key=lambda c: c.index)
            kept = (self.discards[-1],)
            return ChanceRequest(
                ChanceKind.RESHUFFLE, 1, self.stream + 1, tuple(recycled), kept=kept
            )
        return None

    def apply_chance(self, order: Sequence[Card], dealer: int | None = None) -> list[Event]:
        request = self.chance_request()
        if request is None:
            raise ChanceError("no chance request is pending")
        if Counter(c.index for c in order) != Counter(c.index for c in request.cards):
            raise ChanceError("the chance outcome is not a permutation of the requested cards")
        return self._take_order(request, order, dealer)

    def _take_order(
        self, request: ChanceRequest, order: Sequence[Card], dealer: int | None
    ) -> list[Event]:
        """Answer ``request`` with ``order`` (checked): the deal, or a reshuffle's new stock."""
        self._legal.clear()
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
            up = self._turning_up()
            self.stock.pop(0)
            self.discards.append(up)
            where = {"positions": [[0, self.position]], "seats": [None], "pile": [up.code]}
            events.append(Event("turn_up", {"card": up.code, **where}))
            self.position += 1
            if not up.is_joker:
                break
        self._top_as = self.discards[-1]
        self.turn = (self.dealer + 1) % self.seats
        self.phase = _PLAY
        return self._settle(events)

    def _turning_up(self) -> Card:
        """The stock's top card, about to be turned up (a blind engine first has it opened)."""
        return self.stock[0]

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
        self.turn = nxt

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
                    if self.phase is not _OVER:
                        self.phase = _RESHUFFLING
                    return events
                events.append(Event("forgiven", {"seat": seat, "count": count - len(take)}))
            self._owed.pop(0)
        if self.phase is not _OVER:
            if self._dry and self._dry >= sum(self.active):  # a full round found nothing
                self._finish(Termination.EXHAUSTED, events)
            elif self.turns >= TURN_LIMIT:  # play that may cycle for ever
                self._finish(Termination.TURN_LIMIT, events)
        if self.phase is _OVER:
            return events
        self.phase = _PLAY
        data: WireMap = {"seat": self.turn, "pending": self.pending, "cover": self.covering}
        events.append(Event("turn", data))
        return events

    def _draw_events(
        self, events: list[Event], seat: int, got: list[tuple[Card, int]], reason: str
    ) -> None:
        positions = [[self.stream, p] for _, p in got]
        base: WireMap = {"seat": seat, "count": len(got), "reason": reason}
        events.append(Event("draw", {**base, "positions": positions, "seats": [seat] * len(got)}))
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
        self.phase = _OVER
        self.window = None
        events.append(Event("game_over", self._outcome.to_wire()))

    def _direction_name(self) -> str:
        return "clockwise" if self.direction == 1 else "counter-clockwise"

    def _table_view(self, seat: int | None) -> WireMap:
        """Every public fact, plus the seat's own hand and legal moves (not for a spectator)."""
        self.require_seat(seat)
        top = self._top_as
        suit = self._named or (top.suit if top is not None else None)
        out: WireMap = {
            "game": self.game.name,
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
        if self.phase is _DEAL:
            return list(self.deck)
        return [c for h in self.hands for c in h] + self.stock + self.discards

    def to_act(self) -> tuple[int, ...]:
        return (self.turn,) if self.phase is _PLAY else ()

    def parse_action(self, wire: object) -> Action:
        return parse_black_jack_action(wire)

    def check(self, seat: int, action: Action) -> None:
        self._judge(seat, action)

    def apply(self, seat: int, action: Action) -> list[Event]:
        listed = self._legal.get(seat, ())
        for offered in listed:  # a plain loop: the hot path of every playout
            if offered is action:
                acting, blunder = self._offered(action), None  # listed as legal: judged already
                break
        else:
            acting = _acting(action) if isinstance(action, Play) else None
            blunder = None if acting is None else self._blunder_reason(seat, acting)
        self._legal.clear()
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
        assert isinstance(action, Play) and acting is not None
        self._play(seat, action, acting, events)
        return self._settle(events)

    @staticmethod
    def _offered(action: Action) -> list[Card] | None:
        """The cards of a play :meth:`legal_actions` offered, as they act (``None``: no play)."""
        if not isinstance(action, Play):
            return None
        if not action.declare:
            return list(action.cards)
        names = iter(action.declare)
        return [next(names) if c.rank is _JOKER else c for c in action.cards]

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
        cost = blunder_cost(in_turn=seat == self.turn, pickup=pickup)
        if seat != self.turn:
            blunder = f"out of turn: it is seat {self.turn}'s turn"
        return f"{blunder}; playing it anyway is a blunder: {cost}", True

    def _judge(self, seat: int, action: Action) -> str | None:
        """Raise unless ``action`` may be applied; for a blunder, return why it is one."""
        return self._judged(seat, action)[1]

    def _judged(self, seat: int, action: Action) -> tuple[list[Card] | None, str | None]:
        """:meth:`_judge`, with a play's cards as they act (``None`` for other actions)."""
        if not 0 <= seat < self.seats:
            raise NotYourTurn(f"there is no seat {seat}")
        # a malformed play is refused before the turn is considered (PROTOCOL.md 4.2)
        acting = self._shape(seat, action) if isinstance(action, Play) else []
        if self.phase is not _PLAY:
            raise NotYourTurn(WAIT[self.phase.value])
        if isinstance(action, Declare):
            if self.window != seat:
                raise IllegalAction(no_declare_reason(seat, self._closed_by[seat], self.turn))
            if self.declared[seat]:
                raise IllegalAction("you have already declared for this turn")
            return None, None
        if isinstance(action, Draw):
            if seat != self.turn:
                raise NotYourTurn(f"it is seat {self.turn}'s turn")
            if self.options["must_play_if_able"] and self._has_play(seat):
                raise IllegalAction("you may not draw while you can play (must_play_if_able)")
            return None, None
        if not isinstance(action, Play):
            raise InvalidAction(f"not a Black Jack action: {action!r}")
        if seat != self.turn:
            if not self.options["blunders"]:
                raise NotYourTurn(f"it is seat {self.turn}'s turn")
            return acting, f"played out of turn (seat {self.turn} is to act)"
        error = self._rule_error(seat, acting)
        if error is not None and not self.options["blunders"]:
            raise IllegalAction(error)
        return acting, error

    def _blunder_reason(self, seat: int, acting: Sequence[Card]) -> str | None:
        """Why a checked play is a blunder (as :meth:`_judged` found), or ``None``: worked out
        again by :meth:`apply`, whose penalty it decides; it checks nothing."""
        if seat != self.turn:
            return f"played out of turn (seat {self.turn} is to act)"
        return self._rule_error(seat, acting) if self.options["blunders"] else None

    def _shape(self, seat: int, play: Play) -> list[Card]:
        """The cards as they act (jokers replaced); raise :class:`InvalidAction` on bad shape."""
        cards, hand = play.cards, self.hands[seat]
        if not cards or len(cards) > MAX_PLAY:
            raise InvalidAction("a play puts down 1 to 30 cards")
        if len(cards) == 1:
            held = cards[0] in hand
            jokers = int(cards[0].rank is _JOKER)
        else:
            held = all(cards.count(c) <= hand.count(c) for c in cards)
            jokers = sum(c.rank is _JOKER for c in cards)
        if not held:
            missing = Counter(cards) - Counter(hand)
            raise InvalidAction(f"seat {seat} does not hold {next(iter(missing)).code}")
        declare = play.declare
        if len(declare) != jokers or (declare and any(c.rank is _JOKER for c in declare)):
            raise InvalidAction("declare one non-joker card for each joker played, in order")
        acting = _acting(play) if jokers else list(cards)
        if (acting[-1].rank is _ACE) != (play.suit is not None):
            raise InvalidAction("name a suit exactly when the last card acts as an ace")
        return acting

    def _matches(self, c: Card) -> bool:
        top = self._top_as
        assert top is not None
        if self.options["aces_anytime"] and c.rank is _ACE:
            return True
        return c.rank is top.rank or c.suit is (self._named or top.suit)

    def _rule_error(self, seat: int, acting: Sequence[Card]) -> str | None:
        """Why the seat to act may not play ``acting`` now, or ``None`` if it may."""
        left = len(self.hands[seat]) - len(acting)
        first = acting[0]
        if self.pending and not self.covering:
            if len(acting) != 1:
                return f"against a pick-up of {self.pending} only a single counter may be played"
            if first.rank not in (_TWO, _JACK):
                return f"{first.code} does not counter a pick-up (a 2 or a jack)"
            return None
        if not self.covering and not self._matches(first):
            top = self._top_as
            assert top is not None
            if self._named is not None:
                named = SUIT_NAMES[self._named]
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
        if left == 0 and acting[-1].rank is _QUEEN:
            return "a queen cannot be the last card out"
        return None

    def _has_play(self, seat: int) -> bool:
        listed = self._legal.get(seat)
        if listed is None:
            listed = tuple(self._plays(seat, first_only=True))
        return any(isinstance(a, Play) for a in listed)

    def _play(self, seat: int, play: Play, acting: list[Card], events: list[Event]) -> None:
        hand = self.hands[seat]
        for c in play.cards:
            hand.remove(c)
        self.discards.extend(play.cards)
        self._dry = 0
        self._said |= play.say is not None
        last = acting[-1]
        codes = [c.code for c in play.cards]
        data: WireMap = {"seat": seat, "cards": codes}  # the play's wire form, less type and say
        if play.suit is not None:
            data["suit"] = play.suit.value
        if play.declare:
            data["declare"] = [c.code for c in play.declare]
        data["pile"] = list(codes)  # onto the discard pile (PROTOCOL.md 7.9)
        if self.pending and not self.covering and last.rank is _JACK and not _is_black_jack(last):
            data["cancelled"] = self.pending
            self.pending = 0
        else:
            self.pending += _pickup(acting, self._bjp)
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
        if last.rank is _QUEEN:
            self.covering = True
            events.append(Event("cover", {"seat": seat}))
            return
        if last.rank is _KING and sum(self.active) > 2:
            self.direction = -self.direction
            events.append(Event("reverse", {"direction": self._direction_name()}))
        self._end_turn(seat, events, skip=last.rank is _EIGHT)
        if undeclared:
            self._owed.append((seat, 2, "undeclared"))

    def _blunder(self, seat: int, play: Play, reason: str, events: list[Event]) -> list[Event]:
        in_turn = seat == self.turn
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

    def legal_actions(self, seat: int) -> list[Action]:
        """Draw (when allowed), a declaration in the seat's window, then every legal play.

        Plays come in a stable order: every single card (held cards in canonical order, then
        each joker as each identity it may take), then every run of two or more (from each legal
        first card, the same order; upwards then downwards; in each place the held card first,
        then each joker standing for it; all prefixes), then with ``chain`` every other chain,
        shortest first. An ace as last card comes once per suit. Equal plays come once (a
        second deck's twin cards are one choice). At most :data:`PLAY_LIMIT` plays are listed.
        A play after which the hand could finish carries ``say`` (``check`` takes any ``say``):
        the finishing search runs once per offered play, and the list is kept until the next
        action or chance outcome, so the views, the bot and the timer share one listing.
        Blunders are never offered: they are mistakes that :meth:`check` accepts so that
        :meth:`apply` can penalise them.
        """
        if self.phase is not _PLAY or not 0 <= seat < self.seats:
            return []
        listed = self._legal.get(seat)
        if listed is None:
            listed = self._legal[seat] = tuple(self._listed(seat))
        return list(listed)

    def _listed(self, seat: int) -> list[Action]:
        """:meth:`legal_actions` of a seat, listed anew (once per state: they are kept)."""
        out: list[Action] = []
        hand = self.hands[seat]
        if seat == self.turn:
            plays = self._plays(seat, first_only=False)
            if not (self.options["must_play_if_able"] and plays):
                out.append(_DRAW)
        else:
            plays = []
        if self.window == seat and not self.declared[seat]:
            say = declaration_for(hand)
            if say is not None:
                out.append(Declare(say))
        if not out:
            return plays
        return out + plays

    def _plays(self, seat: int, *, first_only: bool) -> list[Action]:
        """The plays offered to ``seat`` (see :meth:`legal_actions`); one if ``first_only``."""
        hand = self.hands[seat]
        counts = _multiset(hand)
        attacked = self.pending and not self.covering
        allowed = self._starting_cards(attacked=bool(attacked))
        jokers = (
            sorted([c for c in counts if c.rank is _JOKER], key=_INDEX)
            if self.options["jokers"]
            else ()
        )
        if not jokers and not first_only:  # the common case, without generators: see below
            return self._natural_plays(seat, hand, counts, allowed, bool(attacked))
        held = sorted([c for c in counts if c in allowed], key=_INDEX)
        starts = [(c, c) for c in held]
        if jokers:  # each joker as each identity that may start
            names = [n for n in NATURAL if n in allowed]
            starts += [(j, n) for j in jokers for n in names]
        seqs: Iterable[_Seq] = (((c,), (a,)) for c, a in starts)
        if not attacked:
            seqs = itertools.chain(seqs, _runs(starts, counts))
            if self.options["chain"]:
                seqs = itertools.chain(seqs, _chains(starts, counts))
        out: list[Action] = []
        masks: tuple[list[int], int] | None = None  # the hand for the finishing search
        slack = 0  # its finishing_slack, once masks are built
        for cards, acting in seqs:
            # each candidate starts on a card that may start and is a run or a chain by
            # construction: only going out can break a rule (on a queen, or with a chain)
            if len(cards) == len(hand) and self._rule_error(seat, acting) is not None:
                continue
            declare = (
                tuple(a for c, a in zip(cards, acting, strict=True) if c.rank is _JOKER)
                if jokers
                else ()
            )
            suits: Sequence[Suit | None] = _SUITS if acting[-1].rank is _ACE else (None,)
            if first_only:
                return [Play(cards, suits[0], declare)]
            if len(out) + len(suits) > PLAY_LIMIT:
                break
            say = None
            if len(hand) > len(cards):
                if masks is None:
                    masks = hand_masks(hand)
                    slack = finishing_slack(*masks)
                # most plays leave too many stretches to finish: known without a search
                if slack + len(cards) - 2 * len(declare) >= 0 and _finishable_without(
                    *masks, cards
                ):
                    say = (
                        Declaration.LAST_CARD if len(cards) + 1 == len(hand) else Declaration.CARDS
                    )
            if len(suits) == 1:
                out.append(Play(cards, None, declare, say))
            else:
                out.extend(Play(cards, s, declare, say) for s in suits)
        return out

    def _natural_plays(
        self,
        seat: int,
        hand: list[Card],
        counts: dict[Card, int],
        allowed: frozenset[Card],
        attacked: bool,
    ) -> list[Action]:
        """:meth:`_plays` of a hand without jokers (``counts``: the hand as a multiset;
        ``allowed``: the cards that may start), the same plays in the same order, made with
        less overhead: the hot path of every listing (and of every search playout); the hand's
        finishing slack comes from the same pass over it as the cards that may start
        (:func:`_scan`), and its masks are built only for a play the slack does not rule out."""
        held, runners, slack = _scan(counts, allowed)
        cands: list[tuple[Card, ...]] = [(c,) for c in held]
        if not attacked:
            if runners:  # a run needs a neighbour of its first card
                cands += [cards for cards, _ in _runs([(c, c) for c in runners], counts)]
            if self.options["chain"]:
                chains = _chains([(c, c) for c in held], counts)
                cands += [cards for cards, _ in itertools.islice(chains, PLAY_LIMIT)]
        size = len(hand)
        out: list[Action] = []
        masks: tuple[list[int], int] | None = None  # the hand for the finishing search
        for cards in cands:
            n = len(cards)
            if n == size and self._rule_error(seat, cards) is not None:
                continue
            ace = cards[-1].rank is _ACE
            if len(out) + (4 if ace else 1) > PLAY_LIMIT:
                break
            say = None
            # most plays leave too many stretches to finish: known without a search
            if size > n and slack + n >= 0:
                if masks is None:
                    masks = hand_masks(hand)
                if _finishable_without(*masks, cards):
                    say = _LAST_CARD if n + 1 == size else _CARDS
            if ace:
                out.extend(_natural_aces(cards, say))
            else:
                out.append(_natural_play(cards, None, say))
        return out

    def _starting_cards(self, *, attacked: bool) -> frozenset[Card]:
        """The natural cards a play may start with now (see :meth:`_rule_error`)."""
        if attacked:
            return COUNTERS
        if self.covering:
            return ANY_CARD
        top = self._top_as
        assert top is not None and top.suit is not None
        anytime = bool(self.options["aces_anytime"])
        # keyed by the named suit, ``None`` but after an ace: cheaper to hash than a suit
        key = (top, self._named, anytime)
        allowed = _STARTING.get(key)
        if allowed is None:
            allowed = _STARTING[key] = matching(top, self._named or top.suit, anytime)
        return allowed

    def view(self, seat: int | None) -> WireMap:
        """The table's view (:meth:`_table_view`) with ``follow``: the cards a play may
        start with now (:func:`host.games.follow.follow_map`; null outside play)."""
        out = self._table_view(seat)
        out["follow"] = None
        if self.phase is _PLAY and self._top_as is not None:
            starting = self._starting_cards(attacked=bool(self.pending and not self.covering))
            allowed = [c for c in ALL_CARDS if c in starting]  # canonical order, no jokers
            jokers = int(self.options["jokers"])  # each declared as any card legal there
            allowed += [JOKER_RED, JOKER_BLACK][:jokers]
            out["follow"] = follow_map(allowed)
        return out

    def default_action(self, seat: int) -> Action | None:
        """The draw for the seat to act (a forced play under ``must_play_if_able``)."""
        playing = self.phase is _PLAY and seat == self.turn
        if playing and not self.options["must_play_if_able"]:
            return _DRAW
        legal = self.legal_actions(seat)
        return legal[0] if legal else None


def _multiset(hand: Sequence[Card]) -> dict[Card, int]:
    """The hand as a multiset, in the hand's order: like a ``Counter``, but cheaper."""
    counts = dict.fromkeys(hand, 1)
    if len(counts) < len(hand):  # twin cards (two decks)
        for c in counts:
            counts[c] = 0
        for c in hand:
            counts[c] += 1
    return counts


def _scan(counts: dict[Card, int], allowed: frozenset[Card]) -> tuple[list[Card], list[Card], int]:
    """One pass over a hand without jokers (as a multiset): the cards that may start a play
    (of ``allowed``), those of them a run could start from (a neighbour in their suit is held),
    both in canonical order, and the hand's :func:`~host.games.black_jack.moves.finishing_slack`
    (1, plus the queens, less the stretches of ranks, each begun by a card whose lower
    neighbour is not held)."""
    held: list[Card] = []
    runners: list[Card] = []
    slack = 1
    for c, n in counts.items():
        i = c.index  # suit * 13 + rank - 1
        rank = i % 13
        low = rank != 0 and NATURAL[i - 1] in counts
        if not low:
            slack -= 1  # a stretch begins
        if rank == _QUEEN_AT:
            slack += n
        if c in allowed:
            held.append(c)
            if low or (rank != 12 and NATURAL[i + 1] in counts):
                runners.append(c)
    held.sort(key=_INDEX)
    runners.sort(key=_INDEX)
    return held, runners, slack


def _pickup(acting: Sequence[Card], black_jack: int) -> int:
    """What the cards of a play, as they act, add to the pick-up: 2 a two, ``black_jack`` a
    black jack (a loop rather than ``sum()``: the hot path of every playout)."""
    total = 0
    for c in acting:
        if c.rank is _TWO:
            total += 2
        elif c.rank is _JACK and c.color is _BLACK:  # a black jack
            total += black_jack
    return total


#: :func:`~host.games.black_jack.moves.matching` by the top card, the suit an ace named
#: (``None`` for any other top card) and ``aces_anytime``: the cards a play may start with
_STARTING: dict[tuple[Card, Suit | None, bool], frozenset[Card]] = {}

#: the plain draw, offered and defaulted to as one object (an action is a value)
_DRAW = Draw()

#: the plays without jokers offered so far, by their cards, suit and declaration: a play is a
#: value, so one object serves every listing (2 x 4 suits x 13 x 13 runs at most per ``say``)
_NATURAL_PLAYS: dict[tuple[tuple[Card, ...], Suit | None, Declaration | None], Play] = {}


def _natural_play(cards: tuple[Card, ...], suit: Suit | None, say: Declaration | None) -> Play:
    """``Play(cards, suit, (), say)``, made once (building a frozen dataclass is slow)."""
    key = (cards, suit, say)
    play = _NATURAL_PLAYS.get(key)
    if play is None:
        play = _NATURAL_PLAYS[key] = Play(cards, suit, (), say)
    return play


#: the plays without jokers that end on an ace, one per suit named, by their cards and
#: declaration (looked up once for the four: a key holding a suit would hash it in Python)
_NATURAL_ACES: dict[tuple[tuple[Card, ...], Declaration | None], tuple[Play, ...]] = {}


def _natural_aces(cards: tuple[Card, ...], say: Declaration | None) -> tuple[Play, ...]:
    """``_natural_play(cards, s, say)`` for each suit ``s``, in :data:`_SUITS` order."""
    key = (cards, say)
    plays = _NATURAL_ACES.get(key)
    if plays is None:
        plays = _NATURAL_ACES[key] = tuple(_natural_play(cards, s, say) for s in _SUITS)
    return plays


def _acting(play: Play) -> list[Card]:
    """The cards of a play as they act: each joker as the card declared for it, in order."""
    names = iter(play.declare)
    return [next(names) if c.rank is _JOKER else c for c in play.cards]


GAME = Game(
    name="black-jack",
    title="Black Jack",
    min_seats=2,
    max_seats=10,
    option_specs=OPTIONS,
    state=BlackJack,
)
