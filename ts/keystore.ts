/**
 * Keys in the browser. `Keystore` is a thin page-side proxy: the keystore
 * itself lives in a veilkit worker (worker/keystore.ts) and this class only
 * ever receives handles, public keys, signed public bundles, signatures and
 * non-extractable `CryptoKey`s — plus, through the two documented export
 * paths, a recovery phrase (`exportRecoveryPhrase`) or a passphrase-encrypted
 * backup (`exportBackup`). Specified in docs/KEYSTORE.md.
 *
 * ```ts
 * const ks = await Keystore.open({ name: 'main' });
 * const me = await ks.createIdentity({ label: 'me', mlDsa: true });
 * const bundle = await ks.getPublicBundle(me);       // send bundle.bytes to peers
 * const sig = await ks.sign(me, message);             // Ed25519 app signature, in the worker (verifyAppSignature)
 * const key = await ks.deriveSharedKey(me, peerX25519, info); // non-extractable AES-GCM
 * ```
 */
import { disposeSymbol, disposedError } from './dispose.js';
import { WorkerPool, type PoolOptions, type RequestBody } from './pool.js';
import { resolveKdfBudget, type PublicBundle } from './keystore-format.js';
import { bytes, integer } from './validate.js';
import { Listeners } from './listeners.js';
import { ConversationHistory } from './history.js';
import { checkName } from '../protocol/args.js';
import {
  connectKeystoreFrame, resolveIsolatedOptions, type IsolatedKeystoreOptions, type KeystoreBody, type ResolvedIsolatedOptions,
} from './keystore-isolated.js';
import type {
  ContainerHeaderSignature, HybridSignature, IdentityHandle, ImportBackupResult, KdfBudget, KeystoreCapabilities, KeystoreChange, KeystoreReplies,
  KeystoreStatus, PassphraseKdfParams, PrekeyBundles,
} from '../protocol/keystore.protocol.js';
import { GROUP_SUITES, type GroupSuiteId } from '../protocol/group.protocol.js';
import { VeilError } from '../protocol/errors.js';

export type {
  ContainerHeaderSignature, HybridSignature, IdentityHandle, KdfBudget, KeyHandle, KeyRoute, KeyType, ImportBackupResult, ImportBackupHistoryResult, KeystoreCapabilities, KeystoreChange,
  KeystoreStatus, PassphraseKdfParams, PrekeyBundles,
} from '../protocol/keystore.protocol.js';
export type { IsolatedKeystoreOptions } from './keystore-isolated.js';
export {
  decodePublicBundle, verifyPublicBundle, IDENTITY_DERIVATION, DEFAULT_PASSPHRASE_KDF, MIN_PASSPHRASE_KDF, DEFAULT_KDF_BUDGET, MAX_BACKUP_HISTORY_BYTES,
  type PublicBundle,
} from './keystore-format.js';

/** Options of {@link Keystore.open}: the keystore `name`, KDF budget, persistence, its worker pool, or isolated-origin mode. */
export interface KeystoreOptions {
  /** Store name: 1–64 characters from `A-Z a-z 0-9 . _ -`. The IndexedDB database is `veilkit-keystore:<name>`. */
  name: string;
  /**
   * Pool to run in (calls use affinity `keystore:<name>`). Default: a private
   * one-worker pool without idle termination, terminated by `dispose()`. A shared
   * pool whose workers idle out or crash relocks a passphrase-protected store.
   * (The keystore does not use the default pool the file calls share: a file job
   * crashing its worker would relock the store, and `dispose()` could not forget the
   * unlocked key by terminating a worker others still use.)
   */
  pool?: WorkerPool;
  /** Options of the private pool (ignored with `pool`). */
  poolOptions?: PoolOptions;
  /**
   * Ask the browser to make this origin's storage persistent (`navigator.storage.persist()`,
   * best effort, page only) so that keys are not evicted under storage pressure. Default `true`.
   */
  persist?: boolean;
  /**
   * KDF budget of `unlock` (the lock's Argon2id parameters come from storage page
   * script can write), `setPassphrase`, `exportBackup` and `importBackup` (each
   * call may pass its own). Default `DEFAULT_KDF_BUDGET`; over it: `KDF_BUDGET_EXCEEDED`
   * before any work.
   */
  kdfBudget?: KdfBudget;
  /**
   * Opt-in isolated-origin mode (docs/KEYSTORE.md#isolated-origin-mode): the store lives in a
   * hidden iframe on another origin and this page only talks to it over a `MessageChannel`.
   * Same API, except that `exportRecoveryPhrase`, `exportBackup`, `importBackup` and
   * `setPassphrase(null)` fail with `TOP_LEVEL_REQUIRED`: they run in the keystore manager
   * window (`openManager()`); `setPassphrase` and `deleteIdentity` need `{ currentPassphrase }`
   * (a store without a passphrase: the manager); key uses are rate-limited (`RATE_LIMITED`). `pool`, `poolOptions` and `persist` then belong to the frame's
   * own configuration and are ignored here; `kdfBudget` still bounds this page's `unlock`.
   */
  isolated?: IsolatedKeystoreOptions;
}

