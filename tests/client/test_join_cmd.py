"""client/join_cmd.py: option checks, resuming a saved seat and pinning, without a
terminal (CliRunner, or the lobby driven with a fake session and scripted input)."""

from __future__ import annotations

import io
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import trio
from click.testing import CliRunner

from client import join_cmd, lobby
from client.commands import Quit
from client.join_cmd import join_command
from client.json_ui import JsonUI
from client.lobby import parse_lobby
from host.server.identity import default_host_name
from net.session import Disconnected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--seats", "3"], "--seats only applies to a new table: add --create GAME"),
        (["--bots", "1"], "--bots only applies to a new table: add --create GAME"),
        (["--option", "x=1"], "--option only applies to a new table: add --create GAME"),
        (["--seats", "3", "--bots", "1"], "--seats and --bots only apply"),
        (["--watch"], "--watch needs --table TABLE"),
        (["--table", "bad id!"], "'bad id!' is not a table id (1-64 of A-Z a-z 0-9 _ -)"),
        (["--table", "t1", "--create", "one"], "give only one"),
        (["--private"], "--private only applies to a new table: add --create GAME"),
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


def test_create_private_reaches_run_join(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, object]] = []
    monkeypatch.setattr(join_cmd, "run_sync", lambda fn, **kw: calls.append(kw))
    for args, private in ((["--create", "one", "--private"], True), (["--create", "one"], False)):
        result = CliRunner().invoke(join_command, ["127.0.0.1:9", *args])
        assert result.exit_code == 0, result.output
        assert calls[-1]["private"] is private


async def test_a_host_refusing_a_private_table_is_said_plainly(
    start_host: Callable[..., Awaitable[Any]],
) -> None:
    """A host that does not run private tables refuses the create; the error says what was
    asked (a normal create from the same client still works)."""
    from net.session import RequestError, open_session
    from net.trust import open_stream

    info = await start_host()
    connected = await open_stream("127.0.0.1", info.port, expect=info.fingerprint)
    async with open_session(connected.stream) as session:
        try:
            table = await lobby.create_table(session, "one-card", 2, {}, bots=1, private=True)
        except RequestError as exc:
            assert exc.code.value == "bad_field" and "private" in exc.error.message
        else:  # a host that runs them (issue 29's host side) creates it
            assert table
        assert await lobby.create_table(session, "one-card", 2, {}, bots=1)


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


#: seconds a scripted exchange with a real host may take before the test fails
GAME_TIMEOUT = 60

TABLE = {"table": "t1", "game": "one", "phase": "waiting", "seats": [None, None]}


def test_new_flag_is_offered_and_reaches_run_join(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, object]] = []
    monkeypatch.setattr(join_cmd, "run_sync", lambda fn, **kw: calls.append(kw))
    runner = CliRunner()
    assert runner.invoke(join_command, ["127.0.0.1:9", "--new"]).exit_code == 0
    assert runner.invoke(join_command, ["127.0.0.1:9"]).exit_code == 0
    assert [c["new"] for c in calls] == [True, False]
    assert "--new" in runner.invoke(join_command, ["--help"]).output


async def _until(client: Any, kind: str) -> dict[str, Any]:
    with trio.fail_after(GAME_TIMEOUT):
        while True:
            line = await client.next()
            assert line is not None, client.lines
            if line["type"] == kind:
                return dict(line)


async def test_a_second_player_from_the_same_state_dir_does_not_take_the_first_ones_seat(
    start_host: Callable[..., Awaitable[Any]], json_client: Callable[..., Awaitable[Any]]
) -> None:
    info = await start_host()
    address = f"127.0.0.1:{info.port}"
    dave = await json_client(
        "join", address, "--name", "dave", "--create", "one-card", "--seats", "3"
    )
    table = (await _until(dave, "seated"))["table"]
    erin = await json_client("join", address, "--name", "erin")
    await _until(erin, "tables")  # the lobby, not dave's seat
    await erin.send({"cmd": "join", "table": table})
    assert (await _until(erin, "seated"))["seat"] == 1
    assert "resumed" not in erin.types()
    await erin.send({"cmd": "quit"})
    await dave.send({"cmd": "quit"})
    end = await _until(dave, "end")
    assert end["reason"] == "you left the table"  # never kicked off by erin
    assert "disconnected" not in dave.types()
    with trio.fail_after(GAME_TIMEOUT):
        assert await dave.process.wait() == 0 and await erin.process.wait() == 0

    again = await json_client("join", address, "--name", "erin")
    resumed = await _until(again, "resumed")
    assert resumed["seat"] == 1 and "erin" in resumed["message"]
    await again.send({"cmd": "quit"})
    with trio.fail_after(GAME_TIMEOUT):
        assert await again.process.wait() == 0


async def test_a_tls_server_that_is_no_onecard_host_is_not_pinned(
    tls_http_server: int, tmp_path: Path
) -> None:
    port = tls_http_server
    known = tmp_path / "known_hosts"
    with pytest.raises(Disconnected, match="does not look like a onecard host"):
        await join_cmd.run_join(
            address=f"127.0.0.1:{port}",
            name="Ann",
            known_hosts=known,
            state_dir=tmp_path / "state",
            json_mode=True,
        )
    assert not known.exists() or f"127.0.0.1:{port}" not in known.read_text()


