/** X-Wing hybrid KEM (X25519 + ML-KEM-768, draft-connolly-cfrg-xwing-kem). */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { exact } from './validate.js';
import { encapsulation, keypair, type EncapsulationResult, type Keypair } from './split.js';

/** X-Wing (ML-KEM-768 + X25519 hybrid KEM) sizes in bytes: secret key, public key, ciphertext, shared secret. */
export const X_WING = Object.freeze({
  secretKeyLength: 32,
  publicKeyLength: 1216,
  ciphertextLength: 1120,
  sharedSecretLength: 32,
});

/** A fresh `[secretKey(32), publicKey(1216)]`, or the one of a 32-byte seed (the seed is the secret key). */
export function xWingKeygen(seed?: Uint8Array): Keypair {
  const { secretKeyLength: sk, publicKeyLength: pk } = X_WING;
  if (seed === undefined) return keypair(call(() => wasm.xWingGenerate()), sk, pk);
  const s = exact('seed', seed, X_WING.secretKeyLength);
  return keypair(call(() => wasm.xWingFromSeed(s)), sk, pk);
}

/** Encapsulates to a 1216-byte X-Wing public key. */
export function xWingEncapsulate(publicKey: Uint8Array): EncapsulationResult {
  const pk = exact('publicKey', publicKey, X_WING.publicKeyLength);
  return encapsulation(call(() => wasm.xWingEncapsulate(pk)), X_WING.ciphertextLength);
}

/** Decapsulates a 1120-byte ciphertext with the 32-byte secret key. */
export function xWingDecapsulate(secretKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  const sk = exact('secretKey', secretKey, X_WING.secretKeyLength);
  const ct = exact('ciphertext', ciphertext, X_WING.ciphertextLength);
  return call(() => wasm.xWingDecapsulate(sk, ct));
}
