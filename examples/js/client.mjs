#!/usr/bin/env node
// A onecard client written from spec/PROTOCOL.md and spec/RULES.md alone (no code shared with
// the reference): it creates a table, takes seat 0, fills the other seats with host bots, plays
// the first legal play (else the first legal action) on each of its turns, answers every
// fair-deal round and verifies every deal live (cardfair.mjs), then fetches every hand's record
// and verifies it (record.mjs). With --private the table is private (section 10): the client
// does its seat's masking (private.mjs) and plays the first play its hand meets in the view's
// legal sets, with the keys that open it. It prints one line per hand and record and one at the
// end, and exits 0 when the game ended and every deal and record verified, 1 when a check
// failed (printed as `deal check FAILED: hand N: ...`) or the host refused, 2 on bad usage or
// a game it cannot verify (one the host does not run, or whose deck PROTOCOL.md 7.3 lacks).
// `verify FILE..` checks hand records offline.
//
//   node client.mjs HOST:PORT [--tls [--pin SHA256:..]] [--game G] [--seats N] [--option K=V]..
//                   [--private] [--bots N | --join TABLE]
//   node client.mjs verify FILE..

import net from "node:net";
import tls from "node:tls";
import { parseArgs } from "node:util";
import { decode, encode } from "@msgpack/msgpack";
import { readFileSync } from "node:fs";
import { DECK_GAMES, FairnessError, H, HandVerifier, expectedDeck, fingerprint, rulesetId } from "./cardfair.mjs";
import { PrivateHand, allowed, isPrivateView, unopened } from "./private.mjs";
import { verifyRecord } from "./record.mjs";

const MAX_FRAME = 65536;
// The public event that tells a private table's seats the hand is over, so each sends its
// mask_reveal: `{kind: "hand_over", hand_no}` (10.11 step 9), for the deal of hand_commit.
const HAND_OVER = "hand_over";
// the host asks the seat its `seat` names for the keys of its whole bankrupt hand (10.11 step 7)
const SHOW_HAND = "show_hand";
const DEBUG = Boolean(process.env.ONECARD_JS_DEBUG); // every message received, one line each, on stderr
const DEBUG_LINE = (m) => (m.type === "fair" ? `fair ${m.msg[0]} ${JSON.stringify(decode(m.msg[1]), (k, v) => (v?.type === "Buffer" || v instanceof Uint8Array ? "<bin>" : v))}` : JSON.stringify(m.type === "event" ? m.event : { type: m.type, re: m.re, code: m.code, message: m.message }));

// --- 2.2 framing over a byte stream -----------------------------------------------------------

class Connection {
  constructor(socket) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.queue = [];
    this.waiting = null;
    this.closed = null;
    this.nextId = 1;
    socket.on("data", (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      while (this.buffer.length >= 4) {
        const n = this.buffer.readUInt32BE(0);
        if (n < 1 || n > MAX_FRAME) return this.close(new Error(`frame of ${n} bytes`));
        if (this.buffer.length < 4 + n) break;
        const msg = decode(this.buffer.subarray(4, 4 + n));
        this.buffer = this.buffer.subarray(4 + n);
        this.push(msg);
      }
    });
    socket.on("close", () => this.close(new Error("the host closed the connection")));
    socket.on("error", (err) => this.close(err));
  }

  push(msg) {
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w.resolve(msg);
    } else this.queue.push(msg);
  }

  close(err) {
    if (this.closed) return;
    this.closed = err;
    this.socket.destroy();
    if (this.waiting) this.waiting.reject(err);
  }

  recv() {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    if (this.closed) return Promise.reject(this.closed);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  send(msg) {
    const id = this.nextId++;
    const body = Buffer.from(encode({ ...msg, id }));
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length);
    this.socket.write(Buffer.concat([header, body]));
    return id;
  }
}

