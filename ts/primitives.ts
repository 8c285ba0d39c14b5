/**
 * `veilkit/primitives`: the seed-compatible low-level layer. Every function
 * takes and returns bytes, synchronously, on the calling thread, after
 * `await init()`. Use it for porting and interoperability; the high-level
 * APIs (keystore, files, sessions) keep secrets out of page JavaScript.
 */
export { init, isInitialized, platformSupport, type InitOptions, type WasmSource } from './init.js';
export { VeilError, VEIL_ERROR_CODES, type VeilErrorCode, type VeilErrorDetails } from './errors.js';
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
export * from './mldsa.js';
export * from './bip39.js';
export * from './shamir.js';
export * from './messaging.js';
