/** X25519 (seed names `generateX25519Keypair` / `ecdhSharedSecret`). */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { exact } from './validate.js';
import { keypair, type Keypair } from './split.js';

/** X25519 key (secret, public, shared secret) length: 32 bytes. */
export const X25519_KEY_LENGTH = 32;

/** A fresh `[secretKey(32), publicKey(32)]`. */
export function generateX25519Keypair(): Keypair {
  return keypair(call(() => wasm.x25519Generate()), 32, 32);
}

/** The public key of a 32-byte secret key. */
export function x25519PublicKey(secretKey: Uint8Array): Uint8Array {
  const s = exact('secretKey', secretKey, X25519_KEY_LENGTH);
  return call(() => wasm.x25519Public(s));
}

/**
 * X25519 shared secret (32 bytes). A low-order public key, which gives the
 * all-zero secret, throws `VeilError('WEAK_KEY')`.
 */
export function ecdhSharedSecret(ourSecret: Uint8Array, theirPublic: Uint8Array): Uint8Array {
  const s = exact('ourSecret', ourSecret, X25519_KEY_LENGTH);
  const p = exact('theirPublic', theirPublic, X25519_KEY_LENGTH);
  return call(() => wasm.x25519Dh(s, p));
}
