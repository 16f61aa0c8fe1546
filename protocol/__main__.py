"""``python -m protocol``: print or refresh the generated tables of ``spec/PROTOCOL.md``.

Usage::

    python -m protocol --spec-table     # print the message table (section 9)
    python -m protocol --write-spec     # rewrite the generated tables in spec/PROTOCOL.md
    python -m protocol --check-spec     # exit 1 if any generated table is stale
    python -m protocol --spec-dir       # print the folder holding the spec files

An installed wheel carries the spec in ``protocol/spec/`` (see :mod:`protocol.spec_tables`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from protocol.spec_tables import SPEC_DIR, SPEC_PATH, message_table, render_spec, stale_blocks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol", description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--spec-table", action="store_true", help="print the message table")
    group.add_argument("--write-spec", action="store_true", help="refresh the spec's tables")
    group.add_argument("--check-spec", action="store_true", help="fail if the spec is stale")
    group.add_argument("--spec-dir", action="store_true", help="print where the spec files are")
    parser.add_argument("--spec", type=Path, default=SPEC_PATH, help="path of PROTOCOL.md")
    args = parser.parse_args(argv)
    if args.spec_dir:
        print(SPEC_DIR)
        return 0
    if args.spec_table:
        sys.stdout.write(message_table())
        return 0
    text = args.spec.read_text(encoding="utf-8")
    if args.write_spec:
        args.spec.write_text(render_spec(text), encoding="utf-8")
        return 0
    stale = stale_blocks(text)
    if stale:
        print(f"{args.spec}: stale or missing generated tables: {', '.join(stale)}")
        print("regenerate with: python -m protocol --write-spec")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
