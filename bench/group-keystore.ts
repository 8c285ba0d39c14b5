/**
 * The group benchmarks' full-path rows (`grp-ks-*\/xwing/veilkit-keystore`): veilkit's public `Group`
 * API called from the page, as an application does. Every operation is a round trip to the
 * keystore's worker, which runs the group module, seals the member's client state (every group the
 * identity is in: one record, docs/GROUPS.md "Not yet") and commits it to IndexedDB (strict
 * durability) before it answers. Two keystores, each with its own worker: the sender's identity and
 * nine receivers' identities. Runs on the page (bench/index.html routes these ids here).
 */
import { measure, median, type CaseResult } from './measure.js';

import type { Keystore } from '../ts/keystore.js';
import type { Group } from '../ts/group/group.js';
import type { IdentityHandle } from '../protocol/keystore.protocol.js';

const VEILKIT = '/dist/ts/index.js';
type Veilkit = typeof import('../ts/index.js');

const MSG = new Uint8Array(1024).map((_, i) => i & 0xff);
/** Groups of 10: the sender and nine identities of the other keystore. */
const OTHERS = 9;
/** The sender's groups in the "many groups" case: one record holds them all. */
const MANY = 8;
/** Each message decrypts once: single receives timed one by one. */
const WARMUP = 5;
const DECRYPT_RUNS = 100;
/** No update commit of the SDK's policy inside a timed run (it would leave a commit pending). */
const POLICY = { updatePolicy: { messages: 1_000_000, days: 365 } };

interface Setup {
  vk: Veilkit;
  a: Keystore;
  b: Keystore;
  me: IdentityHandle;
  others: IdentityHandle[];
}

async function setup(): Promise<Setup> {
  const vk = (await import(/* @vite-ignore */ VEILKIT)) as Veilkit;
  await vk.init({ threads: false, route: 'wasm' });
  const base = `bench-grp-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const a = await vk.Keystore.open({ name: `${base}-a` });
  const b = await vk.Keystore.open({ name: `${base}-b` });
  const me = await a.createIdentity({ label: 'sender', mlDsa: true });
  const others: IdentityHandle[] = [];
  for (let i = 0; i < OTHERS; i++) others.push(await b.createIdentity({ label: `member ${i}`, mlDsa: true }));
  return { vk, a, b, me, others };
}

/** A group of 10 (X-Wing) made by the sender, the add confirmed; with `join`, the first other member joins it. */
async function groupOf10(s: Setup, join: boolean): Promise<{ group: Group; member?: Group }> {
  const group = await s.vk.Group.create(s.a, s.me, POLICY);
  const kps: Uint8Array[] = [];
  for (const id of s.others) kps.push(...(await s.b.createKeyPackages(id)));
  const { welcome } = await group.add(kps);
  await group.confirm();
  const first = s.others[0];
  if (!join || welcome === undefined || first === undefined) return { group };
  return { group, member: await s.vk.Group.join(s.b, first, welcome, POLICY) };
}

const CASES: Record<string, (id: string, s: Setup) => Promise<CaseResult>> = {
  'grp-ks-encrypt-1k/xwing/veilkit-keystore': async (id, s) => {
    const { group } = await groupOf10(s, false);
    return measure(id, { async: true, op: () => group.encrypt(MSG), note: 'group.encrypt of 1 KiB, group of 10, the sender in 1 group: keystore worker round trip, client state sealed, strict IndexedDB commit' });
  },
  'grp-ks-encrypt-1k-8-groups/xwing/veilkit-keystore': async (id, s) => {
    let group: Group | undefined;
    for (let i = 0; i < MANY; i++) group = (await groupOf10(s, false)).group;
    if (group === undefined) throw new Error('no group');
    const g = group;
    return measure(id, { async: true, op: () => g.encrypt(MSG), note: `group.encrypt of 1 KiB, group of 10, the sender in ${MANY} groups of 10 (one sealed record for all of them)` });
  },
  'grp-ks-decrypt-1k/xwing/veilkit-keystore': async (id, s) => {
    const { group, member } = await groupOf10(s, true);
    if (member === undefined) throw new Error('the member did not join');
    const messages: Uint8Array[] = [];
    for (let i = 0; i < WARMUP + DECRYPT_RUNS; i++) messages.push((await group.encrypt(MSG)).message);
    const samples: number[] = [];
    for (const [i, m] of messages.entries()) {
      const t0 = performance.now();
      const r = await member.receive(m);
      if (i >= WARMUP) samples.push((performance.now() - t0) / 1000);
      if (r.kind !== 'application') throw new Error(`expected an application message, got ${r.kind}`);
    }
    return { id, ok: true, unit: 's', value: median(samples), samples, note: `group.receive of 1 KiB, group of 10 (median of ${DECRYPT_RUNS} single operations): keystore worker round trip, client state sealed, strict IndexedDB commit` };
  },
};

export const GROUP_KEYSTORE_CASE_IDS = Object.keys(CASES);

export async function runGroupKeystoreCase(id: string): Promise<CaseResult> {
  let s: Setup | undefined;
  try {
    const c = CASES[id];
    if (!c) throw new Error(`unknown case ${id}`);
    s = await setup();
    return await c(id, s);
  } catch (e) {
    return { id, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  } finally {
    s?.a.dispose();
    s?.b.dispose();
  }
}
