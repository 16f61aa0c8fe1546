"""The terminal front end of the table loop: log lines, the table, numbered moves, questions.

How it works: :class:`HumanUI` implements :class:`client.table_loop.Frontend` and knows no
rules. It prints a log line per event ("Bob plays 7♠"), redraws the table with the numbered
moves just before it is our turn (and again when the legal moves change), offers the
out-of-turn calls ("One Card!", "last card") as one letter when the host lists them, asks a
numbered follow-up question when one card stands for several legal actions (a suit to name, a
run's length, a joker's identity), and prints the fairness verdict after every hand, naming it
by its table hand number with the game and hand it was. When another seat drops, comes back or
leaves it says so (:mod:`client.tracking`).

On a terminal in colour the table holds still (:mod:`client.screen`): the status block
(:mod:`client.status`: the table, every seat, whose turn with its countdown, the hand and the
moves) stays at the bottom and is drawn again at every change, the log lines scroll above it,
and lines are read key by key so that what is being typed survives the redraws. Pipes,
``--ascii`` and ``NO_COLOR`` keep plain lines: the table printed when it is our turn.

Input is one line: a number, a card code, a letter, ``t`` (table), ``say TEXT`` (chat), ``?``
or ``q``. What concerns only the screen (help, the table, a follow-up question, a typing
mistake) is answered here; the rest goes to the loop as a command (:mod:`client.intents`).
A question stays asked (printed again after any other line) until it is answered or no longer
stands, so the player never faces a silent screen.

Host text never reaches the terminal raw: every string from the host (names, chat, error
messages, reasons, verdicts, the lines of :meth:`HumanUI.info`) goes through
:func:`protocol.text.safe_text`, as :mod:`client.render` does for events, tables and outcomes.
"""

from __future__ import annotations

import json
import time
from typing import Any

import trio
from rich.console import Console, RenderableType
from rich.text import Text

import protocol.table_messages as tm
from client import stdin
from client.choices import Choice, Menu, StrayBids, build_menu, normalise_card
from client.farewell import ending_line, interrupt_line
from client.help import help_lines
from client.intents import (
    ActIntent,
    AddBotIntent,
    ChatIntent,
    ExplainIntent,
    Intent,
    LeaveIntent,
    RematchIntent,
    chat_problem,
    rematch_answer,
)
from client.outage import Outage
from client.render import OutputClosed, cards_in_text, name_seats, render_outcome
from client.screen import Deliver, Screen, wanted
from client.status import LIST_MARGIN, Status, counts_down, options_text, status_block
from client.table_client import TableClient
from client.table_view import render_table
from client.tracking import CardsLeft, DealNumbers, Presence
from client.turn_clock import TurnClock
from client.wording import describe_action, describe_event
from net.fairplay import FairKind, FairNotice
from net.seat import REVEAL_EVENT
from protocol.messages import Error, Message
from protocol.text import safe_text

__all__ = ["HumanUI"]

#: how to play, said to a person once seated (``seated`` info); never to a script
TURN_HINT = "On your turn type the number of a move or a card code; ? for help, q to leave."
#: how :class:`HumanUI` prints a string: as it is (host text in it never styles the terminal)
PLAIN: dict[str, Any] = {"markup": False, "emoji": False, "highlight": False}
#: how to stop watching, said to a person watching a table
WATCH_HINT = "q + Enter to stop watching"
#: "q" in the middle of a game asks this first, worded for the command that runs the table
LEAVE_QUESTION = {
    "play": "Leave in the middle of the game? The game ends here. [y/N] ",
    "join": (
        "Leave in the middle of the game? The host's bot takes your seat and plays it to the "
        "end (to step away and come back instead, just close the window: the seat waits for "
        "you). [y/N] "
    ),
}


