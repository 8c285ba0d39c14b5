/** The public types of the file API (re-exported by ts/files.ts). */
import type { WorkerPool } from '../pool.js';
import type { disposeSymbol } from '../dispose.js';
import type { IdentityHandle, Keystore } from '../keystore.js';
import type { KdfBudget } from '../../protocol/keystore.protocol.js';

/** What can be encrypted or decrypted: a `File` (a `Blob`), a `Blob`, or a byte stream. */
export type FileInput = Blob | ReadableStream<Uint8Array>;

/**
 * Where a file operation is. `phase: 'kdf'` is reported once, with nothing done yet, when a password's
 * key derivation starts (Argon2id or PBKDF2: encrypting with `password`, decrypting or opening with one;
 * it gives no percentage, and can take seconds); then `'chunks'` steps follow at least every 1 MiB of
 * plaintext (every chunk at the default chunk size; one per chunk of larger chunks) and at the end of
 * every batch. `bytesDone` and `chunksDone` only grow and end at the totals.
 */
export interface FileProgress {
  readonly phase: 'kdf' | 'chunks';
  /** Plaintext bytes done. */
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly chunksDone: number;
  readonly chunksTotal: number;
}

/** Where a file operation is: `'running'`, then `'done'`, `'failed'` or `'cancelled'` (aborted by its signal), for good. */
export type FileJobStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** What {@link FileOperation.getSnapshot} returns: a frozen object, the same one until something changes. */
export interface FileJobSnapshot<T> {
  readonly status: FileJobStatus;
  /** The latest progress (`undefined` before the first batch); kept when the operation ends. */
  readonly progress: FileProgress | undefined;
  /** Why it failed or was cancelled (a `VeilError`, a `TypeError` / `RangeError` for bad arguments, or the abort reason). */
  readonly error: unknown;
  /** The result once `'done'`. */
  readonly result: T | undefined;
}

/**
 * A running file operation: the promise of its result, and a framework-free observable of its
 * state — `subscribe(listener)` returns the unsubscribe function, `getSnapshot()` the same object
 * until the state changes (what React's `useSyncExternalStore(op.subscribe, op.getSnapshot)` needs;
 * both are bound functions). Listeners are called after every progress step and once at the end.
 */
export interface FileOperation<T> extends Promise<T> {
  // Function-typed properties, not methods: bound, so they may be passed around on their own.
  readonly subscribe: (listener: () => void) => () => void;
  readonly getSnapshot: () => FileJobSnapshot<T>;
}

/** An X-Wing public key (1216 bytes), optionally with its key version and recipient id; or a keystore public bundle. */
export type RecipientPublicKey =
  | Uint8Array
  | { readonly publicKey: Uint8Array; readonly keyVersion?: number; readonly recipientId?: Uint8Array }
  | { readonly xWing: Uint8Array };

/** Password KDF for new containers. Default: Argon2id, 64 MiB, 3 passes, 4 lanes. */
export type PasswordKdf =
  | { readonly algorithm: 'argon2id'; readonly memoryKib?: number; readonly iterations?: number; readonly parallelism?: number }
  | { readonly algorithm: 'pbkdf2'; readonly iterations?: number };

/** A group's shared 32-byte key with its id: one wrap that every member opens. */
export interface GroupKey {
  /** 16-byte group id. */
  readonly id: Uint8Array;
  /** Key version (manifest key epoch), 0 … 2^32 − 1. */
  readonly keyVersion: number;
  /** The 32-byte group key of that version. */
  readonly key: Uint8Array;
}

/** A threshold wrap: the DEK split into `n` Shamir shares, any `t` of which open the file. */
export interface ThresholdOptions {
  /** Shares needed, 2 … n. */
  readonly t: number;
  /** Shares made, t … 255. */
  readonly n: number;
}

