"""Bringing a table back after the host restarted: replay its journal, then finish what broke.

How it works: :func:`restore_table` builds a :class:`host.table.table.Table` from its stored row:
the seats as stored, the last game rebuilt by replaying the journal's inputs (the fair-dealing
messages come out byte-identical), the chat backlog, and the players' ``ready`` kept in the
table's meta. Every seat starts away (its player has to resume), and the turn or round in
progress gets its full time again. :func:`finish_restore`, run once the table's timer task is
up, finishes what the restart interrupted: it writes the hand records that are not on disk
(the last game's from the replay, earlier games' rebuilt from the journal; never those the
retention pruned, host.storage.record_files), settles stood-up
seats, and voids and redoes a deal round that was half done, or a private table's hand that
was running (its seats' keys are on their machines, the host kept none: ``spec/PROTOCOL.md``
10.11). A record file that exists is left as it is, readable or not, so a damaged one never
keeps the round from being voided.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games.base import State
from host.logs import get_logger
from host.storage.journal import JournalKind, TableRow
from host.storage.store import Store
from host.table.seats import ROUND_TIMEOUT, Batch, Seat, TablePhase
from host.table.table import Table

__all__ = ["finish_restore", "restore_table"]

log = get_logger(__name__)


def restore_table(
    row: TableRow,
    *,
    game_cls: type[State],
    store: Store,
    signing_key: Ed25519PrivateKey,
    grace: float,
    round_timeout: float = ROUND_TIMEOUT,
) -> Table:
    """Rebuild a table from its stored row by replaying its journal's inputs."""
    meta = row.meta
    table = Table(
        table_id=row.table_id,
        game_cls=game_cls,
        seats=int(meta["seats"]),
        options=dict(meta["options"]),
        store=store,
        signing_key=signing_key,
        turn_timer=meta.get("turn_timer"),
        grace=grace,
        created=row.created,
        name=str(meta.get("name", "")),
        round_timeout=round_timeout,
        private=bool(meta.get("private", False)),
    )
    for s in row.seats:
        if 0 <= s.seat < table.nseats:
            table.seats[s.seat] = Seat(s.seat, s.name, s.token_hash, bot=s.bot)
    table.runner.replay(row.journal)
    table.replayed = row.journal  # until finish_restore rebuilds the lost records from it
    table.chat_log.extend(row.chat)
    if table.phase in (TablePhase.WAITING, TablePhase.FINISHED):
        table.book.restore_ready(meta.get("ready"), table.game_no)
    for seat in table.seats:
        if seat is not None:
            table.book.away(seat)
    table.runner.turn_deadline = None
    if table.phase is TablePhase.PLAYING:
        table.runner.restart_timers()
    return table


async def finish_restore(table: Table) -> None:
    """Finish what a restart interrupted (see the module docstring)."""
    runner = table.runner
    async with table.lock:
        records, runner.pending_records = runner.pending_records, []
        journal, table.replayed = table.replayed, ()
        have = set(await table.store.records.list_records(table.table_id))
        have |= set(range(1, table.store.records.pruned_through(table.table_id) + 1))
        lost = runner.lost_records(journal, have)
        if lost:
            log.warning(
                "table %s: rebuilt the lost records of hands %s from the journal",
                table.table_id,
                ", ".join(str(h) for h, _ in lost),
            )
        for hand_no, record in sorted([*lost, *records], key=lambda r: r[0]):
            if hand_no not in have:
                await table.store.records.keep_record(table.table_id, hand_no, record)
        await table.settle_stood_up()
        deal = runner.deal
        if runner.engine is not None and deal is not None and deal.mask is not None:
            if not deal.ended:  # a private hand: its seats' keys went with the connections
                payload = {"op": "void", "reason": "host restarted", "missing": []}
                await table.live(JournalKind.FAIR, payload)
            return
        if runner.phase is not TablePhase.DEALING or runner.engine is None:
            return
        deal = runner.deal
        if deal is not None and not deal.ended and not deal.dealt:
            await table.live(JournalKind.FAIR, {"op": "void", "reason": "host restarted"})
        else:
            batch = Batch()
            runner.reopen(batch)
            await table.commit(batch)
