/**
 * The encrypted message history (docs/KEYSTORE.md#message-history): append-only records in the
 * keystore's database, each entry sealed with AES-256-GCM under a per-conversation key derived from
 * the history key, which is a secret of the keystore (wrapped under the storage key like an
 * identity's seeds, so it locks with the passphrase and is re-wrapped by a passphrase change).
 *
 * - History key `H`: 32 random bytes, record `secrets` / `#history` (type `history`).
 * - Conversation tag `c = HMAC-SHA256(K_index, "veilkit-history-conversation-v1" ‖ 0x00 ‖ UTF-8(name))`,
 *   `K_index = HKDF-SHA256(H, salt ∅, info "veilkit-history-index-v1")`: names are never stored.
 * - Conversation key `K_c = HKDF-SHA256(H, salt = the conversation's random 32-byte salt,
 *   info "veilkit-history-key-v1" ‖ 0x00 ‖ c)`: deleting the conversation record deletes the salt.
 * - Entry record `{ c, s, v }` (store `history`, key path `[c, s]`):
 *   `v = iv(12) ‖ AES-256-GCM(K_c, u32be(len) ‖ data ‖ zeros to the bucket, AAD)`,
 *   `AAD = "veilkit-history-record-v1" ‖ 0x00 ‖ c(32) ‖ u8(kind) ‖ u64be(s)`.
 * - Conversation record `{ c, salt, next, meta? }` (store `conversations`, key path `c`).
 *
 * Keys live in this worker only (non-extractable `CryptoKey`s), cached per unlocked session: a lock,
 * a passphrase change or a stale generation drops them with the session. Every read and write
 * checks, in the transaction that touches the records, that the state's generation and lock epoch
 * are the session's and that `#history` is the record the keys came from.
 */
import { VeilError } from '../../protocol/errors.js';
import {
  MAX_BACKUP_HISTORY_BYTES, historyBucket, wipeBackupHistory, type BackupConversation, type BackupHistory,
} from '../../ts/keystore-format.js';
import { bytes, integer, string, untrusted, wipe } from '../../ts/validate.js';
import { bs, bytesToHex, concatBytes, hexToBytes } from '../../ts/bytes.js';
import { subtle } from '../../ts/webcrypto/subtle.js';
import type { HistoryAppendResult, HistoryEntry, HistoryRead } from '../../protocol/keystore.protocol.js';
import { checkFormat, commit, locked, storageError, withLock } from './db.js';
import { abort, done, eachCursor, request } from './idb.js';
import { seal, withSecret, type SecretRecord, type StateRecord } from './records.js';
import { readState, sessionFor, type Session, type Store } from './store.js';

const enc = new TextEncoder();

/** The record id and type of the history key in `secrets`. */
export const HISTORY_SECRET_ID = '#history';
export const HISTORY_SECRET_TYPE = 'history';

/** Record kinds bound into the AAD. */
export const HISTORY_KIND = Object.freeze({ entry: 1, meta: 2 } as const);

/** Limits of one request (docs/KEYSTORE.md#message-history). */
export const HISTORY_LIMITS = Object.freeze({
  /** UTF-16 code units of a conversation name. */
  name: 1024,
  /** Bytes of one entry or of the conversation's metadata. */
  entry: 1 << 20,
  /** Entries of one append. */
  append: 1000,
  /** Entries of one read. */
  read: 1000,
});

/** The padded plaintext size of `n` data bytes (one definition, shared with the backup's history section). */
export { historyBucket };

interface ConversationRecord {
  /** Lowercase hex of the 32-byte tag. */
  c: string;
  /** 32 random bytes: the HKDF salt of the conversation key. */
  salt: Uint8Array;
  /** The sequence number of the next entry (entries are 1 … next − 1, some maybe deleted). */
  next: number;
  /** Sealed metadata (kind 2, sequence 0), if set. */
  meta?: Uint8Array;
}

interface EntryRecord {
  c: string;
  s: number;
  v: Uint8Array;
}

interface HistoryKeys {
  readonly session: Session;
  /** The wrapped `#history` record the keys came from (compared in every transaction). */
  readonly wrapped: Uint8Array;
  readonly base: CryptoKey;
  readonly index: CryptoKey;
  readonly conversations: Map<string, CryptoKey>;
}

const keysBySession = new WeakMap<Session, Promise<HistoryKeys>>();

