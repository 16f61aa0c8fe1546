"""Fixtures for the adversarial tests: a damaged, full or world-readable data directory.

These tests play the attacker or the unlucky operator against a real host: they corrupt the
sqlite file, write journal rows no host wrote, make the disk refuse writes (a monkeypatched
``os.replace`` raising ``ENOSPC``; no real full disk needed) and loosen file modes, then check
that the host says what is wrong in one line and serves whatever is still sound. Hosts run on
the mock clock over in-memory streams where time matters (see ``tests/host/conftest.py``), and
``onecard host`` runs in-process with :func:`host.cli.run_host` replaced by a start-and-stop,
so a host that wrongly starts returns instead of serving forever. Test files cannot import
each other, so helpers are handed out as fixtures.
"""

from __future__ import annotations

import errno
import os
import random
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from click.testing import CliRunner, Result

from host import cli
from host.bots import ProtocolClient, open_client
from host.games import find_game
from host.identity import load_or_create_identity
from host.runner import Batch, GameRunner, Seat, TablePhase
from host.server import HostConfig, HostInfo, serve_host
from host.store import RECORDS_DIR, JournalKind, JournalRow, SeatRow, Store
from protocol.fairness import SeatSecret

#: table settings as the lobby stores them
META = {"game": "one", "seats": 3, "options": {"target": 1000}, "turn_timer": None, "name": ""}


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common umask, whatever the test runner's: new files 0644, directories 0755."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


