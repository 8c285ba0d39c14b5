// MLS interoperability (docs/GROUPS.md#interoperability): veilkit's group module (OpenMLS in its
// own wasm, dist/ts/wasm-group/) against ts-mls 1.6.4, an independent TypeScript implementation
// (installed apart in tests/interop/ts-mls/). Only TLS-serialized MLSMessage bytes cross between
// the two, as they would through a delivery service.
//
// On suite 0x0001: a ts-mls client creates a group and adds a veilkit member; a veilkit member adds
// a ts-mls client; application messages both ways; a commit from each side processed by the
// other; a removal seen by both. Post-quantum: the two have no suite in common (checked below, so
// this test says so the day either side changes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

// ---- the group module's glue (wasm-bindgen --target web), instantiated from its bytes --------
interface Commit { commit: Uint8Array; welcome?: Uint8Array }
interface Info {
  groupId: Uint8Array; suite: number; epoch: bigint; ownIndex: number; commitPending: boolean; active: boolean;
  members: { index: number; identity: Uint8Array; signatureKey: Uint8Array }[];
}
type Received =
  | { kind: 'application'; sender: number; senderIdentity: Uint8Array; bytes: Uint8Array; aad: Uint8Array }
  | { kind: 'commit'; sender: number | null; epoch: bigint; added: Uint8Array[]; removed: number[]; removedSelf: boolean; discardedOwn: boolean }
  | { kind: 'proposal'; sender: number | null };
