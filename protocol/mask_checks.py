"""The masking checks of one private hand (``cardmask/v1``), and the audit at its end.

How it works (normative text: ``spec/PROTOCOL.md`` 10.5-10.11): :class:`MaskChecks` is fed, by
:class:`~protocol.verifier.HandVerifier`, the decoded bodies of a private hand's signed public
messages: MASK_LOCK (every seat's commitment ``c_s`` and box key ``pk_s``), each MASK_STAGE of
each round (the seat whose turn it is, ``n`` valid points), the DRAWs (never before their round's
``2k`` stages, never with a card), SEALED (``k-1`` boxes of 178 bytes for a position dealt face
down, from every other seat), MASK_OPEN (positions dealt to the table only) and OPENED (every
seat's key, which must open the position to the card named). MASK_END reveals every ``m_s``;
:func:`audit_masking` then re-derives every round (10.8), checks every key published in an
OPENED and every key sealed in a box against its derivation, and yields each round's stock,
which the verifier compares with every card learnt as in section 7 (:meth:`MaskChecks.orders`).
The host's :class:`~protocol.mask_relay.MaskRelay` runs the same audit.

Sans-I/O; every failure is a :class:`~protocol.cardfair.FairnessError` (the masking kinds of
10.9 carry the seat to blame when one is known).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.cardfair import (
    BadMessageError,
    CardMismatchError,
    CommitmentError,
    Context,
    FairnessStateError,
    PositionError,
    exact_card,
    field_int,
    field_list,
    field_seat,
    field_str,
)
from protocol.cards import Card, parse_card
from protocol.mask_messages import PassKind
from protocol.masking import (
    SEALED_KEY_BYTES,
    KeyMismatchError,
    MaskingError,
    MaskSecret,
    Openings,
    SealError,
    StageError,
    UnmaskError,
    card_points,
    check_point,
    check_scalar,
    verify_round,
)

__all__ = [
    "MaskChecks",
    "MaskRound",
    "OpenedKeys",
    "SealedBoxes",
    "audit_masking",
    "stage_turn",
]


def stage_turn(index: int, seats: int) -> tuple[PassKind, int]:
    """The pass and seat of a round's ``index``-th stage: masking by seat 0..k-1, then
    re-keying by seat 0..k-1."""
    if index < seats:
        return PassKind.MASK, index
    return PassKind.REKEY, index - seats


@dataclass(slots=True)
class MaskRound:
    """One round as relayed: its cards, their points and the stages so far."""

    stream: int
    cards: tuple[str, ...]
    points: tuple[bytes, ...]
    stages: list[tuple[bytes, ...]] = field(default_factory=list)
    openings: Openings | None = None

    @classmethod
    def new(cls, ctx: bytes, stream: int, cards: Sequence[str]) -> MaskRound:
        pts = card_points(ctx, stream, cards)
        return cls(stream, tuple(cards), pts, [], Openings(pts))

    def complete(self, seats: int) -> bool:
        return len(self.stages) == 2 * seats

    @property
    def stock(self) -> tuple[bytes, ...]:
        """The masked stock ``X`` (the last re-keyed stage)."""
        return self.stages[-1]

    def check_stage(self, seats: int, step: str, seat: int, points: Sequence[object]) -> None:
        """A stage must be the one due, of ``n`` valid, pairwise different points."""
        if self.complete(seats):
            raise FairnessStateError(f"round {self.stream} already has all its {2 * seats} stages")
        want_step, want_seat = stage_turn(len(self.stages), seats)
        if (step, seat) != (want_step.value, want_seat):
            raise FairnessStateError(
                f"round {self.stream}: a {step} pass of seat {seat}, but the {want_step.value} "
                f"pass of seat {want_seat} is due"
            )
        where = f"{step} pass of seat {seat} in round {self.stream}"
        if len(points) != len(self.cards):
            raise StageError(f"{where}: {len(points)} points, expected {len(self.cards)}").blaming(
                seat
            )
        for i, p in enumerate(points):
            try:
                check_point(p, f"{where}, position {i}")
            except MaskingError as exc:
                raise exc.blaming(seat) from None
        if len(set(points)) != len(points):
            raise StageError(f"{where}: a point appears twice (a copied card)").blaming(seat)


@dataclass(frozen=True, slots=True)
class SealedBoxes:
    """A SEALED message: every other seat's key for ``pos``, sealed to ``to``."""

    stream: int
    pos: int
    to: int
    boxes: tuple[tuple[int, bytes], ...]  #: (sender, box) in seat order


