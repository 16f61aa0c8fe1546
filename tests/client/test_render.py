"""Golden snapshots of what the client draws, from real engine views with the deck in canonical
order (no randomness): the table, the hand with numbered moves, and the log lines of the first
turns of each game. ``ONECARD_REGEN_RENDER=1 pytest tests/client/test_render.py`` rewrites the
files under ``tests/data/render/`` after a deliberate change (review the diff)."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from client.choices import build_menu
from client.render import (
    OutputClosed,
    card_text,
    make_console,
    render_outcome,
    suit_text,
)
from client.table_view import render_table
from client.wording import describe_event
from host.games import find_game, game_names

DATA = Path(__file__).parent.parent / "data" / "render"
REGEN = os.environ.get("ONECARD_REGEN_RENDER") == "1"
NAMES = ["Ann", "Bob", "Cy"]


def _name(seat: object) -> str:
    return NAMES[seat] if isinstance(seat, int) and 0 <= seat < len(NAMES) else f"seat {seat}"


def _snapshot(name: str, console: Console) -> None:
    text = console.export_text()
    path = DATA / f"{name}.txt"
    if REGEN or not path.exists():
        path.write_text(text, encoding="utf-8")
        if not REGEN:
            pytest.fail(f"wrote missing snapshot {path}; run again")
    assert text == path.read_text(encoding="utf-8"), f"{path} differs (ONECARD_REGEN_RENDER=1)"


def _play(game: str, steps: int, *, ascii_only: bool) -> Console:
    """Deal with the canonical deck, then play the first legal action ``steps`` times."""
    console = Console(record=True, width=80, file=io.StringIO(), highlight=False, markup=False)
    engine: Any = find_game(game).new_initial_state(seats=3, dealer=0)
    events = engine.apply_chance(list(engine.chance_request().cards))
    for _ in range(steps):
        for ev in events:
            wire = ev.to_wire()
            if wire.get("to") not in (None, 1):
                continue
            line = describe_event(wire, _name, me=1, ascii_only=ascii_only)
            if line is not None:
                console.print(line)
        while engine.chance_request() is not None:  # a reshuffle: answer in canonical order
            events = engine.apply_chance(list(engine.chance_request().cards))
        seat = engine.to_act()[0]
        legal = [a.to_wire() for a in engine.legal_actions(seat)]
        if seat == 1:
            view = engine.view(1)
            console.print(render_table(view, NAMES, me=1, to_act=[1], ascii_only=ascii_only))
            console.print(
                build_menu(view, legal, ascii_only=ascii_only).render(ascii_only=ascii_only)
            )
        pick = next((a for a in legal if a["type"] == "play"), legal[0])
        events = engine.apply(seat, engine.parse_action(pick))
    return console


@pytest.mark.parametrize("game", game_names())
def test_first_turns(game: str) -> None:
    _snapshot(f"{game}-first-turns", _play(game, 12, ascii_only=False))


def test_first_turns_ascii() -> None:
    _snapshot("one-card-first-turns-ascii", _play("one-card", 12, ascii_only=True))


def test_outcomes() -> None:
    console = Console(record=True, width=80, file=io.StringIO())
    console.print(render_outcome({"termination": "went_out", "winners": [1]}, NAMES))
    console.print(
        render_outcome({"termination": "ranked", "winners": [2], "ranking": [2, 0, 1]}, NAMES)
    )
    console.print(
        render_outcome({"termination": "target", "winners": [0], "scores": [31, 12, 9]}, NAMES)
    )
    console.print(render_outcome({"termination": "exhausted", "winners": [0, 2]}, NAMES))
    console.print(render_outcome({"termination": "turn_limit", "winners": [1]}, NAMES))
    console.print(
        render_outcome({"termination": "last_standing", "winners": [2]}, NAMES, [-1, -1, 6])
    )
    _snapshot("outcomes", console)


def test_a_bankruptcy_is_worded_with_its_cards_and_shown_at_the_seat() -> None:
    line = describe_event(
        {"kind": "bankrupt", "seat": 1, "reason": "limit", "count": 21, "cards": ["2H"] * 21},
        _name,
    )
    assert line is not None
    assert line.plain.startswith("Bob is bankrupt with 21 cards: out of the game")
    cannot = describe_event(
        {"kind": "bankrupt", "seat": 0, "reason": "cannot_pay", "count": 9, "place": 3}, _name
    )
    assert cannot is not None and "Ann is bankrupt with 9 cards and cannot pay (place 3)" in (
        cannot.plain
    )
    view = {"game": "one-card", "hand_counts": [0, 5, 7], "bankrupt": [0], "top": "5H"}
    table = render_table(view, NAMES, me=1).plain
    assert "Ann   0 cards  (bankrupt)" in table


def test_red_suits_are_red_and_black_suits_use_the_default_colour() -> None:
    assert card_text("7H").style == "red" and card_text("QD").style == "red"
    assert card_text("7S").style == "" and card_text("KC").style == ""
    assert card_text("JR").style == "red" and card_text("JB").style == ""
    assert card_text("9H", dim=True).style == "red dim"
    assert suit_text("D", named=True).plain == "♦ diamonds"
    assert card_text("10C", ascii_only=True).plain == "10C"


def test_no_colour_when_not_a_terminal_or_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from client.render import make_console

    out = io.StringIO()
    make_console(file=out).print(card_text("7H"))
    assert out.getvalue() == "7♥\n"
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = io.StringIO()
    make_console(file=out).print(card_text("7H"))
    assert "\x1b[31m" not in out.getvalue()


@pytest.mark.parametrize(
    ("event", "text"),
    [
        (
            {"kind": "stood_up", "seat": 1, "name": "Bob", "misses": 2},
            "Bob missed 2 deal rounds in a row and is stood up: the host plays the seat to the end",
        ),
        (
            {"kind": "timeout", "seat": 0, "action": {"type": "draw"}},
            "Ann ran out of time; the host plays: ",
        ),
    ],
)
def test_host_events_read_as_sentences(event: dict[str, Any], text: str) -> None:
    line = describe_event(event, _name, me=1)
    assert line is not None and line.plain.startswith(text)


def test_a_declaration_flag_reads_as_declared_not_true() -> None:
    """Black Jack's view marks a declaration with a flag (seen as 'said "True"' before)."""
    from host.games import find_game

    engine: Any = find_game("black-jack").new_initial_state(seats=2, dealer=0)
    engine.apply_chance(list(engine.chance_request().cards))
    view = engine.view(0)
    view["declared"] = [False, True]
    console = Console(record=True, width=80, file=io.StringIO(), highlight=False, markup=False)
    console.print(render_table(view, NAMES, me=0, to_act=[0]))
    text = console.export_text()
    assert "(declared)" in text and "True" not in text


