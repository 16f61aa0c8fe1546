"""net/private_seat.py with net/seat.py and net/fairplay.py: seat clients on a private table
(PROTOCOL.md 10.11, 10.13, 10.14) against a fake host built from the reference relay."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from private_host import EVERY, NAMES, TABLE, FakeHost, FakeSession, dealt_hand, end_hand

import net.seat
import protocol.table_messages as tm
from net.fairplay import FairKind
from net.keystore import FileKeyStore, KeyStore, MemoryKeyStore
from net.seat import REVEAL_EVENT, SeatClient
from protocol.cardfair import FairnessStateError, PositionError
from protocol.mask_seat import SeatMasker
from protocol.masking import UnmaskError


def _fields(msg: Any) -> dict[str, Any]:
    return {k: v for k, v in msg.to_wire().items() if k not in ("type", "table", "id", "re")}


async def test_three_seat_clients_play_a_private_hand_and_verify_it(tmp_path: Path) -> None:
    host = FakeHost()
    stores: list[KeyStore] = [FileKeyStore(tmp_path / n) for n in NAMES]
    await dealt_hand(host, stores)
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
    await end_hand(host)
    for s in range(3):
        kinds = [n.kind for n in host.notices[s]]
        assert kinds == [FairKind.VERIFIED], host.notices[s]
    # every secret is public after MASK_END: nothing is kept
    assert list((tmp_path / "Ann" / "private-keys").glob("*.key")) == []


async def test_a_play_sent_with_a_say_opens_the_positions_of_the_play_as_listed() -> None:
    """PROTOCOL.md 10.13: a private table lists Black Jack's plays without ``say`` and takes
    one sent; the bots add it (host/bots/policy.py ``with_say``). The play's keys go with it
    all the same, or the host would refuse a play that opens nothing."""
    host = FakeHost()
    await dealt_hand(host, [MemoryKeyStore() for _ in NAMES])
    ann = host.clients[0]
    await host.view(0, [{"actions": EVERY}], [{"type": "draw"}])
    assert ann.state is not None
    first, (where,) = ann.state.legal[0], ann.plays[0].positions
    sent: list[Any] = []
    request = ann.session.request

    async def keep(msg: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(msg)
        return await request(msg, *args, **kwargs)

    ann.session.request = keep  # type: ignore[method-assign]
    await ann.act({**first, "say": "last_card"})
    (act,) = [m for m in sent if isinstance(m, tm.Act)]
    assert act.action == {**first, "say": "last_card"}
    assert [(s, p) for s, p, _ in act.open] == [where]
    assert host.relay.opened[where].card == first["card"]


async def test_r_is_revealed_only_after_mask_lock(tmp_path: Path) -> None:
    host = FakeHost()
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
    host = FakeHost()
    host.tamper_stage = True
    for s in range(3):
        host.seat_client(s, MemoryKeyStore())
    await host.start()
    failed = [n for n in host.notices[0] if n.kind is FairKind.FAILED]
    assert failed and "relayed our mask pass" in failed[0].message
    assert host.clients[0].checker.failure is not None


async def test_a_client_restarted_mid_hand_loads_its_keys_and_plays_on(tmp_path: Path) -> None:
    host = FakeHost()
    stores: list[KeyStore] = [FileKeyStore(tmp_path / n) for n in NAMES]
    await dealt_hand(host, stores)
    before = host.real_cards(1)
    # Bob's process dies; a new one resumes with the same state dir and replays the journal
    del host.clients[1]
    session: Any = FakeSession(host, 1)
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
    await end_hand(host)
    assert [n.kind for n in host.notices[0]] == [FairKind.VERIFIED]
    assert host.relay.missing_secrets() == []


async def test_a_hand_over_for_another_hand_reveals_nothing() -> None:
    host = FakeHost()
    for s in range(3):
        host.seat_client(s, MemoryKeyStore())
    await host.start()
    await host.event({"kind": REVEAL_EVENT, "hand_no": 7})
    assert host.inbox == []
    await host.event({"kind": REVEAL_EVENT, "hand_no": 1})
    assert [m.TYPE for _, m in host.inbox] == ["mask_reveal"] * 3


async def test_a_private_event_is_worded_with_the_cards_we_opened() -> None:
    host = FakeHost()
    await dealt_hand(host, [MemoryKeyStore() for _ in NAMES])
    ann = host.clients[0]
    await host.view(0, [{"actions": EVERY}], [{"type": "draw"}])
    ours = {"kind": "hand", "to": 0, "positions": [[0, 0], [0, 3]]}
    opened = ann.checker.opened()
    assert ann.private_event(ours) == {**ours, "cards": [opened[0, 0], opened[0, 3]]}
    assert ann.private_event({**ours, "positions": [[0, 40]]}) is None  # not opened (yet)
    public = {"kind": "draw", "positions": [[0, 0]], "seats": [0]}
    assert ann.private_event(public) is public


async def test_nothing_is_offered_until_every_card_of_ours_is_open() -> None:
    """A state may come before the SEALED of a card just dealt: what the seat may play is
    unknown until it opens, so nothing is offered; the state fills in when it opens."""
    host = FakeHost()
    await dealt_hand(host, [MemoryKeyStore() for _ in NAMES])
    ann = host.clients[0]
    sets = [{"actions": EVERY}]
    await host.view(0, sets, [{"type": "draw"}])
    assert ann.state is not None and len(ann.state.legal) == 4
    # the host draws Ann a card and shows her the state before its boxes are in
    pos = host.dealer.next_position(0)
    host.holders[0, pos] = 0
    await host.event({"kind": "draw", "positions": [[0, pos]], "seats": [0]})
    await host.fair([host.relay.deal(0, pos, 0)])
    await host.view(0, sets, [{"type": "draw"}])
    assert ann.state.legal == () and not ann.my_turn
    await host.pump()  # the other seats' boxes: SEALED, Ann opens the card
    assert len(ann.state.view["hand"]) == 4 and len(ann.state.legal) == 5


async def test_a_state_with_the_same_view_keeps_the_plays_under_its_own_seq(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    host = FakeHost()
    await dealt_hand(host, [MemoryKeyStore() for _ in NAMES])
    ann = host.clients[0]
    sets = [{"actions": EVERY}]
    await host.view(0, sets, [{"type": "draw"}])
    first = ann.state
    assert first is not None and len(first.legal) == 4
    worked: list[int] = []
    real = net.seat.allowed
    monkeypatch.setattr(net.seat, "allowed", lambda *a: worked.append(1) or real(*a))
    host.seq += 1  # (the table moved on: another seat's card, say)
    await host.view(0, sets, [{"type": "draw"}])
    again = ann.state
    assert again is not first and again.seq == first.seq + 1
    assert again.view == first.view and again.legal == first.legal and ann.my_turn
    assert worked == []  # the plays were not worked out again
    await host.view(0, [{"actions": EVERY[:0]}], [{"type": "draw"}])  # another view: they are
    assert worked == [1] and ann.state.legal == ({"type": "draw"},)


async def _bankrupt_table(options: dict[str, Any]) -> FakeHost:
    host = FakeHost(options=options)
    await dealt_hand(host, [MemoryKeyStore() for _ in NAMES])
    return host


def _show(seat: int, positions: list[tuple[int, int]], reason: str = "limit") -> dict[str, Any]:
    where = [list(p) for p in positions]
    return {"kind": "show_hand", "hand_no": 1, "seat": seat, "positions": where, "reason": reason}


async def test_a_seat_asked_to_show_its_bankrupt_hand_gives_every_key_of_it() -> None:
    host = await _bankrupt_table({"bankrupt_at": 3})
    bob = host.clients[1]
    hand = sorted(bob.checker.opened())
    cards = host.real_cards(1)
    host.relay.ask_show(1, hand)
    await host.event(_show(1, hand))
    assert [m.TYPE for _, m in host.inbox] == ["show_hand"]  # only Bob answers
    await host.pump()
    assert [host.relay.opened[w].card for w in hand] == cards
    assert bob.checker.opened() == {} and host.relay.waiting_for() == []
    await host.event(_show(1, hand))  # the ask again (a resume's replay): nothing more
    assert host.inbox == []
    await end_hand(host)
    assert [n.kind for n in host.notices[1]] == [FairKind.VERIFIED]


async def test_a_cannot_pay_bankruptcy_is_shown_whatever_the_hand_size() -> None:
    host = await _bankrupt_table({"bankrupt_at": 20})
    hand = sorted(host.clients[2].checker.opened())
    host.relay.ask_show(2, hand)
    await host.event(_show(2, hand, reason="cannot_pay"))
    await host.pump()
    assert all(w in host.relay.opened for w in hand)


@pytest.mark.parametrize(
    ("options", "part", "reason", "why"),
    [
        ({"bankrupt_at": 3}, True, "limit", "not our whole face-down hand"),
        ({"bankrupt_at": 0}, False, "limit", "never turn a hand face up"),
        ({"bankrupt_at": 4}, False, "limit", "fewer than bankrupt_at = 4"),
        ({"bankrupt_at": 3}, False, "rules", "no rule of one-card shows a hand for 'rules'"),
    ],
    ids=["part-of-the-hand", "bankruptcy-off", "below-the-limit", "no-such-reason"],
)
async def test_a_seat_refuses_an_ask_to_show_that_the_rules_do_not_make(
    options: dict[str, Any], part: bool, reason: str, why: str
) -> None:
    host = await _bankrupt_table(options)
    hand = sorted(host.clients[1].checker.opened())
    await host.event(_show(1, hand[:2] if part else hand, reason))
    assert host.inbox == []  # not one key given
    (notice,) = host.notices[1]
    assert notice.kind is FairKind.FAILED and why in notice.message


async def test_a_show_cut_short_by_a_restart_is_finished_and_not_refused() -> None:
    """A client killed part-way through showing its bankrupt hand (some of its cards opened,
    not all) is asked again on resume: it gives the keys of the rest, not a refusal (which
    would void the hand and blame it). Cards it played face up are not taken for shown ones."""
    host = await _bankrupt_table({"bankrupt_at": 3})
    masker = host.clients[1].checker.duties.masker
    hand = sorted(masker.hand)
    assert len(hand) >= 3
    (first,) = masker.show_keys(hand)
    assert [(s, p) for s, p, _ in first.fields["open"]] == hand
    for s, p in hand[:2]:  # the host opened two before the client went
        masker._on_opened({"stream": s, "pos": p, "card": masker.hand[s, p][0]})
    again = SeatMasker.from_dict(json.loads(json.dumps(masker.to_dict())))
    (rest,) = again.show_keys(hand)
    assert [(s, p) for s, p, _ in rest.fields["open"]] == hand[2:]
    # a card played face up (never shown) in the ask: refused, as any ask not our hand
    fresh = await _bankrupt_table({"bankrupt_at": 3})
    played = fresh.clients[1].checker.duties.masker
    mine = sorted(played.hand)
    s, p = mine[0]
    played._on_opened({"stream": s, "pos": p, "card": played.hand[s, p][0]})
    with pytest.raises(PositionError, match="not our whole face-down hand"):
        played.show_keys(mine)


async def test_a_seat_checks_an_ask_to_show_by_the_options_its_hand_was_dealt_under() -> None:
    """A host that turns bankruptcy on mid-hand (``table_info``) cannot have a hand dealt
    without it shown: the seat holds the ask to the ruleset its hand was signed under."""
    host = await _bankrupt_table({"bankrupt_at": 0})
    bob = host.clients[1]
    hand = sorted(bob.checker.opened())
    bob.checker.table_options("one-card", {**host.options, "bankrupt_at": 1}, True)
    await host.event(_show(1, hand))
    assert host.inbox == []  # not one key given
    (notice,) = host.notices[1]
    assert notice.kind is FairKind.FAILED and "options this hand was not dealt by" in notice.message


async def test_an_ask_to_show_another_seats_hand_is_not_ours_to_answer() -> None:
    host = await _bankrupt_table({"bankrupt_at": 3})
    hand = sorted(host.clients[1].checker.opened())
    await host.event(_show(1, hand), only=0)
    await host.event({**_show(1, hand), "seat": 0, "hand_no": 9}, only=0)
    assert host.inbox == [] and host.notices[0] == []


async def test_the_relay_opens_a_shown_hand_only_from_its_holder_and_its_keys() -> None:
    host = await _bankrupt_table({"bankrupt_at": 3})
    relay = host.relay
    duties = host.clients[1].checker.duties
    assert duties is not None
    hand = sorted(duties.opened())
    with pytest.raises(PositionError, match="not seat 1's"):
        relay.ask_show(1, [(0, 0)])  # Ann's card
    fresh = (0, host.dealer.next_position(0))
    relay.deal(*fresh, 1)  # drawn to Bob, its boxes not in yet
    with pytest.raises(FairnessStateError, match="not released"):
        relay.ask_show(1, [*hand, fresh])
    relay.ask_show(1, hand)
    assert relay.showing(1) == hand and 1 in relay.waiting_for()
    rows = [[s, p, list(keys)] for s, p, keys in duties.play_keys(hand)]
    with pytest.raises(PositionError, match="not asked of it"):
        relay.accept_show(0, {"hand_no": 1, "open": rows})
    wrong = [[*rows[0][:2], [bytes([2]) + bytes(31), *rows[0][2][1:]]]]
    with pytest.raises(UnmaskError) as caught:
        relay.accept_show(1, {"hand_no": 1, "open": wrong})
    assert caught.value.seat == 1
    opened = relay.accept_show(1, {"hand_no": 1, "open": rows})
    assert [m.type for m in opened] == ["opened"] * 3 and relay.showing(1) == []
    assert relay.accept_show(1, {"hand_no": 1, "open": rows}) == []  # an identical resend


async def test_the_boxes_of_draws_read_in_one_go_travel_in_one_request(tmp_path: Path) -> None:
    host = FakeHost()
    stores = [FileKeyStore(tmp_path / n) for n in NAMES]
    for s in range(3):
        host.seat_client(s, stores[s])
    await host.start()
    waiting = SimpleNamespace(count=1)  # more pushes wait unread in each seat's session
    for client in host.clients.values():
        client.session.pushes = waiting  # type: ignore[assignment]
    holders = [0, 1, 2] * 3
    for to in holders:
        pos = host.dealer.next_position(0)
        host.holders[0, pos] = to
        await host.event({"kind": "draw", "positions": [[0, pos]], "seats": [to]})
        await host.fair([host.relay.deal(0, pos, to)])
    assert host.inbox == []  # nothing sent while pushes wait
    slot = host.clients[1].checker.duties
    assert slot is not None
    kept = json.loads(stores[1].get(slot.slot) or b"{}")
    assert kept["seq"] < host.seq  # nor written: a restart now replays those draws
    last_draw, waiting.count = host.seq, 0
    await host.event({"kind": "nothing_here"})  # the last push read: the seats send
    boxes = dict(host.inbox)
    assert [type(m).__name__ for _, m in host.inbox] == ["SealedKeys"] * 3
    for seat, msg in boxes.items():
        # one request a seat, with a box for each of the 6 positions drawn to the others
        assert sorted(to for _, to, _ in _fields(msg)["boxes"]) == sorted(
            to for to in holders if to != seat
        )
    assert json.loads(stores[1].get(slot.slot) or b"{}")["seq"] == last_draw
    await host.pump()
    for s in range(3):
        assert len(host.real_cards(s)) == 3
    await end_hand(host)
    assert [n.kind for n in host.notices[2]] == [FairKind.VERIFIED]


class _CountingStore(MemoryKeyStore):
    def __init__(self) -> None:
        super().__init__()
        self.puts = 0

    def put(self, slot: Any, secret: bytes) -> None:
        self.puts += 1
        super().put(slot, secret)


async def test_only_a_message_that_makes_a_request_due_is_written_and_a_restart_replays_the_rest(
    tmp_path: Path,
) -> None:
    host = FakeHost()
    stores: list[KeyStore] = [_CountingStore(), FileKeyStore(tmp_path / "Bob"), _CountingStore()]
    await dealt_hand(host, stores)
    ann = stores[0]
    assert isinstance(ann, _CountingStore)
    writes = ann.puts
    # a card dealt to Bob: Ann seals her key (a request: written first), then its SEALED,
    # which asks nothing of Ann (not written)
    (where,) = await host.deal([1])
    assert ann.puts == writes + 1
    duties = host.clients[0].checker.duties
    assert duties is not None and duties.masker.holders[where] == 1
    kept = json.loads(ann.get(duties.slot) or b"{}")
    assert kept["seq"] < host.seq  # Bob's SEALED came after
    # Ann's process dies now: the new one replays the SEALED and ends in the same state
    del host.clients[0]
    session: Any = FakeSession(host, 0)
    again = SeatClient(session, table_id=TABLE, name="Ann", keys=ann)
    again.checker.replay_until = host.seq
    again.seat = 0
    await again.handle(host.info())
    for push in host.journal:
        await again.handle(push)
    host.clients[0] = again
    assert host.inbox == []  # nothing sealed twice
    assert again.checker.duties is not None
    assert again.checker.duties.masker.to_dict() == duties.masker.to_dict()
    await end_hand(host)
    assert [n.kind for n in host.notices[1]] == [FairKind.VERIFIED]
