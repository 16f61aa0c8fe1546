"""The NDJSON front end of the table loop (``--json``): a script plays instead of a person.

How it works: :class:`JsonUI` implements :class:`client.table_loop.Frontend`. It writes one JSON
object per line for every push (the message's own wire map, minus the signed ``fair`` messages,
which are summarised as ``fairness`` verdicts, with a few additions: ``my_turn``, an event's
``text``, the outcome's ``text``), one for every line the loop words for people (``info``,
with its ``kind`` as the object's ``type``), and a ``presence`` object when another seat drops,
comes back or leaves (:mod:`client.tracking`). A bare ``ok`` (the host's answer to the
client's own fair-dealing messages) is not printed. It reads one JSON command per line and
hands the loop the matching command (:mod:`client.intents`), or prints an ``error`` object.
The format is specified in ``spec/CLIENT-JSON.md``.

Every line goes through :func:`protocol.text.safe_json`, so a control or format character in a
value is a ``\\u`` escape in the JSON text and the exact value once parsed; the lines it words
for people (``message``, ``text``, ``reason``) are made safe like the text front end's
(:func:`protocol.text.safe_text`), so each stays one line.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import protocol.table_messages as tm
from client.choices import ECHO_LIMIT, clip, normalise_card
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
from client.render import OutputClosed, render_outcome
from client.table_client import TableClient
from client.tracking import CardsLeft, DealNumbers, Presence
from client.wording import describe_event
from net.fairplay import FairNotice
from protocol.messages import Message
from protocol.text import safe_json, safe_text

__all__ = ["JsonUI"]


def _bytes_hex(value: object) -> str:
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


class JsonUI:
    """NDJSON front end (``--json``); see ``spec/CLIENT-JSON.md``."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out
        self._key_shown = False
        self.presence = Presence()  # who is connected, quiet across our own reconnect
        self.cards_left = CardsLeft()
        self.deals = DealNumbers()

    def emit(self, obj: dict[str, Any]) -> None:
        stream = self.out if self.out is not None else sys.stdout
        try:
            line = json.dumps(obj, default=_bytes_hex, ensure_ascii=False)
            stream.write(safe_json(line) + "\n")
            stream.flush()
        except BrokenPipeError:  # the script reading us is gone; not a network error
            raise OutputClosed("the output was closed") from None

    def info(self, text: str, **fields: Any) -> None:
        kind = str(fields.pop("kind", "info"))
        if kind == "reconnected":
            self.presence.reconnected()
        if isinstance(fields.get("message"), str):  # a record's verdict, say
            fields["message"] = safe_text(fields["message"])
        self.emit({"type": kind, "message": safe_text(text), **fields})

    def on_push(self, tc: TableClient, push: Message, notices: list[FairNotice]) -> None:
        self.cards_left.see(push)
        self.deals.see(tc, push)
        # an ``ok`` reaching the loop answers a message sent without an ``id`` (the client's
        # own fair_commit and fair_reveal): it answers nothing the script asked, so it is dropped
        if not isinstance(push, tm.FairPush | tm.Ok):
            # a private table's view has no hand: the seat client filled it from our cards
            if push is tc.private_state and tc.state is not None:
                push = tc.state
            obj = dict(push.to_wire())
            obj.pop("token", None)  # a resume token is a seat key: never print it
            if isinstance(push, tm.EventPush):
                event = tc.private_event(dict(push.event))
                line = (
                    None
                    if event is None
                    else describe_event(
                        event,
                        tc.name_of,
                        me=tc.seat,
                        ascii_only=True,
                        game_no=tc.game_no,
                        game=tc.game or None,
                    )
                )
                obj["text"] = None if line is None else line.plain
            elif isinstance(push, tm.StatePush):
                obj["my_turn"] = tc.my_turn
                if tc.private_state is not None:  # each play with the positions it opens
                    obj["plays"] = [p.to_json() for p in tc.plays]
            elif isinstance(push, tm.GameOver):
                obj["text"] = render_outcome(
                    push.outcome, tc.names, self.cards_left.shown, game=tc.game
                ).plain
            self.emit(obj)
        if isinstance(push, tm.TableInfo):
            for seat, name, back, said in self.presence.see(push, tc.seat):
                left = seat < len(push.seats) and push.seats[seat] is None
                self.emit(
                    {
                        "type": "presence",
                        "seat": seat,
                        "name": name,
                        "connected": back,
                        "left": left,
                        "message": safe_text(said),
                    }
                )
        for notice in notices:
            game = self.deals.games.get(notice.hand_no)
            where = {} if game is None else {"game_no": game[0], "game_hand_no": game[1]}
            verdict = {**notice.to_json(), "message": safe_text(notice.message)}
            self.emit({"type": "fairness", **verdict, **where})
        if not self._key_shown and tc.checker.key_fingerprint is not None:
            self._key_shown = True
            self.emit({"type": "deal_key", "fingerprint": tc.checker.key_fingerprint})

    def on_line(self, tc: TableClient, line: str, *, rematch_asked: bool = False) -> Intent | None:  # noqa: C901, PLR0912
        """The command a JSON line asks for, or None (an ``error`` object says what was
        wrong). While "Play again?" stands (``rematch_asked``) a line is first read as its
        answer: ``{"cmd": "rematch"}`` plays again, ``{"cmd": "quit"}`` or a line that is no
        command leaves, any other command is read as usual."""
        if rematch_asked:
            answer = rematch_answer(line)
            if answer is not None:
                return RematchIntent(answer)
        if not line.strip():
            return None
        try:
            cmd = json.loads(line)
        except ValueError as exc:
            self.emit({"type": "error", "message": f"not JSON: {exc}"})
            return None
        except RecursionError:
            self.emit({"type": "error", "message": "not JSON: nested too deeply"})
            return None
        if not isinstance(cmd, dict):
            self.emit({"type": "error", "message": "a command is a JSON object"})
            return None
        name = cmd.get("cmd")
        if name in ("quit", "leave"):
            return LeaveIntent(give_up=name == "leave")
        if name == "chat":
            text = cmd.get("text")
            if not isinstance(text, str):
                self.emit({"type": "error", "message": "chat needs a 'text' string"})
                return None
            problem = chat_problem(text)
            if problem is not None:
                self.emit({"type": "error", "message": problem})
                return None
            return ChatIntent(text)
        if name == "state":
            if tc.state is not None:
                self.on_push(tc, tc.state, [])
            return None
        if name == "act":
            return self._action(tc, cmd)
        if name == "add_bot":
            level = cmd.get("level", "normal")
            return AddBotIntent(level if isinstance(level, str) else "normal")
        if name == "explain":
            card = cmd.get("card")
            code = normalise_card(card) if isinstance(card, str) else None
            if code is None:
                self.emit({"type": "error", "message": "explain needs a 'card' code, like \"QS\""})
                return None
            return ExplainIntent(code)
        problem = 'missing "cmd"' if "cmd" not in cmd else f"unknown command {name!r}"
        if len(problem) > ECHO_LIMIT + 20:
            problem = f"unknown command {clip(str(name))!r}"
        self.emit({"type": "error", "message": f"{problem} (act, explain, chat, state, quit)"})
        return None

    def _action(self, tc: TableClient, cmd: dict[str, Any]) -> ActIntent | None:
        action, index = cmd.get("action"), cmd.get("index")
        if isinstance(action, dict):
            return ActIntent(action)
        legal = list(tc.state.legal) if tc.state is not None else []
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(legal):
            return ActIntent(dict(legal[index]))
        if action is not None:
            problem = "'action' must be a JSON object (a map from 'legal')"
        elif not legal:
            problem = "no legal moves now: not your turn"
        elif index is None:
            problem = f"act needs 'action' or 'index' (0 to {len(legal) - 1})"
        else:
            problem = f"'index' must be a whole number from 0 to {len(legal) - 1}, not {index!r}"
        self.emit({"type": "error", "message": problem})
        return None

    def on_explained(self, tc: TableClient, reply: tm.Explained) -> None:
        obj = dict(reply.to_wire())
        obj.pop("re", None)
        self.emit(obj)

    def on_refused(self, tc: TableClient, action: dict[str, Any], error: str) -> None:
        self.emit({"type": "refused", "action": action, "message": safe_text(error)})

    def on_acted(self, tc: TableClient, action: dict[str, Any]) -> None:
        self.emit({"type": "acted", "action": action})

    def end(self, tc: TableClient, reason: str) -> None:
        self.emit({"type": "end", "reason": safe_text(reason), "outcome": tc.outcome})
