/**
 * Browser file encryption: VOLLVALT containers (byte-exact in docs/FORMAT.md)
 * from a `File`, `Blob` or `ReadableStream`, in bounded memory, on a worker pool.
 *
 * ```ts
 * const sealed = await encryptFile(file, { password: 'correct horse battery staple' });
 * await saveFile(sealed, `${file.name}.vvlt`);
 * const plain = await decryptFile(sealed, 'correct horse battery staple');            // Blob, verified
 * const stream = decryptFile(sealed, { password: '…' }, { releaseMode: 'streaming' }); // ReadableStream
 * const c = await openContainer(sealed, '…');  const bytes = await c.read(1_000_000, 4096);  c.close();
 * ```
 *
 * How it runs (the page only orchestrates):
 * - the DEK is drawn and wrapped inside a worker's wasm (Argon2id / PBKDF2 /
 *   X-Wing / group / threshold, all in the worker), then imported there as a
 *   **non-extractable** HKDF `CryptoKey` that never leaves that worker, and
 *   wiped in wasm and JS; the page holds no DEK, KEK or password-derived byte
 *   and no key that could derive one;
 * - that worker derives each batch's chunk keys (non-extractable AES-256-GCM,
 *   one usage) and IVs with WebCrypto HKDF; chunks are sealed / opened with
 *   WebCrypto AES-GCM in any worker of the pool, byte-identical to the Rust
 *   engine; each chunk's leaf is hashed over its whole ciphertext in
 *   the same worker, and on decryption must equal its entry in the leaf table
 *   (checked against the header's signed root when the file is opened) before
 *   anything is released;
 * - inputs are read with `blob.slice()` per batch of chunks (or from the
 *   stream), and at most `concurrency` batches are in flight across the pool,
 *   so memory is O(batch × in-flight), never O(file). Results are `Blob`s
 *   (kept by the browser's blob storage) or streamed chunks.
 *
 * Passwords are JavaScript strings: they are sent to a worker as strings and
 * cannot be wiped from JavaScript memory (the UTF-8 bytes made from them in
 * the worker are). Group keys, `xWingSecretKey` and `signWithKeys` are bytes
 * you hold on the page by definition; prefer keystore identities.
 */
import { WorkerPool, type RequestBody } from './pool.js';
import { VeilError } from './errors.js';
import type { IdentityHandle, Keystore } from './keystore.js';
import {
  CONTAINER, MLDSA_HEADER_CONTEXT, RECIPIENT_ID_LABEL, bytesToHex, chunkCount, chunkLength, concatBytes, containerLength, envelopeOffset,
  headerHashPreimage, hexToBytes,
} from './files-format.js';
import type {
  ChunkContext, ChunkKeys, ChunksOut, EncryptBegun, EncryptFinished, EncryptPlan, HeaderNeedsMore, HeaderRead, RawHeaderInfo, SignaturePolicy, UnlockSpec,
} from '../worker/files.protocol.js';

export { CONTAINER } from './files-format.js';

// ---------------------------------------------------------------- public types

/** What can be encrypted or decrypted: a `File` (a `Blob`), a `Blob`, or a byte stream. */
export type FileInput = Blob | ReadableStream<Uint8Array>;

export interface FileProgress {
  /** Plaintext bytes done. */
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly chunksDone: number;
  readonly chunksTotal: number;
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

export interface GroupKey {
  /** 16-byte group id. */
  readonly id: Uint8Array;
  /** Key version (manifest key epoch), 0 … 2^32 − 1. */
  readonly keyVersion: number;
  /** The 32-byte group key of that version. */
  readonly key: Uint8Array;
}

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

export interface FileJobOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: FileProgress) => void;
  /** Run on this pool (not disposed). Default: a private pool of `workers` workers, terminated when the call ends. */
  readonly pool?: WorkerPool;
  /** Size of the private pool (default `min(hardwareConcurrency, 4)`). */
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
  /**
   * **Tests only**: fixed DEK and file id, so that the output can be compared
   * byte for byte with the Rust engine. Never use for real data.
   */
  readonly unsafeFixedKeysForTesting?: { readonly dek: Uint8Array; readonly fileId: Uint8Array };
}

/** How to open a container: a password, `vcs_` shares, a group key, a keystore identity, or (low-level) an X-Wing secret key. */
export type FileUnlock =
  | string
  | readonly string[]
  | { readonly password: string }
  | { readonly shares: readonly string[] }
  | { readonly group: GroupKey }
  | { readonly keystore: Keystore; readonly identity: IdentityHandle | string }
  | { readonly xWingSecretKey: Uint8Array; readonly recipientId?: Uint8Array };

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

export interface DecryptFileOptions extends FileJobOptions, SignaturePolicyOptions {
  /**
   * `'verified'` (default): a `Promise<Blob>`, nothing released before every
   * chunk, the length and the leaf table are authenticated. `'streaming'`: a
   * `ReadableStream` that checks the leaf table against the (signed) root
   * first and then releases each chunk as soon as its recomputed leaf matches
   * its table entry and its tag verifies; the stream ends normally only when
   * every chunk arrived (else it errors: treat the output as incomplete until then).
   */
  readonly releaseMode?: 'verified' | 'streaming';
  /** MIME type of the resulting `Blob` (verified mode). */
  readonly type?: string;
}

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

export type SignatureStatus = 'unsigned' | 'ed25519' | 'hybrid' | 'invalid';

export interface ContainerInspection {
  readonly header: ContainerHeader;
  /** `'invalid'`: a signature is present and does not verify (every decrypt fails with `INVALID_SIGNATURE`). */
  readonly signature: SignatureStatus;
  readonly sealed: boolean;
  /** Whether the input's length is the one the header implies (`undefined` for a header-only `Uint8Array`). */
  readonly lengthValid?: boolean;
}

export interface VerifyPolicy extends SignaturePolicyOptions {
  /** `'report'` (default): check every chunk and list the bad ones; `'abort'`: fail at the first. */
  readonly onTamper?: 'report' | 'abort';
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: FileProgress) => void;
}

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
  /** Terminates the private pool (if any). Further reads fail. */
  close(): void;
}

export interface EncryptToResult {
  /** Bytes written (the container length). */
  readonly bytesWritten: number;
  readonly header: Uint8Array;
  /** `vcs_` shares, when a threshold wrap was requested. */
  readonly shares?: readonly string[];
}

// ---------------------------------------------------------------- validation

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function isBytes(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array;
}

function bytesOf(name: string, v: unknown, length?: number): Uint8Array {
  if (!isBytes(v)) throw new TypeError(`${name} must be a Uint8Array`);
  if (length !== undefined && v.length !== length) throw new RangeError(`${name} must be ${length} bytes, got ${v.length}`);
  return v;
}

function int(name: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new TypeError(`${name} must be an integer`);
  if (v < min || v > max) throw new RangeError(`${name} must be between ${min} and ${max}, got ${v}`);
  return v;
}

function isStream(v: unknown): v is ReadableStream<Uint8Array> {
  return typeof ReadableStream === 'function' && v instanceof ReadableStream;
}

function checkInput(name: string, v: unknown): FileInput {
  if (v instanceof Blob || isStream(v)) return v;
  throw new TypeError(`${name} must be a File, a Blob or a ReadableStream`);
}

function password(v: unknown): string {
  if (typeof v !== 'string') throw new TypeError('password must be a string');
  if (v.length === 0) throw new RangeError('password must not be empty');
  return v;
}

