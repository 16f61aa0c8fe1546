"""What keeps onecard working on Windows too, checked on the source (no Windows machine here):

* every ``platformdirs.user_*_dir`` call passes ``appauthor=False``: without it, Windows paths
  become ``...\\Local\\onecard\\onecard``;
* the Makefile, ``.ci/run``, the tests and the benchmarks name no ``.venv/bin`` (``Scripts`` on
  Windows): they run the venv's Python through a variable, or ``sys.executable``.

The data directory's lock has a Windows path of its own (``host/storage/datadir.py``, ``msvcrt``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "net", "host", "client", "onecard")


def test_every_platformdirs_call_passes_appauthor_false() -> None:
    calls = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and re.fullmatch(r"(user|site)_\w+_(dir|path)", node.func.attr)
                ):
                    given = {k.arg: k.value for k in node.keywords}
                    author = given.get("appauthor")
                    ok = isinstance(author, ast.Constant) and author.value is False
                    calls.append((f"{path.relative_to(ROOT)}:{node.lineno}", ok))
    assert len(calls) >= 4  # data, state and config dirs: the scan finds them
    assert [where for where, ok in calls if not ok] == []


def test_no_script_names_the_posix_venv_layout() -> None:
    files = [ROOT / "Makefile", ROOT / ".ci" / "run"]
    files += sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "bench").rglob("*.py"))
    here = Path(__file__).resolve()
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in files
        if path != here
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\.?venv/bin|\$\(VENV\)/bin", line)
    ]
    assert found == []
