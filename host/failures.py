"""What the host answers when storing a change failed: a full disk is told apart from a bug.

How it works: :func:`failure_code` maps an exception raised while a request was handled to
its wire code: a write the disk refused for lack of room (``OSError`` with ``ENOSPC`` or
``EDQUOT``, sqlite's ``SQLITE_FULL`` "database or disk is full") is ``disk_full`` (nothing was
changed: the client may retry later), anything else ``internal``.
"""

from __future__ import annotations

import errno
import sqlite3

from protocol.errors import ErrorCode

__all__ = ["disk_full", "failure", "failure_code"]

_NO_ROOM = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
#: sqlite's result code for a full database or disk
_SQLITE_FULL = 13


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) says the disk has no room left."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen:
        seen.add(id(at))
        if isinstance(at, OSError) and at.errno in _NO_ROOM:
            return True
        if isinstance(at, sqlite3.Error) and (
            getattr(at, "sqlite_errorcode", None) == _SQLITE_FULL or "is full" in str(at)
        ):
            return True
        at = at.__cause__ or at.__context__
    return False


def failure_code(exc: BaseException) -> ErrorCode:
    """The code for a request whose handling raised ``exc``."""
    return ErrorCode.DISK_FULL if disk_full(exc) else ErrorCode.INTERNAL


def failure(request: str, exc: BaseException) -> tuple[ErrorCode, str]:
    """The code and message answering a ``request`` (its type) whose handling raised ``exc``."""
    if disk_full(exc):
        return (
            ErrorCode.DISK_FULL,
            f"the host's disk is full: {request!r} was not stored; retry later",
        )
    return ErrorCode.INTERNAL, f"the host failed to handle {request!r}"