/**
 * Options of {@link Keystore.setPassphrase} and {@link Keystore.deleteIdentity}: the store's current
 * passphrase, checked in the worker (`AUTHENTICATION_FAILED` if it is not, also for a store without
 * one). An isolated-origin keystore requires it from the app page (without it: `TOP_LEVEL_REQUIRED`;
 * a store without a passphrase: the manager window only).
 */
export interface CurrentPassphraseOptions {
  currentPassphrase?: string;
}

/** Options of reading a backup: the `kdfBudget` its passphrase KDF must stay within. */
export interface BackupOptions {
  /** Overrides the keystore's KDF budget for this call. */
  kdfBudget?: KdfBudget;
}

/** Options of {@link Keystore.exportBackup}: the KDF budget, and whether the backup carries the message history. */
export interface ExportBackupOptions extends BackupOptions {
  /**
   * Also put the encrypted message history (every conversation, with the history key) in the
   * backup, under the backup's own passphrase key (docs/KEYSTORE.md#backup). Default `false`: a
   * history can be large (up to `MAX_BACKUP_HISTORY_BYTES`, 128 MiB, in a backup) and a backup
   * that restores identities stays small; over the bound the export is refused (`RangeError`).
   */
  includeHistory?: boolean;
}

/** Options of {@link Keystore.importBackup}: the KDF budget, and whether to restore the message history a backup carries. */
export interface ImportBackupOptions extends BackupOptions {
  /**
   * Restore the message history the backup carries (default `true`; a backup without one imports
   * identities only either way). `false` imports the identities and leaves the history alone — the
   * way to import a backup whose history key differs from this keystore's non-empty history, which
   * is refused with `KEY_EXISTS` (`details.reason = 'history'`).
   */
  includeHistory?: boolean;
}

/** Options of {@link Keystore.createIdentity}: a `label` and whether to add an ML-DSA-65 key (`mlDsa`, needed for sessions). */
export interface CreateIdentityOptions {
  /** Local name shown to the user (at most 256 characters); not part of the public bundle. */
  label: string;
  /** Also create an ML-DSA-65 signing key (default `false`). Restore with the same setting. */
  mlDsa?: boolean;
}

/** Options of {@link Keystore.restoreFromPhrase}: a BIP-39 `passphrase`, a `label` and `mlDsa` (not carried by the phrase). */
export interface RestoreOptions {
  label?: string;
  /** Must match the original identity's setting (default `false`). */
  mlDsa?: boolean;
  /** BIP-39 passphrase ("25th word"); identities made by `createIdentity` use none (default `''`). */
  passphrase?: string;
}

/** Options of the keystore's decapsulation: what the shared secret becomes (`output`: an AES-GCM or HKDF `CryptoKey`, with HKDF `info`), or a `port` to hand it to. */
export interface DecapsulateOptions {
  /** HKDF-SHA256 `info` (default empty). */
  info?: Uint8Array;
  /**
   * `'aes-gcm'` (default): AES-256-GCM key = HKDF(ss, info). `'hkdf'`: the HKDF base key
   * of the shared secret, usable for `deriveKey` only (no `deriveBits`).
   */
  output?: 'aes-gcm' | 'hkdf';
  /**
   * Deliver the key to another worker instead of this page: it is posted once, as `{ key }`, on
   * this port (transferred to the keystore's worker; the other end belongs to the receiving
   * worker), and the call resolves to `undefined`. The file layer opens containers for an
   * identity this way, so no key that could derive a file's DEK ever reaches the page.
   */
  port?: MessagePort;
}

