"""client/table_machine.py: the table loop's decisions, event by event, with no trio, no host
and no terminal.

Each test feeds a :class:`TableMachine` events and checks the effects it answers with. A real
:class:`TableClient` with no session stands for the table; :func:`_push` does what
``TableClient.handle`` does with the pushes used here (the driver calls it before the machine).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import protocol.table_messages as tm
from client.intents import (
    ActIntent,
    AddBotIntent,
    ChatIntent,
    ExplainIntent,
    LeaveIntent,
    RematchIntent,
)
from client.record_fetch import RecordResult
from client.table_client import TableClient
from client.table_events import (
    Answered,
    AwaitRecords,
    Closed,
    Effect,
    Failed,
    Failure,
    FetchRecord,
    Finish,
    InputEnded,
    Pushed,
    Reconnect,
    Reconnected,
    ReconnectFailed,
    RecordFetched,
    Replay,
    SendAct,
    SendAddBot,
    SendChat,
    SendExplain,
    SendReady,
    ShowActed,
    ShowEnd,
    ShowExplained,
    ShowInfo,
    ShowPush,
    ShowRefused,
    Typed,
)
from client.table_machine import PLAY_AGAIN, TableMachine, game_over_from_state, waiting_for
from net.fairplay import FairKind, FairNotice
from protocol.cards import parse_card
from protocol.messages import Message

OUTCOME = {"termination": "target", "winners": [0], "ranking": [0, 1], "scores": [0, 3]}
DRAW = {"type": "draw"}
PASS = {"type": "pass"}
ASKED = ShowInfo(PLAY_AGAIN, "rematch")


def _table(seat: int | None = 0, *, token: str | None = "k" * 43) -> TableClient:
    tc = TableClient(None, table_id="t1", name="Ann")  # type: ignore[arg-type]
    tc.seat, tc.token, tc.names = seat, token if seat is not None else None, ["Ann", "Bob"]
    tc.watching = seat is None
    return tc


def _push(
    machine: TableMachine, push: Message, notices: list[FairNotice] | None = None
) -> list[Effect]:
    """Feed ``push`` as the driver does, after the table client took it."""
    tc = machine.table
    if isinstance(push, tm.GameOver):
        tc.outcome = dict(push.outcome)
    elif isinstance(push, tm.GameStart):
        tc.outcome, tc.game_no = None, push.game_no
    elif isinstance(push, tm.StatePush):
        tc.state = push
    return machine.handle(Pushed(push, notices or []))


def _state(phase: str = "playing", *, seat: int | None = 0, game_no: int = 1) -> tm.StatePush:
    view: dict[str, Any] = {"outcome": OUTCOME if phase == "finished" else None}
    legal = (DRAW,) if phase == "playing" and seat is not None else ()
    return tm.StatePush(
        table="t1",
        seq=9,
        game_no=game_no,
        phase=phase,
        seat=seat,
        view=view,
        legal=legal,
        to_act=(0,),
        turn_ms=None,
    )


def _over(game_no: int = 1) -> tm.GameOver:
    return tm.GameOver(table="t1", seq=10 * game_no, game_no=game_no, outcome=OUTCOME)


def _start(game_no: int = 2) -> tm.GameStart:
    return tm.GameStart(
        table="t1", seq=10 * game_no + 1, game_no=game_no, game="one", names=("Ann", "Bob")
    )


def _seat(i: int, name: str, *, ready: bool, connected: bool = True) -> dict[str, Any]:
    return {"seat": i, "name": name, "bot": None, "ready": ready, "connected": connected}


def _finished(*seats: dict[str, Any] | None) -> tm.TableInfo:
    return tm.TableInfo(
        table="t1",
        name="t1",
        game="one",
        options={},
        phase="finished",
        seats=seats,
        game_no=1,
        spectators=0,
        turn_timer=None,
        voids=0,
    )


# --------------------------------------------------------------------------- acting


def test_one_action_is_in_flight_at_a_time() -> None:
    machine = TableMachine(_table())
    assert machine.handle(Typed(ActIntent(DRAW))) == [SendAct(DRAW)]
    busy = ShowInfo("still waiting for the host to answer your last move", "busy")
    assert machine.handle(Typed(ActIntent(PASS))) == [busy]  # dropped, not queued
    assert machine.handle(Answered(SendAct(DRAW))) == [ShowActed(DRAW)]
    assert machine.handle(Typed(ActIntent(PASS))) == [SendAct(PASS)]


def test_a_refused_dropped_or_unsendable_action_says_why_and_frees_the_next() -> None:
    machine = TableMachine(_table())
    cases = [
        (Failure.REFUSED, "no (bad_action)", ShowRefused(DRAW, "no (bad_action)")),
        (
            Failure.DROPPED,
            "the host closed the connection",
            ShowRefused(DRAW, "the connection dropped before the host answered"),
        ),
        (
            Failure.INVALID,
            "field 'action': float is not a protocol type",
            ShowInfo("action not sent: field 'action': float is not a protocol type", "error"),
        ),
    ]
    for failure, why, shown in cases:
        assert machine.handle(Typed(ActIntent(DRAW))) == [SendAct(DRAW)]
        assert machine.handle(Failed(SendAct(DRAW), why, failure)) == [shown]


def test_chat_questions_and_bots_are_requests_answered_in_lines() -> None:
    machine = TableMachine(_table())
    assert machine.handle(Typed(ChatIntent("hi"))) == [SendChat("hi")]
    assert machine.handle(Answered(SendChat("hi"))) == []  # the host's chat_line shows it
    assert machine.handle(Failed(SendChat("hi"), "slow down (rate_limited)")) == [
        ShowInfo("chat not sent: slow down (rate_limited)", "error")
    ]
    assert machine.handle(Typed(ExplainIntent("QS"))) == [SendExplain("QS")]
    reply = tm.Explained(table="t1", card=parse_card("QS"), reason="no", blunder=False, action=None)
    assert machine.handle(Answered(SendExplain("QS"), reply)) == [ShowExplained(reply)]
    assert machine.handle(Failed(SendExplain("QS"), "no game (bad_state)")) == [
        ShowInfo("could not ask the host about QS: no game (bad_state)", "error")
    ]
    assert machine.handle(Typed(AddBotIntent())) == [SendAddBot()]
    bot = tm.BotAdded(table="t1", seat=2, name="Bot")
    assert machine.handle(Answered(SendAddBot(), bot)) == [
        ShowInfo("Bot (a bot) takes seat 2", "bot_added", {"seat": 2, "name": "Bot"})
    ]
    assert machine.handle(Failed(SendAddBot(), "no empty seat (full)")) == [
        ShowInfo("no bot seated: no empty seat (full)", "error")
    ]


def test_a_rematch_answer_out_of_place_is_dropped() -> None:
    assert TableMachine(_table()).handle(Typed(RematchIntent(True))) == []


# --------------------------------------------------------------------------- the game's end


def test_the_loop_ends_with_the_game_and_its_outcome() -> None:
    machine = TableMachine(_table())
    over = _over()
    assert _push(machine, over) == [ShowPush(over), ShowEnd("game over"), Finish(OUTCOME)]


def test_a_game_over_waits_for_the_records_of_its_hands() -> None:
    machine = TableMachine(_table(), records=True)
    signed = ["hand_end", b"body", b"s" * 64]
    end = tm.FairPush(table="t1", seq=5, hand_no=3, msg=signed)
    verdict = FairNotice(FairKind.VERIFIED, 3, "deal verified", fingerprint="56b6-a629")
    assert _push(machine, end, [verdict]) == [FetchRecord(3, "56b6-a629"), ShowPush(end, [verdict])]
    assert _push(machine, end) == [ShowPush(end)]  # asked for once
    card = tm.FairPush(table="t1", seq=6, hand_no=4, msg=["card", b"body", b"s" * 64])
    assert _push(machine, card) == [ShowPush(card)]
    void = tm.FairPush(table="t1", seq=7, hand_no=4, msg=["void", b"body", b"s" * 64])
    assert _push(machine, void) == [FetchRecord(4, None), ShowPush(void)]  # no verdict: None
    result = RecordResult(table="t1", hand_no=3, status="valid", message="valid", path=Path("r"))
    assert machine.handle(RecordFetched(result)) == [
        ShowInfo("record saved: r (valid)", "record", result.to_json())
    ]
    over = _over()
    assert _push(machine, over) == [
        AwaitRecords(),
        ShowPush(over),
        ShowEnd("game over"),
        Finish(OUTCOME),
    ]


def test_without_records_nothing_is_fetched() -> None:
    machine = TableMachine(_table())
    end = tm.FairPush(table="t1", seq=5, hand_no=1, msg=["hand_end", b"body", b"s" * 64])
    assert _push(machine, end) == [ShowPush(end)]


def test_play_again_yes_readies_and_says_whom_the_table_waits_for() -> None:
    machine = TableMachine(_table(), offer_rematch=True)
    over = _over()
    assert _push(machine, over) == [ShowPush(over), ShowEnd("game over"), ASKED]
    assert machine.handle(Typed(ChatIntent("gg"))) == [SendChat("gg")]  # the question stays
    assert machine.handle(Typed(ActIntent(DRAW))) == []  # no move to make now
    assert machine.asking
    assert machine.handle(Typed(RematchIntent(True))) == [SendReady()]
    ann = _seat(0, "Ann", ready=True)
    waiting = _finished(ann, _seat(1, "Bob", ready=False, connected=False), None)
    assert _push(machine, waiting) == [
        ShowPush(waiting),
        ShowInfo(
            "Waiting for Bob (gone), seat 2 (empty) to play again (b + Enter seats a bot, "
            "q leaves)",
            "waiting",
            {"waiting_for": ["Bob (gone)", "seat 2 (empty)"]},
        ),
    ]
    assert _push(machine, waiting) == [ShowPush(waiting)]  # said once while it stands
    everyone = _finished(ann, _seat(1, "Bob", ready=True), _seat(2, "Cy", ready=True))
    assert _push(machine, everyone) == [ShowPush(everyone)]
    start = _start()
    assert _push(machine, start) == [ShowPush(start)]
    assert not machine.asking and not machine.rematch  # lines are moves again
    assert machine.handle(Typed(ActIntent(DRAW))) == [SendAct(DRAW)]


def test_play_again_no_ends_with_the_outcome_and_no_second_end() -> None:
    machine = TableMachine(_table(), offer_rematch=True)
    _push(machine, _over())
    assert machine.handle(Typed(RematchIntent(False))) == [Finish(OUTCOME)]


def test_leave_at_play_again_ends_saying_so() -> None:
    machine = TableMachine(_table(), offer_rematch=True, leave_when_done=True)
    _push(machine, _over())
    assert machine.handle(Typed(LeaveIntent(give_up=True))) == [
        ShowEnd("you left the table"),
        Finish(OUTCOME),
    ]
    assert machine.leaves_seat()  # after the game, with leave_when_done


def test_a_refused_rematch_asks_again_while_the_game_is_over() -> None:
    machine = TableMachine(_table(), offer_rematch=True)
    _push(machine, _over())
    machine.handle(Typed(RematchIntent(True)))
    assert machine.handle(Failed(SendReady(), "slow down (rate_limited)")) == [
        ShowInfo("rematch refused: slow down (rate_limited)", "error"),
        ASKED,
    ]
    assert machine.asking and not machine.rematch
    _push(machine, _start())  # the others started the game meanwhile (the ready landed)
    assert machine.handle(Failed(SendReady(), "lost", Failure.DROPPED)) == [
        ShowInfo("rematch refused: lost", "error")
    ]  # not asked again: a game is on
    assert not machine.asking


def test_a_player_the_host_stood_up_is_not_asked_to_play_again() -> None:
    machine = TableMachine(_table(), offer_rematch=True)
    machine.table.seat = None
    over = _over()
    assert _push(machine, over) == [ShowPush(over), ShowEnd("game over"), Finish(OUTCOME)]


# --------------------------------------------------------------------------- leaving


def test_leaving_mid_game_gives_the_seat_to_the_bot_only_when_asked() -> None:
    for give_up in (False, True):
        machine = TableMachine(_table(), leave_when_done=True)
        _push(machine, _state())
        assert machine.handle(Typed(LeaveIntent(give_up=give_up))) == [
            ShowEnd("you left the table"),
            Finish(None),
        ]
        assert machine.leaves_seat() is give_up  # quit keeps the seat for a resume


def test_leaving_after_the_game_gives_the_seat_up_with_leave_when_done() -> None:
    for leave_when_done in (False, True):
        machine = TableMachine(_table(), until_game_over=False, leave_when_done=leave_when_done)
        _push(machine, _over())
        assert machine.handle(Typed(LeaveIntent())) == [
            ShowEnd("you left the table"),
            Finish(OUTCOME),
        ]
        assert machine.leaves_seat() is leave_when_done


def test_a_spectator_never_sends_leave() -> None:
    machine = TableMachine(_table(None), leave_when_done=True)
    _push(machine, _over())
    assert not machine.leaves_seat()


# --------------------------------------------------------------------------- end of input


def test_the_end_of_input_ends_a_players_loop() -> None:
    machine = TableMachine(_table())
    _push(machine, _state())
    assert machine.handle(InputEnded(terminal=False)) == [ShowEnd("end of input"), Finish(None)]


def test_the_end_of_input_at_play_again_is_a_no() -> None:
    machine = TableMachine(_table(), offer_rematch=True)
    _push(machine, _over())
    assert machine.handle(InputEnded(terminal=True)) == [Finish(OUTCOME)]


def test_a_spectator_stops_at_ctrl_d_but_watches_on_when_a_pipe_ends() -> None:
    piped = TableMachine(_table(None))
    assert piped.handle(InputEnded(terminal=False)) == []
    at_terminal = TableMachine(_table(None))
    assert at_terminal.handle(InputEnded(terminal=True)) == [ShowEnd("end of input"), Finish(None)]


# --------------------------------------------------------------------------- the connection


def test_a_drop_is_reconnected_when_a_seat_can_be_resumed() -> None:
    machine = TableMachine(_table(), can_reconnect=True)
    assert machine.handle(Closed("reset")) == [
        ShowInfo("connection lost (reset); reconnecting", "disconnected"),
        Reconnect(),
    ]
    assert machine.handle(Reconnected()) == [
        ShowInfo("reconnected: seat 0 resumed as Ann", "reconnected")
    ]
    assert machine.handle(Closed("reset again")) == [
        ShowInfo("connection lost (reset again); reconnecting", "disconnected"),
        Reconnect(),
    ]
    assert machine.handle(ReconnectFailed("giving up reconnecting (refused)")) == [
        ShowInfo("giving up reconnecting (refused)", "error"),
        ShowEnd("disconnected: reset again"),
        Finish(None),
    ]


def test_a_spectator_watches_again_after_a_drop() -> None:
    machine = TableMachine(_table(None), can_reconnect=True)
    assert machine.handle(Closed("reset"))[-1] == Reconnect()
    assert machine.handle(Reconnected()) == [
        ShowInfo(
            "reconnected: watching table t1 again (the hand in progress is checked from "
            "its record)",
            "reconnected",
        )
    ]


def test_a_drop_ends_the_loop_when_there_is_nothing_to_resume() -> None:
    gone = ShowEnd("disconnected: bye"), Finish(None)
    assert TableMachine(_table()).handle(Closed("bye")) == [*gone]  # no way to reconnect
    no_token = TableMachine(_table(token=None), can_reconnect=True)
    assert no_token.handle(Closed("bye")) == [*gone]
    for_good = TableMachine(_table(), can_reconnect=True)
    assert for_good.handle(Closed("bye", for_good=True)) == [*gone]


def test_chat_lines_sent_again_after_a_resume_show_once() -> None:
    machine = TableMachine(_table())
    lines = [tm.ChatLine(table="t1", seat=1, name="Bob", text=f"hi {n}", n=n) for n in (1, 2)]
    assert [len(_push(machine, line)) for line in (*lines, *lines)] == [1, 1, 0, 0]
    unnumbered = tm.ChatLine(table="t1", seat=1, name="Bob", text="hi")
    assert _push(machine, unnumbered) == [ShowPush(unnumbered)]


# --------------------------------------------------------------------------- spectators


def test_a_spectator_that_finds_the_game_it_watched_over_replays_its_end() -> None:
    machine = TableMachine(_table(None))
    _push(machine, _state(seat=None))
    finished = _state("finished", seat=None)
    replayed = game_over_from_state(finished)
    assert replayed == tm.GameOver(table="t1", seq=9, game_no=1, outcome=OUTCOME)
    assert _push(machine, finished) == [ShowPush(finished), Replay(replayed)]
    assert _push(machine, replayed) == [ShowPush(replayed), ShowEnd("game over"), Finish(OUTCOME)]


def test_a_spectator_new_to_a_finished_table_watches_its_next_game() -> None:
    machine = TableMachine(_table(None))
    finished = _state("finished", seat=None)
    assert _push(machine, finished) == [ShowPush(finished)]  # a game it never saw played


def test_a_game_over_seen_live_is_not_replayed_and_a_watcher_may_stay() -> None:
    machine = TableMachine(_table(None), until_game_over=False)
    _push(machine, _state(seat=None))
    over = _over()
    assert _push(machine, over) == [
        ShowPush(over),
        ShowInfo(
            "Still watching table t1: its next game shows here (q + Enter to stop)", "watching_on"
        ),
    ]
    finished = _state("finished", seat=None)
    assert _push(machine, finished) == [ShowPush(finished)]
    assert game_over_from_state(_state("finished")) is None  # a player's state: no stand-in


def test_a_rematch_does_not_wait_for_host_bots() -> None:
    """Bots are ready whenever the people are; the line named them ("Waiting for Bot-1")."""
    bot = {**_seat(1, "Bot-1", ready=False), "bot": "host:heuristic"}
    info = _finished(_seat(0, "Ann", ready=True), bot, None)
    assert waiting_for(info, 0) == ["seat 2 (empty)"]
    assert waiting_for(None, 0) == []