// ---------------------------------------------------------------------------
// Test hooks (never reached by a message: only test-only worker entries call these)

/** Records read by history reads in this worker (a test-only worker reports it: O(n) reads are counted, not timed). */
export const historyStats = { touched: 0 };

/** Runs between the records of an append, inside its transaction (test builds throw here to crash a batch half-way). */
export type HistoryHook = (tx: IDBTransaction, index: number) => void;
let historyHook: HistoryHook | undefined;

export function setHistoryHook(hook: HistoryHook | undefined): void {
  historyHook = hook;
}

// ---------------------------------------------------------------------------
// Keys

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function importRoot(session: Session, record: SecretRecord): Promise<HistoryKeys> {
  const base = await withSecret(session, record, (h) => subtle().importKey('raw', bs(h), { name: 'HKDF' }, false, ['deriveKey']));
  const index = await subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: bs(enc.encode('veilkit-history-index-v1')) }, base,
    { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['sign'],
  );
  return { session, wrapped: record.wrapped, base, index, conversations: new Map() };
}

/** Reads `#history` with the state; creates it (under the keystore's Web Lock, one commit) when absent. */
async function loadRoot(s: Store): Promise<HistoryKeys> {
  const readRoot = async (): Promise<{ state: StateRecord; record: SecretRecord | undefined }> => {
    try {
      const tx = s.db.transaction(['meta', 'secrets']);
      const [state, record] = await Promise.all([
        request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
        request(tx.objectStore('secrets').get(HISTORY_SECRET_ID)) as Promise<SecretRecord | undefined>,
      ]);
      return { state: checkFormat(state), record };
    } catch (e) {
      throw storageError(e);
    }
  };
  let { state, record } = await readRoot();
  let session = sessionFor(s, state);
  if (!record) {
    record = await withLock(s.name, async () => {
      const again = await readRoot();
      session = sessionFor(s, again.state);
      if (again.record) return again.record;
      const h = crypto.getRandomValues(new Uint8Array(32));
      let made: SecretRecord;
      try {
        made = { id: HISTORY_SECRET_ID, identityId: HISTORY_SECRET_ID, type: HISTORY_SECRET_TYPE, wrapped: await seal(session.key, HISTORY_SECRET_ID, HISTORY_SECRET_TYPE, session.generation, h) };
      } finally {
        wipe(h);
      }
      await commit(s, again.state.revision, async (tx) => {
        await request(tx.objectStore('secrets').add(made));
        return undefined;
      });
      return made;
    });
    state = await readState(s);
    session = sessionFor(s, state);
  }
  return importRoot(session, record);
}

async function historyKeys(s: Store): Promise<HistoryKeys> {
  const session = sessionFor(s, await readState(s));
  let p = keysBySession.get(session);
  if (!p) {
    p = loadRoot(s);
    keysBySession.set(session, p);
    p.catch(() => {
      if (keysBySession.get(session) === p) keysBySession.delete(session);
    });
  }
  const keys = await p;
  if (keys.session !== s.session) {
    keysBySession.delete(session);
    throw locked();
  }
  return keys;
}

async function tagOf(keys: HistoryKeys, name: string): Promise<Uint8Array> {
  const msg = concatBytes([enc.encode('veilkit-history-conversation-v1'), Uint8Array.of(0), enc.encode(name)]);
  return new Uint8Array(await subtle().sign({ name: 'HMAC' }, keys.index, bs(msg)));
}

function deriveConversationKey(base: CryptoKey, tag: Uint8Array, salt: Uint8Array): Promise<CryptoKey> {
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: bs(salt), info: bs(concatBytes([enc.encode('veilkit-history-key-v1'), Uint8Array.of(0), tag])) }, base,
    { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'],
  );
}

async function conversationKey(keys: HistoryKeys, tag: Uint8Array, salt: Uint8Array): Promise<CryptoKey> {
  const id = `${bytesToHex(tag)}/${bytesToHex(salt)}`;
  const cached = keys.conversations.get(id);
  if (cached) return cached;
  const key = await deriveConversationKey(keys.base, tag, salt);
  if (keys.conversations.size >= 256) keys.conversations.clear();
  keys.conversations.set(id, key);
  return key;
}

