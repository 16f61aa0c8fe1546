"""The one way into the host from the client: a host run inside ``onecard play``'s process.

How it works: :func:`embedded_host` is an async context manager that starts
:func:`host.server.server.serve_host` in a nursery, yields the :class:`HostInfo` (where it listens,
its fingerprint, and the :class:`host.server.server.Host` to create tables and seat bots) and shuts
the host down when the block ends. Alone (``onecard play``) the host binds loopback on a free port,
in a throw-away data directory, with no turn timer; on the LAN (``--lan``) it binds every
interface on the default port and advertises itself, with the host's default turn timer, and
its data lives in a fresh play directory (:func:`new_play_dir`) under a persistent base
whose identity (certificate, deal key) every session shares, so the fingerprint friends pinned
stays the same. A play directory is tidied when its game ends (:func:`end_play_dir`: the
journal goes, the hand records stay) and one left by a crashed ``play`` is tidied by the next
(:func:`sweep_play_dirs`). Every failure to start is one :class:`EmbeddedError` line. The client
imports nothing else from ``host/`` (an import-linter contract keeps it so): the games ``play``
offers before its host runs are the registry's (:func:`game_names` and :func:`find_game`,
re-exported here).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import trio

from host.games import find_game, game_names
from host.server.identity import (
    CERT_FILE,
    KEY_FILE,
    LOCK_FILE,
    SIGNING_KEY_FILE,
    IdentityError,
    load_or_create_identity,
)
from host.server.server import DEFAULT_TURN_TIMER, HostConfig, HostInfo, serve_host
from host.storage.datadir import DB_FILE, HOST_LOCK_FILE, RECORDS_DIR, DataDirError
from host.storage.filemodes import make_private_dir, write_new_private
from net.address import DEFAULT_PORT, join_target

__all__ = [
    "EmbeddedError",
    "HostInfo",
    "Setup",
    "embedded_host",
    "end_play_dir",
    "find_game",
    "game_names",
    "new_play_dir",
    "records_dir",
    "sweep_play_dirs",
]

#: under a persistent host data directory: one directory per ``play`` session
PLAY_DIRS = "play-sessions"
#: the identity files a play directory links to
IDENTITY_FILES = (CERT_FILE, KEY_FILE, SIGNING_KEY_FILE)
#: in a play directory: the process id of the ``play`` that owns it
OWNER_FILE = "owner.pid"
#: seconds the host gets to shut down politely when the game is over
SHUTDOWN_WAIT = 5.0
#: what the players are told when the host's player stops (the game is over for good)
GONE = "the host's player has stopped the game"


class EmbeddedError(Exception):
    """The embedded host could not start; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class Setup:
    """How ``onecard play`` wants its host: alone (loopback) or on the LAN."""

    name: str  #: the host's display name (``Ann's table``)
    lan: bool = False
    port: int | None = None  #: None: a free loopback port alone, the default port on the LAN
    data_dir: Path | None = None  #: None: throw-away alone, the user data dir on the LAN
    bot_think: float = 1.0  #: seconds the host's bots wait before each move


@asynccontextmanager
async def embedded_host(setup: Setup, *, base: Path) -> AsyncIterator[tuple[HostInfo, Path | None]]:
    """Run a host for ``setup`` until the block ends; yield it and its play directory (None
    for a throw-away host). ``base`` is the persistent data directory (the user data dir when
    ``setup.data_dir`` is None and the host is on the LAN).

    Raises:
        EmbeddedError: the data directory cannot be prepared or held, or the port is taken.
    """
    with tempfile.TemporaryDirectory(prefix="onecard-play-") as tmp:
        session: Path | None = None
        if setup.data_dir is None and not setup.lan:
            host_dir = Path(tmp)
        else:  # persistent keys, a fresh directory for this game's tables and records
            host_dir = session = new_play_dir(setup.data_dir or base, name=setup.name)
        config = HostConfig(
            data_dir=host_dir,
            bind=None if setup.lan else "127.0.0.1",
            port=(DEFAULT_PORT if setup.port is None else setup.port)
            if setup.lan
            else (setup.port or 0),
            name=setup.name[:32],
            advertise=setup.lan,
            bot_think=setup.bot_think,
            # alone with bots nobody waits on you; friends on the LAN get the host's default
            turn_timer=DEFAULT_TURN_TIMER if setup.lan else None,
        )
        failed = ""  # (raised out of the nursery, not inside it: one error, not a group)
        try:
            async with trio.open_nursery() as nursery:
                try:
                    info: HostInfo = await nursery.start(serve_host, config)
                except DataDirError as exc:
                    failed = str(exc)
                except OSError as exc:
                    where = (
                        join_target(config.bind, config.port)
                        if config.bind
                        else f"port {config.port} (every address)"
                    )
                    failed = f"cannot start the host on {where}: {exc.strerror or exc}"
                if not failed:
                    try:
                        yield info, session
                    finally:
                        with trio.move_on_after(SHUTDOWN_WAIT):
                            # the play directory is this game's only: the host never comes
                            # back, so the players are told not to wait for it
                            await info.host.shutdown(retry_after=None, reason=GONE)
                        nursery.cancel_scope.cancel()
            if failed:
                raise EmbeddedError(failed)
        finally:
            if session is not None:
                end_play_dir(session)


