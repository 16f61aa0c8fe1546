"""A seat's masking duties for one private hand, kept in a key store so a restart resumes.

How it works (``spec/PROTOCOL.md`` 10.11 and 10.14): :class:`SeatDuties` wraps the sans-I/O
:class:`~protocol.mask_seat.SeatMasker` of one hand for :class:`net.fairplay.DealChecker`. It
is fed every signed ``fair`` message the hand's verifier accepted, with its table seq
(:meth:`SeatDuties.receive`), and returns the requests due (``mask_pass``, ``sealed_keys``,
``open_keys``) as messages ready to send, or, while more pushes wait to be read, keeps them for
:meth:`SeatDuties.flush`, so that one ``sealed_keys`` carries the boxes of many ``draw`` pushes;
:meth:`SeatDuties.commit` gives the ``mask_commit`` that goes with the seat's ``fair_commit``,
:meth:`SeatDuties.reveal` the ``mask_reveal`` once the hand is over,
:meth:`SeatDuties.play_keys` the ``act.open`` of a play, :meth:`SeatDuties.show` the
``show_hand`` of a hand the rules turn face up (:func:`show_refusal` says first whether the
table's rules do) and :meth:`SeatDuties.opened` the cards the seat opened. Before requests go
out (and with a reveal or a show) the masker and the table seq of the last message it took are
written to the :class:`~net.keystore.KeyStore` under the hand's
:class:`~net.keystore.KeySlot` (the terminal client's is a 0600 file in the player's state
directory): a client restarted mid-hand loads them (:meth:`SeatDuties.load`) and skips the
messages of the host's replay it had already taken, and one restarted before its requests went
out takes the messages that made them due again. Messages that make no request due are written
with the next one that does (a restart takes them again from the replay). A failed write is
kept in :attr:`SeatDuties.store_error` (play goes on from memory; a crash would now void the
hand).
Once the secret is public (MASK_END) the slot is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from net.keystore import KeySlot, KeyStore, KeyStoreError
from protocol.cardfair import Context, FairnessError, FairnessStateError, SignedMessage
from protocol.mask_seat import Outgoing, SeatMasker
from protocol.messages import Message
from protocol.private_views import Position
from protocol.registry import MESSAGE_TYPES

__all__ = ["DUTIES_FORMAT", "SHOW_REASONS", "SHOW_RULES", "SeatDuties", "show_refusal"]

#: the ``format`` of what a seat keeps per private hand in its key store
DUTIES_FORMAT: Final = "onecard-seat-duties/1"


#: the one rule under which a seat's hand goes face up mid-hand: the game, the option that turns it
#: on (above 0), and the ``show_hand`` reason whose hand must hold at least that many cards
#: (One Card's bankruptcy: ``limit`` a hand grown to ``bankrupt_at`` cards; ``cannot_pay`` an
#: attack or penalty the stock cannot pay, which the seat cannot count itself)
SHOW_RULES: Final = {"one-card": ("bankrupt_at", "limit")}
#: every ``show_hand`` reason a game's rules give (any other is refused)
SHOW_REASONS: Final = {"one-card": ("limit", "cannot_pay")}


def show_refusal(game: str, options: Mapping[str, Any], reason: object, held: int) -> str | None:
    """Why a seat holding ``held`` cards refuses the host's ``show_hand`` (``spec/PROTOCOL.md``
    10.14), or None: a table whose rules never turn a hand face up mid-hand (another game, or
    the option off), a reason its rules do not give, or a hand smaller than the limit it is
    said to have reached."""
    rule = SHOW_RULES.get(game)
    limit = options.get(rule[0]) if rule is not None else None
    if rule is None or not isinstance(limit, int) or limit <= 0:
        return f"the rules of this table ({game}) never turn a hand face up mid-hand"
    if reason not in SHOW_REASONS.get(game, ()):
        return f"no rule of {game} shows a hand for {reason!r}"
    if reason == rule[1] and held < limit:
        return f"we hold {held} cards, fewer than {rule[0]} = {limit}"
    return None


class SeatDuties:
    """One seat's side of one private hand, kept in ``store`` (see the module docstring)."""

    def __init__(
        self,
        masker: SeatMasker,
        *,
        table_id: str,
        store: KeyStore | None,
        seq: int = 0,
    ) -> None:
        self.masker = masker
        self.table_id = table_id
        self.store = store
        #: the table seq of the last message the masker took (a replay skips up to it)
        self.seq = seq
        #: why the last write to the key store failed (None: it is safe on disk)
        self.store_error: str | None = None
        self.revealed = False
        #: the hand is over and its slot dropped: nothing is written any more
        self.ended = False
        #: the masker took messages since the last write to the store
        self._unsaved = False
        ctx = masker.context
        self.slot = KeySlot(ctx.host_pk, table_id, masker.seat, ctx.hand_no)

    @classmethod
    def start(
        cls, context: Context, seat: int, *, table_id: str, store: KeyStore | None
    ) -> SeatDuties:
        """A fresh secret for this hand, written to the store at once."""
        duties = cls(SeatMasker(context, seat), table_id=table_id, store=store)
        duties.save()
        return duties

    @classmethod
    def load(
        cls, context: Context, seat: int, *, table_id: str, store: KeyStore | None
    ) -> SeatDuties | None:
        """The duties a previous process kept for this hand, or None (none kept, unreadable,
        or kept for another hand)."""
        if store is None:
            return None
        slot = KeySlot(context.host_pk, table_id, seat, context.hand_no)
        raw = store.get(slot)
        if raw is None:
            return None
        try:
            data = json.loads(raw.decode())
            if not isinstance(data, dict) or data.get("format") != DUTIES_FORMAT:
                return None
            masker = SeatMasker.from_dict(data["masker"])
            seq = int(data["seq"])
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, FairnessError):
            return None
        if masker.context.digest != context.digest or masker.seat != seat:
            return None
        duties = cls(masker, table_id=table_id, store=store, seq=seq)
        duties.revealed = data.get("revealed") is True
        return duties

    # ------------------------------------------------------------------ what to send

    def commit(self) -> Message:
        """``mask_commit``, sent right after the seat's ``fair_commit``."""
        return self._message(self.masker.commit())

    def receive(self, msg: SignedMessage, seq: int, *, defer: bool = False) -> list[Message]:
        """Take one accepted ``fair`` message (at table seq ``seq``); the requests now due
        (with ``defer``: none yet, they wait for :meth:`flush`, so that the boxes of many
        ``draw``s go in one ``sealed_keys``). A message at or below the seq already taken (the
        host's replay after a restart) is skipped. Raises the
        :class:`~protocol.cardfair.FairnessError` of a failed check."""
        if seq and seq <= self.seq:
            return []
        self.masker.receive(msg)
        self.seq = max(self.seq, seq)
        self._unsaved = True
        if msg.type in ("mask_end", "hand_end", "void"):
            out = self._drained()
            self.drop()  # the hand is over: nothing left to resume
            return out
        return [] if defer else self.flush()

    def flush(self) -> list[Message]:
        """The requests due since the last flush, grouped (at most ``MAX_BOXES`` boxes a
        ``sealed_keys``), once the state that owes them is in the key store (a box is sealed
        afresh each time: a restart must not seal a position's key twice).

        Messages that make nothing due are not written at once: the masker and the seq taken
        are written together, so a restart takes those messages again from the host's replay
        and comes to the same state (everything but the secret and the boxes sent derives from
        the messages)."""
        out = self._drained()
        if out and self._unsaved:
            self.save()
        return out

    def reveal(self) -> list[Message]:
        """``mask_reveal`` once the hand is over (the host asked, or voided it); [] if sent."""
        if self.revealed:
            return []
        self.revealed = True
        out = [*self._drained(), self._message(self.masker.reveal())]
        self.save()
        return out

    def play_keys(
        self, positions: Sequence[Position]
    ) -> tuple[tuple[int, int, tuple[bytes, ...]], ...]:
        """``act.open`` for a play from ``positions``: every seat's key of each, seat order."""
        rows = self.masker.play_keys(list(positions))
        return tuple((int(s), int(p), tuple(bytes(k) for k in keys)) for s, p, keys in rows)

    def show(self, positions: Sequence[Position]) -> list[Message]:
        """``show_hand`` for the host's ask to put ``positions`` face up (checked by
        :meth:`~protocol.mask_seat.SeatMasker.show_keys`: our whole hand, or a PositionError)."""
        shown = self.masker.show_keys(positions)
        out = [*self._drained(), *(self._message(o) for o in shown)]
        self.save()
        return out

    def opened(self) -> dict[Position, str]:
        """The cards this seat opened and still holds, by position."""
        return {where: card for where, (card, _) in self.masker.hand.items()}

    # ------------------------------------------------------------------ the key store

    def save(self) -> None:
        """Write the masker and the seq taken to the store (a failure: :attr:`store_error`)."""
        if self.store is None or self.ended:
            return
        data: dict[str, Any] = {
            "format": DUTIES_FORMAT,
            "seq": self.seq,
            "revealed": self.revealed,
            "masker": self.masker.to_dict(),
        }
        raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
        self._unsaved = False
        try:
            self.store.put(self.slot, raw)
            self.store_error = None
        except KeyStoreError as exc:
            self.store_error = str(exc)

    def drop(self) -> None:
        self.ended = True
        if self.store is not None:
            self.store.drop(self.slot)

    def _drained(self) -> list[Message]:
        return [self._message(o) for o in self.masker.drain()]

    def _message(self, out: Outgoing) -> Message:
        cls = MESSAGE_TYPES.get(out.type)
        if cls is None:  # pragma: no cover - SeatMasker sends only registered types
            raise FairnessStateError(f"no message type {out.type!r}")
        return cls.from_wire({"table": self.table_id, **out.fields})
