"""Damaged data in the host's data directory: one bad row, a corrupt or empty database, a
``records`` path that is a file, unreadable key files, a damaged hand record.

Before: one bad journal row stopped the whole host (with an empty ``Error: ``), sqlite page
corruption printed a raw ExceptionGroup, an empty database started silently with no tables, a
``records`` file read "cannot listen on ...: File exists", and a damaged record answered
``internal`` and kept the restart from voiding the hand in progress.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from click.testing import Result

import protocol.table_messages as tm
from host.server.identity import KEY_FILE, SIGNING_KEY_FILE, load_or_create_identity
from host.storage.datadir import DB_FILE, RECORDS_DIR
from host.table.seats import TablePhase
from net.session import RequestError
from protocol.hand_records import verify_record
from protocol.messages import Ping, Pong

Lab = Any  # tests/adversarial/conftest.py (test modules cannot import it)


def one_clean_line(result: Result, *words: str) -> str:
    """The command failed with one ``Error:`` line holding ``words`` and exit status 65."""
    assert "Traceback" not in result.output and "ExceptionGroup" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), (result.output, result.exception)
    for word in words:
        assert word in lines[0], (word, lines[0])
    from protocol.exit_codes import ExitCode

    assert result.exit_code == ExitCode.DATA, (result.exit_code, result.output)
    return lines[0]


@pytest.mark.parametrize(
    "damage",
    [
        ("message", "payload", b"\xc1"),
        ("message", "kind", "bogus"),
        ("chance", "payload", b"\x93\x01\x02\x03"),
        ("action", "payload", b"\x80"),  # {}: decodes, but no action can be replayed from it
    ],
    ids=["bad msgpack", "unknown kind", "not a map", "cannot be replayed"],
)
async def test_an_unreadable_journal_row_leaves_out_its_table_only(
    autojump_clock: trio.testing.MockClock,
    lab: Lab,
    caplog: pytest.LogCaptureFixture,
    damage: tuple[str, str, object],
) -> None:
    kind, column, value = damage  # the first row of that kind gets that column's value
    damaged = await lab.half_dealt_table()
    await lab.sound_table("tgood")
    with sqlite3.connect(lab.data_dir / DB_FILE) as db:
        ((seq,),) = db.execute(
            "SELECT min(seq) FROM journal WHERE table_id = ? AND kind = ?",
            (damaged.table_id, kind),
        )
        db.execute(
            f"UPDATE journal SET {column} = ? WHERE table_id = ? AND seq = ?",
            (value, damaged.table_id, seq),
        )
    db.close()
    info = await lab.start()
    assert damaged.table_id not in info.host.lobby.tables
    assert "tgood" in info.host.lobby.tables
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"table {damaged.table_id} left out: journal row {seq} ")
    async with lab.connect(info) as c:
        await c.request(tm.Watch(table="tgood"))
        created = await c.request(tm.CreateTable(game="one", seats=2))
        assert isinstance(created, tm.TableCreated)
        assert created.table != damaged.table_id


async def test_a_settings_row_that_names_no_game_leaves_out_its_table_only(
    autojump_clock: trio.testing.MockClock, lab: Lab, caplog: pytest.LogCaptureFixture
) -> None:
    await lab.sound_table("tgood")
    await lab.sound_table("tbad")
    with sqlite3.connect(lab.data_dir / DB_FILE) as db:
        db.execute("UPDATE tables SET meta = ? WHERE table_id = 'tbad'", (b"\x80",))  # {}
    db.close()
    info = await lab.start()
    assert set(info.host.lobby.tables) == {"tgood"}
    assert "table tbad left out: " in caplog.text


def corrupt_pages(path: Path) -> None:
    """Overwrite every page after the first (the header survives: sqlite opens the file)."""
    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.seek(4096)
        fh.write(b"\xab" * (size - 4096))


def garbage(path: Path) -> None:
    path.write_bytes(b"this is no database " * 500)


@pytest.mark.parametrize("damage", [corrupt_pages, garbage], ids=["pages", "header"])
async def test_a_corrupt_database_is_one_clear_line_and_status_65(
    lab: Lab, damage: Callable[[Path], None]
) -> None:
    await lab.half_dealt_table()
    db = lab.data_dir / DB_FILE
    assert db.stat().st_size > 3 * 4096 and not db.with_name(DB_FILE + "-wal").exists()
    damage(db)
    result = await trio.to_thread.run_sync(lab.cli)
    one_clean_line(result, f"the database {db} is damaged", "restore it from a backup")


async def test_an_empty_database_beside_hand_records_is_refused(lab: Lab) -> None:
    await lab.half_dealt_table()
    db = lab.data_dir / DB_FILE
    db.write_bytes(b"")
    result = await trio.to_thread.run_sync(lab.cli)
    one_clean_line(result, f"{db} is empty", "holds hand records", "backup")


async def test_an_empty_database_with_no_records_starts_with_a_warning(
    lab: Lab, caplog: pytest.LogCaptureFixture
) -> None:
    lab.data_dir.mkdir(mode=0o700)
    (lab.data_dir / DB_FILE).write_bytes(b"")
    info = await lab.start()
    assert info.host.lobby.tables == {}
    assert f"{lab.data_dir / DB_FILE} is empty: starting with no tables" in caplog.text


async def test_a_records_path_that_is_a_file_is_named(lab: Lab) -> None:
    lab.data_dir.mkdir(mode=0o700)
    records = lab.data_dir / RECORDS_DIR
    records.write_text("not a directory")
    result = await trio.to_thread.run_sync(lab.cli)
    one_clean_line(result, f"{records} is not a directory", "move it aside")
    from host.storage.datadir import (
        DataDirDamaged,  # here: the module imports on the code before it
    )

    with pytest.raises(DataDirDamaged):
        await lab.start()


@pytest.mark.parametrize("name", [KEY_FILE, SIGNING_KEY_FILE])
async def test_an_unreadable_key_file_is_named_with_what_to_do(lab: Lab, name: str) -> None:
    load_or_create_identity(lab.data_dir)
    key = lab.data_dir / name
    key.write_text("-----BEGIN PRIVATE KEY-----\nnot base64\n")
    result = await trio.to_thread.run_sync(lab.cli)
    one_clean_line(result, str(key), "restore it from a backup", "move ")
    assert key.read_text().startswith("-----BEGIN")  # never replaced


async def test_a_damaged_record_file_answers_unavailable_and_the_connection_lives(
    autojump_clock: trio.testing.MockClock, lab: Lab, caplog: pytest.LogCaptureFixture
) -> None:
    info = await lab.start()
    table = await info.host.create_table("one-card", seats=2)
    path = info.host.lobby.store.records.record_path(table, 1)
    path.write_text('{"format": "onecard-hand-record/1", "mess', encoding="utf-8")
    async with lab.connect(info) as c:
        with pytest.raises(RequestError) as refused:
            await c.request(tm.GetRecord(table=table, hand_no=1))
        assert refused.value.code == "unavailable" and not refused.value.error.fatal
        assert "record of hand 1" in refused.value.error.message
        assert isinstance(await c.request(Ping()), Pong)
    assert str(path) in caplog.text


async def test_a_damaged_record_does_not_keep_a_restart_from_voiding_the_hand_in_progress(
    autojump_clock: trio.testing.MockClock, lab: Lab
) -> None:
    stored = await lab.half_dealt_table()
    path = stored.data_dir / RECORDS_DIR / f"{stored.table_id}-hand0002.json.xz"
    path.write_bytes(b"\x00" * 100)  # hand 2: a finished hand of the game in progress
    info = await lab.start()
    table = info.host.lobby.table(stored.table_id)
    assert table.runner.voids == 2  # hand 1 (timeout) and hand 3: "host restarted"
    assert table.fair_hand_no == 4 and table.phase is TablePhase.DEALING
    assert table.deal is not None and table.deal.hand_no == 4
    assert path.read_bytes() == b"\x00" * 100  # left as found
    async with lab.connect(info) as c:
        with pytest.raises(RequestError) as refused:
            await c.request(tm.GetRecord(table=stored.table_id, hand_no=2))
        assert refused.value.code == "unavailable"
        parts = await c.request_all(tm.GetRecord(table=stored.table_id, hand_no=3))
        text = "".join(p.text for p in parts if isinstance(p, tm.RecordPart))
        verdict = verify_record(json.loads(text))
        assert verdict.ok and verdict.voided, verdict.message
