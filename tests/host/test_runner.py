"""The journaled game state machine: a journal replays to the same game, byte for byte.

The tests are async only because the runner reads trio's clock to set its deadlines.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgpack
import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games import find_game, game_names
from host.storage.journal import JournalKind, JournalRow
from host.table.cheats import CheatKind, install
from host.table.masked import first_move
from host.table.runner import GameRunner
from host.table.seats import MAX_MISSED_ROUNDS, VOID_TIMEOUT, Batch, Seat, TablePhase
from protocol.cards import Card
from protocol.fairness import SeatSecret, SignedMessage, sign_message
from protocol.hand_records import verify_record

Outgoing = list[tuple[int | None, SignedMessage]]


def new_runner(
    game: str, seats: int, key: Ed25519PrivateKey, options: dict[str, object] | None = None
) -> GameRunner:
    runner = GameRunner(
        table_id="t-replay",
        game_cls=find_game(game).state,
        seats=seats,
        options=options or {},
        signing_key=key,
        turn_timer=None,
        round_timeout=20.0,
        now=trio.current_time,
    )
    for i in range(seats):
        runner.seats[i] = Seat(i, f"p{i}", None, sit_out=True)  # the host plays every seat
    return runner


def play(
    runner: GameRunner,
    rng: random.Random,
    max_inputs: int = 400,
    after: Callable[[GameRunner], None] | None = None,
) -> list[JournalRow]:
    """Play random legal actions; ``after(runner)`` is called after each one."""
    journal: list[JournalRow] = []

    def feed(kind: JournalKind, payload: dict[str, object]) -> None:
        batch = Batch()
        runner._input(batch, kind, payload)
        while runner._needs_open:
            runner._needs_open = False
            for s in runner.seats:
                assert s is not None
                s.sit_out = True
            runner._input(batch, JournalKind.FAIR, runner._open_payload())
        journal.extend(batch.rows)

    names = [f"p{i}" for i in range(runner.nseats)]
    feed(JournalKind.GAME, {"game_no": 1, "names": names})
    for _ in range(max_inputs):
        if runner.phase is not TablePhase.PLAYING or runner.engine is None:
            break
        seat = runner.engine.to_act()[0]
        action = rng.choice(runner.engine.legal_actions(seat)).to_wire()
        feed(JournalKind.ACTION, {"seat": seat, "action": action, "act_seq": None, "note": None})
        if after is not None:
            after(runner)
    return journal


@pytest.mark.parametrize("game", game_names())
async def test_replaying_a_journal_rebuilds_the_same_game(game: str) -> None:
    key = Ed25519PrivateKey.generate()
    live = new_runner(game, 3, key)
    journal = play(live, random.Random(secrets.randbits(32)))
    assert live.engine is not None and live.deal is not None
    again = new_runner(game, 3, key)
    again.replay(journal)
    assert again.engine is not None and again.deal is not None
    assert again.seq == live.seq == journal[-1].seq
    assert again.phase is live.phase
    for seat in (None, 0, 1, 2):
        assert again.engine.view(seat) == live.engine.view(seat)
    assert again.deal.dealer.messages == live.deal.dealer.messages
    assert [r.seq for r in journal] == list(range(1, len(journal) + 1))


@pytest.mark.parametrize("key", ["act_seq", "cseq"])
async def test_replay_restores_each_seats_last_act_seq(key: str) -> None:
    """A resend after a restart is still told from a new action: the journal keeps each
    action's act seq (journals from before the rename call it ``cseq``; both are read)."""
    key_pair = Ed25519PrivateKey.generate()
    live = new_runner("one-card", 2, key_pair)
    journal = play(live, random.Random(5))
    numbered: list[JournalRow] = []
    last: dict[int, tuple[int, object]] = {}
    for row in journal:
        if row.kind is JournalKind.ACTION:
            seat = int(row.payload["seat"])
            n = last.get(seat, (0, None))[0] + 1
            payload = {k: v for k, v in row.payload.items() if k != "act_seq"}
            payload[key] = n
            last[seat] = (n, payload["action"])
            numbered.append(JournalRow(row.seq, row.kind, row.seat, payload))
        else:
            numbered.append(row)
    assert len(last) == 2
    again = new_runner("one-card", 2, key_pair)
    again.replay(numbered)
    for seat, (n, action) in last.items():
        s = again.seats[seat]
        assert s is not None
        assert (s.last_act_seq, s.last_act_action) == (n, action)