function aad(tag: Uint8Array, kind: number, seq: number): Uint8Array {
  const out = new Uint8Array(26 + 32 + 1 + 8);
  out.set(enc.encode('veilkit-history-record-v1'), 0);
  out[25] = 0;
  out.set(tag, 26);
  out[58] = kind;
  new DataView(out.buffer).setBigUint64(59, BigInt(seq));
  return out;
}

async function sealEntry(key: CryptoKey, tag: Uint8Array, kind: number, seq: number, data: Uint8Array): Promise<Uint8Array> {
  const padded = new Uint8Array(historyBucket(data.length));
  new DataView(padded.buffer).setUint32(0, data.length);
  padded.set(data, 4);
  try {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ct = await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: bs(aad(tag, kind, seq)) }, key, bs(padded));
    return concatBytes([iv, new Uint8Array(ct)]);
  } finally {
    wipe(padded);
  }
}

function damaged(seq: number, why: string): VeilError {
  return new VeilError('AUTHENTICATION_FAILED', `history record ${seq} ${why}`, { details: { index: seq } });
}

async function openEntry(key: CryptoKey, tag: Uint8Array, kind: number, seq: number, sealed: unknown): Promise<Uint8Array> {
  // Bytes from storage: any length but a sealed bucket's is damage, as is a failed tag.
  let v: Uint8Array;
  try {
    v = untrusted('history record', sealed, 12 + 64 + 16, 12 + (HISTORY_LIMITS.entry + 65536) + 16, 'AUTHENTICATION_FAILED');
  } catch {
    throw damaged(seq, 'is damaged (not a sealed record)');
  }
  let padded: Uint8Array;
  try {
    padded = new Uint8Array(await subtle().decrypt({ name: 'AES-GCM', iv: bs(v.subarray(0, 12)), additionalData: bs(aad(tag, kind, seq)) }, key, bs(v.subarray(12))));
  } catch {
    throw damaged(seq, 'could not be decrypted (modified, moved from another conversation or position, or under another history key)');
  }
  try {
    const n = new DataView(padded.buffer).getUint32(0);
    if (n + 4 > padded.length || historyBucket(n) !== padded.length) throw damaged(seq, 'has an invalid length');
    return padded.slice(4, 4 + n);
  } finally {
    wipe(padded);
  }
}

// ---------------------------------------------------------------------------
// Transactions

const STORES = ['meta', 'secrets', 'conversations', 'history'] as const;

/** Inside a history transaction: the state is still the keys' session's, and `#history` is still their record. */
async function checkCurrent(s: Store, tx: IDBTransaction, keys: HistoryKeys): Promise<void> {
  const [state, root] = await Promise.all([
    request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>,
    request(tx.objectStore('secrets').get(HISTORY_SECRET_ID)) as Promise<SecretRecord | undefined>,
  ]);
  const st = checkFormat(state);
  if (keys.session.generation !== st.generation || keys.session.lockEpoch !== st.lockEpoch || (st.lock !== undefined) !== keys.session.passphrase) {
    if (s.session === keys.session) s.session = undefined;
    throw locked();
  }
  if (!root || !(root.wrapped instanceof Uint8Array) || !sameBytes(root.wrapped, keys.wrapped)) {
    keysBySession.delete(keys.session);
    throw new VeilError('STORAGE_FAILED', 'the message history was deleted or replaced during the operation; nothing was changed');
  }
}

async function readTx<T>(s: Store, keys: HistoryKeys, fn: (tx: IDBTransaction) => Promise<T>): Promise<T> {
  let tx: IDBTransaction;
  try {
    tx = s.db.transaction([...STORES], 'readonly');
  } catch (e) {
    throw storageError(e);
  }
  try {
    await checkCurrent(s, tx, keys);
    return await fn(tx);
  } catch (e) {
    abort(tx);
    throw storageError(e);
  }
}

async function writeTx<T>(s: Store, keys: HistoryKeys, fn: (tx: IDBTransaction) => Promise<T>): Promise<T> {
  return commitTx(s, async (tx) => {
    await checkCurrent(s, tx, keys);
    return fn(tx);
  });
}

/** A strict readwrite transaction over the history's stores; `fn` checks what it relies on (a {@link PreparedAppend} does). */
async function commitTx<T>(s: Store, fn: (tx: IDBTransaction) => Promise<T>): Promise<T> {
  let tx: IDBTransaction;
  try {
    tx = s.db.transaction([...STORES], 'readwrite', { durability: 'strict' });
  } catch (e) {
    throw storageError(e);
  }
  const finished = done(tx);
  finished.catch(() => {});
  try {
    const out = await fn(tx);
    await finished;
    return out;
  } catch (e) {
    abort(tx);
    throw storageError(e);
  }
}

