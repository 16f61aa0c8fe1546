"""client/join_cmd.py: option checks, the lobby, resuming a saved seat and pinning, without a
terminal (CliRunner, or the lobby driven with a fake session and scripted input)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from client import join_cmd
from client.join_cmd import join_command


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--seats", "3"], "--seats only apply to a new table: add --create GAME"),
        (["--bots", "1"], "--bots only apply to a new table: add --create GAME"),
        (["--option", "x=1"], "--option only apply to a new table: add --create GAME"),
        (["--seats", "3", "--bots", "1"], "--seats and --bots only apply"),
        (["--watch"], "--watch needs --table TABLE"),
        (["--table", "bad id!"], "'bad id!' is not a table id (1-64 of A-Z a-z 0-9 _ -)"),
        (["--table", "t1", "--create", "one"], "give only one"),
    ],
)
def test_options_that_would_be_ignored_are_usage_errors(
    args: list[str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("must not connect")

    monkeypatch.setattr(join_cmd, "run_sync", never)
    result = CliRunner().invoke(join_command, ["127.0.0.1:9", *args])
    assert result.exit_code == 2, result.output
    assert expected in " ".join(result.output.split())


def test_valid_combinations_reach_run_join(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, object]] = []
    monkeypatch.setattr(join_cmd, "run_sync", lambda fn, **kw: calls.append(kw))
    runner = CliRunner()
    for args in (
        [],
        ["--table", "t-1_A"],
        ["--table", "t1", "--watch"],
        ["--create", "one", "--seats", "3", "--bots", "1", "--option", "x=1"],
    ):
        result = runner.invoke(join_command, ["127.0.0.1:9", *args])
        assert result.exit_code == 0, result.output
    assert len(calls) == 4 and calls[3]["seats"] == 3
