"""A second, independent ``cardfair/v1`` implementation, written from spec/PROTOCOL.md 7-8 only.

How it works: it imports nothing from ``protocol/`` (only hashlib, hmac, json and
``cryptography`` for Ed25519) and carries its own small msgpack decoder, card order and record
checker. ``check_all(vectors_dir)`` recomputes every value in ``spec/vectors`` and returns a
list of mismatches (empty when the spec and the reference agree); ``python
independent_cardfair.py [DIR]`` prints them. A test runs it, so the spec stays reimplementable.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

# --------------------------------------------------------------------------- 7.2 encodings

SUITS = "SHDC"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
CANON = [r + s for s in SUITS for r in RANKS] + ["JB", "JR"]
INDEX = {c: i for i, c in enumerate(CANON)}
DEALER = 4294967295


def be32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def be64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def frame(*fields: bytes | str) -> bytes:
    out = b""
    for f in fields:
        raw = f.encode("utf-8") if isinstance(f, str) else f
        out += be32(len(raw)) + raw
    return out


def lab(x: str) -> bytes:
    return ("cardfair/v1/" + x).encode("utf-8")


def sha(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def hm(k: bytes, m: bytes) -> bytes:
    return hmac.new(k, m, hashlib.sha256).digest()


# --------------------------------------------------------------------------- 7.3-7.5


def deck_digest(deck: list[str]) -> bytes:
    return sha(frame(lab("deck"), be32(len(deck)), *deck))


def make_ctx(f: dict[str, Any]) -> bytes:
    """``ctx`` from a map with table_id, hand_no, ruleset_id, deck, pids, host_pk (bytes)."""
    head = [lab("ctx"), f["table_id"], be64(f["hand_no"]), f["ruleset_id"]]
    seats = [be32(len(f["pids"])), *f["pids"]]
    return sha(frame(*head, deck_digest(f["deck"]), *seats, f["host_pk"]))


def rules_id(game: str, options: dict[str, Any]) -> str:
    if not options:
        return game
    parts = []
    for k in sorted(options):
        v = options[k]
        parts.append(k + "=" + (("true" if v else "false") if isinstance(v, bool) else str(v)))
    return game + "?" + "&".join(parts)


def table_deck(rid: str, seats: int) -> list[str] | None:
    """7.3's deck table, from the ruleset string alone; None for a ruleset it does not define."""
    game, _, rest = rid.partition("?")
    opts = dict(p.split("=", 1) for p in rest.split("&") if "=" in p) if rest else {}
    packs, jokers = 1, ["JB", "JR"]
    if game == "one":
        return [r + s for s in SUITS for r in RANKS if r in ("A", "9", "10", "J", "Q", "K")] + [
            "JR"
        ]
    if game == "black-jack":
        j, d = opts.get("jokers", "0"), opts.get("decks", "auto")
        if j not in ("0", "1", "2") or d not in ("auto", "1", "2"):
            return None
        jokers = {"0": [], "1": ["JR"], "2": ["JB", "JR"]}[j]
        packs = (2 if seats > 5 else 1) if d == "auto" else int(d)
    elif game != "one-card":
        return None
    return [c for c in CANON[:52] + jokers for _ in range(packs)]


def c_host(ctx: bytes, s: bytes) -> bytes:
    return sha(frame(lab("host-commit"), ctx, s))


def c_seat(ctx: bytes, pid: str, r: bytes) -> bytes:
    return sha(frame(lab("player-commit"), ctx, pid, r))


def mixed(ctx: bytes, rs: list[bytes]) -> bytes:
    return sha(frame(lab("mix"), ctx, be32(len(rs)), *rs))


def key_of(s: bytes, ctx: bytes, m: bytes) -> bytes:
    return hm(s, frame(lab("deck-key"), ctx, m))


class Words:
    def __init__(self, k: bytes, s: int) -> None:
        self.k, self.s, self.j, self.pending = k, s, 0, b""
        self.log: list[tuple[int, bool]] = []

    def word(self) -> int:
        if not self.pending:
            self.pending = hm(self.k, frame(lab("stream"), be32(self.s), be64(self.j)))
            self.j += 1
        w, self.pending = int.from_bytes(self.pending[:4], "big"), self.pending[4:]
        return w

    def below(self, n: int) -> int:
        if n < 2:
            return 0
        lo = (1 << 32) % n
        while True:
            w = self.word()
            self.log.append((w, w < lo))
            if w >= lo:
                return w % n


