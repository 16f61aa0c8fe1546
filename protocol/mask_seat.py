"""A seat's duties on a private table (``cardmask/v1``): :class:`SeatMasker`.

How it works (normative text: ``spec/PROTOCOL.md`` 10.11): everything a seat does derives from
its per-hand secret ``m_s`` (:class:`~protocol.masking.MaskSecret`). The client feeds the
machine every signed public ``fair`` message its :class:`~protocol.verifier.HandVerifier`
accepted, in order (:meth:`SeatMasker.receive`), and sends what :meth:`SeatMasker.drain`
returns. From those messages alone the seat knows what is due: its masking pass when the
previous seat's stage (or, for seat 0, the round's start: REVEALS, a RESHUFFLE) arrives, its
re-keying pass likewise; its key sealed to the holder of every position DRAWn face down to
another seat; the opening of each position dealt to itself when its SEALED arrives (its own key
plus the ``k-1`` it receives: the card); its own keys for the positions a MASK_OPEN turns up,
which it gives only for positions dealt to the table, never for another seat's card. A play
asks :meth:`SeatMasker.play_keys` for every key of the positions it puts face up (``act.open``);
:meth:`SeatMasker.show_keys` gives the same keys of its whole hand when the rules turn it face up
(``show_hand``); :meth:`SeatMasker.reveal` gives ``m_s`` once the hand is over.

Its state (the secret, the rounds' last stages, the cards opened, the keys received, what is
waiting to be sent) serializes to a JSON-ready dict and to bytes (:meth:`SeatMasker.to_bytes`,
:meth:`SeatMasker.from_bytes`) for the client's 0600 key store, so a restarted client resumes
the hand where it stopped. Sans-I/O; failures are the :class:`~protocol.cardfair.FairnessError`
kinds of 10.9 (a seat that meets one stops answering: the host voids the hand).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from protocol.cardfair import (
    CommitmentError,
    Context,
    FairnessError,
    FairnessStateError,
    MessageType,
    PositionError,
    SignedMessage,
)
from protocol.cards import Card, parse_card
from protocol.mask_checks import stage_turn
from protocol.mask_messages import MAX_BOXES, MAX_POSITION_KEYS, PassKind, show_rows
from protocol.masking import MaskSecret, StageError, card_points, unmask_card

__all__ = ["STORE_FORMAT", "Outgoing", "SeatMasker"]

#: the ``format`` of a serialized seat (:meth:`SeatMasker.to_dict`)
STORE_FORMAT: Final = "onecard-mask-seat/1"

_M = MessageType


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A request to send: its ``type`` and its fields (``table`` is the caller's to add)."""

    type: str
    fields: dict[str, Any]


@dataclass(slots=True)
class _Round:
    cards: tuple[str, ...]
    stages: int = 0  #: stages relayed so far (2k: complete)
    last: tuple[bytes, ...] = ()  #: the latest stage (the card points before the first)
    mine: dict[str, tuple[bytes, ...]] = field(default_factory=dict)  #: what this seat sent


