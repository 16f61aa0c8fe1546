"""The host's side of ``cardfair/v1`` for one hand: :class:`HandDealer` and its helpers.

How it works (normative text: ``spec/PROTOCOL.md`` section 7): the dealer commits to a fresh
32-byte secret ``S`` (HAND_COMMIT), records each seat's commitment to its own ``r_i``
(PLAYER_COMMIT), locks them all in one signed LOCK, records the seats' REVEALs and publishes
REVEALS. From then on ``K = HMAC(S, enc(L"deck-key", ctx, mix(r_1..r_k)))`` seeds one shuffle
per stream; each card the engine takes off the stock becomes a signed public DRAW (plus a private
CARD for its recipient), and HAND_END or VOID reveals ``S``. Public messages chain into the
transcript ``T`` (signatures included); CARDs chain into ``P``, which HAND_END / VOID sign.
:class:`SecretLedger` refuses a secret used twice in one process.

A sans-I/O state machine: feed it bodies, send the :class:`SignedMessage` values it returns.
Every failure is a :class:`~protocol.cardfair.FairnessError`. The client side is
:mod:`protocol.verifier`; :mod:`protocol.fairness` re-exports both.
"""

from __future__ import annotations

import enum
import hashlib
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.cardfair import (
    DEALER_STREAM,
    SCHEME,
    SECRET_BYTES,
    CommitmentError,
    Context,
    ContextError,
    FairnessError,
    FairnessStateError,
    MessageType,
    PositionError,
    ReusedSecretError,
    SignedMessage,
    Stream,
    choose_dealer,
    deck_key,
    field_b32,
    field_int,
    host_commitment,
    mix,
    player_commitment,
    private_next,
    public_key_bytes,
    shuffle,
    sign_message,
    transcript_next,
)
from protocol.cards import Card

__all__ = ["ChanceAnswer", "ChanceLike", "Dealt", "HandDealer", "SecretLedger"]


class SecretLedger:
    """Remembers ``H(S)`` of every secret used in this process so none is used twice."""

    def __init__(self) -> None:
        self._seen: set[bytes] = set()

    def claim(self, secret: bytes) -> None:
        h = hashlib.sha256(secret).digest()
        if h in self._seen:
            raise ReusedSecretError("host secret S was already used for another hand")
        self._seen.add(h)


_LEDGER = SecretLedger()


@dataclass(frozen=True, slots=True)
class Dealt:
    """One card taken off the stock: its coordinates and the signed messages to send."""

    stream: int
    position: int
    card: Card
    to: int | None
    draw: SignedMessage  #: public: broadcast to every seat and spectator
    private: SignedMessage | None  #: CARD for seat ``to`` (None when public or to nobody)


@dataclass(frozen=True, slots=True)
class ChanceAnswer:
    """The answer to a ``ChanceRequest``: the order (top first), a dealer, messages to send."""

    order: list[Card]
    dealer: int | None
    messages: list[SignedMessage]


class ChanceLike(Protocol):
    """What :meth:`HandDealer.answer` reads of a ``host.games.base.ChanceRequest``."""

    @property
    def kind(self) -> enum.Enum: ...
    @property
    def hand_no(self) -> int: ...
    @property
    def stream(self) -> int: ...
    @property
    def cards(self) -> tuple[Card, ...]: ...
    @property
    def choose_dealer(self) -> bool: ...
    @property
    def kept(self) -> tuple[Card, ...]: ...


_MASK_TYPES = frozenset(
    {
        MessageType.MASK_LOCK,
        MessageType.MASK_STAGE,
        MessageType.SEALED,
        MessageType.MASK_OPEN,
        MessageType.OPENED,
        MessageType.MASK_END,
    }
)


class _Phase(enum.Enum):
    COMMITTING = "committing"  #: HAND_COMMIT sent, waiting for seat commitments
    LOCKED = "locked"  #: LOCK sent, waiting for reveals
    DEALING = "dealing"  #: REVEALS sent, K known
    ENDED = "ended"  #: HAND_END or VOID sent


