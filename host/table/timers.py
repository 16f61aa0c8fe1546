"""A table's timer task: what the host does by itself when a clock runs out.

How it works: :meth:`Timers.run` is the table's one background task (started in the server's
nursery). It sleeps until the table's clock (:class:`host.table.clock.TableClock`) says
something is due, or until a change pokes it, then takes the table lock and does what is due:

* no game running: free the seats of players away for the whole grace period (a player who
  walked away before the start would otherwise keep the table from ever starting);
* a game running: the host starts playing for seats away for the grace period, voids a deal
  round whose deadline passed, plays the move of a seat the host plays for, and plays, with
  the host's bot, the move of a seat whose turn timer ran out.

A failed step is logged and never ends the task; a crashing one (an engine bug) backs off for a
second without the lock, so the seats can still act and chat.
"""

from __future__ import annotations

from typing import Protocol

import trio

from host.bots import policy
from host.games.base import WireMap
from host.logs import get_logger
from host.storage.journal import JournalKind
from host.storage.store import Store
from host.table.clock import TableClock
from host.table.masked import first_move
from host.table.runner import GameRunner
from host.table.seats import VOID_TIMEOUT, Seat, TablePhase
from protocol.errors import LocalProtocolError
from protocol.fairness import FairnessError

__all__ = ["TimedTable", "Timers"]

log = get_logger(__name__)

#: seconds the timer task waits after a step crashed before it tries again
CRASH_BACKOFF_S = 1.0


class TimedTable(Protocol):
    """What the timer task uses of its table (:class:`host.table.table.Table` is one): named
    here, so that the table imports its timers and not the other way round."""

    @property
    def table_id(self) -> str: ...
    @property
    def runner(self) -> GameRunner: ...
    @property
    def clock(self) -> TableClock: ...
    @property
    def store(self) -> Store: ...
    @property
    def lock(self) -> trio.Lock: ...
    @property
    def seats(self) -> list[Seat | None]: ...
    @property
    def summary_due(self) -> bool: ...
    def send_summary(self) -> None: ...
    async def live(self, kind: JournalKind, payload: WireMap) -> None: ...


