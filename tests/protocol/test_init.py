"""Tests for protocol/__init__.py: the public API and the sans-I/O import rule."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import protocol
from protocol import connection, framing, limits, messages, registry

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


def test_every_module_that_registers_messages_is_in_the_registry() -> None:
    registering = {
        f"protocol.{path.stem}"
        for path in (ROOT / "protocol").glob("*.py")
        if "\n@register\n" in path.read_text(encoding="utf-8")
    }
    assert "protocol.messages" in registering
    assert registering == {module.__name__ for module in registry.SPEC_ORDER}


@pytest.mark.parametrize(
    "first", ["protocol.table_messages", "protocol.lobby_messages", "protocol.connection"]
)
def test_the_registry_is_whole_and_in_spec_order_whatever_is_imported_first(first: str) -> None:
    code = f"import {first}\nimport protocol.registry as r\nprint(' '.join(r.MESSAGE_TYPES))\n"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == list(registry.MESSAGE_TYPES)


def test_importing_the_core_messages_alone_loads_no_other_message_module() -> None:
    code = (
        "import sys, protocol.messages\n"
        "loaded = sorted(m for m in sys.modules if m.endswith(('_messages', '.registry')))\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("module", [framing, connection, messages, limits, registry])
def test_docstring_examples_run(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
