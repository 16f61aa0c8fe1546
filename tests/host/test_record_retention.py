"""Hand records on disk: compressed, pruned by age and size (host/storage/record_files.py), and
``onecard host --prune``."""

from __future__ import annotations

import gzip
import json
import lzma
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from click.testing import CliRunner

from host.storage.record_files import PRUNED_FILE, RecordFiles, prune_data_dir
from host.tools import cli
from protocol.hand_records import MAX_RECORD_BYTES, RecordError, dump_record, load_record

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]
RECORD = json.loads((ROOT / "spec/vectors/hand_record.json").read_text(encoding="utf-8"))


async def inline(fn: Callable[[], T]) -> T:
    return fn()


def files(tmp_path: Path) -> RecordFiles:
    records = RecordFiles(tmp_path / "records", inline)
    records.open_dir()
    return records


def age(path: Path, days: float) -> None:
    then = time.time() - days * 86400
    os.utime(path, (then, then))


async def test_a_record_is_kept_compressed_and_verify_reads_it(tmp_path: Path) -> None:
    records = files(tmp_path)
    path = await records.save_record("t1", 1, RECORD)
    data = path.read_bytes()
    assert path.name == "t1-hand0001.json.xz"
    assert lzma.decompress(data) == dump_record(RECORD).encode("utf-8")
    assert len(data) < len(gzip.compress(dump_record(RECORD).encode("utf-8"), 9))
    assert load_record(path) == RECORD  # onecard verify reads the file as the host keeps it
    assert await records.load_record("t1", 1) == RECORD


def test_a_gzip_record_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "hand.json.gz"
    path.write_bytes(gzip.compress(dump_record(RECORD).encode("utf-8")))
    assert load_record(path) == RECORD


@pytest.mark.parametrize("kind", ["xz", "gzip"])
def test_a_damaged_or_oversized_compressed_record_is_refused_in_one_line(
    tmp_path: Path, kind: str
) -> None:
    text = dump_record(RECORD).encode("utf-8")
    cut = tmp_path / "cut"
    cut.write_bytes((lzma.compress(text) if kind == "xz" else gzip.compress(text))[:-20])
    with pytest.raises(RecordError, match=f"damaged {kind}"):
        load_record(cut)
    bomb = tmp_path / "bomb"  # a few kB that would inflate past the record limit
    big = b" " * (MAX_RECORD_BYTES + 10)
    bomb.write_bytes(lzma.compress(big) if kind == "xz" else gzip.compress(big))
    assert bomb.stat().st_size < 100_000
    with pytest.raises(RecordError, match="larger than"):
        load_record(bomb)


async def test_records_older_than_the_days_kept_are_pruned_and_noted(tmp_path: Path) -> None:
    records = files(tmp_path)
    old = [await records.save_record("t1", h, {"hand_no": h}) for h in (1, 2)]
    for path in old:
        age(path, 10)
    await records.save_record("t1", 3, {"hand_no": 3})
    done = await records.prune(keep_days=7, max_bytes=None)
    assert (done.deleted, done.kept) == (2, 1)
    assert await records.list_records("t1") == [3]
    assert records.pruned_through("t1") == 2 and records.pruned_through("t2") == 0
    assert json.loads((records.records_dir / PRUNED_FILE).read_text()) == {"t1": 2}
    assert files(tmp_path).pruned_through("t1") == 2  # read back at the next start
    done = await records.prune(keep_days=0, max_bytes=None)
    assert (done.deleted, done.kept) == (1, 0)
    assert not [p for p in records.records_dir.iterdir() if p.name != PRUNED_FILE]


async def test_the_oldest_records_go_first_past_the_size_cap(tmp_path: Path) -> None:
    records = files(tmp_path)
    paths = [
        await records.save_record("t1", h, {"hand_no": h, "pad": "x" * 500}) for h in (1, 2, 3)
    ]
    for days, path in zip((3, 2, 1), paths, strict=True):
        age(path, days)
    size = paths[0].stat().st_size
    done = await records.prune(keep_days=None, max_bytes=2 * size)
    assert done.deleted == 1 and done.kept_bytes <= 2 * size
    assert await records.list_records("t1") == [2, 3]


def test_onecard_host_prune(tmp_path: Path) -> None:
    data = tmp_path / "host"
    data.mkdir()
    records = RecordFiles(data / "records", inline)
    records.open_dir()
    for h in (1, 2):
        path = records.record_path("t1", h)
        path.write_bytes(lzma.compress(dump_record({"hand_no": h}).encode("utf-8")))
    age(records.record_path("t1", 1), 100)
    result = CliRunner().invoke(cli.host_command, ["--data-dir", str(data), "--prune"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("deleted 1 hand record(s)")  # the default keeps 90 days
    args = ["--data-dir", str(data), "--prune", "--keep-records-days", "0"]
    result = CliRunner().invoke(cli.host_command, args)
    assert result.output.startswith("deleted 1 hand record(s)") and "0 kept" in result.output
    assert prune_data_dir(data, keep_days=0, max_bytes=None).kept == 0
