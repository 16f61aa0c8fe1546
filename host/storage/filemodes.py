"""Keep the host's files to the user that runs it: directories 0700, files 0600.

How it works: the data directory holds live deal secrets (the journal's ``open`` rows carry
the current hand's secret S, from which, with the public reveals, the deck was derived), the
host's private keys and the hand records. Whatever the umask, the host creates its
directories with :data:`PRIVATE_DIR_MODE` and its files with :data:`PRIVATE_FILE_MODE`, and at
start-up takes group and other bits off those that already exist (a data directory made by an
older version, or copied in with ``cp``): :func:`private_data_dir` goes over the data directory,
its files and its ``records`` once and logs one WARNING line saying what it changed, so a
start on a directory that is private already logs nothing. Where a mode cannot be changed
(some network or FAT file systems) the host logs that and goes on: refusing would keep the
tables from being served and protect no one. Nothing is done on Windows (no POSIX modes).
A file the host makes is created private (:func:`write_new_private`), never written open and
tightened afterwards: the start-up warning is only ever about what someone else left open.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

from host.logs import get_logger

__all__ = [
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "make_private_dir",
    "private_data_dir",
    "tighten",
    "write_new_private",
]

log = get_logger(__name__)

#: the mode of every directory the host makes (owner only)
PRIVATE_DIR_MODE = 0o700
#: the mode of every file the host writes (owner read and write)
PRIVATE_FILE_MODE = 0o600
#: permission bits that let anyone but the owner in
_OTHERS = 0o077
#: entries named in the WARNING line (the rest are counted)
_NAMED = 4


def make_private_dir(path: Path, *, parents: bool = False) -> None:
    """Create ``path`` (mode 0700) or tighten it to 0700; OSError if it cannot be made."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=parents, exist_ok=True)
    tighten([path])


def write_new_private(path: Path, data: bytes) -> None:
    """Create the file ``path`` with mode 0600 (whatever the umask) and write ``data`` to it.

    Raises:
        FileExistsError: ``path`` exists (it is never overwritten).
        OSError: it cannot be created or written.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def private_data_dir(data_dir: Path, subdirs: Iterable[str]) -> list[Path]:
    """Tighten ``data_dir``, its files, and each of ``subdirs`` with its files; one log line.

    Other subdirectories (``play-sessions``, made 0700 each) are left as they are. Returns the
    paths changed.
    """
    paths = [data_dir, *_files(data_dir)]
    for name in subdirs:
        sub = data_dir / name
        if sub.is_dir():
            paths += [sub, *_files(sub)]
    return tighten(paths)


def _files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.iterdir() if p.is_file())
    except OSError:
        return []


def tighten(paths: Iterable[Path]) -> list[Path]:
    """Take group and other bits off each existing path (directories 0700, files 0600).

    One WARNING line names what was changed; a missing path is skipped, one whose mode
    cannot be changed is logged and left as it is. Returns the paths changed.
    """
    if sys.platform == "win32":  # pragma: no cover - no POSIX modes
        return []
    changed: list[tuple[Path, int]] = []
    for path in paths:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("cannot check the mode of %s: %s", path, exc.strerror or exc)
            continue
        was = stat.S_IMODE(st.st_mode)
        if not was & _OTHERS:
            continue
        mode = PRIVATE_DIR_MODE if stat.S_ISDIR(st.st_mode) else PRIVATE_FILE_MODE
        try:
            os.chmod(path, mode)
        except OSError as exc:
            log.warning(
                "%s is open to other users (mode %04o) and cannot be made private: %s",
                path,
                was,
                exc.strerror or exc,
            )
            continue
        changed.append((path, was))
    if changed:
        named = ", ".join(f"{p} (was {was:04o})" for p, was in changed[:_NAMED])
        more = f" and {len(changed) - _NAMED} more" if len(changed) > _NAMED else ""
        log.warning(
            "other users could read the host's files: made private (directories 0700, "
            "files 0600) %s%s",
            named,
            more,
        )
    return [p for p, _ in changed]
