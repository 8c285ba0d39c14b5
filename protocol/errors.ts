/**
 * Errors raised by veilkit.
 *
 * Argument misuse (wrong type, wrong length) throws the built-in `TypeError` /
 * `RangeError` *before* anything reaches WebAssembly. Everything else is a
 * {@link VeilError} with a stable {@link VeilErrorCode} — including bytes that
 * came from someone else (messages, bundles, boxes, packets, containers,
 * backups) of a length they can never have: that is malformed input, not
 * misuse (ts/validate.ts `untrusted`).
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
  // A pool worker that did not start: its script could not be loaded, it crashed while loading, or
  // it did not report ready within the pool's `startTimeoutMs` (ts/pool.ts; details: url, reason).
  'WORKER_START_FAILED',
  // From the React hooks (ts/react/errors.ts): a job or conversation that was cancelled, reset or
  // unmounted, and the app's chat transport failing to send a frame (the transport's error is the cause).
  'ABORTED',
  'TRANSPORT_FAILED',
  // From the keystore (ts/keystore.ts, worker/keystore.ts).
  'KEYSTORE_LOCKED',
  'KEY_NOT_FOUND',
  'KEY_EXISTS',
  'INVALID_BACKUP',
  'STORAGE_VERSION_MISMATCH',
  'STORAGE_QUOTA_EXCEEDED',
  'STORAGE_UNSUPPORTED',
  'STORAGE_FAILED',
  // Isolated-origin keystore (ts/keystore-isolated.ts, ts/keystore-frame.ts): an export path (or,
  // without the current passphrase, a passphrase change or identity deletion) asked for from the
  // embedding page, a keystore frame that did not answer the handshake, and the embedding page's
  // key uses over the frame's rate limit (details: retryAfterMs).
  'TOP_LEVEL_REQUIRED',
  'KEYSTORE_UNAVAILABLE',
  'RATE_LIMITED',
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
  // From the file container (ContainerError::code, crate/src/container/error.rs; AUTHENTICATION_FAILED,
  // INVALID_SIGNATURE and KDF_BUDGET_EXCEEDED above) and the file layer (ts/files/encrypt.ts: SIZE_MISMATCH;
  // READ_FAILED: the browser could not read a Blob, ts/bytes.ts readBlob).
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
  'READ_FAILED',
  // From the session handshake (SessionError::code, crate/src/session/error.rs; MALFORMED_INPUT,
  // AUTHENTICATION_FAILED and REPLAY_DETECTED above).
  'PQ_IDENTITY_REQUIRED',
  'BUNDLE_INVALID',
  'PREKEY_EXPIRED',
  'NO_COMMON_VERSION',
  'VERSION_DOWNGRADE',
  'IDENTITY_MISMATCH',
  'PREKEY_NOT_FOUND',
  // From the triple ratchet (same enum; INVALID_STATE above).
  'TOO_FAR_AHEAD',
  'DUPLICATE_MESSAGE',
  'STATE_ROLLBACK',
  // From MLS groups (GroupError::code, crate/src/group/error.rs; MALFORMED_INPUT, UNSUPPORTED_CIPHER_SUITE,
  // AUTHENTICATION_FAILED, DUPLICATE_MESSAGE, INVALID_PARAMETER, RANDOMNESS_UNAVAILABLE and INTERNAL above).
  'WRONG_EPOCH',
  'WRONG_GROUP',
  'INVALID_COMMIT',
  'INVALID_KEY_PACKAGE',
  'INVALID_CREDENTIAL',
  'NO_MATCHING_KEY_PACKAGE',
  'NOT_A_MEMBER',
  'COMMIT_CONFLICT',
  'NO_PENDING_COMMIT',
] as const;

/** The stable code of a {@link VeilError}: one of {@link VEIL_ERROR_CODES}. */
export type VeilErrorCode = (typeof VEIL_ERROR_CODES)[number];

const CODE_SET: ReadonlySet<string> = new Set(VEIL_ERROR_CODES);

