// spec/vectors/private.json (PROTOCOL.md 10.10) reproduced with cardmask.mjs, every value and
// every tampered case, then whole rounds with random secrets at 2-6 seats: `node --test test/`.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import sodium from "libsodium-wrappers-sumo";
import * as cf from "../cardfair.mjs";
import * as cm from "../cardmask.mjs";

const V = JSON.parse(readFileSync(new URL("../../../spec/vectors/private.json", import.meta.url)));
const hex = (b) => Buffer.from(b).toString("hex");
const bin = (h) => Buffer.from(h, "hex");
const bins = (list) => list.map(bin);
const C = V.context;
const CTX = cf.makeCtx(C.table_id, C.hand_no, C.ruleset_id, V.deal.cards, C.pids, bin(C.host_pk));
const SEATS = V.seats.map((s) => new cm.Seat(CTX, s.seat, bin(s.secret)));
const ROUNDS = [V.deal, V.reshuffle];
const DEAL_POINTS = bins(V.deal.card_points);

/** Asserts that `f` throws the failure kind `kind` (10.9), every kind being a FairnessError. */
function throwsKind(f, kind, what) {
  assert.throws(
    f,
    (e) => {
      assert.ok(e instanceof cf.FairnessError, `${what}: ${e}`);
      assert.equal(e.kind, kind, `${what}: ${e.message}`);
      return true;
    },
    what,
  );
}

let valuesChecked = 0;
function same(actual, expected, what) {
  assert.deepEqual(actual, expected, what);
  valuesChecked += 1;
}

test("labels and the hand's ctx (10.2, 10.10)", () => {
  same(V.scheme, "cardmask/v1", "scheme");
  same(cm.label(""), V.label_prefix, "label prefix");
  same([...cm.LABELS], V.labels, "labels");
  same(hex(CTX), C.ctx, "ctx from the context and the deal's 54 cards");
  same(V.deal.cards, cf.rulesetDeck("one-card", C.pids.length), "round 0 lists the hand's deck");
});

test("every value a seat derives from its secret (10.4)", () => {
  assert.equal(V.seats.length, 3);
  for (const [s, v] of V.seats.entries()) {
    const seat = SEATS[s];
    const at = `seat ${s}`;
    same(v.seat, s, at);
    same(hex(seat.commitment), v.commitment, `${at} commitment`);
    same(hex(seat.deckKey(0)), v.deck_key, `${at} deck key`);
    same(hex(seat.deckKey(1)), v.deck_key_stream1, `${at} deck key round 1`);
    same(hex(cm.permutationKey(seat.secret, CTX, s)), v.permutation_key, `${at} permutation key`);
    same(seat.permutation(0, 54), v.permutation, `${at} permutation`);
    same(seat.permutation(1, 6), v.permutation_stream1, `${at} permutation round 1`);
    assert.equal(v.position_keys.length, 54);
    v.position_keys.forEach((key, i) => same(hex(seat.positionKey(0, i)), key, `${at} key for position ${i}`));
    const { publicKey, secretKey } = seat.boxKeys;
    same(hex(publicKey), v.box_public_key, `${at} box public key`);
    same(hex(secretKey), v.box_secret_key, `${at} box secret key`);
  }
});

test("card points, every pass and the stock of the deal and of a reshuffle (10.3, 10.5)", () => {
  for (const round of ROUNDS) {
    const r = round.stream;
    const at = `round ${r}`;
    if (r > 0) {
      const sorted = [...round.cards].sort((a, b) => cf.cardIndex(a) - cf.cardIndex(b));
      same(round.cards, sorted, `${at} lists its cards in canonical order`);
    }
    const points = cm.cardPoints(CTX, r, round.cards);
    points.forEach((p, j) => same(hex(p), round.card_points[j], `${at} card point ${j}`));
    let stage = bins(round.card_points);
    for (const [s, seat] of SEATS.entries()) {
      stage = seat.mask(r, stage);
      stage.forEach((p, i) => same(hex(p), round.masked[s][i], `${at} masking pass of seat ${s} position ${i}`));
      stage = bins(round.masked[s]); // each pass from the stage as relayed
    }
    for (const [s, seat] of SEATS.entries()) {
      stage = seat.rekey(r, stage);
      stage.forEach((p, i) => same(hex(p), round.rekeyed[s][i], `${at} re-keying pass of seat ${s} position ${i}`));
      stage = bins(round.rekeyed[s]);
    }
    const audited = cm.verifyRound({
      ctx: CTX,
      round: r,
      cards: round.cards,
      secrets: SEATS.map((seat) => seat.secret),
      commitments: V.seats.map((v) => bin(v.commitment)),
      masked: round.masked.map(bins),
      rekeyed: round.rekeyed.map(bins),
    });
    same(audited, round.stock, `${at} stock`);
  }
});

