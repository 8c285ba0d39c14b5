/**
 * The worker protocol: a discriminated union of requests with namespaced
 * tags, and `{ id, ok, value | error }` replies. Every `ArrayBuffer` in a
 * message travels in the transfer list.
 *
 * Namespaces:
 * - `veilkit/*`     — lifecycle (`veilkit/init` → `veilkit/ready`).
 * - `primitives/*`  — the byte-level primitives of `veilkit/primitives`, by name.
 * - `debug/*`       — test hooks, only honoured when the worker was started with `debug: true`.
 *
 * Malformed messages ({@link checkRequest}). Every message a serving worker receives gets exactly
 * one reply. A message that is not a request — not an object (`null`, a string, …), an `id` that
 * is not a safe integer, a `type` that is missing, not a string or not one of the worker's own
 * request types (`constructor`, `__proto__`, `toString` are none: handlers are looked up as own
 * properties only) — runs nothing and is answered `{ id, ok: false, error }` with a `VeilError`
 * `MALFORMED_INPUT`; `id` is the message's own when it is a safe integer, else `null` (such a
 * reply matches no request of a pool, which ignores it; it tells a hand-written client what went
 * wrong). Before `veilkit/ready`, a worker reads only `veilkit/init`: any other message gets
 * `NOT_INITIALIZED` the same way. A reply that cannot be cloned becomes an `INTERNAL` error reply.
 */
import type * as Primitives from '../ts/primitives.js';
import type { Capabilities, RoutePreference } from '../ts/webcrypto/routes.js';
import type { KeystoreReplies } from './keystore.protocol.js';
import type { FilesReplies } from './files.protocol.js';
import { VeilError, isErrorLike, type VeilErrorDetails } from './errors.js';

/** Primitives callable in a worker (pure functions of their arguments). */
export const WORKER_PRIMITIVES = [
  'encryptAesGcm', 'decryptAesGcm', 'encryptAesGcmWithIv', 'decryptAesGcmWithIv',
  'wrapKey', 'unwrapKey', 'deriveHkdf', 'derivePbkdf2', 'argon2id',
  'sha256', 'hmacSha256', 'verifyHmacSha256', 'blake3', 'blake3DeriveKey',
  'generateX25519Keypair', 'x25519PublicKey', 'ecdhSharedSecret',
  'generateEd25519Keypair', 'ed25519KeypairFromSeed', 'signMessage', 'verifySignature',
  'mlKemKeygen', 'mlKemEncapsulate', 'mlKemEncapsulateDerand', 'mlKemDecapsulate',
  'xWingKeygen', 'xWingEncapsulate', 'xWingEncapsulateDerand', 'xWingDecapsulate',
  'mlKemEncapsulateBatch', 'mlKemDecapsulateBatch', 'xWingEncapsulateBatch', 'xWingDecapsulateBatch',
  'mlDsaKeygen', 'mlDsaSign', 'mlDsaSignDerand', 'mlDsaVerify',
  'generateMnemonic', 'validateMnemonic', 'mnemonicToEntropy', 'entropyToMnemonic', 'mnemonicToSeed',
  'shamirSplit', 'shamirCombine',
] as const satisfies readonly (keyof typeof Primitives)[];

export type WorkerPrimitive = (typeof WORKER_PRIMITIVES)[number];
type Fn<K extends WorkerPrimitive> = (typeof Primitives)[K] extends (...args: infer A) => infer R ? (...args: A) => R : never;
export type PrimitiveArgs<K extends WorkerPrimitive> = Parameters<Fn<K>>;
export type PrimitiveResult<K extends WorkerPrimitive> = ReturnType<Fn<K>>;

/** How the worker loads its wasm. */
export interface InitRequest {
  readonly type: 'veilkit/init';
  /** URL of `veilkit_bg.wasm` (a string so it survives structured clone). */
  readonly wasmUrl?: string;
  /** Enables the `debug/*` requests (tests only). */
  readonly debug?: boolean;
  /** `init({ route })` in the worker: where routable primitives run (default `'auto'`). */
  readonly route?: RoutePreference;
  /** `init({ threads })` in the worker: the threads build (default automatic). */
  readonly threads?: boolean | number;
}

/**
 * Posted by a starting worker before its {@link ReadyMessage}: the step of its start it has reached
 * (the script ran; then each loading step of `init()`, ts/init-steps.ts). A pool whose worker does
 * not report ready in time names the last one in its `WORKER_START_FAILED` error.
 */
export interface StartingMessage {
  readonly type: 'veilkit/starting';
  readonly step: string;
}

export interface ReadyMessage {
  readonly type: 'veilkit/ready';
  readonly ok: boolean;
  readonly error?: SerializedError;
}

/**
 * Posted by a long request (the `files/*-chunks` batches) while it runs: `bytes` and `chunks` more of
 * it are done since its previous progress message. The pool hands it to the request's
 * `RunOptions.onProgress`; the reply comes after the last one.
 */
export interface ProgressMessage {
  readonly type: 'veilkit/progress';
  /** The id of the running request. */
  readonly id: number;
  readonly bytes: number;
  readonly chunks: number;
}

