"""A hostile host (or a man in the middle of an ``--insecure`` connection) puts ESC sequences,
C1 controls, DEL, bidi overrides, rich markup and forged lines in every string it sends: the
terminal client shows all of it escaped and acts on none of it, the ``--json`` client writes
it as JSON escapes with the exact values, and so do ``discover``, ``records`` and ``verify``."""

from __future__ import annotations

import functools
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
import trio
from click.testing import CliRunner
from rich.console import Console
from rich.text import Text

import protocol.table_messages as tm
from client import discover_cmd as discover
from client.commands import ClientError
from client.discover_cmd import run_discover
from client.human_ui import HumanUI
from client.json_ui import JsonUI
from client.records_cmd import run_records
from client.render import make_console
from client.table_client import TableClient
from client.verify_cmd import verify_command
from net.discover import HostAd
from net.fairplay import FairKind, FairNotice
from protocol.cards import parse_card
from protocol.connection import Connection, Role
from protocol.framing import NEED_DATA
from protocol.messages import Hello, Message, Welcome

ROOT = Path(__file__).resolve().parents[2]
Unsafe = Callable[..., list[str]]


def _terminal() -> tuple[HumanUI, io.StringIO]:
    """A text front end on a plain rich console (markup on, as rich's default), no colour."""
    out = io.StringIO()
    return HumanUI(Console(file=out, width=100, color_system=None), ascii_only=True), out


async def _show(
    ui: HumanUI | JsonUI, pushes: list[Message], tc: TableClient | None = None
) -> TableClient:
    """Hand ``pushes`` to ``ui`` as the table loop does, for our seat 1 at table t1."""
    if tc is None:
        tc = TableClient(cast(Any, None), table_id="t1", name="Bob")  # (no fair pushes here)
        tc.seat = 1
    for push in pushes:
        ui.on_push(tc, push, await tc.handle(push))
    return tc


async def test_the_text_front_end_shows_every_host_string_escaped(
    hostile: Any, hostile_pushes: list[Message], game_over: tm.GameOver, unsafe: Unsafe
) -> None:
    ui, out = _terminal()
    tc = await _show(ui, hostile_pushes)
    ui.on_refused(tc, {"type": "play", "cards": ["7S"]}, f"{hostile.text} (illegal_action)")
    ui.on_explained(
        tc,
        tm.Explained(
            table="t1", card=parse_card("9H"), reason=hostile.text, blunder=False, action=None
        ),
    )
    ui.on_line(tc, "?")  # the help line words the host's moves
    ui.on_push(tc, tm.Ok(), [FairNotice(FairKind.FAILED, 1, hostile.text)])  # a verdict
    ui.info(f"Host: {hostile.name}")
    await _show(ui, [game_over], tc)
    ui.end(tc, f"disconnected: {hostile.text}")
    text = out.getvalue()
    assert unsafe(text) == []
    for shown in hostile.shown:
        assert shown in text
    assert hostile.markup in text  # shown as typed: no markup is parsed
    assert "[red]x" in text
    assert not any(line.startswith("FORGED") for line in text.splitlines())
    for seen in (
        "[chat] E\\x1b]0;PWN",
        "Game 1 starts: E\\x1b",
        "host: Eve\\x1b",
        "The host refused play 7S: Eve\\x1b",
        "9H: Eve\\x1b",
        "E\\x1b]0;PWN\\x07",
    ):
        assert seen in text, seen


def test_the_console_escapes_control_characters_that_slip_through(unsafe: Unsafe) -> None:
    """The last line of defence: whatever reaches the game's console unescaped, a line break
    aside, is escaped there."""
    out = io.StringIO()
    console = make_console(file=out)
    console.print(Text("a\x1b]0;T\x1b\\b\nc\u202ed"), style="bold")  # (rich drops BEL itself)
    console.print("e\x9b2Jf\x7f", end="")
    assert out.getvalue() == "a\\x1b]0;T\\x1b\\b\nc\\u202ed\ne\\x9b2Jf\\x7f"
    assert unsafe(out.getvalue()) == []