test("opening positions of the deal with every seat's keys (10.6)", () => {
  assert.equal(V.opened.length, 3);
  const stock = V.deal.rekeyed.at(-1);
  const openings = new cm.Openings(0, V.deal.cards, DEAL_POINTS);
  for (const o of V.opened) {
    const at = `position ${o.pos}`;
    same(o.point, stock[o.pos], `${at} point is the last re-keyed stage's`);
    o.keys.forEach((key, s) => same(key, V.seats[s].position_keys[o.pos], `${at} key of seat ${s}`));
    const j = cm.unmask(bin(o.point), bins(o.keys), DEAL_POINTS);
    same(V.deal.card_points[j], o.card_point, `${at} card point`);
    same(V.deal.cards[j], o.card, `${at} card`);
    same(openings.open(o.pos, bin(o.point), bins(o.keys).reverse()), o.card, `${at} keys in another order`);
    same(o.card, V.deal.stock[o.pos], `${at} card is the stock's`);
  }
});

test("the sealed key opens for its route (10.7)", () => {
  const v = V.sealed;
  const { stream, pos, from, to } = v.route;
  same(hex(cm.sealedKeyPlaintext(CTX, v.route, bin(v.key))), v.plaintext, "plaintext");
  same(v.plaintext.length / 2, 130, "plaintext length");
  same(v.sealed.length / 2, cm.SEALED_KEY_BYTES, "sealed length");
  same(v.key, V.seats[from].position_keys[pos], "the key is the sender's for the position");
  same(v.recipient_keys.public, V.seats[to].box_public_key, "recipient public key");
  same(v.recipient_keys.secret, V.seats[to].box_secret_key, "recipient secret key");
  const { public: pk, secret: sk } = v.recipient_keys;
  same(hex(cm.openSealedKey(CTX, v.route, bin(v.sealed), bin(pk), bin(sk))), v.key, "opened key");
  same(hex(SEATS[to].openSealed(stream, pos, from, bin(v.sealed))), v.key, "opened by the recipient seat");
  const fresh = SEATS[from].seal(stream, pos, to, bin(pk));
  assert.notEqual(hex(fresh), v.sealed, "sealing is randomized");
  same(hex(SEATS[to].openSealed(stream, pos, from, fresh)), v.key, "a fresh box of the same key");
});

/** Applies an audit case's `change` to the deal as relayed; returns verifyRound's input. */
function changedDeal(change = {}) {
  const input = {
    ctx: CTX,
    round: V.deal.stream,
    cards: V.deal.cards,
    secrets: V.seats.map((s) => bin(s.secret)),
    commitments: V.seats.map((s) => bin(s.commitment)),
    masked: V.deal.masked.map(bins),
    rekeyed: V.deal.rekeyed.map(bins),
  };
  if (change.secret) {
    input.secrets[change.secret.seat] = bin(change.secret.value);
  } else if (change.pass) {
    const stage = input[change.pass][change.seat];
    if (change.swap) {
      const [a, b] = change.swap;
      [stage[a], stage[b]] = [stage[b], stage[a]];
    } else {
      stage[change.position] = bin(change.point);
    }
  }
  return input;
}

test("every tampered case fails with its failure kind (10.9)", () => {
  const ops = new Set();
  assert.equal(V.tampered.length, 19);
  for (const t of V.tampered) {
    const at = `${t.name}: ${t.description}`;
    ops.add(t.op);
    if (t.op === "mask") {
      throwsKind(() => cm.maskPass(bins(t.points), bin(t.key), t.permutation), t.failure, at);
    } else if (t.op === "unmask") {
      throwsKind(() => cm.unmask(bin(t.point), bins(t.keys), DEAL_POINTS), t.failure, at);
    } else if (t.op === "open") {
      const { public: pk, secret: sk } = t.recipient_keys;
      throwsKind(() => cm.openSealedKey(CTX, t.route, bin(t.sealed), bin(pk), bin(sk)), t.failure, at);
    } else if (t.op === "audit") {
      let error = null;
      try {
        cm.verifyRound(changedDeal(t.change));
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof cm.MaskError, `${at}: no failure`);
      assert.equal(error.kind, t.failure, at);
      if (t.change.secret) {
        assert.equal(error.seat, t.change.secret.seat, at);
      } else {
        assert.equal(error.seat, t.change.seat, at);
        assert.equal(error.pass, { masked: "mask", rekeyed: "rekey" }[t.change.pass], at);
        assert.equal(error.position, t.change.swap ? Math.min(...t.change.swap) : t.change.position, at);
      }
      assert.equal(error.message, t.message, at); // the audit names seat, pass and position as the reference does
    } else {
      assert.fail(`${at}: an op this test does not know: ${t.op}`);
    }
    valuesChecked += 1;
  }
  assert.deepEqual([...ops].sort(), ["audit", "mask", "open", "unmask"]);
});