/** Options of {@link Keystore.createPrekeyBundle}. */
export interface CreatePrekeyBundleOptions {
  /** One-time bundles to make as well: an integer 0 to 100 (default 0). */
  oneTime?: number;
}

/** Options of {@link Keystore.createKeyPackages}. */
export interface CreateKeyPackagesOptions {
  /** How many: an integer 1 to 100 (default 1). */
  count?: number;
  /** Key packages that a join does not consume (default `false`: each is used once). */
  lastResort?: boolean;
  /** The MLS ciphersuite (default X-Wing, 0x004D; or 0x0001). */
  suite?: GroupSuiteId;
}

/** Options of {@link Keystore.replenishPrekeys}. */
export interface ReplenishPrekeysOptions {
  /** One-time bundles to make: an integer 0 to 100. */
  oneTime: number;
  /** Replace the signed and last-resort prekeys now, even if they are not due (default `false`: only when due). */
  rotate?: boolean;
}

/** The most one-time bundles one call makes (docs/KEYSTORE.md#prekey-rotation). */
const MAX_ONE_TIME_PREKEYS_PER_CALL = 100;

function options<T extends object>(value: T | undefined, required: boolean): Partial<T> {
  if (value === undefined && !required) return {};
  if (typeof value !== 'object' || value === null) throw new TypeError('options must be an object');
  return value;
}

type Body = KeystoreBody;

/** How a `Keystore` reaches its store: a worker of a pool on this page, or a port to an isolated-origin frame. */
interface KeystoreTransport {
  run<B extends Body>(body: B, transfer?: Transferable[]): Promise<KeystoreReplies[B['type']]>;
  /** Change events delivered by the transport itself (else: this origin's BroadcastChannel). */
  subscribe?(listener: (change: KeystoreChange) => void): () => void;
  close(): void;
}

function poolTransport(name: string, pool: WorkerPool, owns: boolean): KeystoreTransport {
  return {
    run: <B extends Body>(body: B, transfer?: Transferable[]) =>
      pool.run({ ...body, name } as B & { name: string } & RequestBody, { affinity: `keystore:${name}`, ...(transfer ? { transfer } : {}) }),
    close: () => {
      if (owns) pool.dispose();
    },
  };
}

/** Package-internal: builds a Keystore on a transport (the keystore manager window). */
export let keystoreOnTransport: (name: string, transport: KeystoreTransport, kdfBudget: KdfBudget) => Keystore;
/** Package-internal: sends a raw request body through a Keystore's transport (the keystore frame). */
export let keystoreRun: (ks: Keystore, body: Body, transfer?: Transferable[]) => Promise<unknown>;

function identityId(identity: IdentityHandle | string): string {
  if (typeof identity === 'string') return identity;
  if (typeof identity === 'object' && identity !== null && typeof identity.id === 'string') return identity.id;
  throw new TypeError('identity must be an IdentityHandle or an identity id');
}

function currentPassphrase(options: CurrentPassphraseOptions | undefined): string | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const p = options.currentPassphrase;
  if (p !== undefined && (typeof p !== 'string' || p.length === 0)) throw new TypeError('currentPassphrase must be a non-empty string');
  return p;
}

function requestPersistence(): void {
  const storage = (globalThis as { navigator?: { storage?: { persist?: () => Promise<boolean> } } }).navigator?.storage;
  if (typeof (globalThis as { window?: unknown }).window === 'undefined' || typeof storage?.persist !== 'function') return;
  storage.persist().catch(() => {});
}

/** Identity keys in IndexedDB behind a dedicated worker: the page gets handles, public keys and non-extractable `CryptoKey`s, never secret bytes. Open with {@link Keystore.open} (docs/KEYSTORE.md). */
export class Keystore {
  readonly name: string;
  private readonly transport: KeystoreTransport;
  private readonly kdfBudget: KdfBudget;
  private readonly isolated: ResolvedIsolatedOptions | undefined;
  private readonly listeners = new Listeners<KeystoreChange>();
  private channel: BroadcastChannel | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  static {
    keystoreOnTransport = (name, transport, kdfBudget) => new Keystore(name, transport, kdfBudget, undefined);
    keystoreRun = (ks, body, transfer) => ks.run(body, transfer);
  }

