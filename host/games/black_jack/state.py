"""Black Jack's table: the deal, the stock, owed cards, the turn passing on, the end, the views.

How it works: :class:`BlackJackState` holds one hand's table and the bookkeeping that is not a
seat's decision; :class:`host.games.black_jack.engine.BlackJack` adds the turns (legal plays,
checks, blunders) on top. It asks chance for the deal (stream 0) and, whenever a draw finds the
stock empty, for a reshuffle of the discards below the top card (stream k for the k-th
reshuffle); owed cards wait in a queue (``_owed``) while a reshuffle is pending, so a draw split
across a reshuffle resumes where it stopped. The table is the top card *as it acts* (``_top_as``:
a joker's declared identity), the suit named by an ace, the pick-up owed by the seat to act,
whether that seat must cover its queen, and the direction. Two safety stops end a hand: a full
round of draws that found nothing (``exhausted``) and :data:`~host.games.base.TURN_LIMIT`
turns (``turn_limit``).
:meth:`view` alone decides what a seat may see.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Self

from host.games.base import (
    TURN_LIMIT,
    Action,
    ChanceError,
    ChanceKind,
    ChanceRequest,
    Event,
    OptionSpec,
    Outcome,
    State,
    Termination,
    WireMap,
)
from protocol.cards import Card, Suit, parse_card
from protocol.decks import deck_of

__all__ = ["OPTIONS", "BlackJackState", "Phase"]


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


class BlackJackState(State):
    """The table of one hand of Black Jack (2-10 players); the turns are :class:`BlackJack`'s."""

    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        super().__init__(seats=seats, options=options, dealer=dealer)
        #: the deck of 7.3 (``decks=auto``: two packs beyond five seats), from the one table
        self.deck = deck_of(self.game.name, self.options, seats)
        self.hand_size = 5 if seats > 5 else 7
        self.dealer = dealer
        self.phase = Phase.DEAL
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
        if view.get("phase") != Phase.PLAY.value:
            raise ValueError(f"no world to sample in phase {view.get('phase')!r}")
        if [len(h) for h in hands] != list(view["hand_counts"]) or len(stock) != view["stock"]:
            raise ValueError("the cards do not fit the view's hand and stock counts")
        game = cls(seats=int(view["seats"]), options=view["options"], dealer=view["dealer"])
        game.phase = Phase.PLAY
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

    def chance_request(self) -> ChanceRequest | None:
        if self.phase is Phase.DEAL:
            return ChanceRequest(ChanceKind.DEAL, 1, 0, self.deck, self.dealer is None)
        if self.phase is Phase.RESHUFFLING:
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
            up = self.stock.pop(0)
            self.discards.append(up)
            where = {"positions": [[0, self.position]], "seats": [None], "pile": [up.code]}
            events.append(Event("turn_up", {"card": up.code, **where}))
            self.position += 1
            if not up.is_joker:
                break
        self._top_as = self.discards[-1]
        self.turn = (self.dealer + 1) % self.seats
        self.phase = Phase.PLAY
        return self._settle(events)

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
        self.phase = Phase.PLAY
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
        self.phase = Phase.OVER
        self.window = None
        events.append(Event("game_over", self._outcome.to_wire()))

    def _direction_name(self) -> str:
        return "clockwise" if self.direction == 1 else "counter-clockwise"

    def view(self, seat: int | None) -> WireMap:
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
        if self.phase is Phase.DEAL:
            return list(self.deck)
        return [c for h in self.hands for c in h] + self.stock + self.discards
