/**
 * The session benchmarks' full-path row (`sess-*\/veilkit-keystore`): veilkit's public `Session`
 * API called from the page, as an application does — every operation is a round trip to the
 * keystore's worker, which parses the stored state, runs the ratchet and commits the new state to
 * IndexedDB (strict durability) before it answers. Two keystores (Alice, Bob), each with its own
 * worker. Runs on the page (bench/index.html routes these ids here), not in a case worker.
 */
import { measure, median, type CaseResult, type Prepared } from './measure.js';

import type { Keystore } from '../ts/keystore.js';
import type { IdentityHandle } from '../protocol/keystore.protocol.js';

const VEILKIT = '/dist/ts/index.js';
type Veilkit = typeof import('../ts/index.js');

const MSG = new Uint8Array(1024).map((_, i) => i & 0xff);
const SHORT = new Uint8Array([0x78]);
/** Single timed operations for the cases whose input cannot be reused (a one-time bundle each). */
const SINGLE_WARMUP = 5;
const SINGLE_RUNS = 40;
/** Single decrypts timed one by one (each message decrypts once). */
const DECRYPT_RUNS = 100;
/** Messages per `decryptMany` / `encryptMany` batch (a chat syncing its queue after a reconnect), and batches timed. */
const BATCH = 50;
const BATCH_RUNS = 9;

interface Party {
  ks: Keystore;
  me: IdentityHandle;
}

async function parties(vk: Veilkit): Promise<{ a: Party; b: Party }> {
  const base = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const party = async (name: string): Promise<Party> => {
    const ks = await vk.Keystore.open({ name: `${base}-${name}` });
    return { ks, me: await ks.createIdentity({ label: name, mlDsa: true }) };
  };
  return { a: await party('alice'), b: await party('bob') };
}

async function setup() {
  const vk = (await import(/* @vite-ignore */ VEILKIT)) as Veilkit;
  await vk.init({ threads: false, route: 'wasm' });
  const { a, b } = await parties(vk);
  const { bundle } = await b.ks.createPrekeyBundle(b.me, { oneTime: 0 });
  /** A session pair after the handshake and one round trip (the steady state). */
  const pair = async () => {
    const { session: alice, initialMessage } = await vk.Session.initiate(a.ks, a.me, bundle, { plaintext: MSG });
    const { session: bob } = await vk.Session.respond(b.ks, b.me, initialMessage);
    const send = async (from: 'a' | 'b', plaintext: Uint8Array) => {
      const m = await (from === 'a' ? alice : bob).encrypt(plaintext);
      await (from === 'a' ? bob : alice).decrypt(m);
      return m;
    };
    await send('b', SHORT);
    return { alice, bob, send };
  };
  const close = () => {
    a.ks.dispose();
    b.ks.dispose();
  };
  return { vk, a, b, bundle, pair, close };
}

const CASES: Record<string, (s: Awaited<ReturnType<typeof setup>>) => Promise<Prepared>> = {
  'sess-initiate/veilkit-keystore': async ({ vk, a, bundle }) => ({
    async: true,
    op: () => vk.Session.initiate(a.ks, a.me, bundle, { plaintext: MSG }),
    note: 'Session.initiate (last-resort bundle): keystore worker round trip, handshake, new session record committed',
  }),
  'sess-message/veilkit-keystore': async ({ pair }) => {
    const p = await pair();
    await p.send('a', MSG);
    return { async: true, op: () => p.send('a', MSG), note: 'session.encrypt + peer session.decrypt: two worker round trips, two strict IndexedDB commits' };
  },
  'sess-encrypt/veilkit-keystore': async ({ pair }) => {
    const p = await pair();
    await p.send('a', MSG);
    return { async: true, op: () => p.alice.encrypt(MSG), note: 'session.encrypt: worker round trip + strict IndexedDB commit' };
  },
  'sess-turn/veilkit-keystore': async ({ pair }) => {
    const p = await pair();
    return {
      async: true,
      op: async () => {
        await p.send('a', SHORT);
        await p.send('b', SHORT);
      },
      note: 'two direction changes through the Session API (four worker round trips, four commits)',
    };
  },
  'sess-load/veilkit-keystore': async ({ vk, a, pair }) => {
    const p = await pair();
    return { async: true, op: () => vk.Session.load(a.ks, p.alice.id), note: 'Session.load: worker round trip, Web Locks, IndexedDB read, unwrap (AES-GCM), rollback check, state parse' };
  },
};

/**
 * The floor the keystore path is held to (issue 28): one bare `durability: 'strict'` IndexedDB transaction on the
 * page — a read and a put of an 8 KiB record, like a session commit's — with nothing else: no lock, crypto or worker.
 */