test("six seats and two packs: every copy of a card its own point, a round over copies (two_packs)", () => {
  const tp = V.two_packs;
  const c = tp.context;
  const deck = cf.rulesetDeck(c.ruleset_id, c.pids.length);
  same(deck, tp.deck.cards, "the deck of the ruleset at six seats");
  const ctx = cm.handContext({ ...c, deck, host_pk: bin(c.host_pk) });
  same(hex(ctx), c.ctx, "ctx");
  const points = cm.cardPoints(ctx, 0, deck);
  points.forEach((p, j) => same(hex(p), tp.deck.card_points[j], `card point ${j} (${deck[j]})`));
  assert.equal(new Set(tp.deck.card_points).size, 108, "108 points for 54 card IDs twice");
  const seats = tp.secrets.map((m, s) => new cm.Seat(ctx, s, bin(m)));
  seats.forEach((seat, s) => same(hex(seat.commitment), tp.commitments[s], `commitment of seat ${s}`));
  const round = tp.reshuffle;
  same(cm.roundCards(1, deck, round), round.cards, "the round's list");
  cm.cardPoints(ctx, 1, round.cards).forEach((p, j) => same(hex(p), round.card_points[j], `round 1 point ${j}`));
  let stage = bins(round.card_points);
  seats.forEach((seat, s) => {
    seat.mask(1, stage).forEach((p, i) => same(hex(p), round.masked[s][i], `masking pass of seat ${s} position ${i}`));
    stage = bins(round.masked[s]);
  });
  seats.forEach((seat, s) => {
    seat.rekey(1, stage).forEach((p, i) => same(hex(p), round.rekeyed[s][i], `re-keying pass of seat ${s} position ${i}`));
    stage = bins(round.rekeyed[s]);
  });
  const audit = {
    ctx,
    round: 1,
    cards: round.cards,
    secrets: seats.map((seat) => seat.secret),
    commitments: bins(tp.commitments),
    masked: round.masked.map(bins),
    rekeyed: round.rekeyed.map(bins),
  };
  same(cm.verifyRound(audit), round.stock, "stock");
  const openings = new cm.Openings(1, round.cards, bins(round.card_points));
  stage.forEach((p, i) => assert.equal(openings.open(i, p, seats.map((seat) => seat.positionKey(1, i))), round.stock[i]));
  // the two copies of AS open at two positions: two points, so no failure; the same point twice is one
  const copied = round.rekeyed.map(bins);
  const ace = round.stock.indexOf("AS");
  copied[5][round.stock.lastIndexOf("AS")] = copied[5][ace];
  throwsKind(() => cm.verifyRound({ ...audit, rekeyed: copied }), "StageError", "a copy of one ace's point over the other");
});

test("every value of private.json was compared", () => {
  const k = V.seats.length;
  const seats = V.seats.reduce((sum, s) => sum + 9 + s.position_keys.length, 0);
  const rounds = ROUNDS.reduce((sum, r) => sum + (r.stream > 0) + r.cards.length * (1 + 2 * k) + 1, 0);
  const opened = V.opened.reduce((sum, o) => sum + 5 + o.keys.length, 0);
  const tp = V.two_packs;
  const twoPacks = 2 + tp.deck.cards.length + tp.commitments.length + tp.reshuffle.cards.length * (1 + 2 * tp.secrets.length) + 2;
  const expected = 5 + seats + rounds + opened + 9 + V.tampered.length + twoPacks;
  assert.equal(valuesChecked, expected); // 669 + 209 for the vectors of this writing
});

// --- beyond the vectors: more tampering, each of 10.9's kinds ------------------------------------

