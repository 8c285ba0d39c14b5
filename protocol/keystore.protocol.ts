/**
 * Keystore requests (`keystore/*`) and the values they answer with.
 *
 * The keystore lives in a worker; the page-side `Keystore` (ts/keystore.ts)
 * only ever receives what is declared here: identity descriptions, public
 * keys, signed public bundles, signatures, ciphertext backups, non-extractable
 * `CryptoKey`s — and, through the two documented export paths
 * (`keystore/export-phrase`, `keystore/export-backup`), a recovery phrase or
 * a passphrase-encrypted backup.
 */

import type { PublicBundle } from '../ts/keystore-format.js';
import type { Route } from '../ts/webcrypto/routes.js';
import type { SerializedError } from './protocol.js';
import type { GroupReplies, GroupRequest } from './group.protocol.js';

/** The key types of an identity. */
export const KEY_TYPES = ['ed25519', 'x25519', 'ml-kem-768', 'x-wing', 'ml-dsa-65'] as const;
/** The kinds of keys a keystore identity holds. */
export type KeyType = (typeof KEY_TYPES)[number];

/**
 * Where a key type's private key is used: `'native'` (a non-extractable WebCrypto key imported from
 * the wrapped seed) or `'wasm'` (the wrapped seed, unwrapped per operation for the core). The SDK's one
 * route vocabulary (`Route`, ts/webcrypto/routes.ts).
 */
export type KeyRoute = Route;

/** Argon2id cost for a passphrase (lock or backup). Memory ≥ 19456 KiB, iterations ≥ 2. */
export interface PassphraseKdfParams {
  readonly memoryKib: number;
  readonly iterations: number;
  readonly parallelism: number;
}

/**
 * Per-derivation KDF budget of a reader (keystore unlock, backup import). Defaults
 * (`DEFAULT_KDF_BUDGET`): Argon2id memory ≤ 262144 KiB and ≤ 4 passes, PBKDF2 ≤ 2,000,000
 * iterations. Parameters over the budget are refused with `KDF_BUDGET_EXCEEDED` before
 * any work; writers (`setPassphrase`, `exportBackup`) refuse to exceed it too.
 */
export interface KdfBudget {
  readonly argon2MemoryKib?: number;
  readonly argon2Iterations?: number;
  readonly pbkdf2Iterations?: number;
  /** Containers only (`decryptFile`, `openContainer`): most password wraps one unlock tries (default 2). */
  readonly passwordWraps?: number;
}

/** A stored identity, as the page sees it (no secrets). Also the handle passed back to identity operations. */
export interface IdentityHandle {
  readonly kind: 'identity';
  /** Deterministic id: 64 hex characters, SHA-256 over the bundle flags and every public key (docs/KEYSTORE.md#derivation). */
  readonly id: string;
  readonly label: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  /** Whether the identity has an ML-DSA-65 signing key. */
  readonly mlDsa: boolean;
  /** Where each of its private keys lives. */
  readonly routes: Readonly<Partial<Record<KeyType, KeyRoute>>>;
}

/** Names one private key of an identity (for the identity operations). */
export interface KeyHandle {
  readonly identity: string;
  readonly type: KeyType;
}

/** What this browser offers, and which route each key type takes for new identities. */
export interface KeystoreCapabilities {
  /** Route taken for each key type of a new identity. */
  readonly routes: Readonly<Record<KeyType, KeyRoute>>;
  /** Whether WebCrypto here implements the algorithm natively (and passed a known-answer self-test against the wasm core). */
  readonly webCrypto: Readonly<Record<'ed25519' | 'x25519' | 'ml-kem-768' | 'ml-dsa-65', boolean>>;
  readonly webLocks: boolean;
  readonly broadcastChannel: boolean;
  readonly indexedDb: boolean;
  /** Schema version of the IndexedDB database this code writes. */
  readonly schemaVersion: number;
}

/** A keystore's state: locked or not, whether a passphrase is set, its revision and identity count, persistence. */
export interface KeystoreStatus {
  /** Whether the store is protected by a passphrase. */
  readonly passphrase: boolean;
  /** Whether secrets are unavailable until `unlock` (only ever true with a passphrase). */
  readonly locked: boolean;
  /** Increments with every committed change. */
  readonly revision: number;
  readonly identities: number;
  /** Whether the origin's storage is persistent (`navigator.storage.persisted()`): not evicted under storage pressure. */
  readonly persisted: boolean;
}