function kdfOf(kdf: PasswordKdf | undefined): EncryptPlan['passwords'][number]['kdf'] {
  if (kdf === undefined || kdf.algorithm === 'argon2id') {
    const k = (kdf ?? { algorithm: 'argon2id' }) as Extract<PasswordKdf, { algorithm: 'argon2id' }>;
    return {
      algorithm: 'argon2id',
      memoryKib: int('kdf.memoryKib', k.memoryKib ?? 65_536, 19_456, 1_048_576),
      iterations: int('kdf.iterations', k.iterations ?? 3, 2, 10),
      parallelism: int('kdf.parallelism', k.parallelism ?? 4, 1, 16),
    };
  }
  if (kdf.algorithm === 'pbkdf2') return { algorithm: 'pbkdf2', iterations: int('kdf.iterations', kdf.iterations ?? 600_000, 600_000, 10_000_000) };
  throw new TypeError(`kdf.algorithm must be 'argon2id' or 'pbkdf2'`);
}

function recipientOf(r: RecipientPublicKey, i: number): EncryptPlan['recipients'][number] {
  const name = `recipients[${i}]`;
  if (isBytes(r)) return { publicKey: bytesOf(name, r, CONTAINER.xWingPublicKeyLength), keyVersion: 0 };
  if (typeof r !== 'object' || r === null) throw new TypeError(`${name} must be an X-Wing public key or { publicKey }`);
  if ('xWing' in r) return { publicKey: bytesOf(`${name}.xWing`, r.xWing, CONTAINER.xWingPublicKeyLength), keyVersion: 0 };
  return {
    publicKey: bytesOf(`${name}.publicKey`, r.publicKey, CONTAINER.xWingPublicKeyLength),
    keyVersion: int(`${name}.keyVersion`, r.keyVersion ?? 0, 0, 0xffff_ffff),
    ...(r.recipientId === undefined ? {} : { recipientId: bytesOf(`${name}.recipientId`, r.recipientId, 16) }),
  };
}

function groupOf(g: GroupKey, name = 'group'): { id: Uint8Array; keyVersion: number; key: Uint8Array } {
  if (typeof g !== 'object' || g === null) throw new TypeError(`${name} must be { id, keyVersion, key }`);
  return {
    id: bytesOf(`${name}.id`, g.id, 16),
    keyVersion: int(`${name}.keyVersion`, g.keyVersion, 0, 0xffff_ffff),
    key: bytesOf(`${name}.key`, g.key, 32),
  };
}

