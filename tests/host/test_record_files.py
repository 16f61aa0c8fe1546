"""Hand record files (host/storage/record_files.py): whole writes, safe names, unreadable files, and
records the disk refuses kept in memory and served from there."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import trio

from host.storage.record_files import RecordFiles, RecordUnreadable

T = TypeVar("T")


async def inline(fn: Callable[[], T]) -> T:
    await trio.lowlevel.checkpoint()
    return fn()


def files(tmp_path: Path) -> RecordFiles:
    records = RecordFiles(tmp_path / "records", inline)
    records.open_dir()
    return records


async def test_a_saved_record_is_listed_loaded_and_private(tmp_path: Path) -> None:
    records = files(tmp_path)
    path = await records.save_record("t1", 7, {"hand_no": 7})
    assert path.name == "t1-hand0007.json.xz"
    assert await records.list_records("t1") == [7]
    assert await records.list_records("t2") == []
    assert await records.load_record("t1", 7) == {"hand_no": 7}
    assert await records.load_record("t1", 8) is None
    if os.name == "posix":
        assert path.stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "records").stat().st_mode & 0o777 == 0o700


async def test_a_table_id_cannot_name_a_path_outside_the_directory(tmp_path: Path) -> None:
    records = files(tmp_path)
    assert records.record_path("../../etc/x", 1).parent == tmp_path / "records"
    assert records.record_path("../../etc/x", 1).name == "etcx-hand0001.json.xz"


@pytest.mark.parametrize("data", [b"\xff\xfe", b"[1, 2]", b"{" * 5000])
async def test_a_damaged_file_is_unreadable_not_a_crash(tmp_path: Path, data: bytes) -> None:
    records = files(tmp_path)
    records.record_path("t1", 1).write_bytes(data)
    with pytest.raises(RecordUnreadable, match="is not a hand record"):
        await records.load_record("t1", 1)


async def test_a_refused_write_is_served_from_memory_then_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = files(tmp_path)
    real_replace = os.replace
    full = True

    def replace(src: Any, dst: Any) -> None:
        if full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    assert not await records.keep_record("t1", 1, {"hand_no": 1})
    assert [p.name for p in records.unwritten_records()] == ["t1-hand0001.json.xz"]
    assert await records.list_records("t1") == [1]
    assert await records.load_record("t1", 1) == {"hand_no": 1}
    assert not list((tmp_path / "records").glob("*.tmp"))  # no half-written file left
    full = False
    assert await records.flush_records()
    assert records.unwritten_records() == []
    assert records.record_path("t1", 1).exists()
