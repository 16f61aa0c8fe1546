"""Black Jack on a private table: the blind engine (``spec/RULES.md``, Private tables).

How it works: :class:`BlindBlackJack` is :class:`~host.games.black_jack.engine.BlackJack` with
:class:`~host.games.private.Blind` mixed in. The deal hands out hidden positions and the start
card is turned up through an ``OPEN`` request (a joker covered by the next card). What a seat
may play is one set listing every single card and every run that may start now, each as its
play action (a run's cards in play order, an ace last once per suit it names), over the cards
a hand may hold: the pack less the cards all of whose copies lie face up in the discard pile,
and no run longer than the hand. Left out are the plays that would go out illegally (a queen
last). The seat plays those whose cards it holds. The host cannot tell whether a hand could go
out next turn, so it offers the declaration in every window and puts no ``say`` on the plays
it lists (a needless declaration is free; ``say`` is still taken). ``must_play_if_able`` is
audited at the end, when every position opens; a seat caught forfeits as in One Card
(:func:`host.games.private.forfeit`). Refused: ``jokers`` (a joker standing for any card
makes the runs too many to list) and ``chain`` (the same, for chains).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from host.games.base import (
    Action,
    Event,
    NeedOpen,
    WireMap,
)
from host.games.black_jack.engine import BlackJack, Phase
from host.games.black_jack.moves import Declaration, Declare, Draw, Play
from host.games.black_jack.rules import NATURAL
from host.games.private import SheddingBlind, hidden_in, legal_set
from protocol.cards import Card, Rank, Suit

__all__ = ["BlindBlackJack"]


def _runs_from(first: Card, held: frozenset[Card], most: int) -> Iterator[tuple[Card, ...]]:
    """Every run of two to ``most`` cards of ``held`` from ``first``, upwards then
    downwards, shortest first (the order of the engine's own list of plays)."""
    for step in (1, -1):
        run = [first]
        i = first.index  # a natural card: suit * 13 + rank - 1
        while len(run) < most and 0 <= i % 13 + step <= 12:
            i += step
            if NATURAL[i] not in held:
                break
            run.append(NATURAL[i])
            yield tuple(run)


class BlindBlackJack(SheddingBlind, BlackJack):
    """Black Jack on a private table (see the module docstring)."""

    REFUSED: ClassVar[dict[str, tuple[object, str]]] = {
        "jokers": (
            0,
            "a joker standing for any card makes the possible runs too many to list as sets "
            "a client can choose from without knowing the rules",
        ),
        "chain": (False, "chains, like jokers, are too many to list as sets of plays"),
    }
    NORMAL = BlackJack
    HELD_BACK = frozenset({"game_over"})
    PUBLIC = frozenset({"deck"})
    UNSAID = frozenset({"say"})
    OFFERED_FREELY = frozenset({"declare"})

    def _hands_of(self) -> Sequence[Sequence[Any]]:
        return self.hands

    def _legal_reset(self) -> None:
        self._legal.clear()

    def _blind_chance(self, order: Sequence[Any], dealer: int | None) -> list[Event]:
        """:meth:`BlackJackState.apply_chance` on hidden positions (its permutation check
        would look at every card): the deal, or a reshuffle's new stock."""
        request = self.NORMAL.chance_request(self)
        assert request is not None
        return self._take_order(request, order, dealer)

    def _turning_up(self) -> Card:
        up = self.stock[0]
        if hidden_in([up]):
            raise NeedOpen(((0, self.position),), by_rule=True)
        return up

    def _plays(self, seat: int, *, first_only: bool) -> list[Action]:
        """Nothing from a hidden hand (the plays are :meth:`legal_sets`)."""
        return []

    def _listed(self, seat: int) -> list[Action]:
        """The draw for the seat to act; the declaration in every window (see the module)."""
        out: list[Action] = []
        if seat == self.turn:
            out.append(Draw())
        if self.window == seat and not self.declared[seat]:
            size = len(self.hands[seat])
            out.append(Declare(Declaration.LAST_CARD if size == 1 else Declaration.CARDS))
        return out

    def unless_met(self, seat: int) -> list[Action]:
        """With ``must_play_if_able``: the draw, only for a seat that meets no set."""
        if self.options["must_play_if_able"] and self.legal_sets(seat):
            return [a for a in self.legal_actions(seat) if isinstance(a, Draw)]
        return []

    def legal_sets(self, seat: int) -> list[WireMap]:
        if self._open is not None or self.phase is not Phase.PLAY or seat != self.turn:
            return []
        attacked = bool(self.pending and not self.covering)
        allowed = self._starting_cards(attacked=attacked)
        size = len(self.hands[seat])
        held = self._holdable()
        starts = [c for c in NATURAL if c in allowed and c in held]
        seqs: list[tuple[Card, ...]] = [(c,) for c in starts]
        if not attacked:
            seqs += [run for c in starts for run in _runs_from(c, held, size)]
        plays: list[Action] = []
        for cards in seqs:
            if len(cards) == size and self._rule_error(seat, list(cards)) is not None:
                continue
            if cards[-1].rank is Rank.ACE:
                plays += [Play(cards, s) for s in Suit]
            else:
                plays.append(Play(cards))
        return [legal_set(plays)]

    def _holdable(self) -> frozenset[Card]:
        """The cards a hand may hold: the pack less those every copy of which lies face up
        in the discard pile (public, so the set says nothing the table does not)."""
        face_up = Counter(c for c in self.discards if isinstance(c, Card))
        copies = Counter(self.deck)
        return frozenset(c for c in NATURAL if face_up[c] < copies[c])

    def view(self, seat: int | None) -> WireMap:
        self.require_seat(seat)
        out = self._blind_view(super().view(None), seat)
        if not self._ended:
            out["outcome"] = None
        return out
