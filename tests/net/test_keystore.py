"""The private hands' key store: 0600 files written whole, one per host, table, seat and hand."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from net.keystore import (
    DIRECTORY,
    KEEP_FOR,
    FileKeyStore,
    KeySlot,
    KeyStore,
    KeyStoreError,
    MemoryKeyStore,
)

SLOT = KeySlot(host_pk=b"\x01" * 32, table_id="t-1", seat=2, hand_no=3)
SECRET = bytes(range(32))


@pytest.fixture(params=["file", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> KeyStore:
    return FileKeyStore(tmp_path) if request.param == "file" else MemoryKeyStore()


def test_a_kept_secret_comes_back_and_goes_when_dropped(store: KeyStore) -> None:
    assert store.get(SLOT) is None
    store.put(SLOT, SECRET)
    assert store.get(SLOT) == SECRET
    store.put(SLOT, b"\x07" * 32)
    assert store.get(SLOT) == b"\x07" * 32
    store.drop(SLOT)
    assert store.get(SLOT) is None
    store.drop(SLOT)  # dropping twice is no error


@pytest.mark.parametrize(
    "other",
    [
        KeySlot(host_pk=b"\x02" * 32, table_id="t-1", seat=2, hand_no=3),
        KeySlot(host_pk=b"\x01" * 32, table_id="t-2", seat=2, hand_no=3),
        KeySlot(host_pk=b"\x01" * 32, table_id="t-1", seat=1, hand_no=3),
        KeySlot(host_pk=b"\x01" * 32, table_id="t-1", seat=2, hand_no=4),
    ],
)
def test_each_host_table_seat_and_hand_has_its_own_secret(store: KeyStore, other: KeySlot) -> None:
    store.put(SLOT, SECRET)
    assert store.get(other) is None
    store.put(other, b"\x09" * 32)
    assert store.get(SLOT) == SECRET
    assert store.get(other) == b"\x09" * 32


def test_the_files_are_the_players_alone(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path)
    store.put(SLOT, SECRET)
    assert stat.S_IMODE(store.directory.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path(SLOT).stat().st_mode) == 0o600
    assert store.directory == tmp_path / DIRECTORY
    assert [p.name for p in store.directory.iterdir()] == [SLOT.file_name()]  # no temp left


def test_a_loose_directory_is_tightened(tmp_path: Path) -> None:
    (tmp_path / DIRECTORY).mkdir(mode=0o755)
    store = FileKeyStore(tmp_path)
    store.put(SLOT, SECRET)
    assert stat.S_IMODE(store.directory.stat().st_mode) == 0o700


@pytest.mark.parametrize(
    "content",
    [
        "",
        "not json",
        "[1, 2]",
        '{"format": "other/1"}',
        '{"format": "onecard-private-keys/1", "host_pk": "01", "table": "t-1"}',
    ],
)
def test_a_damaged_file_reads_as_absent(tmp_path: Path, content: str) -> None:
    store = FileKeyStore(tmp_path)
    store.put(SLOT, SECRET)
    store.path(SLOT).write_text(content, encoding="utf-8")
    assert store.get(SLOT) is None


def test_a_file_naming_another_slot_is_not_handed_out(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path)
    other = KeySlot(host_pk=b"\x02" * 32, table_id="t-1", seat=2, hand_no=3)
    store.put(other, SECRET)
    store.path(other).rename(store.path(SLOT))  # as if two slots' names ever met
    assert store.get(SLOT) is None


def test_a_secret_that_is_not_hex_reads_as_absent(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path)
    store.put(SLOT, SECRET)
    text = store.path(SLOT).read_text(encoding="utf-8").replace(SECRET.hex(), "zz")
    store.path(SLOT).write_text(text, encoding="utf-8")
    assert store.get(SLOT) is None


def test_a_write_that_fails_says_so_and_leaves_the_old_secret(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path)
    store.put(SLOT, SECRET)
    os.chmod(store.directory, 0o500)
    try:
        if os.access(store.directory, os.W_OK):  # root writes anyway: take the path away
            os.chmod(store.directory, 0o700)
            blocked = FileKeyStore(tmp_path / "file")
            (tmp_path / "file").write_text("a file, not a directory", encoding="utf-8")
            with pytest.raises(KeyStoreError, match="cannot keep the hand's keys"):
                blocked.put(SLOT, SECRET)
        else:
            with pytest.raises(KeyStoreError, match="cannot keep the hand's keys"):
                store.put(SLOT, b"\x07" * 32)
    finally:
        os.chmod(store.directory, 0o700)
    assert store.get(SLOT) == SECRET


def test_prune_removes_only_old_key_files(tmp_path: Path) -> None:
    store = FileKeyStore(tmp_path)
    store.put(SLOT, SECRET)
    newer = KeySlot(host_pk=b"\x01" * 32, table_id="t-1", seat=2, hand_no=4)
    store.put(newer, SECRET)
    other = store.directory / "notes.txt"
    other.write_text("not ours", encoding="utf-8")
    old = store.path(SLOT).stat().st_mtime - KEEP_FOR - 10
    os.utime(store.path(SLOT), (old, old))
    os.utime(other, (old, old))
    assert store.prune() == 1
    assert store.get(SLOT) is None
    assert store.get(newer) == SECRET
    assert other.exists()
    assert FileKeyStore(tmp_path / "nowhere").prune() == 0


@given(table=st.text(min_size=0, max_size=80), seat=st.integers(0, 9), hand=st.integers(1, 10**6))
def test_every_table_name_makes_a_plain_file_name(table: str, seat: int, hand: int) -> None:
    name = KeySlot(host_pk=b"\x00" * 32, table_id=table, seat=seat, hand_no=hand).file_name()
    assert "/" not in name and "\\" not in name and not name.startswith(".")
    assert name.endswith(".key") and len(name) < 120
    assert name.isascii()
