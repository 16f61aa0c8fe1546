// A private hand for a client (spec/PROTOCOL.md 10.11 and 10.13), written from the spec alone.
//
// `PrivateHand` is a cardfair/v1 HandVerifier (cardfair.mjs) that also checks every masking
// message of a hand (`mask_lock`, `mask_stage`, `sealed`, `mask_open`, `opened`, `mask_end`)
// as 10.11 says a verifier does, runs the audit of 10.8 at `mask_end` and checks `hand_end`
// against the stocks the audit yields. Given a seat (`mySeat`), it also does that seat's
// duties: it draws the secret `m_s`, and after each message `take()` returns the requests to
// send (`mask_commit`, the `mask_pass` due, `sealed_keys` for each draw to another seat,
// `open_keys` for a `mask_open`, `show_hand` when the host asks for its bankrupt hand
// (`showHand`, after its checks), `mask_reveal` once the hand is over); it opens the positions
// dealt to it from their `sealed` boxes (`cards`) and gives a play's keys (`openFor`). Without
// a seat (an observer, or `auditor: true` for a hand record) it checks only. Every failure is a
// FairnessError whose `kind` names 10.9's kind (cardmask.mjs) or 8.2's (`PositionError`,
// `FairnessStateError`, `BadMessageError`).
//
// `allowed(view, cards)` computes from a private view (10.13) what the seat may send: the
// plays of the first set its hand meets that it holds, with the positions each uses, then
// `legal`, then `unless_met` if it meets no set; `defaultMove` is the turn timer's move.

import { randomBytes } from "node:crypto";
import { HandVerifier, fingerprint } from "./cardfair.mjs";
import {
  CommitmentError,
  MaskError,
  Openings,
  SealError,
  Seat,
  ScalarError,
  StageError,
  UnmaskError,
  boxKeyPair,
  cardPoints,
  checkDerivedKey,
  checkPoint,
  checkScalar,
  openCommitment,
  openSealedKey,
  roundCards,
  verifyRound,
} from "./cardmask.mjs";

// --- 8.2's kinds for what 10.11 checks beside 10.9's ----------------------------------------

export class PositionError extends MaskError {}
export class FairnessStateError extends MaskError {}
export class BadMessageError extends MaskError {}

const isBytes = (v) => v instanceof Uint8Array;
const hex = (b) => Buffer.from(b).toString("hex");
const at = (s, p) => `${s},${p}`;

function bytes32(v, what, Kind = BadMessageError) {
  if (!isBytes(v) || v.length !== 32) throw new Kind(`${what} is not 32 bytes`);
  return Buffer.from(v);
}

// --- the hand -------------------------------------------------------------------------------

export class PrivateHand extends HandVerifier {
  // expect: as HandVerifier's (`mySeat` null: check only), plus `auditor` (no live events: a
  // hand record, or a replay of one) and `secret` (a replay: this seat's m_s, not a fresh one)
  constructor(expect) {
    super(expect);
    this.outbox = [];
    this.rounds = new Map(); // stream -> round (below)
    this.masks = null; // [[c_s, pk_s]] from mask_lock
    this.secrets = null; // every m_s, from mask_end
    this.stocks = null; // stream -> stock, from the audit
    this.over = false; // the hand is over: m_s may go out
    this.revealed = false;
    this.myCards = new Map(); // "s,p" -> card, for positions dealt to this seat
    this.myKeys = new Map(); // "s,p" -> every seat's key, seat order
  }

  handler(type, m) {
    const own = {
      mask_lock: () => this.maskLock(m),
      mask_stage: () => this.maskStage(m),
      sealed: () => this.sealed(m),
      mask_open: () => this.maskOpen(m),
      opened: () => this.opened(m),
      mask_end: () => this.maskEnd(m),
      card: () => {
        throw new FairnessStateError("a CARD in a private hand: the host never knows a hidden card");
      },
    }[type];
    return own ?? super.handler(type, m);
  }

  need(steps, type) {
    if (!steps.includes(this.step)) throw new FairnessStateError(`${type.toUpperCase()} out of order (after ${this.stepName()})`);
  }

  /** The requests this seat has to send now (each without `table`); empties the outbox. */
  take() {
    const out = this.outbox;
    this.outbox = [];
    return out;
  }

  get k() {
    return this.pids.length;
  }

