// cardmask/v1 for a client: the cryptography of private tables, spec/PROTOCOL.md 10.2-10.9,
// written from the spec alone. libsodium (the sumo build of libsodium-wrappers: the default
// build leaves out the edwards25519 core functions) does every group and box operation;
// SHA-256 and HMAC come from node:crypto; 7.2's `enc` and 7.5's shuffle from cardfair.mjs.
//
// A private hand is its cardfair/v1 hand: the same `ctx` (`handContext`), round 0 masking the
// hand's deck and round k the cards of its k-th reshuffle (`roundCards`). A round masks one
// list of cards: each card is a point hashed to the curve (10.3), each seat derives all its
// keys from one secret (10.4, `Seat`), masks and permutes the deck, then swaps its deck key
// for a key per position (10.5). A position opens with every seat's key for it
// (10.6, `Openings` keeps the one-card-per-position rule); a key for another seat travels
// sealed to it with its route inside (10.7). `verifyRound` audits a round once the secrets are
// revealed (10.8). Every point and key that comes from outside is checked before it is used,
// and every failure is one of 10.9's kinds, each a FairnessError.

import { createHash, createHmac } from "node:crypto";
import sodium from "libsodium-wrappers-sumo";
import { FairnessError, cardIndex, enc, makeCtx, shuffle, u32 } from "./cardfair.mjs";

await sodium.ready;

/** The order of the prime-order subgroup of edwards25519 (10.2). */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P25519 = 2n ** 255n - 19n;
export const LABELS = Object.freeze(["card", "mask-commit", "deck-key", "permutation", "position-key", "box-key", "sealed-key"]);
export const SEALED_KEY_BYTES = 178; // 130 bytes of plaintext + 48 of overhead (10.7)

// --- 10.9 failure kinds ---------------------------------------------------------------------------

/** The base of 10.9's kinds: `kind` is the kind's name, as in the tampered vectors' `failure`. */
export class MaskError extends FairnessError {
  get kind() {
    return this.constructor.name;
  }
}
export class PointError extends MaskError {}
export class ScalarError extends MaskError {}
export class SealError extends MaskError {}
export class UnmaskError extends MaskError {}
export class CommitmentError extends MaskError {
  constructor(message, seat) {
    super(message);
    this.seat = seat;
  }
}
export class KeyMismatchError extends MaskError {
  constructor(message, seat) {
    super(message);
    this.seat = seat;
  }
}
export class StageError extends MaskError {
  // pass: "mask" or "rekey" (null for a card seen at two positions); seat, position: or null
  constructor(message, { pass = null, seat = null, position = null } = {}) {
    super(message);
    this.pass = pass;
    this.seat = seat;
    this.position = position;
  }
}

// --- 10.2 encodings and primitives ----------------------------------------------------------------

export const label = (name) => `cardmask/v1/${name}`;
const H = (data) => createHash("sha256").update(data).digest();
const HMAC256 = (key, msg) => createHmac("sha256", key).update(msg).digest();
const HMAC512 = (key, msg) => createHmac("sha512", key).update(msg).digest();
const B = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
const isBytes = (v) => v instanceof Uint8Array;
const littleEndian = (bytes) => bytes.reduceRight((n, b) => (n << 8n) | BigInt(b), 0n);

// The cheap part of a point's check: 32 bytes, canonical.
function pointBytes(p, what) {
  if (!isBytes(p)) throw new PointError(`${what}: not a byte string`);
  if (p.length !== 32) throw new PointError(`${what}: the point is ${p.length} bytes, not 32`);
  const y = littleEndian(p) & (2n ** 255n - 1n);
  if (y >= P25519) throw new PointError(`${what}: the point is not canonical (y >= 2^255-19)`);
  return Buffer.from(p);
}

/** Checks a received point (10.2) and returns it as a Buffer; `what` names it in the error. */
export function checkPoint(p, what = "the point") {
  pointBytes(p, what);
  if (!sodium.crypto_core_ed25519_is_valid_point(p)) {
    throw new PointError(`${what}: the point is not on the curve, of small order or outside the prime-order subgroup`);
  }
  return Buffer.from(p);
}

