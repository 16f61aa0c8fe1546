"""Our seat (or spectator place) at one table: requests, pushes tracked, resume, fair dealing.

How it works: a :class:`SeatClient` wraps a :class:`net.session.ClientSession` for one table;
it is the one seat client, which the terminal client (:class:`client.table_client.TableClient`
adds what a person needs) and the host's bots (:class:`host.bots.bots.BotPlayer` adds a policy) both
are. Whoever reads the session hands it every push (:meth:`SeatClient.handle`); it keeps the
table seq (``last_seq``, for ``resume``), the seat names, the latest ``state`` and the outcome,
numbers our actions (``act_seq``: 1, 2, ... within a game, PROTOCOL.md 4.2), and passes every
``fair`` push and every game event and hand shown to a :class:`net.fairplay.DealChecker`, which
answers the seat's fair-dealing duties (commit, reveal) and checks each deal. After a drop the
owner gives it a fresh ``session`` and calls :meth:`SeatClient.resume` (or
:meth:`SeatClient.rewatch` for a spectator); pushes up to the table seq the host resumed at are
the backlog (``backlog_until``).

On a private table (PROTOCOL.md 10.13, 10.14) the host's ``state`` has no hand: the seat's view
lists its positions and the plays as ordered sets. The seat client keeps that view
(``private_state``) and gives its owner the ``state`` it would have on a normal table: the view's
``hand`` filled from the cards its masker opened, in position order, and ``legal`` the actions
:func:`protocol.private_views.allowed` finds (``plays``, with the positions each uses); it is
rebuilt whenever a card opens. :meth:`SeatClient.act` adds the keys of the positions a play uses
(``act.open``), the ``show_hand`` event naming our seat sends the keys of the hand the rules turn
face up (checked first: :meth:`net.fairplay.DealChecker.show_hand`), and the ``hand_over`` event,
the host's word that the hand is over, sends the seat's ``mask_reveal``. The masking duties are the
checker's (:mod:`net.private_seat`), kept in ``keys`` (the terminal client's is a 0600 file store
in the player's state directory). The requests they make due go out once no push waits unread in
the session (:meth:`SeatClient.handle`), so one ``sealed_keys`` carries the boxes of a whole deal.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import protocol.table_messages as tm
from net.fairplay import DealChecker, FairNotice, KeepProof
from net.keystore import KeyStore
from net.session import ClientSession, expect_reply
from protocol.framing import checked_trees
from protocol.messages import Message
from protocol.private_views import (
    Allowed,
    allowed,
    default_move,
    hand_of,
    is_private_view,
    unopened,
)

#: the event by which the host says a private hand is over: every seat reveals its secret
REVEAL_EVENT = "hand_over"
#: the event by which the host asks a seat to put the hand it holds face up (a bankrupt hand)
SHOW_EVENT = "show_hand"

__all__ = ["SeatClient"]


class SeatClient:
    """Our seat (or spectator place) at one table, over a replaceable session."""

    def __init__(
        self,
        session: ClientSession,
        *,
        table_id: str,
        name: str | None = None,
        keep: KeepProof | None = None,
        host_pk: bytes | None = None,
        keys: KeyStore | None = None,
    ) -> None:
        self.session = session
        self.table_id = table_id
        self.seat: int | None = None
        self.token: str | None = None
        self.last_seq = 0
        self.act_seq = 0
        #: the table seq the host resumed us at: pushes up to it are a backlog of what we missed
        self.backlog_until = 0
        self.game_no = 0
        self.game = ""
        self.names: list[str] = []
        self.info: tm.TableInfo | None = None
        self.state: tm.StatePush | None = None
        self.watch_name = ""  #: the chat name we watch under (sent again by :meth:`rewatch`)
        self.outcome: dict[str, Any] | None = None
        #: watching as a spectator (a dropped connection is followed by ``rewatch``)
        self.watching = False
        self.checker = DealChecker(
            table_id=table_id, pid=name, keep=keep, host_pk=host_pk, keys=keys
        )
        #: the host's last ``state`` of a private table, as sent (``hand`` null)
        self.private_state: tm.StatePush | None = None
        #: on a private table, what our hand may do now, with the positions of each play
        self.plays: list[Allowed] = []
        #: what :attr:`state` was last filled from (the private state, the cards opened): a
        #: ``fair`` push that opens or plays none of our cards leaves it as it is
        self._filled_from: tuple[tm.StatePush, dict[tuple[int, int], str]] | None = None
        #: the session and push number (``pushes.taken_total``) of the last ``state``, and the
        #: session and number of pushes sent before the ``ack`` of our last action applied
        #: (:attr:`state_overtaken`)
        self._state_at: tuple[object, int] = (None, 0)
        self._acted_at: tuple[object, int] = (None, 0)

    @property
    def name(self) -> str | None:
        """Our player name (None: a spectator); the fair-dealing round knows us by it."""
        return self.checker.pid

    @name.setter
    def name(self, name: str | None) -> None:
        self.checker.pid = name

    # ------------------------------------------------------------------ requests

    async def join(
        self, name: str | None = None, seat: int | None = None, *, bot: str | None = None
    ) -> int:
        """Take a seat (``seat``, or the first free one) as ``name`` (default: ``self.name``);
        return it. ``bot`` labels it a bot seat (``kind`` on the wire: always ready)."""
        if name is not None:
            self.name = name
        assert self.name is not None
        msg = tm.Join(table=self.table_id, name=self.name, seat=seat, bot=bot)
        reply = expect_reply(await self.session.request(msg), tm.Joined)
        self.seat, self.token = reply.seat, reply.token
        return reply.seat

    async def watch(self, name: str = "") -> None:
        """Watch the table as a spectator whose chat lines carry ``name`` (empty: the host
        says "spectator")."""
        await self.session.request(tm.Watch(table=self.table_id, name=name))
        self.watching, self.watch_name = True, name

    async def rewatch(self) -> None:
        """Watch again (under the same name) on a fresh session after a drop.

        A spectator gets no backlog (PROTOCOL.md section 5), so the hand in progress has gaps
        for this client: its live check stops without a verdict (the host's full record of it is
        still fetched and verified at its end) and the next hand is checked as usual.
        """
        self.checker.lose_track()
        await self.watch(self.watch_name)

    async def resume(self, token: str) -> None:
        """Take the seat back on a fresh session; the host replays what we missed."""
        reply = expect_reply(
            await self.session.request(tm.Resume(token=token, last_seq=self.last_seq)), tm.Resumed
        )
        self.seat, self.token, self.name = reply.seat, token, reply.name
        if self.checker.fresh:  # a new process: hands in the backlog are audited, not joined
            self.checker.replay_until = reply.seq
        self.act_seq = reply.act_seq
        self.backlog_until = reply.seq

    async def ready(self, ready: bool = True) -> None:
        await self.session.request(tm.Ready(table=self.table_id, ready=ready))

    async def act(self, action: dict[str, Any]) -> Message:
        """Send one action (a map from ``state.legal``, on a private table with a ``say`` added
        if need be) under the next ``act_seq``; return the host's reply (``ack``; ``duplicate``
        if that seq was applied before).

        Raises:
            RequestError: the host refused it.
            LocalProtocolError: ``action`` cannot be sent (not a valid ``act`` field); no
                ``seq`` is used up then.
        """
        opens: tuple[tuple[int, int, tuple[bytes, ...]], ...] = ()
        if self.private_state is not None:
            # a play as listed, or with a ``say`` added (PROTOCOL.md 10.13: a private table
            # lists Black Jack's plays without one, and takes one sent)
            listed = {k: v for k, v in action.items() if k != "say"}
            used = next((a.positions for a in self.plays if a.action in (action, listed)), ())
            opens = self.checker.play_keys(used)
        msg = tm.Act(table=self.table_id, seq=self.act_seq + 1, action=action, open=opens)
        self.act_seq += 1
        ordered = getattr(self.session, "request_ordered", None)  # (not on test doubles)
        if ordered is None:
            return await self.session.request(msg)
        got: tuple[Message, int] = await ordered(msg)
        reply, before = got
        if isinstance(reply, tm.Ack) and not reply.duplicate:
            self._acted_at = (self.session, before)
        return reply

    @property
    def state_overtaken(self) -> bool:
        """Whether :attr:`state` came before the host's ``ack`` of our last action: it was
        sent before that action applied (the ``ack`` precedes the move's messages), so it
        does not show it yet and is no ground for another one. On a private table the seats'
        masking requests bring such states while an action is on its way, and a bot acting at
        once played on them (a second move refused, or a late call). :meth:`forget_overtaken`
        takes it as current after all."""
        session, number = self._state_at
        acted, before = self._acted_at
        return session is self.session and acted is self.session and number <= before

    def forget_overtaken(self) -> None:
        """Take :attr:`state` as current although it came before our last ``ack`` (nothing
        newer came: the action changed nothing this seat sees)."""
        self._acted_at = (None, 0)

    # ------------------------------------------------------------------ pushes

    def default_move(self) -> Allowed | None:
        """On a private table, the turn timer's move, which is ours to make (10.13): the first
        play our hand holds of the first set it meets, else draw / pass; None elsewhere."""
        s = self.private_state
        if s is None or s.seat is None or s.seat not in s.to_act:
            return None
        opened = self.checker.opened()
        return None if unopened(s.view, opened) else default_move(s.view, opened)

    def private_event(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """A private table's event as a normal table would word it: one that names our
        positions but no cards (``dealt``, ``drawn``, ONE's ``hand``: 10.13) gets the cards we
        opened there; None while some are still masked (the ``state`` shows them once open).
        Any other event is returned as it is."""
        where = event.get("positions")
        if self.private_state is None or "cards" in event or not isinstance(where, list):
            return event
        if event.get("to") is None:
            return event
        opened = self.checker.opened()
        try:
            cards = [opened[int(s), int(p)] for s, p in where]
        except (KeyError, TypeError, ValueError):
            return None
        return {**event, "cards": cards}

    def _fill_private(self) -> None:
        """Rebuild ``state`` from the private view and the cards opened so far."""
        raw = self.private_state
        if raw is None:
            return
        opened = self.checker.opened()
        last = self.state
        if self._filled_from is not None and last is not None:
            last_raw, last_opened = self._filled_from
            if last_raw is raw and last_opened == opened:
                return  # nothing of ours opened or went since: the same state
            if last_opened == opened and last_raw.view == raw.view:
                # a new state with the same view (another seat's card opened): the same hand
                # and plays, under the new state's seq, turn and timer
                self._filled_from = (raw, opened)
                with checked_trees():
                    self.state = dataclasses.replace(raw, view=last.view, legal=last.legal)
                return
        self._filled_from = (raw, opened)
        # until every card of ours is open (its SEALED came) we cannot tell what we may play:
        # nothing is offered then, and the state is filled again when the cards open
        self.plays = [] if unopened(raw.view, opened) else allowed(raw.view, opened)
        view = {**raw.view, "hand": hand_of(raw.view, opened)}
        legal = tuple(a.action for a in self.plays)
        # the view and the actions are the host's checked ``state`` and the card codes our
        # masker opened: their trees are not checked again (a view is most of a state's cost)
        with checked_trees():
            self.state = dataclasses.replace(raw, view=view, legal=legal)

    @property
    def my_turn(self) -> bool:
        s = self.state
        return s is not None and s.seat is not None and s.seat in s.to_act and bool(s.legal)

    def in_backlog(self, push: Message) -> bool:
        """Whether ``push`` is one the host replayed on resume (not live)."""
        seq = getattr(push, "seq", None)
        return isinstance(seq, int) and seq <= self.backlog_until

    async def handle(self, push: Message) -> list[FairNotice]:
        """Track one push; answer fair-dealing duties; return fairness notices.

        Raises:
            Disconnected: a fair-dealing answer could not be sent (the connection ended).
        """
        seq = getattr(push, "seq", None)
        journaled = tm.GameStart | tm.EventPush | tm.FairPush | tm.GameOver
        if isinstance(push, journaled) and isinstance(seq, int):
            self.last_seq = max(self.last_seq, seq)
        if isinstance(push, tm.TableInfo):
            self.info = push
            self.game = push.game
            self.checker.table_options(push.game, push.options, push.private)
            if not self.names or push.phase in ("waiting", "finished"):
                self.names = [s["name"] if s else "" for s in push.seats]
        elif isinstance(push, tm.GameStart):
            self.game_no, self.game, self.names = push.game_no, push.game, list(push.names)
            self.outcome = None
            if not self.in_backlog(push):
                self.act_seq = 0  # action seqs restart with each game (a resume says where)
        elif isinstance(push, tm.GameOver):
            self.outcome = dict(push.outcome)
        # while more pushes wait to be read, the masking requests they make due wait too:
        # the boxes of a deal's many ``draw``s then go in one request
        queue = getattr(self.session, "pushes", None)  # (None: a session-less test double)
        more = queue is not None and queue.count > 0
        notices: list[FairNotice] = []
        if isinstance(push, tm.EventPush):
            notices = await self._on_event(push)
        elif isinstance(push, tm.StatePush):
            notices = self._on_state(push)
        elif isinstance(push, tm.FairPush):
            out, notices = self.checker.receive(push, more=more)
            for msg in out:
                await self.session.send(msg)
            if self.private_state is not None:
                self._fill_private()  # a card may have opened (SEALED) or gone (OPENED)
        if not more:
            for msg in self.checker.flush():
                await self.session.send(msg)
        return notices

    async def _on_event(self, push: tm.EventPush) -> list[FairNotice]:
        kind = push.event.get("kind")
        if kind == "stood_up":
            if self.seat is not None and push.event.get("seat") == self.seat:
                # the host took our seat (PROTOCOL.md 4.5): its token is dead and this
                # connection only watches now, so a later drop is followed by watching again
                self.token, self.seat, self.watching = None, None, True
            return []
        if kind == SHOW_EVENT:  # the host asks a seat to put its hand face up (10.14)
            out, notices = self.checker.show_hand(push.event)
            for msg in out:
                await self.session.send(msg)
            return notices
        if kind == REVEAL_EVENT:  # the host says the private hand is over (10.14)
            hand_no = push.event.get("hand_no")
            for msg in self.checker.hand_over(hand_no if isinstance(hand_no, int) else None):
                await self.session.send(msg)
            return []
        return self.checker.shown(push.event)

    def _on_state(self, push: tm.StatePush) -> list[FairNotice]:
        self.game_no = push.game_no
        queue = getattr(self.session, "pushes", None)  # (None: a session-less test double)
        self._state_at = (self.session, queue.taken_total if queue is not None else 0)
        if is_private_view(push.view):
            self.private_state = push
            self._fill_private()
            return []
        self.state, self.private_state, self.plays = push, None, []
        hand = push.view.get("hand")
        if push.seat is not None and isinstance(hand, list):
            return self.checker.check_hand([str(c) for c in hand])
        return []
