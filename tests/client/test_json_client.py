"""``--json`` clients as subprocesses against a real host on loopback: whole games, a dropped
connection resumed, a changed fingerprint refused, and the fingerprint pinned on first use."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from client.verify_cmd import verify_files
from host.games import game_names
from host.table.table import Table

GAMES = game_names()


@pytest.mark.parametrize("game", GAMES)
async def test_play_json_full_game(game: str, json_client: Callable[..., Awaitable[Any]]) -> None:
    short = ["--option", "attack_cap=2"] if game == "one-card" else []  # no endless attacks
    client = await json_client(
        "play", "--game", game, "--bots", "1", "--delay", "0", "--name", "Ann", *short
    )
    end = await client.play_to_end()
    assert end is not None and end["outcome"] is not None
    types = client.types()
    assert "game_start" in types and "game_over" in types and "acted" in types
    verdicts = [line for line in client.lines if line["type"] == "fairness"]
    assert verdicts and all(v["status"] == "verified" for v in verdicts)
    assert all(v["cards_checked"] > 0 for v in verdicts)
    if game == "one":  # 12 cards each for two, and the centre card turned up at the end
        assert {v["cards_checked"] for v in verdicts} == {13}
    events = [line for line in client.lines if line["type"] == "event" and line["text"]]
    assert any(" plays " in e["text"] for e in events)
    _records_saved_and_verified(client.lines, verdicts)
    assert await client.process.wait() == 0


def _records_saved_and_verified(lines: list[dict[str, Any]], verdicts: list[Any]) -> None:
    """After every hand the host's record was saved and valid, before the outcome; the files
    are accepted by ``onecard verify`` and match the transcripts the client verified live."""
    records = [line for line in lines if line["type"] == "record"]
    assert all(r["status"] == "valid" and r["ok"] for r in records), records
    seen = {v["hand_no"]: v["fingerprint"] for v in verdicts}
    assert {r["hand_no"]: r["fingerprint"] for r in records} == seen and len(records) == len(seen)
    types = [line["type"] for line in lines]
    assert types.index("game_over") > max(i for i, t in enumerate(types) if t == "record")
    files = [Path(r["file"]) for r in records]
    assert {f.parent for f in files} == {Path(v["proof"]).parent for v in verdicts}
    assert all(r["status"] == "valid" for r in verify_files(files))


async def test_join_resumes_after_a_dropped_connection(
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
    tmp_path: Path,
) -> None:
    info = await start_host()
    table = await info.host.create_table("black-jack", seats=2)
    client = await json_client("join", f"127.0.0.1:{info.port}", "--table", table, "--name", "Ann")
    dropped = False
    acted = 0

    async def on_line(obj: dict[str, Any]) -> None:
        nonlocal dropped, acted
        if obj["type"] == "seated":
            await info.host.add_bots(table, 1)
        if obj["type"] == "acted":
            acted += 1
        if acted >= 2 and not dropped:
            dropped = True
            for session in list(info.host.connections):
                if session.peer != "in-process bot":
                    session._cancel.cancel()  # the host drops the player's connection

    end = await client.play_to_end(on_line)
    assert end is not None and end["outcome"] is not None
    types = client.types()
    assert types.index("disconnected") < types.index("reconnected") < types.index("game_over")
    connected = client.lines[types.index("connected")]
    assert connected["first_use"] is True and connected["fingerprint"] == info.fingerprint
    pinned = (tmp_path / "known_hosts").read_text()
    assert f"127.0.0.1:{info.port} {info.fingerprint}" in pinned
    verdicts = [line for line in client.lines if line["type"] == "fairness"]
    assert verdicts and verdicts[-1]["status"] == "verified"
    assert await client.process.wait() == 0


async def test_a_spectator_watches_again_after_a_dropped_connection(
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
    nursery: trio.Nursery,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No token, no backlog: the spectator reconnects, sends watch again and sees the game end;
    the hand it lost track of gets no live verdict (no false alarm) and its record is valid."""
    info = await start_host(bot_think=0.05)  # a game of a few seconds: time to drop mid-game
    table = await info.host.create_table("black-jack", seats=2)
    client = await json_client(
        "join", f"127.0.0.1:{info.port}", "--table", table, "--watch", "--name", "Viv"
    )
    dropped = False
    # The game waits (its table lock held) from the drop until the spectator watches again: a
    # short game could otherwise end during the reconnect pause on a slow machine, and the
    # spectator would then never see it end.
    watches: list[str] = []
    rewatched = trio.Event()
    real_watch = Table.watch

    async def watch(self: Table, conn: Any, name: str = "") -> None:
        watches.append(name)
        if len(watches) == 2:
            rewatched.set()
        await real_watch(self, conn, name)

    monkeypatch.setattr(Table, "watch", watch)

    async def drop_and_hold_the_game() -> None:
        async with info.host.lobby.table(table).lock:
            for session in list(info.host.connections):
                if session.peer != "in-process bot":
                    session._cancel.cancel()  # the host drops the spectator's connection
            await rewatched.wait()

    async def on_line(obj: dict[str, Any]) -> None:
        nonlocal dropped
        if obj["type"] == "watching":
            await info.host.add_bots(table, 2)
        if obj["type"] == "event" and not dropped:
            dropped = True
            nursery.start_soon(drop_and_hold_the_game)

    end = await client.play_to_end(on_line)
    assert end is not None and end["outcome"] is not None
    types = client.types()
    assert types.index("disconnected") < types.index("reconnected") < types.index("game_over")
    assert "again" in client.lines[types.index("reconnected")]["message"]
    assert all(v["status"] != "failed" for v in client.lines if v["type"] == "fairness")
    records = [line for line in client.lines if line["type"] == "record"]
    assert records and all(r["status"] == "valid" for r in records)
    assert await client.process.wait() == 0


