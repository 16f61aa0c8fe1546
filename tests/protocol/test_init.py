"""Tests for protocol/__init__.py: the public API and the sans-I/O import rule."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import protocol
from protocol import connection, framing, limits, messages

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


def test_every_module_that_registers_messages_is_loaded_with_the_registry() -> None:
    registering = sorted(
        f"protocol.{path.stem}"
        for path in (ROOT / "protocol").glob("*.py")
        if "\n@register\n" in path.read_text(encoding="utf-8")
    )
    assert "protocol.messages" in registering
    code = (
        "import sys, protocol.messages\n"
        f"missing = [m for m in {registering!r} if m not in sys.modules]\n"
        "assert not missing, f'import these at the bottom of protocol/messages.py: {missing}'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("module", [framing, connection, messages, limits])
def test_docstring_examples_run(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
