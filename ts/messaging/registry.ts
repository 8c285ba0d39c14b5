/** The signed device registry (docs/PROTOCOL.md §10). */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { exact, oneOf, string, utf8 } from '../validate.js';
import { ED25519_SECRET_LENGTHS, b64urlDecode, nonEmpty, safeInteger } from './internal.js';
import { MESSAGING } from './sizes.js';

// ---------------------------------------------------------------- device registry

/** An active device. */
export interface Device {
  deviceId: string;
  name: string;
  publicKey: Uint8Array;
  addedAt: number;
}

/** Why a registry was rejected (docs/PROTOCOL.md §10). */
export type RegistryFailureReason =
  | 'MALFORMED'
  | 'ACCOUNT_KEY_MISMATCH'
  | 'BAD_PREV_HASH'
  | 'TIMESTAMP_DECREASED'
  | 'BAD_SIGNATURE'
  | 'DUPLICATE_DEVICE'
  | 'UNKNOWN_DEVICE'
  | 'ALREADY_REVOKED';

/** `index` is `null` when the registry as a whole is at fault. */
export type RegistryVerification = { valid: true } | { valid: false; index: number | null; reason: RegistryFailureReason };

/** JSON of an empty registry of the account whose Ed25519 identity key is given. */
export function registryEmpty(accountPublicKey: Uint8Array): string {
  const k = exact('accountPublicKey', accountPublicKey, 32);
  return call(() => wasm.registryEmpty(k));
}

/**
 * Adds a device, signed by the account identity key (64-byte secret or
 * 32-byte seed), after verifying the registry; returns the new JSON.
 */
export function registryAddDevice(
  registryJson: string,
  deviceId: string,
  name: string,
  addedAt: number,
  devicePublicKey: Uint8Array,
  accountSigningKey: Uint8Array,
): string {
  const r = string('registryJson', registryJson);
  const id = utf8('deviceId', deviceId, 1, MESSAGING.maxDeviceIdLength);
  const n = utf8('name', name, 0, MESSAGING.maxDeviceNameLength);
  const t = safeInteger('addedAt', addedAt);
  const pk = nonEmpty('devicePublicKey', devicePublicKey, MESSAGING.maxDevicePublicKeyLength);
  const sk = oneOf('accountSigningKey', accountSigningKey, ED25519_SECRET_LENGTHS);
  return call(() => wasm.registryAddDevice(r, id, n, t, pk, sk));
}

/** Revokes a device, signed by the account identity key; returns the new JSON. */
export function registryRevokeDevice(registryJson: string, deviceId: string, revokedAt: number, accountSigningKey: Uint8Array): string {
  const r = string('registryJson', registryJson);
  const id = utf8('deviceId', deviceId, 1, MESSAGING.maxDeviceIdLength);
  const t = safeInteger('revokedAt', revokedAt);
  const sk = oneOf('accountSigningKey', accountSigningKey, ED25519_SECRET_LENGTHS);
  return call(() => wasm.registryRevokeDevice(r, id, t, sk));
}

/** Active devices, in the order added, of a registry verified against the pinned account key. */
export function registryListActive(registryJson: string, accountPublicKey: Uint8Array): Device[] {
  const r = string('registryJson', registryJson);
  const k = exact('accountPublicKey', accountPublicKey, 32);
  const list = JSON.parse(call(() => wasm.registryListActive(r, k))) as { deviceId: string; name: string; publicKey: string; addedAt: number }[];
  return list.map((d) => ({ deviceId: d.deviceId, name: d.name, publicKey: b64urlDecode('device publicKey', d.publicKey), addedAt: d.addedAt }));
}

/** Verifies a registry against the pinned account key; says which change failed and why. */
export function registryVerify(registryJson: string, accountPublicKey: Uint8Array): RegistryVerification {
  const r = string('registryJson', registryJson);
  const k = exact('accountPublicKey', accountPublicKey, 32);
  return JSON.parse(call(() => wasm.registryVerify(r, k))) as RegistryVerification;
}