/** Checks a received key (10.2: 32 bytes, little-endian, 0 < n < l) and returns it. */
export function checkScalar(k, what = "the key") {
  if (!isBytes(k)) throw new ScalarError(`${what}: not a byte string`);
  if (k.length !== 32) throw new ScalarError(`${what}: the key is ${k.length} bytes, not 32`);
  const n = littleEndian(k);
  if (n === 0n) throw new ScalarError(`${what}: the key is zero`);
  if (n >= L) throw new ScalarError(`${what}: the key is not reduced modulo l (non-canonical)`);
  return Buffer.from(k);
}

// k·P for a checked key k. libsodium's multiplication checks P itself (10.2: canonical, on the
// curve, not of small order, in the prime-order subgroup), so a point about to be multiplied
// needs no separate check, which would cost half as much again; one it refuses is checked here
// only to say why.
function times(k, p, what) {
  try {
    return B(sodium.crypto_scalarmult_ed25519_noclamp(k, p));
  } catch {
    checkPoint(p, what);
    throw new PointError(`${what}: libsodium refuses the point`);
  }
}
const mul = (x, y) => B(sodium.crypto_core_ed25519_scalar_mul(x, y));
const invert = (x) => B(sodium.crypto_core_ed25519_scalar_invert(x));

function reduce(bytes64, what) {
  const k = B(sodium.crypto_core_ed25519_scalar_reduce(bytes64));
  return checkScalar(k, what); // zero has probability 2^-252: refused, never used
}

/** `map(r)`: libsodium's Elligator 2 map to the prime-order subgroup (10.2). */
export const map = (r) => B(sodium.crypto_core_ed25519_from_uniform(r));

// --- 10.3 the binding to cardfair/v1: a hand's ctx and the list of each round ---------------------

/** A private hand's `ctx`: 7.3's, from the fields of its signed `hand_commit` body. */
export function handContext({ table_id, hand_no, ruleset_id, deck, pids, host_pk }) {
  return makeCtx(table_id, hand_no, ruleset_id, deck, pids, host_pk);
}

/**
 * The list of cards round `round` masks: the hand's `deck` for round 0, else the `cards` of
 * the hand's `round`-th `reshuffle` (7.7), which must be that round's, non-empty, sorted by
 * canonical index and hold no card more often than the deck does.
 */
export function roundCards(round, deck, reshuffle = null) {
  if (round === 0) return [...deck];
  if (!Number.isInteger(round) || round < 0 || round > 0xffffffff) throw new FairnessError(`round ${round} is not a stream id`);
  if (reshuffle?.stream !== round) throw new FairnessError(`round ${round} masks the cards of reshuffle ${round}, not ${reshuffle?.stream}`);
  const cards = reshuffle.cards;
  if (!Array.isArray(cards) || cards.length === 0) throw new FairnessError(`reshuffle ${round} recycles no cards`);
  const index = cards.map(cardIndex);
  if (index.some((i, n) => i < 0 || (n > 0 && index[n - 1] > i))) {
    throw new FairnessError(`reshuffle ${round}: its cards are not card IDs sorted by canonical index`);
  }
  const left = new Map();
  for (const c of deck) left.set(c, (left.get(c) ?? 0) + 1);
  for (const c of cards) {
    if (!left.get(c)) throw new FairnessError(`reshuffle ${round} recycles ${c} more often than the deck holds it`);
    left.set(c, left.get(c) - 1);
  }
  return [...cards];
}

/** Checks that seat `seat`'s revealed `secret` opens its commitment `c` under `ctx` (10.4). */
export function openCommitment(ctx, seat, secret, c) {
  if (!isBytes(secret) || secret.length !== 32 || !isBytes(c) || !commitment(ctx, seat, secret).equals(Buffer.from(c))) {
    throw new CommitmentError(`seat ${seat}'s masking secret does not open its commitment`, seat);
  }
}