class HumanUI:
    """The terminal front end; see the module docstring."""

    def __init__(
        self, console: Console, *, ascii_only: bool = False, command: str = "join"
    ) -> None:
        """``command`` (``play`` or ``join``) words the question asked before leaving a game."""
        self.console = console
        self.leave_question = LEAVE_QUESTION.get(command, LEAVE_QUESTION["join"])
        self.ascii_only = ascii_only
        self.menu = Menu([])
        self._shown: str | None = None  # the legal list last drawn with the table
        self._hinted: str | None = None  # the out-of-turn moves last offered
        self._pending: Choice | None = None  # a choice waiting for its follow-up answer
        self._stray = StrayBids()  # a bid typed a beat late must not play a card (ONE)
        #: the game, hand and seats to act last drawn for a spectator
        self._spectator_seen: tuple[int, object, tuple[int, ...]] | None = None
        self._games_followed: set[int] = set()  # games a spectator saw in progress
        self._last_told: set[int] = set()  # finished games whose outcome was said on arrival
        self._names_shown: tuple[str, ...] = ()
        self._prompt_open = False
        self._asking: str | None = None  # the game's question awaiting an answer (see prompt)
        self._key_shown = False
        self._quitting = False  # "q" was typed mid-game: the next line confirms or not
        #: a blunder offered by the host (card, action): the next line says whether to play it
        #: (it stands only while the table's seq is the one it was offered at)
        self._blunder: tuple[str, dict[str, Any], int] | None = None
        self._explain_seq = -1  # the table's seq when we last asked the host to explain a card
        self.presence = Presence()  # who is connected, quiet across our own reconnect
        self.cards_left = CardsLeft()
        self.deals = DealNumbers()
        self.command = command
        self._tc: TableClient | None = None  # the table last heard of (for the screen)
        self.clock = TurnClock()  # the turn timer of the last state
        self._info_at = 0.0  # when the last table_info came (its away_ms count from then)
        self.outage = Outage()  # the connection is down: what we do about it
        #: the block at the bottom of a terminal in colour (None: plain lines)
        self.screen = (
            Screen(console, self._status) if wanted(console, ascii_only=ascii_only) else None
        )

    # ------------------------------------------------------------------ output

    @property
    def on_screen(self) -> bool:
        """Whether the table screen is up (:mod:`client.screen`)."""
        return self.screen is not None and self.screen.is_open

    def say(self, text: RenderableType, style: str = "", *, soft_wrap: bool | None = None) -> None:
        """Print a line, above the table screen when it is up; on a terminal a long line
        breaks between words (``soft_wrap=True`` leaves it to the terminal), in a pipe it stays
        one line. A string is printed as it is: no markup, emoji codes or highlighting."""
        if self.screen is not None and self.screen.is_open:
            item = Text(text, style=style) if isinstance(text, str) else text
            if isinstance(item, Text) and style:
                item.stylize(style)
            self.screen.log(item)
            return
        if self._prompt_open:  # a log line arrived while a prompt waits: keep them apart
            self._prompt_open = False
            self.console.print()
        if soft_wrap is None:
            soft_wrap = not self.console.is_terminal
        self.console.print(text, style=style, soft_wrap=soft_wrap, **PLAIN)

    def prompt(self, text: str, *, again: str | None = None) -> None:
        """Print a question and leave the cursor after it (on the table screen: its input
        line). With ``again``, the question stays asked: it is printed again (as ``again``)
        after any other line, until it is answered or no longer stands (see
        :meth:`_reprompt`), so the player never faces a silent screen."""
        self._asking = again
        if self.screen is not None and self.screen.is_open:
            self.screen.ask(text)
            return
        self.console.print(text, end="", **PLAIN)
        try:
            self.console.file.flush()
        except BrokenPipeError:
            raise OutputClosed("the output was closed") from None
        self._prompt_open = True

    def _reprompt(self) -> None:
        """Ask the standing question again if a line printed since has pushed it away (on
        the screen: draw the block again, its input line asking it, or ``>`` when nothing is
        asked)."""
        if self.screen is not None and self.screen.is_open:
            counting = self._tc is not None and counts_down(self._tc.info)
            self.screen.ticking = self.clock.left() is not None or counting or self.outage.down
            self.screen.ask(self._asking if self._asking is not None else self._idle_prompt())
            return
        if self._asking is not None and not self._prompt_open:
            self.prompt(self._asking, again=self._asking)

    # ------------------------------------------------------------------ the screen

    async def read_lines(self, deliver: Deliver) -> None:
        """The lines typed, for the table loop: key by key on the table screen, else from
        stdin. On the screen Ctrl-D in a game asks first, as ``q`` does."""
        if self.screen is None:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._remind)
                await stdin.read_lines(deliver)
                nursery.cancel_scope.cancel()
            return

        async def typed(line: str | None) -> None:
            tc = self._tc
            in_game = tc is not None and tc.seat is not None and tc.outcome is None
            if line is None and in_game and not self._quitting and tc is not None:
                line = "q" if tc.state is not None else None
            await deliver(line)

        await self.screen.read_lines(typed)

    async def _remind(self) -> None:
        """Plain lines: say the time left on our turn as it passes a mark (see
        :mod:`client.turn_clock`), the move prompt asked again under it."""
        while True:
            await trio.sleep(1)
            tc, mark = self._tc, self.clock.reminder()
            if mark is not None and tc is not None and tc.my_turn and self._asking is not None:
                self.say(f"{mark} s left for your move", style="bold")
                self._reprompt()

    def _idle_prompt(self) -> str:
        """The input line when nothing is asked: how to leave, and whose turn it is not."""
        tc = self._tc
        if tc is not None and tc.seat is None:
            return "(q stops watching, ? help) > "
        return "(say TEXT chats, ? help, q leaves) > "

    def _status(self) -> Text | None:
        """The table screen's block (:func:`client.status.status_block`)."""
        tc = self._tc
        if tc is None:
            return None
        width, height = self.screen.size() if self.screen is not None else (80, 24)
        left = self.clock.left()
        status = Status(
            tc.names,
            tc.seat,
            tc.table_id,
            tc.state,
            tc.info,
            self.menu,
            self._pending,
            left,
            info_age=time.monotonic() - self._info_at,
            over=tc.outcome is not None,
            offline=self.outage.line(),
        )
        return status_block(status, ascii_only=self.ascii_only, width=width - 1, height=height)

    def info(self, text: str, **fields: Any) -> None:
        """A line for people; it often quotes the host (a refusal, a name, a reason), so it is
        shown made safe (:func:`protocol.text.safe_text`)."""
        text = safe_text(text)
        failed = fields.get("kind") == "error" or fields.get("ok") is False
        kind = fields.get("kind")
        if kind == "reconnected":
            self.presence.reconnected()
            self.outage.back()
        elif kind == "disconnected":  # the table on screen is no longer live
            self.outage.lost(text)
            self.clock.stop()
        elif kind == "reconnecting":  # the block counts down; plain lines now and then
            wait, attempt = float(fields.get("wait") or 0), int(fields.get("attempt") or 1)
            if not self.outage.retrying(text, wait=wait, attempt=attempt) or self.on_screen:
                self._reprompt()
                return
        if fields.get("kind") == "seated":  # keys to type are for people, not for --json
            text = f"{text}. {TURN_HINT}"
        elif fields.get("kind") == "watching":
            text = f"{text}. {WATCH_HINT}"
        elif fields.get("kind") == "rematch":  # "Play again? [y/N]": answered on its line
            self.prompt(f"{text} ")
            return
        self.say(text, style="bold red" if failed else "dim")
        self._reprompt()

    def _fair(self, notice: FairNotice) -> None:
        hand = self.deals.label(notice.hand_no)
        message = safe_text(notice.message)  # a failure may quote what the host signed
        if notice.kind is FairKind.UNCHECKED:
            self.say(f"{hand}: {message}", style="yellow")
            return
        ok = notice.kind in (FairKind.VERIFIED, FairKind.VOID)
        mark = ("ok" if ok else "!!") if self.ascii_only else ("✓" if ok else "✗")
        line = Text(f"{mark} {hand}: {message}")
        if notice.fingerprint:
            line.append(f" · transcript {notice.fingerprint}")
        if notice.kind is FairKind.FAILED and notice.proof is not None:
            line.append(f" · evidence saved to {notice.proof}")
        elif notice.proof is not None:  # the hand's signed messages, for onecard verify
            line.append(f" · proof {notice.proof}")
        self.say(line, style="green" if ok else "bold red")

    def _on_event(self, tc: TableClient, push: tm.EventPush) -> None:
        if push.event.get("kind") == REVEAL_EVENT:
            if tc.checker.duties is not None:  # our own masking secret went out (10.14)
                self.say("The hand is over: your keys go out for the audit", style="dim")
            return
        event = tc.private_event(dict(push.event))
        if event is None:  # our cards there are still masked: the state shows them once open
            return
        line = describe_event(
            event,
            tc.name_of,
            me=tc.seat,
            ascii_only=self.ascii_only,
            game_no=tc.game_no,
            game=tc.game or None,
        )
        if line is not None:
            self.say(line)

    def on_push(self, tc: TableClient, push: Message, notices: list[FairNotice]) -> None:
        self._tc = tc
        journaled = tm.StatePush | tm.GameStart | tm.GameOver | tm.EventPush | tm.FairPush
        seq = push.seq if isinstance(push, journaled) else None
        if self._blunder is not None and seq is not None and seq != self._blunder[2]:
            self._blunder = None  # the game moved on: the offer was about another situation
            self._asking = "Your move: " if tc.my_turn and self._pending is None else None
            self.say("(the blunder offer lapsed: the game moved on)", style="dim")
        self.cards_left.see(push)
        self.deals.see(tc, push)
        if self._quitting and isinstance(push, tm.GameOver | tm.GameStart):
            self._quitting = False  # "leave mid-game?" lapses: the game it was about is over
            self._asking = None
            self.say(
                "(the game ended before you answered: you are still at the table)", style="dim"
            )
        if isinstance(push, tm.EventPush):
            self._on_event(tc, push)
        elif isinstance(push, tm.StatePush):
            # a private table's view has no hand: the seat client filled it from our cards
            shown = tc.state if push is tc.private_state and tc.state is not None else push
            self._on_state(tc, shown)
        elif isinstance(push, tm.GameStart):
            if self.screen is not None and self.screen.reading:  # a rematch: closed at the
                self.screen.open()  # last game's end, the block comes back for this one
            names = ", ".join(safe_text(name) for name in push.names)
            self.say(f"Game {push.game_no} starts: {names}", style="bold")
        elif isinstance(push, tm.GameOver):
            self.say(render_outcome(push.outcome, tc.names, self.cards_left.shown, game=tc.game))
        elif isinstance(push, tm.TableInfo):
            self._on_table_info(tc, push)
        elif isinstance(push, tm.ChatLine):
            name = safe_text(push.name)
            who = name if push.seat is not None else f"{name} (watching)"
            self.say(f"[chat] {who}: {safe_text(push.text)}", style="cyan")
        elif isinstance(push, Error):
            self.say(f"host: {safe_text(push.message)} ({push.code.value})", style="bold red")
        for notice in notices:
            self._fair(notice)
        if not self._key_shown and tc.checker.key_fingerprint is not None:
            self._key_shown = True
            self.say(f"Deals are checked against the host key {tc.checker.key_fingerprint}", "dim")
        if self.on_screen or not isinstance(push, tm.EventPush):  # (a state follows events:
            self._reprompt()  # a timeout's move must not ask "Your move:" again first)

    def _on_table_info(self, tc: TableClient, info: tm.TableInfo) -> None:
        self._info_at = time.monotonic()
        for seat, _name, back, line in self.presence.see(info, tc.seat):
            held = info.seats[seat] if seat < len(info.seats) else None
            if held is not None and held.get("substitute") and not back:
                continue  # a leave: the host's "left" event said "Bob left; a bot plays Bob"
            self.say(safe_text(line), style="" if back else "yellow")
        if info.phase not in ("waiting", "finished"):
            return
        names = tuple(
            "(empty)"
            if s is None
            else safe_text(str(s.get("name"))) + ("" if s.get("ready") else " (not ready)")
            for s in info.seats
        )
        shown, self._names_shown = self._names_shown, names
        if names != shown and not (self.on_screen and tc.state is None):  # (else the block's)
            self.say(f"Seats at {safe_text(info.name)}: {', '.join(names)}", style="dim")

    def _spectator_state(self, tc: TableClient, state: tm.StatePush) -> None:
        """A watcher's table is drawn again whenever the player to act changes (once per
        change, so the turn marker never goes stale); a table found between games says once
        how the last game ended, unless this spectator watched that game (its ``game_over``,
        or the loop's stand-in for it, says so)."""
        if state.phase == "finished":
            outcome = state.view.get("outcome")
            done = state.game_no in self._games_followed or state.game_no in self._last_told
            if isinstance(outcome, dict) and state.game_no >= 1 and not done:
                self._last_told.add(state.game_no)
                last = render_outcome(outcome, tc.names, self.cards_left.shown, game=tc.game)
                self.say(Text("Last game: ").append_text(last), style="dim")
            return
        self._games_followed.add(state.game_no)
        key = (state.game_no, state.view.get("hand_no"), tuple(state.to_act))
        if state.phase == "playing" and state.to_act and key != self._spectator_seen:
            self._spectator_seen = key
            if not self.on_screen:  # (the table screen shows it always)
                self.say(self._table(tc, state), soft_wrap=False)

    def _on_state(self, tc: TableClient, state: tm.StatePush) -> None:
        running = state.phase == "playing" and bool(state.to_act)
        jumped = self.clock.start(state.turn_ms if running else None)
        if state.seat is None:
            self._spectator_state(tc, state)
            return
        self.menu = build_menu(state.view, state.legal, ascii_only=self.ascii_only)
        self._stray.seen(self.menu)
        legal_key = json.dumps(state.legal, sort_keys=True)
        calls, hint = self.menu.calls(state.view)
        if hint is not None and hint != self._hinted:  # once a window, on our turn too
            for c in calls:
                self.say(Text(f"Press {c.key} + Enter to ").append_text(c.label), style="bold")
        self._hinted = hint
        if tc.my_turn:
            if legal_key != self._shown:
                self._shown = legal_key
                self._pending = None
                self._draw_turn(tc, state)
            elif jumped and not self.on_screen:  # the same turn, another time left (a resume)
                self.say(f"{int(self.clock.left() or 0)} s left for your move", style="bold")
                self._reprompt()
            return
        self._shown = None
        if self._pending is not None:  # a follow-up question of a turn that has passed
            self._pending = None
            self._asking = None
            self.say("(the turn passed before the choice was answered)", style="dim")
        if not self._quitting:  # the turn has passed (our move, a timer): nothing to answer
            self._asking = None

    def _table(self, tc: TableClient, state: tm.StatePush) -> Text:
        return render_table(
            state.view,
            tc.names,
            me=state.seat,
            to_act=state.to_act,
            ascii_only=self.ascii_only,
            game_no=state.game_no,
            width=self.console.width,
        )

    def _draw_turn(self, tc: TableClient, state: tm.StatePush) -> None:
        if not self.on_screen:  # (the table screen shows the table and the moves always)
            out = self._table(tc, state)
            out.append_text(self.menu.render(ascii_only=self.ascii_only, width=self.console.width))
            self.say(out, soft_wrap=False)  # a long line breaks between words, not inside one
        if self._quitting:  # "leave mid-game?" stays the only question until it is answered
            self.prompt(self.leave_question, again=self.leave_question)
            return
        timed = state.turn_ms is not None and not self.on_screen  # (the block counts down)
        left = f" ({state.turn_ms // 1000} s left)" if timed and state.turn_ms is not None else ""
        self.prompt(f"Your move{left}: ", again="Your move: ")  # the time left goes stale

    # ------------------------------------------------------------------ input

    def on_line(self, tc: TableClient, line: str, *, rematch_asked: bool = False) -> Intent | None:
        """What the typed ``line`` asks for; any question still standing is asked again.
        While "Play again?" stands (``rematch_asked``) a line is first read as its answer."""
        if rematch_asked:
            answer = rematch_answer(line)
            if answer is not None:
                return RematchIntent(answer)
        self._prompt_open = False  # Enter was pressed: the cursor is on a fresh line
        wanted = self._on_line(tc, line)
        if isinstance(wanted, ActIntent):
            self._asking = None  # answered: the host's reply decides what comes next
        elif wanted is None:
            self._reprompt()  # (after chat or a question, once the host has answered)
        return wanted

    def _on_line(self, tc: TableClient, line: str) -> Intent | None:  # noqa: C901, PLR0912
        text = line.strip()
        low = text.lower()
        if self._quitting:
            self._quitting = False
            if low in ("y", "yes"):
                return LeaveIntent(give_up=True)  # a bot takes the seat at once
            self._asking = "Your move: " if tc.my_turn and self._pending is None else None
            if self._pending is not None:
                self._asking = f"Option 1-{len(self._pending.actions)} (x to cancel): "
            self.say("staying at the table", style="dim")
            return None
        if self._blunder is not None:
            return self._answer_blunder(tc, low)
        if low.split()[:1] == ["b"] and tc.seat is not None and tc.outcome is not None:
            # between games: ask the host to seat a bot in an empty seat ("b hard": at a level)
            return AddBotIntent(*low.split()[1:2])
        if low in ("q", "quit", "exit"):
            if tc.seat is None or tc.outcome is not None or tc.state is None:
                return LeaveIntent()  # watching, or no game under way: nothing to lose
            self._quitting = True  # a stray "q" must not throw a game away
            self.prompt(self.leave_question, again=self.leave_question)  # the only question
            return None
        if low in ("?", "h", "help"):
            view = tc.state.view if tc.state is not None else {}
            game = str(view.get("game") or tc.game)
            for help_line in help_lines(self.menu, game, view, ascii_only=self.ascii_only):
                self.say(help_line)
            return None
        if low == "say" or low.startswith("say "):
            said = text[4:].strip()
            problem = chat_problem(said)
            if problem is not None:
                self.say(problem, style="yellow")
                return None
            return ChatIntent(said)
        if low in ("t", "table"):
            if tc.state is not None and not self.on_screen:  # (the screen shows it always)
                if tc.my_turn:
                    self._draw_turn(tc, tc.state)
                else:  # the table and our hand
                    out = self._table(tc, tc.state)
                    out.append_text(
                        self.menu.render(
                            ascii_only=self.ascii_only, width=self.console.width, dim=False
                        )
                    )
                    self.say(out, soft_wrap=False)
            return None
        if self._pending is not None:
            return self._answer(tc, text)
        if not self.menu:
            held = self._held(tc, text)
            if held is not None:  # not our turn: the host says why (or offers a blunder)
                return self._ask_why(tc, held)
            to_act = tc.state.to_act if tc.state else ()
            waiting = ", ".join(safe_text(str(tc.name_of(s))) for s in to_act)
            self.say(
                f"Nothing to do right now{' (waiting for ' + waiting + ')' if waiting else ''}"
            )
            return None
        if (question := self._stray.check(self.menu, text)) is not None:
            self.say(question, style="yellow")
            return None
        found = self.menu.resolve(text)
        if isinstance(found, str):
            held = self._held(tc, text)  # a card we hold but may not play: ask the host why
            if held is not None:  # its answer is the one line said (on_explained)
                return self._ask_why(tc, held)
            typed_card = normalise_card(text) is not None  # "you do not hold Q♠", as the hand
            shown = cards_in_text(found, ascii_only=self.ascii_only) if typed_card else Text(found)
            self.say(shown, style="yellow")  # (a hint's "a card code like 7S" stays typed)
            return None
        if len(found.actions) == 1:
            return ActIntent(found.actions[0])
        self._ask_choice(found)
        return None

    def _ask_choice(self, found: Choice) -> None:
        """Ask which of the actions one choice stands for (a follow-up question)."""
        self._pending = found
        if not self.on_screen:  # (the table screen lists the options in its block)
            options = options_text(
                found,
                ascii_only=self.ascii_only,
                width=self.console.width,
                rows=self.console.height - LIST_MARGIN,
            )
            options.rstrip()
            self.say(options, soft_wrap=True)
        question = f"Option 1-{len(found.actions)} (x to cancel): "
        self.prompt(question, again=question)

    @staticmethod
    def _held(tc: TableClient, text: str) -> str | None:
        """The card code ``text`` names if our hand holds that card, else None."""
        code = normalise_card(text)
        hand = tc.state.view.get("hand") if tc.state is not None else None
        return code if code is not None and isinstance(hand, list) and code in hand else None

    def _ask_why(self, tc: TableClient, card: str) -> ExplainIntent:
        self._explain_seq = tc.state.seq if tc.state is not None else -1
        return ExplainIntent(card)

    def on_explained(self, tc: TableClient, reply: tm.Explained) -> None:
        card = reply.card.code
        if not reply.reason:  # a legal play puts it down, with other cards (the menu had none)
            line = f"{card} goes down now only together with other cards: t shows your moves"
            self.say(cards_in_text(line, ascii_only=self.ascii_only), style="dim")
        else:
            reason = name_seats(reply.reason, tc.name_of, tc.seat)
            line = reason if reason.startswith(card) else f"{card}: {reason}"
            self.say(cards_in_text(line, ascii_only=self.ascii_only), style="yellow")
        seq = tc.state.seq if tc.state is not None else -2
        if reply.blunder and reply.action is not None and seq != self._explain_seq:
            self.say("(the game has moved on since you asked: try again)", style="dim")
        elif reply.blunder and reply.action is not None and not self._quitting:
            self._blunder = (card, dict(reply.action), seq)
            shown = cards_in_text(card, ascii_only=self.ascii_only).plain
            question = f"Play {shown} anyway, as a blunder? [y/N] "
            self.prompt(question, again=question)
            return
        self._reprompt()

    def _answer_blunder(self, tc: TableClient, low: str) -> ActIntent | None:
        assert self._blunder is not None
        (card, action, _), self._blunder = self._blunder, None
        self._asking = "Your move: " if tc.my_turn and self._pending is None else None
        if low not in ("y", "yes"):
            self.say(
                cards_in_text(f"{card} stays in your hand", ascii_only=self.ascii_only), style="dim"
            )
            return None
        if self._held(tc, card) is None:  # played or taken since the question
            self.say(
                cards_in_text(f"you no longer hold {card}", ascii_only=self.ascii_only),
                style="yellow",
            )
            return None
        return ActIntent(action)

    def _answer(self, tc: TableClient, text: str) -> ActIntent | None:
        choice = self._pending
        assert choice is not None
        if text.lower() in ("x", ""):
            self._pending = None
            self.say("cancelled; pick another move", style="dim")
            self._asking = "Your move: " if tc.my_turn else None
            return None
        if text.isdigit() and 1 <= int(text) <= len(choice.actions):
            self._pending = None
            return ActIntent(choice.actions[int(text) - 1])
        self.say(f"type a number from 1 to {len(choice.actions)}, or x to cancel", style="yellow")
        return None

    def on_refused(self, tc: TableClient, action: dict[str, Any], error: str) -> None:
        what = describe_action(action, ascii_only=self.ascii_only)
        error = name_seats(error, tc.name_of, tc.seat)
        why = cards_in_text(error, ascii_only=self.ascii_only)  # cards as ``what`` shows them
        self.say(Text("The host refused ").append_text(what).append(": ").append_text(why), "red")
        self._shown = None
        if tc.my_turn and tc.state is not None:
            self._shown = json.dumps(tc.state.legal, sort_keys=True)
            self._draw_turn(tc, tc.state)

    def on_acted(self, tc: TableClient, action: dict[str, Any]) -> None:
        self._shown = None

    def end(self, tc: TableClient, reason: str) -> None:
        self._asking = None
        if self.screen is not None:  # the terminal is given back; after a game the block
            self.screen.close(keep=reason == "game over")  # stays, else it would mislead
        if reason != "game over":  # "disconnected: " + the host's words, and the rest
            self.say(ending_line(tc, reason, self.command), style="dim")

    def interrupt_note(self) -> str | None:
        """What Ctrl-C during the game means for the seat (printed as the command ends)."""
        return None if self._tc is None else interrupt_line(self._tc, self.command)
