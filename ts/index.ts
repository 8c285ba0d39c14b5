/**
 * veilkit: post-quantum end-to-end encryption for the browser.
 *
 * `import { init } from 'veilkit'; await init();` loads the SIMD WebAssembly
 * core (memoised; page, Worker or Node). The low-level primitives are
 * re-exported here with the seed SDK's camelCase names and also live at
 * `veilkit/primitives`.
 */
export * from './primitives.js';
export { WorkerPool, deserializeError, type PoolOptions, type RunOptions, type RequestBody, type WorkerExit, type WorkerExitReason } from './pool.js';
export {
  Keystore, decodePublicBundle, verifyPublicBundle, IDENTITY_DERIVATION, DEFAULT_PASSPHRASE_KDF, MIN_PASSPHRASE_KDF, DEFAULT_KDF_BUDGET, MAX_BACKUP_HISTORY_BYTES,
  type KeystoreOptions, type CreateIdentityOptions, type RestoreOptions, type DecapsulateOptions, type PublicBundle,
  type IdentityHandle, type KeyHandle, type KeyRoute, type KeyType, type ImportBackupResult, type ImportBackupHistoryResult, type KeystoreCapabilities,
  type KeystoreChange, type KeystoreStatus, type PassphraseKdfParams, type KdfBudget, type BackupOptions, type ExportBackupOptions, type ImportBackupOptions, type HybridSignature,
  type PrekeyBundles, type CreatePrekeyBundleOptions, type CreateKeyPackagesOptions, type ReplenishPrekeysOptions, type CurrentPassphraseOptions,
  type ContainerHeaderSignature,
} from './keystore.js';
export { ConversationHistory, HISTORY_LIMITS, type HistoryAppendOptions, type HistoryAppendResult, type HistoryEntry } from './history.js';
export {
  Session, SESSION_VERIFICATION_CONTEXT, MAX_SESSION_BATCH, type SessionInfo, type InitiateOptions, type RespondOptions, type MessageOptions,
  type BatchMessage, type BatchPlaintext, type DecryptManyResult,
} from './session.js';
export {
  Group, GROUP_SUITES, type GroupInfo, type GroupMember, type GroupMemberWithCode, type GroupReceived, type GroupCommit, type GroupEncrypted,
  type GroupSuiteId, type GroupUpdatePolicy, type CreateGroupOptions, type JoinGroupOptions, type GroupMessageOptions, type GroupReceiveOptions, type GroupHistoryTarget,
} from './group/group.js';
export { GroupChat, GROUP_OUTBOX_LIMITS, type GroupDelivery, type GroupChatMessage, type GroupChatState, type GroupChatOptions } from './group/chat.js';
export { encodeGroupHistoryMessage, decodeGroupHistoryMessage, GROUP_HISTORY_VERSION, type GroupHistoryMessage } from './group/history-entry.js';
export {
  DeliveryService, memoryDeliveryStore, deliveryHandler, DELIVERY_NAME, DELIVERY_LIMITS, LINK_LIMITS,
  type DeliveryStore, type DeliveryEntry, type DeliveryPost, type DeliveryEvent, type MailboxEntry, type MemoryDeliveryState,
} from './group/delivery.js';
export { httpDelivery, type HttpDelivery, type DeliveryNotice } from './group/delivery-client.js';
export { inspectGroupMessage, type GroupWireInfo } from './group/wire.js';
export { GroupLog, type GroupLogEntry, type GroupLogPost } from './group/log.js';
export {
  addDevice, revokeDevice, lastSignedRegistry, verifyDeviceRegistry, deviceIdentity, deviceConsent, findDevice, DEVICE_REGISTRY, type AddDeviceOptions, type RemoteDevice, type VerifyDeviceRegistryOptions,
  type DeviceRegistryView, type DeviceRegistryHead, type RegisteredDevice, type DeviceRegistryFailure,
  groupRoster, deviceChanges, type GroupRoster, type GroupUser,
  startLink, acceptLink, answerLink, confirmLink, finishLink, linkChannelOf, DEVICE_LINK, linkNewDevice, linkExistingDevice, type LinkRelay, type LinkOverRelayOptions, type LinkStarted, type LinkAccepted, type LinkConfirmed, type LinkFinished,
} from './devices.js';
export { capabilities, type Capabilities, type Routes, type Route, type RoutePreference, type WasmBuild } from './webcrypto/routes.js';
export type { WebCryptoSupport, AlgorithmSupport } from './webcrypto/probe.js';
export { KDF_BOUNDS, type KdfBounds, type CostBounds, type Argon2CostBounds } from './kdf-bounds.js';
export { MlKemDecapsulationKey, generateMlKemKey, importMlKemSeed, type MlKemKeyOptions } from './mlkem-key.js';
export {
  Ed25519SigningKey, generateEd25519SigningKey, importEd25519Seed, X25519Key, generateX25519Key, importX25519Secret,
  MlKemEncapsulationKey, importMlKemEncapsulationKey, MlDsaSigningKey, generateMlDsaSigningKey, importMlDsaSeed,
  MlDsaPublicKey, importMlDsaPublicKey, type MlDsaContextOptions, type KeyHandleOptions,
} from './keys.js';
export {
  encryptFile, encryptFileTo, decryptFile, openContainer, inspectContainer, saveFile, CONTAINER,
  type FileInput, type FileProgress, type RecipientPublicKey, type PasswordKdf, type GroupKey, type ThresholdOptions,
  type IdentitySigner, type SigningSeeds, type FileJobOptions, type EncryptFileOptions, type FileUnlock, type SignaturePolicyOptions,
  type DecryptFileOptions, type WrapInfo, type ContainerHeader, type SignatureStatus, type ContainerInspection, type VerifyPolicy,
  type VerificationReport, type OpenedContainer, type EncryptToResult, type SaveFileOptions, type SignatureInfo, type UnlockOptions,
  type FileJobStatus, type FileJobSnapshot, type FileOperation,
} from './files.js';
export {
  bundleToString, bundleFromString, BUNDLE_STRING_PREFIX, MAX_BUNDLE_STRING_BYTES,
} from './bundle-string.js';
export {
  seal, open, sealExport, openExport, SEALED_BOX, type SealRecipient, type OpenKey, type SealOptions, type ExportOptions,
} from './sealed.js';
