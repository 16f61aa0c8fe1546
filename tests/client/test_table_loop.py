"""client/table_loop.py: the trio driver between pushes, typed lines and the front end.

These tests drive :func:`run_table` with a fake table client and a scripted stdin (a real
reader thread, real tasks), so that the loop's behaviour (the rematch prompt, what a refusal
leads to, leaving, reconnecting) is tested apart from any host. The decisions themselves are
tested event by event, without trio, in ``test_table_machine.py``.
"""

from __future__ import annotations

import functools
import queue
import sys
from pathlib import Path
from typing import Any, cast

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from client import table_loop, table_machine
from client.intents import ActIntent, ChatIntent, Intent, LeaveIntent, RematchIntent, rematch_answer
from client.record_fetch import RecordResult
from client.table_client import TableClient
from client.table_loop import Frontend, run_table
from net.fairplay import DealChecker, FairNotice
from net.retry import AFTER_SHUTDOWN, Backoff
from net.session import Disconnected, RequestError, leaves
from net.trust import HostKeyChanged
from protocol.errors import ErrorCode
from protocol.messages import Error, Message

OUTCOME = {"termination": "target", "winners": [0], "ranking": [0, 1], "scores": [0, 3]}


class _Stdin:
    """A stdin whose lines the test types one at a time ("" is end of input)."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()

    def readline(self) -> str:
        return self.lines.get()

    def type(self, line: str) -> None:
        self.lines.put(line + "\n" if line else "")


class _Session:
    def __init__(self) -> None:
        self.push_send, self.pushes = trio.open_memory_channel[Message](8)
        self.closed = trio.Event()
        self.closed_reason = ""
        self.requests: list[Message] = []

    async def request(self, msg: Message, **_: Any) -> Message:
        self.requests.append(msg)
        return tm.Ok()


class _Table:
    """The parts of TableClient the loop uses; ``ready`` is refused ``refusals`` times."""

    def __init__(self, refusals: int, code: ErrorCode) -> None:
        self.session = _Session()
        self.table_id = "t1"
        self.seat: int | None = 0
        self.outcome: dict[str, Any] | None = None
        self.state: tm.StatePush | None = None
        self.refusals = refusals
        self.code = code
        self.readies = 0

    chat_n = 0
    new_chat = TableClient.new_chat

    async def handle(self, push: Message) -> list[FairNotice]:
        if isinstance(push, tm.GameOver):
            self.outcome = push.outcome
        elif isinstance(push, tm.GameStart):
            self.outcome = None
        return []

    async def ready(self, ready: bool = True) -> None:
        self.readies += 1
        if self.readies <= self.refusals:
            raise RequestError(Error(code=self.code, message="no rematch now", fatal=False))


class _UI:
    def __init__(self) -> None:
        self.said: list[str] = []
        self.asked = trio.Event()

    def on_push(self, tc: object, push: Message, notices: list[FairNotice]) -> None:
        self.said.append(f"push {push.TYPE}")

    def on_line(self, tc: object, line: str, *, rematch_asked: bool = False) -> Intent | None:
        """As the real front ends: at "Play again?" a line is first read as the answer."""
        answer = rematch_answer(line) if rematch_asked else None
        if answer is not None:
            return RematchIntent(answer)
        self.said.append(f"line {line}")
        return self.command(line)

    def command(self, line: str) -> Intent | None:
        return None

    def on_refused(self, tc: object, action: dict[str, Any], error: str) -> None:
        raise AssertionError("no actions in these tests")

    on_acted = on_refused

    def info(self, text: str, **fields: Any) -> None:
        self.said.append(text)
        if fields.get("kind") == "rematch":
            self.asked.set()

    def end(self, tc: object, reason: str) -> None:
        self.said.append(f"end {reason}")


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Any:
    fake = _Stdin()
    monkeypatch.setattr(sys, "stdin", fake)
    yield fake
    fake.type("")  # free a reader thread left waiting


async def _playing(
    table: Any, ui: Any, result: list[Any], rematch: bool, leave: bool = False
) -> None:
    """Run the table loop on the fakes; its return value goes into ``result``."""
    tc = cast(TableClient, table)
    result.append(await run_table(tc, ui, offer_rematch=rematch, leave_when_done=leave))


async def _game_over(table: _Table, game_no: int) -> None:
    over = tm.GameOver(table="t1", seq=game_no, game_no=game_no, outcome=OUTCOME)
    await table.session.push_send.send(over)


async def _answer(ui: _UI, stdin: _Stdin, line: str) -> None:
    await ui.asked.wait()
    ui.asked = trio.Event()
    stdin.type(line)


async def test_a_refused_rematch_asks_again_and_a_second_yes_plays_on(stdin: _Stdin) -> None:
    """Before, a refusal left the player at a table that said nothing more and asked nothing
    (CI: "rematch refused: slow down", then silence)."""
    table, ui = _Table(refusals=1, code=ErrorCode.BAD_STATE), _UI()
    result: list[Any] = []

    # fail_after: a loop that stops asking would wait for ever
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, result, True)
            await _game_over(table, 1)
            await _answer(ui, stdin, "y")  # refused
            await _answer(ui, stdin, "y")  # asked again: accepted
            while table.readies < 2:  # the stdin thread and the loop take their time
                await trio.sleep(0.01)
            await _game_over(table, 2)
            await _answer(ui, stdin, "n")
    assert table.readies == 2
    assert result == [OUTCOME]
    assert [s for s in ui.said if "again" in s or "refused" in s] == [
        "Play again? [y/N]",
        "rematch refused: no rematch now (bad_state)",
        "Play again? [y/N]",
        "Play again? [y/N]",
    ]


async def test_no_after_a_refused_rematch_ends_the_loop(stdin: _Stdin) -> None:
    table, ui = _Table(refusals=5, code=ErrorCode.BAD_STATE), _UI()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, [], True)
            await _game_over(table, 1)
            await _answer(ui, stdin, "y")
            await _answer(ui, stdin, "n")
    assert table.readies == 1 and ui.said[-1] == "Play again? [y/N]"


class _LostReply(_Table):
    """The host applied ``ready`` but its answer never came."""

    async def ready(self, ready: bool = True) -> None:
        self.readies += 1
        raise Disconnected("the connection dropped before the host answered")


async def test_a_rematch_that_started_despite_a_lost_reply_takes_moves_not_answers(
    stdin: _Stdin,
) -> None:
    """The loop asks again after the lost reply, then the others start the game: the question
    is void. Before, it stayed asked into the new game, so the first move typed there ("3")
    was read as "no" and the player left the table."""
    table, ui = _LostReply(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    result: list[Any] = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, result, True)
            await _game_over(table, 1)
            await _answer(ui, stdin, "y")
            await ui.asked.wait()  # asked again after "rematch refused: ... dropped ..."
            start = tm.GameStart(table="t1", seq=10, game_no=2, game="one-card", names=["A", "B"])
            await table.session.push_send.send(start)
            while "push game_start" not in ui.said:
                await trio.sleep(0.01)
            stdin.type("3")  # a move in the new game
            while "line 3" not in ui.said:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert result == []  # still at the table, not gone after "3"
    assert ui.said.count("Play again? [y/N]") == 2


class _Sender(_Table):
    """A table whose ``act`` and ``chat`` build the real messages (and send nothing)."""

    def __init__(self) -> None:
        super().__init__(refusals=0, code=ErrorCode.BAD_STATE)
        self.sent: list[Message] = []

    async def act(self, action: dict[str, Any]) -> None:
        self.sent.append(tm.Act(table=self.table_id, seq=len(self.sent) + 1, action=action))

    async def chat(self, text: str) -> None:
        self.sent.append(tm.ChatSay(table=self.table_id, text=text))


class _Typist(_UI):
    """A front end that turns each typed line into what the test scripted for it."""

    def __init__(self, wanted: dict[str, Intent]) -> None:
        super().__init__()
        self.wanted = wanted
        self.handled = trio.Event()

    def command(self, line: str) -> Intent | None:
        return self.wanted[line]

    def info(self, text: str, **fields: Any) -> None:
        super().info(text, **fields)
        self.handled.set()


async def test_a_line_the_protocol_forbids_is_reported_and_the_loop_goes_on(
    stdin: _Stdin,
) -> None:
    """Before, the message's own validation error (a chat line over 500 characters, an empty
    one, an action map msgpack cannot carry) escaped the loop and ended the client."""
    table = _Sender()
    ui = _Typist(
        {"long": ChatIntent("x" * 600), "empty": ChatIntent(""), "float": ActIntent({"type": 1.5})}
    )
    result: list[Any] = []

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, result, False)
            for line in ("long", "empty", "float"):
                stdin.type(line)
                await ui.handled.wait()
                ui.handled = trio.Event()
            stdin.type("")
    assert table.sent == [] and result == [None]
    assert [s for s in ui.said if "not sent" in s] == [
        "chat not sent: field 'text': length 600 is outside 1..500",
        "chat not sent: field 'text': length 0 is outside 1..500",
        "action not sent: field 'action': float is not a protocol type",
    ]
    assert ui.said[-1] == "end end of input"


async def test_chat_lines_sent_again_after_a_resume_are_shown_once(stdin: _Stdin) -> None:
    """A resume or a second watch sends the kept chat again; each line shows once."""
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_table, cast(TableClient, table), ui)
            for n in (1, 2, 1, 2, 3):
                line = tm.ChatLine(table="t1", seat=0, name="Ann", text=f"hi {n}", n=n)
                await table.session.push_send.send(line)
            while table.chat_n < 3:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert ui.said.count("push chat_line") == 3


def _info(*seats: dict[str, Any] | None) -> tm.TableInfo:
    fields = {"phase": "finished", "game_no": 1, "spectators": 0, "turn_timer": None, "voids": 0}
    return tm.TableInfo(table="t1", name="t1", game="one", options={}, seats=seats, **fields)


def _seat(i: int, name: str, *, ready: bool, connected: bool = True) -> dict[str, Any]:
    return {
        "seat": i,
        "name": name,
        "bot": None,
        "ready": ready,
        "connected": connected,
        "substitute": False,
    }


class _Leaver(_Typist):
    """A front end where ``q`` leaves (as HumanUI's between games) and ``say gg`` chats."""

    def __init__(self) -> None:
        super().__init__({"say gg": ChatIntent("gg"), "q": LeaveIntent()})


async def test_a_yes_says_whom_the_rematch_waits_for_and_q_leaves_with_the_outcome(
    stdin: _Stdin,
) -> None:
    """Before, a player who said yes at a table where the others said no or had gone waited
    in silence for ever (and onecard join and play --lan did not even ask)."""
    table, ui = _Sender(), _Leaver()
    result: list[Any] = []

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, result, True)
            await _game_over(table, 1)
            await ui.asked.wait()
            stdin.type("say gg")  # a chat line is said; the question stays
            while not table.sent:
                await trio.sleep(0.01)
            stdin.type("y")
            while table.readies < 1:
                await trio.sleep(0.01)
            ann = _seat(0, "Ann", ready=True)
            for info in (
                _info(
                    ann, _seat(1, "Bob", ready=False), _seat(2, "Cy", ready=False, connected=False)
                ),
                _info(
                    ann, _seat(1, "Bob", ready=False), _seat(2, "Cy", ready=False, connected=False)
                ),
                _info(ann, _seat(1, "Bob", ready=True), None),
            ):
                await table.session.push_send.send(info)
            while sum("Waiting" in s for s in ui.said) < 2:
                await trio.sleep(0.01)
            stdin.type("q")
    assert result == [OUTCOME]  # the game's outcome: join forgets the seat and gives it up
    assert table.sent == [tm.ChatSay(table="t1", text="gg")]
    assert [s for s in ui.said if "Waiting" in s] == [
        "Waiting for Bob, Cy (gone) to play again (q leaves)",
        "Waiting for seat 2 (empty) to play again (b + Enter seats a bot, q leaves)",
    ]
    assert ui.said[-1] == "end you left the table"