  handCommit(m) {
    super.handCommit(m);
    if (Number.isInteger(this.expect.mySeat)) {
      this.me = new Seat(this.ctx, this.expect.mySeat, this.expect.secret ?? randomBytes(32));
      this.outbox.push({ type: "mask_commit", hand_no: this.handNo, commit: this.me.commitment, box_pk: this.me.boxKeys.publicKey });
    }
  }

  lock(m) {
    super.lock(m);
    this.step = "locking"; // a private hand's LOCK is followed by MASK_LOCK, then REVEALS
  }

  stepName() {
    return { locking: "LOCK", masklocked: "MASK_LOCK", maskended: "MASK_END" }[this.step] ?? super.stepName();
  }

  maskLock(m) {
    this.need(["locking"], "mask_lock");
    this.lateEvents = true; // 7.9: a private deal's events may follow its draws
    if (!Array.isArray(m.commits) || m.commits.length !== this.k) throw new CommitmentError("MASK_LOCK: not one row per seat");
    const rows = m.commits.map((row, s) => {
      if (!Array.isArray(row) || row.length !== 2) throw new CommitmentError(`MASK_LOCK: row ${s} is not [commit, box key]`);
      return [bytes32(row[0], `MASK_LOCK commit of seat ${s}`, CommitmentError), bytes32(row[1], `MASK_LOCK box key of seat ${s}`, CommitmentError)];
    });
    for (const col of [0, 1]) {
      if (new Set(rows.map((r) => hex(r[col]))).size !== this.k) {
        throw new CommitmentError(`MASK_LOCK holds two equal ${col === 0 ? "commitments" : "box keys"}`);
      }
    }
    if (this.me && !(rows[this.me.seat][0].equals(this.me.commitment) && rows[this.me.seat][1].equals(this.me.boxKeys.publicKey))) {
      throw new CommitmentError("MASK_LOCK altered our row", this.me.seat);
    }
    this.masks = rows;
    this.step = "masklocked";
    // now, and only now, this seat may reveal r_i (the caller sends fair_reveal: `myR`)
  }

  reveals(m) {
    this.need(["masklocked"], "reveals");
    this.step = "locked";
    super.reveals(m);
    this.openRound(0, this.deck);
  }

  // A round opens (10.11 step 3, 8): its card points are stage 0's input.
  openRound(stream, cards) {
    const points = cardPoints(this.ctx, stream, cards);
    const round = { stream, cards, points, stages: [], mine: new Map(), drawnTo: new Map(), sealed: new Map(), asked: new Set(), opened: new Map() };
    round.openings = new Openings(stream, cards, points);
    this.rounds.set(stream, round);
    this.passDue(round);
  }

  // The stage due: j = 0 .. 2k-1, the masking pass of seat j, then the re-keying pass of j - k.
  stageDue(round) {
    const j = round.stages.length;
    return j >= 2 * this.k ? null : { step: j < this.k ? "mask" : "rekey", seat: j % this.k };
  }

  passDue(round) {
    const due = this.stageDue(round);
    if (!this.me || due === null || due.seat !== this.me.seat) return;
    const input = round.stages.length === 0 ? round.points : round.stages[round.stages.length - 1];
    const points = due.step === "mask" ? this.me.mask(round.stream, input) : this.me.rekey(round.stream, input);
    round.mine.set(due.step, points);
    this.outbox.push({ type: "mask_pass", hand_no: this.handNo, stream: round.stream, step: due.step, points });
  }

  round(stream, type) {
    const round = this.rounds.get(stream);
    if (round === undefined) throw new PositionError(`${type.toUpperCase()} for stream ${stream}, which no round opened`);
    return round;
  }

