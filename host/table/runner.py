"""The journaled game state machine of a table: inputs in, journal rows and messages out.

How it works. Every change to a running game is an *input*: start a game (``GAME``), open a
deal round with a fresh secret, a seat's commitment or reveal, a void (``FAIR``), an action
(``ACTION``). :meth:`GameRunner._input` applies one input to the engine and the deal
(:mod:`host.table.dealing`) and appends to a :class:`Batch` the input row followed by every output
row: chance outcomes and the messages to send, each public or private to one seat. The caller
(:class:`host.table.table.Table`) commits the batch to sqlite, then delivers it. The runner does no
I/O and has no clock of its own: the table gives it ``now`` for the deadlines it sets.

Rules:

1. Handlers are deterministic given the input payloads (secrets and host-made seat entropy are
   *in* the payloads), so :meth:`GameRunner.replay` rebuilds engine, deal and seq numbers
   exactly from a stored journal, and the signed fairness messages come out byte-identical
   (Ed25519 signatures are deterministic).
2. Validation happens before the input row is written: a refused input leaves no row.
3. Handlers never draw randomness themselves: when the engine needs a new deal round they set
   ``_needs_open`` and the live caller adds an ``open`` input with a fresh secret.

Live (not replayed) inputs log one INFO line each for a game started or over, a deal round
voided and a seat stood up (``onecard host -v``).

A stored row that cannot be replayed raises :class:`ReplayError` naming the row, so the lobby
can leave that one table out with a line an operator can act on. Replaying also rebuilds the
hand records of earlier games whose files were lost (a record the disk refused, and the host
stopped before it could write it: :meth:`GameRunner.lost_records`): each such game is
replayed alone into a scratch runner, which signs the same messages again.
"""

from __future__ import annotations

import copy
import itertools
import secrets
from collections.abc import Callable, Collection, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games import make_blind, private_refusal
from host.games.base import (
    Action,
    ChanceKind,
    ChanceRequest,
    Event,
    Hidden,
    OptionError,
    State,
    WireMap,
    describe_outcome,
    played_cards,
)
from host.games.private import Blind
from host.logs import get_logger
from host.storage.journal import JournalKind, JournalRow, TableRow
from host.table.dealing import Deal
from host.table.seats import (
    AWAY_AFTER_TIMEOUTS,
    AWAY_TURN_S,
    MAX_MISSED_ROUNDS,
    VOID_TIMEOUT,
    Batch,
    EngineFailure,
    ReplayError,
    Rewriter,
    Seat,
    TableError,
    TablePhase,
)
from protocol.cards import parse_card
from protocol.errors import ErrorCode
from protocol.fairness import SecretLedger, SignedMessage
from protocol.framing import Outgoing
from protocol.mask_relay import PlayOpening

__all__ = ["GameRunner"]

log = get_logger(__name__)  # what a peer sent is shown escaped (host.logs)


