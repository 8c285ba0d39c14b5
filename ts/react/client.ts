/**
 * What one `<VeilProvider>` holds, framework-free: the provider's state (`veil` store), the
 * identity state shared by every `useIdentity()` below it (`identity` store), and the actions.
 * `attach` (from the provider's effect) takes a lease on the configuration's pool and keystore;
 * `detach` gives it back. Every asynchronous result carries the attach generation it started in,
 * and a result from an older generation is dropped.
 */
import { acquire, type Lease, type VeilConfig, type VeilResources } from './resources.js';
import { createVeilStore, type VeilStatus, type VeilStore } from './store.js';
import { hookError } from './errors.js';
import { bundleToString } from '../bundle-string.js';
import type { ChatStorage } from './chat-storage.js';
import type { VeilDelivery } from './groups.js';
import { VeilError } from '../../protocol/errors.js';
import type { Capabilities } from '../webcrypto/routes.js';
import type { WorkerPool } from '../pool.js';
import type {
  CreatePrekeyBundleOptions, CurrentPassphraseOptions, ExportBackupOptions, ImportBackupOptions, IdentityHandle, Keystore, PrekeyBundles, PublicBundle, RestoreOptions,
} from '../keystore.js';

/** `useVeil()`: the provider's resources. */
export interface VeilState {
  readonly status: VeilStatus;
  readonly capabilities: Capabilities | undefined;
  readonly error: VeilError | undefined;
  readonly keystore: Keystore | undefined;
  readonly pool: WorkerPool | undefined;
}

/** The identity part of `useIdentity()`. */
export interface IdentityState {
  readonly status: VeilStatus;
  readonly error: VeilError | undefined;
  /** The current identity: the selected one, else the first in the keystore. */
  readonly identity: IdentityHandle | undefined;
  /** Its signed public bundle (send `bundle.bytes`). */
  readonly bundle: PublicBundle | undefined;
  /** Whether the keystore is passphrase-locked. */
  readonly locked: boolean;
  /** Every identity of the keystore, oldest first. */
  readonly identities: readonly IdentityHandle[];
  /**
   * The current identity's prekey bundle as text (`bundleToString`): give it to the peer, who passes
   * `bundleFromString(text)` as `useChat`'s `peer.bundle`. `undefined` while locked, without an
   * identity, or for an identity without ML-DSA-65 (sessions need it). Reusable (no one-time prekey).
   */
  readonly shareableBundle: string | undefined;
}

const VEIL_IDLE: VeilState = { status: 'idle', capabilities: undefined, error: undefined, keystore: undefined, pool: undefined };
const IDENTITY_IDLE: IdentityState = { status: 'idle', error: undefined, identity: undefined, bundle: undefined, locked: false, identities: [], shareableBundle: undefined };

/** Changes that concern sessions or groups only: no identity refresh (a group message would re-render every identity reader). */
const SESSION_CHANGES = new Set(['prekeys-changed', 'session-created', 'session-updated', 'session-deleted', 'group-client-updated']);

export class VeilClient {
  readonly veil: VeilStore<VeilState> = createVeilStore(VEIL_IDLE);
  readonly identity: VeilStore<IdentityState> = createVeilStore(IDENTITY_IDLE);
  readonly chatStorage: ChatStorage | undefined;
  #lease: Lease | undefined;
  #generation = 0;
  #refresh = 0;
  /** The newest refresh (what an overtaken one waits for). */
  #latest: Promise<void> | undefined;
  #selected: string | undefined;
  /** Reusable prekey bundles as text, per identity id (see `#shareable`). */
  readonly #shareableBundles = new Map<string, string>();
  #offChange: (() => void) | undefined;

  /** The provider's delivery service for the group hooks. */
  readonly delivery: VeilDelivery | undefined;

  constructor(chatStorage: ChatStorage | undefined, delivery?: VeilDelivery) {
    this.chatStorage = chatStorage;
    this.delivery = delivery;
  }

