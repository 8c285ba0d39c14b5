/**
 * Where `useChat` keeps a conversation across reloads: the session id (the session state itself
 * stays in the keystore, `Session.load` by id), the peer binding and the messages. Default
 * ({@link keystoreChatStorage}): the keystore's encrypted message history
 * (`keystore.history('<identity id>/<conversation id>')`, docs/KEYSTORE.md#message-history): one
 * sealed record per message, the rest of the record sealed as the conversation's metadata, all
 * locked with the keystore's passphrase. {@link memoryChatStorage} keeps nothing across reloads;
 * {@link unsafePlaintextIndexedDbChatStorage} is the explicit opt-in to the old plaintext database.
 * Nothing runs at import time.
 */
import type { Keystore } from '../keystore.js';

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

/** What `useChat` passes to every {@link ChatStorage} call besides the store name and key: the keystore itself. */
export interface ChatStorageContext {
  readonly keystore: Keystore;
}

/**
 * A place for chat records (keys are `<identity id>/<conversation id>`; `store` is the keystore's name).
 * `save` is called with the whole record after every change; a storage may write only what changed
 * (the default appends the messages it has not stored yet).
 */
export interface ChatStorage {
  load(store: string, key: string, context?: ChatStorageContext): Promise<ChatRecord | undefined>;
  save(store: string, key: string, record: ChatRecord, context?: ChatStorageContext): Promise<void>;
  delete(store: string, key: string, context?: ChatStorageContext): Promise<void>;
}

/** How many of a conversation's latest messages `useChat` loads ({@link keystoreChatStorage}); older ones stay in `keystore.history(key)` (`before(seq, n)`). */
export const CHAT_HISTORY_LOADED = 500;

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

/**
 * **Plaintext** records in IndexedDB (database `veilkit-chat:<store>`, object store `conversations`, one
 * record per conversation rewritten whole on every change): readable by any script of the origin, any
 * extension with storage access and anyone with the disk, and not covered by the keystore's passphrase.
 * An explicit opt-in (`<VeilProvider chatStorage={unsafePlaintextIndexedDbChatStorage()}>`); the default is
 * {@link keystoreChatStorage}, which migrates such a database's records into the encrypted history.
 */