/** Broadcast (BroadcastChannel `veilkit-keystore:<name>`) after every committed change. */
export interface KeystoreChange {
  readonly name: string;
  readonly revision: number;
  readonly change:
    | 'created' | 'identity-created' | 'identity-deleted' | 'backup-imported' | 'passphrase-changed' | 'locked'
    | 'prekeys-changed' | 'session-created' | 'session-updated' | 'session-deleted' | 'group-client-updated';
  /** The identities, or (`session-*`) the session ids, the change concerns. */
  readonly ids: readonly string[];
  /**
   * `session-*` changes: the authenticated head (or tombstone) each commit wrote, for the other keystore
   * workers of the origin, which check its tag and remember it (docs/SESSIONS.md §7.2). Public data; apps can ignore it.
   */
  readonly heads?: readonly SessionHead[];
}

/** One message of a batch (`keystore/session-encrypt-many`: `data` is a plaintext; `-decrypt-many`: a message) and its `aad`. */
export interface SessionBatchItem {
  readonly data: Uint8Array;
  readonly aad?: Uint8Array;
}

/**
 * The outcome of one message of `keystore/session-decrypt-many`: its plaintext and the session's state counter
 * after it, or the error it failed with (that message changed nothing).
 */
export type SessionDecryptOutcome =
  | { readonly ok: true; readonly plaintext: Uint8Array; readonly counter: number }
  | { readonly ok: false; readonly error: SerializedError };

/** A session's head as the keystore's `heads` store holds it (docs/KEYSTORE.md#sessions-and-prekeys), with the generation of its tag. */
export interface SessionHead {
  /** The session id. */
  readonly id: string;
  readonly identityId: string;
  readonly counter: number;
  /** A tombstone: the session was deleted. */
  readonly deleted?: true;
  /** iv(12) ‖ AES-256-GCM tag(16) under the storage key; only the keystore can make one. */
  readonly tag: Uint8Array;
  readonly generation: number;
}

/** What {@link Keystore.importBackup} did: the identities imported and the ids skipped (already present), and the history restored. */
export interface ImportBackupResult {
  /** Identities added by the import. */
  readonly imported: readonly IdentityHandle[];
  /** Ids already present (kept as they were). */
  readonly skipped: readonly string[];
  /**
   * Present when the backup carried the message history and it was imported (docs/KEYSTORE.md#backup):
   * its conversation count, the entries added, and the entries skipped because their conversation
   * already had an entry with that sequence number (kept as they were).
   */
  readonly history?: ImportBackupHistoryResult;
}

/** The message-history part of an {@link ImportBackupResult}. */
export interface ImportBackupHistoryResult {
  /** Conversations the backup carried. */
  readonly conversations: number;
  /** Entries added. */
  readonly entries: number;
  /** Entries already present (same conversation and sequence number), kept as they were. */
  readonly skipped: number;
}

/**
 * Prekey bundles of an identity on this device (docs/KEYSTORE.md#sessions-and-prekeys; byte format docs/SESSIONS.md §3):
 * `bundle` carries the current signed X25519 and last-resort ML-KEM-768 prekeys and no one-time prekey; each of
 * `oneTime` is a full bundle with the same two plus its own one-time X25519 and one-time ML-KEM-768 prekey.
 */
export interface PrekeyBundles {
  readonly bundle: Uint8Array;
  readonly oneTime: Uint8Array[];
}

type R<T extends string, F> = { readonly id: number; readonly type: T; readonly name: string } & F;

/** A link started on the new device (docs/DEVICES.md §6): show `code`, send `offer` on `channel`. */
export interface LinkStarted {
  readonly id: string;
  /** 26 base32 characters: show it (or as a QR code) to the user, never to the server. */
  readonly code: string;
  /** The relay's rendezvous name for this code (32 hex digits; reveals nothing of the code). */
  readonly channel: string;
  readonly offer: Uint8Array;
}

/** A link accepted on the device holding the user identity: send `accept` on `channel`. */
export interface LinkAccepted {
  readonly id: string;
  readonly channel: string;
  readonly accept: Uint8Array;
}

/** The device a link added: the new registry (publish it) and the welcome (send it on the channel). */
export interface LinkConfirmed {
  readonly registry: Uint8Array;
  readonly device: { readonly identityId: string; readonly identity: Uint8Array; readonly name: string };
  readonly welcome: Uint8Array;
}

