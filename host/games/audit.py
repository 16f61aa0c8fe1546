"""The end-of-hand audit of a private table: replay the hand on a normal engine, check every move.

How it works: on a private table the host checks at play time only what it can see (a blind
engine, :mod:`host.games.private`); the checks that need the rest of a hand (ONE's
follow-suit, One Card's ``must_play_if_able``...) wait for the hand's end, when every position
is open. :func:`audit` takes a normal engine in the state before the hand's first step and the
hand's steps in order (each chance answer with the real cards, each action with its seat) and
runs them, :meth:`~host.games.base.State.check` before every action. The first action ``check``
refuses is a :class:`Violation`: the seat, the action and the rule's own message, the proof a
record keeps and every client shows. The seat forfeits the hand (each game's ``forfeit``,
``spec/RULES.md``). The audit is pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from host.games.base import Action, ChanceError, RulesError, State, WireMap

__all__ = ["AuditStep", "Violation", "audit"]

AuditStep = tuple[str, Any, Any]
"""``("chance", cards top first, dealer or None)`` or ``("act", seat, action)``."""


@dataclass(frozen=True, slots=True)
class Violation:
    """An illegal action the audit found: the first of the hand (the later ones follow from
    a position the rules never allowed, so only the first is proof)."""

    seat: int
    action: Action
    #: the rule's message (what ``check`` raised)
    reason: str
    #: the error code ``check`` gave (``illegal_action`` for a broken rule)
    code: str
    #: the action's index among the hand's actions (0 = the first)
    index: int

    def to_wire(self) -> WireMap:
        return {
            "seat": self.seat,
            "action": self.action.to_wire(),
            "reason": self.reason,
            "code": self.code,
            "index": self.index,
        }


def audit(normal: State, steps: Sequence[AuditStep]) -> Violation | None:
    """The first illegal action of ``steps`` replayed on ``normal`` (mutated), or ``None``.

    Raises:
        ChanceError: a chance answer the normal engine refuses, or a step when it expects
            another kind (the log and the real orders do not fit: not a seat's doing).
    """
    index = 0
    for kind, a, b in steps:
        if kind == "chance":
            normal.apply_chance(a, b)
            continue
        if normal.chance_request() is not None:
            raise ChanceError("the audit's log has an action where the engine waits for chance")
        seat, action = int(a), b
        assert isinstance(action, Action)
        try:
            normal.check(seat, action)
        except RulesError as exc:
            return Violation(seat, action, exc.message, exc.code.value, index)
        normal.apply(seat, action)
        index += 1
    return None
