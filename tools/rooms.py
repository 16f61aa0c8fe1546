"""Move `host/` into rooms (issue 27 step 5): one re-playable script, deleted after use.

Run from the repository root on a clean tree: ``python tools/rooms.py`` (``--check`` only says
what it would do). It (1) ``git mv``s every flat host module into its room, (2) rewrites every
dotted module path (``host.table_timers`` -> ``host.table.timers``), every ``from host import
x`` and every file path (``host/table_timers.py``) in all tracked text files, then runs ruff's
import sorter and formatter on the Python files it changed. It is idempotent: on a tree already
moved, or one that has since gained imports of the old paths, it moves what is left and
rewrites what is old, nothing else. It fails loudly when a module it expects is in neither its
old nor its new place.

Three old modules share their name with a new room (``host.table``, ``host.server``,
``host.bots``): an old path is one not followed by the name of a module of that room, so
``host.table.Table`` becomes ``host.table.table.Table`` and ``host.table.runner`` stays.
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

#: old dotted module -> new dotted module (the rooms: table, server, bots, storage, tools)
MOVES: dict[str, str] = {
    # the table core: one table's seats, game runner, timers, views and restore
    "host.table": "host.table.table",
    "host.runner": "host.table.runner",
    "host.seat": "host.table.seats",
    "host.seating": "host.table.seating",
    "host.table_timers": "host.table.timers",
    "host.table_clock": "host.table.clock",
    "host.table_restore": "host.table.restore",
    "host.table_views": "host.table.views",
    "host.dealing": "host.table.dealing",
    "host.chat": "host.table.chat",
    "host.cheats": "host.table.cheats",
    # the server: listening, connections, admission, identity, the lobby of tables
    "host.server": "host.server.server",
    "host.connection": "host.server.connection",
    "host.admission": "host.server.admission",
    "host.identity": "host.server.identity",
    "host.lobby": "host.server.lobby",
    "host.gc_tuning": "host.server.gc_tuning",
    # the bots: the seat bots, their policy, the thinking pool and the searching AI
    "host.bots": "host.bots.bots",
    "host.policy": "host.bots.policy",
    "host.thinking": "host.bots.thinking",
    "host.ai": "host.bots.ai",
    # storage: the data dir, its file modes, the journal database and the record files
    "host.store": "host.storage.store",
    "host.compaction": "host.storage.compaction",
    "host.record_files": "host.storage.record_files",
    "host.datadir": "host.storage.datadir",
    "host.filemodes": "host.storage.filemodes",
    # tools: the host command, the embedded host, replays and scenarios
    "host.cli": "host.tools.cli",
    "host.embedded": "host.tools.embedded",
    "host.replay_cmd": "host.tools.replay_cmd",
    "host.scenario": "host.tools.scenario",
    "host.scenario_file": "host.tools.scenario_file",
}

#: one-line docstrings of the new packages
ROOMS: dict[str, str] = {
    "table": "One table: its seats, game runner, timers, views, chat and restore after a restart.",
    "server": "The server: listening, connections, admission, host identity and the lobby.",
    "bots": "The host's bots: seat bots, their pacing policy, the thinking pool, the search AI.",
    "storage": "What the host keeps on disk: the data dir, the journal database, record files.",
    "tools": "The host's commands: `onecard host`, the embedded host, replays and scenarios.",
}

#: what stays at host's top: the modules every room uses
STAY = {"__init__", "logs", "failures", "ratelimit", "py"}

#: files never rewritten: this script (it names the old paths on purpose)
SKIP = {"tools/rooms.py"}
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml", ".json", ".mjs"}
TEXT_NAMES = {"Makefile", "run", ".gitignore"}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def as_path(module: str, package: bool) -> Path:
    base = Path(*module.split("."))
    return base if package else base.with_suffix(".py")


def is_package(module: str) -> bool:
    return module == "host.ai"


def new_room_modules() -> dict[str, set[str]]:
    """For each room that shares its name with an old module: the names of the room's modules."""
    rooms: dict[str, set[str]] = {}
    for new in MOVES.values():
        room, _, rest = new.rpartition(".")
        rooms.setdefault(room, set()).add(rest)
    return {room: names for room, names in rooms.items() if room in MOVES}


ROOM_MODULES = new_room_modules()


