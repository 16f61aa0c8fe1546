"""Our seat (or spectator place) at one table, as the terminal client keeps it.

How it works: a :class:`TableClient` is the one seat client, :class:`net.seat.SeatClient`
(requests, pushes tracked, resume, act numbering, the fair-dealing duties and deal checks), plus
what a person at the terminal needs: proof bundles saved under the state directory
(:func:`client.record_fetch.proof_keeper`), the host's game wording learnt on joining, watching or
resuming (:mod:`client.catalogue`), the player requests bots never make (``explain``,
``add_bot``, ``chat``), seat names for display and chat lines told apart from repeats. The
table loop hands it every push (:meth:`~net.seat.SeatClient.handle`); after a drop it gives it a
fresh session and calls :meth:`~net.seat.SeatClient.resume` (or ``rewatch`` for a spectator).
"""

from __future__ import annotations

from pathlib import Path

import trio

import protocol.table_messages as tm
from client.catalogue import CATALOGUE
from client.record_fetch import proof_keeper
from net.keystore import FileKeyStore
from net.seat import SeatClient
from net.session import ClientSession, RequestError, expect_reply
from protocol.cards import parse_card

__all__ = ["TableClient"]


class TableClient(SeatClient):
    """Our seat (or spectator place) at one table, over a replaceable session."""

    def __init__(
        self,
        session: ClientSession,
        *,
        table_id: str,
        name: str | None = None,
        proofs_dir: Path | None = None,
        host_pk: bytes | None = None,
        keys_dir: Path | None = None,
    ) -> None:
        keep = None if proofs_dir is None else proof_keeper(proofs_dir)
        # a private hand's keys go to <state dir>/private-keys (0600), so a restart resumes
        keys = None if keys_dir is None else FileKeyStore(keys_dir)
        if keys is not None:
            keys.prune()  # hands that never ended: nothing left to resume
        super().__init__(
            session, table_id=table_id, name=name, keep=keep, host_pk=host_pk, keys=keys
        )
        self.chat_n = 0  #: the number of the last chat line shown (``chat_line.n``)

    # ------------------------------------------------------------------ requests

    async def join(
        self, name: str | None = None, seat: int | None = None, *, bot: str | None = None
    ) -> int:
        taken = await super().join(name, seat, bot=bot)
        await self._learn_games()
        return taken

    async def watch(self, name: str = "") -> None:
        await super().watch(name)
        await self._learn_games()

    async def resume(self, token: str) -> None:
        await super().resume(token)
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

    # ------------------------------------------------------------------ display

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
