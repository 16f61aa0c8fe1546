"""client/tracking.py: who dropped and came back, which game and hand a table hand is, and the
cards each seat is left holding; on their own and as the front ends word them."""

from __future__ import annotations

import dataclasses
import io
import json
from collections.abc import Callable
from typing import Any

import protocol.table_messages as tm
from client.json_ui import JsonUI
from client.tracking import CardsLeft, DealNumbers, Presence

VIEW = {
    "game": "one-card",
    "hand": ["7S", "9H", "KC"],
    "top": "7D",
    "suit": "D",
    "hand_counts": [5, 3, 4],
    "direction": "clockwise",
    "stock": 20,
}


def _info(phase: str, *connected: bool) -> tm.TableInfo:
    names = ["Ann", "Bob", "Cy"]
    seats = tuple(
        {"seat": i, "name": names[i], "bot": None, "connected": c, "ready": True}
        for i, c in enumerate(connected)
    )
    return tm.TableInfo(
        table="t1",
        name="t1",
        game="one",
        options={},
        seats=seats,
        phase=phase,
        game_no=1,
        spectators=0,
        turn_timer=None,
        voids=0,
    )


def test_players_are_told_when_another_seat_drops_or_comes_back(
    table_client: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, a seat's connection dying (kill -9) or resuming showed nothing to the others."""
    ui, out = human_ui()
    tc = table_client()
    ui.on_push(tc, _info("playing", True, True, True), [])
    ui.on_push(tc, _info("playing", False, True, True), [])
    assert "Ann dropped (the host plays for Ann after the grace period)" in out.getvalue()
    ui.on_push(tc, _info("playing", True, False, True), [])  # our own flag is not news
    assert "Ann is back" in out.getvalue() and "Bob" not in out.getvalue()
    ui.on_push(tc, _info("finished", True, True, False), [])
    assert "Cy dropped (the seat is freed if Cy is not back" in out.getvalue()
    lines = io.StringIO()
    js = JsonUI(lines)
    js.on_push(tc, _info("playing", True, True, True), [])
    js.on_push(tc, _info("playing", True, True, False), [])
    presence = json.loads(lines.getvalue().splitlines()[-1])
    said = "Cy dropped (the host plays for Cy after the grace period)"
    assert presence == {
        "type": "presence",
        "seat": 2,
        "name": "Cy",
        "connected": False,
        "left": False,
        "message": said,
    }


def test_the_outcome_of_a_shedding_game_shows_the_cards_left(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, a Black Jack game ended with just "Bot-2 wins!" (its outcome names only the
    winner); the last state before it is followed by the winning play."""
    ui, out = human_ui()
    tc = table_client()
    view = {**VIEW, "game": "black-jack", "hand_counts": [1, 3, 4]}
    ui.on_push(tc, push_state(tc, view, [], [0]), [])
    ui.on_push(
        tc, tm.EventPush(table="t1", seq=6, event={"kind": "draw", "seat": 2, "count": 2}), []
    )
    ui.on_push(
        tc, tm.EventPush(table="t1", seq=7, event={"kind": "play", "seat": 0, "cards": ["AC"]}), []
    )
    outcome = {"termination": "went_out", "winners": [0], "ranking": None, "scores": None}
    ui.on_push(tc, tm.GameOver(table="t1", seq=8, game_no=1, outcome=outcome), [])
    assert "Ann wins! (first out of cards) Cards left: Ann 0, Bob 3, Cy 6\n" in out.getvalue()


def test_a_rematchs_hands_are_numbered_the_same_way_on_every_line(
    table_client: Callable[..., Any], push_state: Callable[..., Any], human_ui: Callable[..., Any]
) -> None:
    """Before, game 2 said "Hand 1: Bob deals" and then "hand 2: deal verified" (the table's
    count of hands), which read as two different hands."""
    from net.fairplay import FairKind, FairNotice

    ui, out = human_ui()
    tc = table_client()
    tc.game_no, tc.checker.hand_no = 2, 2  # game 2's first hand is the table's second
    ui.on_push(tc, tm.GameStart(table="t1", seq=1, game_no=2, game="one", names=("A", "B")), [])
    deal = tm.EventPush(table="t1", seq=2, event={"kind": "deal", "hand_no": 1, "dealer": 1})
    ui.on_push(tc, deal, [])
    verdict = FairNotice(FairKind.VERIFIED, 2, "deal verified: 24 cards checked")
    ui.on_push(tc, tm.EventPush(table="t1", seq=3, event={"kind": "turn"}), [verdict])
    text = out.getvalue()
    assert "Game 2, hand 1: Bob deals" in text
    assert "table hand 2 (game 2, hand 1): deal verified: 24 cards checked" in text
    view = {"game": "one", "hand_no": 1, "target": 30, "hand_counts": [8, 8]}
    tc.seat = 0
    tc.state = dataclasses.replace(push_state(tc, view, [], [1]), game_no=2)
    ui.on_line(tc, "t")
    assert "Game 2, hand 1   target 30" in out.getvalue()
    lines = io.StringIO()
    js = JsonUI(lines)
    js.on_push(tc, deal, [])
    js.on_push(tc, tm.EventPush(table="t1", seq=3, event={"kind": "turn"}), [verdict])
    objs = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert objs[0]["text"] == "Game 2, hand 1: Bob deals"
    assert objs[-1]["hand_no"] == 2 and objs[-1]["game_no"] == 2 and objs[-1]["game_hand_no"] == 1


def test_after_our_own_reconnect_the_next_table_info_is_a_quiet_baseline() -> None:
    presence = Presence()
    presence.see(_info("playing", True, True, True), 1)
    dropped = presence.see(_info("playing", False, True, True), 1)
    assert [(seat, name, back) for seat, name, back, _ in dropped] == [(0, "Ann", False)]
    presence.reconnected()
    # the baseline: Ann (said to drop) is back; Cy is missing, never said to have dropped
    told = presence.see(_info("playing", True, True, False), 1)
    assert [line for *_, line in told] == ["Ann is back"]
    assert presence.see(_info("playing", True, True, True), 1) == []  # Cy: not "back"
    again = presence.see(_info("playing", True, True, False), 1)  # a drop after it is news
    assert [line for *_, line in again] == [
        "Cy dropped (the host plays for Cy after the grace period)"
    ]


def test_a_seat_freed_is_said_to_be_left_once() -> None:
    presence = Presence()
    presence.see(_info("finished", True, True, True), 0)
    freed = dataclasses.replace(
        _info("finished", True, True), seats=(*_info("finished", True, True).seats, None)
    )
    assert [line for *_, line in presence.see(freed, 0)] == ["Cy left the table"]
    assert presence.see(freed, 0) == []


def test_deal_numbers_name_the_game_and_hand_only_when_they_say_more(
    table_client: Callable[..., Any],
) -> None:
    deals, tc = DealNumbers(), table_client()
    tc.game_no, tc.checker.hand_no = 1, 1
    deals.see(tc, tm.EventPush(table="t1", seq=2, event={"kind": "deal", "hand_no": 1}))
    tc.game_no, tc.checker.hand_no = 2, 3
    deals.see(tc, tm.EventPush(table="t1", seq=9, event={"kind": "deal", "hand_no": 1}))
    assert deals.label(1) == "table hand 1"  # game 1, hand 1: nothing more to say
    assert deals.label(3) == "table hand 3 (game 2, hand 1)"
    assert deals.label(2) == "table hand 2"  # (a voided round: no deal event)


def test_cards_left_follow_the_public_events_after_the_last_state(
    table_client: Callable[..., Any], push_state: Callable[..., Any]
) -> None:
    left, tc = CardsLeft(), table_client()
    assert left.shown is None
    left.see(push_state(tc, {**VIEW, "hand_counts": [2, 3, 4]}, [], [0]))
    left.see(tm.EventPush(table="t1", seq=6, event={"kind": "play", "seat": 0, "cards": ["AC"]}))
    left.see(tm.EventPush(table="t1", seq=7, event={"kind": "draw", "seat": 1, "count": 2}))
    left.see(tm.EventPush(table="t1", seq=8, event={"kind": "bankrupt", "seat": 2}))
    assert left.shown == [1, 5, -1]
    old = tm.EventPush(table="t1", seq=3, event={"kind": "play", "seat": 1, "cards": ["2C"]})
    left.see(old)  # sent again (a resume's backlog): already counted
    assert left.shown == [1, 5, -1]
    left.see(tm.GameStart(table="t1", seq=10, game_no=2, game="one-card", names=("A", "B", "C")))
    assert left.shown is None