class _ClosedPipe(io.StringIO):
    """An output whose reader has gone away."""

    def write(self, s: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_output_raises_output_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, rich redirected stdout itself and raised SystemExit, which trio wrapped in a
    group and Python printed as a 40-line traceback (``onecard play --watch | head -2``)."""
    monkeypatch.setattr(os, "dup2", lambda *args: None)  # never touch the test's own stdout
    console = make_console(file=_ClosedPipe())
    with pytest.raises(OutputClosed):
        console.print("Bob plays 7S")


@pytest.mark.parametrize(
    ("event", "text"),
    [
        ({"kind": "trick", "winner": 1, "points": 1}, "Bob takes the trick (1 pt)"),
        ({"kind": "trick", "winner": 1, "points": 3}, "Bob takes the trick (3 pts)"),
        (
            {"kind": "draw", "seat": 0, "count": 2, "reason": "deal", "cards": ["AH", "KS"]},
            "Ann is dealt AH KS",
        ),
        ({"kind": "draw", "seat": 2, "count": 7, "reason": "deal"}, "Cy is dealt 7 cards"),
        (
            {"kind": "play", "seat": 0, "cards": ["JR", "5D"], "declare": ["4D"]},
            "Ann plays JR (as 4D) 5D",
        ),
        (
            {
                "kind": "hand_end",
                "bidder": 0,
                "bid": 9,
                "made": False,
                "points": [5, 6, 4],
                "hand_scores": [0, 6, 4],
                "scores": [0, 6, 4],
            },
            "Hand over: Ann missed the bid of 9. Points taken: Ann 5, Bob 6, Cy 4. "
            "Scores: Ann 0, Bob 6, Cy 4",
        ),
        (
            {
                "kind": "hand_end",
                "bidder": None,
                "bid": None,
                "made": None,
                "points": [5, 6, 4],
                "scores": [5, 6, 4],
            },
            "Hand over: no one bid. Points taken: Ann 5, Bob 6, Cy 4. Scores: Ann 5, Bob 6, Cy 4",
        ),
    ],
)
def test_event_wording(event: dict[str, Any], text: str) -> None:
    """Before: "(1 pts)", Black Jack's deal "draws", "JR 5D as 4D", no points taken, and an
    all-pass hand said only "Hand over. Scores: ..."."""
    line = describe_event(event, _name, me=0, ascii_only=True)
    assert line is not None and line.plain == text


def _table_text(view: dict[str, Any], me: int = 0) -> str:
    return render_table(view, NAMES, me=me, to_act=view.get("to_act", []), ascii_only=True).plain


def test_black_jack_says_pick_up_and_one_card_says_attack() -> None:
    """Before, Black Jack's pick-up was shown as a "Pending attack"."""
    bj = {"game": "black-jack", "top": "2S", "pending": 2, "hand_counts": [3, 4]}
    assert "Pick-up: 2 cards to pick up" in _table_text(bj) and "attack" not in _table_text(bj)
    oc = {"game": "one-card", "top": "2S", "damage": 2, "hand_counts": [3, 4]}
    assert "Pending attack: 2 cards" in _table_text(oc)


def test_the_one_bidder_is_told_the_first_lead_sets_trump() -> None:
    view = {
        "game": "one",
        "phase": "play",
        "trump": None,
        "no_trump": False,
        "to_act": [0],
        "auction": {"high": 9, "bidder": 0},
        "hand_counts": [8, 8, 8],
    }
    assert "the suit of the card you lead now is trump" in _table_text(view)
    assert "you lead now" not in _table_text(view, me=1)
    assert "you lead now" not in _table_text({**view, "trump": "S"})


def _line(event: dict[str, Any]) -> str:
    text = describe_event(event, _name, me=0)
    assert text is not None
    return text.plain


def test_a_reshuffle_of_one_card_and_a_dry_draw_read_right() -> None:
    """Before: "The discards (1 cards) are shuffled" and "Cy is spared 1: nothing left to
    draw" for a plain draw from an empty stock."""
    assert _line({"kind": "reshuffle", "stream": 1, "count": 1}) == (
        "1 discarded card is shuffled into a new stock"
    )
    assert _line({"kind": "reshuffle", "stream": 2, "count": 12}) == (
        "12 discarded cards are shuffled into a new stock"
    )
    assert _line({"kind": "forgiven", "seat": 2, "count": 1, "reason": "draw"}) == (
        "Cy draws nothing: the stock is empty and no discards are left to shuffle"
    )
    assert _line({"kind": "forgiven", "seat": 1, "count": 3, "reason": "attack"}) == (
        "Bob is let off 3 cards (the attack): the stock is empty and no discards are left to "
        "shuffle"
    )


def test_after_an_attack_the_table_says_only_a_card_just_drawn_may_follow() -> None:
    """Before, ``May follow: any ♦`` although only the cards just drawn could be played."""
    follow = {"suits": [], "ranks": [], "cards": ["5D"], "only": "drawn"}
    view = {"game": "one-card", "top": "2D", "suit": "D", "phase": "after_attack", "follow": follow}
    shown = render_table(view, NAMES, me=1).plain
    assert "May follow: only a card just drawn: 5♦\n" in shown
    view["follow"] = {"suits": ["D"], "ranks": [], "cards": [], "only": "drawn"}  # a spectator
    assert "May follow: only a card just drawn: any ♦\n" in render_table(view, NAMES, me=None).plain
