"""What every game's view has in common: the keys a client can rely on in any game.

How it works: a ``state`` message's ``view`` is one game's map (spec/RULES.md, "Conventions");
these keys are in every game's view with the same meaning, so a client draws them itself and
takes the rest from the fields the game declares in its ``games`` entry (spec/PROTOCOL.md 3.5).
The host's games (``host.games.base``) and the client's table (``client.table_view``) both read
this one list.
"""

from __future__ import annotations

__all__ = ["VIEW_CORE_KEYS"]

VIEW_CORE_KEYS: tuple[str, ...] = (
    "game",
    "seats",
    "seat",
    "dealer",
    "hand_no",
    "phase",
    "to_act",
    "hand",
    "hand_counts",
    "legal",
    "options",
    "outcome",
)
"""The keys every game's view has, with the same meaning in every game (spec/RULES.md)."""
