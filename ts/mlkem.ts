/** ML-KEM-768, FIPS 203 (seed names `mlKemKeygen` / `mlKemEncapsulate` / `mlKemDecapsulate`). */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { exact } from './validate.js';
import { encapsulation, keypair, type EncapsulationResult, type Keypair } from './split.js';

/** ML-KEM-768 (FIPS 203) sizes in bytes: keys, ciphertext and shared secret. */
export const ML_KEM_768 = Object.freeze({
  encapsulationKeyLength: 1184,
  decapsulationKeyLength: 2400,
  ciphertextLength: 1088,
  sharedSecretLength: 32,
  seedLength: 64,
});

/**
 * A fresh `[decapsulationKey(2400), encapsulationKey(1184)]`, or the
 * deterministic one of a 64-byte seed `d ‖ z` (FIPS 203 ML-KEM.KeyGen_internal).
 */
export function mlKemKeygen(seed?: Uint8Array): Keypair {
  const { decapsulationKeyLength: dk, encapsulationKeyLength: ek } = ML_KEM_768;
  if (seed === undefined) return keypair(call(() => wasm.mlKemGenerate()), dk, ek);
  const s = exact('seed', seed, ML_KEM_768.seedLength);
  return keypair(call(() => wasm.mlKemFromSeed(s)), dk, ek);
}

/**
 * Encapsulates to a 1184-byte key. Keys failing the FIPS 203 modulus check
 * throw `VeilError('INVALID_KEY')`.
 */
export function mlKemEncapsulate(encapsulationKey: Uint8Array): EncapsulationResult {
  const ek = exact('encapsulationKey', encapsulationKey, ML_KEM_768.encapsulationKeyLength);
  return encapsulation(call(() => wasm.mlKemEncapsulate(ek)), ML_KEM_768.ciphertextLength);
}

/**
 * Decapsulates with the 2400-byte key (its embedded hash is checked:
 * `VeilError('INVALID_KEY')`). A forged ciphertext yields an unrelated
 * secret (implicit rejection), not an error.
 */
export function mlKemDecapsulate(decapsulationKey: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  const dk = exact('decapsulationKey', decapsulationKey, ML_KEM_768.decapsulationKeyLength);
  const ct = exact('ciphertext', ciphertext, ML_KEM_768.ciphertextLength);
  return call(() => wasm.mlKemDecapsulate(dk, ct));
}
