"""Fixes from a LAN game night (three players and a spectator, a host restart): who left at a
rematch, a bot for the empty seat, plain wording, a spectator's table and last game, a quiet
reconnect, where the proofs are, and what "cards checked" counts."""

from __future__ import annotations

import functools
import io
import json
import queue
import sys
from pathlib import Path
from typing import Any, cast

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from client import table_loop
from client.fairplay import DealChecker, FairKind, FairNotice, TableClient
from client.frontends import HumanUI, JsonUI
from client.records_cmd import records_listed
from client.render import describe_event, make_console
from client.session import RequestError
from client.table_loop import run_table
from protocol.errors import ErrorCode
from protocol.messages import Error, Message


def _names(seat: object) -> str:
    return ["Ann", "Bob", "Cat"][seat] if isinstance(seat, int) else "?"


def _line(event: dict[str, object]) -> str:
    text = describe_event(event, _names, me=0)
    assert text is not None
    return text.plain


def test_a_reshuffle_of_one_card_and_a_dry_draw_read_right() -> None:
    """Before: "The discards (1 cards) are shuffled" and "Cat is spared 1: nothing left to
    draw" for a plain draw from an empty stock."""
    assert _line({"kind": "reshuffle", "stream": 1, "count": 1}) == (
        "1 discarded card is shuffled into a new stock"
    )
    assert _line({"kind": "reshuffle", "stream": 2, "count": 12}) == (
        "12 discarded cards are shuffled into a new stock"
    )
    assert _line({"kind": "forgiven", "seat": 2, "count": 1, "reason": "draw"}) == (
        "Cat draws nothing: the stock is empty and no discards are left to shuffle"
    )
    assert _line({"kind": "forgiven", "seat": 1, "count": 3, "reason": "attack"}) == (
        "Bob is let off 3 cards (the attack): the stock is empty and no discards are left to "
        "shuffle"
    )


def _human() -> tuple[HumanUI, io.StringIO]:
    out = io.StringIO()
    return HumanUI(make_console(file=out)), out


def _tc(seat: int | None = 0) -> TableClient:
    tc = TableClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
    tc.seat, tc.names = seat, ["Ann", "Bob", "Cat"]
    return tc


def test_the_verdict_line_says_where_the_proof_is_saved() -> None:
    """Before, only the record's path was ever shown; the proof bundle's never."""
    ui, out = _human()
    proof = Path("/state/proofs/t1-hand2.json")
    verdict = FairNotice(FairKind.VERIFIED, 2, "deal verified: 9 cards you saw checked",
                         "56b6-a629", 9, proof)  # fmt: skip
    ui._fair(verdict)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].endswith(f"· proof {proof}")


def test_cards_checked_says_they_are_the_cards_this_client_saw() -> None:
    """Before: "deal verified: 64 cards checked" here, 83 there, 239 in the record."""
    checker = DealChecker(table_id="t1", pid=None)
    report = type("R", (), {"voided": False, "hand_no": 1, "cards_checked": 64,
                            "fingerprint": "ab"})()  # fmt: skip
    notice = checker._finish(report)  # type: ignore[arg-type]
    assert notice.message == "deal verified: 64 cards you saw checked"
    assert notice.to_json()["cards_checked"] == 64


def test_records_list_counts_and_names_the_hands() -> None:
    """Before: "table t713814: 1"."""
    assert records_listed([1]) == "1 hand record (hand 1)"
    assert records_listed([1, 2, 3]) == "3 hand records (hands 1-3)"
    assert records_listed([2, 5]) == "2 hand records (hands 2, 5)"
    assert records_listed([]) == "no hand records yet"


OUTCOME = {"termination": "target", "winners": [0], "ranking": [0, 1, 2], "scores": [0, 3, 5]}


def _seat(i: int, name: str, *, ready: bool = False, connected: bool = True) -> dict[str, Any]:
    return {"seat": i, "name": name, "bot": None, "ready": ready, "connected": connected,
            "substitute": False}  # fmt: skip


def _info(*seats: dict[str, Any] | None, phase: str = "finished") -> tm.TableInfo:
    return tm.TableInfo(
        table="t1", name="t1", game="one-card", options={}, seats=seats, phase=phase,
        game_no=1, spectators=0, turn_timer=None, voids=0,
    )  # fmt: skip