async def test_finished_hands_leave_verifiable_records() -> None:
    live = new_runner("one-card", 2, Ed25519PrivateKey.generate())
    play(live, random.Random(7), max_inputs=2000)
    assert live.phase is TablePhase.FINISHED
    assert live.pending_records
    for _, record in live.pending_records:
        verdict = verify_record(record)
        assert verdict.ok, verdict.message
        assert record["outcome"] is not None and record["actions"]


async def test_a_bankrupt_hand_comes_back_through_the_provable_reshuffle() -> None:
    """One Card bankruptcy: the bankrupt's cards go under the top discard, the next reshuffle
    recycles them (its signed RESHUFFLE lists them) and the hand record verifies."""
    for seed in range(40):
        live = new_runner("one-card", 4, Ed25519PrivateKey.generate(), {"bankrupt_at": 12})
        under: list[Counter[str]] = []  # at each bankruptcy: the cards under the top discard

        def watch(runner: GameRunner, under: list[Counter[str]] = under) -> None:
            assert runner.engine is not None
            view = runner.engine.view(None)
            if len(view["bankrupt"]) > len(under):
                under.append(Counter(view["discards"][:-1]))

        play(live, random.Random(seed), max_inputs=3000, after=watch)
        assert live.phase is TablePhase.FINISHED
        ((_, record),) = live.pending_records
        verdict = verify_record(record)
        assert verdict.ok, verdict.message
        for kind, body, _ in record["messages"]:
            if kind == "reshuffle":
                recycled = Counter(msgpack.unpackb(bytes.fromhex(body))["cards"])
                if any(u and not u - recycled for u in under):
                    return  # a bankrupt's cards (and the discards with them) came back, provably
    pytest.fail("no seed had a bankruptcy followed by a reshuffle")


class _Table:
    """A runner with seat 0 played by the host and seat 1 a player who answers as told."""

    def __init__(self) -> None:
        self.runner = GameRunner(
            table_id="t-misses",
            game_cls=find_game("one").state,
            seats=2,
            options={"target": 1000},
            signing_key=Ed25519PrivateKey.generate(),
            turn_timer=None,
            round_timeout=20.0,
            now=trio.current_time,
        )
        self.runner.seats[0] = Seat(0, "p0", None, sit_out=True)
        self.runner.seats[1] = Seat(1, "p1", b"\x01" * 32)
        self.journal: list[JournalRow] = []
        self.out: list[dict[str, Any]] = []

    @property
    def player(self) -> Seat:
        seat = self.runner.seats[1]
        assert seat is not None
        return seat

    def feed(self, kind: JournalKind, payload: dict[str, Any]) -> None:
        batch = Batch()
        self.runner._input(batch, kind, payload)
        while self.runner._needs_open:
            self.runner._needs_open = False
            host = self.runner.seats[0]
            assert host is not None
            host.sit_out = True
            self.runner._input(batch, JournalKind.FAIR, self.runner._open_payload())
        self.journal.extend(batch.rows)
        self.out.extend(msg for _, msg in batch.out)

    def play_to_next_round(self, rng: random.Random) -> None:
        """Random legal moves until a deal round waits for the player (a new hand)."""
        runner = self.runner
        for _ in range(3000):
            deal = runner.deal
            if runner.phase is TablePhase.DEALING and deal is not None and deal.missing() == [1]:
                return
            assert runner.phase is TablePhase.PLAYING and runner.engine is not None
            seat = runner.engine.to_act()[0]
            action = rng.choice(runner.engine.legal_actions(seat)).to_wire()
            self.feed(JournalKind.ACTION, {"seat": seat, "action": action, "act_seq": None})
        raise AssertionError("no new hand")

    def answer_round(self) -> None:
        deal = self.runner.deal
        assert deal is not None
        secret = SeatSecret.from_r(deal.ctx, "p1", secrets.token_bytes(32))
        commit = secret.commit_body(deal.hand_no)["c"]
        self.feed(JournalKind.FAIR, {"op": "commit", "seat": 1, "value": commit})
        reveal = secret.reveal_body(deal.hand_no)["r"]
        self.feed(JournalKind.FAIR, {"op": "reveal", "seat": 1, "value": reveal})

    def stood_up_events(self) -> list[dict[str, Any]]:
        events = (m["event"] for m in self.out if m["type"] == "event")
        return [e for e in events if e["kind"] == "stood_up"]


