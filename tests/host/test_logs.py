"""host/logs.py: every host log line shows what a peer sent escaped, tracebacks included, and
every host module logs through it."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from host.logs import SafeText, get_logger

HOST = Path(__file__).resolve().parents[2] / "host"


def test_a_line_quoting_a_peer_is_escaped_and_stays_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="host.test_logs")
    log = get_logger("host.test_logs")
    log.info("table %s: %s took seat %d", "t1", "Eve\x1b]0;x\x07\u202e\nforged", 2)
    log.info("plain %s %d%%", "Ann", 5)
    records = caplog.records
    assert records[0].getMessage() == "table t1: Eve\\x1b]0;x\\x07\\u202e\\nforged took seat 2"
    assert records[1].getMessage() == "plain Ann 5%" and records[1].args == ("Ann", 5)
    assert caplog.text.count("\n") == 2


def test_a_traceback_is_escaped_line_by_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="host.test_logs")
    log = get_logger("host.test_logs")
    try:
        raise ValueError("bad name \x1b[2K\u2066")
    except ValueError:
        log.exception("handling %s failed", "x\x9b")
    assert "\x1b" not in caplog.text and "\x9b" not in caplog.text
    assert "ValueError: bad name \\x1b[2K\\u2066" in caplog.text
    assert "Traceback (most recent call last):\n" in caplog.text


def test_a_bad_format_is_left_to_the_handler() -> None:
    record = logging.LogRecord("host.x", logging.INFO, __file__, 1, "%d", ("x",), None)
    assert SafeText().filter(record) and record.args == ("x",)


def test_the_filter_is_added_once() -> None:
    get_logger("host.test_logs_once")
    log = get_logger("host.test_logs_once")
    assert sum(isinstance(f, SafeText) for f in log.filters) == 1


def test_every_host_module_logs_through_the_escaping_filter() -> None:
    """A module with a plain ``logging.getLogger(name)`` would write what clients send raw (the
    root logger's handlers, which ``onecard host`` filters too, are fine)."""
    plain = [
        str(path.relative_to(HOST))
        for path in sorted(HOST.rglob("*.py"))
        if path.name != "logs.py" and re.search(r"logging\.getLogger\([^)]", path.read_text())
    ]
    assert plain == []
    logging_modules = [
        p for p in HOST.rglob("*.py") if re.search(r"^log = ", p.read_text("utf-8"), re.M)
    ]
    assert len(logging_modules) >= 7
    for path in logging_modules:
        assert "log = get_logger(__name__)" in path.read_text("utf-8"), path