def move_files(dry: bool) -> int:
    """`git mv` each module still in its old place; fail if one is in neither place."""
    moved = 0
    for old, new in sorted(MOVES.items(), key=lambda kv: -len(kv[0])):
        pkg = is_package(old)
        src, dst = as_path(old, pkg), as_path(new, pkg)
        if src.exists():
            if dst.exists():
                sys.exit(f"rooms: both {src} and {dst} exist; resolve by hand")
            print(f"git mv {src} {dst}")
            if not dry:
                dst.parent.mkdir(parents=True, exist_ok=True)
                git("mv", str(src), str(dst))
            moved += 1
        elif not dst.exists():
            sys.exit(f"rooms: {old} is in neither {src} nor {dst}")
    for room, doc in ROOMS.items():
        init = Path("host", room, "__init__.py")
        if not init.exists():
            print(f"create {init}")
            if not dry:
                init.write_text(f'"""{doc}"""\n')
                git("add", str(init))
    return moved


def module_pattern(old: str, rooms: dict[str, set[str]]) -> re.Pattern[str]:
    """A dotted old path, whole: not inside a longer name, not already a room's module."""
    tail = r"(?![\w\x00])"  # \x00: KEEP
    if old in rooms:
        names = "|".join(sorted(rooms[old], key=len, reverse=True))
        tail += rf"(?!\.(?:{names})\b)"
    return re.compile(rf"(?<![\w.]){re.escape(old)}{tail}")


def path_pattern(old: str) -> tuple[re.Pattern[str], str]:
    new = MOVES[old]
    if is_package(old):
        src, dst = "/".join(old.split(".")), "/".join(new.split("."))
        return re.compile(rf"(?<![\w/.]){re.escape(src)}(?![\w])"), dst
    src, dst = "/".join(old.split(".")) + ".py", "/".join(new.split(".")) + ".py"
    return re.compile(rf"(?<![\w/.]){re.escape(src)}(?![\w])"), dst


FROM_HOST = re.compile(r"^(?P<indent>[ \t]*)from host import (?P<names>[^\n(]+?)[ \t]*$", re.M)


def split_from_host(match: re.Match[str]) -> str:
    """`from host import policy, cheats as c` -> one import per moved module from its room."""
    indent, out, kept = match["indent"], [], []
    for item in match["names"].split(","):
        name, _, alias = (part.strip() for part in item.strip().partition(" as "))
        old = f"host.{name}"
        if old not in MOVES:
            kept.append(item.strip())
            continue
        room, _, mod = MOVES[old].rpartition(".")
        local = alias or name
        out.append(f"{indent}from {room} import {mod}" + (f" as {local}" if local != mod else ""))
    if kept:
        out.insert(0, f"{indent}from host import {', '.join(kept)}")
    return "\n".join(out)


def check_parenthesized(path: Path, text: str) -> None:
    """`from host import (...)` spans lines: not rewritten here, so refuse it loudly."""
    if re.search(r"^[ \t]*from host import \(", text, re.M):
        sys.exit(f"rooms: {path} has `from host import (...)`: split it into lines, then re-run")


FROM_ROOM = re.compile(
    r"\bfrom (?P<room>host\.(?:table|server|bots)) import (?P<names>\([^)]*\)|[^\n]*)"
)
#: marks `from host.table import runner` (a room's module, already new) while the paths change
KEEP = "\x00"


def keep_room_imports(match: re.Match[str]) -> str:
    """`from host.table import runner` is new: keep it; `from host.table import Table` is old."""
    modules = ROOM_MODULES[match["room"]]
    items = [i.strip() for i in match["names"].strip("()").replace("\n", " ").split(",")]
    names = {i.partition(" as ")[0].strip() for i in items if i.strip()}
    if names <= modules:
        return match[0].replace(" import ", f"{KEEP} import ", 1)
    if names & modules:
        sys.exit(f"rooms: `{match[0]}` mixes modules of {match['room']} with names; split it")
    return match[0]


#: the contract on the rooms names them bare (`"host.table"`), as an old path would be: kept
ROOMS_CONTRACT = re.compile(r'^id = "host-rooms"$.*?(?=^\[|\Z)', re.M | re.S)


def rewrite(text: str, patterns: list[tuple[re.Pattern[str], str]]) -> str:
    contract = ROOMS_CONTRACT.search(text)
    if contract:
        head, tail = text[: contract.start()], text[contract.end() :]
        return rewrite(head, patterns) + contract[0] + rewrite(tail, patterns)
    text = FROM_ROOM.sub(keep_room_imports, text)
    text = FROM_HOST.sub(split_from_host, text)
    text = FROM_ROOM.sub(keep_room_imports, text)
    for pattern, new in patterns:
        text = pattern.sub(new, text)
    return text.replace(f"{KEEP} import ", " import ")


