"""A host that cheats on purpose (``onecard host --cheat KIND``), so client authors can see that
their client catches each kind of cheating live. Never part of an honest host.

How it works: the honest :class:`protocol.fairness.HandDealer` produces its signed messages as
always; a :class:`Cheat` installed on a table's runner (:func:`install`) rewrites that stream on
its way out, once per hand, in one of the ways of :class:`CheatKind` (``spec/PROTOCOL.md`` 7.15
lists them and what a client must report). Every public message after the change is re-chained
(new ``seq``/``prev``, a new ``private`` digest in HAND_END / VOID) and re-signed with the host's
own key, so a client sees exactly the one lie it is meant to catch, validly signed, and nothing
else out of place. The hand record the host stores is the rewritten one. Each change is logged
at WARNING level, and ``onecard host`` prints a banner at start-up.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.logs import get_logger
from host.table.runner import GameRunner
from protocol.cardfair import (
    SignedMessage,
    digest,
    fingerprint,
    private_next,
    ruleset_id,
    sign_message,
    transcript_next,
)
from protocol.cards import Card, Rank

__all__ = ["Cheat", "CheatKind", "banner", "changed", "install"]

log = get_logger(__name__)

Outgoing = list[tuple[int | None, SignedMessage]]


class CheatKind(enum.Enum):
    """The ways a ``--cheat`` host lies, each once per hand."""

    #: the first private CARD to each seat names another card than the one at its position
    SWAPPED_CARD = "swapped-card"
    #: the first DRAW of the hand carries a signature that does not verify
    BAD_SIGNATURE = "bad-signature"
    #: each RESHUFFLE leaves one card of the discard pile out of its ``cards``
    WRONG_RESHUFFLE = "wrong-reshuffle"
    #: REVEALS is never sent: the host deals after LOCK without showing the seats' values
    WITHHELD_REVEAL = "withheld-reveal"
    #: LOCK carries a host commitment other than the one HAND_COMMIT made
    CHANGED_COMMITMENT = "changed-commitment"
    #: the first DRAW of the hand is sent a second time, verbatim, right after itself
    REPLAYED_MESSAGE = "replayed-message"
    #: every hand is dealt from a deck with cards taken out (the 2s and 3s; ONE's 9s)
    SHORT_DECK = "short-deck"
    #: every hand is signed under a ruleset other than the table's (one option changed)
    CHANGED_OPTIONS = "changed-options"


def changed(options: Mapping[str, bool | int | str]) -> dict[str, bool | int | str]:
    """The options with one changed: the first boolean turned over, else the first integer
    plus one, else the first text option with ``-x`` appended.

    >>> changed({"target": 30, "downtown": "no-trump"})
    {'target': 31, 'downtown': 'no-trump'}
    """
    out = dict(options)
    for kind in (bool, int, str):
        for key in sorted(out):
            value = out[key]
            if type(value) is kind:
                if isinstance(value, bool):
                    out[key] = not value
                elif isinstance(value, int):
                    out[key] = value + 1
                else:
                    out[key] = f"{value}-x"
                return out
    return {**out, "cheat": True}


def banner(kind: CheatKind) -> str:
    """What ``onecard host --cheat`` prints before it listens."""
    return (
        f"*** CHEATING HOST (--cheat {kind.value}): its deals are NOT fair, on purpose, for "
        "testing clients; every client must report a fairness failure. ***"
    )


def install(runner: GameRunner, kind: CheatKind, signing_key: Ed25519PrivateKey) -> None:
    """Make a table's runner send its signed messages through a :class:`Cheat`."""
    runner.cheat = Cheat(kind, signing_key, runner.table_id)
    log.warning("table %s: CHEATING on purpose (%s)", runner.table_id, kind.value)


