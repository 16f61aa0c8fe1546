"""What a user asks the table loop for: intents, read from typed lines by the front ends.

How it works: a front end (a person at a terminal, or a script speaking NDJSON) reads each line
typed, deals by itself with whatever concerns only its own screen (help, drawing the table
again, a follow-up question, a typing mistake) and hands the table loop at most one
:data:`Intent`: :class:`ActIntent` (send this action), :class:`ChatIntent`,
:class:`ExplainIntent` (ask the host why a held card cannot be played), :class:`AddBotIntent`
(between games), :class:`RematchIntent` (the answer to "Play again?") or :class:`LeaveIntent`.
The loop decides what each leads to (see :mod:`client.table_machine`): an intent is not a wire
message, and the ``Intent`` suffix keeps these apart from the protocol's ``Act``, ``Explain``,
``AddBot`` and ``Leave`` messages (:mod:`protocol.table_messages`).

Two checks both front ends make live here too: :func:`chat_problem` (a chat line the protocol
would refuse is never sent) and :func:`rematch_answer` (how a line typed while "Play again?"
stands answers it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from protocol.limits import MAX_CHAT_LEN

__all__ = [
    "ActIntent",
    "AddBotIntent",
    "ChatIntent",
    "ExplainIntent",
    "Intent",
    "LeaveIntent",
    "RematchIntent",
    "chat_problem",
    "rematch_answer",
]


@dataclass(frozen=True, slots=True)
class ActIntent:
    """Send this action (a map from the latest ``state``'s ``legal``, or the user's own)."""

    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChatIntent:
    """Say ``text`` at the table (already checked by :func:`chat_problem`)."""

    text: str


@dataclass(frozen=True, slots=True)
class ExplainIntent:
    """Ask the host why our seat cannot play ``card`` (a card code) now."""

    card: str


@dataclass(frozen=True, slots=True)
class AddBotIntent:
    """Between games: ask the host to seat one of its bots in the first empty seat, playing at
    ``level`` (``easy``, ``normal`` or ``hard``: docs/BOTS.md)."""

    level: str = "normal"


@dataclass(frozen=True, slots=True)
class RematchIntent:
    """The answer to "Play again? [y/N]": ``yes`` plays again at the same table."""

    yes: bool


@dataclass(frozen=True, slots=True)
class LeaveIntent:
    """Leave the table. ``give_up``: during a game, hand the seat to the host's bot at once
    (``leave``); otherwise the seat waits for a resume (the grace period) as after a drop."""

    give_up: bool = False


#: every intent a front end may hand the table loop
Intent = ActIntent | ChatIntent | ExplainIntent | AddBotIntent | RematchIntent | LeaveIntent


def chat_problem(text: str) -> str | None:
    """Why ``text`` cannot be sent as a chat line (the protocol's limits), or None if it can.

    >>> chat_problem("hi"), chat_problem(" "), chat_problem("x" * 501)
    (None, 'nothing to say', 'chat not sent: too long (501 characters, at most 500)')
    """
    if not text.strip():
        return "nothing to say"
    if len(text) > MAX_CHAT_LEN:
        return f"chat not sent: too long ({len(text)} characters, at most {MAX_CHAT_LEN})"
    if not text.isprintable():
        return "chat not sent: it contains control characters"
    return None


def rematch_answer(line: str) -> bool | None:
    """A line typed at "Play again?": True (``y``, or ``{"cmd": "rematch"}`` from --json),
    None for a line the front end reads as usual while the question stays (``say ...``, ``?``,
    ``t``, ``b`` or ``b LEVEL`` to seat a bot; any other --json command: ``chat``, ``add_bot``,
    ...), False for anything else (the default: leave; ``{"cmd": "quit"}`` too).

    >>> [rematch_answer(x) for x in ("y", '{"cmd": "rematch"}', "say gg", "n", "{bad")]
    [True, True, None, False, False]
    """
    text = line.strip()
    if text.startswith("{"):
        try:
            cmd = json.loads(text)
        except ValueError:
            return False
        verb = cmd.get("cmd") if isinstance(cmd, dict) else None
        return True if verb == "rematch" else False if verb in ("quit", None) else None
    low = text.lower()
    if low in ("y", "yes"):
        return True
    if low in ("?", "h", "help", "t", "b") or low.startswith(("say ", "b ")) or low == "say":
        return None  # help, the table, chat, a bot: answered, and the question stays
    return False
