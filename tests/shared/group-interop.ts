/**
 * MLS interoperability (docs/GROUPS.md#interoperability): veilkit's group module (OpenMLS in its
 * own wasm) against ts-mls 1.6.4, an independent TypeScript implementation. Only TLS-serialized
 * MLSMessage bytes cross between the two, as they would through a delivery service.
 *
 * On suite 0x0001: a ts-mls client creates a group and adds a veilkit member; a veilkit member adds
 * a ts-mls client; application messages both ways; a commit from each side processed by the
 * other; a removal seen by both; bit-flipped ts-mls messages refused by veilkit with its state
 * unchanged. Post-quantum: the two have no suite in common (checked, so this fails the day either
 * side changes).
 *
 * Shared by tests/node/group-interop.test.ts (Node imports both modules) and
 * tests/playwright/groups.spec.ts (the page loads an esbuild bundle of this file, ts-mls and the
 * group glue), so the same scenarios run in Node, Chromium, Firefox and WebKit.
 */

export interface Commit { commit: Uint8Array; welcome?: Uint8Array }
export interface Info {
  groupId: Uint8Array; suite: number; epoch: bigint; ownIndex: number; commitPending: boolean; active: boolean;
  members: { index: number; identity: Uint8Array; signatureKey: Uint8Array }[];
}
export type Received =
  | { kind: 'application'; sender: number; senderIdentity: Uint8Array; bytes: Uint8Array; aad: Uint8Array }
  | { kind: 'commit'; sender: number | null; epoch: bigint; added: Uint8Array[]; removed: number[]; removedSelf: boolean; discardedOwn: boolean }
  | { kind: 'proposal'; sender: number | null };
export interface MlsClient {
  createKeyPackage(suite: number, lastResort: boolean): Uint8Array;
  createGroup(suite: number): Uint8Array;
  join(welcome: Uint8Array): Uint8Array;
  add(id: Uint8Array, kps: Uint8Array[]): Commit;
  remove(id: Uint8Array, leaves: Uint32Array): Commit;
  update(id: Uint8Array): Commit;
  mergePending(id: Uint8Array): void;
  discardPending(id: Uint8Array): void;
  encrypt(id: Uint8Array, pt: Uint8Array, aad: Uint8Array): Uint8Array;
  receive(id: Uint8Array, msg: Uint8Array): Received;
  info(id: Uint8Array): Info;
  exportState(): Uint8Array;
  free(): void;
}
export interface GroupGlue {
  initSync(arg: { module: BufferSource }): unknown;
  MlsClient: new (identity: Uint8Array) => MlsClient;
}

