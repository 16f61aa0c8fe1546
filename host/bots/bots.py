"""Bots: ordinary protocol clients that play from their own view, and ``onecard bot``.

How it works: a bot talks to the host through the one protocol client,
:class:`net.session.ClientSession` (handshake, heartbeat, replies matched to requests by
``id``, pushes in a bounded channel), opened with the bots' ``software`` name over any
``trio.abc.Stream``: TCP/TLS for ``onecard bot`` (:func:`net.trust.open_stream`, pinning the
first certificate seen for its reconnects), a socket pair for bots the host runs in-process.
A :class:`BotPlayer` is the one seat client, :class:`net.seat.SeatClient`, as the terminal
client is: it tracks the seat, resumes, numbers its actions and does the fair-dealing duties and
deal checks of :class:`net.fairplay.DealChecker` (commit after HAND_COMMIT, reveal only after a
verified LOCK, check every DRAW/CARD, event and hand shown and the revealed secret); a failed
check is kept in ``fair_alerts`` and logged. What it adds is a policy: on each ``state`` in
which it may act it asks its :class:`host.bots.ai.levels.Bot` (the level named by ``kind``: easy,
normal or hard) for an action and sends ``act`` once ``think`` seconds have passed since the
state came (a hard bot's search runs in a worker process, :mod:`host.bots.thinking`, within those
seconds, so it adds no wait of its own unless it thinks longer or waits for a worker; one that
waits too long plays the normal move). The bot is fed the events the seat receives, in order,
before each choice. It sees nothing but what the host sends its seat. On a private table
(PROTOCOL.md 10.13) the seat client gives the bot the view with its hand filled from the cards
its masker opened and the actions the legal sets allow it (:mod:`protocol.private_views`), so
easy and normal bots play unchanged; the hard bot plays the normal move there (its search
builds worlds from events that carry cards, which a private table's do not).

:func:`run_bots` is the plain async function behind ``onecard bot``: connect ``count`` bots,
join (or create) a table, play until the game is over, resume after a dropped connection (the
same seat client on a fresh session, so a hand in progress is still checked). It
looks the table up first: a finished table with no player left to start a rematch is refused
(:class:`TableFinished`) instead of seating bots that would wait for ever; at a finished table
where players sit, the bots say they wait for a rematch. Each bot's result is a
:class:`BotOutcome` whose :meth:`~BotOutcome.line` reads ``seat 1 (bot1-ab12) went out``.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import trio

import protocol.table_messages as tm
from host.bots import policy
from host.bots.ai.levels import Bot, HardBot, make_bot
from host.bots.thinking import Thinkers, current_thinkers
from host.games.base import describe_outcome
from host.logs import get_logger
from net.fairplay import FairKind
from net.retry import RECONNECT
from net.seat import SeatClient
from net.session import ClientSession, Disconnected, RequestError, first_leaf, open_session
from net.trust import HostKeyChanged, TrustError, open_stream
from protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from protocol.messages import Message
from protocol.version import software

__all__ = ["BOT_SOFTWARE", "BotOutcome", "BotPlayer", "BotRefused", "TableFinished", "run_bots"]

log = get_logger(__name__)  # what a peer sent is shown escaped (host.logs)

#: the ``software`` a bot sends in ``hello``
BOT_SOFTWARE = software("bot")
#: seconds a bot waits for a newer state when the one it holds came before its last action
#: applied (:attr:`net.seat.SeatClient.state_overtaken`); after that it takes it as current
OVERTAKEN_WAIT = 1.0


class BotRefused(RequestError):
    """A refusal as ``onecard bot`` reports it: code first (``not_found: no such table``)."""

    def __str__(self) -> str:
        return f"{self.code.value}: {self.error.message}"


class TableFinished(Exception):
    """``onecard bot --table`` at a finished table where nobody could start a rematch."""


@dataclass(frozen=True, slots=True)
class BotOutcome:
    """How a bot's game ended, with the names of the seats as the bot last saw them."""

    outcome: dict[str, Any]
    names: dict[int, str] = field(default_factory=dict)

    def line(self) -> str:
        return describe_outcome(self.outcome, self.names)


