"""The table loop: pushes and typed lines in, log lines, tables, prompts and actions out.

How it works: :func:`run_table` owns one nursery. A *feeder* task copies the session's pushes
into one inbox channel; the stdin *reader* (:func:`read_lines`, one thread call per line,
``abandon_on_cancel=True`` so the program can end while a read is blocked) copies typed lines
into the same inbox. The loop takes one item at a time, so everything happens in order:

* a push goes to :meth:`TableClient.handle` (fair-dealing duties and deal checks), then to the
  front end (:class:`client.human_ui.HumanUI` or :class:`client.json_ui.JsonUI`);
* a line goes to the front end, which may answer with an action to send; actions are sent from
  a separate task so that a slow reply never stops the pushes from being read.

When the connection drops before the game is over and we hold a resume token, the loop
reconnects with a growing pause (:data:`RECONNECT_PAUSES`), sends ``resume`` with the last
table seq it saw, and carries on with the host's backlog; the deal checks carry over, so a hand
that straddles the disconnect is still verified. A spectator reconnects the same way and sends
``watch`` again (:meth:`TableClient.rewatch`, under its chat name); with no backlog for
spectators, the hand in progress is left to its record. Nor does a spectator get a
``game_over`` it missed by watching again after the game ended: the ``state`` of the
finished game stands for it.
The loop ends after ``game_over`` (and the fairness verdict before it; with ``offer_rematch``,
after a "Play again?" answered other than ``y``), when the user quits, or when the host goes
away for good. After a ``y`` the next game starts only when every seat is ready again, so
until then each ``table_info`` that changes who is missing says so ("Waiting for Bob (gone),
seat 2 (empty) to play again"; :func:`waiting_for`), and ``q`` or the end of input leaves;
a chat line typed at the question is said and the question stays.

With ``records_dir``, every signed ``hand_end`` or ``void`` also starts a task that fetches the
host's complete record of that hand (:func:`client.records.fetch_and_save`: checked against the
host's deal key and the transcript the deal check verified, saved next to the proof bundles)
and reports it in one line. A ``game_over`` waits for those fetches (at most
:data:`RECORD_WAIT` seconds), so each record's line comes before the outcome.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import trio

import protocol.table_messages as tm
from client.commands import Act, AddBot, Chat, Command, Explain, Leave, rematch_answer
from client.fairplay import FairKind, FairNotice, TableClient
from client.records import fetch_and_save
from client.session import (
    ClientSession,
    Disconnected,
    RequestError,
    leaves,
    open_session,
)
from client.trust import HostKeyChanged, TrustError
from protocol.errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.messages import Error, Message

__all__ = [
    "RECONNECT_PAUSES",
    "RECORD_WAIT",
    "Frontend",
    "Quit",
    "leaves",
    "read_lines",
    "run_table",
    "waiting_for",
]

#: pauses in seconds between reconnection attempts
RECONNECT_PAUSES = (0.2, 0.5, 1.0, 1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0)
#: inbox capacity (pushes and lines waiting for the loop)
INBOX = 64
#: seconds ``game_over`` waits for the hand records still being fetched
RECORD_WAIT = 30.0
#: seconds to wait for the host to confirm a ``leave`` after the game
LEAVE_WAIT = 5.0

#: opens a fresh stream to the same host, its pin checked (the loop runs the session on it)
Reconnect = Callable[[], Awaitable[trio.abc.Stream]]


class Quit(Exception):
    """The user asked to leave before a table was reached (the lobby, the list of hosts)."""

    def __init__(self) -> None:
        super().__init__("quit")


class Frontend(Protocol):
    """What the loop needs from a user interface."""

    def on_push(self, tc: TableClient, push: Message, notices: list[FairNotice]) -> None: ...

    def on_line(self, tc: TableClient, line: str) -> Command | None:
        """What the typed ``line`` asks the loop for (:mod:`client.commands`), or None when
        the front end answered it by itself (help, a typing mistake, a follow-up question)."""

    def on_explained(self, tc: TableClient, reply: tm.Explained) -> None:
        """The host's answer to ``explain``."""

    def on_refused(self, tc: TableClient, action: dict[str, Any], error: str) -> None: ...

    def on_acted(self, tc: TableClient, action: dict[str, Any]) -> None: ...

    def info(self, text: str, **fields: Any) -> None: ...

    def end(self, tc: TableClient, reason: str) -> None: ...


@dataclass(slots=True)
class _Item:
    kind: str  # "push", "line", "eof", "closed", "missed_end"
    value: Any = None
    session: ClientSession | None = None