async def test_join_refuses_a_changed_fingerprint(
    start_host: Callable[..., Awaitable[Any]],
    client_env: dict[str, str],
    tmp_path: Path,
) -> None:
    info = await start_host()
    table = await info.host.create_table("one-card", seats=2)
    wrong = "SHA256:" + ":".join(["ab"] * 32)
    (tmp_path / "known_hosts").write_text(f"127.0.0.1:{info.port} {wrong}\n")
    result = await trio.run_process(
        [
            sys.executable,
            "-m",
            "client",
            "join",
            f"127.0.0.1:{info.port}",
            "--table",
            table,
            "--name",
            "Eve",
        ],
        capture_stdout=True,
        capture_stderr=True,
        env=client_env,
        check=False,
    )
    err = result.stderr.decode()
    assert result.returncode == 1
    assert "HAS CHANGED" in err and wrong in err and info.fingerprint in err
    assert "Traceback" not in err
    assert all(seat is None for seat in info.host.lobby.table(table).seats)  # never joined


async def test_lan_game_host_player_and_a_friend(
    json_client: Callable[..., Awaitable[Any]], tmp_path: Path
) -> None:
    host = await json_client(
        "play",
        "--lan",
        "--port",
        "0",
        "--game",
        "one",
        "--bots",
        "2",
        "--delay",
        "0",
        "--name",
        "Ann",
        "--data-dir",
        str(tmp_path / "lan-host"),
    )
    hosting = await host.next()
    while hosting is not None and hosting["type"] != "hosting":
        hosting = await host.next()
    assert hosting is not None and hosting["fingerprint"].startswith("SHA256:")
    friend = await json_client(
        "join", f"127.0.0.1:{hosting['port']}", "--table", hosting["table"], "--name", "Bea"
    )
    while (line := await friend.next()) is not None and line["type"] != "seated":
        pass
    await host.send({"start": True})  # any line: fill the empty seat with a bot and start

    async def friend_plays() -> None:
        end = await friend.play_to_end()
        assert end is not None and end["reason"] == "game over"

    async with trio.open_nursery() as nursery:
        nursery.start_soon(friend_plays)
        end = await host.play_to_end()
    assert end is not None and end["outcome"]["termination"] == "target"
    start = next(line for line in host.lines if line["type"] == "game_start")
    assert start["names"][:2] == ["Ann", "Bea"] and start["names"][2].startswith("Bot-")
    connected = next(line for line in friend.lines if line["type"] == "connected")
    assert connected["fingerprint"] == hosting["fingerprint"]
    for client in (host, friend):
        assert any(v["type"] == "fairness" and v["status"] == "verified" for v in client.lines)
        # the host stays up until the friend has fetched every record, the last one included
        records = [v for v in client.lines if v["type"] == "record"]
        assert records and all(v["status"] == "valid" for v in records), records[-1]
        assert await client.process.wait() == 0


