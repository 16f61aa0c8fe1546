"""net/private_seat.py with net/seat.py and net/fairplay.py: seat clients on a private table
(PROTOCOL.md 10.11, 10.13, 10.14) against a fake host built from the reference relay."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import protocol.table_messages as tm
from net.fairplay import FairKind, FairNotice
from net.keystore import FileKeyStore, KeyStore, MemoryKeyStore
from net.seat import REVEAL_EVENT, SeatClient
from protocol.cardfair import SignedMessage, ruleset_id
from protocol.dealer import HandDealer
from protocol.decks import deck_of
from protocol.mask_relay import MaskRelay
from protocol.messages import Message

TABLE = "priv1"
NAMES = ["Ann", "Bob", "Cat"]
GAME = "one-card"


def _fields(msg: Message) -> dict[str, Any]:
    return {k: v for k, v in msg.to_wire().items() if k not in ("type", "table", "id", "re")}


class _Session:
    """One seat's connection: requests go to the fake host."""

    def __init__(self, host: _Host, seat: int) -> None:
        self.host, self.seat = host, seat

    async def send(self, msg: Message) -> None:
        self.host.inbox.append((self.seat, msg))

    async def request(self, msg: Message) -> Message:
        return await self.host.on_request(self.seat, msg)


class _Host:
    """A host for one private hand: the reference dealer and relay, pushes journaled."""

    def __init__(self, *, sk: Ed25519PrivateKey | None = None) -> None:
        self.sk = sk or Ed25519PrivateKey.generate()
        self.deck = deck_of(GAME, {}, len(NAMES))
        self.dealer = HandDealer(
            signing_key=self.sk,
            table_id=TABLE,
            hand_no=1,
            ruleset_id=ruleset_id(GAME, {}),
            deck=self.deck,
            pids=NAMES,
        )
        self.relay = MaskRelay(self.dealer)
        self.clients: dict[int, SeatClient] = {}
        self.inbox: list[tuple[int, Message]] = []
        self.journal: list[Message] = []
        self.seq = 0
        self.notices: dict[int, list[FairNotice]] = {s: [] for s in range(len(NAMES))}
        self.holders: dict[tuple[int, int], int | None] = {}
        self.tamper_stage: bool = False

    def seat_client(self, seat: int, keys: KeyStore) -> SeatClient:
        c = SeatClient(_Session(self, seat), table_id=TABLE, name=NAMES[seat], keys=keys)  # type: ignore[arg-type]
        c.seat = seat
        self.clients[seat] = c
        return c

    def info(self) -> tm.TableInfo:
        return tm.TableInfo(
            table=TABLE,
            name=TABLE,
            game=GAME,
            options={},
            seats=tuple({"name": n} for n in NAMES),
            phase="waiting",
            game_no=0,
            spectators=0,
            turn_timer=None,
            voids=0,
            private=True,
        )

    async def broadcast(self, push: Message, only: int | None = None) -> None:
        for seat, client in list(self.clients.items()):
            if only is None or only == seat:
                self.notices[seat].extend(await client.handle(push))

    async def fair(self, msgs: list[SignedMessage]) -> None:
        for m in msgs:
            self.seq += 1
            push = tm.FairPush(table=TABLE, seq=self.seq, hand_no=1, msg=m.to_wire())
            self.journal.append(push)
            await self.broadcast(push)

    async def event(self, event: dict[str, Any], only: int | None = None) -> None:
        self.seq += 1
        push = tm.EventPush(table=TABLE, seq=self.seq, event=event)
        self.journal.append(push)
        await self.broadcast(push, only)

    async def pump(self) -> None:
        d, r = self.dealer, self.relay
        while self.inbox:
            seat, msg = self.inbox.pop(0)
            pid = NAMES[seat]
            body = _fields(msg)
            if isinstance(msg, tm.FairCommit):
                d.accept_commit(pid, body)
            elif msg.TYPE == "mask_commit":
                r.accept_commit(seat, body)
                if not d.missing_commits() and not r.missing_commits():
                    await self.fair([d.lock(), r.lock()])
            elif isinstance(msg, tm.FairReveal):
                d.accept_reveal(pid, body)
                if not d.missing_reveals():
                    await self.fair([d.reveals(), *r.start_round(0, self.deck)])
            elif msg.TYPE == "mask_pass":
                if self.tamper_stage and seat == 0:  # a cheating host swaps two of its points
                    self.tamper_stage = False
                    pts = list(body["points"])
                    body["points"] = [pts[1], pts[0], *pts[2:]]
                await self.fair([r.accept_pass(seat, body)])
            elif msg.TYPE == "sealed_keys":
                await self.fair(r.accept_boxes(seat, body))
            elif msg.TYPE == "open_keys":
                await self.fair(r.accept_open_keys(seat, body)[0])
            elif msg.TYPE == "mask_reveal":
                r.accept_secret(seat, body)
                if not r.missing_secrets():
                    await self.fair([r.end(), d.hand_end(None)])
            else:
                raise AssertionError(f"unexpected {msg.TYPE}")

    async def on_request(self, seat: int, msg: Message) -> Message:
        assert isinstance(msg, tm.Act)
        cards = msg.action.get("cards") or [msg.action["card"]]
        opens = [(s, p, tuple(k)) for s, p, k in msg.open]
        signed, _ = self.relay.accept_play(seat, opens, cards)
        await self.fair(signed)
        await self.pump()
        return tm.Ack(table=TABLE, seq=msg.seq, duplicate=False)

    async def start(self) -> None:
        await self.broadcast(self.info())
        await self.fair([self.dealer.hand_commit])
        await self.pump()

    async def deal(self, holders: list[int | None]) -> list[tuple[int, int]]:
        out = []
        for to in holders:
            pos = self.dealer.next_position(0)
            self.holders[0, pos] = to
            # a host says in a game event where each card goes, before its DRAW (7.9)
            await self.event({"kind": "draw", "positions": [[0, pos]], "seats": [to]})
            await self.fair([self.relay.deal(0, pos, to)])
            out.append((0, pos))
        await self.pump()
        return out

    async def view(self, seat: int, sets: list[dict[str, Any]], legal: list[Any]) -> None:
        mine = [[s, p] for (s, p), to in self.holders.items() if to == seat]
        opened = set(self.relay.opened)
        mine = [w for w in mine if (w[0], w[1]) not in opened]
        view = {
            "hand": None,
            "positions": mine,
            "legal_sets": sets,
            "legal": legal,
            "unless_met": [],
        }
        push = tm.StatePush(
            table=TABLE,
            seq=self.seq,
            game_no=1,
            phase="playing",
            seat=seat,
            view=view,
            legal=(),
            to_act=(seat,),
            turn_ms=None,
        )
        await self.broadcast(push, only=seat)

    def real_cards(self, seat: int) -> list[str]:
        """The cards really dealt to ``seat`` (the relay knows them only after MASK_END; here
        the test asks the seat's own masker, which the host never sees)."""
        duties = self.clients[seat].checker.duties
        assert duties is not None
        return [duties.opened()[w] for w in sorted(duties.opened())]


