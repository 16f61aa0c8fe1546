"""Loading a bench script (bench/*.py is not a package) as a module for its tests."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench(script: str, name: str) -> ModuleType:
    """``bench/<script>`` as module ``name``, with bench/ on ``sys.path`` for the helpers and
    sibling scripts it imports (local_host, procstat, bots)."""
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def bench_loader() -> Callable[[str, str], ModuleType]:
    return load_bench
