'use client';
/**
 * `veilkit/react`: React (≥ 18) hooks over veilkit — `<VeilProvider>`, `useVeil`, `useIdentity`,
 * `useEncryptFile`, `useDecryptFile`, `useSession`, `useChat`, `useGroups`, `useGroupChat`, `useDevices`, `useUserDevices` — on one framework-free store
 * (`createVeilStore`). Reference: docs/REACT.md. Importing this module touches no `window`,
 * `Worker`, `indexedDB` or wasm; the provider creates its pool and keystore in an effect.
 */
export {
  VeilProvider, useVeil, useIdentity, useEncryptFile, useDecryptFile, useSession, useChat,
  type VeilProviderProps, type VeilPoolOptions, type UseIdentityResult, type UseFileResult, type EncryptOptions, type DecryptOptions,
  type DecryptResult, type SessionState, type UseSessionResult, type UseChatResult,
} from './hooks.js';
export {
  useGroups, useGroupChat, type UseGroupsResult, type UseGroupsOptions, type GroupsState, type UseGroupChatResult, type GroupChatHookState, type VeilDelivery,
} from './groups.js';
export {
  useDevices, useUserDevices, type UseDevicesResult, type UseDevicesOptions, type DevicesState, type UseUserDevicesResult,
} from './devices.js';
export { createVeilStore, type VeilStore, type VeilStatus } from './store.js';
export type { VeilState, IdentityState } from './client.js';
export type { FileTaskState, FileTaskProgress } from './file-task.js';
export {
  broadcastChannelTransport, CHAT_FRAME, CHAT_ARCHIVED_SESSIONS, CHAT_HELD_MESSAGES,
  type ChatTransport, type ChatPeer, type ChatState, type ChatIdentityChange,
} from './chat.js';
export {
  memoryChatStorage, keystoreChatStorage, unsafePlaintextIndexedDbChatStorage, CHAT_HISTORY_LOADED, type ChatStorage, type ChatStorageContext, type ChatRecord, type ChatMessage,
  type ChatPeerBinding, type ChatPendingIdentityChange,
} from './chat-storage.js';
export { fingerprintEmoji, type ChatVerificationCode } from './verification.js';
export { bundleToString, bundleFromString } from '../bundle-string.js';
