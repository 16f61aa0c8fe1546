"""A fake host for one private hand (PROTOCOL.md 10.11), built from the reference dealer and
relay, that seat clients (net/seat.py) talk to in memory: the tests of the seat side of private
tables (tests/net/test_private_seat.py, tests/host/test_bots_private.py) drive it."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import protocol.table_messages as tm
from net.fairplay import FairNotice
from net.keystore import KeyStore
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


class FakeSession:
    """One seat's connection: requests go to the fake host."""

    def __init__(self, host: FakeHost, seat: int) -> None:
        self.host, self.seat = host, seat

    async def send(self, msg: Message) -> None:
        self.host.inbox.append((self.seat, msg))

    async def request(self, msg: Message) -> Message:
        return await self.host.on_request(self.seat, msg)


class FakeHost:
    """A host for one private hand: the reference dealer and relay, pushes journaled."""

    def __init__(
        self, *, sk: Ed25519PrivateKey | None = None, options: dict[str, Any] | None = None
    ) -> None:
        self.sk = sk or Ed25519PrivateKey.generate()
        #: the table's options (``table_info``), signed in the hand's ruleset
        self.options = {} if options is None else dict(options)
        self.deck = deck_of(GAME, self.options, len(NAMES))
        self.dealer = HandDealer(
            signing_key=self.sk,
            table_id=TABLE,
            hand_no=1,
            ruleset_id=ruleset_id(GAME, self.options),
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
        c = SeatClient(FakeSession(self, seat), table_id=TABLE, name=NAMES[seat], keys=keys)  # type: ignore[arg-type]
        c.seat = seat
        self.clients[seat] = c
        return c

    def info(self) -> tm.TableInfo:
        return tm.TableInfo(
            table=TABLE,
            name=TABLE,
            game=GAME,
            options=self.options,
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
            elif msg.TYPE == "show_hand":
                await self.fair(r.accept_show(seat, body))
            elif msg.TYPE == "mask_reveal":
                r.accept_secret(seat, body)
                if not r.missing_secrets():
                    await self.fair([r.end(), d.hand_end(None)])
            else:
                raise AssertionError(f"unexpected {msg.TYPE}")

    async def on_request(self, seat: int, msg: Message) -> Message:
        assert isinstance(msg, tm.Act)
        if not msg.open:  # a draw or a pass opens nothing (an easy bot draws now and then)
            return tm.Ack(table=TABLE, seq=msg.seq, duplicate=False)
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


async def dealt_hand(host: FakeHost, stores: list[KeyStore]) -> None:
    for s in range(len(NAMES)):
        host.seat_client(s, stores[s])
    await host.start()
    await host.deal([0, 1, 2] * 3)


async def end_hand(host: FakeHost) -> None:
    await host.event({"kind": REVEAL_EVENT, "hand_no": 1})
    await host.pump()