def records_dir(session: Path) -> Path:
    """Where a play directory keeps its hand records."""
    return session / RECORDS_DIR


def new_play_dir(base: Path, *, name: str | None = None) -> Path:
    """A fresh host data directory for one ``play`` session, sharing ``base``'s identity.

    The identity is created in ``base`` first if it is missing (``name`` goes into a new
    certificate), then linked (copied where links are not allowed) into
    ``base/play-sessions/<YYYYmmdd-HHMMSS>-<random>/``.

    Raises:
        EmbeddedError: ``base`` cannot be written or holds unreadable key files.
    """
    try:
        load_or_create_identity(base, name=name)
        root = base / PLAY_DIRS
        make_private_dir(root)
        sweep_play_dirs(root)
        session = Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=root))
    except IdentityError as exc:
        raise EmbeddedError(str(exc)) from None
    except OSError as exc:
        raise EmbeddedError(f"cannot prepare the host data directory {base}: {exc}") from None
    try:
        write_new_private(session / OWNER_FILE, f"{os.getpid()}\n".encode("ascii"))
        for file in IDENTITY_FILES:
            try:
                os.symlink((base / file).resolve(), session / file)
            except OSError:  # no symlinks here: a private copy, 0600 from the start
                write_new_private(session / file, (base / file).read_bytes())
    except OSError as exc:
        shutil.rmtree(session, ignore_errors=True)  # never leave half a session behind
        raise EmbeddedError(f"cannot prepare the host data directory {base}: {exc}") from None
    return session


def sweep_play_dirs(root: Path) -> list[Path]:
    """Tidy the play directories whose ``play`` died without tidying (a crash, a kill).

    A directory is left alone while the process named in its ``owner.pid`` runs (or when that
    cannot be told); one whose owner is gone is tidied like a finished session
    (:func:`end_play_dir`: the journal and key files go, hand records stay). Returns the
    directories tidied. Never raises.
    """
    tidied = []
    with suppress(OSError):
        for session in root.iterdir():
            if session.is_dir() and not _owner_alive(session / OWNER_FILE):
                end_play_dir(session)
                tidied.append(session)
    return tidied


def _owner_alive(path: Path) -> bool:
    try:
        pid = int(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        return not (path.parent / DB_FILE).exists()  # no owner and no journal: records only
    except (OSError, ValueError):
        return True  # cannot tell: leave it
    if pid == os.getpid() or sys.platform == "win32":  # (os.kill would end it there)
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def end_play_dir(session: Path) -> Path | None:
    """Tidy a finished play directory; return its ``records/`` if any record was kept.

    The journal database and the identity links (or copies) go; the hand records stay. A
    session without records is removed entirely. Nothing here raises: a leftover is harmless.
    """
    leftovers = (
        DB_FILE,
        DB_FILE + "-wal",
        DB_FILE + "-shm",
        OWNER_FILE,
        LOCK_FILE,
        HOST_LOCK_FILE,
    )
    for file in (*IDENTITY_FILES, *leftovers):
        with suppress(OSError):
            (session / file).unlink()
    records = session / RECORDS_DIR
    with suppress(OSError):
        if records.is_dir() and any(records.iterdir()):
            return records
    shutil.rmtree(session, ignore_errors=True)
    return None