/** What the new device learns: its user's `Enc(ID)` (pin it) and the registry that lists it. */
export interface LinkFinished {
  readonly user: Uint8Array;
  readonly registry: Uint8Array;
}

export type KeystoreRequest =
  | R<'keystore/open', object>
  | R<'keystore/capabilities', object>
  | R<'keystore/status', object>
  /**
   * `currentPassphrase`: when given, the request runs only if it is the store's passphrase
   * (`AUTHENTICATION_FAILED` otherwise, also for a store without one). An isolated keystore's
   * app connection must give it (docs/KEYSTORE.md#isolated-origin-mode).
   */
  | R<'keystore/set-passphrase', {
    readonly passphrase: string | null; readonly params?: PassphraseKdfParams; readonly kdfBudget?: KdfBudget; readonly currentPassphrase?: string;
  }>
  | R<'keystore/unlock', { readonly passphrase: string; readonly kdfBudget?: KdfBudget }>
  | R<'keystore/lock', object>
  | R<'keystore/create-identity', { readonly label: string; readonly mlDsa: boolean }>
  | R<'keystore/list-identities', object>
  | R<'keystore/public-bundle', { readonly identity: string }>
  /** `currentPassphrase` (and its `kdfBudget`): as for `keystore/set-passphrase`. */
  | R<'keystore/delete-identity', { readonly identity: string; readonly currentPassphrase?: string; readonly kdfBudget?: KdfBudget }>
  | R<'keystore/export-phrase', { readonly identity: string }>
  | R<'keystore/restore-phrase', { readonly phrase: string; readonly bip39Passphrase: string; readonly label: string; readonly mlDsa: boolean }>
  | R<'keystore/export-backup', { readonly passphrase: string; readonly params?: PassphraseKdfParams; readonly kdfBudget?: KdfBudget; readonly includeHistory?: boolean }>
  /** `backup` is a copy the page transferred; the worker wipes it. */
  | R<'keystore/import-backup', { readonly backup: Uint8Array; readonly passphrase: string; readonly kdfBudget?: KdfBudget; readonly includeHistory?: boolean }>
  | R<'keystore/sign', { readonly identity: string; readonly algorithm: 'ed25519' | 'ml-dsa-65'; readonly message: Uint8Array; readonly context?: Uint8Array }>
  | R<'keystore/sign-hybrid', { readonly identity: string; readonly message: Uint8Array; readonly context?: Uint8Array }>
  /**
   * The signatures of a container header naming the identity as its signer: `header` is every header
   * byte before the signature table; the worker parses it and builds the signed bytes itself.
   */
  | R<'keystore/sign-container-header', { readonly identity: string; readonly header: Uint8Array }>
  /**
   * A device registry change signed by the user identity `user` (docs/DEVICES.md): the worker verifies
   * `registry` against `user` first and builds the change itself. `device`: a keystore identity id of
   * this store (the worker makes its consent), or another device's `Enc(ID)` with its `consent`.
   */
  | R<'keystore/registry-add', {
    readonly user: string; readonly registry?: Uint8Array; readonly device: Uint8Array | string; readonly consent?: Uint8Array; readonly deviceName: string;
    readonly pinned?: { readonly count: number; readonly hash: string };
  }>
  /** The registry this keystore signed last for the user identity (null: none). */
  | R<'keystore/registry-last', { readonly user: string }>
  /** A device's consent to being a device of the user `Enc(ID)` `user`, signed by the keystore identity `device`. */
  | R<'keystore/device-consent', { readonly device: string; readonly user: Uint8Array }>
  /** `device`: the identity id (hex) of an active device. */
  | R<'keystore/registry-revoke', { readonly user: string; readonly registry: Uint8Array; readonly device: string; readonly pinned?: { readonly count: number; readonly hash: string } }>
  /** Device linking (docs/DEVICES.md §6): `link-start`, `-answer`, `-finish` on the new device; `-accept`, `-confirm` on the one holding the user identity. */
  | R<'keystore/link-start', { readonly device: string; readonly deviceName: string }>
  | R<'keystore/link-accept', { readonly user: string; readonly code: string; readonly offer: Uint8Array }>
  | R<'keystore/link-answer', { readonly link: string; readonly accept: Uint8Array }>
  | R<'keystore/link-confirm', { readonly link: string; readonly hello: Uint8Array; readonly registry?: Uint8Array }>
  | R<'keystore/link-finish', { readonly link: string; readonly welcome: Uint8Array }>
  | R<'keystore/derive-shared-key', { readonly identity: string; readonly peerPublicKey: Uint8Array; readonly info: Uint8Array }>
  /**
   * With `port`, the key is posted on that port (one message, `{ key }`, to another worker that holds
   * the other end) and the reply is `true`: the page that relays the request never holds the key.
   */
  | R<'keystore/decapsulate', {
    readonly identity: string; readonly kem: 'ml-kem-768' | 'x-wing'; readonly ciphertext: Uint8Array;
    readonly info: Uint8Array; readonly output: 'aes-gcm' | 'hkdf'; readonly port?: MessagePort;
  }>
  /** Sealed box (ts/sealed.ts, docs/SEALED.md): opened with the identity's X-Wing key; only the plaintext comes back. */
  | R<'keystore/open-sealed', { readonly identity: string; readonly sealed: Uint8Array; readonly info: Uint8Array; readonly aad: Uint8Array }>
  /** HPKE single-shot receive-export with the identity's X-Wing key. */
  | R<'keystore/open-sealed-export', {
    readonly identity: string; readonly enc: Uint8Array; readonly info: Uint8Array; readonly exporterContext: Uint8Array; readonly length: number;
  }>
  | R<'keystore/create-prekey-bundle', { readonly identity: string; readonly oneTime: number }>
  | R<'keystore/replenish-prekeys', { readonly identity: string; readonly oneTime: number; readonly rotate: boolean }>
  // Chat sessions (docs/SESSIONS.md §7, worker/keystore/sessions.ts). Secret state never leaves the worker.
  | R<'keystore/session-initiate', {
    readonly identity: string; readonly bundle: Uint8Array; readonly pinned?: Uint8Array; readonly plaintext?: Uint8Array; readonly aad?: Uint8Array;
  }>
  | R<'keystore/session-respond', { readonly identity: string; readonly message: Uint8Array; readonly pinned?: Uint8Array; readonly aad?: Uint8Array }>
  | R<'keystore/session-encrypt', { readonly session: string; readonly plaintext: Uint8Array; readonly aad?: Uint8Array }>
  | R<'keystore/session-decrypt', { readonly session: string; readonly message: Uint8Array; readonly aad?: Uint8Array }>
  // Batches (docs/SESSIONS.md §7.2, "Batches"): one commit for the whole batch, nothing returned before it.
  | R<'keystore/session-encrypt-many', { readonly session: string; readonly items: readonly SessionBatchItem[] }>
  | R<'keystore/session-decrypt-many', { readonly session: string; readonly items: readonly SessionBatchItem[] }>
  | R<'keystore/session-info', { readonly session: string }>
  | R<'keystore/session-list', { readonly identity?: string }>
  | R<'keystore/session-delete', { readonly session: string }>
  // Encrypted message history (docs/KEYSTORE.md#message-history, worker/keystore/history.ts). `conversation` is the app's name for it.
  /** Seals `entries` as the next sequence numbers and `meta` (when given) as the conversation's metadata, in one transaction. */
  | R<'keystore/history-append', { readonly conversation: string; readonly entries: readonly Uint8Array[]; readonly meta?: Uint8Array }>
  /** At most `limit` entries before sequence number `before` (absent: the latest), oldest first. */
  | R<'keystore/history-read', { readonly conversation: string; readonly limit: number; readonly before?: number }>
  | R<'keystore/history-delete', { readonly conversation: string; readonly seq: number }>
  | R<'keystore/history-delete-conversation', { readonly conversation: string }>
  | R<'keystore/history-delete-all', object>
  // MLS groups (protocol/group.protocol.ts, worker/group/).
  | GroupRequest;

