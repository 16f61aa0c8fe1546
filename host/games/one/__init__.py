"""ONE (``one``), the trick-taking game with a 25-card Euchre deck, a whole match per game.

How it works: :mod:`~host.games.one.moves` holds the actions and their wire forms, and
:mod:`~host.games.one.engine` :class:`One`, the state machine the host runs (deal, auction,
tricks, downtown, scoring, views). The rules are in ``spec/RULES.md``, section ONE. The registry
(:mod:`host.games`) finds the engine here as ``host.games.one:One``.
"""

from __future__ import annotations

from host.games.one.engine import (
    MAX_BID,
    DealError,
    DowntownRule,
    One,
    Phase,
    Ranking,
    card_points,
)
from host.games.one.moves import JOKER, Bid, DowntownChoice, Pass, Play, parse_one_action

__all__ = [
    "JOKER",
    "MAX_BID",
    "Bid",
    "DealError",
    "DowntownChoice",
    "DowntownRule",
    "One",
    "Pass",
    "Phase",
    "Play",
    "Ranking",
    "card_points",
    "parse_one_action",
]