def shuffled(k: bytes, s: int, cards: list[str]) -> list[str]:
    a = list(cards)
    rd = Words(k, s)
    for i in range(len(a) - 1, 0, -1):
        j = rd.below(i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def fp(t: bytes) -> str:
    h = t[:8].hex()
    return "-".join([h[0:4], h[4:8], h[8:12], h[12:16]])


# --------------------------------------------------------------------------- msgpack (decode only)


class Unpack:
    def __init__(self, b: bytes) -> None:
        self.b, self.i = b, 0

    def take(self, n: int) -> bytes:
        if self.i + n > len(self.b):
            raise ValueError("truncated msgpack")
        out = self.b[self.i : self.i + n]
        self.i += n
        return out

    def uint(self, n: int) -> int:
        return int.from_bytes(self.take(n), "big")

    def value(self) -> Any:
        t = self.take(1)[0]
        if t <= 0x7F:
            return t
        if t >= 0xE0:
            return t - 0x100
        if 0x80 <= t <= 0x8F:
            return self.map(t & 0x0F)
        if 0x90 <= t <= 0x9F:
            return [self.value() for _ in range(t & 0x0F)]
        if 0xA0 <= t <= 0xBF:
            return self.take(t & 0x1F).decode("utf-8")
        simple = {0xC0: None, 0xC2: False, 0xC3: True}
        if t in simple:
            return simple[t]
        sizes = {0xC4: 1, 0xC5: 2, 0xC6: 4}
        if t in sizes:
            return bytes(self.take(self.uint(sizes[t])))
        sizes = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
        if t in sizes:
            return self.uint(sizes[t])
        sizes = {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
        if t in sizes:
            return int.from_bytes(self.take(sizes[t]), "big", signed=True)
        sizes = {0xD9: 1, 0xDA: 2, 0xDB: 4}
        if t in sizes:
            return self.take(self.uint(sizes[t])).decode("utf-8")
        if t in (0xDC, 0xDD):
            return [self.value() for _ in range(self.uint(2 if t == 0xDC else 4))]
        if t in (0xDE, 0xDF):
            return self.map(self.uint(2 if t == 0xDE else 4))
        raise ValueError(f"unsupported msgpack byte {t:#x}")

    def map(self, n: int) -> dict[Any, Any]:
        out = {}
        for _ in range(n):
            k = self.value()
            out[k] = self.value()
        return out


def unpack(b: bytes) -> Any:
    u = Unpack(b)
    v = u.value()
    if u.i != len(b):
        raise ValueError("trailing bytes")
    return v


# --------------------------------------------------------------------------- 7.6-7.9, 8.2


class Fail(Exception):
    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(kind, detail)
        self.kind, self.detail = kind, detail


def need(cond: bool, kind: str, detail: str = "") -> None:
    if not cond:
        raise Fail(kind, detail)


def hx(text: Any) -> bytes:
    """Record bytes (8.1): lowercase hex, two digits a byte, and nothing else."""
    ok = isinstance(text, str) and len(text) % 2 == 0
    need(ok and all(ch in "0123456789abcdef" for ch in text), "RecordError", "hex")
    return bytes.fromhex(text)


def verify_record(rec: Any) -> tuple[str, int | None, str]:
    """``("ok", None, fingerprint)`` / ``("void", None, fp)`` or ``(kind, index, detail)``."""
    idx: int | None = None
    try:
        need(isinstance(rec, dict), "RecordError")
        for f in ("format", "scheme", "table_id", "hand_no", "host_pk", "pids", "messages"):
            need(f in rec, "RecordError", f)
        need(rec["format"] == "onecard-hand-record/1", "RecordError")
        need(rec["scheme"] == "cardfair/v1", "RecordError")
        for f in ("partial", "voided", "dealer_chosen"):
            need(f not in rec or isinstance(rec[f], bool), "RecordError", f)
        need("options" not in rec or "game" in rec, "RecordError", "options without game")
        pk_raw = hx(rec["host_pk"])
        need(len(pk_raw) == 32, "RecordError")
        pk = Ed25519PublicKey.from_public_bytes(pk_raw)
        msgs = [(t, hx(b), hx(s)) for t, b, s in rec["messages"]]
        st = Audit(pk, pk_raw, rec)
        for idx, (t, body, sig) in enumerate(msgs):  # noqa: B007  (idx names the failure)
            st.feed(t, body, sig)
        idx = None
        st.finish_record()
        return ("void" if st.voided else "ok", None, fp(st.t))
    except Fail as f:
        return (f.kind, idx, f.detail)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return ("BadMessageError" if idx is not None else "RecordError", idx, str(exc))


class Audit:
    def __init__(self, pk: Ed25519PublicKey, pk_raw: bytes, rec: dict[str, Any]) -> None:
        self.pk, self.pk_raw, self.rec = pk, pk_raw, rec
        self.ctx = b""
        self.t = b""
        self.p = b""  # the chain over CARD messages (7.6), checked against 'private' at the end
        self.seq = 0
        self.step = ""
        self.ended = False
        self.voided = False
        self.secret = b""
        self.commits: dict[str, bytes] = {}
        self.reveals: dict[str, bytes] = {}
        self.cur = -1
        self.used: dict[int, int] = {}
        self.sizes: dict[int, list[str]] = {}
        self.draws: dict[int, dict[str, Any]] = {}
        self.cards: dict[int, str] = {}
        self.dealer: int | None = None
        self.outcome: Any = None
        self.missing: list[str] = []

    def feed(self, t: str, body: bytes, sig: bytes) -> None:
        need(not self.ended, "FairnessStateError")
        try:
            self.pk.verify(sig, frame(lab("sig"), t, body))
        except InvalidSignature:
            raise Fail("SignatureError", t) from None
        try:
            b = unpack(body)
        except ValueError:
            raise Fail("BadMessageError") from None
        need(isinstance(b, dict), "BadMessageError")
        if t == "card":
            self.on_card(b)
            self.p = sha(frame(lab("private"), self.p, self.t, body, sig))
            return
        if t == "hand_commit":
            self.on_hand_commit(b)
        else:
            need(self.ctx != b"", "FairnessStateError")
            need(b.get("seq") == self.seq, "PositionError", "seq")
            need(b.get("prev") == self.t, "PositionError", "prev")
            handler = getattr(self, "on_" + t, None)
            need(handler is not None, "BadMessageError", t)
            assert handler is not None
            handler(b)
        self.t = sha(frame(lab("transcript"), self.t, t, body, sig))
        self.seq += 1

    def allowed(self, *steps: str) -> None:
        need(self.step in steps, "FairnessStateError")

    def on_hand_commit(self, b: dict[str, Any]) -> None:
        need(self.ctx == b"", "FairnessStateError")
        need(b["scheme"] == "cardfair/v1", "ContextError")
        need(b["host_pk"] == self.pk_raw, "ContextError")
        need(b["table_id"] == self.rec["table_id"], "ContextError")
        need(b["pids"] == self.rec["pids"], "ContextError")
        if "ruleset_id" in self.rec:
            need(b["ruleset_id"] == self.rec["ruleset_id"], "RulesetError")
        want = table_deck(b["ruleset_id"], len(b["pids"]))
        need(want is not None, "RulesetError")
        need(b["deck"] == want, "DeckError")
        if "deck" in self.rec:
            need(b["deck"] == self.rec["deck"], "DeckError")
        need(all(c in INDEX for c in b["deck"]), "BadMessageError")
        need([INDEX[c] for c in b["deck"]] == sorted(INDEX[c] for c in b["deck"]), "ContextError")
        self.hc = b
        self.ctx = make_ctx(b)
        need(b["seq"] == 0, "PositionError")
        need(b["prev"] == self.ctx, "ContextError")
        self.t = self.p = self.ctx
        self.step = "hand_commit"

    def on_lock(self, b: dict[str, Any]) -> None:
        self.allowed("hand_commit")
        need(b["commit"] == self.hc["commit"], "CommitmentError")
        pairs = b["commits"]
        need([p for p, _ in pairs] == self.hc["pids"], "CommitmentError")
        values = [c for _, c in pairs]
        need(len(set(values)) == len(values), "CommitmentError", "copied")
        self.commits = dict(pairs)
        self.step = "lock"

    def on_reveals(self, b: dict[str, Any]) -> None:
        self.allowed("lock")
        pairs = b["reveals"]
        need([p for p, _ in pairs] == self.hc["pids"], "CommitmentError")
        for p, r in pairs:
            need(len(r) == 32 and c_seat(self.ctx, p, r) == self.commits[p], "CommitmentError", p)
        self.reveals = dict(pairs)
        self.step = "reveals"

    def on_dealer(self, b: dict[str, Any]) -> None:
        self.allowed("reveals")
        need(b["stream"] == DEALER, "PositionError", "dealer stream")  # 7.9 dealer-stream
        need(b["seats"] == len(self.hc["pids"]), "ContextError", "dealer seats")  # dealer-seats
        self.dealer = b["dealer"]
        self.step = "dealer"

    def on_draw(self, b: dict[str, Any]) -> None:
        self.allowed("reveals", "dealer", "draw", "reshuffle")
        if self.cur < 0:
            self.cur, self.used[0], self.sizes[0] = 0, 0, self.hc["deck"]
        s, p, to = b["stream"], b["pos"], b["to"]
        seat = isinstance(to, int) and not isinstance(to, bool) and 0 <= to < len(self.hc["pids"])
        need(to is None or seat, "BadMessageError", "draw to")  # 7.9 draw-to, before the stream
        need(s == self.cur, "PositionError", "stream")
        need(p == self.used[s], "PositionError", f"{p} vs {self.used[s]}")
        need(p < len(self.sizes[s]), "PositionError")
        need(b["card"] is None or b["card"] in INDEX, "BadMessageError")
        self.used[s] = p + 1
        self.draws[self.seq] = b
        self.step = "draw"

    def on_card(self, b: dict[str, Any]) -> None:
        d = self.draws.get(b["seq"])
        need(d is not None, "PositionError")
        assert d is not None
        need(b["to"] is not None, "BadMessageError")
        need((b["stream"], b["pos"], b["to"]) == (d["stream"], d["pos"], d["to"]), "PositionError")
        need(d["card"] is None and b["seq"] not in self.cards, "PositionError")
        need(b["card"] in INDEX, "BadMessageError")
        need(b["card"] in self.hc["deck"], "CardMismatchError")
        self.cards[b["seq"]] = b["card"]

    def on_reshuffle(self, b: dict[str, Any]) -> None:
        self.allowed("draw", "reshuffle")
        k, cards = b["stream"], b["cards"]
        need(k == self.cur + 1, "PositionError")
        need(bool(cards) and all(c in INDEX for c in cards), "BadMessageError")
        need([INDEX[c] for c in cards] == sorted(INDEX[c] for c in cards), "BadMessageError")
        pool = list(self.hc["deck"])
        for c in cards:
            need(c in pool, "CardMismatchError")
            pool.remove(c)
        self.cur, self.used[k], self.sizes[k] = k, 0, cards
        self.step = "reshuffle"

    def open_secret(self, b: dict[str, Any]) -> None:
        need(c_host(self.ctx, b["secret"]) == self.hc["commit"], "CommitmentError", "S")
        self.secret = b["secret"]
        self.ended = True

    def on_hand_end(self, b: dict[str, Any]) -> None:
        self.allowed("reveals", "dealer", "draw", "reshuffle")
        self.open_secret(b)
        claimed = {s: n for s, n in b["used"] if n}
        need(claimed == {s: n for s, n in self.used.items() if n}, "PositionError", "used")
        k = key_of(self.secret, self.ctx, mixed(self.ctx, [r for _, r in self.reveals.items()]))
        orders = {s: shuffled(k, s, cards) for s, cards in self.sizes.items()}
        if 0 not in orders:
            orders[0] = shuffled(k, 0, self.hc["deck"])
        if self.dealer is not None:
            want = Words(k, DEALER).below(len(self.hc["pids"]))
            need(want == self.dealer, "CardMismatchError", f"dealer {self.dealer} vs {want}")
        for seq, d in self.draws.items():
            got = d["card"] if d["card"] is not None else self.cards.get(seq)
            if got is not None:
                want_card = orders[d["stream"]][d["pos"]]
                detail = f"stream {d['stream']} position {d['pos']} is {got}, derived {want_card}"
                need(got == want_card, "CardMismatchError", detail)
        for seq, d in self.draws.items():  # an auditor sees every CARD unless partial
            if d["card"] is None and d["to"] is not None and self.rec.get("partial") is not True:
                need(seq in self.cards, "PositionError", "withheld")
        self.check_private(b)
        self.outcome = b["outcome"]

    def check_private(self, b: dict[str, Any]) -> None:
        need(isinstance(b.get("private"), bytes) and len(b["private"]) == 32, "BadMessageError")
        if self.rec.get("partial") is not True:
            need(b["private"] == self.p, "CommitmentError", "private")

    def on_void(self, b: dict[str, Any]) -> None:
        self.open_secret(b)
        need(all(p in self.hc["pids"] for p in b["missing"]), "BadMessageError")
        self.check_private(b)
        self.voided, self.missing = True, list(b["missing"])

    def finish_record(self) -> None:
        rec = self.rec
        need(self.ended, "RecordError", "not ended")
        need(rec["hand_no"] == self.hc["hand_no"], "RecordError")
        if "game" in rec:
            rid = rules_id(rec["game"], rec.get("options") or {})
            need(rid == self.hc["ruleset_id"], "RulesetError")
        if "ctx" in rec:
            need(hx(rec["ctx"]) == self.ctx, "RecordError")
        if "secret" in rec:
            need(hx(rec["secret"]) == self.secret, "RecordError", "secret")
        if "voided" in rec:
            need(rec["voided"] is self.voided, "RecordError")
        if "missing" in rec:
            need(rec["missing"] == self.missing, "RecordError")
        if "reveals" in rec:
            for p, r in rec["reveals"]:
                rb = hx(r)
                if self.reveals:
                    need(self.reveals.get(p) == rb, "RecordError")
                else:
                    need(c_seat(self.ctx, p, rb) == self.commits.get(p), "RecordError")
        if rec.get("dealer_chosen"):
            need(rec.get("dealer") == self.dealer, "RecordError")
        if self.outcome is not None and rec.get("outcome") is not None:
            same = json.dumps(rec["outcome"], sort_keys=True)  # as JSON: 2.0 is not 2
            need(same == json.dumps(self.outcome, sort_keys=True), "RecordError", "outcome")
        if "transcript" in rec:
            need(hx(rec["transcript"]) == self.t, "RecordError")
        if "fingerprint" in rec:
            need(rec["fingerprint"] == fp(self.t), "RecordError")


# --------------------------------------------------------------------------- the vectors


def check_all(vectors: Path) -> list[str]:  # noqa: C901, PLR0915
    bad: list[str] = []

    def eq(what: str, got: object, want: object) -> None:
        if got != want:
            bad.append(f"{what}: got {got!r}, want {want!r}")

    def load(name: str) -> Any:
        return json.loads((vectors / name).read_text(encoding="utf-8"))

    pv = load("primitives.json")
    enc_v = pv["encodings"]
    for c in enc_v["u32"]:
        eq(f"u32({c['n']})", be32(c["n"]).hex(), c["hex"])
    for c in enc_v["u64"]:
        eq(f"u64({c['n']})", be64(int(c["n"])).hex(), c["hex"])  # decimal strings
    for c in enc_v["enc"]:
        eq(f"enc{c['fields_utf8']}", frame(*c["fields_utf8"]).hex(), c["hex"])
        raw = [bytes.fromhex(f) for f in c["fields_hex"]]  # the same fields, as bytes
        eq(f"enc{c['fields_hex']}", frame(*raw).hex(), c["hex"])
    for name, h in enc_v["labels"].items():
        eq(f"label {name}", lab(name).hex(), h)
    i = pv["inputs"]
    pk, secret = bytes.fromhex(i["host_pk"]), bytes.fromhex(i["secret"])
    rs = [bytes.fromhex(r) for r in i["reveals"]]
    eq("deck order", i["deck"], CANON)
    eq("deck_digest", deck_digest(i["deck"]).hex(), pv["deck_digest"])
    one = [r + s for s in SUITS for r in ["A", "9", "10", "J", "Q", "K"]] + ["JR"]
    eq("deck_one", pv["deck_one"], one)  # the input of deck_digest_one
    eq("deck_digest_one", deck_digest(one).hex(), pv["deck_digest_one"])
    ctx = make_ctx({**i, "host_pk": pk})
    eq("ctx", ctx.hex(), pv["ctx"])
    eq("C_S", c_host(ctx, secret).hex(), pv["host_commit"])
    for p, r in zip(i["pids"], rs, strict=True):
        eq(f"c_{p}", c_seat(ctx, p, r).hex(), pv["player_commits"][p])
    m = mixed(ctx, rs)
    eq("mix", m.hex(), pv["mix"])
    k = key_of(secret, ctx, m)
    eq("K", k.hex(), pv["deck_key"])
    for c in pv["stream_blocks"]:
        got = hm(k, frame(lab("stream"), be32(c["stream"]), be64(c["j"]))).hex()
        eq(f"block {c['stream']}/{c['j']}", got, c["hex"])
    w = Words(k, 0)
    eq(
        "stream 0 words",
        [f"{w.word():08x}" for _ in pv["stream0_first_words"]],
        pv["stream0_first_words"],
    )
    for c in pv["below"]:
        rd = Words(k, c["stream"])
        got_r = [rd.below(c["n"]) for _ in c["results"]]
        eq(f"below({c['n']}) results", got_r, c["results"])
        logged = [{"word": f"{x:08x}", "rejected": rej} for x, rej in rd.log]
        eq(f"below({c['n']}) words", logged, c["words"])
    tr = pv["transcript"]
    t = sha(
        frame(
            lab("transcript"),
            bytes.fromhex(tr["prev"]),
            tr["type"],
            bytes.fromhex(tr["body"]),
            bytes.fromhex(tr["sig"]),
        )
    )
    eq("transcript", t.hex(), tr["next"])
    try:  # transcript.sig is the signature of signer_pk (signed.json's key) over the LOCK body
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(tr["signer_pk"])).verify(
            bytes.fromhex(tr["sig"]), frame(lab("sig"), tr["type"], bytes.fromhex(tr["body"]))
        )
    except InvalidSignature:
        bad.append("transcript sig does not verify under signer_pk")
    eq("fingerprint", fp(t), tr["fingerprint"])
    pr = tr["private"]
    p = sha(
        frame(
            lab("private"),
            bytes.fromhex(pr["prev"]),
            bytes.fromhex(pr["transcript"]),
            bytes.fromhex(pr["body"]),
            bytes.fromhex(pr["sig"]),
        )
    )
    eq("private", p.hex(), pr["next"])

    sv = load("shuffles.json")
    k2 = bytes.fromhex(sv["deck_key"])
    eq("shuffles key", k2, k)
    for name in ("deck54", "deck_one"):
        c = sv[name]
        eq(name, shuffled(k2, c["stream"], c["cards"]), c["order"])
    eq("deck_one cards", [x for x in CANON if x in sv["deck_one"]["cards"]], one)
    for c in sv["reshuffles"]:
        eq(f"reshuffle {c['stream']}", shuffled(k2, c["stream"], c["cards"]), c["order"])
    for c in sv["dealer"]["choices"]:
        eq(f"dealer of {c['seats']}", Words(k2, DEALER).below(c["seats"]), c["dealer"])

    gv = load("signed.json")
    sk = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(gv["seed"]))
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    eq(
        "public key",
        sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex(),
        gv["public_key"],
    )
    signed = frame(lab("sig"), gv["type"], bytes.fromhex(gv["body"]))
    eq("signed bytes", signed.hex(), gv["signed_bytes"])
    eq("signature", sk.sign(signed).hex(), gv["sig"])

    eq("valid record", verify_record(load("hand_record.json"))[0], "ok")
    eq(
        "valid record fp",
        verify_record(load("hand_record.json"))[2],
        load("hand_record.json")["fingerprint"],
    )
    for case in load("tampered_records.json")["cases"]:
        kind, index, detail = verify_record(case["record"])
        eq(f"tampered {case['name']}", (kind, index), (case["failure"], case["message_index"]))
        if kind == "CardMismatchError" and detail.startswith("stream"):
            eq(f"tampered {case['name']} card", "card at " + detail in case["message"], True)
    return bad


if __name__ == "__main__":
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("spec/vectors")
    problems = check_all(where)
    for line in problems:
        print(line)
    print("all vectors reproduced" if not problems else f"{len(problems)} mismatches")
    raise SystemExit(1 if problems else 0)
