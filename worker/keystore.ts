/**
 * The keystore, inside a veilkit worker (IndexedDB, WebCrypto, Web Locks,
 * BroadcastChannel). Specified in docs/KEYSTORE.md.
 *
 * - Nothing usable is persisted: every secret is stored as its seed bytes,
 *   AES-256-GCM-wrapped under the storage key with AAD = label ‖ record id ‖
 *   record type ‖ generation. The storage key is S = Argon2id(passphrase) —
 *   held as a non-extractable `CryptoKey` in this worker's memory only while
 *   unlocked — or, without a passphrase, a device key (a non-extractable
 *   `CryptoKey` in IndexedDB: then same-origin script is the same principal
 *   as the app).
 * - Native-route keys are imported from their unwrapped seeds as
 *   non-extractable `CryptoKey`s into this worker's memory, and dropped on
 *   `lock` (or when another tab locks or changes the passphrase).
 * - Every operation reads the state in the transaction that reads its
 *   records and requires the generation and lock epoch it unlocked with: a
 *   worker that missed a lock broadcast cannot keep using S.
 * - Every write takes the Web Lock `veilkit-keystore:<name>`, commits in one
 *   IndexedDB transaction and is announced on the BroadcastChannel of the
 *   same name. A failed write aborts its transaction: nothing is ever wiped.
 *
 * This module re-exports what the rest of veilkit and its tests use; the code
 * lives in worker/keystore/, one file a concern: idb (IndexedDB promise
 * helpers), db (schema, migrations, storage errors, Web Lock, commit),
 * records (record types, sealing), capabilities (routes for new keys;
 * WebCrypto itself is in ts/webcrypto/), store (per-worker stores and sessions), identities, keys (sign,
 * derive, decapsulate), lock (passphrase, unlock, lock, status), backup, args
 * (request checks) and handlers.
 */
export { MIGRATIONS, SCHEMA_VERSION, STORE_FORMAT, databaseName, openKeystoreDb, setCommitHook, type CommitHook } from './keystore/db.js';
export { keystoreHandlers } from './keystore/handlers.js';