  maskStage(m) {
    this.need(["revealed"], "mask_stage");
    const round = this.round(m.stream, "mask_stage");
    if (m.stream !== this.current) throw new FairnessStateError(`MASK_STAGE for stream ${m.stream}, the current round is ${this.current}`);
    const due = this.stageDue(round);
    if (due === null) throw new FairnessStateError(`MASK_STAGE after the ${2 * this.k} stages of round ${m.stream}`);
    if (m.step !== due.step || m.seat !== due.seat) {
      throw new FairnessStateError(`MASK_STAGE ${m.step} of seat ${m.seat}, the stage due is the ${due.step} pass of seat ${due.seat}`);
    }
    const n = round.cards.length;
    if (!Array.isArray(m.points) || m.points.length !== n) {
      throw new StageError(`MASK_STAGE ${m.step} of seat ${m.seat}: not ${n} points`, { pass: m.step, seat: m.seat });
    }
    const points = m.points.map((p, i) => checkPoint(p, `MASK_STAGE ${m.step} of seat ${m.seat} position ${i}`));
    if (new Set(points.map(hex)).size !== n) {
      throw new StageError(`MASK_STAGE ${m.step} of seat ${m.seat} holds a point twice: a copied card`, { pass: m.step, seat: m.seat });
    }
    const sent = this.me && m.seat === this.me.seat ? round.mine.get(m.step) : undefined;
    if (sent && !points.every((p, i) => p.equals(sent[i]))) {
      throw new StageError(`MASK_STAGE ${m.step}: our stage is not relayed as we sent it`, { pass: m.step, seat: m.seat });
    }
    round.stages.push(points);
    this.passDue(round);
  }

  draw(m) {
    if (m.card !== null && m.card !== undefined) {
      this.need(["revealed"], "draw");
      throw new PositionError(`DRAW at stream ${m.stream} position ${m.pos} shows ${m.card}: a private hand's draws carry no card`);
    }
    if (this.step === "revealed") {
      const round = this.rounds.get(m.stream);
      if (round && this.stageDue(round) !== null) {
        throw new FairnessStateError(`DRAW from round ${m.stream} before its ${2 * this.k} stages`);
      }
    }
    super.draw(m);
    const round = this.round(m.stream, "draw");
    round.drawnTo.set(m.pos, m.to);
    if (this.me && m.to !== null && m.to !== this.me.seat) {
      const box = this.me.seal(m.stream, m.pos, m.to, this.masks[m.to][1]);
      this.queueBox(m.stream, [m.pos, m.to, box]);
    }
  }

  // Boxes of one round share a `sealed_keys` request, up to 20 (10.11).
  queueBox(stream, box) {
    const last = this.outbox[this.outbox.length - 1];
    if (last?.type === "sealed_keys" && last.stream === stream && last.boxes.length < 20) last.boxes.push(box);
    else this.outbox.push({ type: "sealed_keys", hand_no: this.handNo, stream, boxes: [box] });
  }

  sealed(m) {
    this.need(["revealed"], "sealed");
    const round = this.round(m.stream, "sealed");
    if (!round.drawnTo.has(m.pos) || round.drawnTo.get(m.pos) !== m.to || m.to === null) {
      throw new PositionError(`SEALED for stream ${m.stream} position ${m.pos} to seat ${m.to}: that position was not drawn to it`);
    }
    if (round.sealed.has(m.pos)) throw new PositionError(`a second SEALED for stream ${m.stream} position ${m.pos}`);
    const others = this.pids.map((_, s) => s).filter((s) => s !== m.to);
    if (!Array.isArray(m.boxes) || m.boxes.length !== others.length) {
      throw new SealError(`SEALED for stream ${m.stream} position ${m.pos}: not one box from each other seat`);
    }
    const boxes = m.boxes.map((entry, i) => {
      if (!Array.isArray(entry) || entry[0] !== others[i]) throw new SealError(`SEALED for stream ${m.stream} position ${m.pos}: boxes not one per other seat in seat order`);
      if (!isBytes(entry[1]) || entry[1].length !== 178) throw new SealError(`SEALED: the box of seat ${entry[0]} is not 178 bytes`);
      return [entry[0], Buffer.from(entry[1])];
    });
    round.sealed.set(m.pos, boxes);
    if (this.me && m.to === this.me.seat) {
      const keys = [];
      for (const [from, box] of boxes) keys[from] = this.me.openSealed(m.stream, m.pos, from, box);
      keys[this.me.seat] = this.me.positionKey(m.stream, m.pos);
      const card = round.openings.open(m.pos, round.stages[round.stages.length - 1][m.pos], keys);
      this.myCards.set(at(m.stream, m.pos), card);
      this.myKeys.set(at(m.stream, m.pos), keys);
      this.learnt.push([[card], [[m.stream, m.pos]]]);
    }
  }