export function unsafePlaintextIndexedDbChatStorage(): ChatStorage {
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

const textDecoder = new TextDecoder('utf-8', { fatal: false });
const textEncoder = new TextEncoder();

/** A stored message, if it has the right shape (decrypted bytes are the app's own, but checked all the same). */
function messageOf(data: Uint8Array): ChatMessage | undefined {
  let v: unknown;
  try {
    v = JSON.parse(textDecoder.decode(data));
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const m = v as Partial<Record<keyof ChatMessage, unknown>>;
  if (typeof m.id !== 'string' || (m.from !== 'me' && m.from !== 'peer') || typeof m.text !== 'string' || typeof m.at !== 'number') return undefined;
  return Object.freeze({ id: m.id, from: m.from, text: m.text, at: m.at });
}

function encodeMessage(m: ChatMessage): Uint8Array {
  return textEncoder.encode(JSON.stringify({ id: m.id, from: m.from, text: m.text, at: m.at }));
}

/** The record without its messages (the conversation's sealed metadata). */
function encodeMeta(record: ChatRecord): Uint8Array {
  const rest = plainRecord(record);
  delete rest.messages;
  return textEncoder.encode(JSON.stringify(rest));
}

function keystoreOf(context: ChatStorageContext | undefined): Keystore {
  const ks = context?.keystore;
  if (ks === undefined) throw new TypeError('keystoreChatStorage needs the keystore: it is called by useChat, which passes it');
  return ks;
}

/**
 * Moves a conversation of the plaintext database `veilkit-chat:<store>` (what `useChat` wrote before the
 * encrypted history) into `history`, then deletes its plaintext record, and the database once it is empty.
 * Runs only when the database exists (`indexedDB.databases()`; where that is missing, nothing is migrated).
 */
async function migratePlaintext(store: string, key: string, history: ReturnType<Keystore['history']>): Promise<void> {
  if (typeof indexedDB !== 'object' || indexedDB === null || typeof indexedDB.databases !== 'function') return;
  const name = `veilkit-chat:${store}`;
  if (!(await indexedDB.databases()).some((d) => d.name === name)) return;
  const db = await request(indexedDB.open(name, 1));
  try {
    if (!db.objectStoreNames.contains('conversations')) return;
    const old = await request(db.transaction('conversations').objectStore('conversations').get(key) as IDBRequest<unknown>);
    if (isRecord(old) && (await history.meta()) === undefined) {
      const all = old.messages.filter((m): m is ChatMessage => messageOf(encodeMessage(m)) !== undefined);
      for (let i = 0; i < all.length || i === 0; i += 1000) {
        const chunk = all.slice(i, i + 1000).map(encodeMessage);
        await history.append(chunk, i + 1000 >= all.length ? { meta: encodeMeta(old) } : {});
      }
    }
    const t = db.transaction('conversations', 'readwrite');
    const os = t.objectStore('conversations');
    os.delete(key);
    const left = await request(os.count());
    await new Promise<void>((resolve, reject) => {
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error ?? new Error('IndexedDB transaction failed'));
      t.onabort = () => reject(t.error ?? new Error('IndexedDB transaction aborted'));
    });
    if (left > 0) return;
  } finally {
    db.close();
  }
  await new Promise<void>((resolve) => {
    const r = indexedDB.deleteDatabase(name);
    r.onsuccess = r.onerror = r.onblocked = () => resolve();
  });
}

/**
 * The default: the keystore's encrypted message history (docs/KEYSTORE.md#message-history), key
 * `<identity id>/<conversation id>` as the conversation name. Each message is its own sealed record,
 * appended once (by object identity: a message this storage loaded or stored is not written again);
 * the other fields of the record are the conversation's sealed metadata, replaced in the same
 * transaction. `load` reads the latest {@link CHAT_HISTORY_LOADED} messages. A locked keystore fails
 * with `KEYSTORE_LOCKED`. A conversation still in the plaintext database of an earlier veilkit
 * (`veilkit-chat:<store>`) is moved here on its first load and deleted there.
 */
export function keystoreChatStorage(): ChatStorage {
  const stored = new WeakSet<ChatMessage>();
  return {
    load: async (store, key, context) => {
      const history = keystoreOf(context).history(key);
      await migratePlaintext(store, key, history);
      const meta = await history.meta();
      if (meta === undefined) return undefined;
      let rest: unknown;
      try {
        rest = JSON.parse(textDecoder.decode(meta));
      } catch {
        rest = undefined;
      }
      const messages: ChatMessage[] = [];
      for (const e of await history.latest(CHAT_HISTORY_LOADED)) {
        const m = messageOf(e.data);
        if (m === undefined) continue;
        stored.add(m);
        messages.push(m);
      }
      const r: unknown = { ...(typeof rest === 'object' && rest !== null ? rest : {}), messages };
      return isRecord(r) ? r : { sessionId: undefined, messages };
    },
    save: async (_store, key, record, context) => {
      const history = keystoreOf(context).history(key);
      // The messages not stored yet are at the end (useChat only appends).
      let i = record.messages.length;
      for (;;) {
        const m = record.messages[i - 1];
        if (m === undefined || stored.has(m)) break;
        i--;
      }
      const added = record.messages.slice(i);
      const meta = encodeMeta(record);
      for (let j = 0; j < added.length || j === 0; j += 1000) {
        const chunk = added.slice(j, j + 1000);
        await history.append(chunk.map(encodeMessage), j + 1000 >= added.length ? { meta } : {});
        for (const m of chunk) stored.add(m);
      }
    },
    delete: async (_store, key, context) => {
      await keystoreOf(context).history(key).deleteConversation();
    },
  };
}

/** The default of `<VeilProvider chatStorage>`: {@link keystoreChatStorage}, made when first used (never at import). */
export function defaultChatStorage(): ChatStorage {
  let chosen: ChatStorage | undefined;
  const pick = (): ChatStorage => (chosen ??= keystoreChatStorage());
  return {
    load: (store, key, context) => pick().load(store, key, context),
    save: (store, key, record, context) => pick().save(store, key, record, context),
    delete: (store, key, context) => pick().delete(store, key, context),
  };
}
