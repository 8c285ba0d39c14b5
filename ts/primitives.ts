/**
 * `veilkit/primitives`: the seed-compatible low-level layer. Every function
 * takes and returns bytes, synchronously, on the calling thread, after
 * `await init()`. Use it for porting and interoperability; the high-level
 * APIs (keystore, files, sessions) keep secrets out of page JavaScript.
 * Entry points taking caller-chosen nonces or randomness live at `veilkit/hazmat`.
 */
import * as hazmat from './hazmat.js';

export { init, isInitialized, platformSupport, type InitOptions, type WasmSource } from './init.js';
export { VeilError, VEIL_ERROR_CODES, type VeilErrorCode, type VeilErrorDetails } from '../protocol/errors.js';
export type { Keypair, EncapsulationResult } from './split.js';
export * from './aead.js';
export * from './keywrap.js';
export * from './kdf.js';
export * from './hash.js';
export * from './x25519.js';
export * from './ed25519.js';
export * from './mlkem.js';
export * from './xwing.js';
export * from './batch.js';
export { ML_DSA_65, mlDsaKeygen, mlDsaSign, mlDsaVerify, type MlDsaSignOptions } from './mldsa.js';
export * from './bip39.js';
export * from './shamir.js';
export * from './messaging.js';
export { APP_SIGNATURE, appSignatureMessage, verifyAppSignature, verifyHybridAppSignature, type AppSignatureOptions } from './app-signature.js';

// ---------------------------------------------------------------- deprecated hazmat re-exports
// Published here before `veilkit/hazmat` existed (README's primitives table), so kept as aliases
// of the same functions; new code imports them from `veilkit/hazmat`.

/** @deprecated Caller-chosen IV: import it from `veilkit/hazmat` (the same function). */
export const encryptAesGcmWithIv: typeof hazmat.encryptAesGcmWithIv = hazmat.encryptAesGcmWithIv;
/** @deprecated Caller-chosen IV: import it from `veilkit/hazmat` (the same function). */
export const decryptAesGcmWithIv: typeof hazmat.decryptAesGcmWithIv = hazmat.decryptAesGcmWithIv;
/** @deprecated Caller-chosen randomness (known-answer tests): import it from `veilkit/hazmat` (the same function). */
export const mlKemEncapsulateDerand: typeof hazmat.mlKemEncapsulateDerand = hazmat.mlKemEncapsulateDerand;
/** @deprecated Caller-chosen randomness (known-answer tests): import it from `veilkit/hazmat` (the same function). */
export const xWingEncapsulateDerand: typeof hazmat.xWingEncapsulateDerand = hazmat.xWingEncapsulateDerand;
/** @deprecated Caller-chosen randomness (known-answer tests): import it from `veilkit/hazmat` (the same function). */
export const mlDsaSignDerand: typeof hazmat.mlDsaSignDerand = hazmat.mlDsaSignDerand;