async def test_the_json_front_end_writes_escapes_and_keeps_the_exact_values(
    hostile: Any, hostile_pushes: list[Message], game_over: tm.GameOver, unsafe: Unsafe
) -> None:
    out = io.StringIO()
    ui = JsonUI(out=out)
    tc = await _show(ui, [*hostile_pushes, game_over])
    ui.on_push(tc, tm.Ok(), [FairNotice(FairKind.FAILED, 1, hostile.text)])
    ui.on_refused(tc, {"type": "play"}, hostile.text)
    ui.info(f"Host: {hostile.name}", kind="welcome")
    ui.end(tc, f"disconnected: {hostile.text}")
    lines = out.getvalue().splitlines()
    assert all(unsafe(line, allowed="") == [] for line in lines)
    objects = [json.loads(line) for line in lines]
    chat = next(o for o in objects if o["type"] == "chat_line")
    assert chat["text"] == hostile.text and chat["name"] == hostile.name  # the host's data
    info = next(o for o in objects if o["type"] == "table_info")
    assert info["seats"][0]["name"] == hostile.name
    error = next(o for o in objects if o["type"] == "error")
    assert error["message"] == hostile.text
    worded = {
        "event": "text",
        "game_over": "text",
        "presence": "message",
        "refused": "message",
        "welcome": "message",
        "end": "reason",
        "fairness": "message",
    }
    said = [o[worded[o["type"]]] for o in objects if o["type"] in worded]
    assert {o["type"] for o in objects} >= set(worded)
    for line in filter(None, said):  # what the client words for people: escaped
        assert unsafe(line) == [], line  # (an outcome has a line for the finishing order)
        assert "\nFORGED" not in line and "\nF " not in line, line
    assert any("\\nFORGED" in line for line in said)


async def test_onecard_join_in_a_terminal_acts_on_nothing_a_hostile_host_sends(
    hostile_host: Any, hostile: Any, client_env: dict[str, str], unsafe: Unsafe
) -> None:
    """``onecard join --insecure`` through a real pseudo-terminal (a dumb one: rich writes no
    escape sequence itself, so any in the output would be the host's)."""
    if sys.platform == "win32":
        pytest.skip("pexpect needs a POSIX pty")
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "client",
            "join",
            f"127.0.0.1:{hostile_host.port}",
            "--insecure",
            "--table",
            "t1",
            "--name",
            "Bob",
            "--ascii",
        ],
        env=client_env,
        encoding="utf-8",
        timeout=30,
        dimensions=(60, 100),
        cwd=str(ROOT),
    )
    child.delaybeforesend = None
    seen: list[str] = []

    def play() -> int:
        child.logfile_read = _Collect(seen)
        child.expect("Your move: ")
        child.sendline("1")  # refused, with a hostile message
        child.expect("The host refused")
        child.expect("Your move: ")
        child.sendline("9h")  # explained with a hostile reason, then the game ends
        child.expect(r"Play again\? \[y/N\]")
        child.sendline("y")  # the rematch's ready gets a fatal, hostile error
        child.expect(pexpect.EOF)
        child.close()
        return int(child.exitstatus)

    status = await trio.to_thread.run_sync(play)
    text = "".join(seen)
    assert status in (0, 1), text[-2000:]
    assert "Traceback" not in text
    assert unsafe(text, allowed="\r\n") == []
    flat = text.replace("\r\n", "")  # long lines break between words to fit the terminal
    for shown in hostile.shown:
        assert shown in flat
    assert "the host ended the connection: Eve\\x1b]0;PWNED\\x07" in flat
    assert "Seats at Eve\\x1b" in flat and "[red]Evil[/red] host" in flat
    assert not any(line.startswith("FORGED") for line in text.splitlines())