/** One entry of a conversation's history: its sequence number (from 1, in append order) and its bytes. */
export interface HistoryEntry {
  readonly seq: number;
  readonly data: Uint8Array;
}

/** What `keystore/history-append` committed: entries `first` … `next − 1`. */
export interface HistoryAppendResult {
  readonly first: number;
  readonly next: number;
}

/** What `keystore/history-read` answers: the entries (oldest first), the metadata (`null`: none) and the next sequence number. */
export interface HistoryRead {
  readonly entries: HistoryEntry[];
  readonly meta: Uint8Array | null;
  readonly next: number;
}

/**
 * A stored chat session as the page sees it (docs/SESSIONS.md §7): public data only, read from the
 * authenticated (unwrapped) state, never from the record's clear fields. The state itself never
 * leaves the worker.
 */
export interface SessionInfo {
  readonly kind: 'session';
  /** 32 hex characters (16 random bytes). */
  readonly id: string;
  /** The keystore identity (its id) the session belongs to. */
  readonly identity: string;
  readonly role: 'initiator' | 'responder';
  /** Protocol version of the session. */
  readonly version: number;
  /** Our session identity encoding `Enc(ID)` (2,017 bytes). */
  readonly localIdentity: Uint8Array;
  /** The peer's session identity encoding `Enc(ID)` (2,017 bytes): what the verification code covers. */
  readonly peerIdentity: Uint8Array;
  /** Hex of the peer's session identity id (SHA-256 over its `Enc(ID)`, docs/SESSIONS.md §2.1). */
  readonly peerIdentityId: string;
  readonly peerDeviceId: number;
  /** The state counter: increases with every committed change. */
  readonly counter: number;
  /** PQ epoch of the state. */
  readonly pqEpoch: number;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A hybrid signature: Ed25519 and ML-DSA-65 over the same message. */
export interface HybridSignature {
  readonly ed25519: Uint8Array;
  readonly mlDsa65: Uint8Array;
}

/** The signatures of a container header: Ed25519 (version 5), and ML-DSA-65 too (version 6). */
export interface ContainerHeaderSignature {
  readonly ed25519: Uint8Array;
  readonly mlDsa65?: Uint8Array;
}

/**
 * What each `keystore/*` request answers with (`KeystoreReplies[type]`): the worker's handler
 * table (worker/keystore/handlers.ts) must return these, and `WorkerPool.run` resolves to them.
 */
export interface KeystoreReplies extends GroupReplies {
  'keystore/open': KeystoreStatus;
  'keystore/capabilities': KeystoreCapabilities;
  'keystore/status': KeystoreStatus;
  'keystore/set-passphrase': KeystoreStatus;
  'keystore/unlock': KeystoreStatus;
  'keystore/lock': KeystoreStatus;
  'keystore/create-identity': IdentityHandle;
  'keystore/list-identities': IdentityHandle[];
  'keystore/public-bundle': PublicBundle;
  'keystore/delete-identity': true;
  'keystore/export-phrase': string;
  'keystore/restore-phrase': IdentityHandle;
  'keystore/export-backup': Uint8Array;
  'keystore/import-backup': ImportBackupResult;
  'keystore/sign': Uint8Array;
  'keystore/sign-hybrid': HybridSignature;
  'keystore/sign-container-header': ContainerHeaderSignature;
  'keystore/registry-add': Uint8Array;
  'keystore/device-consent': Uint8Array;
  'keystore/registry-last': Uint8Array | null;
  'keystore/registry-revoke': Uint8Array;
  'keystore/link-start': LinkStarted;
  'keystore/link-accept': LinkAccepted;
  'keystore/link-answer': Uint8Array;
  'keystore/link-confirm': LinkConfirmed;
  'keystore/link-finish': LinkFinished;
  'keystore/derive-shared-key': CryptoKey;
  /** `true` when the key went to `port`. */
  'keystore/decapsulate': CryptoKey | true;
  'keystore/open-sealed': Uint8Array;
  'keystore/open-sealed-export': Uint8Array;
  'keystore/create-prekey-bundle': PrekeyBundles;
  'keystore/replenish-prekeys': PrekeyBundles;
  'keystore/session-initiate': { readonly session: SessionInfo; readonly initialMessage: Uint8Array };
  'keystore/session-respond': { readonly session: SessionInfo; readonly plaintext: Uint8Array };
  'keystore/session-encrypt': { readonly message: Uint8Array; readonly counter: number };
  'keystore/session-decrypt': { readonly plaintext: Uint8Array; readonly counter: number };
  'keystore/session-encrypt-many': { readonly messages: readonly Uint8Array[]; readonly counter: number };
  'keystore/session-decrypt-many': { readonly results: readonly SessionDecryptOutcome[]; readonly counter: number };
  'keystore/session-info': SessionInfo;
  'keystore/session-list': SessionInfo[];
  'keystore/session-delete': true;
  'keystore/history-append': HistoryAppendResult;
  'keystore/history-read': HistoryRead;
  /** Whether the entry was there. */
  'keystore/history-delete': boolean;
  'keystore/history-delete-conversation': true;
  'keystore/history-delete-all': true;
}
