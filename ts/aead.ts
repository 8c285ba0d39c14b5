/** AES-256-GCM (seed names `encryptAesGcm` / `decryptAesGcm`). */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { atLeast, exact, optionalBytes, bytes } from './validate.js';

/** AES-256-GCM key length: 32 bytes. */
export const AES_GCM_KEY_LENGTH = 32;
/** AES-256-GCM nonce length: 12 bytes. */
export const AES_GCM_IV_LENGTH = 12;
/** AES-256-GCM authentication tag length: 16 bytes. */
export const AES_GCM_TAG_LENGTH = 16;

/**
 * Encrypts with a fresh random 96-bit IV. Returns `iv(12) ‖ ciphertext ‖ tag(16)`.
 * `aad` null/undefined is the same as empty.
 */
export function encryptAesGcm(key: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array | null): Uint8Array {
  const k = exact('key', key, AES_GCM_KEY_LENGTH);
  const p = bytes('plaintext', plaintext);
  const a = optionalBytes('aad', aad);
  return call(() => wasm.aesGcmEncrypt(k, p, a));
}

/**
 * Decrypts `iv ‖ ciphertext ‖ tag`. Any tampering, wrong key or wrong AAD
 * throws `VeilError('AUTHENTICATION_FAILED')`.
 */
export function decryptAesGcm(key: Uint8Array, ciphertext: Uint8Array, aad?: Uint8Array | null): Uint8Array {
  const k = exact('key', key, AES_GCM_KEY_LENGTH);
  const c = atLeast('ciphertext', ciphertext, AES_GCM_IV_LENGTH + AES_GCM_TAG_LENGTH);
  const a = optionalBytes('aad', aad);
  return call(() => wasm.aesGcmDecrypt(k, c, a));
}
