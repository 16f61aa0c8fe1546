"""The table loop: pushes and typed lines in, log lines, tables, prompts and actions out.

How it works: :func:`run_table` is a thin trio driver around :class:`TableMachine`
(:mod:`client.table_machine`), which makes every decision without I/O. The driver owns one
nursery. A *feeder* task copies the session's pushes into one inbox channel; the stdin
*reader* (:func:`read_lines`, one thread call per line, ``abandon_on_cancel=True`` so the
program can end while a read is blocked) copies typed lines into the same inbox. The loop takes
one item at a time, so everything happens in order:

* a push from the session in use goes to :meth:`TableClient.handle` (fair-dealing duties and
  deal checks), then to the machine;
* a line goes to the front end (:class:`client.human_ui.HumanUI` or
  :class:`client.json_ui.JsonUI`), which answers by itself what concerns only its screen and
  may hand back a command (:mod:`client.intents`) for the machine;
* the end of input, and the end of the session in use, go to the machine too.

The driver performs the effects the machine answers with, in order: it calls the front end,
sends each request from a task of its own (so that a slow reply never stops the pushes from
being read; the answer goes straight back to the machine), fetches hand records, reconnects,
and returns when the machine says the loop is over.

When the connection drops before the game is over and we hold a resume token, the driver
reconnects with a growing pause (:data:`net.retry.KEEP_SEAT`; after a shutdown the host
announced, a few tries: :data:`net.retry.AFTER_SHUTDOWN`), sends ``resume`` with the last
table seq it saw, and carries on with the host's backlog; the deal checks carry over, so a hand
that straddles the disconnect is still verified. A spectator reconnects the same way and sends
``watch`` again (:meth:`TableClient.rewatch`, under its chat name); with no backlog for
spectators, the hand in progress is left to its record.

With ``records_dir``, every signed ``hand_end`` or ``void`` also starts a task that fetches the
host's complete record of that hand (:func:`client.record_fetch.fetch_and_save`: checked against the
host's deal key and the transcript the deal check verified, saved next to the proof bundles)
and reports it in one line. A ``game_over`` waits for those fetches (at most
:data:`RECORD_WAIT` seconds), so each record's line comes before the outcome.

On a private table the turn timer's move is the client's (``spec/PROTOCOL.md`` 10.14): when a
``state`` gives our seat a turn with ``turn_ms`` running, the driver arms a timer; if no newer
``state`` came when it runs out, it sends the seat's default move
(:meth:`net.seat.SeatClient.default_move`) as if typed, and says so.

When a deal check fails the machine says so and leaves the table; :func:`run_table` then
raises :class:`DealCheckFailed`, so ``join`` and ``play`` exit with status 1 (a deal did not
verify) instead of 0.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import trio

import protocol.table_messages as tm
from client import stdin
from client.intents import ActIntent, Intent
from client.record_fetch import fetch_and_save
from client.table_client import TableClient
from client.table_events import (
    Answered,
    AwaitRecords,
    Closed,
    Effect,
    Event,
    Failed,
    Failure,
    FetchRecord,
    Finish,
    InputEnded,
    Pushed,
    Reconnect,
    Reconnected,
    ReconnectFailed,
    RecordFetched,
    Replay,
    Request,
    SendAct,
    SendAddBot,
    SendChat,
    SendExplain,
    SendReady,
    ShowActed,
    ShowEnd,
    ShowExplained,
    ShowInfo,
    ShowPush,
    ShowRefused,
    Typed,
)
from client.table_machine import TableMachine
from net.fairplay import FairNotice
from net.retry import AFTER_SHUTDOWN, KEEP_SEAT
from net.session import (
    ClientSession,
    Disconnected,
    RequestError,
    leaves,
    open_session,
)
from net.trust import HostKeyChanged, TrustError
from protocol.errors import ProtocolError, RemoteProtocolError
from protocol.messages import Message

__all__ = [
    "RECORD_WAIT",
    "DealCheckFailed",
    "Frontend",
    "LineSource",
    "interrupt_note",
    "leaves",
    "read_lines",
    "run_table",
]

#: inbox capacity (pushes and lines waiting for the loop)
INBOX = 64
#: seconds ``game_over`` waits for the hand records still being fetched
RECORD_WAIT = 30.0
#: seconds to wait for the host to confirm a ``leave`` after the game
LEAVE_WAIT = 5.0

#: opens a fresh stream to the same host, its pin checked (the loop runs the session on it)
OpenStream = Callable[[], Awaitable[trio.abc.Stream]]


#: what to say if Ctrl-C ends the command during the table loop (:func:`interrupt_note`)
_NOTES: list[Callable[[], str | None]] = []


def interrupt_note() -> str | None:
    """The front end's line for a Ctrl-C during the last table loop (what becomes of the
    seat), or None."""
    return _NOTES[-1]() if _NOTES else None


class Frontend(Protocol):
    """What the loop needs from a user interface."""

    def on_push(self, tc: TableClient, push: Message, notices: list[FairNotice]) -> None: ...

    def on_line(self, tc: TableClient, line: str, *, rematch_asked: bool = False) -> Intent | None:
        """What the typed ``line`` asks the loop for (:mod:`client.intents`), or None when
        the front end answered it by itself (help, a typing mistake, a follow-up question).
        With ``rematch_asked`` ("Play again? [y/N]" stands) a line that answers it is a
        :class:`client.intents.RematchIntent` (:func:`client.intents.rematch_answer`)."""

    def on_explained(self, tc: TableClient, reply: tm.Explained) -> None:
        """The host's answer to ``explain``."""

    def on_refused(self, tc: TableClient, action: dict[str, Any], error: str) -> None: ...

    def on_acted(self, tc: TableClient, action: dict[str, Any]) -> None: ...

    def info(self, text: str, **fields: Any) -> None: ...

    def end(self, tc: TableClient, reason: str) -> None: ...


