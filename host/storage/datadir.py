"""The host's data directory: its file names, its one lock, and holding it for one host.

How it works: :func:`locked` takes an exclusive lock on a lock file, the one way the host locks
anything on disk: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on the file's first byte on
Windows; either way the operating system releases it when the process dies, so a crash never
leaves a directory locked. :func:`hold_data_dir` holds a data directory for one host for as
long as it serves (another host, or a ``onecard play`` session, is refused with
:class:`DataDirInUse` naming the holder's process id); the identity module locks the same way
while it creates keys (:data:`IDENTITY_LOCK_FILE`), so two first starts cannot race. Before
anything is written, the directory and its files are made private (:mod:`host.storage.filemodes`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

from host.storage.filemodes import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, private_data_dir

__all__ = [
    "DB_FILE",
    "HOST_LOCK_FILE",
    "IDENTITY_LOCK_FILE",
    "RECORDS_DIR",
    "DataDirDamaged",
    "DataDirError",
    "DataDirInUse",
    "LockBusy",
    "hold_data_dir",
    "locked",
]

#: the journal database in a data directory
DB_FILE = "host.sqlite3"
#: where the host keeps its hand records
RECORDS_DIR = "records"
#: held by the host serving from the data directory, for as long as it runs
HOST_LOCK_FILE = ".host.lock"
#: held while the identity is read or created, so two first starts do not race
IDENTITY_LOCK_FILE = ".identity.lock"


class DataDirError(Exception):
    """The data directory cannot be held or used: it cannot be created, locked or written,
    or is in use."""


class DataDirInUse(DataDirError):
    """Another host (process) already serves from this data directory."""


class DataDirDamaged(DataDirError):
    """A file in the data directory is damaged or not what the host keeps there; the message
    names it and what to do. Starting again will not help until someone does."""


class LockBusy(OSError):
    """A non-blocking :func:`locked` found the lock held by another process."""


def _lock(fd: int, *, blocking: bool) -> None:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt  # noqa: PLC0415 (Windows only)

        mode = msvcrt.LK_LOCK if blocking else msvcrt.LK_NBLCK
        try:
            msvcrt.locking(fd, mode, 1)
        except OSError as exc:
            raise LockBusy(str(exc)) from None
        return
    import fcntl  # noqa: PLC0415 (POSIX only)

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        raise LockBusy("held by another process") from None


def _unlock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt  # noqa: PLC0415 (Windows only)

        with suppress(OSError):
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl  # noqa: PLC0415 (POSIX only)

    fcntl.flock(fd, fcntl.LOCK_UN)


@contextmanager
def locked(path: Path, *, blocking: bool = True) -> Iterator[int]:
    """Hold an exclusive lock on the file ``path`` (created 0600 if missing) for the block;
    yield its descriptor. With ``blocking`` False a lock held elsewhere raises
    :class:`LockBusy` at once.

    Raises:
        LockBusy: (not blocking) another process holds it.
        OSError: the lock file cannot be opened or locked.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        _lock(fd, blocking=blocking)
        try:
            yield fd
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


@contextmanager
def hold_data_dir(data_dir: Path) -> Iterator[None]:
    """Hold ``data_dir`` for this host until the block ends.

    The directory, its files and its records are made private, or tightened, first (one
    WARNING line if anything was open to other users). The lock file records the holder's
    process id for the refusal's message.

    Raises:
        DataDirInUse: another host holds the directory.
        DataDirError: the directory or its lock file cannot be created, or cannot be locked
            (some network file systems).
    """
    try:
        data_dir.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
        private_data_dir(data_dir, [RECORDS_DIR])  # before anything is written there
    except OSError as exc:
        raise DataDirError(f"cannot use data dir {data_dir}: {exc.strerror or exc}") from None
    path = data_dir / HOST_LOCK_FILE
    with ExitStack() as stack:
        try:
            fd = stack.enter_context(locked(path, blocking=False))
        except LockBusy:
            holder = _holder(path)
            pid = f" (pid {holder})" if holder.isdigit() else ""
            raise DataDirInUse(f"data dir {data_dir} is in use by another host{pid}") from None
        except OSError as exc:
            raise DataDirError(f"cannot lock data dir {data_dir}: {exc.strerror or exc}") from None
        with suppress(OSError):  # the pid only words the refusal: a full disk must not stop us
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        try:
            yield
        finally:
            with suppress(OSError):
                os.ftruncate(fd, 0)


def _holder(path: Path) -> str:
    """The process id a lock file names (written by its holder), or ``""``."""
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return ""