async def test_end_of_input_while_waiting_for_a_rematch_leaves_with_the_outcome(
    stdin: _Stdin,
) -> None:
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    result: list[Any] = []

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, result, True)
            await _game_over(table, 1)
            await _answer(ui, stdin, '{"cmd": "rematch"}')  # --json --rematch says yes so
            while table.readies < 1:
                await trio.sleep(0.01)
            stdin.type("")
    assert result == [OUTCOME] and ui.said[-1] == "end end of input"


async def test_no_rematch_is_offered_to_a_player_the_host_stood_up(stdin: _Stdin) -> None:
    """A stood-up player only watches: "Play again?" could never succeed (ready is refused)."""
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    table.seat = None
    with trio.fail_after(10):
        result = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, result, True)
            await _game_over(table, 1)
    assert result == [OUTCOME] and "Play again? [y/N]" not in ui.said


async def test_leaving_after_the_game_gives_the_seat_up_on_the_session_in_use(
    stdin: _Stdin,
) -> None:
    """``leave_when_done``: the leave goes out from inside the loop, on whatever session is
    current (before, join sent it after the loop had closed a reconnected session, so it was
    lost and the others saw the seat away instead of free)."""
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, [], True, True)
            await _game_over(table, 1)
            await _answer(ui, stdin, "n")
    assert table.session.requests == [tm.Leave(table="t1")]