@dataclass(slots=True)
class _Item:
    kind: str  # "push", "line", "eof", "closed", "timeout"
    value: Any = None
    session: ClientSession | None = None


@runtime_checkable
class LineSource(Protocol):
    """A front end that reads the user's lines itself (the table screen reads keys)."""

    async def read_lines(self, deliver: Callable[[str | None], Awaitable[None]]) -> None: ...


async def read_lines(send: trio.MemorySendChannel[_Item], ui: object = None) -> None:
    """Read the user's lines: through the front end when it reads them itself
    (:class:`LineSource`), else stdin one line at a time (:mod:`client.stdin`); each end of
    input goes in the stream (a front end may go on reading after one)."""
    async with send:

        async def deliver(line: str | None) -> None:
            await send.send(_Item("eof") if line is None else _Item("line", line))

        if isinstance(ui, LineSource):
            await ui.read_lines(deliver)
        else:
            await stdin.read_lines(deliver)


async def _feed(session: ClientSession, send: trio.MemorySendChannel[_Item]) -> None:
    async for push in session.pushes:
        await send.send(_Item("push", push, session))
    await send.send(_Item("closed", session.closed_reason, session))


async def run_table(
    tc: TableClient,
    ui: Frontend,
    *,
    read_input: bool = True,
    reconnect: OpenStream | None = None,
    until_game_over: bool = True,
    offer_rematch: bool = False,
    records_dir: Path | None = None,
    leave_when_done: bool = False,
) -> dict[str, Any] | None:
    """Play (or watch) until the game is over; return the outcome (None if we left early).

    Args:
        tc: the table, already joined, resumed or watched.
        ui: the front end.
        read_input: read stdin lines. A spectator leaves on ``q`` (or the end of input when
            stdin is a terminal); at the end of a piped or closed stdin it watches on.
        reconnect: how to open a new session when the connection drops (None: give up).
        until_game_over: stop after ``game_over``.
        offer_rematch: after ``game_over`` ask "Play again? [y/N]" (read by the same stdin
            reader); ``y`` sends ``ready`` again, the protocol's rematch (spec/PROTOCOL.md 3.2),
            and the loop plays the next game at the same table, saying whom it waits for until
            then; anything else ends the loop.
        records_dir: fetch the host's record of every hand that ends and save it here (see the
            module docstring); None: do not fetch records.
        leave_when_done: when the loop ends after a finished game with our seat, send
            ``leave`` (on the session in use then, a reconnected one included), so players
            waiting for a rematch see the seat free at once; a refusal (a rematch started
            meanwhile) or a drop changes nothing.
    """
    machine = TableMachine(
        tc,
        until_game_over=until_game_over,
        offer_rematch=offer_rematch,
        records=records_dir is not None,
        can_reconnect=reconnect is not None,
        leave_when_done=leave_when_done,
    )
    note = getattr(ui, "interrupt_note", None)
    _NOTES[:] = [note] if callable(note) else []
    send, inbox = trio.open_memory_channel[_Item](INBOX)
    async with trio.open_nursery() as nursery:
        driver = _Driver(
            tc,
            ui,
            machine,
            nursery=nursery,
            inbox=send,
            reconnect=reconnect,
            records_dir=records_dir,
        )
        driver.follow(tc.session)
        if read_input:
            nursery.start_soon(read_lines, send.clone(), ui)
        try:
            async for item in inbox:
                done = await driver.take(item)
                if done is not None and machine.distrusted is None:
                    return done.outcome  # None during a game; after one, its outcome
                if done is not None:
                    break
        finally:
            if machine.leaves_seat():
                # mid-game the host's bot takes the seat at once (the others are not kept
                # waiting out a grace period for a player who is not coming back)
                with trio.move_on_after(LEAVE_WAIT), suppress(RequestError, Disconnected):
                    await tc.session.request(tm.Leave(table=tc.table_id))
                tc.token = None  # given up: no seat to take back (join forgets the saved one)
            nursery.cancel_scope.cancel()
    if machine.distrusted is not None:  # raised out of the nursery: one error, not a group
        raise DealCheckFailed(tc.table_id, machine.distrusted)
    return tc.outcome


