"""The shared random-playout driver: determinism, the step guard, and that each invariant check
really catches the bug it is for (on a tiny deliberately broken game)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pytest

from host.games.base import (
    Action,
    ChanceKind,
    ChanceRequest,
    Event,
    Game,
    IllegalAction,
    InvalidAction,
    OptionSpec,
    Outcome,
    State,
    Termination,
    WireMap,
)
from host.games.one_card import OneCard
from host.games.playout import (
    InvariantError,
    answer_chance,
    card_codes,
    check_invariants,
    garbage_wire,
    playout,
    probe,
    view_leaks,
)
from protocol.cards import Card, card

DECK = (card("AS"), card("2H"), card("3D"), card("4C"))


@dataclass(frozen=True, slots=True)
class Shed(Action):
    def to_wire(self) -> WireMap:
        return {"type": "shed"}


class Tiny(State):
    """Two seats, one card each; the seat to act sheds its card; the first with none wins.

    ``bug`` breaks one invariant: ``lose`` drops a card, ``leak`` shows seat 1's card to
    everyone, ``offer`` offers an action that ``check`` rejects, ``accept`` accepts garbage.
    """

    def __init__(
        self, *, seats: int, options: Mapping[str, object] | None = None, dealer: int | None = None
    ) -> None:
        super().__init__(seats=seats, options=options, dealer=dealer)
        self.bug = self.options["bug"]
        self.hands: list[list[Card]] = [[], []]
        self.rest: list[Card] = list(DECK)
        self.pile: list[Card] = []
        self.turn = 0
        self.dealt = False
        self.winner: int | None = None

    def chance_request(self) -> ChanceRequest | None:
        return None if self.dealt else ChanceRequest(ChanceKind.DEAL, 1, 0, DECK)

    def apply_chance(self, order: Sequence[Card], dealer: int | None = None) -> list[Event]:
        self.hands = [[order[0]], [order[1]]]
        self.rest = list(order[2:])
        self.dealt = True
        return [Event("deal")]

    def to_act(self) -> tuple[int, ...]:
        return () if not self.dealt or self.winner is not None else (self.turn,)

    def legal_actions(self, seat: int) -> list[Action]:
        return [Shed()] if seat in self.to_act() else []

    def parse_action(self, wire: object) -> Action:
        if wire == {"type": "shed"} or self.bug == "accept":
            return Shed()
        raise InvalidAction("not shed")

    def check(self, seat: int, action: Action) -> None:
        if self.bug == "offer" or (seat not in self.to_act() and self.bug != "accept"):
            raise IllegalAction("no")

    def apply(self, seat: int, action: Action) -> list[Event]:
        self.check(seat, action)
        self.pile += self.hands[seat]
        self.hands[seat] = []
        if self.bug == "lose":
            self.pile.pop()
        self.winner = seat
        return [Event("shed", {"seat": seat})]

    def view(self, seat: int | None) -> WireMap:
        out: WireMap = {"pile": [c.code for c in self.pile]}
        if seat is not None:
            out["hand"] = [c.code for c in self.hands[seat]]
        if self.bug == "leak" and seat is not None:
            out["peek"] = [c.code for c in self.hands[1]]
        return out

    def outcome(self) -> Outcome | None:
        return None if self.winner is None else Outcome(Termination.WENT_OUT, (self.winner,))

    def all_cards(self) -> list[Card]:
        return [*self.hands[0], *self.hands[1], *self.rest, *self.pile]

    def hidden_from(self, seat: int | None) -> list[Card]:
        return [*(c for s in (0, 1) if s != seat for c in self.hands[s]), *self.rest]


TINY = Game(
    name="tiny",
    title="Tiny",
    min_seats=2,
    max_seats=2,
    option_specs=(
        OptionSpec(
            "bug", "none", "which invariant to break", ("none", "lose", "leak", "offer", "accept")
        ),
    ),
    state=Tiny,
)


def test_playout_is_deterministic_per_seed() -> None:
    a = playout(OneCard, seats=3, rng=random.Random(4), options={"multi_play": True})
    b = playout(OneCard, seats=3, rng=random.Random(4), options={"multi_play": True})
    assert a.outcome == b.outcome and a.steps == b.steps and a.chance == b.chance
    assert a.outcome is not None and a.chance >= 1
    assert a.game.view(None) == b.game.view(None)


def test_max_steps_guard() -> None:
    result = playout(OneCard, seats=2, rng=random.Random(1), max_steps=5)
    assert result.outcome is None and result.steps == 5


def test_on_step_sees_every_action_and_out_of_turn_calls_happen() -> None:
    seen: list[str] = []
    playout(
        OneCard,
        seats=4,
        rng=random.Random(2),
        out_of_turn=0.5,
        on_step=lambda game, seat, action, events: seen.append(action.to_wire()["type"]),
    )
    assert "call" in seen and "play" in seen and "draw" in seen


def test_a_clean_game_passes_every_check() -> None:
    result = playout(Tiny, seats=2, rng=random.Random(0), check=True)
    assert result.outcome is not None and result.steps == 1


@pytest.mark.parametrize(
    ("bug", "needle"),
    [
        ("lose", "card multiset changed: lost"),
        ("leak", "shows hidden cards"),
        ("offer", "offered shed but check says"),
    ],
)
def test_each_invariant_check_catches_its_bug(bug: str, needle: str) -> None:
    with pytest.raises(InvariantError, match=needle):
        playout(Tiny, seats=2, rng=random.Random(0), options={"bug": bug}, check=True)


def test_view_leaks_finds_what_hidden_from_hides() -> None:
    game = Tiny(seats=2, options={"bug": "leak"})
    answer_chance(game, random.Random(0))
    assert view_leaks(game, 0) == {game.hands[1][0].code}
    assert view_leaks(game, 1) == set() and view_leaks(game, None) == set()
    one = OneCard(seats=2, dealer=0)
    answer_chance(one, random.Random(0))
    assert all(view_leaks(one, s) == set() for s in (0, 1, None))
    deck = Counter(one.all_cards())
    check_invariants(one, deck)


def test_card_codes_finds_codes_anywhere() -> None:
    wire = {"a": ["7S", {"b": "10H"}], "c": ("JB", "J", "play", 7), "d": "H"}
    assert card_codes(wire) == {"7S", "10H", "JB"}


def test_probe_and_garbage() -> None:
    rng = random.Random(3)
    wires = [
        garbage_wire(rng, [{"type": "play", "cards": ["7S"], "suit": "H"}]) for _ in range(200)
    ]
    assert len({repr(w) for w in wires}) > 50
    game = OneCard(seats=2, dealer=0)
    answer_chance(game, rng)
    seat = game.to_act()[0]
    assert probe(game, seat, {"type": "draw"}) is not None
    assert probe(game, 1 - seat, {"type": "draw"}) is None
    assert probe(game, seat, {"type": "nonsense"}) is None
    tiny = Tiny(seats=2, options={"bug": "accept"})
    answer_chance(tiny, rng)
    with pytest.raises(InvariantError, match="not legal"):
        probe(tiny, 1, {"type": "anything"})