def test_a_seat_freed_after_a_no_says_who_left() -> None:
    """Before, Ann and Bob saw only "Waiting for seat 2 (empty)": nobody said Cat left."""
    ui, out = _human()
    tc = _tc()
    ann, bob = _seat(0, "Ann", ready=True), _seat(1, "Bob", ready=True)
    ui.on_push(tc, _info(ann, bob, _seat(2, "Cat")), [])
    ui.on_push(tc, _info(ann, bob, None), [])
    assert "Cat left the table" in out.getvalue().splitlines()
    stream = io.StringIO()
    jui = JsonUI(stream)
    jui.on_push(tc, _info(ann, bob, _seat(2, "Cat")), [])
    jui.on_push(tc, _info(ann, bob, None), [])
    presence = [json.loads(x) for x in stream.getvalue().splitlines() if '"presence"' in x]
    assert presence == [
        {"type": "presence", "seat": 2, "name": "Cat", "connected": False, "left": True,
         "message": "Cat left the table"}
    ]  # fmt: skip


def test_b_and_add_bot_ask_for_a_bot_between_games() -> None:
    tc = _tc()
    ui, _ = _human()
    assert ui.on_line(tc, "b") != "bot:"  # during a game "b" is no bot
    tc.outcome = dict(OUTCOME)
    assert ui.on_line(tc, "b") == "bot:"
    assert JsonUI(io.StringIO()).on_line(tc, '{"cmd": "add_bot"}') == "bot:"


class _Stdin:
    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()

    def readline(self) -> str:
        return self.lines.get()

    def type(self, line: str) -> None:
        self.lines.put(line + "\n" if line else "")


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Any:
    fake = _Stdin()
    monkeypatch.setattr(sys, "stdin", fake)
    yield fake
    fake.type("")  # free a reader thread left waiting


class _Session:
    def __init__(self) -> None:
        self.push_send, self.pushes = trio.open_memory_channel[Message](8)
        self.closed = trio.Event()
        self.closed_reason = ""

    async def request(self, msg: Message, **_: Any) -> Message:
        return tm.Ok()


class _Table:
    """The parts of TableClient the loop uses; ``add_bot`` is refused once, then seats Bot."""

    chat_n = 0
    new_chat = TableClient.new_chat

    def __init__(self) -> None:
        self.session = _Session()
        self.table_id = "t1"
        self.seat: int | None = 0
        self.outcome: dict[str, Any] | None = None
        self.bots = 0
        self.readied = trio.Event()

    async def handle(self, push: Message) -> list[FairNotice]:
        if isinstance(push, tm.GameOver):
            self.outcome = push.outcome
        return []

    async def ready(self, ready: bool = True) -> None:
        self.readied.set()

    async def add_bot(self) -> tm.BotAdded:
        self.bots += 1
        if self.bots == 1:
            raise RequestError(Error(code=ErrorCode.FULL, message="no empty seat", fatal=False))
        return tm.BotAdded(table="t1", seat=2, name="Bot")


class _UI:
    def __init__(self) -> None:
        self.said: list[str] = []
        self.seen = trio.Event()

    def on_push(self, tc: object, push: Message, notices: list[FairNotice]) -> None:
        pass

    def on_line(self, tc: object, line: str) -> Any:
        return "bot:" if line == "b" else None

    def info(self, text: str, **fields: Any) -> None:
        self.said.append(text)
        self.seen.set()

    def end(self, tc: object, reason: str) -> None:
        self.said.append(f"end {reason}")


async def _said(ui: _UI, text: str) -> None:
    while not any(text in s for s in ui.said):
        ui.seen = trio.Event()
        await ui.seen.wait()


async def test_b_while_waiting_for_a_rematch_seats_a_bot_and_says_so(stdin: _Stdin) -> None:
    table, ui = _Table(), _UI()
    result: list[Any] = []

    async def loop() -> None:
        result.append(await run_table(cast(TableClient, table), ui, offer_rematch=True))  # type: ignore[arg-type]

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(loop)
            over = tm.GameOver(table="t1", seq=1, game_no=1, outcome=OUTCOME)
            await table.session.push_send.send(over)
            await _said(ui, "Play again?")
            stdin.type("y")
            await table.readied.wait()
            ann, bob = _seat(0, "Ann", ready=True), _seat(1, "Bob", ready=True)
            await table.session.push_send.send(_info(ann, bob, None))
            await _said(ui, "Waiting for")
            stdin.type("b")
            await _said(ui, "no bot seated")
            stdin.type("b")
            await _said(ui, "takes seat")
            stdin.type("")
    assert result == [OUTCOME]
    assert [s for s in ui.said if "Waiting" in s or "bot" in s] == [
        "Waiting for seat 2 (empty) to play again (b + Enter seats a bot, q leaves)",
        "no bot seated: no empty seat (full)",
        "Bot (a bot) takes seat 2",
    ]


