/**
 * The veilkit calls `veilkit/react` makes, in one object: the hooks never call the core directly,
 * so the Vitest suite (tests/react/) substitutes fakes for exactly these with one module mock.
 * Importing this module runs nothing (no `window`, `Worker`, `indexedDB` or wasm).
 */
import { init, type InitOptions } from '../init.js';
import { capabilities, type Capabilities } from '../webcrypto/routes.js';
import { WorkerPool, type PoolOptions } from '../pool.js';
import { Keystore, type KeystoreOptions } from '../keystore.js';
import { Session } from '../session.js';
import { Group, type GroupInfo } from '../group/group.js';
import { GroupChat, type GroupChatOptions, type GroupDelivery } from '../group/chat.js';
import type { IdentityHandle } from '../../protocol/keystore.protocol.js';
import { encryptFile, decryptFile } from '../files.js';
import {
  addDevice, deviceChanges, deviceIdentity, lastSignedRegistry, linkExistingDevice, linkNewDevice, revokeDevice, verifyDeviceRegistry,
} from '../devices.js';
import { parseRegistry } from '../devices-format.js';
import { inspectGroupMessage } from '../group/wire.js';
import { sessionIdentityId } from '../session/core.js';
import type { DecryptFileOptions, EncryptFileOptions, FileInput, FileOperation, FileUnlock, SignatureInfo } from '../files.js';

export const runtime = {
  /** `init()` then `capabilities()` of this thread. */
  async start(options: InitOptions): Promise<Capabilities> {
    await init(options);
    return capabilities();
  },
  createPool: (options: PoolOptions): WorkerPool => new WorkerPool(options),
  openKeystore: (options: KeystoreOptions): Promise<Keystore> => Keystore.open(options),
  encryptFile: (input: FileInput, options: EncryptFileOptions): FileOperation<Blob> => encryptFile(input, options),
  decryptFile: (input: FileInput, unlock: FileUnlock, options: DecryptFileOptions & { readonly releaseMode?: 'verified' }):
    FileOperation<Blob & { readonly signature: SignatureInfo }> => decryptFile(input, unlock, options),
  initiate: Session.initiate.bind(Session),
  respond: Session.respond.bind(Session),
  load: Session.load.bind(Session),
  deleteSession: Session.delete.bind(Session),
  /** The group's chat over `delivery` (Group.load + GroupChat.open). */
  openGroupChat: async (ks: Keystore, id: string, delivery: GroupDelivery, o: GroupChatOptions): Promise<GroupChat> => GroupChat.open(await Group.load(ks, id), delivery, o),
  listGroups: (ks: Keystore, identity: IdentityHandle): Promise<GroupInfo[]> => Group.list(ks, identity),
  createGroup: async (ks: Keystore, identity: IdentityHandle): Promise<GroupInfo> => (await Group.create(ks, identity)).cachedInfo,
  joinGroup: async (ks: Keystore, identity: IdentityHandle, welcome: Uint8Array): Promise<GroupInfo> => (await Group.join(ks, identity, welcome)).cachedInfo,
  /** Users and devices (docs/DEVICES.md), for useDevices. */
  devices: {
    addDevice, revokeDevice, lastSignedRegistry, verifyDeviceRegistry, linkNewDevice, linkExistingDevice, deviceIdentity, deviceChanges,
    /** The user `Enc(ID)` a registry names (not verified: what a first-use pin starts from). */
    registryUser: (registry: Uint8Array): Uint8Array => parseRegistry(registry).user,
    inspect: inspectGroupMessage,
  },
  /** Hex of a session identity id: SHA-256("veilkit-session-identity-v1" ‖ `Enc(ID)`) (docs/SESSIONS.md §2.1). */
  async sessionIdentityId(encoding: Uint8Array): Promise<string> {
    await init();
    return sessionIdentityId(encoding);
  },
};

export type Runtime = typeof runtime;
