#!/usr/bin/env node
// A onecard client written from spec/PROTOCOL.md and spec/RULES.md alone (no code shared with
// the reference): it creates a table, takes seat 0, fills the other seats with host bots, plays
// the first legal play (else the first legal action) on each of its turns, answers every
// fair-deal round and verifies every deal live (cardfair.mjs). It prints one line per hand and
// one at the end, and exits 0 when the game ended and every deal verified, 1 when a deal check
// failed (printed as `deal check FAILED: hand N: ...`) or the host refused, 2 on bad usage or
// a game it cannot verify (one the host does not run, or whose deck PROTOCOL.md 7.3 lacks).
//
//   node client.mjs HOST:PORT [--tls [--pin SHA256:..]] [--game G] [--seats N] [--option K=V]..

import net from "node:net";
import tls from "node:tls";
import { parseArgs } from "node:util";
import { decode, encode } from "@msgpack/msgpack";
import { DECK_GAMES, FairnessError, H, HandVerifier, expectedDeck, fingerprint, rulesetId } from "./cardfair.mjs";

const MAX_FRAME = 65536;

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

  async play({ game, seats, options, name }) {
    const created = await this.request({ type: "create_table", game, seats, options, turn_timer: 0 }, "table_created");
    const table = created.table;
    const info = created.info;
    const joined = await this.request({ type: "join", table, name }, "joined");
    this.mySeat = joined.seat;
    for (let i = 1; i < seats; i++) await this.request({ type: "add_bot", table }, "bot_added");
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

    const act = () => {
      if (awaiting !== null || !state || state.phase !== "playing") return;
      if (!state.to_act.includes(this.mySeat) || state.legal.length === 0) return;
      const plays = state.legal.filter((a) => a.type === "play");
      const choices = [...plays, ...state.legal.filter((a) => a.type !== "play")];
      const action = choices[skip % choices.length];
      lastAct = { type: "act", table, seq: actSeq + 1, action };
      awaiting = this.conn.send(lastAct);
    };

    for (;;) {
      const m = await this.next();
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
            hand = new HandVerifier({ tableId: table, ruleset, deck, pids: names, mySeat: this.mySeat, ...seen });
            hands.push(hand);
          }
          checked(hand, () => hand.feed(type, body, sig));
          if (type === "hand_commit") {
            seen.hostPk = hand.expect.hostPk;
            seen.lastHandNo = hand.handNo;
            if (m.hand_no !== hand.handNo) throw new FairnessError("the fair push's hand_no differs from the signed one");
            if (!(m.host_seats ?? []).includes(this.mySeat)) {
              this.conn.send({ type: "fair_commit", table, hand_no: hand.handNo, c: hand.makeCommit() });
            }
          } else if (type === "lock" && hand.myR) {
            this.conn.send({ type: "fair_reveal", table, hand_no: hand.handNo, r: hand.myR });
          } else if (type === "hand_end" || type === "void") {
            console.log(`hand ${hand.handNo}: deal ${hand.result === "valid" ? "verified" : "void"}, transcript ${fingerprint(hand.t)}`);
          }
          break;
        }
        case "event":
          if (hand) checked(hand, () => hand.noteEvent(m.event));
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
      },
    });
  } catch (err) {
    console.error(`usage: node client.mjs HOST:PORT [--tls] [--game G] [--seats N] [--option K=V]: ${err.message}`);
    process.exit(2);
  }
  const [address] = args.positionals;
  const match = /^(.+):(\d+)$/.exec(address ?? "");
  if (!match) {
    console.error("usage: node client.mjs HOST:PORT [--tls] [--game G] [--seats N] [--option K=V]");
    process.exit(2);
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
  const game = await chooseGame(client, args.values.game);
  const result = await client.play({
    game,
    seats: Number(args.values.seats),
    options,
    name: args.values.name,
  });
  console.log(`game over: ${result.outcome.termination}; ${result.hands} hands, every deal verified (${result.reshuffles} reshuffles); deal key ${result.fingerprint}`);
  conn.send({ type: "bye" });
  conn.socket.end();
}

main().then(
  () => process.exit(0),
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
