// A deterministic-seeded randomized two-party simulation of PQ chat sessions
// through the byte-level wasm wrapper (ts/session/core.ts): a handshake
// (generatePrekey, encodeBundle, verifyBundle, initiate, initialMessageInfo,
// respond), then `messages` messages in both directions with drops, duplicate
// deliveries and reordering. The schedule comes from a seeded PRNG (the
// wasm's own randomness — keys, nonces — is not seeded, so ciphertexts differ
// between runs; the schedule and every expected outcome do not).
//
// Invariants checked (each violation is recorded, never thrown, so the Chromium
// worker can report them all):
// - every message decrypts at most once, to exactly what was sent, under its aad;
// - the message sent last to a party always decrypts (it is in the newest chain);
// - a duplicate delivered right after the original fails with DUPLICATE_MESSAGE;
//   a duplicate delivered later fails with DUPLICATE_MESSAGE, or with
//   AUTHENTICATION_FAILED once its chain was evicted — it never decrypts;
// - a failed decrypt leaves the caller's state bytes untouched, and the state
//   counter grows by exactly one per successful encrypt / decrypt;
// - a message that is lost (out of the window, too far ahead) fails with one of
//   the documented codes;
// - at the end both sides still exchange a message each way.
//
// Shared by tests/node/session-core.test.ts and the Chromium module worker
// tests/playwright/fixtures/session-worker.ts.
import type * as Core from '../../ts/session/core.js';

export type SessionCore = typeof Core;

export interface SessionSimReport {
  seed: number;
  messages: number;
  delivered: number;
  lost: number;
  dropped: number;
  immediateDuplicates: number;
  lateDuplicates: number;
  directionChanges: number;
  finalCounters: [number, number];
  failures: string[];
}

/** The codes a lost (never delivered) message may fail with (docs/SESSIONS.md §5.6, §5.7). */
export const LOST_CODES: readonly string[] = ['AUTHENTICATION_FAILED', 'DUPLICATE_MESSAGE', 'TOO_FAR_AHEAD'];

export const SIM_NOW = 1_760_000_000;

/** The Chromium run (tests/playwright/session-core.spec.ts): shorter than Node's 1,000 messages. */
export const CHROMIUM_SIM = Object.freeze({ seed: 0x5e55_0002, messages: 300 });

/** mulberry32: a small deterministic PRNG. */
export function prng(seed: number): { next: () => number; below: (n: number) => number; bytes: (n: number) => Uint8Array } {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: number): number => Math.floor(next() * n);
  const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => below(256));
  return { next, below, bytes };
}

const te = new TextEncoder();
const td = new TextDecoder();