/**
 * Structured facts about a failure, where the code has them: `needed` / `got` (bytes, for
 * `TRUNCATED`; `got` alone: the length of untrusted bytes refused for it, `MALFORMED_INPUT` /
 * `INVALID_LENGTH` from ts/validate.ts `untrusted`), `index` / `reason` (the failing entry or change and why, for `KEY_LOG_INVALID`
 * and `REGISTRY_INVALID`; `index` is `null` when no entry is to blame), `jump` / `limit` (message
 * keys, for `TOO_FAR_AHEAD`), `counter` / `highestSeen` (state counters, for `STATE_ROLLBACK`),
 * `url` / `reason` / `step` (the worker script, why it did not start and the last start step it
 * reported, for `WORKER_START_FAILED`), `retryAfterMs` (when the next call can pass, for `RATE_LIMITED`),
 * `reason` (the browser's error name, for `READ_FAILED`), `reason` / `step` (the name of the error
 * nothing else maps, or `'invariant'` for a check of veilkit's own, and the worker request it came from,
 * for `INTERNAL`: an `INTERNAL` always has a `reason`).
 * Empty otherwise.
 */
export interface VeilErrorDetails {
  readonly needed?: number;
  readonly got?: number;
  readonly index?: number | null;
  readonly reason?: string;
  readonly jump?: number;
  readonly limit?: number;
  readonly counter?: number;
  readonly highestSeen?: number;
  readonly url?: string;
  readonly step?: string;
  readonly retryAfterMs?: number;
}

/** Keeps the known detail fields of `value` that have the right type (anything else is dropped). */
export function detailsOf(value: unknown): VeilErrorDetails {
  if (typeof value !== 'object' || value === null) return {};
  const v = value as Record<string, unknown>;
  const d: { -readonly [K in keyof VeilErrorDetails]: VeilErrorDetails[K] } = {};
  if (typeof v.needed === 'number') d.needed = v.needed;
  if (typeof v.got === 'number') d.got = v.got;
  if (typeof v.index === 'number' || v.index === null) d.index = v.index;
  if (typeof v.reason === 'string') d.reason = v.reason;
  if (typeof v.jump === 'number') d.jump = v.jump;
  if (typeof v.limit === 'number') d.limit = v.limit;
  if (typeof v.counter === 'number') d.counter = v.counter;
  if (typeof v.highestSeen === 'number') d.highestSeen = v.highestSeen;
  if (typeof v.url === 'string') d.url = v.url;
  if (typeof v.step === 'string') d.step = v.step;
  if (typeof v.retryAfterMs === 'number') d.retryAfterMs = v.retryAfterMs;
  return d;
}

/** A cryptographic or runtime failure, with a stable machine-readable `code` and its {@link VeilErrorDetails}. */
export class VeilError extends Error {
  readonly code: VeilErrorCode;
  readonly details: VeilErrorDetails;

  constructor(code: VeilErrorCode, message: string, options?: { cause?: unknown; details?: VeilErrorDetails }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VeilError';
    this.code = code;
    const details = detailsOf(options?.details);
    // An INTERNAL always says something: a check of veilkit's own that failed is an 'invariant'.
    this.details = Object.freeze(code === 'INTERNAL' && details.reason === undefined ? { ...details, reason: 'invariant' } : details);
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

/** Whether `e` is an `Error` or a `DOMException` (not every engine makes it an `Error`): it has a `name` and a `message`. */
export function isErrorLike(e: unknown): e is Error | DOMException {
  return e instanceof Error || (typeof DOMException === 'function' && e instanceof DOMException);
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
    // The core puts details on the thrown object as properties (`index`, `reason`, `needed`, `got`, `jump`, `limit`, `counter`, `highestSeen`).
    if (isVeilErrorCode(code)) return new VeilError(code, e.message, { details: detailsOf(e) });
    return new VeilError('INTERNAL', e.message, { cause: e, details: { reason: e.name || 'Error' } });
  }
  return new VeilError('INTERNAL', String(e), { details: { reason: typeof e } });
}