function isKeystore(v: unknown): v is Keystore {
  return typeof v === 'object' && v !== null && typeof (v as Keystore).sign === 'function'
    && typeof (v as Keystore).decapsulate === 'function' && typeof (v as Keystore).getPublicBundle === 'function';
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Everything of the plan but the size (known once the input is). */
function planOf(o: EncryptFileOptions): Omit<EncryptPlan, 'plaintextSize' | 'signer'> {
  if (typeof o !== 'object' || o === null) throw new TypeError('options must be an object');
  const passwords = o.password === undefined ? [] : [{ password: password(o.password), kdf: kdfOf(o.kdf) }];
  if (o.password === undefined && o.kdf !== undefined) throw new TypeError('kdf needs a password');
  if (o.recipients !== undefined && !Array.isArray(o.recipients)) throw new TypeError('recipients must be an array');
  const recipients = (o.recipients ?? []).map(recipientOf);
  const groups = o.group === undefined ? [] : [groupOf(o.group)];
  const thresholds = o.threshold === undefined ? [] : [(() => {
    if (typeof o.threshold !== 'object' || o.threshold === null) throw new TypeError('threshold must be { t, n }');
    const n = int('threshold.n', o.threshold.n, 2, 255);
    return { t: int('threshold.t', o.threshold.t, 2, n), n };
  })()];
  if (passwords.length + recipients.length + groups.length + thresholds.length === 0) {
    throw new TypeError('options must name a protection: password, recipients, group and/or threshold');
  }
  if (passwords.length + recipients.length + groups.length + thresholds.length > 255) throw new RangeError('at most 255 wraps');
  const hash = o.hash ?? 'sha256';
  if (hash !== 'sha256' && hash !== 'blake3') throw new TypeError(`hash must be 'sha256' or 'blake3'`);
  if (o.sign !== undefined && o.signWithKeys !== undefined) throw new TypeError('give sign or signWithKeys, not both');
  const fixed = o.unsafeFixedKeysForTesting;
  return {
    chunkSize: int('chunkSize', o.chunkSize ?? CONTAINER.defaultChunkSize, CONTAINER.minChunkSize, CONTAINER.maxChunkSize),
    hashAlgorithm: hash === 'blake3' ? 1 : 0,
    passwords,
    recipients,
    groups,
    thresholds,
    ...(fixed === undefined ? {} : { fixedKeys: { dek: bytesOf('dek', fixed.dek, 32), fileId: bytesOf('fileId', fixed.fileId, 16) } }),
  };
}

function pinOf(v: unknown): NonNullable<SignaturePolicy['expectedSigner']> {
  if (isBytes(v)) return { ed25519: bytesOf('expectedSigner', v, 32) };
  if (typeof v !== 'object' || v === null) throw new TypeError('expectedSigner must be an Ed25519 public key or { ed25519, mlDsa65? }');
  const o = v as { ed25519?: unknown; mlDsa65?: unknown };
  return {
    ed25519: bytesOf('expectedSigner.ed25519', o.ed25519, 32),
    ...(o.mlDsa65 === undefined ? {} : { mlDsa65: bytesOf('expectedSigner.mlDsa65', o.mlDsa65, 1952) }),
  };
}

function policyOf(o: SignaturePolicyOptions): SignaturePolicy {
  const s = o.signature ?? 'optional';
  if (s !== 'required' && s !== 'optional') throw new TypeError(`signature must be 'required' or 'optional'`);
  return { required: s === 'required', ...(o.expectedSigner === undefined ? {} : { expectedSigner: pinOf(o.expectedSigner) }) };
}

type UnlockRoute = { readonly kind: 'worker'; readonly spec: UnlockSpec } | { readonly kind: 'identity'; readonly keystore: Keystore; readonly identity: IdentityHandle | string };

function unlockOf(u: FileUnlock): UnlockRoute {
  if (typeof u === 'string') return { kind: 'worker', spec: { kind: 'password', password: password(u) } };
  if (Array.isArray(u)) return sharesOf(u);
  if (typeof u !== 'object' || u === null) throw new TypeError('unlock must be a password, shares, { group }, { keystore, identity } or { xWingSecretKey }');
  if ('password' in u) return { kind: 'worker', spec: { kind: 'password', password: password(u.password) } };
  if ('shares' in u) return sharesOf(u.shares);
  if ('group' in u) return { kind: 'worker', spec: { kind: 'group', ...groupOf(u.group, 'unlock.group') } };
  if ('keystore' in u) {
    if (!isKeystore(u.keystore)) throw new TypeError('unlock.keystore must be a Keystore');
    return { kind: 'identity', keystore: u.keystore, identity: u.identity };
  }
  if ('xWingSecretKey' in u) {
    return {
      kind: 'worker',
      spec: {
        kind: 'x-wing-secret-key', secretKey: bytesOf('unlock.xWingSecretKey', u.xWingSecretKey, 32),
        ...(u.recipientId === undefined ? {} : { recipientId: bytesOf('unlock.recipientId', u.recipientId, 16) }),
      },
    };
  }
  throw new TypeError('unlock must be a password, shares, { group }, { keystore, identity } or { xWingSecretKey }');
}

function sharesOf(shares: unknown): UnlockRoute {
  if (!Array.isArray(shares) || shares.length === 0 || !shares.every((s) => typeof s === 'string')) {
    throw new TypeError('shares must be a non-empty array of vcs_ strings');
  }
  return { kind: 'worker', spec: { kind: 'shares', shares: shares as string[] } };
}

function headerOf(r: RawHeaderInfo): ContainerHeader {
  if (!Number.isSafeInteger(r.plaintextSize) || !Number.isSafeInteger(r.containerLength)) {
    throw new VeilError('INVALID_PLAINTEXT_SIZE', 'the plaintext size is beyond what JavaScript can address');
  }
  const wraps = r.wraps.map((w): WrapInfo => {
    switch (w.type) {
      case 'pbkdf2': return { type: 'pbkdf2', iterations: w.iterations };
      case 'argon2id': return { type: 'argon2id', memoryKib: w.memoryKib, iterations: w.iterations, parallelism: w.parallelism };
      case 'group': return { type: 'group', groupId: hexToBytes(w.groupId), keyVersion: w.keyVersion };
      case 'recipient': return { type: 'recipient', recipientId: hexToBytes(w.recipientId), keyVersion: w.keyVersion };
      case 'threshold': return { type: 'threshold', t: w.t, n: w.n, shareSetId: hexToBytes(w.shareSetId) };
    }
  });
  return {
    version: r.version, mode: r.mode, fileId: hexToBytes(r.fileId), chunkSize: r.chunkSize, plaintextSize: r.plaintextSize,
    merkleRoot: hexToBytes(r.merkleRoot), hashAlgorithm: r.hashAlgorithm, headerLength: r.headerLength,
    containerLength: r.containerLength, chunkCount: r.chunkCount, wraps,
    signer: r.signer === null ? null : {
      ed25519: hexToBytes(r.signer.ed25519), keyLogId: hexToBytes(r.signer.keyLogId), timestamp: r.signer.timestamp,
      ...(r.signer.mlDsa65 === null ? {} : { mlDsa65: hexToBytes(r.signer.mlDsa65) }),
    },
    sealed: r.sealed === null ? null : { mode: r.sealed.mode, reason: r.sealed.reason, timestamp: r.sealed.timestamp, sealer: hexToBytes(r.sealed.sealer) },
  };
}

function ctxOf(r: RawHeaderInfo, headerHash: Uint8Array): ChunkContext {
  return {
    fileId: hexToBytes(r.fileId), headerHash, chunkSize: r.chunkSize, plaintextSize: r.plaintextSize,
    hashAlgorithm: r.hashAlgorithm === 'blake3' ? 1 : 0,
  };
}

// ---------------------------------------------------------------- the job: pool, abort, sessions

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

function defaultWorkers(): number {
  const n = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  return Math.max(1, Math.min(typeof n === 'number' && n > 0 ? n : 2, 4));
}

function sessionId(): string {
  const c = globalThis.crypto as Crypto & { randomUUID?: () => string };
  return typeof c.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/** One file operation: its pool, an abort controller (the caller's signal, or our first error) and a worker session. */
class FileJob {
  readonly pool: WorkerPool;
  readonly session = sessionId();
  readonly limit: number;
  readonly batchBytes: number;
  private readonly owned: boolean;
  private readonly controller = new AbortController();
  private readonly userSignal: AbortSignal | undefined;
  private readonly onUserAbort = () => this.controller.abort(abortReason(this.userSignal!));
  private opened = false;
  private closed = false;

  constructor(options: FileJobOptions) {
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw new TypeError('signal must be an AbortSignal');
    if (options.pool !== undefined && !(options.pool instanceof WorkerPool)) throw new TypeError('pool must be a WorkerPool');
    const workers = int('workers', options.workers ?? defaultWorkers(), 1, 64);
    this.batchBytes = int('batchBytes', options.batchBytes ?? 16 << 20, 1, 1 << 30);
    this.userSignal = options.signal;
    if (this.userSignal?.aborted) throw abortReason(this.userSignal);
    this.userSignal?.addEventListener('abort', this.onUserAbort, { once: true });
    this.owned = options.pool === undefined;
    // The private pool: no idle termination while the operation lives (the session's wasm
    // handle is in one of its workers); the single-threaded build (no nested thread pools).
    this.pool = options.pool ?? new WorkerPool({ size: workers, idleTimeoutMs: 0, threads: false });
    this.limit = int('concurrency', options.concurrency ?? 2 * this.pool.size, 1, 1024);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops everything in flight (first caller's reason wins). */
  fail(e: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(e);
  }

  /** The error to report: the abort reason if the job was stopped, else `e`. */
  error(e: unknown): unknown {
    return this.controller.signal.aborted ? this.controller.signal.reason : e;
  }

  throwIfStopped(): void {
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
  }

  run<T>(body: RequestBody, options: { session?: boolean; transfer?: Transferable[] } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new VeilError('INVALID_STATE', 'this file operation has ended'));
    if (options.session) this.opened = true;
    return this.pool.run(body, {
      signal: this.controller.signal,
      ...(options.session ? { affinity: `files:${this.session}` } : {}),
      ...(options.transfer ? { transfer: options.transfer } : {}),
    }) as Promise<T>;
  }

  /** Frees the worker session and, for a private pool, terminates every worker. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.userSignal?.removeEventListener('abort', this.onUserAbort);
    if (this.owned) {
      this.pool.dispose();
    } else if (this.opened) {
      this.pool.run({ type: 'files/close', session: this.session }, { affinity: `files:${this.session}` }).catch(() => {});
    }
  }
}

/**
 * Runs `count` tasks with at most `limit` started but not yet consumed, and
 * hands their results to `consume` in index order. The first failure stops it.
 */
function pipeline<T>(job: FileJob, count: number, start: (i: number) => Promise<T>, consume: (i: number, v: T) => Promise<void> | void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const results = new Map<number, T>();
    let next = 0;
    let consumed = 0;
    let failed = false;
    let draining = false;
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      job.fail(e);
      reject(job.error(e));
    };
    const onAbort = () => fail(job.signal.reason);
    job.signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      job.signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const pump = () => {
      while (!failed && next < count && next - consumed < job.limit) {
        const i = next++;
        let p: Promise<T>;
        try {
          p = start(i);
        } catch (e) {
          fail(e);
          return;
        }
        p.then((v) => {
          results.set(i, v);
          void drain();
        }, fail);
      }
      if (!failed && consumed === count) done();
    };
    const drain = async () => {
      if (draining || failed) return;
      draining = true;
      try {
        while (!failed && results.has(consumed)) {
          const v = results.get(consumed) as T;
          results.delete(consumed);
          await consume(consumed, v);
          consumed++;
          pump();
        }
      } catch (e) {
        fail(e);
      } finally {
        draining = false;
      }
    };
    if (job.signal.aborted) fail(job.signal.reason);
    else pump();
  });
}

/** Batches of `per` chunks: batch `b` covers chunks `[b·per, min(n, (b+1)·per))`. */
function batching(n: number, chunkSize: number, batchBytes: number): { per: number; batches: number; range: (b: number) => [number, number] } {
  const per = Math.max(1, Math.floor(batchBytes / chunkSize));
  return { per, batches: Math.ceil(n / per), range: (b) => [b * per, Math.min(n, (b + 1) * per) - b * per] };
}

function progress(cb: FileJobOptions['onProgress'], bytesTotal: number, chunksTotal: number) {
  let bytesDone = 0;
  let chunksDone = 0;
  if (cb !== undefined && typeof cb !== 'function') throw new TypeError('onProgress must be a function');
  return (bytes: number, chunks: number) => {
    bytesDone += bytes;
    chunksDone += chunks;
    try {
      cb?.({ bytesDone, bytesTotal, chunksDone, chunksTotal });
    } catch {
      // a throwing progress callback must not break the operation
    }
  };
}

/** Feeds the chunks' leaves to the session's encryptor in order, in messages of up to 1024 chunks. */
class LeafFeed {
  private parts: Uint8Array[] = [];
  private first = 0;
  private count = 0;

  constructor(private readonly job: FileJob) {}

  async push(leaves: Uint8Array): Promise<void> {
    this.parts.push(leaves);
    this.count += leaves.length / CONTAINER.leafLength;
    if (this.count >= 1024) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const leaves = concatBytes(this.parts);
    const first = this.first;
    this.first += this.count;
    this.parts = [];
    this.count = 0;
    await this.job.run({ type: 'files/encrypt-leaves', session: this.job.session, first, leaves }, { session: true, transfer: [leaves.buffer] });
  }
}

// ---------------------------------------------------------------- reading inputs

/** Sequential exact-size reads from a byte stream (each `read` waits for the previous one). */
class StreamBytes {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private pending: Uint8Array | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private ended = false;
  total = 0;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /** Up to `n` bytes (fewer only at the end of the stream), in a fresh buffer. */
  read(n: number): Promise<Uint8Array<ArrayBuffer>> {
    const p = this.queue.then(() => this.readNow(n));
    this.queue = p.catch(() => {});
    return p;
  }

  private async readNow(n: number): Promise<Uint8Array<ArrayBuffer>> {
    const out = new Uint8Array(n);
    let have = 0;
    while (have < n) {
      if (this.pending === undefined) {
        if (this.ended) break;
        const { done, value } = await this.reader.read();
        if (done) {
          this.ended = true;
          break;
        }
        if (!(value instanceof Uint8Array)) throw new TypeError('the stream must yield Uint8Array chunks');
        this.pending = value;
      }
      const take = Math.min(n - have, this.pending.length);
      out.set(this.pending.subarray(0, take), have);
      have += take;
      this.pending = take === this.pending.length ? undefined : this.pending.subarray(take);
    }
    this.total += have;
    return have === n ? out : out.slice(0, have);
  }

  /** Whether the stream has more bytes. */
  async hasMore(): Promise<boolean> {
    const more = await this.read(1);
    return more.length > 0;
  }

  cancel(reason?: unknown): void {
    this.reader.cancel(reason).catch(() => {});
  }
}

/** A container input: random access (Blob) or sequential (stream). */
interface ContainerSource {
  readonly size: number | undefined;
  /** Bytes `[0, n)` (fewer at the end), only ever called with growing `n` before `body`. */
  prefix(n: number): Promise<Uint8Array<ArrayBuffer>>;
  /** The next `length` bytes starting at `offset` (streams: must be called in order). */
  body(offset: number, length: number): Promise<Blob | Uint8Array<ArrayBuffer>>;
  /** Streams: whether bytes follow offset `end` (the container's end; every body read so far ends there). */
  trailing(end: number): Promise<boolean>;
  cancel(reason?: unknown): void;
}

function containerSource(input: FileInput): ContainerSource {
  if (input instanceof Blob) {
    return {
      size: input.size,
      prefix: async (n) => new Uint8Array(await input.slice(0, n).arrayBuffer()),
      body: async (offset, length) => input.slice(offset, offset + length),
      trailing: async () => false,
      cancel: () => {},
    };
  }
  const s = new StreamBytes(input);
  // Bytes already read from the stream: `buf` holds container bytes [bufStart, bufStart + buf.length).
  // State changes happen synchronously at call time; the stream reads themselves are queued in order.
  let buf: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  let bufStart = 0;
  return {
    size: undefined,
    prefix: async (n) => {
      if (bufStart !== 0) throw new VeilError('INTERNAL', 'prefix read after the body');
      if (n > buf.length) buf = concatBytes([buf, await s.read(n - buf.length)]);
      return buf.slice(0, n);
    },
    body: (offset, length) => {
      if (offset < bufStart) return Promise.reject(new VeilError('INTERNAL', 'stream bodies must be read in order'));
      const at = Math.min(offset - bufStart, buf.length);
      const head = buf.subarray(at, Math.min(buf.length, at + length));
      const end = offset + length;
      if (end <= bufStart + buf.length) {
        buf = buf.subarray(end - bufStart);
      } else {
        buf = new Uint8Array(0);
      }
      bufStart = end;
      const rest = length - head.length;
      if (rest === 0) return Promise.resolve(head.slice());
      return s.read(rest).then((tail) => (head.length === 0 ? tail : concatBytes([head, tail])));
    },
    trailing: async (end) => bufStart + buf.length > end || s.hasMore(),
    cancel: (reason) => s.cancel(reason),
  };
}

// ---------------------------------------------------------------- encryption

interface EnvelopeSink {
  readonly output: 'blob' | 'bytes';
  /** `prefixLength`: the header and the leaf table, written last (the first envelope starts there). */
  begin(prefixLength: number): Promise<void> | void;
  /** Envelopes of the chunks from `first`, in order. */
  put(first: number, data: Blob | readonly Uint8Array[]): Promise<void> | void;
  /** `prefix`: the final header followed by the leaf table. */
  finish(prefix: Uint8Array): Promise<void> | void;
  abort(reason: unknown): Promise<void> | void;
}

async function encryptCore(input: FileInput, options: EncryptFileOptions, sink: EnvelopeSink): Promise<{ header: Uint8Array; shares: string[]; length: number }> {
  const base = planOf(options);
  let size: number;
  let read: (first: number, count: number, bytes: number) => Promise<Blob | Uint8Array<ArrayBuffer>>;
  let stream: StreamBytes | undefined;
  if (input instanceof Blob) {
    size = input.size;
    if (options.size !== undefined && options.size !== size) throw new RangeError(`size ${String(options.size)} does not match the Blob's ${size} bytes`);
    read = async (first, _count, bytes) => input.slice(first * base.chunkSize, first * base.chunkSize + bytes);
  } else {
    if (options.size === undefined) throw new TypeError('a ReadableStream input needs options.size (its exact byte count)');
    size = int('size', options.size, 0, MAX_SAFE);
    const s = new StreamBytes(input);
    stream = s;
    read = async (_first, _count, bytes) => {
      const b = await s.read(bytes);
      if (b.length !== bytes) throw new VeilError('SIZE_MISMATCH', `the stream ended after ${s.total} bytes; options.size is ${size}`);
      return b;
    };
  }
  if (Math.ceil(size / base.chunkSize) > 2 ** 32) throw new RangeError('the input needs more than 2^32 chunks at this chunk size');
  const job = new FileJob(options);
  try {
    const signer = await signerOf(options);
    // Secret bytes go to the worker as copies that are transferred (nothing stays on the page) and wiped there.
    const transfer: ArrayBuffer[] = [];
    const own = (b: Uint8Array): Uint8Array => {
      const c = b.slice();
      transfer.push(c.buffer);
      return c;
    };
    const plan: EncryptPlan = {
      ...base,
      plaintextSize: size,
      groups: base.groups.map((g) => ({ ...g, key: own(g.key) })),
      ...(base.fixedKeys ? { fixedKeys: { dek: own(base.fixedKeys.dek), fileId: base.fixedKeys.fileId } } : {}),
      ...(signer ? { signer: signer.plan.kind === 'keys' ? { ...signer.plan, ed25519Seed: own(signer.plan.ed25519Seed), ...(signer.plan.mlDsaSeed ? { mlDsaSeed: own(signer.plan.mlDsaSeed) } : {}) } : signer.plan } : {}),
    };
    const begun = await job.run<EncryptBegun>({ type: 'files/encrypt-begin', session: job.session, plan }, { session: true, transfer });
    const keysFor = chunkKeysOf(job, begun.fileId, 'encrypt');
    const ctx: ChunkContext = { fileId: begun.fileId, headerHash: begun.headerHash, chunkSize: base.chunkSize, plaintextSize: size, hashAlgorithm: base.hashAlgorithm };
    await sink.begin(begun.prefixLength);
    const n = begun.chunkCount;
    const { batches, range } = batching(n, base.chunkSize, job.batchBytes);
    const tick = progress(options.onProgress, size, n);
    const leaves = new LeafFeed(job);
    await pipeline(job, batches, async (b) => {
      const [first, count] = range(b);
      const bytes = Math.min(size, (first + count) * base.chunkSize) - first * base.chunkSize;
      const [source, chunkKeys] = await Promise.all([read(first, count, bytes), keysFor(first, count)]);
      job.throwIfStopped();
      const out = await job.run<ChunksOut>(
        { type: 'files/encrypt-chunks', chunkKeys, ctx, first, source, output: sink.output },
        source instanceof Uint8Array ? { transfer: [source.buffer] } : {},
      );
      tick(bytes, count);
      return out;
    }, async (b, out) => {
      await sink.put(range(b)[0], out.data);
      if (!(out.leaves instanceof Uint8Array)) throw new VeilError('INTERNAL', 'a chunk batch came back without its leaves');
      await leaves.push(out.leaves);
    });
    if (stream !== undefined && await stream.hasMore()) {
      throw new VeilError('SIZE_MISMATCH', `the stream has more than options.size (${size}) bytes`);
    }
    await leaves.flush();
    const fin = await job.run<EncryptFinished>({ type: 'files/encrypt-finish', session: job.session }, { session: true });
    let prefix: Uint8Array;
    if ('header' in fin) {
      prefix = fin.header;
    } else {
      if (!signer?.sign) throw new VeilError('INTERNAL', 'an external signature was requested without a signer');
      const sigs = await signer.sign(fin.signedMessage);
      prefix = await job.run<Uint8Array>({ type: 'files/encrypt-finish-signed', session: job.session, ...sigs }, { session: true });
    }
    if (prefix.length !== begun.prefixLength) throw new VeilError('INTERNAL', 'the header changed length');
    await sink.finish(prefix);
    return { header: prefix.slice(0, begun.headerLength), shares: begun.shares.flat(), length: containerLength(begun.headerLength, size, base.chunkSize) };
  } catch (e) {
    const err = job.error(e);
    job.fail(err);
    stream?.cancel(err);
    await Promise.resolve(sink.abort(err)).catch(() => {});
    throw err;
  } finally {
    job.close();
  }
}

interface PreparedSigner {
  readonly plan: NonNullable<EncryptPlan['signer']>;
  readonly sign?: (message: Uint8Array) => Promise<{ ed25519: Uint8Array; mlDsa65?: Uint8Array }>;
}

async function signerOf(o: EncryptFileOptions): Promise<PreparedSigner | undefined> {
  if (o.signWithKeys !== undefined) {
    const k = o.signWithKeys;
    return {
      plan: {
        kind: 'keys',
        ed25519Seed: bytesOf('signWithKeys.ed25519Seed', k.ed25519Seed, 32),
        ...(k.mlDsaSeed === undefined ? {} : { mlDsaSeed: bytesOf('signWithKeys.mlDsaSeed', k.mlDsaSeed, 32) }),
        keyLogId: k.keyLogId === undefined ? new Uint8Array(32) : bytesOf('signWithKeys.keyLogId', k.keyLogId, 32),
        timestamp: int('signWithKeys.timestamp', k.timestamp ?? nowSeconds(), 0, MAX_SAFE),
      },
    };
  }
  if (o.sign === undefined) return undefined;
  const s = o.sign;
  if (typeof s !== 'object' || s === null || !isKeystore(s.keystore)) throw new TypeError('sign must be { keystore, identity }');
  const bundle = await s.keystore.getPublicBundle(s.identity);
  // An identity with an ML-DSA-65 key always signs hybrid: an Ed25519-only header of a hybrid
  // identity would give verifiers pinning only its Ed25519 key no post-quantum authenticity.
  const hybrid = bundle.mlDsa65 !== undefined;
  if (s.hybrid === false && hybrid) throw new TypeError('an identity with an ML-DSA-65 key always signs hybrid (sign.hybrid: false is refused)');
  if (s.hybrid === true && !hybrid) throw new TypeError('sign.hybrid needs an identity with an ML-DSA-65 key');
  return {
    plan: {
      kind: 'external',
      ed25519Public: bundle.ed25519,
      ...(hybrid ? { mlDsa65Public: bundle.mlDsa65! } : {}),
      keyLogId: s.keyLogId === undefined ? new Uint8Array(32) : bytesOf('sign.keyLogId', s.keyLogId, 32),
      timestamp: int('sign.timestamp', s.timestamp ?? nowSeconds(), 0, MAX_SAFE),
    },
    sign: async (message) => {
      if (!hybrid) return { ed25519: await s.keystore.sign(s.identity, message) };
      // Both halves over the same message in one keystore call.
      const sig = await s.keystore.signHybrid(s.identity, message, { context: MLDSA_HEADER_CONTEXT });
      return { ed25519: sig.ed25519, mlDsa65: sig.mlDsa65 };
    },
  };
}

function blobSink(type: string): EnvelopeSink & { result(): Blob | undefined } {
  let parts: (Blob | Uint8Array<ArrayBuffer>)[] = [];
  let out: Blob | undefined;
  return {
    output: 'blob',
    begin: () => {},
    put: (_first, data) => {
      if (data instanceof Blob) parts.push(data);
      else parts.push(...(data as Uint8Array<ArrayBuffer>[]));
    },
    finish: (header) => {
      out = new Blob([header as Uint8Array<ArrayBuffer>, ...parts], { type });
      parts = [];
    },
    abort: () => {
      parts = [];
    },
    result: () => out,
  };
}

/**
 * Encrypts a `File`, `Blob` or `ReadableStream` (with `options.size`) into a
 * VOLLVALT container `Blob`. With a threshold wrap the result carries the
 * `vcs_` shares (hand them out; they are not stored anywhere else).
 */
export function encryptFile(input: FileInput, options: EncryptFileOptions & { readonly threshold: ThresholdOptions }): Promise<Blob & { readonly shares: readonly string[] }>;
export function encryptFile(input: FileInput, options: EncryptFileOptions): Promise<Blob>;
export async function encryptFile(input: FileInput, options: EncryptFileOptions): Promise<Blob> {
  checkInput('input', input);
  const type = options?.type ?? 'application/octet-stream';
  if (typeof type !== 'string') throw new TypeError('type must be a string');
  const sink = blobSink(type);
  const r = await encryptCore(input, options, sink);
  const blob = sink.result()!;
  if (options.threshold !== undefined) Object.defineProperty(blob, 'shares', { value: Object.freeze([...r.shares]), enumerable: true });
  return blob;
}

/**
 * Encrypts into a File System Access writable (seekable model): a
 * placeholder header and leaf table first, each batch of envelopes written
 * at its position as it is produced, the real header and leaf table written
 * over the placeholder at the end, then `close()`. On any failure or abort the writable is `abort()`ed,
 * so the target file keeps no partial result.
 */
export async function encryptFileTo(input: FileInput, writable: FileSystemWritableFileStream, options: EncryptFileOptions): Promise<EncryptToResult> {
  checkInput('input', input);
  if (typeof writable !== 'object' || writable === null || typeof (writable as { write?: unknown }).write !== 'function') {
    throw new TypeError('writable must be a FileSystemWritableFileStream');
  }
  let prefixLength = 0;
  const chunkSize = options?.chunkSize ?? CONTAINER.defaultChunkSize;
  // The envelopes come back from the workers as transferred buffers and go straight to the file:
  // no Blob in between, so a multi-GiB run never leans on the browser's blob storage (whose
  // overflow is paged to disk and can fail to read back).
  const sink: EnvelopeSink = {
    output: 'bytes',
    begin: async (h) => {
      prefixLength = h;
      await writable.write({ type: 'write', position: 0, data: new Uint8Array(h) });
    },
    put: async (first, data) => {
      let position = prefixLength + envelopeOffset(chunkSize, first);
      for (const part of data instanceof Blob ? [data] : data) {
        await writable.write({ type: 'write', position, data: part as Uint8Array<ArrayBuffer> | Blob });
        position += part instanceof Blob ? part.size : part.length;
      }
    },
    finish: async (prefix) => {
      await writable.write({ type: 'write', position: 0, data: prefix as Uint8Array<ArrayBuffer> });
      await writable.close();
    },
    abort: async (reason) => {
      await writable.abort(reason);
    },
  };
  const r = await encryptCore(input, options, sink);
  return { bytesWritten: r.length, header: r.header, ...(options.threshold !== undefined ? { shares: r.shares } : {}) };
}

// ---------------------------------------------------------------- opening

interface Opened {
  readonly raw: RawHeaderInfo;
  readonly header: ContainerHeader;
  readonly headerBytes: Uint8Array;
  readonly signature: Exclude<SignatureStatus, 'invalid'>;
  readonly ctx: ChunkContext;
  /** Chunk keys (one usage) and IVs of a range, from the DEK in the session's worker. */
  readonly keys: (first: number, count: number, signal?: AbortSignal) => Promise<ChunkKeys>;
  /** The leaf table, checked against the header's root by the session reader. */
  readonly table: Uint8Array;
  /** Offset of the first envelope: header and leaf table. */
  readonly bodyOffset: number;
}

/** Reads the header (growing the prefix as the worker asks). */
async function readHeader(job: FileJob, source: ContainerSource, policy: SignaturePolicy | undefined, keep: boolean): Promise<{ read: HeaderRead; bytes: Uint8Array; hash: Uint8Array }> {
  let n = Math.min(source.size ?? Infinity, 8192);
  for (;;) {
    const bytes = await source.prefix(n);
    const r = await job.run<HeaderRead | HeaderNeedsMore>(
      { type: 'files/open', header: bytes, ...(policy ? { policy } : {}), ...(keep ? { session: job.session } : {}) },
      keep ? { session: true } : {},
    );
    if (r.needed === undefined) return { read: r, bytes: bytes.slice(0, r.info.headerLength), hash: await headerHashOf(r.info) };
    if (bytes.length < n || r.needed <= bytes.length) throw truncated(r.needed, bytes.length);
    n = r.needed;
  }
}

function preimageOf(r: RawHeaderInfo): Uint8Array<ArrayBuffer> {
  return headerHashPreimage(hexToBytes(r.fileId), r.chunkSize, r.plaintextSize, r.hashAlgorithm === 'blake3' ? 1 : 0);
}

/** `header_hash` (FORMAT.md §6.2) from the public header fields, with WebCrypto SHA-256. */
async function headerHashOf(r: RawHeaderInfo): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', preimageOf(r)));
}