EVERY = [{"type": "play", "card": c.code} for c in deck_of(GAME, {}, 3)]


async def _dealt(host: _Host, stores: list[KeyStore]) -> None:
    for s in range(len(NAMES)):
        host.seat_client(s, stores[s])
    await host.start()
    await host.deal([0, 1, 2] * 3)


async def _finish(host: _Host) -> None:
    await host.event({"kind": REVEAL_EVENT, "hand_no": 1})
    await host.pump()


async def test_three_seat_clients_play_a_private_hand_and_verify_it(tmp_path: Path) -> None:
    host = _Host()
    stores: list[KeyStore] = [FileKeyStore(tmp_path / n) for n in NAMES]
    await _dealt(host, stores)
    ann = host.clients[0]
    # every seat opened its three cards; the state it shows is a normal table's
    await host.view(0, [{"actions": EVERY}], [{"type": "draw"}])
    assert ann.state is not None and ann.state.view["hand"] == [
        ann.checker.opened()[w] for w in [(0, 0), (0, 3), (0, 6)]
    ]
    assert len(ann.state.legal) == 4 and ann.state.legal[-1] == {"type": "draw"}
    assert ann.my_turn
    # Ann plays her first card: act.open carries every seat's key of its position
    first, (where,) = ann.state.legal[0], ann.plays[0].positions
    assert ann.checker.opened()[where] == first["card"]
    await ann.act(first)
    assert host.relay.opened[where].card == first["card"]
    await host.view(0, [{"actions": EVERY}], [{"type": "draw"}])
    assert len(ann.state.view["hand"]) == 2 and where not in ann.checker.opened()
    # the key file is the player's alone while the hand runs
    key_files = list((tmp_path / "Ann" / "private-keys").glob("*.key"))
    assert len(key_files) == 1
    assert stat.S_IMODE(os.stat(key_files[0]).st_mode) == 0o600
    await _finish(host)
    for s in range(3):
        kinds = [n.kind for n in host.notices[s]]
        assert kinds == [FairKind.VERIFIED], host.notices[s]
    # every secret is public after MASK_END: nothing is kept
    assert list((tmp_path / "Ann" / "private-keys").glob("*.key")) == []