class GameRunner:
    """A table's game: engine, deal and journal numbering. See the module docstring."""

    def __init__(
        self,
        *,
        table_id: str,
        game_cls: type[State],
        seats: int,
        options: dict[str, Any],
        signing_key: Ed25519PrivateKey,
        turn_timer: float | None,
        round_timeout: float,
        now: Callable[[], float],
        private: bool = False,
    ) -> None:
        """``private``: a private table (``spec/PROTOCOL.md`` 10): a blind engine, each hand
        masked (:mod:`host.table.masked`)."""
        game_cls.game.check_seats(seats)
        self.table_id = table_id
        self.game_cls = game_cls
        self.nseats = seats
        self.options = game_cls.game.validate_options(options)
        self.private = private
        if private:
            why = private_refusal(game_cls.game.name, dict(self.options))
            if why is not None:
                raise OptionError(why)
        self.signing_key = signing_key
        self.turn_timer = turn_timer
        self.round_timeout = round_timeout
        #: the table's clock (seconds): a deadline is ``now() + seconds``; the runner has none
        #: of its own, so it runs anywhere (a test passes ``lambda: 0.0``)
        self.now = now
        self.seats: list[Seat | None] = [None] * seats
        self._replaying = False  # no event logs while a stored journal is re-run
        self.cheat: Rewriter | None = None  #: only ``onecard host --cheat`` sets one
        self._reset_game_state()

    def _reset_game_state(self) -> None:
        """Forget the game (before replaying a journal into this runner)."""
        self.phase = TablePhase.WAITING
        self.engine: State | None = None
        self.game_no = 0
        self.game_names: list[str] = []
        self.game_seq = 0  # seq of the current game's GAME row
        self.seq = 0
        self.fair_hand_no = 0
        self.voids = 0
        self.deal: Deal | None = None
        self.round_deadline: float | None = None
        self.turn_deadline: float | None = None
        self.pending_records: list[tuple[int, dict[str, Any]]] = []
        self._needs_open = False
        #: a private table: the engine as it was before the hand's deal (a void goes back to it)
        self._predeal: State | None = None
        self._ledger = SecretLedger()  # secrets used by this runner's deals (never twice)

    def _log(self, text: str, *args: object) -> None:
        """One INFO line about this table, unless a stored journal is being re-run."""
        if not getattr(self, "_replaying", False):
            log.info("table %s: " + text, self.table_id, *args)

    def replay(self, journal: Sequence[JournalRow]) -> None:
        """Rebuild the last game of a stored journal by re-running its inputs."""
        inputs = (JournalKind.GAME, JournalKind.ACTION, JournalKind.FAIR, JournalKind.SEAT)
        # only the last game matters: skip to its GAME row (older games are finished)
        start = max(
            (i for i, j in enumerate(journal) if j.kind is JournalKind.GAME),
            default=len(journal),
        )
        if start < len(journal):
            self.seq = journal[start].seq - 1
            self.game_no = int(journal[start].payload["game_no"]) - 1
        self._replaying = True
        try:
            for j in journal[start:]:
                if j.kind not in inputs or j.payload.get("derived"):
                    continue
                if self.seq + 1 != j.seq:
                    log.warning(
                        "table %s: replay seq %d, journal seq %d",
                        self.table_id,
                        self.seq + 1,
                        j.seq,
                    )
                    self.seq = j.seq - 1
                try:
                    self._input(Batch(), j.kind, j.payload)
                    self._host_requests()  # the journal holds what they said: drop it
                except Exception as exc:
                    raise ReplayError(
                        f"journal row {j.seq} ({j.kind.value}) cannot be replayed: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
                self._needs_open = False
        finally:
            self._replaying = False
        if journal:
            self.seq = max(self.seq, journal[-1].seq)

    def lost_records(
        self, journal: Sequence[JournalRow], have: Collection[int]
    ) -> list[tuple[int, WireMap]]:
        """The records of earlier games' hands not in ``have``, rebuilt from ``journal``.

        Only games before the journal's last one: :meth:`replay` leaves the last game's records
        in ``pending_records``. A game's hands are numbered from its GAME row's
        ``fair_hand_no`` to the next game's; only a game with one missing is replayed (alone,
        into a scratch runner with no seats: the records depend on the journal only). A game
        that cannot be replayed is logged and skipped.
        """
        starts = [i for i, j in enumerate(journal) if j.kind is JournalKind.GAME]
        out: list[tuple[int, WireMap]] = []
        for begin, end in itertools.pairwise(starts):
            first = int(journal[begin].payload.get("fair_hand_no", 0)) + 1
            last = int(journal[end].payload.get("fair_hand_no", 0))
            if all(hand in have for hand in range(first, last + 1)):
                continue
            scratch = GameRunner(
                table_id=self.table_id,
                game_cls=self.game_cls,
                seats=self.nseats,
                options=self.options,
                signing_key=self.signing_key,
                turn_timer=None,
                round_timeout=self.round_timeout,
                now=self.now,
                private=self.private,
            )
            try:
                scratch.replay(journal[begin:end])
            except Exception as exc:  # a game the restore itself did not need to replay
                log.warning(
                    "table %s: cannot rebuild the lost records of hands %d-%d: %s",
                    self.table_id,
                    first,
                    last,
                    exc,
                )
                continue
            out.extend((hand, r) for hand, r in scratch.pending_records if hand not in have)
        return out

    # ------------------------------------------------------------------ inputs

    def _open_payload(self) -> WireMap:
        """A new deal round's secrets: the host's ``S`` and the entropy of the seats it
        contributes for. On a private table those are only the seats it plays (their masking
        secrets too, 10.11 step 1): a seat sitting out after a miss still holds its own
        cards there, so it still does its own duties."""
        host_r = {
            str(i): secrets.token_bytes(32)
            for i, s in enumerate(self.seats)
            if s is not None and (s.substitute or (s.sit_out and not self.private))
        }
        payload: WireMap = {"op": "open", "secret": secrets.token_bytes(32), "host_r": host_r}
        if self.private:
            payload["host_m"] = {k: secrets.token_bytes(32) for k in host_r}
        return payload

    def _input(self, batch: Batch, kind: JournalKind, payload: WireMap) -> None:
        """Apply one input (live or replayed) and append its rows to ``batch``.

        Validation happens before the input row is written, so a refused input leaves no row.
        """
        if kind is JournalKind.GAME:
            self._row(batch, kind, payload)
            self._start_game(batch, payload)
        elif kind is JournalKind.ACTION:
            self._action(batch, payload)
        elif kind is JournalKind.FAIR:
            self._fair(batch, payload)
        elif kind is JournalKind.SEAT:
            self._seat_change(batch, payload)
        else:
            raise ValueError(f"{kind} is not an input")

    def _start_game(self, batch: Batch, payload: WireMap) -> None:
        self.game_no = int(payload["game_no"])
        self.game_names = list(payload["names"])
        # counters that outlive a game: fairness hand numbers must keep increasing
        self.fair_hand_no = max(self.fair_hand_no, int(payload.get("fair_hand_no", 0)))
        self.voids = max(self.voids, int(payload.get("voids", 0)))
        self.game_seq = self.seq
        self.engine = self.game_cls(seats=self.nseats, options=self.options, dealer=None)
        if self.private:
            self.engine = make_blind(self.engine)
        self.deal = None
        misses = payload.get("misses") or {}
        for s in self.seats:
            if s is not None:
                s.ready = False
                s.last_act_seq = 0
                s.last_act_action = None
                # a count carried from the game before, unless someone else sits there now
                # (replayed after a restart, the seat may have changed hands since)
                played = s.index < len(self.game_names) and self.game_names[s.index] == s.name
                s.misses = int(misses.get(str(s.index), 0)) if played else 0
                s.missed = (s.misses + 1) // 2
        self.phase = TablePhase.PLAYING
        self._log(
            "game %d of %s started (%s)",
            self.game_no,
            self.game_cls.game.name,
            ", ".join(self.game_names),
        )
        self._message(
            batch,
            {
                "type": "game_start",
                "game_no": self.game_no,
                "game": self.game_cls.game.name,
                "names": self.game_names,
            },
        )
        self._after_change(batch)

    def _action(self, batch: Batch, payload: WireMap) -> None:
        """A seat's move: the one place a move is parsed and checked (live and replayed).

        ``payload["action"]`` is the wire map as sent; the journal keeps the engine's canonical
        form of it (:meth:`Action.to_wire`), so a replay and a resend compare like with like.
        """
        if self.phase is not TablePhase.PLAYING or self.engine is None:
            raise TableError(
                f"no moves now: the table is {self.phase.value}", code=ErrorCode.BAD_STATE
            )
        seat = int(payload["seat"])
        action = self.engine.parse_action(payload["action"])
        engine, opening = self._opening(seat, action, payload.get("open") or ())
        engine.check(seat, action)
        self.engine = engine  # a private play's positions are open in it (_opening)
        payload = {**payload, "action": action.to_wire()}
        try:
            events = self.engine.apply(seat, action)
        except Exception as exc:  # check() passed, so the engine may be half-changed
            raise EngineFailure(f"the game engine failed on {payload['action']}") from exc
        self._row(batch, JournalKind.ACTION, payload)
        if opening is not None and self.deal is not None and self.deal.mask is not None:
            # an accepted play gets one OPENED per position before its events (10.11 step 7)
            self._signed(batch, [(None, m) for m in self.deal.mask.commit_play(opening)])
        if self.deal is not None and self.deal.dealt and not self.deal.ended:
            self.deal.actions.append(
                {"seat": seat, "action": payload["action"], "note": payload.get("note")}
            )
        s = self.seats[seat]
        if s is not None:
            # journals written before the rename name it ``cseq``
            act_seq = payload.get("act_seq", payload.get("cseq"))
            if act_seq is not None:
                s.last_act_seq = int(act_seq)
                s.last_act_action = payload["action"]
                s.timeouts = 0  # its player acted: full turns again
            elif payload.get("note") == "timeout":
                s.timeouts += 1
        if payload.get("note") is not None:
            self._message(
                batch,
                {
                    "type": "event",
                    "event": {
                        "kind": str(payload["note"]),
                        "seat": seat,
                        "action": payload["action"],
                    },
                },
            )
        self._events(batch, events)
        self._after_change(batch)

    def _opening(
        self, seat: int, action: Action, opens: Sequence[Any]
    ) -> tuple[State, PlayOpening | None]:
        """The engine to check a move on, and on a private table the positions the play
        opens: its keys (``act.open``) checked by the relay, then the positions opened in a
        copy of the engine (``reveal_play``), so that a play the rules then refuse changes
        nothing and the relay signs nothing (``spec/PROTOCOL.md`` 10.11 step 7)."""
        assert self.engine is not None
        cards = played_cards(action)
        if not self.private or not cards:
            if opens:
                raise TableError(
                    "act.open goes only with a play of a private table", code=ErrorCode.BAD_FIELD
                )
            return self.engine, None
        deal = self.deal
        if deal is None or deal.mask is None or deal.mask.ending:
            raise TableError("no play now: the hand is not running", code=ErrorCode.BAD_STATE)
        if not opens:
            raise TableError(
                "a play of a private table carries act.open: the keys of the positions it "
                "puts face up",
                code=ErrorCode.BAD_FIELD,
            )
        play = deal.mask.check_play(seat, opens, [parse_card(c) for c in cards])
        assert isinstance(self.engine, Blind)
        return self.engine.trial_play(seat, play.cards), play

    def _fair(self, batch: Batch, payload: WireMap) -> None:
        op = payload["op"]
        if op == "open":
            self._row(batch, JournalKind.FAIR, payload)
            self._open_deal(batch, payload)
            return
        deal = self.deal
        assert deal is not None
        if op == "commit":
            deal.commit(int(payload["seat"]), bytes(payload["value"]))
        elif op == "reveal":
            deal.reveal(int(payload["seat"]), bytes(payload["value"]))
            revealed = self.seats[int(payload["seat"])]
            if revealed is not None:
                revealed.misses = max(0, revealed.misses - 1)
        elif op == "mask":
            assert deal.mask is not None
            seat = int(payload["seat"])
            msgs = deal.mask.request(seat, str(payload["type"]), payload["fields"])
            self._row(batch, JournalKind.FAIR, payload)
            self._signed(batch, [(None, m) for m in msgs])
            if not deal.keyed:
                self._round_progress(batch)
                return
            if deal.mask.waiting_for():  # the seats move on: the round timeout starts again
                self.round_deadline = self.now() + self.round_timeout
            else:
                self.round_deadline = None
            assert self.engine is not None
            if self.engine.chance_request() is not None or deal.mask.ending:
                self._after_change(batch)
            return
        elif op == "void":
            named = payload.get("missing")
            missing = deal.missing() if named is None else [int(x) for x in named]
            self._row(batch, JournalKind.FAIR, payload)
            self.voids += 1
            self._log(
                "hand %d voided (%s), no answer from seat(s) %s",
                deal.hand_no,
                payload["reason"],
                ", ".join(map(str, missing)) or "-",
            )
            self._signed(batch, [(None, deal.void(missing, str(payload["reason"])))])
            for seat in missing:
                if seat not in deal.wronged:  # a seat a bad LOCK wronged is not at fault (4.5)
                    self._missed(batch, seat, counts=payload["reason"] == VOID_TIMEOUT)
            self.pending_records.append((deal.hand_no, self._record(deal)))
            self.deal = None
            self._needs_open = True
            if self._predeal is not None and deal.dealt:  # a private hand: the game goes
                self.engine, self._predeal = self._predeal, None  # back to before its deal
                self.phase = TablePhase.DEALING
                self.turn_deadline = None
            return
        else:
            raise ValueError(f"unknown fairness op {op!r}")
        self._row(batch, JournalKind.FAIR, payload)
        self._round_progress(batch)

    def _missed(self, batch: Batch, index: int, *, counts: bool) -> None:
        """A seat left a deal round unanswered: it sits out the next; too often, it stands up.

        ``counts`` is False when the round was voided for the host's own reason (a restart).
        """
        s = self.seats[index]
        names = self.game_names
        if s is None or (index < len(names) and s.name != names[index]):
            # replaying (after a restart) a finished game whose seat was freed since, perhaps
            # taken by someone else: that newcomer missed nothing
            return
        s.sit_out = True
        if not counts:
            return
        s.misses += 2
        s.missed += 1
        if s.misses < 2 * MAX_MISSED_ROUNDS or s.stood_up:
            return
        s.stood_up = True
        self._log("seat %d (%s) stood up after %d missed deal rounds", index, s.name, s.missed)
        s.substitute = True
        s.token_hash = None
        event = {"kind": "stood_up", "seat": index, "name": s.name, "misses": s.missed}
        self._message(batch, {"type": "event", "event": event})

    def _seat_change(self, batch: Batch, payload: WireMap) -> None:
        """A seat left its game (``op`` "leave"): like a stood-up seat, it loses its owner and
        the host plays it to the end of the game; then it is freed."""
        if payload.get("op") != "leave":
            raise ValueError(f"unknown seat change {payload.get('op')!r}")
        index = int(payload["seat"])
        self._row(batch, JournalKind.SEAT, payload)
        s = self.seats[index]
        if s is None or s.stood_up:
            return
        s.stood_up = s.substitute = True
        s.token_hash = None
        self._log("seat %d (%s) left its game: the host plays it to the end", index, s.name)
        event = {"kind": "left", "seat": index, "name": s.name}
        self._message(batch, {"type": "event", "event": event})

    def turn_seconds(self) -> float | None:
        """The turn timer for the seat(s) to act now: ``AWAY_TURN_S`` for a seat whose timer ran
        out ``AWAY_AFTER_TIMEOUTS`` times in a row, else the table's (None: no timer)."""
        if self.turn_timer is None or self.engine is None:
            return None
        for seat in self.engine.to_act():
            s = self.seats[seat]
            if s is not None and s.timeouts >= AWAY_AFTER_TIMEOUTS:
                return min(self.turn_timer, AWAY_TURN_S)
        return self.turn_timer

    def _open_deal(self, batch: Batch, payload: WireMap) -> None:
        assert self.engine is not None
        request = self.engine.chance_request()
        assert request is not None and request.kind is ChanceKind.DEAL
        self.fair_hand_no += 1
        host_r = {int(k): bytes(v) for k, v in payload["host_r"].items()}
        raw_m = payload.get("host_m")
        host_m = None if raw_m is None else {int(k): bytes(v) for k, v in raw_m.items()}
        self._predeal = copy.deepcopy(self.engine) if self.private else None
        table_terms = dict(self.options), list(request.cards)
        options, deck = table_terms if self.cheat is None else self.cheat.deal_terms(*table_terms)
        self.deal = Deal(
            signing_key=self.signing_key,
            table_id=self.table_id,
            hand_no=self.fair_hand_no,
            game=self.game_cls.game.name,
            options=options,
            deck=deck,
            names=self.game_names,
            secret=bytes(payload["secret"]),
            host_r=host_r,
            ledger=self._ledger,
            honest=(options, deck) == table_terms,  # (only a --cheat host signs other terms)
            host_m=host_m,
        )
        for s in self.seats:
            if s is not None:
                s.sit_out = False
        self.phase = TablePhase.DEALING
        self.turn_deadline = None
        self.round_deadline = self.now() + self.round_timeout
        self._signed(batch, [(None, m) for m in self.deal.opening()], host_seats=sorted(host_r))
        self._round_progress(batch)

    def _round_progress(self, batch: Batch) -> None:
        deal = self.deal
        assert deal is not None
        msgs = deal.progress()
        if msgs:
            self.round_deadline = self.now() + self.round_timeout
            self._signed(batch, [(None, m) for m in msgs])
        if deal.keyed:
            self.round_deadline = None
            self._after_change(batch)

    # ------------------------------------------------------------------ outputs

    def _row(
        self, batch: Batch, kind: JournalKind, payload: WireMap, seat: int | None = None
    ) -> None:
        self.seq += 1
        batch.rows.append(JournalRow(self.seq, kind, seat, payload))

    def _message(self, batch: Batch, msg: WireMap, to: int | None = None) -> None:
        """Journal a message (public, or private to seat ``to``) and queue it for delivery."""
        # packed once however many members it goes to (protocol.framing.Outgoing)
        full = Outgoing({**msg, "table": self.table_id, "seq": self.seq + 1})
        self._row(batch, JournalKind.MESSAGE, full, to)
        batch.out.append((to, full))

    def _signed(
        self,
        batch: Batch,
        msgs: Sequence[tuple[int | None, SignedMessage]],
        *,
        host_seats: Sequence[int] = (),
    ) -> None:
        assert self.deal is not None
        if self.cheat is not None:
            msgs = self.cheat.rewrite(msgs)
        for to, m in msgs:
            self.deal.note_sent(m)
            if self.deal.mask is not None:
                self.deal.mask.sent(m)  # the seats the host plays take it too
            msg = {"type": "fair", "hand_no": self.deal.hand_no, "msg": m.to_wire()}
            if host_seats:
                msg["host_seats"] = list(host_seats)
            self._message(batch, msg, to)

    def _events(self, batch: Batch, events: Sequence[Event]) -> None:
        for ev in events:
            self._message(batch, {"type": "event", "event": ev.to_wire()}, ev.to)
            if ev.kind == "audit" and ev.data.get("violation") and self.deal is not None:
                self.deal.audit = dict(ev.data["violation"])  # the record keeps the proof
        if self.deal is not None and self.deal.dealt and not self.deal.ended:
            self._signed(batch, self.deal.draws(events))
            if self.deal.mask is not None and self.deal.mask.waiting_for():
                self._wait_for(self.deal)  # the boxes of the positions drawn are due

    def _after_change(self, batch: Batch) -> None:
        """Answer chance (deal or reshuffle), open a round, or finish, as the engine needs."""
        assert self.engine is not None
        while True:
            request = self.engine.chance_request()
            if request is None:
                break
            deal = self.deal
            if request.kind is ChanceKind.DEAL and (deal is None or deal.dealt or deal.ended):
                if deal is not None and deal.dealt and not self._end_hand(batch):
                    break  # a private hand: waiting for the masking secrets
                self.phase = TablePhase.DEALING
                self._needs_open = True
                break
            if deal is None or not deal.keyed:
                break  # the round is still collecting commitments or reveals
            if deal.mask is not None:
                if not self._masked_chance(batch, deal, request):
                    break  # waiting for the seats (passes, keys, secrets)
                continue
            order, dealer, msgs = deal.answer(request)
            self._signed(batch, [(None, m) for m in msgs])
            self._row(
                batch,
                JournalKind.CHANCE,
                {"game_no": self.game_no, "order": [c.code for c in order], "dealer": dealer},
            )
            self.phase = TablePhase.PLAYING
            self._events(batch, self.engine.apply_chance(order, dealer))
            if deal.dealer_seat is None:
                shown = self.engine.view(None).get("dealer")
                deal.dealer_seat = shown if isinstance(shown, int) else None
        outcome = self.engine.outcome()
        if (
            outcome is not None
            and self.phase is not TablePhase.FINISHED
            and self.engine.chance_request() is None
            and self._end_hand(batch)
        ):
            self.phase = TablePhase.FINISHED
            self.turn_deadline = None
            names = dict(enumerate(self.game_names))
            self._log("game %d over: %s", self.game_no, describe_outcome(outcome.to_wire(), names))
            self._message(
                batch, {"type": "game_over", "game_no": self.game_no, "outcome": outcome.to_wire()}
            )
        elif self.phase is TablePhase.PLAYING:
            seconds = self.turn_seconds()
            self.turn_deadline = (
                None if seconds is None or not self.engine.to_act() else self.now() + seconds
            )

    def _end_hand(self, batch: Batch) -> bool:
        """HAND_END of the hand dealt (on a private table after MASK_END); False while a
        private hand still waits for its masking secrets."""
        deal = self.deal
        if deal is None or not deal.dealt or deal.ended:
            return True
        if deal.mask is not None and not self._mask_end(batch, deal):
            return False
        outcome = self.engine.outcome() if self.engine is not None else None
        self._signed(batch, [(None, deal.end(None if outcome is None else outcome.to_wire()))])
        self.pending_records.append((deal.hand_no, self._record(deal)))
        self._predeal = None
        return True

    # ------------------------------------------------------------------ private tables

    def _masked_chance(self, batch: Batch, deal: Deal, request: ChanceRequest) -> bool:
        """Answer a chance request of a private hand as far as the seats let it: a round's
        positions once its passes are in, positions to open once their keys are (OPENED) or,
        at the hand's end, once every secret is (MASK_END). False: waiting for seats."""
        mask = deal.mask
        engine = self.engine
        assert mask is not None and isinstance(engine, Blind)
        if request.kind is ChanceKind.OPEN:
            positions = list(request.positions)
            over = engine.hand_over()
            held = not over and any(mask.held(p) is not None for p in positions)
            if held:
                over = self._ends_hand(engine, deal, positions)
            if over and not self._mask_end(batch, deal):
                return False
            if held and not over:
                if not self._show_held(batch, deal, engine, positions):
                    return False  # waiting for the holder's keys (or void)
            elif not over:
                self._draw_before(batch, deal, engine, positions)
                self._signed(batch, [(None, m) for m in mask.open_face_up(positions)])
            cards = mask.opened(positions)
            if cards is None:
                self._wait_for(deal)
                return False
            self.round_deadline = None  # the seats answered: nothing awaited of them now
            self.phase = TablePhase.PLAYING
            self._events(batch, engine.reveal(cards))
            return True
        deck, kept = list(request.cards), list(request.kept)
        ready, msgs = mask.round_ready(request.stream, deck, kept)
        self._signed(batch, [(None, m) for m in msgs])
        if not ready:
            self._wait_for(deal)
            return False
        dealer = None
        if request.kind is ChanceKind.DEAL and request.choose_dealer:
            dealer, msg = deal.dealer.choose_dealer()
            self._signed(batch, [(None, msg)])
            deal.dealer_seat = dealer
        deal.dealt = True
        self.round_deadline = None
        order = [Hidden(request.stream, i) for i in range(len(deck))]
        # the journal holds no card of a private hand: only how many positions were dealt
        self._row(
            batch,
            JournalKind.CHANCE,
            {"game_no": self.game_no, "stream": request.stream, "positions": len(order)},
        )
        self.phase = TablePhase.PLAYING
        self._events(batch, engine.apply_chance(order, dealer))
        if deal.dealer_seat is None:
            shown = engine.view(None).get("dealer")
            deal.dealer_seat = shown if isinstance(shown, int) else None
        return True

    def _draw_before(
        self, batch: Batch, deal: Deal, engine: Blind, positions: Sequence[tuple[int, int]]
    ) -> None:
        """Draw the positions dealt before a card turned up: the engine asks for the start
        card within its deal step, before the hands' events, and DRAWs go in position order.
        A probe (:meth:`_probe`) says where they went (the deal does not depend on the face)."""
        mask = deal.mask
        assert mask is not None
        first = min(positions)
        if mask.drawn(first) or mask.dealer.next_position(first[0]) >= first[1]:
            return
        _, events = self._probe(engine, deal, positions)
        earlier = [
            ev for ev in events if all(tuple(p) < first for p in ev.data.get("positions", ()))
        ]
        self._signed(batch, deal.draws(earlier))

    @staticmethod
    def _probe(
        engine: Blind, deal: Deal, positions: Sequence[tuple[int, int]]
    ) -> tuple[Blind, list[Event]]:
        """A copy of the engine with ``positions`` opened to a plain card, and the events of
        the step that ran on: what opening them leads to where that does not depend on the
        faces (whether the game ends, where cards go). The caller drops the copy."""
        mask = deal.mask
        assert mask is not None
        plain = next(c for c in map(parse_card, mask.dealer.context.deck) if not c.is_joker)
        probe = engine.clone()
        events = probe.reveal(dict.fromkeys(positions, plain))
        return probe, events

    @classmethod
    def _ends_hand(cls, engine: Blind, deal: Deal, positions: Sequence[tuple[int, int]]) -> bool:
        """Whether opening held ``positions`` is the hand's end (One Card: the last seat but
        one going bankrupt ends the game), as a probe (:meth:`_probe`) says."""
        probe, _ = cls._probe(engine, deal, positions)
        return probe.hand_over() or probe.outcome() is not None

    def _show_held(
        self, batch: Batch, deal: Deal, engine: Blind, positions: Sequence[tuple[int, int]]
    ) -> bool:
        """Positions a seat holds that the rules turn face up mid-hand (One Card's bankrupt
        hand), opened by their holder (``spec/PROTOCOL.md`` 10.11 step 7): the positions the
        same step drew to it are drawn first (a probe says where, :meth:`_probe`); once every
        one has its SEALED the holder is asked with a public ``show_hand`` event, and its
        ``show_hand`` request opens them (OPENED each). False while waiting (the round timeout
        runs: a silent holder voids the hand)."""
        mask = deal.mask
        assert mask is not None
        if mask.opened(positions) is not None:
            return True
        _, events = self._probe(engine, deal, positions)
        shown = next((ev for ev in events if ev.kind == "bankrupt"), None)
        if shown is None:  # a game module's bug: no seat shows its hand without a rule's reason
            self._void_private(
                batch, deal, [], "the rules turn a held hand face up, no reason given"
            )
            return False
        before = events[: events.index(shown)]
        self._signed(batch, deal.draws(before))
        holders = {mask.held(p) for p in positions}
        if len(holders) != 1 or None in holders:
            why = f"positions {[list(p) for p in positions]} to show are not one seat's hand"
            self._void_private(batch, deal, [], why)
            return False
        (seat,) = holders
        assert seat is not None
        if mask.show(seat, positions):
            event: WireMap = {
                "kind": "show_hand",
                "hand_no": deal.hand_no,
                "seat": seat,
                "positions": [list(p) for p in sorted(positions)],
                "reason": str(shown.data.get("reason")),
            }
            self._message(batch, {"type": "event", "event": event})
        if mask.opened(positions) is None:
            self._wait_for(deal)
            return False
        return True

    def _mask_end(self, batch: Batch, deal: Deal) -> bool:
        """The hand is over: ask every seat for its ``m_s`` (a ``hand_over`` event), then
        MASK_END and the audit. False while secrets are missing (or the audit voided it)."""
        mask = deal.mask
        assert mask is not None
        if not mask.ending:
            mask.ending = True
            event = {"kind": "hand_over", "hand_no": deal.hand_no}
            self._message(batch, {"type": "event", "event": event})
        if mask.relay.missing_secrets():
            self._wait_for(deal)
            return False
        self._signed(batch, [(None, m) for m in mask.end()])
        self.round_deadline = None
        if mask.failure is not None:
            blamed = [] if mask.failure.seat is None else [mask.failure.seat]
            self._void_private(batch, deal, blamed, f"the masking audit failed: {mask.failure}")
            return False
        return True

    def _wait_for(self, deal: Deal) -> None:
        """The hand waits for seats' masking messages: the round timeout runs (then void)."""
        if self.round_deadline is None:
            self.round_deadline = self.now() + self.round_timeout

    def _void_private(self, batch: Batch, deal: Deal, missing: list[int], reason: str) -> None:
        """Void a private hand from within an input (its row says so on replay too)."""
        # ``derived``: the input that led here voids it again on replay; the row is not an input
        payload = {"op": "void", "reason": reason, "missing": missing, "derived": True}
        self._input(batch, JournalKind.FAIR, payload)

    def _host_requests(self) -> list[tuple[int, str, dict[str, Any]]]:
        """What the seats the host plays have to send in the hand now."""
        deal = self.deal
        if deal is None or deal.mask is None or deal.ended:
            return []
        return deal.mask.host_requests()

    def _record(self, deal: Deal) -> dict[str, Any]:
        record = deal.record(self.table_id)
        return record if self.cheat is None else self.cheat.record(record)

    def seat(self, index: int) -> Seat:
        """The seat at ``index``, which must be taken."""
        s = self.seats[index]
        assert s is not None
        return s

    # ------------------------------------------------------------------ for the table

    def feed(self, batch: Batch, kind: JournalKind, payload: WireMap) -> None:
        """One live input, then the ``open`` of any deal round it calls for (with a fresh
        secret: live inputs only; a replay reads the journal's)."""
        self._input(batch, kind, payload)
        self._settle(batch)

    def _settle(self, batch: Batch) -> None:
        """Open the deal round the game calls for; journal and apply what the seats the host
        plays say in a private hand (live only: a replay reads them from the journal)."""
        while True:
            if self._needs_open:
                self._needs_open = False
                self._input(batch, JournalKind.FAIR, self._open_payload())
                continue
            said = self._host_requests()
            if not said:
                return
            for seat, kind, fields in said:
                payload = {"op": "mask", "seat": seat, "type": kind, "fields": fields}
                self._input(batch, JournalKind.FAIR, payload)

    def reopen(self, batch: Batch) -> None:
        """Open the deal round a restart interrupted after its deal was answered."""
        self._needs_open = True
        self._settle(batch)

    def next_game(self) -> WireMap:
        """The ``GAME`` input that starts the next game with the seats as they are."""
        names = [self.seat(i).name for i in range(self.nseats)]
        misses = {str(s.index): s.misses for s in self.seats if s is not None and s.misses}
        return {
            "game_no": self.game_no + 1,
            "names": names,
            "fair_hand_no": self.fair_hand_no,
            "voids": self.voids,
            "misses": misses,
        }

    def reload(self, row: TableRow | None) -> None:
        """Rebuild the game from the stored journal (the truth), after a live input failed
        half-way; the seats stay, with what the replay decides about them again."""
        self._reset_game_state()
        stored = {r.seat: r for r in row.seats} if row is not None else {}
        for s in self.seats:
            if s is not None:
                s.last_act_seq, s.sit_out = 0, False
                s.last_act_action = None
                if s.stood_up:  # the replay says again whether it stands up
                    s.stood_up = s.substitute = False
                    kept = stored.get(s.index)
                    s.token_hash = None if kept is None else kept.token_hash
        if row is not None:
            self.replay(row.journal)
        self.pending_records = []
        self.restart_timers()

    def restart_timers(self) -> None:
        """The deadlines of the round or turn in progress, counted from now (after a replay)."""
        self.round_deadline = None
        if self.phase is TablePhase.DEALING:
            self.round_deadline = self.now() + self.round_timeout
        seconds = self.turn_seconds() if self.phase is TablePhase.PLAYING else None
        self.turn_deadline = None if seconds is None else self.now() + seconds