/** One writer per conversation across the origin's tabs and workers: sequence numbers are assigned and sealed before the commit. */
function conversationLock<T>(s: Store, hex: string, fn: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return Promise.reject(new VeilError('UNSUPPORTED_PLATFORM', 'Web Locks (navigator.locks) are required for history writes'));
  return locks.request(`veilkit-keystore:${s.name}:history:${hex}`, { mode: 'exclusive' }, fn);
}

function checkConversation(name: unknown): string {
  const n = string('conversation', name);
  if (n.length === 0 || n.length > HISTORY_LIMITS.name) throw new RangeError(`conversation must be 1 to ${HISTORY_LIMITS.name} characters, got ${n.length}`);
  return n;
}

export function checkData(name: string, value: unknown): Uint8Array {
  const b = bytes(name, value);
  if (b.length > HISTORY_LIMITS.entry) throw new RangeError(`${name} must be at most ${HISTORY_LIMITS.entry} bytes, got ${b.length}`);
  return b;
}

function validConversation(r: unknown, hex: string): ConversationRecord | undefined {
  if (r === undefined) return undefined;
  const x = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
  const { c, salt, next, meta } = x;
  if (c !== hex || !(salt instanceof Uint8Array) || salt.length !== 32 || typeof next !== 'number' || !Number.isSafeInteger(next) || next < 1
    || (meta !== undefined && !(meta instanceof Uint8Array))) {
    throw new VeilError('AUTHENTICATION_FAILED', 'the history conversation record is damaged');
  }
  return { c, salt, next, ...(meta === undefined ? {} : { meta }) };
}

// ---------------------------------------------------------------------------
// Requests

/** Sealed entries (and metadata) of one conversation, ready to be written by a transaction over {@link HISTORY_WRITE_STORES}. */
export interface PreparedAppend {
  /** The sequence numbers the entries get: `first` … `next − 1`. */
  readonly first: number;
  readonly next: number;
  /**
   * Inside a readwrite transaction over {@link HISTORY_WRITE_STORES} (and whatever else it writes): checks that the
   * keys are still current and the conversation unchanged since it was prepared, then adds the records. Only IDB
   * requests: safe to await inside another request's transaction.
   */
  write(tx: IDBTransaction): Promise<void>;
}

/** The stores a transaction that writes a {@link PreparedAppend} must cover. */
export const HISTORY_WRITE_STORES = STORES;

/** Seals entries of `name` for one write; under the conversation's lock (given by {@link withConversation}). */
export type PrepareAppend = (entries: readonly Uint8Array[], meta?: Uint8Array) => Promise<PreparedAppend>;

/**
 * Runs `fn` under the conversation's lock with a `prepare` that seals entries for a write the caller commits in its
 * own transaction: a group's `receive` stores the message and advances the group's state in one commit (exactly once).
 */
export async function withConversation<T>(s: Store, name: unknown, fn: (prepare: PrepareAppend) => Promise<T>): Promise<T> {
  const conv = checkConversation(name);
  const keys = await historyKeys(s);
  const tag = await tagOf(keys, conv);
  const hex = bytesToHex(tag);
  return conversationLock(s, hex, () => fn(async (data, metaBytes) => {
    for (const d of data) {
      if (d.length > HISTORY_LIMITS.entry) throw new VeilError('MALFORMED_INPUT', `a history entry is at most ${HISTORY_LIMITS.entry} bytes, got ${d.length}`);
    }
    if (metaBytes !== undefined && metaBytes.length > HISTORY_LIMITS.entry) throw new RangeError(`meta must be at most ${HISTORY_LIMITS.entry} bytes`);
    const before = await readTx(s, keys, async (tx) => validConversation(await request(tx.objectStore('conversations').get(hex)), hex));
    const salt = before?.salt ?? crypto.getRandomValues(new Uint8Array(32));
    const first = before?.next ?? 1;
    const key = await conversationKey(keys, tag, salt);
    const records: EntryRecord[] = [];
    for (const [i, d] of data.entries()) records.push({ c: hex, s: first + i, v: await sealEntry(key, tag, HISTORY_KIND.entry, first + i, d) });
    const sealedMeta = metaBytes === undefined ? before?.meta : await sealEntry(key, tag, HISTORY_KIND.meta, 0, metaBytes);
    const next = first + records.length;
    return {
      first, next,
      async write(tx: IDBTransaction): Promise<void> {
        await checkCurrent(s, tx, keys);
        const now = validConversation(await request(tx.objectStore('conversations').get(hex)), hex);
        if (now?.next !== before?.next || (now !== undefined && before !== undefined && !sameBytes(now.salt, before.salt))) {
          throw new VeilError('STORAGE_FAILED', 'the conversation changed during the append; nothing was changed');
        }
        const history = tx.objectStore('history');
        for (const [i, r] of records.entries()) {
          historyHook?.(tx, i);
          await request(history.add(r));
        }
        const record: ConversationRecord = { c: hex, salt, next, ...(sealedMeta === undefined ? {} : { meta: sealedMeta }) };
        await request(tx.objectStore('conversations').put(record));
      },
    };
  }));
}