class Cheat:
    """Rewrites one table's signed messages; see the module docstring."""

    def __init__(self, kind: CheatKind, signing_key: Ed25519PrivateKey, table_id: str) -> None:
        self.kind = kind
        self._sk = signing_key
        self.table_id = table_id
        self._t = b""  # the transcript as the clients see it
        self._p = b""  # the chain over CARD messages as sent
        self._seq = 0
        self._seqs: dict[int, int] = {}  # the dealer's DRAW seq -> the seq sent
        self._done: set[Any] = set()  # what was already tampered with this hand
        self._sent: list[SignedMessage] = []  # this hand's messages as sent, for the record
        self._table_options: dict[str, bool | int | str] = {}

    def deal_terms(
        self, options: Mapping[str, bool | int | str], deck: Sequence[Card]
    ) -> tuple[dict[str, bool | int | str], list[Card]]:
        """The options and deck the next hand is signed under: the table's, but for a
        ``short-deck`` host a deck without its 2s and 3s (ONE's 9s, as it has neither), and
        for a ``changed-options`` host one option changed (:func:`changed`)."""
        self._table_options = dict(options)
        if self.kind is CheatKind.CHANGED_OPTIONS:
            other = changed(options)
            signed = ruleset_id("", other).partition("?")[2]
            log.warning("table %s: cheating: the hand is signed under %s", self.table_id, signed)
            return other, list(deck)
        if self.kind is CheatKind.SHORT_DECK:
            out = {Rank.TWO, Rank.THREE} & {c.rank for c in deck} or {Rank.NINE}
            short = [c for c in deck if c.rank not in out]
            log.warning(
                "table %s: cheating: dealing %d cards of %d", self.table_id, len(short), len(deck)
            )
            return dict(options), short
        return dict(options), list(deck)

    def rewrite(self, msgs: Sequence[tuple[int | None, SignedMessage]]) -> Outgoing:
        """The messages to send instead of the honest ``msgs``."""
        out: Outgoing = []
        for to, msg in msgs:
            out.extend(self._one(to, msg))
        return out

    def record(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """The hand record holding the messages as they were sent (and the table's options)."""
        rec = dict(record)
        if self._table_options:
            rec["options"] = dict(self._table_options)
        rec["messages"] = [[m.type, m.body.hex(), m.sig.hex()] for m in self._sent]
        rec["transcript"] = self._t.hex()
        rec["fingerprint"] = fingerprint(self._t)
        return rec

    def _one(self, to: int | None, msg: SignedMessage) -> Outgoing:
        body: dict[str, Any] = msgpack.unpackb(msg.body, raw=False)
        if msg.type == "hand_commit":
            self._t = self._p = body["prev"]
            self._seq, self._seqs, self._done, self._sent = 0, {}, set(), []
        if msg.type == "card":
            return [(to, self._card(body))]
        if msg.type == "reveals" and self.kind is CheatKind.WITHHELD_REVEAL:
            log.warning("table %s: cheating: REVEALS withheld", self.table_id)
            return []
        original_seq = int(body.get("seq", 0))
        body = self._tamper(msg.type, body)
        body["seq"], body["prev"] = self._seq, self._t
        if msg.type in ("hand_end", "void"):
            body["private"] = self._p
        sent = sign_message(self._sk, msg.type, body)
        if msg.type == "draw":
            self._seqs[original_seq] = self._seq
        self._t = transcript_next(self._t, sent.type, sent.body, sent.sig)
        self._seq += 1
        out: Outgoing = [(to, sent)]
        if msg.type == "draw" and self._first("draw"):
            if self.kind is CheatKind.BAD_SIGNATURE:
                log.warning("table %s: cheating: a DRAW with a bad signature", self.table_id)
                sent = SignedMessage(
                    sent.type, sent.body, sent.sig[:-1] + bytes([sent.sig[-1] ^ 1])
                )
                out = [(to, sent)]
            elif self.kind is CheatKind.REPLAYED_MESSAGE:
                log.warning("table %s: cheating: a DRAW sent twice", self.table_id)
                out.append((to, sent))
        self._sent.extend(m for _, m in out)
        return out

    def _first(self, what: object) -> bool:
        """True the first time ``what`` is asked about in this hand."""
        if what in self._done:
            return False
        self._done.add(what)
        return True

    def _tamper(self, msg_type: str, body: dict[str, Any]) -> dict[str, Any]:
        if msg_type == "lock" and self.kind is CheatKind.CHANGED_COMMITMENT:
            log.warning("table %s: cheating: LOCK changes the host's commitment", self.table_id)
            body["commit"] = digest(b"changed", body["commit"])
        if msg_type == "reshuffle" and self.kind is CheatKind.WRONG_RESHUFFLE:
            cards = list(body["cards"])
            if len(cards) > 1:
                log.warning("table %s: cheating: RESHUFFLE leaves out %s", self.table_id, cards[0])
                body["cards"] = cards[1:]
        return body

    def _card(self, body: dict[str, Any]) -> SignedMessage:
        body["seq"] = self._seqs.get(int(body["seq"]), body["seq"])
        if self.kind is CheatKind.SWAPPED_CARD and self._first(("card", body["to"])):
            swapped = "AS" if body["card"] != "AS" else "2S"
            log.warning(
                "table %s: cheating: seat %s is sent %s for %s",
                self.table_id,
                body["to"],
                swapped,
                body["card"],
            )
            body["card"] = swapped
        sent = sign_message(self._sk, "card", body)
        self._p = private_next(self._p, self._t, sent.body, sent.sig)
        self._sent.append(sent)
        return sent