async def test_quitting_during_a_game_keeps_the_seat(stdin: _Stdin) -> None:
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                functools.partial(
                    run_table,
                    cast(TableClient, table),
                    ui,
                    leave_when_done=True,  # type: ignore[arg-type]
                )
            )
            stdin.type("")  # end of input mid-game: the seat stays, to be taken back
    assert table.session.requests == []


def _spectator_state(phase: str = "finished", game_no: int = 1) -> tm.StatePush:
    view = {"outcome": OUTCOME if phase == "finished" else None}
    return tm.StatePush(
        table="t1",
        seq=9,
        game_no=game_no,
        phase=phase,
        seat=None,
        view=view,
        legal=(),
        to_act=(),
        turn_ms=None,
    )


async def test_a_spectator_that_finds_its_game_over_ends_with_its_outcome(stdin: _Stdin) -> None:
    """A spectator who watches again after the game it watched ended gets no game_over, only a
    finished state; the loop used to wait for ever for a game_over that never comes."""
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    table.seat = None
    result: list[Any] = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_playing, table, ui, result, False)
            await table.session.push_send.send(_spectator_state("playing"))
            await table.session.push_send.send(_spectator_state())  # after a rewatch
    assert result == [OUTCOME]
    assert ui.said == ["push state", "push state", "push game_over", "end game over"]