/** `keystore/history-append`: seals `entries` as the next sequence numbers (and `meta`, if given) and commits them in one transaction. */
export async function append(s: Store, name: unknown, entries: unknown, meta: unknown): Promise<HistoryAppendResult> {
  const conv = checkConversation(name);
  if (!Array.isArray(entries)) throw new TypeError('entries must be an array of Uint8Array');
  if (entries.length > HISTORY_LIMITS.append) throw new RangeError(`at most ${HISTORY_LIMITS.append} entries per append, got ${entries.length}`);
  const data = entries.map((e, i) => checkData(`entries[${i}]`, e));
  const metaBytes = meta === undefined ? undefined : checkData('meta', meta);
  return withConversation(s, conv, async (prepare) => {
    const p = await prepare(data, metaBytes);
    // `write` checks the keys and the conversation in the transaction itself.
    await commitTx(s, (tx) => p.write(tx));
    return { first: p.first, next: p.next };
  });
}

/**
 * `keystore/history-read`: at most `limit` entries before sequence number `before` (all: the
 * latest), in ascending order, and the conversation's metadata. Reads `limit` records at most: a
 * key range on `[c, s]` walked backwards.
 */
export async function read(s: Store, name: unknown, before: unknown, limit: unknown): Promise<HistoryRead> {
  const conv = checkConversation(name);
  const n = integer('limit', limit, 0, HISTORY_LIMITS.read);
  const upper = before === undefined ? Number.MAX_SAFE_INTEGER : integer('before', before, 1, Number.MAX_SAFE_INTEGER);
  const keys = await historyKeys(s);
  const tag = await tagOf(keys, conv);
  const hex = bytesToHex(tag);
  const found = await readTx(s, keys, async (tx) => {
    const record = validConversation(await request(tx.objectStore('conversations').get(hex)), hex);
    const rows: EntryRecord[] = [];
    if (record === undefined || n === 0 || upper <= 1) return { record, rows };
    const cursor = tx.objectStore('history').openCursor(IDBKeyRange.bound([hex, 1], [hex, upper], false, true), 'prev');
    await new Promise<void>((resolve, reject) => {
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c) {
          resolve();
          return;
        }
        historyStats.touched++;
        rows.push(c.value as EntryRecord);
        if (rows.length >= n) resolve();
        else c.continue();
      };
      cursor.onerror = () => reject(cursor.error ?? new DOMException('cursor failed', 'UnknownError'));
    });
    return { record, rows };
  });
  if (found.record === undefined) return { entries: [], meta: null, next: 1 };
  const key = await conversationKey(keys, tag, found.record.salt);
  const entries: HistoryEntry[] = [];
  for (const r of found.rows.reverse()) {
    if (!Number.isSafeInteger(r.s)) throw damaged(-1, 'has no valid sequence number');
    entries.push({ seq: r.s, data: await openEntry(key, tag, HISTORY_KIND.entry, r.s, r.v) });
  }
  const meta = found.record.meta === undefined ? null : await openEntry(key, tag, HISTORY_KIND.meta, 0, found.record.meta);
  return { entries, meta, next: found.record.next };
}

