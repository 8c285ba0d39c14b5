/**
 * The `groups` benchmark cases (`grp-*`, docs/GROUPS.md "Benchmarks"): veilkit's group wasm module
 * (OpenMLS with veilkit's crypto provider, loaded unbundled from /dist/ts/wasm-group/) beside
 * ts-mls 1.6.4 (bundled; installed apart in tests/interop/ts-mls/), each in its own dedicated
 * worker (bench/worker.ts).
 *
 * Suites: `classic` is 0x0001 for both; `xwing` is veilkit's default 0x004D
 * (X-Wing / ChaCha20-Poly1305 / SHA-256) beside ts-mls's X-Wing suite 0x0053
 * (X-Wing / AES-256-GCM / SHA-512): the same KEM, the nearest suite ts-mls has (they share none).
 *
 * Cases, per suite and library:
 * - `grp-create`: a new group (one member). ts-mls's createGroup takes a ready key package as the
 *   creator's leaf (no key pair generated, nothing signed; OpenMLS's generates and signs one), so
 *   `grp-create-kp` (ts-mls only) times generateKeyPackageWithKey + createGroup too: how a ts-mls app
 *   starts a group, its signature key ready (as a veilkit client's is). That makes two HPKE key pairs
 *   (init and leaf) and two signatures where OpenMLS's create makes one of each.
 * - `grp-add-<n>`: in a group of n, a commit adding one member and its welcome (veilkit discards the
 *   pending commit after each and adds another new key package each time; ts-mls's commit is a pure
 *   function of the state).
 * - `grp-process-<n>`: another member processes such a commit (veilkit: add commits prepared in
 *   advance by a committer in another instance of the module, each in a group of n of its own of the
 *   same two members for n ≤ 100, successive epochs of one group at 1,000; ts-mls: the same commit on
 *   the same state).
 * - `grp-encrypt-1k`, `grp-decrypt-1k`: a 1 KiB application message (veilkit decrypts a prepared
 *   stream of messages, each once; ts-mls the same message on the same state).
 * - `grp-wire`: untimed wire sizes (commit, welcome, application message).
 *
 * The commit cases are slow cases (single operations timed). Before them each runs ≥ 400 ms of
 * untimed warm-up (`warm`): the same operation where it repeats (add; ts-mls's process), else
 * veilkit's process on a twin group of 10. With a single warm-up op, the timed ops ran while V8 was
 * still compiling OpenMLS's processing code in its optimizing tier: veilkit's process of a group of 10
 * took 2.5 ms in Chromium against 0.9–1.0 ms once optimized (Node, --no-liftoff).
 */
import { SLOW_RUNS } from './measure.js';
import type { CaseResult, Prepared } from './measure.js';
import type { GroupGlue, MlsClient, MlsMessage, Opaque, TsKeyPackage, TsMls, TsState } from '../tests/shared/group-interop.js';

const GLUE = '/dist/ts/wasm-group/veilkit_group.js';
const WASM = '/dist/ts/wasm-group/veilkit_group_bg.wasm';

type Suite = 'classic' | 'xwing';
const VEILKIT_SUITE: Record<Suite, number> = { classic: 0x0001, xwing: 0x004d };
const TSMLS_SUITE: Record<Suite, string> = {
  classic: 'MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519',
  xwing: 'MLS_256_XWING_AES256GCM_SHA512_Ed25519',
};
const te = new TextEncoder();

/**
 * The group module; `instance` loads another copy with its own memory, as another device would run it
 * (the module keeps digests of tree nodes and decompressed keys it has seen: a committer and a receiver in
 * one instance would share them).
 */
async function glue(instance?: string): Promise<GroupGlue> {
  const url = instance === undefined ? GLUE : `${GLUE}?instance=${instance}`;
  const g = (await import(/* @vite-ignore */ url)) as GroupGlue & { default: (o: { module_or_path: string }) => Promise<unknown> };
  await g.default({ module_or_path: WASM });
  return g;
}

/** veilkit: a key package of a new client `name` of `g` (the client is freed; its key package stays valid). */
function newKeyPackage(g: GroupGlue, cs: number, name: string): Uint8Array {
  const c = new g.MlsClient(te.encode(name));
  try {
    return c.createKeyPackage(cs, false);
  } finally {
    c.free();
  }
}

/** veilkit: `alice` adds a new client `name` of `g` to group `id` and merges; the commit. */
function addNewcomer(g: GroupGlue, alice: MlsClient, id: Uint8Array, cs: number, name: string): Uint8Array {
  const out = alice.add(id, [newKeyPackage(g, cs, name)]);
  alice.mergePending(id);
  return out.commit;
}

/**
 * veilkit: a group of `n` made by `alice` (one commit adding n − 1), and its second member (in `gBob`, if
 * given). `pair`: the same two clients again (another group of theirs), else new ones.
 */