async function bareCommitCase(id: string): Promise<CaseResult> {
  const name = `bench-idb-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open(name, 1);
    r.onupgradeneeded = () => r.result.createObjectStore('kv', { keyPath: 'id' });
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('open failed'));
  });
  const value = new Uint8Array(8192).map((_, i) => i & 0xff);
  let n = 0;
  const commit = () => new Promise<void>((resolve, reject) => {
    const tx = db.transaction('kv', 'readwrite', { durability: 'strict' });
    const get = tx.objectStore('kv').get('state');
    get.onsuccess = () => tx.objectStore('kv').put({ id: 'state', n: n++, value });
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('transaction failed'));
  });
  try {
    return await measure(id, { async: true, op: commit, note: 'one bare readwrite transaction, durability strict, on the page: get + put of an 8 KiB record (the floor of a session commit)' });
  } finally {
    db.close();
    indexedDB.deleteDatabase(name);
  }
}

/** Single `decrypt`s through the keystore, each timed (each message can decrypt once): median. */
async function decryptCase(id: string, s: Awaited<ReturnType<typeof setup>>): Promise<CaseResult> {
  const p = await s.pair();
  await p.send('a', MSG);
  const ms = await p.alice.encryptMany(Array.from({ length: SINGLE_WARMUP + DECRYPT_RUNS }, () => MSG));
  const samples: number[] = [];
  for (const [i, m] of ms.entries()) {
    const t0 = performance.now();
    await p.bob.decrypt(m);
    if (i >= SINGLE_WARMUP) samples.push((performance.now() - t0) / 1000);
  }
  return { id, ok: true, unit: 's', value: median(samples), samples, note: `session.decrypt of 1 KiB (median of ${DECRYPT_RUNS} single operations): worker round trip, strict IndexedDB commit` };
}

/** `decryptMany` / `encryptMany` of {@link BATCH} 1 KiB messages: the median batch, reported per message. */
async function batchCase(id: string, s: Awaited<ReturnType<typeof setup>>, kind: 'decrypt' | 'encrypt'): Promise<CaseResult> {
  const p = await s.pair();
  await p.send('a', MSG);
  const plaintexts = Array.from({ length: BATCH }, () => MSG);
  const batches: Uint8Array[][] = [];
  if (kind === 'decrypt') for (let i = 0; i <= BATCH_RUNS; i++) batches.push(await p.alice.encryptMany(plaintexts));
  const samples: number[] = [];
  for (let i = 0; i <= BATCH_RUNS; i++) {
    const t0 = performance.now();
    if (kind === 'decrypt') {
      const batch = batches[i];
      if (!batch) throw new Error('no batch');
      const r = await p.bob.decryptMany(batch);
      if (!r.every((x) => x.ok)) throw new Error('a message of the batch failed');
    } else {
      await p.alice.encryptMany(plaintexts);
    }
    if (i > 0) samples.push((performance.now() - t0) / 1000 / BATCH);
  }
  return {
    id, ok: true, unit: 's', value: median(samples), samples,
    note: `session.${kind}Many of ${BATCH} 1 KiB messages, per message (median of ${BATCH_RUNS} batches): one worker round trip and one strict IndexedDB commit per batch`,
  };
}

/** Respond consumes a one-time bundle each time: single timed operations over fresh initial messages. */
async function respondCase(id: string, s: Awaited<ReturnType<typeof setup>>): Promise<CaseResult> {
  const { oneTime } = await s.b.ks.createPrekeyBundle(s.b.me, { oneTime: SINGLE_WARMUP + SINGLE_RUNS });
  const initial: Uint8Array[] = [];
  for (const bundle of oneTime) initial.push((await s.vk.Session.initiate(s.a.ks, s.a.me, bundle, { plaintext: MSG })).initialMessage);
  const samples: number[] = [];
  for (const [i, m] of initial.entries()) {
    const t0 = performance.now();
    await s.vk.Session.respond(s.b.ks, s.b.me, m);
    if (i >= SINGLE_WARMUP) samples.push((performance.now() - t0) / 1000);
  }
  return {
    id, ok: true, unit: 's', value: median(samples), samples,
    note: `Session.respond to a one-time bundle (median of ${SINGLE_RUNS} single operations): worker round trip, prekey secrets unwrapped, handshake, one-time prekeys deleted and the session committed in one transaction`,
  };
}

const PAGE_CASES: Record<string, (id: string, s: Awaited<ReturnType<typeof setup>>) => Promise<CaseResult>> = {
  'sess-respond/veilkit-keystore': respondCase,
  'sess-decrypt/veilkit-keystore': decryptCase,
  'sess-decrypt-many/veilkit-keystore': (id, s) => batchCase(id, s, 'decrypt'),
  'sess-encrypt-many/veilkit-keystore': (id, s) => batchCase(id, s, 'encrypt'),
};

/** The bare IndexedDB commit (no keystore): run on the page beside the keystore cases. */
const BARE_COMMIT = 'sess-x-idb-commit/veilkit-keystore';

export const KEYSTORE_CASE_IDS = [BARE_COMMIT, ...Object.keys(CASES), ...Object.keys(PAGE_CASES)];

export async function runKeystoreCase(id: string): Promise<CaseResult> {
  if (id === BARE_COMMIT) {
    try {
      return await bareCommitCase(id);
    } catch (e) {
      return { id, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
  }
  let s: Awaited<ReturnType<typeof setup>> | undefined;
  try {
    s = await setup();
    const pc = PAGE_CASES[id];
    if (pc) return await pc(id, s);
    const c = CASES[id];
    if (!c) throw new Error(`unknown case ${id}`);
    return await measure(id, await c(s));
  } catch (e) {
    return { id, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  } finally {
    s?.close();
  }
}
