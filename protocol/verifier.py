"""A client's (or auditor's) side of ``cardfair/v1`` for one hand: :class:`HandVerifier`.

How it works (normative text: ``spec/PROTOCOL.md`` section 7): the verifier is fed the host's
signed messages in order. Each one's signature is checked before its body is decoded, then its
place in the state table :data:`_NEXT`, its ``seq`` and its ``prev`` link to the transcript.
HAND_COMMIT is checked against what the client expects; a seated client commits after it and
reveals only after a LOCK holding its commitment. DRAWs must take the next unused position of
the current stream, and every card learnt (private CARD, face-up DRAW, or shown later through
:meth:`HandVerifier.note_shown`) is compared with the derived order once HAND_END opens ``S``:
those stream checks are :class:`~protocol.stream_checks.StreamChecks`, which the verifier feeds
the DRAW, CARD, RESHUFFLE and HAND_END bodies it has decoded; the record-level checks are here.
A private hand's masking messages (section 10) go to :class:`~protocol.mask_checks.MaskChecks`.

A sans-I/O state machine; every failure is a :class:`~protocol.cardfair.FairnessError` and
:meth:`HandVerifier.bundle` is the evidence to keep. The host side is :mod:`protocol.dealer`;
:mod:`protocol.fairness` re-exports both.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from protocol.cardfair import (
    DEALER_STREAM,
    SCHEME,
    BadMessageError,
    CardMismatchError,
    CommitmentError,
    Context,
    ContextError,
    DeckError,
    FairnessStateError,
    MessageType,
    PositionError,
    RulesetError,
    SeatSecret,
    SignedMessage,
    card_code,
    choose_dealer,
    deck_key,
    exact_card,
    field_b32,
    field_int,
    field_list,
    field_pairs,
    field_seat,
    field_str,
    fingerprint,
    host_commitment,
    mix,
    player_commitment,
    private_next,
    transcript_next,
)
from protocol.cards import ALL_CARDS, Card
from protocol.decks import ruleset_deck
from protocol.mask_checks import MaskChecks
from protocol.stream_checks import StreamChecks

__all__ = ["HandReport", "HandVerifier"]


_M = MessageType
#: The verifier's state table: which public message may follow which (``None``: nothing yet).
#: VOID may end a hand at any point after HAND_COMMIT; nothing follows HAND_END or VOID.
#: A private hand (PROTOCOL.md 10.11) adds MASK_LOCK after LOCK, each round's MASK_STAGEs after
#: REVEALS or its RESHUFFLE, SEALED / MASK_OPEN / OPENED during play and MASK_END before HAND_END;
#: :class:`~protocol.mask_checks.MaskChecks` checks what the table cannot say (a DRAW only from a
#: round whose stages are all in, HAND_END of a private hand only after MASK_END).
_PLAY = frozenset(
    {
        _M.DRAW,
        _M.SEALED,
        _M.MASK_OPEN,
        _M.OPENED,
        _M.RESHUFFLE,
        _M.MASK_END,
        _M.HAND_END,
        _M.VOID,
    }
)
_NEXT: dict[MessageType | None, frozenset[MessageType]] = {
    None: frozenset({_M.HAND_COMMIT}),
    _M.HAND_COMMIT: frozenset({_M.LOCK, _M.VOID}),
    _M.LOCK: frozenset({_M.MASK_LOCK, _M.REVEALS, _M.VOID}),
    _M.MASK_LOCK: frozenset({_M.REVEALS, _M.VOID}),
    _M.REVEALS: frozenset({_M.MASK_STAGE, _M.DEALER, _M.DRAW, _M.HAND_END, _M.VOID}),
    _M.DEALER: frozenset({_M.MASK_STAGE, _M.DRAW, _M.HAND_END, _M.VOID}),
    _M.MASK_STAGE: frozenset({_M.MASK_STAGE, _M.DEALER, _M.DRAW, _M.MASK_END, _M.VOID}),
    _M.DRAW: _PLAY,
    _M.SEALED: _PLAY,
    _M.MASK_OPEN: _PLAY,
    _M.OPENED: _PLAY,
    _M.RESHUFFLE: frozenset({_M.MASK_STAGE, _M.DRAW, _M.RESHUFFLE, _M.HAND_END, _M.VOID}),
    _M.MASK_END: frozenset({_M.HAND_END, _M.VOID}),
    _M.HAND_END: frozenset(),
    _M.VOID: frozenset(),
}


@dataclass(frozen=True, slots=True)
class HandReport:
    """What a verifier established once the hand ended or was voided."""

    hand_no: int
    voided: bool
    transcript: bytes  #: final T (after HAND_END / VOID)
    cards_checked: int  #: private and face-up cards compared against the derived deck
    dealer: int | None
    missing: tuple[str, ...] = ()  #: VOID only: the seats named as missing
    orders: dict[int, list[Card]] = field(default_factory=dict)  #: derived stream orders
    secret: bytes = b""  #: the revealed S
    outcome: dict[str, Any] | None = None  #: HAND_END only: the signed outcome, if any
    ctx: bytes = b""  #: the hand's ctx digest

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.transcript)


DECK_INDEX = {c.code: c.index for c in ALL_CARDS}


def _check_deck(ctx: Context) -> None:
    """7.3: the signed deck is exactly the one its ruleset deals at this many seats."""
    want = tuple(c.code for c in ruleset_deck(ctx.ruleset_id, len(ctx.pids)))
    if ctx.deck == want:
        return
    have, need = Counter(ctx.deck), Counter(want)
    gone = sort_codes((need - have).elements())
    extra = sort_codes((have - need).elements())
    what = []
    if gone:
        what.append(f"without {_few(gone)}")
    if extra:
        what.append(f"with {_few(extra)} too")
    raise DeckError(
        f"HAND_COMMIT deals {len(ctx.deck)} cards {' and '.join(what)}: not the "
        f"{len(want)}-card deck of ruleset {ctx.ruleset_id!r} at {len(ctx.pids)} seats"
    )


def sort_codes(codes: Iterable[str]) -> list[str]:
    """Card codes in canonical order (unknown codes last)."""
    return sorted(codes, key=lambda c: DECK_INDEX.get(c, 1 << 30))


def _few(codes: Sequence[str]) -> str:
    shown = " ".join(codes[:8])
    return shown if len(codes) <= 8 else f"{shown} (+{len(codes) - 8} more)"


class HandVerifier:
    """A client's (or auditor's) checks of one hand, fed the host's signed messages in order.

    Call :meth:`receive` with each :class:`SignedMessage`. A seated client (``pid`` given)
    sends :meth:`player_commit` after HAND_COMMIT and :meth:`reveal` after LOCK; the verifier
    refuses to reveal earlier. ``receive`` returns the :class:`Card` of a CARD message, the
    :class:`HandReport` of HAND_END / VOID, otherwise ``None``; any failed check raises a
    :class:`FairnessError`. An ``auditor`` accepts every seat's CARD messages (records) and,
    if ``complete``, requires a CARD for every face-down DRAW to a seat and checks the
    ``private`` digest of HAND_END / VOID against them.

    ``defer_signatures`` (auditors of a whole record only) skips each signature check as the
    message arrives; :meth:`verify_deferred` then checks the one signature that vouches for the
    rest (the last public message's: every earlier public message's bytes and signature are
    chained into its ``prev``, and a complete record's CARDs into HAND_END's ``private``) plus
    every CARD nothing vouches for. Bodies are decoded before their signature is checked, so
    a caller must treat any failure in this mode as provisional and re-run without it to name
    the first failure (``protocol.hand_records.verify_record`` does).

    The expectations (``table_id``, ``ruleset_id``, ``deck``, ``pids``) are checked against
    HAND_COMMIT when given; ``last_hand_no`` and ``seen_commitments`` carry what the client
    saw at this table before. A client that rejoins a hand in progress must pass its stored
    ``seat_secret`` (a new one would not match LOCK) or follow as a spectator (``pid=None``).
    After any failure, :meth:`bundle` is the evidence to keep.

    A private hand (PROTOCOL.md 10.11: a MASK_LOCK after LOCK) is checked by
    :class:`~protocol.mask_checks.MaskChecks` as its masking messages arrive, audited at
    MASK_END, and its stock comes from that audit; ``private`` says what the table promised
    (True: a hand without MASK_LOCK fails; False: a MASK_LOCK fails; None: either).
    """

    def __init__(
        self,
        host_pk: bytes,
        *,
        pid: str | None = None,
        table_id: str | None = None,
        ruleset_id: str | None = None,
        deck: Sequence[Card | str] | None = None,
        pids: Sequence[str] | None = None,
        last_hand_no: int = 0,
        seen_commitments: Collection[bytes] = (),
        auditor: bool = False,
        complete: bool = True,
        phrase: str | None = None,
        seat_secret: SeatSecret | None = None,
        defer_signatures: bool = False,
        live: bool = False,
        private: bool | None = None,
    ) -> None:
        if defer_signatures and not auditor:
            raise FairnessStateError("only an auditor of a record may defer signature checks")
        if len(host_pk) != 32:
            raise ContextError(f"host key must be 32 bytes, not {len(host_pk)}")
        self.host_pk = bytes(host_pk)
        try:
            self._pk = Ed25519PublicKey.from_public_bytes(self.host_pk)
        except ValueError:
            raise ContextError("the host key is not a valid Ed25519 public key") from None
        self.pid = pid
        self._expect = (
            table_id,
            ruleset_id,
            None if deck is None else tuple(map(card_code, deck)),
            None if pids is None else tuple(pids),
        )
        self._last_hand_no = last_hand_no
        self._seen = set(seen_commitments)
        self.auditor = auditor
        self.complete = complete
        self._phrase = phrase
        self._preset = seat_secret
        self.context: Context | None = None
        self.seat: SeatSecret | None = None
        self.commitment = b""
        self._commits: dict[str, bytes] = {}
        self._reveals: dict[str, bytes] = {}
        self._transcript = b""
        self._private = b""  # P over the CARD messages (auditors), checked at HAND_END / VOID
        self._private_checked = False
        self._defer = defer_signatures
        self._unchecked_public: SignedMessage | None = None  # deferred: the last public message
        self._unchecked_cards: list[SignedMessage] = []  # deferred: CARDs not yet checked
        #: how many signatures were actually verified (a deferring auditor skips most)
        self.signatures_checked = 0
        self._seq = 0
        self._state: MessageType | None = None
        self._locked = False
        self.dealer: int | None = None
        self._dealer_seats = 0
        #: DRAW / CARD / RESHUFFLE positions and cards learnt; ``live``: checked against events
        self._streams = StreamChecks(live=live)
        #: a private hand's masking (section 10); ``private``: what the table said it is
        self._masks = MaskChecks()
        self._expect_private = private
        self.report: HandReport | None = None
        #: every message whose signature verified, in order: the evidence of 7.12
        self.messages: list[SignedMessage] = []

    # -- seat actions
    def player_commit(self) -> dict[str, Any]:
        """The PLAYER_COMMIT body to send (after HAND_COMMIT verified)."""
        if self.seat is None or self.context is None:
            raise FairnessStateError("no verified HAND_COMMIT for a seated client yet")
        return self.seat.commit_body(self.context.hand_no)

    def reveal(self) -> dict[str, Any]:
        """The REVEAL body; refused until a LOCK holding our commitment verified."""
        if self.seat is None or self.context is None or not self._locked:
            raise FairnessStateError("refusing to reveal r before a valid LOCK")
        return self.seat.reveal_body(self.context.hand_no)

    @property
    def transcript(self) -> bytes:
        """The transcript digest after the last public message received."""
        return self._transcript

    @property
    def commits_by_pid(self) -> dict[str, bytes]:
        """The seat commitments of the verified LOCK (empty before it)."""
        return dict(self._commits)

    @property
    def reveals_by_pid(self) -> dict[str, bytes]:
        """The seat reveals of the verified REVEALS (empty before it)."""
        return dict(self._reveals)

    # -- receiving
    def receive(self, msg: SignedMessage) -> Card | HandReport | None:
        """Check one signed host message; see the class docstring."""
        if self.report is not None:
            raise FairnessStateError(f"{msg.name} after the hand ended")
        if not self._defer:
            msg.verify(self._pk)
            self.signatures_checked += 1
        elif msg.type == MessageType.CARD:
            self._unchecked_cards.append(msg)
        else:
            self._unchecked_public = msg
        self.messages.append(msg)
        body = msg.decode()
        if msg.type == MessageType.CARD:
            if self._masks.private:
                raise FairnessStateError("a CARD in a private hand (no card is sent in clear)")
            card = self._on_card(msg, body)
            if self.auditor:
                self._private = private_next(self._private, self._transcript, msg.body, msg.sig)
            return card
        try:
            mtype = MessageType(msg.type)
        except ValueError:
            raise BadMessageError(f"unknown signed message type {msg.type!r}") from None
        if mtype not in _NEXT[self._state]:
            after = "nothing" if self._state is None else self._state.upper()
            raise FairnessStateError(f"{msg.name} is out of order (after {after})")
        if mtype is MessageType.HAND_COMMIT:
            self._on_hand_commit(msg, body)
        else:
            self._chain(msg, body)
        handler = {
            MessageType.HAND_COMMIT: None,
            MessageType.LOCK: self._on_lock,
            MessageType.REVEALS: self._on_reveals,
            MessageType.DEALER: self._on_dealer,
            MessageType.DRAW: self._on_draw,
            MessageType.RESHUFFLE: self._on_reshuffle,
            MessageType.HAND_END: self._on_hand_end,
            MessageType.VOID: self._on_void,
            MessageType.MASK_LOCK: self._on_mask_lock,
            MessageType.MASK_STAGE: self._on_mask_stage,
            MessageType.SEALED: self._on_sealed,
            MessageType.MASK_OPEN: self._on_mask_open,
            MessageType.OPENED: self._on_opened,
            MessageType.MASK_END: self._on_mask_end,
        }[mtype]
        result = None if handler is None else handler(msg, body)
        self._state = mtype
        self._transcript = transcript_next(self._transcript, msg.type, msg.body, msg.sig)
        self._seq += 1
        if isinstance(result, HandReport):
            assert self.context is not None
            self.report = dataclasses.replace(
                result, transcript=self._transcript, ctx=self.context.digest
            )
            return self.report
        return None

    def verify_deferred(self) -> None:
        """Check the signatures a ``defer_signatures`` auditor skipped that nothing vouches for.

        That is the last public message's signature (its ``prev`` chains every earlier public
        message, signatures included) and, unless HAND_END / VOID's ``private`` digest matched
        the CARDs of a complete record, every CARD's own signature.
        """
        pending = [] if self._private_checked else self._unchecked_cards
        if self._unchecked_public is not None:
            pending = [self._unchecked_public, *pending]
        for msg in pending:
            msg.verify(self._pk)
            self.signatures_checked += 1
        self._unchecked_public = None
        self._unchecked_cards = []

    def _chain(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        if self.context is None:
            raise FairnessStateError(f"{msg.name} before HAND_COMMIT")
        seq = field_int(body, "seq", msg.name)
        if seq != self._seq:
            raise PositionError(f"{msg.name} has seq {seq}, expected {self._seq}")
        if field_b32(body, "prev", msg.name) != self._transcript:
            raise PositionError(f"{msg.name} (seq {seq}) does not chain to the transcript")

    def _on_hand_commit(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:  # noqa: C901, PLR0912
        if self.context is not None:
            raise FairnessStateError("a second HAND_COMMIT in one hand")
        n = msg.name
        if field_str(body, "scheme", n) != SCHEME:
            raise ContextError(f"unknown fairness scheme {body['scheme']!r}")
        deck = field_list(body, "deck", n)
        pids = field_list(body, "pids", n)
        if not all(isinstance(p, str) for p in pids):
            raise BadMessageError(f"{n} field 'pids' must hold strings")
        for i, code in enumerate(deck):
            exact_card(code, f"{n} deck[{i}]")
        ctx = Context.create(
            table_id=field_str(body, "table_id", n),
            hand_no=field_int(body, "hand_no", n),
            ruleset_id=field_str(body, "ruleset_id", n),
            deck=deck,
            pids=pids,
            host_pk=field_b32(body, "host_pk", n),
        )
        if ctx.host_pk != self.host_pk:
            raise ContextError("HAND_COMMIT names a host key other than the pinned one")
        table_id, rules, exp_deck, exp_pids = self._expect
        if table_id is not None and ctx.table_id != table_id:
            raise ContextError(f"HAND_COMMIT is for table {ctx.table_id!r}, not {table_id!r}")
        if rules is not None and ctx.ruleset_id != rules:
            raise RulesetError(f"HAND_COMMIT ruleset {ctx.ruleset_id!r}, expected {rules!r}")
        _check_deck(ctx)
        if exp_deck is not None and ctx.deck != exp_deck:
            raise DeckError("HAND_COMMIT deck differs from the deck expected")
        if exp_pids is not None and ctx.pids != exp_pids:
            raise ContextError(f"HAND_COMMIT seats {list(ctx.pids)}, expected {list(exp_pids)}")
        if ctx.hand_no <= self._last_hand_no:
            raise ContextError(f"hand_no {ctx.hand_no} does not exceed {self._last_hand_no}")
        if field_int(body, "seq", n) != 0:
            raise PositionError("HAND_COMMIT must have seq 0")
        if field_b32(body, "prev", n) != ctx.digest:
            raise ContextError("HAND_COMMIT prev is not ctx")
        commit = field_b32(body, "commit", n)
        if commit in self._seen:
            raise CommitmentError("HAND_COMMIT reuses a host commitment seen before")
        if self.pid is not None:
            ctx.seat_of(self.pid)
            if self._preset is not None:
                if self._preset.c != player_commitment(ctx.digest, self.pid, self._preset.r):
                    raise CommitmentError("the preset seat secret is for another hand")
                self.seat = self._preset
            else:
                self.seat = SeatSecret.new(ctx.digest, self.pid, self._phrase)
        self.context = ctx
        self.commitment = commit
        self._transcript = ctx.digest
        self._private = ctx.digest

    def _on_lock(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        assert self.context is not None
        if field_b32(body, "commit", msg.name) != self.commitment:
            raise CommitmentError("LOCK carries a host commitment other than HAND_COMMIT's")
        pairs = field_pairs(body, "commits", msg.name)
        pids = [p for p, _ in pairs]
        if pids != list(self.context.pids):
            raise CommitmentError(
                f"LOCK lists seats {pids}, expected one entry per seat {list(self.context.pids)}"
            )
        values = [c for _, c in pairs]
        for i, c in enumerate(values):
            if c in values[:i]:
                raise CommitmentError(
                    f"LOCK commitment of {pids[i]} equals that of {pids[values.index(c)]}"
                )
        self._commits = dict(pairs)
        if self.seat is not None and self._commits[self.seat.pid] != self.seat.c:
            raise CommitmentError(f"LOCK alters our own commitment ({self.seat.pid})")
        self._locked = True

    def _on_reveals(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        assert self.context is not None
        pairs = field_pairs(body, "reveals", msg.name)
        if [p for p, _ in pairs] != list(self.context.pids):
            raise CommitmentError("REVEALS does not list every seat once, in seat order")
        ctx = self.context.digest
        for p, r in pairs:
            if player_commitment(ctx, p, r) != self._commits[p]:
                raise CommitmentError(f"revealed r of {p} does not open its commitment")
        self._reveals = dict(pairs)
        if self.seat is not None and self._reveals[self.seat.pid] != self.seat.r:
            raise CommitmentError("REVEALS alters our own r")
        if self._expect_private and not self._masks.private:
            raise FairnessStateError("REVEALS without MASK_LOCK at a private table")
        self._masks.open_round(0, self.context.deck, self.context)

    def _on_dealer(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        assert self.context is not None
        if field_int(body, "stream", msg.name) != DEALER_STREAM:
            raise PositionError(f"DEALER must use stream {DEALER_STREAM}")
        n = len(self.context.pids)
        if field_int(body, "seats", msg.name) != n:
            raise ContextError(f"DEALER draws among {body['seats']} seats, not {n}")
        self.dealer = field_seat(body, "dealer", msg.name, n)
        if self.dealer is None:
            raise BadMessageError("DEALER field 'dealer' is not a seat")
        self._dealer_seats = n

    def _on_draw(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        assert self.context is not None
        self._streams.on_draw(self._seq, msg.name, body, self.context)
        self._masks.on_draw(msg.name, body)

    def _on_card(self, msg: SignedMessage, body: Mapping[str, Any]) -> Card:
        return self._streams.on_card(
            msg.name, body, self.context, auditor=self.auditor, pid=self.pid
        )

    def _on_reshuffle(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        assert self.context is not None
        self._streams.on_reshuffle(msg.name, body, self.context)
        self._masks.open_round(body["stream"], list(body["cards"]), self.context)

    # -- private hands (section 10): the checks are protocol.mask_checks'
    def _on_mask_lock(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        assert self.context is not None
        if self._expect_private is False:
            raise FairnessStateError("MASK_LOCK at a table that is not private")
        self._masks.on_mask_lock(msg.name, body, self.context)
        self._streams.late_events = True

    def _on_mask_stage(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        self._masks.on_stage(msg.name, body)

    def _on_sealed(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        self._masks.on_sealed(msg.name, body)

    def _on_mask_open(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        self._masks.on_mask_open(msg.name, body)

    def _on_opened(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        stream, pos, card = self._masks.on_opened(msg.name, body)
        self._streams.note_shown(stream, pos, card)

    def _on_mask_end(self, msg: SignedMessage, body: Mapping[str, Any]) -> None:
        assert self.context is not None
        self._masks.on_mask_end(msg.name, body, self.context)

    @property
    def private(self) -> bool:
        """Whether this hand is a private one (a MASK_LOCK came)."""
        return self._masks.private

    @property
    def masks(self) -> MaskChecks:
        """The masking state of a private hand (rounds, boxes, opened keys)."""
        return self._masks

    def drawn(self, stream: int, position: int) -> bool:
        """Whether a DRAW for ``(stream, position)`` was received (see :meth:`note_shown`)."""
        return self._streams.drawn(stream, position)

    def unshown_table_cards(self) -> list[tuple[int, int]]:
        """The ``(stream, pos)`` of cards dealt face down to the table (a DRAW to nobody with
        no card, like ONE's centre card) that no game event has shown (:meth:`note_shown`).
        A host must show each before HAND_END (PROTOCOL.md 7.9), so a client checks it."""
        return self._streams.unshown_table_cards()

    def note_shown(self, stream: int, position: int, card: Card) -> None:
        """Note a card the game showed later for a drawn ``(stream, position)``.

        E.g. ONE's centre card, dealt face down to the table and turned up in play, or a card
        an opponent plays when the game names its position. It is compared with the derived
        card at HAND_END like the cards of CARD and face-up DRAW messages.
        """
        self._streams.note_shown(stream, position, card)

    def note_event(self, event: Mapping[str, Any]) -> None:
        """Take from a public game event what the live checks of 7.9 need, with no rules code:
        ``positions`` with a parallel ``seats`` (where each card goes: a seat, or None for the
        table) and ``pile`` (cards it put face up on the discard pile). Raises
        :class:`BadMessageError` if those fields are malformed. Private events are ignored."""
        if "to" in event:
            return
        positions, seats = event.get("positions"), event.get("seats")
        if isinstance(seats, list):
            if not isinstance(positions, list) or len(positions) != len(seats):
                raise BadMessageError("a game event's 'seats' does not match its 'positions'")
            n = 0 if self.context is None else len(self.context.pids)
            for where, seat in zip(positions, seats, strict=True):
                ok = isinstance(where, list) and len(where) == 2
                if not ok or not all(isinstance(x, int) and not isinstance(x, bool) for x in where):
                    raise BadMessageError(f"a game event names position {where!r}")
                if seat is not None and (
                    isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n
                ):
                    raise BadMessageError(f"a game event gives a card to {seat!r}, not a seat")
                self._streams.announce(where[0], where[1], seat)
        pile = event.get("pile")
        if pile is not None:
            if not isinstance(pile, list):
                raise BadMessageError("a game event's 'pile' is not a list of cards")
            self._streams.discard([exact_card(c, "a game event's pile") for c in pile])

    def bundle(self) -> dict[str, Any]:
        """A proof bundle: a minimal hand record of every verified message received so far.

        ``protocol.hand_records.verify_record`` on it names the offending message, or says that
        the hand was never opened (no HAND_END) when the host withholds ``S``.
        """
        if self.context is None:
            raise FairnessStateError("no verified HAND_COMMIT yet")
        c = self.context
        return {
            "format": "onecard-hand-record/1",
            "scheme": SCHEME,
            "table_id": c.table_id,
            "hand_no": c.hand_no,
            "pids": list(c.pids),
            "host_pk": self.host_pk.hex(),
            "messages": [[m.type, m.body.hex(), m.sig.hex()] for m in self.messages],
            "partial": True,
        }

    def _open_secret(self, body: Mapping[str, Any], name: str) -> bytes:
        assert self.context is not None
        s = field_b32(body, "secret", name)
        if host_commitment(self.context.digest, s) != self.commitment:
            raise CommitmentError(f"the S revealed in {name} does not open C_S")
        return s

    def _check_private(self, body: Mapping[str, Any], name: str) -> None:
        """``private`` must be 32 bytes; a complete record's CARDs must chain to it."""
        digest = field_b32(body, "private", name)
        if self.auditor and self.complete:
            if digest != self._private:
                raise CommitmentError(
                    f"{name} field 'private' does not match the CARD messages of the record"
                )
            self._private_checked = True

    def _on_hand_end(self, msg: SignedMessage, body: Mapping[str, Any]) -> HandReport:
        ctx = self.context
        assert ctx is not None
        secret = self._open_secret(body, msg.name)
        self._streams.check_used(msg.name, body)
        rs = [self._reveals[p] for p in ctx.pids]
        key = deck_key(secret, ctx.digest, mix(ctx.digest, rs))
        if self._masks.private:  # the stock of a masked round is the audit's (10.8)
            self._masks.check_end(msg.name, complete=self.auditor and self.complete)
            orders = self._masks.orders()
        else:
            orders = self._streams.derive(key, ctx.deck)
        if self.dealer is not None:
            derived = choose_dealer(key, self._dealer_seats)
            if derived != self.dealer:
                raise CardMismatchError(f"dealer is seat {self.dealer}, derived seat {derived}")
        checked = self._streams.compare(orders)
        self._streams.check_all_named()
        if self.auditor and self.complete and not self._masks.private:
            self._streams.check_every_card_received()
        self._check_private(body, msg.name)
        if "outcome" not in body:
            raise BadMessageError("HAND_END lacks field 'outcome'")
        outcome = body["outcome"]
        if outcome is not None and not isinstance(outcome, dict):
            raise BadMessageError("HAND_END field 'outcome' must be a map or nil")
        return HandReport(
            ctx.hand_no, False, b"", checked, self.dealer, (), orders, secret, outcome
        )

    def _on_void(self, msg: SignedMessage, body: Mapping[str, Any]) -> HandReport:
        ctx = self.context
        assert ctx is not None
        secret = self._open_secret(body, msg.name)
        missing = field_list(body, "missing", msg.name)
        for p in missing:
            if not isinstance(p, str) or p not in ctx.pids:
                raise BadMessageError(f"VOID names {p!r}, who is not seated")
        field_str(body, "reason", msg.name)
        self._check_private(body, msg.name)
        return HandReport(ctx.hand_no, True, b"", 0, self.dealer, tuple(missing), {}, secret)