/** Sign the header with a keystore identity (Ed25519, plus ML-DSA-65 → v6 when the identity has it). */
export interface IdentitySigner {
  readonly keystore: Keystore;
  readonly identity: IdentityHandle | string;
  /** Whether the header is hybrid-signed (version 6). It follows the identity: an identity with an ML-DSA-65 key always signs hybrid (`false` is refused), one without cannot (`true` is refused). */
  readonly hybrid?: boolean;
  /** 32-byte key-transparency log id (default zeros). */
  readonly keyLogId?: Uint8Array;
  /** Seconds since the epoch (default now). */
  readonly timestamp?: number;
}

/** Low-level: sign with explicit seeds held on the page (interop, fixtures). Prefer {@link IdentitySigner}. */
export interface SigningSeeds {
  readonly ed25519Seed: Uint8Array;
  readonly mlDsaSeed?: Uint8Array;
  readonly keyLogId?: Uint8Array;
  readonly timestamp?: number;
}

/** Options every file job takes: an abort `signal`, `onProgress`, the worker `pool` (or `workers`), `concurrency` and `batchBytes`. */
export interface FileJobOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: FileProgress) => void;
  /**
   * Run on this pool (not disposed). Default: with `workers`, a private pool terminated when the
   * call ends; else the default pool the file calls of this page share (`min(hardwareConcurrency, 4)`
   * workers, kept warm for 2 s after the last call ends).
   */
  readonly pool?: WorkerPool;
  /** Run on a private pool of this many workers, terminated when the call ends (default: the shared default pool). */
  readonly workers?: number;
  /**
   * Batches started but not yet consumed, across the pool (default 2 × pool size). A queued batch
   * holds no bytes (its worker reads its slice when it runs), so working memory is about
   * `pool size × 2 × batchBytes` (input and output of each running batch).
   */
  readonly concurrency?: number;
  /**
   * Plaintext bytes per worker request (default 16 MiB; at least one chunk). The worker reads in
   * 16 MiB groups, one ahead: Chromium reads a Blob slice much faster in large slices (measured
   * here: ~300 MiB/s in 1 MiB slices, ~400 in 4 MiB, ~700 in 16 MiB).
   */
  readonly batchBytes?: number;
}

/** Options of `encryptFile` / `encryptFileTo`: the protections (password, recipients, group, threshold), chunking, hash and signing. */
export interface EncryptFileOptions extends FileJobOptions {
  /** Password wrap (Argon2id by default, see {@link PasswordKdf}). */
  readonly password?: string;
  readonly kdf?: PasswordKdf;
  /** X-Wing recipient wraps. */
  readonly recipients?: readonly RecipientPublicKey[];
  /** Group wrap. */
  readonly group?: GroupKey;
  /** Threshold wrap: the result carries the `n` `vcs_` shares. */
  readonly threshold?: ThresholdOptions;
  /** Chunk size, 4096 … 16 MiB (default 1 MiB). */
  readonly chunkSize?: number;
  /** Merkle hash (default `'sha256'`). */
  readonly hash?: 'sha256' | 'blake3';
  /** Sign the header with a keystore identity. */
  readonly sign?: IdentitySigner;
  /** Low-level alternative to `sign`: explicit signing seeds. */
  readonly signWithKeys?: SigningSeeds;
  /** Exact byte count of a `ReadableStream` input (required for streams; `SIZE_MISMATCH` if the stream differs). */
  readonly size?: number;
  /** MIME type of the resulting `Blob` (default `application/octet-stream`). */
  readonly type?: string;
}

/**
 * Where `withFixedKeysForTesting` (`veilkit/hazmat`) puts its fixed DEK and file id on an options
 * object: a registered symbol, so that it is no field of {@link EncryptFileOptions} (no autocomplete)
 * and survives the options being spread.
 */
export const FIXED_KEYS_FOR_TESTING: unique symbol = Symbol.for('veilkit.fixedKeysForTesting') as never;

