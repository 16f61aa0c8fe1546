"""The host's relay of a private table's masking (``cardmask/v1``): :class:`MaskRelay`.

How it works (normative text: ``spec/PROTOCOL.md`` 10.11): the relay sits beside the hand's
:class:`~protocol.dealer.HandDealer` and signs every message through it, so the masking is
chained into the same transcript and lands in the same hand record. It collects each seat's
``mask_commit`` (published in MASK_LOCK right after LOCK), then, for each round (the deal after
REVEALS, each reshuffle after its RESHUFFLE), takes the ``2k`` passes in turn, checking each
(the seat whose turn it is, ``n`` valid, pairwise different points) and relaying it as
MASK_STAGE. Its caller (the table, from the engine's events) says where each position goes:
:meth:`MaskRelay.deal` signs the DRAW; for a position dealt face down to a seat the relay
collects the ``k-1`` boxes the other seats send (``sealed_keys``) and releases them to the
holder in one SEALED; :meth:`MaskRelay.open_face_up` asks every seat for its key (MASK_OPEN)
and :meth:`MaskRelay.accept_open_keys` opens the position (OPENED); :meth:`MaskRelay.accept_play`
checks that the keys a play publishes open its positions to the cards played. At the end it
collects every ``m_s`` (MASK_END) and can run the audit (:meth:`MaskRelay.audit`).

The relay holds points, boxes and keys only: it learns a card when its position opens face up,
never before. Sans-I/O; every failure is a :class:`~protocol.cardfair.FairnessError`; the
masking kinds (10.9) name in ``seat`` the seat to blame (None when only the audit can tell).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.cardfair import (
    CommitmentError,
    ContextError,
    FairnessStateError,
    MessageType,
    PositionError,
    SignedMessage,
    card_code,
    field_b32,
    field_int,
)
from protocol.cards import Card, parse_card
from protocol.dealer import HandDealer
from protocol.mask_checks import (
    MaskRound,
    OpenedKeys,
    SealedBoxes,
    audit_masking,
    stage_turn,
)
from protocol.mask_messages import PassKind
from protocol.masking import (
    SEALED_KEY_BYTES,
    MaskingError,
    SealError,
    UnmaskError,
    check_scalar,
    mask_commitment,
    unmask_card,
)

__all__ = ["MaskRelay", "PlayOpening"]

_M = MessageType


@dataclass(frozen=True, slots=True)
class PlayOpening:
    """A play's positions as :meth:`MaskRelay.check_play` opened them (nothing signed yet)."""

    seat: int
    found: tuple[tuple[int, int, tuple[bytes, ...], Card], ...]

    @property
    def cards(self) -> dict[tuple[int, int], Card]:
        """The card at each position played."""
        return {(s, p): c for s, p, _, c in self.found}


