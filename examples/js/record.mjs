// Verifying a hand record (spec/PROTOCOL.md 8.2), normal or private, written from the spec alone.
//
// `verifyRecord(obj)` runs 8.2's steps in order: the record's shape (step 1), its messages fed
// in order to an auditor (step 2: cardfair.mjs's HandVerifier, or private.mjs's PrivateHand
// for `private: true`, which runs the masking checks of 10.11 and the audit of 10.8 at
// `mask_end`), that the last message ended the hand (step 3), and the plain fields against
// what was signed (step 4). It checks every signature (8.2's full check, no fast path). It
// returns {status: "valid" | "void", fingerprint, stocks} or throws the first failure: an
// Error with `kind` (8.2's or 10.9's kind) and `messageIndex` (null: after the last message).

import { decode } from "@msgpack/msgpack";
import { FairnessError, H, HandVerifier, enc, fingerprint, label, rulesetId } from "./cardfair.mjs";
import { PrivateHand } from "./private.mjs";

export class RecordError extends FairnessError {
  get kind() {
    return "RecordError";
  }
}

const HEX = /^(?:[0-9a-f]{2})*$/;
const isHex = (v) => typeof v === "string" && HEX.test(v);
const fromHex = (v) => Buffer.from(v, "hex");
// Equal as JSON values, whatever the order of an object's keys (msgpack and JSON may differ).
const canon = (v) =>
  Array.isArray(v)
    ? v.map(canon)
    : v !== null && typeof v === "object"
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])]))
      : v;
const sameJson = (a, b) => JSON.stringify(canon(a)) === JSON.stringify(canon(b));

function shape(obj) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw new RecordError("the record is not a JSON object");
  const need = { format: "string", scheme: "string", table_id: "string", hand_no: "number", pids: "object", host_pk: "string", messages: "object" };
  for (const [k, t] of Object.entries(need)) if (typeof obj[k] !== t || obj[k] === null) throw new RecordError(`${k} is missing or not a ${t}`);
  if (obj.format !== "onecard-hand-record/1") throw new RecordError(`format ${obj.format}`);
  if (obj.scheme !== "cardfair/v1") throw new RecordError(`scheme ${obj.scheme}`);
  if (!isHex(obj.host_pk) || obj.host_pk.length !== 64) throw new RecordError("host_pk is not 32 bytes of lowercase hex");
  if (!Array.isArray(obj.messages) || !obj.messages.every((m) => Array.isArray(m) && m.length === 3 && typeof m[0] === "string" && isHex(m[1]) && isHex(m[2]))) {
    throw new RecordError("messages are not [type, body hex, sig hex] triples");
  }
  for (const k of ["partial", "voided", "dealer_chosen", "private"]) {
    if (k in obj && typeof obj[k] !== "boolean") throw new RecordError(`${k} is not a bool`);
  }
  if ("options" in obj && !("game" in obj)) throw new RecordError("options without game");
}

// 8.2 step 3 for a hand that is not private: a card for every face-down draw to a seat (unless
// the record is a partial bundle), and hand_end's / void's `private` is P over the record's cards.
function endOfNormalHand(hand, m, p, partial) {
  if (m.secret !== undefined && hand.result === "valid" && !partial) {
    for (const d of hand.draws.values()) {
      if (d.to !== null && d.card === null && !d.gotCard) {
        throw Object.assign(new FairnessError(`no CARD for the face-down DRAW at stream ${d.stream} position ${d.pos}`), { kind: "PositionError" });
      }
    }
  }
  if (!partial && !Buffer.from(m.private).equals(p)) {
    throw Object.assign(new FairnessError("HAND_END private does not match the CARD messages of the record"), { kind: "CommitmentError" });
  }
}