  private constructor(name: string, transport: KeystoreTransport, kdfBudget: KdfBudget, isolated: ResolvedIsolatedOptions | undefined) {
    this.name = name;
    this.transport = transport;
    this.kdfBudget = kdfBudget;
    this.isolated = isolated;
  }

  /**
   * Opens (creating on first use) the keystore `name`. A database written by a
   * newer veilkit fails with `STORAGE_VERSION_MISMATCH`; a browser that cannot
   * store a `CryptoKey` with `STORAGE_UNSUPPORTED`, a store written in an older record
   * format with `UNSUPPORTED_VERSION` — in every case nothing is changed.
   */
  static async open(options: KeystoreOptions): Promise<Keystore> {
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    const name = checkName(options.name);
    const kdfBudget = resolveKdfBudget(options.kdfBudget);
    if (options.isolated !== undefined) {
      const isolated = resolveIsolatedOptions(options.isolated);
      // The frame opened the store before answering `ready`.
      return new Keystore(name, await connectKeystoreFrame(name, isolated), kdfBudget, isolated);
    }
    const owns = options.pool === undefined;
    const pool = options.pool ?? new WorkerPool({ size: 1, idleTimeoutMs: 0, ...options.poolOptions });
    if (options.persist !== false) requestPersistence();
    const ks = new Keystore(name, poolTransport(name, pool, owns), kdfBudget, undefined);
    try {
      await ks.run({ type: 'keystore/open' });
    } catch (e) {
      ks.dispose();
      throw e;
    }
    return ks;
  }

  private run<B extends Body>(body: B, transfer?: Transferable[]): Promise<KeystoreReplies[B['type']]> {
    if (this.closed) return Promise.reject(disposedError('this Keystore'));
    return this.transport.run(body, transfer);
  }

  /**
   * Isolated-origin mode only: opens the keystore manager (`isolated.managerUrl`, a top-level
   * window on the keystore origin, its address visible) where the user exports a recovery phrase
   * or backup, imports a backup or removes the passphrase. Call it from a click handler (popup
   * blockers). The opened window finds this page's keystore frame through `window.opener`, so
   * this page must not sever its popups' opener (`Cross-Origin-Opener-Policy: same-origin`
   * does; `same-origin-allow-popups` does not). Returns the window, or `null` if it was blocked.
   */
  openManager(): Window | null {
    if (this.closed) throw disposedError('this Keystore');
    if (this.isolated === undefined) throw new TypeError('openManager is for an isolated-origin keystore (options.isolated)');
    if (this.isolated.managerUrl === undefined) throw new TypeError('isolated.managerUrl is not set');
    const url = new URL(this.isolated.managerUrl.href);
    url.hash = `name=${encodeURIComponent(this.name)}`;
    return globalThis.open(url.href, '_blank');
  }

  private budget(options: BackupOptions | undefined): KdfBudget {
    if (options !== undefined && (typeof options !== 'object' || options === null)) throw new TypeError('options must be an object');
    return options?.kdfBudget === undefined ? this.kdfBudget : resolveKdfBudget(options.kdfBudget);
  }

  /** The route each key type of a new identity takes here (`'native'`: a non-extractable WebCrypto key; `'wasm'`: wrapped bytes for the core) and the platform features the keystore uses (docs/KEYSTORE.md#capabilities-capabilities). */
  async capabilities(): Promise<KeystoreCapabilities> {
    return this.run({ type: 'keystore/capabilities' });
  }

  async status(): Promise<KeystoreStatus> {
    return this.run({ type: 'keystore/status' });
  }

  /**
   * Protects the store with a passphrase (Argon2id in the worker), changes it,
   * or removes it (`null`). The store must be unlocked. Every secret is
   * re-encrypted under the new storage key and a new generation in one
   * transaction; the store stays unlocked in this tab. Parameters over the
   * keystore's KDF budget: `KDF_BUDGET_EXCEEDED` (it could not be unlocked).
   * With `options.currentPassphrase`, it runs only if that is the store's
   * passphrase (required from the app page of an isolated-origin keystore).
   */
  async setPassphrase(passphrase: string | null, params?: PassphraseKdfParams, options?: CurrentPassphraseOptions): Promise<KeystoreStatus> {
    const current = currentPassphrase(options);
    return this.run({
      type: 'keystore/set-passphrase', passphrase, ...(params ? { params } : {}), kdfBudget: this.kdfBudget,
      ...(current === undefined ? {} : { currentPassphrase: current }),
    });
  }