async def test_a_restarted_client_takes_its_seat_back_with_the_saved_token(
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
    tmp_path: Path,
) -> None:
    info = await start_host()
    table = await info.host.create_table("one", seats=2)
    first = await json_client("join", f"127.0.0.1:{info.port}", "--table", table, "--name", "Ann")

    async def quit_after_first_move(obj: dict[str, Any]) -> None:
        if obj["type"] == "seated":
            await info.host.add_bots(table, 1)
        if obj["type"] == "acted":
            await first.send({"cmd": "quit"})

    end = await first.play_to_end(quit_after_first_move)
    assert end is not None and end["reason"] == "you left the table"
    assert await first.process.wait() == 0
    tokens = (tmp_path / "state" / "tokens.json").read_text()
    assert table in tokens  # the seat key was kept
    token = json.loads(tokens)[f"127.0.0.1:{info.port}"]["token"]
    assert not any(token in json.dumps(line) for line in first.lines)  # and never printed
    deal_key = next(line for line in first.lines if line["type"] == "deal_key")
    assert "#deal-key" in (tmp_path / "known_hosts").read_text()  # pinned for next time
    assert deal_key["fingerprint"] == info.signing_key_fingerprint

    second = await json_client("join", f"127.0.0.1:{info.port}")  # no table: resume first
    end = await second.play_to_end()
    assert end is not None and end["reason"] == "game over"
    resumed = next(line for line in second.lines if line["type"] == "resumed")
    assert resumed["table"] == table and resumed["seat"] == 0
    assert "Ann" in resumed["message"]
    assert any(line["type"] == "acted" for line in second.lines)
    verdicts = [line["status"] for line in second.lines if line["type"] == "fairness"]
    assert verdicts and set(verdicts) == {"verified"}  # the replayed hand too, as an auditor
    assert await second.process.wait() == 0
    assert table not in (tmp_path / "state" / "tokens.json").read_text()  # forgotten at the end


async def test_join_creates_a_table_with_bots_and_plays_it(
    start_host: Callable[..., Awaitable[Any]], json_client: Callable[..., Awaitable[Any]]
) -> None:
    info = await start_host()
    client = await json_client(
        "join",
        f"127.0.0.1:{info.port}",
        "--create",
        "black-jack",
        "--seats",
        "3",
        "--bots",
        "2",
        "--option",
        "jokers=1",
        "--name",
        "Cy",
    )
    end = await client.play_to_end()
    assert end is not None and end["reason"] == "game over"
    start = next(line for line in client.lines if line["type"] == "game_start")
    assert start["names"][2] == "Cy" and start["names"][0].startswith("Bot-")
    info_line = next(line for line in client.lines if line["type"] == "table_info")
    assert info_line["options"]["jokers"] == 1
    verdicts = [line for line in client.lines if line["type"] == "fairness"]
    _records_saved_and_verified(client.lines, verdicts)
    assert await client.process.wait() == 0


async def test_a_new_certificate_pin_replaces_a_deal_key_pinned_before(
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
    tmp_path: Path,
) -> None:
    # The host changed; its user removed the certificate's line, as the warning says. The old
    # deal key's line stayed: it used to fail every deal as a bad HAND_COMMIT signature.
    info = await start_host()
    key = f"127.0.0.1:{info.port}"
    (tmp_path / "known_hosts").write_text(f"{key}#deal-key {'ab' * 32}\n")
    client = await json_client(
        "join", key, "--create", "black-jack", "--seats", "2", "--bots", "1", "--name", "Cy"
    )
    end = await client.play_to_end()
    assert end is not None and end["reason"] == "game over"
    verdicts = [line["status"] for line in client.lines if line["type"] == "fairness"]
    assert verdicts and set(verdicts) == {"verified"}
    assert await client.process.wait() == 0  # (the deal key is pinned on the way out)
    pins = (tmp_path / "known_hosts").read_text()
    assert "ab" * 32 not in pins and f"{key} {info.fingerprint}" in pins
    assert f"{key}#deal-key " in pins


async def test_an_insecure_host_has_its_deal_key_pinned_alone_and_kept(
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
    tmp_path: Path,
) -> None:
    """PROTOCOL.md 7.9 (issue 24.8): with ``--insecure`` there is no certificate to pin the
    deal key with, so it is pinned alone per address, and nothing but the user removes it: a
    host now signing with another key fails every deal, and the old pin stays."""
    info = await start_host(insecure=True)
    key = f"127.0.0.1:{info.port}"
    (tmp_path / "known_hosts").write_text(f"{key}#deal-key {'ab' * 32}\n")
    client = await json_client(
        "join",
        key,
        "--insecure",
        "--create",
        "black-jack",
        "--seats",
        "2",
        "--bots",
        "1",
        "--name",
        "Cy",
    )
    await client.play_to_end()
    await client.process.wait()
    verdicts = [line for line in client.lines if line["type"] == "fairness"]
    assert verdicts and all(v["status"] == "failed" for v in verdicts)
    assert "deal key changed" in verdicts[0]["message"]
    assert (tmp_path / "known_hosts").read_text() == f"{key}#deal-key {'ab' * 32}\n"