class DealCheckFailed(Exception):
    """The loop left its table because the host failed a deal check (exit status 1)."""

    def __init__(self, table: str, failed: FairNotice) -> None:
        super().__init__(
            f"left table {table}: its host failed a deal check in table hand {failed.hand_no} "
            f"({failed.message})"
        )
        self.failed = failed


class _Driver:
    """Feeds the machine what happens and performs what it answers (see the module
    docstring); background tasks run in the loop's nursery."""

    def __init__(
        self,
        tc: TableClient,
        ui: Frontend,
        machine: TableMachine,
        *,
        nursery: trio.Nursery,
        inbox: trio.MemorySendChannel[_Item],
        reconnect: OpenStream | None,
        records_dir: Path | None,
    ) -> None:
        self.tc, self.ui, self.machine, self.nursery = tc, ui, machine, nursery
        self.inbox, self.reconnect, self.records_dir = inbox, reconnect, records_dir
        self.fetching = 0  #: hand records being fetched
        self.idle = trio.Event()  #: set while no record is being fetched
        self.idle.set()
        #: a private table's turn timer, armed for the state at this table seq
        self.turn_timer: trio.CancelScope | None = None

    def follow(self, session: ClientSession) -> None:
        """Copy ``session``'s pushes (and then its end) into the inbox."""
        self.nursery.start_soon(_feed, session, self.inbox.clone())

    async def take(self, item: _Item) -> Finish | None:
        """One inbox item; the machine's :class:`Finish` when the loop is over."""
        tc = self.tc
        if item.kind == "line":
            command = self.ui.on_line(tc, item.value, rematch_asked=self.machine.asking)
            return None if command is None else await self.feed(Typed(command))
        if item.kind == "eof":
            return await self.feed(InputEnded(terminal=_stdin_is_terminal()))
        if item.kind == "timeout":
            return await self.timed_out(item.value)
        if item.session is not tc.session:
            return None  # a late push (or end) from a session we replaced
        if item.kind == "closed":
            old = tc.session
            for_good = old.ended_by_host and old.retry_after is None
            after = old.retry_after if old.ended_by_host else None
            return await self.feed(Closed(str(item.value), for_good=for_good, retry_after=after))
        return await self.pushed(item.value)

    async def pushed(self, push: Message) -> Finish | None:
        try:
            notices = await self.tc.handle(push)
        except Disconnected:
            notices = []  # a commit or reveal could not be sent; the feeder reports the drop
        if isinstance(push, tm.StatePush) and push.seat is not None:
            self.arm_turn_timer(push)
        return await self.feed(Pushed(push, notices))

    def arm_turn_timer(self, push: tm.StatePush) -> None:
        """A private table: our turn with the timer running arms our default move."""
        if self.turn_timer is not None:
            self.turn_timer.cancel()
            self.turn_timer = None
        tc = self.tc
        if push is not tc.private_state or push.turn_ms is None or push.seat not in push.to_act:
            return
        scope = trio.CancelScope()
        self.turn_timer = scope
        seconds, seq, inbox = push.turn_ms / 1000, push.seq, self.inbox.clone()

        async def ring() -> None:
            with scope, inbox:
                await trio.sleep(seconds)
                await inbox.send(_Item("timeout", seq, tc.session))

        self.nursery.start_soon(ring)

    async def timed_out(self, seq: int) -> Finish | None:
        """Our turn ran out on a private table: send the default move, if the state it was
        armed for is still the latest."""
        tc = self.tc
        state = tc.private_state
        if state is None or state.seq != seq:
            return None
        move = tc.default_move()
        if move is None:
            return None
        self.ui.info(
            "Time is up: your client plays the default move",
            kind="default_move",
            action=move.action,
        )
        return await self.feed(Typed(ActIntent(move.action)))

    async def feed(self, event: Event) -> Finish | None:
        """Hand the machine one event and perform its effects in order."""
        for effect in self.machine.handle(event):
            done = await self.perform(effect)
            if done is not None:
                return done
        return None

    async def perform(self, effect: Effect) -> Finish | None:
        tc, ui = self.tc, self.ui
        match effect:
            case ShowPush(push, notices):
                ui.on_push(tc, push, notices)
            case ShowInfo(text, kind, fields):
                ui.info(text, kind=kind, **fields)
            case ShowActed(action):
                ui.on_acted(tc, action)
            case ShowRefused(action, error):
                ui.on_refused(tc, action, error)
            case ShowExplained(reply):
                ui.on_explained(tc, reply)
            case ShowEnd(reason):
                ui.end(tc, reason)
            case SendAct() | SendChat() | SendExplain() | SendAddBot() | SendReady():
                self.nursery.start_soon(self.request, effect)
            case FetchRecord(hand_no, transcript):
                self.fetching += 1
                self.idle = trio.Event()
                self.nursery.start_soon(self.fetch, hand_no, transcript)
            case AwaitRecords():
                with trio.move_on_after(RECORD_WAIT):
                    await self.idle.wait()
            case Reconnect():
                return await self.reconnected()
            case Replay(push):
                return await self.pushed(push)
            case Finish():
                return effect
        return None

    async def request(self, request: Request) -> None:
        """Send one request and tell the machine what became of it."""
        tc = self.tc
        reply: Message | None = None
        try:
            match request:
                case SendAct(action):
                    await tc.act(action)  # resent after a pause if the host says "slow down"
                case SendChat(text):
                    await tc.chat(text)
                case SendExplain(card):
                    reply = await tc.explain(card)
                case SendAddBot(level):
                    reply = await tc.add_bot(level)
                case SendReady():
                    await tc.ready()
        except RequestError as exc:
            await self.feed(Failed(request, str(exc), Failure.REFUSED))
        except (Disconnected, trio.TooSlowError) as exc:
            await self.feed(Failed(request, str(exc), Failure.DROPPED))
        except ProtocolError as exc:  # a message we cannot send, or a reply not the one due
            await self.feed(Failed(request, exc.message, Failure.INVALID))
        else:
            await self.feed(Answered(request, reply))

    async def fetch(self, hand_no: int, transcript: str | None) -> None:
        """Fetch, check and save the host's record of one hand; report it."""
        tc = self.tc
        assert self.records_dir is not None
        try:
            result = await fetch_and_save(
                tc.session,
                tc.table_id,
                hand_no,
                self.records_dir,
                host_pk=tc.checker.host_pk,
                transcript=transcript,
            )
            await self.feed(RecordFetched(result))
        finally:
            self.fetching -= 1
            if self.fetching == 0:
                self.idle.set()

    async def reconnected(self) -> Finish | None:
        """Reconnect, then follow the new session (or report why not)."""
        assert self.reconnect is not None
        found = await _reconnect(self.tc, self.ui, self.reconnect, self.nursery)
        if isinstance(found, str):
            return await self.feed(ReconnectFailed(found))
        done = await self.feed(Reconnected())
        self.follow(found)
        return done


