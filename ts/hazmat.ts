/**
 * `veilkit/hazmat`: the entry points that take caller-chosen nonces or randomness. They exist for
 * interoperability with a fixed wire format and for known-answer tests; used wrongly they break the
 * security of everything built on them (an AES-GCM IV used twice under one key reveals the
 * authentication key and the XOR of the plaintexts; fixed KEM or signature randomness makes
 * ciphertexts and signatures predictable). Everything else in veilkit makes its own randomness:
 * use `encryptAesGcm`, `mlKemEncapsulate`, `xWingEncapsulate`, `mlDsaSign` unless a test vector or
 * a peer's format forces the value. Same synchronous byte-level rules as `veilkit/primitives`
 * (`await init()` first).
 */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { atLeast, bytes, exact, optionalBytes } from './validate.js';
import { encapsulation, type EncapsulationResult } from './split.js';
import { AES_GCM_IV_LENGTH, AES_GCM_KEY_LENGTH, AES_GCM_TAG_LENGTH } from './aead.js';
import { ML_KEM_768 } from './mlkem.js';
import { X_WING } from './xwing.js';
import { ML_DSA_65, mlDsaContext } from './mldsa.js';
import { FIXED_KEYS_FOR_TESTING, type EncryptFileOptions } from './files/types.js';

/**
 * Low-level: encrypts under a caller-chosen 12-byte IV, returning `ciphertext ‖ tag`.
 * Never reuse an IV with the same key. For interoperability and known-answer tests.
 */
export function encryptAesGcmWithIv(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array | null): Uint8Array {
  const k = exact('key', key, AES_GCM_KEY_LENGTH);
  const n = exact('iv', iv, AES_GCM_IV_LENGTH);
  const p = bytes('plaintext', plaintext);
  const a = optionalBytes('aad', aad);
  return call(() => wasm.aesGcmEncryptWithIv(k, n, p, a));
}

/** Low-level: decrypts `ciphertext ‖ tag` under the given 12-byte IV. */
export function decryptAesGcmWithIv(key: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array, aad?: Uint8Array | null): Uint8Array {
  const k = exact('key', key, AES_GCM_KEY_LENGTH);
  const n = exact('iv', iv, AES_GCM_IV_LENGTH);
  const c = atLeast('ciphertext', ciphertext, AES_GCM_TAG_LENGTH);
  const a = optionalBytes('aad', aad);
  return call(() => wasm.aesGcmDecryptWithIv(k, n, c, a));
}

/** Low-level, for known-answer tests: encapsulation with explicit 32-byte randomness `m`. */
export function mlKemEncapsulateDerand(encapsulationKey: Uint8Array, m: Uint8Array): EncapsulationResult {
  const ek = exact('encapsulationKey', encapsulationKey, ML_KEM_768.encapsulationKeyLength);
  const r = exact('m', m, 32);
  return encapsulation(call(() => wasm.mlKemEncapsulateDerand(ek, r)), ML_KEM_768.ciphertextLength);
}

/** Low-level, for known-answer tests: encapsulation with explicit 64-byte randomness. */
export function xWingEncapsulateDerand(publicKey: Uint8Array, eseed: Uint8Array): EncapsulationResult {
  const pk = exact('publicKey', publicKey, X_WING.publicKeyLength);
  const e = exact('eseed', eseed, 64);
  return encapsulation(call(() => wasm.xWingEncapsulateDerand(pk, e)), X_WING.ciphertextLength);
}

/** Low-level, for known-answer tests: signs with explicit 32-byte randomness `rnd`. */
export function mlDsaSignDerand(secretKey: Uint8Array, message: Uint8Array, rnd: Uint8Array, options: { context?: Uint8Array } = {}): Uint8Array {
  const sk = exact('secretKey', secretKey, ML_DSA_65.secretKeyLength);
  const m = bytes('message', message);
  const r = exact('rnd', rnd, 32);
  const ctx = mlDsaContext(options.context);
  return call(() => wasm.mlDsaSignWithRnd(sk, m, ctx, r));
}

/**
 * **Tests only**: `options` for `encryptFile` with a fixed DEK (32 bytes) and file id (16 bytes), so
 * that the output can be compared byte for byte with the Rust engine. Never use it for real data: a
 * fixed DEK makes every file encrypted with it readable by anyone who knows the value. Needs a wasm
 * module built for tests (`VEILKIT_TESTING=1 bash scripts/build.sh`); the shipped module refuses it
 * with `INVALID_OPTION`. (Was the `unsafeFixedKeysForTesting` option of `EncryptFileOptions`.)
 */
export function withFixedKeysForTesting<O extends EncryptFileOptions>(options: O, keys: { readonly dek: Uint8Array; readonly fileId: Uint8Array }): O {
  if (typeof keys !== 'object' || keys === null) throw new TypeError('keys must be { dek, fileId }');
  return { ...options, [FIXED_KEYS_FOR_TESTING]: { dek: exact('dek', keys.dek, 32), fileId: exact('fileId', keys.fileId, 16) } };
}
