"""One Card's table: the deal, the stock, owed cards, bankruptcy, the end, and every view.

How it works: :class:`OneCardState` holds everything on the table and the bookkeeping that is
not a seat's decision; :class:`host.games.one_card.engine.OneCard` adds the turns (legal moves,
checks, plays, draws, calls) on top. Its first chance request is the deal (stream 0, the 54
cards in canonical order); the answer's position 0 is the top of the stock. Cards are dealt one
at a time clockwise from the dealer's left, then the first non-joker is turned up and the seat
after the dealer in the direction of play (default counter-clockwise) acts.

Every draw goes through one queue of owed cards (``_owed``) settled by :meth:`_settle`: when the
stock runs dry and the discards (minus the top) can be recycled, it stops and raises a
``RESHUFFLE`` chance request; :meth:`apply_chance` installs the new stock and settles the rest.
The turn, phase and direction are decided before the queue is settled, so a suspended draw
never needs a continuation. With ``bankrupt_at`` on, :meth:`_settle` also makes a seat bankrupt
when a draw leaves it holding that many cards or when it owes what cannot be paid
(:meth:`_go_bankrupt`: the hand goes under the top discard and the turn moves on if it was
that seat's); the game ends when a player goes out or one player is left. :meth:`view` alone
decides what a seat may see.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Self

from host.games.base import (
    Action,
    ChanceError,
    ChanceKind,
    ChanceRequest,
    Event,
    Game,
    OptionSpec,
    Outcome,
    Termination,
    WireMap,
)
from protocol.cards import DECK_54, Card, Suit, parse_card
from protocol.decks import deck_of

__all__ = ["DIRECTIONS", "OneCardState", "Phase"]


class Phase(enum.Enum):
    DEAL = "deal"  #: waiting for the deal's shuffle
    PLAY = "play"  #: the seat to act plays or draws (perhaps against a pending attack)
    AFTER_ATTACK = "after_attack"  #: took the damage: may play a card just drawn, or draw one
    OVER = "over"  #: the game has ended


_DEAL, _PLAY, _AFTER, _OVER = Phase.DEAL, Phase.PLAY, Phase.AFTER_ATTACK, Phase.OVER

# --------------------------------------------------------------------------- the game

DIRECTIONS = {1: "clockwise", -1: "counter-clockwise"}


class OneCardState(Game):
    """The table of a One Card game (2-8 players); the turns are :class:`OneCard`'s."""

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
        self.direction = 1 if opts["direction"] == "clockwise" else -1
        self.phase = _DEAL
        self._request: ChanceRequest | None = ChanceRequest(
            ChanceKind.DEAL, 1, 0, deck_of(self.name, opts, seats), choose_dealer=dealer is None
        )
        self._hands: list[list[Card]] = [[] for _ in range(seats)]
        self._stock: list[Card] = list(self._request.cards)  # stock[pos:] is the stock, top first
        self._pos = 0
        self._stream = 0
        self._discards: list[Card] = []
        self._recycle: list[Card] = []  # discards waiting for a reshuffle answer
        self._suit: Suit | None = None  # the suit to match (None on a joker)
        self.turn = 0
        self._damage = 0
        self._extra = 0  # extra turns owed (kings) to the seat to act
        self._target: int | None = None  # the seat that faces the pending damage
        self._skipping: list[int] = []  # seats whose next turn a jack passes over, in order
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
        self.turns = 0  # turn actions taken (see TURN_LIMIT)
        self._outcome: Outcome | None = None
        self._legal: dict[int, list[Action]] = {}  # legal_actions cache, reset by every change

    # ------------------------------------------------------------------ worlds

    @classmethod
    def from_view(
        cls, view: Mapping[str, Any], hands: Sequence[Sequence[Card]], stock: Sequence[Card]
    ) -> Self:
        """A game in the position ``view`` shows, with the cards it hides filled in.

        ``hands`` holds every seat's cards (the viewer's as its view shows them, the others as
        many as ``hand_counts`` says) and ``stock`` the stock, top first. The result is one
        world consistent with what the viewer sees, for a bot to search (determinization); it
        never goes back to the host. Bookkeeping the view does not show starts afresh: the turn
        count, and the cards another seat just drew as damage (``fresh``, shown to that seat
        only: in such a world it may only draw).

        Raises:
            ValueError: the view is not of a game in play, or the cards do not fit it.
        """
        if view.get("phase") not in (_PLAY.value, _AFTER.value):
            raise ValueError(f"no world to sample in phase {view.get('phase')!r}")
        n = int(view["seats"])
        counts = list(view["hand_counts"])
        if [len(h) for h in hands] != counts or len(stock) != view["stock"]:
            raise ValueError("the cards do not fit the view's hand and stock counts")
        game = cls(seats=n, options=view["options"], dealer=view["dealer"])
        game.phase = Phase(view["phase"])
        game._request = None
        game._hands = [list(h) for h in hands]
        game._stock, game._pos, game._stream = list(stock), 0, int(view["stream"])
        game._discards = [parse_card(c) for c in view["discards"]]
        game._suit = None if view["suit"] is None else Suit(view["suit"])
        game.turn = int(view["turn"])
        game.direction = 1 if view["direction"] == DIRECTIONS[1] else -1
        game._damage, game._extra = int(view["damage"]), int(view["extra_turns"])
        target = view.get("target")
        game._target = None if not game._damage else int(game.turn if target is None else target)
        game._skipping = [int(s) for s in view.get("skipping") or ()]
        fresh = view.get("fresh") if view.get("seat") == game.turn else None
        game._fresh = [parse_card(c) for c in fresh or ()]
        window = view["call_window"]
        game._window = None if window is None else (window["holder"], window["target"])
        game._finished, game._bankrupt = list(view["finished"]), list(view["bankrupt"])
        game._active = [s not in game._finished and s not in game._bankrupt for s in range(n)]
        game._n_active = sum(game._active)
        return game

    def redealt(self, hands: Sequence[Sequence[Card]], stock: Sequence[Card]) -> Self:
        """A copy of this world (one :meth:`from_view` built, not yet played on) with its hidden
        cards dealt as ``hands`` and ``stock`` say: the world ``from_view`` would build from the
        same view, made without reading the view again (a bot samples hundreds a move)."""
        game = self.clone()
        game._hands = [list(h) for h in hands]
        game._stock, game._pos = list(stock), 0
        game._legal = {}
        return game

    def standing(self) -> list[int | None]:
        """Each seat's card count, ``None`` for a seat out of play (out, or bankrupt): what a
        searching bot scores a simulated position by (a view costs far more)."""
        return [len(h) if live else None for h, live in zip(self._hands, self._active, strict=True)]

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
                    "seats": [None] * len(turned),  # to the table (PROTOCOL.md 7.9)
                    "pile": [c.code for c in turned],  # onto the discard pile
                },
            )
        )
        self._suit = top.suit
        self.phase = _PLAY
        self.turn = (dealer + self.direction) % n
        events.append(Event("start", {"first": self.turn, "direction": DIRECTIONS[self.direction]}))
        self._announce_turn(events)

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
        n, step = self.seats, self.direction
        seat = (seat + step) % n
        while not self._active[seat]:
            seat = (seat + step) % n
        return seat

    def _pass(self, seat: int) -> int:
        """Who acts after ``seat``'s turn: ``seat`` again while it is owed an extra turn (one is
        used up), else the next player in the direction of play, passing over (and clearing)
        every seat a jack marked in ``_skipping``, but never over ``seat`` itself."""
        if self._extra:
            self._extra -= 1
            return seat
        skipping = self._skipping
        nxt = self._next_active(seat)
        while nxt in skipping and nxt != seat:
            skipping.remove(nxt)
            nxt = self._next_active(nxt)
        return nxt

    def _aim(self, seat: int) -> int:
        """The next *other* player of ``seat`` to take a turn: the first seat after it that no
        jack passes over, else (every other seat is passed over) the next one."""
        other = self._next_active(seat)
        while other in self._skipping:
            other = self._next_active(other)
            if other == seat:
                return self._next_active(seat)
        return other

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
            self.turn = self._pass(seat)

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
        if seat in self._skipping:
            self._skipping.remove(seat)
        data: WireMap = {
            "seat": seat,
            "reason": reason,
            "count": len(hand),
            "cards": [c.code for c in hand],
            "pile": [c.code for c in hand],  # under the top card (PROTOCOL.md 7.9)
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
        if self.turn == seat:
            self._extra = 0
            self._fresh = []
            if self.phase is _AFTER:
                self.phase = _PLAY
            self.turn = self._pass(seat)
        if self._target == seat:  # a pending attack stays for the next player in turn
            self._target = self._aim(seat)

    def _finish(self, outcome: Outcome, events: list[Event]) -> None:
        self._outcome = outcome
        self.phase = _OVER
        self._window = None
        self._owed = []
        self._fresh = []
        self._skipping = []
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
                if self.phase is _OVER:
                    return
                continue
            if not avail:
                if len(self._discards) > 1:
                    recycled = sorted(self._discards[:-1], key=_index)
                    del self._discards[:-1]
                    self._recycle = recycled
                    stream = self._stream + 1
                    self._request = ChanceRequest(
                        ChanceKind.RESHUFFLE, 1, stream, tuple(recycled), kept=tuple(self._discards)
                    )
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
            if reason == "attack" and self.phase is _AFTER:
                self._fresh.extend(cards)
            positions = [[self._stream, p] for p in range(pos, pos + k)]
            events.append(
                Event(
                    "draw",
                    {
                        "seat": seat,
                        "count": k,
                        "reason": reason,
                        "positions": positions,
                        "seats": [seat] * k,
                    },
                )
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
                if self.phase is _OVER:
                    return

    def _faced(self) -> int:
        """The damage the seat to act faces: the pending damage if it is that seat's to face."""
        return self._damage if self._target == self.turn else 0

    def _announce_turn(self, events: list[Event]) -> None:
        if self.phase is _OVER or self._request is not None:
            return
        data: WireMap = {"seat": self.turn, "phase": self.phase.value}
        if self._faced():
            data["damage"] = self._damage
        events.append(Event("turn", data))

    # ------------------------------------------------------------------ seeing

    def view(self, seat: int | None) -> WireMap:
        self.require_seat(seat)
        top = self._discards[-1] if self._discards else None
        phase = "reshuffle" if self._request is not None and self.phase is not _DEAL else None
        window = self._window
        out: WireMap = {
            "game": self.name,
            "seats": self.seats,
            "seat": seat,
            "dealer": self.dealer,
            "hand_no": 1,
            "phase": phase or self.phase.value,
            "turn": None if self.phase in (_DEAL, _OVER) else self.turn,
            "to_act": list(self.to_act()),
            "direction": DIRECTIONS[self.direction],
            "top": None if top is None else top.code,
            "suit": None if self._suit is None else self._suit.value,
            "damage": self._damage,
            "target": self._target,
            "extra_turns": self._extra,
            "skipping": list(self._skipping),
            "discards": [c.code for c in self._discards],
            "stock": 0 if self.phase is _DEAL else len(self._stock) - self._pos,
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
            after = self.phase is _AFTER and seat == self.turn
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