test("each invalid point of the vectors is refused wherever a point is received", () => {
  const keys = SEATS.map((seat) => seat.positionKey(0, 0));
  const cases = V.tampered.filter((t) => t.op === "mask");
  assert.equal(cases.length, 6);
  for (const t of cases) {
    const bad = bin(t.points[1]);
    throwsKind(() => cm.checkPoint(bad), "PointError", `${t.name}: checkPoint`);
    throwsKind(() => cm.unmask(bad, keys, DEAL_POINTS), "PointError", `${t.name}: unmask`);
    throwsKind(() => SEATS[1].rekey(0, bins(t.points)), "PointError", `${t.name}: a re-keying pass`);
    throwsKind(() => SEATS[2].mask(0, bins(t.points).reverse()), "PointError", `${t.name}: at position 0`);
  }
  for (const p of V.deal.card_points) cm.checkPoint(bin(p));
});

test("a stage of the wrong length, a card opened twice, a box of the wrong size or key", () => {
  const masked = V.deal.masked.map(bins);
  masked[2] = masked[2].slice(1);
  const input = { ...changedDeal(), masked };
  throwsKind(() => cm.verifyRound(input), "StageError", "the last masking stage is a point short");
  throwsKind(() => SEATS[0].mask(0, bins(V.deal.card_points).slice(0, 53).concat([Buffer.alloc(32)])), "PointError", "zero point");

  const stock = bins(V.deal.rekeyed.at(-1));
  const keysOf = (pos) => SEATS.map((seat) => seat.positionKey(0, pos));
  const openings = new cm.Openings(0, V.deal.cards, DEAL_POINTS);
  assert.equal(openings.open(0, stock[0], keysOf(0)), V.deal.stock[0]);
  assert.equal(openings.open(0, stock[0], keysOf(0)), V.deal.stock[0], "opening a position again is no failure");
  throwsKind(() => openings.open(1, stock[0], keysOf(0)), "StageError", "one card point at a second position");
  const other = new cm.Openings(0, V.deal.cards, DEAL_POINTS);
  other.open(5, stock[5], keysOf(5));
  throwsKind(() => other.open(5, stock[6], keysOf(6)), "UnmaskError", "a position opening to a second card");

  const { public: pk, secret: sk } = V.sealed.recipient_keys;
  const route = V.sealed.route;
  throwsKind(() => cm.openSealedKey(CTX, route, bin(V.sealed.sealed).subarray(1), bin(pk), bin(sk)), "SealError", "177 bytes");
  for (const [bad, why] of [
    [Buffer.alloc(32), "zero"],
    [Buffer.alloc(32, 0xff), "2^256-1"],
  ]) {
    const box = sodium.crypto_box_seal(cm.sealedKeyPlaintext(CTX, route, bad), bin(pk));
    throwsKind(() => cm.openSealedKey(CTX, route, box, bin(pk), bin(sk)), "ScalarError", `a route that matches around a ${why} key`);
  }
  throwsKind(() => cm.verifyRound({ ...changedDeal(), rekeyed: V.deal.rekeyed.slice(1).map(bins) }), "StageError", "a stage short");
  const otherCtx = cf.makeCtx(C.table_id, C.hand_no + 1, C.ruleset_id, V.deal.cards, C.pids, bin(C.host_pk));
  throwsKind(() => cm.openSealedKey(otherCtx, route, bin(V.sealed.sealed), bin(pk), bin(sk)), "SealError", "another hand");
});

test("two seats that shift a factor between their keys still open a position; the audit of keys names them", () => {
  const pos = 0;
  const keys = SEATS.map((seat) => seat.positionKey(0, pos));
  const x = cm.checkScalar(Buffer.from(sodium.crypto_core_ed25519_scalar_reduce(randomBytes(64))));
  const shifted = [...keys];
  shifted[0] = Buffer.from(sodium.crypto_core_ed25519_scalar_mul(keys[0], x));
  shifted[1] = Buffer.from(sodium.crypto_core_ed25519_scalar_mul(keys[1], sodium.crypto_core_ed25519_scalar_invert(x)));
  const stock = bin(V.deal.rekeyed.at(-1)[pos]);
  assert.equal(V.deal.cards[cm.unmask(stock, shifted, DEAL_POINTS)], V.deal.stock[pos]);
  keys.forEach((key, s) => cm.checkDerivedKey(CTX, s, SEATS[s].secret, 0, pos, key));
  throwsKind(() => cm.checkDerivedKey(CTX, 0, SEATS[0].secret, 0, pos, shifted[0]), "KeyMismatchError", "seat 0's shifted key");
  throwsKind(() => cm.checkDerivedKey(CTX, 1, SEATS[1].secret, 0, pos, shifted[1]), "KeyMismatchError", "seat 1's shifted key");
  throwsKind(() => cm.checkDerivedKey(CTX, 2, SEATS[2].secret, 0, pos + 1, keys[2]), "KeyMismatchError", "another position's key");
});