async def read_lines(send: trio.MemorySendChannel[_Item]) -> None:
    """Read stdin one line at a time in a worker thread; EOF ends the stream of lines."""
    async with send:
        while True:
            line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
            if not line:
                await send.send(_Item("eof"))
                return
            await send.send(_Item("line", line.rstrip("\r\n")))


async def _feed(session: ClientSession, send: trio.MemorySendChannel[_Item]) -> None:
    async for push in session.pushes:
        await send.send(_Item("push", push, session))
        missed = _game_over_from_state(push)
        if missed is not None:  # the loop uses it only if it has not seen this game end
            await send.send(_Item("missed_end", missed, session))
    await send.send(_Item("closed", session.closed_reason, session))


def _game_over_from_state(push: Message) -> tm.GameOver | None:
    """The ``game_over`` a spectator's ``state`` of a finished game stands for, or None.

    A spectator gets no journaled backlog (PROTOCOL.md 5): one that watches again after a drop
    during which the game it watched ended learns the end only from the ``state`` (phase
    ``finished``, the view's ``outcome``), and would wait for ever for a ``game_over`` that is
    never sent. The loop uses it only for a game it saw in progress: a spectator that comes
    to a table between games watches on for the next one.
    """
    if not isinstance(push, tm.StatePush) or push.seat is not None or push.phase != "finished":
        return None
    outcome = push.view.get("outcome")
    if not isinstance(outcome, dict) or push.game_no < 1:
        return None
    return tm.GameOver(table=push.table, seq=push.seq, game_no=push.game_no, outcome=outcome)


class _RecordFetches:
    """Fetch the host's record of each hand that ends, once, in the loop's nursery."""

    def __init__(
        self, tc: TableClient, ui: Frontend, directory: Path, nursery: trio.Nursery
    ) -> None:
        self.tc, self.ui, self.directory, self.nursery = tc, ui, directory, nursery
        self.started: set[int] = set()
        self.running = 0
        self.idle = trio.Event()
        self.idle.set()

    def hand_ended(self, push: tm.FairPush, notices: list[FairNotice]) -> None:
        if push.msg[0] not in ("hand_end", "void") or push.hand_no in self.started:
            return
        self.started.add(push.hand_no)
        done = (FairKind.VERIFIED, FairKind.VOID)
        transcript = next(
            (n.fingerprint for n in notices if n.hand_no == push.hand_no and n.kind in done), None
        )
        self.running += 1
        self.idle = trio.Event()
        self.nursery.start_soon(self._fetch, push.hand_no, transcript)

    async def _fetch(self, hand_no: int, transcript: str | None) -> None:
        tc = self.tc
        try:
            result = await fetch_and_save(
                tc.session, tc.table_id, hand_no, self.directory,
                host_pk=tc.checker.host_pk, transcript=transcript,
            )  # fmt: skip
            self.ui.info(result.line(), kind="record", **result.to_json())
        finally:
            self.running -= 1
            if self.running == 0:
                self.idle.set()

    async def wait(self) -> None:
        with trio.move_on_after(RECORD_WAIT):
            await self.idle.wait()


def waiting_for(info: tm.TableInfo | None, seat: int | None) -> list[str]:
    """Who a finished table still waits for before a rematch starts, our own ``seat`` aside:
    each seat not ready, by name (``Bob (gone)`` if its player left), or ``seat 2 (empty)``
    (numbered as in "Seated at table T, seat 0")."""
    if info is None:
        return []
    who = []
    for i, s in enumerate(info.seats):
        if i == seat or (s is not None and (s.get("ready") or s.get("bot"))):
            continue  # (a bot is ready whenever the people are: PROTOCOL.md 3.1)
        if s is None:
            who.append(f"seat {i} (empty)")
        else:
            who.append(str(s.get("name")) + ("" if s.get("connected", True) else " (gone)"))
    return who


