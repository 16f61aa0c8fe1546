"""The host's fair-dealing round for one hand, over :class:`protocol.fairness.HandDealer`.

How it works: a :class:`Deal` wraps one ``HandDealer`` and adds what the table needs around it:

* seats whose entropy the host contributes (a seat sitting out after a missed reveal, or one
  the host plays for) get a host-made ``r`` that is committed at once and revealed after LOCK;
* :meth:`Deal.progress` moves the round on (LOCK once every commitment is in, REVEALS once every
  reveal is in) and says when the deck key is known;
* :attr:`Deal.wronged` holds the seats the host's own messages give a reason not to answer,
  whose silence is then the host's fault, not theirs (``spec/PROTOCOL.md`` 4.5): every seat,
  when the HAND_COMMIT is signed under other terms than the table's (another ruleset or deck:
  ``honest`` False); and each seat the LOCK as sent wrongs (:meth:`Deal.note_sent`, which
  checks every message as it goes out, after any ``--cheat`` rewrite, the way a seat will: its
  commitment left out or altered, another host commitment than HAND_COMMIT's, seats not one
  each in order, two equal commitments, a bad signature);
* :meth:`Deal.draws` turns the engine's events into the signed DRAW/CARD messages: every
  ``[stream, position]`` named in an event's ``positions`` is recorded in order; a position
  listed by a private event goes to that seat (a private CARD), one shown with its card in a
  public event is dealt face up, any other goes to nobody (e.g. ONE's centre card);
* :meth:`Deal.record` is the hand record stored under the data directory and served over the
  protocol: the host key and every signed message in order, enough for
  :class:`protocol.fairness.HandVerifier` (``auditor=True``) to check the whole hand.

Everything is deterministic given the secret, the seats' commitments and reveals and the
engine's events, so a restarted host rebuilds a deal by replaying its journal.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games.base import ChanceKind, ChanceRequest, Event
from host.logs import get_logger
from host.table.masked import MaskedDeal
from protocol.cardfair import field_pairs
from protocol.cards import Card, parse_card
from protocol.fairness import (
    FairnessError,
    HandDealer,
    SeatSecret,
    SecretLedger,
    SignedMessage,
    public_key_bytes,
    ruleset_id,
)
from protocol.hand_records import build_record

__all__ = ["Deal", "FairnessError"]

log = get_logger(__name__)  # what a peer sent is shown escaped (host.logs)


class Deal:
    """One hand's commit-reveal round and its signed dealing."""

    def __init__(
        self,
        *,
        signing_key: Ed25519PrivateKey,
        table_id: str,
        hand_no: int,
        game: str,
        options: Mapping[str, bool | int | str],
        deck: Sequence[Card],
        names: Sequence[str],
        secret: bytes,
        host_r: Mapping[int, bytes],
        ledger: SecretLedger | None = None,
        honest: bool = True,
        host_m: Mapping[int, bytes] | None = None,
    ) -> None:
        """``honest`` False: ``options`` and ``deck`` are not the table's (a ``--cheat`` host
        only), so no seat can accept the HAND_COMMIT and every seat is wronged from the start.
        ``host_m`` (a private table's hand: :attr:`mask`) is the masking secret of each seat
        the host plays."""
        self.hand_no = hand_no
        self.names = list(names)
        self.game = game
        self.options = dict(options)
        #: the hand's dealer seat, once known; the seats' actions and the outcome, for the record
        self.dealer_seat: int | None = None
        self.actions: list[dict[str, Any]] = []
        self.outcome: dict[str, Any] | None = None
        #: a private hand's audit finding (the first illegal action), for the record
        self.audit: dict[str, Any] | None = None
        self.dealer = HandDealer(
            signing_key=signing_key,
            table_id=table_id,
            hand_no=hand_no,
            ruleset_id=ruleset_id(game, dict(options)),
            deck=list(deck),
            pids=self.names,
            secret=secret,
            ledger=ledger if ledger is not None else SecretLedger(),
        )
        self.host_pk = public_key_bytes(signing_key)
        self.ctx = self.dealer.context.digest
        self.host_seats = {
            seat: SeatSecret.from_r(self.ctx, self.names[seat], r) for seat, r in host_r.items()
        }
        for seat, sec in self.host_seats.items():
            self.dealer.accept_commit(self.names[seat], sec.commit_body(hand_no))
        self.locked = False
        self.keyed = False
        self.dealt = False
        #: seats whose missing commitment or reveal is the host's fault (the module docstring)
        self.wronged: set[int] = set()
        if not honest:
            self.wronged = {i for i in range(len(self.names)) if i not in self.host_seats}
        self._public_key = signing_key.public_key()
        self._sent_commit: object = None  # ``commit`` of the HAND_COMMIT as sent
        #: a private table's masking (None on a normal table)
        self.mask = None if host_m is None else MaskedDeal(self.dealer, host_m)

    # -- the round

    @property
    def ended(self) -> bool:
        return self.dealer.ended

    def opening(self) -> list[SignedMessage]:
        return [self.dealer.hand_commit]

    def commit(self, seat: int, c: bytes) -> None:
        """A seat's commitment; raises :class:`FairnessError` if refused."""
        if seat in self.host_seats:
            raise FairnessError("the host commits for this seat in this hand")
        self.dealer.accept_commit(self.names[seat], {"hand_no": self.hand_no, "c": c})

    def reveal(self, seat: int, r: bytes) -> None:
        if not self.locked:
            raise FairnessError("reveal only after LOCK")
        if seat in self.host_seats:
            raise FairnessError("the host reveals for this seat in this hand")
        self.dealer.accept_reveal(self.names[seat], {"hand_no": self.hand_no, "r": r})

    def already(
        self, seat: int, *, commit: bytes | None = None, reveal: bytes | None = None
    ) -> bool:
        """Whether ``seat`` already sent exactly this commitment (or reveal) this hand: a repeat
        changes nothing, so the table answers it without journaling it again."""
        pid = self.names[seat]
        if commit is not None:
            return self.dealer.commit_of(pid) == commit
        return reveal is not None and self.dealer.reveal_of(pid) == reveal

    def missing(self) -> list[int]:
        """Seats the round is waiting for (commitments first, then reveals; on a private
        table both kinds of commitment, and once the deck is keyed what the masking awaits)."""
        if self.mask is not None and self.keyed:
            return self.mask.waiting_for()
        pids = self.dealer.missing_reveals() if self.locked else self.dealer.missing_commits()
        seats = {self.names.index(p) for p in pids}
        if self.mask is not None and not self.locked:
            seats.update(self.mask.missing_commits())
        return sorted(seats)

    def progress(self) -> list[SignedMessage]:
        """LOCK and/or REVEALS, as far as the round can go now."""
        out: list[SignedMessage] = []
        masked = self.mask is None or not self.mask.missing_commits()
        if not self.locked and not self.dealer.missing_commits() and masked:
            out.append(self.dealer.lock())
            if self.mask is not None:
                out.append(self.mask.lock())  # MASK_LOCK right after LOCK (10.11 step 2)
            self.locked = True
            for seat, sec in self.host_seats.items():
                self.dealer.accept_reveal(self.names[seat], sec.reveal_body(self.hand_no))
        if self.locked and not self.keyed and not self.dealer.missing_reveals():
            out.append(self.dealer.reveals())
            self.keyed = True
            if self.mask is not None:
                self.mask.start_deal()  # round 0: the seats' passes come next
        return out

    def note_sent(self, msg: SignedMessage) -> None:
        """Check a message of this hand as the seats get it (after any ``--cheat`` rewrite):
        a LOCK that fails a seat's check (``spec/PROTOCOL.md`` 7.9) puts that seat in
        :attr:`wronged`; one that fails every seat's check puts them all there."""
        if msg.type == "hand_commit":
            self._sent_commit = msg.decode().get("commit")
        elif msg.type == "lock" and (wronged := self._wronged_by_lock(msg)):
            self.wronged |= wronged
            log.warning(
                "hand %d: the LOCK sent fails the check of seat(s) %s: a reveal they withhold "
                "is not counted against them",
                self.hand_no,
                ", ".join(map(str, sorted(wronged))),
            )

    def _wronged_by_lock(self, msg: SignedMessage) -> set[int]:
        seats = {i for i in range(len(self.names)) if i not in self.host_seats}
        try:
            msg.verify(self._public_key)
            body = msg.decode()
            pairs = field_pairs(body, "commits", msg.name)
        except FairnessError:
            return seats
        values = [c for _, c in pairs]
        if (
            body.get("commit") != self._sent_commit
            or [p for p, _ in pairs] != self.names
            or len(set(values)) != len(values)
        ):
            return seats
        locked = dict(pairs)
        return {i for i in seats if locked[self.names[i]] != self.dealer.commit_of(self.names[i])}

    def void(self, missing: Sequence[int], reason: str) -> SignedMessage:
        return self.dealer.void(reason, [self.names[s] for s in missing])

    # -- dealing

    def answer(self, request: ChanceRequest) -> tuple[list[Card], int | None, list[SignedMessage]]:
        signed = self.dealer.context.deck
        left_out: list[Card] = []
        if request.kind is ChanceKind.DEAL and tuple(c.code for c in request.cards) != signed:
            # only a ``--cheat short-deck`` host signs another deck than its engine's: it shuffles
            # the signed one and slips the cards it left out under the stock, where no DRAW goes
            rest = Counter(c.code for c in request.cards) - Counter(signed)
            for c in request.cards:
                if rest[c.code] > 0:
                    rest[c.code] -= 1
                    left_out.append(c)
            request = dataclasses.replace(request, cards=tuple(map(parse_card, signed)))
        ans = self.dealer.answer(request)
        self.dealt = True
        if ans.dealer is not None:
            self.dealer_seat = ans.dealer
        return ans.order + left_out, ans.dealer, ans.messages

    def draws(self, events: Sequence[Event]) -> list[tuple[int | None, SignedMessage]]:
        """Signed DRAW (public) and CARD (private) messages for the stock cards in ``events``;
        on a private table DRAWs with no card only (:meth:`MaskedDeal.draw`)."""
        owner: dict[tuple[int, int], int] = {}
        shown: set[tuple[int, int]] = set()
        named: list[tuple[int, int]] = []
        for ev in events:
            positions = _positions(ev.data.get("positions"))
            if ev.to is not None:
                for p in positions:
                    owner[p] = ev.to
                continue
            named.extend(positions)
            faces = ev.data.get("cards", ev.data.get("card"))
            count = len(faces) if isinstance(faces, list) else (1 if isinstance(faces, str) else 0)
            if positions and count == len(positions):
                shown.update(positions)
        out: list[tuple[int | None, SignedMessage]] = []
        if self.mask is not None:
            for p in sorted(set(named) | set(owner)):
                out += [(None, m) for m in self.mask.draw(p[0], p[1], owner.get(p))]
            return out
        for p in sorted(set(named) | set(owner)):
            public = p in shown and p not in owner
            to = owner.get(p)
            try:
                dealt = self.dealer.record_draw(p[0], p[1], to, public=public)
            except FairnessError as exc:  # an engine naming positions out of order: log, go on
                log.error("hand %s: cannot record draw %s: %s", self.hand_no, p, exc)
                continue
            out.append((None, dealt.draw))
            if dealt.private is not None and to is not None:
                out.append((to, dealt.private))
        return out

    def end(self, outcome: dict[str, Any] | None = None) -> SignedMessage:
        """HAND_END revealing S; ``outcome`` (the game's, if it ended) is signed with it."""
        self.outcome = outcome
        return self.dealer.hand_end(outcome)

    # -- the record

    def record(self, table_id: str) -> dict[str, Any]:
        """The hand record (``protocol.hand_records`` format): every signed message, the actions."""
        assert self.dealer.context.table_id == table_id
        return build_record(
            self.dealer,
            game=self.game,
            options=self.options,
            dealer_seat=self.dealer_seat,
            actions=list(self.actions),
            outcome=self.outcome,
            audit=self.audit,
        )


def _positions(raw: object) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    if not isinstance(raw, list):
        return out
    for item in raw:
        if (
            isinstance(item, list | tuple)
            and len(item) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in item)
        ):
            out.append((int(item[0]), int(item[1])))
    return out
