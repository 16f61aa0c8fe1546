"""``onecard host`` and ``onecard bot``: option parsing, errors, and a bot process playing."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner

from client.cli import cli
from host.bots.thinking import ThinkingLimits
from host.server.lobby import MAX_TABLES, BotLimits
from host.server.server import HostConfig, HostInfo, serve_host
from host.tools.cli import run_host


def test_host_help_documents_every_option() -> None:
    result = CliRunner().invoke(cli, ["host", "--help"])
    assert result.exit_code == 0
    for option in (
        "--bind",
        "--port",
        "--data-dir",
        "--name",
        "--insecure",
        "--turn-timer",
        "--grace",
        "--no-advertise",
        "--bot-think",
        "--max-connections",
        "--max-connections-per-address",
        "--max-tables",
        "--bot-workers",
        "--bot-searches",
        "--bot-wait",
        "--max-bots-per-client",
        "--max-hard-bots-per-client",
    ):
        assert option in result.output
    assert "default: 7531" in result.output


def test_host_passes_the_connection_caps_to_its_config(monkeypatch: Any, tmp_path: Path) -> None:
    seen: list[HostConfig] = []
    monkeypatch.setattr("host.tools.cli.trio.run", lambda fn: seen.append(fn.args[0]))
    args = ["host", "--data-dir", str(tmp_path), "--max-connections", "9"]
    result = CliRunner().invoke(cli, [*args, "--max-connections-per-address", "3"])
    assert result.exit_code == 0, result.output
    assert (seen[0].max_connections, seen[0].max_connections_per_address) == (9, 3)
    assert seen[0].max_tables == MAX_TABLES
    result = CliRunner().invoke(cli, [*args, "--max-connections-per-address", "0"])
    assert result.exit_code == 2 and "--max-connections-per-address" in result.output


def test_host_passes_how_bots_think_and_how_many_a_client_may_seat(
    monkeypatch: Any, tmp_path: Path
) -> None:
    seen: list[HostConfig] = []
    monkeypatch.setattr("host.tools.cli.trio.run", lambda fn: seen.append(fn.args[0]))
    base = ["host", "--data-dir", str(tmp_path)]
    result = CliRunner().invoke(cli, base)
    assert result.exit_code == 0, result.output
    assert seen[0].thinking == ThinkingLimits()  # one worker per core, 4 searches each
    assert seen[0].bot_limits == BotLimits()
    more = ["--bot-workers", "3", "--bot-searches", "7", "--bot-wait", "0.5"]
    more += ["--max-bots-per-client", "10", "--max-hard-bots-per-client", "1"]
    result = CliRunner().invoke(cli, [*base, *more])
    assert result.exit_code == 0, result.output
    assert seen[1].thinking == ThinkingLimits(workers=3, searches=7, wait=0.5)
    assert seen[1].thinking.cap == 7 and seen[1].thinking.pool == 3
    assert seen[1].bot_limits == BotLimits(per_client=10, hard_per_client=1)
    assert seen[1].bot_limits.hard_per_address == 2
    for bad in (["--bot-workers", "-1"], ["--bot-wait", "x"], ["--max-bots-per-client", "-2"]):
        result = CliRunner().invoke(cli, [*base, *bad])
        assert result.exit_code == 2 and bad[0] in result.output


async def test_an_insecure_host_prints_no_tls_fingerprint(
    host_config: HostConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    assert host_config.insecure
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_host, host_config)
        out = ""
        with trio.fail_after(60):
            while "data directory" not in out:
                await trio.sleep(0.05)
                out += capsys.readouterr().out
        os.kill(os.getpid(), signal.SIGINT)  # run_host's own way out: a graceful shutdown
    assert "no TLS (--insecure)" in out and "TLS fingerprint" not in out
    assert "fair-dealing key: " in out
    assert f"host name: {host_config.name} (players see it" in out  # what the LAN list shows


async def test_an_ipv6_address_is_printed_in_brackets(
    host_config: HostConfig, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: "listening on ::1:7531", which no client can parse (nor fe80::...:7531)."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_host, dataclasses.replace(host_config, bind="::1"))
        out = ""
        with trio.fail_after(60):
            while "data directory" not in out:
                await trio.sleep(0.05)
                out += capsys.readouterr().out
        os.kill(os.getpid(), signal.SIGINT)
    assert re.search(r"listening on \[::1\]:\d+ ", out), out


def test_bot_needs_exactly_one_of_table_and_create() -> None:
    result = CliRunner().invoke(cli, ["bot", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert "exactly one of --table" in result.output


def test_bot_takes_a_level_and_the_older_kind_names() -> None:
    for args in (["--level", "hard"], ["--kind", "random"], ["--level", "Easy"]):
        result = CliRunner().invoke(cli, ["bot", "127.0.0.1:1", *args])
        assert "exactly one of --table" in result.output  # the level itself was taken
    result = CliRunner().invoke(cli, ["bot", "127.0.0.1:1", "--level", "expert", "--create", "x"])
    assert result.exit_code == 2
    assert "easy" in result.output and "hard" in result.output
    assert "--level [easy|normal|hard]" in CliRunner().invoke(cli, ["play", "--help"]).output


def test_bot_reports_an_unreachable_host_cleanly() -> None:
    result = CliRunner().invoke(cli, ["bot", "127.0.0.1:1", "--create", "one", "--insecure"])
    assert result.exit_code == 1
    assert "cannot reach" in result.output


async def test_bot_command_plays_a_game_to_the_end_and_exits_0(host: HostInfo) -> None:
    cmd = [
        sys.executable,
        "-c",
        "from client.cli import main; main()",
        "bot",
        f"127.0.0.1:{host.port}",
        "--count",
        "2",
        "--create",
        "black-jack",
        "--insecure",
        "--think",
        "0",
    ]
    with trio.fail_after(60):
        done: Any = await trio.run_process(
            cmd, capture_stdout=True, capture_stderr=True, check=False
        )
    assert done.returncode == 0, done.stderr.decode()
    assert re.fullmatch(
        r"game over: seat \d \(bot\d-[0-9a-f]{4}\) went out\n", done.stdout.decode()
    )
    # before, the id of the table it created was never said: nobody could join or watch it
    assert re.search(r"created table t\w+ \(black-jack, 2 seats\)", done.stderr.decode())


def test_host_rejects_a_name_clients_could_not_be_sent(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["host", "--data-dir", str(tmp_path), "--port", "0", "--name", "x" * 40]
    )
    assert result.exit_code == 1
    assert "host name must be 1-32" in result.output


async def test_bot_reports_a_refused_table_cleanly(host: HostInfo) -> None:
    cmd = [
        sys.executable,
        "-c",
        "from client.cli import main; main()",
        "bot",
        f"127.0.0.1:{host.port}",
        "--count",
        "2",
        "--table",
        "nope",
        "--insecure",
    ]
    with trio.fail_after(60):
        done: Any = await trio.run_process(
            cmd, capture_stdout=True, capture_stderr=True, check=False
        )
    assert done.returncode == 1
    assert b"the host refused: not_found" in done.stderr


async def test_bot_command_over_tls_with_a_pinned_fingerprint(
    nursery: trio.Nursery, host_config: HostConfig
) -> None:
    info: HostInfo = await nursery.start(serve_host, replace(host_config, insecure=False))
    base = [
        sys.executable,
        "-c",
        "from client.cli import main; main()",
        "bot",
        f"127.0.0.1:{info.port}",
        "--count",
        "2",
        "--create",
        "black-jack",
        "--think",
        "0",
    ]
    with trio.fail_after(60):
        done: Any = await trio.run_process(
            [*base, "--fingerprint", info.fingerprint],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr.decode()
    wrong = "SHA256:" + ":".join(["ab"] * 32)
    with trio.fail_after(60):
        refused: Any = await trio.run_process(
            [*base, "--fingerprint", wrong],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
    assert refused.returncode == 1
    assert b"does not match" in refused.stderr


async def test_a_second_host_on_the_same_data_dir_is_refused_until_the_first_stops(
    nursery: trio.Nursery, host_config: HostConfig
) -> None:
    first: HostInfo = await nursery.start(serve_host, host_config)
    data = str(host_config.data_dir)
    cmd = [
        sys.executable,
        "-c",
        "from client.cli import main; main()",
        "host",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        data,
        "--insecure",
        "--no-advertise",
    ]
    with trio.fail_after(60):
        done: Any = await trio.run_process(
            cmd, capture_stdout=True, capture_stderr=True, check=False
        )
    assert done.returncode == 1
    err = done.stderr.decode()
    assert f"data dir {data} is in use by another host (pid " in err
    assert "Traceback" not in err
    await first.host.shutdown()
    again: HostInfo = await nursery.start(serve_host, host_config)
    assert again.port


def test_host_names_the_address_it_cannot_listen_on(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["host", "--data-dir", str(tmp_path), "--bind", "999.1.1.1", "--port", "47313"]
    )
    assert result.exit_code == 1
    assert "cannot listen on 999.1.1.1:47313: " in result.output


def test_a_host_that_cannot_listen_names_the_port_and_writes_no_keys(tmp_path: Path) -> None:
    """Before, a taken port failed after the keys and the database were written."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            cli, ["host", "--data-dir", str(tmp_path), "--bind", "127.0.0.1", "--port", str(port)]
        )
    assert result.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}: " in result.output
    assert not [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")]


def test_host_says_when_its_data_dir_cannot_be_made(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    bad = tmp_path / "file" / "d"
    result = CliRunner().invoke(cli, ["host", "--data-dir", str(bad), "--port", "0"])
    assert result.exit_code == 1
    assert f"cannot use data dir {bad}: " in result.output
    assert "listen" not in result.output