  maskOpen(m) {
    this.need(["revealed"], "mask_open");
    const round = this.round(m.stream, "mask_open");
    if (!Array.isArray(m.positions) || m.positions.length === 0) throw new BadMessageError("MASK_OPEN names no position");
    for (const pos of m.positions) {
      if (!round.drawnTo.has(pos)) throw new PositionError(`MASK_OPEN of stream ${m.stream} position ${pos}, never drawn`);
      if (round.drawnTo.get(pos) !== null) {
        throw new PositionError(`MASK_OPEN of stream ${m.stream} position ${pos}, dealt to seat ${round.drawnTo.get(pos)}: we never expose a seat's card`);
      }
      if (round.opened.has(pos) || round.asked.has(pos)) throw new PositionError(`MASK_OPEN of stream ${m.stream} position ${pos}, already open or asked`);
    }
    for (const pos of m.positions) round.asked.add(pos);
    if (this.me) {
      const keys = m.positions.map((pos) => [pos, this.me.positionKey(m.stream, pos)]);
      this.outbox.push({ type: "open_keys", hand_no: this.handNo, stream: m.stream, keys });
    }
  }

  opened(m) {
    this.need(["revealed"], "opened");
    const round = this.round(m.stream, "opened");
    const { pos } = m;
    if (!round.drawnTo.has(pos)) throw new PositionError(`OPENED stream ${m.stream} position ${pos}, never drawn`);
    const to = round.drawnTo.get(pos);
    if (to === null && !round.asked.has(pos)) throw new PositionError(`OPENED stream ${m.stream} position ${pos}: no MASK_OPEN asked for it`);
    if (to !== null && !round.sealed.has(pos)) throw new PositionError(`OPENED stream ${m.stream} position ${pos}: its SEALED never went out`);
    if (round.opened.has(pos)) throw new PositionError(`OPENED stream ${m.stream} position ${pos} a second time`);
    if (!Array.isArray(m.keys) || m.keys.length !== this.k) throw new ScalarError(`OPENED: not ${this.k} keys`);
    const keys = m.keys.map((key, s) => checkScalar(key, `OPENED stream ${m.stream} position ${pos}: the key of seat ${s}`));
    const card = round.openings.open(pos, round.stages[round.stages.length - 1][pos], keys);
    if (card !== m.card) {
      throw new UnmaskError(`OPENED stream ${m.stream} position ${pos} names ${m.card}, its keys open it to ${card}`);
    }
    round.opened.set(pos, keys);
    this.learnt.push([[card], [[m.stream, pos]]]);
    const d = this.drawnAt.get(at(m.stream, pos));
    if (d) d.shown = true;
  }

  reshuffle(m) {
    super.reshuffle(m);
    this.openRound(m.stream, roundCards(m.stream, this.deck, m));
  }

  // The hand is over (the host's `hand_over` event, or a `void`): m_s may go out now.
  handOver() {
    if (!this.me || this.revealed || this.secrets !== null || this.handNo === undefined) return;
    if (this.step === "start" || this.step === "committed") return; // no mask_lock yet: nothing to audit
    this.over = true;
    this.revealed = true;
    this.outbox.push({ type: "mask_reveal", hand_no: this.handNo, secret: this.me.secret });
  }

  maskEnd(m) {
    this.need(["revealed"], "mask_end");
    if (!Array.isArray(m.secrets) || m.secrets.length !== this.k) throw new CommitmentError("MASK_END: not one secret per seat");
    const secrets = m.secrets.map((x, s) => bytes32(x, `MASK_END secret of seat ${s}`, CommitmentError));
    secrets.forEach((secret, s) => {
      openCommitment(this.ctx, s, secret, this.masks[s][0]);
      if (!boxKeyPair(secret, this.ctx, s).publicKey.equals(this.masks[s][1])) {
        throw new CommitmentError(`seat ${s}'s masking secret does not give its published box key`, s);
      }
    });
    const stocks = new Map();
    for (const round of this.rounds.values()) {
      if (this.stageDue(round) !== null) throw new FairnessStateError(`MASK_END before round ${round.stream} has its ${2 * this.k} stages`);
      const split = (from) => round.stages.slice(from, from + this.k);
      stocks.set(
        round.stream,
        verifyRound({ ctx: this.ctx, round: round.stream, cards: round.cards, secrets, commitments: this.masks.map((r) => r[0]), masked: split(0), rekeyed: split(this.k) }),
      );
    }
    for (const round of this.rounds.values()) {
      for (const [pos, boxes] of round.sealed) {
        const to = round.drawnTo.get(pos);
        const { publicKey, secretKey } = boxKeyPair(secrets[to], this.ctx, to);
        for (const [from, box] of boxes) {
          let key;
          try {
            key = openSealedKey(this.ctx, { stream: round.stream, pos, from, to }, box, publicKey, secretKey);
          } catch (err) {
            if (err instanceof MaskError) err.seat = from;
            throw err;
          }
          checkDerivedKey(this.ctx, from, secrets[from], round.stream, pos, key);
        }
      }
      for (const [pos, keys] of round.opened) keys.forEach((key, s) => checkDerivedKey(this.ctx, s, secrets[s], round.stream, pos, key));
    }
    this.secrets = secrets;
    this.stocks = stocks;
    this.over = true;
    this.step = "maskended";
  }

