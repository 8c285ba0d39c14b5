/** ML-DSA-65, FIPS 204 (pure mode, with context string). */
import * as wasm from './wasm/veilkit.js';
import { VeilError } from '../protocol/errors.js';
import { call } from './init.js';
import { atMost, bytes, exact, optionalBytes } from './validate.js';
import { keypair, type Keypair } from './split.js';

/** ML-DSA-65 (FIPS 204) sizes in bytes: seed, public key and signature. */
export const ML_DSA_65 = Object.freeze({
  secretKeyLength: 32,
  publicKeyLength: 1952,
  signatureLength: 3309,
  maxContextLength: 255,
});

/** Options of `mlDsaSign`: a `context` string (≤ 255 bytes) and `deterministic` signing. */
export interface MlDsaSignOptions {
  /** Context string, at most 255 bytes (default empty). */
  context?: Uint8Array;
  /** Deterministic signing (rnd = 0³²) instead of the default hedged signing. */
  deterministic?: boolean;
}

/** Package-internal (also used by `mlDsaSignDerand`, ts/hazmat.ts): the checked context string. */
export function mlDsaContext(value: Uint8Array | undefined): Uint8Array {
  return atMost('context', optionalBytes('context', value), ML_DSA_65.maxContextLength);
}

/** A fresh `[secretKey(32-byte seed ξ), publicKey(1952)]`, or the one of a given seed. */
export function mlDsaKeygen(seed?: Uint8Array): Keypair {
  const { secretKeyLength: sk, publicKeyLength: pk } = ML_DSA_65;
  if (seed === undefined) return keypair(call(() => wasm.mlDsaGenerate()), sk, pk);
  const s = exact('seed', seed, ML_DSA_65.secretKeyLength);
  return keypair(call(() => wasm.mlDsaFromSeed(s)), sk, pk);
}

/** Signs (hedged by default). Returns a 3309-byte signature. */
export function mlDsaSign(secretKey: Uint8Array, message: Uint8Array, options: MlDsaSignOptions = {}): Uint8Array {
  const sk = exact('secretKey', secretKey, ML_DSA_65.secretKeyLength);
  const m = bytes('message', message);
  const ctx = mlDsaContext(options.context);
  return call(() => wasm.mlDsaSign(sk, m, ctx, options.deterministic === true));
}

/** Verifies; `false` for any invalid signature or malformed public key. */
export function mlDsaVerify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, options: { context?: Uint8Array } = {}): boolean {
  const pk = exact('publicKey', publicKey, ML_DSA_65.publicKeyLength);
  const m = bytes('message', message);
  const sig = bytes('signature', signature);
  const ctx = mlDsaContext(options.context);
  try {
    call(() => wasm.mlDsaVerify(pk, m, ctx, sig));
    return true;
  } catch (e) {
    if (e instanceof VeilError && (e.code === 'INVALID_SIGNATURE' || e.code === 'INVALID_KEY' || e.code === 'INVALID_LENGTH')) return false;
    throw e;
  }
}
