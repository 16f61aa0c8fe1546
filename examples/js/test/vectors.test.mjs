// spec/vectors (PROTOCOL.md 7.14) reproduced with cardfair.mjs: `node --test test/`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import * as cf from "../cardfair.mjs";

const vectors = (name) => JSON.parse(readFileSync(new URL(`../../../spec/vectors/${name}`, import.meta.url)));
const hex = (b) => Buffer.from(b).toString("hex");
const bin = (h) => Buffer.from(h, "hex");

test("encodings", () => {
  const { encodings } = vectors("primitives.json");
  for (const c of encodings.u32) assert.equal(hex(cf.u32(c.n)), c.hex);
  for (const c of encodings.u64) assert.equal(hex(cf.u64(c.n)), c.hex); // n: a decimal string
  for (const c of encodings.enc) {
    const fields = c.fields_hex?.length ? c.fields_hex.map(bin) : c.fields_utf8;
    assert.equal(hex(cf.enc(...fields)), c.hex);
  }
  assert.ok("private" in encodings.labels);
  for (const [name, h] of Object.entries(encodings.labels)) assert.equal(hex(Buffer.from(cf.label(name))), h);
});

test("commitments, ctx, deck key, streams and below", () => {
  const p = vectors("primitives.json");
  const i = p.inputs;
  assert.equal(hex(cf.deckDigest(i.deck)), p.deck_digest);
  const ctx = cf.makeCtx(i.table_id, i.hand_no, i.ruleset_id, i.deck, i.pids, bin(i.host_pk));
  assert.equal(hex(ctx), p.ctx);
  assert.equal(hex(cf.hostCommit(ctx, bin(i.secret))), p.host_commit);
  i.pids.forEach((pid, k) => assert.equal(hex(cf.playerCommit(ctx, pid, bin(i.reveals[k]))), p.player_commits[pid]));
  const mix = cf.makeMix(ctx, i.reveals.map(bin));
  assert.equal(hex(mix), p.mix);
  const key = cf.deckKey(bin(i.secret), ctx, mix);
  assert.equal(hex(key), p.deck_key);
  for (const b of p.stream_blocks) {
    const s = new cf.Stream(key, b.stream);
    const words = [];
    for (let k = 0; k < 8 * (b.j + 1); k++) words.push(s.word());
    const block = Buffer.concat(words.slice(8 * b.j).map((w) => cf.u32(w)));
    assert.equal(hex(block), b.hex);
  }
  const s0 = new cf.Stream(key, 0);
  for (const w of p.stream0_first_words) assert.equal(hex(cf.u32(s0.word())), w);
  for (const c of p.below) {
    const s = new cf.Stream(key, c.stream);
    assert.deepEqual(c.results.map(() => s.below(c.n)), c.results);
  }
  const t = p.transcript;
  const next = cf.nextTranscript(bin(t.prev), t.type, bin(t.body), bin(t.sig));
  assert.equal(hex(next), t.next);
  assert.equal(cf.fingerprint(next), t.fingerprint);
});

test("shuffles and dealers", () => {
  const s = vectors("shuffles.json");
  const key = bin(s.deck_key);
  for (const c of [s.deck54, s.deck_one, ...s.reshuffles]) assert.deepEqual(cf.shuffle(key, c.stream, c.cards), c.order);
  for (const c of s.dealer.choices) assert.equal(cf.chooseDealer(key, c.seats), c.dealer);
});

test("a signed message", () => {
  const g = vectors("signed.json");
  assert.equal(hex(cf.enc(cf.label("sig"), g.type, bin(g.body))), g.signed_bytes);
  cf.verifySignature(bin(g.public_key), g.type, bin(g.body), bin(g.sig));
  const forged = bin(g.sig);
  forged[0] ^= 1;
  assert.throws(() => cf.verifySignature(bin(g.public_key), g.type, bin(g.body), forged), cf.FairnessError);
});

test("two packs: copies side by side, the jokers at the end (7.3)", () => {
  const deck = cf.expectedDeck("black-jack", 6, { jokers: 2, decks: "auto" });
  assert.equal(deck.length, 108);
  assert.deepEqual(deck.slice(-6), ["KC", "KC", "JB", "JB", "JR", "JR"]);
});

test("the deck of every ruleset (decks.json, 7.3)", () => {
  const { cases } = vectors("decks.json");
  assert.ok(cases.length > 40);
  for (const c of cases) {
    assert.deepEqual(cf.rulesetDeck(c.ruleset_id, c.seats), c.deck, `${c.ruleset_id} at ${c.seats}`);
    assert.deepEqual(cf.expectedDeck(c.game, c.seats, c.options), c.deck);
    assert.equal(c.deck.length, c.count);
  }
});

test("a game or deck option with no deck in 7.3 is refused, not guessed", () => {
  assert.throws(() => cf.rulesetDeck("two-card", 2), cf.FairnessError);
  assert.throws(() => cf.rulesetDeck("black-jack?jokers=3", 2), cf.FairnessError);
  assert.throws(() => cf.expectedDeck("poker", 2, {}), cf.FairnessError);
});