  handEnd(m) {
    if (this.step !== "maskended") throw new FairnessStateError(`HAND_END of a private hand without MASK_END (after ${this.stepName()})`);
    if (isBytes(m.private) && !Buffer.from(m.private).equals(this.ctx)) {
      throw new CommitmentError("HAND_END private is not ctx: a private hand has no CARD");
    }
    this.step = "revealed";
    super.handEnd(m);
    if (!this.expect.partial) {
      for (const round of this.rounds.values()) {
        for (const [pos, to] of round.drawnTo) {
          if (to !== null && !round.sealed.has(pos)) throw new PositionError(`stream ${round.stream} position ${pos} went to seat ${to} face down with no SEALED`);
        }
      }
    }
  }

  // hand_end's checks take each round's stock from the audit, not from K (10.11 step 9)
  deriveStocks() {
    return new Map(this.stocks);
  }

  void(m) {
    super.void(m);
    this.handOver();
  }

  // The host's `show_hand` event (10.11 step 7): the rules turn this seat's hand face up (One
  // Card's bankrupt hand). After the seat's checks, `show_hand` requests with every key of its
  // whole face-down hand go to the outbox; a failed check throws (the seat sends nothing more).
  showHand(event, game, options) {
    if (!this.me || this.over || event.hand_no !== this.handNo || event.seat !== this.me.seat) return;
    const asked = (event.positions ?? []).map(([s, p]) => [s, p]);
    const faceUp = ([s, p]) => this.rounds.get(s)?.opened.has(p) === true;
    if (asked.length && asked.every(faceUp)) return; // shown already (replayed after a resume)
    const held = [...this.myCards.keys()].map((k) => k.split(",").map(Number)).filter((w) => !faceUp(w));
    const why = showRefusal(game, options, event.reason, held.length);
    if (why) throw new PositionError(`the host asks us to show our hand, refused: ${why}`);
    const mine = [];
    for (const round of this.rounds.values()) {
      for (const [pos, to] of round.drawnTo) if (to === this.me.seat && !round.opened.has(pos)) mine.push(at(round.stream, pos));
    }
    const want = new Set(asked.map(([s, p]) => at(s, p)));
    if (want.size !== asked.length || want.size !== mine.length || !mine.every((k) => want.has(k) && this.myCards.has(k))) {
      throw new PositionError(`the host asks to show ${[...want].join(" ")}, not our whole face-down hand: refusing to give our keys`);
    }
    const rows = this.openFor(asked.sort((a, b) => a[0] - b[0] || a[1] - b[1]));
    const step = Math.max(1, Math.min(16, Math.floor(3800 / (12 + 34 * this.k))));
    for (let i = 0; i < rows.length; i += step) {
      this.outbox.push({ type: "show_hand", hand_no: this.handNo, open: rows.slice(i, i + step) });
    }
  }

  /** The cards this seat opened, by position: a Map "stream,pos" -> card. */
  cards() {
    return new Map(this.myCards);
  }

  /** `act.open` for a play from `positions` ([[stream, pos]]): every seat's key, seat order. */
  openFor(positions) {
    return positions.map(([s, p]) => {
      const keys = this.myKeys.get(at(s, p));
      if (!keys) throw new PositionError(`stream ${s} position ${p} is not a card this seat opened`);
      return [s, p, keys];
    });
  }

  get transcriptFingerprint() {
    return fingerprint(this.t);
  }
}

/**
 * Why a seat holding `held` cards refuses the host's `show_hand` (10.11 step 7), or null: only
 * One Card with `bankrupt_at` above 0 turns a hand face up mid-hand, for the reasons "limit" and
 * "cannot_pay" only, and a hand said to have reached the limit ("limit") must hold that many
 * cards.
 */