class Timers:
    """The timer task of one table; see the module docstring."""

    def __init__(self, table: TimedTable) -> None:
        self.table = table
        self._scope = trio.CancelScope()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run until cancelled or :meth:`stop`."""
        task_status.started()
        try:
            with self._scope:
                while True:
                    await self._step()
        finally:
            # the table and its timers refer to each other: once the task is over the cycle
            # is broken, so a dropped table is freed at once, not by a full collection
            del self.table

    def stop(self) -> None:
        self._scope.cancel()

    async def _step(self) -> None:
        table = self.table
        runner = table.runner
        running = runner.phase in (TablePhase.DEALING, TablePhase.PLAYING)
        turn = runner.turn_deadline
        if turn is not None and runner.private:
            # the host never plays a player's turn there: a turn run out is due only once it
            # ran out by the grace period too (_private_turns); waking at the turn deadline
            # itself would find nothing to do and spin until then
            turn += table.clock.grace
        deadlines = (runner.round_deadline, turn)
        await table.clock.wait(table.clock.next_due(table.seats, deadlines, running=running))
        crashed = False
        async with table.lock:
            if table.summary_due:
                table.send_summary()
            try:
                await self._tick()
            except (LocalProtocolError, FairnessError) as exc:
                log.error("table %s: automatic step failed: %s", table.table_id, exc)
            except Exception:  # an engine bug must not take the host down
                log.exception("table %s: automatic step crashed", table.table_id)
                crashed = True
        if crashed:  # back off without the lock, so the seats can still act and chat
            await trio.sleep(CRASH_BACKOFF_S)
        await trio.lowlevel.checkpoint()

    async def _tick(self) -> None:
        table = self.table
        runner = table.runner
        running = runner.phase in (TablePhase.DEALING, TablePhase.PLAYING)
        table.clock.mark(running=running)
        if not running:
            await self._free_absent_seats()
            return
        if runner.engine is None:
            return
        for s in table.clock.to_substitute(table.seats):
            s.substitute = True
            log.info(
                "table %s: the host plays seat %d (%s): away for the %.0f s grace period",
                table.table_id,
                s.index,
                s.name,
                table.clock.grace,
            )
            table.send_summary()
        now = table.clock.now()
        # a deal round, or a private hand waiting for masking messages (then mid-play too)
        if runner.round_deadline is not None and now >= runner.round_deadline:
            await table.live(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
            return
        if runner.phase is TablePhase.DEALING:
            return
        if runner.private:
            await self._private_turns(now)
            return
        for seat in runner.engine.to_act():
            if runner.seat(seat).substitute:
                await self._bot_plays(seat, "substitute")
                return
        if runner.turn_deadline is not None and now >= runner.turn_deadline:
            for seat in runner.engine.to_act():  # as for an absent player: the host's bot plays
                if await self._bot_plays(seat, "timeout"):
                    return

    async def _private_turns(self, now: float) -> None:
        """A private hand: the host plays only the seats whose masking it does (it holds their
        cards); it never plays for a player, whose client makes the default move (10.13). A
        seat gone past its grace, or whose turn ran out by more than the grace, takes its keys
        with it: the hand is void, naming it; the host plays the seat from the next hand."""
        table = self.table
        runner = table.runner
        engine, deal = runner.engine, runner.deal
        if engine is None or deal is None or deal.mask is None or deal.ended:
            return
        mask = deal.mask
        gone = [
            s.index
            for s in table.seats
            if s is not None and s.substitute and s.index not in mask.maskers
        ]
        names = ", ".join(str(i) for i in gone)
        reason = f"seat(s) {names} gone past the grace period: their keys are gone"
        late = runner.turn_deadline is not None and now >= runner.turn_deadline + table.clock.grace
        if not gone and late:
            gone = [seat for seat in engine.to_act() if seat not in mask.maskers]
            # still connected but silent: a missed round like an unanswered deal round, so a
            # seat that lets every hand stall stands up (MAX_MISSED_ROUNDS) and the host plays
            # it from the next hand, instead of voiding hands for ever
            reason = VOID_TIMEOUT
        if gone:
            await table.live(JournalKind.FAIR, {"op": "void", "reason": reason, "missing": gone})
            return
        for seat in engine.to_act():
            if seat in mask.maskers:
                move = first_move(engine.view(seat), mask.host_cards(seat))
                if move is None:
                    continue
                action, positions = move
                payload = {
                    "seat": seat,
                    "action": action,
                    "act_seq": None,
                    "note": "substitute",
                    "open": mask.host_play_keys(seat, positions) if positions else [],
                }
                await table.live(JournalKind.ACTION, payload)
                return

    async def _bot_plays(self, seat: int, note: str) -> bool:
        """The host's bot plays ``seat``'s move (its default action if the bot finds none);
        whether it played. ``note`` becomes the event players see (``substitute``,
        ``timeout``)."""
        table = self.table
        engine = table.runner.engine
        assert engine is not None
        legal = [a.to_wire() for a in engine.legal_actions(seat)]
        choice = policy.heuristic_choice(engine.view(seat), legal)
        if choice is None:
            default = engine.default_action(seat)
            choice = None if default is None else default.to_wire()
        if choice is None:
            return False
        payload = {"seat": seat, "action": choice, "act_seq": None, "note": note}
        await table.live(JournalKind.ACTION, payload)
        return True

    async def _free_absent_seats(self) -> None:
        """No game running: free each player's seat away for the grace period. The seat goes
        as after ``leave``; its token stops working, since a resume finds no seat."""
        table = self.table
        freed = table.clock.to_free(table.seats)
        for s in freed:
            table.seats[s.index] = None
            table.clock.touch()
            await table.store.delete_seat(table.table_id, s.index)
            log.info(
                "table %s: seat %d (%s) freed: away %.0f s with no game running",
                table.table_id,
                s.index,
                s.name,
                table.clock.grace,
            )
        if freed:
            table.send_summary()
