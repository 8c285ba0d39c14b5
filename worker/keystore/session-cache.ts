/**
 * The parsed states of the sessions this worker used last (docs/SESSIONS.md §7.2, "Fast path"): per
 * session, the state in WebAssembly memory (ts/session/state.ts `SessionState`) beside the record and
 * head exactly as stored when this worker last opened or committed them, and the unlocked key they
 * were opened under. A session operation that finds an entry computes on it and commits in one
 * transaction that requires the stored record (byte for byte) and head to be these; anything else —
 * page script's edits, another worker's commit, a passphrase change — sends it back to the full
 * reload (sessions.ts). An entry is only ever read under the session's Web Lock.
 *
 * At most {@link MAX_ENTRIES} sessions, least recently used dropped first; every entry is freed (its
 * wasm memory zeroized) when it is dropped, when the store locks or changes its passphrase, and when
 * its database closes (./kept.ts dropStore).
 */
import type { SessionInfo } from '../../protocol/keystore.protocol.js';
import { SessionState } from '../../ts/session/state.js';
import type { HeadRecord, Identities, SessionMeta, SessionRecord } from './records.js';
import type { Session as Unlocked } from './store.js';
import { Kept } from './kept.js';

export interface CachedSession {
  /** The unlocked key and generation the record was opened or written under: the entry is used only while it is the store's. */
  readonly unlocked: Unlocked;
  /** The stored record as this worker last read or wrote it (`wrapped` compared byte for byte). */
  record: SessionRecord;
  /** The stored head, likewise. */
  head: HeadRecord | undefined;
  info: SessionInfo;
  meta: SessionMeta;
  /** The session's two identity encodings (public), checked against the state's `H_ID` when it was opened. */
  readonly identities: Identities;
  /** The state of `record`, parsed. Secret: freed (zeroized) when the entry goes. */
  readonly state: SessionState;
}

const MAX_ENTRIES = 64;

/** By store and session id; an entry's state is disposed (zeroized) when it goes (./kept.ts). */
const entries = new Kept<CachedSession>(MAX_ENTRIES, (e) => {
  e.state.dispose();
}, (e) => e.state);

/** The entry of session `id` (and marks it used), or `undefined`. */
export function cached(name: string, id: string): CachedSession | undefined {
  return entries.get(name, id);
}

/** Keeps `entry` for session `id`, freeing the entry it replaces and the least recently used beyond the cap. */
export function keep(name: string, id: string, entry: CachedSession): void {
  entries.keep(name, id, entry);
}

/** Drops (and frees) the entry of session `id`, if any. */
export function drop(name: string, id: string): void {
  entries.drop(name, id);
}

/** How many sessions are cached (tests). */
export function cachedCount(): number {
  return entries.size;
}
