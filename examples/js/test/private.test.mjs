// spec/vectors/private_hand.json (PROTOCOL.md 10.11) with private.mjs and record.mjs: the record
// verifies and each tampered copy fails with its kind at its message; the hand replayed as each
// of its seats would see it (its secret from the record's mask_end) sends exactly the passes
// relayed, a box for every card dealt to another seat, the keys each mask_open and play put
// face up, and opens its own cards to the audit's stock; then 10.13's legal sets.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { decode } from "@msgpack/msgpack";
import { FairnessError } from "../cardfair.mjs";
import { Seat, boxKeyPair, openSealedKey } from "../cardmask.mjs";
import { PrivateHand, allowed, defaultMove, firstMet, unopened } from "../private.mjs";
import { verifyRecord } from "../record.mjs";

const V = JSON.parse(readFileSync(new URL("../../../spec/vectors/private_hand.json", import.meta.url)));
const R = V.record;
const bin = (h) => Buffer.from(h, "hex");
const MESSAGES = R.messages.map(([type, body, sig]) => ({ type, body: bin(body), sig: bin(sig), m: decode(bin(body)) }));
const SECRETS = MESSAGES.find((x) => x.type === "mask_end").m.secrets.map((s) => Buffer.from(s));
const at = (s, p) => `${s},${p}`;

test("the private hand record verifies, to the record's fingerprint", () => {
  const result = verifyRecord(R);
  assert.equal(result.status, "valid");
  assert.equal(result.fingerprint, R.fingerprint);
  assert.equal(result.stocks.get(0).length, R.deck.length);
  assert.equal(result.stocks.size, 2); // the deal and one reshuffle
});

for (const t of V.tampered) {
  test(`tampered private record ${t.name}: ${t.failure} at message ${t.message_index}`, () => {
    assert.throws(
      () => verifyRecord(t.record),
      (e) => {
        assert.ok(e instanceof FairnessError, String(e));
        assert.equal(e.kind, t.failure, e.message);
        assert.equal(e.messageIndex, t.message_index, e.message);
        return true;
      },
    );
  });
}

// Replays the record as seat `seat`: every request it would send, in order, with the index of
// the message after which it goes out.
function replay(seat, { before = () => {} } = {}) {
  const hand = new PrivateHand({
    tableId: R.table_id,
    ruleset: R.ruleset_id,
    deck: R.deck,
    pids: R.pids,
    mySeat: seat,
    hostPk: bin(R.host_pk),
    lastHandNo: 0,
    seenCommits: new Set(),
    auditor: true, // no live events in a record
    secret: SECRETS[seat],
  });
  const sent = [];
  MESSAGES.forEach((x, i) => {
    before(hand, x, i);
    hand.feed(x.type, x.body, x.sig);
    for (const req of hand.take()) sent.push({ ...req, after: i });
  });
  return { hand, sent };
}