function veilkitGroup(
  g: GroupGlue, suite: Suite, n: number, gBob: GroupGlue = g, pair?: { alice: MlsClient; bob: MlsClient },
): { alice: MlsClient; bob: MlsClient | undefined; id: Uint8Array } {
  const cs = VEILKIT_SUITE[suite];
  const alice = pair?.alice ?? new g.MlsClient(te.encode('alice'));
  const id = alice.createGroup(cs);
  let bob: MlsClient | undefined;
  if (n > 1) {
    bob = pair?.bob ?? new gBob.MlsClient(te.encode('m0'));
    const others = Array.from({ length: n - 2 }, (_, i) => new g.MlsClient(te.encode(`m${i + 1}`)));
    const out = alice.add(id, [bob, ...others].map((c) => c.createKeyPackage(cs, false)));
    alice.mergePending(id);
    if (!out.welcome) throw new Error('no welcome');
    bob.join(out.welcome);
    for (const c of others) c.free();
  }
  return { alice, bob, id };
}

async function tsmls(): Promise<TsMls> {
  return (await import('ts-mls')) as unknown as TsMls;
}

interface TsGroup { t: TsMls; cs: Opaque; alice: TsState; bob: TsState | undefined; newKp: () => Promise<Opaque> }

/** A ts-mls key package (basic credential `name`, default capabilities and lifetime). */
async function tsKeyPackage(t: TsMls, cs: Opaque, name: string): Promise<TsKeyPackage> {
  return t.generateKeyPackage({ credentialType: 'basic', identity: te.encode(name) }, t.defaultCapabilities(), t.defaultLifetime, [], cs);
}

/** ts-mls: the same group of `n`. */
async function tsGroup(suite: Suite, n: number): Promise<TsGroup> {
  const t = await tsmls();
  const cs = await t.getCiphersuiteImpl(t.getCiphersuiteFromName(TSMLS_SUITE[suite]));
  const kp = (name: string): Promise<TsKeyPackage> => tsKeyPackage(t, cs, name);
  const a = await kp('alice');
  let alice = await t.createGroup(te.encode('bench group'), a.publicPackage, a.privatePackage, [], cs);
  let bob: TsState | undefined;
  if (n > 1) {
    const members = await Promise.all(Array.from({ length: n - 1 }, (_, i) => kp(`m${i}`)));
    const r = await t.createCommit({ state: alice, cipherSuite: cs }, {
      extraProposals: members.map((m) => ({ proposalType: 'add', add: { keyPackage: m.publicPackage } })), ratchetTreeExtension: true,
    });
    alice = r.newState;
    const first = members[0];
    if (!first || !r.welcome) throw new Error('no welcome');
    bob = await t.joinGroup(r.welcome, first.publicPackage, first.privatePackage, t.emptyPskIndex, cs);
  }
  return { t, cs, alice, bob, newKp: async () => (await kp('new')).publicPackage };
}

const addProposal = (keyPackage: Opaque): unknown => ({ proposalType: 'add', add: { keyPackage } });

/**
 * Untimed warm-up of each commit case, both libraries: V8 optimizes wasm functions as they get hot,
 * in the background. After 400 ms (about 150 commits processed) veilkit's processing in a group of 10
 * still ran partly unoptimized (Node without --no-liftoff: 1.1-1.2 ms, and 0.58 ms after 300 commits).
 */
const COMMIT_WARM_MS = 1500;

/**
 * Single ops timed per commit case: 15 where an op takes a few milliseconds (groups of 10 and 100),
 * where 5 samples of one round left the median to one slow sample on this VM (an add into 10 read
 * 0.7, 1.2 and 1.4 ms in three rounds), 5 at 1,000 members.
 */
function commitRuns(n: number): number {
  return n <= 100 ? 15 : SLOW_RUNS;
}

