"""Race Out's engine: a real :class:`host.games.base.State`, as small as a game can be.

How it works: a ``DEAL`` chance request for the whole deck (from the test's deck row in
``protocol.decks``) deals three cards to each seat from the dealer's left; the deal event names
every dealt position and the seat it goes to, as the fair-dealing checks need. Each turn the seat
to act plays one card of its own; the first seat out of cards wins.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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
    Outcome,
    State,
    Termination,
    WireMap,
    parse_wire_card,
)
from protocol.cards import DECK_54, Card, Rank, format_cards
from protocol.decks import deck_of

NAME = "race-out"
#: the deck row the test adds to ``protocol.decks.DECKS``: A, 2 and 3 of each suit
DECK: tuple[Card, ...] = tuple(
    c for c in DECK_54 if not c.is_joker and c.rank in (Rank.ACE, Rank.TWO, Rank.THREE)
)
CARDS_EACH = 3


class Phase(enum.Enum):
    DEAL = "deal"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Play(Action):
    card: Card

    def to_wire(self) -> WireMap:
        return {"type": "play", "card": self.card.code}


class RaceOut(State):
    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        super().__init__(seats=seats, options=options, dealer=dealer)
        self.dealer = dealer
        self.phase = Phase.DEAL
        self.turn = 0
        self.turns = 0
        self.hands: list[list[Card]] = [[] for _ in range(seats)]
        self.stock: list[Card] = []
        self.pile: list[Card] = []
        self.winner: int | None = None

    def chance_request(self) -> ChanceRequest | None:
        if self.phase is not Phase.DEAL:
            return None
        deck = deck_of(self.game.name, self.options, self.seats)
        return ChanceRequest(ChanceKind.DEAL, 1, 0, deck, choose_dealer=self.dealer is None)

    def apply_chance(self, order: Sequence[Card], dealer: int | None = None) -> list[Event]:
        request = self.chance_request()
        if request is None:
            raise ChanceError("no deal is pending")
        if sorted(order) != sorted(request.cards):
            raise ChanceError("the deal is not a permutation of the deck")
        if request.choose_dealer:
            if dealer is None or not 0 <= dealer < self.seats:
                raise ChanceError("the first deal must name the dealer")
            self.dealer = dealer
        assert self.dealer is not None
        n, d = self.seats, self.dealer
        dealt = n * CARDS_EACH
        owners = [(d + 1 + pos) % n for pos in range(dealt)]
        positions: list[list[list[int]]] = [[] for _ in range(n)]
        for pos, seat in enumerate(owners):
            self.hands[seat].append(order[pos])
            positions[seat].append([0, pos])
        self.stock = list(order[dealt:])
        self.phase, self.turn = Phase.PLAY, (d + 1) % n
        deal = {
            "hand_no": 1,
            "dealer": d,
            "positions": [[0, p] for p in range(dealt)],
            "seats": owners,
        }
        events = [Event("deal", deal)]
        for s in range(n):
            cards = format_cards(self.hands[s])
            events.append(Event("hand", {"cards": cards, "positions": positions[s]}, to=s))
        return events

    def to_act(self) -> tuple[int, ...]:
        return (self.turn,) if self.phase is Phase.PLAY else ()

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        return [Play(c) for c in sorted(self.hands[seat])]

    def parse_action(self, wire: object) -> Action:
        if not isinstance(wire, dict) or wire.get("type") != "play":
            raise InvalidAction("Race Out has one action: {'type': 'play', 'card': ...}")
        return Play(parse_wire_card(wire.get("card"), "card"))

    def check(self, seat: int, action: Action) -> None:
        if seat not in self.to_act():
            raise NotYourTurn("it is not your turn")
        if not isinstance(action, Play):
            raise IllegalAction("Race Out has only plays")
        if action.card not in self.hands[seat]:
            raise InvalidAction(f"{action.card.code} is not in your hand")

    def apply(self, seat: int, action: Action) -> list[Event]:
        assert isinstance(action, Play)
        self.hands[seat].remove(action.card)
        self.pile.append(action.card)
        self.turns += 1
        events = [Event("play", {"seat": seat, "card": action.card.code})]
        if not self.hands[seat]:
            self.phase, self.winner = Phase.OVER, seat
        else:
            self.turn = (seat + 1) % self.seats
        return events

    def view(self, seat: int | None) -> WireMap:
        self.require_seat(seat)
        outcome = self.outcome()
        return {
            "game": self.game.name,
            "seats": self.seats,
            "seat": seat,
            "dealer": self.dealer,
            "hand_no": 1,
            "phase": self.phase.value,
            "to_act": list(self.to_act()),
            "hand": None if seat is None else format_cards(sorted(self.hands[seat])),
            "hand_counts": [len(h) for h in self.hands],
            "legal": [] if seat is None else [a.to_wire() for a in self.legal_actions(seat)],
            "options": dict(self.options),
            "outcome": None if outcome is None else outcome.to_wire(),
            "pile": format_cards(self.pile),
        }

    def hidden_from(self, seat: int | None) -> list[Card]:
        others = [c for s, h in enumerate(self.hands) if s != seat for c in h]
        return others + list(self.stock)

    def outcome(self) -> Outcome | None:
        if self.winner is None:
            return None
        return Outcome(Termination.WENT_OUT, (self.winner,))

    def all_cards(self) -> list[Card]:
        return [c for h in self.hands for c in h] + self.stock + self.pile


GAME = Game(name=NAME, title="Race Out", min_seats=2, max_seats=4, option_specs=(), state=RaceOut)