// --- the binding of a private hand to its cardfair/v1 hand (10.3, 10.4) ------------------------------

const vectors = (name) => JSON.parse(readFileSync(new URL(`../../../spec/vectors/${name}`, import.meta.url)));

test("a private hand's ctx and round lists are its cardfair/v1 hand's (10.3)", () => {
  const p = vectors("primitives.json");
  const i = p.inputs;
  const handCommit = { ...i, host_pk: bin(i.host_pk) }; // the fields of hand_commit (7.7)
  assert.equal(hex(cm.handContext(handCommit)), p.ctx, "ctx of primitives.json");
  assert.equal(p.ctx, C.ctx, "private.json's hand is primitives.json's");
  assert.deepEqual(cm.roundCards(0, i.deck), V.deal.cards, "round 0 masks hand_commit's deck");
  const { reshuffles } = vectors("shuffles.json");
  const first = reshuffles.find((r) => r.stream === 1);
  assert.deepEqual(cm.roundCards(1, i.deck, first), V.reshuffle.cards, "round 1 masks reshuffle 1's cards");
  assert.equal(V.reshuffle.stream, 1, "the round is the cardfair/v1 stream");
  const second = reshuffles.find((r) => r.stream === 2);
  assert.deepEqual(cm.roundCards(2, i.deck, second), second.cards);

  const refused = [
    [() => cm.roundCards(1, i.deck, second), "the reshuffle of another round"],
    [() => cm.roundCards(1, i.deck, null), "no reshuffle"],
    [() => cm.roundCards(1, i.deck, { stream: 1, cards: [] }), "no cards"],
    [() => cm.roundCards(1, i.deck, { stream: 1, cards: ["10S", "5S"] }), "not in canonical order"],
    [() => cm.roundCards(1, i.deck, { stream: 1, cards: ["5S", "5S"] }), "a card twice from a single pack"],
    [() => cm.roundCards(1, i.deck, { stream: 1, cards: ["5S", "1S"] }), "no card ID"],
  ];
  for (const [f, why] of refused) assert.throws(f, cf.FairnessError, why);
  const twoPacks = cf.rulesetDeck("black-jack?decks=2&jokers=2", 2);
  assert.deepEqual(cm.roundCards(1, twoPacks, { stream: 1, cards: ["5S", "5S", "JB", "JR", "JR"] }), ["5S", "5S", "JB", "JR", "JR"]);

  // the points belong to their hand and round: another hand_no, another round, other points
  const nextHand = cm.handContext({ ...handCommit, hand_no: i.hand_no + 1 });
  const points = cm.cardPoints(nextHand, 0, V.deal.cards).map(hex);
  assert.ok(points.every((pt) => !V.deal.card_points.includes(pt)), "no point of hand 1 in hand 2");
  const fiveOfSpades = V.deal.cards.indexOf("5S");
  assert.notEqual(V.reshuffle.card_points[0], V.deal.card_points[fiveOfSpades], "5S of round 1 is not 5S of round 0");
  const copies = cm.cardPoints(CTX, 1, ["5S", "5S"]).map(hex);
  assert.notEqual(copies[0], copies[1], "two copies of a card are two points");
});

test("a masking commitment binds its hand, its seat and its secret (10.4)", () => {
  const nextHand = cm.handContext({ ...C, deck: V.deal.cards, host_pk: bin(C.host_pk), hand_no: C.hand_no + 1 });
  for (const [s, v] of V.seats.entries()) {
    const secret = bin(v.secret);
    const c = bin(v.commitment);
    cm.openCommitment(CTX, s, secret, c);
    throwsKind(() => cm.openCommitment(nextHand, s, secret, c), "CommitmentError", `seat ${s}'s commitment in another hand`);
    throwsKind(() => cm.openCommitment(CTX, (s + 1) % 3, secret, c), "CommitmentError", `seat ${s}'s commitment at another seat`);
    throwsKind(() => cm.openCommitment(CTX, s, secret.subarray(1), c), "CommitmentError", `a 31-byte secret`);
    // cardfair/v1's player commitment of the same bytes is another value: the labels differ
    assert.notEqual(hex(cf.playerCommit(CTX, C.pids[s], secret)), v.commitment);
    assert.notEqual(hex(cf.hostCommit(CTX, secret)), v.commitment);
  }
});

