"""What the host's bots know of Race Out: nothing beyond the generic rules.

``BOT`` is what the easy and normal bots play by (:class:`host.games.presentation.BotFeatures`
with no field set: the generic rules). ``SUPPORT`` is ``None``: the game gives the searching
bot nothing to search with, so :func:`host.games.find_support` refuses it and a ``hard`` bot
plays it as the normal bot does.
"""

from __future__ import annotations

from host.games.presentation import BotFeatures
from host.games.support import GameSupport

__all__ = ["BOT", "SUPPORT"]

BOT = BotFeatures()
SUPPORT: GameSupport | None = None
