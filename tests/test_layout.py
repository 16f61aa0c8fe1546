"""The house's layout rules, checked on the source: who may import whom, and how big things get.

* ``protocol/`` is sans-I/O: it imports none of trio, sockets, ssl, click, rich, sqlite or the
  other packages;
* ``net/`` (the network layer the host's bots and the clients share) imports ``protocol`` only;
* ``host/`` never imports ``client/``;
* ``client/`` reaches the host through one narrow entry point only: :mod:`host.embedded`
  (start a host in-process for ``onecard play``); the ``onecard`` command's registry names the
  host's own commands by string, and nothing else of the host is imported;
* ``onecard/`` (the console script's start-up check) imports only :mod:`client.cli`, after the
  check, and nothing imports it;
* no module outside ``tests/`` is over ``MAX_MODULE_LINES`` lines, and no function over
  ``MAX_FUNCTION_LINES``.

Imports are read from the syntax tree (``import``/``from`` anywhere, and string arguments of
``importlib.import_module``), so a lazy import counts like any other. ``python
tests/test_layout.py`` prints every violation.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "net", "host", "client", "onecard")
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

#: what each package may import from the project's packages
ALLOWED: dict[str, set[str]] = {
    "protocol": {"protocol"},
    "net": {"protocol", "net"},
    "host": {"protocol", "net", "host"},
    "client": {"protocol", "net", "client"},
    "onecard": {"onecard"},
}
#: the one way into the host from the client (start an embedded host for ``onecard play``)
CLIENT_TO_HOST = {"host.embedded"}
#: the one module the start-up check hands over to
ONECARD_TO_CLIENT = {"client.cli"}
#: third-party and standard modules the sans-I/O protocol package must not touch
PROTOCOL_FORBIDDEN = {"trio", "socket", "ssl", "click", "rich", "sqlite3", "zeroconf", "asyncio"}


def modules(root: Path = ROOT) -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            yield package, path


def imported(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every import and every ``importlib.import_module("...")``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value


def import_violations(root: Path = ROOT) -> list[str]:
    out = []
    for package, path in modules(root):
        where = path.relative_to(root)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, name in imported(tree):
            top = name.split(".")[0]
            if package == "protocol" and top in PROTOCOL_FORBIDDEN:
                out.append(f"{where}:{line}: the sans-I/O protocol package imports {name}")
            if top not in PACKAGES or top in ALLOWED[package]:
                continue
            if package == "client" and top == "host" and name in CLIENT_TO_HOST:
                continue
            if package == "onecard" and top == "client" and name in ONECARD_TO_CLIENT:
                continue
            out.append(f"{where}:{line}: {package}/ imports {name}")
    return out


def size_violations(root: Path = ROOT) -> list[str]:
    out = []
    for _, path in modules(root):
        where = path.relative_to(root)
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > MAX_MODULE_LINES:
            out.append(f"{where}: {lines} lines (at most {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    out.append(
                        f"{where}:{node.lineno}: {node.name}() is {length} lines "
                        f"(at most {MAX_FUNCTION_LINES})"
                    )
    return out


def test_no_package_imports_what_the_layout_forbids() -> None:
    assert import_violations() == []


def test_no_module_or_function_is_too_big() -> None:
    assert size_violations() == []


def test_the_checks_catch_what_they_forbid(tmp_path: Path) -> None:
    """The rules above pass only if they can fail: a tree that breaks each of them."""
    sources = {
        "protocol/bad.py": "import trio\n",
        "net/bad.py": "from host.table import Table\n",
        "host/bad.py": "import importlib\nimportlib.import_module('client.render')\n",
        "client/bad.py": "from host.server import serve_host\nfrom host.embedded import Setup\n",
        "onecard/bad.py": "from client.cli import main\nimport protocol\n",
        "net/worse.py": "from onecard.startup import main\n",
        "client/big.py": "def f() -> None:\n"
        + "    pass\n" * MAX_FUNCTION_LINES
        + "\n" * MAX_MODULE_LINES,
    }
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    assert import_violations(tmp_path) == [
        "protocol/bad.py:1: the sans-I/O protocol package imports trio",
        "net/bad.py:1: net/ imports host.table",
        "net/worse.py:1: net/ imports onecard.startup",
        "host/bad.py:2: host/ imports client.render",
        "client/bad.py:1: client/ imports host.server",
        "onecard/bad.py:2: onecard/ imports protocol",
    ]
    assert size_violations(tmp_path) == [
        f"client/big.py: {MAX_FUNCTION_LINES + MAX_MODULE_LINES + 1} lines (at most 600)",
        f"client/big.py:1: f() is {MAX_FUNCTION_LINES + 1} lines (at most 80)",
    ]


if __name__ == "__main__":
    problems = import_violations() + size_violations()
    print("\n".join(problems) or "the layout is as the rules say")
    sys.exit(1 if problems else 0)
