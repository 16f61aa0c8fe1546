// cardfair/v1 for a client: the primitives of spec/PROTOCOL.md 7.2-7.6 and the live checks of
// 7.9, written from the spec alone. Node.js built-ins (node:crypto) and @msgpack/msgpack only.
//
// A HandVerifier follows one fairness hand: feed() every signed `fair` message in the order it
// arrives, noteEvent() every game event. Any failed check throws a FairnessError; the caller
// reports it and stops trusting the hand. After `hand_end` the whole deck is derived and every
// card learnt (private `card`s, face-up `draw`s, cards events showed) is compared with it.

import { createHash, createHmac, createPublicKey, randomBytes, verify } from "node:crypto";
import { decode } from "@msgpack/msgpack";

export const DEALER_STREAM = 0xffffffff;
const SUITS = ["S", "H", "D", "C"];
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

export class FairnessError extends Error {}

function fail(message) {
  throw new FairnessError(message);
}

// --- 7.2 encodings -----------------------------------------------------------------------------

export function u32(n) {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32 out of range: ${n}`);
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export function u64(n) {
  const v = BigInt(n); // a number below 2^53, or a decimal string / bigint up to 2^64-1
  if (v < 0n || v > 0xffffffffffffffffn) throw new RangeError(`u64 out of range: ${n}`);
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(v);
  return b;
}

const bytes = (f) => (typeof f === "string" ? Buffer.from(f, "utf8") : Buffer.from(f));

export function enc(...fields) {
  return Buffer.concat(fields.flatMap((f) => [u32(bytes(f).length), bytes(f)]));
}

export const label = (name) => `cardfair/v1/${name}`;
export const H = (data) => createHash("sha256").update(data).digest();
export const HMAC = (key, msg) => createHmac("sha256", key).update(msg).digest();

// --- cards (section 1, 7.3) ----------------------------------------------------------------------

export function cardIndex(code) {
  if (code === "JB") return 52;
  if (code === "JR") return 53;
  if (typeof code !== "string" || code.length < 2) return -1;
  const r = RANKS.indexOf(code.slice(0, -1));
  const s = SUITS.indexOf(code.slice(-1));
  return r < 0 || s < 0 ? -1 : s * 13 + r;
}

const isCard = (c) => cardIndex(c) >= 0;
const sortedCanonically = (cards) => cards.every((c, i) => i === 0 || cardIndex(cards[i - 1]) <= cardIndex(c));

function multiset(cards) {
  const m = new Map();
  for (const c of cards) m.set(c, (m.get(c) ?? 0) + 1);
  return m;
}

function sameMultiset(a, b) {
  if (a.length !== b.length) return false;
  const m = multiset(a);
  for (const c of b) {
    if (!m.get(c)) return false;
    m.set(c, m.get(c) - 1);
  }
  return true;
}

// --- 7.3-7.5 -------------------------------------------------------------------------------------

export function deckDigest(deck) {
  return H(enc(label("deck"), u32(deck.length), ...deck));
}

export function rulesetId(game, options) {
  const keys = Object.keys(options ?? {}).sort();
  if (keys.length === 0) return game;
  const text = (v) => (typeof v === "boolean" ? (v ? "true" : "false") : String(v));
  return `${game}?${keys.map((k) => `${k}=${text(options[k])}`).join("&")}`;
}

export function makeCtx(tableId, handNo, ruleset, deck, pids, hostPk) {
  return H(enc(label("ctx"), tableId, u64(handNo), ruleset, deckDigest(deck), u32(pids.length), ...pids, hostPk));
}

export const hostCommit = (ctx, secret) => H(enc(label("host-commit"), ctx, secret));
export const playerCommit = (ctx, pid, r) => H(enc(label("player-commit"), ctx, pid, r));
export const makeMix = (ctx, rs) => H(enc(label("mix"), ctx, u32(rs.length), ...rs));
export const deckKey = (secret, ctx, mix) => HMAC(secret, enc(label("deck-key"), ctx, mix));

export class Stream {
  constructor(key, stream) {
    this.key = key;
    this.stream = stream;
    this.block = 0;
    this.words = [];
  }

  word() {
    if (this.words.length === 0) {
      const b = HMAC(this.key, enc(label("stream"), u32(this.stream), u64(this.block++)));
      for (let i = 0; i < 32; i += 4) this.words.push(b.readUInt32BE(i));
    }
    return this.words.shift();
  }

  below(n) {
    if (n < 2) return 0;
    const lo = 2 ** 32 % n;
    for (;;) {
      const w = this.word();
      if (w >= lo) return w % n;
    }
  }
}

export function shuffle(key, stream, cards) {
  const a = [...cards];
  const s = new Stream(key, stream);
  for (let i = a.length - 1; i >= 1; i--) {
    const j = s.below(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export const chooseDealer = (key, seats) => new Stream(key, DEALER_STREAM).below(seats);

// --- 7.6 signatures and chains ------------------------------------------------------------------

const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

export function verifySignature(hostPk, type, body, sig) {
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, hostPk]), format: "der", type: "spki" });
  if (sig.length !== 64 || !verify(null, enc(label("sig"), type, body), key, sig)) {
    fail(`signature on ${type} invalid`);
  }
}

export const nextTranscript = (t, type, body, sig) => H(enc(label("transcript"), t, type, body, sig));

export function fingerprint(digest) {
  const hex = Buffer.from(digest).subarray(0, 8).toString("hex");
  return hex.match(/.{4}/g).join("-");
}

// --- 7.9 one hand, live ---------------------------------------------------------------------------

const buf = (v, what, n = 32) => {
  if (!(v instanceof Uint8Array) || v.length !== n) fail(`${what} is not ${n} bytes`);
  return Buffer.from(v);
};
const isSeat = (v, n) => Number.isInteger(v) && v >= 0 && v < n;
const isPos = (p) => Array.isArray(p) && p.length === 2 && p.every(Number.isInteger);

export class HandVerifier {
  // expect: {tableId, ruleset, deck, pids, mySeat (null: observer), hostPk (pinned, or null),
  //          lastHandNo, seenCommits (a Set of hex C_S seen at this host)}
  constructor(expect) {
    this.expect = expect;
    this.step = "start"; // start, committed, locked, revealed, ended
    this.t = null;
    this.seq = 0;
    this.draws = new Map(); // draw seq -> {stream, pos, to, card, gotCard}
    this.drawnAt = new Map(); // "s,p" -> draw
    this.used = new Map(); // stream -> positions used
    this.recycled = new Map(); // stream -> cards
    this.current = -1;
    this.announced = new Map(); // "s,p" -> seat or null, from the events' seats
    // a private hand's deal events wait for its start card to open, so they may name a
    // position after its DRAW (7.9): such DRAWs wait here for their event
    this.lateEvents = false;
    this.unnamed = new Map(); // "s,p" -> the DRAW's to
    this.pile = []; // the discard pile, from the events' pile
    this.learnt = []; // [cards, positions] to compare once the deck is derived
    this.derived = null;
    this.result = null;
  }

  // A signed message [type, body, sig] of this hand; returns the decoded body.
  feed(type, bodyBytes, sigBytes) {
    const body = Buffer.from(bodyBytes);
    const sig = Buffer.from(sigBytes);
    if (type === "hand_commit" && this.expect.hostPk === null) {
      // 7.6 first use: read host_pk from this body, verify under it, pin only if it verifies
      const pk = decode(body)?.host_pk;
      verifySignature(buf(pk, "HAND_COMMIT host_pk"), type, body, sig);
      this.expect.hostPk = Buffer.from(pk);
    } else {
      verifySignature(this.expect.hostPk, type, body, sig);
    }
    const m = decode(body);
    if (m === null || typeof m !== "object") fail(`${type} body is not a map`);
    if (this.step === "ended") fail(`${type.toUpperCase()} after the hand ended`);
    if (type !== "card") {
      if (type !== "hand_commit") {
        if (m.seq !== this.seq) fail(`${type.toUpperCase()} has seq ${m.seq}, expected ${this.seq}`);
        if (!(m.prev instanceof Uint8Array) || !Buffer.from(m.prev).equals(this.t)) {
          fail(`${type.toUpperCase()} prev is not the transcript`);
        }
      }
    }
    const handler = this.handler(type, m);
    if (handler === undefined) fail(`unknown signed message type ${type}`);
    handler();
    if (type !== "card") {
      this.t = nextTranscript(this.t, type, body, sig);
      this.seq += 1;
    }
    return m;
  }

  // The check of one message type (a subclass adds types: private.mjs).
  handler(type, m) {
    return {
      hand_commit: () => this.handCommit(m),
      lock: () => this.lock(m),
      reveals: () => this.reveals(m),
      dealer: () => this.dealer(m),
      draw: () => this.draw(m),
      card: () => this.card(m),
      reshuffle: () => this.reshuffle(m),
      hand_end: () => this.handEnd(m),
      void: () => this.void(m),
    }[type];
  }

  need(steps, type) {
    if (!steps.includes(this.step)) fail(`${type.toUpperCase()} out of order (after ${this.stepName()})`);
  }

  stepName() {
    return { start: "nothing", committed: "HAND_COMMIT", locked: "LOCK", revealed: "REVEALS" }[this.step];
  }

  handCommit(m) {
    this.need(["start"], "hand_commit");
    const e = this.expect;
    if (Number.isInteger(m.hand_no)) this.handNo = m.hand_no; // so a failure here names its hand
    if (m.scheme !== "cardfair/v1") fail(`scheme ${m.scheme} is not cardfair/v1`);
    if (m.seq !== 0) fail("HAND_COMMIT seq is not 0");
    if (!Buffer.from(buf(m.host_pk, "host_pk")).equals(e.hostPk)) fail("HAND_COMMIT host_pk is not the pinned key");
    if (m.table_id !== e.tableId) fail(`HAND_COMMIT is for table ${m.table_id}`);
    if (m.ruleset_id !== e.ruleset) fail(`HAND_COMMIT ruleset ${m.ruleset_id}, expected ${e.ruleset}`);
    if (!Array.isArray(m.deck) || !Array.isArray(m.pids)) fail("HAND_COMMIT deck or pids is not a list");
    const want = rulesetDeck(m.ruleset_id, m.pids.length);
    if (JSON.stringify(m.deck) !== JSON.stringify(want)) {
      fail(`HAND_COMMIT deck (${m.deck.length} cards) is not the ${want.length}-card deck of ruleset ${m.ruleset_id} at ${m.pids.length} seats`);
    }
    if (JSON.stringify(m.deck) !== JSON.stringify(e.deck)) fail("HAND_COMMIT deck is not the game's deck");
    if (JSON.stringify(m.pids) !== JSON.stringify(e.pids)) fail("HAND_COMMIT pids are not the seats");
    if (!Number.isInteger(m.hand_no) || m.hand_no <= e.lastHandNo) fail(`HAND_COMMIT hand_no ${m.hand_no} is not new`);
    const ctx = makeCtx(m.table_id, m.hand_no, m.ruleset_id, m.deck, m.pids, e.hostPk);
    if (!ctx.equals(buf(m.prev, "prev"))) fail("HAND_COMMIT prev is not the recomputed ctx");
    const cs = buf(m.commit, "commit");
    if (e.seenCommits.has(cs.toString("hex"))) fail("HAND_COMMIT commit was seen before");
    e.seenCommits.add(cs.toString("hex"));
    Object.assign(this, { ctx, t: ctx, handNo: m.hand_no, cs, pids: m.pids, deck: m.deck, step: "committed" });
    this.myR = null;
    this.myC = null;
  }

  makeCommit() {
    this.myR = randomBytes(32);
    this.myC = playerCommit(this.ctx, this.pids[this.expect.mySeat], this.myR);
    return this.myC;
  }

  lock(m) {
    this.need(["committed"], "lock");
    if (!buf(m.commit, "LOCK commit").equals(this.cs)) fail("LOCK carries a host commitment other than HAND_COMMIT's");
    const cs = this.perSeat(m.commits, "LOCK commits");
    if (new Set(cs.map((c) => c.toString("hex"))).size !== cs.length) fail("LOCK holds two equal commitments");
    if (this.myC && !cs[this.expect.mySeat].equals(this.myC)) fail("LOCK changed our commitment");
    this.commits = cs;
    this.step = "locked";
  }

  perSeat(list, what) {
    if (!Array.isArray(list) || list.length !== this.pids.length) fail(`${what}: not one entry per seat`);
    return list.map((entry, i) => {
      if (!Array.isArray(entry) || entry[0] !== this.pids[i]) fail(`${what}: not in seat order`);
      return buf(entry[1], what);
    });
  }

  reveals(m) {
    this.need(["locked"], "reveals");
    const rs = this.perSeat(m.reveals, "REVEALS");
    rs.forEach((r, i) => {
      if (!playerCommit(this.ctx, this.pids[i], r).equals(this.commits[i])) {
        fail(`reveal of ${this.pids[i]} does not open its commitment`);
      }
    });
    if (this.myR && !rs[this.expect.mySeat].equals(this.myR)) fail("REVEALS changed our reveal");
    this.rs = rs;
    this.current = 0; // stream 0 shuffles the deck: the deal (7.5)
    this.step = "revealed";
  }

  dealer(m) {
    this.need(["revealed"], "dealer");
    if (m.stream !== DEALER_STREAM || m.seats !== this.pids.length || !isSeat(m.dealer, this.pids.length)) {
      fail("DEALER fields are wrong");
    }
    this.announcedDealer = m.dealer;
  }

  draw(m) {
    this.need(["revealed"], "draw");
    const { stream: s, pos: p, to } = m;
    if (s !== this.current) fail(`DRAW from stream ${s}, the current stream is ${this.current}`);
    if (p !== (this.used.get(s) ?? 0)) fail(`DRAW at stream ${s} position ${p}, the next unused is ${this.used.get(s) ?? 0}`);
    const size = s === 0 ? this.deck.length : this.recycled.get(s).length;
    if (p >= size) fail(`DRAW at stream ${s} position ${p}: the stream has ${size} cards`);
    if (to !== null && !isSeat(to, this.pids.length)) fail(`DRAW to ${to}, not a seat`);
    const key = `${s},${p}`;
    // a live client checks where the card goes against the game's events; a record's
    // auditor (8.2) has no events: where a card goes is the draw's own word
    if (!this.expect.auditor) {
      if (!this.announced.has(key) && this.lateEvents) {
        this.unnamed.set(key, to); // a private hand: checked when an event names it (7.9)
      } else {
        this.checkWhere(s, p, to);
      }
    }
    const card = m.card ?? null;
    if (card !== null && !this.deck.includes(card)) fail(`DRAW shows ${card}, not a card of the deck`);
    const d = { stream: s, pos: p, to, card, gotCard: false };
    this.draws.set(m.seq, d);
    this.drawnAt.set(key, d);
    this.used.set(s, p + 1);
    if (card !== null) this.learnt.push([[card], [[s, p]]]);
  }

  card(m) {
    this.need(["revealed"], "card");
    const d = this.draws.get(m.seq);
    if (!d || (!this.expect.auditor && d.to !== this.expect.mySeat) || d.to !== m.to || d.stream !== m.stream || d.pos !== m.pos || d.card !== null) {
      fail(`CARD for seq ${m.seq} names no face-down DRAW to us`);
    }
    if (d.gotCard) fail(`a second CARD for the DRAW of seq ${m.seq}`);
    if (!this.deck.includes(m.card)) fail(`CARD ${m.card} is not in the deck`);
    d.gotCard = true;
    this.learnt.push([[m.card], [[m.stream, m.pos]]]);
  }

  reshuffle(m) {
    this.need(["revealed"], "reshuffle");
    const { stream: s, cards, kept } = m;
    if (s !== this.current + 1) fail(`RESHUFFLE stream ${s}, expected ${this.current + 1}`);
    if (!Array.isArray(cards) || cards.length === 0 || !Array.isArray(kept)) fail("RESHUFFLE lists no cards");
    if (![...cards, ...kept].every(isCard) || !sortedCanonically(cards) || !sortedCanonically(kept)) {
      fail("RESHUFFLE cards are not sorted card IDs");
    }
    const pool = multiset(this.deck);
    for (const c of [...cards, ...kept]) {
      if (!pool.get(c)) fail(`RESHUFFLE names ${c} more often than the deck has`);
      pool.set(c, pool.get(c) - 1);
    }
    if (!this.expect.auditor && !sameMultiset([...cards, ...kept], this.pile)) {
      fail(`RESHUFFLE ${s} does not recycle the discard pile the events built`);
    }
    this.pile = [...kept];
    this.recycled.set(s, cards);
    this.current = s;
    this.used.set(s, 0);
  }

  checkWhere(s, p, to) {
    const key = `${s},${p}`;
    if (!this.announced.has(key)) fail(`draw at stream ${s} position ${p}: no game event said where that card goes`);
    if (this.announced.get(key) !== to) {
      fail(`draw at stream ${s} position ${p} goes to ${to ?? "the table"}, the game event said ${this.announced.get(key) ?? "the table"}`);
    }
  }

  // A game event (public or private) of this hand: where cards go, what went on the pile,
  // which cards it shows at which positions.
  noteEvent(ev) {
    if (ev === null || typeof ev !== "object") return;
    if (!("to" in ev)) {
      if (Array.isArray(ev.seats)) {
        if (!Array.isArray(ev.positions) || ev.positions.length !== ev.seats.length) {
          fail("a game event's seats do not match its positions");
        }
        ev.positions.forEach((p, i) => {
          const seat = ev.seats[i];
          if (!isPos(p) || !(seat === null || isSeat(seat, this.pids.length))) fail("a game event names a bad position or seat");
          this.announced.set(`${p[0]},${p[1]}`, seat);
          const key = `${p[0]},${p[1]}`;
          if (this.unnamed.has(key)) {
            const to = this.unnamed.get(key);
            this.unnamed.delete(key);
            this.checkWhere(p[0], p[1], to);
          }
        });
      }
      if (ev.pile !== undefined && ev.pile !== null) {
        if (!Array.isArray(ev.pile) || !ev.pile.every(isCard)) fail("a game event's pile is not a list of cards");
        this.pile.push(...ev.pile);
      }
    }
    const shown = shownCards(ev);
    if (shown === null || this.result === "void") return;
    if (this.derived) this.compare(...shown);
    else this.learnt.push(shown);
  }

  compare(cards, positions) {
    for (const [s, p] of positions) {
      if (!this.drawnAt.has(`${s},${p}`)) fail(`a game event shows a card at stream ${s} position ${p}, which the hand never drew`);
    }
    const want = positions.map(([s, p]) => this.derived.get(s)[p]);
    if (!sameMultiset(cards, want)) {
      const where = positions.map(([s, p]) => `stream ${s} position ${p}`).join(", ");
      fail(`card at ${where} is ${cards.join(" ")}, derived ${want.join(" ")}`);
    }
    for (const [s, p] of positions) this.drawnAt.get(`${s},${p}`).shown = true;
  }

  handEnd(m) {
    this.need(["revealed"], "hand_end");
    if (!this.expect.auditor && this.unnamed.size > 0) {
      const [first] = this.unnamed.keys();
      const [s, p] = first.split(",");
      fail(`draw at stream ${s} position ${p}: no game event said where that card goes`);
    }
    const secret = buf(m.secret, "HAND_END secret");
    if (!hostCommit(this.ctx, secret).equals(this.cs)) fail("HAND_END secret does not open the host's commitment");
    const claimed = new Map();
    for (const item of m.used ?? []) {
      if (!Array.isArray(item) || item.length !== 2 || claimed.has(item[0])) fail("HAND_END used is malformed");
      claimed.set(item[0], item[1]);
    }
    for (const s of new Set([...claimed.keys(), ...this.used.keys()])) {
      if ((claimed.get(s) ?? 0) !== (this.used.get(s) ?? 0)) {
        fail(`HAND_END says stream ${s} used ${claimed.get(s) ?? 0} positions, the DRAWs used ${this.used.get(s) ?? 0}`);
      }
    }
    buf(m.private, "HAND_END private");
    const key = deckKey(secret, this.ctx, makeMix(this.ctx, this.rs));
    this.derived = this.deriveStocks(key);
    if (this.announcedDealer !== undefined && chooseDealer(key, this.pids.length) !== this.announcedDealer) {
      fail("the announced dealer is not the derived one");
    }
    for (const shown of this.learnt) this.compare(...shown);
    for (const [key2, d] of this.drawnAt) {
      if (!this.expect.auditor && d.to === null && d.card === null && !d.shown) fail(`the card dealt face down to the table at ${key2} was never shown`);
    }
    this.step = "ended";
    this.result = "valid";
  }

  // The stock of every stream: 7.5's shuffles under K (a private hand takes them from its audit).
  deriveStocks(key) {
    const derived = new Map([[0, shuffle(key, 0, this.deck)]]);
    for (const [s, cards] of this.recycled) derived.set(s, shuffle(key, s, cards));
    return derived;
  }

  void(m) {
    if (!hostCommit(this.ctx, buf(m.secret, "VOID secret")).equals(this.cs)) fail("VOID secret does not open the host's commitment");
    if (!Array.isArray(m.missing) || !m.missing.every((p) => this.pids.includes(p))) fail("VOID names a pid not seated");
    buf(m.private, "VOID private");
    this.step = "ended";
    this.result = "void";
  }
}

// Which cards an event shows at which positions: `card` with `position` (or a one-pair
// `positions`), or `cards` with `positions` (compared as a multiset).
export function shownCards(ev) {
  if (typeof ev.card === "string" && isPos(ev.position)) return [[ev.card], [ev.position]];
  if (typeof ev.card === "string" && Array.isArray(ev.positions) && ev.positions.length === 1 && isPos(ev.positions[0])) {
    return [[ev.card], ev.positions];
  }
  if (Array.isArray(ev.cards) && Array.isArray(ev.positions) && ev.cards.length === ev.positions.length && ev.positions.length > 0) {
    if (ev.positions.every(isPos) && ev.cards.every(isCard)) return [ev.cards, ev.positions];
  }
  return null;
}

// The games whose deck the table of PROTOCOL.md 7.3 defines: the only ones whose deals this
// client can check. A host may run others; their deals are not verifiable here.
export const DECK_GAMES = Object.freeze(["one-card", "one", "black-jack"]);

// The deck a game deals, from the table of PROTOCOL.md 7.3 alone, in canonical order. A game
// or a deck option value the table does not define is refused (a FairnessError), never guessed.
export function expectedDeck(game, seats, options) {
  if (!DECK_GAMES.includes(game)) fail(`no deck is defined for game ${JSON.stringify(game)} (7.3)`);
  const all = SUITS.flatMap((s) => RANKS.map((r) => r + s));
  if (game === "one-card") return [...all, "JB", "JR"];
  if (game === "one") return SUITS.flatMap((s) => ["A", "9", "10", "J", "Q", "K"].map((r) => r + s)).concat(["JR"]);
  const jokers = String(options.jokers ?? 0);
  const decks = String(options.decks ?? "auto");
  if (!["0", "1", "2"].includes(jokers) || !["auto", "1", "2"].includes(decks)) {
    fail(`no black-jack deck with jokers=${jokers} decks=${decks} (7.3)`);
  }
  const packs = decks === "auto" ? (seats > 5 ? 2 : 1) : Number(decks);
  const one = [...all, ...{ 0: [], 1: ["JR"], 2: ["JB", "JR"] }[jokers]];
  return Array.from({ length: packs }, () => one).flat().sort((a, b) => cardIndex(a) - cardIndex(b));
}

// The deck a hand signed under `ruleset` (a ruleset_id, 7.3) deals at `seats` seats: the
// game and its option values (text) are read from the string itself.
export function rulesetDeck(ruleset, seats) {
  const at = ruleset.indexOf("?");
  const game = at < 0 ? ruleset : ruleset.slice(0, at);
  const options = {};
  for (const part of at < 0 ? [] : ruleset.slice(at + 1).split("&")) {
    const eq = part.indexOf("=");
    if (eq < 1) fail(`ruleset ${ruleset}: ${part} is not key=value`);
    options[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return expectedDeck(game, seats, options);
}