  /** Takes the resources of `config` (the provider's effect). */
  attach(config: VeilConfig): void {
    this.detach();
    const generation = ++this.#generation;
    const lease = acquire(config);
    this.#lease = lease;
    this.veil.set({ status: 'pending', error: undefined });
    lease.ready.then(
      (r) => {
        if (generation !== this.#generation) return;
        this.veil.set({ status: 'success', capabilities: r.capabilities, pool: r.pool, keystore: r.keystore, error: undefined });
        if (r.keystore !== undefined) this.#watch(r.keystore, generation);
      },
      (e: unknown) => {
        if (generation !== this.#generation) return;
        const error = hookError(e);
        this.veil.set({ status: 'error', error });
        this.identity.set({ status: 'error', error });
      },
    );
  }

  /** Gives the resources back (the provider's cleanup); the state returns to idle. */
  detach(): void {
    this.#generation++;
    this.#offChange?.();
    this.#offChange = undefined;
    this.#lease?.release();
    this.#lease = undefined;
    this.veil.reset();
    this.identity.reset();
  }

  /** The resources once the provider is ready (rejects with its error). */
  ready(): Promise<VeilResources> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const s = this.veil.getSnapshot();
        if (s.status === 'success' && s.pool !== undefined && s.capabilities !== undefined) {
          resolve({ pool: s.pool, keystore: s.keystore, capabilities: s.capabilities });
          return true;
        }
        if (s.status === 'error') {
          reject(s.error ?? new VeilError('INTERNAL', 'the provider did not start'));
          return true;
        }
        return false;
      };
      if (check()) return;
      const off = this.veil.subscribe(() => {
        if (check()) off();
      });
    });
  }

  /** The keystore once ready (rejects without one). */
  async keystore(): Promise<Keystore> {
    const { keystore } = await this.ready();
    if (keystore === undefined) throw new TypeError('no keystore: give <VeilProvider> a keystore="name" (or keystoreOptions)');
    return keystore;
  }

  #watch(ks: Keystore, generation: number): void {
    this.#offChange = ks.onChange((c) => {
      if (!SESSION_CHANGES.has(c.change)) void this.refresh();
    });
    if (generation === this.#generation) void this.refresh();
  }

  /**
   * Re-reads the identities, the current one's bundle and the lock state. Resolves once the state is
   * at least as new as the keystore was when it was called: a read overtaken by a newer one (a change
   * event arriving meanwhile) waits for that one, so an action's `await` sees its own result.
   */
  refresh(): Promise<void> {
    const p = this.#read(++this.#refresh);
    this.#latest = p;
    return p;
  }

  async #read(n: number): Promise<void> {
    const generation = this.#generation;
    const overtaken = () => generation !== this.#generation || n !== this.#refresh;
    // Overtaken by a newer read of the same generation: resolve with it (it resolves after its own newer ones).
    const stale = () => {
      if (!overtaken()) return false;
      if (generation === this.#generation) return this.#latest;
      return true;
    };
    if (this.identity.getSnapshot().status !== 'success') this.identity.set({ status: 'pending' });
    try {
      const ks = await this.keystore();
      const [identities, status] = await Promise.all([ks.listIdentities(), ks.status()]);
      const identity = identities.find((i) => i.id === this.#selected) ?? identities[0];
      const bundle = identity === undefined ? undefined : await ks.getPublicBundle(identity);
      const shareableBundle = identity === undefined || status.locked ? undefined : await this.#shareable(ks, identity);
      const s = stale();
      if (s !== false) {
        if (s !== true) await s;
        return;
      }
      this.identity.set({ status: 'success', error: undefined, identities: Object.freeze([...identities]), identity, bundle, locked: status.locked, shareableBundle });
    } catch (e) {
      const s = stale();
      if (s !== false) {
        if (s !== true) await s;
        return;
      }
      this.identity.set({ status: 'error', error: hookError(e) });
    }
  }

  /**
   * The identity's reusable prekey bundle as text, made once per identity (`createPrekeyBundle` with no
   * one-time prekeys; it rotates the signed prekey when due). `undefined` when it cannot be made
   * (no ML-DSA-65: `PQ_IDENTITY_REQUIRED`, or locked meanwhile): not an error of the identity state.
   */
  async #shareable(ks: Keystore, identity: IdentityHandle): Promise<string | undefined> {
    const known = this.#shareableBundles.get(identity.id);
    if (known !== undefined) return known;
    if (!identity.mlDsa) return undefined;
    try {
      const text = bundleToString((await ks.createPrekeyBundle(identity)).bundle);
      this.#shareableBundles.set(identity.id, text);
      return text;
    } catch {
      return undefined;
    }
  }

  /** Runs an identity action: its error is also the state's `error`; the state is re-read after it. */
  async #act<T>(f: (ks: Keystore, current: IdentityHandle | undefined) => Promise<T>, refresh = true): Promise<T> {
    try {
      const ks = await this.keystore();
      const r = await f(ks, this.identity.getSnapshot().identity);
      // A success clears the last failure (the re-read sets `error: undefined` too).
      if (refresh) await this.refresh();
      else this.identity.set({ error: undefined });
      return r;
    } catch (e) {
      this.identity.set({ error: hookError(e) });
      throw e;
    }
  }

  #current(current: IdentityHandle | undefined): IdentityHandle {
    if (current === undefined) throw new TypeError('no identity yet: create() or restoreFromPhrase() one first');
    return current;
  }

  create(options: { label?: string; mlDsa?: boolean } = {}): Promise<IdentityHandle> {
    return this.#act(async (ks) => {
      const h = await ks.createIdentity({ label: options.label ?? '', mlDsa: options.mlDsa ?? true });
      this.#selected = h.id;
      return h;
    });
  }

  restoreFromPhrase(phrase: string, options: RestoreOptions = {}): Promise<IdentityHandle> {
    return this.#act(async (ks) => {
      const h = await ks.restoreFromPhrase(phrase, { ...options, mlDsa: options.mlDsa ?? true });
      this.#selected = h.id;
      return h;
    });
  }

  exportRecoveryPhrase(): Promise<string> {
    return this.#act((ks, current) => ks.exportRecoveryPhrase(this.#current(current)), false);
  }

  lock(): Promise<void> {
    return this.#act(async (ks) => {
      await ks.lock();
    });
  }

  unlock(passphrase: string): Promise<void> {
    return this.#act(async (ks) => {
      await ks.unlock(passphrase);
    });
  }

  setPassphrase(passphrase: string | null, options?: CurrentPassphraseOptions): Promise<void> {
    return this.#act(async (ks) => {
      await ks.setPassphrase(passphrase, undefined, options);
    });
  }

  exportBackup(passphrase: string, options?: ExportBackupOptions): Promise<Uint8Array> {
    return this.#act((ks) => ks.exportBackup(passphrase, undefined, options), false);
  }

  importBackup(backup: Uint8Array, passphrase: string, options?: ImportBackupOptions): Promise<void> {
    return this.#act(async (ks) => {
      await ks.importBackup(backup, passphrase, options);
    });
  }

  createPrekeyBundle(options?: CreatePrekeyBundleOptions): Promise<PrekeyBundles> {
    return this.#act((ks, current) => ks.createPrekeyBundle(this.#current(current), options), false);
  }

  select(id: string): void {
    if (typeof id !== 'string') throw new TypeError('id must be an identity id');
    this.#selected = id;
    void this.refresh();
  }

  remove(options?: CurrentPassphraseOptions): Promise<void> {
    return this.#act(async (ks, current) => {
      const c = this.#current(current);
      await ks.deleteIdentity(c, options);
      if (this.#selected === c.id) this.#selected = undefined;
    });
  }
}
