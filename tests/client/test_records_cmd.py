"""``onecard records`` as a subprocess against a real loopback host where bots played a game: the
records it saves are accepted by ``onecard verify``; listing, one hand, a missing hand, an unknown
table, a pinned deal key that does not match, ``--json`` and bad arguments."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from client.cli import cli
from client.records_cmd import records_listed, run_records
from host.server.server import HostInfo
from net.session import Disconnected
from protocol.exit_codes import ExitCode

Run = Callable[..., Awaitable[tuple[int, str, str]]]


@pytest.fixture
def onecard(client_env: dict[str, str]) -> Run:
    async def run(*args: str) -> tuple[int, str, str]:
        result = await trio.run_process(
            [sys.executable, "-m", "client", *args],
            capture_stdout=True,
            capture_stderr=True,
            env=client_env,
            check=False,
        )
        return result.returncode, result.stdout.decode(), result.stderr.decode()

    return run


async def test_fetches_every_record_and_verify_accepts_them(
    played: tuple[HostInfo, str], onecard: Run, tmp_path: Path
) -> None:
    info, table = played
    hands = sorted(
        int(p.name.removesuffix(".json.xz").rsplit("-hand", 1)[1])
        for p in (tmp_path / "host" / "records").glob(f"{table}-hand*.json.xz")
    )
    assert hands
    out = tmp_path / "out"
    code, stdout, stderr = await onecard(
        "records", f"127.0.0.1:{info.port}", table, "--out", str(out)
    )
    assert code == 0, stderr
    files = [out / table / f"{table}-hand{h}-record.json" for h in hands]
    assert stdout.splitlines() == [f"record saved: {f} (valid)" for f in files]
    assert f"fingerprint {info.fingerprint} pinned on first use" in stderr
    assert info.fingerprint in (tmp_path / "known_hosts").read_text()
    verified = CliRunner().invoke(cli, ["verify", *map(str, files)])
    assert verified.exit_code == 0, verified.output
    assert all(": valid: table " in line for line in verified.output.splitlines())


async def test_list_one_hand_and_a_missing_hand(
    played: tuple[HostInfo, str], onecard: Run, tmp_path: Path
) -> None:
    info, table = played
    address = f"127.0.0.1:{info.port}"
    code, stdout, _ = await onecard("records", address, table, "--list")
    assert code == 0 and stdout == f"table {table}: 1 hand record (hand 1)\n"
    code, stdout, _ = await onecard("records", address, table, "--list", "--json")
    listed = json.loads(stdout)
    assert code == 0 and listed["table"] == table and listed["hands"][0] == 1

    code, stdout, _ = await onecard("records", address, table, "1", "9999")  # default: proofs dir
    saved = tmp_path / "state" / "proofs" / table / f"{table}-hand1-record.json"
    assert code == ExitCode.UNAVAILABLE  # none invalid, one not fetched
    assert stdout.splitlines() == [
        f"record saved: {saved} (valid)",
        f"record of hand 9999 not saved: the host offers no record of it: no record of hand 9999 "
        f"at table {table!r} (not_found)",
    ]


async def test_json_output(played: tuple[HostInfo, str], onecard: Run, tmp_path: Path) -> None:
    info, table = played
    out = tmp_path / "out"
    address = f"127.0.0.1:{info.port}"
    code, stdout, _ = await onecard("records", address, table, "1", "--json", "--out", str(out))
    (result,) = json.loads(stdout)
    assert code == 0
    assert result["status"] == "valid" and result["ok"] is True and result["hand_no"] == 1
    assert result["file"] == str(out / table / f"{table}-hand1-record.json")
    assert result["fingerprint"] in result["message"]


async def test_a_record_signed_by_another_key_than_the_pinned_one_is_invalid(
    played: tuple[HostInfo, str], onecard: Run, tmp_path: Path
) -> None:
    info, table = played
    key = f"127.0.0.1:{info.port}"
    (tmp_path / "known_hosts").write_text(f"{key} {info.fingerprint}\n{key}#deal-key {'ab' * 32}\n")
    code, stdout, _ = await onecard("records", key, table, "1", "--out", str(tmp_path / "out"))
    assert code == 1
    assert "(INVALID: signed by key " in stdout and ", not by the host's deal key " in stdout


async def test_a_deal_key_left_from_a_host_whose_certificate_pin_was_removed_is_ignored(
    played: tuple[HostInfo, str], onecard: Run, tmp_path: Path
) -> None:
    # the host changed: its user removed the certificate's line as the warning says, but the
    # old deal key's line stayed; the certificate is pinned anew, and the stale key with it
    info, table = played
    key = f"127.0.0.1:{info.port}"
    (tmp_path / "known_hosts").write_text(f"{key}#deal-key {'ab' * 32}\n")
    code, stdout, _ = await onecard("records", key, table, "1", "--out", str(tmp_path / "out"))
    assert code == 0 and "(valid)" in stdout
    assert "#deal-key" not in (tmp_path / "known_hosts").read_text()  # dropped, not skipped
    code, stdout, _ = await onecard("records", key, table, "1", "--out", str(tmp_path / "out"))
    assert code == 0 and "(valid)" in stdout  # the next run too (a review found it failing)


async def test_insecure_host(
    start_host: Callable[..., Awaitable[HostInfo]],
    play_a_game: Callable[[HostInfo], Awaitable[str]],
    onecard: Run,
    tmp_path: Path,
) -> None:
    info = await start_host(insecure=True)
    table = await play_a_game(info)
    out = tmp_path / "out"
    address = f"127.0.0.1:{info.port}"
    code, stdout, _ = await onecard("records", address, table, "1", "--insecure", "--out", str(out))
    saved = out / table / f"{table}-hand1-record.json"
    assert code == 0 and stdout == f"record saved: {saved} (valid)\n"
    assert not (tmp_path / "known_hosts").exists()  # nothing to pin without TLS


async def test_an_unknown_table_is_one_line(
    start_host: Callable[..., Awaitable[HostInfo]], onecard: Run
) -> None:
    info = await start_host()
    code, stdout, stderr = await onecard("records", f"127.0.0.1:{info.port}", "nosuch")
    assert code == ExitCode.UNAVAILABLE and stdout == ""  # not fetched, as the help says
    assert stderr.splitlines()[-1] == "Error: the host refused: no table 'nosuch' (not_found)"
    assert "Traceback" not in stderr


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        (["records", "127.0.0.1:1", "bad/id"], "is not a table id", ExitCode.USAGE),
        (["records", "127.0.0.1:1", "t1", "0"], "0 is not in the range x>=1", ExitCode.USAGE),
        (["records", "host:notaport", "t1"], "bad port", ExitCode.USAGE),
        (["records", "127.0.0.1:1", "t1"], "cannot connect to 127.0.0.1:1", ExitCode.UNAVAILABLE),
    ],
)
def test_bad_arguments_are_one_clear_line(
    args: list[str], message: str, status: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONECARD_KNOWN_HOSTS", str(tmp_path / "known_hosts"))
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == status  # a usage error (2), or nothing could be fetched (69)
    assert message in result.output and "Traceback" not in result.output


def test_every_option_has_help() -> None:
    result = CliRunner().invoke(cli, ["records", "--help"])
    assert result.exit_code == 0
    command = cli.get_command(None, "records")  # type: ignore[arg-type]
    assert command is not None and command.help
    for param in command.params:
        if param.param_type_name == "option":
            assert getattr(param, "help", None), f"records {param.name} has no help"
            assert param.opts[0] in result.output


async def test_a_tls_server_that_is_no_onecard_host_is_not_pinned(
    tls_http_server: int, tmp_path: Path
) -> None:
    """As with join: a first-use pin is stored only after a valid welcome."""
    known = tmp_path / "known_hosts"
    with pytest.raises(Disconnected, match="does not look like a onecard host"):
        await run_records(
            address=f"127.0.0.1:{tls_http_server}",
            table="t1",
            known_hosts=known,
            out=tmp_path / "out",
        )
    assert not known.exists() or str(tls_http_server) not in known.read_text()


def test_records_list_counts_and_names_the_hands() -> None:
    """Before: "table t713814: 1"."""
    assert records_listed([1]) == "1 hand record (hand 1)"
    assert records_listed([1, 2, 3]) == "3 hand records (hands 1-3)"
    assert records_listed([2, 5]) == "2 hand records (hands 2, 5)"
    assert records_listed([]) == "no hand records yet"
