"""The generated tables of ``spec/PROTOCOL.md``: messages, error codes and limits.

How it works: the spec marks each generated table with a pair of HTML comments, ``<!-- generated:
NAME ... -->`` and ``<!-- end generated: NAME -->``. :func:`render_spec` replaces what lies between
them with the table built from the code (the message registry :mod:`protocol.registry`,
:class:`~protocol.errors.ErrorCode` and its ``#:`` comments, the declared table of
:mod:`protocol.limits`), leaving everything else untouched. ``python -m protocol --write-spec``
rewrites the file; ``--check-spec`` (and a test) fail when the spec is stale.

Where the spec is: ``spec/`` in a source checkout (and the sdist); an installed wheel carries
the same files in ``protocol/spec/`` (pyproject's ``force-include``): :data:`SPEC_DIR` is the one
that exists, and ``python -m protocol --spec-dir`` prints it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from protocol import errors
from protocol.errors import ErrorCode
from protocol.limits import limits_table
from protocol.messages import spec_table
from protocol.registry import MESSAGE_TYPES

__all__ = [
    "GENERATED",
    "SPEC_DIR",
    "SPEC_PATH",
    "error_table",
    "message_table",
    "render_spec",
    "stale_blocks",
]


def _spec_dir() -> Path:
    here = Path(__file__).resolve().parent
    shipped = here / "spec"  # an installed wheel
    return shipped if (shipped / "PROTOCOL.md").is_file() else here.parent / "spec"


SPEC_DIR = _spec_dir()
"""The folder of ``PROTOCOL.md``, ``RULES.md``, ``CLIENT-JSON.md`` and ``vectors/``."""
SPEC_PATH = SPEC_DIR / "PROTOCOL.md"

_CODE_DOC_RE = re.compile(r'^    #: (?P<doc>.+)\n    (?P<name>[A-Z_]+) = "', re.MULTILINE)


def error_table() -> str:
    """The Markdown table of error codes, their meaning and whether they are fatal."""
    docs = {m["name"]: m["doc"] for m in _CODE_DOC_RE.finditer(Path(errors.__file__).read_text())}
    lines = ["| Code | Always fatal | Meaning |", "|---|---|---|"]
    for code in ErrorCode:
        fatal = "yes" if code.fatal else "no"
        lines.append(f"| `{code.value}` | {fatal} | {docs.get(code.name, '')} |")
    return "\n".join(lines) + "\n"


def message_table() -> str:
    """The Markdown table of every message type in the registry (section 9)."""
    return spec_table(MESSAGE_TYPES)


GENERATED: dict[str, Callable[[], str]] = {
    "errors": error_table,
    "limits": limits_table,
    "messages": message_table,
}
"""Block name in the spec to the function that renders it."""

_BLOCK_RE = re.compile(
    r"(?P<open><!-- generated: (?P<name>[a-z]+)\b[^>]*-->\n)(?P<body>.*?)"
    r"(?P<close><!-- end generated: (?P=name) -->)",
    re.DOTALL,
)


def render_spec(text: str) -> str:
    """``text`` with every generated block replaced by its current table."""

    def fill(match: re.Match[str]) -> str:
        render = GENERATED.get(match["name"])
        if render is None:
            return match[0]
        return match["open"] + render() + match["close"]

    return _BLOCK_RE.sub(fill, text)


def stale_blocks(text: str) -> list[str]:
    """Names of generated blocks that are missing from ``text`` or out of date."""
    found = {m["name"]: m["body"] for m in _BLOCK_RE.finditer(text)}
    return [name for name, render in GENERATED.items() if found.get(name) != render()]
