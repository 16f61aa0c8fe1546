"""Race Out, a toy fourth game that exists only for the tests (docs/ADDING-A-GAME.md).

How it works: the package is laid out as a real game package (``engine``, ``presentation``,
``strategy``) so that ``tests/toy_game/test_toy_game.py`` can register it the way a new game is
added (one registry entry, one deck row) and play it through a real host and client. The rules:
each player is dealt three cards from a twelve-card deck (A, 2 and 3 of each suit); in turn,
from the dealer's left, each plays any one card of theirs face up on the pile; the first out of
cards wins.
"""
