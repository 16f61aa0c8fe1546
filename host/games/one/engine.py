"""ONE, the trick-taking game with a 25-card Euchre deck: a whole match as one :class:`State`.

How it works. One ``One`` object runs the match from the first deal to the winner, carrying the
scores from hand to hand. Every hand opens with a chance request (``DEAL``, ``hand_no = n``,
stream 0; ``choose_dealer`` only for hand 1 when no dealer was given), so each hand gets its own
fair deal; the deal passes left each hand. The phases (:class:`Phase`) are::

    DEAL --apply_chance--> AUCTION --bids, passes--> PLAY --last trick--> DEAL (next hand)
                                                      |  ^                or OVER (a winner)
                     joker captured, downtown allowed v  |  the capturer chooses
                                                   DOWNTOWN

Positions 0..23 of the shuffled deck go one at a time clockwise from the dealer's left; position
24 is the centre card, hidden from every seat and from spectators until the last trick is taken.
Seats act with four frozen actions (wire forms in :mod:`host.games.one.moves`): :class:`Bid`,
:class:`Pass`, :class:`Play` (a no-trump joker lead also names the suit to follow) and
:class:`DowntownChoice`. The legal actions are listed once per state (kept until the next action
or deal); :meth:`One.apply` takes a checked action and checks nothing. :meth:`One.view` alone
decides what a seat may see. The rules and every ruling, with reasons, are in
``spec/RULES.md`` section ONE.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Self

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
    State,
    Termination,
    WireMap,
)
from host.games.one.explain import IN_AUCTION, JOKER_FIRST_LEAD, unfollowed_reason
from host.games.one.moves import (
    BIDS,
    DOWNTOWN_CHOICES,
    JOKER_LEADS,
    PASS,
    PLAY_OF,
    Bid,
    DowntownChoice,
    DowntownRule,
    Pass,
    Phase,
    Play,
    Ranking,
    parse_one_action,
)
from host.games.one.rules import DECK_SET, JOKER, MAX_BID, card_points, strength
from protocol.cards import DECK_ONE, Card, Suit, format_cards, parse_card
from protocol.decks import deck_of

__all__ = [
    "GAME",
    "Bid",
    "DowntownChoice",
    "DowntownRule",
    "One",
    "Pass",
    "Phase",
    "Play",
    "Ranking",
]

#: the lowest legal bid, by number of players
MIN_BID = {2: 8, 3: 7, 4: 6}
#: cards dealt to each player, by number of players (24 in all; the 25th is the centre card)
HAND_SIZE = {2: 12, 3: 8, 4: 6}
#: stock position of the centre card (the last card of the deck)
CENTRE_POSITION = 24


# --------------------------------------------------------------------------- the game


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("target", 30, "points that win the match", minimum=1, maximum=1000),
    OptionSpec(
        "downtown",
        DowntownRule.NO_TRUMP.value,
        "when the joker's capturer may switch to downtown (9 high): in no-trump hands, "
        "after any capture, or never",
        choices=tuple(r.value for r in DowntownRule),
    ),
)


class One(State):
    """A match of ONE for 2-4 players, to ``target`` points (default 30)."""

    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        super().__init__(seats=seats, options=options, dealer=dealer)
        target = self.options["target"]
        assert isinstance(target, int)
        self.target = target
        self.downtown_rule = DowntownRule(self.options["downtown"])
        self.min_bid = MIN_BID[seats]
        self.hand_size = HAND_SIZE[seats]
        self._choose_dealer = dealer is None
        self.dealer = dealer
        self.hand_no = 1
        self.scores = [0] * seats
        self.phase = Phase.DEAL
        self.last_hand: WireMap | None = None
        self._outcome: Outcome | None = None
        self._reset_hand()

    def _reset_hand(self) -> None:
        n = self.seats
        # the seat to act's legal actions until the next apply (a tuple a copy may share)
        self._legal: tuple[Action, ...] | None = None
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.centre: Card | None = None
        self.centre_taken = False
        self.high: int | None = None
        self.bidder: int | None = None
        self.passed = [False] * n
        self.calls: list[WireMap] = []
        self.turn = 0
        self.no_trump = False
        self.trump: Suit | None = None
        self.ranking = Ranking.UPTOWN
        self.leader = 0
        self.led: Suit | None = None  # the suit to follow (named by a no-trump joker lead)
        self.trick: list[tuple[int, Card]] = []
        self.tricks_played = 0
        self.last_trick: WireMap | None = None
        self.won: list[list[Card]] = [[] for _ in range(n)]
        self.tricks_won = [0] * n

    # -- chance

    @classmethod
    def from_view(
        cls,
        view: Mapping[str, Any],
        hands: Sequence[Sequence[Card]],
        centre: Card,
        won: Sequence[Sequence[Card]],
    ) -> Self:
        """A match in the position ``view`` shows, with the cards it hides filled in.

        ``hands`` holds every seat's cards (the viewer's as its view shows them), ``centre`` the
        face-down centre card and ``won`` the cards each seat has taken in this hand's tricks. The
        result is one world consistent with what the viewer sees, for a bot to search
        (determinization); it never goes back to the host.

        Raises:
            ValueError: the view is not of a hand being bid or played, or the hands do not fit it.
        """
        if view.get("phase") not in (Phase.AUCTION.value, Phase.PLAY.value, Phase.DOWNTOWN.value):
            raise ValueError(f"no world to sample in phase {view.get('phase')!r}")
        if [len(h) for h in hands] != list(view["hand_counts"]):
            raise ValueError("the hands do not fit the view's hand counts")
        game = cls(seats=int(view["seats"]), options=view["options"], dealer=view["dealer"])
        auction, trick = view["auction"], view["trick"]
        game.hand_no, game.scores = int(view["hand_no"]), list(view["scores"])
        game.last_hand = view["last_hand"]
        game.phase = Phase(view["phase"])
        game.hands = [sorted(h) for h in hands]
        game.centre = centre
        game.high, game.bidder = auction["high"], auction["bidder"]
        game.passed, game.calls = list(auction["passed"]), [dict(c) for c in auction["calls"]]
        game.turn = int(view["to_act"][0])
        game.no_trump = bool(view["no_trump"])
        game.trump = None if view["trump"] is None else Suit(view["trump"])
        game.ranking = Ranking(view["ranking"])
        game.trick = [(int(p["seat"]), parse_card(p["card"])) for p in trick["cards"]]
        game.leader = int(trick["leader"]) if game.trick else game.turn
        game.led = None if trick["led"] is None else Suit(trick["led"])
        game.tricks_won = list(view["tricks_won"])
        game.tricks_played = sum(game.tricks_won)
        game.last_trick = view["last_trick"]
        game.won = [list(w) for w in won]
        return game

    def chance_request(self) -> ChanceRequest | None:
        if self.phase is not Phase.DEAL:
            return None
        return ChanceRequest(
            kind=ChanceKind.DEAL,
            hand_no=self.hand_no,
            stream=0,
            cards=deck_of(self.game.name, self.options, self.seats),
            choose_dealer=self.hand_no == 1 and self._choose_dealer,
        )

    def apply_chance(self, order: Sequence[Card], dealer: int | None = None) -> list[Event]:
        """Deal a hand from ``order`` (a permutation of the deck, top first).

        Raises:
            ChanceError: no deal is pending, ``order`` is not a permutation of the deck,
                or ``dealer`` is missing (hand 1 without a given dealer) or unexpected.
        """
        request = self.chance_request()
        if request is None:
            raise ChanceError("no deal is pending")
        if len(order) != len(DECK_ONE) or set(order) != DECK_SET:
            raise ChanceError("the deal is not a permutation of the deck")
        return self._take_order(request, order, dealer)

    def _take_order(
        self, request: ChanceRequest, order: Sequence[Card], dealer: int | None
    ) -> list[Event]:
        """Deal the hand from ``order`` (checked) with ``dealer`` (checked here)."""
        if request.choose_dealer:
            if dealer is None or not 0 <= dealer < self.seats:
                raise ChanceError("the first deal must name the dealer")
            self.dealer = dealer
        elif dealer is not None and dealer != self.dealer:
            raise ChanceError(f"the dealer is seat {self.dealer}")
        assert self.dealer is not None
        n, d = self.seats, self.dealer
        self._reset_hand()
        positions: list[list[list[int]]] = [[] for _ in range(n)]
        for pos in range(CENTRE_POSITION):
            seat = (d + 1 + pos) % n
            self.hands[seat].append(order[pos])
            positions[seat].append([0, pos])
        self.centre = order[CENTRE_POSITION]
        self._sort_hands()
        self.phase = Phase.AUCTION
        self.turn = (d + 1) % n
        events = [
            Event(
                "deal",
                {
                    "hand_no": self.hand_no,
                    "dealer": d,
                    "positions": [[0, p] for p in range(CENTRE_POSITION + 1)],
                    # where each position goes: a seat, or the table (PROTOCOL.md 7.9)
                    "seats": [(d + 1 + p) % n for p in range(CENTRE_POSITION)] + [None],
                    "hands": positions,
                    "centre": [0, CENTRE_POSITION],
                },
            )
        ]
        events += [self._hand_event(s, positions[s]) for s in range(n)]
        return events

    def _sort_hands(self) -> None:
        for hand in self.hands:
            hand.sort()

    def _hand_event(self, seat: int, positions: list[list[int]]) -> Event:
        """The seat's own ``hand`` event of a deal: its cards and where each came from."""
        data = {"cards": format_cards(self.hands[seat]), "positions": positions}
        return Event("hand", data, to=seat)

    # -- acting

    def to_act(self) -> tuple[int, ...]:
        if self.phase in (Phase.DEAL, Phase.OVER):
            return ()
        return (self.turn,)

    def legal_actions(self, seat: int) -> list[Action]:
        return list(self._offered(seat))

    def default_action(self, seat: int) -> Action | None:
        return next(iter(self._offered(seat)), None)

    def _offered(self, seat: int) -> tuple[Action, ...]:
        """:meth:`legal_actions` as a tuple, listed once per state for the seat to act."""
        if self._legal is not None and seat == self.turn:
            return self._legal  # only ever kept for the seat to act, until the next action
        if self.phase in (Phase.DEAL, Phase.OVER) or seat != self.turn:
            return ()
        if self.phase is Phase.AUCTION:
            low = self.min_bid if self.high is None else self.high + 1
            self._legal = (PASS, *BIDS[low : MAX_BID + 1])
        elif self.phase is Phase.DOWNTOWN:
            self._legal = DOWNTOWN_CHOICES
        else:
            playable = self._playable(seat)
            if self.no_trump and not self.trick and JOKER in playable:  # it names a suit
                self._legal = tuple(
                    p for c in playable for p in (JOKER_LEADS if c is JOKER else (PLAY_OF[c],))
                )
            else:
                self._legal = tuple([PLAY_OF[c] for c in playable])
        return self._legal

    def parse_action(self, wire: object) -> Action:
        return parse_one_action(wire)

    def check(self, seat: int, action: Action) -> None:
        """Raise unless ``apply`` would accept ``action`` from ``seat``.

        Raises:
            NotYourTurn: the seat is not to act (or a deal is pending, or the match is over).
            InvalidAction: not an action of ONE, or a card the seat does not hold.
            IllegalAction: against the rules now (bid too low, wrong phase, must follow...).
        """
        if (
            isinstance(action, Play)
            and 0 <= seat < len(self.hands)
            and action.card not in self.hands[seat]
        ):
            # malformed before the turn (PROTOCOL.md 4.2)
            raise InvalidAction(f"you do not hold {action.card.code}")
        if self.phase is Phase.OVER:
            raise NotYourTurn("the match is over")
        if self.phase is Phase.DEAL:
            raise NotYourTurn("the next hand is being dealt")
        if seat != self.turn:
            raise NotYourTurn(f"it is seat {self.turn}'s turn, not seat {seat}'s")
        if not isinstance(action, Bid | Pass | Play | DowntownChoice):
            raise InvalidAction(f"{type(action).__name__} is not an action of ONE")
        if self.phase is Phase.AUCTION:
            if isinstance(action, Pass):
                return
            if not isinstance(action, Bid):
                raise IllegalAction("the auction is on: bid or pass")
            low = self.min_bid if self.high is None else self.high + 1
            if not low <= action.value <= MAX_BID:
                raise IllegalAction(f"a bid now must be {low}..{MAX_BID}, not {action.value}")
            return
        if self.phase is Phase.DOWNTOWN:
            if not isinstance(action, DowntownChoice):
                raise IllegalAction("you captured the joker: choose downtown or not first")
            return
        if not isinstance(action, Play):
            raise IllegalAction("the auction is over: play a card")
        self._check_play(seat, action)

    def _check_play(self, seat: int, action: Play) -> None:
        c = action.card
        if c not in self.hands[seat]:
            raise InvalidAction(f"you do not hold {c.code}")
        if c not in self._playable(seat):
            if not self.trick:
                raise IllegalAction(JOKER_FIRST_LEAD)
            if c is JOKER:
                raise IllegalAction("the joker may only lead or be played when unable to follow")
            assert self.led is not None
            raise IllegalAction(f"you must follow suit ({self.led.value}) and can")
        joker_names = c is JOKER and self.no_trump and not self.trick
        if joker_names and action.suit is None:
            raise IllegalAction("leading the joker with no trump, name the suit to follow")
        if not joker_names and action.suit is not None:
            raise IllegalAction("only the joker leading a no-trump trick names a suit")

    def _single_plays(self, card: Card) -> list[Action]:
        return [Play(card)] if card in DECK_SET else []

    def _why_not(self, seat: int, action: Action) -> tuple[str, bool]:
        """The reason in words a player reads (``check`` keeps its terse messages)."""
        reason, _ = super()._why_not(seat, action)
        if not reason or seat != self.turn or not isinstance(action, Play):
            return reason, False
        if self.phase is Phase.AUCTION:
            return IN_AUCTION, False
        c = action.card
        if self.phase is not Phase.PLAY or c not in self.hands[seat] or c in self._playable(seat):
            return reason, False
        if not self.trick:
            return JOKER_FIRST_LEAD, False
        assert self.led is not None
        return unfollowed_reason(c, self.led), False

    def apply(self, seat: int, action: Action) -> list[Event]:
        self._legal = None
        if isinstance(action, Bid | Pass):
            return self._apply_call(seat, action)
        if isinstance(action, DowntownChoice):
            if action.switch:
                self.ranking = Ranking.DOWNTOWN
            self.phase = Phase.PLAY
            return [Event("downtown", {"seat": seat, "switch": action.switch})]
        assert isinstance(action, Play)
        return self._apply_play(seat, action)

    def _apply_call(self, seat: int, action: Bid | Pass) -> list[Event]:
        self.calls.append({"seat": seat, **action.to_wire()})
        if isinstance(action, Bid):
            self.high, self.bidder = action.value, seat
            events = [Event("bid", {"seat": seat, "value": action.value})]
        else:
            self.passed[seat] = True
            events = [Event("pass", {"seat": seat})]
        active = [s for s in range(self.seats) if not self.passed[s]]
        if self.high == MAX_BID or not active or active == [self.bidder]:
            return events + self._close_auction()
        s = seat
        while True:
            s = (s + 1) % self.seats
            if not self.passed[s]:
                self.turn = s
                return events

    def _close_auction(self) -> list[Event]:
        assert self.dealer is not None
        if self.bidder is None:
            self.no_trump = True
            offset = 2 if self.seats == 4 else 1  # the seat opposite the dealer (see RULES.md)
            self.leader = (self.dealer + offset) % self.seats
        else:
            self.leader = self.bidder
        self.turn = self.leader
        self.phase = Phase.PLAY
        data = {"bidder": self.bidder, "bid": self.high, "no_trump": self.no_trump}
        return [Event("auction_end", {**data, "leader": self.leader})]

    def _suit_of(self, c: Card) -> Suit | None:
        """The suit a card belongs to for following: the joker is trump (none with no trump)."""
        return self.trump if c is JOKER else c.suit

    def _playable(self, seat: int) -> list[Card]:
        hand = self.hands[seat]
        if not self.trick:
            if self.tricks_played == 0 and not self.no_trump:
                return [c for c in hand if c is not JOKER]
            return hand
        led, trump = self.led, self.trump  # inlined _suit_of: this is the hot path
        follow = [c for c in hand if (trump if c is JOKER else c.suit) is led]
        return follow or hand

    def _apply_play(self, seat: int, action: Play) -> list[Event]:
        c = action.card
        self.hands[seat].remove(c)
        events: list[Event] = []
        if not self.trick:
            self.leader = seat
            if self.trump is None and not self.no_trump:
                assert c.suit is not None
                self.trump = c.suit
                events.append(Event("trump", {"suit": c.suit.value, "seat": seat}))
            self.led = action.suit if action.suit is not None else self._suit_of(c)
        self.trick.append((seat, c))
        play: WireMap = {"seat": seat, "card": c.code}
        if action.suit is not None:
            play["suit"] = action.suit.value
        events.insert(0, Event("play", play))
        if len(self.trick) < self.seats:
            self.turn = (seat + 1) % self.seats
            return events
        return events + self._finish_trick()

    def _strength(self, c: Card) -> int:
        downtown = self.ranking is Ranking.DOWNTOWN
        return strength(c, no_trump=self.no_trump, downtown=downtown)

    def _trick_winner(self) -> int:
        if self.no_trump:  # the joker wins any trick it is in
            pool = [(s, c) for s, c in self.trick if c is JOKER]
        else:
            pool = [(s, c) for s, c in self.trick if self._suit_of(c) is self.trump]
        pool = pool or [(s, c) for s, c in self.trick if c.suit is self.led]
        return max(pool, key=lambda sc: self._strength(sc[1]))[0]

    def _finish_trick(self) -> list[Event]:
        winner = self._trick_winner()
        cards = [c for _, c in self.trick]
        self.won[winner] += cards
        self.tricks_won[winner] += 1
        self.tricks_played += 1
        self.last_trick = {
            "leader": self.leader,
            "winner": winner,
            "cards": [{"seat": s, "card": c.code} for s, c in self.trick],
        }
        points = sum(card_points(c) for c in cards)
        events = [
            Event("trick", {"winner": winner, "points": points, "cards": format_cards(cards)})
        ]
        self.trick = []
        self.led = None
        self.leader = self.turn = winner
        if self.tricks_played == self.hand_size:
            return events + self._finish_hand(winner)
        joker = any(c is JOKER for c in cards)
        rule = self.downtown_rule
        if joker and (
            rule is DowntownRule.ALWAYS or (rule is DowntownRule.NO_TRUMP and self.no_trump)
        ):
            self.phase = Phase.DOWNTOWN
            events.append(Event("downtown_offer", {"seat": winner}))
        return events

    def _finish_hand(self, winner: int) -> list[Event]:
        assert self.centre is not None
        self.centre_taken = True
        self.won[winner].append(self.centre)
        events = [
            Event(
                "centre",
                {"seat": winner, "card": self.centre.code, "position": [0, CENTRE_POSITION]},
            )
        ]
        points = [sum(card_points(c) for c in won) for won in self.won]
        made = None if self.bidder is None else points[self.bidder] >= (self.high or 0)
        points, made = self._audited(points, made)
        hand_scores = [0 if s == self.bidder and not made else p for s, p in enumerate(points)]
        self.scores = [a + b for a, b in zip(self.scores, hand_scores, strict=True)]
        self.last_hand = {
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "bidder": self.bidder,
            "bid": self.high,
            "made": made,
            "points": points,
            "hand_scores": hand_scores,
            "scores": list(self.scores),
        }
        # the view keeps last_hand without card codes: they are dealt again in the next hand
        events.append(Event("hand_end", {**self.last_hand, "centre": self.centre.code}))
        best = max(self.scores)
        if best >= self.target:
            top = tuple(s for s in range(self.seats) if self.scores[s] == best)
            if len(top) > 1 and self.bidder in top:
                top = (self.bidder,)
            if len(top) == 1:
                self.phase = Phase.OVER
                self._outcome = Outcome(Termination.TARGET, top, scores=tuple(self.scores))
                events.append(Event("match_end", self._outcome.to_wire()))
                return events
        assert self.dealer is not None
        self.hand_no += 1
        self.dealer = (self.dealer + 1) % self.seats
        self.phase = Phase.DEAL
        return events

    def _audited(self, points: list[int], made: bool | None) -> tuple[list[int], bool | None]:
        """The hand's points and contract after a private table's end-of-hand audit
        (:mod:`host.games.one.private` forfeits a seat caught); unchanged on a normal table."""
        return points, made

    # -- seeing

    def view(self, seat: int | None) -> WireMap:
        """What ``seat`` may see (``None``: a spectator). The only place visibility is decided.

        Public: scores, phase, auction calls, trump, ranking, the trick on the table, the last
        trick, tricks and points taken, hand sizes, and the centre card once the last trick is
        taken. Private: ``hand`` (the seat's own cards) and ``legal`` (its legal actions).
        A seat number the game does not have raises :class:`SeatError`.
        """
        self.require_seat(seat)
        return {
            "game": self.game.name,
            "seat": seat,
            "seats": self.seats,
            "options": dict(self.options),
            "phase": self.phase.value,
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "target": self.target,
            "scores": list(self.scores),
            "to_act": list(self.to_act()),
            "hand": format_cards(self.hands[seat]) if seat is not None else None,
            "legal": [a.to_wire() for a in self.legal_actions(seat)] if seat is not None else [],
            "hand_counts": [len(h) for h in self.hands],
            "centre": {
                "position": [0, CENTRE_POSITION],
                "card": self.centre.code if self.centre_taken and self.centre is not None else None,
            },
            "auction": {
                "min": self.min_bid,
                "max": MAX_BID,
                "high": self.high,
                "bidder": self.bidder,
                "passed": list(self.passed),
                "calls": [dict(c) for c in self.calls],
            },
            "no_trump": self.no_trump,
            "trump": None if self.trump is None else self.trump.value,
            "ranking": self.ranking.value,
            "trick": {
                "leader": self.leader if self.trick else None,
                "led": None if self.led is None else self.led.value,
                "cards": [{"seat": s, "card": c.code} for s, c in self.trick],
            },
            "last_trick": self.last_trick,
            "tricks_won": list(self.tricks_won),
            "points_taken": [sum(card_points(c) for c in won) for won in self.won],
            "last_hand": self.last_hand,
            "outcome": None if self._outcome is None else self._outcome.to_wire(),
        }

    def hidden_from(self, seat: int | None) -> list[Card]:
        """The cards ``seat`` (``None``: a spectator) may not see: other hands, the centre card.

        Between hands nothing is hidden: every card of the last hand was shown.
        """
        if self.phase is Phase.DEAL:
            return []
        hidden = [c for s, hand in enumerate(self.hands) if s != seat for c in hand]
        if self.centre is not None and not self.centre_taken:
            hidden.append(self.centre)
        return hidden

    def outcome(self) -> Outcome | None:
        return self._outcome

    def all_cards(self) -> list[Card]:
        if self.phase is Phase.DEAL:  # between hands every card is back in the pack
            return list(DECK_ONE)
        cards = [c for h in self.hands for c in h] + [c for _, c in self.trick]
        cards += [c for won in self.won for c in won]
        if not self.centre_taken and self.centre is not None:
            cards.append(self.centre)
        return cards


GAME = Game(
    name="one",
    title="ONE",
    min_seats=2,
    max_seats=4,
    option_specs=OPTIONS,
    state=One,
)
