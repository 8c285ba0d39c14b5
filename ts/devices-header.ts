/**
 * The device registry's constants and header (docs/DEVICES.md §2), without any cryptography: what
 * `ts/devices-format.ts` parses and verifies, and what a server reads to order records
 * (`veilkit/server`'s delivery service; no wasm).
 */
import { VeilError } from '../protocol/errors.js';

/** Constants of the device registry (docs/DEVICES.md). */
export const DEVICE_REGISTRY = Object.freeze({
  /** Domain-separation label: hash and signature prefix, and the ML-DSA-65 context (ASCII, 26 bytes). */
  label: 'veilkit-device-registry-v1',
  magic: 'VKDR',
  format: 1,
  /** Most changes a registry holds (every add and every revoke is one). */
  maxChanges: 512,
  /** Longest device name, in UTF-8 bytes. */
  maxNameLength: 64,
  /** `Enc(ID)` of a user or device: flags 0x01 (with ML-DSA-65) ‖ Ed25519 ‖ ML-DSA-65 ‖ X25519. */
  identityLength: 2017,
});

/** Bytes of the header: magic ‖ u8 format ‖ Enc(U) ‖ u16 change count. */
export const REGISTRY_HEADER_LENGTH = DEVICE_REGISTRY.magic.length + 1 + DEVICE_REGISTRY.identityLength + 2;

/** The change count of a registry's header (nothing else is read or checked): `MALFORMED_INPUT` if it is not a `VKDR` version 1 header. */
export function registryChangeCount(record: Uint8Array): number {
  const magic = new TextEncoder().encode(DEVICE_REGISTRY.magic);
  if (record.length < REGISTRY_HEADER_LENGTH || !magic.every((b, i) => record[i] === b) || record[magic.length] !== DEVICE_REGISTRY.format) {
    throw new VeilError('MALFORMED_INPUT', 'not a device registry record (VKDR, version 1)');
  }
  return new DataView(record.buffer, record.byteOffset, record.byteLength).getUint16(REGISTRY_HEADER_LENGTH - 2);
}
