"""The lobby of ``onecard join``: list a host's tables, then join, watch or create one.

How it works: :func:`run_lobby` lists the tables and reads commands until one is joined or
watched. People type a table number, ``w NUMBER``, ``c GAME [SEATS] [BOTS] [KEY=VALUE ...]``,
``r``, ``?`` or ``q``; ``--json`` scripts send one JSON object per line
(``{"cmd": "join", "table": ...}``, ``create``, ``watch``, ``list``, ``quit``) and get a
``tables`` event after each. The games people may create are the host's: the lobby asks it
(``list_games``, kept in :data:`client.catalogue.CATALOGUE`) and its help names them
(:func:`lobby_help`). :func:`parse_lobby` turns a line into a command without I/O, so a
typo only gets its own message; the host's refusals are shown and the lobby goes on. The host
closing while we wait for input ends the lobby at once with :class:`net.session.Disconnected`.
"""

from __future__ import annotations

import json
from typing import Any

import click
import trio

import protocol.table_messages as tm
from client.catalogue import CATALOGUE, Catalogue
from client.choices import clip
from client.commands import Quit, parse_options
from client.human_ui import HumanUI
from client.json_ui import JsonUI
from client.stdin import read_line
from client.table_client import TableClient
from net.session import ClientSession, Disconnected, RequestError, expect_reply
from protocol.errors import LocalProtocolError

__all__ = [
    "CREATE_USAGE",
    "SEATS_RANGE",
    "create_table",
    "describe_table",
    "lobby_help",
    "parse_lobby",
    "run_lobby",
    "too_many_bots",
]

#: seats a new table may have (``--seats`` and the lobby's ``c``); host bots go up to one less
SEATS_RANGE = (2, 10)
#: seats a ``create_table`` may ask for (spec/PROTOCOL.md); the host refuses what its game cannot
PROTOCOL_SEATS = (1, 16)
#: the lobby's create command, as its errors name it
CREATE_USAGE = "c GAME [SEATS] [BOTS] [private] [KEY=VALUE ...]"


def lobby_help(catalogue: Catalogue | None = None) -> str:
    """What the lobby's ``?`` says, with the games the host said it runs (and their seats).

    >>> print(lobby_help(Catalogue([{"name": "snap", "min_seats": 2, "max_seats": 4,
    ...     "options": [{"name": "fast", "default": False}]}, {"name": "go"}])))
    Type a table number to join it, w NUMBER to watch, c GAME [SEATS] [BOTS] [private] \
[KEY=VALUE ...] to create a table and sit down (games: snap 2-4 seats, go; BOTS fill seats; \
private: the host sees no hidden card; KEY=VALUE sets a table option, as --option: c snap 3 1 \
fast=off), r to list the tables again, ? for this help, q to quit.
    """
    games = list((CATALOGUE if catalogue is None else catalogue).games.values())
    named = ", ".join(
        f"{g.name} {g.seats[0]}-{g.seats[1]} seats" if g.seats else g.name for g in games
    )
    example = ""
    for game in games:
        if game.options:
            option, default = next(iter(game.options.items()))
            value = ("on" if default else "off") if isinstance(default, bool) else default
            seats = min(max(3, game.seats[0] if game.seats else 3), PROTOCOL_SEATS[1])
            example = f": c {game.name} {seats} 1 {option}={value}"
            break
    return (
        f"Type a table number to join it, w NUMBER to watch, {CREATE_USAGE} to create a table "
        f"and sit down (games: {named or 'the host did not say'}; BOTS fill seats; private: the "
        f"host sees no hidden card; KEY=VALUE sets a table option, as --option{example}), r to "
        "list the tables again, ? for this help, q to quit."
    )


async def _learn_games(session: ClientSession) -> None:
    """Ask the host which games it runs, unless this process knows already (a refusal leaves
    the help without them)."""
    if CATALOGUE.learned:
        return
    try:
        reply = await session.request(tm.ListGames())
    except RequestError:
        return
    if isinstance(reply, tm.Games):
        CATALOGUE.learn(reply.games)


def describe_table(i: int, t: dict[str, Any]) -> str:
    """One table of the lobby's list; a seat the host's bot plays for a player who left (or
    for one away) says so, rather than list the player as still sitting there.

    >>> print(describe_table(1, {"table": "t1", "game": "snap", "phase": "playing", "seats": [
    ...     {"name": "Ann", "bot": "host", "substitute": True}, {"name": "Bob"},
    ...     {"name": "Cy", "bot": None, "substitute": True}]}))
      1) t1  snap  3/3 seats  playing (a bot for Ann, Bob, Cy (away: a bot plays))
    """
    seats = t.get("seats") or []
    taken = [_seat_label(s) for s in seats if s]
    who = f" ({', '.join(taken)})" if taken else ""
    return f"  {i}) {t.get('table')}  {t.get('game')}  {len(taken)}/{len(seats)} seats  " + (
        f"{t.get('phase')}{who}"
    )