function cases(suite: Suite): Record<string, () => Promise<Prepared>> {
  const vs = VEILKIT_SUITE[suite];
  const out: Record<string, () => Promise<Prepared>> = {
    [`grp-create/${suite}/veilkit`]: async () => {
      const g = await glue();
      const c = new g.MlsClient(te.encode('alice'));
      return { op: () => c.createGroup(vs), note: 'createGroup (its state grows by one group per op)' };
    },
    [`grp-create/${suite}/ts-mls`]: async () => {
      const t = await tsmls();
      const cs = await t.getCiphersuiteImpl(t.getCiphersuiteFromName(TSMLS_SUITE[suite]));
      const kp = await tsKeyPackage(t, cs, 'alice');
      return { async: true, op: () => t.createGroup(te.encode('g'), kp.publicPackage, kp.privatePackage, [], cs) };
    },
    [`grp-create-kp/${suite}/ts-mls`]: async () => {
      const t = await tsmls();
      const cs = await t.getCiphersuiteImpl(t.getCiphersuiteFromName(TSMLS_SUITE[suite]));
      // The creator's signature key exists already, as a veilkit client's does.
      const signatureKeyPair = await (cs as unknown as { signature: { keygen(): Promise<Opaque> } }).signature.keygen();
      const credential = { credentialType: 'basic' as const, identity: te.encode('alice') };
      return {
        async: true,
        op: async () => {
          const kp = await t.generateKeyPackageWithKey(credential, t.defaultCapabilities(), t.defaultLifetime, [], signatureKeyPair, cs);
          return t.createGroup(te.encode('g'), kp.publicPackage, kp.privatePackage, [], cs);
        },
        note: 'generateKeyPackageWithKey + createGroup (the creator\'s leaf made in the operation, its signature key ready)',
      };
    },
    [`grp-encrypt-1k/${suite}/veilkit`]: async () => {
      const { alice, id } = veilkitGroup(await glue(), suite, 2);
      const pt = new Uint8Array(1024).fill(7);
      const aad = new Uint8Array();
      return { op: () => alice.encrypt(id, pt, aad) };
    },
    [`grp-encrypt-1k/${suite}/ts-mls`]: async () => {
      const { t, cs, alice } = await tsGroup(suite, 2);
      const pt = new Uint8Array(1024).fill(7);
      return { async: true, op: () => t.createApplicationMessage(alice, pt, cs), note: 'createApplicationMessage on the same state' };
    },
    [`grp-decrypt-1k/${suite}/veilkit`]: async () => {
      const { alice, bob, id } = veilkitGroup(await glue(), suite, 2);
      if (!bob) throw new Error('no second member');
      const pt = new Uint8Array(1024).fill(7);
      const aad = new Uint8Array();
      const stream = Array.from({ length: 40_000 }, () => alice.encrypt(id, pt, aad));
      let next = 0;
      return {
        op: () => {
          const m = stream[next++];
          if (!m) throw new Error('the prepared message stream ran out');
          return bob.receive(id, m);
        },
        note: 'receive: each message of a prepared stream once (transactional: state snapshot per call)',
      };
    },
    [`grp-decrypt-1k/${suite}/ts-mls`]: async () => {
      const { t, cs, alice, bob } = await tsGroup(suite, 2);
      if (!bob) throw new Error('no second member');
      const r = await t.createApplicationMessage(alice, new Uint8Array(1024).fill(7), cs);
      const msg = { version: 'mls10', wireformat: 'mls_private_message', privateMessage: r.privateMessage } as unknown as MlsMessage;
      return { async: true, op: () => t.processMessage(msg, bob, t.emptyPskIndex, t.acceptAll, cs), note: 'processMessage: the same message on the same state' };
    },
  };
  for (const n of [10, 100, 1000]) {
    const runs = commitRuns(n);
    out[`grp-add-${n}/${suite}/veilkit`] = async () => {
      const g = await glue();
      const { alice, id } = veilkitGroup(g, suite, n);
      // Each timed add takes a key package of its own (the module keeps the digests of what it hashed,
      // so adding the same newcomer again would find its leaf's hashes kept); the warm-up cycles others.
      const kps = (count: number, name: string): Uint8Array[] => Array.from({ length: count }, (_, i) => newKeyPackage(g, vs, `${name}${i}`));
      const warmKps = kps(16, 'warm');
      const timedKps = kps(runs + 1, 'new');
      let w = 0;
      let next = 0;
      const add = (kp: Uint8Array | undefined): void => {
        if (!kp) throw new Error('the prepared key packages ran out');
        alice.add(id, [kp]);
        alice.discardPending(id);
      };
      return {
        slow: true,
        runs,
        warmMs: COMMIT_WARM_MS,
        warm: () => { add(warmKps[w++ % warmKps.length]); },
        op: () => { add(timedKps[next++]); },
        note: 'add (commit + welcome) of a new key package each, then discardPending',
      };
    };
    out[`grp-add-${n}/${suite}/ts-mls`] = async () => {
      const { t, cs, alice, newKp } = await tsGroup(suite, n);
      const kp = await newKp();
      const op = (): Promise<unknown> => t.createCommit({ state: alice, cipherSuite: cs }, { extraProposals: [addProposal(kp)], ratchetTreeExtension: true });
      return { slow: true, runs, warmMs: COMMIT_WARM_MS, async: true, warm: op, op };
    };
    out[`grp-process-${n}/${suite}/veilkit`] = async () => {
      // The committer runs in another instance of the module (another device): the receiver keeps only
      // what it hashed and checked itself.
      const g = await glue();
      const gAlice = await glue('committer');
      const first = veilkitGroup(gAlice, suite, n, g);
      const { alice, bob } = first;
      if (!bob) throw new Error('no second member');
      const pair = { alice, bob };
      // measure() runs a warm-up and `runs` samples. Each processes an add commit in a group of exactly n:
      // in groups of 10 and 100, one group of the same two members per sample (a run of commits in one group
      // grew it from 10 to 25 members over 15 samples, and the samples with it); at 1,000 one group takes
      // them all (1,000 to 1,005).
      const groups = [first, ...Array.from({ length: n <= 100 ? runs : 0 }, () => veilkitGroup(gAlice, suite, n, g, pair))];
      const commits = Array.from({ length: runs + 1 }, (_, i) => {
        const at = groups[i % groups.length];
        if (!at) throw new Error('no group');
        return { id: at.id, commit: addNewcomer(gAlice, alice, at.id, vs, `late${i}`) };
      });
      // Warm-up on a twin group of 10 of the same two members: its creator adds one more, the other
      // processes it; the next warm-up op removes that newcomer again (the twin stays at 10 or 11).
      const twin = veilkitGroup(gAlice, suite, 10, g, pair);
      let late = 0;
      const warm = (): void => {
        if (late++ % 2 === 0) {
          bob.receive(twin.id, addNewcomer(gAlice, alice, twin.id, vs, `warm${late}`));
        } else {
          const out = alice.remove(twin.id, Uint32Array.of(10));
          alice.mergePending(twin.id);
          bob.receive(twin.id, out.commit);
        }
      };
      let next = 0;
      return {
        slow: true,
        runs,
        warmMs: COMMIT_WARM_MS,
        warm,
        op: () => {
          const c = commits[next++];
          if (!c) throw new Error('the prepared commits ran out');
          return bob.receive(c.id, c.commit);
        },
        note: 'receive + merge of an add commit (groups of 10 and 100: each in a group of its own of the same two members)',
      };
    };
    out[`grp-process-${n}/${suite}/ts-mls`] = async () => {
      const { t, cs, alice, bob, newKp } = await tsGroup(suite, n);
      if (!bob) throw new Error('no second member');
      const r = await t.createCommit({ state: alice, cipherSuite: cs }, { extraProposals: [addProposal(await newKp())], ratchetTreeExtension: true });
      const op = (): Promise<unknown> => t.processMessage(r.commit, bob, t.emptyPskIndex, t.acceptAll, cs);
      return { slow: true, runs, warmMs: COMMIT_WARM_MS, async: true, warm: op, op, note: 'processMessage: the same commit on the same state' };
    };
  }
  return out;
}

