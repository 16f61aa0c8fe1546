"""Private tables on a running host (``spec/PROTOCOL.md`` 10.11/10.13): whole games played by
test seats (``private_seat.py``) over real sessions, every hand record verified; a seat that
breaks its masking voids the hand naming it; a host restart voids the hand in progress; a ONE
seat that does not follow suit is caught by the end-of-hand audit and forfeits the hand; the
turn timer (under the mock clock): the client's default move, a seat gone past its grace or
that lets its turns run out voiding the hand, and the host playing the seat afterwards."""

from __future__ import annotations

import functools
import io
import json
import sys
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

sys.path.insert(0, str(Path(__file__).parent))

from click.testing import CliRunner
from private_seat import Choose, Move, PrivateSeat, longest_move

import protocol.table_messages as tm
from client.json_ui import JsonUI
from client.table_client import TableClient
from client.table_loop import run_table
from client.verify_cmd import verify_command
from host.games import find_game
from host.games.audit import AuditStep, audit
from host.server.server import HostConfig, HostInfo, serve_host
from host.table.masked import first_move
from host.table.table import Table
from net.session import open_session
from protocol.cards import Card, parse_card
from protocol.errors import ErrorCode
from protocol.hand_records import record_messages, verify_record
from protocol.mask_seat import Outgoing

GAMES = [
    # a hand limit under the default 20: at eight seats a game with it took 20-34 s of CPU
    # here (hands grow long before anyone goes out), with 12 about half that
    ("one-card", {"bankrupt_at": 12}),
    # fewer cards picked up and aces on anything: a shorter game (its plays are all listed
    # as sets all the same)
    ("black-jack", {"black_jack_pickup": 1, "aces_anytime": True}),
    ("one", {"target": 1}),
]


async def _records(host: HostInfo, table: str) -> list[dict[str, Any]]:
    lobby = host.host.lobby
    hands = await lobby.store.records.list_records(table)
    return [json.loads(await lobby.record_text(table, h)) for h in hands]


async def _play(
    host: HostInfo,
    connect: Any,
    *,
    game: str,
    seats: int,
    options: dict[str, Any],
    tamper: dict[int, Any] | None = None,
    choose: dict[int, Choose] | None = None,
    until: Callable[[list[PrivateSeat]], bool] | None = None,
) -> tuple[str, list[PrivateSeat]]:
    """Play a private table of test seats to the game's end, or until ``until(players)`` holds."""
    async with connect() as creator:
        made = await creator.request(
            # no turn timer: a long game on a loaded machine must not meet it (the seats here
            # answer at once; timers are test_a_seat_gone_past_its_grace_..'s)
            tm.CreateTable(game=game, seats=seats, options=options, private=True, turn_timer=0)
        )
        assert isinstance(made, tm.TableCreated)
        assert made.info["private"] is True
        table = made.table
    async with AsyncExitStack() as stack:
        players = []
        for i in range(seats):
            session = await stack.enter_async_context(connect())
            hooks = {"tamper": (tamper or {}).get(i), "choose": (choose or {}).get(i)}
            players.append(PrivateSeat(session, table, f"p{i}", **hooks))
        for p in players:
            await p.join()
        with trio.fail_after(280):
            async with trio.open_nursery() as nursery:
                for p in players:
                    nursery.start_soon(p.play)
                if until is not None:
                    # (a game over first ends here too: the test's asserts say so)
                    while not until(players):
                        if all(p.over for p in players):
                            break
                        await trio.sleep(0.05)
                    nursery.cancel_scope.cancel()
    return table, players