/** Posted by `debug/hang` (debug workers only) just before it starts its busy loop: tests abort on it, not on a timer. */
export interface DebugHangStarted {
  readonly type: 'debug/hang-started';
  /** The id of the `debug/hang` request. */
  readonly id: number;
}

export type Request =
  | { readonly id: number; readonly type: 'primitives/call'; readonly name: WorkerPrimitive; readonly args: readonly unknown[] }
  | { readonly id: number; readonly type: 'veilkit/ping' }
  | { readonly id: number; readonly type: 'veilkit/capabilities' }
  | { readonly id: number; readonly type: 'debug/crash' }
  | { readonly id: number; readonly type: 'debug/hang'; readonly ms: number }
  | import('./keystore.protocol.js').KeystoreRequest
  | import('./files.protocol.js').FilesRequest;

export type RequestType = Request['type'];

/** What the core requests answer with (`CoreReplies[type]`). */
export interface CoreReplies {
  /** The primitive's result (`pool.call` narrows it to `PrimitiveResult<K>`). */
  'primitives/call': unknown;
  'veilkit/ping': { readonly pong: true; readonly workerId: string };
  'veilkit/capabilities': Capabilities;
  /** Never answers: the worker dies. */
  'debug/crash': never;
  'debug/hang': 'done';
}

/**
 * What every request answers with: `Replies[type]`. The worker's handler table must return
 * these ({@link HandlerTable}) and `WorkerPool.run(body)` resolves to `Replies[body['type']]`.
 */
export interface Replies extends CoreReplies, KeystoreReplies, FilesReplies {}

/**
 * One handler per request type, returning that type's reply. The mapped type makes a table
 * exhaustive (a request without a handler is a type error) and a handler returning the wrong
 * type is a compile error. Used for the whole worker (worker/veilkit.worker.ts) and for each
 * area's part of it (worker/keystore/handlers.ts, worker/files.ts).
 */
export type HandlerTable<Req extends { readonly type: string }, Rep extends { [T in Req['type']]: unknown }> = {
  [T in Req['type']]: (req: Extract<Req, { type: T }>) => Rep[T] | Promise<Rep[T]>;
};

/** An error as it crosses the worker boundary. */
export interface SerializedError {
  /** `VeilError`, `TypeError`, `RangeError` or `Error`. */
  readonly name: string;
  readonly message: string;
  /** The `VeilError` code, when `name` is `VeilError`. */
  readonly code?: string;
  /** The `VeilError`'s details, when it has any. */
  readonly details?: VeilErrorDetails;
}

/** The serialized form of a thrown error (the inverse of `deserializeError` in ts/pool.ts). */
export function serializeError(e: unknown): SerializedError {
  if (e instanceof VeilError) {
    return { name: 'VeilError', message: e.message, code: e.code, ...(Object.keys(e.details).length ? { details: { ...e.details } } : {}) };
  }
  if (e instanceof TypeError || e instanceof RangeError) return { name: e.name, message: e.message };
  // Any other error keeps its name (a DOMException's `NotReadableError`, `DataCloneError`, …): the
  // page turns it into `VeilError('INTERNAL')` with that name as `details.reason` (ts/pool.ts deserializeError).
  if (isErrorLike(e)) {
    return { name: typeof e.name === 'string' && e.name !== '' ? e.name.slice(0, 64) : 'Error', message: e.message };
  }
  return { name: typeof e, message: String(e) };
}

export type Reply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  /** `id: null`: the answer to a message without a usable id (see "Malformed messages" above). */
  | { readonly id: number | null; readonly ok: false; readonly error: SerializedError };

/**
 * Checks the envelope of a message a worker (or the isolated keystore frame) received: its `id` (a
 * safe integer) and its `type` (a string naming an own property of `handlers`, a table of
 * handlers, or a type `accepts`). Returns the type, or the {@link Reply} to send instead: a
 * `MALFORMED_INPUT` error with the message's id, or `null` when it has none.
 */
export function checkRequest(
  data: unknown, accepts: (type: string) => boolean,
): { readonly ok: true; readonly id: number; readonly type: string } | { readonly ok: false; readonly reply: Reply } {
  const refuse = (id: number | null, why: string): { ok: false; reply: Reply } => ({
    ok: false, reply: { id, ok: false, error: serializeError(new VeilError('MALFORMED_INPUT', `malformed request: ${why}`)) },
  });
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return refuse(null, `not an object (${data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data})`);
  const { id, type } = data as { id?: unknown; type?: unknown };
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return refuse(null, 'id must be a safe integer');
  if (typeof type !== 'string') return refuse(id, 'type must be a string');
  if (!accepts(type)) return refuse(id, `unknown request type ${JSON.stringify(type.slice(0, 80))}`);
  return { ok: true, id, type };
}

/** Whether `table` has a handler of its own named `type` (never one inherited from `Object.prototype`). */
export function hasHandler(table: object, type: string): boolean {
  return Object.hasOwn(table, type) && typeof (table as Record<string, unknown>)[type] === 'function';
}

/** Collects every distinct `ArrayBuffer` under `value` (typed arrays, arrays, plain objects). */
export function transferables(value: unknown, out: Set<ArrayBuffer> = new Set()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) out.add(value.buffer);
  } else if (value instanceof ArrayBuffer) {
    out.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) transferables(v, out);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) transferables(v, out);
  }
  return [...out];
}
