"""A test seat of a private table (``spec/PROTOCOL.md`` 10.11/10.13) over a real session.

How it works: :class:`PrivateSeat` joins a table through a :class:`~net.session.ClientSession` and
reads its pushes: every ``fair`` push goes to its :class:`~protocol.verifier.HandVerifier`
(``private=True``) and then to its :class:`~protocol.mask_seat.SeatMasker`, which does the seat's
masking duties; what the masker has to say is sent as it comes (``mask_commit`` with the
``fair_commit``, ``fair_reveal`` once MASK_LOCK passed, passes, sealed boxes, keys, and
``mask_reveal`` at the host's ``hand_over`` event, ``show_hand`` at a ``show_hand`` event naming
it). On its turn, once every card it holds is open and the pushes are read (see ``_act``), it
plays :func:`host.table.masked.first_move` (the first action of the first set
of ``legal_sets`` its opened cards meet, else ``unless_met`` / ``legal``) with ``act.open`` from
the masker. A ``tamper`` hook may change or drop a request before it goes out, a ``choose``
hook pick the move (a cheating seat), and :attr:`PrivateSeat.errors` keeps every error the host
answered. It is the smallest seat that
plays a private table, for the host's tests until the real client (``net.fairplay``) does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

import protocol.mask_messages as mm
import protocol.table_messages as tm
from host.table.masked import first_move
from net.session import ClientSession, RequestError
from protocol.cards import Card
from protocol.fairness import HandReport, HandVerifier, SignedMessage
from protocol.mask_seat import Outgoing, SeatMasker
from protocol.messages import Message
from protocol.private_views import unopened

#: seconds a state showing the view the seat last acted on must stand, with nothing pushed,
#: before the seat acts on it (see ``PrivateSeat._act``)
STALE_WAIT = 1.0
#: a hook that may change (or drop, returning None) a request before it is sent
Tamper = Callable[[Outgoing], Outgoing | None]
#: a move: the action and the positions it plays from
Move = tuple[dict[str, Any], list[tuple[int, int]]]
#: a hook that picks the seat's move from its view and opened cards (None: no move)
Choose = Callable[[dict[str, Any], dict[tuple[int, int], Card]], Move | None]

_REQUESTS: dict[str, type[Message]] = {
    "mask_commit": mm.MaskCommit,
    "mask_pass": mm.MaskPass,
    "sealed_keys": mm.SealedKeys,
    "open_keys": mm.OpenKeys,
    "show_hand": mm.ShowHand,
    "mask_reveal": mm.MaskReveal,
}


def longest_move(view: dict[str, Any], cards: dict[tuple[int, int], Card]) -> Move | None:
    """:func:`first_move`, but of the first set met the play of the most cards it holds (so
    that a test game sheds its hands sooner; any play of that set is legal)."""
    best = first_move(view, cards)
    if best is None or not best[1]:
        return best
    for entry in view.get("legal_sets") or ():
        # the set met is the first one whose single-set view gives a play
        one = {"legal_sets": [entry]}
        if first_move(one, cards) is None:
            continue
        for action in entry.get("actions") or ():
            got = first_move({"legal_sets": [{**entry, "actions": [action]}]}, cards)
            if got is not None and got[1] and len(got[1]) > len(best[1]):
                best = got
        break
    return best


@dataclass
class PrivateSeat:
    """One seat of a private table, played by the rules of 10.13 (see the module docstring)."""

    session: ClientSession
    table: str
    name: str
    tamper: Tamper | None = None
    #: picks the move on the seat's turn (a cheating seat's): :func:`longest_move` if None
    choose: Choose | None = None
    seat: int = -1
    verifier: HandVerifier | None = None
    masker: SeatMasker | None = None
    reports: list[HandReport] = field(default_factory=list)
    errors: list[RequestError] = field(default_factory=list)
    #: errors answering an ``act``: a play on a state that moved on meanwhile is refused
    act_errors: list[RequestError] = field(default_factory=list)
    #: every card this seat was dealt face down, by (hand_no, stream, pos), as it opened them
    held: dict[tuple[int, int, int], Card] = field(default_factory=dict)
    act_seq: int = 0
    acted_on: int = -1  #: the table seq of the state last acted on
    acted_view: Any = None  #: the view of that state, once the host took the play
    #: the last state pushed to this seat (acted on once the pushes are read, see ``_act``)
    last_state: tm.StatePush | None = None
    #: the size of each hand this seat was asked to show (``show_hand``: it went bankrupt)
    shown: list[int] = field(default_factory=list)
    over: bool = False
    outcome: dict[str, Any] | None = None
    #: every event pushed to the seat (public and its own), in order
    events: list[dict[str, Any]] = field(default_factory=list)
    #: the seats the host played (``host_seats`` of ``hand_commit``), by hand number
    host_seats: dict[int, tuple[int, ...]] = field(default_factory=dict)

    async def join(self) -> None:
        joined = await self.session.request(tm.Join(table=self.table, name=self.name))
        assert isinstance(joined, tm.Joined)
        self.seat = joined.seat
        await self.session.request(tm.Ready(table=self.table))

    async def _send(self, msg: Message) -> Message | None:
        try:
            return await self.session.request(msg)
        except RequestError as exc:
            (self.act_errors if isinstance(msg, tm.Act) else self.errors).append(exc)
            return None

    async def _say(self, item: Outgoing) -> None:
        sent = item if self.tamper is None else self.tamper(item)
        if sent is None:
            return
        cls = _REQUESTS[sent.type]
        await self._send(cls.from_wire({"table": self.table, **sent.fields}))

    async def _drain(self) -> None:
        if self.masker is None:
            return
        for item in self.masker.drain():
            await self._say(item)
        hand = self.masker.context.hand_no
        for (stream, pos), card in self.masker.cards().items():
            self.held[hand, stream, pos] = card

    async def _fair(self, push: tm.FairPush) -> None:
        msg = SignedMessage.from_wire(push.msg)
        if msg.type == "hand_commit":
            self.host_seats[push.hand_no] = tuple(push.host_seats)
            self.verifier = HandVerifier(msg.decode()["host_pk"], pid=self.name, private=True)
            self.masker = None
        verifier = self.verifier
        if verifier is None:
            return
        got = verifier.receive(msg)
        if isinstance(got, HandReport):
            self.reports.append(got)
        if msg.type == "hand_commit" and self.seat not in push.host_seats:
            assert verifier.context is not None
            self.masker = SeatMasker(verifier.context, self.seat)
            c = verifier.player_commit()["c"]
            await self._send(tm.FairCommit(table=self.table, hand_no=push.hand_no, c=c))
            await self._say(self.masker.commit())
            return
        if self.masker is None:
            return
        self.masker.receive(msg)
        if msg.type == "mask_lock":
            r = verifier.reveal()["r"]
            await self._send(tm.FairReveal(table=self.table, hand_no=push.hand_no, r=r))
        await self._drain()

    async def _act(self, push: tm.StatePush, *, settled: bool = False) -> None:
        # acts on the newest state it is to act in once no push waits unread (a newer state
        # may be among them; waiting for one that never comes stalled a game), once every card
        # it holds is open (its ``sealed`` came: until then what it may play is not known, as
        # for the real seat client), and not again on the view it acted on until that view
        # has stood for STALE_WAIT (``settled``): a play the host took almost always changes
        # the seat's view, so such a state was most likely sent before the play took effect
        # (acting on it played a stale choice, which the host judged on the newer state: a
        # blunder in Black Jack, and games ran to the turn limit); but a draw from an empty
        # stock changes nothing, and every seat drawing nothing gives the same view again
        if (
            self.masker is None
            or self.seat not in push.to_act
            or push.seq <= self.acted_on
            or (push.view == self.acted_view and not settled)
            or self.session.pushes.count
        ):
            return
        cards = self.masker.cards()
        if unopened(push.view, {p: c.code for p, c in cards.items()}):
            return  # acted on when the card opens (:meth:`play`)
        self.acted_on = push.seq
        choose = longest_move if self.choose is None else self.choose
        move = choose(dict(push.view), cards)
        if move is None:
            return
        action, positions = move
        if push.view.get("game") == "black-jack" and action["type"] in ("play", "draw"):
            # a needless "last card" costs nothing, a missing one two cards (spec/RULES.md):
            # said on every move, so that a hand can go out and a game end (the host cannot
            # tell the seat when it could, so its plays carry no say: 10.13)
            action = {**action, "say": "last_card"}
        opens = tuple((s, p, tuple(keys)) for s, p, keys in self.masker.play_keys(positions))
        self.putting_down(action)
        self.act_seq += 1
        act = tm.Act(table=self.table, seq=self.act_seq, action=action, open=opens)
        if await self._send(act) is None:
            self.act_seq -= 1  # refused (a state overtaken): the seq is still free
        else:
            self.acted_view = push.view

    async def _show(self, event: dict[str, Any]) -> None:
        """The host asks a seat to put its hand face up (a bankrupt hand): ours, every key."""
        assert self.masker is not None
        if event.get("seat") != self.seat or event.get("hand_no") != self.masker.context.hand_no:
            return
        self.shown.append(len(event["positions"]))
        for item in self.masker.show_keys([tuple(p) for p in event["positions"]]):
            await self._say(item)

    def putting_down(self, action: dict[str, Any]) -> None:
        """Called with each action before it is sent (a hook for the scan's harness)."""

    async def play(self, until: Callable[[PrivateSeat], bool] | None = None) -> None:
        """Read pushes until the game is over (or ``until`` says stop, after a push)."""
        while True:
            with trio.move_on_after(STALE_WAIT) as waited:
                try:
                    push = await self.session.pushes.receive()
                except trio.EndOfChannel:
                    return
            if waited.cancelled_caught:  # nothing came: the state we hold is the current one
                if self.last_state is not None and self.last_state.phase == "playing":
                    await self._act(self.last_state, settled=True)
                continue
            if until is not None and until(self):
                return
            if isinstance(push, tm.FairPush):
                await self._fair(push)
            elif isinstance(push, tm.EventPush):
                self.events.append(dict(push.event))
                kind = push.event.get("kind")
                if kind == "hand_over" and self.masker is not None and not self.masker.over:
                    await self._say(self.masker.reveal())
                elif kind == "show_hand" and self.masker is not None and not self.masker.over:
                    await self._show(push.event)
            elif isinstance(push, tm.StatePush) and push.seat == self.seat:
                self.last_state = push
            elif isinstance(push, tm.GameOver):
                self.outcome = dict(push.outcome)
                self.over = True
                return
            if self.last_state is not None and self.last_state.phase == "playing":
                await self._act(self.last_state)  # (again: a card of ours may have opened)