export function showRefusal(game, options, reason, held) {
  const limit = options?.bankrupt_at;
  if (game !== "one-card" || !Number.isInteger(limit) || limit <= 0) return `the rules of this table (${game}) never turn a hand face up mid-hand`;
  if (reason !== "limit" && reason !== "cannot_pay") return `no rule of ${game} shows a hand for ${JSON.stringify(reason)}`;
  if (reason === "limit" && held < limit) return `we hold ${held} cards, fewer than bankrupt_at = ${limit}`;
  return null;
}

// --- 10.13: what a seat may send from a private view -------------------------------------------

const canonical = (code) => {
  if (typeof code !== "string") return null;
  const c = code.toUpperCase();
  return c.startsWith("T") && c.length === 2 ? `10${c[1]}` : c;
};

/** The cards an action puts down: its `cards`, else its `card`, else none. */
export function actionCards(action) {
  if (Array.isArray(action.cards)) return action.cards.map(canonical);
  return typeof action.card === "string" ? [canonical(action.card)] : [];
}

// The positions a play of `action` takes from `held` ([[position, card]] in the view's order),
// each card from the first free position holding it (within `only`, if given); null if not held.
function holds(action, held, only) {
  const cards = actionCards(action);
  if (cards.length === 0) return null;
  const allowedAt = only ? new Set(only.map(([s, p]) => at(s, p))) : null;
  const used = new Set();
  const out = [];
  for (const card of cards) {
    const found = held.find(([[s, p], have]) => have === card && !used.has(at(s, p)) && (!allowedAt || allowedAt.has(at(s, p))));
    if (!found) return null;
    used.add(at(...found[0]));
    out.push(found[0]);
  }
  return out;
}

function isPositionList(v) {
  return Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2 && p.every((x) => Number.isInteger(x) && x >= 0));
}

/** Whether `view` is a seat's view on a private table (10.13). */
export const isPrivateView = (view) => view?.hand === null && Array.isArray(view?.legal_sets);

/**
 * The first set of `view.legal_sets` the hand meets and its plays the hand holds:
 * {index, plays: [[action, positions]]}, or null. `cards` maps "stream,pos" to the card opened there.
 */
export function firstMet(view, cards) {
  if (!isPositionList(view.positions ?? [])) throw new BadMessageError("the view's positions are not [stream, pos] pairs");
  const held = (view.positions ?? []).filter(([s, p]) => cards.has(at(s, p))).map(([s, p]) => [[s, p], canonical(cards.get(at(s, p)))]);
  const sets = view.legal_sets ?? [];
  if (!Array.isArray(sets)) throw new BadMessageError("the view's legal_sets is not a list");
  for (const [index, set] of sets.entries()) {
    if (!Array.isArray(set?.actions)) throw new BadMessageError(`legal_sets[${index}] has no list of actions`);
    if (set.positions !== undefined && set.positions !== null && !isPositionList(set.positions)) {
      throw new BadMessageError(`legal_sets[${index}].positions are not [stream, pos] pairs`);
    }
    const plays = [];
    for (const action of set.actions) {
      const used = holds(action, held, set.positions ?? null);
      if (used) plays.push([action, used]);
    }
    if (plays.length) return { index, plays };
  }
  return null;
}

/**
 * The view's positions whose card the seat has not opened yet (their `sealed` is not in). A seat
 * with any waits: what its hand meets is not known, so a draw or pass now could be one the
 * rules forbid (10.13: the audit finds it at the hand's end).
 */
export function unopened(view, cards) {
  if (!isPositionList(view.positions ?? [])) throw new BadMessageError("the view's positions are not [stream, pos] pairs");
  return (view.positions ?? []).filter(([s, p]) => !cards.has(at(s, p)));
}

/** Every action the seat may send, [[action, positions]]: the plays, `legal`, then `unless_met`. */
export function allowed(view, cards) {
  const met = firstMet(view, cards);
  const none = (list) => (list ?? []).map((a) => [a, []]);
  return [...(met ? met.plays : []), ...none(view.legal), ...(met ? [] : none(view.unless_met))];
}

/** The turn timer's move (10.13): the first play, else the first of `unless_met`, else of `legal`. */
export function defaultMove(view, cards) {
  const met = firstMet(view, cards);
  if (met) return met.plays[0];
  const first = [...(view.unless_met ?? []), ...(view.legal ?? [])][0];
  return first === undefined ? null : [first, []];
}
