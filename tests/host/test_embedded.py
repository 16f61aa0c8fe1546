"""host/tools/embedded.py: the host ``onecard play`` runs in its own process, and its session
folders."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from host.server.identity import load_or_create_identity
from host.tools.embedded import (
    GONE,
    EmbeddedError,
    Setup,
    embedded_host,
    end_play_dir,
    new_play_dir,
    sweep_play_dirs,
)
from net.session import ClientSession, open_session
from net.trust import open_stream


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


async def start_a_session(base: Path) -> Path:
    """Start and end the host ``onecard play --lan`` runs (on loopback here); its directory."""
    with trio.fail_after(30):
        async with embedded_host(Setup("Ann's table", data_dir=base, port=0), base=base) as (
            _,
            session,
        ):
            assert session is not None
            made = [p for p in [base, *base.rglob("*")] if not p.is_symlink()]
            for path in made:
                mode = stat.S_IMODE(path.stat().st_mode)
                assert not mode & 0o077, f"{path} is {mode:04o}"
    return session


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
async def test_a_fresh_play_session_makes_its_files_private_and_says_nothing(
    tmp_path: Path, umask_022: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    base = tmp_path / "data"
    await start_a_session(base)  # the first: creates the identity too
    await start_a_session(base)  # the next ones, on the identity already there
    assert warnings_of(caplog) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
async def test_a_file_someone_left_open_is_still_made_private_with_a_warning(
    tmp_path: Path, umask_022: None, caplog: pytest.LogCaptureFixture
) -> None:
    base = tmp_path / "data"
    await start_a_session(base)
    os.chmod(base / "signing-key.pem", 0o644)  # as a careless cp left it
    caplog.set_level(logging.WARNING)
    await start_a_session(base)
    said = warnings_of(caplog)
    assert len(said) == 1, said
    assert said[0].startswith("other users could read the host's files: made private")
    assert "signing-key.pem (was 0644)" in said[0]


def test_each_session_gets_a_fresh_directory_sharing_the_identity(tmp_path: Path) -> None:
    base = tmp_path / "data"
    first, second = new_play_dir(base, name="Ann's table"), new_play_dir(base)
    assert first != second and first.parent == second.parent == base / "play-sessions"
    shared = load_or_create_identity(base)
    for session in (first, second):
        assert load_or_create_identity(session).fingerprint == shared.fingerprint
        assert not (session / "host.sqlite3").exists()  # no tables of anyone else


def test_a_finished_session_keeps_only_its_records(tmp_path: Path) -> None:
    base = tmp_path / "data"
    with_records, without = new_play_dir(base), new_play_dir(base)
    for session in (with_records, without):
        load_or_create_identity(session)  # as the session's host does: leaves its lock file
        (session / "host.sqlite3").write_bytes(b"journal")
        (session / "host.sqlite3-wal").write_bytes(b"wal")
        (session / "records").mkdir()
    (with_records / "records" / "t1-hand0001.json").write_text("{}")
    assert end_play_dir(with_records) == with_records / "records"
    assert [p.name for p in with_records.iterdir()] == ["records"]
    assert end_play_dir(without) is None and not without.exists()
    assert (base / "host-key.pem").exists() and (base / "signing-key.pem").exists()


def test_sessions_left_by_a_dead_play_are_tidied_by_the_next(tmp_path: Path) -> None:
    """A play that crashed leaves its journal (with the deal secrets) and key links: the next
    session tidies them, keeping the records; live sessions are left alone."""
    base = tmp_path / "data"
    crashed, orphan, mine, live = (new_play_dir(base) for _ in range(4))
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    (crashed / "owner.pid").write_text(gone.stdout)  # a process that has exited
    (orphan / "owner.pid").unlink()  # from before owners were written
    (live / "owner.pid").write_text(f"{os.getppid()}\n")
    for session in (crashed, orphan, mine, live):
        (session / "host.sqlite3").write_bytes(b"journal")
        (session / "records").mkdir()
        (session / "records" / "t1-hand1.json").write_text("{}")
    assert sorted(sweep_play_dirs(base / "play-sessions")) == sorted([crashed, orphan])
    for session in (crashed, orphan):
        assert [p.name for p in session.iterdir()] == ["records"]
    for session in (mine, live):
        assert (session / "host.sqlite3").exists() and (session / "host-key.pem").exists()
    new_play_dir(base)  # a new session sweeps too, and leaves the others as they are
    assert (live / "host.sqlite3").exists()


def test_an_unreadable_identity_is_one_line(tmp_path: Path) -> None:
    base = tmp_path / "data"
    base.mkdir()
    (base / "host-cert.pem").write_text("not a certificate")
    (base / "host-key.pem").write_text("not a key")
    with pytest.raises(EmbeddedError, match="cannot read the TLS identity"):
        new_play_dir(base)
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(EmbeddedError, match="cannot prepare the host data directory"):
        new_play_dir(blocked / "data")


async def _hold(stream: trio.abc.Stream, *, task_status: trio.TaskStatus[ClientSession]) -> None:
    async with open_session(stream) as session:
        task_status.started(session)
        await session.closed.wait()


async def test_the_players_are_told_the_host_is_not_coming_back(tmp_path: Path) -> None:
    """Before, the embedded host's end said ``retry_after: 5`` and the players' clients
    retried a host that was gone for good for 40 s; now they are told not to wait."""
    async with trio.open_nursery() as nursery:
        async with embedded_host(Setup(name="Ann's table"), base=tmp_path) as (info, _):
            connected = await open_stream(
                "127.0.0.1", info.port, expect=info.fingerprint, remember=False
            )
            session: ClientSession = await nursery.start(_hold, connected.stream)
        with trio.fail_after(10):
            await session.closed.wait()
    assert session.ended_by_host and session.retry_after is None
    assert session.closed_reason == f"the host is shutting down: {GONE}"