for (const seat of [0, 1, 2]) {
  test(`seat ${seat} replays the hand: its commitment, passes, boxes, keys and cards`, () => {
    const { hand, sent } = replay(seat, {
      before: (h, x) => {
        if (x.type === "mask_end") h.handOver(); // the hand is over: the host asks for m_s
      },
    });
    const ofType = (type) => sent.filter((r) => r.type === type);
    const lock = MESSAGES.find((x) => x.type === "mask_lock").m.commits[seat];
    const [commit] = ofType("mask_commit");
    assert.deepEqual([commit.commit, commit.box_pk].map((b) => Buffer.from(b).toString("hex")), lock.map((b) => Buffer.from(b).toString("hex")));

    // each pass it sends is the stage relayed for it (the hand also checks this itself)
    const stages = MESSAGES.filter((x) => x.type === "mask_stage" && x.m.seat === seat);
    const passes = ofType("mask_pass");
    assert.equal(passes.length, 4); // masking and re-keying, two rounds
    passes.forEach((p, i) => {
      assert.equal(p.stream, stages[i].m.stream);
      assert.equal(p.step, stages[i].m.step);
      assert.deepEqual(p.points.map((b) => Buffer.from(b).toString("hex")), stages[i].m.points.map((b) => Buffer.from(b).toString("hex")));
    });

    // a box for every draw to another seat, sealed to it along its route, holding its derived key
    const draws = MESSAGES.filter((x) => x.type === "draw" && x.m.to !== null && x.m.to !== seat).map((x) => at(x.m.stream, x.m.pos));
    const boxes = ofType("sealed_keys").flatMap((r) => r.boxes.map(([pos, to, box]) => ({ stream: r.stream, pos, to, box })));
    assert.deepEqual(boxes.map((b) => at(b.stream, b.pos)), draws);
    const me = new Seat(hand.ctx, seat, SECRETS[seat]);
    for (const b of boxes) {
      const { publicKey, secretKey } = boxKeyPair(SECRETS[b.to], hand.ctx, b.to);
      const key = openSealedKey(hand.ctx, { stream: b.stream, pos: b.pos, from: seat, to: b.to }, b.box, publicKey, secretKey);
      assert.ok(key.equals(me.positionKey(b.stream, b.pos)));
    }

    // its own cards, opened from the sealed boxes, are the audit's stock at their positions
    const mine = MESSAGES.filter((x) => x.type === "draw" && x.m.to === seat);
    assert.equal(hand.cards().size, mine.length);
    for (const x of mine) assert.equal(hand.cards().get(at(x.m.stream, x.m.pos)), hand.derived.get(x.m.stream)[x.m.pos]);

    // open_keys for each mask_open: its own keys, which the opened then carries in its row
    for (const r of ofType("open_keys")) {
      for (const [pos, key] of r.keys) {
        const opened = MESSAGES.find((x) => x.type === "opened" && x.m.stream === r.stream && x.m.pos === pos);
        assert.ok(Buffer.from(opened.m.keys[seat]).equals(key));
      }
    }
    assert.equal(ofType("open_keys").length, 1);

    // a play's act.open is every seat's key for the position: the opened of its play
    const played = MESSAGES.filter((x) => x.type === "opened" && mine.some((d) => d.m.stream === x.m.stream && d.m.pos === x.m.pos));
    assert.ok(played.length >= 1);
    for (const x of played) {
      const [[s, p, keys]] = hand.openFor([[x.m.stream, x.m.pos]]);
      assert.deepEqual([s, p], [x.m.stream, x.m.pos]);
      assert.deepEqual(keys.map((k) => k.toString("hex")), x.m.keys.map((k) => Buffer.from(k).toString("hex")));
    }

    // m_s goes out once the hand is over, and only then
    const reveal = ofType("mask_reveal");
    assert.equal(reveal.length, 1);
    assert.ok(Buffer.from(reveal[0].secret).equals(SECRETS[seat]));
    assert.equal(MESSAGES[reveal[0].after].type, "mask_end");
    assert.equal(hand.result, "valid");
  });
}

test("a seat fails a host that relays its own pass changed, and one that sends MASK_LOCK with its row altered", () => {
  const swap = (hand, x) => {
    if (x.type === "mask_stage" && x.m.seat === 1 && x.m.step === "mask" && x.m.stream === 0) {
      // the seat compares what it sent with the decoded body: alter what it sent instead
      const mine = hand.rounds.get(0).mine.get("mask");
      [mine[0], mine[1]] = [mine[1], mine[0]];
    }
  };
  assert.throws(() => replay(1, { before: swap }), (e) => e.kind === "StageError" && /as we sent it/.test(e.message));
  const alter = (hand, x) => {
    if (x.type === "mask_lock") hand.me = new Seat(hand.ctx, 2, Buffer.alloc(32, 7));
  };
  assert.throws(() => replay(2, { before: alter }), (e) => e.kind === "CommitmentError");
});

