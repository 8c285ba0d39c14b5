/**
 * Fakes of the veilkit objects the hooks use (tests/react/*.test.ts install them with
 * `vi.mock('../../ts/react/runtime.js', …)`): a pool and keystore that count their disposals,
 * controllable file operations, and sessions whose "ciphertext" carries a checksum, so that a
 * flipped byte fails like a real tampered message (`AUTHENTICATION_FAILED`). As in the real
 * keystore (ts/session.ts, worker/keystore/sessions.ts): a session decrypts only what its peer's
 * half encrypted (not its own messages, not another session's: `AUTHENTICATION_FAILED`), once
 * (`DUPLICATE_MESSAGE`); `pinned` refuses another identity (`IDENTITY_MISMATCH`, nothing consumed);
 * a deleted session is `KEY_NOT_FOUND`; a disposed handle `INVALID_STATE`; `info()` gives the role
 * and both `Enc(ID)`s (here the UTF-8 of the identity id), and session identity ids are the real
 * SHA-256 over them.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { cleanup, waitFor } from '@testing-library/react';
import type { Capabilities } from '../../ts/index.js';

export class FakeError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export class FakePool {
  readonly options: unknown;
  readonly dispose = vi.fn();
  constructor(options: unknown) {
    this.options = options;
  }
}

interface FakeIdentity {
  readonly kind: 'identity';
  readonly id: string;
  readonly label: string;
  readonly createdAt: number;
  readonly mlDsa: boolean;
  readonly routes: Record<string, never>;
}

let identityCounter = 0;

/**
 * The keystore's encrypted history (ts/history.ts) as the fake keeps it: entries and metadata per keystore
 * name and conversation, kept across remounts (a new FakeKeystore of the same name sees them), with every
 * append recorded. `locked` keystores refuse like the real one (`KEYSTORE_LOCKED`).
 */
export const fakeHistories = new Map<string, { entries: { seq: number; data: Uint8Array }[]; meta: Uint8Array | undefined; appends: number[] }>();

export class FakeKeystore {
  readonly name: string;
  readonly dispose = vi.fn();
  identities: FakeIdentity[] = [];
  locked = false;
  passphrase: string | null = null;
  readonly createIdentity = vi.fn(async (o: { label: string; mlDsa?: boolean }) => {
    const h: FakeIdentity = { kind: 'identity', id: `${this.name}-id-${++identityCounter}`, label: o.label, createdAt: 0, mlDsa: o.mlDsa === true, routes: {} };
    this.identities.push(h);
    this.emit('identity-created');
    return h;
  });
  readonly listeners = new Set<(c: { change: string }) => void>();

  constructor(name: string) {
    this.name = name;
  }

  emit(change: string): void {
    for (const l of this.listeners) l({ change });
  }

