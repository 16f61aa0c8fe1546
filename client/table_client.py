"""Our seat (or spectator place) at one table: requests, pushes tracked, resume.

How it works: a :class:`TableClient` wraps a :class:`net.session.ClientSession` for one
table. The table loop hands it every push (:meth:`TableClient.handle`); it keeps the table seq
(``last_seq``, for ``resume``), the seat names, the latest ``state`` and the outcome, and passes
every ``fair`` push to a :class:`client.fairplay.DealChecker`, which answers the seat's
fair-dealing duties and checks each deal. After a drop the table loop gives it a fresh session
and calls :meth:`TableClient.resume` (or :meth:`TableClient.rewatch` for a spectator).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

import protocol.table_messages as tm
from client.catalogue import CATALOGUE
from client.fairplay import DealChecker, FairNotice
from net.session import ClientSession, RequestError, expect_reply
from protocol.cards import parse_card
from protocol.messages import Message

__all__ = ["TableClient"]


class TableClient:
    """Our seat (or spectator place) at one table, over a replaceable session."""

    def __init__(
        self,
        session: ClientSession,
        *,
        table_id: str,
        name: str | None = None,
        proofs_dir: Path | None = None,
        host_pk: bytes | None = None,
    ) -> None:
        self.session = session
        self.table_id = table_id
        self.name = name
        self.seat: int | None = None
        self.token: str | None = None
        self.last_seq = 0
        self.act_seq = 0
        self.game_no = 0
        self.game = ""
        self.names: list[str] = []
        self.info: tm.TableInfo | None = None
        self.state: tm.StatePush | None = None
        self.chat_n = 0  #: the number of the last chat line shown (``chat_line.n``)
        self.watch_name = ""  #: the chat name we watch under (sent again by :meth:`rewatch`)
        self.outcome: dict[str, Any] | None = None
        #: watching as a spectator (a dropped connection is followed by ``rewatch``)
        self.watching = False
        self.checker = DealChecker(
            table_id=table_id, pid=name, proofs_dir=proofs_dir, host_pk=host_pk
        )

    # ------------------------------------------------------------------ requests

    async def join(self, seat: int | None = None) -> int:
        """Take a seat as ``self.name``; return it."""
        assert self.name is not None
        reply = expect_reply(
            await self.session.request(tm.Join(table=self.table_id, name=self.name, seat=seat)),
            tm.Joined,
        )
        self.seat, self.token = reply.seat, reply.token
        await self._learn_games()
        return reply.seat

    async def watch(self, name: str = "") -> None:
        """Watch the table as a spectator whose chat lines carry ``name`` (empty: the host
        says "spectator")."""
        await self.session.request(tm.Watch(table=self.table_id, name=name))
        self.watching, self.watch_name = True, name
        await self._learn_games()

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
        self.checker.pid = reply.name
        if self.checker.fresh:  # a new process: hands in the backlog are audited, not joined
            self.checker.replay_until = reply.seq
        self.act_seq = reply.act_seq
        await self._learn_games()

    async def _learn_games(self) -> None:
        """Ask the host how its games read (``list_games``: titles, help, letters, wording;
        :mod:`client.catalogue`) unless this process already knows: a command talks to one
        host. A refusal or a drop leaves the generic wording; the table loop sees a drop."""
        if CATALOGUE.learned:
            return
        try:
            reply = await self.session.request(tm.ListGames())
        except (RequestError, trio.BrokenResourceError, trio.TooSlowError):
            return
        if isinstance(reply, tm.Games):
            CATALOGUE.learn(reply.games)

    async def ready(self, ready: bool = True) -> None:
        await self.session.request(tm.Ready(table=self.table_id, ready=ready))

    async def act(self, action: dict[str, Any]) -> None:
        """Send one action (a map from ``state.legal``).

        Raises:
            RequestError: the host refused it.
            LocalProtocolError: ``action`` cannot be sent (not a valid ``act`` field); no
                ``seq`` is used up then.
        """
        msg = tm.Act(table=self.table_id, seq=self.act_seq + 1, action=action)
        self.act_seq += 1
        await self.session.request(msg)

    async def explain(self, card: str) -> tm.Explained:
        """Ask the host why our seat cannot play ``card`` now (PROTOCOL.md 4.2, ``explain``).

        Raises:
            RequestError: the host refused the question (no game running, not seated).
            RemoteProtocolError: the host answered with another message type.
        """
        msg = tm.Explain(table=self.table_id, card=parse_card(card))
        reply = await self.session.request(msg)
        return expect_reply(reply, tm.Explained)

    async def add_bot(self, level: str = "normal") -> tm.BotAdded:
        """Ask the host to seat one of its bots, playing at ``level``, in the first empty seat
        (``add_bot``, open to a seated player; PROTOCOL.md 3.2).

        Raises:
            RequestError: the host refused (no empty seat: ``full``; not allowed: ``bad_state``).
            RemoteProtocolError: the host answered with another message type.
        """
        reply = await self.session.request(tm.AddBot(table=self.table_id, kind=level))
        return expect_reply(reply, tm.BotAdded)

    async def chat(self, text: str) -> None:
        await self.session.request(tm.ChatSay(table=self.table_id, text=text), resend=False)

    # ------------------------------------------------------------------ pushes

    @property
    def my_turn(self) -> bool:
        s = self.state
        return s is not None and s.seat is not None and s.seat in s.to_act and bool(s.legal)

    def new_chat(self, line: tm.ChatLine) -> bool:
        """Whether ``line`` is one not shown yet: a resume or a second ``watch`` sends the
        kept backlog again, and a line's ``n`` tells a repeat (unnumbered lines always show)."""
        if line.n and line.n <= self.chat_n:
            return False
        self.chat_n = max(self.chat_n, line.n)
        return True

    def name_of(self, seat: object) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return f"seat {seat}"

    async def handle(self, push: Message) -> list[FairNotice]:
        """Track one push; answer fair-dealing duties; return fairness notices."""
        seq = getattr(push, "seq", None)
        journaled = tm.GameStart | tm.EventPush | tm.FairPush | tm.GameOver
        if isinstance(push, journaled) and isinstance(seq, int):
            self.last_seq = max(self.last_seq, seq)
        if isinstance(push, tm.TableInfo):
            self.info = push
            self.game = push.game
            self.checker.table_options(push.game, push.options)
            if not self.names or push.phase in ("waiting", "finished"):
                self.names = [s["name"] if s else "" for s in push.seats]
        elif isinstance(push, tm.GameStart):
            self.game_no, self.game, self.names = push.game_no, push.game, list(push.names)
            self.outcome = None
        elif isinstance(push, tm.GameOver):
            self.outcome = dict(push.outcome)
        elif isinstance(push, tm.EventPush) and push.event.get("kind") == "stood_up":
            if self.seat is not None and push.event.get("seat") == self.seat:
                # the host took our seat (PROTOCOL.md 4.5): its token is dead and this
                # connection only watches now, so a later drop is followed by watching again
                self.token, self.seat, self.watching = None, None, True
        elif isinstance(push, tm.EventPush):
            return self.checker.shown(push.event)
        elif isinstance(push, tm.StatePush):
            self.state = push
            self.game_no = push.game_no
            hand = push.view.get("hand")
            if push.seat is not None and isinstance(hand, list):
                return self.checker.check_hand([str(c) for c in hand])
        elif isinstance(push, tm.FairPush):
            out, notices = self.checker.receive(push)
            for msg in out:
                await self.session.send(msg)
            return notices
        return []
