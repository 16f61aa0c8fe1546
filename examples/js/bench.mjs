// What cardmask.mjs costs in Node.js (libsodium's WebAssembly): `node bench.mjs [runs]`.
// Never part of the tests. Prints the median CPU-bound wall time in ms over `runs` runs (7 by
// default) of each step of a One Card round of 54 cards, at 2, 4 and 6 seats.
import { randomBytes } from "node:crypto";
import * as cf from "./cardfair.mjs";
import * as cm from "./cardmask.mjs";

const runs = Number(process.argv[2] ?? 7);
if (!Number.isInteger(runs) || runs < 1) {
  console.error("usage: node bench.mjs [runs]   (runs: a positive integer, 7 by default)");
  process.exit(2);
}

function median(f) {
  f(); // warm up
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)].toFixed(1);
}

console.log(`cardmask.mjs, One Card deck of 54 cards, median of ${runs} runs, ms (node ${process.version})`);
console.log("| seats | card points | masking pass | re-keying pass | open a position | seal + open a key | audit of the round |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
for (const k of [2, 4, 6]) {
  const deck = cf.rulesetDeck("one-card", k);
  const pids = Array.from({ length: k }, (_, s) => `p${s}`);
  const ctx = cf.makeCtx("bench", 1, "one-card", deck, pids, Buffer.alloc(32));
  const seats = pids.map((_, s) => new cm.Seat(ctx, s, randomBytes(32)));
  const points = cm.cardPoints(ctx, 0, deck);
  const masked = [];
  const rekeyed = [];
  let stage = points;
  for (const seat of seats) masked.push((stage = seat.mask(0, stage)));
  for (const seat of seats) rekeyed.push((stage = seat.rekey(0, stage)));
  const keys = seats.map((seat) => seat.positionKey(0, 0));
  const pk = seats[1].boxKeys.publicKey;
  const round = {
    ctx,
    round: 0,
    cards: deck,
    secrets: seats.map((seat) => seat.secret),
    commitments: seats.map((seat) => seat.commitment),
    masked,
    rekeyed,
  };
  const row = [
    median(() => cm.cardPoints(ctx, 0, deck)),
    median(() => seats[0].mask(0, points)),
    median(() => seats[0].rekey(0, masked.at(-1))),
    median(() => cm.unmask(stage[0], keys, points)),
    median(() => seats[1].openSealed(0, 0, 0, seats[0].seal(0, 0, 1, pk))),
    median(() => cm.verifyRound(round)),
  ];
  console.log(`| ${k} | ${row.join(" | ")} |`);
}