function truncated(needed: number, got: number): VeilError {
  return Object.assign(new VeilError('TRUNCATED', `truncated: need ${needed} bytes, got ${got}`), { needed, got });
}

async function recipientIdOf(xWingPublicKey: Uint8Array): Promise<Uint8Array> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', concatBytes([RECIPIENT_ID_LABEL, xWingPublicKey])));
  return d.slice(0, 16);
}

/** The session's chunk keys and IVs for a range (the DEK stays in the session's worker). */
function chunkKeysOf(job: FileJob, fileId: Uint8Array, usage: 'encrypt' | 'decrypt'): (first: number, count: number) => Promise<ChunkKeys> {
  return (first, count) => job.run<ChunkKeys>({ type: 'files/chunk-keys', session: job.session, fileId, first, count, usage }, { session: true });
}

/** Recovers the DEK into the session's worker (it stays there). */
async function unlockDek(job: FileJob, raw: RawHeaderInfo, route: UnlockRoute): Promise<void> {
  if (route.kind === 'worker') {
    const spec = route.spec;
    // Our copies of secret bytes are handed over (transferred) and wiped by the worker.
    const transfer = spec.kind === 'group' ? [spec.key.slice()] : spec.kind === 'x-wing-secret-key' ? [spec.secretKey.slice()] : [];
    const body: UnlockSpec = spec.kind === 'group' ? { ...spec, key: transfer[0]! } : spec.kind === 'x-wing-secret-key' ? { ...spec, secretKey: transfer[0]! } : spec;
    await job.run({ type: 'files/unlock', session: job.session, unlock: body }, { session: true, transfer: transfer.map((t) => t.buffer) });
    return;
  }
  // A keystore identity: decapsulate in the keystore's worker (HKDF key of the
  // X-Wing shared secret), which posts the key straight to the session's files
  // worker on a MessageChannel (the page relays the two ports, never the key);
  // that worker derives the KEK, unwraps and checks the DEK commitment —
  // WebCrypto keys all the way, no secret bytes, no derivable key on the page.
  if (raw.wraps.length === 0) throw new VeilError('NO_WRAPS', 'the container has no wrap entry');
  const bundle = await route.keystore.getPublicBundle(route.identity);
  const rid = bytesToHex(await recipientIdOf(bundle.xWing));
  const all = raw.wraps.filter((w): w is Extract<RawHeaderInfo['wraps'][number], { type: 'recipient' }> => w.type === 'recipient');
  const mine = all.filter((w) => w.recipientId === rid);
  const candidates = mine.length > 0 ? mine : all;
  if (candidates.length === 0) throw new VeilError('NO_MATCHING_WRAP', 'no wrap entry matches the unlock method');
  for (const w of candidates) {
    const { port1, port2 } = new MessageChannel();
    try {
      // In this order: the key waits in the channel until the session worker takes port2, so no
      // worker ever waits for another one (the keystore may share this pool, even this worker).
      await route.keystore.decapsulate(route.identity, 'x-wing', hexToBytes(w.ciphertext), { output: 'hkdf', port: port1 });
      await job.run({
        type: 'files/unlock-kem', session: job.session, port: port2, fileId: hexToBytes(raw.fileId), recipientId: hexToBytes(w.recipientId),
        keyVersion: w.keyVersion, wrapped: hexToBytes(w.wrapped), commitment: hexToBytes(raw.dekCommitment), preimage: preimageOf(raw),
      }, { session: true, transfer: [port2] });
      return;
    } catch (e) {
      if (!(e instanceof VeilError) || e.code !== 'AUTHENTICATION_FAILED') throw e;
    }
  }
  throw new VeilError('AUTHENTICATION_FAILED', 'authentication failed');
}

