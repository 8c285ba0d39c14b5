/**
 * Per-worker state: each open store (its database, device key and
 * BroadcastChannel) and the session that may use its records.
 */
import type { KeystoreChange } from '../../protocol/keystore.protocol.js';
import { checkName } from '../../protocol/args.js';
import { STORE_FORMAT, SCHEMA_VERSION, checkFormat, locked, openKeystoreDb, read, storageError, withLock } from './db.js';
import { abort, done, request } from './idb.js';
import { subtle } from '../../ts/webcrypto/subtle.js';
import type { DeviceRecord, StateRecord } from './records.js';
import { heard } from './heads.js';
import { dropStore } from './kept.js';

// ---------------------------------------------------------------------------
// Per-worker state

/** What this worker holds while the store is usable. Dropped on lock, on a stale generation or epoch. */
export interface Session {
  readonly generation: number;
  readonly lockEpoch: number;
  /** S (passphrase) or the device key: wraps every secret record. */
  readonly key: CryptoKey;
  readonly passphrase: boolean;
  /** Native-route (WebCrypto) private keys imported from their seeds, by record id. */
  readonly native: Map<string, CryptoKey>;
}

export interface Store {
  readonly name: string;
  readonly db: IDBDatabase;
  readonly deviceKey: CryptoKey;
  session: Session | undefined;
  readonly channel: BroadcastChannel | undefined;
}

const stores = new Map<string, Promise<Store>>();

function channelName(name: string): string {
  return `veilkit-keystore:${name}`;
}

function getStore(name: string): Promise<Store> {
  let p = stores.get(name);
  if (!p) {
    p = openStore(name);
    stores.set(name, p);
    p.catch(() => {
      if (stores.get(name) === p) stores.delete(name);
    });
  }
  return p;
}

async function openStore(name: string): Promise<Store> {
  const forget = () => {
    const cur = stores.get(name);
    stores.delete(name);
    dropStore(name);
    void cur?.then((s) => {
      s.session = undefined;
      s.channel?.close();
    }, () => {});
  };
  const db = await openKeystoreDb(name, SCHEMA_VERSION, forget);
  try {
    let device = (await read(db, 'meta', 'device')) as DeviceRecord | undefined;
    let created = false;
    if (!device) {
      device = await withLock(name, async () => {
        const again = (await read(db, 'meta', 'device')) as DeviceRecord | undefined;
        if (again) return again;
        const deviceKey = await subtle().generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
        const record: DeviceRecord = { key: 'device', deviceKey, createdAt: Date.now() };
        const tx = db.transaction('meta', 'readwrite');
        const finished = done(tx);
        finished.catch(() => {});
        try {
          const meta = tx.objectStore('meta');
          await request(meta.put(record));
          await request(meta.put({ key: 'state', format: STORE_FORMAT, revision: 1, generation: 0, lockEpoch: 0 } satisfies StateRecord));
          await finished;
        } catch (e) {
          abort(tx);
          throw storageError(e);
        }
        created = true;
        return record;
      });
    }
    const state = (await read(db, 'meta', 'state')) as StateRecord | undefined;
    checkFormat(state);
    const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName(name)) : undefined;
    const store: Store = { name, db, deviceKey: device.deviceKey, session: undefined, channel };
    if (channel) {
      channel.onmessage = (e: MessageEvent) => {
        const m = e.data as KeystoreChange | null;
        if (m?.change === 'locked' || m?.change === 'passphrase-changed') {
          store.session = undefined;
          dropStore(name);
        }
        heard(store, m);
      };
    }
    if (created) announce(store, { change: 'created', revision: 1, ids: [] });
    return store;
  } catch (e) {
    db.close();
    throw storageError(e);
  }
}

export function announce(s: Store, c: Omit<KeystoreChange, 'name'>): void {
  s.channel?.postMessage({ name: s.name, ...c } satisfies KeystoreChange);
}

export async function readState(s: Store): Promise<StateRecord> {
  return checkFormat((await read(s.db, 'meta', 'state')) as StateRecord | undefined);
}

/**
 * The session that may use the records of `state`, or `KEYSTORE_LOCKED`.
 * Without a passphrase it is made on demand with the device key; with one it
 * exists only after `unlock` and only for the generation and lock epoch it
 * unlocked (a stale one is dropped here).
 */
export function sessionFor(s: Store, state: StateRecord): Session {
  const cur = s.session;
  if (!state.lock) {
    if (cur && !cur.passphrase && cur.generation === state.generation) return cur;
    s.session = { generation: state.generation, lockEpoch: state.lockEpoch, key: s.deviceKey, passphrase: false, native: new Map() };
    return s.session;
  }
  if (cur && cur.passphrase && cur.generation === state.generation && cur.lockEpoch === state.lockEpoch) return cur;
  s.session = undefined;
  throw locked();
}

export const open = (req: { name: string }) => getStore(checkName(req.name));
