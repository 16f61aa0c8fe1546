"""Black Jack (``black-jack``), the British shedding game.

How it works: the game is split by concern, each module with one job:

* :mod:`~host.games.black_jack.rules`: the game's facts (natural cards, counters, what a
  blunder costs), stated once;
* :mod:`~host.games.black_jack.moves`: the actions and their wire forms, play shapes (runs,
  chains) and the "could go out next turn" search, pure functions of cards;
* :mod:`~host.games.black_jack.engine`: ``GAME``, the static rules (name, seats, options), and
  :class:`BlackJack`, the running hand the host plays (the table: deal, stock, owed cards, the
  end, every view; and the turns);
* :mod:`~host.games.black_jack.explain`: how refusals are worded.

The rules are in ``spec/RULES.md``, section Black Jack. The registry (:mod:`host.games`) names
its engine, presentation, ``strategy`` and ``worlds``.
"""

from __future__ import annotations

from host.games.black_jack.engine import PLAY_LIMIT, BlackJack, Phase
from host.games.black_jack.moves import Declaration, Declare, Draw, Play, parse_black_jack_action

__all__ = [
    "PLAY_LIMIT",
    "BlackJack",
    "Declaration",
    "Declare",
    "Draw",
    "Phase",
    "Play",
    "parse_black_jack_action",
]