class HandDealer:
    """The host's side of one hand: commit, lock, reveal, derive, deal, end (or void).

    Drive it in this order: send :attr:`hand_commit`; feed each seat's PLAYER_COMMIT body to
    :meth:`accept_commit`; send :meth:`lock`; feed REVEAL bodies to :meth:`accept_reveal`;
    send :meth:`reveals` (or :meth:`void` naming :meth:`missing_reveals`); answer the engine's
    chance requests with :meth:`answer`; for every card the engine takes off the stock call
    :meth:`record_draw` (or :meth:`draw`) and send the messages of the :class:`Dealt`; end with
    :meth:`hand_end`. :attr:`messages` lists every signed message in sending order.

    One dealer serves one deal (stream 0 plus its reshuffles): ONE's next hand is a new
    HandDealer with the next ``hand_no``. ``secret=None`` draws a fresh ``S``; an explicit
    secret (tests, or rebuilding a hand from a journal after a restart, with its own
    ``ledger``) is refused if the ledger has seen it.
    """

    def __init__(
        self,
        *,
        signing_key: Ed25519PrivateKey,
        table_id: str,
        hand_no: int,
        ruleset_id: str,
        deck: Iterable[Card | str],
        pids: Iterable[str],
        secret: bytes | None = None,
        ledger: SecretLedger | None = None,
    ) -> None:
        self._sk = signing_key
        self.context = Context.create(
            table_id=table_id,
            hand_no=hand_no,
            ruleset_id=ruleset_id,
            deck=deck,
            pids=pids,
            host_pk=public_key_bytes(signing_key),
        )
        s = secrets.token_bytes(SECRET_BYTES) if secret is None else bytes(secret)
        if len(s) != SECRET_BYTES:
            raise FairnessError(f"host secret must be 32 bytes, not {len(s)}")
        (_LEDGER if ledger is None else ledger).claim(s)
        self._secret = s
        self.commitment = host_commitment(self.context.digest, s)
        self._phase = _Phase.COMMITTING
        self._transcript = self.context.digest
        self._private = self.context.digest  # P: the chain over the private CARD messages
        self._seq = 0
        self.messages: list[SignedMessage] = []
        self._commits: dict[str, bytes] = {}
        self._reveals: dict[str, bytes] = {}
        self._key: bytes | None = None
        self._streams: dict[int, list[Card]] = {}
        self._sizes: dict[int, int] = {}  # private tables: the size of each masked round
        self._used: dict[int, int] = {}
        self._current = -1
        self.dealer: int | None = None
        c = self.context
        self.hand_commit = self._public(
            MessageType.HAND_COMMIT,
            {
                "scheme": SCHEME,
                "table_id": c.table_id,
                "hand_no": c.hand_no,
                "ruleset_id": c.ruleset_id,
                "deck": list(c.deck),
                "pids": list(c.pids),
                "host_pk": c.host_pk,
                "commit": self.commitment,
            },
        )

    # -- internals
    def _public(self, msg_type: MessageType, fields: Mapping[str, Any]) -> SignedMessage:
        body = {"seq": self._seq, "prev": self._transcript, **fields}
        msg = sign_message(self._sk, msg_type.value, body)
        self._transcript = transcript_next(self._transcript, msg.type, msg.body, msg.sig)
        self._seq += 1
        self.messages.append(msg)
        return msg

    def _need(self, phase: _Phase, what: str) -> None:
        if self._phase is not phase:
            raise FairnessStateError(f"{what} is not allowed while {self._phase.value}")

    def _seat_value(self, pid: str, body: Mapping[str, Any], what: str, key: str) -> bytes:
        """The 32-byte ``key`` of a seat's ``{"hand_no", key}`` body, checked for this hand."""
        self.context.seat_of(pid)
        name = f"{what} from {pid}"
        if field_int(body, "hand_no", name) != self.context.hand_no:
            raise ContextError(f"{name} is for hand {body['hand_no']}, not {self.context.hand_no}")
        return field_b32(body, key, name)

    @property
    def transcript(self) -> bytes:
        """The current transcript digest ``T`` (final once the hand ended)."""
        return self._transcript

    @property
    def secret(self) -> bytes:
        """``S``; readable only once the hand ended (it was revealed then)."""
        if self._phase is not _Phase.ENDED:
            raise FairnessStateError("S stays secret until HAND_END or VOID")
        return self._secret

    @property
    def reveals_by_pid(self) -> dict[str, bytes]:
        return dict(self._reveals)

    # -- commitments
    def accept_commit(self, pid: str, body: Mapping[str, Any]) -> None:
        """Record a seat's PLAYER_COMMIT ``{"hand_no", "c"}``; a repeat of the same value is ok."""
        self._need(_Phase.COMMITTING, "PLAYER_COMMIT")
        c = self._seat_value(pid, body, "PLAYER_COMMIT", "c")
        old = self._commits.get(pid)
        if old is not None:
            if old != c:
                raise CommitmentError(f"{pid} already committed a different value")
            return
        for other, oc in self._commits.items():
            if oc == c:
                raise CommitmentError(f"commitment of {pid} copies that of {other}")
        self._commits[pid] = c

    def commit_of(self, pid: str) -> bytes | None:
        """The commitment ``pid`` made this hand, if any."""
        return self._commits.get(pid)

    def reveal_of(self, pid: str) -> bytes | None:
        """The reveal ``pid`` sent this hand, if any."""
        return self._reveals.get(pid)

    def missing_commits(self) -> list[str]:
        return [p for p in self.context.pids if p not in self._commits]

    def lock(self) -> SignedMessage:
        """Every seat committed: sign LOCK ``{C_S, [[pid, c_i], ...]}``."""
        self._need(_Phase.COMMITTING, "LOCK")
        missing = self.missing_commits()
        if missing:
            raise FairnessStateError(f"cannot lock: no commitment from {', '.join(missing)}")
        self._phase = _Phase.LOCKED
        commits = [[p, self._commits[p]] for p in self.context.pids]
        return self._public(MessageType.LOCK, {"commit": self.commitment, "commits": commits})

    # -- reveals
    def accept_reveal(self, pid: str, body: Mapping[str, Any]) -> None:
        """Record a seat's REVEAL ``{"hand_no", "r"}``; it must open the seat's commitment."""
        self._need(_Phase.LOCKED, "REVEAL")
        r = self._seat_value(pid, body, "REVEAL", "r")
        if player_commitment(self.context.digest, pid, r) != self._commits[pid]:
            raise CommitmentError(f"revealed r of {pid} does not open its commitment")
        self._reveals[pid] = r

    def missing_reveals(self) -> list[str]:
        return [p for p in self.context.pids if p not in self._reveals]

    def reveals(self) -> SignedMessage:
        """Every seat revealed: sign REVEALS and derive the deck key K."""
        self._need(_Phase.LOCKED, "REVEALS")
        missing = self.missing_reveals()
        if missing:
            raise FairnessStateError(f"cannot publish reveals: none from {', '.join(missing)}")
        rs = [self._reveals[p] for p in self.context.pids]
        ctx = self.context.digest
        self._key = deck_key(self._secret, ctx, mix(ctx, rs))
        self._phase = _Phase.DEALING
        pairs = [[p, self._reveals[p]] for p in self.context.pids]
        return self._public(MessageType.REVEALS, {"reveals": pairs})

    # -- dealing
    def _k(self) -> bytes:
        self._need(_Phase.DEALING, "dealing")
        assert self._key is not None
        return self._key

    def choose_dealer(self) -> tuple[int, SignedMessage]:
        """Draw the first dealer from :data:`DEALER_STREAM` and sign a DEALER message."""
        key = self._k()
        if self.dealer is not None:
            raise FairnessStateError("the dealer was already chosen")
        n = len(self.context.pids)
        self.dealer = choose_dealer(key, n)
        body = {"stream": DEALER_STREAM, "seats": n, "dealer": self.dealer}
        return self.dealer, self._public(MessageType.DEALER, body)

    def answer(self, request: ChanceLike) -> ChanceAnswer:
        """Answer a ``host.games.base.ChanceRequest`` (DEAL on stream 0, RESHUFFLE on k).

        The request's ``hand_no`` is the engine's own count (ONE numbers hands within a match)
        and is not compared with the table's ``hand_no`` in ``ctx``.
        """
        key = self._k()
        kind = request.kind.value
        cards: list[Card] = list(request.cards)
        stream = int(request.stream)
        messages: list[SignedMessage] = []
        dealer: int | None = None
        if kind == "deal":
            if stream != 0 or self._current != -1:
                raise FairnessStateError("a hand is dealt once, on stream 0")
            if tuple(c.code for c in cards) != self.context.deck:
                raise ContextError("the deck to deal differs from the committed deck")
            if request.choose_dealer:
                dealer, msg = self.choose_dealer()
                messages.append(msg)
        elif kind == "reshuffle":
            messages.append(self._reshuffle_message(stream, cards, list(request.kept)))
        else:
            raise FairnessStateError(f"unknown chance kind {kind!r}")
        order = shuffle(Stream(key, stream), cards)
        self._streams[stream] = order
        self._used[stream] = 0
        self._current = stream
        return ChanceAnswer(order, dealer, messages)

    def _reshuffle_message(self, stream: int, cards: list[Card], kept: list[Card]) -> SignedMessage:
        if self._current < 0 or stream != self._current + 1:
            raise FairnessStateError(f"reshuffle stream must be {self._current + 1}, not {stream}")
        if [c.index for c in cards] != sorted(c.index for c in cards):
            raise FairnessStateError("recycled cards must be sorted by canonical index")
        if not cards:
            raise FairnessStateError("a reshuffle needs at least one card")
        kept = sorted(kept, key=lambda c: c.index)
        extra = Counter(c.code for c in cards + kept) - Counter(self.context.deck)
        if extra:
            raise ContextError(f"recycled cards not in the deck: {', '.join(sorted(extra))}")
        body = {"stream": stream, "cards": [c.code for c in cards], "kept": [c.code for c in kept]}
        return self._public(MessageType.RESHUFFLE, body)

    def order(self, stream: int) -> list[Card]:
        """The derived order of an answered stream (host-internal; never sent)."""
        return list(self._streams[stream])

    def draw(self, stream: int, to: int | None, *, public: bool = False) -> Dealt:
        """Take the next unused position of ``stream`` for seat ``to`` (None: the table)."""
        return self.record_draw(stream, self._used.get(stream, 0), to, public=public)

    def record_draw(self, stream: int, position: int, to: int | None, *, public: bool) -> Dealt:
        """Record that the engine took ``(stream, position)``: it must be the next unused one.

        ``public`` puts the card in the DRAW (it lands face up); otherwise a seat ``to`` gets a
        private CARD. Returns the signed messages to send.
        """
        self._k()
        if stream != self._current:
            raise PositionError(
                f"draw from stream {stream}, but the current stream is {self._current}"
            )
        expected = self._used[stream]
        if position != expected:
            raise PositionError(
                f"draw at stream {stream} position {position}, next unused is {expected}"
            )
        order = self._streams[stream]
        if position >= len(order):
            raise PositionError(f"stream {stream} has only {len(order)} cards")
        if to is not None and not 0 <= to < len(self.context.pids):
            raise ContextError(f"no seat {to}")
        c = order[position]
        self._used[stream] = position + 1
        seq = self._seq
        body = {"stream": stream, "pos": position, "to": to, "card": c.code if public else None}
        draw = self._public(MessageType.DRAW, body)
        private = None
        if to is not None and not public:
            private = sign_message(
                self._sk,
                MessageType.CARD.value,
                {"seq": seq, "stream": stream, "pos": position, "to": to, "card": c.code},
            )
            self._private = private_next(self._private, self._transcript, private.body, private.sig)
            self.messages.append(private)
        return Dealt(stream, position, c, to, draw, private)

    # -- private tables (cardmask/v1, PROTOCOL.md 10.11): see protocol.mask_relay
    @property
    def private(self) -> bool:
        """Whether this hand is a private one (its MASK_LOCK was signed)."""
        return any(m.type == MessageType.MASK_LOCK for m in self.messages)

    def publish(self, msg_type: MessageType, fields: Mapping[str, Any]) -> SignedMessage:
        """Sign a private table's public message (``MASK_*``, ``SEALED``, ``OPENED``) into the
        hand's transcript, like every other public message. The caller
        (:class:`protocol.mask_relay.MaskRelay`) checks the order and the body."""
        if msg_type not in _MASK_TYPES:
            raise FairnessStateError(f"{msg_type.value} is not a private table's message")
        if self._phase is _Phase.ENDED or self._phase is _Phase.COMMITTING:
            raise FairnessStateError(f"{msg_type.value} is not allowed while {self._phase.value}")
        return self._public(msg_type, fields)

    def open_masked_stream(
        self, stream: int, cards: Sequence[Card], kept: Sequence[Card] = ()
    ) -> list[SignedMessage]:
        """Open a private table's round ``stream`` over ``cards`` (the deck for stream 0, the
        recycled cards of a reshuffle) without deriving any order: the stock of a masked round
        comes from the seats' passes, never from ``K``. Returns the RESHUFFLE to send (none
        for stream 0)."""
        self._k()
        messages: list[SignedMessage] = []
        if stream == 0:
            if self._current != -1:
                raise FairnessStateError("a hand is dealt once, on stream 0")
            if tuple(c.code for c in cards) != self.context.deck:
                raise ContextError("the deck to deal differs from the committed deck")
        else:
            messages.append(self._reshuffle_message(stream, list(cards), list(kept)))
        self._sizes[stream] = len(cards)
        self._used[stream] = 0
        self._current = stream
        return messages

    def next_position(self, stream: int) -> int:
        """The next unused position of ``stream`` (0 for a stream not opened yet)."""
        return self._used.get(stream, 0)

    def draw_masked(self, stream: int, position: int, to: int | None) -> SignedMessage:
        """A private table's DRAW of ``(stream, position)`` for seat ``to`` (None: the table):
        the next unused position, with no card (the host does not know it) and no CARD."""
        self._k()
        if stream != self._current or stream not in self._sizes:
            raise PositionError(
                f"draw from stream {stream}, but the current masked stream is {self._current}"
            )
        expected = self._used[stream]
        if position != expected:
            raise PositionError(
                f"draw at stream {stream} position {position}, next unused is {expected}"
            )
        if position >= self._sizes[stream]:
            raise PositionError(f"stream {stream} has only {self._sizes[stream]} cards")
        if to is not None and not 0 <= to < len(self.context.pids):
            raise ContextError(f"no seat {to}")
        self._used[stream] = position + 1
        body = {"stream": stream, "pos": position, "to": to, "card": None}
        return self._public(MessageType.DRAW, body)

    # -- ending
    def hand_end(self, outcome: Mapping[str, Any] | None = None) -> SignedMessage:
        """Reveal S with the per-stream counts of positions used; ends the hand.

        ``outcome`` (a wire-ready map such as ``Outcome.to_wire()``) is signed along, so a
        record's result cannot be changed afterwards.
        """
        self._need(_Phase.DEALING, "HAND_END")
        used = [[s, n] for s, n in sorted(self._used.items())]
        self._phase = _Phase.ENDED
        out = None if outcome is None else dict(outcome)
        body: dict[str, Any] = {
            "secret": self._secret,
            "used": used,
            "outcome": out,
            "private": self._private,
        }
        return self._public(MessageType.HAND_END, body)

    def void(self, reason: str, missing: Sequence[str] | None = None) -> SignedMessage:
        """Abandon the hand, revealing S and naming the missing seats.

        By default the missing seats are those without a commitment (before LOCK) or without
        a reveal (after it).
        """
        if self._phase is _Phase.ENDED:
            raise FairnessStateError("the hand already ended")
        if missing is None:
            committing = self._phase is _Phase.COMMITTING
            missing = self.missing_commits() if committing else self.missing_reveals()
        names = list(missing)
        for p in names:
            self.context.seat_of(p)
        self._phase = _Phase.ENDED
        body = {
            "secret": self._secret,
            "missing": names,
            "reason": reason,
            "private": self._private,
        }
        return self._public(MessageType.VOID, body)

    @property
    def ended(self) -> bool:
        return self._phase is _Phase.ENDED
