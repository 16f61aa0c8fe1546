"""A private table's hand on the host: the masking beside the fair deal (``cardmask/v1``).

How it works: a :class:`MaskedDeal` belongs to one :class:`host.table.dealing.Deal` of a private
table. It holds the hand's :class:`~protocol.mask_relay.MaskRelay` (which signs through the
deal's dealer, so every masking message lands in the same transcript and hand record) and, for
each seat the host plays (a seat gone past its grace), a :class:`~protocol.mask_seat.SeatMasker`
whose secret the runner drew and journaled: the host does those seats' duties itself
(``spec/PROTOCOL.md`` 10.11 step 1) and their cards are the host's own.

The runner (:mod:`host.table.runner`) feeds it: each seat's request (:meth:`MaskedDeal.request`,
after :meth:`MaskedDeal.check_request` names what may be refused), every signed message sent
(:meth:`MaskedDeal.sent`, which the host's own maskers receive; what they have to say comes out
of :meth:`MaskedDeal.host_requests` and goes back in as journaled inputs), the engine's chance
requests (a round's passes, positions drawn, positions to open: a seat's own by its
``show_hand``, :meth:`MaskedDeal.show`) and the end of the hand (every
``m_s``, MASK_END, the audit that gives every round's stock). It never sees a hidden card of a
human seat: a position's card is known here once it is opened face up (OPENED) or after
MASK_END. Pure: no I/O, no clock; every failure is a :class:`~protocol.cardfair.FairnessError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.cardfair import FairnessError, FairnessStateError, SignedMessage
from protocol.cards import Card, parse_card
from protocol.dealer import HandDealer
from protocol.mask_relay import MaskRelay, PlayOpening
from protocol.mask_seat import SeatMasker

__all__ = ["MASK_REQUESTS", "MaskedDeal", "first_move"]

Position = tuple[int, int]

#: the seat requests of a private hand (10.11) the table takes, by wire type
MASK_REQUESTS = frozenset(
    {"mask_commit", "mask_pass", "sealed_keys", "open_keys", "show_hand", "mask_reveal"}
)


class MaskedDeal:
    """The masking of one private hand on the host (see the module docstring)."""

    def __init__(self, dealer: HandDealer, host_m: Mapping[int, bytes]) -> None:
        self.relay = MaskRelay(dealer)
        self.dealer = dealer
        #: the seats the host plays this hand, each with its masker
        self.maskers = {
            seat: SeatMasker(dealer.context, seat, m) for seat, m in sorted(host_m.items())
        }
        for seat, masker in self.maskers.items():
            self.relay.accept_commit(seat, masker.commit().fields)
        #: positions a seat was asked to show (:meth:`show`)
        self._shown: set[Position] = set()
        #: the hand is over for the game: every seat is asked for its ``m_s``
        self.ending = False
        #: MASK_END was signed; then :attr:`stocks` holds every round's stock
        self.ended = False
        self.stocks: dict[int, tuple[str, ...]] = {}
        #: the audit at MASK_END failed: the hand is void, naming :attr:`FairnessError.seat`
        self.failure: FairnessError | None = None

    # -- the seats' requests
    def request(self, seat: int, kind: str, fields: Mapping[str, Any]) -> list[SignedMessage]:
        """A seat's request (``mask_commit`` .. ``mask_reveal``); the messages to send."""
        relay = self.relay
        if kind == "mask_commit":
            relay.accept_commit(seat, fields)
            return []
        if kind == "mask_pass":
            return [relay.accept_pass(seat, fields)]
        if kind == "sealed_keys":
            return relay.accept_boxes(seat, fields)
        if kind == "open_keys":
            msgs, _ = relay.accept_open_keys(seat, fields)
            return msgs
        if kind == "show_hand":
            return relay.accept_show(seat, fields)
        if kind == "mask_reveal":
            if not self.ending:
                raise FairnessStateError("mask_reveal before the hand is over")
            relay.accept_secret(seat, fields)
            return []
        raise FairnessStateError(f"{kind!r} is not a private table's request")

    def sent(self, msg: SignedMessage) -> None:
        """A signed message went out: the host's own seats take it as any seat would."""
        for masker in self.maskers.values():
            masker.receive(msg)

    def host_requests(self) -> list[tuple[int, str, dict[str, Any]]]:
        """What the host's own seats have to send now: ``(seat, type, fields)``."""
        out = []
        for seat, masker in self.maskers.items():
            for item in masker.drain():
                out.append((seat, item.type, dict(item.fields)))
            showing = self.relay.showing(seat)
            if showing and not self.ending:
                for item in masker.show_keys(showing):
                    out.append((seat, item.type, dict(item.fields)))
            if self.ending and seat not in self.relay.missing_secrets():
                continue
            if self.ending and not masker.over:
                item = masker.reveal()
                out.append((seat, item.type, dict(item.fields)))
        return out

    def host_cards(self, seat: int) -> dict[Position, Card]:
        """The cards of a seat the host plays (its own masker opened them)."""
        masker = self.maskers.get(seat)
        return {} if masker is None else masker.cards()

    def host_play_keys(self, seat: int, positions: Sequence[Position]) -> list[list[Any]]:
        """``act.open`` for a play of a seat the host plays."""
        return self.maskers[seat].play_keys(positions)

    # -- locking and rounds
    def missing_commits(self) -> list[int]:
        return self.relay.missing_commits()

    def lock(self) -> SignedMessage:
        return self.relay.lock()

    def start_deal(self) -> None:
        """Round 0 over the hand's deck (after REVEALS)."""
        self.relay.start_round(0, [parse_card(c) for c in self.dealer.context.deck])

    def round_ready(
        self, stream: int, cards: Sequence[Card], kept: Sequence[Card]
    ) -> tuple[bool, list[SignedMessage]]:
        """Whether round ``stream`` has its ``2k`` passes; opens it first (a reshuffle's
        RESHUFFLE to send) when it is not open yet and nothing of the round before is due."""
        out: list[SignedMessage] = []
        if stream not in self.relay.rounds:
            if self.relay.waiting_for():
                # boxes or keys of the round before still due: its SEALED / OPENED may not
                # come once the new round's RESHUFFLE and stages have begun (10.11)
                return False, []
            ordered = sorted(cards, key=lambda c: c.index)
            out = self.relay.start_round(stream, ordered, kept)
        return self.relay.round_ready(stream), out

    # -- positions
    def held(self, where: Position) -> int | None:
        """The seat a position was dealt to (None: the table, or not drawn)."""
        return self.relay.holders.get(where)

    def drawn(self, where: Position) -> bool:
        return where in self.relay.holders

    def draw(self, stream: int, pos: int, to: int | None) -> list[SignedMessage]:
        """The DRAW of a position the engine named (none for one drawn already, or after
        MASK_END); positions skipped before it go to the table first, in order."""
        if self.ended or (stream, pos) in self.relay.holders:
            return []
        if stream != self.relay.current_round:
            raise FairnessStateError(f"a draw from round {stream}, not the current round")
        out = []
        while (nxt := self.dealer.next_position(stream)) < pos:
            out.append(self.relay.deal(stream, nxt, None))
        out.append(self.relay.deal(stream, pos, to))
        return out

    def open_face_up(self, positions: Sequence[Position]) -> list[SignedMessage]:
        """MASK_OPEN for the positions of the table not yet asked (drawn first if need be)."""
        out: list[SignedMessage] = []
        by_stream: dict[int, list[int]] = {}
        for stream, pos in positions:
            out += self.draw(stream, pos, None)
            if (stream, pos) not in self.relay.opened and not self.asked((stream, pos)):
                by_stream.setdefault(stream, []).append(pos)
        for stream, poss in sorted(by_stream.items()):
            out.append(self.relay.open_face_up(stream, sorted(poss)))
        return out

    def asked(self, where: Position) -> bool:
        return self.relay.asked(where)

    def show(self, seat: int, positions: Sequence[Position]) -> bool:
        """Ask ``seat`` to put ``positions`` it holds face up (One Card's bankrupt hand), once
        every one of them has its SEALED. True when asked just now (the caller then sends the
        ``show_hand`` event; a seat the host plays answers in :meth:`host_requests`); False
        while a SEALED is still due, or when they were asked already."""
        if any(w in self._shown for w in positions):
            return False
        if not all(w in self.relay.sealed for w in positions):
            return False
        self.relay.ask_show(seat, positions)
        self._shown.update(positions)
        return True

    def opened(self, positions: Sequence[Position]) -> dict[Position, Card] | None:
        """The cards of ``positions`` once every one is open (OPENED, or after MASK_END)."""
        out: dict[Position, Card] = {}
        for where in positions:
            got = self.relay.opened.get(where)
            if got is not None:
                out[where] = parse_card(got.card)
            elif self.ended:
                out[where] = parse_card(self.stocks[where[0]][where[1]])
            else:
                return None
        return out

    def check_play(self, seat: int, opens: Sequence[Any], cards: Sequence[Card]) -> PlayOpening:
        """The keys of a play (``act.open``) checked against the cards it puts down."""
        rows = [(int(s), int(p), tuple(bytes(k) for k in keys)) for s, p, keys in opens]
        return self.relay.check_play(seat, rows, cards)

    def commit_play(self, play: PlayOpening) -> list[SignedMessage]:
        return self.relay.commit_play(play)

    # -- the end
    def waiting_for(self) -> list[int]:
        """The seats the hand waits for now (a timeout voids it naming them)."""
        return self.relay.waiting_for(ending=self.ending)

    def end(self) -> list[SignedMessage]:
        """MASK_END once every ``m_s`` is in, then the audit: :attr:`stocks`, or the audit's
        error naming the seat at fault in :attr:`failure` (the hand is then void)."""
        if self.ended:
            return []
        msg = self.relay.end()
        self.ended = True
        try:
            self.stocks = self.relay.audit()
        except FairnessError as exc:
            self.failure = exc
        return [msg]


def first_move(
    view: Mapping[str, Any], cards: Mapping[Position, Card]
) -> tuple[dict[str, Any], list[Position]] | None:
    """The default move of a seat on a private table (``spec/PROTOCOL.md`` 10.13), given its
    view and the cards it holds by position: the first action of the first set of
    ``legal_sets`` its hand meets whose cards it holds (with the positions it plays from),
    else the first of ``unless_met``, else of ``legal``; None when it may do nothing."""
    for entry in view.get("legal_sets") or ():
        only = {(int(s), int(p)) for s, p in entry.get("positions") or ()}
        pool = {p: c.code for p, c in cards.items() if not only or p in only}
        for action in entry.get("actions") or ():
            codes = action.get("cards", [action["card"]] if "card" in action else [])
            taken: list[Position] = []
            for code in codes:
                where = next(
                    (p for p, c in sorted(pool.items()) if c == code and p not in taken), None
                )
                if where is None:
                    break
                taken.append(where)
            else:
                if taken:
                    return dict(action), taken
    for key in ("unless_met", "legal"):
        listed = view.get(key) or ()
        if listed:
            return dict(listed[0]), []
    return None