  /**
   * Unlocks a passphrase-protected store in this tab. A wrong passphrase fails with
   * `AUTHENTICATION_FAILED`; stored Argon2id parameters over the KDF budget with
   * `KDF_BUDGET_EXCEEDED` before any work.
   */
  async unlock(passphrase: string): Promise<KeystoreStatus> {
    return this.run({ type: 'keystore/unlock', passphrase, kdfBudget: this.kdfBudget });
  }

  /** Forgets the unlocked storage key — in every tab and worker of this origin (a committed lock epoch, not only a message). */
  async lock(): Promise<KeystoreStatus> {
    return this.run({ type: 'keystore/lock' });
  }

  /** A new identity: Ed25519 (+ ML-DSA-65) signing, X25519 + ML-KEM-768 agreement, X-Wing file-recipient keys. */
  async createIdentity(options: CreateIdentityOptions): Promise<IdentityHandle> {
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    return this.run({ type: 'keystore/create-identity', label: options.label, mlDsa: options.mlDsa === true });
  }

  async listIdentities(): Promise<IdentityHandle[]> {
    return this.run({ type: 'keystore/list-identities' });
  }

  /** The identity's public keys, signed by its Ed25519 (and ML-DSA-65) key. Send `bundle.bytes`. */
  async getPublicBundle(identity: IdentityHandle | string): Promise<PublicBundle> {
    return this.run({ type: 'keystore/public-bundle', identity: identityId(identity) });
  }

  /**
   * Deletes the identity and all its keys (one transaction). Export its phrase first if you may need it again.
   * With `options.currentPassphrase`, it runs only if that is the store's passphrase (required from the app
   * page of an isolated-origin keystore).
   */
  async deleteIdentity(identity: IdentityHandle | string, options?: CurrentPassphraseOptions): Promise<true> {
    const current = currentPassphrase(options);
    return this.run({
      type: 'keystore/delete-identity', identity: identityId(identity),
      ...(current === undefined ? {} : { currentPassphrase: current, kdfBudget: this.kdfBudget }),
    });
  }

  /**
   * Export path: the identity's 24-word BIP-39 recovery phrase. Every key of
   * the identity derives from it (docs/KEYSTORE.md#derivation); show it to the
   * user, never store or send it.
   */
  async exportRecoveryPhrase(identity: IdentityHandle | string): Promise<string> {
    return this.run({ type: 'keystore/export-phrase', identity: identityId(identity) });
  }

  /**
   * Recreates an identity from its phrase: same keys, same id, byte-identical
   * public bundle. Restoring an identity already present returns its handle.
   * The second argument is the BIP-39 passphrase, or options.
   */
  async restoreFromPhrase(phrase: string, passphraseOrOptions?: string | RestoreOptions): Promise<IdentityHandle> {
    const o: RestoreOptions = typeof passphraseOrOptions === 'string' ? { passphrase: passphraseOrOptions } : (passphraseOrOptions ?? {});
    return this.run({
      type: 'keystore/restore-phrase', phrase, bip39Passphrase: o.passphrase ?? '', label: o.label ?? '', mlDsa: o.mlDsa === true,
    });
  }

  /**
   * Export path: every identity, encrypted under `passphrase` (Argon2id + AES-256-GCM,
   * docs/KEYSTORE.md#backup); with `{ includeHistory: true }` the message history too, inside
   * the same encryption (never in the clear, and its key never leaves the worker otherwise).
   * Parameters over the KDF budget are refused (`KDF_BUDGET_EXCEEDED`): a reader with the
   * default budget could not open it.
   */
  async exportBackup(passphrase: string, params?: PassphraseKdfParams, options?: ExportBackupOptions): Promise<Uint8Array> {
    const includeHistory = options?.includeHistory;
    if (includeHistory !== undefined && typeof includeHistory !== 'boolean') throw new TypeError('options.includeHistory must be a boolean');
    return this.run({
      type: 'keystore/export-backup', passphrase, ...(params ? { params } : {}), kdfBudget: this.budget(options), ...(includeHistory ? { includeHistory } : {}),
    });
  }