class _Resumable(_Table):
    """A seated table client whose connection can drop and be resumed."""

    def __init__(self) -> None:
        super().__init__()
        self.token, self.watching, self.name = "k" * 43, False, "Ann"
        self.checker = DealChecker(table_id="t1", pid=None)
        self.game_no = 1
        self.session.ended_by_host, self.session.retry_after = False, None  # type: ignore[attr-defined]

    async def resume(self, token: str) -> None:
        pass


async def test_after_our_own_reconnect_nobody_is_said_to_drop_and_come_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, after a host restart every client said "Bob dropped ..." then "Bob is back" for
    every other player, though only the host had gone."""
    monkeypatch.setattr(table_loop, "RECONNECT_PAUSES", (0.0,))
    fresh = _Session()
    fresh.ended_by_host, fresh.retry_after = False, None  # type: ignore[attr-defined]

    async def hold(stream: object, *, task_status: Any) -> None:
        task_status.started(fresh)
        await trio.sleep_forever()

    monkeypatch.setattr(table_loop, "_hold_session", hold)
    table, (ui, out) = _Resumable(), _human()
    ann, bob, cat = _seat(0, "Ann"), _seat(1, "Bob"), _seat(2, "Cat")
    bob_gone, cat_gone = _seat(1, "Bob", connected=False), _seat(2, "Cat", connected=False)

    async def reconnect() -> trio.abc.Stream:
        return cast(trio.abc.Stream, None)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            loop = functools.partial(run_table, read_input=False, reconnect=reconnect)
            nursery.start_soon(loop, cast(TableClient, table), ui)
            for info in (_info(ann, bob, cat, phase="playing"),
                         _info(ann, bob, cat_gone, phase="playing")):  # fmt: skip
                await table.session.push_send.send(info)
            await trio.testing.wait_all_tasks_blocked()
            await table.session.push_send.aclose()  # the host restarts
            while table.session is not fresh:
                await trio.sleep(0)
            for info in (
                _info(ann, bob_gone, cat_gone, phase="playing"),  # the new baseline: quiet
                _info(ann, bob, cat_gone, phase="playing"),  # Bob was never said to drop
                _info(ann, bob, cat, phase="playing"),  # Cat was
                _info(ann, bob_gone, cat, phase="playing"),  # a drop after the baseline
            ):
                await fresh.push_send.send(info)
            await trio.testing.wait_all_tasks_blocked()
            nursery.cancel_scope.cancel()
    told = [line for line in out.getvalue().splitlines() if "dropped" in line or "back" in line]
    assert told == [
        "Cat dropped (the host plays for Cat after the grace period)",
        "Cat is back",
        "Bob dropped (the host plays for Bob after the grace period)",
    ]


def _watched(phase: str, to_act: tuple[int, ...], game_no: int = 1, **view: Any) -> tm.StatePush:
    shown = {"game": "one-card", "top": "7D", "suit": "D", "hand_counts": [5, 3, 4],
             "direction": "clockwise", "stock": 20, "hand_no": 1, **view}  # fmt: skip
    return tm.StatePush(
        table="t1", seq=5, game_no=game_no, phase=phase, seat=None, view=shown, legal=(),
        to_act=to_act, turn_ms=None,
    )  # fmt: skip


def test_a_spectator_s_table_is_redrawn_once_each_time_the_turn_passes() -> None:
    """Before, a watcher's table was drawn once per hand and its turn marker went stale."""
    ui, out = _human()
    tc = _tc(None)
    for to_act in ((1,), (1,), (2,), (2,), (0,)):
        ui.on_push(tc, _watched("playing", to_act), [])
    markers = [line.split()[1] for line in out.getvalue().splitlines() if "▶" in line]
    assert markers == ["Bob", "Cat", "Ann"]


def test_a_spectator_new_to_a_finished_table_is_told_the_last_outcome_once() -> None:
    """Before, a watcher arriving between games saw the seats and chat, not who had won."""
    ui, out = _human()
    tc = _tc(None)
    finished = _watched("finished", (), outcome={"winners": [2], "scores": None})
    ui.on_push(tc, finished, [])
    ui.on_push(tc, finished, [])  # a second state (say, after a chat): said once
    told = [x for x in out.getvalue().splitlines() if "Last game" in x]
    assert told == ["Last game: Cat wins! Cards left: Ann 5, Bob 3, Cat 4"]
    ui, out = _human()  # a watcher who saw game 1 played hears of its end from game_over only
    ui.on_push(tc, _watched("playing", (0,)), [])
    ui.on_push(tc, finished, [])
    assert "Last game" not in out.getvalue()