def _stdin_is_terminal() -> bool:
    """Whether stdin is a terminal: there, the end of input (Ctrl-D) stops watching; a closed
    or piped stdin leaves a spectator watching to the end."""
    try:
        return bool(sys.stdin.isatty())
    except (AttributeError, ValueError, OSError):  # no stdin, or a closed one
        return False


async def _hold_session(
    stream: trio.abc.Stream, *, task_status: trio.TaskStatus[ClientSession]
) -> None:
    async with open_session(stream) as session:
        task_status.started(session)
        await session.closed.wait()


async def _reconnect(
    tc: TableClient, ui: Frontend, reconnect: OpenStream, nursery: trio.Nursery
) -> ClientSession | str:
    """A fresh session with our seat resumed (or, for a spectator, watching again), or the
    line that says why there is none.

    A dropped connection is tried again for as long as :data:`net.retry.KEEP_SEAT` lasts (a
    seat is held while its game runs; the host's refusal to give it back ends the tries); a
    host that announced its shutdown only for :data:`net.retry.AFTER_SHUTDOWN`, after the pause
    it asked for. Before each pause the front end hears ``reconnecting`` (the try, the pause,
    and what to do meanwhile), so a screen can count down to the next try.
    """
    old = tc.session
    announced = old.ended_by_host and old.retry_after is not None
    schedule = AFTER_SHUTDOWN if announced else KEEP_SEAT
    seated = tc.token is not None
    what = "resume your seat" if seated else "watch again"
    later = "onecard join resumes it while the host holds it" if seated else "onecard join --watch"
    last = ""
    for attempt, pause in enumerate(schedule.pauses(asked=old.retry_after), 1):
        text = (
            f"trying again in {pause:.0f} s to {what} (try {attempt}; Ctrl-C stops, then {later})"
        )
        ui.info(text, kind="reconnecting", attempt=attempt, wait=pause, error=last)
        await trio.sleep(pause)
        try:
            stream = await reconnect()
            session: ClientSession = await nursery.start(_hold_session, stream)
        except BaseException as exc:  # nursery.start may wrap the failure in a group
            found = leaves(exc)
            changed = [e for e in found if isinstance(e, HostKeyChanged)]
            if changed:  # never retry past a changed pin: the command fails with the warning
                ui.end(tc, "the host's identity changed")
                raise changed[0] from None
            if not all(isinstance(e, _RETRYABLE) for e in found):
                raise
            last = str(found[0])
            continue
        tc.session = session
        try:
            if tc.token is not None:
                await tc.resume(tc.token)
            else:
                await tc.rewatch()
        except RequestError as exc:
            what = "give the seat back" if tc.token is not None else "let us watch again"
            return f"the host refused to {what}: {exc.error.message}"
        except RemoteProtocolError as exc:  # it answered with something else: give up on it
            return f"the host broke the protocol: {exc.message}"
        except (Disconnected, trio.TooSlowError) as exc:
            last = str(exc)
            continue
        return session
    if announced:
        return f"the host did not come back ({last or 'no answer'}); once it is up, {later}"
    return f"giving up reconnecting ({last or 'no answer'}); {later}"


_RETRYABLE = (OSError, Disconnected, trio.TooSlowError, TrustError)
