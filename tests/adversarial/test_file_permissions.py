"""Who may read the host's files: only the user that runs it.

Before, with umask 022, ``host.sqlite3`` and its ``-wal``/``-shm`` were 0644 in a 0755 data dir,
and the journal's ``open`` row holds the current hand's secret S, from which (with the public
reveals) any local user could derive the whole deck mid-hand.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from host.server.identity import CERT_FILE, KEY_FILE, LOCK_FILE, SIGNING_KEY_FILE
from host.storage.datadir import DB_FILE, HOST_LOCK_FILE, RECORDS_DIR

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")

Lab = Any  # tests/adversarial/conftest.py (test modules cannot import it)
FILES = [DB_FILE, CERT_FILE, KEY_FILE, SIGNING_KEY_FILE, LOCK_FILE, HOST_LOCK_FILE]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes(data_dir: Path) -> dict[str, int]:
    """The mode of the data dir, the records dir and every file in either."""
    out = {".": mode(data_dir), RECORDS_DIR: mode(data_dir / RECORDS_DIR)}
    for path in [*data_dir.iterdir(), *(data_dir / RECORDS_DIR).iterdir()]:
        if path.is_file():
            out[str(path.relative_to(data_dir))] = mode(path)
    return out


async def test_a_new_data_dir_and_everything_in_it_is_private_whatever_the_umask(
    autojump_clock: trio.testing.MockClock,
    umask_022: None,
    lab: Lab,
    caplog: pytest.LogCaptureFixture,
) -> None:
    data_dir = lab.data_dir
    info = await lab.start()
    table = await info.host.create_table("one-card", seats=2)
    store = info.host.lobby.store
    await store.records.save_record(table, 1, {"hand_no": 1})
    live = modes(data_dir)  # the host runs: sqlite's -wal and -shm are there
    assert {f"{DB_FILE}-wal", f"{DB_FILE}-shm", *FILES} <= set(live)
    assert live == {name: 0o700 if name in (".", RECORDS_DIR) else 0o600 for name in live}, live
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # nothing to tighten


async def test_a_data_dir_open_to_other_users_is_tightened_with_one_line(
    autojump_clock: trio.testing.MockClock,
    umask_022: None,
    lab: Lab,
    caplog: pytest.LogCaptureFixture,
) -> None:
    data_dir = lab.data_dir
    first = await lab.start()
    table = await first.host.create_table("one-card", seats=2)
    await first.host.lobby.store.records.save_record(table, 1, {"hand_no": 1})
    await first.host.shutdown()
    (data_dir / f"{DB_FILE}-wal").write_bytes(b"")  # as a crash leaves it
    for path in [data_dir, *data_dir.rglob("*")]:  # as an older host, or cp -r, left them
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    caplog.clear()
    caplog.set_level(logging.WARNING)
    second = await lab.start()
    live = modes(data_dir)
    assert live == {name: 0o700 if name in (".", RECORDS_DIR) else 0o600 for name in live}, live
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1, said
    assert said[0].startswith("other users could read the host's files: made private")
    assert f"{data_dir} (was 0755)" in said[0]
    await second.host.shutdown()
    caplog.clear()
    await lab.start()  # private now: nothing to say
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
