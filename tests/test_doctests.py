"""The examples in the modules' docstrings run and hold (client, host and protocol)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

MODULES = [
    "client.catalogue",
    "host.table.cheats",
    "client.choices",
    "client.intents",
    "client.help",
    "client.screen",
    "client.status",
    "client.lobby",
    "client.join_cmd",
    "client.commands",
    "client.render",
    "client.table_view",
    "client.rules_cmd",
    "client.tracking",
    "client.farewell",
    "client.outage",
    "client.turn_clock",
    "client.wording",
    "net.discover",
    "net.session",
    "net.trust",
    "host.games.black_jack.moves",
    "host.games.follow",
    "host.games.one_card.engine",
    "host.games.presentation",
    "host.server.admission",
    "host.server.connection",
    "host.server.identity",
    "protocol.cards",
    "protocol.decks",
    "protocol.connection",
    "protocol.framing",
    "protocol.limits",
    "protocol.messages",
    "protocol.registry",
    "protocol.text",
    "protocol.version",
    "net.address",
    "net.retry",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_every_module_with_examples_is_listed() -> None:
    """A module that gains a docstring example is run here too."""
    root = Path(__file__).resolve().parents[1]
    found = {
        ".".join(p.relative_to(root).with_suffix("").parts)
        for package in ("client", "host", "net", "protocol")
        for p in (root / package).rglob("*.py")
        if ">>> " in p.read_text("utf-8")
    }
    assert found == set(MODULES)