/** `keystore/history-delete`: removes the entry `seq` (its record, bytes and all); whether it was there. */
export async function deleteEntry(s: Store, name: unknown, seq: unknown): Promise<boolean> {
  const conv = checkConversation(name);
  const n = integer('seq', seq, 1, Number.MAX_SAFE_INTEGER);
  const keys = await historyKeys(s);
  const hex = bytesToHex(await tagOf(keys, conv));
  return conversationLock(s, hex, () => writeTx(s, keys, async (tx) => {
    const store = tx.objectStore('history');
    const present = (await request(store.count([hex, n]))) > 0;
    if (present) await request(store.delete([hex, n]));
    return present;
  }));
}

/** `keystore/history-delete-conversation`: every entry, the metadata and the salt (so the conversation key cannot be derived again). */
export async function deleteConversation(s: Store, name: unknown): Promise<true> {
  const conv = checkConversation(name);
  const keys = await historyKeys(s);
  const hex = bytesToHex(await tagOf(keys, conv));
  return conversationLock(s, hex, () => writeTx(s, keys, async (tx) => {
    await request(tx.objectStore('history').delete(IDBKeyRange.bound([hex, 0], [hex, Number.MAX_SAFE_INTEGER])));
    await request(tx.objectStore('conversations').delete(hex));
    return true as const;
  }));
}

/**
 * `keystore/history-delete-all`: every conversation and entry, then the history key itself (a new
 * one is made on next use). Needs the store unlocked, like every history request.
 */
export async function deleteAll(s: Store): Promise<true> {
  sessionFor(s, await readState(s));
  return withLock(s.name, async () => {
    const state = await readState(s);
    sessionFor(s, state);
    let tx: IDBTransaction;
    try {
      tx = s.db.transaction(['conversations', 'history'], 'readwrite', { durability: 'strict' });
    } catch (e) {
      throw storageError(e);
    }
    const finished = done(tx);
    finished.catch(() => {});
    try {
      await request(tx.objectStore('history').clear());
      await request(tx.objectStore('conversations').clear());
      await finished;
    } catch (e) {
      abort(tx);
      throw storageError(e);
    }
    await commit(s, state.revision, async (t) => {
      await request(t.objectStore('secrets').delete(HISTORY_SECRET_ID));
      return undefined;
    });
    const cur = s.session;
    if (cur) keysBySession.delete(cur);
    return true as const;
  });
}

// ---------------------------------------------------------------------------
// Backup (docs/KEYSTORE.md#backup): the history travels as `H` and the opened entries, inside the backup's AEAD.

/** The history stores a backup import writes besides `ALL_STORES` (passed to `commit`). */
export const HISTORY_STORES = ['conversations', 'history'] as const;

/**
 * For `exportBackup({ includeHistory: true })`: the history key and every conversation with its
 * entries opened, as of one read transaction; `undefined` when this store has no history key. The
 * section's size is summed from the stored records' sizes while they are read, before any is
 * opened: over `MAX_BACKUP_HISTORY_BYTES`, `RangeError`. Wipe the result (`wipeBackupHistory`).
 */
