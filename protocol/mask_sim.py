"""A whole private hand in one process: the reference wiring of the masking machines.

How it works: :class:`PrivateHand` plays every party of a ``cardmask/v1`` hand in memory: the
host (a :class:`~protocol.dealer.HandDealer` with a :class:`~protocol.mask_relay.MaskRelay`)
and each seat (a :class:`~protocol.verifier.HandVerifier` and a
:class:`~protocol.mask_seat.SeatMasker`). Every signed message the host sends is fed to every
seat's verifier, then to its masker; every request a masker has due is handed to the relay
(:meth:`PrivateHand.pump`), until nothing is left to say. The caller scripts what the game
would do (deal face down, turn a card up, play, reshuffle, end) and gets the hand record.
It is what the table's wiring does over the network, without the network; tests, the vector
generator (``tools/generate_private_hand_vectors.py``) and ``bench/masking.py`` drive it. Hooks
let a test tamper with a seat's requests, silence a seat or charge CPU time to each party.
Sans-I/O and deterministic given its secrets (sealed boxes aside: they are randomized).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.cardfair import SeatSecret, SignedMessage, public_key_bytes, ruleset_id
from protocol.cards import Card, parse_card
from protocol.dealer import HandDealer, SecretLedger
from protocol.decks import deck_of
from protocol.hand_records import build_record
from protocol.mask_relay import MaskRelay
from protocol.mask_seat import Outgoing, SeatMasker
from protocol.verifier import HandVerifier

__all__ = ["PrivateHand", "Tamper"]

#: a hook that may change (or drop, returning None) a seat's request before the host sees it
Tamper = Callable[[int, Outgoing], Outgoing | None]


def _seed(label: str, i: int) -> bytes:
    return hashlib.sha256(f"onecard-private-sim/{label}/{i}".encode()).digest()


class PrivateHand:
    """Every party of one private hand (see the module docstring).

    ``seed`` fixes every secret (host ``S``, each ``r_i`` and ``m_s``) for reproducible runs;
    ``None`` draws them fresh. ``charge(party)`` (``"host"`` or ``"seat3"``) is a context
    manager that times what each party does; ``sizes`` counts the bytes of every message per
    type (signed bodies for host messages, msgpack fields for seat requests).
    """

    def __init__(
        self,
        seats: int,
        *,
        game: str = "one-card",
        options: Mapping[str, bool | int | str] | None = None,
        table_id: str = "private-1",
        hand_no: int = 1,
        seed: str | None = "vectors",
        signing_key: Ed25519PrivateKey | None = None,
        tamper: Tamper | None = None,
        charge: Callable[[str], AbstractContextManager[Any]] | None = None,
    ) -> None:
        self.game = game
        self.options = dict(options or {})
        self.pids = [f"seat{i}" for i in range(seats)]
        self.deck: tuple[Card, ...] = deck_of(game, self.options, seats)
        self.key = signing_key or Ed25519PrivateKey.from_private_bytes(
            _seed("host-key", 0) if seed is not None else bytes(range(32))
        )
        self.seed = seed
        self.tamper = tamper
        self._charge = charge or (lambda party: nullcontext())
        self.silent: set[int] = set()  #: seats that send nothing (a seat that withholds)
        self.sizes: dict[str, list[int]] = defaultdict(list)
        self.cards: dict[int, dict[tuple[int, int], Card]] = {s: {} for s in range(seats)}
        with self._charge("host"):
            self.dealer = HandDealer(
                signing_key=self.key,
                table_id=table_id,
                hand_no=hand_no,
                ruleset_id=ruleset_id(game, self.options),
                deck=self.deck,
                pids=self.pids,
                secret=None if seed is None else _seed(f"{seed}/S", hand_no),
                ledger=SecretLedger(),
            )
            self.relay = MaskRelay(self.dealer)
        host_pk = public_key_bytes(self.key)
        ctx = self.dealer.context.digest
        self.verifiers = [
            HandVerifier(
                host_pk,
                pid=p,
                private=True,
                seat_secret=None
                if seed is None
                else SeatSecret.from_r(ctx, p, _seed(f"{seed}/r", i)),
            )
            for i, p in enumerate(self.pids)
        ]
        self.maskers: list[SeatMasker] = []
        self._queue: list[SignedMessage] = []

    # -- plumbing
    @property
    def seats(self) -> int:
        return len(self.pids)

    def send(self, msgs: Sequence[SignedMessage]) -> None:
        """Queue host messages for every seat (counted in :attr:`sizes`)."""
        for m in msgs:
            self.sizes[m.type].append(len(m.body) + len(m.sig) + len(m.type))
        self._queue.extend(msgs)

    def deliver(self) -> None:
        """Feed every queued host message to every seat's verifier, then to its masker."""
        while self._queue:
            msg = self._queue.pop(0)
            for s in range(self.seats):
                with self._charge(f"seat{s}"):
                    self.verifiers[s].receive(msg)
                    if s < len(self.maskers):
                        self.maskers[s].receive(msg)

    def pump(self) -> None:
        """Deliver every queued host message, hand every request due to the relay, repeat
        until nothing moves."""
        while True:
            self.deliver()
            moved = False
            for s, masker in enumerate(self.maskers):
                with self._charge(f"seat{s}"):
                    due = masker.drain()
                for item in due:
                    if s in self.silent:
                        continue
                    sent = item if self.tamper is None else self.tamper(s, item)
                    if sent is None:
                        continue
                    moved = True
                    self._request(s, sent)
            if not moved and not self._queue:
                return

    def _request(self, seat: int, item: Outgoing) -> None:
        packed = msgpack.packb(item.fields, use_bin_type=True)
        assert isinstance(packed, bytes)
        self.sizes[item.type].append(len(packed))
        with self._charge("host"):
            if item.type == "mask_pass":
                self.send([self.relay.accept_pass(seat, item.fields)])
            elif item.type == "sealed_keys":
                self.send(self.relay.accept_boxes(seat, item.fields))
            elif item.type == "open_keys":
                msgs, _ = self.relay.accept_open_keys(seat, item.fields)
                self.send(msgs)
            else:
                raise AssertionError(f"unexpected request {item.type}")

    # -- the script
    def start(self) -> None:
        """Commitments (both kinds), LOCK, MASK_LOCK, the reveals, REVEALS, round 0's passes."""
        self.send([self.dealer.hand_commit])
        self.deliver()
        for s, v in enumerate(self.verifiers):
            assert v.context is not None
            with self._charge(f"seat{s}"):
                masker = SeatMasker(
                    v.context, s, None if self.seed is None else _seed(f"{self.seed}/m", s)
                )
                commit = masker.commit()
            self.maskers.append(masker)
            with self._charge("host"):
                self.dealer.accept_commit(self.pids[s], v.player_commit())
                self.relay.accept_commit(s, commit.fields)
        with self._charge("host"):
            self.send([self.dealer.lock(), self.relay.lock()])
        self.deliver()
        with self._charge("host"):
            for s, v in enumerate(self.verifiers):
                self.dealer.accept_reveal(self.pids[s], v.reveal())
            self.send([self.dealer.reveals()])
            self.send(self.relay.start_round(0, self.deck))
        self.pump()

    def deal(self, to: int | None, count: int = 1) -> list[tuple[int, int]]:
        """Deal ``count`` positions of the current round to seat ``to`` (None: face down to
        the table); each seat's boxes follow."""
        return self.deal_all([to] * count)

    def deal_all(self, holders: Sequence[int | None]) -> list[tuple[int, int]]:
        """Deal the next positions to ``holders`` in turn, all DRAWs at once (as a table deals
        a hand), then let every seat answer: each seals its boxes in as few requests as it can."""
        stream = self.relay.current_round
        out = []
        for to in holders:
            pos = self.dealer.next_position(stream)
            with self._charge("host"):
                self.send([self.relay.deal(stream, pos, to)])
            out.append((stream, pos))
        self.pump()
        for where, to in zip(out, holders, strict=True):
            if to is not None:
                card = self.maskers[to].cards().get(where)
                if card is not None:
                    self.cards[to][where] = card
        return out

    def turn_up(self) -> tuple[tuple[int, int], Card]:
        """Deal the next position to the table and open it face up (every seat's key)."""
        (where,) = self.deal(None)
        with self._charge("host"):
            self.send([self.relay.open_face_up(where[0], [where[1]])])
        self.pump()
        return where, self._face_up(where)

    def _face_up(self, where: tuple[int, int]) -> Card:
        return parse_card(self.relay.opened[where].card)

    def play(self, seat: int, where: tuple[int, int]) -> Card:
        """Seat ``seat`` plays the card at ``where`` (dealt to it): its keys travel with the
        play (``act.open``) and the host checks them against the card it names."""
        with self._charge(f"seat{seat}"):
            card = self.maskers[seat].cards()[where]
            opens = self.maskers[seat].play_keys([where])
        with self._charge("host"):
            msgs, _ = self.relay.accept_play(
                seat, [(s, p, tuple(keys)) for s, p, keys in opens], [card]
            )
            self.send(msgs)
        self.pump()
        self.cards[seat].pop(where, None)
        return card

    def reshuffle(self, cards: Sequence[Card], kept: Sequence[Card] = ()) -> int:
        """A new round over ``cards`` (sorted by canonical index), ``kept`` staying face up."""
        stream = self.relay.current_round + 1
        ordered = sorted(cards, key=lambda c: c.index)
        with self._charge("host"):
            self.send(self.relay.start_round(stream, ordered, kept))
        self.pump()
        return stream

    def finish(self, outcome: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every seat reveals ``m_s``; MASK_END, the audit, HAND_END; returns the record."""
        for s, masker in enumerate(self.maskers):
            with self._charge(f"seat{s}"):
                reveal = masker.reveal()
            if s in self.silent:
                continue
            sent = reveal if self.tamper is None else self.tamper(s, reveal)
            if sent is None:
                continue
            with self._charge("host"):
                self.relay.accept_secret(s, sent.fields)
        with self._charge("host"):
            self.send([self.relay.end()])
            self.send([self.dealer.hand_end(outcome)])
        self.deliver()
        return self.record(outcome)

    def record(self, outcome: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return build_record(self.dealer, game=self.game, options=self.options, outcome=outcome)

    def scripted(self, cards_each: int = 5) -> Iterator[str]:
        """A whole hand (the one of the vectors): the deal, a starter turned up, one play per
        seat, a reshuffle of the played cards, one more card to each seat, a play from the
        new round. Yields the name of each step as it is done; :meth:`finish` ends it."""
        self.start()
        yield "start"
        for _ in range(cards_each):
            for s in range(self.seats):
                self.deal(s)
        yield "deal"
        _, starter = self.turn_up()
        yield "turn_up"
        played = []
        for s in range(self.seats):
            where = min(self.cards[s])
            played.append(self.play(s, where))
        yield "play"
        self.reshuffle(played, [starter])
        yield "reshuffle"
        for s in range(self.seats):
            self.deal(s)
        newest = max(self.cards[0])
        self.play(0, newest)
        yield "play_new_round"