  /**
   * Adds the identities of a backup (present ones are kept). Wrong passphrase:
   * `AUTHENTICATION_FAILED`; Argon2id parameters over the KDF budget:
   * `KDF_BUDGET_EXCEEDED` before any work; an entry whose recovery entropy does
   * not give its seed: `INVALID_BACKUP`. A backup's message history is restored
   * too (unless `includeHistory: false`): merged into the same history key, or
   * installed where this keystore has none; another key with conversations is
   * `KEY_EXISTS` (`details.reason = 'history'`). Identities and history are written
   * in one transaction: nothing is changed on failure. The worker receives (and
   * wipes) a copy of `backup`; yours is not modified.
   */
  async importBackup(backup: Uint8Array, passphrase: string, options?: ImportBackupOptions): Promise<ImportBackupResult> {
    const kdfBudget = this.budget(options);
    const includeHistory = options?.includeHistory;
    if (includeHistory !== undefined && typeof includeHistory !== 'boolean') throw new TypeError('options.includeHistory must be a boolean');
    const copy = bytes('backup', backup).slice();
    return this.run({ type: 'keystore/import-backup', backup: copy, passphrase, kdfBudget, ...(includeHistory === false ? { includeHistory } : {}) }, [copy.buffer]);
  }

  /**
   * An app signature (docs/KEYSTORE.md#app-signatures) with the identity's Ed25519 key (default) or
   * ML-DSA-65 key (hedged): over `"veilkit-app-signature-v1" ‖ u8(|context|) ‖ context ‖ message`, never
   * over `message` alone, so it is never a prekey, bundle or container signature. `context` (at most 255
   * bytes, default empty) is the app's own domain. Verify with `verifyAppSignature`.
   */
  async sign(identity: IdentityHandle | string, message: Uint8Array, options: { algorithm?: 'ed25519' | 'ml-dsa-65'; context?: Uint8Array } = {}): Promise<Uint8Array> {
    return this.run({
      type: 'keystore/sign', identity: identityId(identity), algorithm: options.algorithm ?? 'ed25519',
      message: bytes('message', message), ...(options.context !== undefined ? { context: bytes('context', options.context) } : {}),
    });
  }

  /**
   * Ed25519 and ML-DSA-65 (hedged) app signatures over the same signed bytes (as {@link Keystore.sign},
   * optional app `context`), for an identity with an ML-DSA-65 key (else `KEY_NOT_FOUND`). Verify with
   * `verifyHybridAppSignature`, which requires both.
   */
  async signHybrid(identity: IdentityHandle | string, message: Uint8Array, options: { context?: Uint8Array } = {}): Promise<HybridSignature> {
    return this.run({
      type: 'keystore/sign-hybrid', identity: identityId(identity), message: bytes('message', message),
      ...(options.context !== undefined ? { context: bytes('context', options.context) } : {}),
    });
  }

  /**
   * The signatures of a container header (what `encryptFile`'s `sign: { keystore, identity }` uses):
   * `header` is every header byte before the signature table (docs/FORMAT.md §8.1). The worker parses
   * it — a version 5 or 6 header naming this identity's keys as its signer, version 6 for an identity
   * with ML-DSA-65 — and signs `"vollcrypt-file-header-signature-v1" ‖ header` (ML-DSA-65 with the
   * header context). Anything else: the parser's error, or `SIGNER_MISMATCH`.
   */
  async signContainerHeader(identity: IdentityHandle | string, header: Uint8Array): Promise<ContainerHeaderSignature> {
    return this.run({ type: 'keystore/sign-container-header', identity: identityId(identity), header: bytes('header', header) });
  }

  /**
   * X25519 with a peer's public key, then HKDF-SHA256(salt empty, `info`):
   * a non-extractable AES-256-GCM key. Put both parties' public keys in `info`.
   */
  async deriveSharedKey(identity: IdentityHandle | string, peerPublicKey: Uint8Array, info: Uint8Array): Promise<CryptoKey> {
    return this.run({
      type: 'keystore/derive-shared-key', identity: identityId(identity),
      peerPublicKey: bytes('peerPublicKey', peerPublicKey), info: bytes('info', info),
    });
  }

