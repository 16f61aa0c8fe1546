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
import { FairnessError, HandVerifier, fingerprint } from "./cardfair.mjs";
import { PrivateHand } from "./private.mjs";

export class RecordError extends FairnessError {
  get kind() {
    return "RecordError";
  }
}

const HEX = /^(?:[0-9a-f]{2})*$/;
const isHex = (v) => typeof v === "string" && HEX.test(v);
const fromHex = (v) => Buffer.from(v, "hex");
const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

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

/** Verifies one hand record (a parsed JSON object); see the module's comment. */
export function verifyRecord(obj) {
  shape(obj);
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
  const fail = (err, at) => {
    err.messageIndex = at;
    if (!err.kind) Object.defineProperty(err, "kind", { value: err.constructor.name });
    throw err;
  };
  for (const [type, body, sig] of obj.messages) {
    try {
      hand.feed(type, fromHex(body), fromHex(sig));
    } catch (err) {
      fail(err, index);
    }
    index += 1;
  }
  try {
    if (hand.step !== "ended") throw new RecordError("the record ends before the hand did");
    if (obj.hand_no !== hand.handNo) throw new RecordError("hand_no is not the signed one");
    if ("ctx" in obj && obj.ctx !== hand.ctx.toString("hex")) throw new RecordError("ctx is not the signed one");
    if ("voided" in obj && obj.voided !== (hand.result === "void")) throw new RecordError("voided disagrees with the messages");
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
