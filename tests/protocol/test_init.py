"""Tests for protocol/__init__.py: the public API and the sans-I/O import rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import protocol

ROOT = Path(__file__).resolve().parents[2]


def test_all_names_exist() -> None:
    for name in protocol.__all__:
        assert hasattr(protocol, name), name
    assert protocol.PROTOCOL_NAME == "onecard"
    assert protocol.PROTOCOL_VERSION == 1
    assert protocol.PROTOCOL_VERSION in protocol.SUPPORTED_VERSIONS


def test_importing_the_protocol_never_imports_io_or_cli_libraries() -> None:
    code = (
        "import sys, protocol, protocol.framing, protocol.messages, protocol.connection, "
        "protocol.cards, protocol.limits, protocol.errors\n"
        "bad = sorted({'trio', 'click', 'socket', 'asyncio', 'ssl'} & set(sys.modules))\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