def _seat_label(seat: dict[str, Any]) -> str:
    name = str(seat.get("name"))
    if not seat.get("substitute"):
        return name
    return f"a bot for {name}" if seat.get("bot") else f"{name} (away: a bot plays)"


async def _read_lobby_line(session: ClientSession) -> str | None:
    """The next input line, or :class:`Disconnected` as soon as the host closes meanwhile."""
    line: str | None = None
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            nonlocal line
            line = await read_line()
            nursery.cancel_scope.cancel()

        async def watch_close() -> None:
            await session.closed.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(read)
        nursery.start_soon(watch_close)
    if line is None and session.closed.is_set():
        raise Disconnected(session.closed_reason or "the host closed the connection")
    return line


async def run_lobby(
    session: ClientSession,
    tc_args: dict[str, Any],
    ui: HumanUI | JsonUI,
    *,
    name: str,
) -> tuple[TableClient, bool]:
    """Ask what to do until a table is joined or watched; return it and whether we sat down.

    People see the tables and the help once, then again on ``r`` (list) and ``?`` (help) and
    after the host refuses something; a typo only gets its own message. ``--json`` scripts get
    a ``tables`` event after every command.
    """
    try:
        return await _lobby_loop(session, tc_args, ui, name=name)
    except Disconnected as exc:
        raise Disconnected(session.closed_reason or str(exc)) from None


async def _lobby_loop(  # noqa: C901, PLR0912
    session: ClientSession,
    tc_args: dict[str, Any],
    ui: HumanUI | JsonUI,
    *,
    name: str,
) -> tuple[TableClient, bool]:
    json_mode = isinstance(ui, JsonUI)
    show_tables = show_help = True
    tables: list[dict[str, Any]] = []
    while True:
        if show_tables:
            reply = expect_reply(await session.request(tm.ListTables()), tm.Tables)
            tables = [dict(t) for t in reply.tables]
            if isinstance(ui, JsonUI):
                ui.emit({"type": "tables", "tables": tables})
            else:
                ui.info("Tables:" if tables else "No tables yet.")
                for i, t in enumerate(tables, 1):
                    ui.info(describe_table(i, t))
        if isinstance(ui, HumanUI):
            if show_help:
                await _learn_games(session)
                ui.info(lobby_help())
            ui.prompt("Lobby> ")
        show_tables, show_help = json_mode, False
        line = await _read_lobby_line(session)
        if line is None:
            raise Quit
        try:
            verb, arg, extra = parse_lobby(line, tables, json_mode=json_mode)
        except ValueError as exc:
            if str(exc):
                ui.info(str(exc), kind="error")
            else:  # an empty message means "list again"
                show_tables = True
            continue
        try:
            if verb == "quit":
                raise Quit
            if verb == "help":
                show_help = True
                continue
            if verb == "create":
                arg = await create_table(
                    session,
                    arg,
                    int(extra.get("seats", 2)),
                    extra.get("options") or {},
                    bots=int(extra.get("bots", 0)),
                    private=bool(extra.get("private", False)),
                )
                verb = "join"
            if verb in ("join", "watch"):
                tc = TableClient(session, table_id=arg, name=name, **tc_args)
                if verb == "watch":
                    tc.name = tc.checker.pid = None
                    await tc.watch(name)
                    return tc, False
                await tc.join()
                return tc, True
        except RequestError as exc:
            ui.info(f"the host refused: {exc.error.message}", kind="error")
            show_tables = True
        except LocalProtocolError as exc:  # a request we could not even build
            ui.info(f"not sent: {exc.message}", kind="error")


async def create_table(
    session: ClientSession,
    game: str,
    seats: int,
    options: dict[str, Any],
    *,
    bots: int,
    private: bool = False,
) -> str:
    """Create a table and seat ``bots`` host bots in it (we take a seat next); return its id.
    ``private``: a private table (PROTOCOL.md section 10), where the host sees no hidden card
    (a host that does not run them refuses with ``bad_field``: RequestError)."""
    created = await session.request(
        tm.CreateTable(game=game, seats=seats, options=options, private=private)
    )
    assert isinstance(created, tm.TableCreated)
    for _ in range(min(bots, seats - 1)):
        await session.request(tm.AddBot(table=created.table))
    return created.table