function codeOf(e: unknown): string {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') return e.code;
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export interface Party {
  state: Uint8Array;
  counter: number;
}

export interface Handshake {
  initiator: Party;
  responder: Party;
  plaintext: string;
}

/** Identity seeds from the PRNG. */
export function seedsFrom(r: ReturnType<typeof prng>): Core.IdentitySeeds {
  return { ed25519: r.bytes(32), mlDsa: r.bytes(32), x25519: r.bytes(32) };
}

/**
 * A full handshake through the wrapper; `oneTime` chooses whether the bundle
 * carries one-time prekeys. Failures are recorded in `failures`.
 */
export function handshake(core: SessionCore, r: ReturnType<typeof prng>, oneTime: boolean, failures: string[]): Handshake {
  const a = seedsFrom(r);
  const b = seedsFrom(r);
  const [devA, devB] = [r.below(2 ** 32), r.below(2 ** 32)];
  const now = SIM_NOW;
  const day = 86_400;
  const spk = core.generatePrekey(b, 'x25519-signed', 1, now - day, now + 30 * day);
  const pq = core.generatePrekey(b, 'mlkem-last-resort', 2, now - day, now + 30 * day);
  const opk = oneTime ? core.generatePrekey(b, 'x25519-one-time', 3, now - day, now + 89 * day) : undefined;
  const otk = oneTime ? core.generatePrekey(b, 'mlkem-one-time', 4, now - day, now + 89 * day) : undefined;
  const idB = core.sessionIdentity(b);
  const bundle = core.encodeBundle({
    identity: idB.encoding,
    deviceId: devB,
    signedPrekey: spk.record,
    pqLastResort: pq.record,
    ...(opk ? { oneTimeX25519: opk.record } : {}),
    ...(otk ? { oneTimeMlkem: otk.record } : {}),
  });
  const info = core.verifyBundle(bundle, now, idB.encoding);
  if (!equalBytes(info.identityId, idB.id) || info.deviceId !== devB) failures.push('handshake: bundle info does not match');
  const plaintext = `hello ${r.below(1e9)}`;
  const aad = r.bytes(r.below(40));
  const init = core.initiate(a, devA, bundle, { now, pinned: idB.encoding, plaintext: te.encode(plaintext), aad });
  const mi = core.initialMessageInfo(init.initialMessage);
  const secrets = {
    signedPrekeySecret: mi.signedPrekeyId === 1 ? spk.secret : new Uint8Array(32),
    pqPrekeySecret: mi.pqPrekeyKind === 'mlkem-one-time' && otk ? otk.secret : pq.secret,
    ...(mi.oneTimePrekeyId === 3 && opk ? { oneTimePrekeySecret: opk.secret } : {}),
  };
  const resp = core.respond(b, devB, init.initialMessage, { now, ...secrets, aad });
  if (td.decode(resp.plaintext) !== plaintext) failures.push('handshake: first message plaintext differs');
  if (!equalBytes(resp.peerIdentity, core.sessionIdentity(a).encoding)) failures.push('handshake: responder sees another initiator');
  if (resp.peerDeviceId !== devA || init.peerDeviceId !== devB) failures.push('handshake: device ids differ');
  if ((resp.replayDigest === undefined) !== oneTime) failures.push('handshake: replay digest presence');
  return {
    initiator: { state: init.state, counter: init.counter },
    responder: { state: resp.state, counter: resp.counter },
    plaintext,
  };
}

interface InFlight {
  id: number;
  message: Uint8Array;
  aad: Uint8Array;
  text: string;
}

/** Runs the simulation; never throws for a protocol failure (they are in `failures`). */
export function runSessionSimulation(core: SessionCore, seed: number, messages: number): SessionSimReport {
  const r = prng(seed);
  const failures: string[] = [];
  const fail = (m: string): void => {
    if (failures.length < 50) failures.push(m);
  };
  const h = handshake(core, r, r.below(2) === 1, failures);
  const parties: [Party, Party] = [h.initiator, h.responder];
  const queues: [InFlight[], InFlight[]] = [[], []]; // queues[i]: on the way to party i
  const done: [InFlight[], InFlight[]] = [[], []];
  const delivered = new Set<number>();
  const lastSent: [number | undefined, number | undefined] = [undefined, undefined];
  let sent = 0;
  let lost = 0;
  let dropped = 0;
  let immediateDuplicates = 0;
  let lateDuplicates = 0;
  let directionChanges = 0;
  let lastSender = 0;
  const now = SIM_NOW;

  const decryptGenuine = (to: 0 | 1, m: InFlight): string | undefined => {
    const p = parties[to];
    const before = p.state.slice();
    try {
      const d = core.decrypt(p.state, m.message, { aad: m.aad, now });
      if (delivered.has(m.id)) fail(`message ${m.id} decrypted twice`);
      if (td.decode(d.plaintext) !== m.text) fail(`message ${m.id}: wrong plaintext`);
      if (d.counter !== p.counter + 1) fail(`message ${m.id}: counter ${p.counter} -> ${d.counter}`);
      delivered.add(m.id);
      parties[to] = { state: d.state, counter: d.counter };
      return undefined;
    } catch (e) {
      if (!equalBytes(before, p.state)) fail(`message ${m.id}: failed decrypt changed the caller's state bytes`);
      return codeOf(e);
    }
  };

  const duplicate = (to: 0 | 1, m: InFlight, allowed: readonly string[]): void => {
    const p = parties[to];
    const before = p.state.slice();
    try {
      core.decrypt(p.state, m.message, { aad: m.aad, now });
      fail(`duplicate of ${m.id} decrypted`);
    } catch (e) {
      const code = codeOf(e);
      if (!allowed.includes(code)) fail(`duplicate of ${m.id}: ${code}, expected ${allowed.join(' or ')}`);
      if (!equalBytes(before, p.state)) fail(`duplicate of ${m.id} changed the caller's state bytes`);
    }
  };

  while (sent < messages || queues[0].length > 0 || queues[1].length > 0) {
    const action = r.below(100);
    if (sent < messages && action < 45) {
      const from = r.below(2) as 0 | 1;
      const to = (1 - from) as 0 | 1;
      if (from !== lastSender) directionChanges++;
      lastSender = from;
      const text = `m${sent}:${'x'.repeat(r.below(3) === 0 ? r.below(300) : r.below(8))}`;
      const aad = r.below(4) === 0 ? new Uint8Array(0) : te.encode(`aad-${sent}`);
      const p = parties[from];
      try {
        const e = core.encrypt(p.state, te.encode(text), { aad, now });
        if (e.counter !== p.counter + 1) fail(`encrypt ${sent}: counter ${p.counter} -> ${e.counter}`);
        parties[from] = { state: e.state, counter: e.counter };
        queues[to].push({ id: sent, message: e.message, aad, text });
        lastSent[to] = sent;
      } catch (e) {
        fail(`encrypt ${sent} by party ${from}: ${codeOf(e)}`);
      }
      sent++;
      continue;
    }
    const to = r.below(2) as 0 | 1;
    const q = queues[to];
    if (q.length === 0) continue;
    if (action < 55 && q.at(-1)?.id === lastSent[to]) {
      // The message sent last to this party always decrypts.
      const m = q.pop() as InFlight;
      const code = decryptGenuine(to, m);
      if (code !== undefined) fail(`newest message ${m.id} to party ${to}: ${code}`);
      done[to].push(m);
      if (code === undefined && r.below(5) === 0) {
        immediateDuplicates++;
        duplicate(to, m, ['DUPLICATE_MESSAGE']);
      }
    } else if (action < 88 || sent >= messages) {
      const m = q.splice(r.below(q.length), 1)[0] as InFlight;
      const code = decryptGenuine(to, m);
      if (code === undefined) {
        if (r.below(5) === 0) {
          immediateDuplicates++;
          duplicate(to, m, ['DUPLICATE_MESSAGE']);
        }
      } else {
        // Out of the window (its chain evicted, its key evicted or expired, too far ahead).
        if (!LOST_CODES.includes(code)) fail(`message ${m.id} lost with ${code}`);
        lost++;
      }
      done[to].push(m);
    } else if (action < 95 && done[to].length > 0) {
      const m = done[to][r.below(done[to].length)] as InFlight;
      lateDuplicates++;
      // Its chain may have been evicted since: then the ratchet key is unknown (one opaque failure).
      duplicate(to, m, delivered.has(m.id) ? ['DUPLICATE_MESSAGE', 'AUTHENTICATION_FAILED'] : LOST_CODES);
    } else {
      q.splice(r.below(q.length), 1);
      dropped++;
    }
  }
  if (delivered.size + lost + dropped !== sent) fail(`accounting: ${delivered.size} + ${lost} + ${dropped} != ${sent}`);
  if (delivered.size <= sent / 2) fail(`only ${delivered.size} of ${sent} delivered`);

  // Both sides still agree: a round trip each way, three times.
  for (let round = 0; round < 3; round++) {
    for (const from of [0, 1] as const) {
      const to = (1 - from) as 0 | 1;
      const text = `end ${round} from ${from}`;
      const aad = te.encode('end');
      try {
        const e = core.encrypt(parties[from].state, te.encode(text), { aad, now });
        parties[from] = { state: e.state, counter: e.counter };
        const d = core.decrypt(parties[to].state, e.message, { aad, now });
        if (td.decode(d.plaintext) !== text) fail(`final round ${round} from ${from}: wrong plaintext`);
        parties[to] = { state: d.state, counter: d.counter };
      } catch (e) {
        fail(`final round ${round} from ${from}: ${codeOf(e)}`);
      }
    }
  }
  const [ia, ib] = [core.stateInfo(parties[0].state), core.stateInfo(parties[1].state)];
  if (ia.role !== 'initiator' || ib.role !== 'responder') fail('final roles');
  if (!equalBytes(ia.identitiesHash, ib.identitiesHash)) fail('final bindings (H_ID) differ');
  if (ia.counter !== parties[0].counter || ib.counter !== parties[1].counter) fail('stateInfo counter differs from the last returned counter');

  return {
    seed,
    messages: sent,
    delivered: delivered.size,
    lost,
    dropped,
    immediateDuplicates,
    lateDuplicates,
    directionChanges,
    finalCounters: [parties[0].counter, parties[1].counter],
    failures,
  };
}