async def test_a_spectator_new_to_a_finished_table_watches_its_next_game() -> None:
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    table.seat = None
    tc = cast(TableClient, table)
    result: list[Any] = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                result.append(await run_table(tc, ui, read_input=False))

            nursery.start_soon(watch)
            await table.session.push_send.send(_spectator_state())  # the last game's end
            await trio.testing.wait_all_tasks_blocked()
            assert not result and "push game_over" not in ui.said  # still watching
            start = tm.GameStart(table="t1", seq=10, game_no=2, game="one", names=("a", "b"))
            await table.session.push_send.send(start)
            await _game_over(table, 2)
    assert result == [OUTCOME]
    assert ui.said[-2:] == ["push game_over", "end game over"]


async def test_a_game_over_seen_live_is_not_repeated_by_the_finished_state() -> None:
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    table.seat = None
    tc = cast(TableClient, table)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            loop = functools.partial(run_table, read_input=False, until_game_over=False)
            nursery.start_soon(loop, tc, ui)
            await table.session.push_send.send(_spectator_state("playing"))
            await _game_over(table, 1)
            await table.session.push_send.send(_spectator_state())
            await trio.testing.wait_all_tasks_blocked()
            nursery.cancel_scope.cancel()
    assert ui.said == [
        "push state",
        "push game_over",
        "Still watching table t1: its next game shows here (q + Enter to stop)",
        "push state",
    ]  # a person watching with join stays for the next game (until_game_over=False)