async def test_a_seat_that_misses_rounds_again_and_again_is_stood_up() -> None:
    table = _Table()
    table.feed(JournalKind.GAME, {"game_no": 1, "names": ["p0", "p1"]})
    for n in range(1, MAX_MISSED_ROUNDS + 1):
        assert table.runner.deal is not None and table.runner.deal.missing() == [1]
        assert not table.stood_up_events()
        table.feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
        assert table.player.missed == n and table.player.misses == 2 * n  # counted in halves
        if n < MAX_MISSED_ROUNDS:  # sits out the redone round, plays the hand, misses again
            assert table.runner.phase is TablePhase.PLAYING
            table.play_to_next_round(random.Random(n))
    assert table.stood_up_events() == [
        {"kind": "stood_up", "seat": 1, "name": "p1", "misses": MAX_MISSED_ROUNDS}
    ]
    player = table.player
    assert player.stood_up and player.substitute and player.token_hash is None
    opened = [m for m in table.out if m["type"] == "fair" and m["msg"][0] == "hand_commit"]
    assert opened[-1]["host_seats"] == [0, 1]
    assert table.runner.phase is TablePhase.PLAYING  # the host deals for both: the game goes on
    again = _Table()
    again.runner.signing_key = table.runner.signing_key
    again.runner.replay(table.journal)
    assert again.player.stood_up and again.player.token_hash is None
    assert again.player.missed == MAX_MISSED_ROUNDS


async def test_a_reveal_takes_half_a_miss_off_and_a_host_restart_does_not_count() -> None:
    table = _Table()
    table.feed(JournalKind.GAME, {"game_no": 1, "names": ["p0", "p1"]})
    table.feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
    assert table.player.misses == 2
    table.play_to_next_round(random.Random(1))
    table.answer_round()
    assert table.player.misses == 1 and table.runner.phase is TablePhase.PLAYING
    table.play_to_next_round(random.Random(2))
    table.feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
    table.play_to_next_round(random.Random(3))
    table.feed(JournalKind.FAIR, {"op": "void", "reason": "host restarted"})
    assert table.player.misses == 3 and not table.player.stood_up
    assert not table.stood_up_events()


async def test_a_seat_alternating_a_miss_and_an_answer_is_still_stood_up() -> None:
    """Hardening point 10: a reveal used to start the count again, so a seat that missed one
    round and answered the next (late) voided every other hand for ever, never stood up."""
    table = _Table()
    table.feed(JournalKind.GAME, {"game_no": 1, "names": ["p0", "p1"]})
    for n in range(1, 4):
        table.feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
        if n == 3:
            break
        table.play_to_next_round(random.Random(10 + n))
        table.answer_round()
        table.play_to_next_round(random.Random(20 + n))
    assert table.player.stood_up
    assert table.stood_up_events() == [{"kind": "stood_up", "seat": 1, "name": "p1", "misses": 3}]


