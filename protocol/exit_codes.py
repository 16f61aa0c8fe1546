"""The exit statuses of every ``onecard`` command, in one place.

How it works: :class:`ExitCode` names each status once, for the host's commands and the
clients' alike (both import it from here: the sans-I/O protocol package is the one both may
use). The meanings follow the BSD ``sysexits.h`` conventions above 64, so a supervisor or a
script can tell "retrying later may help" (:attr:`ExitCode.UNAVAILABLE`) from "someone must fix a
file first" (:attr:`ExitCode.DATA`) from "the arguments are wrong" (:attr:`ExitCode.USAGE`,
click's own status). :data:`EPILOG` is the text ``onecard --help`` ends with; README lists the
same table.
"""

from __future__ import annotations

import enum

__all__ = ["EPILOG", "ExitCode"]


class ExitCode(enum.IntEnum):
    """What a command's exit status means."""

    #: it did what was asked (a game ended, every record checked out, the host shut down)
    OK = 0
    #: it failed: a deal or record did not verify, the host refused, the game could not go on
    FAILED = 1
    #: a bad command line: an unknown option, a bad value (``--option``, an address) [click]
    USAGE = 2
    #: damaged data: a record file or a host data directory that cannot be read as it should
    DATA = 65
    #: unavailable: the host cannot be reached, or does not have what was asked (no such table
    #: or hand); trying again later may help
    UNAVAILABLE = 69
    #: stopped by Ctrl-C (128 + SIGINT)
    INTERRUPTED = 130


EPILOG = (
    "Exit status: 0 done; 1 failed (a check failed, the host refused); 2 bad usage; "
    "65 damaged data (a record, a data directory); 69 host unavailable (no connection, no such "
    "table or hand); 130 interrupted."
)
