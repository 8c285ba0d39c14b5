/**
 * The encrypted message history of a keystore (docs/KEYSTORE.md#message-history): `keystore.history(conversation)`.
 * Entries are bytes the app chooses (useChat stores its messages as JSON); each is sealed in the keystore's
 * worker with AES-256-GCM under a per-conversation key derived from the keystore's history key, which locks with
 * the passphrase. Nothing here holds a key: every call is one request to the keystore's worker.
 */
import { bytes, integer } from './validate.js';
import type { KeystoreBody } from './keystore-isolated.js';
import type { HistoryAppendResult, HistoryEntry, KeystoreReplies } from '../protocol/keystore.protocol.js';

export type { HistoryAppendResult, HistoryEntry } from '../protocol/keystore.protocol.js';

/** Limits of one call (worker/keystore/history.ts `HISTORY_LIMITS`). */
export const HISTORY_LIMITS = Object.freeze({
  /** Characters (UTF-16 code units) of a conversation name. */
  name: 1024,
  /** Bytes of one entry or of a conversation's metadata. */
  entry: 1 << 20,
  /** Entries of one `append`. */
  append: 1000,
  /** Entries of one read (`latest`, `before`). */
  read: 1000,
});

/** Options of {@link ConversationHistory.append}. */
export interface HistoryAppendOptions {
  /** Replaces the conversation's metadata in the same transaction (at most 1 MiB; sealed like an entry). */
  meta?: Uint8Array;
}

type Run = <B extends KeystoreBody>(body: B, transfer?: Transferable[]) => Promise<KeystoreReplies[B['type']]>;

function conversationName(name: unknown): string {
  if (typeof name !== 'string') throw new TypeError('conversation must be a string');
  if (name.length === 0 || name.length > HISTORY_LIMITS.name) throw new RangeError(`conversation must be 1 to ${HISTORY_LIMITS.name} characters, got ${name.length}`);
  return name;
}

function entryBytes(name: string, value: unknown): Uint8Array {
  const b = bytes(name, value);
  if (b.length > HISTORY_LIMITS.entry) throw new RangeError(`${name} must be at most ${HISTORY_LIMITS.entry} bytes, got ${b.length}`);
  return b;
}

/**
 * One conversation's history in a {@link Keystore} (made by `keystore.history(name)`). Every method needs the
 * keystore unlocked (`KEYSTORE_LOCKED`); a record that fails to open (modified, moved, another key) is
 * `AUTHENTICATION_FAILED` with `details.index` = its sequence number.
 */
export class ConversationHistory {
  /** The app's name of the conversation (never stored: records are keyed by an HMAC of it). */
  readonly conversation: string;
  readonly #run: Run;

  /** @internal Use `keystore.history(name)`. */
  constructor(run: Run, conversation: string) {
    this.#run = run;
    this.conversation = conversationName(conversation);
  }

  /**
   * Appends `entries` (at most 1,000, each at most 1 MiB) as the next sequence numbers, in one transaction:
   * when it resolves they are committed (`durability: 'strict'`); when it rejects none of them is stored.
   * Copies are sent: your buffers are not modified.
   */
  async append(entries: readonly Uint8Array[], options: HistoryAppendOptions = {}): Promise<HistoryAppendResult> {
    if (!Array.isArray(entries)) throw new TypeError('entries must be an array of Uint8Array');
    if (entries.length > HISTORY_LIMITS.append) throw new RangeError(`at most ${HISTORY_LIMITS.append} entries per append, got ${entries.length}`);
    const copies = entries.map((e, i) => entryBytes(`entries[${i}]`, e).slice());
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    const meta = options.meta === undefined ? undefined : entryBytes('meta', options.meta).slice();
    return this.#run(
      { type: 'keystore/history-append', conversation: this.conversation, entries: copies, ...(meta === undefined ? {} : { meta }) },
      [...copies.map((c) => c.buffer), ...(meta === undefined ? [] : [meta.buffer])],
    );
  }

  /** The last `n` entries (0 to 1,000), oldest first. Reads `n` records, whatever the conversation's length. */
  async latest(n: number): Promise<HistoryEntry[]> {
    return (await this.#run({ type: 'keystore/history-read', conversation: this.conversation, limit: integer('n', n, 0, HISTORY_LIMITS.read) })).entries;
  }

  /** The `n` entries (0 to 1,000) before sequence number `seq`, oldest first (for paging back from `latest`). */
  async before(seq: number, n: number): Promise<HistoryEntry[]> {
    return (await this.#run({
      type: 'keystore/history-read', conversation: this.conversation, limit: integer('n', n, 0, HISTORY_LIMITS.read),
      before: integer('seq', seq, 1, Number.MAX_SAFE_INTEGER),
    })).entries;
  }

  /** The metadata last set with `append(…, { meta })`, or `undefined`. */
  async meta(): Promise<Uint8Array | undefined> {
    return (await this.#run({ type: 'keystore/history-read', conversation: this.conversation, limit: 0 })).meta ?? undefined;
  }

  /** Deletes entry `seq` (its record is removed); whether it was there. */
  async delete(seq: number): Promise<boolean> {
    return this.#run({ type: 'keystore/history-delete', conversation: this.conversation, seq: integer('seq', seq, 1, Number.MAX_SAFE_INTEGER) });
  }

  /** Deletes every entry, the metadata and the conversation's key salt (its key cannot be derived again). */
  async deleteConversation(): Promise<true> {
    return this.#run({ type: 'keystore/history-delete-conversation', conversation: this.conversation });
  }
}
