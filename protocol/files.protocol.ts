/**
 * File-container requests (`files/*`, worker/files.ts) and the values they
 * answer with. The page-side orchestrator is ts/files.ts (its parts in ts/files/).
 *
 * What crosses to the page: public header data, leaves and IVs, ciphertext,
 * authenticated plaintext, threshold shares (the documented output of a
 * threshold wrap) and per-chunk **non-extractable AES-256-GCM** `CryptoKey`s
 * with one usage each (`encrypt` or `decrypt`). No DEK, KEK or
 * password-derived byte, and no key that can derive one, ever does: passwords
 * travel page → worker as strings, the KDFs and wraps run in the worker's
 * wasm, the DEK bytes are imported there as an HKDF key that stays in the
 * session's worker (`files/chunk-keys` derives from it), and wiped.
 *
 * Stateful requests name a `session` and run with pool affinity
 * `files:<session>` (the wasm handle lives in that worker until
 * `files/close`); chunk requests are stateless and go to any worker.
 */
import type { KdfBudget } from './keystore.protocol.js';
import type { HeaderInfo } from '../ts/wasm/veilkit.js';

/** How the DEK of a new container is protected (one wrap entry each, in this order). */
export interface EncryptPlan {
  readonly plaintextSize: number;
  readonly chunkSize: number;
  /** Merkle hash: 0 SHA-256, 1 BLAKE3. */
  readonly hashAlgorithm: 0 | 1;
  readonly passwords: readonly {
    readonly password: string;
    readonly kdf:
      | { readonly algorithm: 'argon2id'; readonly memoryKib: number; readonly iterations: number; readonly parallelism: number }
      | { readonly algorithm: 'pbkdf2'; readonly iterations: number };
  }[];
  readonly recipients: readonly { readonly publicKey: Uint8Array; readonly keyVersion: number; readonly recipientId?: Uint8Array }[];
  readonly groups: readonly { readonly id: Uint8Array; readonly keyVersion: number; readonly key: Uint8Array }[];
  readonly thresholds: readonly { readonly t: number; readonly n: number }[];
  readonly signer?:
    | { readonly kind: 'keys'; readonly ed25519Seed: Uint8Array; readonly mlDsaSeed?: Uint8Array; readonly keyLogId: Uint8Array; readonly timestamp: number }
    | { readonly kind: 'external'; readonly ed25519Public: Uint8Array; readonly mlDsa65Public?: Uint8Array; readonly keyLogId: Uint8Array; readonly timestamp: number };
  /** Tests only: fixes the DEK and file id (byte-for-byte comparison with the Rust engine). */
  readonly fixedKeys?: { readonly dek: Uint8Array; readonly fileId: Uint8Array };
}

/** The header fields every chunk is bound to (FORMAT.md §6). */
export interface ChunkContext {
  readonly fileId: Uint8Array;
  readonly headerHash: Uint8Array;
  readonly chunkSize: number;
  readonly plaintextSize: number;
  readonly hashAlgorithm: 0 | 1;
}

export interface EncryptBegun {
  readonly headerLength: number;
  /** Header and leaf table: the first envelope starts here. */
  readonly prefixLength: number;
  readonly chunkCount: number;
  readonly fileId: Uint8Array;
  readonly headerHash: Uint8Array;
  /** `vcs_` shares of each threshold wrap, in plan order. */
  readonly shares: readonly (readonly string[])[];
}

/**
 * `chunk_key_i` and `chunk_iv_i` (FORMAT.md §6.3) of consecutive chunks, derived in the session's worker:
 * non-extractable AES-256-GCM keys with the one usage asked for, and the 12-byte IVs concatenated.
 */
export interface ChunkKeys {
  readonly keys: readonly CryptoKey[];
  readonly ivs: Uint8Array;
}

/** Either the final header followed by the leaf table, or (external signer) the header bytes before its signature table (`keystore/sign-container-header` signs them). */
export type EncryptFinished = { readonly header: Uint8Array } | { readonly unsignedHeader: Uint8Array };

/** Chunks out: a `Blob`, or (`output: 'bytes'`) the pieces in order (transferred); encryption: every chunk's leaf (32 bytes each). */
export interface ChunksOut {
  readonly data: Blob | readonly Uint8Array[];
  readonly leaves?: Uint8Array;
  /** `discard` (verify) mode: indices of chunks that failed authentication. */
  readonly bad?: readonly number[];
}

/**
 * The public header as `ContainerReaderHandle.info()` returns it: the core's
 * typed `HeaderInfo` (crate/src/container/info.rs), byte strings as
 * `Uint8Array`s; its shape is declared once, in the glue's `.d.ts`
 * (crate/src/wasm/header_info.rs). ts/files/source.ts `headerOf` turns it
 * into the public `ContainerHeader`.
 */
export type { HeaderInfo, HeaderWrapInfo } from '../ts/wasm/veilkit.js';

export interface HeaderRead {
  readonly needed?: undefined;
  readonly info: HeaderInfo;
  /** Outcome of the signature check (`files/open` without a policy: `invalid` instead of an error). */
  readonly signature: 'unsigned' | 'ed25519' | 'hybrid' | 'invalid';
}