// --- 10.3 card points ------------------------------------------------------------------------------

export const cardPoint = (ctx, round, j, id) => map(H(enc(label("card"), ctx, u32(round), u32(j), id)));

/** The points of round `round`'s list of cards, in the list's order; refuses a repeat. */
export function cardPoints(ctx, round, cards) {
  const points = cards.map((id, j) => cardPoint(ctx, round, j, id));
  if (new Set(points.map((p) => p.toString("hex"))).size !== points.length) {
    throw new StageError(`round ${round}: two cards of the list have one point`);
  }
  return points;
}

// --- 10.4 a seat's secret and what derives from it ------------------------------------------------

export const commitment = (ctx, seat, secret) => H(enc(label("mask-commit"), ctx, u32(seat), secret));

export const deckKey = (secret, ctx, seat, round) =>
  reduce(HMAC512(secret, enc(label("deck-key"), ctx, u32(seat), u32(round))), `deck key of seat ${seat}, round ${round}`);

export const permutationKey = (secret, ctx, seat) => HMAC256(secret, enc(label("permutation"), ctx, u32(seat)));

export const permutation = (secret, ctx, seat, round, n) =>
  shuffle(permutationKey(secret, ctx, seat), round, Array.from({ length: n }, (_, i) => i));

export const positionKey = (secret, ctx, seat, round, pos) =>
  reduce(
    HMAC512(secret, enc(label("position-key"), ctx, u32(seat), u32(round), u32(pos))),
    `key of seat ${seat} for round ${round} position ${pos}`,
  );

/** `(pk_s, sk_s)` as {publicKey, secretKey} (Buffers). */
export function boxKeyPair(secret, ctx, seat) {
  const pair = sodium.crypto_box_seed_keypair(HMAC256(secret, enc(label("box-key"), ctx, u32(seat))));
  return { publicKey: B(pair.publicKey), secretKey: B(pair.privateKey) };
}

/** One seat's view of a hand: its index, its secret `m_s` and everything 10.4 derives from it. */
export class Seat {
  constructor(ctx, seat, secret) {
    if (!isBytes(secret) || secret.length !== 32) throw new RangeError("a masking secret is 32 bytes");
    this.ctx = Buffer.from(ctx);
    this.seat = seat;
    this.secret = Buffer.from(secret);
  }

  get commitment() {
    return commitment(this.ctx, this.seat, this.secret);
  }

  get boxKeys() {
    return boxKeyPair(this.secret, this.ctx, this.seat);
  }

  deckKey(round) {
    return deckKey(this.secret, this.ctx, this.seat, round);
  }

  permutation(round, n) {
    return permutation(this.secret, this.ctx, this.seat, round, n);
  }

  positionKey(round, pos) {
    return positionKey(this.secret, this.ctx, this.seat, round, pos);
  }

  /** This seat's masking pass of round `round` over the stage it received (10.5 step 2). */
  mask(round, points) {
    return maskPass(points, this.deckKey(round), this.permutation(round, points.length));
  }

  /** This seat's re-keying pass of round `round` over the stage it received (10.5 step 3). */
  rekey(round, points) {
    const keys = points.map((_, i) => this.positionKey(round, i));
    return rekeyPass(points, this.deckKey(round), keys);
  }

  /** Its key for position `pos` of round `round`, sealed to seat `to` (10.7). */
  seal(round, pos, to, recipientPk) {
    return sealKey(this.ctx, { stream: round, pos, from: this.seat, to }, this.positionKey(round, pos), recipientPk);
  }

  /** Opens a key seat `from` sealed to this seat for position `pos` of round `round`. */
  openSealed(round, pos, from, box) {
    const { publicKey, secretKey } = this.boxKeys;
    return openSealedKey(this.ctx, { stream: round, pos, from, to: this.seat }, box, publicKey, secretKey);
  }
}