class SeatMasker:
    """One seat's side of one private hand (see the module docstring)."""

    def __init__(self, context: Context, seat: int, secret: bytes | None = None) -> None:
        if not 0 <= seat < len(context.pids):
            raise FairnessStateError(f"no seat {seat} at this hand")
        self.context = context
        self.seat = seat
        self.seats = len(context.pids)
        self.secret = (
            MaskSecret.new(context.digest, seat)
            if secret is None
            else MaskSecret(context.digest, seat, secret)
        )
        self.commits: list[bytes] = []
        self.box_pks: list[bytes] = []
        self.rounds: dict[int, _Round] = {}
        self.holders: dict[tuple[int, int], int | None] = {}
        #: positions dealt to this seat and opened: every seat's key (seat order) and the card
        self.hand: dict[tuple[int, int], tuple[str, tuple[bytes, ...]]] = {}
        self.face_up: dict[tuple[int, int], str] = {}
        #: positions of our hand whose keys we gave for a show (a bankrupt hand), so that the
        #: ask replayed after a restart part-way through is known as ours
        self.shown: set[tuple[int, int]] = set()
        self.over = False
        self._outbox: list[Outgoing] = []

    # -- what to send
    def commit(self) -> Outgoing:
        """The ``mask_commit`` to send with the seat's ``fair_commit``."""
        return Outgoing(
            "mask_commit",
            {
                "hand_no": self.context.hand_no,
                "commit": self.secret.commitment,
                "box_pk": self.secret.box_keypair[0],
            },
        )

    def drain(self) -> list[Outgoing]:
        """Every request due since the last call, boxes and keys grouped per round (at most
        ``MAX_BOXES`` boxes / ``MAX_POSITION_KEYS`` keys a request)."""
        out: list[Outgoing] = []
        boxes: dict[int, list[list[Any]]] = {}
        keys: dict[int, list[list[Any]]] = {}
        for item in self._outbox:
            if item.type == "sealed_keys":
                boxes.setdefault(item.fields["stream"], []).extend(item.fields["boxes"])
            elif item.type == "open_keys":
                keys.setdefault(item.fields["stream"], []).extend(item.fields["keys"])
            else:
                out.append(item)
        self._outbox = []
        hand = self.context.hand_no
        for stream, rows in boxes.items():
            for i in range(0, len(rows), MAX_BOXES):
                chunk = rows[i : i + MAX_BOXES]
                out.append(
                    Outgoing("sealed_keys", {"hand_no": hand, "stream": stream, "boxes": chunk})
                )
        for stream, rows in keys.items():
            for i in range(0, len(rows), MAX_POSITION_KEYS):
                chunk = rows[i : i + MAX_POSITION_KEYS]
                out.append(
                    Outgoing("open_keys", {"hand_no": hand, "stream": stream, "keys": chunk})
                )
        return out

    def play_keys(self, positions: Sequence[tuple[int, int]]) -> list[list[Any]]:
        """``act.open`` for a play from ``positions`` (each dealt to this seat and opened):
        ``[stream, pos, keys]`` with every seat's key in seat order."""
        if self.over:
            raise FairnessStateError("the hand is over")
        out = []
        for stream, pos in positions:
            held = self.hand.get((stream, pos))
            if held is None:
                raise PositionError(f"stream {stream} position {pos} is not in this seat's hand")
            out.append([stream, pos, list(held[1])])
        return out

    def show_keys(self, positions: Sequence[tuple[int, int]]) -> list[Outgoing]:
        """``show_hand`` for positions the host asks this seat to put face up by rule (a bankrupt
        hand, whose whole hand goes face up): every seat's key of each, in rows of ``act.open``,
        :func:`~protocol.mask_messages.show_rows` a request. Given only when ``positions`` are
        exactly the seat's whole face-down hand (each dealt to it and opened by it, none face up
        yet, none of its positions still waiting for its SEALED): else a PositionError and nothing
        (the host may not pick cards out of a hand). Positions all face up already (the ask again,
        after a resume) give nothing."""
        if self.over:
            raise FairnessStateError("the hand is over: nothing to show")
        asked = [(int(s), int(p)) for s, p in positions]
        if asked and all(w in self.face_up for w in asked):
            return []  # shown already (the host's replay of its ask after a resume)
        # the ask replayed after a restart part-way through the show: those opened already
        # must be ones we showed, and the rest our whole face-down hand, as before
        rest = [w for w in asked if w not in self.face_up or w not in self.shown]
        mine = [w for w, to in self.holders.items() if to == self.seat and w not in self.face_up]
        if len(set(asked)) != len(asked) or set(rest) != set(self.hand) or set(mine) - set(rest):
            raise PositionError(
                f"the host asks to show positions {sorted(asked)}, not our whole face-down hand "
                f"{sorted(mine)}: refusing to give our keys"
            )
        self.shown.update(rest)
        rows = self.play_keys(sorted(rest))
        hand, step = self.context.hand_no, show_rows(self.seats)
        return [
            Outgoing("show_hand", {"hand_no": hand, "open": rows[i : i + step]})
            for i in range(0, len(rows), step)
        ]

    def cards(self) -> dict[tuple[int, int], Card]:
        """The cards dealt to this seat so far, by position."""
        return {where: parse_card(card) for where, (card, _) in self.hand.items()}

    def reveal(self) -> Outgoing:
        """``mask_reveal``: ``m_s``, once the hand is over (the game said so). After it the seat
        seals and publishes nothing more of this hand."""
        self.over = True
        return Outgoing(
            "mask_reveal", {"hand_no": self.context.hand_no, "secret": self.secret.secret}
        )

    # -- what arrives
    def receive(self, msg: SignedMessage) -> None:
        """One signed public message the hand's verifier accepted (others are ignored)."""
        body = msg.decode()
        handler = {
            _M.MASK_LOCK.value: self._on_lock,
            _M.REVEALS.value: self._on_reveals,
            _M.RESHUFFLE.value: self._on_reshuffle,
            _M.MASK_STAGE.value: self._on_stage,
            _M.DRAW.value: self._on_draw,
            _M.SEALED.value: self._on_sealed,
            _M.MASK_OPEN.value: self._on_open,
            _M.OPENED.value: self._on_opened,
        }.get(msg.type)
        if msg.type in (_M.MASK_END.value, _M.HAND_END.value, _M.VOID.value):
            self.over = True
        elif handler is not None and not self.over:
            handler(body)

    def _on_lock(self, body: Mapping[str, Any]) -> None:
        rows = body["commits"]
        self.commits = [bytes(r[0]) for r in rows]
        self.box_pks = [bytes(r[1]) for r in rows]
        mine = (self.secret.commitment, self.secret.box_keypair[0])
        if len(rows) != self.seats or (self.commits[self.seat], self.box_pks[self.seat]) != mine:
            raise CommitmentError("MASK_LOCK alters our masking commitment or box key")

    def _start(self, stream: int, cards: Sequence[str]) -> None:
        pts = card_points(self.context.digest, stream, cards)
        self.rounds[stream] = _Round(tuple(cards), 0, pts)
        self._maybe_pass(stream)

    def _on_reveals(self, body: Mapping[str, Any]) -> None:
        if self.commits:  # a private hand: MASK_LOCK came
            self._start(0, self.context.deck)

    def _on_reshuffle(self, body: Mapping[str, Any]) -> None:
        if self.commits:
            self._start(int(body["stream"]), [str(c) for c in body["cards"]])

    def _maybe_pass(self, stream: int) -> None:
        rnd = self.rounds[stream]
        if rnd.stages >= 2 * self.seats:
            return
        step, seat = stage_turn(rnd.stages, self.seats)
        if seat != self.seat:
            return
        if step is PassKind.MASK:
            points = self.secret.mask(stream, rnd.last)
        else:
            points = self.secret.rekey(stream, rnd.last)
        rnd.mine[step.value] = points
        self._outbox.append(
            Outgoing(
                "mask_pass",
                {
                    "hand_no": self.context.hand_no,
                    "stream": stream,
                    "step": step.value,
                    "points": list(points),
                },
            )
        )

    def _on_stage(self, body: Mapping[str, Any]) -> None:
        stream = int(body["stream"])
        rnd = self.rounds[stream]
        points = tuple(bytes(p) for p in body["points"])
        if int(body["seat"]) == self.seat:
            sent = rnd.mine.get(str(body["step"]))
            if sent is not None and sent != points:
                raise StageError(
                    f"the host relayed our {body['step']} pass of round {stream} altered"
                )
        rnd.stages += 1
        rnd.last = points
        self._maybe_pass(stream)

    def _on_draw(self, body: Mapping[str, Any]) -> None:
        stream, pos, to = int(body["stream"]), int(body["pos"]), body["to"]
        self.holders[stream, pos] = to
        if to is None or to == self.seat or not self.commits:
            return
        box = self.secret.seal_for(stream, pos, to, self.box_pks[to])
        self._outbox.append(
            Outgoing(
                "sealed_keys",
                {"hand_no": self.context.hand_no, "stream": stream, "boxes": [[pos, to, box]]},
            )
        )

    def _on_sealed(self, body: Mapping[str, Any]) -> None:
        stream, pos, to = int(body["stream"]), int(body["pos"]), body["to"]
        if to != self.seat:
            return
        keys: dict[int, bytes] = {self.seat: self.secret.position_key(stream, pos)}
        for sender, box in body["boxes"]:
            try:
                keys[int(sender)] = self.secret.open_from(bytes(box), stream, pos, int(sender))
            except FairnessError as exc:  # a box that does not open, or holds a bad key
                raise exc.blaming(int(sender)) from None
        if sorted(keys) != list(range(self.seats)):
            raise PositionError(f"SEALED for stream {stream} position {pos} lacks a seat's key")
        ordered = tuple(keys[s] for s in range(self.seats))
        rnd = self.rounds[stream]
        pts = card_points(self.context.digest, stream, rnd.cards)
        j = unmask_card(rnd.last[pos], ordered, pts)
        self.hand[stream, pos] = (rnd.cards[j], ordered)

    def _on_open(self, body: Mapping[str, Any]) -> None:
        stream = int(body["stream"])
        rows = []
        for pos in body["positions"]:
            if self.holders.get((stream, pos), -1) is not None:
                raise PositionError(
                    f"MASK_OPEN asks for stream {stream} position {pos}, which is not a card "
                    "dealt to the table: refusing to give our key"
                )
            rows.append([int(pos), self.secret.position_key(stream, int(pos))])
        self._outbox.append(
            Outgoing("open_keys", {"hand_no": self.context.hand_no, "stream": stream, "keys": rows})
        )

    def _on_opened(self, body: Mapping[str, Any]) -> None:
        where = (int(body["stream"]), int(body["pos"]))
        self.hand.pop(where, None)
        self.face_up[where] = str(body["card"])

    # -- the key store
    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready values (bytes as lowercase hex)."""
        c = self.context
        return {
            "format": STORE_FORMAT,
            "context": {
                "table_id": c.table_id,
                "hand_no": c.hand_no,
                "ruleset_id": c.ruleset_id,
                "deck": list(c.deck),
                "pids": list(c.pids),
                "host_pk": c.host_pk.hex(),
            },
            "seat": self.seat,
            "secret": self.secret.secret.hex(),
            "commits": [x.hex() for x in self.commits],
            "box_pks": [x.hex() for x in self.box_pks],
            "rounds": [
                {
                    "stream": s,
                    "cards": list(r.cards),
                    "stages": r.stages,
                    "last": [p.hex() for p in r.last],
                    "mine": {k: [p.hex() for p in v] for k, v in r.mine.items()},
                }
                for s, r in sorted(self.rounds.items())
            ],
            "holders": [[s, p, to] for (s, p), to in sorted(self.holders.items())],
            "hand": [
                [s, p, card, [k.hex() for k in keys]]
                for (s, p), (card, keys) in sorted(self.hand.items())
            ],
            "face_up": [[s, p, card] for (s, p), card in sorted(self.face_up.items())],
            "shown": [[s, p] for s, p in sorted(self.shown)],
            "over": self.over,
            "outbox": [[o.type, _hexed(o.fields)] for o in self._outbox],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeatMasker:
        """A seat restored from :meth:`to_dict` (FairnessStateError if it is not one)."""
        if data.get("format") != STORE_FORMAT:
            raise FairnessStateError(f"not a stored seat of format {STORE_FORMAT}")
        try:
            c = data["context"]
            ctx = Context.create(
                table_id=c["table_id"],
                hand_no=c["hand_no"],
                ruleset_id=c["ruleset_id"],
                deck=c["deck"],
                pids=c["pids"],
                host_pk=bytes.fromhex(c["host_pk"]),
            )
            seat = cls(ctx, int(data["seat"]), bytes.fromhex(data["secret"]))
            seat.commits = [bytes.fromhex(x) for x in data["commits"]]
            seat.box_pks = [bytes.fromhex(x) for x in data["box_pks"]]
            for r in data["rounds"]:
                seat.rounds[int(r["stream"])] = _Round(
                    tuple(r["cards"]),
                    int(r["stages"]),
                    tuple(bytes.fromhex(p) for p in r["last"]),
                    {k: tuple(bytes.fromhex(p) for p in v) for k, v in r["mine"].items()},
                )
            seat.holders = {(int(s), int(p)): to for s, p, to in data["holders"]}
            seat.hand = {
                (int(s), int(p)): (card, tuple(bytes.fromhex(k) for k in keys))
                for s, p, card, keys in data["hand"]
            }
            seat.face_up = {(int(s), int(p)): card for s, p, card in data["face_up"]}
            # (a store written before shows were kept has none)
            seat.shown = {(int(s), int(p)) for s, p in data.get("shown", ())}
            seat.over = bool(data["over"])
            seat._outbox = [Outgoing(t, _unhexed(f)) for t, f in data["outbox"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise FairnessStateError(
                f"a damaged stored seat ({type(exc).__name__}: {exc})"
            ) from None
        return seat

    def to_bytes(self) -> bytes:
        """:meth:`to_dict` as UTF-8 JSON (what a client writes to its 0600 key store)."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, raw: bytes) -> SeatMasker:
        try:
            data = json.loads(raw.decode())
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise FairnessStateError(f"a damaged stored seat ({exc})") from None
        if not isinstance(data, dict):
            raise FairnessStateError("a damaged stored seat (not an object)")
        return cls.from_dict(data)


def _hexed(value: Any) -> Any:
    """``value`` with every bytes as ``{"hex": ...}`` (JSON has no bytes)."""
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, Mapping):
        return {k: _hexed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_hexed(v) for v in value]
    return value


def _unhexed(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"hex"}:
            return bytes.fromhex(value["hex"])
        return {k: _unhexed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unhexed(v) for v in value]
    return value