  onChange(l: (c: { change: string }) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  history(conversation: string) {
    const k = `${this.name}\u0000${conversation}`;
    const get = () => {
      if (this.locked) throw new FakeError('KEYSTORE_LOCKED', 'locked');
      let h = fakeHistories.get(k);
      if (!h) fakeHistories.set(k, (h = { entries: [], meta: undefined, appends: [] }));
      return h;
    };
    return {
      conversation,
      append: vi.fn(async (entries: readonly Uint8Array[], options: { meta?: Uint8Array } = {}) => {
        const h = get();
        const first = (h.entries.at(-1)?.seq ?? 0) + 1;
        entries.forEach((data, i) => h.entries.push({ seq: first + i, data: data.slice() }));
        if (options.meta !== undefined) h.meta = options.meta.slice();
        h.appends.push(entries.length);
        return { first, next: first + entries.length };
      }),
      latest: async (n: number) => get().entries.slice(-n),
      meta: async () => get().meta,
      deleteConversation: async () => {
        fakeHistories.delete(k);
        return true as const;
      },
    };
  }

  async listIdentities(): Promise<FakeIdentity[]> {
    return [...this.identities];
  }

  async status(): Promise<{ locked: boolean; passphrase: boolean; revision: number; identities: number; persisted: boolean }> {
    return { locked: this.locked, passphrase: this.passphrase !== null, revision: 0, identities: this.identities.length, persisted: false };
  }

  async getPublicBundle(identity: FakeIdentity | string): Promise<{ id: string; bytes: Uint8Array }> {
    const id = typeof identity === 'string' ? identity : identity.id;
    return { id, bytes: new TextEncoder().encode(`public:${id}`) };
  }

  async deleteIdentity(identity: FakeIdentity | string): Promise<true> {
    const id = typeof identity === 'string' ? identity : identity.id;
    const i = this.identities.findIndex((x) => x.id === id);
    if (i < 0) throw new FakeError('KEY_NOT_FOUND', `no identity ${id}`);
    this.identities.splice(i, 1);
    this.emit('identity-deleted');
    return true;
  }

  /** The options of every exportBackup / importBackup call (what useIdentity passed through). */
  backupOptions: { call: 'export' | 'import'; options: unknown }[] = [];

  async exportBackup(passphrase: string, _params?: unknown, options?: unknown): Promise<Uint8Array> {
    this.backupOptions.push({ call: 'export', options });
    return new TextEncoder().encode(JSON.stringify({ passphrase, identities: this.identities }));
  }

  async importBackup(backup: Uint8Array, passphrase: string, options?: unknown): Promise<{ imported: FakeIdentity[]; skipped: string[] }> {
    this.backupOptions.push({ call: 'import', options });
    const b = JSON.parse(new TextDecoder().decode(backup)) as { passphrase: string; identities: FakeIdentity[] };
    if (b.passphrase !== passphrase) throw new FakeError('AUTHENTICATION_FAILED', 'wrong passphrase');
    const imported = b.identities.filter((i) => !this.identities.some((x) => x.id === i.id));
    this.identities.push(...imported);
    this.emit('backup-imported');
    return { imported, skipped: [] };
  }

  async lock(): Promise<void> {
    this.locked = true;
  }

  async unlock(p: string): Promise<void> {
    if (p !== this.passphrase) throw new FakeError('AUTHENTICATION_FAILED', 'wrong passphrase');
    this.locked = false;
  }

  async setPassphrase(p: string | null): Promise<void> {
    this.passphrase = p;
  }

  async exportRecoveryPhrase(identity: FakeIdentity | string): Promise<string> {
    return `phrase of ${typeof identity === 'string' ? identity : identity.id}`;
  }

  /** The "prekey bundle" names the identity and keystore it belongs to. */
  async createPrekeyBundle(identity: FakeIdentity | string): Promise<{ bundle: Uint8Array; oneTime: Uint8Array[] }> {
    const id = typeof identity === 'string' ? identity : identity.id;
    return { bundle: new TextEncoder().encode(`prekeys:${id}`), oneTime: [] };
  }
}

/** A controllable file operation: `progress`, `resolve`, `reject`; it rejects on abort unless `ignoreAbort`. */
export class FakeOperation<T> {
  readonly promise: Promise<T>;
  resolve!: (v: T) => void;
  reject!: (e: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly args: unknown[];
  #snapshot: { status: string; progress: unknown; error: unknown; result: unknown } = { status: 'running', progress: undefined, error: undefined, result: undefined };
  readonly #listeners = new Set<() => void>();

  constructor(args: unknown[], signal: AbortSignal | undefined, ignoreAbort: boolean) {
    this.args = args;
    this.signal = signal;
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (!ignoreAbort) signal?.addEventListener('abort', () => this.reject(signal.reason), { once: true });
  }

  progress(p: { phase: 'kdf' | 'chunks'; bytesDone: number; bytesTotal: number; chunksDone?: number; chunksTotal?: number }): void {
    this.#snapshot = { ...this.#snapshot, progress: { chunksDone: 0, chunksTotal: 1, ...p } };
    for (const l of this.#listeners) l();
  }

  operation(): Promise<T> & { subscribe: (l: () => void) => () => void; getSnapshot: () => unknown } {
    return Object.assign(this.promise, {
      subscribe: (l: () => void) => {
        this.#listeners.add(l);
        return () => this.#listeners.delete(l);
      },
      getSnapshot: () => this.#snapshot,
    });
  }
}

// ---------------------------------------------------------------- sessions

/** FNV-1a over the bytes: the fake "tag". */
function checksum(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const x of b) h = Math.imul(h ^ x, 0x01000193) >>> 0;
  return h;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function seal(sessionPair: string, plaintext: Uint8Array): Uint8Array {
  const head = enc.encode(`${sessionPair}|`);
  const body = new Uint8Array(head.length + plaintext.length);
  body.set(head);
  body.set(plaintext, head.length);
  const out = new Uint8Array(body.length + 4);
  out.set(body);
  new DataView(out.buffer).setUint32(body.length, checksum(body));
  return out;
}

function open(message: Uint8Array): { pair: string; plaintext: Uint8Array } {
  if (message.length < 4) throw new FakeError('AUTHENTICATION_FAILED', 'too short');
  const body = message.subarray(0, message.length - 4);
  if (new DataView(message.buffer, message.byteOffset).getUint32(message.length - 4) !== checksum(body)) {
    throw new FakeError('AUTHENTICATION_FAILED', 'tag mismatch');
  }
  const bar = body.indexOf(0x7c);
  return { pair: dec.decode(body.subarray(0, bar)), plaintext: body.slice(bar + 1) };
}

/** Sessions by id, shared by every fake keystore of a test (the "worker" state). */
export const sessions = new Map<string, FakeSession>();
let sessionCounter = 0;

export class FakeSession {
  readonly id: string;
  readonly pair: string;
  readonly local: string;
  readonly peer: string;
  readonly role: 'initiator' | 'responder';
  readonly keystore: FakeKeystore;
  #closed = false;
  #counter = 0;
  constructor(keystore: FakeKeystore, pair: string, local: string, peer: string, role: 'initiator' | 'responder') {
    this.id = `session-${++sessionCounter}`;
    this.keystore = keystore;
    this.pair = pair;
    this.local = local;
    this.peer = peer;
    this.role = role;
    sessions.set(this.id, this);
  }

  #check(): void {
    if (this.#closed) throw new FakeError('INVALID_STATE', 'this Session was disposed');
    if (sessions.get(this.id) !== this) throw new FakeError('KEY_NOT_FOUND', `no session ${this.id}`);
  }

  async encrypt(plaintext: Uint8Array): Promise<Uint8Array> {
    this.#check();
    this.#counter++;
    return seal(`${this.pair}>${this.local}`, plaintext);
  }

  readonly #seen = new Set<number>();

  async decrypt(message: Uint8Array): Promise<{ plaintext: Uint8Array; counter: number }> {
    this.#check();
    const { pair, plaintext } = open(message);
    if (pair !== `${this.pair}>${this.peer}`) throw new FakeError('AUTHENTICATION_FAILED', 'another session or direction');
    const tag = checksum(message);
    if (this.#seen.has(tag)) throw new FakeError('DUPLICATE_MESSAGE', 'already decrypted');
    this.#seen.add(tag);
    return { plaintext, counter: ++this.#counter };
  }

  async info(): Promise<{ kind: 'session'; id: string; role: 'initiator' | 'responder'; localIdentity: Uint8Array; peerIdentity: Uint8Array; peerIdentityId: string; counter: number }> {
    this.#check();
    return {
      kind: 'session', id: this.id, role: this.role, localIdentity: enc.encode(this.local), peerIdentity: enc.encode(this.peer),
      peerIdentityId: sessionIdentityId(enc.encode(this.peer)), counter: this.#counter,
    };
  }

  async verificationCode(): Promise<{ numeric: string; fingerprint: string }> {
    this.#check();
    const [a, b] = [this.local, this.peer].sort();
    const h = checksum(enc.encode(`${a ?? ''}+${b ?? ''}`)).toString(16).padStart(8, '0');
    return { numeric: `${h}-digits`, fingerprint: h.repeat(8) };
  }

  dispose(): void {
    this.#closed = true;
  }
}

/** SHA-256("veilkit-session-identity-v1" ‖ Enc(ID)) in hex, as ts/react/runtime.ts computes it. */
export function sessionIdentityId(encoding: Uint8Array): string {
  return createHash('sha256').update('veilkit-session-identity-v1').update(encoding).digest('hex');
}

function identityIdOf(identity: FakeIdentity | string): string {
  return typeof identity === 'string' ? identity : identity.id;
}

export function fakeCapabilities(): Capabilities {
  return { wasmBuild: 'simd', threads: 1 } as Capabilities;
}

/** The runtime object of ts/react/runtime.ts, faked. `ops` collects the file operations started. */
export function fakeRuntime() {
  const ops: FakeOperation<unknown>[] = [];
  const keystores: FakeKeystore[] = [];
  const pools: FakePool[] = [];
  const state = { ignoreAbort: false };
  /** A keystore reopened under the same name finds its identities again (as IndexedDB would). */
  const stored = new Map<string, FakeKeystore['identities']>();
  /** Initial messages a keystore already answered (no one-time prekeys: a replay is REPLAY_DETECTED). */
  const answered = new Set<string>();
  const groups: { id: string; keystore: string; identity: string; info: { kind: string; id: string; identity: string; epoch: number; active: boolean } }[] = [];
  const groupChats: FakeGroupChat[] = [];
  const fileOp = (args: unknown[], options: { signal?: AbortSignal }) => {
    const op = new FakeOperation<unknown>(args, options.signal, state.ignoreAbort);
    ops.push(op);
    return op.operation();
  };
  return {
    ops,
    keystores,
    pools,
    state,
    runtime: {
      start: vi.fn(async () => fakeCapabilities()),
      createPool: vi.fn((options: unknown) => {
        const p = new FakePool(options);
        pools.push(p);
        return p;
      }),
      openKeystore: vi.fn(async (options: { name: string }) => {
        const ks = new FakeKeystore(options.name);
        ks.identities = stored.get(options.name) ?? [];
        stored.set(options.name, ks.identities);
        keystores.push(ks);
        return ks;
      }),
      encryptFile: vi.fn((input: unknown, options: { signal?: AbortSignal }) => fileOp([input, options], options)),
      decryptFile: vi.fn((input: unknown, unlock: unknown, options: { signal?: AbortSignal }) => fileOp([input, unlock, options], options)),
      initiate: vi.fn(async (ks: FakeKeystore, identity: FakeIdentity | string, bundle: Uint8Array, o: { plaintext?: Uint8Array; pinned?: Uint8Array } = {}) => {
        const peer = dec.decode(bundle).replace(/^prekeys:/, '');
        if (o.pinned !== undefined && dec.decode(o.pinned) !== peer) throw new FakeError('IDENTITY_MISMATCH', 'the bundle is not the pinned identity\'s');
        const pair = `pair-${++sessionCounter}`;
        const session = new FakeSession(ks, pair, identityIdOf(identity), peer, 'initiator');
        // The initial message carries the first ratchet message, encrypted by the initiator's half.
        const initial = seal(`${pair}/${identityIdOf(identity)}`, o.plaintext ?? new Uint8Array(0));
        return { session, initialMessage: initial };
      }),
      respond: vi.fn(async (ks: FakeKeystore, identity: FakeIdentity | string, message: Uint8Array, o: { pinned?: Uint8Array } = {}) => {
        const { pair: both, plaintext } = open(message);
        const [pair = '', from = ''] = both.split('/');
        if (o.pinned !== undefined && dec.decode(o.pinned) !== from) throw new FakeError('IDENTITY_MISMATCH', 'the initiator is not the pinned identity');
        const tag = `${ks.name}:${String(checksum(message))}`;
        if (answered.has(tag)) throw new FakeError('REPLAY_DETECTED', 'initial message answered before');
        answered.add(tag);
        const session = new FakeSession(ks, pair, identityIdOf(identity), from, 'responder');
        return { session, plaintext, peer: { identity: enc.encode(from), deviceId: 1 } };
      }),
      load: vi.fn(async (ks: FakeKeystore, id: string) => {
        const s = sessions.get(id);
        if (s === undefined || s.keystore.name !== ks.name) throw new FakeError('KEY_NOT_FOUND', `no session ${id}`);
        return s;
      }),
      deleteSession: vi.fn(async (ks: FakeKeystore, session: FakeSession | string) => {
        const id = typeof session === 'string' ? session : session.id;
        const s = sessions.get(id);
        if (s === undefined || s.keystore.name !== ks.name) throw new FakeError('KEY_NOT_FOUND', `no session ${id}`);
        sessions.delete(id);
        return true as const;
      }),
      sessionIdentityId: vi.fn(async (encoding: Uint8Array) => sessionIdentityId(encoding)),
      openGroupChat: vi.fn(async (ks: FakeKeystore, id: string, delivery: unknown, o: { after?: number }) => {
        const info = groups.find((g) => g.id === id && g.keystore === ks.name);
        if (info === undefined) throw new FakeError('NOT_A_MEMBER', `no group ${id}`);
        const c = new FakeGroupChat(id, delivery, o.after);
        groupChats.push(c);
        return c;
      }),
      listGroups: vi.fn(async (ks: FakeKeystore, identity: FakeIdentity) => groups.filter((g) => g.keystore === ks.name && g.identity === identity.id).map((g) => g.info)),
      createGroup: vi.fn(async (ks: FakeKeystore, identity: FakeIdentity) => {
        const id = `${identity.id}/g${++groupCounter}`;
        const info = { kind: 'group', id, identity: identity.id, epoch: 0, active: true };
        groups.push({ id, keystore: ks.name, identity: identity.id, info });
        return info;
      }),
      devices: fakeDevices(),
      joinGroup: vi.fn(async (ks: FakeKeystore, identity: FakeIdentity, welcome: Uint8Array) => {
        const gid = dec.decode(welcome);
        if (groups.some((g) => g.keystore === ks.name && g.id.endsWith(`/${gid}`))) throw new FakeError('REPLAY_DETECTED', 'joined before');
        const id = `${identity.id}/${gid}`;
        const info = { kind: 'group', id, identity: identity.id, epoch: 1, active: true };
        groups.push({ id, keystore: ks.name, identity: identity.id, info });
        return info;
      }),
    },
    groups,
    groupChats,
  };
}

let groupCounter = 0;

/** A device of a fake registry: a device's identity id is its fake identity's id. */
interface FakeRegistered {
  identityId: string;
  name: string;
}

/** A fake device registry's bytes: JSON of the user's "Enc(ID)" (`enc:<user identity id>`), its devices and its change count. */
export interface FakeRegistry {
  user: string;
  count: number;
  devices: FakeRegistered[];
  revoked: FakeRegistered[];
}

export const fakeRegistry = (r: FakeRegistry): Uint8Array => enc.encode(JSON.stringify(r));
const readRegistry = (b: Uint8Array): FakeRegistry => JSON.parse(dec.decode(b)) as FakeRegistry;
const head = (count: number) => ({ count, hash: count.toString(16).padStart(64, '0') });

/**
 * `runtime.devices` faked (ts/devices.ts): registries as {@link FakeRegistry}, verified by comparing the user
 * "Enc(ID)" and refusing a count below the pin (`REGISTRY_INVALID`, `STATE_ROLLBACK` as the real verifier);
 * a key package `kp-<identity id>` claims that identity; `linkExistingDevice` adds `link.device` (set by the test).
 */
function fakeDevices() {
  const signed = new Map<string, Uint8Array>();
  const link = { device: { identityId: 'phone-id', name: 'alice-phone' } };
  const sign = (user: string, r: FakeRegistry): Uint8Array => {
    const b = fakeRegistry(r);
    signed.set(user, b);
    return b;
  };
  return {
    link,
    signed,
    deviceIdentity: vi.fn(async (_ks: FakeKeystore, identity: FakeIdentity | string) => enc.encode(`enc:${identityIdOf(identity)}`)),
    addDevice: vi.fn(async (_ks: FakeKeystore, user: FakeIdentity | string, device: FakeIdentity | string, o: { name?: string; registry?: Uint8Array } = {}) => {
      const u = identityIdOf(user);
      const r = o.registry === undefined ? { user: `enc:${u}`, count: 0, devices: [], revoked: [] } : readRegistry(o.registry);
      // Listed, like the real registry, by the session identity id of its Enc(ID), not by its keystore handle id.
      const identityId = sessionIdentityId(enc.encode(`enc:${identityIdOf(device)}`));
      return sign(u, { ...r, count: r.count + 1, devices: [...r.devices, { identityId, name: o.name ?? '' }] });
    }),
    revokeDevice: vi.fn(async (_ks: FakeKeystore, user: string, registry: Uint8Array, device: string) => {
      const r = readRegistry(registry);
      const d = r.devices.find((x) => x.identityId === device);
      if (d === undefined) throw new FakeError('KEY_NOT_FOUND', `no active device ${device}`);
      return sign(user, { ...r, count: r.count + 1, devices: r.devices.filter((x) => x !== d), revoked: [...r.revoked, d] });
    }),
    lastSignedRegistry: vi.fn(async (_ks: FakeKeystore, user: string) => signed.get(user) ?? null),
    verifyDeviceRegistry: vi.fn(async (registry: Uint8Array, o: { user: Uint8Array; pinned?: { count: number } }) => {
      const r = readRegistry(registry);
      if (r.user !== dec.decode(o.user)) throw new FakeError('REGISTRY_INVALID', 'another user identity');
      if (o.pinned !== undefined && r.count < o.pinned.count) throw new FakeError('STATE_ROLLBACK', 'older than the pin');
      const view = (d: FakeRegistered) => ({ identityId: d.identityId, identity: enc.encode(`enc:${d.identityId}`), name: d.name, addedAt: 0 });
      return { user: { identity: o.user, identityId: r.user }, head: head(r.count), devices: r.devices.map(view), revoked: r.revoked.map(view), updatedAt: 0 };
    }),
    registryUser: (registry: Uint8Array) => enc.encode(readRegistry(registry).user),
    linkNewDevice: vi.fn(async () => {
      throw new FakeError('INVALID_STATE', 'not faked');
    }),
    linkExistingDevice: vi.fn(async (_ks: FakeKeystore, user: string, _code: string, _relay: unknown, o: { registry: Uint8Array; pollMs?: number }) => {
      const r = readRegistry(o.registry);
      const registry = sign(user, { ...r, count: r.count + 1, devices: [...r.devices, link.device] });
      return { registry, device: { ...link.device, identity: enc.encode(`enc:${link.device.identityId}`) }, welcome: enc.encode('welcome') };
    }),
    deviceChanges: (info: { members: readonly { identityId: string }[] }, view: { devices: readonly { identityId: string }[]; revoked: readonly { identityId: string }[] }) => ({
      add: view.devices.filter((d) => !info.members.some((m) => m.identityId === d.identityId)),
      remove: info.members.filter((m) => view.revoked.some((d) => d.identityId === m.identityId)),
    }),
    inspect: vi.fn(async (kp: Uint8Array) => ({ wireFormat: 'key-package' as const, cipherSuite: 0x4d, identityId: dec.decode(kp).replace(/^kp-/, '') })),
  };
}

/** A GroupChat as the group hooks see it: state, subscribe, and the actions as spies (send queues, then `deliver` marks sent). */
export class FakeGroupChat {
  readonly id: string;
  readonly groupId: string;
  readonly delivery: unknown;
  readonly after: number | undefined;
  state: { messages: { id: string; status: string; senderId: string; time: number; bytes: Uint8Array }[]; members: unknown[]; ownIndex: number; epoch: number; active: boolean; skipped: number; syncing: boolean; error?: Error };
  readonly listeners = new Set<() => void>();
  readonly sync = vi.fn(async () => {});
  readonly add = vi.fn(async (kps: readonly Uint8Array[]) => kps.length);
  readonly remove = vi.fn(async () => {});
  readonly retry = vi.fn(async () => {});
  readonly discard = vi.fn(async () => true);
  readonly send = vi.fn(async (m: string | Uint8Array) => {
    const bytes = typeof m === 'string' ? enc.encode(m) : m;
    this.set({ messages: [...this.state.messages, { id: `o${this.state.messages.length + 1}`, status: 'pending', senderId: 'me', time: 0, bytes }] });
  });

  constructor(id: string, delivery: unknown, after: number | undefined) {
    this.id = id;
    this.groupId = id.slice(id.indexOf('/') + 1);
    this.delivery = delivery;
    this.after = after;
    this.state = { messages: [], members: [], ownIndex: 0, epoch: 1, active: true, skipped: 0, syncing: false };
  }

  set(patch: Partial<FakeGroupChat['state']>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l();
  }

  /** The pending messages come back through the log: sent. */
  deliver(): void {
    this.set({ messages: this.state.messages.map((m) => (m.status === 'pending' ? { ...m, status: 'sent', id: `h${m.id.slice(1)}` } : m)) });
  }

  subscribe(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

export type FakeRuntime = ReturnType<typeof fakeRuntime>;

/** The fake runtime of the running test (installed by {@link installFakeRuntime}). */
let installed: FakeRuntime | undefined;

/**
 * What `vi.mock('../../ts/react/runtime.js', …)` gives the hooks in every test file:
 * `vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule)`.
 * Each property read goes to the fake runtime the running test installed.
 */
export const fakeRuntimeModule = {
  runtime: new Proxy({}, {
    get: (_t, k: string) => {
      if (installed === undefined) throw new Error('no fake runtime installed (installFakeRuntime)');
      return installed.runtime[k as keyof FakeRuntime['runtime']];
    },
  }),
};

/**
 * Before each test: a fresh fake runtime, handed to `use`. After each: unmount everything and wait
 * until every provider resource is disposed (the last unmount disposes them after a zero-delay timer).
 */
export function installFakeRuntime(use: (f: FakeRuntime) => void): void {
  beforeEach(() => {
    installed = fakeRuntime();
    use(installed);
  });
  afterEach(async () => {
    cleanup();
    // Imported here, not at the top: this module is the runtime mock's factory, and resources.js
    // imports the runtime (a static import would wait on the mock that waits on this module).
    const { liveResources } = await import('../../ts/react/resources.js');
    await waitFor(() => expect(liveResources()).toBe(0));
  });
}
