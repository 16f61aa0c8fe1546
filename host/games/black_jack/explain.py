"""Why a Black Jack player cannot do something now: the wording of the engine's refusals.

How it works: :class:`~host.games.black_jack.engine.BlackJack` keeps the rules and asks here only
for words: :data:`WAIT` says why nobody may act in a phase other than ``playing``,
:func:`no_declare_reason` why a ``declare`` is out of place (too late, or not yet), and
:data:`SUIT_NAMES` names a suit in a matching refusal. What a blunder costs is worded next to
the blunder rule (:func:`host.games.black_jack.moves.blunder_cost`). The rules are in
``spec/RULES.md``, section Black Jack.
"""

from __future__ import annotations

from protocol.cards import Suit

__all__ = ["SUIT_NAMES", "WAIT", "no_declare_reason"]

SUIT_NAMES = {
    Suit.SPADES: "spades",
    Suit.HEARTS: "hearts",
    Suit.DIAMONDS: "diamonds",
    Suit.CLUBS: "clubs",
}

WAIT = {
    "dealing": "nobody may act before the cards are dealt",
    "reshuffling": "nobody may act while the discards are reshuffled into a new stock",
    "over": "the hand is over",
}
"""Why no seat may act, by phase (every phase but ``playing``)."""


def no_declare_reason(seat: int, closer: int | None, current: int) -> str:
    """Why ``seat`` may not send a ``declare`` now (its window is not open): ``closer`` is the
    seat whose turn action closed its last window (None: none did), ``current`` the seat to act.
    """
    how = "say it with your play or draw, or declare right after it"
    if closer is not None:
        who = "you" if closer == seat else f"seat {closer}"
        late = f"too late to declare for your last turn: {who} took a turn since"
        if seat == current:
            return f"{late}; to declare at the end of this turn, {how}"
        return late
    if seat == current:
        return f"you declare at the end of your turn: {how}"
    return "you may declare only at the end of your own turn, before the next player acts"
