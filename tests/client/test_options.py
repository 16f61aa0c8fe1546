"""client/options.py: the connection options are the same on every command that connects."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from client.join_cmd import join_command
from client.options import connection_options
from client.records_cmd import records_command


@pytest.mark.parametrize("command", [join_command, records_command])
def test_connecting_commands_offer_both_options(command: click.Command) -> None:
    names = {opt for p in command.params for opt in p.opts}
    assert {"--insecure", "--known-hosts"} <= names


def test_the_options_reach_the_command_and_read_the_environment(tmp_path: Path) -> None:
    seen: dict[str, object] = {}

    @click.command()
    @connection_options
    def probe(insecure: bool, known_hosts: Path | None) -> None:
        seen.update(insecure=insecure, known_hosts=known_hosts)

    runner = CliRunner()
    assert runner.invoke(probe, []).exit_code == 0
    assert seen == {"insecure": False, "known_hosts": None}
    pins = tmp_path / "pins"
    result = runner.invoke(probe, ["--insecure"], env={"ONECARD_KNOWN_HOSTS": str(pins)})
    assert result.exit_code == 0, result.output
    assert seen == {"insecure": True, "known_hosts": pins}
    result = runner.invoke(probe, ["--known-hosts", str(tmp_path)])
    assert result.exit_code != 0 and "is a directory" in result.output
