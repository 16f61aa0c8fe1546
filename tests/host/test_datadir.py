"""host/storage/datadir.py: one host per data directory, and the one lock the host takes on disk."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from host.storage.datadir import DataDirError, DataDirInUse, LockBusy, hold_data_dir, locked


def test_hold_data_dir_is_exclusive_and_released(tmp_path: Path) -> None:
    refused = pytest.raises(DataDirInUse, match=r"in use by another host \(pid \d+\)")
    with hold_data_dir(tmp_path), refused, hold_data_dir(tmp_path):
        pass
    with hold_data_dir(tmp_path):  # free again
        pass


def test_a_data_dir_that_cannot_be_made_is_a_data_dir_error(tmp_path: Path) -> None:
    """Before, the OSError reached `onecard host` as "cannot listen on ...: Not a directory"."""
    (tmp_path / "file").write_text("not a directory")
    with (
        pytest.raises(DataDirError, match=r"cannot use data dir .*file/d"),
        hold_data_dir(tmp_path / "file" / "d"),
    ):
        pass


def test_a_lock_held_by_another_process_is_busy_and_released_when_it_dies(
    tmp_path: Path,
) -> None:
    lock = tmp_path / ".lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from host.storage.datadir import locked\n"
            "with locked(Path(sys.argv[1])):\n print('held', flush=True); time.sleep(60)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(LockBusy), locked(lock, blocking=False):
            pass
    finally:
        holder.kill()
        holder.wait(timeout=10)
    with locked(lock, blocking=False):  # the OS let go when the holder died
        pass
