"""Which failures are a full disk (``host/failures.py``)."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from host.failures import disk_full, failure
from protocol.errors import ErrorCode


def _wrapped() -> RuntimeError:
    try:
        raise OSError(errno.ENOSPC, "No space left on device")
    except OSError as exc:
        try:
            raise RuntimeError("the journal commit failed") from exc
        except RuntimeError as outer:
            return outer


@pytest.mark.parametrize(
    ("exc", "full"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), True),
        (OSError(errno.EDQUOT, "Disk quota exceeded"), True),
        (sqlite3.OperationalError("database or disk is full"), True),
        (_wrapped(), True),
        (OSError(errno.EIO, "Input/output error"), False),
        (sqlite3.OperationalError("database is locked"), False),
        (ValueError("a bug"), False),
    ],
)
def test_disk_full(exc: BaseException, full: bool) -> None:
    assert disk_full(exc) is full


def test_failure_words_each_code() -> None:
    code, text = failure("create_table", OSError(errno.ENOSPC, "full"))
    assert code is ErrorCode.DISK_FULL and "disk is full" in text
    assert failure("act", KeyError("x")) == (
        ErrorCode.INTERNAL,
        "the host failed to handle 'act'",
    )
