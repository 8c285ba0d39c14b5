/**
 * The session benchmarks' full-path row (`sess-*\/veilkit-keystore`): veilkit's public `Session`
 * API called from the page, as an application does — every operation is a round trip to the
 * keystore's worker, which parses the stored state, runs the ratchet and commits the new state to
 * IndexedDB (strict durability) before it answers. Two keystores (Alice, Bob), each with its own
 * worker. Runs on the page (bench/index.html routes these ids here), not in a case worker.
 */
import { measure, median, type CaseResult, type Prepared } from './measure.js';

import type { Keystore } from '../ts/keystore.js';
import type { IdentityHandle } from '../worker/keystore.protocol.js';

const VEILKIT = '/dist/ts/index.js';
type Veilkit = typeof import('../ts/index.js');

const MSG = new Uint8Array(1024).map((_, i) => i & 0xff);
const SHORT = new Uint8Array([0x78]);
/** Single timed operations for the cases whose input cannot be reused (a one-time bundle each). */
const SINGLE_WARMUP = 5;
const SINGLE_RUNS = 40;

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

export const KEYSTORE_CASE_IDS = [...Object.keys(CASES), 'sess-respond/veilkit-keystore'];

export async function runKeystoreCase(id: string): Promise<CaseResult> {
  let s: Awaited<ReturnType<typeof setup>> | undefined;
  try {
    s = await setup();
    if (id === 'sess-respond/veilkit-keystore') return await respondCase(id, s);
    const c = CASES[id];
    if (!c) throw new Error(`unknown case ${id}`);
    return await measure(id, await c(s));
  } catch (e) {
    return { id, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  } finally {
    s?.close();
  }
}
