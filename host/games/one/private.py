"""ONE on a private table: the blind engine and the forfeit (``spec/RULES.md``, ONE).

How it works: :class:`BlindOne` is :class:`~host.games.one.engine.One` with
:class:`~host.games.private.Blind` mixed in. Each hand deals hidden positions (the centre card
is position 24, as ever); a seat plays from its positions, which the host opens first. What a
seat may play is, leading, every card (but the joker on the first lead of a trump hand; with
no trump the joker once per suit it names), and following, two sets: the cards of the led suit
(the joker counts as trump), else any card. Follow-suit needs the rest of the hand, so the host
does not check it at play time: when the last trick is taken the centre card opens, the audit
replays the hand (:mod:`host.games.audit`), and a seat caught forfeits the hand before it is
scored (:func:`forfeit`). Bids, passes and the downtown choice are public and checked as ever.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from host.games.base import Event, NeedOpen, State, WireMap
from host.games.one.engine import One
from host.games.one.moves import JOKER_LEADS, PLAY_OF, Phase, Play
from host.games.one.rules import JOKER
from host.games.private import Blind, legal_set
from protocol.cards import DECK_ONE, Card

__all__ = ["BlindOne", "forfeit"]


def forfeit(
    points: Sequence[int], made: bool | None, seat: int, bidder: int | None
) -> tuple[list[int], bool | None]:
    """A hand's ``points`` (by seat) and ``made`` (the bidder's contract, ``None``: no bid)
    with ``seat`` forfeiting: scored as if it took no trick, and if it bid, its contract
    fails. The others' points are theirs as taken."""
    out = list(points)
    out[seat] = 0
    return out, (False if seat == bidder else made)


class BlindOne(Blind, One):
    """ONE on a private table (see the module docstring)."""

    NORMAL = One

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._hand_dealer: int | None = self.dealer
        self._forfeit: int | None = None

    def _hands_of(self) -> Sequence[Sequence[Any]]:
        return self.hands

    def _legal_reset(self) -> None:
        self._legal = None

    def _normal(self) -> State:
        return One(seats=self.seats, options=self.options, dealer=self._hand_dealer)

    def _blind_chance(self, order: Sequence[Any], dealer: int | None) -> list[Event]:
        """:meth:`One.apply_chance` on hidden positions (hands stay in position order)."""
        request = self.chance_request()
        assert request is not None
        events = self._take_order(request, order, dealer)
        self._hand_dealer = self.dealer
        return events

    def _sort_hands(self) -> None:
        """Hands stay in position order: hidden positions have no card to sort by."""

    def _hand_event(self, seat: int, positions: list[list[int]]) -> Event:
        return Event("hand", {"positions": positions}, to=seat)

    def _playable(self, seat: int) -> list[Card]:
        """The seat's opened cards (the one it is about to play) the rules allow without
        looking at the rest of the hand: follow-suit waits for the audit."""
        hand = [c for c in self.hands[seat] if isinstance(c, Card)]
        if not self.trick and self.tricks_played == 0 and not self.no_trump:
            return [c for c in hand if c is not JOKER]
        return hand

    def _finish_hand(self, winner: int) -> list[Event]:
        """The centre card opens, the audit runs, a seat caught forfeits, then the scoring."""
        hidden = self._still_hidden()
        if hidden:
            raise NeedOpen(hidden, by_rule=True)
        violation = self._violation = self._audit()
        self._forfeit = None if violation is None else violation.seat
        hand_no = self.hand_no
        events = super()._finish_hand(winner)
        proof = None if violation is None else violation.to_wire()
        if violation is not None:
            assert self.last_hand is not None
            self.last_hand["forfeited"] = [violation.seat]
            events = [
                Event(e.kind, {**e.data, "forfeited": [violation.seat]}, e.to)
                if e.kind == "hand_end"
                else e
                for e in events
            ]
        self._forfeit = None
        self._known, self._log = {}, []  # the next hand deals the same positions afresh
        return [Event("audit", {"hand_no": hand_no, "violation": proof}), *events]

    def _audited(self, points: list[int], made: bool | None) -> tuple[list[int], bool | None]:
        if self._forfeit is None:
            return points, made
        return forfeit(points, made, self._forfeit, self.bidder)

    def legal_sets(self, seat: int) -> list[WireMap]:
        if self._open is not None or self.phase is not Phase.PLAY or seat != self.turn:
            return []
        if not self.trick:
            cards = [c for c in DECK_ONE if c is not JOKER or self.tricks_played or self.no_trump]
            plays: list[Play] = []
            for c in cards:
                plays += JOKER_LEADS if c is JOKER and self.no_trump else (PLAY_OF[c],)
            return [legal_set(plays)]
        led = self.led
        follow = [PLAY_OF[c] for c in DECK_ONE if self._suit_of(c) is led]
        return [legal_set(follow), legal_set([PLAY_OF[c] for c in DECK_ONE])]

    def view(self, seat: int | None) -> WireMap:
        self.require_seat(seat)
        return self._blind_view(super().view(None), seat)
