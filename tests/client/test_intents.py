"""client/intents.py: the typed commands and the checks both front ends share."""

from __future__ import annotations

import dataclasses

import pytest

from client.intents import (
    ActIntent,
    AddBotIntent,
    ChatIntent,
    ExplainIntent,
    LeaveIntent,
    RematchIntent,
    chat_problem,
    rematch_answer,
)


def test_help_or_the_table_at_play_again_keeps_the_question() -> None:
    """Before, "?" or "t" typed at "Play again?" left the table."""
    assert [rematch_answer(x) for x in ("y", "YES", '{"cmd": "rematch"}')] == [True] * 3
    assert [rematch_answer(x) for x in ("?", "t", "help", "say hi", '{"cmd": "chat"}')] == [
        None
    ] * 5
    assert [rematch_answer(x) for x in ("n", "", "q", '{"cmd": "quit"}', "{bad")] == [False] * 5


def test_a_leave_command_at_play_again_is_read_by_the_front_end() -> None:
    """``{"cmd": "leave"}`` is no answer: the front end reads it (a LeaveIntent), as mid-game."""
    assert rematch_answer('{"cmd": "leave"}') is None
    assert rematch_answer('["rematch"]') is False


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("hi", None),
        ("x" * 500, None),
        ("", "nothing to say"),
        ("x" * 501, "chat not sent: too long (501 characters, at most 500)"),
        ("a\x1bb", "chat not sent: it contains control characters"),
    ],
)
def test_a_chat_line_is_checked_against_the_protocols_limits(
    text: str, problem: str | None
) -> None:
    assert chat_problem(text) == problem


def test_commands_are_values() -> None:
    """Front ends return them and tests compare them: equal by value, and never changed."""
    assert ActIntent({"type": "draw"}) == ActIntent({"type": "draw"}) != ActIntent({"type": "pass"})
    assert LeaveIntent() == LeaveIntent(give_up=False) != LeaveIntent(give_up=True)
    assert [ChatIntent("hi"), ExplainIntent("QS"), AddBotIntent(), RematchIntent(True)] == [
        ChatIntent("hi"),
        ExplainIntent("QS"),
        AddBotIntent(),
        RematchIntent(yes=True),
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ChatIntent("hi").text = "bye"  # type: ignore[misc]