class MaskRelay:
    """The host's side of one private hand's masking (see the module docstring).

    Drive it with the dealer: ``dealer.hand_commit``; :meth:`accept_commit` beside each
    ``fair_commit``; ``dealer.lock()`` then :meth:`lock`; the reveals, ``dealer.reveals()``;
    :meth:`start_round` (0, the deck); :meth:`accept_pass` for each ``mask_pass`` until
    :meth:`round_ready`; then per card :meth:`deal`, :meth:`accept_boxes`, :meth:`open_face_up`
    and :meth:`accept_open_keys`, :meth:`accept_play`; a reshuffle is :meth:`start_round` with
    the recycled cards; at the end :meth:`accept_secret` from every seat, :meth:`end` (MASK_END),
    :meth:`audit`, then ``dealer.hand_end()``. :meth:`waiting_for` names the seats the relay
    waits for, for a timeout that voids the hand. Every method returns the signed messages to
    send, in order (a ``fair`` push each, to every seat and spectator).
    """

    def __init__(self, dealer: HandDealer) -> None:
        self.dealer = dealer
        self.context = dealer.context
        self.seats = len(self.context.pids)
        self._commits: dict[int, tuple[bytes, bytes]] = {}
        self._locked = False
        self.rounds: dict[int, MaskRound] = {}
        self._current = -1
        self.holders: dict[tuple[int, int], int | None] = {}
        self._boxes: dict[tuple[int, int], dict[int, bytes]] = {}
        self.sealed: dict[tuple[int, int], SealedBoxes] = {}
        self._asked: dict[tuple[int, int], dict[int, bytes]] = {}
        self.opened: dict[tuple[int, int], OpenedKeys] = {}
        #: positions a seat holds that the rules turn face up (:meth:`ask_show`): their holder
        self._shows: dict[tuple[int, int], int] = {}
        self._secrets: dict[int, bytes] = {}
        self._ended = False

    # -- helpers
    def _hand(self, seat: int, body: Mapping[str, Any], what: str) -> None:
        if not 0 <= seat < self.seats:
            raise ContextError(f"no seat {seat}")
        hand_no = field_int(body, "hand_no", what)
        if hand_no != self.context.hand_no:
            raise ContextError(f"{what} is for hand {hand_no}, not {self.context.hand_no}")
        if self._ended:
            raise FairnessStateError(f"{what} after MASK_END")

    def _round(self, stream: int, what: str) -> MaskRound:
        rnd = self.rounds.get(stream)
        if rnd is None:
            raise FairnessStateError(f"{what} for round {stream}, which is not open")
        return rnd

    # -- commitments
    def accept_commit(self, seat: int, body: Mapping[str, Any]) -> None:
        """A seat's ``mask_commit`` ``{hand_no, commit, box_pk}``; an identical repeat is ok."""
        self._hand(seat, body, f"mask_commit from seat {seat}")
        if self._locked:
            raise FairnessStateError("mask_commit after MASK_LOCK")
        pair = (
            field_b32(body, "commit", "mask_commit"),
            field_b32(body, "box_pk", "mask_commit"),
        )
        old = self._commits.get(seat)
        if old is not None:
            if old != pair:
                raise CommitmentError(f"seat {seat} already sent a different masking commitment")
            return
        for other, (c, pk) in self._commits.items():
            if c == pair[0] or pk == pair[1]:
                raise CommitmentError(
                    f"the masking commitment of seat {seat} copies seat {other}'s"
                )
        self._commits[seat] = pair

    def missing_commits(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self._commits]

    def lock(self) -> SignedMessage:
        """MASK_LOCK: every seat's ``[c_s, pk_s]`` in seat order (send right after LOCK)."""
        if self._locked:
            raise FairnessStateError("MASK_LOCK was already sent")
        missing = self.missing_commits()
        if missing:
            raise FairnessStateError(f"cannot lock: no masking commitment from seats {missing}")
        self._locked = True
        rows = [list(self._commits[s]) for s in range(self.seats)]
        return self.dealer.publish(_M.MASK_LOCK, {"commits": rows})

    @property
    def box_pks(self) -> list[bytes]:
        return [self._commits[s][1] for s in range(self.seats)]

    # -- rounds
    def start_round(
        self, stream: int, cards: Sequence[Card], kept: Sequence[Card] = ()
    ) -> list[SignedMessage]:
        """Open round ``stream`` over ``cards`` (the deck for 0, after ``dealer.reveals()``;
        the sorted recycled cards of a reshuffle, with the ``kept`` ones). Returns the
        RESHUFFLE to send (none for the deal); seat 0's pass is then due."""
        if not self._locked:
            raise FairnessStateError("a masked round before MASK_LOCK")
        if self._current >= 0 and not self.rounds[self._current].complete(self.seats):
            raise FairnessStateError(f"round {self._current} is still running")
        out = self.dealer.open_masked_stream(stream, cards, kept)
        self.rounds[stream] = MaskRound.new(
            self.context.digest, stream, [card_code(c) for c in cards]
        )
        self._current = stream
        return out

    @property
    def current_round(self) -> int:
        """The latest round opened (-1 before the deal's)."""
        return self._current

    def due(self) -> tuple[int, PassKind, int] | None:
        """``(stream, pass, seat)`` of the pass awaited, or None."""
        if self._current < 0:
            return None
        rnd = self.rounds[self._current]
        if rnd.complete(self.seats):
            return None
        step, seat = stage_turn(len(rnd.stages), self.seats)
        return self._current, step, seat

    def accept_pass(self, seat: int, body: Mapping[str, Any]) -> SignedMessage:
        """A seat's ``mask_pass`` ``{hand_no, stream, step, points}``: checked (its turn, ``n``
        valid, pairwise different points: else a PointError / StageError blaming it) and
        relayed as MASK_STAGE."""
        self._hand(seat, body, f"mask_pass from seat {seat}")
        stream = field_int(body, "stream", "mask_pass")
        rnd = self._round(stream, "mask_pass")
        if stream != self._current:
            raise FairnessStateError(f"mask_pass for round {stream}, not the current round")
        step = body.get("step")
        step = step.value if isinstance(step, PassKind) else step
        points = list(body.get("points") or ())
        rnd.check_stage(self.seats, str(step), seat, points)
        rnd.stages.append(tuple(points))
        fields = {"stream": stream, "step": step, "seat": seat, "points": points}
        return self.dealer.publish(_M.MASK_STAGE, fields)

    def round_ready(self, stream: int) -> bool:
        rnd = self.rounds.get(stream)
        return rnd is not None and rnd.complete(self.seats)

    # -- dealing
    def deal(self, stream: int, pos: int, to: int | None) -> SignedMessage:
        """The DRAW of ``(stream, pos)`` for seat ``to`` (None: the table); the round's passes
        must be done. A seat's position then waits for its boxes (:meth:`accept_boxes`)."""
        if not self.round_ready(stream):
            raise FairnessStateError(f"a draw from round {stream} before its passes are done")
        msg = self.dealer.draw_masked(stream, pos, to)
        self.holders[stream, pos] = to
        if to is not None:
            self._boxes[stream, pos] = {}
        return msg

    def accept_boxes(self, seat: int, body: Mapping[str, Any]) -> list[SignedMessage]:
        """A seat's ``sealed_keys`` ``{hand_no, stream, boxes: [[pos, to, box]..]}``: each box
        for a position dealt face down to ``to`` (not the sender), 178 bytes; a SEALED for
        every position whose ``k-1`` boxes are now in, in position order."""
        what = f"sealed_keys from seat {seat}"
        self._hand(seat, body, what)
        stream = field_int(body, "stream", what)
        entries = list(body.get("boxes") or ())
        checked: list[tuple[int, bytes]] = []
        for entry in entries:
            pos, to, box = entry
            where = f"{what}: stream {stream} position {pos}"
            if self.holders.get((stream, pos)) != to or to is None:
                raise PositionError(f"{where} was not dealt face down to seat {to}")
            if to == seat:
                raise PositionError(f"{where} is the sender's own position")
            if not isinstance(box, bytes) or len(box) != SEALED_KEY_BYTES:
                raise SealError(f"{where}: a box is 178 bytes").blaming(seat)
            old = self._boxes[stream, pos].get(seat)
            if old is not None and old != box:
                raise SealError(f"{where}: a second, different box").blaming(seat)
            checked.append((pos, box))
        for pos, box in checked:
            self._boxes[stream, pos][seat] = box
        out = []
        for pos, _ in sorted(checked):
            if (stream, pos) in self.sealed:
                continue
            got = self._boxes[stream, pos]
            if len(got) == self.seats - 1:
                to = self.holders[stream, pos]
                assert to is not None
                rows = tuple((s, got[s]) for s in sorted(got))
                self.sealed[stream, pos] = SealedBoxes(stream, pos, to, rows)
                fields = {"stream": stream, "pos": pos, "to": to, "boxes": [list(r) for r in rows]}
                out.append(self.dealer.publish(_M.SEALED, fields))
        return out

    def open_face_up(self, stream: int, positions: Sequence[int]) -> SignedMessage:
        """MASK_OPEN: every seat must publish its key for these positions, each dealt to the
        table (a card turned up); :meth:`accept_open_keys` collects them."""
        for pos in positions:
            if (stream, pos) not in self.holders:
                raise PositionError(f"stream {stream} position {pos} was never drawn")
            if self.holders[stream, pos] is not None:
                raise PositionError(
                    f"stream {stream} position {pos} belongs to seat {self.holders[stream, pos]}"
                )
            if (stream, pos) in self.opened or (stream, pos) in self._asked:
                raise PositionError(f"stream {stream} position {pos} is already being opened")
        for pos in positions:
            self._asked[stream, pos] = {}
        return self.dealer.publish(_M.MASK_OPEN, {"stream": stream, "positions": list(positions)})

    def asked(self, where: tuple[int, int]) -> bool:
        """Whether a MASK_OPEN asked for ``(stream, pos)`` and its keys are not all in."""
        return where in self._asked

    def accept_open_keys(
        self, seat: int, body: Mapping[str, Any]
    ) -> tuple[list[SignedMessage], dict[tuple[int, int], Card]]:
        """A seat's ``open_keys`` ``{hand_no, stream, keys: [[pos, key]..]}`` for positions a
        MASK_OPEN asked; every position whose ``k`` keys are in opens (OPENED) and its card is
        returned. A key that is not a valid scalar blames the sender (ScalarError); keys that
        open no card are an UnmaskError the audit at the end pins on a seat."""
        what = f"open_keys from seat {seat}"
        self._hand(seat, body, what)
        stream = field_int(body, "stream", what)
        entries = list(body.get("keys") or ())
        entries = [
            (pos, key)
            for pos, key in entries
            if not (  # a resend after the position opened: nothing to do
                (stream, pos) in self.opened and self.opened[stream, pos].keys[seat] == key
            )
        ]
        for pos, key in entries:
            asked = self._asked.get((stream, pos))
            if asked is None:
                raise PositionError(f"{what}: stream {stream} position {pos} was not asked for")
            try:
                check_scalar(key, f"{what}, position {pos}")
            except MaskingError as exc:
                raise exc.blaming(seat) from None
            if asked.get(seat, key) != key:
                raise PositionError(f"{what}: a second, different key for position {pos}")
        for pos, key in entries:
            self._asked[stream, pos][seat] = key
        out: list[SignedMessage] = []
        cards: dict[tuple[int, int], Card] = {}
        for pos in sorted({p for p, _ in entries}):
            got = self._asked.get((stream, pos))
            if got is None or len(got) < self.seats:
                continue
            keys = tuple(got[s] for s in range(self.seats))
            card = self._open(stream, pos, keys, None)
            del self._asked[stream, pos]
            out.append(self._opened(stream, pos, keys, card))
            cards[stream, pos] = card
        return out, cards

    def accept_play(
        self,
        seat: int,
        opens: Sequence[tuple[int, int, Sequence[bytes]]],
        cards: Sequence[Card | str] | None = None,
    ) -> tuple[list[SignedMessage], dict[tuple[int, int], Card]]:
        """The positions a play of ``seat`` puts face up (``act.open``: ``[stream, pos, keys]``
        with every seat's key in seat order): each dealt face down to ``seat`` and given its
        boxes, not opened yet; the keys must open them to ``cards`` (as a multiset, when
        given), else UnmaskError blaming the seat. All or nothing: one OPENED per position.
        :meth:`check_play` then :meth:`commit_play`, for a caller that checks the play's rules
        in between (the table: a play the rules refuse opens nothing)."""
        play = self.check_play(seat, opens, cards)
        return self.commit_play(play), play.cards

    def check_play(
        self,
        seat: int,
        opens: Sequence[tuple[int, int, Sequence[bytes]]],
        cards: Sequence[Card | str] | None = None,
    ) -> PlayOpening:
        """:meth:`accept_play`'s checks, changing nothing: the positions and their cards."""
        found: list[tuple[int, int, tuple[bytes, ...], Card]] = []
        seen: set[tuple[int, int]] = set()
        for stream, pos, raw in opens:
            where = f"seat {seat}'s play: stream {stream} position {pos}"
            if self.holders.get((stream, pos)) != seat:
                raise PositionError(f"{where} was not dealt to it")
            if (stream, pos) not in self.sealed:
                raise FairnessStateError(f"{where}: its keys were not released yet")
            if (stream, pos) in self.opened or (stream, pos) in seen:
                raise PositionError(f"{where} is already face up")
            if len(raw) != self.seats:
                raise UnmaskError(f"{where}: {len(raw)} keys, not {self.seats}").blaming(seat)
            try:
                keys = tuple(check_scalar(k, f"{where}, key {s}") for s, k in enumerate(raw))
                card = self._open(stream, pos, keys, seat, commit=False)
            except MaskingError as exc:
                raise exc.blaming(seat) from None
            seen.add((stream, pos))
            found.append((stream, pos, keys, card))
        if cards is not None:
            want = Counter(card_code(c) for c in cards)
            got = Counter(c.code for *_, c in found)
            if want != got:
                raise UnmaskError(
                    f"seat {seat}'s keys open {sorted(got.elements())}, not the cards played "
                    f"{sorted(want.elements())}"
                ).blaming(seat)
        return PlayOpening(seat, tuple(found))

    def commit_play(self, play: PlayOpening) -> list[SignedMessage]:
        """Put the positions of a play :meth:`check_play` accepted face up: one OPENED each."""
        out = []
        for stream, pos, keys, card in play.found:
            self._open(stream, pos, keys, play.seat)
            out.append(self._opened(stream, pos, keys, card))
        return out

    def ask_show(self, seat: int, positions: Sequence[tuple[int, int]]) -> None:
        """Positions ``seat`` holds that the rules turn face up (a bankrupt hand): each dealt
        face down to it, its SEALED sent, not open. The seat is then awaited
        (:meth:`waiting_for`) until :meth:`accept_show` opened every one."""
        for where in positions:
            if self.holders.get(where) != seat:
                raise PositionError(f"stream {where[0]} position {where[1]} is not seat {seat}'s")
            if where not in self.sealed:
                raise FairnessStateError(
                    f"stream {where[0]} position {where[1]}: its keys were not released yet"
                )
            if where in self.opened:
                raise PositionError(f"stream {where[0]} position {where[1]} is already face up")
        for where in positions:
            self._shows[where] = seat

    def showing(self, seat: int) -> list[tuple[int, int]]:
        """The positions :meth:`ask_show` asked of ``seat`` not opened yet, in order."""
        return sorted(w for w, s in self._shows.items() if s == seat)

    def accept_show(self, seat: int, body: Mapping[str, Any]) -> list[SignedMessage]:
        """A seat's ``show_hand`` ``{hand_no, open: [[stream, pos, keys]..]}``: every seat's
        key (seat order) of positions :meth:`ask_show` asked of it, checked as a play's
        (:meth:`check_play`: a wrong key is an UnmaskError blaming the seat); one OPENED per
        position. An identical resend of an opened position is skipped."""
        what = f"show_hand from seat {seat}"
        self._hand(seat, body, what)
        rows = []
        for stream, pos, raw in body.get("open") or ():
            where = (int(stream), int(pos))
            keys = tuple(bytes(k) for k in raw)
            done = self.opened.get(where)
            if done is not None and done.keys == keys and self.holders.get(where) == seat:
                continue  # a resend after the position opened: nothing to do
            if self._shows.get(where) != seat:
                raise PositionError(
                    f"{what}: stream {where[0]} position {where[1]} was not asked of it"
                )
            rows.append((where[0], where[1], keys))
        play = self.check_play(seat, rows)
        for stream, pos, _, _ in play.found:
            del self._shows[stream, pos]
        return self.commit_play(play)

    def _open(
        self, stream: int, pos: int, keys: tuple[bytes, ...], seat: int | None, commit: bool = True
    ) -> Card:
        rnd = self.rounds[stream]
        assert rnd.openings is not None
        if commit:
            j = rnd.openings.open(pos, rnd.stock[pos], keys)
        else:
            j = unmask_card(rnd.stock[pos], keys, rnd.points)
        return parse_card(rnd.cards[j])

    def _opened(self, stream: int, pos: int, keys: tuple[bytes, ...], card: Card) -> SignedMessage:
        self.opened[stream, pos] = OpenedKeys(stream, pos, keys, card.code)
        fields = {"stream": stream, "pos": pos, "keys": list(keys), "card": card.code}
        return self.dealer.publish(_M.OPENED, fields)

    # -- the end
    def accept_secret(self, seat: int, body: Mapping[str, Any]) -> None:
        """A seat's ``mask_reveal`` ``{hand_no, secret}``: it must open the seat's commitment
        (CommitmentError blaming it); an identical repeat is ok."""
        self._hand(seat, body, f"mask_reveal from seat {seat}")
        m = field_b32(body, "secret", "mask_reveal")
        if mask_commitment(self.context.digest, seat, m) != self._commits[seat][0]:
            raise CommitmentError(f"seat {seat}'s masking secret does not open its commitment")
        self._secrets[seat] = m

    def missing_secrets(self) -> list[int]:
        return [s for s in range(self.seats) if s not in self._secrets]

    def end(self) -> SignedMessage:
        """MASK_END: every seat's ``m_s`` in seat order (send before ``dealer.hand_end()``)."""
        missing = self.missing_secrets()
        if missing:
            raise FairnessStateError(f"cannot end: no masking secret from seats {missing}")
        self._ended = True
        secrets = [self._secrets[s] for s in range(self.seats)]
        return self.dealer.publish(_M.MASK_END, {"secrets": secrets})

    def audit(self) -> dict[int, tuple[str, ...]]:
        """10.8 over the whole hand (every secret collected): each round's stock, or the
        masking error naming the seat to blame."""
        missing = self.missing_secrets()
        if missing:
            raise FairnessStateError(f"cannot audit: no masking secret from seats {missing}")
        return audit_masking(
            self.context.digest,
            commits=[self._commits[s][0] for s in range(self.seats)],
            box_pks=self.box_pks,
            secrets=[self._secrets[s] for s in range(self.seats)],
            rounds=self.rounds,
            sealed=list(self.sealed.values()),
            opened=list(self.opened.values()),
            holders=self.holders,
        )

    def waiting_for(self, *, ending: bool = False) -> list[int]:
        """The seats whose message the relay awaits now (for a timeout that voids the hand):
        commitments, the pass due, boxes of positions dealt, keys of a MASK_OPEN; with
        ``ending`` (the game's hand is over), the secrets still missing; the holder of
        positions :meth:`ask_show` asked."""
        if ending:
            return self.missing_secrets()
        if not self._locked:
            return self.missing_commits()
        due = self.due()
        if due is not None:
            return [due[2]]
        late: set[int] = set()
        for where, got in self._boxes.items():
            if where not in self.sealed:
                to = self.holders[where]
                late.update(s for s in range(self.seats) if s != to and s not in got)
        for got in self._asked.values():
            late.update(s for s in range(self.seats) if s not in got)
        late.update(self._shows.values())
        return sorted(late)