class Lab:
    """One test's data directory, the hosts it starts there and the harm it does.

    ``config`` runs a host on the mock clock (sqlite in the trio thread, no turn timer, 10 s
    grace); :meth:`cli` runs ``onecard host`` on the directory instead (see the module
    docstring); :meth:`disk_full` makes the disk refuse hand records.
    """

    def __init__(
        self, tmp_path: Path, nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.data_dir = tmp_path / "host"
        self.config = HostConfig(
            data_dir=self.data_dir, bind="127.0.0.1", port=0, insecure=True, advertise=False,
            store_in_thread=False, grace=10.0, bot_think=0.0,
        )  # fmt: skip
        self._nursery = nursery
        self._monkeypatch = monkeypatch
        self._full = False
        real_replace = os.replace

        def replace_file(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            if self._full and Path(os.fsdecode(dst)).parent.name == RECORDS_DIR:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real_replace(src, dst, *args, **kwargs)

        monkeypatch.setattr(os, "replace", replace_file)

    async def start(self) -> HostInfo:
        """A host serving from the data directory (stopped when the test ends)."""
        info: HostInfo = await self._nursery.start(serve_host, self.config)
        return info

    @asynccontextmanager
    async def connect(self, info: HostInfo) -> AsyncIterator[ProtocolClient]:
        """A client of ``info`` over an in-memory stream (mock-clock safe), keeping all it
        receives in ``client.received``."""
        client_end, host_end = trio.testing.memory_stream_pair()
        self._nursery.start_soon(info.host.handle, host_end)
        async with open_client(client_end, keep=True) as client:
            yield client

    def cli(self) -> Result:
        """``onecard host`` on the data directory, started and shut down at once.

        Only the serving is cut short (``run_host`` starts the host in a nursery as the real
        one does, then shuts it down); option parsing and error handling are the command's.
        Blocking: run it with ``trio.to_thread.run_sync``.
        """

        async def start_and_stop(config: HostConfig, *, echo: bool = True) -> None:
            async with trio.open_nursery() as nursery:
                info: HostInfo = await nursery.start(serve_host, config)
                await info.host.shutdown()

        self._monkeypatch.setattr(cli, "run_host", start_and_stop)
        args = [
            "--data-dir", str(self.data_dir), "--bind", "127.0.0.1", "--port", "0",
            "--insecure", "--no-advertise",
        ]  # fmt: skip
        return CliRunner().invoke(cli.host_command, args)

    def disk_full(self, full: bool) -> None:
        """While ``full``, every rename into a ``records`` directory fails with ENOSPC: the
        last step of writing a hand record, in the code before the fix and after."""
        self._full = full

    async def half_dealt_table(self) -> HalfDealtTable:
        """Store a ONE table whose hand 3 round is open (see :class:`HalfDealtTable`)."""
        table = HalfDealtTable(self.data_dir)
        table.build()
        await table.store()
        return table

    async def sound_table(self, table_id: str) -> None:
        """Store one more table, sound and empty (a waiting One Card table for two)."""
        store = Store(self.data_dir, in_thread=False)
        await store.open()
        try:
            meta = {**META, "game": "one-card", "seats": 2, "options": {}}
            await store.put_table(table_id, 2, meta)
        finally:
            await store.close()


@pytest.fixture
def lab(tmp_path: Path, nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch) -> Lab:
    return Lab(tmp_path, nursery, monkeypatch)


class HalfDealtTable:
    """A ONE table stored mid-game: hands 1 (voided) and 2 (played) are over and hand 3's
    commit-reveal round waits for seat 1, the state a host restart must void and redo.

    Seat 0 is played by the host, seat 1 answers no round, seat 2 answers every round.
    """

    def __init__(self, data_dir: Path, table_id: str = "thalf") -> None:
        self.data_dir = data_dir
        self.table_id = table_id
        key = load_or_create_identity(data_dir).signing_key  # what the restarted host signs with
        self.runner = GameRunner(
            table_id=table_id, game_cls=find_game("one"), seats=3, options=META["options"],
            signing_key=key, turn_timer=None, round_timeout=20.0,
        )  # fmt: skip
        self.runner.seats[0] = Seat(0, "p0", None, sit_out=True)
        self.runner.seats[1] = Seat(1, "p1", b"\x01" * 32)
        self.runner.seats[2] = Seat(2, "p2", b"\x02" * 32)
        self.journal: list[JournalRow] = []
        self.records: dict[int, dict[str, Any]] = {}

    def feed(self, kind: JournalKind, payload: dict[str, Any]) -> None:
        batch = Batch()
        self.runner._input(batch, kind, payload)
        while self.runner._needs_open:
            self.runner._needs_open = False
            host = self.runner.seats[0]
            assert host is not None
            host.sit_out = True
            self.runner._input(batch, JournalKind.FAIR, self.runner._open_payload())
        self.journal.extend(batch.rows)
        self.records.update(self.runner.pending_records)
        self.runner.pending_records = []

    def answer(self, seat: int) -> None:
        deal = self.runner.deal
        assert deal is not None
        name = f"p{seat}"
        secret = SeatSecret.from_r(deal.ctx, name, secrets.token_bytes(32))
        self.feed(
            JournalKind.FAIR,
            {"op": "commit", "seat": seat, "value": secret.commit_body(deal.hand_no)["c"]},
        )
        if deal.locked:
            reveal = secret.reveal_body(deal.hand_no)["r"]
            self.feed(JournalKind.FAIR, {"op": "reveal", "seat": seat, "value": reveal})

    def build(self) -> None:
        """Play to hand 3's round (random legal moves, seeded) and store it all."""
        rng = random.Random(5)
        self.feed(JournalKind.GAME, {"game_no": 1, "names": ["p0", "p1", "p2"]})
        self.answer(2)
        self.feed(JournalKind.FAIR, {"op": "void", "reason": "timeout"})  # hand 1: p1 missed
        runner = self.runner
        for _ in range(5000):
            deal = runner.deal
            if runner.phase is TablePhase.DEALING and deal is not None:
                if deal.hand_no == 3 and deal.missing() == [1]:
                    return
                self.answer(2)
                continue
            assert runner.engine is not None
            seat = runner.engine.to_act()[0]
            action = rng.choice(runner.engine.legal_actions(seat)).to_wire()
            self.feed(JournalKind.ACTION, {"seat": seat, "action": action, "cseq": None})
        raise AssertionError("hand 3 never opened")

    async def store(self) -> None:
        store = Store(self.data_dir, in_thread=False)
        await store.open()
        try:
            await store.put_table(self.table_id, 1, META)
            for s in self.runner.seats:
                assert s is not None
                await store.put_seat(self.table_id, SeatRow(s.index, s.name, s.token_hash, None))
            await store.append(self.table_id, self.journal)
            for hand_no, record in self.records.items():
                await store.save_record(self.table_id, hand_no, record)
        finally:
            await store.close()