async def test_missed_rounds_carry_over_into_the_next_game_through_its_journal() -> None:
    table = _Table()
    table.feed(JournalKind.GAME, {"game_no": 2, "names": ["p0", "p1"], "misses": {"1": 2}})
    assert table.player.misses == 2 and table.player.missed == 1
    table.feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
    assert table.player.stood_up
    assert len(table.stood_up_events()) == 1


class _LockAltering:
    """A test-only host fault: the LOCK it sends alters (or leaves out) seat 1's commitment."""

    def __init__(self, key: Ed25519PrivateKey, *, omit: bool) -> None:
        self.key, self.omit = key, omit

    def rewrite(self, msgs: Sequence[tuple[int | None, SignedMessage]]) -> Outgoing:
        out: Outgoing = []
        for to, m in msgs:
            if m.type == "lock":
                body = m.decode()
                commits = [[p, c] for p, c in body["commits"]]
                if self.omit:
                    commits = [e for e in commits if e[0] != "p1"]
                else:
                    commits = [[p, bytes(32) if p == "p1" else c] for p, c in commits]
                out.append((to, sign_message(self.key, "lock", {**body, "commits": commits})))
            else:
                out.append((to, m))
        return out

    def record(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return dict(record)

    def deal_terms(
        self, options: Mapping[str, bool | int | str], deck: Sequence[Card]
    ) -> tuple[dict[str, bool | int | str], list[Card]]:
        return dict(options), list(deck)


def _commit_only(table: _Table) -> None:
    """Seat 1 commits validly and (as an honest client must after a bad LOCK) reveals nothing."""
    deal = table.runner.deal
    assert deal is not None and deal.missing() == [1]
    secret = SeatSecret.from_r(deal.ctx, "p1", secrets.token_bytes(32))
    table.feed(JournalKind.FAIR, {"op": "commit", "seat": 1, "value": secret.c})
    assert table.runner.deal is deal and deal.locked and deal.missing() == [1]


@pytest.mark.parametrize("fault", ["omitted", "altered", "changed-commitment"])
async def test_a_seat_withholding_its_reveal_after_a_bad_lock_is_never_counted_as_missing(
    fault: str,
) -> None:
    """PROTOCOL.md 4.5: the host's fault, not the seat's: no miss, never stood up, and the next
    round takes the seat's own commitment again (the host never deals for it)."""
    table = _Table()
    key = table.runner.signing_key
    if fault == "changed-commitment":
        install(table.runner, CheatKind.CHANGED_COMMITMENT, key)
    else:
        table.runner.cheat = _LockAltering(key, omit=fault == "omitted")
    table.feed(JournalKind.GAME, {"game_no": 1, "names": ["p0", "p1"]})
    for _ in range(2 * MAX_MISSED_ROUNDS + 1):
        _commit_only(table)
        assert table.runner.deal is not None and table.runner.deal.wronged == {1}
        table.feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
        assert table.player.misses == 0 and table.player.missed == 0
        assert not table.player.sit_out and not table.player.stood_up
        assert table.runner.phase is TablePhase.DEALING  # a new round waits for seat 1 itself
    assert not table.stood_up_events()
    opened = [m for m in table.out if m["type"] == "fair" and m["msg"][0] == "hand_commit"]
    assert len(opened) == 2 * MAX_MISSED_ROUNDS + 2
    assert all(m["host_seats"] == [0] for m in opened)
    voids = [m for m in table.out if m["type"] == "fair" and m["msg"][0] == "void"]
    assert len(voids) == 2 * MAX_MISSED_ROUNDS + 1 and table.runner.voids == len(voids)


async def test_a_seat_withholding_its_reveal_after_a_good_lock_still_misses() -> None:
    """The other side of the rule: an honest LOCK wrongs nobody, so the seat is counted."""
    table = _Table()
    table.feed(JournalKind.GAME, {"game_no": 1, "names": ["p0", "p1"]})
    _commit_only(table)
    assert table.runner.deal is not None and table.runner.deal.wronged == set()
    table.feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
    assert table.player.misses == 2 and table.player.sit_out is False  # sat out, hand dealt
    opened = [m for m in table.out if m["type"] == "fair" and m["msg"][0] == "hand_commit"]
    assert opened[-1]["host_seats"] == [0, 1]


@pytest.mark.parametrize("kind", [CheatKind.SHORT_DECK, CheatKind.CHANGED_OPTIONS])
async def test_a_seat_refusing_to_commit_to_a_hand_not_the_tables_is_never_counted(
    kind: CheatKind,
) -> None:
    """A HAND_COMMIT under another deck or ruleset than the table's wrongs every seat: the
    seat that commits nothing to it counts no miss and is never dealt for by the host."""
    table = _Table()
    install(table.runner, kind, table.runner.signing_key)
    table.feed(JournalKind.GAME, {"game_no": 1, "names": ["p0", "p1"]})
    for _ in range(2 * MAX_MISSED_ROUNDS + 1):
        deal = table.runner.deal
        assert deal is not None and not deal.locked and deal.wronged == {1}
        table.feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
        assert table.player.misses == 0 and not table.player.stood_up
    opened = [m for m in table.out if m["type"] == "fair" and m["msg"][0] == "hand_commit"]
    assert all(m["host_seats"] == [0] for m in opened) and not table.stood_up_events()


async def test_seats_the_host_plays_on_a_private_table_show_their_bankrupt_hands() -> None:
    """Private One Card tables of four seats, every one played by the host (its masking too),
    with a hand limit one card above the deal: a seat that goes bankrupt mid-game is asked with
    ``show_hand`` and the host answers for it (its keys are the host's); each game ends and
    its record verifies. The deals are random: games are played until one had such an ask."""
    asked: list[dict[str, Any]] = []
    for _ in range(10):
        asked = _private_host_game()
        if asked:
            break
    assert asked, "no seat went bankrupt mid-game in ten games"


def _private_host_game() -> list[dict[str, Any]]:
    """One game of :func:`test_seats_the_host_plays_on_a_private_table_show_their_bankrupt_hands`;
    its ``show_hand`` events."""
    runner = GameRunner(
        table_id="t-private",
        game_cls=find_game("one-card").state,
        seats=4,
        options={"bankrupt_at": 6},
        signing_key=Ed25519PrivateKey.generate(),
        turn_timer=None,
        round_timeout=20.0,
        now=trio.current_time,
        private=True,
    )
    for i in range(4):
        runner.seats[i] = Seat(i, f"p{i}", None, substitute=True)
    out: list[Any] = []

    def feed(kind: JournalKind, payload: dict[str, Any]) -> None:
        batch = Batch()
        runner.feed(batch, kind, payload)
        out.extend(msg for _, msg in batch.out)

    feed(JournalKind.GAME, {"game_no": 1, "names": [f"p{i}" for i in range(4)]})
    for _ in range(1000):
        if runner.phase is not TablePhase.PLAYING:
            break
        engine, deal = runner.engine, runner.deal
        assert engine is not None and deal is not None and deal.mask is not None
        seat = engine.to_act()[0]
        move = first_move(engine.view(seat), deal.mask.host_cards(seat))
        assert move is not None
        action, positions = move
        opens = deal.mask.host_play_keys(seat, positions) if positions else []
        feed(
            JournalKind.ACTION,
            {"seat": seat, "action": action, "act_seq": None, "note": None, "open": opens},
        )
    assert runner.phase is TablePhase.FINISHED
    events = [m["event"] for m in out if m.get("type") == "event"]
    asked = [e for e in events if e["kind"] == "show_hand"]
    bankrupt = [e for e in events if e["kind"] == "bankrupt"]
    assert len(bankrupt) >= len(asked)
    for ask in asked:  # each ask came before that seat's bankrupt event, with its cards
        shown = next(e for e in bankrupt if e["seat"] == ask["seat"])
        assert len(shown["cards"]) == len(ask["positions"]) >= 6
    ((_, record),) = runner.pending_records
    assert verify_record(record).ok
    return asked
