"""ONE (``one``), the trick-taking game with a 25-card Euchre deck, a whole match per game.

How it works: :mod:`~host.games.one.rules` states the game's facts (deck, points, rank order),
:mod:`~host.games.one.moves` holds the actions and their wire forms,
:mod:`~host.games.one.explain` the wording of ``explain`` answers, and
:mod:`~host.games.one.engine` :class:`One`, the state machine the host runs (deal, auction,
tricks, downtown, scoring, views). The rules are in ``spec/RULES.md``, section ONE. The registry
(:mod:`host.games`) names its engine, presentation, ``strategy`` and ``worlds``.
"""

from __future__ import annotations

from host.games.one.engine import DowntownRule, One, Phase, Ranking
from host.games.one.moves import Bid, DowntownChoice, Pass, Play, parse_one_action
from host.games.one.rules import JOKER, MAX_BID, card_points

__all__ = [
    "JOKER",
    "MAX_BID",
    "Bid",
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
