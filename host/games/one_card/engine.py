"""One Card, the Korean shedding game of the Crazy Eights family (rules: ``spec/RULES.md``).

How it works: :data:`GAME` holds the static rules (name, seats, :data:`OPTIONS`) and
:class:`OneCard` is the running hand, a pure state machine on the shared interface of
:mod:`host.games.base` (its first half keeps the table: deal, stock, owed cards, bankruptcy, the
end, views; its second half the turns). A turn is one action: ``Play`` (one card, or with
``multi_play`` several of one rank; a seven names a suit) or ``Draw`` (one card, or the whole
pending attack damage). ``Call`` ("One Card!") is an out-of-turn action any seat may send while a
call window is open. Legality is table-driven (:mod:`host.games.one_card.moves`: frozensets of the
cards that may be played on a given top card and suit, built once per key) and ``legal_actions`` is
cached until the next mutation, which keeps random playouts fast. Refusals are worded by
:mod:`host.games.one_card.explain`.

Its first chance request is the deal (stream 0, the 54 cards in canonical order); the answer's
position 0 is the top of the stock. Cards are dealt one at a time clockwise from the dealer's left,
then the first non-joker is turned up and the seat after the dealer in the direction of play
(default counter-clockwise) acts.

Every draw goes through one queue of owed cards (``_owed``) settled by :meth:`_settle`: when the
stock runs dry and the discards (minus the top) can be recycled, it stops and raises a ``RESHUFFLE``
chance request; :meth:`apply_chance` installs the new stock and settles the rest. The turn, phase
and direction are decided before the queue is settled, so a suspended draw never needs a
continuation. With ``bankrupt_at`` on, :meth:`_settle` also makes a seat bankrupt when a draw leaves
it holding that many cards or when it owes what cannot be paid (:meth:`_go_bankrupt`: the hand goes
under the top discard and the turn moves on if it was that seat's); the game ends when a player goes
out or one player is left. :meth:`view` alone decides what a seat may see.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
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
    State,
    Termination,
    WireMap,
)
from host.games.follow import follow_map
from host.games.one_card.explain import mismatch_reason, no_call_reason, refusal
from host.games.one_card.moves import (
    CALL,
    DRAW,
    PLAYS_OF,
    Call,
    Draw,
    Play,
    check_suit_field,
    defend_set,
    follow_set,
    parse_one_card_action,
    plays_from,
)
from host.games.one_card.rules import AGAIN, ATTACKERS, DAMAGE, REVERSE, SKIP
from protocol.cards import DECK_54, Card, Suit, parse_card
from protocol.decks import deck_of

__all__ = ["DIRECTIONS", "GAME", "OPTIONS", "OneCard", "Phase"]


class Phase(enum.Enum):
    DEAL = "deal"  #: waiting for the deal's shuffle
    PLAY = "play"  #: the seat to act plays or draws (perhaps against a pending attack)
    AFTER_ATTACK = "after_attack"  #: took the damage: may play a card just drawn, or draw one
    OVER = "over"  #: the game has ended


_DEAL, _PLAY, _AFTER, _OVER = Phase.DEAL, Phase.PLAY, Phase.AFTER_ATTACK, Phase.OVER

# --------------------------------------------------------------------------- the game

DIRECTIONS = {1: "clockwise", -1: "counter-clockwise"}


OPTIONS: tuple[OptionSpec, ...] = (
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


class OneCard(State):
    """One Card for 2-8 players; see the module docstring and ``spec/RULES.md``.

    >>> from protocol.cards import DECK_54
    >>> game = OneCard(seats=2, dealer=0)
    >>> _ = game.apply_chance(list(DECK_54))  # unshuffled: seat 1 gets AS 3S 5S 7S 9S JS KS
    >>> game.to_act(), game.view(None)["top"]
    ((1,), '2H')
    >>> [a.to_wire() for a in game.legal_actions(1)][::4]  # the 7S naming S H D C, then draw
    [{'type': 'play', 'cards': ['7S'], 'suit': 'S'}, {'type': 'draw'}]
    >>> [e.kind for e in game.apply(1, game.parse_action({"type": "draw"}))]
    ['draw', 'drawn', 'turn']
    """

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
            ChanceKind.DEAL,
            1,
            0,
            deck_of(self.game.name, opts, seats),
            choose_dealer=dealer is None,
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
        return self._take_order(request, order, dealer)

    def _take_order(
        self, request: ChanceRequest, order: Sequence[Card], dealer: int | None
    ) -> list[Event]:
        """Answer ``request`` with ``order`` (checked): the deal, or a reshuffle's new stock."""
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

    def _table_view(self, seat: int | None) -> WireMap:
        self.require_seat(seat)
        top = self._discards[-1] if self._discards else None
        phase = "reshuffle" if self._request is not None and self.phase is not _DEAL else None
        window = self._window
        out: WireMap = {
            "game": self.game.name,
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

    def to_act(self) -> tuple[int, ...]:
        if self._request is not None or self.phase is _OVER or self.phase is _DEAL:
            return ()
        return (self.turn,)

    def _allowed(self) -> frozenset[Card]:
        top = self._discards[-1]
        if self._faced():
            return defend_set(top, self._suit) if self._defence == "match" else ATTACKERS
        return follow_set(top, self._suit)

    def view(self, seat: int | None) -> WireMap:
        """The table's view (:meth:`_table_view`) with ``follow``: what may be played on the
        top card now (:func:`host.games.follow.follow_map`; null outside play). After taking an
        attack only a card just drawn plays: ``follow`` says so (``only: "drawn"``, worded by
        the presentation's ``words``), and the drawing seat sees just its own drawn cards."""
        out = self._table_view(seat)
        playing = self.phase in (_PLAY, _AFTER) and self._discards
        out["follow"] = follow_map(self._allowed()) if playing else None
        if playing and self.phase is _AFTER:
            allowed = self._allowed()
            if seat == self.turn:  # (its own cards: the other seats never learn them)
                allowed = allowed & frozenset(self._fresh)
            out["follow"] = {**follow_map(allowed), "only": "drawn"}
        return out

    def _plays(self, seat: int) -> list[Action]:
        pool = self._fresh if self.phase is _AFTER else self._hands[seat]
        return plays_from(pool, self._allowed(), multi=self._multi)

    def _legal_for(self, seat: int) -> list[Action]:
        """The cached legal list (never handed out: callers get a copy)."""
        cached = self._legal.get(seat)
        if cached is None:
            cached = []
            if self._request is None and self.phase in (_PLAY, _AFTER) and 0 <= seat < self.seats:
                if seat == self.turn:
                    cached = self._plays(seat)
                    if not (self._must_play and cached):
                        cached.append(DRAW)
                if self._window is not None and seat not in self._bankrupt:
                    cached.append(CALL)  # (a bankrupt seat is out of the game: no calls)
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

    def check(self, seat: int, action: Action) -> None:  # noqa: C901, PLR0912
        if not 0 <= seat < self.seats:
            raise InvalidAction(f"no seat {seat}")
        if self.phase is _OVER:
            raise IllegalAction("the game is over")
        if isinstance(action, Play):
            self._check_shape(seat, action)  # malformed before the turn (PROTOCOL.md 4.2)
        if isinstance(action, Call) and seat in self._bankrupt:
            raise IllegalAction("you went bankrupt: you are out of this game and call no more")
        if isinstance(action, Call) and self._window is None and self.phase is not _DEAL:
            raise IllegalAction(no_call_reason(seat, self._called, self._closed))
        if self._request is not None or self.phase is _DEAL:
            raise NotYourTurn("waiting for the shuffle")
        if isinstance(action, Call):
            return
        if seat != self.turn:
            if seat in self._bankrupt:
                raise NotYourTurn("you went bankrupt: you play no more turns in this game")
            raise NotYourTurn(f"it is seat {self.turn}'s turn")
        if isinstance(action, Draw):
            if self._must_play and self._plays(seat):
                raise IllegalAction("you must play a card when you can (must_play_if_able)")
            return
        if not isinstance(action, Play):
            raise InvalidAction(f"not a One Card action: {action!r}")
        cards = action.cards
        if self.phase is _AFTER and any(c not in self._fresh for c in cards):
            raise IllegalAction("after taking an attack, only a card just drawn may be played")
        if len(cards) > 1:
            if not self._multi:
                raise IllegalAction("one card at a time (multi_play is off)")
            if any(c.rank is not cards[0].rank for c in cards):
                raise IllegalAction("several cards played together must share a rank")
        if cards[0] not in self._allowed():
            top = self._discards[-1]
            raise IllegalAction(refusal(cards[0], top, self._suit, self._faced(), self._defence))

    def _check_shape(self, seat: int, action: Play) -> None:
        """A malformed play (repeated cards, a bad suit field, a card not held): ``bad_field``."""
        cards = action.cards
        if not cards or len(set(cards)) != len(cards):
            raise InvalidAction("a play needs distinct cards")
        check_suit_field(cards, action.suit)
        hand = self._hands[seat]
        for c in cards:
            if c not in hand:
                raise InvalidAction(f"{c.code} is not in your hand")

    def _single_plays(self, card: Card) -> list[Action]:
        return list(PLAYS_OF.get(card, ()))

    def _why_not(self, seat: int, action: Action) -> tuple[str, bool]:
        reason, _ = super()._why_not(seat, action)
        if reason and isinstance(action, Play) and self.phase is _PLAY and seat == self.turn:
            top, c = self._discards[-1], action.cards[0]
            if self._request is None and c not in self._allowed():
                args = (c, top, self._suit, self._faced(), self._defence)
                return mismatch_reason(*args, is_attacker=c in ATTACKERS), False
        return reason, False

    def apply(self, seat: int, action: Action) -> list[Event]:
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
            turn, phase = self.turn, self.phase
            self._settle(events)
            if (self.turn, self.phase) != (turn, phase):  # the seat to act went bankrupt
                self._announce_turn(events)
            return events
        window, self._window, self._called = self._window, None, None
        self._closed = None if window is None else (window[0], seat)
        if isinstance(action, Play):
            self._play(seat, action, events)
        else:
            self._draw(seat, events)
        self.turns += 1
        if self.turns >= TURN_LIMIT and self.phase is not _OVER:
            self._stop(events, Termination.TURN_LIMIT)
        self._settle(events)
        self._announce_turn(events)
        return events

    def _play(self, seat: int, play: Play, events: list[Event]) -> None:
        hand = self._hands[seat]
        cards = play.cards
        for c in cards:
            hand.remove(c)
        if self.phase is _AFTER:
            self._fresh = []
            self.phase = _PLAY
        under = self._discards[-1]
        self._discards.extend(cards)
        last = cards[-1]
        named = play.suit if hand else None  # a seven going out names nothing (effect ignored)
        self._suit = named if named is not None else last.suit
        data: WireMap = {
            "seat": seat,
            "cards": [last.code] if len(cards) == 1 else [c.code for c in cards],
            "pile": [c.code for c in cards],  # onto the discard pile (PROTOCOL.md 7.9)
        }
        if named is not None:
            data["suit"] = named.value
        events.append(Event("play", data))
        self._idle = 0
        if not hand:
            self._go_out(seat, events)
            return
        penalty = (
            self._faced() > 0
            and self._defence == "escalate"
            and DAMAGE[cards[0]] < DAMAGE.get(under, 0)
        )
        rank, k = last.rank, len(cards)
        # said after the play: skips, a reversal, extra turns. What is aimed at the next player
        # (an attack, a skip) lands on the next *other* player, whatever extra turns are owed
        effects: list[Event] = []
        if last in ATTACKERS:
            self._damage += DAMAGE[last] if k == 1 else sum(DAMAGE[c] for c in cards)
            if self._cap and self._damage > self._cap:
                self._damage = self._cap
            self._target = self._aim(seat)
            data["damage"] = self._damage
            data["target"] = self._target
        elif rank is SKIP or (rank is REVERSE and self._n_active == 2):
            self._skip(seat, k, effects)  # each jack skips one more player, never its own
        elif rank is REVERSE:
            if k % 2:
                self.direction = -self.direction
                effects.append(Event("reverse", {"direction": DIRECTIONS[self.direction]}))
            data["direction"] = DIRECTIONS[self.direction]
        elif rank is AGAIN:
            self._extra += k
            effects.append(Event("extra_turn", {"seat": seat, "count": k}))
        self.turn = self._pass(seat)
        events.extend(effects)
        if penalty:
            data["penalty"] = 1
            self._owed.append((seat, 1, "escalate"))
        elif len(hand) == 1:
            self._window = (seat, self._next_active(seat))
            events.append(Event("call_window", {"holder": seat}))

    def _draw(self, seat: int, events: list[Event]) -> None:
        if self._faced():  # take the whole attack
            self._owed.append((seat, self._damage, "attack"))
            self._damage, self._target = 0, None
            self._idle = 0
            if self._after_attack:  # still this seat's turn: play a drawn card or draw one
                self.phase = _AFTER
                self._fresh = []
                return
            self.turn = self._pass(seat)
            return
        if self._pos >= len(self._stock) and len(self._discards) <= 1 and not self._plays(seat):
            self._idle += 1  # a pass: nothing to draw and nothing to play
        else:
            self._idle = 0
        self._owed.append((seat, 1, "draw"))
        if self.phase is _AFTER:
            self.phase = _PLAY
            self._fresh = []
        if self._idle >= self._n_active:  # nobody can play or draw
            self._stop(events, Termination.EXHAUSTED)
            return
        self.turn = self._pass(seat)

    def _skip(self, seat: int, k: int, effects: list[Event]) -> None:
        """``k`` jacks (or queens with two players) from ``seat``: the next ``k`` other players
        not yet passed over will miss their next turn (each a ``skip`` event now), stopping once
        every other player is passed over. Extra turns still owed come first."""
        skipping, other = self._skipping, seat
        for _ in range(k):
            other = self._next_active(other)
            while other in skipping:
                other = self._next_active(other)
            if other == seat:
                return
            skipping.append(other)
            effects.append(Event("skip", {"seat": other}))


def _index(c: Card) -> int:
    return c.index


GAME = Game(
    name="one-card",
    title="One Card",
    min_seats=2,
    max_seats=8,
    option_specs=OPTIONS,
    state=OneCard,
)
