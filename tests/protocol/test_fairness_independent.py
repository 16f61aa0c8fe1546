"""The spec is reimplementable: an independent implementation reproduces every vector."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parents[1] / "spec" / "vectors"
SCRIPT = HERE / "independent_cardfair.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("independent_cardfair", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_independent_implementation_imports_nothing_of_ours() -> None:
    allowed = {"__future__", "hashlib", "hmac", "json", "sys", "pathlib", "typing"}
    for node in ast.walk(ast.parse(SCRIPT.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        for name in names:
            assert name in allowed or name.startswith("cryptography."), name


def test_independent_implementation_reproduces_every_vector() -> None:
    problems = _load().check_all(VECTORS)
    assert problems == []


def test_independent_script_runs_standalone() -> None:
    res = subprocess.run(
        [sys.executable, str(SCRIPT), str(VECTORS)], capture_output=True, text=True, check=False
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.strip() == "all vectors reproduced"


def test_independent_verifier_catches_a_card_change() -> None:
    mod = _load()
    cases = json.loads((VECTORS / "tampered_records.json").read_text("utf-8"))["cases"]
    case = next(c for c in cases if c["name"] == "card_changed")
    kind, index, detail = mod.verify_record(case["record"])
    assert (kind, index) == ("CardMismatchError", 49)
    assert detail.startswith("stream 0 position 4 is QS, derived")