def _count(cmd: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    """``cmd[key]`` as a whole number within ``low..high`` (``ValueError`` says what is wrong)."""
    value = cmd.get(key, default)  # a JSON integer ("1", a string, is refused)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be a whole number from {low} to {high}")
    if not low <= value <= high:
        raise ValueError(f"{key} must be from {low} to {high}, not {value}")
    return value


def too_many_bots(seats: int, bots: int) -> str:
    """Why ``bots`` do not fit at a new table of ``seats`` (you take a seat too)."""
    return (
        f"{bots} bots do not fit at a table of {seats} seats: at most {seats - 1} "
        "(you take a seat too)"
    )


def _create_extra(cmd: dict[str, Any]) -> dict[str, Any]:
    """The checked ``seats``, ``bots``, ``options`` and ``private`` (only when true) of a create
    command (as ``--seats``...)."""
    # each game's own range is the host's to say ("ONE takes 2-4 players, not 11")
    seats = _count(cmd, "seats", 2, *PROTOCOL_SEATS)
    bots = _count(cmd, "bots", 0, 0, PROTOCOL_SEATS[1] - 1)
    if bots > seats - 1:
        raise ValueError(too_many_bots(seats, bots))
    options = cmd.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError("options must be an object of KEY: VALUE")
    private = cmd.get("private", False)
    if not isinstance(private, bool):
        raise ValueError("private must be true or false")
    extra = {"seats": seats, "bots": bots, "options": options}
    return {**extra, "private": True} if private else extra


def parse_lobby(  # noqa: C901, PLR0912
    line: str, tables: list[dict[str, Any]], *, json_mode: bool
) -> tuple[str, str, dict[str, Any]]:
    """A lobby command as (verb, table or game, extra); ``ValueError`` explains a bad one.

    >>> parse_lobby("c snap 3 1", [], json_mode=False)
    ('create', 'snap', {'seats': 3, 'bots': 1, 'options': {}})
    >>> parse_lobby("c snap 2 1 private", [], json_mode=False)
    ('create', 'snap', {'seats': 2, 'bots': 1, 'options': {}, 'private': True})
    >>> parse_lobby('{"cmd": "create", "game": "snap", "private": true}', [], json_mode=True)
    ('create', 'snap', {'seats': 2, 'bots': 0, 'options': {}, 'private': True})
    >>> parse_lobby("c snap 3 jokers=2 decks=2", [], json_mode=False)
    ('create', 'snap', {'seats': 3, 'bots': 0, 'options': {'jokers': '2', 'decks': '2'}})
    >>> parse_lobby("5", [{"table": "t1"}], json_mode=False)
    Traceback (most recent call last):
    ValueError: no table 5: there is one table, number 1
    """
    if json_mode:
        try:
            cmd = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"not JSON: {exc}") from None
        if not isinstance(cmd, dict):
            raise ValueError("a command is a JSON object")
        verb = cmd.get("cmd")
        if "cmd" not in cmd:
            raise ValueError(
                'missing "cmd": lobby commands are join/watch {table}, create {game, seats, '
                "bots, options, private}, list, quit"
            )
        if verb == "quit":
            return "quit", "", {}
        if verb == "list":
            raise ValueError("")  # just list again
        if verb in ("join", "watch") and isinstance(cmd.get("table"), str):
            return str(verb), str(cmd["table"]), {}
        if verb == "create" and isinstance(cmd.get("game"), str):
            return "create", str(cmd["game"]), _create_extra(cmd)
        raise ValueError(
            "lobby commands: join/watch {table}, create {game, seats, bots, options, private}, "
            "list, quit"
        )
    words = line.split()
    if not words or words[0].lower() == "r":
        raise ValueError("")
    head = words[0].lower()
    if head == "q":
        return "quit", "", {}
    if head in ("?", "h", "help"):
        return "help", "", {}
    if head == "c" and len(words) >= 2:
        rest = words[2:]
        numbers: list[int] = []
        while rest and len(numbers) < 2 and rest[0].isdigit():
            numbers.append(int(rest.pop(0)))
        private = "private" in rest
        rest = [word for word in rest if word != "private"]
        if any("=" not in word for word in rest):
            raise ValueError(
                f"{CREATE_USAGE}: SEATS and BOTS are numbers, then table options as KEY=VALUE"
            )
        try:
            options = parse_options(tuple(rest))  # as join --option
        except click.BadParameter as exc:
            raise ValueError(f"{CREATE_USAGE}: {exc.message}") from None
        extra: dict[str, Any] = dict(zip(("seats", "bots"), numbers, strict=False))
        return "create", words[1], _create_extra({**extra, "options": options, "private": private})
    watch = head == "w"
    rest = words[1:] if watch else words
    if len(rest) == 1 and rest[0].isdigit():
        number = rest[0]
        if 1 <= int(number) <= len(tables):
            return ("watch" if watch else "join"), str(tables[int(number) - 1]["table"]), {}
        if not tables:
            raise ValueError(f"no table {number}: there are no tables yet (c GAME creates one)")
        if len(tables) == 1:
            raise ValueError(f"no table {number}: there is one table, number 1")
        raise ValueError(f"no table {number}: type a number from 1 to {len(tables)}")
    raise ValueError(f"not understood: {clip(line.strip())!r} (? for help)")
