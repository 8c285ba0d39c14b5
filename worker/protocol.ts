/**
 * The worker protocol: a discriminated union of requests with namespaced
 * tags, and `{ id, ok, value | error }` replies. Every `ArrayBuffer` in a
 * message travels in the transfer list.
 *
 * Namespaces:
 * - `veilkit/*`     — lifecycle (`veilkit/init` → `veilkit/ready`).
 * - `primitives/*`  — the byte-level primitives of `veilkit/primitives`, by name.
 * - `debug/*`       — test hooks, only honoured when the worker was started with `debug: true`.
 */
import type * as Primitives from '../ts/primitives.js';
import type { RoutePreference } from '../ts/native.js';

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

export interface ReadyMessage {
  readonly type: 'veilkit/ready';
  readonly ok: boolean;
  readonly error?: SerializedError;
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

/** An error as it crosses the worker boundary. */
export interface SerializedError {
  /** `VeilError`, `TypeError`, `RangeError` or `Error`. */
  readonly name: string;
  readonly message: string;
  /** The `VeilError` code, when `name` is `VeilError`. */
  readonly code?: string;
}

export type Reply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: SerializedError };

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