async def test_a_hand_the_host_keeps_no_record_of_is_reported(
    start_host: Callable[..., Awaitable[Any]], json_client: Callable[..., Awaitable[Any]]
) -> None:
    info = await start_host()
    store = info.host.lobby.store

    async def no_record(table_id: str, hand_no: int) -> None:
        return None

    store.records.load_record = no_record  # the host answers get_record with not_found
    client = await json_client(
        "join", f"127.0.0.1:{info.port}", "--create", "black-jack", "--bots", "1", "--name", "Di"
    )
    end = await client.play_to_end()
    assert end is not None and end["reason"] == "game over"
    records = [line for line in client.lines if line["type"] == "record"]
    assert records and all(r["status"] == "unavailable" and r["file"] is None for r in records)
    assert "the host offers no record of it" in records[0]["message"]
    assert "(not_found)" in records[0]["message"]
    assert await client.process.wait() == 0


async def test_play_lan_lobby_shows_only_its_own_table_and_keeps_the_records(
    start_host: Callable[..., Awaitable[Any]],
    json_client: Callable[..., Awaitable[Any]],
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    earlier = await start_host(data_dir=data)  # `onecard host` on the same data dir, left a table
    old_table = await earlier.host.create_table("one-card", seats=2)
    await earlier.host.shutdown()

    # --rematch: the host's session stays until the friend has fetched its records (a host
    # that ended at game over cut off the friend's fetch on a loaded machine)
    host = await json_client(
        "play",
        "--lan",
        "--port",
        "0",
        "--game",
        "black-jack",
        "--bots",
        "1",
        "--delay",
        "0",
        "--name",
        "Ann",
        "--data-dir",
        str(data),
        "--rematch",
    )
    lines: list[dict[str, Any]] = []
    while (line := await host.next()) is not None and line["type"] != "hosting":
        lines.append(line)
    assert line is not None
    hosting = line
    host_data = next(x for x in lines if x["type"] == "host_data")
    session_dir = Path(host_data["dir"])
    assert session_dir.parent == data / "play-sessions"
    assert host_data["records"] == str(session_dir / "records") in host_data["message"]
    assert hosting["fingerprint"] == earlier.fingerprint  # the identity is shared

    friend = await json_client("join", f"127.0.0.1:{hosting['port']}", "--name", "Bea")
    while (line := await friend.next()) is not None and line["type"] != "tables":
        pass
    assert line is not None
    assert [t["table"] for t in line["tables"]] == [hosting["table"]]  # not old_table
    await friend.send({"cmd": "join", "table": hosting["table"]})
    while (line := await friend.next()) is not None and line["type"] != "seated":
        pass
    await host.send({"start": True})  # any line starts the game

    async def friend_plays() -> None:
        end = await friend.play_to_end()
        assert end is not None and end["reason"] == "game over"

    async with trio.open_nursery() as nursery:
        nursery.start_soon(friend_plays)
        end = await host.play_to_end()
    assert end is not None and end["reason"] == "game over"
    with trio.fail_after(60):
        assert await friend.process.wait() == 0  # after its records: game_over waits for them
    await host.send({"cmd": "quit"})  # no rematch: the session ends
    for client in (host, friend):
        records = [x for x in client.lines if x["type"] == "record"]
        assert records and all(r["status"] == "valid" for r in records)
        assert await client.process.wait() == 0
    kept = sorted(p.name for p in (session_dir / "records").iterdir())
    assert kept and all(p.endswith(".json.xz") for p in kept)  # onecard verify reads them
    assert all(r["status"] == "valid" for r in verify_files(sorted(session_dir.glob("records/*"))))
    assert sorted(p.name for p in session_dir.iterdir()) == ["records"]  # db and keys gone
    assert (data / "host.sqlite3").exists() and (data / "host-key.pem").exists()
    again = await start_host(data_dir=data)
    assert [t["table"] for t in again.host.lobby.table_summaries()] == [old_table]
