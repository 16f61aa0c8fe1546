"""client/cli.py: the ``onecard`` entry point; here, what happens when stdout's reader goes away
(``onecard play --watch | head -2``): the program ends with status 1 and says nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client import cli
from client.render import OutputClosed

ONECARD = [sys.executable, "-m", "client"]


def test_main_ends_quietly_when_the_output_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    def closed(*args: Any, **kwargs: Any) -> None:
        raise BaseExceptionGroup("nursery", [OutputClosed("the output was closed")])

    redirected: list[int] = []
    monkeypatch.setattr(cli, "cli", closed)
    monkeypatch.setattr(cli.os, "dup2", lambda fd, fd2: redirected.append(fd2))
    monkeypatch.setattr(cli.sys.stdout, "fileno", lambda: 1, raising=False)
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 1 and redirected == [1]


def test_main_lets_other_failures_through(monkeypatch: pytest.MonkeyPatch) -> None:
    def failed(*args: Any, **kwargs: Any) -> None:
        raise BaseExceptionGroup("nursery", [ValueError("a bug")])

    monkeypatch.setattr(cli, "cli", failed)
    with pytest.raises(BaseExceptionGroup):
        cli.main()


# a whole text-mode game is ~6 kB, less than a pipe holds: a small delay keeps it going for
# seconds after the first line, so our end of the pipe is closed while it still writes
@pytest.mark.parametrize("mode", [["--delay", "0.05"], ["--delay", "0", "--json"]])
def test_a_pipe_closed_by_its_reader_ends_the_client_quietly(
    mode: list[str], client_env: dict[str, str], tmp_path: Path
) -> None:
    """Before: a 40-line traceback in text mode, "Error: network error: Broken pipe" with
    ``--json``."""
    errors = tmp_path / "stderr"
    with errors.open("wb") as stderr:
        child = subprocess.Popen(
            [*ONECARD, "play", "--watch", *mode],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, env=client_env,
        )  # fmt: skip
    assert child.stdout is not None
    try:
        assert child.stdout.readline()  # like `| head -1`: read a line, then go away
        child.stdout.close()
        assert child.wait(timeout=60) == 1
    finally:
        child.kill()
    assert errors.read_text() == ""
