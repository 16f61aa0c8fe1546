"""One Card (``one-card``), the Korean shedding game of the Crazy Eights family.

How it works: the game is split by concern, each module with one job:

* :mod:`~host.games.one_card.rules`: the game's facts (attack cards and their damage, what
  each special rank does), stated once;
* :mod:`~host.games.one_card.moves`: the actions, their wire forms and which cards play on which;
* :mod:`~host.games.one_card.engine`: ``GAME``, the static rules (name, seats, options), and
  :class:`OneCard`, the running hand the host plays (the table: deal, stock, owed cards,
  bankruptcy, the end, every view; and the turns);
* :mod:`~host.games.one_card.explain`: how refusals and ``explain`` answers are worded.

The rules are in ``spec/RULES.md``, section One Card. The registry (:mod:`host.games`) names its
engine, presentation, ``strategy`` and ``worlds``.
"""

from __future__ import annotations

from host.games.one_card.engine import OneCard, Phase
from host.games.one_card.moves import CALL, DRAW, Call, Draw, Play, parse_one_card_action

__all__ = [
    "CALL",
    "DRAW",
    "Call",
    "Draw",
    "OneCard",
    "Phase",
    "Play",
    "parse_one_card_action",
]
