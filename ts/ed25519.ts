/** Ed25519 (seed names `generateEd25519Keypair` / `signMessage` / `verifySignature`). */
import * as wasm from './wasm/veilkit.js';
import { VeilError } from '../protocol/errors.js';
import { call } from './init.js';
import { bytes, exact, oneOf } from './validate.js';
import { keypair, type Keypair } from './split.js';

/** Ed25519 secret key length as the seed SDK stores it (seed ‖ public key): 64 bytes. */
export const ED25519_SECRET_KEY_LENGTH = 64;
/** Ed25519 seed (RFC 8032 secret key) length: 32 bytes. */
export const ED25519_SEED_LENGTH = 32;
/** Ed25519 public key length: 32 bytes. */
export const ED25519_PUBLIC_KEY_LENGTH = 32;
/** Ed25519 signature length: 64 bytes. */
export const ED25519_SIGNATURE_LENGTH = 64;

/** A fresh `[secretKey(64) = seed ‖ publicKey, publicKey(32)]`. */
export function generateEd25519Keypair(): Keypair {
  return keypair(call(() => wasm.ed25519Generate()), 64, 32);
}

/** The key pair of a 32-byte seed (RFC 8032 private key). */
export function ed25519KeypairFromSeed(seed: Uint8Array): Keypair {
  const s = exact('seed', seed, ED25519_SEED_LENGTH);
  return keypair(call(() => wasm.ed25519FromSeed(s)), 64, 32);
}

/**
 * Signs with the 64-byte secret key (or its 32-byte seed). A 64-byte key whose
 * public half does not match its seed throws `VeilError('INVALID_KEY')`.
 */
export function signMessage(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  const s = oneOf('secretKey', secretKey, [64, 32]);
  const m = bytes('message', message);
  return call(() => wasm.ed25519Sign(s, m));
}

/**
 * Strict RFC 8032 verification (canonical encodings, no small-order keys).
 * Returns `false` for any invalid signature; throws only for wrong argument types/lengths.
 */
export function verifySignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const p = exact('publicKey', publicKey, ED25519_PUBLIC_KEY_LENGTH);
  const m = bytes('message', message);
  const sig = exact('signature', signature, ED25519_SIGNATURE_LENGTH);
  try {
    call(() => wasm.ed25519Verify(p, m, sig));
    return true;
  } catch (e) {
    if (e instanceof VeilError && (e.code === 'INVALID_SIGNATURE' || e.code === 'INVALID_KEY')) return false;
    throw e;
  }
}