// --- 10.5 the passes of a round ---------------------------------------------------------------------

function checkStage(points, n, what) {
  if (!Array.isArray(points)) throw new StageError(`${what}: not a list of points`);
  if (n !== undefined && points.length !== n) throw new StageError(`${what}: ${points.length} points, not ${n}`);
  return points.map((p, i) => pointBytes(p, `position ${i}`)); // the rest: when multiplied
}

/** A masking pass: output position i is `key · points[perm[i]]`. Checks every input. */
export function maskPass(points, key, perm, n = undefined) {
  const stage = checkStage(points, n, "masking pass input");
  const k = checkScalar(key, "the deck key");
  const seen = new Set(perm);
  if (perm.length !== stage.length || seen.size !== perm.length || !perm.every((j) => Number.isInteger(j) && j >= 0 && j < perm.length)) {
    throw new RangeError(`the permutation is not one of 0..${stage.length - 1}`);
  }
  return perm.map((j) => times(k, stage[j], `position ${j}`));
}

/** A re-keying pass: position i becomes `(keys[i] * deckKey^-1) · points[i]`. */
export function rekeyPass(points, deckKey, keys, n = undefined) {
  const stage = checkStage(points, n, "re-keying pass input");
  const off = invert(checkScalar(deckKey, "the deck key"));
  if (keys.length !== stage.length) throw new RangeError(`${keys.length} position keys for ${stage.length} positions`);
  return stage.map((p, i) => times(mul(checkScalar(keys[i], `the key for position ${i}`), off), p, `position ${i}`));
}

// --- 10.6 opening a position -------------------------------------------------------------------------

/**
 * Opens the masked `point` with every seat's key for its position (any order) against the
 * round's card points; returns the index `j` of the card it opens to.
 */
export function unmask(point, keys, points) {
  const x = pointBytes(point, "the masked point");
  if (!Array.isArray(keys) || keys.length === 0) throw new UnmaskError("no keys to open the position with");
  const checked = keys.map((k, s) => checkScalar(k, `key of seat ${s}`));
  const u = checked.reduce((acc, k) => mul(acc, k));
  const q = times(invert(u), x, "the masked point").toString("hex");
  const j = points.findIndex((p) => Buffer.from(p).toString("hex") === q);
  if (j < 0) throw new UnmaskError("the keys do not open this position to a card of the round");
  return j;
}

/** What a receiver keeps per round (10.6): the card point each position opened to. */
export class Openings {
  constructor(round, cards, points) {
    this.round = round;
    this.cards = cards;
    this.points = points;
    this.byPosition = new Map(); // position -> j
    this.byCard = new Map(); // j -> position
  }

  /** Opens position `pos` (masked point `point`) with `keys`; returns the card ID. */
  open(pos, point, keys) {
    const j = unmask(point, keys, this.points);
    const before = this.byPosition.get(pos);
    if (before !== undefined && before !== j) {
      throw new UnmaskError(`round ${this.round} position ${pos} opened to ${this.cards[before]} before and to ${this.cards[j]} now`);
    }
    const at = this.byCard.get(j);
    if (at !== undefined && at !== pos) {
      throw new StageError(`round ${this.round}: card ${j} (${this.cards[j]}) opened at positions ${at} and ${pos}: a pass copied a point`);
    }
    this.byPosition.set(pos, j);
    this.byCard.set(j, pos);
    return this.cards[j];
  }
}

// --- 10.7 sealed keys ----------------------------------------------------------------------------------

/** The plaintext of a sealed key: 130 bytes, its route and the key. */
export const sealedKeyPlaintext = (ctx, { stream, pos, from, to }, key) =>
  enc(label("sealed-key"), ctx, u32(stream), u32(pos), u32(from), u32(to), key);

/** Seals `key` (seat `route.from`'s key for `route.pos` of round `route.stream`) to `route.to`. */
export function sealKey(ctx, route, key, recipientPk) {
  return B(sodium.crypto_box_seal(sealedKeyPlaintext(ctx, route, checkScalar(key)), recipientPk));
}