/** Verifies one hand record (a parsed JSON object); see the module's comment. */
export function verifyRecord(obj) {
  const fail = (err, at) => {
    err.messageIndex = at;
    if (!err.kind) Object.defineProperty(err, "kind", { value: err.constructor.name });
    throw err;
  };
  try {
    shape(obj);
  } catch (err) {
    fail(err, null);
  }
  const first = obj.messages[0];
  const commit = first && first[0] === "hand_commit" ? decode(fromHex(first[1])) : {};
  const expect = {
    tableId: obj.table_id,
    ruleset: obj.ruleset_id ?? commit.ruleset_id,
    deck: obj.deck ?? commit.deck,
    pids: obj.pids,
    mySeat: null,
    hostPk: fromHex(obj.host_pk),
    lastHandNo: -1,
    seenCommits: new Set(),
    auditor: true,
    partial: obj.partial === true,
  };
  const hand = obj.private ? new PrivateHand(expect) : new HandVerifier(expect);
  let index = 0;
  let p = null; // 7.6's P over the record's card messages
  let last = null; // the body of hand_end or void
  for (const [type, body, sig] of obj.messages) {
    try {
      const m = hand.feed(type, fromHex(body), fromHex(sig));
      p ??= hand.ctx;
      if (type === "card") p = H(enc(label("private"), p, hand.t, fromHex(body), fromHex(sig)));
      if (type === "hand_end" || type === "void") {
        last = m;
        if (!obj.private) endOfNormalHand(hand, m, p, obj.partial === true);
      }
    } catch (err) {
      fail(err, index);
    }
    index += 1;
  }
  try {
    if (hand.step !== "ended") throw new RecordError("the record ends before the hand did");
    if (obj.hand_no !== hand.handNo) throw new RecordError("hand_no is not the signed one");
    if ("game" in obj && rulesetId(obj.game, obj.options ?? {}) !== hand.expect.ruleset) {
      throw new RecordError(`game and options give ruleset ${rulesetId(obj.game, obj.options ?? {})}, signed ${hand.expect.ruleset}`);
    }
    if ("ctx" in obj && obj.ctx !== hand.ctx.toString("hex")) throw new RecordError("ctx is not the signed one");
    if ("secret" in obj && obj.secret !== Buffer.from(last.secret).toString("hex")) throw new RecordError("secret is not the S the host revealed");
    if ("voided" in obj && obj.voided !== (hand.result === "void")) throw new RecordError("voided disagrees with the messages");
    if ("missing" in obj && !sameJson(obj.missing, last.missing ?? [])) throw new RecordError("missing is not the signed VOID's");
    if ("dealer" in obj) {
      if (obj.dealer !== null && !(Number.isInteger(obj.dealer) && obj.dealer >= 0 && obj.dealer < obj.pids.length)) throw new RecordError("dealer is not a seat");
      if (obj.dealer_chosen === true && obj.dealer !== hand.announcedDealer) throw new RecordError("dealer is not the signed DEALER's");
      if (obj.dealer_chosen === false && hand.announcedDealer !== undefined) throw new RecordError("dealer_chosen is false, yet the record holds a DEALER");
    }
    // (JSON.parse reads 2.0 as 2: an outcome whose number was written as a float is not told apart here)
    if ("outcome" in obj && last.outcome !== undefined && last.outcome !== null && !sameJson(obj.outcome, last.outcome)) {
      throw new RecordError("outcome is not the one HAND_END signed");
    }
    if ("transcript" in obj && obj.transcript !== hand.t.toString("hex")) throw new RecordError("transcript is not the final T");
    if ("fingerprint" in obj && obj.fingerprint !== fingerprint(hand.t)) throw new RecordError("fingerprint is not the final T's");
    if ("reveals" in obj && hand.rs) {
      const signed = hand.rs.map((r, i) => [hand.pids[i], r.toString("hex")]);
      if (!sameJson([...obj.reveals].sort(), [...signed].sort())) throw new RecordError("reveals are not the signed ones");
    }
  } catch (err) {
    fail(err, null);
  }
  return { status: hand.result, fingerprint: fingerprint(hand.t), stocks: hand.derived, hand };
}