export async function exportHistory(s: Store): Promise<BackupHistory | undefined> {
  sessionFor(s, await readState(s));
  let present: number;
  try {
    present = await request(s.db.transaction('secrets').objectStore('secrets').count(HISTORY_SECRET_ID));
  } catch (e) {
    throw storageError(e);
  }
  if (present === 0) return undefined;
  const keys = await historyKeys(s);
  const found = await readTx(s, keys, async (tx) => {
    const convs = ((await request(tx.objectStore('conversations').getAll())) as unknown[]).map((r) => {
      const c = (typeof r === 'object' && r !== null ? (r as { c?: unknown }).c : undefined);
      const record = validConversation(r, typeof c === 'string' && /^[0-9a-f]{64}$/.test(c) ? c : '-');
      if (!record) throw new VeilError('AUTHENTICATION_FAILED', 'the history conversation record is damaged');
      return record;
    });
    // The section's size (docs/KEYSTORE.md#backup) from the records: a sealed record is iv ‖ bucket ‖ tag.
    let size = 36;
    for (const c of convs) size += 45 + (c.meta === undefined ? 0 : Math.max(64, c.meta.length - 28));
    const rows: EntryRecord[] = [];
    // A throw stops the cursor and rejects (eachCursor).
    await eachCursor(tx.objectStore('history'), null, (cur) => {
      const r = cur.value as EntryRecord;
      size += 8 + Math.max(64, (r.v instanceof Uint8Array ? r.v.length : 0) - 28);
      if (size > MAX_BACKUP_HISTORY_BYTES) {
        throw new RangeError(`the message history is over MAX_BACKUP_HISTORY_BYTES (${MAX_BACKUP_HISTORY_BYTES}) in a backup: export it without includeHistory, or delete old conversations`);
      }
      rows.push(r);
    });
    return { convs, rows };
  });
  const conversations: BackupConversation[] = [];
  const out: BackupHistory = { key: new Uint8Array(0), conversations };
  try {
    const byTag = new Map<string, { key: CryptoKey; tag: Uint8Array; entries: { seq: number; data: Uint8Array }[] }>();
    for (const c of found.convs) {
      const tag = hexToBytes(c.c);
      const key = await conversationKey(keys, tag, c.salt);
      const entries: { seq: number; data: Uint8Array }[] = [];
      byTag.set(c.c, { key, tag, entries });
      conversations.push({ tag, next: c.next, entries, ...(c.meta === undefined ? {} : { meta: await openEntry(key, tag, HISTORY_KIND.meta, 0, c.meta) }) });
    }
    for (const r of found.rows) {
      const conv = byTag.get(r.c);
      // A record without its conversation cannot be opened (its salt is gone) and is not reachable through the API.
      if (!conv) continue;
      if (!Number.isSafeInteger(r.s)) throw damaged(-1, 'has no valid sequence number');
      conv.entries.push({ seq: r.s, data: await openEntry(conv.key, conv.tag, HISTORY_KIND.entry, r.s, r.v) });
    }
    const root: SecretRecord = { id: HISTORY_SECRET_ID, identityId: HISTORY_SECRET_ID, type: HISTORY_SECRET_TYPE, wrapped: keys.wrapped };
    return { key: await withSecret(keys.session, root, (h) => h.slice()), conversations };
  } catch (e) {
    wipeBackupHistory(out);
    throw e;
  }
}

/** What `importBackup` writes for a backup's history, prepared (sealed) before its transaction. */
export interface HistoryImportPlan {
  /** `#history`'s wrapped bytes when planned (`undefined`: absent); the commit requires the same. */
  readonly rootBefore: Uint8Array | undefined;
  /** A new `#history` record (the backup's `H` adopted), if any. */
  readonly root?: SecretRecord;
  /** Conversations written, with what each was when planned (`undefined`: absent). */
  readonly conversations: readonly { readonly before: { next: number; salt: Uint8Array } | undefined; readonly record: ConversationRecord }[];
  /** Entry records added. */
  readonly entries: readonly EntryRecord[];
  /** The store had no conversation at all when planned (required again at the commit when `root` replaces a key). */
  readonly empty: boolean;
  /** Entries already present (same conversation and sequence number), kept as they were. */
  readonly skipped: number;
}

function historyConflict(): VeilError {
  return new VeilError('KEY_EXISTS', 'this keystore already holds a message history under another history key: import with includeHistory: false, or deleteAllHistory() first; nothing was changed', { details: { reason: 'history' } });
}

/**
 * Plans the import of a backup's history (under the keystore's Web Lock, before the commit):
 * - no `#history` here: the backup's `H` is installed;
 * - the same `H`: merged — entries whose sequence number exists are kept (skipped), the others
 *   are added; `next` becomes the larger; existing metadata is kept;
 * - another `H` and no conversation: replaced by the backup's;
 * - another `H` with conversations: `KEY_EXISTS` (`details.reason = 'history'`), nothing changed.
 * Every entry is sealed again here under a conversation salt of this store (new ones random).
 */
