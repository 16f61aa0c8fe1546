"""What the search tests share: seat 0's turns of a seeded game, with its memory of them."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from host.bots.ai.arena import seat_turns
from host.games import find_support
from host.games.base import State
from host.games.support import SeatMemory

Turns = Callable[[str, int, int], Iterator[tuple[State, SeatMemory]]]


def _turns(name: str, seats: int, seed: int) -> Iterator[tuple[State, SeatMemory]]:
    """Seat 0's turns with a choice, with its memory of the game so far."""
    memory = find_support(name).memory(0)
    for engine in seat_turns(name, seats, seed, choices_only=True, observe=memory.observe):
        yield engine, memory


@pytest.fixture
def turns() -> Turns:
    """``turns(game, seats, seed)``: seat 0's turns with a choice and its memory at each."""
    return _turns