function connect(host, port, useTls) {
  return new Promise((resolve, reject) => {
    const socket = useTls
      ? tls.connect({ host, port, minVersion: "TLSv1.3", rejectUnauthorized: false }) // pinned below (2.1)
      : net.connect({ host, port });
    socket.once(useTls ? "secureConnect" : "connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

// --- the game ----------------------------------------------------------------------------------

class Client {
  constructor(conn) {
    this.conn = conn;
    this.backlog = []; // pushes that arrived while a reply was awaited (2.4: never drop them)
  }

  // Send a request and wait for its reply (by `re`), keeping every other message for later.
  async request(msg, want) {
    const id = this.conn.send(msg);
    for (;;) {
      const m = await this.conn.recv();
      if (m.re === id && (m.type === want || m.type === "error")) {
        if (m.type === "error") throw new Error(`${msg.type} refused: ${m.code}: ${m.message}`);
        return m;
      }
      this.backlog.push(m);
    }
  }

  next() {
    return this.backlog.length ? Promise.resolve(this.backlog.shift()) : this.conn.recv();
  }

  // A hand record (4.6): every record_part of one get_record, in order, as parsed JSON.
  async fetchRecord(table, handNo) {
    const id = this.conn.send({ type: "get_record", table, hand_no: handNo });
    const parts = [];
    for (;;) {
      const m = await this.conn.recv();
      if (m.re !== id) {
        this.backlog.push(m);
        continue;
      }
      if (m.type === "error") {
        if (m.code === "rate_limited") {
          await new Promise((r) => setTimeout(r, 500));
          return this.fetchRecord(table, handNo);
        }
        throw new Error(`get_record ${handNo} refused: ${m.code}: ${m.message}`);
      }
      parts[m.part] = m.text;
      if (parts.filter((t) => t !== undefined).length === m.parts) return JSON.parse(parts.join(""));
    }
  }

  // Fetches and verifies the record of every hand played (8.2; a private one with 10.8's
  // audit), and checks 4.6's four points against what this client saw live.
  async verifyRecords(table, hands, hostPk) {
    for (const hand of hands) {
      const record = await this.fetchRecord(table, hand.handNo);
      const what = `hand ${hand.handNo}'s record`;
      if (record.partial === true) throw new FairnessError(`${what} says it is partial`);
      if (record.table_id !== table || record.hand_no !== hand.handNo) throw new FairnessError(`${what} is for table ${record.table_id} hand ${record.hand_no}`);
      if (record.host_pk !== hostPk.toString("hex")) throw new FairnessError(`${what} is signed by another key than the table's hand_commits`);
      // a private table's hand voided before its MASK_LOCK has no masking: a record of it is a
      // plain cardfair/v1 one (8.1 lets no record say private without a mask_lock)
      const masked = hand instanceof PrivateHand && hand.masks !== null;
      if ((record.private === true) !== masked) throw new FairnessError(`${what} says private: ${record.private ?? false}`);
      let result;
      try {
        result = verifyRecord(record);
      } catch (err) {
        if (err instanceof FairnessError) throw new FairnessError(`${what}: ${err.kind} at message ${err.messageIndex}: ${err.message}`);
        throw err;
      }
      if (result.fingerprint !== fingerprint(hand.t)) throw new FairnessError(`${what} has transcript ${result.fingerprint}, we saw ${fingerprint(hand.t)}`);
      const audit = result.hand.secrets ? "the audit passed" : "no audit: the secrets were not all revealed";
      console.log(`record of hand ${hand.handNo}: ${result.status === "valid" ? "verified" : "void"}${record.private ? ` (private: ${audit})` : ""}`);
    }
  }

  // Creates a table (or joins `join`, another client's) and plays it to the end; `bots`: how
  // many host bots the creator seats (the other seats wait for players who join).
  async play({ game, seats, options, name, private: priv, bots = seats - 1, join = null }) {
    let table;
    let info;
    if (join === null) {
      const create = { type: "create_table", game, seats, options, turn_timer: 0 };
      if (priv) create.private = true;
      const created = await this.request(create, "table_created");
      table = created.table;
      info = created.info;
      if (priv && info.private !== true) throw new Error("the host made the table, but its table_info does not say private");
    } else {
      table = join;
      const listed = await this.request({ type: "list_tables" }, "tables");
      info = listed.tables.find((t) => t.table === join);
      if (!info) throw new UsageError(`the host lists no table ${join}`);
      if (!DECK_GAMES.includes(info.game)) throw new UsageError(`table ${join} plays ${info.game}, whose deals this client cannot verify`);
      if (priv !== (info.private === true)) throw new UsageError(`table ${join} is ${info.private ? "" : "not "}private: ${priv ? "drop" : "add"} --private`);
      ({ game, seats } = { game: info.game, seats: info.seats.length });
    }
    const joined = await this.request({ type: "join", table, name }, "joined");
    this.mySeat = joined.seat;
    if (join === null) for (let i = 0; i < bots; i++) await this.request({ type: "add_bot", table }, "bot_added");
    if (join === null && bots < seats - 1) console.log(`table ${table}: waiting for ${seats - 1 - bots} more player(s): node client.mjs ADDRESS --join ${table}${priv ? " --private" : ""}`);
    this.conn.send({ type: "ready", table, ready: true });

    const ruleset = rulesetId(game, info.options);
    const deck = expectedDeck(game, seats, info.options);
    const seen = { hostPk: null, lastHandNo: 0, seenCommits: new Set() };
    let names = null;
    let hand = null;
    const hands = [];
    let actSeq = 0; // 4.2: the last accepted act seq
    let awaiting = null; // id of the act in flight
    let lastAct = null;
    let state = null; // the latest state received after the last ack (fresh)
    let skip = 0; // legal actions to skip after a refusal
    let lastPing = Date.now();
    const masking = new Map(); // id -> a masking request in flight (10.11), resent if rate-limited

    // A private hand's requests go out once nothing more is waiting to be read, so the boxes
    // of a whole deal share a few sealed_keys (10.11) and the rate limit (section 6) holds.
    const flush = () => {
      if (!hand || !(hand instanceof PrivateHand) || this.backlog.length || this.conn.queue.length) return;
      for (const req of hand.take()) masking.set(this.conn.send({ ...req, table }), { ...req, table });
    };

    let calledOn = -1; // the seq of the last state we made an out-of-turn call on
    const act = () => {
      if (awaiting !== null || !state || state.phase !== "playing") return;
      if (!state.to_act.includes(this.mySeat)) {
        // out of turn `legal` lists only calls (3.5 `calls`: One Card's "One Card!", Black
        // Jack's "last card"): make the first, once per state (one another seat made first is
        // refused). A Black Jack hand that never declares cannot go out (spec/RULES.md), so a
        // client that ignored them left its games to the bots or to the turn limit
        const call = (state.legal ?? [])[0];
        if (!call || calledOn === state.seq) return;
        calledOn = state.seq;
        lastAct = { type: "act", table, seq: actSeq + 1, action: call };
        awaiting = this.conn.send(lastAct);
        return;
      }
      let choices;
      if (isPrivateView(state.view)) {
        if (unopened(state.view, hand.cards()).length) return; // acted on again at its SEALED
        // 10.13: the plays of the first set our hand meets, then legal, then unless_met
        const options = allowed(state.view, hand.cards());
        choices = [...options.filter(([, p]) => p.length), ...options.filter(([, p]) => !p.length)];
      } else {
        const plays = state.legal.filter((a) => a.type === "play");
        choices = [...plays, ...state.legal.filter((a) => a.type !== "play")].map((a) => [a, []]);
      }
      if (choices.length === 0) return;
      const [action, positions] = choices[skip % choices.length];
      lastAct = { type: "act", table, seq: actSeq + 1, action };
      if (positions.length) lastAct.open = hand.openFor(positions); // 4.2, 10.11 step 7
      awaiting = this.conn.send(lastAct);
    };

    for (;;) {
      const m = await this.next();
      if (DEBUG) console.error(DEBUG_LINE(m));
      if (Date.now() - lastPing > 10000) {
        this.conn.send({ type: "ping" });
        lastPing = Date.now();
      }
      switch (m.type) {
        case "game_start":
          names = m.names;
          actSeq = 0;
          break;
        case "fair": {
          const [type, body, sig] = m.msg;
          if (type === "hand_commit") {
            const expect = { tableId: table, ruleset, deck, pids: names, mySeat: this.mySeat, ...seen };
            hand = priv ? new PrivateHand(expect) : new HandVerifier(expect);
            hands.push(hand);
          } else if (type === "mask_lock" && !priv) {
            throw new FairnessError(`hand ${hand.handNo}: a MASK_LOCK on a table that is not private`);
          }
          checked(hand, () => hand.feed(type, body, sig));
          if (type === "hand_commit") {
            seen.hostPk = hand.expect.hostPk;
            seen.lastHandNo = hand.handNo;
            if (m.hand_no !== hand.handNo) throw new FairnessError("the fair push's hand_no differs from the signed one");
            if ((m.host_seats ?? []).includes(this.mySeat) && hand instanceof PrivateHand) {
              hand.me = null; // the host plays our seat this hand: its duties are the host's
              hand.take();
            }
            if (!(m.host_seats ?? []).includes(this.mySeat)) {
              this.conn.send({ type: "fair_commit", table, hand_no: hand.handNo, c: hand.makeCommit() });
            }
          } else if (type === (priv ? "mask_lock" : "lock") && hand.myR) {
            // on a private table r_i goes out only after LOCK and MASK_LOCK passed (10.11 step 2)
            this.conn.send({ type: "fair_reveal", table, hand_no: hand.handNo, r: hand.myR });
          } else if (type === "sealed") {
            act(); // a card of ours may have just opened: a turn that waited for it goes on
          } else if (type === "hand_end" || type === "void") {
            console.log(`hand ${hand.handNo}: deal ${hand.result === "valid" ? "verified" : "void"}, transcript ${fingerprint(hand.t)}`);
          }
          break;
        }
        case "event":
          if (hand) checked(hand, () => hand.noteEvent(m.event));
          // the host says the hand is over: m_s may go out now (10.11 step 9)
          if (priv && hand && m.event?.kind === HAND_OVER && m.event.hand_no === hand.handNo) {
            hand.handOver();
          }
          // the host asks a seat to show the hand the rules turn face up (10.11 step 7)
          if (priv && hand && m.event?.kind === SHOW_HAND && m.event.seat === this.mySeat) {
            checked(hand, () => hand.showHand(m.event, game, info.options));
            console.log(`our hand goes face up in hand ${hand.handNo} (${m.event.reason}): we show its ${m.event.positions?.length} cards`);
          }
          break;
        case "ok":
          masking.delete(m.re);
          break;
        case "ack":
          if (m.re === awaiting) {
            awaiting = null;
            actSeq = lastAct.seq;
            state = null; // a state sent before the ack is stale (4.2)
            skip = 0;
          }
          break;
        case "error":
          if (masking.has(m.re)) {
            const req = masking.get(m.re);
            masking.delete(m.re);
            if (m.code !== "rate_limited" && req.type === "mask_reveal") {
              console.log(`the host did not take our mask_reveal of hand ${req.hand_no}: ${m.code}: ${m.message}`);
              break; // after a void the secret only helps the audit (10.11): nothing is lost
            }
            if (m.code !== "rate_limited") throw new Error(`the host refused our ${req.type}: ${m.code}: ${m.message}`);
            await new Promise((r) => setTimeout(r, 250));
            masking.set(this.conn.send(req), req);
            break;
          }
          if (m.re !== undefined && m.re === awaiting) {
            awaiting = null;
            if (m.code === "rate_limited") await new Promise((r) => setTimeout(r, 250));
            else skip += 1; // refused: the seq is still free; try the next legal action
            act();
            break;
          }
          if (m.code === "fairness" || m.fatal) throw new Error(`the host says ${m.code}: ${m.message}`);
          break;
        case "state":
          state = m;
          act();
          break;
        case "game_over":
          for (const h of hands) if (!h.result) throw new FairnessError(`hand ${h.handNo} never ended`);
          await this.verifyRecords(table, hands, seen.hostPk);
          return {
            outcome: m.outcome,
            hands: hands.length,
            reshuffles: hands.reduce((n, h) => n + h.recycled.size, 0),
            fingerprint: fingerprint(H(seen.hostPk)),
          };
        case "bye":
        case "server_closing":
          throw new Error(`the host closed: ${m.reason ?? ""}`);
        default:
          break;
      }
      flush();
    }
  }
}

// A failed check names its hand.
function checked(hand, what) {
  try {
    return what();
  } catch (err) {
    if (err instanceof FairnessError) throw new FairnessError(`hand ${hand.handNo ?? "?"}: ${err.message}`);
    throw err;
  }
}

// The game to play (3.2 `list_games`): the one asked for, else the first the host lists that
// this client can verify. A game the host does not run, or one whose deck 7.3 does not define
// (its deals could not be checked: never guessed), is refused before any table is made.
async function chooseGame(client, wanted) {
  const listed = await client.request({ type: "list_games" }, "games");
  const runs = listed.games.map((g) => g.name);
  const game = wanted ?? runs.find((name) => DECK_GAMES.includes(name));
  if (game === undefined) throw new UsageError(`the host runs no game this client can verify (it runs ${runs.join(", ")})`);
  if (!runs.includes(game)) throw new UsageError(`the host runs no game ${JSON.stringify(game)} (it runs ${runs.join(", ")})`);
  if (!DECK_GAMES.includes(game)) {
    throw new UsageError(`PROTOCOL.md 7.3 defines no deck for ${JSON.stringify(game)}: its deals cannot be verified, so it is not played (this client verifies ${DECK_GAMES.join(", ")})`);
  }
  return game;
}

class UsageError extends Error {}

// `node client.mjs verify FILE..`: each hand record checked offline (8.2; a private one with
// the audit of 10.8): `FILE: valid: ..`, `FILE: void: ..` or `FILE: INVALID: kind at message i: ..`.
function verifyFiles(files) {
  if (files.length === 0) throw new UsageError("verify needs at least one record file");
  let bad = 0;
  for (const file of files) {
    try {
      const record = JSON.parse(readFileSync(file, "utf8"));
      const result = verifyRecord(record);
      const kind = record.private ? "private, audited" : "cardfair/v1";
      console.log(`${file}: ${result.status}: table ${record.table_id} hand ${record.hand_no} (${kind}), transcript ${result.fingerprint}`);
    } catch (err) {
      bad += 1;
      if (err instanceof FairnessError) console.log(`${file}: INVALID: ${err.kind} at message ${err.messageIndex ?? "(end)"}: ${err.message}`);
      else console.log(`${file}: unreadable: ${err.message}`);
    }
  }
  if (bad) process.exitCode = 1;
}

async function main() {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        tls: { type: "boolean", default: false },
        pin: { type: "string" },
        game: { type: "string" },
        seats: { type: "string", default: "2" },
        option: { type: "string", multiple: true, default: [] },
        name: { type: "string", default: "JS" },
        private: { type: "boolean", default: false },
        bots: { type: "string" },
        join: { type: "string" },
      },
    });
  } catch (err) {
    console.error(`usage: node client.mjs HOST:PORT [--tls] [--game G] [--seats N] [--option K=V] [--private] [--bots N | --join TABLE] | verify FILE..: ${err.message}`);
    process.exit(2);
  }
  if (args.positionals[0] === "verify") return verifyFiles(args.positionals.slice(1));
  const [address] = args.positionals;
  const match = /^(.+):(\d+)$/.exec(address ?? "");
  if (!match) {
    console.error("usage: node client.mjs HOST:PORT [--tls] [--game G] [--seats N] [--option K=V] [--private] [--bots N | --join TABLE] | verify FILE..");
    process.exit(2);
  }
  const bots = args.values.bots;
  if (bots !== undefined && !(/^\d+$/.test(bots) && Number(bots) < Number(args.values.seats))) {
    throw new UsageError(`--bots ${bots}: a number of host bots from 0 to seats - 1`);
  }
  const options = Object.fromEntries(args.values.option.map((kv) => kv.split("=", 2)));
  const socket = await connect(match[1], Number(match[2]), args.values.tls);
  if (args.values.tls) {
    const fp = `SHA256:${socket.getPeerCertificate().fingerprint256.toLowerCase()}`; // 2.1
    console.log(`host certificate ${fp}`);
    if (args.values.pin && args.values.pin.toLowerCase() !== fp.toLowerCase()) {
      throw new Error(`the host's certificate ${fp} is not the pinned ${args.values.pin}`);
    }
  }
  const conn = new Connection(socket);
  const client = new Client(conn);
  const welcome = await client.request({ type: "hello", protocol: "onecard", versions: [1], software: "onecard-js-example/1.0" }, "welcome");
  if (welcome.version !== 1) throw new Error(`the host chose version ${welcome.version}`);
  const game = args.values.join ? null : await chooseGame(client, args.values.game);
  const result = await client.play({
    game,
    seats: Number(args.values.seats),
    options,
    name: args.values.name,
    private: args.values.private,
    bots: args.values.bots === undefined ? undefined : Number(args.values.bots),
    join: args.values.join ?? null,
  });
  console.log(`game over: ${result.outcome.termination}; ${result.hands} hands, every deal verified (${result.reshuffles} reshuffles); deal key ${result.fingerprint}`);
  conn.send({ type: "bye" });
  conn.socket.end();
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    if (err instanceof UsageError) {
      console.error(`refused: ${err.message}`);
      process.exit(2);
    }
    if (err instanceof FairnessError) console.log(`deal check FAILED: ${err.message}`);
    else console.log(`failed: ${err.message}`);
    process.exit(1);
  },
);
