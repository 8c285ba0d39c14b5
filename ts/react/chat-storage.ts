/**
 * Where `useChat` keeps a conversation across reloads: the session id (the session state itself
 * stays in the keystore, `Session.load` by id) and the app's own decrypted messages. Default:
 * IndexedDB database `veilkit-chat:<keystore name>`, object store `conversations`, one record per
 * `<identity id>/<conversation id>`. The messages are plaintext there (as in any chat app's local
 * history): pass another {@link ChatStorage} to `<VeilProvider chatStorage>` to keep them elsewhere,
 * or {@link memoryChatStorage} to keep nothing across reloads. Nothing runs at import time.
 */

/** One chat message as `useChat` shows it. */
export interface ChatMessage {
  /** Random id (unique within the conversation). */
  readonly id: string;
  readonly from: 'me' | 'peer';
  readonly text: string;
  /** Milliseconds since the epoch (this device's clock when sent or received). */
  readonly at: number;
}

/** What is stored per conversation. */
export interface ChatRecord {
  /** The keystore session of the conversation, once established. */
  readonly sessionId: string | undefined;
  readonly messages: readonly ChatMessage[];
}

/** A place for chat records (keys are `<identity id>/<conversation id>`). */
export interface ChatStorage {
  load(store: string, key: string): Promise<ChatRecord | undefined>;
  save(store: string, key: string, record: ChatRecord): Promise<void>;
  delete(store: string, key: string): Promise<void>;
}

/** Records in this page's memory only (gone on reload). */
export function memoryChatStorage(): ChatStorage {
  const m = new Map<string, ChatRecord>();
  const k = (store: string, key: string) => `${store}\u0000${key}`;
  return {
    load: async (store, key) => m.get(k(store, key)),
    save: async (store, key, record) => {
      m.set(k(store, key), record);
    },
    delete: async (store, key) => {
      m.delete(k(store, key));
    },
  };
}

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

/** Records in IndexedDB (database `veilkit-chat:<store>`, object store `conversations`). */
export function indexedDbChatStorage(): ChatStorage {
  const dbs = new Map<string, Promise<IDBDatabase>>();
  const open = (store: string): Promise<IDBDatabase> => {
    let p = dbs.get(store);
    if (p === undefined) {
      const r = indexedDB.open(`veilkit-chat:${store}`, 1);
      r.onupgradeneeded = () => r.result.createObjectStore('conversations');
      p = request(r);
      dbs.set(store, p);
      p.catch(() => dbs.delete(store));
    }
    return p;
  };
  const tx = async <T>(store: string, mode: IDBTransactionMode, f: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
    const db = await open(store);
    const t = db.transaction('conversations', mode);
    const result = request(f(t.objectStore('conversations')));
    await new Promise<void>((resolve, reject) => {
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error ?? new Error('IndexedDB transaction failed'));
      t.onabort = () => reject(t.error ?? new Error('IndexedDB transaction aborted'));
    });
    return result;
  };
  return {
    load: async (store, key) => {
      const v = (await tx(store, 'readonly', (s) => s.get(key) as IDBRequest<unknown>));
      return isRecord(v) ? v : undefined;
    },
    save: async (store, key, record) => {
      await tx(store, 'readwrite', (s) => s.put({ sessionId: record.sessionId, messages: record.messages.map((m) => ({ ...m })) }, key));
    },
    delete: async (store, key) => {
      await tx(store, 'readwrite', (s) => s.delete(key));
    },
  };
}

function isRecord(v: unknown): v is ChatRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as { sessionId?: unknown; messages?: unknown };
  return (r.sessionId === undefined || typeof r.sessionId === 'string') && Array.isArray(r.messages);
}

/** The default: IndexedDB where it exists (read when first used, never at import), else memory. */
export function defaultChatStorage(): ChatStorage {
  let chosen: ChatStorage | undefined;
  const pick = (): ChatStorage => (chosen ??= typeof indexedDB === 'object' && indexedDB !== null ? indexedDbChatStorage() : memoryChatStorage());
  return {
    load: (store, key) => pick().load(store, key),
    save: (store, key, record) => pick().save(store, key, record),
    delete: (store, key) => pick().delete(store, key),
  };
}
