"""A minimal onecard client written from spec/PROTOCOL.md and spec/RULES.md alone.

It imports nothing from the project: only the standard library, ``msgpack`` and
``cryptography`` (for Ed25519), as a developer in another language would use their own msgpack
and Ed25519 libraries. It speaks plain TCP (the host's ``--insecure`` mode), creates a table,
takes seat 0, fills the other seats with host bots, does the seat's side of every fair-deal
round (commit, reveal after checking the lock) and checks each hand with its own ``cardfair/v1``
verifier (section 7.9), plays the first legal play (or the first legal action) on each turn
until ``game_over``, then fetches every hand record (section 4.6) and verifies it (section 8.2).
On its turns it also asks what a client without rules logic asks (4.2): ``explain`` for held cards
in no legal action and once for one in a legal action, one ``act`` naming an unparsable card, and
in Black Jack the blunder an ``explained`` reply offers; each answer is checked against 4.2.

Over TLS it pins the host's certificate on first use (2.1) in a caller's ``pins`` map, storing a
new pin only after a valid ``welcome``. It can also watch a table under a chat name and chat
(sections 3.2 and 6); ``ChatLog`` shows each numbered ``chat_line`` once.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import socket
import ssl
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

# --- cardfair/v1 primitives (PROTOCOL.md 7.2-7.6) ---------------------------------------------

DEALER_STREAM = 0xFFFFFFFF
SUITS = "SHDC"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


class FairnessError(Exception):
    """A cardfair/v1 check failed (the spec's error code `fairness`)."""


def u32(n: int) -> bytes:
    if not 0 <= n < 2**32:
        raise ValueError(f"u32 out of range: {n}")
    return struct.pack(">I", n)


def u64(n: int) -> bytes:
    if not 0 <= n < 2**64:
        raise ValueError(f"u64 out of range: {n}")
    return struct.pack(">Q", n)


def _b(field_: bytes | str) -> bytes:
    return field_.encode() if isinstance(field_, str) else field_


def enc(*fields: bytes | str) -> bytes:
    return b"".join(u32(len(_b(f))) + _b(f) for f in fields)


def label(name: str) -> bytes:
    return ("cardfair/v1/" + name).encode()


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def hmac256(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


def canonical_deck(
    *, decks: int = 1, jokers: Sequence[str] = (), ranks: Sequence[str] = RANKS
) -> list[str]:
    """The canonical order of 7.3: suits S H D C, ranks A..K, then JB, JR; duplicates adjacent."""
    cards = [r + s for s in SUITS for r in ranks] + [j for j in ("JB", "JR") if j in jokers]
    return [c for c in cards for _ in range(decks)]


def deck_digest(deck: Sequence[str]) -> bytes:
    return sha(enc(label("deck"), u32(len(deck)), *deck))


def ruleset_id(game: str, options: dict[str, Any]) -> str:
    if not options:
        return game

    def text(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    return game + "?" + "&".join(f"{k}={text(options[k])}" for k in sorted(options))


def make_ctx(
    table_id: str,
    hand_no: int,
    ruleset: str,
    deck: Sequence[str],
    *,
    pids: Sequence[str],
    host_pk: bytes,
) -> bytes:
    return sha(
        enc(
            label("ctx"),
            table_id,
            u64(hand_no),
            ruleset,
            deck_digest(deck),
            u32(len(pids)),
            *pids,
            host_pk,
        )
    )


def host_commit(ctx: bytes, secret: bytes) -> bytes:
    return sha(enc(label("host-commit"), ctx, secret))


def player_commit(ctx: bytes, pid: str, r: bytes) -> bytes:
    return sha(enc(label("player-commit"), ctx, pid, r))


def make_mix(ctx: bytes, reveals: Sequence[bytes]) -> bytes:
    return sha(enc(label("mix"), ctx, u32(len(reveals)), *reveals))


def deck_key(secret: bytes, ctx: bytes, mix: bytes) -> bytes:
    return hmac256(secret, enc(label("deck-key"), ctx, mix))


class Stream:
    """Stream `s` of 7.5: HMAC blocks read as big-endian 32-bit words."""

    def __init__(self, key: bytes, stream: int) -> None:
        self.key, self.stream, self.j, self.words = key, stream, 0, list[int]()

    def word(self) -> int:
        if not self.words:
            block = hmac256(self.key, enc(label("stream"), u32(self.stream), u64(self.j)))
            self.j += 1
            self.words = list(struct.unpack(">8I", block))
        return self.words.pop(0)

    def below(self, n: int) -> int:
        if n < 2:
            return 0
        lo = 2**32 % n
        while True:
            w = self.word()
            if w >= lo:
                return w % n


def shuffle(key: bytes, stream: int, cards: Sequence[str]) -> list[str]:
    a, reader = list(cards), Stream(key, stream)
    for i in range(len(a) - 1, 0, -1):
        j = reader.below(i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def choose_dealer(key: bytes, seats: int) -> int:
    return Stream(key, DEALER_STREAM).below(seats)


def cert_fingerprint(cert_der: bytes) -> str:
    """2.1: SHA-256 of the DER certificate, displayed `SHA256:ab:cd:...`."""
    return "SHA256:" + ":".join(f"{b:02x}" for b in sha(cert_der))


def spki_fingerprint(cert_der: bytes) -> str:
    """2.5 `welcome.fingerprint`: `sha256:` + hex SHA-256 of the DER SubjectPublicKeyInfo."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    key = x509.load_der_x509_certificate(cert_der).public_key()
    spki = key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256:" + sha(spki).hex()


def fingerprint(digest: bytes) -> str:
    h = digest[:8].hex()
    return "-".join(h[i : i + 4] for i in range(0, 16, 4))


def next_transcript(t: bytes, type_: str, body: bytes, sig: bytes) -> bytes:
    return sha(enc(label("transcript"), t, type_, body, sig))


def next_private(p: bytes, t: bytes, body: bytes, sig: bytes) -> bytes:
    return sha(enc(label("private"), p, t, body, sig))


def verify_signature(host_pk: bytes, type_: str, body: bytes, sig: bytes) -> None:
    try:
        Ed25519PublicKey.from_public_bytes(host_pk).verify(sig, enc(label("sig"), type_, body))
    except (InvalidSignature, ValueError) as exc:
        raise FairnessError(f"bad signature on {type_}") from exc


# --- the client checks of 7.9 -------------------------------------------------------------------


@dataclass
class HandVerifier:
    """Checks one fairness hand. `my_seat` None is an auditor (accepts `card` for every seat).

    `live` is true for a client that also sees the game's events (`note_shown`): then 7.9 makes
    every card dealt face down to the table a card some event must show before `hand_end`. A
    record (section 8) holds no game events, so its auditor runs with `live` false.
    """

    table_id: str
    pids: list[str]
    my_seat: int | None
    host_pk: bytes | None = None  # pinned key; None: pin on the first hand_commit
    ruleset: str | None = None
    deck: list[str] | None = None
    last_hand_no: int = 0
    seen_commits: set[bytes] = field(default_factory=set)
    # progress
    step: str = "start"
    t: bytes = b""
    p: bytes = b""  # chain over card messages (7.6)
    private: bytes = b""  # the signed digest of hand_end / void
    next_seq: int = 0
    ctx: bytes = b""
    hand_no: int = 0
    ruleset_id: str = ""  # the signed one, from hand_commit
    c_s: bytes = b""
    my_r: bytes | None = None
    my_c: bytes | None = None
    commits: list[bytes] = field(default_factory=list)
    reveals: list[bytes] = field(default_factory=list)
    dealer: int | None = None
    stream: int = 0
    sizes: dict[int, int] = field(default_factory=dict)
    next_pos: dict[int, int] = field(default_factory=dict)
    reshuffles: dict[int, list[str]] = field(default_factory=dict)
    draws: dict[int, dict[str, Any]] = field(default_factory=dict)  # by seq
    carded: set[int] = field(default_factory=set)
    checks: list[tuple[int, int, str, str]] = field(default_factory=list)  # stream, pos, card, why
    shown: list[tuple[list[str], list[tuple[int, int]]]] = field(default_factory=list)
    live: bool = False
    stocks: dict[int, list[str]] = field(default_factory=dict)  # derived at hand_end
    shown_checked: list[tuple[int, int, str]] = field(default_factory=list)  # stream, pos, card
    result: str | None = None  # "valid" or "void" once the hand ended
    secret: bytes = b""
    outcome: dict[str, Any] | None = None
    cards_checked: int = 0
    announced: dict[tuple[int, int], int | None] = field(default_factory=dict)  # 7.9 live
    pile: list[str] = field(default_factory=list)  # the discard pile, from events' `pile`

    def note_event(self, event: dict[str, Any]) -> None:
        """7.9, live clients: a public event's `seats` (parallel to `positions`) says where each
        card goes; its `pile` lists the cards it put face up on the discard pile."""
        if "to" in event:
            return  # a private event
        positions, seats = event.get("positions"), event.get("seats")
        if isinstance(seats, list):
            if not isinstance(positions, list) or len(positions) != len(seats):
                raise FairnessError("event seats do not match its positions")
            for (s, pos), seat in zip(positions, seats, strict=True):
                self.announced[(s, pos)] = seat
        if isinstance(event.get("pile"), list):
            self.pile.extend(event["pile"])

    def feed(self, type_: str, body: bytes, sig: bytes) -> dict[str, Any]:
        if self.result is not None:
            raise FairnessError(f"{type_} after the hand ended")
        if type_ == "hand_commit":
            if self.step != "start":
                raise FairnessError("hand_commit out of order")
            pk = msgpack.unpackb(body, raw=False).get("host_pk")  # peek: the key to check with
            if not isinstance(pk, bytes) or len(pk) != 32:
                raise FairnessError("hand_commit host_pk is not 32 bytes")
            if self.host_pk is None:
                self.host_pk = pk
            if pk != self.host_pk:
                raise FairnessError("hand_commit host_pk is not the pinned key")
        if self.host_pk is None:
            raise FairnessError(f"{type_} before hand_commit")
        verify_signature(self.host_pk, type_, body, sig)
        m = msgpack.unpackb(body, raw=False)
        if not isinstance(m, dict):
            raise FairnessError(f"{type_} body is not a map")
        if type_ == "card":
            self._card(m)
            self.p = next_private(self.p, self.t, body, sig)
            return m
        if m.get("seq") != self.next_seq:
            raise FairnessError(f"{type_} seq {m.get('seq')} != {self.next_seq}")
        handler = getattr(self, "_" + type_, None)
        if handler is None:
            raise FairnessError(f"unknown message type {type_}")
        if type_ != "hand_commit" and m.get("prev") != self.t:
            raise FairnessError(f"{type_} prev is not the transcript")
        handler(m)
        self.t = next_transcript(self.t, type_, body, sig)
        self.next_seq += 1
        return m

    def _hand_commit(self, m: dict[str, Any]) -> None:
        if m.get("scheme") != "cardfair/v1":
            raise FairnessError("scheme is not cardfair/v1")
        if m["table_id"] != self.table_id or list(m["pids"]) != self.pids:
            raise FairnessError("hand_commit table or seats unexpected")
        if self.ruleset is not None and m["ruleset_id"] != self.ruleset:
            raise FairnessError(f"ruleset {m['ruleset_id']!r} != expected {self.ruleset!r}")
        # 7.3: the deck is the one the signed ruleset deals at this many seats, nothing else
        if list(m["deck"]) != ruleset_deck(m["ruleset_id"], len(m["pids"])):
            raise FairnessError(
                f"hand_commit deck ({len(m['deck'])} cards) is not the deck of ruleset "
                f"{m['ruleset_id']!r} at {len(m['pids'])} seats"
            )
        if self.deck is not None and list(m["deck"]) != self.deck:
            raise FairnessError("hand_commit deck unexpected")
        if m["hand_no"] <= self.last_hand_no:
            raise FairnessError("hand_no did not increase")
        if m["commit"] in self.seen_commits:
            raise FairnessError("host commitment reused")
        ctx = make_ctx(
            m["table_id"],
            m["hand_no"],
            m["ruleset_id"],
            m["deck"],
            pids=m["pids"],
            host_pk=m["host_pk"],
        )
        if m.get("prev") != ctx:
            raise FairnessError("hand_commit prev is not the recomputed ctx")
        self.ctx, self.t, self.hand_no, self.c_s = ctx, ctx, m["hand_no"], m["commit"]
        self.p, self.ruleset_id = ctx, m["ruleset_id"]
        self.deck = list(m["deck"])
        self.seen_commits.add(self.c_s)
        self.sizes[0], self.next_pos[0] = len(self.deck), 0
        self.step = "committing"

    def make_commit(self) -> bytes:
        assert self.my_seat is not None and self.step == "committing"
        self.my_r = os.urandom(32)
        self.my_c = player_commit(self.ctx, self.pids[self.my_seat], self.my_r)
        return self.my_c

    def _lock(self, m: dict[str, Any]) -> None:
        if self.step != "committing":
            raise FairnessError("lock out of order")
        if m["commit"] != self.c_s:
            raise FairnessError("lock commit differs from hand_commit")
        entries = m["commits"]
        if [e[0] for e in entries] != self.pids:
            raise FairnessError("lock commits not one per seat in seat order")
        self.commits = [bytes(e[1]) for e in entries]
        if len(set(self.commits)) != len(self.commits):
            raise FairnessError("two equal commitments in lock")
        if self.my_c is not None and self.commits[self.my_seat or 0] != self.my_c:
            raise FairnessError("own commitment missing or changed in lock")
        self.step = "locked"

    def _reveals(self, m: dict[str, Any]) -> None:
        if self.step != "locked":
            raise FairnessError("reveals out of order")
        entries = m["reveals"]
        if [e[0] for e in entries] != self.pids:
            raise FairnessError("reveals not one per seat in seat order")
        self.reveals = [bytes(e[1]) for e in entries]
        for pid, r, c in zip(self.pids, self.reveals, self.commits, strict=True):
            if len(r) != 32 or player_commit(self.ctx, pid, r) != c:
                raise FairnessError(f"reveal of {pid} does not open its commitment")
        if self.my_r is not None and self.reveals[self.my_seat or 0] != self.my_r:
            raise FairnessError("own reveal changed")
        self.step = "dealing"

    def _dealer(self, m: dict[str, Any]) -> None:
        if self.step != "dealing" or self.dealer is not None:
            raise FairnessError("dealer out of order")
        if m["stream"] != DEALER_STREAM or m["seats"] != len(self.pids):
            raise FairnessError("dealer stream or seats wrong")
        if not 0 <= m["dealer"] < len(self.pids):
            raise FairnessError("dealer is not a seat")
        self.dealer = m["dealer"]

    def _draw(self, m: dict[str, Any]) -> None:
        if self.step != "dealing":
            raise FairnessError("draw before reveals")
        s, pos, to, card = m["stream"], m["pos"], m["to"], m["card"]
        if s != self.stream:
            raise FairnessError(f"draw from stream {s}, current is {self.stream}")
        if pos != self.next_pos[s] or pos >= self.sizes[s]:
            raise FairnessError(f"draw position {pos} is not the next unused {self.next_pos[s]}")
        if to is not None and not 0 <= to < len(self.pids):
            raise FairnessError("draw to a non-seat")
        if self.live:
            if (s, pos) not in self.announced:
                raise FairnessError(f"draw at [{s}, {pos}]: no game event said where it goes")
            if self.announced[(s, pos)] != to:
                raise FairnessError(
                    f"draw at [{s}, {pos}] to {to}, the game event said {self.announced[(s, pos)]}"
                )
        assert self.deck is not None
        if card is not None:
            if card not in self.deck:
                raise FairnessError(f"face-up card {card} is not in the deck")
            self.checks.append((s, pos, card, "face-up"))
        self.next_pos[s] = pos + 1
        self.draws[m["seq"]] = m

    def _card(self, m: dict[str, Any]) -> None:
        d = self.draws.get(m["seq"])
        if d is None or m["seq"] in self.carded:
            raise FairnessError("card names no draw, or a second card for one draw")
        if (d["stream"], d["pos"], d["to"]) != (m["stream"], m["pos"], m["to"]):
            raise FairnessError("card differs from its draw")
        if d["card"] is not None or d["to"] is None:
            raise FairnessError("card for a face-up or table draw")
        if self.my_seat is not None and m["to"] != self.my_seat:
            raise FairnessError("card for another seat")
        assert self.deck is not None
        if m["card"] not in self.deck:
            raise FairnessError("card not in the deck")
        self.carded.add(m["seq"])
        self.checks.append((m["stream"], m["pos"], m["card"], "card"))

    def _reshuffle(self, m: dict[str, Any]) -> None:
        if self.step != "dealing" or m["stream"] != self.stream + 1:
            raise FairnessError("reshuffle out of order")
        assert self.deck is not None
        cards = list(m["cards"])
        index = {c: i for i, c in reversed(list(enumerate(self.deck)))}
        if not cards or [index.get(c, -1) for c in cards] != sorted(
            index.get(c, -1) for c in cards
        ):
            raise FairnessError("reshuffle cards empty or not in canonical order")
        kept = list(m["kept"])
        if [index.get(c, -1) for c in kept] != sorted(index.get(c, -1) for c in kept):
            raise FairnessError("reshuffle kept cards not in canonical order")
        pool = list(self.deck)
        for c in cards + kept:
            if c not in pool:
                raise FairnessError("reshuffle cards are not a sub-multiset of the deck")
            pool.remove(c)
        if self.live:
            if sorted(cards + kept) != sorted(self.pile):
                raise FairnessError(
                    f"reshuffle {m['stream']} does not recycle the discard pile: it names "
                    f"{sorted(cards + kept)}, the pile holds {sorted(self.pile)}"
                )
            self.pile = kept
        self.stream = m["stream"]
        self.reshuffles[self.stream] = cards
        self.sizes[self.stream], self.next_pos[self.stream] = len(cards), 0

    def note_shown(self, cards: list[str], positions: list[tuple[int, int]]) -> None:
        """Cards a game event showed for drawn positions (7.9 `hand_end`), as a multiset.

        Before `hand_end` they wait for the derived deck; after it they are compared at once
        (7.9). After a `void` nothing was dealt that could be compared, so they are ignored.
        """
        if self.result is None:
            self.shown.append((cards, positions))
        elif self.result == "valid":
            self._compare_shown(cards, positions)
            self.cards_checked += len(cards)

    def _compare_shown(self, cards: list[str], positions: list[tuple[int, int]]) -> None:
        for s, pos in positions:
            if s not in self.stocks or not 0 <= pos < self.next_pos.get(s, 0):
                raise FairnessError(f"a game event shows a card at [{s}, {pos}], never drawn")
        derived_cards = [self.stocks[s][pos] for s, pos in positions]
        if sorted(derived_cards) != sorted(cards):
            raise FairnessError(f"shown cards {cards} at {positions}, derived {derived_cards}")
        for (s, pos), card in zip(positions, cards, strict=True):
            self.shown_checked.append((s, pos, card))

    def _hand_end(self, m: dict[str, Any]) -> None:
        if self.step != "dealing":
            raise FairnessError("hand_end before reveals")
        secret = m["secret"]
        if host_commit(self.ctx, secret) != self.c_s:
            raise FairnessError("secret does not open the host commitment")
        used = dict(m["used"])
        drawn = {s: n for s, n in self.next_pos.items() if n or s in used}
        if used != drawn:
            raise FairnessError(f"used {used} differs from the draws seen {drawn}")
        assert self.deck is not None
        key = deck_key(secret, self.ctx, make_mix(self.ctx, self.reveals))
        stocks = {0: shuffle(key, 0, self.deck)}
        for s, cards in self.reshuffles.items():
            stocks[s] = shuffle(key, s, cards)
        if self.dealer is not None and choose_dealer(key, len(self.pids)) != self.dealer:
            raise FairnessError("announced dealer differs from the derived one")
        for s, pos, card, why in self.checks:
            derived = stocks[s][pos]
            if derived != card:
                raise FairnessError(
                    f"{why} card at stream {s} position {pos} is {card}, derived {derived}"
                )
        self.stocks = stocks
        for cards, positions in self.shown:
            self._compare_shown(cards, positions)
        if self.live:
            # 7.9: a card dealt face down to the table must have been shown by now
            shown_at = {pos for _, positions in self.shown for pos in positions}
            for d in self.draws.values():
                at = (d["stream"], d["pos"])
                if d["to"] is None and d["card"] is None and at not in shown_at:
                    raise FairnessError(
                        f"the card dealt face down to the table at [{at[0]}, {at[1]}] "
                        "was never shown before hand_end"
                    )
        self.cards_checked = len(self.checks) + sum(len(c) for c, _ in self.shown)
        self.secret, self.outcome = secret, m.get("outcome")
        self.private = m["private"]
        self.result = "valid"

    def _void(self, m: dict[str, Any]) -> None:
        if self.step == "start":
            raise FairnessError("void before hand_commit")
        if host_commit(self.ctx, m["secret"]) != self.c_s:
            raise FairnessError("void secret does not open the host commitment")
        if any(p not in self.pids for p in m["missing"]):
            raise FairnessError("void names an unseated pid")
        self.secret, self.outcome = m["secret"], None
        self.private = m["private"]
        self.result = "void"

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.t)


def record_hex(value: Any) -> bytes:
    """8.1: bytes are lowercase hex strings, two digits a byte; anything else fails."""
    if not isinstance(value, str) or re.fullmatch(r"(?:[0-9a-f]{2})*", value) is None:
        raise FairnessError(f"not lowercase hex: {str(value)[:20]!r}")
    return bytes.fromhex(value)


def same_json(a: Any, b: Any) -> bool:
    """8.2: plain fields equal the signed values as JSON values (2.0 is not 2, true not 1)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def verify_record(record: dict[str, Any], *, host_pk: bytes | None = None) -> HandVerifier:  # noqa: C901, PLR0912
    """Section 8.2 for a host-served record: feed every message to an auditor verifier."""
    if record.get("format") != "onecard-hand-record/1" or record.get("scheme") != "cardfair/v1":
        raise FairnessError("not a cardfair/v1 hand record")
    for key in ("partial", "voided", "dealer_chosen"):
        if key in record and not isinstance(record[key], bool):
            raise FairnessError(f"record field {key} is not a bool")
    if "options" in record and "game" not in record:
        raise FairnessError("record has options without game")
    pk = record_hex(record["host_pk"])
    if host_pk is not None and pk != host_pk:
        raise FairnessError("record signed by another host key")
    messages = [(t, record_hex(b), record_hex(g)) for t, b, g in record["messages"]]
    v = HandVerifier(
        table_id=record["table_id"],
        pids=list(record["pids"]),
        my_seat=None,
        host_pk=pk,
        ruleset=record.get("ruleset_id"),
        deck=record.get("deck"),
    )
    for type_, body, sig in messages:
        v.feed(type_, body, sig)
    if v.result is None:
        raise FairnessError("record ends before hand_end or void")
    if "game" in record:  # 8.1: the table's game and options give the signed ruleset
        signed = msgpack.unpackb(bytes.fromhex(record["messages"][0][1]), raw=False)["ruleset_id"]
        if ruleset_id(record["game"], record.get("options") or {}) != signed:
            raise FairnessError(f"record game and options are not the signed ruleset {signed!r}")
    if v.result == "valid" and not record.get("partial"):
        for seq, d in v.draws.items():
            if d["to"] is not None and d["card"] is None and seq not in v.carded:
                raise FairnessError(f"no card for the face-down draw of seq {seq}")
    if not record.get("partial") and v.private != v.p:
        raise FairnessError("the signed 'private' digest does not match the record's cards")
    if record.get("hand_no", v.hand_no) != v.hand_no:
        raise FairnessError("record hand_no differs")
    if "game" in record and ruleset_id(record["game"], record.get("options", {})) != v.ruleset_id:
        raise FairnessError("record game and options differ from the signed ruleset_id")
    if "ctx" in record and record_hex(record["ctx"]) != v.ctx:
        raise FairnessError("record ctx differs")
    if "secret" in record and record_hex(record["secret"]) != v.secret:
        raise FairnessError("record secret differs from the S revealed by the host")
    if "voided" in record and record["voided"] != (v.result == "void"):
        raise FairnessError("record voided flag differs")
    outcome = record.get("outcome")
    if v.result == "valid" and v.outcome is not None and not same_json(outcome, v.outcome):
        raise FairnessError("record outcome differs from the signed one")
    if "transcript" in record and record_hex(record["transcript"]) != v.t:
        raise FairnessError("record transcript differs")
    if "fingerprint" in record and record["fingerprint"] != v.fingerprint:
        raise FairnessError("record fingerprint differs")
    return v


# --- transport and framing (PROTOCOL.md 2.1-2.5) -------------------------------------------------

MAX_FRAME = 65536


class ProtocolError(Exception):
    pass


class HostError(Exception):
    def __init__(self, msg: dict[str, Any]) -> None:
        super().__init__(f"{msg.get('code')}: {msg.get('message')}")
        self.code = msg.get("code")


class Connection:
    """One framed msgpack stream; over TLS, `pins` maps `host:port` to a pinned fingerprint.

    A pinned address whose certificate differs is refused before anything is sent (2.1). An
    unpinned one leaves its fingerprint in `new_pin`, which the client stores only after a
    valid `welcome` (`SpecClient.handshake`).
    """

    def __init__(
        self,
        host: str,
        port: int,
        timeout: float = 30.0,
        tls: bool = False,
        pins: dict[str, str] | None = None,
    ) -> None:
        raw = socket.create_connection((host, port), timeout=timeout)
        self.sock: socket.socket = raw
        self.cert_der: bytes | None = None
        self.address = f"{host}:{port}"
        self.pins = pins
        self.new_pin: str | None = None
        if tls:
            # 2.1: TLS 1.3 only; no chain check, the caller pins the certificate fingerprint
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            context.minimum_version = ssl.TLSVersion.TLSv1_3
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            self.sock = context.wrap_socket(raw, server_hostname=host)
            self.cert_der = self.sock.getpeercert(binary_form=True)  # type: ignore[attr-defined]
            if self.cert_der is None:
                self.sock.close()
                raise ProtocolError("the host sent no certificate")
            seen = cert_fingerprint(self.cert_der)
            pinned = None if pins is None else pins.get(self.address)
            if pinned is not None and pinned != seen:
                self.sock.close()
                raise ProtocolError(
                    f"certificate of {self.address} is {seen}, pinned {pinned}: refused"
                )
            if pins is not None and pinned is None:
                self.new_pin = seen
        self.next_id = 1
        self.last_sent = time.monotonic()
        self.max_frame = MAX_FRAME

    def send(self, msg: dict[str, Any]) -> Any:
        msg = dict(msg)
        if "id" not in msg:
            msg["id"] = self.next_id
            self.next_id += 1
        body = msgpack.packb(msg, use_bin_type=True)
        if not 1 <= len(body) <= self.max_frame:
            raise ProtocolError("frame too large")
        self.sock.sendall(struct.pack(">I", len(body)) + body)
        self.last_sent = time.monotonic()
        return msg["id"]  # type: ignore[no-any-return]

    def _read_exactly(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ProtocolError("connection closed")
            buf += chunk
        return bytes(buf)

    def recv(self) -> dict[str, Any]:
        (length,) = struct.unpack(">I", self._read_exactly(4))
        if not 1 <= length <= self.max_frame:
            raise ProtocolError(f"bad frame length {length}")
        msg = msgpack.unpackb(self._read_exactly(length), raw=False, strict_map_key=True)
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            raise ProtocolError("frame is not a message map")
        return msg

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.send({"type": "bye", "reason": "done"})
        self.sock.close()


# --- the client ------------------------------------------------------------------------------


def ruleset_deck(ruleset: str, seats: int) -> list[str]:
    """7.3's deck table read from a signed `ruleset_id` alone (option values are text there)."""
    game, _, rest = ruleset.partition("?")
    options = dict(part.partition("=")[::2] for part in rest.split("&")) if rest else {}
    return expected_deck(game, seats, options)


def expected_deck(game: str, seats: int, options: dict[str, Any]) -> list[str]:
    """The deck of a hand per the table of PROTOCOL.md 7.3, in canonical order; a game or deck
    option the table does not define is refused, never guessed."""
    if game == "one-card":
        return canonical_deck(jokers=("JB", "JR"))
    if game == "one":
        return canonical_deck(jokers=("JR",), ranks=["A", "9", "10", "J", "Q", "K"])
    if game == "black-jack":
        decks, jokers = str(options.get("decks", "auto")), str(options.get("jokers", 0))
        if decks not in ("auto", "1", "2") or jokers not in ("0", "1", "2"):
            raise FairnessError(f"no black-jack deck with decks={decks} jokers={jokers}")
        n = (2 if seats > 5 else 1) if decks == "auto" else int(decks)
        return canonical_deck(decks=n, jokers={"0": (), "1": ("JR",), "2": ("JB", "JR")}[jokers])
    raise FairnessError(f"ruleset of unknown game {game!r}: its deck is not defined")


def _is_position(p: Any) -> bool:
    return (
        isinstance(p, list)
        and len(p) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in p)
    )


def shown_cards(event: dict[str, Any]) -> tuple[list[str], list[tuple[int, int]]] | None:
    """Cards an event shows with the `[stream, pos]` they came from (7.9).

    `cards` with `positions` (One Card's `dealt`/`turn_up`/`drawn`, ONE's `hand`, Black Jack's
    private `draw`), or one `card` with `position` (ONE's `centre`) or with `positions` of
    length 1 (Black Jack's `turn_up`). `cards` and `positions` are compared as multisets: ONE's
    `hand` event lists its cards in canonical order, not in the order of `positions`.
    """
    cards, positions = event.get("cards"), event.get("positions")
    card = event.get("card")
    if isinstance(card, str):
        if _is_position(event.get("position")):
            cards, positions = [card], [event["position"]]
        elif isinstance(positions, list) and len(positions) == 1:
            cards = [card]
    if not isinstance(cards, list) or not isinstance(positions, list):
        return None
    if len(cards) != len(positions) or not cards:
        return None
    if not all(isinstance(c, str) for c in cards) or not all(map(_is_position, positions)):
        return None
    return cards, [(p[0], p[1]) for p in positions]


def put_down(action: dict[str, Any]) -> list[str]:
    """The cards an action puts down: `cards` (One Card, Black Jack) or `card` (ONE).

    Black Jack's `declare` names joker identities, not cards held, so it does not count.
    """
    cards = action.get("cards")
    if isinstance(cards, list):
        return [c for c in cards if isinstance(c, str)]
    card = action.get("card")
    return [card] if isinstance(card, str) else []


def forgiving(card: str) -> str:
    """The same card as a host must read it (4.2): lower case, `T` for ten (`10H` -> `th`)."""
    return ("T" + card[2:] if card.startswith("10") else card).lower()


LEGAL_CUT = 300  # 4.2: Black Jack stops `legal` at 300 plays; a card off the list may be legal


@dataclass
class Probes:
    """What the client asked about during a game besides its own moves (4.2).

    `explained` holds each checked `explained` reply with what was expected: `"unplayable"`
    (the card is in no legal action) or `"playable"` (it is in one). `bad_card` is the `error`
    an `act` naming card `ZZ` got; `blunder` the `event` that followed the `ack` of a blunder
    sent as `explained.action` (Black Jack).
    """

    explained: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    bad_card: dict[str, Any] | None = None
    blunder: dict[str, Any] | None = None
    dropped: int = 0  # probes refused with `rate_limited` (dropped, not retried)


class SpecError(AssertionError):
    """The host answered a probe in a way section 4.2 does not allow."""


def check_explained(
    reply: dict[str, Any],
    *,
    table: str,
    card: str,
    playable: bool,
    blunders: bool,
    cut: bool,
) -> None:
    """4.2 / 9: the fields of `explained` and what they must say about `card`.

    `playable`: the card is in some action of `state.legal`; `blunders`: the game accepts
    blunders (Black Jack, option `blunders` on); `cut`: `legal` may have been cut short (4.2), so
    a card in no listed action may still have a legal play.
    """

    def need(ok: bool, what: str) -> None:
        if not ok:
            raise SpecError(f"explained for {card}: {what}: {reply}")

    need(reply.get("table") == table, "table")
    need(reply.get("card") == card, "card is not the canonical code asked about")
    reason, blunder, action = reply.get("reason"), reply.get("blunder"), reply.get("action")
    need(isinstance(reason, str) and len(reason) <= 1000, "reason is not a str 0..1000")
    need(isinstance(blunder, bool), "blunder is not a bool")
    need(action is None or isinstance(action, dict), "action is neither a map nor nil")
    if action is not None:
        need(put_down(action) == [card], "action does not put down this card alone")
    if playable:
        need(reason == "", "a card of a legal action has a reason")
        need(blunder is False, "a legal play called a blunder")
        return
    if reason == "" and cut:
        return  # a legal play left off the cut list
    need(reason != "", "a card in no legal action has no reason")
    if blunders:
        need(blunder is True and action is not None, "no blunder offered with blunders on")
    else:
        need(blunder is False, "blunder without blunders")
        need(action is None, "an action for a card neither legal nor a blunder")


@dataclass
class GameResult:
    table: str
    seat: int
    outcome: dict[str, Any]
    hands: dict[int, HandVerifier]
    records: dict[int, HandVerifier]
    host_pk: bytes
    actions: int
    notes: list[str]
    probes: Probes = field(default_factory=Probes)

    @property
    def deal_key_fingerprint(self) -> str:
        return fingerprint(sha(self.host_pk))


@dataclass
class ChatLog:
    """The chat lines a client shows (section 6), each numbered line once per table.

    A line whose `n` is not above the last `n` shown at its table is skipped (a backlog sent
    again after `watch` or `resume`). An unnumbered line (`n` absent or 0, from another host)
    cannot be told from a repeat, so it is always shown and leaves the last `n` alone.
    """

    last_n: dict[str, int] = field(default_factory=dict)
    lines: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0

    def add(self, line: dict[str, Any]) -> bool:
        n, table = line.get("n") or 0, line["table"]
        if n > 0:
            if n <= self.last_n.get(table, 0):
                self.skipped += 1
                return False
            self.last_n[table] = n
        self.lines.append(line)
        return True

    @staticmethod
    def render(line: dict[str, Any]) -> str:
        """A spectator's line is marked: its name may be a seated player's (section 6)."""
        who = line["name"] if line.get("seat") is not None else f"{line['name']} (watching)"
        return f"{who}: {line['text']}"


class SpecClient:
    def __init__(
        self,
        host: str,
        port: int,
        name: str = "Spec",
        tls: bool = False,
        pins: dict[str, str] | None = None,
    ) -> None:
        self.conn = Connection(host, port, tls=tls, pins=pins)
        self.name = name
        self.notes: list[str] = []
        self.pending: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self.chat_log = ChatLog()

    def _push(self, msg: dict[str, Any]) -> None:
        """Keep a push aside for the game loop; chat lines go to the chat log."""
        if msg["type"] == "chat_line":
            self.chat_log.add(msg)
        else:
            self.pending.append(msg)

    # request/reply with pushes kept aside
    def request(self, msg: dict[str, Any], want: str) -> dict[str, Any]:
        rid = self.conn.send(msg)
        while True:
            reply = self.conn.recv()
            if reply.get("re") == rid:
                if reply["type"] == "error" and reply.get("code") == "rate_limited":
                    time.sleep(0.25)  # 6: dropped for rate; send it again later
                    rid = self.conn.send({k: v for k, v in msg.items() if k != "id"})
                    continue
                if reply["type"] == "error":
                    raise HostError(reply)
                if reply["type"] != want:
                    raise ProtocolError(f"expected {want}, got {reply['type']}")
                return reply
            self._push(reply)

    def handshake(self) -> dict[str, Any]:
        welcome = self.request(
            {"type": "hello", "protocol": "onecard", "versions": [1], "software": "spec-client/1"},
            "welcome",
        )
        if welcome["version"] != 1:
            raise ProtocolError("version_mismatch")
        if not isinstance(welcome.get("limits"), dict):
            raise ProtocolError("welcome without limits")
        self.conn.max_frame = int(welcome["limits"].get("max_frame_bytes", MAX_FRAME))
        self.welcome = welcome
        if self.conn.new_pin is not None and self.conn.pins is not None:
            # 2.1: a first-use pin only once the host has proved to be a onecard host
            self.conn.pins[self.conn.address] = self.conn.new_pin
            self.conn.new_pin = None
        return welcome

    def watch(self, table: str, name: str | None = None) -> dict[str, Any]:
        """3.2 `watch`; `name` is the chat name (absent: the host says `spectator`)."""
        msg: dict[str, Any] = {"type": "watch", "table": table}
        if name is not None:
            msg["name"] = name
        return self.request(msg, "watching")

    def chat(self, table: str, text: str) -> None:
        self.request({"type": "chat", "table": table, "text": text}, "ok")

    def sync(self) -> None:
        """Read until the host answers a `ping`: every push sent before it has arrived."""
        self.request({"type": "ping"}, "pong")

    def wait_chat(self, count: int) -> list[dict[str, Any]]:
        """Read until the chat log shows `count` lines (the socket timeout bounds the wait)."""
        while len(self.chat_log.lines) < count:
            self._push(self.conn.recv())
        return self.chat_log.lines

    def play_game(  # noqa: C901, PLR0912, PLR0915
        self,
        game: str,
        seats: int,
        options: dict[str, Any] | None = None,
        deadline: float = 50,
        *,
        probe: bool = True,
        max_explains: int = 6,
    ) -> GameResult:
        """Play one game at a new table filled with host bots, checking every fair deal.

        With `probe`, on its turns the client also asks what a client without rules logic asks
        (4.2): `explain` for up to `max_explains` held cards in no legal action and once for a
        card in one (sent in a forgiving form), one `act` naming card `ZZ` (`bad_card`, not
        fatal), and in Black Jack with blunders on, once, the blunder `explained.action` offers.
        """
        if self.welcome is None:
            self.handshake()
        games = self.request({"type": "list_games"}, "games")["games"]
        assert any(g["name"] == game for g in games), games
        created = self.request(
            {"type": "create_table", "game": game, "seats": seats, "options": options or {}},
            "table_created",
        )
        table = created["table"]
        table_options = dict(created["info"]["options"])
        joined = self.request({"type": "join", "table": table, "name": self.name}, "joined")
        my_seat = joined["seat"]
        for _ in range(seats - 1):
            self.request({"type": "add_bot", "table": table}, "bot_added")
        self.conn.send({"type": "ready", "table": table})

        ruleset = ruleset_id(game, table_options)
        deck = expected_deck(game, seats, table_options)
        names: list[str] | None = None
        hands: dict[int, HandVerifier] = {}
        current: HandVerifier | None = None
        host_pk: bytes | None = None
        last_hand_no = 0
        seen_commits: set[bytes] = set()
        act_seq = 0
        awaiting_ack: int | None = None
        latest_state: dict[str, Any] | None = None
        outcome: dict[str, Any] | None = None
        acts = 0
        last_act: dict[str, Any] = {}
        stop_at = time.monotonic() + deadline
        blunders = game == "black-jack" and table_options.get("blunders", True) is True
        probes = Probes()
        # id -> (kind, canonical card, legal may be cut); kind: unplayable, playable, bad_card
        asked: dict[Any, tuple[str, str, bool]] = {}
        explained_cards: set[str] = set()
        playable_asked = bad_card_sent = blunder_sent = False
        probed: dict[str, Any] | None = None  # the state a probe was sent on: one per turn
        blunder_id: Any = None  # the blunder act's id until its ack
        blunder_event_due = False  # its ack came: the next event must be the blunder
        blunder_cards: list[str] = []

        def send_act(action: dict[str, Any]) -> Any:
            nonlocal act_seq, awaiting_ack, acts, last_act
            act_seq += 1
            last_act = {"type": "act", "table": table, "seq": act_seq, "action": action}
            awaiting_ack = self.conn.send(last_act)
            acts += 1
            return awaiting_ack

        def maybe_probe(st: dict[str, Any]) -> bool:
            """Send one probe; true: wait for its answer before acting.

            The `ZZ` act first (refused, it brings no new `state`: 4.2), then one `explain` per
            turn: a card of a legal action once, first, then held cards in no legal action.
            """
            nonlocal playable_asked, bad_card_sent, probed
            legal: list[dict[str, Any]] = st["legal"]
            hand = [c for c in (st["view"].get("hand") or []) if isinstance(c, str)]
            in_legal = {c for a in legal for c in put_down(a)}
            cut = len(legal) >= LEGAL_CUT
            plays = [a for a in legal if a.get("type") == "play"]
            if not bad_card_sent and plays:
                bad_card_sent = True
                # ONE puts down one `card`, the others a list of `cards`
                bad: dict[str, Any] = {"type": "play", "cards": ["ZZ"]}
                if "card" in plays[0]:
                    bad = {"type": "play", "card": "ZZ"}
                # the seq a refused act used is free again (4.2: it changes nothing)
                msg = {"type": "act", "table": table, "seq": act_seq + 1, "action": bad}
                asked[self.conn.send(msg)] = ("bad_card", "ZZ", cut)
                return True
            if st is probed:
                return False
            probed = st
            playable = [c for c in hand if c in in_legal]
            if playable and not playable_asked:
                playable_asked = True
                # a ten shows the forgiving `T` best, then a face card or joker (lower case)
                card = next((c for c in playable if c.startswith("10")), playable[-1])
                rid = self.conn.send({"type": "explain", "table": table, "card": forgiving(card)})
                asked[rid] = ("playable", card, cut)
                return True
            unplayable = [c for c in hand if c not in in_legal and c not in explained_cards]
            if unplayable and len(explained_cards) < max_explains:
                card = unplayable[0]
                explained_cards.add(card)
                rid = self.conn.send({"type": "explain", "table": table, "card": card})
                asked[rid] = ("unplayable", card, cut)
                return True
            return False

        def maybe_act() -> None:
            st = latest_state
            if awaiting_ack is not None or asked or st is None or outcome is not None:
                return
            if st["phase"] != "playing" or my_seat not in st["to_act"] or not st["legal"]:
                return
            if probe and maybe_probe(st):
                return
            legal = st["legal"]
            send_act(next((a for a in legal if a.get("type") == "play"), legal[0]))

        def answered(msg: dict[str, Any]) -> None:
            """A reply to a probe: check it, maybe blunder, then go on with the turn."""
            nonlocal blunder_sent, blunder_id, blunder_cards, bad_card_sent
            kind, card, cut = asked.pop(msg["re"])
            if msg["type"] == "error" and msg.get("code") == "rate_limited":
                probes.dropped += 1  # 6: dropped; a probe is not worth sending again
                if kind == "bad_card":
                    bad_card_sent = False  # try it again on a later turn
            elif kind == "bad_card":
                if (msg["type"], msg.get("code"), msg.get("fatal")) != ("error", "bad_card", False):
                    raise SpecError(f"act with card ZZ: expected a non-fatal bad_card, got {msg}")
                probes.bad_card = msg
            elif msg["type"] != "explained":
                raise HostError(msg) if msg["type"] == "error" else ProtocolError(str(msg))
            else:
                check_explained(
                    msg,
                    table=table,
                    card=card,
                    playable=kind == "playable",
                    blunders=blunders,
                    cut=cut,
                )
                probes.explained.append((kind, msg))
                action = msg["action"]
                if msg["blunder"] and action is not None and not blunder_sent:
                    blunder_sent = True
                    blunder_cards = put_down(action)
                    blunder_id = send_act(action)
                    return
            maybe_act()

        while outcome is None:
            if time.monotonic() > stop_at:
                raise TimeoutError(f"{game}: no game_over within {deadline} s")
            msg = self.pending.pop(0) if self.pending else self.conn.recv()
            t = msg["type"]
            if msg.get("re") is not None and msg["re"] in asked:
                answered(msg)
                continue
            if t == "error":
                if msg.get("fatal"):
                    raise HostError(msg)
                if msg.get("re") is not None and msg.get("re") == awaiting_ack:
                    self.notes.append(f"act refused: {msg.get('code')} {msg.get('message')}")
                    if msg.get("code") == "rate_limited":
                        # 6: resend the same act (same seq) once the bucket has refilled
                        time.sleep(0.25)
                        resent = self.conn.send({**last_act, "id": self.conn.next_id})
                        self.conn.next_id += 1
                        if blunder_id is not None and blunder_id == awaiting_ack:
                            blunder_id = resent
                        awaiting_ack = resent
                        continue
                    if blunder_id is not None and blunder_id == awaiting_ack:
                        raise SpecError(f"the blunder explained.action offered was refused: {msg}")
                    # refused: the seq was not used; pick again from the next state
                    act_seq -= 1
                    awaiting_ack = None
                    latest_state = None
                    continue
                raise HostError(msg)
            if t == "game_start":
                names = list(msg["names"])
                act_seq = 0
            elif t == "fair":
                type_, body, sig = msg["msg"]
                if type_ == "hand_commit":
                    if names is None:
                        raise ProtocolError("hand_commit before game_start")
                    current = HandVerifier(
                        table_id=table,
                        pids=names,
                        my_seat=my_seat,
                        host_pk=host_pk,
                        ruleset=ruleset,
                        deck=deck,
                        last_hand_no=last_hand_no,
                        seen_commits=seen_commits,
                        live=True,
                    )
                    current.feed(type_, body, sig)
                    host_pk = current.host_pk
                    last_hand_no = current.hand_no
                    if msg["hand_no"] != current.hand_no:
                        raise FairnessError("fair push hand_no differs from the signed one")
                    hands[current.hand_no] = current
                    if my_seat not in msg.get("host_seats", []):
                        self.conn.send(
                            {
                                "type": "fair_commit",
                                "table": table,
                                "hand_no": current.hand_no,
                                "c": current.make_commit(),
                            }
                        )
                else:
                    if current is None or msg["hand_no"] != current.hand_no:
                        raise FairnessError(f"{type_} for an unknown hand {msg['hand_no']}")
                    current.feed(type_, body, sig)
                    if type_ == "lock" and current.my_r is not None:
                        self.conn.send(
                            {
                                "type": "fair_reveal",
                                "table": table,
                                "hand_no": current.hand_no,
                                "r": current.my_r,
                            }
                        )
            elif t == "event":
                ev = msg["event"]
                if blunder_event_due:
                    # 4.2: a blunder is a legal game event; the first one after its ack
                    blunder_event_due = False
                    if (ev.get("kind"), ev.get("seat")) != ("blunder", my_seat):
                        raise SpecError(f"blunder acked, then {ev} instead of a blunder event")
                    if sorted(ev.get("cards") or []) != sorted(blunder_cards):
                        raise SpecError(f"blunder event shows {ev} for {blunder_cards}")
                    probes.blunder = ev
                if current is not None:  # after hand_end: compared at once (7.9)
                    current.note_event(ev)
                    shown = shown_cards(ev)
                    if shown is not None:
                        current.note_shown(*shown)
            elif t == "ack":
                if msg.get("re") == awaiting_ack:
                    if blunder_id is not None and awaiting_ack == blunder_id:
                        if msg.get("duplicate") is not False:
                            raise SpecError(f"blunder act not applied: {msg}")
                        blunder_id, blunder_event_due = None, True
                    awaiting_ack = None
                    latest_state = None  # states sent before the ack may be stale
            elif t == "state":
                latest_state = msg
                maybe_act()
            elif t == "chat_line":
                self.chat_log.add(msg)
            elif t == "game_over":
                outcome = msg["outcome"]
            elif t in ("bye", "server_closing"):
                raise ProtocolError(f"host closed: {msg}")
            if time.monotonic() - self.conn.last_sent > 10:
                self.conn.send({"type": "ping"})

        # every hand's fair deal must have ended before game_over
        for hand_no, v in hands.items():
            if v.result is None:
                raise FairnessError(f"hand {hand_no} has no hand_end or void")
        assert host_pk is not None
        records: dict[int, HandVerifier] = {}
        listed = self.request({"type": "list_records", "table": table}, "records")["hands"]
        for hand_no in listed:
            records[hand_no] = self.fetch_record(table, hand_no, host_pk)
        if blunder_id is not None or blunder_event_due:
            raise SpecError("a blunder act was never answered by ack and a blunder event")
        return GameResult(
            table, my_seat, outcome, hands, records, host_pk, acts, self.notes, probes
        )

    def fetch_record(self, table: str, hand_no: int, host_pk: bytes) -> HandVerifier:
        rid = self.conn.send({"type": "get_record", "table": table, "hand_no": hand_no})
        parts: dict[int, str] = {}
        total = None
        while total is None or len(parts) < total:
            msg = self.conn.recv()
            if msg.get("re") != rid:
                self._push(msg)  # a late push
                continue
            if msg["type"] == "error" and msg.get("code") == "rate_limited":
                time.sleep(0.25)
                rid = self.conn.send({"type": "get_record", "table": table, "hand_no": hand_no})
                continue
            if msg["type"] == "error":
                raise HostError(msg)
            parts[msg["part"]] = msg["text"]
            total = msg["parts"]
        record = json.loads("".join(parts[i] for i in range(total)))
        return verify_record(record, host_pk=host_pk)

    def close(self) -> None:
        self.conn.close()