async def test_a_changed_host_key_on_reconnect_fails_the_command(
    autojump_clock: trio.testing.MockClock, stdin: _Stdin, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, the warning went by as an info line and the client exited 0 saying the host
    was shutting down; now the command fails with the warning, as a fresh join does. (On the
    mock clock: the host's retry_after of 5 s is waited before reconnecting.)"""
    monkeypatch.setattr(table_loop, "KEEP_SEAT", Backoff(0.0, 1.0, 0.0, 1))
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    table.token, table.watching = "k" * 43, False  # type: ignore[attr-defined]
    table.session.ended_by_host, table.session.retry_after = True, 5  # type: ignore[attr-defined]
    changed = HostKeyChanged("den:7531", "SHA256:aa", "SHA256:bb", Path("known_hosts"))

    async def reconnect() -> trio.abc.Stream:
        raise changed

    with pytest.raises(BaseException) as caught, trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            loop = functools.partial(run_table, reconnect=reconnect)
            nursery.start_soon(loop, cast(TableClient, table), ui)
            await table.session.push_send.aclose()  # the connection drops
    assert changed in leaves(caught.value)
    assert trio.current_time() >= 5  # reconnected only after the host's retry_after


async def test_a_game_over_waits_for_the_records_being_fetched(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each record's line comes before the outcome: the fetch, a task of its own, reports to
    the machine while the loop waits (a machine that took the game's end for the loop's end
    dropped the report)."""
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    table.checker = DealChecker(table_id="t1", pid=None)  # type: ignore[attr-defined]
    release = trio.Event()

    async def fetch(
        session: object, table_id: str, hand_no: int, directory: Path, **_: Any
    ) -> RecordResult:
        await release.wait()
        return RecordResult(table_id, hand_no, "valid", "valid", path=directory / "r.json")

    monkeypatch.setattr(table_loop, "fetch_and_save", fetch)
    result: list[Any] = []
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:

            async def loop() -> None:
                tc = cast(TableClient, table)
                result.append(await run_table(tc, ui, read_input=False, records_dir=tmp_path))

            nursery.start_soon(loop)
            end = tm.FairPush(table="t1", seq=5, hand_no=1, msg=["hand_end", b"b", b"s" * 64])
            await table.session.push_send.send(end)
            await _game_over(table, 1)
            await trio.testing.wait_all_tasks_blocked()
            assert ui.said == ["push fair"]  # the outcome waits for the record
            release.set()
    assert result == [OUTCOME]
    assert ui.said == [
        "push fair",
        f"record saved: {tmp_path / 'r.json'} (valid)",
        "push game_over",
        "end game over",
    ]


async def test_a_late_push_from_a_replaced_session_is_not_shown() -> None:
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    old = table.session
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            loop = functools.partial(run_table, read_input=False)
            nursery.start_soon(loop, cast(TableClient, table), ui)
            await trio.testing.wait_all_tasks_blocked()
            table.session = _Session()  # (as a reconnect does)
            await old.push_send.send(tm.ChatLine(table="t1", seat=1, name="Bob", text="late"))
            await trio.testing.wait_all_tasks_blocked()
            nursery.cancel_scope.cancel()
    assert ui.said == []


def test_a_rematch_does_not_wait_for_host_bots() -> None:
    """Bots are ready whenever the people are; the line named them ("Waiting for Bot-1")."""
    bot = {**_seat(1, "Bot-1", ready=False), "bot": "host:heuristic"}
    info = _info(_seat(0, "Ann", ready=True), bot, None)
    assert table_machine.waiting_for(info, 0) == ["seat 2 (empty)"]


class _Terminal:
    """A terminal's stdin at its end of input (Ctrl-D)."""

    def readline(self) -> str:
        return ""

    def isatty(self) -> bool:
        return True


class _Watched:
    def __init__(self) -> None:
        self.push_send, self.pushes = trio.open_memory_channel[Message](8)
        self.closed = trio.Event()
        self.closed_reason = ""


class _Spectator:
    def __init__(self) -> None:
        self.session = _Watched()
        self.table_id, self.seat, self.outcome = "t1", None, None


class _Ends:
    def __init__(self) -> None:
        self.ended: list[str] = []

    def end(self, tc: object, reason: str) -> None:
        self.ended.append(reason)


async def test_the_end_of_a_terminals_input_stops_watching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", _Terminal())
    ui = _Ends()
    with trio.fail_after(30):  # a loop that watched on would hang here
        result = await run_table(cast(TableClient, _Spectator()), cast(Frontend, ui))
    assert result is None and ui.ended == ["end of input"]


async def test_a_host_that_announced_its_shutdown_is_tried_a_few_times_only(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Before, ``server_closing {retry_after: 5}`` was taken for a dropped line: the client
    retried for 40 s in silence. Now it says the host is shutting down, waits the pause the
    host asked for, tries a few times (``AFTER_SHUTDOWN``) and says what to do."""
    table, ui = _Table(refusals=0, code=ErrorCode.BAD_STATE), _UI()
    table.token, table.watching = "k" * 43, False  # type: ignore[attr-defined]
    table.session.ended_by_host, table.session.retry_after = True, 5  # type: ignore[attr-defined]
    tries: list[float] = []

    async def reconnect() -> trio.abc.Stream:
        tries.append(trio.current_time())
        raise OSError("connection refused")

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:

            async def loop() -> None:
                tc = cast(TableClient, table)
                assert await run_table(tc, ui, read_input=False, reconnect=reconnect) is None

            nursery.start_soon(loop)
            await table.session.push_send.aclose()  # the host closes after server_closing
    assert len(tries) == 1 + AFTER_SHUTDOWN.tries and tries[0] >= 5
    assert ui.said[0].endswith("it may be back in 5 s: trying again then")
    assert ui.said[1].startswith("trying again in 5 s to resume your seat (try 1;")
    assert ui.said[-2].startswith("the host did not come back (connection refused); once it")
    assert "onecard join resumes it" in ui.said[-2]


class _PrivateTable(_Table):
    """A seat of a private table: its state is the host's private view; the default move is
    the seat client's (here: draw); the actions it sends are kept."""

    def __init__(self) -> None:
        super().__init__(0, ErrorCode.BAD_STATE)
        self.private_state: tm.StatePush | None = None
        self.acts: list[dict[str, Any]] = []

    async def handle(self, push: Message) -> list[FairNotice]:
        if isinstance(push, tm.StatePush):
            self.private_state = self.state = push
        return await super().handle(push)

    def default_move(self) -> Any:
        from protocol.private_views import Allowed

        s = self.private_state
        return Allowed({"type": "draw"}) if s is not None and 0 in s.to_act else None

    async def act(self, action: dict[str, Any]) -> Message:
        self.acts.append(action)
        return tm.Ok()


class _ActUI(_UI):
    def on_acted(self, tc: object, action: dict[str, Any]) -> None:
        self.said.append(f"acted {action}")


def _private_state(seq: int, to_act: tuple[int, ...], turn_ms: int | None) -> tm.StatePush:
    view = {"hand": None, "positions": [], "legal_sets": [], "legal": [{"type": "draw"}]}
    return tm.StatePush(
        table="t1",
        seq=seq,
        game_no=1,
        phase="playing",
        seat=0,
        view=view,
        legal=(),
        to_act=to_act,
        turn_ms=turn_ms,
    )


async def test_a_private_turn_that_runs_out_sends_the_clients_default_move(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """PROTOCOL.md 10.14: on a private table the turn timer's move is the client's; a newer
    state (the turn moved on, or was answered) disarms the timer."""
    table, ui = _PrivateTable(), _ActUI()
    result: list[Any] = []
    async with trio.open_nursery() as nursery:

        async def play() -> None:
            tc = cast(TableClient, table)
            result.append(await run_table(tc, cast(Frontend, ui), read_input=False))

        nursery.start_soon(play)
        send = table.session.push_send.send
        await send(_private_state(3, (0,), 5000))
        await trio.sleep(4.9)
        assert table.acts == []
        await trio.sleep(0.2)
        assert table.acts == [{"type": "draw"}]
        assert "Time is up: your client plays the default move" in ui.said
        await send(_private_state(4, (0,), 5000))  # our turn again
        await trio.sleep(1)
        await send(_private_state(5, (1,), 5000))  # the other seat's turn: disarmed
        await trio.sleep(30)
        await send(_private_state(6, (0,), None))  # no timer running: nothing armed
        await trio.sleep(30)
        assert table.acts == [{"type": "draw"}]
        await _game_over(table, 1)
    assert result == [OUTCOME]
