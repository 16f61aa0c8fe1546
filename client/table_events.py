"""What goes into the table machine and what comes out of it: events and effects.

How it works: :class:`client.table_machine.TableMachine` takes one *event* at a time and
answers with a list of *effects*, all plain frozen values, so the machine can be driven and
tested without trio or a terminal; :func:`client.table_loop.run_table` turns what happens into
events and performs the effects.

Events: :class:`Pushed` (a host push, after ``TableClient.handle`` took it, with its fairness
notices), :class:`Typed` (a command a front end read from a line, :mod:`client.intents`),
:class:`InputEnded`, :class:`Closed`, :class:`Reconnected` and :class:`ReconnectFailed` (the
connection), :class:`Answered` and :class:`Failed` (what became of a request the machine asked
for) and :class:`RecordFetched`.

Effects: ``Show*`` (call the front end: :class:`ShowPush`, :class:`ShowInfo`, ...), requests to
send in the background (:class:`SendAct`, :class:`SendChat`, :class:`SendExplain`,
:class:`SendAddBot`, :class:`SendReady`; each comes back as ``Answered`` or ``Failed``),
:class:`FetchRecord` and :class:`AwaitRecords` (the host's record of each hand that ends; a
``game_over`` waits for them), :class:`Reconnect`, :class:`Replay` (treat a push the host will
never send as if it had: the ``game_over`` a spectator's finished ``state`` stands for) and
:class:`Finish` (the loop ends with this outcome).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import protocol.table_messages as tm
from client.intents import Intent
from client.record_fetch import RecordResult
from net.fairplay import FairNotice
from protocol.messages import Message

__all__ = [
    "Answered",
    "AwaitRecords",
    "Closed",
    "Effect",
    "Event",
    "Failed",
    "Failure",
    "FetchRecord",
    "Finish",
    "InputEnded",
    "Pushed",
    "Reconnect",
    "ReconnectFailed",
    "Reconnected",
    "RecordFetched",
    "Replay",
    "Request",
    "SendAct",
    "SendAddBot",
    "SendChat",
    "SendExplain",
    "SendReady",
    "ShowActed",
    "ShowEnd",
    "ShowExplained",
    "ShowInfo",
    "ShowPush",
    "ShowRefused",
    "Typed",
]

# --------------------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class ShowPush:
    """Show a push (``Frontend.on_push``)."""

    push: Message
    notices: list[FairNotice] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ShowInfo:
    """Show a line for people (``Frontend.info``); ``kind`` and ``fields`` are --json's."""

    text: str
    kind: str = "info"
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ShowActed:
    """The host accepted ``action``."""

    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ShowRefused:
    """The host refused ``action`` (or never answered): ``error`` says why."""

    action: dict[str, Any]
    error: str


@dataclass(frozen=True, slots=True)
class ShowExplained:
    """The host's answer to ``explain``."""

    reply: tm.Explained


@dataclass(frozen=True, slots=True)
class ShowEnd:
    """Tell the front end the loop ends (``Frontend.end``)."""

    reason: str


@dataclass(frozen=True, slots=True)
class SendAct:
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SendChat:
    text: str


@dataclass(frozen=True, slots=True)
class SendExplain:
    card: str


@dataclass(frozen=True, slots=True)
class SendAddBot:
    level: str = "normal"


@dataclass(frozen=True, slots=True)
class SendReady:
    """Say ``ready`` again after a game: the rematch (spec/PROTOCOL.md 3.2)."""


#: a request sent in the background; it comes back as :class:`Answered` or :class:`Failed`
Request = SendAct | SendChat | SendExplain | SendAddBot | SendReady


@dataclass(frozen=True, slots=True)
class FetchRecord:
    """Fetch, check and save the host's record of table hand ``hand_no`` (in the background);
    ``transcript`` is the fingerprint our own deal check verified, if it did."""

    hand_no: int
    transcript: str | None


@dataclass(frozen=True, slots=True)
class AwaitRecords:
    """Wait (a while at most) for the records still being fetched."""


@dataclass(frozen=True, slots=True)
class Reconnect:
    """Open a new session and resume the seat (or watch again); report how it went."""


@dataclass(frozen=True, slots=True)
class Replay:
    """Hand ``push`` to the table client and feed it back as if the host had sent it."""

    push: Message


@dataclass(frozen=True, slots=True)
class Finish:
    """The loop ends; ``run_table`` returns ``outcome``."""

    outcome: dict[str, Any] | None


Effect = (
    ShowPush
    | ShowInfo
    | ShowActed
    | ShowRefused
    | ShowExplained
    | ShowEnd
    | Request
    | FetchRecord
    | AwaitRecords
    | Reconnect
    | Replay
    | Finish
)

# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class Pushed:
    """A host push on the session in use, after ``TableClient.handle`` took it."""

    push: Message
    notices: list[FairNotice] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Typed:
    """A command the front end read from a typed line."""

    command: Intent


@dataclass(frozen=True, slots=True)
class InputEnded:
    """The end of input; ``terminal``: stdin is a terminal (Ctrl-D), not a pipe or nothing."""

    terminal: bool


@dataclass(frozen=True, slots=True)
class Closed:
    """The session in use ended: ``reason`` for people; ``for_good`` when the host ended it on
    purpose and named no time to come back; ``retry_after`` the seconds a host that announced
    its shutdown said to wait (None: it did not announce one)."""

    reason: str
    for_good: bool = False
    retry_after: int | None = None


@dataclass(frozen=True, slots=True)
class Reconnected:
    """A new session holds our seat again (or watches the table again)."""


@dataclass(frozen=True, slots=True)
class ReconnectFailed:
    """Reconnecting is over without a session; ``why`` is the line that says so."""

    why: str


@dataclass(frozen=True, slots=True)
class Answered:
    """The host answered ``request`` (``reply``: its answer, for explain and add_bot)."""

    request: Request
    reply: Message | None = None


class Failure(enum.Enum):
    """How a request failed."""

    #: the host answered ``error``
    REFUSED = "refused"
    #: the connection dropped (or the host went silent) before the answer
    DROPPED = "dropped"
    #: the request could not be built (nothing was sent), or the reply was not the one due
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class Failed:
    """``request`` failed (``failure``: a :class:`Failure`); ``why`` says how, in the words of
    the error."""

    request: Request
    why: str
    failure: Failure = Failure.REFUSED


@dataclass(frozen=True, slots=True)
class RecordFetched:
    """What became of one hand's record."""

    result: RecordResult


Event = (
    Pushed
    | Typed
    | InputEnded
    | Closed
    | Reconnected
    | ReconnectFailed
    | Answered
    | Failed
    | RecordFetched
)