/** How to open a container: a password, `vcs_` shares, a group key, a keystore identity, or (low-level) an X-Wing secret key. */
export type FileUnlock =
  | string
  | readonly string[]
  | { readonly password: string }
  | { readonly shares: readonly string[] }
  | { readonly group: GroupKey }
  | { readonly keystore: Keystore; readonly identity: IdentityHandle | string }
  | { readonly xWingSecretKey: Uint8Array; readonly recipientId?: Uint8Array };

/** What a reader requires of a container's signature: `signature` (`required` / `optional`) and an `expectedSigner`. */
export interface SignaturePolicyOptions {
  /** `'required'`: unsigned containers fail with `SIGNATURE_MISSING` (default `'optional'`; a present signature must always verify). */
  readonly signature?: 'required' | 'optional';
  /**
   * The signer the header must be signed by (implies a signature): an Ed25519 public key, or
   * `{ ed25519, mlDsa65 }` (e.g. a keystore public bundle) — with an ML-DSA-65 key a hybrid signature
   * by exactly that key is required (`HYBRID_REQUIRED` for an Ed25519-only header). Another key:
   * `SIGNER_MISMATCH`. Whether hybrid is required comes from this pin, never from the file.
   */
  readonly expectedSigner?: Uint8Array | { readonly ed25519: Uint8Array; readonly mlDsa65?: Uint8Array };
}

/** Who signed a decrypted container (every decrypt result carries it). */
export interface SignatureInfo {
  /** `'unsigned'`, `'ed25519'` (version 5) or `'hybrid'` (version 6: Ed25519 and ML-DSA-65). */
  readonly status: Exclude<SignatureStatus, 'invalid'>;
  /** The signer's public keys; `null` when unsigned. */
  readonly signer: { readonly ed25519: Uint8Array; readonly mlDsa65?: Uint8Array } | null;
}

/** Limits a reader sets on unlocking: the `kdfBudget` for password wraps. */
export interface UnlockOptions {
  /**
   * The reader's KDF budget for password wraps (FORMAT.md §4.3; default `DEFAULT_KDF_BUDGET`):
   * wraps over `argon2MemoryKib` / `argon2Iterations` / `pbkdf2Iterations` are skipped without
   * work, at most `passwordWraps` are tried; none left: `KDF_BUDGET_EXCEEDED`. Raise it only
   * for files from a source you trust with that much of the user's memory and time.
   */
  readonly kdfBudget?: KdfBudget;
}

/** Options of `decryptFile`: the job options, the signature policy, the unlock limits and the release mode. */
export interface DecryptFileOptions extends FileJobOptions, SignaturePolicyOptions, UnlockOptions {
  /**
   * `'verified'` (default): a `Promise<Blob>`, nothing released before every
   * chunk, the length and the leaf table are authenticated. `'streaming'`: a
   * `ReadableStream` that checks the leaf table against the (signed) root
   * first and then releases each chunk as soon as its recomputed leaf matches
   * its table entry and its tag verifies; the stream ends normally only when
   * every chunk arrived (else it errors: treat the output as incomplete until then).
   * A reader gets every chunk before a failing one, then the error.
   */
  readonly releaseMode?: 'verified' | 'streaming';
  /** MIME type of the resulting `Blob` (verified mode). */
  readonly type?: string;
}

/** One wrap (key slot) of a container header: its kind (password, recipient, group, threshold share) and what it names. */
export type WrapInfo =
  | { readonly type: 'pbkdf2'; readonly iterations: number }
  | { readonly type: 'argon2id'; readonly memoryKib: number; readonly iterations: number; readonly parallelism: number }
  | { readonly type: 'group'; readonly groupId: Uint8Array; readonly keyVersion: number }
  | { readonly type: 'recipient'; readonly recipientId: Uint8Array; readonly keyVersion: number }
  | { readonly type: 'threshold'; readonly t: number; readonly n: number; readonly shareSetId: Uint8Array };

