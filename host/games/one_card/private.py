"""One Card on a private table: the blind engine and the forfeit (``spec/RULES.md``, One Card).

How it works: :class:`BlindOneCard` is :class:`~host.games.one_card.engine.OneCard` with
:class:`~host.games.private.Blind` mixed in. The deal hands out hidden positions; the start card is
turned up through an ``OPEN`` request (a joker covered by the next card, one request each); a
bankrupt hand goes face up the same way, an ``OPEN`` request by rule that the host serves by asking
the holder for its keys (``show_hand``, ``spec/PROTOCOL.md`` 10.11). What a seat may play is the
set of cards that follow the top card (or defend against the attack), each as its play action (a
seven once per suit it may name); after taking an attack the set is limited to the positions just
drawn. With ``must_play_if_able`` the draw is offered only to a seat that meets no set
(``unless_met``): that, like every rule needing the rest of a hand, is checked by the audit when
the game ends and every position opens. ``multi_play`` is refused: a play of several cards is not a
set of cards a client can pick from without the rules.

A seat caught by the audit forfeits (:func:`host.games.private.forfeit`, shared with Black
Jack): it is ranked last, and if it won, the win passes to the next seat of the ranking
(option ``ranking``), or to nobody.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from host.games.base import (
    Action,
    Event,
    IllegalAction,
    NeedOpen,
    WireMap,
)
from host.games.one_card.engine import OneCard, Phase
from host.games.one_card.moves import CALL, DRAW, PLAYS_OF
from host.games.private import SheddingBlind, hidden_in, legal_set
from protocol.cards import DECK_54

__all__ = ["BlindOneCard"]


_STUCK = (
    "there is nothing to draw: on a private table a seat that can play must play "
    "(only a seat that cannot play passes)"
)


class PrivateOneCard(OneCard):
    """One Card with the one rule a private table adds (``spec/RULES.md``): when there is
    nothing to draw (no stock, nothing to recycle) and no attack to take, a seat that can play
    must play. A normal table lets it draw nothing, a pass that ends the game once every seat
    passes in a row; on a private table the host cannot tell such a pass from a seat that is
    stuck, so a pass there says "I cannot play", which the audit checks. This is the engine
    the audit replays a private game on."""

    def _stuck_rule(self) -> bool:
        """Whether a draw now is a pass that says the seat cannot play."""
        return self._pos >= len(self._stock) and len(self._discards) <= 1 and not self._faced()

    def _legal_for(self, seat: int) -> list[Action]:
        cached = super()._legal_for(seat)
        plays = any(a is not DRAW and a is not CALL for a in cached)
        if seat == self.turn and DRAW in cached and plays and self._stuck_rule():
            cached.remove(DRAW)
        return cached

    def check(self, seat: int, action: Action) -> None:
        super().check(seat, action)
        if action is DRAW and self._stuck_rule() and self._plays(seat):
            raise IllegalAction(_STUCK)


class BlindOneCard(SheddingBlind, PrivateOneCard):
    """One Card on a private table (see the module docstring)."""

    REFUSED: ClassVar[dict[str, tuple[object, str]]] = {
        "multi_play": (
            False,
            "a play of several cards of one rank is not a set of cards a client can choose "
            "from without knowing the rules",
        ),
    }
    NORMAL = PrivateOneCard

    HELD_BACK = frozenset({"game_over"})

    # ------------------------------------------------------------------ blind hooks

    def _hands_of(self) -> Sequence[Sequence[Any]]:
        return self._hands

    def _legal_reset(self) -> None:
        self._legal = {}

    def _blind_chance(self, order: Sequence[Any], dealer: int | None) -> list[Event]:
        """:meth:`OneCard.apply_chance` without the card check (hidden positions)."""
        request = self._request
        assert request is not None
        return self._take_order(request, order, dealer)

    def _go_bankrupt(self, seat: int, reason: str, events: list[Event]) -> None:
        """A bankrupt hand goes face up: open it first."""
        hidden = hidden_in(self._hands[seat])
        if hidden:
            raise NeedOpen(tuple((h.stream, h.pos) for h in hidden), by_rule=True)
        super()._go_bankrupt(seat, reason, events)

    # ------------------------------------------------------------------ the interface

    def legal_sets(self, seat: int) -> list[WireMap]:
        if (
            self._open is not None
            or self._request is not None
            or self.phase not in (Phase.PLAY, Phase.AFTER_ATTACK)
            or seat != self.turn
        ):
            return []
        allowed = self._allowed()
        plays = [p for c in DECK_54 if c in allowed for p in PLAYS_OF[c]]
        if self.phase is Phase.AFTER_ATTACK:
            return [legal_set(plays, hidden_in(self._fresh))]
        return [legal_set(plays)]

    def unless_met(self, seat: int) -> list[Action]:
        """The draw, allowed only to a seat that meets no set: with ``must_play_if_able``, and
        when there is nothing to draw (:class:`PrivateOneCard`)."""
        if (self._must_play or self._stuck_rule()) and self.legal_sets(seat):
            return [DRAW]
        return []

    def view(self, seat: int | None) -> WireMap:
        self.require_seat(seat)
        out = super().view(None)
        if seat is not None:
            out = self._blind_view(out, seat)
            out["fresh"] = []
        if not self._ended:
            out["outcome"] = None
        return out