async def run_table(
    tc: TableClient,
    ui: Frontend,
    *,
    read_input: bool = True,
    reconnect: Reconnect | None = None,
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
    send, inbox = trio.open_memory_channel[_Item](INBOX)
    acting = trio.Lock()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_feed, tc.session, send.clone())
        if read_input:
            nursery.start_soon(read_lines, send.clone())
        records = None if records_dir is None else _RecordFetches(tc, ui, records_dir, nursery)

        async def act(action: dict[str, Any]) -> None:
            async with acting:
                try:
                    await tc.act(action)  # resent after a pause if the host says "slow down"
                except RequestError as exc:
                    ui.on_refused(tc, action, str(exc))
                except (Disconnected, trio.TooSlowError):
                    ui.on_refused(tc, action, "the connection dropped before the host answered")
                except LocalProtocolError as exc:  # not a valid message: nothing was sent
                    ui.info(f"action not sent: {exc.message}", kind="error")
                else:
                    ui.on_acted(tc, action)

        asking = False  # "Play again?" is waiting for its answer
        left_mid_game = False  # q during a game: the seat is handed to the host's bot
        rematch = False  # answered "y": waiting for the other seats to be ready
        waiting_said: list[str] = []  # whom the last "Waiting for" line named
        followed = 0  # the last game we saw in progress

        async def ready_again() -> None:
            nonlocal asking, rematch
            try:
                await tc.ready()
            except (RequestError, Disconnected, trio.TooSlowError) as exc:
                ui.info(f"rematch refused: {exc}", kind="error")
                if tc.outcome is not None:  # still after the game (the ready may have landed)
                    asking, rematch = True, False  # ask again; no "waiting for" lines meanwhile
                    ui.info("Play again? [y/N]", kind="rematch")

        async def explain(card: str) -> None:
            try:
                reply = await tc.explain(card)
            except (RequestError, Disconnected, trio.TooSlowError) as exc:
                ui.info(f"could not ask the host about {card}: {exc}", kind="error")
            except ProtocolError as exc:  # a card code we cannot send, or a wrong reply
                ui.info(f"could not ask the host about {card}: {exc.message}", kind="error")
            else:
                ui.on_explained(tc, reply)

        async def add_bot() -> None:
            try:
                bot = await tc.add_bot()
            except (RequestError, Disconnected, trio.TooSlowError) as exc:
                ui.info(f"no bot seated: {exc}", kind="error")
            except ProtocolError as exc:
                ui.info(f"no bot seated: {exc.message}", kind="error")
            else:
                ui.info(f"{bot.name} (a bot) takes seat {bot.seat}", kind="bot_added",
                        seat=bot.seat, name=bot.name)  # fmt: skip

        def side(wanted: Command | None) -> None:
            """Start what a line asked for besides a move (chat, a question, a bot)."""
            if isinstance(wanted, Chat):
                nursery.start_soon(chat, wanted.text)
            elif isinstance(wanted, Explain):
                nursery.start_soon(explain, wanted.card)
            elif isinstance(wanted, AddBot):
                nursery.start_soon(add_bot)

        async def chat(text: str) -> None:
            try:
                await tc.chat(text)
            except (RequestError, Disconnected, trio.TooSlowError) as exc:
                ui.info(f"chat not sent: {exc}", kind="error")
            except LocalProtocolError as exc:  # a line the protocol forbids: nothing was sent
                ui.info(f"chat not sent: {exc.message}", kind="error")

        try:
            async for received in inbox:
                item = received
                if item.kind == "missed_end":  # a spectator's finished state: see _feed
                    if (
                        tc.outcome is not None  # its game_over came
                        or item.session is not tc.session
                        or item.value.game_no != followed  # a game we never watched being played
                    ):
                        continue
                    item = _Item("push", item.value, item.session)
                if item.kind == "push":
                    if item.session is not tc.session:
                        continue  # a late push from a session we replaced
                    push = item.value
                    if isinstance(push, tm.ChatLine) and not tc.new_chat(push):
                        continue  # a backlog line already shown (resume, watching again)
                    notices = await _handle(tc, push)
                    if isinstance(push, tm.StatePush) and push.phase != "finished":
                        followed = push.game_no
                    if push.TYPE == "game_start":
                        asking = False  # a new game: lines are moves again, not the answer
                        rematch, waiting_said = False, []
                    if records is not None and isinstance(push, tm.FairPush):
                        records.hand_ended(push, notices)
                    if records is not None and _is_game_over(push):
                        await records.wait()
                    ui.on_push(tc, push, notices)
                    if rematch and isinstance(push, tm.TableInfo) and push.phase == "finished":
                        who = waiting_for(push, tc.seat)
                        if who and who != waiting_said:
                            bot = "b + Enter seats a bot, " if None in push.seats else ""
                            ui.info(
                                f"Waiting for {', '.join(who)} to play again ({bot}q leaves)",
                                kind="waiting",
                                waiting_for=who,
                            )
                        waiting_said = who
                    if not until_game_over and tc.seat is None and _is_game_over(push):
                        ui.info(f"Still watching table {tc.table_id}: its next game shows "
                                "here (q + Enter to stop)", kind="watching_on")  # fmt: skip
                    if until_game_over and tc.outcome is not None and _is_game_over(push):
                        ui.end(tc, "game over")
                        if not offer_rematch or tc.seat is None:  # (stood up: no seat to ready)
                            return tc.outcome
                        asking = True
                        ui.info("Play again? [y/N]", kind="rematch")
                elif item.kind == "line" and asking:
                    answer = rematch_answer(item.value)
                    if answer is None:  # a chat line (or --json command): the question stays
                        wanted = ui.on_line(tc, item.value)
                        if isinstance(wanted, Leave):
                            ui.end(tc, "you left the table")
                            return tc.outcome
                        side(wanted)
                        continue
                    asking = False
                    if not answer:
                        return tc.outcome
                    rematch = True
                    nursery.start_soon(ready_again)
                elif item.kind == "line":
                    wanted = ui.on_line(tc, item.value)
                    if isinstance(wanted, Leave):
                        phase = tc.state.phase if tc.state is not None else ""
                        playing = tc.seat is not None and phase in ("dealing", "playing")
                        left_mid_game = playing and wanted.give_up
                        ui.end(tc, "you left the table")
                        return tc.outcome  # None during a game; after one, its outcome
                    if isinstance(wanted, Act):
                        if acting.locked():
                            ui.info("still waiting for the host to answer your last move",
                                    kind="busy")  # fmt: skip
                        else:
                            nursery.start_soon(act, wanted.action)
                    else:
                        side(wanted)
                elif item.kind == "eof":
                    if asking:
                        return tc.outcome
                    if tc.seat is not None or _stdin_is_terminal():  # Ctrl-D stops watching
                        ui.end(tc, "end of input")
                        return tc.outcome  # None during a game; after one, its outcome
                elif item.kind == "closed" and item.session is tc.session:
                    fresh = await _reconnect(tc, ui, reconnect, str(item.value), nursery)
                    if fresh is None:
                        ui.end(tc, f"disconnected: {item.value}")
                        return None
                    nursery.start_soon(_feed, fresh, send.clone())
        finally:
            after_game = leave_when_done and tc.outcome is not None
            if tc.seat is not None and (after_game or left_mid_game):
                # mid-game the host's bot takes the seat at once (the others are not kept
                # waiting out a grace period for a player who is not coming back)
                with trio.move_on_after(LEAVE_WAIT), suppress(RequestError, Disconnected):
                    await tc.session.request(tm.Leave(table=tc.table_id))
            nursery.cancel_scope.cancel()
    return tc.outcome