test("a seat asked to open another seat's card refuses: a PositionError, and no open_keys goes out", () => {
  const tampered = V.tampered.find((t) => t.name === "open_a_seats_card");
  const messages = tampered.record.messages.map(([type, body, sig]) => ({ type, body: bin(body), sig: bin(sig) }));
  const hand = new PrivateHand({
    tableId: R.table_id,
    ruleset: R.ruleset_id,
    deck: R.deck,
    pids: R.pids,
    mySeat: 1,
    hostPk: bin(R.host_pk),
    lastHandNo: 0,
    seenCommits: new Set(),
    auditor: true,
    secret: SECRETS[1],
  });
  const sent = [];
  assert.throws(
    () => {
      for (const x of messages) {
        hand.feed(x.type, x.body, x.sig);
        sent.push(...hand.take());
      }
    },
    (e) => e.kind === "PositionError" && /never expose a seat's card/.test(e.message),
  );
  assert.equal(sent.filter((r) => r.type === "open_keys").length, 0);
  assert.ok(sent.some((r) => r.type === "sealed_keys")); // it had done its part of the deal
});

test("a seat opens none of its positions before it has every other seat's box", () => {
  const { hand } = replay(0, {
    before: (h, x, i) => {
      if (x.type === "sealed" && x.m.to === 0) assert.equal(h.cards().has(at(x.m.stream, x.m.pos)), false, `message ${i}`);
    },
  });
  assert.ok(hand.cards().size > 0);
});

test("a seat never reveals its secret before the hand is over", () => {
  const { sent } = replay(2);
  assert.equal(sent.filter((r) => r.type === "mask_reveal").length, 0);
});

test("a seat asked to show its whole hand gives every key of it; it refuses part of it, or a table whose rules show none", () => {
  const seat = 1;
  const drawnTo = (x) => x.type === "draw" && x.m.to === seat;
  const mine = MESSAGES.filter(drawnTo).map((x) => [x.m.stream, x.m.pos]);
  const playedAt = MESSAGES.findIndex((x) => x.type === "opened" && mine.some(([s, p]) => s === x.m.stream && p === x.m.pos));
  let checkedAt = null;
  replay(seat, {
    before: (h, x, i) => {
      if (i !== playedAt) return;
      checkedAt = i;
      // before its first play the seat holds the positions of the deal dealt to it
      const hand = mine.filter(([s, p]) => h.cards().has(at(s, p)));
      assert.equal(hand.length, 3);
      const ask = { kind: "show_hand", hand_no: h.handNo, seat, positions: hand, reason: "limit" };
      const refused = (event, options, re) => {
        assert.throws(() => h.showHand(event, "one-card", options), (e) => e.kind === "PositionError" && re.test(e.message));
        assert.deepEqual(h.take(), []);
      };
      refused({ ...ask, positions: hand.slice(1) }, { bankrupt_at: 3 }, /whole face-down hand/);
      refused(ask, { bankrupt_at: 0 }, /never turn a hand face up/);
      refused(ask, { bankrupt_at: 4 }, /fewer than bankrupt_at = 4/);
      h.showHand({ ...ask, seat: 0 }, "one-card", { bankrupt_at: 3 }); // another seat's: not ours
      assert.deepEqual(h.take(), []);
      h.showHand(ask, "one-card", { bankrupt_at: 3 });
      const [req, ...more] = h.take();
      assert.equal(more.length, 0);
      assert.equal(req.type, "show_hand");
      assert.deepEqual(req.open.map(([s, p]) => [s, p]), hand);
      // the keys of the position it then plays are those its opened publishes
      const [, , keys] = req.open.find(([s, p]) => s === x.m.stream && p === x.m.pos);
      assert.deepEqual(keys.map((k) => k.toString("hex")), x.m.keys.map((k) => Buffer.from(k).toString("hex")));
    },
  });
  assert.equal(checkedAt, playedAt);
});

// --- 10.13: what a seat may send --------------------------------------------------------------

const play = (card) => ({ type: "play", card });
const cardsAt = (pairs) => new Map(pairs.map(([s, p, c]) => [at(s, p), c]));
const ONE_HEARTS = ["9H", "10H", "JH", "QH", "KH", "AH"].map(play);
const ONE_DECK = ["S", "H", "D", "C"].flatMap((s) => ["A", "9", "10", "J", "Q", "K"].map((r) => play(r + s))).concat([play("JR")]);