LIMIT = 100  #: ruff's line-length
LONE_STRING = re.compile(r'^(?P<indent>\s*)"(?P<body>[^"\\]*)"(?P<end>,?)$')


def docstring_lines(text: str) -> set[int]:
    """The (0-based) lines inside triple-quoted strings."""
    inside: set[int] = set()
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    for token in tokens:
        if token.type == tokenize.STRING and token.string.endswith(('"""', "'''")):
            inside.update(range(token.start[0] - 1, token.end[0]))
    return inside


def cut(line: str, after: int) -> int:
    """Where to break a too-long line: its last space before the limit, after column `after`."""
    at = line.rfind(" ", after + 1, LIMIT + 1)
    if at <= after:
        sys.exit(f"rooms: cannot wrap this line, wrap it by hand: {line!r}")
    return at


def wrap_long_lines(old: str, new: str) -> str:
    """Break the lines the longer paths pushed over the limit (docstrings, comments, strings);
    the words cut off a docstring or comment line flow into its next line when it continues."""
    before = set(old.splitlines())
    docs = docstring_lines(new)
    lines = new.splitlines()
    out: list[str] = []
    carry: tuple[str, str] | None = None  # (prefix, words) cut off the line before
    for number, given in enumerate(lines):
        line = given
        if carry is not None:
            prefix, words = carry
            rest = line[len(prefix) :]
            same_text = prefix.lstrip().startswith("#") or number in docs
            if same_text and line.startswith(prefix) and rest[:1].isalnum():
                line = prefix + words + " " + rest
            else:
                out.append(prefix + words)
            carry = None
        if len(line) <= LIMIT or line in before:
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip())
        lone = LONE_STRING.match(line)
        if line.lstrip().startswith("#"):
            prefix = line[: indent + line[indent:].index(" ") + 1]
            at = cut(line, len(prefix))
            out.append(line[:at])
            carry = (prefix, line[at + 1 :])
        elif lone:
            at = cut(line, indent + 1)
            out += [line[: at + 1] + '"', line[:indent] + '"' + line[at + 1 :]]
        elif number in docs:
            at = cut(line, indent + 3)
            out.append(line[:at])
            carry = (line[:indent], line[at + 1 :])
        else:
            out.append(line)  # code: ruff format wraps it
    if carry is not None:
        out.append(carry[0] + carry[1])
    return "\n".join(out) + ("\n" if new.endswith("\n") else "")


def tracked_text_files() -> list[Path]:
    files = []
    for name in git("ls-files").splitlines():
        path = Path(name)
        if name in SKIP or not path.is_file():
            continue
        if path.suffix in TEXT_SUFFIXES or path.name in TEXT_NAMES:
            files.append(path)
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="list the changes, make none")
    args = parser.parse_args()
    if not Path("host/games").is_dir():
        sys.exit("rooms: run me from the repository root")
    moved = move_files(args.check)
    rooms = ROOM_MODULES
    patterns: list[tuple[re.Pattern[str], str]] = []
    for old in sorted(MOVES, key=len, reverse=True):  # longest names first
        patterns.append((module_pattern(old, rooms), MOVES[old]))
        patterns.append(path_pattern(old))
    changed: list[Path] = []
    rewritten: dict[Path, str] = {}
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if path.suffix == ".py":
            check_parenthesized(path, text)
        new = rewrite(text, patterns)
        if path.suffix == ".py" and new != text:
            new = wrap_long_lines(text, new)
        if new != text:
            changed.append(path)
            rewritten[path] = new
    for path, new in rewritten.items():  # all or nothing: every file is rewritten in memory first
        if not args.check:
            path.write_text(new, encoding="utf-8")
    for path in changed:
        print(f"rewrote {path}")
    python = [str(p) for p in changed if p.suffix == ".py"] + [
        str(Path("host", room, "__init__.py")) for room in ROOMS
    ]
    if python and not args.check:
        ruff = [sys.executable, "-m", "ruff"]
        subprocess.run([*ruff, "check", "--select", "I", "--fix", "--quiet", *python], check=True)
        subprocess.run([*ruff, "format", "--quiet", *python], check=True)
    print(f"rooms: {moved} modules moved, {len(changed)} files rewritten")
    stray = sorted(
        str(path)
        for path in [*Path("host").glob("*.py"), *Path("host").glob("*/")]
        if path.stem not in STAY and path.name not in {"games", "__pycache__", *ROOMS}
    )
    if stray and not args.check:
        sys.exit(f"rooms: give these a room in MOVES, then re-run: {', '.join(stray)}")


if __name__ == "__main__":
    main()