@pytest.mark.timeout(300)  # a game of real crypto per seat: Black Jack's ten seats take ~10 s
@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
@pytest.mark.parametrize("most", [False, True], ids=["2", "max"])
async def test_a_private_table_plays_to_the_end_and_every_record_verifies(
    host: HostInfo, connect: Any, game: str, options: dict[str, Any], most: bool
) -> None:
    seats = find_game(game).max_seats if most else 2
    table, players = await _play(host, connect, game=game, seats=seats, options=options)
    assert all(p.over for p in players)
    assert not [e for p in players for e in p.errors], [str(e) for p in players for e in p.errors]
    reports = [r for p in players for r in p.reports]
    assert reports and not any(r.voided for r in reports)
    records = await _records(host, table)
    assert records
    for record in records:
        verdict = verify_record(record)
        assert verdict.ok, verdict
        types = [m[0] for m in record["messages"]]
        assert "mask_end" in types and "card" not in types
    # every seat was dealt face down and opened its own cards
    assert all(p.held for p in players)


@pytest.mark.timeout(120)
async def test_a_masking_request_the_host_only_keeps_sends_no_state(
    host: HostInfo, connect: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # at three seats the first of a draw's two boxes changes nothing anyone sees (the second
    # makes the ``sealed``): the host answers it and sends no fresh states, and the game plays on
    seen: list[tuple[str, int, int]] = []  #: (kind, messages sent, states made) per request
    made = [0]
    real_request, real_views, real_deliver = Table.mask_request, Table.view_msgs, Table.deliver

    async def mask_request(self: Table, conn: Any, kind: str, *args: Any) -> None:
        made[0], sent[0] = 0, 0
        try:
            await real_request(self, conn, kind, *args)
        finally:
            seen.append((kind, sent[0], made[0]))

    sent = [0]

    async def deliver(self: Table, batch: Any, **kw: Any) -> None:
        sent[0] += len(batch.out)
        await real_deliver(self, batch, **kw)

    def view_msgs(self: Table, seat: int | None) -> Any:
        made[0] += 1
        return real_views(self, seat)

    monkeypatch.setattr(Table, "mask_request", mask_request)
    monkeypatch.setattr(Table, "deliver", deliver)
    monkeypatch.setattr(Table, "view_msgs", view_msgs)
    table, players = await _play(host, connect, game="one-card", seats=3, options={})
    assert all(p.over for p in players) and not [e for p in players for e in p.errors]
    boxes = [(n, m) for kind, n, m in seen if kind == "sealed_keys"]
    quiet = [m for n, m in boxes if n == 0]
    assert quiet and all(m == 0 for m in quiet)  # kept only: no state
    assert all(m > 0 for n, m in boxes if n > 0)  # a sealed went out: fresh states
    for record in await _records(host, table):
        assert verify_record(record).ok


def _voided(players: list[PrivateSeat]) -> bool:
    """A seat has been told its hand is void."""
    return any(r.voided for p in players for r in p.reports)


def _once(kind: str, change: Any) -> Any:
    """A tamper hook changing the first request of ``kind`` only."""
    done: list[bool] = []

    def tamper(item: Outgoing) -> Outgoing | None:
        if item.type != kind or done:
            return item
        done.append(True)
        return Outgoing(item.type, change(dict(item.fields)))

    return tamper


def _copied_point(fields: dict[str, Any]) -> dict[str, Any]:
    points = list(fields["points"])
    points[1] = points[0]  # a copied card
    return {**fields, "points": points}


def _own_box(fields: dict[str, Any]) -> dict[str, Any]:
    pos, _, box = fields["boxes"][0]
    return {**fields, "boxes": [[pos, 1, box]]}  # a box to itself (seat 1)


def _zero_key(fields: dict[str, Any]) -> dict[str, Any]:
    pos, _ = fields["keys"][0]
    return {**fields, "keys": [[pos, bytes(32)]]}


@pytest.mark.parametrize(
    ("kind", "change", "failure"),
    [
        ("mask_pass", _copied_point, "appears twice"),
        ("sealed_keys", _own_box, "not dealt face down"),
        ("open_keys", _zero_key, "key"),
    ],
    ids=["pass", "box", "open_keys"],
)
async def test_a_seat_that_breaks_its_masking_gets_a_fairness_error_and_voids_the_hand(
    host: HostInfo, connect: Any, kind: str, change: Any, failure: str
) -> None:
    table, players = await _play(
        host, connect, game="one-card", seats=2, options={}, tamper={1: _once(kind, change)}
    )
    cheat = players[1]
    assert [e.code for e in cheat.errors][:1] == [ErrorCode.FAIRNESS]
    assert failure in str(cheat.errors[0])
    records = await _records(host, table)
    void = record_messages(records[0])[-1]
    assert void.type == "void"
    body = void.decode()
    assert body["missing"] == ["p1"] and kind in body["reason"] and failure in body["reason"]
    for record in records:  # the void hand verifies as void, the game then played on
        assert verify_record(record).ok
    assert all(p.over for p in players) and len(records) >= 2


async def test_a_host_restart_voids_the_private_hand_in_progress(
    nursery: trio.Nursery, host_config: HostConfig
) -> None:
    # the seats leave before the host stops: their grace must not void the hand first on a slow
    # shutdown (the fixture's 5 s), or the record would say "grace", not "host restarted"
    config = replace(host_config, grace=600.0)
    first: HostInfo = await nursery.start(serve_host, config)
    table = await first.host.create_table("one-card", seats=2, private=True)
    async with AsyncExitStack() as stack:
        players = []
        for i in range(2):
            stream = await trio.open_tcp_stream("127.0.0.1", first.port)
            session = await stack.enter_async_context(open_session(stream))
            players.append(PrivateSeat(session, table, f"p{i}"))
        for p in players:
            await p.join()
        # the seats stop at the first play (a fast hand must not end before the restart)
        played = functools.partial(lambda ps, _: any(p.acted_on >= 0 for p in ps), players)
        async with trio.open_nursery() as inner:
            for p in players:
                inner.start_soon(p.play, played)
            with trio.fail_after(60):  # until a card was played face up
                while not any(p.acted_on >= 0 for p in players):
                    await trio.sleep(0.01)
            inner.cancel_scope.cancel()
    await first.host.shutdown()
    second: HostInfo = await nursery.start(serve_host, replace(config, port=0))
    restored = second.host.lobby.table(table)
    with trio.fail_after(10):
        while not await _records(second, table):
            await trio.sleep(0.01)
    (record,) = await _records(second, table)
    assert verify_record(record).ok
    void = record_messages(record)[-1]
    assert void.type == "void" and void.decode()["reason"] == "host restarted"
    assert restored.phase.value == "dealing" and restored.fair_hand_no == 2
    assert restored.engine is not None and restored.engine.outcome() is None


async def test_a_seat_gone_past_its_grace_voids_the_hand_and_the_host_plays_it_next(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2, private=True)
    async with connect_memory(mock_host) as stay:
        players = [PrivateSeat(stay, table, "p0")]
        await players[0].join()
        with trio.fail_after(3600):
            async with trio.open_nursery() as inner:
                inner.start_soon(players[0].play)
                async with connect_memory(mock_host) as leaving:
                    players.append(PrivateSeat(leaving, table, "p1"))
                    await players[1].join()
                    # p1 plays until it holds a card, then its connection drops
                    await players[1].play(until=lambda seat: bool(seat.held))
    assert players[0].over
    records = await _records(mock_host, table)
    voided = [r for r in records if record_messages(r)[-1].type == "void"]
    assert voided, "the hand p1 left was voided"
    body = record_messages(voided[0])[-1].decode()
    assert body["missing"] == ["p1"] and "grace" in body["reason"]
    assert all(verify_record(r).ok for r in records)
    last = record_messages(records[-1])
    assert last[-1].type == "hand_end" and "mask_end" in [m.type for m in last]
    # the host's bot took the seat from the next hand: it does seat 1's masking and its moves
    void_no = voided[0]["hand_no"]
    assert players[0].host_seats[void_no] == () and players[0].host_seats[void_no + 1] == (1,)


def _off_suit_once(played: list[dict[str, Any]]) -> Choose:
    """A cheat's move hook: the first time its hand meets the first legal set (ONE's led suit)
    and a later set lists a card it holds outside the first (not a joker, which breaks a rule
    of its own), it plays that card (the host
    cannot see that it held the led suit); ``played`` gets the action. Otherwise it plays as
    the honest seat does."""

    def choose(view: dict[str, Any], cards: dict[tuple[int, int], Card]) -> Move | None:
        sets = list(view.get("legal_sets") or ())
        if not played and len(sets) >= 2 and first_move({"legal_sets": sets[:1]}, cards):
            led = {a.get("card") for a in sets[0]["actions"]}
            later = [a for s in sets[1:] for a in s["actions"]]
            for pos, card in sorted(cards.items()):
                action = next((a for a in later if a.get("card") == card.code), None)
                if card.code not in led and not card.is_joker and action is not None:
                    played.append(dict(action))
                    return dict(action), [pos]
        return longest_move(view, cards)

    return choose


async def _play_one_with_a_cheat(
    connect: Any, cheated: list[dict[str, Any]]
) -> tuple[str, list[PrivateSeat]]:
    """A private ONE game of one hand between two test seats, the second playing off suit once
    when it can (``cheated`` gets its move)."""
    async with connect() as creator:
        made = await creator.request(
            tm.CreateTable(game="one", seats=2, options={"target": 1}, private=True, turn_timer=0)
        )
        assert isinstance(made, tm.TableCreated)
        table = made.table
    async with AsyncExitStack() as stack:
        players = []
        for i in range(2):
            session = await stack.enter_async_context(connect())
            choose = _off_suit_once(cheated) if i == 1 else None
            players.append(PrivateSeat(session, table, f"p{i}", choose=choose))
        for p in players:
            await p.join()
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                for p in players:
                    nursery.start_soon(p.play)
    return table, players


async def test_an_off_suit_play_is_caught_by_the_audit_and_the_seat_forfeits_the_hand(
    host: HostInfo, connect: Any, tmp_path: Path
) -> None:
    """Issue 29: a ONE seat that does not follow suit though it can is refused nothing at play
    time (the host cannot see its hand); the audit at the hand's end names it and its move, it
    scores as if it took no trick (and fails its contract if it bid), and the hand's record,
    which holds the proof (every card, once the secrets are out, and the actions), verifies."""
    cheated: list[dict[str, Any]] = []
    # a hand may give the cheat no chance (it never holds the led suit and another card: about
    # one game in twenty of one hand): a new table then, up to five
    for _ in range(5):
        table, players = await _play_one_with_a_cheat(connect, cheated)
        if cheated:
            break
    assert cheated, "the cheat never held the led suit and another card"
    assert not [e for p in players for e in p.errors]
    cheat = players[1].seat
    # every seat reads the same audit: the cheat's move, the rule it broke
    for p in players:
        audits = [e for e in p.events if e["kind"] == "audit"]
        caught = [e for e in audits if e["violation"] is not None]
        assert len(caught) == 1, audits
        proof = caught[0]["violation"]
        caught_in = caught[0]["hand_no"]
        assert proof["seat"] == cheat and proof["action"] == cheated[0]
        assert proof["code"] == "illegal_action" and "must follow suit" in proof["reason"]
        after = p.events[p.events.index(caught[0]) :]
        hand_end = next(e for e in after if e["kind"] == "hand_end")
        assert hand_end["forfeited"] == [cheat]
        assert hand_end["points"][cheat] == 0 and hand_end["hand_scores"][cheat] == 0
        if hand_end["bidder"] == cheat:
            assert hand_end["made"] is False
        honest = [e for e in p.events if e["kind"] == "hand_end" and "forfeited" not in e]
        assert all(e["points"][cheat] >= 0 for e in honest)
    records = await _records(host, table)
    _records_show_the_proof(records, tmp_path, proof, caught_in, cheated[0]["card"])


def _records_show_the_proof(
    records: list[dict[str, Any]], tmp_path: Path, proof: dict[str, Any], caught_in: int, card: str
) -> None:
    """Every record verifies, by `onecard verify` too, every private hand audited; the record
    of the hand ``caught_in`` keeps the finding, and `onecard verify` shows it."""
    files = []
    for record in records:
        assert verify_record(record).ok
        path = tmp_path / f"hand{record['hand_no']}.json"
        path.write_text(json.dumps(record))
        files.append(str(path))
    result = CliRunner().invoke(verify_command, files)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == len(records)
    assert all("masked round" in line and "audited" in line for line in lines), lines
    # the record keeps the finding, and `onecard verify` shows it with the cards the signed
    # messages dealt the cheat (no hand was voided: the game's hand N is the table's hand N)
    (hand,) = [r for r in records if r["hand_no"] == caught_in]
    assert hand["audit"] == proof
    assert all("audit" not in r for r in records if r is not hand)
    (line,) = [line for line in lines if f"hand {caught_in}," in line]
    cheat = proof["seat"]
    pid = hand["pids"][cheat]
    assert f"{pid} forfeits the hand: action {proof['index'] + 1} of the hand (play" in line, line
    assert "must follow suit" in line and f"{pid} was dealt " in line
    dealt = line.split(f"{pid} was dealt ")[1].rstrip(")").split()
    assert len(dealt) >= 5 and card in dealt
    assert all(" forfeits " not in other for other in lines if other != line)
    # and the finding is the rules' own: the record's actions, replayed on the rules over the
    # cards its masking audit opened, give the same violation (a third party can re-check it)
    assert _proof_of(hand) == proof
    assert all(_proof_of(r) is None for r in records if r is not hand)


def _proof_of(record: dict[str, Any]) -> dict[str, Any] | None:
    """The end-of-hand audit of a private ONE hand, re-run from its record alone: the stock
    the record's masking audit opens (``verify_record``), its dealer and its actions."""
    report = verify_record(record).report
    assert report is not None
    normal = find_game(record["game"]).new_initial_state(
        seats=len(record["pids"]), options=record["options"], dealer=None
    )
    dealer = record["dealer"] if record["dealer_chosen"] else None
    steps: list[AuditStep] = [("chance", report.orders[0], dealer)]
    steps += [("act", a["seat"], normal.parse_action(a["action"])) for a in record["actions"]]
    found = audit(normal, steps)
    return None if found is None else found.to_wire()


async def test_a_seat_that_lets_its_turns_run_out_stands_up_and_the_host_plays_it(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    """A connected seat that does its masking but never plays (its client makes no default
    move) voids each hand once its turn ran out by the grace period too, counted as a missed
    round: it stands up, and the host plays the seat from the next hand to the game's end.
    (The host's timer used to wake at the turn deadline and find nothing due until the grace
    had passed too: it spun, and the mock clock never moved on.)"""
    table = await mock_host.host.create_table("one-card", seats=2, private=True)
    async with connect_memory(mock_host) as first, connect_memory(mock_host) as second:
        players = [
            PrivateSeat(first, table, "p0"),
            PrivateSeat(second, table, "p1", choose=lambda view, cards: None),
        ]
        for p in players:
            await p.join()

        def stood_up(seat: PrivateSeat) -> bool:
            return any(e["kind"] == "stood_up" for e in seat.events)

        with trio.fail_after(3600):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(players[0].play)
                nursery.start_soon(functools.partial(players[1].play, until=stood_up))
    assert players[0].over and stood_up(players[1])
    assert not [e for p in players for e in p.errors]
    records = await _records(mock_host, table)
    assert all(verify_record(r).ok for r in records)
    ends = [record_messages(r)[-1] for r in records]
    voids = [m.decode() for m in ends if m.type == "void"]
    assert len(voids) >= 2  # a missed round or more before it stood up
    assert all(v["missing"] == ["p1"] and v["reason"] == "timeout" for v in voids)
    assert ends[-1].type == "hand_end" and [m.type for m in ends[len(voids) :]] == ["hand_end"] * (
        len(ends) - len(voids)
    )
    # the hands after it stood up: the host played seat 1 (its masking too), to the end
    played = [h for h, seats in players[0].host_seats.items() if seats == (1,)]
    assert played and min(played) == len(voids) + 1


async def _idle_game(mock_host: HostInfo, connect_memory: Any) -> list[dict[str, Any]]:
    """One private One Card game at two seats, one of them a terminal client whose player
    never types: check every default move it sent against the state its turn ran out on and
    the hand's record, and return those moves."""
    table = await mock_host.host.create_table(
        "one-card", seats=2, options={"attack_cap": 2}, private=True
    )
    out = io.StringIO()
    async with connect_memory(mock_host) as first, connect_memory(mock_host) as second:
        quick = PrivateSeat(first, table, "p0")
        await quick.join()
        idle = TableClient(second, table_id=table, name="Cy")
        await idle.join()
        await idle.ready()
        with trio.fail_after(36_000):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(quick.play)
                outcome = await run_table(idle, JsonUI(out), read_input=False)
    assert outcome is not None and quick.over
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    defaults = [i for i, line in enumerate(lines) if line["type"] == "default_move"]
    assert len(defaults) >= 2
    for i in defaults:  # the move is the client's reading of the state its turn ran out on
        state = next(s for s in reversed(lines[:i]) if s["type"] == "state")
        view = state["view"]
        cards = {
            (s, p): parse_card(c) for (s, p), c in zip(view["positions"], view["hand"], strict=True)
        }
        move = first_move(view, cards)
        assert move is not None and lines[i]["action"] == move[0]
    plays: list[dict[str, Any]] = [lines[i]["action"] for i in defaults]
    records = await _records(mock_host, table)
    assert records and all(verify_record(r).ok for r in records)
    assert all(record_messages(r)[-1].type == "hand_end" for r in records)
    taken = [a["action"] for r in records for a in r["actions"] if a["seat"] == idle.seat]
    assert taken == plays  # each accepted as sent: no other move of that seat
    return plays


async def test_a_turn_that_runs_out_is_played_by_the_client_s_default_move(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    """PROTOCOL.md 10.13/10.14: on a private table the host never plays a player's turn; when
    the turn timer runs out the client (the terminal client's loop, here with a player who
    never types) sends its default move: the first play of the first set its hand meets,
    else draw. The game plays to its end on those moves, no hand voided.

    The deal is the seats' own randomness, so about one game in sixty the idle seat always
    had a card to play and never drew: another table is played then (at most five), every
    one checked in full, until both kinds of default move have been seen."""
    kinds: set[str] = set()
    for _ in range(5):
        kinds |= {a["type"] for a in await _idle_game(mock_host, connect_memory)}
        if {"play", "draw"} <= kinds:
            break
    assert {"play", "draw"} <= kinds, kinds


#: One Card at four seats with a hand limit just above the deal (seven cards): a seat that
#: draws before it plays a card goes bankrupt, and the game goes on with the other three
BANKRUPT = {"bankrupt_at": 8}


def _draws(view: dict[str, Any], cards: dict[tuple[int, int], Card]) -> Move | None:
    """A move hook drawing whenever it may (else playing as the honest seat does): at
    :data:`BANKRUPT` the seat goes bankrupt at its first turn. (With every seat shedding,
    one went out before any drew with seven cards in hand in about one game in four, and a
    test waiting for a bankruptcy waited for good.)"""
    for key in ("unless_met", "legal"):
        for action in view.get(key) or ():
            if action.get("type") == "draw":
                return dict(action), []
    return longest_move(view, cards)


#: seat 0 goes bankrupt (:func:`_draws`)
DRAWER: dict[int, Choose] = {0: _draws}


async def test_a_bankrupt_hand_goes_face_up_mid_game_at_four_seats(
    host: HostInfo, connect: Any
) -> None:
    table, players = await _play(
        host, connect, game="one-card", seats=4, options=BANKRUPT, choose=DRAWER
    )
    assert all(p.over for p in players)
    assert not [e for p in players for e in p.errors], [str(e) for p in players for e in p.errors]
    shown = [n for p in players for n in p.shown]
    # seat 0 goes bankrupt at its first turn and shows its hand, unless that bankruptcy ends the
    # game: when two other seats' forced draws took them out first (one suite run in ten here),
    # the hand's end opens every key instead, and what was shown is theirs
    assert shown and all(n >= 8 for n in shown), shown
    records = await _records(host, table)
    (record,) = records
    verdict = verify_record(record)
    assert verdict.ok, verdict
    assert not any(r.voided for p in players for r in p.reports)
    outcome = players[0].outcome
    assert outcome is not None
    # mid-game: the game went on after the first bankruptcy (someone went out, or one stood)
    messages = record_messages(record)
    opened = [m.decode() for m in messages if m.type == "opened"]
    assert len(opened) >= sum(shown)


def _drop(kind: str) -> Any:
    """A tamper hook that never sends a request of ``kind`` (a seat that keeps its keys)."""

    def tamper(item: Outgoing) -> Outgoing | None:
        return None if item.type == kind else item

    return tamper


def _wrong_show_key(fields: dict[str, Any]) -> dict[str, Any]:
    stream, pos, keys = fields["open"][0]
    keys = list(keys)
    keys[0] = bytes([2]) + bytes(31)  # a valid scalar, not the seat's key: opens no card
    return {**fields, "open": [[stream, pos, keys], *fields["open"][1:]]}


async def test_a_bankrupt_seat_that_keeps_its_keys_voids_the_hand_at_the_round_timeout(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    silent = {i: _drop("show_hand") for i in range(4)}
    table, players = await _play(
        mock_host,
        lambda: connect_memory(mock_host),
        game="one-card",
        seats=4,
        options=BANKRUPT,
        tamper=silent,
        choose=DRAWER,
        until=_voided,
    )
    asked = [p for p in players if p.shown]
    assert asked, "a seat went bankrupt"
    records = await _records(mock_host, table)
    void = record_messages(records[0])[-1]
    assert void.type == "void"
    body = void.decode()
    # the seat asked first (a later hand may have asked another before the test stopped)
    assert body["reason"] == "timeout" and len(body["missing"]) == 1
    assert body["missing"][0] in {p.name for p in asked}
    assert verify_record(records[0]).ok


def _fairness(player: PrivateSeat) -> bool:
    return any(e.code is ErrorCode.FAIRNESS for e in player.errors)


async def test_a_bankrupt_seat_that_shows_wrong_keys_gets_a_fairness_error_and_voids_the_hand(
    host: HostInfo, connect: Any
) -> None:
    # one hook shared by the seats: only the first bankrupt hand shown is wrong (a hook each
    # could also make a seat of the next hand cheat before the test saw the first void)
    wrong = dict.fromkeys(range(4), _once("show_hand", _wrong_show_key))
    table, players = await _play(
        host,
        connect,
        game="one-card",
        seats=4,
        options=BANKRUPT,
        tamper=wrong,
        choose=DRAWER,
        # the host voids the hand (to everyone) before it answers the cheat's request with the
        # error: wait for both, or the test could stop between the two
        until=lambda ps: _voided(ps) and any(_fairness(p) for p in ps),
    )
    # (other seats may meet bad_state: a request for the hand just voided)
    (cheat,) = [p for p in players if _fairness(p)]
    assert cheat.shown and [e.code for e in cheat.errors][:1] == [ErrorCode.FAIRNESS]
    records = await _records(host, table)
    void = record_messages(records[0])[-1]
    assert void.type == "void"
    body = void.decode()
    assert body["missing"] == [cheat.name] and "show_hand" in body["reason"]
    assert verify_record(records[0]).ok
