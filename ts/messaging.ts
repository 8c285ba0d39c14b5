/**
 * Messaging primitives (seed names): hybrid and authenticated KEM, padded and
 * chunked AES-GCM, session root / window keys and the PCS ratchet, transcript
 * hashing, sealed sender, verification codes, the key-transparency log, the
 * device registry and a replay store. Byte-exact constructions:
 * `docs/PROTOCOL.md`. Errors: `TypeError`/`RangeError` for argument misuse
 * (before WebAssembly), `VeilError` with a stable `code` otherwise — also for
 * the other party's bytes (ciphertexts, packets, SAS messages, identity
 * encodings) of a wrong length.
 *
 * This file is the public entry point; the code lives by concern in
 * `ts/messaging/` (`internal.ts` holds shared argument checks and is not re-exported).
 */
export { MESSAGING } from './messaging/sizes.js';
export {
  hybridKemEncapsulate,
  hybridKemDecapsulate,
  authenticatedKemEncapsulate,
  authenticatedKemDecapsulate,
  type HybridKemResult,
  type AuthenticatedKemResult,
} from './messaging/kem.js';
export {
  padMessage,
  unpadMessage,
  paddedLength,
  encryptAesGcmPadded,
  decryptAesGcmPadded,
  encryptAesGcmChunked,
  decryptAesGcmChunked,
} from './messaging/padding.js';
export {
  deriveSrk,
  deriveWindowKey,
  generateRatchetKeypair,
  ratchetSrk,
  shouldRatchet,
  transcriptNew,
  transcriptComputeMessageHash,
  transcriptUpdate,
  transcriptVerifySync,
} from './messaging/session.js';
export { sealMessage, unsealMessage, type UnsealedMessage, type SenderKeyResolver } from './messaging/sealed-sender.js';
export {
  encodeVerificationIdentity,
  generateVerificationCode,
  SasVerification,
  type VerificationIdentity,
  type VerificationCode,
  type SasVerificationOptions,
  type SasState,
} from './messaging/verification.js';
export {
  KEY_LOG_GENESIS_HASH,
  keyLogToJson,
  keyLogFromJson,
  keyLogCreateEntry,
  keyLogEntryHash,
  keyLogVerifyChain,
  keyLogCurrentKey,
  type KeyLogAction,
  type KeyLogEntry,
  type KeyLogFailureReason,
  type KeyLogVerification,
} from './messaging/key-log.js';
export {
  registryEmpty,
  registryAddDevice,
  registryRevokeDevice,
  registryListActive,
  registryVerify,
  type Device,
  type RegistryFailureReason,
  type RegistryVerification,
} from './messaging/registry.js';
export { ReplayStore, type ReplayStoreOptions } from './messaging/replay-store.js';