/** Opens a sealed key expected on `route`; returns the key once box, route and key check. */
export function openSealedKey(ctx, route, box, recipientPk, recipientSk) {
  const what = `sealed key of seat ${route.from} for stream ${route.stream} position ${route.pos}`;
  if (!isBytes(box) || box.length !== SEALED_KEY_BYTES) {
    throw new SealError(`${what}: ${isBytes(box) ? box.length : "no"} bytes, not ${SEALED_KEY_BYTES}`);
  }
  let plain;
  try {
    plain = B(sodium.crypto_box_seal_open(box, recipientPk, recipientSk));
  } catch {
    throw new SealError(`${what}: does not open with seat ${route.to}'s key`);
  }
  const key = plain.subarray(plain.length - 32);
  const expected = sealedKeyPlaintext(ctx, route, Buffer.alloc(32));
  const routeMatches = plain.length === expected.length && plain.subarray(0, -32).equals(expected.subarray(0, -32));
  if (!routeMatches) throw new SealError(`${what}: it holds a key for another hand, round, position or seat`);
  return checkScalar(key, what);
}

// --- 10.8 the audit of a round -------------------------------------------------------------------------

const PASS_NAMES = { mask: "masking", rekey: "re-keying" };

/**
 * Audits round `round` of a hand: `cards` the round's list, `secrets` and `commitments` one
 * per seat in seat order, `masked` and `rekeyed` the k stages of each pass as relayed.
 * Returns the round's stock (card IDs, position 0 the top). Throws the first failure: a
 * CommitmentError naming the seat, or a StageError naming the pass, the seat and the position.
 */
export function verifyRound({ ctx, round, cards, secrets, commitments, masked, rekeyed }) {
  const k = secrets.length;
  if (k === 0 || commitments.length !== k || masked.length !== k || rekeyed.length !== k) {
    throw new StageError(
      `${k} secrets, ${commitments.length} commitments, ${masked.length} masking and ${rekeyed.length} re-keying stages: one each per seat`,
    );
  }
  secrets.forEach((m, s) => openCommitment(ctx, s, m, commitments[s]));
  const seats = secrets.map((m, s) => new Seat(ctx, s, m));
  const n = cards.length;
  let order = cards.map((_, j) => j);
  let stage = cardPoints(ctx, round, cards);
  const compare = (pass, relayed, seat) => {
    const name = PASS_NAMES[pass];
    if (!Array.isArray(relayed) || relayed.length !== n) {
      throw new StageError(`${name} pass of seat ${seat}: not ${n} points`, { pass, seat });
    }
    relayed.forEach((p, i) => {
      if (!isBytes(p) || !stage[i].equals(Buffer.from(p))) {
        throw new StageError(`${name} pass of seat ${seat}: position ${i} differs from the one its secret gives`, {
          pass,
          seat,
          position: i,
        });
      }
    });
  };
  seats.forEach((seat, s) => {
    const perm = seat.permutation(round, n);
    stage = maskPass(stage, seat.deckKey(round), perm);
    order = perm.map((j) => order[j]);
    compare("mask", masked[s], s);
  });
  seats.forEach((seat, s) => {
    stage = seat.rekey(round, stage);
    compare("rekey", rekeyed[s], s);
  });
  return order.map((j) => cards[j]);
}

/**
 * Checks a key seat `seat` published or sealed for position `pos` of round `round` against
 * the one its revealed secret gives (10.8): a KeyMismatchError naming the seat when it differs.
 */
export function checkDerivedKey(ctx, seat, secret, round, pos, key) {
  if (!isBytes(key) || !positionKey(secret, ctx, seat, round, pos).equals(Buffer.from(key))) {
    throw new KeyMismatchError(`the key of seat ${seat} for round ${round} position ${pos} is not the one its secret gives`, seat);
  }
  return Buffer.from(key);
}