/** Header, signature policy, seal check, length check (Blobs), the leaf table against the root, then unlock. */
async function openCore(job: FileJob, source: ContainerSource, unlock: FileUnlock, policy: SignaturePolicy): Promise<Opened> {
  const route = unlockOf(unlock);
  const { read, bytes, hash } = await readHeader(job, source, policy, true);
  const raw = read.info;
  const header = headerOf(raw);
  if (raw.sealed !== null) throw new VeilError('SEALED', 'the container is sealed');
  if (source.size !== undefined && source.size !== raw.containerLength) {
    if (source.size < raw.containerLength) throw truncated(raw.containerLength, source.size);
    throw new VeilError('TRAILING_BYTES', 'trailing bytes after the last structure');
  }
  // The leaf table before any key work: it must match the (signed) root.
  const at = raw.headerLength;
  const got = await source.body(at, raw.leafTableLength);
  const table = got instanceof Blob ? new Uint8Array(await got.arrayBuffer()) : got;
  if (table.length < raw.leafTableLength) throw truncated(at + raw.leafTableLength, at + table.length);
  await job.run({ type: 'files/leaf-table', session: job.session, table }, { session: true });
  await unlockDek(job, raw, route);
  const fileId = hexToBytes(raw.fileId);
  const keys = (first: number, count: number, signal?: AbortSignal) => job.pool.run(
    { type: 'files/chunk-keys', session: job.session, fileId, first, count, usage: 'decrypt' },
    { affinity: `files:${job.session}`, signal: anySignal(job.signal, signal) },
  ) as Promise<ChunkKeys>;
  return {
    raw, header, headerBytes: bytes, signature: read.signature as Opened['signature'], ctx: ctxOf(raw, hash), keys,
    table, bodyOffset: at + raw.leafTableLength,
  };
}

