"""The table loop's decisions, sans I/O: events in, effects out (after h11's style).

How it works: a :class:`TableMachine` follows one table for :func:`client.table_loop.run_table`,
which owns every socket, task, clock and screen. The driver hands :meth:`TableMachine.handle`
one event at a time and performs the effects it returns, in order (both are listed in
:mod:`client.table_events`). Nothing here awaits, sleeps, reads or writes; the machine reads
the :class:`~client.table_client.TableClient` (seat, outcome, latest state, token), which the
driver keeps up to date.

What it decides: one action in flight at a time (another is ``busy``); after ``game_over``
whether to end or ask "Play again? [y/N]", and then whom the rematch waits for; what leaving
and the end of input mean for a player and for a spectator; whether a dropped connection is
worth reconnecting; which hand records to fetch and that a ``game_over`` waits for them; and
whether to give the seat up (``leave``) when the loop ends (:meth:`TableMachine.leaves_seat`).
Answers to requests never end the loop.
"""

from __future__ import annotations

import protocol.table_messages as tm
from client.intents import (
    ActIntent,
    AddBotIntent,
    ChatIntent,
    ExplainIntent,
    Intent,
    LeaveIntent,
    RematchIntent,
)
from client.table_client import TableClient
from client.table_events import (
    Answered,
    AwaitRecords,
    Closed,
    Effect,
    Event,
    Failed,
    Failure,
    FetchRecord,
    Finish,
    InputEnded,
    Pushed,
    Reconnect,
    Reconnected,
    ReconnectFailed,
    RecordFetched,
    Replay,
    Request,
    SendAct,
    SendAddBot,
    SendChat,
    SendExplain,
    SendReady,
    ShowActed,
    ShowEnd,
    ShowExplained,
    ShowInfo,
    ShowPush,
    ShowRefused,
    Typed,
)
from net.fairplay import FairKind, FairNotice
from protocol.messages import Message

__all__ = ["PLAY_AGAIN", "TableMachine", "game_over_from_state", "waiting_for"]

#: the question asked after a game when a rematch is offered
PLAY_AGAIN = "Play again? [y/N]"

# --------------------------------------------------------------------------- helpers


def waiting_for(info: tm.TableInfo | None, seat: int | None) -> list[str]:
    """Who a finished table still waits for before a rematch starts, our own ``seat`` aside:
    each seat not ready, by name (``Bob (gone)`` if its player left), or ``seat 2 (empty)``
    (numbered as in "Seated at table T, seat 0")."""
    if info is None:
        return []
    who = []
    for i, s in enumerate(info.seats):
        if i == seat or (s is not None and (s.get("ready") or s.get("bot"))):
            continue  # (a bot is ready whenever the people are: PROTOCOL.md 3.1)
        if s is None:
            who.append(f"seat {i} (empty)")
        else:
            who.append(str(s.get("name")) + ("" if s.get("connected", True) else " (gone)"))
    return who


def game_over_from_state(push: Message) -> tm.GameOver | None:
    """The ``game_over`` a spectator's ``state`` of a finished game stands for, or None.

    A spectator gets no journaled backlog (PROTOCOL.md 5): one that watches again after a drop
    during which the game it watched ended learns the end only from the ``state`` (phase
    ``finished``, the view's ``outcome``), and would wait for ever for a ``game_over`` that is
    never sent. The machine uses it only for a game it saw in progress: a spectator that comes
    to a table between games watches on for the next one.
    """
    if not isinstance(push, tm.StatePush) or push.seat is not None or push.phase != "finished":
        return None
    outcome = push.view.get("outcome")
    if not isinstance(outcome, dict) or push.game_no < 1:
        return None
    return tm.GameOver(table=push.table, seq=push.seq, game_no=push.game_no, outcome=outcome)


# --------------------------------------------------------------------------- the machine


