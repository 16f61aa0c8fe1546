"""The examples in the host's and the protocol's docstrings run and hold (the client's are in
tests/client/test_doctests.py)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "host.session",
    "host.games.black_jack",
    "host.games.one_card",
    "protocol.connection",
    "protocol.framing",
    "protocol.limits",
    "protocol.messages",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
