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

/** The peer a conversation is bound to (trust on first use, docs/REACT.md#peer-identity). */
export interface ChatPeerBinding {
  /** Hex of the peer's session identity id, SHA-256("veilkit-session-identity-v1" ‖ `Enc(ID)`) (docs/SESSIONS.md §2.1). */
  readonly identityId: string;
  /** Whether the user confirmed the verification code with this peer (`markVerified`). */
  readonly verified: boolean;
}

/** An initial frame from another identity, held until the app accepts or rejects it. */
export interface ChatPendingIdentityChange {
  /** The keystore session its initial frame made. */
  readonly sessionId: string;
  /** Its messages so far (the first one's text included), not shown until accepted. */
  readonly held: readonly ChatMessage[];
}

/**
 * What is stored per conversation. Every field is JSON-friendly (strings, numbers, booleans, arrays),
 * so a custom {@link ChatStorage} may serialize it as JSON. The optional fields are absent in records
 * written before the peer binding existed: such a record binds to the peer of its stored session when loaded.
 */
export interface ChatRecord {
  /** The keystore session of the conversation (the one `send` uses), once established. */
  readonly sessionId: string | undefined;
  readonly messages: readonly ChatMessage[];
  /** The peer the conversation is bound to, once a session existed. */
  readonly peer?: ChatPeerBinding | undefined;
  /** Older sessions with the same peer, newest first (at most `CHAT_ARCHIVED_SESSIONS`), tried on decrypt. */
  readonly archived?: readonly string[] | undefined;
  /** False while the current session is one we initiated that the peer has not answered and no crossing initiation was resolved for (default true). */
  readonly confirmed?: boolean | undefined;
  /** An initial frame from another identity, waiting for `acceptIdentityChange` / `rejectIdentityChange`. */
  readonly identityChange?: ChatPendingIdentityChange | undefined;
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
      await tx(store, 'readwrite', (s) => s.put(plainRecord(record), key));
    },
    delete: async (store, key) => {
      await tx(store, 'readwrite', (s) => s.delete(key));
    },
  };
}

/** A structured-clone-safe copy of `record` (no frozen or foreign objects; absent fields left out). */
function plainRecord(record: ChatRecord): Record<string, unknown> {
  const messages = (m: readonly ChatMessage[]) => m.map((x) => ({ ...x }));
  return {
    sessionId: record.sessionId,
    messages: messages(record.messages),
    ...(record.peer === undefined ? {} : { peer: { identityId: record.peer.identityId, verified: record.peer.verified } }),
    ...(record.archived === undefined ? {} : { archived: [...record.archived] }),
    ...(record.confirmed === undefined ? {} : { confirmed: record.confirmed }),
    ...(record.identityChange === undefined ? {} : { identityChange: { sessionId: record.identityChange.sessionId, held: messages(record.identityChange.held) } }),
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