async def test_insecure_join_to_a_tls_host_suggests_dropping_insecure(
    start_host: Callable[..., Awaitable[Any]], tmp_path: Path
) -> None:
    info = await start_host()
    with pytest.raises(Disconnected, match=r"drop --insecure"):
        await join_cmd.run_join(
            address=f"127.0.0.1:{info.port}",
            name="Ann",
            insecure=True,
            known_hosts=tmp_path / "known_hosts",
            state_dir=tmp_path / "state",
            json_mode=True,
        )


async def test_a_onecard_host_is_pinned_after_its_welcome(
    start_host: Callable[..., Awaitable[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = await start_host()
    known = tmp_path / "known_hosts"

    async def end_of_input() -> None:
        await trio.lowlevel.checkpoint()

    monkeypatch.setattr(lobby, "read_line", end_of_input)  # the lobby reads it: quit

    with pytest.raises(Quit):
        await join_cmd.run_join(
            address=f"127.0.0.1:{info.port}",
            name="Ann",
            known_hosts=known,
            state_dir=tmp_path / "state",
            json_mode=True,
        )
    named = quote(default_host_name(), safe="")  # the host's name, from its welcome
    assert known.read_text() == f"127.0.0.1:{info.port} {info.fingerprint} name={named}\n"


async def test_join_asks_for_a_rematch_and_says_whom_it_waits_for(
    start_host: Callable[..., Awaitable[Any]], json_client: Callable[..., Awaitable[Any]]
) -> None:
    """Before, onecard join printed the winner and exited: a table of people could not play
    again. Now (--json: with --rematch) it asks; one who says no gives the seat up, and the
    one who said yes is told whom the table waits for and may still leave."""
    info = await start_host()
    address = f"127.0.0.1:{info.port}"
    dave = await json_client("join", address, "--name", "dave", "--create", "one-card", "--rematch")
    table = (await _until(dave, "seated"))["table"]
    erin = await json_client("join", address, "--name", "erin", "--table", table, "--rematch")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(dave.play_to_end)
        nursery.start_soon(erin.play_to_end)
    for client in (dave, erin):
        assert (await _until(client, "rematch"))["message"] == "Play again? [y/N]"
    await dave.send({"cmd": "rematch"})
    await _until(dave, "waiting")  # erin has not answered yet, or has left
    await erin.send({"cmd": "quit"})
    with trio.fail_after(GAME_TIMEOUT):
        assert await erin.process.wait() == 0
        while True:
            waiting = await _until(dave, "waiting")
            if waiting["waiting_for"] == ["seat 1 (empty)"]:  # erin gave her seat up
                break
    await dave.send({"cmd": "quit"})
    assert (await _until(dave, "end"))["reason"] == "you left the table"
    with trio.fail_after(GAME_TIMEOUT):
        assert await dave.process.wait() == 0


@pytest.mark.parametrize(("json_mode", "until_game_over"), [(False, False), (True, True)])
async def test_a_person_watching_stays_for_the_tables_next_game(
    start_host: Callable[..., Awaitable[Any]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    json_mode: bool,
    until_game_over: bool,
) -> None:
    """A tester's spectator left after the game it watched; --json still ends with the game."""
    info = await start_host()
    table = await info.host.create_table("one-card", seats=2)
    seen: dict[str, Any] = {}

    async def watch(tc: object, ui: object, **kwargs: Any) -> None:
        seen.update(kwargs)

    monkeypatch.setattr(join_cmd, "run_table", watch)
    await join_cmd.run_join(
        address=f"127.0.0.1:{info.port}",
        name="Sam",
        table=table,
        watch=True,
        json_mode=json_mode,
        known_hosts=tmp_path / "known_hosts",
        state_dir=tmp_path / "state",
    )
    assert seen["until_game_over"] is until_game_over


async def test_a_discovered_host_is_tried_at_each_address_in_turn(
    start_host: Callable[..., Awaitable[Any]], tmp_path: Path
) -> None:
    """Issue 20: a host advertises every LAN address; one that does not answer is skipped."""
    from net.trust import KnownHosts, TrustError

    info = await start_host()
    out = io.StringIO()
    ui = JsonUI(out=out)
    pins = KnownHosts(tmp_path / "known_hosts")
    host, connected = await join_cmd._connect_first(
        ["127.0.0.2", "127.0.0.1"], info.port, ui, insecure=False, pins=pins
    )
    assert host == "127.0.0.1" and connected.key == f"127.0.0.1:{info.port}"
    await connected.stream.aclose()
    retried = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["type"] for r in retried] == ["retry"]
    assert f"cannot connect to 127.0.0.2:{info.port}" in retried[0]["message"]
    with pytest.raises(TrustError, match=f"127.0.0.3:{info.port}"):
        await join_cmd._connect_first(["127.0.0.3"], info.port, ui, insecure=False, pins=pins)


def test_a_long_lobby_line_not_understood_is_echoed_cut_short() -> None:
    """Before, a 5000-character garbage line came back whole (at a move too: test_move_prompt)."""
    with pytest.raises(ValueError, match=r"^not understood: 'yyy.{37}\.\.\.' \(\? for help\)$"):
        parse_lobby("y" * 5000, [], json_mode=False)


def test_the_lobby_refuses_more_bots_than_seats_and_bots_as_strings() -> None:
    """Before, "c one 3 9" seated 2 bots without a word, and "bots": "1" was taken."""
    with pytest.raises(ValueError, match=r"9 bots do not fit at a table of 3 seats: at most 2"):
        parse_lobby("c one 3 9", [], json_mode=False)
    create = '{"cmd": "create", "game": "one", "seats": 3, "bots": %s}'
    assert parse_lobby(create % "2", [], json_mode=True)[2]["bots"] == 2
    for bad in ('"1"', "1.0", "true"):
        with pytest.raises(ValueError, match="bots must be a whole number"):
            parse_lobby(create % bad, [], json_mode=True)
    with pytest.raises(ValueError, match=r'^missing "cmd"'):
        parse_lobby('{"nocmd": 1}', [], json_mode=True)


def test_join_create_refuses_more_bots_than_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(join_cmd, "run_sync", lambda *a, **k: pytest.fail("must not connect"))
    args = ["127.0.0.1:9", "--create", "one", "--seats", "3", "--bots", "5"]
    result = CliRunner().invoke(join_command, args)
    assert result.exit_code == 2 and "at most 2" in result.output


async def test_a_fake_lan_host_with_the_real_ones_name_is_refused_by_join(
    start_host: Callable[..., Awaitable[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25: a fake host advertising the real host's name (and its fingerprint hint, or its
    own) is refused with a warning naming both fingerprints; the real one is joined."""
    from client.commands import ClientError, host_error
    from net.discover import HostAd, fingerprint_prefix
    from net.trust import KnownHosts, NotTheAdvertisedHost

    real = await start_host(name="Den")
    fake = await start_host(name="Den", data_dir=tmp_path / "fake")
    known = tmp_path / "known_hosts"
    heard: list[HostAd] = []

    async def browse(timeout: float) -> list[HostAd]:
        return heard

    async def end_of_input() -> None:
        await trio.lowlevel.checkpoint()

    monkeypatch.setattr(join_cmd, "browse", browse)
    monkeypatch.setattr(lobby, "read_line", end_of_input)  # the lobby reads it: quit

    async def join() -> None:
        await join_cmd.run_join(
            address=None,
            name="Ann",
            known_hosts=known,
            state_dir=tmp_path / "state",
            json_mode=True,
        )

    # the fake copies the real host's advertisement, with its own address
    heard[:] = [HostAd("Den", "127.0.0.1", fake.port, fingerprint_prefix(real.fingerprint), "1")]
    with pytest.raises(NotTheAdvertisedHost) as caught:
        await join()
    message = str(caught.value)
    assert real.fingerprint[:30] in message and fake.fingerprint in message
    assert not known.exists()  # nothing pinned
    line = host_error(caught.value)
    assert isinstance(line, ClientError) and line.exit_code == 1 and "\n" not in line.message

    # the real host, found on the LAN, is joined and pinned with its name
    heard[:] = [HostAd("Den", "127.0.0.1", real.port, fingerprint_prefix(real.fingerprint), "1")]
    with pytest.raises(Quit):
        await join()
    assert KnownHosts(known).named("Den") == [(f"127.0.0.1:{real.port}", real.fingerprint)]

    # now the fake advertises itself truthfully under the name of the host joined before
    heard[:] = [HostAd("Den", "127.0.0.1", fake.port, fingerprint_prefix(fake.fingerprint), "1")]
    with pytest.raises(NotTheAdvertisedHost) as caught:
        await join()
    assert real.fingerprint in str(caught.value) and fake.fingerprint in str(caught.value)
    assert KnownHosts(known).get(f"127.0.0.1:{fake.port}") is None


async def test_leaving_mid_game_forgets_the_saved_seat(
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
    tmp_path: Path,
) -> None:
    """Before, the saved token of a seat left mid-game made the next join try to take back
    the seat the host's bot now plays."""
    info = await start_host(bot_think=0.05)
    address = f"127.0.0.1:{info.port}"
    args = ["--name", "dave", "--create", "one-card", "--bots", "1"]
    dave = await json_client("join", address, *args)
    table = (await _until(dave, "seated"))["table"]
    tokens = tmp_path / "state" / "tokens.json"
    assert table in tokens.read_text()
    await _until(dave, "state")  # the game is under way
    await dave.send({"cmd": "leave"})
    await _until(dave, "end")
    with trio.fail_after(GAME_TIMEOUT):
        assert await dave.process.wait() == 0
    assert table not in tokens.read_text()  # the host's bot plays it: nothing to take back