// --- whole rounds with random secrets ----------------------------------------------------------------

function shuffled(list) {
  const a = [...list];
  for (let i = a.length - 1; i > 0; i--) {
    const j = randomBytes(4).readUInt32BE() % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

for (const k of [2, 3, 4, 5, 6]) {
  test(`a round at ${k} seats with random secrets: any order of passes unmasks to the deck`, () => {
    const pids = Array.from({ length: k }, (_, s) => `p${s}`);
    const game = k % 2 ? "one" : "one-card";
    const deck = cf.rulesetDeck(game, k);
    const ctx = cf.makeCtx("table-js", k, game, deck, pids, randomBytes(32));
    const seats = pids.map((_, s) => new cm.Seat(ctx, s, randomBytes(32)));
    const points = cm.cardPoints(ctx, 0, deck);

    // seat order, as 10.5 fixes it: the audit re-derives every stage and yields the stock
    const masked = [];
    const rekeyed = [];
    let stage = points;
    for (const seat of seats) masked.push((stage = seat.mask(0, stage)));
    for (const seat of seats) rekeyed.push((stage = seat.rekey(0, stage)));
    const stock = cm.verifyRound({
      ctx,
      round: 0,
      cards: deck,
      secrets: seats.map((s) => s.secret),
      commitments: seats.map((s) => s.commitment),
      masked,
      rekeyed,
    });
    assert.deepEqual([...stock].sort(), [...deck].sort(), "the stock is the deck, reordered");
    assert.notDeepEqual(stock, deck, "the stock is shuffled");
    const openings = new cm.Openings(0, deck, points);
    stage.forEach((p, i) => {
      const keys = shuffled(seats.map((s) => s.positionKey(0, i)));
      assert.equal(openings.open(i, p, keys), stock[i], `position ${i}`);
    });

    // any other order of seats in each pass still opens every position to a card, each once
    let other = points;
    for (const seat of shuffled(seats)) other = seat.mask(0, other);
    for (const seat of shuffled(seats)) other = seat.rekey(0, other);
    const again = new cm.Openings(0, deck, points);
    const cards = other.map((p, i) => again.open(i, p, seats.map((s) => s.positionKey(0, i))));
    assert.deepEqual([...cards].sort(), [...deck].sort());

    // without one seat's key a position opens to no card
    throwsKind(() => cm.unmask(stage[0], seats.slice(1).map((s) => s.positionKey(0, 0)), points), "UnmaskError", "a key short");

    // a sealed key opens for its route only
    const from = 0;
    const to = k - 1;
    const box = seats[from].seal(0, 3, to, seats[to].boxKeys.publicKey);
    assert.equal(box.length, cm.SEALED_KEY_BYTES);
    assert.ok(seats[to].openSealed(0, 3, from, box).equals(seats[from].positionKey(0, 3)));
    const { publicKey, secretKey } = seats[to].boxKeys;
    for (const [route, why] of [
      [{ stream: 0, pos: 4, from, to }, "another position"],
      [{ stream: 1, pos: 3, from, to }, "another round"],
      [{ stream: 0, pos: 3, from: 1, to }, "another sender"],
      [{ stream: 0, pos: 3, from, to: from }, "another recipient named"],
    ]) {
      throwsKind(() => cm.openSealedKey(ctx, route, box, publicKey, secretKey), "SealError", why);
    }
    throwsKind(() => seats[from].openSealed(0, 3, from, box), "SealError", "another recipient's keys");

    // a seat's commitment binds its secret; a stage of another seat's is named
    const forged = seats.map((s) => s.secret);
    forged[k - 1] = randomBytes(32);
    const round = { ctx, round: 0, cards: deck, commitments: seats.map((s) => s.commitment), masked, rekeyed };
    throwsKind(() => cm.verifyRound({ ...round, secrets: forged }), "CommitmentError", "another secret");
    const secrets = seats.map((s) => s.secret);
    const copied = [...masked];
    copied[k - 1] = masked[k - 2]; // the last seat relays its input unmasked
    throwsKind(() => cm.verifyRound({ ...round, secrets, masked: copied }), "StageError", "a pass not done");
    try {
      cm.verifyRound({ ...round, secrets, masked: copied });
    } catch (e) {
      assert.deepEqual([e.pass, e.seat, e.position], ["mask", k - 1, 0]);
    }
  });
}
