/**
 * One ref-counted worker pool + keystore (+ the page's `init()`) per provider configuration,
 * framework-free. `acquire` is called from a provider's effect, never during render; the last
 * `release` disposes both after a zero-delay timer, so React StrictMode's mount → unmount → mount
 * (all in one commit) reuses the same pool instead of creating a second one or leaking the first.
 */
import { runtime } from './runtime.js';
import type { Capabilities } from '../webcrypto/routes.js';
import type { InitOptions } from '../init.js';
import type { PoolOptions, WorkerPool } from '../pool.js';
import type { Keystore, KeystoreOptions } from '../keystore.js';

/** What a provider configuration resolves to. */
export interface VeilResources {
  readonly capabilities: Capabilities;
  /** The shared pool of the file hooks. */
  readonly pool: WorkerPool;
  /** The keystore (its own private one-worker pool), when the provider names one. */
  readonly keystore: Keystore | undefined;
}

export interface VeilConfig {
  readonly keystore: KeystoreOptions | undefined;
  readonly pool: PoolOptions;
  readonly init: InitOptions;
}

/** A held reference: `ready` settles once; `release` is idempotent. */
export interface Lease {
  readonly ready: Promise<VeilResources>;
  release(): void;
}

interface Entry {
  refs: number;
  readonly ready: Promise<VeilResources>;
  readonly dispose: () => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const entries = new Map<string, Entry>();
const identities = new WeakMap<object, number>();
let nextIdentity = 1;

function identityOf(o: object): string {
  let n = identities.get(o);
  if (n === undefined) {
    n = nextIdentity++;
    identities.set(o, n);
  }
  return `#${n}`;
}

/** A key equal for equal configurations: plain data by value, URLs by href, functions and other objects by identity. */
export function configKey(config: VeilConfig): string {
  return JSON.stringify(config, function (this: unknown, _k: string, v: unknown): unknown {
    if (typeof v === 'function') return identityOf(v);
    if (v instanceof URL) return v.href;
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) !== Object.prototype) return identityOf(v);
    return v;
  });
}

function create(config: VeilConfig): Entry {
  const pool = runtime.createPool(config.pool);
  const keystore = config.keystore === undefined ? undefined : runtime.openKeystore(config.keystore);
  const ready = Promise.all([runtime.start(config.init), keystore]).then(([capabilities, ks]) => ({ capabilities, pool, keystore: ks }));
  ready.catch(() => {}); // observed by the leases; never an unhandled rejection here
  return {
    refs: 0,
    ready,
    timer: undefined,
    dispose: () => {
      pool.dispose();
      keystore?.then((ks) => ks.dispose(), () => {});
    },
  };
}

/** Takes a reference to the resources of `config`, creating them on first use. */
export function acquire(config: VeilConfig): Lease {
  const key = configKey(config);
  let entry = entries.get(key);
  if (entry === undefined) {
    entry = create(config);
    entries.set(key, entry);
  }
  const e = entry;
  if (e.timer !== undefined) {
    clearTimeout(e.timer);
    e.timer = undefined;
  }
  e.refs++;
  let released = false;
  return {
    ready: e.ready,
    release: () => {
      if (released) return;
      released = true;
      e.refs--;
      if (e.refs > 0) return;
      e.timer = setTimeout(() => {
        e.timer = undefined;
        if (e.refs > 0 || entries.get(key) !== e) return;
        entries.delete(key);
        e.dispose();
      }, 0);
    },
  };
}

/** Live configurations (tests). */
export function liveResources(): number {
  return entries.size;
}
