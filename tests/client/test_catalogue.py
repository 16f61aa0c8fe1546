"""What the client keeps of the host's ``games`` reply, and when it asks for it."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import protocol.table_messages as tm
from client.catalogue import CATALOGUE, MISSING, Catalogue, GameText
from client.table_client import TableClient
from host.games import game_entries, game_names
from net.session import RequestError, open_session
from net.trust import open_stream
from protocol.errors import ErrorCode
from protocol.messages import Error, Message

CLIENT = Path(__file__).resolve().parents[2] / "client"


def _strings(path: Path) -> set[str]:
    """Every string constant of a module's code (docstrings left out)."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    }


def test_the_client_holds_no_table_per_game() -> None:
    """Before, titles, help lines, letters and the wording of 31 event kinds were tables in
    client/render.py and client/choices.py, keyed by game name; now they come from the host."""
    for name in ("catalogue.py", "wording.py", "render.py", "choices.py"):
        for text in _strings(CLIENT / name):
            assert text not in game_names(), (name, text)
            assert "One Card" not in text and "Black Jack" not in text, (name, text)


def test_a_games_reply_gives_titles_help_letters_and_wording() -> None:
    c = Catalogue(game_entries())
    assert list(c.games) == game_names()
    assert c.title("black-jack") == "Black Jack" and c.title("snap") == "snap"
    assert c.help("one").startswith("ONE: in the auction") and c.help("snap") == ""
    assert c.key("one-card", "call") == "c" and c.key("one", "pass") == "p"
    assert c.key("one", "draw") == "d"  # a letter names one action type in every game
    assert c.letters() == {"d", "c", "l", "p"}
    assert c.refusal("one", "c") == "ONE has no calls to make"
    assert c.refusal("one", "d") == "ONE has no drawing: every card is dealt, play one of yours"
    assert c.refusal("one-card", "d") == "you cannot draw now"  # (only not now)
    assert c.refusal("one-card", "x") is None
    assert c.games["black-jack"].calls == {"declare"} and c.games["one"].calls == frozenset()
    assert c.calls("black-jack") == {"declare"} and c.calls(None) == {"call", "declare"}
    assert c.games["one"].layout == "tricks" and c.games["one-card"].layout == "shedding"
    assert c.games["one"].table and c.games["one"].seat_columns and c.games["one-card"].seat_tags
    assert c.word("last_card") == "last card" and c.word("cards") == "cards"
    assert c.event("call_window") == "{holder:name} has one card left!"
    assert c.event("turn") is None and c.event("snap") is MISSING


def test_the_tables_game_is_asked_first() -> None:
    c = Catalogue(
        [
            {"name": "a", "events": {"x": "a's x"}, "actions": {"y": "a's y"}},
            {"name": "b", "events": {"x": "b's x"}, "words": {"w": "b's w"}},
        ]
    )
    assert c.event("x") == "a's x" and c.event("x", "b") == "b's x"
    assert c.action("y", "b") == "a's y" and c.word("w", "a") == "b's w"


def test_a_host_that_says_little_or_wrongly_typed_things_gets_generic_wording() -> None:
    """Older hosts send name, title, seats and options only; a broken entry is skipped."""
    c = Catalogue(
        [
            {"name": "old", "title": "Old Game", "min_seats": 2, "max_seats": 4, "options": []},
            {"title": "no name"},
            "not a map",  # type: ignore[list-item]
            {
                "name": "odd",
                "keys": {"draw": "d", "pass": {"key": 7}},
                "calls": "call",
                "events": ["x"],
                "words": {"a": 1},
            },
        ]
    )
    assert list(c.games) == ["old", "odd"]
    assert c.title("old") == "Old Game" and c.title("odd") == "odd"
    assert c.key("odd", "draw") is None and c.games["odd"].calls == frozenset()
    assert c.event("x") is MISSING and c.word("a") == "a"


def test_what_a_host_says_is_made_safe_when_it_is_learnt() -> None:
    c = Catalogue(
        [
            {
                "name": "g\x1b[2J",
                "title": "T\x1b]0;pwned\x07",
                "help": "h\u202e",
                "keys": {"draw": {"key": "d", "none": "no\x1b[31m"}},
            }
        ]
    )
    (game,) = c.games.values()
    assert game == GameText(
        name="g\\x1b[2J",
        title="T\\x1b]0;pwned\\x07",
        help="h\\u202e",
        keys={"draw": "d"},
        unavailable={"d": "no\\x1b[31m"},
    )


def test_forgetting_goes_back_to_generic_wording() -> None:
    assert CATALOGUE.learned and CATALOGUE.title("one") == "ONE"
    CATALOGUE.forget()
    assert not CATALOGUE.learned and CATALOGUE.title("one") == "one"
    assert dict(CATALOGUE.titles) == {} and CATALOGUE.helps.get("one") is None


class _Session:
    """Answers join and, when ``games`` is given, list_games; refuses it otherwise."""

    def __init__(self, games: list[dict[str, Any]] | None) -> None:
        self.games = games
        self.sent: list[Message] = []

    async def request(self, msg: Message) -> Message:
        self.sent.append(msg)
        if isinstance(msg, tm.Join):
            return tm.Joined(re=1, table="t1", seat=0, token="t" * 20)
        if isinstance(msg, tm.Watch):
            return tm.Watching(re=1, table="t1")
        if self.games is None:
            raise RequestError(Error(code=ErrorCode.UNKNOWN_TYPE, message="?", fatal=False))
        return tm.Games(re=1, games=tuple(self.games))


async def test_a_seat_asks_how_the_hosts_games_read_once() -> None:
    CATALOGUE.forget()
    session = _Session([{"name": "snap", "title": "Snap!"}])
    await TableClient(session, table_id="t1", name="Ann").join()  # type: ignore[arg-type]
    await TableClient(session, table_id="t1").watch()  # type: ignore[arg-type]
    assert [type(m) for m in session.sent] == [tm.Join, tm.ListGames, tm.Watch]
    assert CATALOGUE.learned and CATALOGUE.title("snap") == "Snap!"


async def test_a_host_that_refuses_to_list_its_games_leaves_the_generic_wording() -> None:
    CATALOGUE.forget()
    session = _Session(None)
    tc = TableClient(session, table_id="t1", name="Ann")  # type: ignore[arg-type]
    assert await tc.join() == 0 and tc.token == "t" * 20
    assert not CATALOGUE.learned and CATALOGUE.games == {}


@pytest.mark.parametrize("watch", [False, True])
async def test_a_real_host_tells_a_new_client_its_titles_and_wording(
    start_host: Any, watch: bool
) -> None:
    info = await start_host()
    table = await info.host.create_table("one", seats=2)
    CATALOGUE.forget()
    connected = await open_stream(
        "127.0.0.1", info.port, insecure=not info.tls, expect=info.fingerprint
    )
    async with open_session(connected.stream) as session:
        tc = TableClient(session, table_id=table, name="Ann")
        await (tc.watch() if watch else tc.join())
    assert CATALOGUE.title("one") == "ONE" and CATALOGUE.key("one", "pass") == "p"
    assert CATALOGUE.games == Catalogue(game_entries()).games