/** The public header of a container. */
export interface ContainerHeader {
  /** 4 unsigned, 5 Ed25519-signed, 6 Ed25519 + ML-DSA-65 signed. */
  readonly version: 4 | 5 | 6;
  readonly mode: 'password' | 'recipient' | 'group' | 'threshold' | 'mixed' | 'none';
  readonly fileId: Uint8Array;
  readonly chunkSize: number;
  readonly plaintextSize: number;
  readonly merkleRoot: Uint8Array;
  readonly hashAlgorithm: 'sha256' | 'blake3';
  readonly headerLength: number;
  readonly containerLength: number;
  readonly chunkCount: number;
  readonly wraps: readonly WrapInfo[];
  readonly signer: { readonly ed25519: Uint8Array; readonly mlDsa65?: Uint8Array; readonly keyLogId: Uint8Array; readonly timestamp: number } | null;
  readonly sealed: { readonly mode: 'seal' | 'purge'; readonly reason: string; readonly timestamp: number; readonly sealer: Uint8Array } | null;
}

/** A container's signature as read: none, Ed25519, hybrid (Ed25519 + ML-DSA-65), or invalid. */
export type SignatureStatus = 'unsigned' | 'ed25519' | 'hybrid' | 'invalid';

/** What `inspectContainer` reports about a container without a key: its header, wraps, signature and checks. */
export interface ContainerInspection {
  readonly header: ContainerHeader;
  /** `'invalid'`: a signature is present and does not verify (every decrypt fails with `INVALID_SIGNATURE`). */
  readonly signature: SignatureStatus;
  readonly sealed: boolean;
  /** Whether the input's length is the one the header implies (`undefined` for a header-only `Uint8Array`). */
  readonly lengthValid?: boolean;
}

/** The signature policy of `inspectContainer`'s verification. */
export interface VerifyPolicy extends SignaturePolicyOptions {
  /** `'report'` (default): check every chunk and list the bad ones; `'abort'`: fail at the first. */
  readonly onTamper?: 'report' | 'abort';
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: FileProgress) => void;
}

/** What verifying a container found: the signature status and signer, and each check's outcome. */
export interface VerificationReport {
  readonly version: 4 | 5 | 6;
  readonly signature: Exclude<SignatureStatus, 'invalid'>;
  readonly signer: Uint8Array | null;
  readonly chunkCount: number;
  readonly chunksAuthenticated: true;
  readonly badChunks: readonly number[];
  readonly lengthValid: boolean;
  readonly merkleValid: boolean;
  /** No bad chunk, right length, Merkle root matched. */
  readonly intact: boolean;
}

/** A container opened for random access (see {@link openContainer}). */
export interface OpenedContainer {
  readonly header: ContainerHeader;
  readonly signature: Exclude<SignatureStatus, 'invalid'>;
  /** Plaintext size in bytes. */
  readonly size: number;
  /** Decrypts `length` bytes at `offset`: only the chunks needed, each checked against its leaf-table entry (recomputed from the bytes read now) and its AEAD tag. */
  read(offset: number, length: number, options?: { readonly signal?: AbortSignal }): Promise<Uint8Array>;
  /** Authenticates every chunk (nothing is released) and reports. */
  verify(policy?: VerifyPolicy): Promise<VerificationReport>;
  /**
   * Frees the container's worker session and terminates its private pool (if any) or gives back the
   * default pool. Idempotent; `read` / `verify` afterwards reject with `VeilError('INVALID_STATE')`.
   */
  dispose(): void;
  /** Same as `dispose()` (`using c = await openContainer(…)`). */
  [disposeSymbol](): void;
  /** @deprecated Use `dispose()` (or `using`); the same call. */
  close(): void;
}

/** What `encryptFileTo` resolves to once the container is written: `bytesWritten`, the `header`, and threshold `shares` if any. */
export interface EncryptToResult {
  /** Bytes written (the container length). */
  readonly bytesWritten: number;
  readonly header: Uint8Array;
  /** `vcs_` shares, when a threshold wrap was requested. */
  readonly shares?: readonly string[];
}