function signatureInfo(o: Opened): SignatureInfo {
  const s = o.header.signer;
  return { status: o.signature, signer: s === null ? null : { ed25519: s.ed25519, ...(s.mlDsa65 ? { mlDsa65: s.mlDsa65 } : {}) } };
}

// ---------------------------------------------------------------- decryption

/**
 * Decrypts a container. `unlock` is a password, `vcs_` shares, `{ group }`,
 * a keystore identity `{ keystore, identity }` or `{ xWingSecretKey }`.
 * Verified mode (default) resolves to a `Blob` once everything is
 * authenticated; streaming mode returns a `ReadableStream` at once.
 * Failures are `VeilError`s: `AUTHENTICATION_FAILED` (wrong password / key /
 * shares, tampered chunk, Merkle mismatch), `TRUNCATED`, `TRAILING_BYTES`,
 * `NO_MATCHING_WRAP`, `SEALED`, signature policy codes, header codes.
 */
export function decryptFile(input: FileInput, unlock: FileUnlock, options: DecryptFileOptions & { readonly releaseMode: 'streaming' }): ReadableStream<Uint8Array> & { readonly signature: Promise<SignatureInfo> };
export function decryptFile(input: FileInput, unlock: FileUnlock, options?: DecryptFileOptions & { readonly releaseMode?: 'verified' }): Promise<Blob & { readonly signature: SignatureInfo }>;
export function decryptFile(input: FileInput, unlock: FileUnlock, options: DecryptFileOptions = {}): ReadableStream<Uint8Array> | Promise<Blob> {
  checkInput('input', input);
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const mode = options.releaseMode ?? 'verified';
  if (mode !== 'verified' && mode !== 'streaming') throw new TypeError(`releaseMode must be 'verified' or 'streaming'`);
  const policy = policyOf(options);
  unlockOf(unlock); // argument errors now, not later
  if (mode === 'verified') return decryptVerified(input, unlock, options, policy);
  return decryptStreaming(input, unlock, options, policy);
}