class TableMachine:
    """One table's loop, as decisions; see the module docstring.

    Args:
        table: the table client the driver keeps up to date (read only here, but for
            :meth:`TableClient.new_chat`, which notes the chat lines shown).
        until_game_over: end after ``game_over`` (else a spectator watches on).
        offer_rematch: after ``game_over`` ask "Play again?" (a seated player only).
        records: fetch the host's record of every hand that ends.
        can_reconnect: the driver can open a new session when the connection drops.
        leave_when_done: give the seat up when the loop ends after a finished game.
    """

    def __init__(
        self,
        table: TableClient,
        *,
        until_game_over: bool = True,
        offer_rematch: bool = False,
        records: bool = False,
        can_reconnect: bool = False,
        leave_when_done: bool = False,
    ) -> None:
        self.table = table
        self.until_game_over = until_game_over
        self.offer_rematch = offer_rematch
        self.records = records
        self.can_reconnect = can_reconnect
        self.leave_when_done = leave_when_done
        self.asking = False  #: "Play again?" waits for its answer
        self.rematch = False  #: answered yes: waiting for the other seats to be ready
        self.waiting_said: list[str] = []  #: whom the last "Waiting for" line named
        self.followed = 0  #: the last game seen in progress
        self.acting = False  #: an action waits for the host's answer
        self.left_mid_game = False  #: left during a game, giving the seat to the host's bot
        self.closed_reason = ""  #: why the connection we are reconnecting dropped
        self.fetched: set[int] = set()  #: table hands whose record was asked for
        #: the failed deal check we left the table for (the command then exits 1)
        self.distrusted: FairNotice | None = None

    def handle(self, event: Event) -> list[Effect]:
        """The effects of one event, to perform in order."""
        match event:
            case Pushed(push, notices):
                return self._pushed(push, notices)
            case Typed(command):
                return self._asked(command) if self.asking else self._typed(command)
            case InputEnded(terminal):
                return self._input_ended(terminal)
            case Closed(reason, for_good, retry_after):
                return self._closed(reason, for_good, retry_after)
            case Reconnected():
                return [self._reconnected()]
            case ReconnectFailed(why):
                reason = f"disconnected: {self.closed_reason}"
                return [ShowInfo(why, "error"), ShowEnd(reason), Finish(None)]
            case Answered(request, reply):
                return self._answered(request, reply)
            case Failed(request, why, failure):
                return self._failed(request, why, failure)
            case RecordFetched(result):
                return [ShowInfo(result.line(), "record", result.to_json())]
        raise AssertionError(f"not an event: {event!r}")  # pragma: no cover

    def leaves_seat(self) -> bool:
        """Whether to send ``leave`` as the loop ends: after a finished game with
        ``leave_when_done`` (the others waiting for a rematch see the seat free at once), or
        after leaving mid-game with ``give_up`` (the host's bot takes the seat at once)."""
        after_game = self.leave_when_done and self.table.outcome is not None
        return self.table.seat is not None and (after_game or self.left_mid_game)

    # ------------------------------------------------------------------ pushes

    def _pushed(self, push: Message, notices: list[FairNotice]) -> list[Effect]:
        tc = self.table
        if isinstance(push, tm.ChatLine) and not tc.new_chat(push):
            return []  # a backlog line already shown (resume, watching again)
        if isinstance(push, tm.StatePush) and push.phase != "finished":
            self.followed = push.game_no
        if isinstance(push, tm.GameStart):
            self.asking = False  # a new game: lines are moves again, not the answer
            self.rematch, self.waiting_said = False, []
        out: list[Effect] = []
        if self.records and isinstance(push, tm.FairPush):
            out += self._hand_ended(push, notices)
        over = isinstance(push, tm.GameOver)
        if self.records and over:
            out.append(AwaitRecords())  # each record's line comes before the outcome
        out.append(ShowPush(push, notices))
        failed = next((n for n in notices if n.kind is FairKind.FAILED), None)
        if failed is not None:
            return [*out, *self._distrust(failed)]
        if self.rematch and isinstance(push, tm.TableInfo) and push.phase == "finished":
            out += self._waiting(push)
        if over and not self.until_game_over and tc.seat is None:
            out.append(
                ShowInfo(
                    f"Still watching table {tc.table_id}: its next game shows "
                    "here (q + Enter to stop)",
                    "watching_on",
                )
            )
        if over and self.until_game_over and tc.outcome is not None:
            out.append(ShowEnd("game over"))
            if not self.offer_rematch or tc.seat is None:  # (stood up: no seat to ready)
                return [*out, Finish(tc.outcome)]
            self.asking = True
            out.append(ShowInfo(PLAY_AGAIN, "rematch"))
        missed = game_over_from_state(push)
        if missed is not None and tc.outcome is None and missed.game_no == self.followed:
            out.append(Replay(missed))  # a game we watched ended while we were away
        return out

    def _distrust(self, failed: FairNotice) -> list[Effect]:
        """A deal check failed: this table's host is not trusted any more. Say so with the
        proof, take no further part in its deal rounds and leave (a seat goes to the host's
        bot at once)."""
        tc = self.table
        self.left_mid_game = tc.seat is not None
        self.distrusted = failed
        proof = "" if failed.proof is None else f"; the proof is {failed.proof} (onecard verify)"
        text = (
            f"Leaving table {tc.table_id}: its host failed a deal check in table hand "
            f"{failed.hand_no}, so none of its deals can be trusted{proof}"
        )
        fields = {
            "table": tc.table_id,
            "hand_no": failed.hand_no,
            "failure": failed.message,
            "proof": None if failed.proof is None else str(failed.proof),
        }
        return [
            ShowInfo(text, "distrust", fields),
            ShowEnd("left the table: a deal check failed"),
            Finish(tc.outcome),
        ]

    def _hand_ended(self, push: tm.FairPush, notices: list[FairNotice]) -> list[Effect]:
        """Fetch the record of each hand that ends, once."""
        if push.msg[0] not in ("hand_end", "void") or push.hand_no in self.fetched:
            return []
        self.fetched.add(push.hand_no)
        done = (FairKind.VERIFIED, FairKind.VOID)
        transcript = next(
            (n.fingerprint for n in notices if n.hand_no == push.hand_no and n.kind in done), None
        )
        return [FetchRecord(push.hand_no, transcript)]

    def _waiting(self, info: tm.TableInfo) -> list[Effect]:
        """Say whom the rematch waits for, whenever that changes."""
        who = waiting_for(info, self.table.seat)
        said, self.waiting_said = self.waiting_said, who
        if not who or who == said:
            return []
        bot = "b + Enter seats a bot, " if None in info.seats else ""
        text = f"Waiting for {', '.join(who)} to play again ({bot}q leaves)"
        return [ShowInfo(text, "waiting", {"waiting_for": who})]

    # ------------------------------------------------------------------ the user

    def _asked(self, command: Intent) -> list[Effect]:
        """A command while "Play again?" waits: the answer, or something said meanwhile."""
        if isinstance(command, RematchIntent):
            self.asking = False
            if not command.yes:
                return [Finish(self.table.outcome)]
            self.rematch = True
            return [SendReady()]
        if isinstance(command, LeaveIntent):
            return [ShowEnd("you left the table"), Finish(self.table.outcome)]
        return self._aside(command)  # the question stays

    def _typed(self, command: Intent) -> list[Effect]:
        tc = self.table
        if isinstance(command, LeaveIntent):
            phase = tc.state.phase if tc.state is not None else ""
            playing = tc.seat is not None and phase in ("dealing", "playing")
            self.left_mid_game = playing and command.give_up
            # None during a game; after one, its outcome
            return [ShowEnd("you left the table"), Finish(tc.outcome)]
        if isinstance(command, ActIntent):
            if self.acting:
                busy = "still waiting for the host to answer your last move"
                return [ShowInfo(busy, "busy")]
            self.acting = True
            return [SendAct(command.action)]
        return self._aside(command)

    @staticmethod
    def _aside(command: Intent) -> list[Effect]:
        """What a command asks for besides a move: chat, a question, a bot (a move or an
        answer out of place is dropped)."""
        if isinstance(command, ChatIntent):
            return [SendChat(command.text)]
        if isinstance(command, ExplainIntent):
            return [SendExplain(command.card)]
        if isinstance(command, AddBotIntent):
            return [SendAddBot(command.level)]
        return []

    def _input_ended(self, terminal: bool) -> list[Effect]:
        tc = self.table
        if self.asking:
            return [Finish(tc.outcome)]
        if tc.seat is not None or terminal:  # Ctrl-D at a terminal stops watching
            return [ShowEnd("end of input"), Finish(tc.outcome)]
        return []  # a spectator whose piped input ended watches to the end

    # ------------------------------------------------------------------ the connection

    def _closed(self, reason: str, for_good: bool, retry_after: int | None) -> list[Effect]:
        tc = self.table
        if not self.can_reconnect or (tc.token is None and not tc.watching) or for_good:
            return [ShowEnd(f"disconnected: {reason}"), Finish(None)]
        self.closed_reason = reason
        if retry_after is not None:  # announced: a short wait for it, not a dropped line
            text = f"{reason}; it may be back in {retry_after} s: trying again then"
            return [ShowInfo(text, "disconnected", {"retry_after": retry_after}), Reconnect()]
        return [ShowInfo(f"connection lost ({reason}); reconnecting", "disconnected"), Reconnect()]

    def _reconnected(self) -> Effect:
        tc = self.table
        if tc.token is not None:
            return ShowInfo(f"reconnected: seat {tc.seat} resumed as {tc.name}", "reconnected")
        return ShowInfo(
            f"reconnected: watching table {tc.table_id} again (the hand in progress is "
            "checked from its record)",
            "reconnected",
        )

    # ------------------------------------------------------------------ requests

    def _answered(self, request: Request, reply: Message | None) -> list[Effect]:
        if isinstance(request, SendAct):
            self.acting = False
            return [ShowActed(request.action)]
        if isinstance(request, SendExplain) and isinstance(reply, tm.Explained):
            return [ShowExplained(reply)]
        if isinstance(request, SendAddBot) and isinstance(reply, tm.BotAdded):
            fields = {"seat": reply.seat, "name": reply.name}
            return [ShowInfo(f"{reply.name} (a bot) takes seat {reply.seat}", "bot_added", fields)]
        return []

    def _failed(self, request: Request, why: str, failure: Failure) -> list[Effect]:
        match request:
            case SendAct(action):
                self.acting = False
                if failure is Failure.INVALID:  # not a valid message: nothing was sent
                    return [ShowInfo(f"action not sent: {why}", "error")]
                if failure is Failure.DROPPED:
                    why = "the connection dropped before the host answered"
                return [ShowRefused(action, why)]
            case SendChat():
                return [ShowInfo(f"chat not sent: {why}", "error")]
            case SendExplain(card):
                return [ShowInfo(f"could not ask the host about {card}: {why}", "error")]
            case SendAddBot():
                return [ShowInfo(f"no bot seated: {why}", "error")]
            case SendReady():
                return self._ready_failed(why)
        raise AssertionError(f"not a request: {request!r}")  # pragma: no cover

    def _ready_failed(self, why: str) -> list[Effect]:
        out: list[Effect] = [ShowInfo(f"rematch refused: {why}", "error")]
        if self.table.outcome is not None:  # still after the game (the ready may have landed)
            self.asking, self.rematch = True, False  # ask again; no "waiting for" lines meanwhile
            out.append(ShowInfo(PLAY_AGAIN, "rematch"))
        return out