export async function planHistoryImport(s: Store, session: Session, h: BackupHistory): Promise<HistoryImportPlan> {
  const hexes = h.conversations.map((c) => bytesToHex(c.tag));
  let root: SecretRecord | undefined;
  let counts: number[];
  let locals: (ConversationRecord | undefined)[];
  let present: Set<number>[];
  try {
    const tx = s.db.transaction(['secrets', ...HISTORY_STORES]);
    const rootP = request(tx.objectStore('secrets').get(HISTORY_SECRET_ID)) as Promise<SecretRecord | undefined>;
    const countsP = Promise.all([request(tx.objectStore('conversations').count()), request(tx.objectStore('history').count())]);
    const localsP = Promise.all(hexes.map(async (hex) => validConversation(await request(tx.objectStore('conversations').get(hex)), hex)));
    const presentP = Promise.all(hexes.map(async (hex) => {
      const ks = (await request(tx.objectStore('history').getAllKeys(IDBKeyRange.bound([hex, 1], [hex, Number.MAX_SAFE_INTEGER])))) as unknown[];
      return new Set(ks.map((k) => (Array.isArray(k) && typeof k[1] === 'number' ? k[1] : -1)));
    }));
    [root, counts, locals, present] = await Promise.all([rootP, countsP, localsP, presentP]);
  } catch (e) {
    throw storageError(e);
  }
  const empty = counts.every((n) => n === 0);
  let adopt = root === undefined;
  if (root) {
    const same = await withSecret(session, root, (local) => sameBytes(local, h.key));
    if (!same) {
      if (!empty) throw historyConflict();
      adopt = true;
    }
  }
  const base = await subtle().importKey('raw', bs(h.key), { name: 'HKDF' }, false, ['deriveKey']);
  const conversations: { before: { next: number; salt: Uint8Array } | undefined; record: ConversationRecord }[] = [];
  const entries: EntryRecord[] = [];
  let skipped = 0;
  for (const [i, c] of h.conversations.entries()) {
    const hex = hexes[i] ?? '';
    const local = adopt ? undefined : locals[i];
    const have = adopt ? new Set<number>() : (present[i] ?? new Set<number>());
    const salt = local?.salt ?? crypto.getRandomValues(new Uint8Array(32));
    const key = await deriveConversationKey(base, c.tag, salt);
    let added = 0;
    for (const e of c.entries) {
      if (have.has(e.seq)) {
        skipped++;
        continue;
      }
      entries.push({ c: hex, s: e.seq, v: await sealEntry(key, c.tag, HISTORY_KIND.entry, e.seq, e.data) });
      added++;
    }
    const meta = local?.meta ?? (c.meta === undefined ? undefined : await sealEntry(key, c.tag, HISTORY_KIND.meta, 0, c.meta));
    const next = Math.max(local?.next ?? 1, c.next);
    if (local && added === 0 && next === local.next && meta === local.meta) continue;
    conversations.push({ before: local ? { next: local.next, salt: local.salt } : undefined, record: { c: hex, salt, next, ...(meta === undefined ? {} : { meta }) } });
  }
  const plan: HistoryImportPlan = {
    rootBefore: root?.wrapped, conversations, entries, empty, skipped,
    ...(adopt ? { root: { id: HISTORY_SECRET_ID, identityId: HISTORY_SECRET_ID, type: HISTORY_SECRET_TYPE, wrapped: await seal(session.key, HISTORY_SECRET_ID, HISTORY_SECRET_TYPE, session.generation, h.key) } } : {}),
  };
  return plan;
}

/**
 * Writes a plan inside the import's commit (IndexedDB requests only): `#history` and every planned
 * conversation must be what they were when planned (else `STORAGE_FAILED`, the whole import aborts).
 */
export async function applyHistoryImport(tx: IDBTransaction, plan: HistoryImportPlan): Promise<void> {
  const changed = () => new VeilError('STORAGE_FAILED', 'the message history changed during the backup import; nothing was changed');
  const root = (await request(tx.objectStore('secrets').get(HISTORY_SECRET_ID))) as SecretRecord | undefined;
  const wrapped = root?.wrapped;
  if ((wrapped === undefined) !== (plan.rootBefore === undefined) || (wrapped !== undefined && plan.rootBefore !== undefined && !(wrapped instanceof Uint8Array && sameBytes(wrapped, plan.rootBefore)))) throw changed();
  const conversations = tx.objectStore('conversations');
  const history = tx.objectStore('history');
  if (plan.root) {
    if (plan.rootBefore !== undefined && ((await request(conversations.count())) !== 0 || (await request(history.count())) !== 0)) throw changed();
    await request(tx.objectStore('secrets').put(plan.root));
  }
  for (const { before, record } of plan.conversations) {
    const now = validConversation(await request(conversations.get(record.c)), record.c);
    if ((now === undefined) !== (before === undefined) || (now && before && (now.next !== before.next || !sameBytes(now.salt, before.salt)))) throw changed();
    await request(conversations.put(record));
  }
  for (const r of plan.entries) await request(history.add(r));
}

/** After a commit that replaced `#history`: drops the session's cached history keys. */
export function forgetHistoryKeys(session: Session): void {
  keysBySession.delete(session);
}