def _stdin_is_terminal() -> bool:
    """Whether stdin is a terminal: there, the end of input (Ctrl-D) stops watching; a closed
    or piped stdin leaves a spectator watching to the end."""
    try:
        return bool(sys.stdin.isatty())
    except (AttributeError, ValueError, OSError):  # no stdin, or a closed one
        return False


def _is_game_over(push: Message) -> bool:
    return push.TYPE == "game_over"


async def _handle(tc: TableClient, push: Message) -> list[FairNotice]:
    try:
        return await tc.handle(push)
    except Disconnected:
        return []  # a commit or reveal could not be sent; the feeder reports the drop


async def _hold_session(
    stream: trio.abc.Stream, *, task_status: trio.TaskStatus[ClientSession]
) -> None:
    async with open_session(stream) as session:
        task_status.started(session)
        await session.closed.wait()


async def _reconnect(
    tc: TableClient,
    ui: Frontend,
    reconnect: Reconnect | None,
    reason: str,
    nursery: trio.Nursery,
) -> ClientSession | None:
    """A fresh session with our seat resumed (or, for a spectator, watching again), or None
    when that is impossible."""
    old = tc.session
    gone_for_good = old.ended_by_host and old.retry_after is None
    if reconnect is None or (tc.token is None and not tc.watching) or gone_for_good:
        return None
    ui.info(f"connection lost ({reason}); reconnecting", kind="disconnected")
    pauses = list(RECONNECT_PAUSES)
    if old.retry_after is not None:
        pauses.insert(0, float(old.retry_after))
    last = ""
    for pause in pauses:
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
            ui.info(f"the host refused to {what}: {exc}", kind="error")
            return None
        except RemoteProtocolError as exc:  # it answered with something else: give up on it
            ui.info(f"the host broke the protocol: {exc.message}", kind="error")
            return None
        except (Disconnected, trio.TooSlowError) as exc:
            last = str(exc)
            continue
        if tc.token is not None:
            ui.info(f"reconnected: seat {tc.seat} resumed as {tc.name}", kind="reconnected")
        else:
            ui.info(
                f"reconnected: watching table {tc.table_id} again (the hand in progress is "
                "checked from its record)",
                kind="reconnected",
            )
        return session
    ui.info(f"giving up reconnecting ({last or 'no answer'})", kind="error")
    return None


_RETRYABLE = (OSError, Disconnected, trio.TooSlowError, TrustError)


def error_line(err: Error) -> str:
    """One line for a non-fatal ``error`` push."""
    return f"host error: {err.message} ({err.code.value})"
