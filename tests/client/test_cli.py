"""client/cli.py: the ``onecard`` entry point. What happens when stdout's reader goes away
(``onecard play --watch | head -2``: the program ends with status 1 and says nothing); what
``onecard --help`` imports (only what it prints); -v/-q and environment variables everywhere."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

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
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=client_env,
        )
    assert child.stdout is not None
    try:
        assert child.stdout.readline()  # like `| head -1`: read a line, then go away
        child.stdout.close()
        assert child.wait(timeout=60) == 1
    finally:
        child.kill()
    assert errors.read_text() == ""


# --------------------------------------------------------------------------- lazy subcommands

#: project modules ``onecard --help`` may load: the start-up check, the packages it loads by
#: path (their ``__init__`` only), the group and the exit statuses its epilog prints
HELP_MODULES = {
    "onecard",
    "onecard.startup",
    "protocol",
    "net",
    "host",
    "client",
    "client.cli",
    "protocol.exit_codes",
}


def test_help_imports_only_what_it_prints() -> None:
    """Before, ``client/cli.py`` imported every subcommand: trio, rich, cryptography, the host
    and the message registry, 0.5 s for ``onecard --help`` (bench/cli_startup.py times it)."""
    code = (
        "import sys\n"
        "sys.argv = ['onecard', '--help']\n"
        "from onecard.startup import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(' '.join(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(result.stderr.split())
    assert "Commands:" in result.stdout and "Exit status:" in result.stdout
    ours = {
        m for m in loaded if m.split(".")[0] in ("onecard", "protocol", "net", "host", "client")
    }
    assert ours == HELP_MODULES
    heavy = {"trio", "rich", "cryptography", "msgpack", "zeroconf", "platformdirs", "logging"}
    assert heavy & loaded == set()


def test_the_registry_says_what_each_command_says_of_itself() -> None:
    for name, entry in cli.COMMANDS.items():
        command = cli.cli.get_command(click.Context(cli.cli), name)
        assert command is not None and command.short_help == entry.short_help, name


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_every_command_takes_v_and_q_and_names_its_environment_variables(name: str) -> None:
    result = CliRunner().invoke(cli.cli, [name, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "-v, --verbose" in result.output and "-q, --quiet" in result.output
    assert "[env var: ONECARD_VERBOSE]" in result.output
    assert result.output.count("env var: ONECARD_") >= 3


def test_the_group_help_documents_the_environment() -> None:
    result = CliRunner().invoke(cli.cli, ["--help"], terminal_width=200)
    assert "ONECARD_<COMMAND>_<NAME>" in result.output and "ONECARD_STATE_DIR" in result.output


def test_an_environment_variable_sets_an_option(tmp_path: Path) -> None:
    env = {"ONECARD_PROOFS_AS_JSON": "1", "ONECARD_STATE_DIR": str(tmp_path)}
    result = CliRunner().invoke(cli.cli, ["proofs"], env=env)
    assert result.exit_code == 0 and json.loads(result.output)["tables"] == []


@pytest.mark.parametrize(("flags", "shown"), [([], False), (["-v"], True), (["-v", "-q"], False)])
def test_v_logs_what_a_command_does_and_q_takes_it_back(
    flags: list[str], shown: bool, tmp_path: Path
) -> None:
    table = tmp_path / "proofs" / "tgone"
    table.mkdir(parents=True)
    (table / "tgone-hand1.json").write_text("{}")
    args = ["proofs", "--clean", "--keep-proofs", "0", "--state-dir", str(tmp_path), *flags]
    result = subprocess.run([*ONECARD, *args], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert ("INFO:client.proofs:removed the proofs of 1 tables" in result.stderr) is shown


@pytest.mark.parametrize("variable", ["ONECARD_PLAY_ASCII", "ONECARD_PLAY_ASCII_ONLY"])
def test_the_ascii_flag_reads_its_variable_by_the_flags_name(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, ``ONECARD_PLAY_ASCII=1`` (README's pattern) was ignored: only the parameter's
    name, ``ONECARD_PLAY_ASCII_ONLY``, was read."""
    monkeypatch.setenv(variable, "1")
    play = cli.cli.get_command(click.Context(cli.cli), "play")
    assert play is not None
    ctx = play.make_context("play", [], auto_envvar_prefix="ONECARD_PLAY")
    assert ctx.params["ascii_only"] is True
    monkeypatch.delenv(variable)
    ctx = play.make_context("play", [], auto_envvar_prefix="ONECARD_PLAY")
    assert ctx.params["ascii_only"] is False


def test_no_host_found_on_the_lan_exits_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, it exited 1 where README says 69 (host unavailable)."""
    from client import join_cmd

    async def nobody(timeout: float) -> list[Any]:
        return []

    monkeypatch.setattr(join_cmd, "browse", nobody)
    result = CliRunner().invoke(cli.cli, ["join", "--timeout", "0.2"])
    assert result.exit_code == 69 and "no hosts found on the LAN" in result.output
