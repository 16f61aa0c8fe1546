"""What a player meets first: the README's opening screen and what ``make play`` installs.

``make -n`` (a dry run, in a folder holding only the Makefile and pyproject.toml, so no venv
exists yet) prints the commands each target would run, which shows what it installs without
installing anything.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: one terminal screen: what a player reads before scrolling
SCREEN = 24

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")


def dry_run(tmp_path: Path, target: str) -> str:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    done = subprocess.run(
        ["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    return done.stdout


def installs(commands: str) -> list[str]:
    """What each ``pip install`` in ``commands`` installs."""
    return re.findall(r"-m pip install [^\n]*?(-e \S+)", commands)


@needs_make
def test_make_play_installs_only_the_runtime(tmp_path: Path) -> None:
    """Before, ``make play`` installed the test and dev extras too (66 packages, 194 MB)."""
    commands = dry_run(tmp_path, "play")
    assert installs(commands) == ["-e ."], commands
    assert "-m onecard play" in commands


@needs_make
@pytest.mark.parametrize("target", ["test", "lint", "typecheck", "dist", "bench"])
def test_the_developers_targets_install_the_test_and_dev_extras(
    tmp_path: Path, target: str
) -> None:
    commands = dry_run(tmp_path, target)
    assert installs(commands) == ["-e '.[test,dev]'"], commands  # once: straight from the venv


def _installed(tmp_path: Path, *stamps: str) -> None:
    """As if the make rules of ``stamps`` had run (newer than pyproject.toml)."""
    (tmp_path / ".venv").mkdir(exist_ok=True)
    later = (tmp_path / "pyproject.toml").stat().st_mtime + 10
    for stamp in stamps:
        (tmp_path / ".venv" / stamp).touch()
        os.utime(tmp_path / ".venv" / stamp, (later, later))


@needs_make
def test_make_test_after_make_play_adds_the_extras_and_make_play_after_make_test_none(
    tmp_path: Path,
) -> None:
    """One clone, both targets: ``make play`` (runtime stamp only) then ``make test`` installs
    the test and dev extras; ``make test`` (both stamps) then ``make play`` installs nothing."""
    dry_run(tmp_path, "play")
    _installed(tmp_path, ".runtime-stamp")
    assert installs(dry_run(tmp_path, "play")) == []
    assert installs(dry_run(tmp_path, "test")) == ["-e '.[test,dev]'"]
    _installed(tmp_path, ".runtime-stamp", ".installed-stamp")
    assert installs(dry_run(tmp_path, "play")) == []
    assert installs(dry_run(tmp_path, "test")) == []


def test_readme_opens_with_how_to_play() -> None:
    """Before, the README's first screen was for developers: pytest workers, lint, CI."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    first = "\n".join(lines[:SCREEN])
    for said in ("make play", "make test", "onecard play", "onecard join", "--lan"):
        assert said in first, said
    for developers in ("pytest", "ruff", "mypy", "lint", ".ci/run", "[test,dev]", "-n auto"):
        assert developers not in first, developers
    commands = "\n".join(lines[:12])
    assert "make play" in commands and "make test" in commands  # the two commands, at the top