/** `files/open` on a prefix too short to hold the header: supply `needed` bytes. */
export interface HeaderNeedsMore {
  readonly needed: number;
}

/** How the worker recovers the DEK (identity unlocks go through `files/unlock-kem`). */
export type UnlockSpec =
  | { readonly kind: 'password'; readonly password: string }
  | { readonly kind: 'group'; readonly id: Uint8Array; readonly keyVersion: number; readonly key: Uint8Array }
  | { readonly kind: 'shares'; readonly shares: readonly string[] }
  | { readonly kind: 'x-wing-secret-key'; readonly secretKey: Uint8Array; readonly recipientId?: Uint8Array };

export interface SignaturePolicy {
  readonly required: boolean;
  /** A pin: the Ed25519 key and, when given, the ML-DSA-65 key (then a hybrid signature by it is required). */
  readonly expectedSigner?: { readonly ed25519: Uint8Array; readonly mlDsa65?: Uint8Array };
}

type R<T extends string, F> = { readonly id: number; readonly type: T } & F;

export type FilesRequest =
  | R<'files/encrypt-begin', { readonly session: string; readonly plan: EncryptPlan }>
  | R<'files/encrypt-leaves', { readonly session: string; readonly first: number; readonly leaves: Uint8Array }>
  | R<'files/encrypt-finish', { readonly session: string }>
  | R<'files/encrypt-finish-signed', { readonly session: string; readonly ed25519: Uint8Array; readonly mlDsa65?: Uint8Array }>
  | R<'files/encrypt-chunks', {
    readonly chunkKeys: ChunkKeys; readonly ctx: ChunkContext; readonly first: number;
    readonly source: Blob | Uint8Array; readonly output: 'blob' | 'bytes';
  }>
  /**
   * Parses a header from a container prefix (no key): {@link HeaderRead}, or
   * {@link HeaderNeedsMore}. With `policy`, signature failures are errors; with
   * `session`, the reader stays there for `files/unlock` and the Merkle check.
   */
  | R<'files/open', { readonly session?: string; readonly header: Uint8Array; readonly policy?: SignaturePolicy }>
  /** `kdfBudget`: the reader's KDF budget for password wraps (FORMAT.md §4.3), defaults filled in. */
  | R<'files/unlock', { readonly session: string; readonly unlock: UnlockSpec; readonly kdfBudget: Required<KdfBudget> }>
  /**
   * Identity unlock: KEK = HKDF(ss, file_id, info) in WebCrypto, AES-KW unwrap into a non-extractable HKDF key,
   * accepted only if it opens the header's DEK commitment (`commitment` over the header-hash `preimage`).
   */
  | R<'files/unlock-kem', {
    /**
     * The X-Wing shared secret as an HKDF key arrives on `port` (one `{ key }` message from the
     * keystore's worker, `Keystore.decapsulate(…, { output: 'hkdf', port })`), never through the page.
     */
    readonly session: string; readonly port: MessagePort; readonly fileId: Uint8Array; readonly recipientId: Uint8Array;
    readonly keyVersion: number; readonly wrapped: Uint8Array; readonly commitment: Uint8Array; readonly preimage: Uint8Array;
  }>
  /** The default recipient id of a 1216-byte X-Wing public key (the core's `recipient_id_for`, FORMAT.md §4.1). */
  | R<'files/recipient-id', { readonly xWingPublicKey: Uint8Array }>
  /** The leaf table (the `32 · n` bytes after the header), checked against the session reader's root. */
  | R<'files/leaf-table', { readonly session: string; readonly table: Uint8Array }>
  /** Keys and IVs of chunks `first … first + count − 1` from the session's DEK (which stays in that worker). */
  | R<'files/chunk-keys', {
    readonly session: string; readonly fileId: Uint8Array; readonly first: number; readonly count: number;
    readonly usage: 'encrypt' | 'decrypt';
  }>
  | R<'files/decrypt-chunks', {
    readonly chunkKeys: ChunkKeys; readonly ctx: ChunkContext; readonly first: number; readonly count: number;
    readonly source: Blob | Uint8Array; readonly output: 'blob' | 'bytes';
    /** The table entries of these chunks (32 bytes each; the table matched the root): each envelope's recomputed leaf must equal its entry before anything is released. */
    readonly leaves: Uint8Array;
    /** Verify only: authenticate, release nothing (`data` is empty). */
    readonly discard?: boolean;
  }>
  | R<'files/close', { readonly session: string }>;

/**
 * What each `files/*` request answers with (`FilesReplies[type]`): the worker's handler table
 * (worker/files.ts) must return these, and `WorkerPool.run` resolves to them.
 */
export interface FilesReplies {
  'files/encrypt-begin': EncryptBegun;
  'files/encrypt-leaves': true;
  'files/encrypt-finish': EncryptFinished;
  /** The final header followed by the leaf table. */
  'files/encrypt-finish-signed': Uint8Array;
  'files/encrypt-chunks': ChunksOut;
  'files/open': HeaderRead | HeaderNeedsMore;
  'files/unlock': true;
  'files/unlock-kem': true;
  'files/recipient-id': Uint8Array;
  'files/leaf-table': true;
  'files/chunk-keys': ChunkKeys;
  'files/decrypt-chunks': ChunksOut;
  'files/close': true;
}