class _Collect:
    def __init__(self, out: list[str]) -> None:
        self.out = out

    def write(self, data: str) -> None:
        self.out.append(data)

    def flush(self) -> None:
        pass


def test_a_fatal_error_ends_the_program_with_one_line_shown_escaped(hostile: Any) -> None:
    error = ClientError(f"the host ended the connection: {hostile.text} (bad_state)")
    assert error.message.isprintable()
    assert "\\x1b]0;PWNED\\x07" in error.message and "\\nFORGED" in error.message


async def test_discover_lists_advertised_names_escaped(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    hostile: Any,
    unsafe: Unsafe,
) -> None:
    """Anyone on the LAN can advertise a host, under any name."""
    ad = HostAd(hostile.name, "10.0.0.2", 7531, "abcd", "1", ("10.0.0.2", "fe80::1%e\x1b[2K"))

    async def browse(timeout: float = 2.0, **_: Any) -> list[HostAd]:
        return [ad]

    monkeypatch.setattr(discover, "browse", browse)
    await run_discover(timeout=0.1, json_mode=False)
    text = capsys.readouterr().out
    assert unsafe(text) == [] and "E\\x1b]0;PWN\\x07" in text and "%e\\x1b[2K" in text
    await run_discover(timeout=0.1, json_mode=True)
    line = capsys.readouterr().out
    assert unsafe(line) == [] and json.loads(line)["name"] == hostile.name


def _tampered_record(text: str) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((ROOT / "spec/vectors/hand_record.json").read_text())
    record["fingerprint"] = text  # the verdict quotes it
    return record


def test_verify_shows_record_fields_escaped(tmp_path: Path, hostile: Any, unsafe: Unsafe) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(_tampered_record(hostile.text)))
    result = CliRunner().invoke(verify_command, [str(path)])
    assert result.exit_code == 1, result.output
    assert "INVALID" in result.output and "\\x1b]0;PWNED\\x07" in result.output
    assert unsafe(result.output) == []


async def test_records_shows_the_hosts_record_fields_escaped(
    nursery: trio.Nursery,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    hostile: Any,
    unsafe: Unsafe,
) -> None:
    """``onecard records`` fetches a record from a host that tampered with it."""
    text = json.dumps(_tampered_record(hostile.text))
    record = json.loads(text)

    async def handler(stream: trio.SocketStream) -> None:
        conn = Connection(role=Role.HOST)
        while True:
            while (msg := conn.next_message()) is NEED_DATA:
                data = await stream.receive_some(65536)
                if not data:
                    return
                conn.receive_data(data)
            assert isinstance(msg, Message)
            if isinstance(msg, Hello):
                replies: list[Message] = [
                    Welcome(
                        re=msg.id,
                        version=1,
                        host_name="evil",
                        software="e/1",
                        fingerprint="sha256:" + "0" * 64,
                        limits={},
                    )
                ]
            elif isinstance(msg, tm.GetRecord):
                size = tm.RECORD_CHUNK_CHARS
                chunks = [text[i : i + size] for i in range(0, len(text), size)]
                replies = [
                    tm.RecordPart(
                        re=msg.id,
                        table=msg.table,
                        hand_no=msg.hand_no,
                        part=i,
                        parts=len(chunks),
                        text=chunk,
                    )
                    for i, chunk in enumerate(chunks)
                ]
            else:
                return
            for reply in replies:
                await stream.send_all(conn.send(reply))

    listeners = await nursery.start(functools.partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
    port = listeners[0].socket.getsockname()[1]
    results = await run_records(
        address=f"127.0.0.1:{port}",
        table=str(record["table_id"]),
        hands=(int(record["hand_no"]),),
        out=tmp_path,
        insecure=True,
        known_hosts=tmp_path / "known_hosts",
    )
    assert [r.status for r in results] == ["invalid"]
    shown = capsys.readouterr().out
    assert "\\x1b]0;PWNED\\x07" in shown and unsafe(shown) == []