async def test_r_is_revealed_only_after_mask_lock(tmp_path: Path) -> None:
    host = _Host()
    for s in range(3):
        host.seat_client(s, MemoryKeyStore())
    await host.broadcast(host.info())
    await host.fair([host.dealer.hand_commit])
    sent = [type(m).__name__ for _, m in host.inbox if _ == 0]
    assert sent == ["FairCommit", "MaskCommit"]
    for seat, msg in list(host.inbox):
        if isinstance(msg, tm.FairCommit):
            host.dealer.accept_commit(NAMES[seat], _fields(msg))
        else:
            host.relay.accept_commit(seat, _fields(msg))
    host.inbox.clear()
    await host.fair([host.dealer.lock()])
    assert host.inbox == []  # LOCK alone: no reveal on a private table
    await host.fair([host.relay.lock()])
    assert [type(m).__name__ for _, m in host.inbox] == ["FairReveal"] * 3


async def test_a_stage_of_ours_relayed_altered_fails_and_the_seat_goes_quiet() -> None:
    host = _Host()
    host.tamper_stage = True
    for s in range(3):
        host.seat_client(s, MemoryKeyStore())
    await host.start()
    failed = [n for n in host.notices[0] if n.kind is FairKind.FAILED]
    assert failed and "relayed our mask pass" in failed[0].message
    assert host.clients[0].checker.failure is not None


async def test_a_client_restarted_mid_hand_loads_its_keys_and_plays_on(tmp_path: Path) -> None:
    host = _Host()
    stores: list[KeyStore] = [FileKeyStore(tmp_path / n) for n in NAMES]
    await _dealt(host, stores)
    before = host.real_cards(1)
    # Bob's process dies; a new one resumes with the same state dir and replays the journal
    del host.clients[1]
    session: Any = _Session(host, 1)
    bob = SeatClient(session, table_id=TABLE, name="Bob", keys=FileKeyStore(tmp_path / "Bob"))
    bob.checker.replay_until = host.seq  # what resume() sets from the host's `resumed`
    bob.seat = 1
    await bob.handle(host.info())
    for push in host.journal:
        await bob.handle(push)
    host.clients[1] = bob
    assert host.inbox == []  # nothing re-sent from the replay
    assert host.real_cards(1) == before
    await host.view(1, [{"actions": EVERY}], [{"type": "draw"}])
    assert bob.state is not None and bob.state.view["hand"] == before
    play, (where,) = bob.state.legal[0], bob.plays[0].positions
    await bob.act(play)
    assert host.relay.opened[where].card == play["card"]
    await _finish(host)
    assert [n.kind for n in host.notices[0]] == [FairKind.VERIFIED]
    assert host.relay.missing_secrets() == []


async def test_a_hand_over_for_another_hand_reveals_nothing() -> None:
    host = _Host()
    for s in range(3):
        host.seat_client(s, MemoryKeyStore())
    await host.start()
    await host.event({"kind": REVEAL_EVENT, "hand_no": 7})
    assert host.inbox == []
    await host.event({"kind": REVEAL_EVENT, "hand_no": 1})
    assert [m.TYPE for _, m in host.inbox] == ["mask_reveal"] * 3
