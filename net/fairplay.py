"""Checking the host's deals as they happen: fair-dealing duties and deal checks for one seat.

Shared by every seat client (:mod:`net.seat`): the terminal client and the host's bots.

How it works: :class:`DealChecker` runs one :class:`protocol.fairness.HandVerifier` per hand
(section 7 of ``spec/PROTOCOL.md``): it answers HAND_COMMIT with the seat's commitment, reveals
only after a verified LOCK, checks every DRAW and CARD as it arrives and the revealed secret at
HAND_END, where it re-derives the whole deck and compares every card it saw. It also checks
that every card the host's ``state`` puts in our hand was dealt to us by a signed CARD, and
feeds the verifier every game event (:meth:`DealChecker.shown`): where each DRAW's card goes and
what a RESHUFFLE must recycle are checked against the events' ``seats`` and ``pile``. Any
failure is kept (the rest of that hand is not verified) and reported at the hand's end exactly
as the verifier worded it. Each finished hand's signed messages are handed, as a proof bundle
that ``onecard verify`` can check, to the checker's ``keep`` (the terminal client saves them as
``proofs/<table>/<table>-hand<N>.json`` under its state directory:
:func:`client.record_fetch.proof_keeper`; a bot keeps none).
The host's Ed25519 key is trusted on the first HAND_COMMIT and pinned for the session.

On a private table (``table_info.private``, PROTOCOL.md 10.11 and 10.14) each hand the seat plays
also has :class:`net.private_seat.SeatDuties` (its masker, kept in the checker's key store):
``mask_commit`` goes with ``fair_commit``, the reveal waits for a verified MASK_LOCK, every
accepted message is handed to the duties, whose requests (passes, sealed keys, open keys) go out at
once, ``show_hand`` when the host asks us to put our hand face up by rule
(:meth:`DealChecker.show_hand`, checked first), and ``mask_reveal`` goes when the host says the
hand is over (:meth:`DealChecker.hand_over`) or voids it. A check the masker fails is a fairness
failure like any other. A restarted client loads the duties from the key store at the replayed
HAND_COMMIT and carries on.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import protocol.table_messages as tm
from net.keystore import KeyStore, MemoryKeyStore
from net.private_seat import SeatDuties, show_refusal
from protocol.cards import Card, CardCodeError, parse_card
from protocol.fairness import (
    SCHEME,
    FairnessError,
    HandReport,
    HandVerifier,
    RulesetError,
    SignedMessage,
    key_fingerprint,
    ruleset_id,
)
from protocol.hand_records import RECORD_FORMAT
from protocol.messages import Message

__all__ = ["DealChecker", "FairKind", "FairNotice", "KeepProof"]

#: keeps one hand's proof bundle: ``(table id, hand no, bundle)`` -> where it went (None: nowhere)
KeepProof = Callable[[str, int, dict[str, Any]], Path | None]


class FairKind(enum.Enum):
    """What a fairness notice reports."""

    #: the hand ended and every check passed
    VERIFIED = "verified"
    #: a check failed (the message says which); the hand is not trusted
    FAILED = "failed"
    #: the host voided the round (a seat missed its commit or reveal); no cards were dealt
    VOID = "void"
    #: a hand we could not check (joined or resumed in the middle of it)
    UNCHECKED = "unchecked"


@dataclass(frozen=True, slots=True)
class FairNotice:
    """A fairness result for the user."""

    kind: FairKind
    hand_no: int
    message: str
    fingerprint: str | None = None  #: the final transcript fingerprint (compare aloud)
    cards_checked: int = 0
    proof: Path | None = None  #: where the hand's signed messages were saved

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.kind.value,
            "hand_no": self.hand_no,
            "message": self.message,
            "fingerprint": self.fingerprint,
            "cards_checked": self.cards_checked,
            "proof": None if self.proof is None else str(self.proof),
        }


class DealChecker:
    """Checks every hand dealt at one table; see the module docstring."""

    def __init__(
        self,
        *,
        table_id: str,
        pid: str | None,
        keep: KeepProof | None = None,
        host_pk: bytes | None = None,
        keys: KeyStore | None = None,
    ) -> None:
        self.table_id = table_id
        self.pid = pid
        self.keep = keep
        #: the host's signing key: pinned from an earlier session, else learnt from the first
        #: HAND_COMMIT and pinned for this one
        self.host_pk: bytes | None = host_pk
        self.verifier: HandVerifier | None = None
        self.hand_no = 0
        self.failure: str | None = None
        self.received: Counter[str] = Counter()
        self.seated = False  #: our pid is seated in the current hand (playing or sitting out)
        self._seen_commits: set[bytes] = set()
        self._last_hand_no = 0
        self._unchecked_hands: set[int] = set()
        #: cards game events showed for a drawn (stream, pos), waiting for that DRAW
        self._shown: list[tuple[int, int, Card]] = []
        #: a restarted client's resume replays the game up to this table seq: the seat may have
        #: committed to those hands from its old process (whose r is lost), so it only audits
        self.replay_until = 0
        #: the ruleset the table's options give (``table_info``); None until one came
        self.ruleset: str | None = None
        #: the ruleset the last hand was signed under: without the table's, it may not change
        self._last_ruleset: str | None = None
        #: what ``table_info`` says of the table: private (True), not (False), unknown (None)
        self.private: bool | None = None
        #: where a private hand's masking state is kept (a restarted client resumes from it)
        self.keys: KeyStore = MemoryKeyStore() if keys is None else keys
        #: the table's game and options (``table_info``)
        self.game: str = ""
        self.options: dict[str, Any] = {}
        #: our masking duties in the current private hand (None: not private, or not seated)
        self.duties: SeatDuties | None = None

    def table_options(self, game: str, options: Mapping[str, Any], private: bool = False) -> None:
        """The game and options of the table we sat down at (or watch), from ``table_info``:
        every hand must be signed under the ruleset they give (PROTOCOL.md 7.3), and masked
        (section 10) when the table is ``private``."""
        self.private = private
        self.game, self.options = game, dict(options)
        plain = {k: v for k, v in options.items() if isinstance(v, bool | int | str)}
        self.ruleset = ruleset_id(game, plain) if game else None

    @property
    def fresh(self) -> bool:
        """True before any hand was seen (a new process)."""
        return self._last_hand_no == 0 and self.verifier is None

    @property
    def key_fingerprint(self) -> str | None:
        """The fair-dealing key's fingerprint as the host shows it, once known."""
        return None if self.host_pk is None else key_fingerprint(self.host_pk)

    def receive(
        self, push: tm.FairPush, *, more: bool = False
    ) -> tuple[list[Message], list[FairNotice]]:
        """Check one signed message; return (messages to send, notices for the user). With
        ``more`` (more pushes wait to be read) the masking requests it makes due wait for
        :meth:`flush`, so that one request carries what many messages asked for."""
        try:
            msg = SignedMessage.from_wire(push.msg)
        except FairnessError as exc:
            return [], self._fail(push.hand_no, exc.message)
        if msg.type == "hand_commit":
            return self._open(push, msg)
        if self.verifier is None or push.hand_no != self.hand_no:
            return [], self._unchecked(push.hand_no)  # a hand we joined in the middle of
        if self.failure is not None:
            return [], self._after_failure(push.hand_no, msg)
        if msg.type == "hand_end":
            failed = self._note_shown() if self._shown else []
            unshown = self.verifier.unshown_table_cards() if not failed else []
            if unshown:
                stream, pos = unshown[0]
                failed = self._fail(
                    self.hand_no,
                    f"the card dealt face down to the table at stream {stream} "
                    f"position {pos} was never shown",
                )
            if failed:
                return [], [*failed, *self._after_failure(push.hand_no, msg)]
        try:
            result = self.verifier.receive(msg)
        except FairnessError as exc:
            return [], self._fail(push.hand_no, exc.message)
        out: list[Message] = []
        if self.duties is not None:
            try:
                out.extend(self.duties.receive(msg, push.seq, defer=more))
            except FairnessError as exc:
                return [], self._fail(push.hand_no, exc.message)
            if msg.type == "void":
                out.extend(self.duties.reveal())  # the hand is over: the audit names a culprit
        if isinstance(result, Card):
            self.received[result.code] += 1
        # on a private table the seat reveals r only once MASK_LOCK passed too (10.11 step 2)
        reveal_on = "mask_lock" if self.private or self.verifier.private else "lock"
        if msg.type == reveal_on and self.verifier.seat is not None:
            out.extend(self.flush())  # (what the masking owes goes first, in order)
            body = self.verifier.reveal()
            out.append(tm.FairReveal(table=self.table_id, hand_no=body["hand_no"], r=body["r"]))
            return out, []
        if isinstance(result, HandReport):
            return out, [self._finish(result)]
        return out, []

    def flush(self) -> list[Message]:
        """The masking requests :meth:`receive` kept back (none after a failed check: the seat
        answers nothing more for that hand)."""
        if self.duties is None or self.failure is not None:
            return []
        return self.duties.flush()

    def hand_over(self, hand_no: int | None = None) -> list[Message]:
        """The host says the private hand ``hand_no`` (default: the current one) is over: our
        ``mask_reveal`` (PROTOCOL.md 10.14), once; nothing if we hold no duties for it."""
        duties = self.duties
        if duties is None or (hand_no is not None and hand_no != self.hand_no):
            return []
        return duties.reveal()

    def show_hand(self, event: Mapping[str, Any]) -> tuple[list[Message], list[FairNotice]]:
        """The host's ``show_hand`` event (PROTOCOL.md 10.14): when it names our seat in the
        current hand, our ``show_hand`` with the keys of our whole hand, if the table's rules
        turn a hand face up (:func:`net.private_seat.show_refusal`) and the positions are our
        whole face-down hand; else a failed check (we send nothing more for the hand)."""
        duties = self.duties
        if (
            duties is None
            or event.get("seat") != duties.masker.seat
            or event.get("hand_no") != self.hand_no
        ):
            return [], []
        if self.failure is not None or duties.masker.over:
            return [], []
        try:
            positions = [(int(s), int(p)) for s, p in event.get("positions") or ()]
        except (TypeError, ValueError):
            return [], self._fail(self.hand_no, "a show_hand event with malformed positions")
        if positions and all(w in duties.masker.face_up for w in positions):
            return [], []  # shown already (the host's replay of its ask after a resume)
        # our own count, not the host's word (and the cards of this show opened already, if
        # the ask is replayed after a restart part-way through it)
        shown = duties.masker.shown
        held = len(set(duties.opened()) | {w for w in positions if w in shown})
        context = self.verifier.context if self.verifier is not None else None
        if context is None or self.ruleset != context.ruleset_id:
            # the options table_info gives now may not be those the hand was signed under
            text = "the host asks us to show our hand under options this hand was not dealt by"
            return [], self._fail(self.hand_no, text)
        why = show_refusal(self.game, self.options, event.get("reason"), held)
        if why is not None:
            text = f"the host asks us to show our hand, refused: {why}"
            return [], self._fail(self.hand_no, text)
        try:
            return duties.show(positions), []
        except FairnessError as exc:
            return [], self._fail(self.hand_no, exc.message)

    def play_keys(self, positions: Any) -> tuple[tuple[int, int, tuple[bytes, ...]], ...]:
        """``act.open`` for a play from ``positions`` of our private hand (() elsewhere)."""
        if self.duties is None or not positions:
            return ()
        return self.duties.play_keys(positions)

    def opened(self) -> dict[tuple[int, int], str]:
        """The cards of our private hand we opened and still hold, by position."""
        return {} if self.duties is None else self.duties.opened()

    def _open(
        self, push: tm.FairPush, msg: SignedMessage
    ) -> tuple[list[Message], list[FairNotice]]:
        self.failure = None
        self.received = Counter()
        self._shown = []
        self.hand_no = push.hand_no
        self.duties = None
        try:
            body = msg.decode()
            pk = body.get("host_pk")
            if not isinstance(pk, bytes | bytearray) or len(pk) != 32:
                raise FairnessError("HAND_COMMIT carries no host key")
            if self.host_pk is not None and bytes(pk) != self.host_pk:  # not "signature invalid"
                raise FairnessError(
                    f"the host's deal key changed: it signs with {key_fingerprint(bytes(pk))}, "
                    f"but {key_fingerprint(self.host_pk)} is pinned for this host (if it "
                    "really changed, remove its '#deal-key' line from known_hosts)"
                )
            pids = body.get("pids")
            seated = self.pid is not None and isinstance(pids, list) and self.pid in pids
            # a seat the host contributes entropy for (sitting out, or played for) only watches,
            # but still receives its own cards: check them as an auditor would
            host_seats = push.host_seats
            sitting_out = seated and isinstance(pids, list) and pids.index(self.pid) in host_seats
            sitting_out = sitting_out or (seated and push.seq <= self.replay_until)
            self.seated = seated
            rules = self.ruleset
            self.verifier = HandVerifier(
                bytes(pk),
                pid=self.pid if seated and not sitting_out else None,
                table_id=self.table_id,
                ruleset_id=rules,
                last_hand_no=self._last_hand_no,
                seen_commitments=self._seen_commits,
                auditor=sitting_out,
                complete=False,
                live=True,
                private=self.private,
            )
            # 7.6: on first use the key comes from this very body; it is pinned only once the
            # message's signature verified under it (a forged first HAND_COMMIT pins nothing)
            self.verifier.receive(msg)
            self.host_pk = bytes(pk)
            signed = self.verifier.context.ruleset_id if self.verifier.context else None
            if rules is None and self._last_ruleset not in (None, signed):
                raise RulesetError(
                    f"HAND_COMMIT ruleset {signed!r} changed from {self._last_ruleset!r} of the "
                    "hand before, while the table's options did not"
                )
        except FairnessError as exc:
            failed = self._fail(push.hand_no, exc.message, opening=msg)
            self.verifier = None
            return [], failed
        self._last_hand_no = push.hand_no
        self._seen_commits.add(self.verifier.commitment)
        assert self.verifier.context is not None
        self._last_ruleset = self.verifier.context.ruleset_id
        ctx = self.verifier.context
        if self.private and seated and isinstance(pids, list):
            seat = pids.index(self.pid)
            if self.verifier.seat is None:  # a replayed hand: the duties of our old process
                self.duties = SeatDuties.load(ctx, seat, table_id=self.table_id, store=self.keys)
            else:
                self.duties = SeatDuties.start(ctx, seat, table_id=self.table_id, store=self.keys)
        if self.verifier.seat is None:
            return [], []
        body = self.verifier.player_commit()
        sent: list[Message] = [
            tm.FairCommit(table=self.table_id, hand_no=body["hand_no"], c=body["c"])
        ]
        if self.duties is not None:
            sent.append(self.duties.commit())
        return sent, []

    def lose_track(self) -> None:
        """Messages of the hand in progress were missed: stop checking it live, no verdict."""
        if self.verifier is not None and self.verifier.report is None:
            self.verifier = None
            self.failure = None

    def _unchecked(self, hand_no: int) -> list[FairNotice]:
        """Say once per hand that a hand joined (or resumed) midway cannot be verified."""
        if hand_no in self._unchecked_hands or hand_no == self.hand_no:
            return []
        self._unchecked_hands.add(hand_no)
        text = "it began before we arrived: its deal cannot be verified here"
        return [FairNotice(FairKind.UNCHECKED, hand_no, text)]

    def _after_failure(self, hand_no: int, msg: SignedMessage) -> list[FairNotice]:
        """Keep the evidence; at the hand's end, repeat what failed."""
        if self.verifier is not None:
            self.verifier.messages.append(msg)
        if msg.type in ("hand_end", "void"):
            proof = self._save()
            text = f"deal NOT verified: {self.failure}"
            return [FairNotice(FairKind.FAILED, hand_no, text, proof=proof)]
        return []

    def _fail(
        self, hand_no: int, message: str, opening: SignedMessage | None = None
    ) -> list[FairNotice]:
        self.failure = message
        proof = self._save(opening)
        text = f"fairness check failed: {message}"
        return [FairNotice(FairKind.FAILED, hand_no, text, proof=proof)]

    def shown(self, event: Mapping[str, Any]) -> list[FairNotice]:
        """Note a card a game event shows for one drawn ``[stream, pos]`` (ONE's centre card,
        dealt face down and turned up at the last trick; PROTOCOL.md 7.9); it is compared with
        the derived deck at HAND_END. Events of several cards are checked by other means (they
        repeat cards received in CARD or face-up DRAW messages)."""
        if self.verifier is None or self.failure is not None:
            return []
        try:  # where each card goes, what went on the pile: the live checks of 7.9
            self.verifier.note_event(event)
        except FairnessError as exc:
            return self._fail(self.hand_no, exc.message)
        code = event.get("card")
        where = event.get("position")
        if where is None:
            many = event.get("positions")
            where = many[0] if isinstance(many, list) and len(many) == 1 else None
        if not isinstance(code, str) or not (
            isinstance(where, list | tuple)
            and len(where) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in where)
        ):
            return []
        try:
            card = parse_card(code)
        except CardCodeError:
            return self._fail(self.hand_no, f"the host showed an unknown card {code!r}")
        report = self.verifier.report
        if report is not None:  # shown after HAND_END: compare with the derived deck at once
            stream, pos = where[0], where[1]
            order = report.orders.get(stream)
            if order is None or not 0 <= pos < len(order):
                return (
                    []
                    if report.voided
                    else self._fail(
                        self.hand_no,
                        f"the host showed a card at stream {stream} position {pos}, "
                        "which this hand never dealt",
                    )
                )
            if order[pos] is not card:
                return self._fail(
                    self.hand_no,
                    f"card at stream {stream} position {pos} is shown as {card} "
                    f"after the hand's end, derived {order[pos]}",
                )
            return []
        self._shown.append((where[0], where[1], card))
        return self._note_shown() if self.verifier.drawn(where[0], where[1]) else []

    def _note_shown(self) -> list[FairNotice]:
        """Compare the shown cards noted so far (an event may come before its DRAW: those
        wait, and at HAND_END a position never drawn is a failure)."""
        assert self.verifier is not None
        waiting, self._shown = self._shown, []
        for stream, position, card in waiting:
            try:
                self.verifier.note_shown(stream, position, card)
            except FairnessError as exc:
                return self._fail(self.hand_no, exc.message)
        return []

    def check_hand(self, hand: list[str]) -> list[FairNotice]:
        """Every card the host shows in our hand must have come to us in a signed CARD."""
        if self.verifier is None or not self.seated or self.failure is not None:
            return []
        if (
            self.private or self.verifier.private
        ):  # our own opening gave the hand: no CARD to compare with
            return []
        extra = Counter(hand) - self.received
        if not extra:
            return []
        cards = ", ".join(sorted(extra))
        return self._fail(self.hand_no, f"the host shows {cards} in our hand, never dealt to us")

    def _finish(self, report: HandReport) -> FairNotice:
        proof = self._save()
        if report.voided:
            missing = ", ".join(report.missing) or "nobody"
            text = f"deal round voided (missing: {missing}); the host's secret opened correctly"
            return FairNotice(FairKind.VOID, report.hand_no, text, report.fingerprint, 0, proof)
        n = report.cards_checked
        # the cards this client could check: its own and every card shown to the table (a
        # spectator holds none: "you saw" read as if it had been dealt some)
        whose = "you saw" if self.seated else "shown to the table"
        text = f"deal verified: {n} card{'' if n == 1 else 's'} {whose} checked"
        return FairNotice(
            FairKind.VERIFIED, report.hand_no, text, report.fingerprint, report.cards_checked, proof
        )

    def _save(self, opening: SignedMessage | None = None) -> Path | None:
        """Keep the hand's signed messages; for a HAND_COMMIT refused outright (``opening``)
        that one message, so ``onecard verify`` names what was wrong with it."""
        if self.keep is None:
            return None
        if self.verifier is not None and self.verifier.context is not None:
            bundle = self.verifier.bundle()
        elif opening is not None:
            found = _opening_bundle(opening)
            if found is None:
                return None
            bundle = found
        else:
            return None
        if self.ruleset is not None:  # what the table's options give: 8.2 checks it
            bundle["ruleset_id"] = self.ruleset
        if self.failure is not None:
            bundle["client_failure"] = self.failure
        return self.keep(self.table_id, self.hand_no, bundle)


def _opening_bundle(msg: SignedMessage) -> dict[str, Any] | None:
    """A proof bundle of one signed HAND_COMMIT, if its body names a hand well enough."""
    try:
        body = msg.decode()
    except FairnessError:
        return None
    pk, pids = body.get("host_pk"), body.get("pids")
    if not (
        isinstance(body.get("table_id"), str)
        and isinstance(body.get("hand_no"), int)
        and isinstance(pids, list)
        and all(isinstance(p, str) for p in pids)
        and isinstance(pk, bytes)
        and len(pk) == 32
    ):
        return None
    return {
        "format": RECORD_FORMAT,
        "scheme": SCHEME,
        "table_id": body["table_id"],
        "hand_no": body["hand_no"],
        "pids": pids,
        "host_pk": pk.hex(),
        "messages": [[msg.type, msg.body.hex(), msg.sig.hex()]],
        "partial": True,
    }
