/**
 * Errors raised by veilkit.
 *
 * Argument misuse (wrong type, wrong length) throws the built-in `TypeError` /
 * `RangeError` *before* anything reaches WebAssembly. Everything else is a
 * {@link VeilError} with a stable {@link VeilErrorCode}.
 */

/** Every code a {@link VeilError} can carry. Stable across releases. */
export const VEIL_ERROR_CODES = [
  // From the Rust core (CryptoError::code, one per variant).
  'INVALID_LENGTH',
  'INVALID_PARAMETER',
  'INVALID_KEY',
  'WEAK_KEY',
  'AUTHENTICATION_FAILED',
  'INVALID_SIGNATURE',
  'INVALID_MNEMONIC',
  'INVALID_SHARES',
  'RANDOMNESS_UNAVAILABLE',
  // From the TypeScript layer.
  'NOT_INITIALIZED',
  'UNSUPPORTED_PLATFORM',
  'WASM_PANIC',
  'INTERNAL',
  // From the keystore (ts/keystore.ts, worker/keystore.ts).
  'KEYSTORE_LOCKED',
  'KEY_NOT_FOUND',
  'KEY_EXISTS',
  'INVALID_BACKUP',
  'STORAGE_VERSION_MISMATCH',
  'STORAGE_QUOTA_EXCEEDED',
  'STORAGE_UNSUPPORTED',
  'STORAGE_FAILED',
  // Isolated-origin keystore (ts/keystore-isolated.ts, ts/keystore-frame.ts): an export path asked
  // for from the embedding page, and a keystore frame that did not answer the handshake.
  'TOP_LEVEL_REQUIRED',
  'KEYSTORE_UNAVAILABLE',
  // KDF parameters over the reader's budget (keystore unlock, backup import, container unlock).
  'KDF_BUDGET_EXCEEDED',
  // From the messaging constructions (MessagingError::code, crate/src/messaging/error.rs).
  'MALFORMED_INPUT',
  'INVALID_PADDING',
  'KEY_LOG_INVALID',
  'REGISTRY_INVALID',
  'REPLAY_DETECTED',
  'REPLAY_OUT_OF_WINDOW',
  'SAS_COMMITMENT_MISMATCH',
  'SAS_NONCE_REUSED',
  'SAS_ATTEMPTS_EXHAUSTED',
  // From the file container (ContainerError::code, crate/src/container/error.rs; AUTHENTICATION_FAILED
  // and INVALID_SIGNATURE above) and the file layer (ts/files/encrypt.ts: SIZE_MISMATCH).
  'TRUNCATED',
  'TRAILING_BYTES',
  'BAD_MAGIC',
  'UNSUPPORTED_VERSION',
  'UNSUPPORTED_CIPHER_SUITE',
  'UNSUPPORTED_HASH_ALGORITHM',
  'INVALID_CHUNK_SIZE',
  'INVALID_PLAINTEXT_SIZE',
  'NON_CANONICAL',
  'INVALID_WRAP',
  'UNSUPPORTED_WRAP_TYPE',
  'INVALID_METADATA',
  'NO_WRAPS',
  'NO_MATCHING_WRAP',
  'SIGNATURE_MISSING',
  'SIGNER_MISMATCH',
  'HYBRID_REQUIRED',
  'KDF_BUDGET_EXCEEDED',
  'SEALED',
  'INVALID_SHARE',
  'INSUFFICIENT_SHARES',
  'INVALID_CHUNK',
  'INVALID_STATE',
  'INVALID_OPTION',
  'INVALID_MANIFEST',
  'MANIFEST_ROLLBACK',
  'FOUNDER_MISMATCH',
  'MANIFEST_REQUIRED',
  'SIZE_MISMATCH',
] as const;

export type VeilErrorCode = (typeof VEIL_ERROR_CODES)[number];

const CODE_SET: ReadonlySet<string> = new Set(VEIL_ERROR_CODES);

/** A cryptographic or runtime failure, with a stable machine-readable `code`. */
export class VeilError extends Error {
  readonly code: VeilErrorCode;

  constructor(code: VeilErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VeilError';
    this.code = code;
  }
}

/** Whether `value` is a known error code. */
export function isVeilErrorCode(value: unknown): value is VeilErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

let poisoned: VeilError | undefined;

/** Set once a WebAssembly trap (a Rust panic) has been seen: the instance is no longer trusted. */
export function poisonedError(): VeilError | undefined {
  return poisoned;
}

/**
 * Converts whatever a wasm call threw into a {@link VeilError}.
 * Errors from the core arrive as `Error` objects named `VeilError` with a
 * `code` property; a `WebAssembly.RuntimeError` is a trap (Rust panic).
 */
export function toVeilError(e: unknown): VeilError {
  if (e instanceof VeilError) return e;
  if (e instanceof WebAssembly.RuntimeError) {
    poisoned = new VeilError(
      'WASM_PANIC',
      `the WebAssembly module trapped (${e.message}); it is disabled until the page or worker is reloaded`,
      { cause: e },
    );
    return poisoned;
  }
  if (e instanceof Error) {
    const code: unknown = (e as Error & { code?: unknown }).code;
    if (isVeilErrorCode(code)) return new VeilError(code, e.message);
    return new VeilError('INTERNAL', e.message, { cause: e });
  }
  return new VeilError('INTERNAL', String(e));
}
