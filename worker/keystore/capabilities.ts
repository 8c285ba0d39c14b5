/**
 * `keystore/capabilities`: the route of each key type for new identities (the
 * seed-key self-test against the wasm core, ts/webcrypto/probe-keys.ts; the
 * choice, ts/webcrypto/routes.ts `keyRoutes`) and the platform features the
 * keystore uses.
 */
import type { KeystoreCapabilities } from '../../protocol/keystore.protocol.js';
import { detectSeedKeys } from '../../ts/webcrypto/probe-keys.js';
import { keyRoutes } from '../../ts/webcrypto/routes.js';
import { SCHEMA_VERSION } from './db.js';

/** What this browser offers the keystore (docs/KEYSTORE.md, "Capabilities"). */
export async function capabilities(): Promise<KeystoreCapabilities> {
  const webCrypto = await detectSeedKeys();
  return {
    routes: keyRoutes(webCrypto),
    webCrypto,
    webLocks: typeof (globalThis.navigator as Navigator | undefined)?.locks?.request === 'function',
    broadcastChannel: typeof BroadcastChannel === 'function',
    indexedDb: typeof indexedDB === 'object' && indexedDB !== null,
    schemaVersion: SCHEMA_VERSION,
  };
}