/** Every timed group case. */
export const GROUP_CASES: Record<string, () => Promise<Prepared>> = { ...cases('classic'), ...cases('xwing') };

/** Untimed wire sizes: add-one commit and welcome in groups of 10 and 100, a 1 KiB message. */
export const GROUP_WIRE: Record<string, () => Promise<CaseResult>> = Object.fromEntries((['classic', 'xwing'] as const).flatMap((suite) => [
  [`grp-wire/${suite}/veilkit`, async (): Promise<CaseResult> => {
    const g = await glue();
    const details: Record<string, number> = {};
    for (const n of [10, 100]) {
      const { alice, id } = veilkitGroup(g, suite, n);
      const out = alice.add(id, [newKeyPackage(g, VEILKIT_SUITE[suite], 'new')]);
      details[`commit${n}`] = out.commit.length;
      details[`welcome${n}`] = out.welcome?.length ?? 0;
      if (n === 10) {
        alice.discardPending(id);
        details.message1k = alice.encrypt(id, new Uint8Array(1024), new Uint8Array()).length;
      }
    }
    return { id: `grp-wire/${suite}/veilkit`, ok: true, unit: 'bytes', value: details.message1k ?? 0, details };
  }],
  [`grp-wire/${suite}/ts-mls`, async (): Promise<CaseResult> => {
    const details: Record<string, number> = {};
    for (const n of [10, 100]) {
      const { t, cs, alice, newKp } = await tsGroup(suite, n);
      const r = await t.createCommit({ state: alice, cipherSuite: cs }, { extraProposals: [addProposal(await newKp())], ratchetTreeExtension: true });
      details[`commit${n}`] = t.encodeMlsMessage(r.commit).length;
      details[`welcome${n}`] = r.welcome ? t.encodeMlsMessage({ version: 'mls10', wireformat: 'mls_welcome', welcome: r.welcome }).length : 0;
      if (n === 10) {
        const m = await t.createApplicationMessage(alice, new Uint8Array(1024), cs);
        details.message1k = t.encodeMlsMessage({ version: 'mls10', wireformat: 'mls_private_message', privateMessage: m.privateMessage }).length;
      }
    }
    return { id: `grp-wire/${suite}/ts-mls`, ok: true, unit: 'bytes', value: details.message1k ?? 0, details };
  }],
]));
