"""Print how big the code is: the ten largest modules of the five packages and their ten longest
functions, in lines. ``make lint`` runs it after the checks; it is a number to watch, never a
failure (ruff's complexity rules, C901 and PLR0912/PLR0915, are what fails a function).

Usage: ``python .ci/sizes.py [COUNT]``. Standard library only.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "net", "host", "client", "onecard")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    modules: list[tuple[int, str]] = []
    functions: list[tuple[int, str]] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            modules.append((text.count("\n"), where))
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    functions.append((length, f"{where}:{node.lineno} {node.name}()"))
    total = sum(lines for lines, _ in modules)
    print(f"sizes: {len(modules)} modules, {total} lines in {', '.join(PACKAGES)}")
    print(f"the {count} largest modules (lines):")
    for lines, where in sorted(modules, reverse=True)[:count]:
        print(f"  {lines:5d}  {where}")
    print(f"the {count} longest functions (lines):")
    for lines, where in sorted(functions, reverse=True)[:count]:
        print(f"  {lines:5d}  {where}")


if __name__ == "__main__":
    main()