/** Runs the chunk pipeline of an opened container, handing each batch's plaintext to `put` in order. */
async function decryptBody(
  job: FileJob, source: ContainerSource, o: Opened, output: 'blob' | 'bytes', onProgress: FileJobOptions['onProgress'],
  put: (data: Blob | readonly Uint8Array[]) => Promise<void> | void,
): Promise<void> {
  const { ctx } = o;
  const n = o.raw.chunkCount;
  const H = o.bodyOffset;
  const { batches, range } = batching(n, ctx.chunkSize, job.batchBytes);
  const tick = progress(onProgress, ctx.plaintextSize, n);
  await pipeline(job, batches, async (b) => {
    const [first, count] = range(b);
    const from = H + envelopeOffset(ctx.chunkSize, first);
    const bytes = envelopeOffset(ctx.chunkSize, count - 1) + chunkLength(ctx, first + count - 1) + CONTAINER.envelopeOverhead;
    const [data, chunkKeys] = await Promise.all([source.body(from, bytes), o.keys(first, count)]);
    const got = data instanceof Blob ? data.size : data.length;
    if (got < bytes) throw truncated(from + bytes, from + got);
    job.throwIfStopped();
    const leaves = o.table.slice(CONTAINER.leafLength * first, CONTAINER.leafLength * (first + count));
    const out = await job.run<ChunksOut>(
      { type: 'files/decrypt-chunks', chunkKeys, ctx, first, count, source: data, output, leaves },
      data instanceof Uint8Array ? { transfer: [data.buffer, leaves.buffer] } : { transfer: [leaves.buffer] },
    );
    tick(Math.min(ctx.plaintextSize, (first + count) * ctx.chunkSize) - first * ctx.chunkSize, count);
    return out;
  }, async (_b, out) => {
    await put(out.data);
  });
  if (await source.trailing(o.raw.containerLength)) throw new VeilError('TRAILING_BYTES', 'trailing bytes after the last structure');
}

async function decryptVerified(input: FileInput, unlock: FileUnlock, options: DecryptFileOptions, policy: SignaturePolicy): Promise<Blob & { readonly signature: SignatureInfo }> {
  const type = options.type ?? '';
  const job = new FileJob(options);
  const source = containerSource(input);
  let parts: (Blob | Uint8Array<ArrayBuffer>)[] = [];
  try {
    const opened = await openCore(job, source, unlock, policy);
    await decryptBody(job, source, opened, 'blob', options.onProgress, (d) => {
      if (d instanceof Blob) parts.push(d);
      else parts.push(...(d as Uint8Array<ArrayBuffer>[]));
    });
    return Object.defineProperty(new Blob(parts, { type }), 'signature', { value: Object.freeze(signatureInfo(opened)), enumerable: true }) as Blob & { readonly signature: SignatureInfo };
  } catch (e) {
    const err = job.error(e);
    job.fail(err);
    source.cancel(err);
    throw err;
  } finally {
    parts = [];
    job.close();
  }
}

function decryptStreaming(input: FileInput, unlock: FileUnlock, options: DecryptFileOptions, policy: SignaturePolicy): ReadableStream<Uint8Array> & { readonly signature: Promise<SignatureInfo> } {
  let job: FileJob | undefined;
  let source: ContainerSource | undefined;
  let wake: (() => void) | undefined;
  let running: Promise<void> | undefined;
  let signed!: (v: SignatureInfo) => void;
  let unsigned!: (e: unknown) => void;
  const signature = new Promise<SignatureInfo>((res, rej) => {
    signed = res;
    unsigned = rej;
  });
  signature.catch(() => {}); // the stream reports the same error
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      try {
        job = new FileJob(options);
      } catch (e) {
        controller.error(e);
        return;
      }
      source = containerSource(input);
      const j = job;
      const s = source;
      running = (async () => {
        try {
          const opened = await openCore(j, s, unlock, policy);
          signed(Object.freeze(signatureInfo(opened)));
          await decryptBody(j, s, opened, 'bytes', options.onProgress, async (data) => {
            j.throwIfStopped();
            if (data instanceof Blob) controller.enqueue(new Uint8Array(await data.arrayBuffer()));
            else for (const piece of data) controller.enqueue(piece);
            // Backpressure: hold the pipeline while the consumer is not reading.
            while ((controller.desiredSize ?? 1) <= 0 && !j.signal.aborted) {
              await new Promise<void>((r) => {
                wake = r;
              });
            }
            j.throwIfStopped();
          });
          controller.close();
        } catch (e) {
          const err = j.error(e);
          j.fail(err);
          s.cancel(err);
          unsigned(err);
          try {
            controller.error(err);
          } catch {
            // already cancelled by the consumer
          }
        } finally {
          j.close();
        }
      })();
      j.signal.addEventListener('abort', () => wake?.(), { once: true });
    },
    pull() {
      const w = wake;
      wake = undefined;
      w?.();
    },
    cancel(reason) {
      job?.fail(reason ?? new DOMException('The stream was cancelled', 'AbortError'));
      wake?.();
      return running?.catch(() => {});
    },
  }, { highWaterMark: 1 });
  return Object.defineProperty(stream, 'signature', { value: signature, enumerable: true }) as ReadableStream<Uint8Array> & { readonly signature: Promise<SignatureInfo> };
}

// ---------------------------------------------------------------- random access

/**
 * Opens a container `Blob` for random access: header, signature policy,
 * length check, the leaf table (32 bytes per chunk, checked against the
 * header's root) and unlock. `read()` then decrypts only the chunks a range
 * needs, each read now, its leaf recomputed and compared with its table entry,
 * and its AEAD tag checked (a `Blob` may change between opening and reading).
 * `close()` when done.
 */
