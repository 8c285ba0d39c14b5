/**
 * A public bundle assembled from a BIP-39 seed by the documented recipe
 * (docs/KEYSTORE.md#public-bundle), as the keystore worker builds it: used by
 * the bundle tests and the bundle fuzzing (tests/node/).
 */
import * as P from '../../ts/primitives.js';
import { concatBytes } from '../../ts/bytes.js';
import {
  BUNDLE_DST, bundleEd25519Message, deriveKeySeed, encodeBundleBody, publicKeyFromKeySeed,
} from '../../ts/keystore-format.js';
import { KEY_TYPES, type KeyType } from '../../protocol/keystore.protocol.js';

export interface BuiltBundle {
  /** The encoded bundle: body ‖ Ed25519 signature (‖ ML-DSA-65 signature). */
  readonly bytes: Uint8Array;
  readonly body: Uint8Array;
  readonly keys: Partial<Record<KeyType, Uint8Array>>;
}

export function buildBundle(seed: Uint8Array, mlDsa: boolean): BuiltBundle {
  const keys: Partial<Record<KeyType, Uint8Array>> = {};
  for (const t of KEY_TYPES.filter((k) => mlDsa || k !== 'ml-dsa-65')) keys[t] = publicKeyFromKeySeed(t, deriveKeySeed(seed, t));
  const body = encodeBundleBody(keys);
  const parts = [body, P.signMessage(deriveKeySeed(seed, 'ed25519'), bundleEd25519Message(body))];
  if (mlDsa) {
    parts.push(P.mlDsaSign(deriveKeySeed(seed, 'ml-dsa-65'), body, { context: new TextEncoder().encode(BUNDLE_DST), deterministic: true }));
  }
  return { bytes: concatBytes(parts), body, keys };
}