class BotPlayer(SeatClient):
    """Plays one seat from the pushes of a :class:`ClientSession`: the seat client's duties
    (:class:`net.seat.SeatClient`) plus a policy that picks each action."""

    def __init__(
        self,
        session: ClientSession,
        *,
        table_id: str,
        kind: str = "normal",
        think: float = 0.0,
        rng: random.Random | None = None,
        stay: bool = False,
        acts: bool = True,
        bot: Bot | None = None,
        thinkers: Thinkers | None = None,
    ) -> None:
        super().__init__(session, table_id=table_id)
        #: where a hard bot's searches run (``None``: this trio run's own pool)
        self.thinkers = thinkers
        #: False: only answer the fair-dealing round, never act (tests of timers)
        self.acts = acts
        self.kind = kind
        self.think = think
        self.rng = rng or random.Random()
        #: the player at the level ``kind`` names (``ValueError`` for a kind that names none)
        self.bot: Bot = bot or make_bot(kind, rng=self.rng)
        #: events received since the bot last chose (``None`` marks a new game)
        self._unseen: list[dict[str, Any] | None] = []
        self.stay = stay
        #: what each failed deal check said, one per hand
        self.fair_alerts: list[str] = []
        #: hands whose deal checked out (verified, or voided with the host's secret opened)
        self.reports = 0
        self._alerted: set[int] = set()
        self._changed = trio.Event()
        self._last_action: dict[str, Any] | None = None
        self._acted_on = -1
        self._fallback = False
        self._refusals = 0

    async def join(
        self,
        name: str | None = None,
        seat: int | None = None,
        *,
        bot: str | None = None,
        as_bot: bool = True,
    ) -> int:
        """Take a seat; ``as_bot`` labels it a bot seat of our ``kind`` (always ready, shown as
        a bot) unless ``bot`` gives the label."""
        label = bot or (self.kind if as_bot else None)
        return await super().join(name, seat, bot=label)

    @property
    def seat_names(self) -> dict[int, str]:
        """Seat -> player name, as the bot last saw them."""
        return {seat: name for seat, name in enumerate(self.names) if name}

    async def play(self) -> None:
        """Run until the game is over (or forever with ``stay``) or the connection ends; a
        connection that ends, at whatever moment, ends it without an error."""
        self._changed = trio.Event()  # (a state seen on an earlier session is stale)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._actor)
            async for push in self.session.pushes:
                await self._on_push(push)
                if self.outcome is not None and not self.stay:
                    break
            nursery.cancel_scope.cancel()

    async def _on_push(self, push: Message) -> None:
        try:
            notices = await self.handle(push)
        except Disconnected:
            # a fair-dealing answer could not be sent (a host killed as the round opened): the
            # pushes it sent before are still read, then play ends as whenever the connection ends
            notices = []
        for notice in notices:
            if notice.kind in (FairKind.VERIFIED, FairKind.VOID):
                self.reports += 1
            elif notice.kind is FairKind.FAILED and notice.hand_no not in self._alerted:
                self._alerted.add(notice.hand_no)
                self.fair_alerts.append(notice.message)
                log.warning("bot %s: %s", self.name, notice.message)
        if isinstance(push, tm.StatePush) and push.seat == self.seat:
            self._changed.set()
        elif isinstance(push, tm.FairPush) and self.private_state is not None:
            self._changed.set()  # a card of ours may have opened: the state was filled again
        elif isinstance(push, tm.EventPush):
            self._unseen.append(dict(push.event))
        elif isinstance(push, tm.GameStart) and not self.in_backlog(push):
            self._unseen.append(None)

    async def _actor(self) -> None:
        while True:
            await self._changed.wait()
            self._changed = trio.Event()
            state = self.state
            if not self.acts or state is None or not state.legal or state.seq == self._acted_on:
                continue
            legal = [dict(a) for a in state.legal]
            my_turn = state.seat in state.to_act
            if (
                not my_turn
                and policy.call_to_make(state.view, legal, last=self._last_action) is None
            ):
                continue  # out of turn a bot only makes a call, by the rule every level follows
            if await self._overtaken(state):
                continue
            started = trio.current_time()
            choice = await self._choose(dict(state.view), legal)
            left = self.think - (trio.current_time() - started)
            if left > 0:
                await trio.sleep(left)
            if self.state is not state:
                self._changed.set()
                continue
            if choice is None:
                continue
            self._acted_on = state.seq
            try:
                ack = await self.act(choice)
                if isinstance(ack, tm.Ack) and ack.duplicate:  # our seq was stale: next one
                    self._acted_on = -1
                    self._changed.set()
                    continue
                self._last_action = choice
                self._fallback = False
                self._refusals = 0
            except RequestError as exc:
                log.info("bot %s: %s refused: %s", self.name, choice, exc)
                self._acted_on = -1
                if exc.code is ErrorCode.CONFLICT:  # our seq was stale: the next one is free
                    self._changed.set()
                    continue
                if choice.get("type") in policy.features(state.view).calls:
                    self._last_action = choice  # a lost call race: normal, do not repeat it
                else:
                    self._refusals += 1
                    self._fallback = self._refusals > 1  # the policy erred twice: go random
                    await trio.sleep(min(1.0, 0.01 * 2 ** min(self._refusals, 7)))
                if self.state is state:
                    self._changed.set()
            except (Disconnected, trio.TooSlowError):
                return

    async def _overtaken(self, state: tm.StatePush) -> bool:
        """Whether ``state`` came before our last action applied (then, having waited up to
        OVERTAKEN_WAIT for a newer one, the caller looks again; if none came, the state is
        taken as current: the action changed nothing we see)."""
        if not self.state_overtaken:
            return False
        with trio.move_on_after(OVERTAKEN_WAIT):
            await self._changed.wait()
        if self.state is state:
            self.forget_overtaken()
        self._changed.set()
        return True

    async def _choose(
        self, view: dict[str, Any], legal: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """The bot's action for ``view`` (random after the host refused its choices twice)."""
        if self._fallback:
            return policy.choose("random", view, legal, last=self._last_action, rng=self.rng)
        for event in self._unseen:
            if event is None:
                self.bot.new_game()
            else:
                self.bot.observe(event)
        self._unseen = []
        last = self._last_action
        if isinstance(self.bot, HardBot) and self.private_state is not None:
            # a private table's events name positions, not cards: the search's worlds cannot
            # be built from them, so the hard bot plays as the normal one there
            return policy.choose("normal", view, legal, last=last, rng=self.rng)
        if not isinstance(self.bot, HardBot):
            return self.bot.choose(view, legal, last=last)
        job, answer = self.bot.prepare(view, legal, last=last)
        if job is None:
            return answer
        # seconds of search: in a worker process, when this table's turn comes
        thinkers = self.thinkers or current_thinkers()
        found = await thinkers.search(self.table_id, job)
        return self.bot.conclude(view, legal, found, last=last)


# --------------------------------------------------------------------------- onecard bot


def _check_finished(
    table_id: str, info: Mapping[str, Any], notice: Callable[[str], None] | None
) -> None:
    """At a finished table only its players can start a rematch (by getting ready again)."""
    players = [s for s in info.get("seats") or () if isinstance(s, dict) and s.get("bot") is None]
    if not players:
        raise TableFinished(
            f"table {table_id} has finished and no player sits there to start a rematch; "
            "create a new table with --create GAME"
        )
    if notice is not None:
        notice(f"table {table_id} has finished; the bots wait for its players to start a rematch")


async def _one_bot(
    address: str,
    port: int,
    *,
    insecure: bool,
    table_id: str,
    name: str,
    kind: str,
    think: float,
    fingerprint: str | None,
    joined: trio.Event,
) -> BotOutcome:
    bot: BotPlayer | None = None
    token: str | None = None
    pauses = RECONNECT.pauses()
    for attempt in range(1 + RECONNECT.tries):
        try:
            connected = await open_stream(
                address, port, insecure=insecure, expect=fingerprint, remember=False
            )
            # trust on first use, then pinned: a reconnect (which sends our resume token)
            # only goes to the host we first saw
            fingerprint = fingerprint or connected.fingerprint
            async with open_session(connected.stream, software=BOT_SOFTWARE) as client:
                if bot is None or token is None:
                    bot = BotPlayer(client, table_id=table_id, kind=kind, think=think)
                    await bot.join(name)
                    joined.set()
                else:  # the same seat client on a fresh session: the deal checks carry over
                    bot.session = client
                    await bot.resume(token)
                token = bot.token
                await bot.play()
                if bot.outcome is not None:
                    return BotOutcome(bot.outcome, bot.seat_names)
        except BaseException as raised:  # errors may come wrapped in nursery groups
            exc = first_leaf(raised)
            if isinstance(exc, RequestError):
                raise BotRefused(exc.error) from None  # the host said no: retrying will not help
            if isinstance(exc, HostKeyChanged):
                raise exc from None  # never resume at a host that is not the one we joined
            # Disconnected (a lost or refused connection) is a trio.BrokenResourceError
            retry = (TrustError, trio.BrokenResourceError, trio.TooSlowError, RemoteProtocolError)
            if not isinstance(exc, retry):
                raise
            log.info("bot %s: connection failed (%s); retrying", name, exc)
        if token is None and attempt > 2:
            break
        await trio.sleep(next(pauses, RECONNECT.cap))
    raise LocalProtocolError(f"bot {name} lost the host", code=ErrorCode.TIMEOUT)


async def run_bots(
    *,
    address: str,
    port: int,
    count: int,
    table_id: str | None = None,
    create: str | None = None,
    seats: int | None = None,
    kind: str = "normal",
    think: float = 0.5,
    insecure: bool = False,
    fingerprint: str | None = None,
    notice: Callable[[str], None] | None = None,
) -> list[BotOutcome]:
    """Connect ``count`` bots to a table (or a new ``create`` table); return the outcomes.

    ``notice`` receives a line for the user (``onecard bot`` prints it on stderr): the id of
    the table created, and that the bots wait at a finished table for its players to start a
    rematch.

    Raises:
        BotRefused: the host refused (no such table, full, bad game); a :class:`RequestError`.
        TableFinished: the table has finished and nobody but bots sits there.
        HostKeyChanged: the host's certificate is not ``fingerprint``.
        TrustError: the host cannot be reached.
        LocalProtocolError: the host was lost.
    """
    if table_id is None and create is None:
        raise ValueError("give a table id or a game to create")
    connected = await open_stream(
        address, port, insecure=insecure, expect=fingerprint, remember=False
    )
    fingerprint = fingerprint or connected.fingerprint  # every bot then expects the same host
    async with open_session(connected.stream, software=BOT_SOFTWARE) as client:
        try:
            if create is not None:
                reply = await client.request(tm.CreateTable(game=create, seats=seats or count))
                assert isinstance(reply, tm.TableCreated)
                table_id = reply.table
                if notice is not None:  # the id others need to join or watch it
                    notice(f"created table {table_id} ({create}, {seats or count} seats)")
            elif table_id is not None:
                listing = await client.request(tm.ListTables())
                assert isinstance(listing, tm.Tables)
                info = next((t for t in listing.tables if t.get("table") == table_id), None)
                if info is not None and info.get("phase") == "finished":
                    _check_finished(table_id, info, notice)
        except RequestError as exc:
            raise BotRefused(exc.error) from None
    outcomes: list[BotOutcome] = []

    async def one(i: int) -> None:
        assert table_id is not None
        joined = trio.Event()
        outcomes.append(
            await _one_bot(
                address,
                port,
                insecure=insecure,
                table_id=table_id,
                name=f"bot{i + 1}-{secrets.token_hex(2)}",
                kind=kind,
                think=think,
                fingerprint=fingerprint,
                joined=joined,
            )
        )

    async with trio.open_nursery() as nursery:
        for i in range(count):
            nursery.start_soon(one, i)
    return outcomes