@dataclass(frozen=True, slots=True)
class OpenedKeys:
    """An OPENED message: every seat's key for ``pos`` (seat order) and the card it opens to."""

    stream: int
    pos: int
    keys: tuple[bytes, ...]
    card: str


def audit_masking(  # noqa: C901
    ctx: bytes,
    *,
    commits: Sequence[bytes],
    box_pks: Sequence[bytes],
    secrets: Sequence[bytes],
    rounds: Mapping[int, MaskRound],
    sealed: Sequence[SealedBoxes],
    opened: Sequence[OpenedKeys],
    holders: Mapping[tuple[int, int], int | None],
) -> dict[int, tuple[str, ...]]:
    """10.8 for a whole hand: every secret opens its commitment and gives the published box
    key, every round re-derives stage by stage, every published and sealed key is the seat's
    derived one; returns each round's stock (top first). ``holders`` gives, per drawn
    position, the seat it was dealt to (None: the table), to blame the right seat for a bad
    key in an OPENED."""
    k = len(secrets)
    seats = [MaskSecret(ctx, s, m) for s, m in enumerate(secrets)]
    for s, (seat, c, pk) in enumerate(zip(seats, commits, box_pks, strict=True)):
        if seat.commitment != c:
            raise CommitmentError(
                f"seat {s}'s masking secret does not open its commitment"
            ).blaming(s)
        if seat.box_keypair[0] != pk:
            raise CommitmentError(
                f"seat {s}'s box key is not the one its masking secret gives"
            ).blaming(s)
    stocks: dict[int, tuple[str, ...]] = {}
    for stream in sorted(rounds):
        rnd = rounds[stream]
        if not rnd.complete(k):
            continue  # a round cut short by the end of the hand deals nothing
        try:
            stocks[stream] = verify_round(
                ctx,
                stream,
                rnd.cards,
                seat_secrets=secrets,
                commitments=commits,
                masked=rnd.stages[:k],
                rekeyed=rnd.stages[k:],
            )
        except StageError as exc:
            raise exc.blaming(_stage_seat(exc.message, k)) from None
    for box in sealed:
        for sender, sealed_key in box.boxes:
            key = _sealed_key(seats, box, sender, sealed_key)
            if key != seats[sender].position_key(box.stream, box.pos):
                raise KeyMismatchError(
                    f"seat {sender}'s key for stream {box.stream} position {box.pos}, sealed to "
                    f"seat {box.to}, is not the one its secret gives"
                ).blaming(sender)
    boxes_at = {(b.stream, b.pos): dict(b.boxes) for b in sealed}
    for op in opened:
        for s, key in enumerate(op.keys):
            if key == seats[s].position_key(op.stream, op.pos):
                continue
            holder = holders.get((op.stream, op.pos))
            culprit = s if holder is None or holder == s else holder
            if holder is not None and holder != s:
                sealed_box = boxes_at.get((op.stream, op.pos), {}).get(s)
                if sealed_box is not None and _opens_to(seats, op, s, holder, sealed_box) == key:
                    culprit = s  # the holder published what seat s sealed to it
            raise KeyMismatchError(
                f"the key of seat {s} published for stream {op.stream} position {op.pos} is not "
                f"the one its secret gives (blame: seat {culprit})"
            ).blaming(culprit)
        stock = stocks.get(op.stream)
        if stock is not None and stock[op.pos] != op.card:
            raise CardMismatchError(
                f"stream {op.stream} position {op.pos} opened as {op.card}, the stock holds "
                f"{stock[op.pos]}"
            )
    return stocks


def _opens_to(seats: Sequence[MaskSecret], op: OpenedKeys, s: int, to: int, box: bytes) -> bytes:
    try:
        return seats[to].open_from(box, op.stream, op.pos, s)
    except MaskingError:  # a box that does not open is reported by the sealed-box loop
        return b""


def _sealed_key(seats: Sequence[MaskSecret], box: SealedBoxes, sender: int, sealed: bytes) -> bytes:
    try:
        return seats[box.to].open_from(sealed, box.stream, box.pos, sender)
    except MaskingError as exc:
        raise exc.blaming(sender) from None


def _stage_seat(message: str, seats: int) -> int | None:
    """The seat a StageError of :func:`verify_round` names ("... pass of seat N ...")."""
    marker = "pass of seat "
    at = message.find(marker)
    if at < 0:
        return None
    digits = ""
    for ch in message[at + len(marker) :]:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits and int(digits) < seats else None