  /** Decapsulates an ML-KEM-768 or X-Wing ciphertext sent to the identity: a non-extractable key (see {@link DecapsulateOptions}). */
  async decapsulate(identity: IdentityHandle | string, kem: 'ml-kem-768' | 'x-wing', ciphertext: Uint8Array, options: DecapsulateOptions & { port: MessagePort }): Promise<undefined>;
  async decapsulate(identity: IdentityHandle | string, kem: 'ml-kem-768' | 'x-wing', ciphertext: Uint8Array, options?: DecapsulateOptions): Promise<CryptoKey>;
  async decapsulate(identity: IdentityHandle | string, kem: 'ml-kem-768' | 'x-wing', ciphertext: Uint8Array, options: DecapsulateOptions = {}): Promise<CryptoKey | undefined> {
    const port = options.port;
    if (port !== undefined && !(port instanceof MessagePort)) throw new TypeError('port must be a MessagePort');
    const r = await this.run({
      type: 'keystore/decapsulate', identity: identityId(identity), kem, ciphertext: bytes('ciphertext', ciphertext),
      info: options.info === undefined ? new Uint8Array(0) : bytes('info', options.info), output: options.output ?? 'aes-gcm',
      ...(port ? { port } : {}),
    }, port ? [port] : undefined);
    return r === true ? undefined : r;
  }

  /**
   * Opens a sealed box (ts/sealed.ts `open`, docs/SEALED.md) with the identity's X-Wing key, in the
   * keystore's worker: only the plaintext comes back. Any modified byte, a wrong identity, `info` or
   * `aad`: `AUTHENTICATION_FAILED`.
   */
  async openSealed(identity: IdentityHandle | string, sealed: Uint8Array, opts?: { info?: Uint8Array; aad?: Uint8Array }): Promise<Uint8Array> {
    const o = options(opts, false);
    return this.run({
      type: 'keystore/open-sealed', identity: identityId(identity), sealed: bytes('sealed', sealed),
      info: o.info === undefined ? new Uint8Array(0) : bytes('info', o.info), aad: o.aad === undefined ? new Uint8Array(0) : bytes('aad', o.aad),
    });
  }

  /** HPKE single-shot receive-export (ts/sealed.ts `openExport`) with the identity's X-Wing key, in the keystore's worker. */
  async openSealedExport(
    identity: IdentityHandle | string, enc: Uint8Array, opts: { info?: Uint8Array; exporterContext?: Uint8Array; length: number },
  ): Promise<Uint8Array> {
    const o = options(opts, true);
    return this.run({
      type: 'keystore/open-sealed-export', identity: identityId(identity), enc: bytes('enc', enc),
      info: o.info === undefined ? new Uint8Array(0) : bytes('info', o.info),
      exporterContext: o.exporterContext === undefined ? new Uint8Array(0) : bytes('exporterContext', o.exporterContext),
      length: integer('length', o.length, 1, 8160),
    });
  }

  /**
   * Prekeys for sessions (docs/KEYSTORE.md#sessions-and-prekeys): the identity's signed bundle for this device —
   * current signed X25519 and last-resort ML-KEM-768 prekeys, made (or rotated, when due) as needed — and
   * `oneTime` new one-time bundles, each a full bundle with its own one-time X25519 and ML-KEM-768 prekey.
   * Publish them; every one-time bundle must be handed out once. The identity needs ML-DSA-65
   * (`PQ_IDENTITY_REQUIRED`); `KEYSTORE_LOCKED` while locked.
   */
  async createPrekeyBundle(identity: IdentityHandle | string, options_?: CreatePrekeyBundleOptions): Promise<PrekeyBundles> {
    const o = options(options_, false);
    const oneTime = o.oneTime === undefined ? 0 : integer('oneTime', o.oneTime, 0, MAX_ONE_TIME_PREKEYS_PER_CALL);
    return this.run({ type: 'keystore/create-prekey-bundle', identity: identityId(identity), oneTime });
  }