test("ONE: hearts if you hold any, else anything (the first set the hand meets)", () => {
  const view = { hand: null, positions: [[0, 0], [0, 3], [0, 6]], legal_sets: [{ actions: ONE_HEARTS }, { actions: ONE_DECK }], legal: [], unless_met: [] };
  const holdsHearts = cardsAt([[0, 0, "KS"], [0, 3, "QH"], [0, 6, "9H"]]);
  assert.deepEqual(allowed(view, holdsHearts), [[play("9H"), [[0, 6]]], [play("QH"), [[0, 3]]]]);
  assert.equal(firstMet(view, holdsHearts).index, 0);
  const noHearts = cardsAt([[0, 0, "KS"], [0, 3, "AC"], [0, 6, "JR"]]);
  assert.deepEqual(allowed(view, noHearts), [[play("AS"), []], [play("KS"), [[0, 0]]], [play("AC"), [[0, 3]]], [play("JR"), [[0, 6]]]].filter(([, p]) => p.length));
  assert.deepEqual(defaultMove(view, noHearts), [play("KS"), [[0, 0]]]);
});

test("One Card after an attack: only the positions the set names, then legal; a copy held elsewhere does not meet it", () => {
  const sets = [{ actions: [play("8S"), play("8H")], positions: [[0, 30], [0, 31]] }];
  const view = { hand: null, positions: [[0, 2], [0, 30], [0, 31]], legal_sets: sets, legal: [{ type: "pass" }], unless_met: [] };
  assert.deepEqual(allowed(view, cardsAt([[0, 2, "8S"], [0, 30, "2D"], [0, 31, "8H"]])), [[play("8H"), [[0, 31]]], [{ type: "pass" }, []]]);
  const notMet = cardsAt([[0, 2, "8S"], [0, 30, "2D"], [0, 31, "3C"]]);
  assert.equal(firstMet(view, notMet), null);
  assert.deepEqual(defaultMove(view, notMet), [{ type: "pass" }, []]);
});

test("unless_met only when no set is met; a seven once per suit; an unopened position holds nothing", () => {
  const sets = [{ actions: ["S", "H"].map((suit) => ({ type: "play", card: "7D", suit })) }];
  const view = { hand: null, positions: [[0, 0], [0, 5]], legal_sets: sets, legal: [], unless_met: [{ type: "draw" }] };
  assert.deepEqual(allowed(view, cardsAt([[0, 0, "7D"], [0, 5, "2C"]])), [
    [{ type: "play", card: "7D", suit: "S" }, [[0, 0]]],
    [{ type: "play", card: "7D", suit: "H" }, [[0, 0]]],
  ]);
  assert.deepEqual(allowed(view, cardsAt([[0, 5, "2C"]])), [[{ type: "draw" }, []]]); // 0,0 not opened yet
  assert.deepEqual(unopened(view, cardsAt([[0, 5, "2C"]])), [[0, 0]]); // so the client waits
  assert.deepEqual(unopened(view, cardsAt([[0, 0, "7D"], [0, 5, "2C"]])), []);
  assert.deepEqual(defaultMove({ ...view, legal_sets: [], unless_met: [] }, new Map()), null);
});

test("Black Jack: a run's positions follow its cards in play order; a card twice needs two copies; T reads as 10", () => {
  const sets = [{ actions: [{ type: "play", cards: ["KC", "KC"] }, { type: "play", cards: ["3H", "4H", "5H"] }, { type: "play", cards: ["TH"] }] }];
  const view = { hand: null, positions: [[0, 0], [0, 4], [1, 2], [0, 9]], legal_sets: sets, legal: [{ type: "draw" }, { type: "declare" }], unless_met: [] };
  const one = cardsAt([[0, 0, "5H"], [0, 4, "3H"], [1, 2, "4H"], [0, 9, "KC"]]);
  assert.deepEqual(allowed(view, one), [
    [{ type: "play", cards: ["3H", "4H", "5H"] }, [[0, 4], [1, 2], [0, 0]]],
    [{ type: "draw" }, []],
    [{ type: "declare" }, []],
  ]);
  const two = cardsAt([[0, 0, "KC"], [0, 4, "10H"], [0, 9, "KC"]]);
  assert.deepEqual(allowed(view, two).slice(0, 2), [
    [{ type: "play", cards: ["KC", "KC"] }, [[0, 0], [0, 9]]],
    [{ type: "play", cards: ["TH"] }, [[0, 4]]],
  ]);
});