class MaskChecks:
    """The masking side of one hand's verification (see the module docstring)."""

    def __init__(self) -> None:
        self.private = False
        self.seats = 0
        self.commits: list[bytes] = []
        self.box_pks: list[bytes] = []
        self.rounds: dict[int, MaskRound] = {}
        self._current = -1
        self.holders: dict[tuple[int, int], int | None] = {}
        self.sealed: dict[tuple[int, int], SealedBoxes] = {}
        self.asked: set[tuple[int, int]] = set()
        self.opened: dict[tuple[int, int], OpenedKeys] = {}
        self.secrets: list[bytes] | None = None
        self.stocks: dict[int, tuple[str, ...]] = {}

    def _need_private(self, name: str) -> None:
        if not self.private:
            raise FairnessStateError(f"{name} in a hand that is not private (no MASK_LOCK)")

    def on_mask_lock(self, name: str, body: Mapping[str, Any], ctx: Context) -> None:
        k = len(ctx.pids)
        rows = field_list(body, "commits", name)
        if len(rows) != k:
            raise CommitmentError(f"{name} lists {len(rows)} seats, not {k}")
        for i, row in enumerate(rows):
            if not (
                isinstance(row, list)
                and len(row) == 2
                and all(isinstance(x, bytes) and len(x) == 32 for x in row)
            ):
                raise BadMessageError(f"{name} commits[{i}] is not [bin32, bin32]")
            self.commits.append(row[0])
            self.box_pks.append(row[1])
        if len(set(self.commits)) != k:
            raise CommitmentError(f"{name} holds two equal masking commitments")
        if len(set(self.box_pks)) != k:
            raise CommitmentError(f"{name} holds two equal box keys")
        self.private = True
        self.seats = k

    def open_round(self, stream: int, cards: Sequence[str], ctx: Context) -> None:
        """Round ``stream`` starts (REVEALS for the deck, a RESHUFFLE for its recycled cards)."""
        if self.private:
            self.rounds[stream] = MaskRound.new(ctx.digest, stream, cards)
            self._current = stream

    def on_stage(self, name: str, body: Mapping[str, Any]) -> None:
        self._need_private(name)
        stream = field_int(body, "stream", name)
        rnd = self.rounds.get(stream)
        if rnd is None or stream != self._current:
            raise FairnessStateError(f"{name} for round {stream}, which is not open")
        step = field_str(body, "step", name)
        seat = field_seat(body, "seat", name, self.seats)
        points = field_list(body, "points", name)
        if not all(isinstance(p, bytes) for p in points):
            raise BadMessageError(f"{name} field 'points' must hold bin values")
        rnd.check_stage(self.seats, step, -1 if seat is None else seat, points)
        rnd.stages.append(tuple(points))

    def on_draw(self, name: str, body: Mapping[str, Any]) -> None:
        """A DRAW the stream checks accepted: in a private hand, from a complete round, no card."""
        if not self.private:
            return
        stream, pos = body["stream"], body["pos"]
        rnd = self.rounds.get(stream)
        if rnd is None or not rnd.complete(self.seats):
            raise FairnessStateError(f"{name} from round {stream} before its passes are done")
        if body.get("card") is not None:
            raise PositionError(f"{name} at stream {stream} position {pos} shows a card")
        self.holders[stream, pos] = body["to"]

    def on_sealed(self, name: str, body: Mapping[str, Any]) -> None:
        self._need_private(name)
        stream, pos = field_int(body, "stream", name), field_int(body, "pos", name)
        to = field_seat(body, "to", name, self.seats)
        if (stream, pos) not in self.holders or to is None or self.holders[stream, pos] != to:
            raise PositionError(f"{name}: stream {stream} position {pos} was not dealt to {to}")
        if (stream, pos) in self.sealed:
            raise PositionError(f"{name}: a second SEALED for stream {stream} position {pos}")
        rows = field_list(body, "boxes", name)
        boxes: list[tuple[int, bytes]] = []
        for i, row in enumerate(rows):
            ok = isinstance(row, list) and len(row) == 2 and isinstance(row[1], bytes)
            if not ok or isinstance(row[0], bool) or not isinstance(row[0], int):
                raise BadMessageError(f"{name} boxes[{i}] is not [seat, bin]")
            if len(row[1]) != SEALED_KEY_BYTES:
                raise SealError(
                    f"{name}: the box of seat {row[0]} is {len(row[1])} bytes, not 178"
                ).blaming(row[0] if 0 <= row[0] < self.seats else None)
            boxes.append((row[0], row[1]))
        want = [s for s in range(self.seats) if s != to]
        if [s for s, _ in boxes] != want:
            got = [s for s, _ in boxes]
            raise SealError(f"{name}: boxes from seats {got}, expected one from each of {want}")
        self.sealed[stream, pos] = SealedBoxes(stream, pos, to, tuple(boxes))

    def on_mask_open(self, name: str, body: Mapping[str, Any]) -> None:
        self._need_private(name)
        stream = field_int(body, "stream", name)
        for p in field_list(body, "positions", name):
            if isinstance(p, bool) or not isinstance(p, int):
                raise BadMessageError(f"{name} positions must be integers")
            if (stream, p) not in self.holders:
                raise PositionError(f"{name}: stream {stream} position {p} was never drawn")
            if self.holders[stream, p] is not None:
                raise PositionError(
                    f"{name}: stream {stream} position {p} was dealt to seat "
                    f"{self.holders[stream, p]}: only its holder opens it"
                )
            if (stream, p) in self.opened or (stream, p) in self.asked:
                raise PositionError(f"{name}: stream {stream} position {p} is already opened")
            self.asked.add((stream, p))

    def on_opened(self, name: str, body: Mapping[str, Any]) -> tuple[int, int, Card]:
        """Check an OPENED; returns ``(stream, pos, card)`` for the section 7 checks."""
        self._need_private(name)
        stream, pos = field_int(body, "stream", name), field_int(body, "pos", name)
        where = f"{name} stream {stream} position {pos}"
        if (stream, pos) not in self.holders:
            raise PositionError(f"{where} was never drawn")
        if (stream, pos) in self.opened:
            raise PositionError(f"{where} is opened a second time")
        holder = self.holders[stream, pos]
        if holder is None and (stream, pos) not in self.asked:
            raise PositionError(f"{where}: no MASK_OPEN asked for it")
        if holder is not None and (stream, pos) not in self.sealed:
            raise PositionError(f"{where}: opened before its SEALED keys reached seat {holder}")
        raw = field_list(body, "keys", name)
        if len(raw) != self.seats:
            raise BadMessageError(f"{where} has {len(raw)} keys, not {self.seats}")
        keys = tuple(check_scalar(k, f"{where}, key of seat {s}") for s, k in enumerate(raw))
        card = exact_card(body.get("card"), where)
        rnd = self.rounds[stream]
        assert rnd.openings is not None
        j = rnd.openings.open(pos, rnd.stock[pos], keys)
        if rnd.cards[j] != card.code:
            raise UnmaskError(f"{where}: the keys open it to {rnd.cards[j]}, not {card.code}")
        self.asked.discard((stream, pos))
        self.opened[stream, pos] = OpenedKeys(stream, pos, keys, card.code)
        return stream, pos, card

    def on_mask_end(self, name: str, body: Mapping[str, Any], ctx: Context) -> None:
        self._need_private(name)
        raw = field_list(body, "secrets", name)
        if len(raw) != self.seats or not all(isinstance(m, bytes) for m in raw):
            raise BadMessageError(f"{name} must hold {self.seats} secrets, one per seat")
        for s, m in enumerate(raw):
            if len(m) != 32:
                raise BadMessageError(f"{name} secret of seat {s} is {len(m)} bytes, not 32")
        self.secrets = list(raw)
        self.stocks = audit_masking(
            ctx.digest,
            commits=self.commits,
            box_pks=self.box_pks,
            secrets=self.secrets,
            rounds=self.rounds,
            sealed=list(self.sealed.values()),
            opened=list(self.opened.values()),
            holders=self.holders,
        )

    def check_end(self, name: str, *, complete: bool) -> None:
        """At HAND_END of a private hand: MASK_END came, every round finished, and (a complete
        record) every position dealt face down to a seat got its SEALED."""
        if not self.private:
            return
        if self.secrets is None:
            raise FairnessStateError(f"{name} of a private hand before MASK_END")
        if complete:
            for (stream, pos), to in self.holders.items():
                if to is not None and (stream, pos) not in self.sealed:
                    raise PositionError(
                        f"no SEALED for stream {stream} position {pos}, dealt to seat {to}"
                    )

    def orders(self) -> dict[int, list[Card]]:
        """Each audited round's stock, as cards (the orders of section 7's checks)."""
        return {s: [parse_card(c) for c in stock] for s, stock in self.stocks.items()}