  /**
   * More one-time bundles (key ids never repeat), rotating the signed and last-resort prekeys when due
   * (`rotate: true`: now) and deleting expired one-time and long-replaced prekeys. Same result as
   * {@link Keystore.createPrekeyBundle}.
   */
  async replenishPrekeys(identity: IdentityHandle | string, options_: ReplenishPrekeysOptions): Promise<PrekeyBundles> {
    const o = options(options_, true);
    const oneTime = integer('oneTime', o.oneTime, 0, MAX_ONE_TIME_PREKEYS_PER_CALL);
    if (o.rotate !== undefined && typeof o.rotate !== 'boolean') throw new TypeError('rotate must be a boolean');
    return this.run({ type: 'keystore/replenish-prekeys', identity: identityId(identity), oneTime, rotate: o.rotate === true });
  }

  /**
   * MLS key packages of `identity` for groups (docs/GROUPS.md#key-packages): `count` (1–100, default 1) new key
   * packages of `suite` (default X-Wing, 0x004D); their private parts stay sealed in this keystore with the
   * identity's MLS client, and a join consumes its key package in the same write that stores the group. Publish
   * them to the delivery service; each is used once. `lastResort: true` makes key packages that survive a join
   * (publish one, for when the one-time ones run out). The credential is certified by the identity's Ed25519
   * key; the identity needs ML-DSA-65 (`PQ_IDENTITY_REQUIRED`).
   */
  async createKeyPackages(identity: IdentityHandle | string, options_?: CreateKeyPackagesOptions): Promise<Uint8Array[]> {
    const o = options(options_, false);
    const count = o.count === undefined ? 1 : integer('count', o.count, 1, 100);
    if (o.lastResort !== undefined && typeof o.lastResort !== 'boolean') throw new TypeError('lastResort must be a boolean');
    const suite = o.suite === undefined ? GROUP_SUITES.xwing : o.suite;
    if (suite !== GROUP_SUITES.xwing && suite !== GROUP_SUITES.classical) throw new VeilError('UNSUPPORTED_CIPHER_SUITE', `unsupported MLS ciphersuite ${String(suite)}`);
    return this.run({ type: 'keystore/group-key-packages', identity: identityId(identity), suite, count, lastResort: o.lastResort === true });
  }

  /**
   * The encrypted message history of `conversation` (the app's name for it, 1 to 1,024 characters; never
   * stored in the clear): append-only entries sealed in the keystore's worker under a key that locks with the
   * passphrase (docs/KEYSTORE.md#message-history). `useChat` keeps its messages here by default.
   */
  history(conversation: string): ConversationHistory {
    if (this.closed) throw disposedError('this Keystore');
    return new ConversationHistory((body, transfer) => this.run(body, transfer), conversation);
  }

  /** Deletes every conversation's history and the history key itself (a new one is made on next use). Needs the store unlocked. */
  async deleteAllHistory(): Promise<true> {
    return this.run({ type: 'keystore/history-delete-all' });
  }

  /**
   * Calls `listener` after every change committed by any tab (or worker) of this origin — in
   * isolated-origin mode, of the keystore origin as embedded by this site; returns the unsubscribe function.
   */
  onChange(listener: (change: KeystoreChange) => void): () => void {
    if (this.closed) throw disposedError('this Keystore');
    if (typeof listener !== 'function') throw new TypeError('listener must be a function');
    if (this.transport.subscribe) {
      this.unsubscribe ??= this.transport.subscribe((change) => this.listeners.emit(change));
    } else if (!this.channel && typeof BroadcastChannel === 'function') {
      this.channel = new BroadcastChannel(`veilkit-keystore:${this.name}`);
      this.channel.onmessage = (e: MessageEvent) => {
        const change = e.data as KeystoreChange;
        if (change?.name === this.name) this.listeners.emit(change);
      };
    }
    return this.listeners.add(listener);
  }

  /**
   * Stops listening and, when the keystore owns its pool, terminates its worker (which forgets any
   * unlocked key); in isolated-origin mode, closes the channel and removes the keystore frame.
   * Idempotent; every other method afterwards throws or rejects with `VeilError('INVALID_STATE')`.
   */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.channel?.close();
    this.channel = undefined;
    this.unsubscribe?.();
    this.transport.close();
  }

  /** Same as {@link Keystore.dispose} (`using ks = await Keystore.open(…)`). */
  [disposeSymbol](): void {
    this.dispose();
  }

  /** @deprecated Use {@link Keystore.dispose} (or `using`); the same call. */
  close(): void {
    this.dispose();
  }
}