interface MlsClient {
  createKeyPackage(suite: number, lastResort: boolean): Uint8Array;
  createGroup(suite: number): Uint8Array;
  join(welcome: Uint8Array): Uint8Array;
  add(id: Uint8Array, kps: Uint8Array[]): Commit;
  remove(id: Uint8Array, leaves: Uint32Array): Commit;
  update(id: Uint8Array): Commit;
  mergePending(id: Uint8Array): void;
  encrypt(id: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array;
  receive(id: Uint8Array, msg: Uint8Array): Received;
  info(id: Uint8Array): Info;
  free(): void;
}
interface GroupGlue {
  initSync(arg: { module: BufferSource }): unknown;
  MlsClient: new (identity: Uint8Array) => MlsClient;
}
const glueDir = resolve(ROOT, 'dist/ts/wasm-group');
const glue = (await import(pathToFileURL(resolve(glueDir, 'veilkit_group.js')).href)) as GroupGlue;
glue.initSync({ module: readFileSync(resolve(glueDir, 'veilkit_group_bg.wasm')) });

// ---- ts-mls: the subset used here, typed at the boundary -------------------------------------
type Opaque = { readonly __opaque: unique symbol };
interface MlsMessage { wireformat: string; welcome?: Opaque; keyPackage?: Opaque; privateMessage?: Opaque; publicMessage?: Opaque }
interface TsState { groupContext: { epoch: bigint }; groupActiveState: { kind: string } }
interface TsKeyPackage { publicPackage: Opaque; privatePackage: Opaque }
interface TsMls {
  ciphersuites: Record<string, number>;
  getCiphersuiteFromName(name: string): Opaque;
  getCiphersuiteImpl(cs: Opaque): Promise<Opaque>;
  defaultCapabilities(): Opaque;
  defaultLifetime: Opaque;
  emptyPskIndex: Opaque;
  acceptAll: Opaque;
  generateKeyPackage(cred: { credentialType: 'basic'; identity: Uint8Array }, caps: Opaque, life: Opaque, ext: [], cs: Opaque): Promise<TsKeyPackage>;
  createGroup(id: Uint8Array, kp: Opaque, priv: Opaque, ext: [], cs: Opaque): Promise<TsState>;
  createCommit(ctx: { state: TsState; cipherSuite: Opaque }, opts?: { extraProposals?: unknown[]; ratchetTreeExtension?: boolean }):
    Promise<{ newState: TsState; welcome?: Opaque; commit: MlsMessage }>;
  joinGroup(welcome: Opaque, kp: Opaque, priv: Opaque, psk: Opaque, cs: Opaque): Promise<TsState>;
  createApplicationMessage(state: TsState, msg: Uint8Array, cs: Opaque): Promise<{ newState: TsState; privateMessage: Opaque }>;
  processMessage(msg: MlsMessage, state: TsState, psk: Opaque, action: Opaque, cs: Opaque):
    Promise<{ kind: string; message?: Uint8Array; newState: TsState }>;
  encodeMlsMessage(m: object): Uint8Array;
  decodeMlsMessage(b: Uint8Array, offset: number): [MlsMessage, number] | undefined;
}
const tsmls = (await import(pathToFileURL(resolve(ROOT, 'tests/interop/ts-mls/node_modules/ts-mls/dist/src/index.js')).href)) as TsMls;

const te = new TextEncoder();
const td = new TextDecoder();
const CLASSIC = 'MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519';
const cs = await tsmls.getCiphersuiteImpl(tsmls.getCiphersuiteFromName(CLASSIC));

function decode(bytes: Uint8Array, wire?: string): MlsMessage {
  const r = tsmls.decodeMlsMessage(bytes, 0);
  assert.ok(r, 'ts-mls decodes the bytes');
  assert.equal(r[1], bytes.length, 'no trailing bytes');
  if (wire) assert.equal(r[0].wireformat, wire);
  return r[0];
}
const enc = (m: object): Uint8Array => tsmls.encodeMlsMessage({ version: 'mls10', ...m });

/** A ts-mls member: its state moves forward with every call. */
class TsMember {
  state!: TsState;
  kp!: TsKeyPackage;
  constructor(readonly name: string) {}
  async keyPackage(): Promise<Uint8Array> {
    this.kp = await tsmls.generateKeyPackage({ credentialType: 'basic', identity: te.encode(this.name) }, tsmls.defaultCapabilities(), tsmls.defaultLifetime, [], cs);
    return enc({ wireformat: 'mls_key_package', keyPackage: this.kp.publicPackage });
  }
  async create(): Promise<void> {
    await this.keyPackage();
    this.state = await tsmls.createGroup(te.encode(`group of ${this.name}`), this.kp.publicPackage, this.kp.privatePackage, [], cs);
  }
  async join(welcome: Uint8Array): Promise<void> {
    this.state = await tsmls.joinGroup(decode(welcome, 'mls_welcome').welcome!, this.kp.publicPackage, this.kp.privatePackage, tsmls.emptyPskIndex, cs);
  }
  async commit(proposals: unknown[]): Promise<Commit> {
    const r = await tsmls.createCommit({ state: this.state, cipherSuite: cs }, { extraProposals: proposals, ratchetTreeExtension: true });
    this.state = r.newState;
    return { commit: tsmls.encodeMlsMessage(r.commit), ...(r.welcome ? { welcome: enc({ wireformat: 'mls_welcome', welcome: r.welcome }) } : {}) };
  }
  async send(text: string): Promise<Uint8Array> {
    const r = await tsmls.createApplicationMessage(this.state, te.encode(text), cs);
    this.state = r.newState;
    return enc({ wireformat: 'mls_private_message', privateMessage: r.privateMessage });
  }
  async receive(bytes: Uint8Array): Promise<{ kind: string; text?: string }> {
    const r = await tsmls.processMessage(decode(bytes), this.state, tsmls.emptyPskIndex, tsmls.acceptAll, cs);
    this.state = r.newState;
    return { kind: r.kind, ...(r.message ? { text: td.decode(r.message) } : {}) };
  }
  get epoch(): bigint { return this.state.groupContext.epoch; }
}

function text(r: Received): string {
  assert.equal(r.kind, 'application');
  return td.decode((r).bytes);
}

test('suite 0x0001: a ts-mls client creates the group and adds a veilkit member, which adds a ts-mls client; messages, commits and a removal both ways', async () => {
  const alice = new TsMember('alice');
  await alice.create();
  const bob = new glue.MlsClient(te.encode('bob (veilkit)'));
  try {
    // ts-mls adds veilkit from its key package bytes; veilkit joins from the welcome (tree inline).
    const add = await alice.commit([{ proposalType: 'add', add: { keyPackage: decode(bob.createKeyPackage(0x0001, false), 'mls_key_package').keyPackage } }]);
    const id = bob.join(add.welcome!);
    let info = bob.info(id);
    assert.equal(info.suite, 0x0001);
    assert.equal(info.epoch, alice.epoch);
    assert.deepEqual(info.members.map((m) => td.decode(m.identity)), ['alice', 'bob (veilkit)']);

    // Application messages both ways.
    assert.equal(text(bob.receive(id, await alice.send('hello veilkit'))), 'hello veilkit');
    assert.deepEqual(await alice.receive(bob.encrypt(id, te.encode('hello ts-mls'), new Uint8Array())), { kind: 'applicationMessage', text: 'hello ts-mls' });

    // A veilkit commit (an update, sent as PrivateMessage) processed by ts-mls, and a ts-mls commit by veilkit.
    const upd = bob.update(id);
    bob.mergePending(id);
    assert.equal((await alice.receive(upd.commit)).kind, 'newState');
    assert.equal(alice.epoch, bob.info(id).epoch);
    const tsUpd = await alice.commit([]);
    const seen = bob.receive(id, tsUpd.commit);
    assert.equal(seen.kind, 'commit');
    assert.equal(alice.epoch, bob.info(id).epoch);

    // veilkit adds a ts-mls client: ts-mls's alice processes the commit, carol joins from veilkit's welcome.
    const carol = new TsMember('carol');
    const carolKp = await carol.keyPackage();
    const add2 = bob.add(id, [carolKp]);
    bob.mergePending(id);
    assert.equal((await alice.receive(add2.commit)).kind, 'newState');
    await carol.join(add2.welcome!);
    assert.equal(carol.epoch, alice.epoch);
    assert.equal(carol.epoch, bob.info(id).epoch);
    const fromCarol = await carol.send('carol here');
    assert.equal(text(bob.receive(id, fromCarol)), 'carol here');
    assert.equal((await alice.receive(fromCarol)).text, 'carol here');
    const fromBob = bob.encrypt(id, te.encode('welcome carol'), new Uint8Array());
    assert.equal((await carol.receive(fromBob)).text, 'welcome carol');
    assert.equal((await alice.receive(fromBob)).text, 'welcome carol');

    // veilkit removes carol (ts-mls sees it: alice processes it, carol is out); then alice removes veilkit.
    info = bob.info(id);
    const carolLeaf = info.members.find((m) => td.decode(m.identity) === 'carol')!.index;
    const rem = bob.remove(id, Uint32Array.of(carolLeaf));
    bob.mergePending(id);
    assert.equal((await alice.receive(rem.commit)).kind, 'newState');
    await carol.receive(rem.commit);
    assert.equal(carol.state.groupActiveState.kind, 'removedFromGroup');
    const bobLeaf = bob.info(id).ownIndex;
    const rem2 = await alice.commit([{ proposalType: 'remove', remove: { removed: bobLeaf } }]);
    const gone = bob.receive(id, rem2.commit);
    assert.equal(gone.kind, 'commit');
    assert.equal((gone).removedSelf, true);
    assert.equal(bob.info(id).active, false);
    // And veilkit reads nothing of the epoch after its removal.
    assert.throws(() => bob.receive(id, fromCarol));
  } finally {
    bob.free();
  }
});

test('suite 0x0001: a veilkit member creates the group and adds a ts-mls client; ts-mls commits, veilkit removes it', async () => {
  const alice = new glue.MlsClient(te.encode('alice (veilkit)'));
  try {
    const id = alice.createGroup(0x0001);
    const bob = new TsMember('bob');
    const add = alice.add(id, [await bob.keyPackage()]);
    alice.mergePending(id);
    await bob.join(add.welcome!);
    assert.equal(bob.epoch, alice.info(id).epoch);
    assert.deepEqual(await bob.receive(alice.encrypt(id, te.encode('hi bob'), new Uint8Array())), { kind: 'applicationMessage', text: 'hi bob' });
    assert.equal(text(alice.receive(id, await bob.send('hi alice'))), 'hi alice');
    const upd = await bob.commit([]);
    assert.equal(alice.receive(id, upd.commit).kind, 'commit');
    assert.equal(bob.epoch, alice.info(id).epoch);
    assert.equal(text(alice.receive(id, await bob.send('after my update'))), 'after my update');
    const rem = alice.remove(id, Uint32Array.of(1));
    alice.mergePending(id);
    await bob.receive(rem.commit);
    assert.equal(bob.state.groupActiveState.kind, 'removedFromGroup');
    assert.deepEqual(alice.info(id).members.map((m) => td.decode(m.identity)), ['alice (veilkit)']);
  } finally {
    alice.free();
  }
});

test('post-quantum suites: veilkit (OpenMLS 0x004D X-Wing/ChaCha20Poly1305/SHA-256) and ts-mls 1.6.4 (X-Wing 0x0053/0x0054, SHA-512) have none in common', () => {
  const xwing = Object.entries(tsmls.ciphersuites).filter(([name]) => name.includes('XWING')).map(([, id]) => id).sort((a, b) => a - b);
  assert.deepEqual(xwing, [0x0053, 0x0054, 0x0057, 0x0058], 'ts-mls X-Wing suites');
  const name004d = Object.entries(tsmls.ciphersuites).find(([, id]) => id === 0x004d)?.[0];
  assert.ok(name004d !== undefined && !name004d.includes('XWING'), `ts-mls 0x004D is ${String(name004d)}, not X-Wing`);
  const client = new glue.MlsClient(te.encode('pq'));
  try {
    for (const id of xwing) {
      assert.throws(() => client.createKeyPackage(id, false), (e: unknown) => (e as { code?: string }).code === 'UNSUPPORTED_SUITE');
    }
    assert.ok(client.createKeyPackage(0x004d, false).length > 1184, 'veilkit X-Wing key package');
  } finally {
    client.free();
  }
});
