"""The host's log lines, made safe to show: no client-supplied character reaches a terminal raw.

How it works: many log lines quote what a client sent (a name, a bot label, the message of the
fatal ``error`` it closed with, ...), and ``onecard host -v`` writes them to a terminal. Every
host module takes its logger from :func:`get_logger`, which carries a :class:`SafeText`
filter: it formats each record's message and, when that holds a character that is not
printable, replaces it with the escaped text of :func:`protocol.text.safe_text` (``\\x1b``,
``\\u202e``, ``\\n``), so one event stays one line and an ESC sequence in a name sets no
title and erases nothing. A traceback attached to the record is escaped line by line. The
filter sits on the logger, so every handler (stderr, a test's ``caplog``) sees the safe record;
``onecard host`` also puts one on its stderr handler for the other libraries' records.
"""

from __future__ import annotations

import logging

from protocol.text import safe_text

__all__ = ["SafeText", "get_logger"]

_FORMATTER = logging.Formatter()


def _lines(text: str) -> str:
    return "\n".join(safe_text(line) for line in text.split("\n"))


class SafeText(logging.Filter):
    """Escapes what is not printable in a record's message; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a bad format: the handler reports it as usual
            return True
        shown = safe_text(message)
        if shown != message:
            record.msg, record.args = shown, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = _lines(_FORMATTER.formatException(record.exc_info))
        if record.stack_info:
            record.stack_info = _lines(record.stack_info)
        return True


def get_logger(name: str) -> logging.Logger:
    """``logging.getLogger(name)`` with a :class:`SafeText` filter (added once)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, SafeText) for f in logger.filters):
        logger.addFilter(SafeText())
    return logger