// ---- ts-mls: the subset used here, typed at the boundary -------------------------------------
export type Opaque = { readonly __opaque: unique symbol };
export interface MlsMessage { wireformat: string; welcome?: Opaque; keyPackage?: Opaque; privateMessage?: Opaque; publicMessage?: Opaque }
export interface TsState { groupContext: { epoch: bigint }; groupActiveState: { kind: string } }
export interface TsKeyPackage { publicPackage: Opaque; privatePackage: Opaque }
export interface TsMls {
  ciphersuites: Record<string, number>;
  getCiphersuiteFromName(name: string): Opaque;
  getCiphersuiteImpl(cs: Opaque, provider?: Opaque): Promise<Opaque>;
  nobleCryptoProvider: Opaque;
  defaultCapabilities(): Opaque;
  defaultLifetime: Opaque;
  emptyPskIndex: Opaque;
  acceptAll: Opaque;
  generateKeyPackage(cred: { credentialType: 'basic'; identity: Uint8Array }, caps: Opaque, life: Opaque, ext: [], cs: Opaque): Promise<TsKeyPackage>;
  generateKeyPackageWithKey(
    cred: { credentialType: 'basic'; identity: Uint8Array }, caps: Opaque, life: Opaque, ext: [], signatureKeyPair: Opaque, cs: Opaque,
  ): Promise<TsKeyPackage>;
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

const te = new TextEncoder();
const td = new TextDecoder();
const CLASSIC = 'MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519';

function fail(message: string): never {
  throw new Error(message);
}
function eq(a: unknown, b: unknown, what = 'value'): void {
  if (a !== b) fail(`${what}: ${String(a)} !== ${String(b)}`);
}
const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x.toString()}n` : x));
function same(a: unknown, b: unknown, what = 'value'): void {
  if (show(a) !== show(b)) fail(`${what}: ${show(a)} !== ${show(b)}`);
}
function ok(c: unknown, what: string): asserts c {
  if (!c) fail(what);
}
function throwsCode(f: () => unknown, code: string | undefined, what: string): void {
  try {
    f();
  } catch (e) {
    if (code !== undefined && (e as { code?: unknown }).code !== code) fail(`${what}: threw ${String((e as { code?: unknown }).code)}, expected ${code}`);
    return;
  }
  fail(`${what}: did not throw`);
}
const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** One interop scenario: `run` throws on the first mismatch. */
export interface Scenario {
  name: string;
  run: () => Promise<void>;
}

/**
 * The scenarios, on this group glue (already initialised) and this ts-mls module. `provider`:
 * ts-mls's crypto — `default` (WebCrypto where the platform has it, through @hpke/core) or
 * `noble` (its pure-JS provider).
 */
export async function scenarios(glue: GroupGlue, tsmls: TsMls, provider: 'default' | 'noble' = 'default'): Promise<Scenario[]> {
  const suite = tsmls.getCiphersuiteFromName(CLASSIC);
  const cs = await (provider === 'noble' ? tsmls.getCiphersuiteImpl(suite, tsmls.nobleCryptoProvider) : tsmls.getCiphersuiteImpl(suite));


  function decode(bytes: Uint8Array, wire?: string): MlsMessage {
    const r = tsmls.decodeMlsMessage(bytes, 0);
    ok(r, 'ts-mls decodes the bytes');
    eq(r[1], bytes.length, 'no trailing bytes');
    if (wire) eq(r[0].wireformat, wire);
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
    if (r.kind !== 'application') fail(`expected an application message, got ${r.kind}`);
    return td.decode(r.bytes);
  }

  /** A ts-mls member creates a group and adds a veilkit member from its key package bytes; veilkit
   * joins from the welcome (tree inline). The caller frees `bob`. */
  async function tsGroupWithVeilkit(): Promise<{ alice: TsMember; bob: MlsClient; id: Uint8Array }> {
    const alice = new TsMember('alice');
    await alice.create();
    const bob = new glue.MlsClient(te.encode('bob (veilkit)'));
    try {
      const add = await alice.commit([{ proposalType: 'add', add: { keyPackage: decode(bob.createKeyPackage(0x0001, false), 'mls_key_package').keyPackage } }]);
      ok(add.welcome, 'a welcome');
      return { alice, bob, id: bob.join(add.welcome) };
    } catch (e) {
      bob.free();
      throw e;
    }
  }

  return [
    { name: 'suite 0x0001: a ts-mls client creates the group and adds a veilkit member, which adds a ts-mls client; messages, commits and a removal both ways', run: async () => {
      const { alice, bob, id } = await tsGroupWithVeilkit();
      try {
        let info = bob.info(id);
        eq(info.suite, 0x0001);
        eq(info.epoch, alice.epoch);
        same(info.members.map((m) => td.decode(m.identity)), ['alice', 'bob (veilkit)']);

        // Application messages both ways.
        eq(text(bob.receive(id, await alice.send('hello veilkit'))), 'hello veilkit');
        same(await alice.receive(bob.encrypt(id, te.encode('hello ts-mls'), new Uint8Array())), { kind: 'applicationMessage', text: 'hello ts-mls' });

        // A veilkit commit (an update, sent as PrivateMessage) processed by ts-mls, and a ts-mls commit by veilkit.
        const upd = bob.update(id);
        bob.mergePending(id);
        eq((await alice.receive(upd.commit)).kind, 'newState');
        eq(alice.epoch, bob.info(id).epoch);
        const tsUpd = await alice.commit([]);
        const seen = bob.receive(id, tsUpd.commit);
        eq(seen.kind, 'commit');
        eq(alice.epoch, bob.info(id).epoch);

        // veilkit adds a ts-mls client: ts-mls's alice processes the commit, carol joins from veilkit's welcome.
        const carol = new TsMember('carol');
        const carolKp = await carol.keyPackage();
        const add2 = bob.add(id, [carolKp]);
        bob.mergePending(id);
        eq((await alice.receive(add2.commit)).kind, 'newState');
        await carol.join(add2.welcome!);
        eq(carol.epoch, alice.epoch);
        eq(carol.epoch, bob.info(id).epoch);
        const fromCarol = await carol.send('carol here');
        eq(text(bob.receive(id, fromCarol)), 'carol here');
        eq((await alice.receive(fromCarol)).text, 'carol here');
        const fromBob = bob.encrypt(id, te.encode('welcome carol'), new Uint8Array());
        eq((await carol.receive(fromBob)).text, 'welcome carol');
        eq((await alice.receive(fromBob)).text, 'welcome carol');

        // veilkit removes carol (ts-mls sees it: alice processes it, carol is out); then alice removes veilkit.
        info = bob.info(id);
        const carolLeaf = info.members.find((m) => td.decode(m.identity) === 'carol')!.index;
        const rem = bob.remove(id, Uint32Array.of(carolLeaf));
        bob.mergePending(id);
        eq((await alice.receive(rem.commit)).kind, 'newState');
        await carol.receive(rem.commit);
        eq(carol.state.groupActiveState.kind, 'removedFromGroup');
        const bobLeaf = bob.info(id).ownIndex;
        const rem2 = await alice.commit([{ proposalType: 'remove', remove: { removed: bobLeaf } }]);
        const gone = bob.receive(id, rem2.commit);
        ok(gone.kind === 'commit' && gone.removedSelf, 'veilkit sees its own removal');
        eq(bob.info(id).active, false);
        // And veilkit reads nothing of the epoch after its removal.
        throwsCode(() => bob.receive(id, fromCarol), undefined, 'a removed member reads the next epoch');
      } finally {
        bob.free();
      }
    } },

    { name: 'suite 0x0001: a veilkit member creates the group and adds a ts-mls client; ts-mls commits, veilkit removes it', run: async () => {
      const alice = new glue.MlsClient(te.encode('alice (veilkit)'));
      try {
        const id = alice.createGroup(0x0001);
        const bob = new TsMember('bob');
        const add = alice.add(id, [await bob.keyPackage()]);
        alice.mergePending(id);
        await bob.join(add.welcome!);
        eq(bob.epoch, alice.info(id).epoch);
        same(await bob.receive(alice.encrypt(id, te.encode('hi bob'), new Uint8Array())), { kind: 'applicationMessage', text: 'hi bob' });
        eq(text(alice.receive(id, await bob.send('hi alice'))), 'hi alice');
        const upd = await bob.commit([]);
        eq(alice.receive(id, upd.commit).kind, 'commit');
        eq(bob.epoch, alice.info(id).epoch);
        eq(text(alice.receive(id, await bob.send('after my update'))), 'after my update');
        const rem = alice.remove(id, Uint32Array.of(1));
        alice.mergePending(id);
        await bob.receive(rem.commit);
        eq(bob.state.groupActiveState.kind, 'removedFromGroup');
        same(alice.info(id).members.map((m) => td.decode(m.identity)), ['alice (veilkit)']);
      } finally {
        alice.free();
      }
    } },

    { name: 'post-quantum suites: veilkit (OpenMLS 0x004D X-Wing/ChaCha20Poly1305/SHA-256) and ts-mls 1.6.4 (X-Wing 0x0053/0x0054, SHA-512) have none in common', run: async () => {
      const xwing = Object.entries(tsmls.ciphersuites).filter(([name]) => name.includes('XWING')).map(([, id]) => id).sort((a, b) => a - b);
      same(xwing, [0x0053, 0x0054, 0x0057, 0x0058], 'ts-mls X-Wing suites');
      const name004d = Object.entries(tsmls.ciphersuites).find(([, id]) => id === 0x004d)?.[0];
      ok(name004d !== undefined && !name004d.includes('XWING'), `ts-mls 0x004D is ${String(name004d)}, not X-Wing`);
      const client = new glue.MlsClient(te.encode('pq'));
      try {
        for (const id of xwing) {
          throwsCode(() => client.createKeyPackage(id, false), 'UNSUPPORTED_CIPHER_SUITE', `suite ${id}`);
        }
        ok(client.createKeyPackage(0x004d, false).length > 1184, 'veilkit X-Wing key package');
      } finally {
        client.free();
      }
    } },
    { name: 'suite 0x0001: bit-flipped ts-mls application messages and commits are refused by veilkit, its state unchanged, and the genuine ones still process', run: async () => {
      const { alice, bob, id } = await tsGroupWithVeilkit();
      try {
        const flip = (b: Uint8Array, at: number): Uint8Array => { const c = b.slice(); c[at] = (c[at] ?? 0) ^ 1; return c; };
        const app = await alice.send('genuine');
        const commit = (await alice.commit([])).commit;
        let refused = 0;
        for (const [what, bytes] of [['application', app], ['commit', commit]] as const) {
          for (const at of [bytes.length - 1, bytes.length >> 1, 20]) {
            const before = bob.exportState();
            throwsCode(() => bob.receive(id, flip(bytes, at)), undefined, `flipped ${what} byte ${at}`);
            ok(equalBytes(before, bob.exportState()), `the state is unchanged after a flipped ${what} (byte ${at})`);
            refused++;
          }
        }
        eq(refused, 6, 'refused');
        eq(text(bob.receive(id, app)), 'genuine', 'the genuine message after the forgeries');
        eq(bob.receive(id, commit).kind, 'commit', 'the genuine commit after the forgeries');
        eq(bob.info(id).epoch, alice.epoch, 'epoch');
      } finally {
        bob.free();
      }
    } },
  ];
}

/**
 * The group module alone, on both suites (0x004D X-Wing, the default, and 0x0001): three members
 * create, add, join, exchange messages with their aad, update, remove; a removed member reads
 * nothing more; replayed, bit-flipped and old-epoch messages are refused with the state unchanged
 * and the next genuine message still decrypts.
 */
export function ownScenarios(glue: GroupGlue): Scenario[] {
  const run = (suite: number): void => {
    const [a, b, c] = ['alice', 'bob', 'carol'].map((n) => new glue.MlsClient(te.encode(n))) as [MlsClient, MlsClient, MlsClient];
    try {
      const id = a.createGroup(suite);
      const add = a.add(id, [b.createKeyPackage(suite, false), c.createKeyPackage(suite, false)]);
      a.mergePending(id);
      ok(add.welcome, 'a welcome');
      same(b.join(add.welcome), id, 'bob joins the group');
      same(c.join(add.welcome), id, 'carol joins the group');
      eq(c.info(id).suite, suite, 'suite');
      same(c.info(id).members.map((m) => td.decode(m.identity)), ['alice', 'bob', 'carol'], 'members');

      const read = (who: MlsClient, msg: Uint8Array): string => {
        const r = who.receive(id, msg);
        if (r.kind !== 'application') fail(`expected an application message, got ${r.kind}`);
        return `${td.decode(r.bytes)}|${td.decode(r.aad)}|${td.decode(r.senderIdentity)}`;
      };
      const m1 = b.encrypt(id, te.encode('from bob'), te.encode('aad 1'));
      eq(read(a, m1), 'from bob|aad 1|bob', 'alice reads bob');
      eq(read(c, m1), 'from bob|aad 1|bob', 'carol reads bob');

      // Attacks on carol: replay, bit flips, each leaving her state byte for byte unchanged.
      const refuse = (msg: Uint8Array, what: string, code?: string): void => {
        const before = c.exportState();
        throwsCode(() => c.receive(id, msg), code, what);
        ok(equalBytes(before, c.exportState()), `${what}: state unchanged`);
      };
      refuse(m1, 'a replayed message', 'DUPLICATE_MESSAGE');
      const m2 = a.encrypt(id, te.encode('from alice'), new Uint8Array());
      for (const at of [m2.length - 1, m2.length - 20, 30]) {
        const f = m2.slice();
        f[at] = (f[at] ?? 0) ^ 0x40;
        refuse(f, `a message flipped at byte ${at}`);
      }
      eq(read(c, m2), 'from alice||alice', 'the genuine message after the forgeries');

      // An update commit by carol; a message of the old epoch is then refused.
      const old = a.encrypt(id, te.encode('old epoch'), new Uint8Array());
      eq(read(b, old), 'old epoch||alice', 'bob reads it in the old epoch');
      const upd = c.update(id);
      c.mergePending(id);
      eq(a.receive(id, upd.commit).kind, 'commit', 'alice takes the update');
      eq(b.receive(id, upd.commit).kind, 'commit', 'bob takes the update');
      eq(a.info(id).epoch, c.info(id).epoch, 'one epoch');
      const flippedCommit = upd.commit.slice();
      flippedCommit[flippedCommit.length - 2] = (flippedCommit[flippedCommit.length - 2] ?? 0) ^ 1;
      refuse(flippedCommit, 'a flipped commit');

      // Alice removes bob: bob sees it and reads nothing of the next epoch.
      const rem = a.remove(id, Uint32Array.of(1));
      a.mergePending(id);
      const seen = b.receive(id, rem.commit);
      ok(seen.kind === 'commit' && seen.removedSelf, 'bob sees his removal');
      eq(c.receive(id, rem.commit).kind, 'commit', 'carol takes the removal');
      const after = c.encrypt(id, te.encode('without bob'), new Uint8Array());
      eq(read(a, after), 'without bob||carol', 'alice reads carol after the removal');
      throwsCode(() => b.receive(id, after), undefined, 'a removed member reads the next epoch');
      same(a.info(id).members.map((m) => td.decode(m.identity)), ['alice', 'carol'], 'members after the removal');
    } finally {
      for (const x of [a, b, c]) x.free();
    }
  };
  return [
    { name: 'group module, suite 0x004D (X-Wing): three members, messages, update, removal, refused forgeries', run: async () => { run(0x004d); } },
    { name: 'group module, suite 0x0001: three members, messages, update, removal, refused forgeries', run: async () => { run(0x0001); } },
  ];
}