export async function openContainer(blob: Blob, unlock: FileUnlock, options: FileJobOptions & SignaturePolicyOptions = {}): Promise<OpenedContainer> {
  if (!(blob instanceof Blob)) throw new TypeError('openContainer needs a File or a Blob (random access)');
  const policy = policyOf(options);
  const job = new FileJob(options);
  let o: Opened;
  try {
    o = await openCore(job, containerSource(blob), unlock, policy);
  } catch (e) {
    const err = job.error(e);
    job.close();
    throw err;
  }
  const { ctx } = o;
  const n = o.raw.chunkCount;
  const H = o.bodyOffset;
  let closed = false;
  const live = () => {
    if (closed) throw new VeilError('INVALID_STATE', 'this container has been closed');
  };
  const runChunks = async (first: number, count: number, extra: { discard?: boolean; signal?: AbortSignal }) => {
    const from = H + envelopeOffset(ctx.chunkSize, first);
    const bytes = envelopeOffset(ctx.chunkSize, count - 1) + chunkLength(ctx, first + count - 1) + CONTAINER.envelopeOverhead;
    const leaves = o.table.slice(CONTAINER.leafLength * first, CONTAINER.leafLength * (first + count));
    const chunkKeys = await o.keys(first, count, extra.signal);
    return job.pool.run({
      type: 'files/decrypt-chunks', chunkKeys, ctx, first, count, source: blob.slice(from, from + bytes), output: 'bytes',
      leaves, ...(extra.discard ? { discard: true } : {}),
    }, { signal: anySignal(job.signal, extra.signal) }) as Promise<ChunksOut & { bad?: number[] }>;
  };
  const per = Math.max(1, Math.floor(job.batchBytes / ctx.chunkSize));
  return {
    header: o.header,
    signature: o.signature,
    size: ctx.plaintextSize,
    async read(offset, length, ro = {}) {
      live();
      int('offset', offset, 0, ctx.plaintextSize);
      int('length', length, 0, ctx.plaintextSize - offset);
      const out = new Uint8Array(length);
      if (length === 0) return out;
      const firstChunk = Math.floor(offset / ctx.chunkSize);
      const lastChunk = Math.floor((offset + length - 1) / ctx.chunkSize);
      const jobs: Promise<void>[] = [];
      for (let c = firstChunk; c <= lastChunk; c += per) {
        const count = Math.min(per, lastChunk - c + 1);
        jobs.push(runChunks(c, count, { ...(ro.signal ? { signal: ro.signal } : {}) }).then((r) => {
          let base = c * ctx.chunkSize; // plaintext offset of the next piece
          for (const piece of r.data as readonly Uint8Array[]) {
            const a = Math.max(offset, base);
            const b = Math.min(offset + length, base + piece.length);
            if (a < b) out.set(piece.subarray(a - base, b - base), a - offset);
            base += piece.length;
          }
        }));
      }
      await Promise.all(jobs);
      return out;
    },
    async verify(vp = {}) {
      live();
      const vpol = policyOf(vp);
      const onTamper = vp.onTamper ?? 'report';
      if (onTamper !== 'report' && onTamper !== 'abort') throw new TypeError(`onTamper must be 'report' or 'abort'`);
      const sig = await job.pool.run({ type: 'files/open', header: o.headerBytes, policy: vpol }, { signal: anySignal(job.signal, vp.signal) }) as HeaderRead;
      const bad: number[] = [];
      const tick = progress(vp.onProgress, ctx.plaintextSize, n);
      const tasks: Promise<void>[] = [];
      let next = 0;
      const lane = async () => {
        while (next < n) {
          const first = next;
          const count = Math.min(per, n - first);
          next += count;
          const r = await runChunks(first, count, { discard: true, ...(vp.signal ? { signal: vp.signal } : {}) });
          if (r.bad && r.bad.length > 0) {
            if (onTamper === 'abort') throw new VeilError('AUTHENTICATION_FAILED', 'authentication failed');
            bad.push(...r.bad);
          }
          tick(Math.min(ctx.plaintextSize, (first + count) * ctx.chunkSize) - first * ctx.chunkSize, count);
        }
      };
      for (let w = 0; w < Math.min(job.limit, Math.max(1, n)); w++) tasks.push(lane());
      await Promise.all(tasks);
      bad.sort((a, b) => a - b);
      return {
        version: o.header.version, signature: sig.signature as VerificationReport['signature'], signer: o.header.signer?.ed25519 ?? null,
        chunkCount: n, chunksAuthenticated: true, badChunks: bad, lengthValid: blob.size === o.raw.containerLength, merkleValid: true,
        intact: bad.length === 0 && blob.size === o.raw.containerLength,
      };
    },
    close() {
      if (closed) return;
      closed = true;
      job.close();
    },
  };
}

function anySignal(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  if (b === undefined) return a;
  const c = new AbortController();
  const on = (s: AbortSignal) => () => c.abort(s.reason);
  if (a.aborted) c.abort(a.reason);
  else if (b.aborted) c.abort(b.reason);
  else {
    a.addEventListener('abort', on(a), { once: true });
    b.addEventListener('abort', on(b), { once: true });
  }
  return c.signal;
}

// ---------------------------------------------------------------- inspection, saving

/**
 * Reads a container's public header without a key: version, mode, sizes,
 * wraps, signer, signature status and the sealed marker. Takes the container
 * (`Blob`) or just its first bytes (`Uint8Array`, at least the header).
 */
export async function inspectContainer(input: Blob | Uint8Array, options: { readonly pool?: WorkerPool; readonly signal?: AbortSignal } = {}): Promise<ContainerInspection> {
  let source: ContainerSource;
  if (input instanceof Blob) source = containerSource(input);
  else if (isBytes(input)) {
    const b = input;
    source = { size: undefined, prefix: async (n) => b.slice(0, n), body: async () => new Uint8Array(0), trailing: async () => false, cancel: () => {} };
  } else throw new TypeError('input must be a Blob or a Uint8Array');
  const job = new FileJob({ ...options, workers: 1 });
  try {
    const { read } = await readHeader(job, source, undefined, false);
    const header = headerOf(read.info);
    return {
      header, signature: read.signature, sealed: header.sealed !== null,
      ...(input instanceof Blob ? { lengthValid: input.size === header.containerLength } : {}),
    };
  } catch (e) {
    throw job.error(e);
  } finally {
    job.close();
  }
}

export interface SaveFileOptions {
  /** `'auto'` (default): the save picker where available, else a download; `'download'`: always an object-URL download. */
  readonly method?: 'auto' | 'picker' | 'download';
  /** MIME type offered to the picker. */
  readonly type?: string;
}

/**
 * Saves a `Blob` or a byte stream under `suggestedName`: streamed to
 * `showSaveFilePicker` where the browser has it (the user chooses the place;
 * call from a user gesture), otherwise an object-URL download. Resolves with
 * the method used; a cancelled picker rejects with its `AbortError`.
 */
export async function saveFile(data: Blob | ReadableStream<Uint8Array>, suggestedName: string, options: SaveFileOptions = {}): Promise<'picker' | 'download'> {
  checkInput('data', data);
  if (typeof suggestedName !== 'string' || suggestedName.length === 0) throw new TypeError('suggestedName must be a non-empty string');
  const method = options.method ?? 'auto';
  const picker = (globalThis as { showSaveFilePicker?: (o: unknown) => Promise<FileSystemFileHandle> }).showSaveFilePicker;
  if (method === 'picker' || (method === 'auto' && typeof picker === 'function')) {
    if (typeof picker !== 'function') throw new VeilError('UNSUPPORTED_PLATFORM', 'showSaveFilePicker is not available here');
    const handle = await picker({ suggestedName, ...(options.type ? { types: [{ accept: { [options.type]: [] } }] } : {}) });
    const w = await handle.createWritable();
    if (data instanceof Blob) {
      try {
        await w.write(data);
        await w.close();
      } catch (e) {
        await w.abort(e).catch(() => {});
        throw e;
      }
    } else {
      await data.pipeTo(w);
    }
    return 'picker';
  }
  const blob = data instanceof Blob ? data : await new Response(data).blob();
  const url = URL.createObjectURL(blob);
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = suggestedName;
    a.rel = 'noopener';
    a.style.display = 'none';
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    // Give the browser time to start the download before the URL goes away.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
  return 'download';
}
