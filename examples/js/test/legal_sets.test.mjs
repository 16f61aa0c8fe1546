// spec/vectors/legal_sets.json (PROTOCOL.md 10.13, 10.14) with private.mjs: per case the hand
// met, every action allowed with its positions, and the turn timer's default move.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { allowed, defaultMove, firstMet } from "../private.mjs";

const V = JSON.parse(readFileSync(new URL("../../../spec/vectors/legal_sets.json", import.meta.url)));

test("legal_sets.json has cases", () => assert.ok(V.cases.length >= 10));

for (const c of V.cases) {
  test(`legal sets: ${c.name}`, () => {
    const cards = new Map(c.opened.map(([s, p, card]) => [`${s},${p}`, card]));
    assert.equal(firstMet(c.view, cards)?.index ?? null, c.met);
    assert.deepEqual(allowed(c.view, cards), c.allowed);
    assert.deepEqual(defaultMove(c.view, cards), c.default);
  });
}
