"""The host's bots at three levels, and the search the hard level thinks with.

How it works: :mod:`~host.bots.ai.levels` makes a :class:`~host.bots.ai.levels.Bot` per seat, easy
(random), normal (each game's ``strategy``) or hard (:mod:`~host.bots.ai.ismcts`, information-set
Monte Carlo tree search over worlds sampled from the seat's view by each game's ``worlds`` module,
:mod:`host.games.support`, :mod:`host.games.deal`; in Black Jack the flat search of
:mod:`~host.bots.ai.paired`, which compares the candidate moves in common worlds).
:mod:`~host.bots.ai.arena` plays bots against each other in process, for ``bench/bots.py`` and the
tests. docs/BOTS.md tells how each level plays and how strong it is.
"""

from __future__ import annotations

from host.bots.ai.ismcts import DEFAULT_BUDGET, Budget
from host.bots.ai.levels import Bot, Level, make_bot, parse_level

__all__ = ["DEFAULT_BUDGET", "Bot", "Budget", "Level", "make_bot", "parse_level"]
