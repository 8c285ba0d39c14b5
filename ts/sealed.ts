/**
 * Sealed box: one call to encrypt a small payload to someone's public key, and one to open it.
 * HPKE (RFC 9180) base mode with the X-Wing KEM (0x647a), HKDF-SHA256 and AES-256-GCM, so any
 * HPKE implementation with X-Wing opens what veilkit seals and the reverse. Byte layout, suite ids
 * and key schedule: docs/SEALED.md. Large data belongs in the file container (`encryptFileTo`).
 *
 * ```ts
 * const box = await seal(bundle, enc.encode('a token'), { info: enc.encode('app v1') });
 * const pt = await open(box, { keystore: ks, identity: me }, { info: enc.encode('app v1') });
 * ```
 */
import * as wasm from './wasm/veilkit.js';
import { call } from './init.js';
import { atMost, exact, integer, untrusted, untrustedExact } from './validate.js';
import type { Keystore } from './keystore.js';
import { nativeAead, openNative, sealNative } from './sealed-native.js';
import type { IdentityHandle } from '../protocol/keystore.protocol.js';

/** Suite identifiers and size limits of the sealed box (docs/SEALED.md). */
export const SEALED_BOX = Object.freeze({
  /** HPKE KEM id of X-Wing. */
  kemId: 0x647a,
  /** HPKE KDF id of HKDF-SHA256. */
  kdfId: 0x0001,
  /** HPKE AEAD id of AES-256-GCM. */
  aeadId: 0x0002,
  /** `enc`, the X-Wing ciphertext at the front of a sealed box. */
  encLength: 1120,
  /** Bytes a sealed box adds to its plaintext (`enc` and the 16-byte tag). */
  overhead: 1136,
  publicKeyLength: 1216,
  secretKeyLength: 32,
  /** Largest plaintext (16 MiB); use the file container beyond. */
  maxPlaintextLength: 16 * 1024 * 1024,
  /** Longest `info`, `aad` and exporter context. */
  maxInfoLength: 65536,
  /** Longest exported secret (255 · 32). */
  maxExportLength: 8160,
});

/** A recipient: a 1216-byte X-Wing public key, or anything with one under `xWing` (a keystore {@link PublicBundle}). */
export type SealRecipient = Uint8Array | { readonly xWing: Uint8Array };

/** The key that opens: a keystore identity (the secret stays in the keystore's worker), or a raw 32-byte X-Wing secret key. */
export type OpenKey =
  | { readonly keystore: Keystore; readonly identity: IdentityHandle | string }
  | { readonly xWingSecretKey: Uint8Array };

/** Options of `seal`: HPKE `info` and associated data (`aad`). */
export interface SealOptions {
  /** HPKE `info`: binds the box to an application context (default empty; at most 64 KiB). Opening needs the same bytes. */
  readonly info?: Uint8Array;
  /** Additional authenticated data (default empty; at most 64 KiB). Opening needs the same bytes. */
  readonly aad?: Uint8Array;
}

/** Options of `sealExport` / `openExport`: HPKE `info`, the `exporterContext` and the exported secret's `length`. */
export interface ExportOptions {
  /** HPKE `info` (default empty; at most 64 KiB). */
  readonly info?: Uint8Array;
  /** The exporter context (default empty; at most 64 KiB). */
  readonly exporterContext?: Uint8Array;
  /** Length of the exported secret, 1 to 8160 bytes. */
  readonly length: number;
}

const EMPTY = new Uint8Array(0);

function optionsOf<T extends object>(value: T | undefined, required: boolean): Partial<T> {
  if (value === undefined && !required) return {};
  if (typeof value !== 'object' || value === null) throw new TypeError('options must be an object');
  return value;
}

function limited(name: string, value: unknown): Uint8Array {
  return value === undefined ? EMPTY : atMost(name, value, SEALED_BOX.maxInfoLength);
}

/** The recipient's X-Wing public key. */
function recipientKey(recipient: unknown): Uint8Array {
  if (recipient instanceof Uint8Array) return exact('recipient', recipient, SEALED_BOX.publicKeyLength);
  if (typeof recipient === 'object' && recipient !== null && 'xWing' in recipient) {
    return exact('recipient.xWing', recipient.xWing, SEALED_BOX.publicKeyLength);
  }
  throw new TypeError('recipient must be a 1216-byte X-Wing public key or a public bundle ({ xWing })');
}

interface CheckedKey {
  readonly keystore?: Keystore;
  readonly identity?: IdentityHandle | string;
  readonly secretKey?: Uint8Array;
}

function keyOf(key: unknown): CheckedKey {
  if (typeof key !== 'object' || key === null) throw new TypeError('key must be { keystore, identity } or { xWingSecretKey }');
  const k = key as Record<string, unknown>;
  if ('xWingSecretKey' in k) return { secretKey: exact('xWingSecretKey', k.xWingSecretKey, SEALED_BOX.secretKeyLength) };
  if ('keystore' in k) {
    const ks = k.keystore as Keystore | undefined;
    if (typeof ks !== 'object' || ks === null || typeof (ks as { openSealed?: unknown }).openSealed !== 'function') {
      throw new TypeError('key.keystore must be a Keystore');
    }
    const identity = k.identity;
    if (typeof identity !== 'string' && (typeof identity !== 'object' || identity === null)) {
      throw new TypeError('key.identity must be an identity handle or id');
    }
    return { keystore: ks, identity: identity as IdentityHandle | string };
  }
  throw new TypeError('key must be { keystore, identity } or { xWingSecretKey }');
}

function exportArgs(options: ExportOptions | undefined): { info: Uint8Array; context: Uint8Array; length: number } {
  const o = optionsOf(options, true);
  return {
    info: limited('info', o.info),
    context: limited('exporterContext', o.exporterContext),
    length: integer('length', o.length, 1, SEALED_BOX.maxExportLength),
  };
}

/**
 * Seals `plaintext` to `recipient`: `enc(1120) ‖ ciphertext ‖ tag(16)`, 1136 bytes longer than the
 * plaintext. Every call uses a fresh encapsulation. The recipient is not authenticated here: verify
 * a bundle (`verifyPublicBundle`) and pin its id before sealing to it. The sender is anonymous; for
 * sender authentication see docs/SEALED.md (seal, then sign).
 */
export async function seal(recipient: SealRecipient, plaintext: Uint8Array, options?: SealOptions): Promise<Uint8Array> {
  const pk = recipientKey(recipient);
  const pt = atMost('plaintext', plaintext, SEALED_BOX.maxPlaintextLength);
  const o = optionsOf(options, false);
  const info = limited('info', o.info);
  const aad = limited('aad', o.aad);
  const subtle = nativeAead(pt.length);
  if (subtle) return sealNative(subtle, pk, info, aad, pt);
  return call(() => wasm.hpkeSeal(pk, info, aad, pt));
}

/**
 * Opens a sealed box. Any modified byte, a wrong key, `info` or `aad`: `VeilError('AUTHENTICATION_FAILED')`,
 * and nothing else about why; a box of an impossible length: `VeilError('INVALID_LENGTH')`. With `{ keystore, identity }` the box is opened in the keystore's
 * worker with the identity's X-Wing key and only the plaintext comes back.
 */
export async function open(sealed: Uint8Array, key: OpenKey, options?: SealOptions): Promise<Uint8Array> {
  const box = checkedSealed(sealed);
  const k = keyOf(key);
  const o = optionsOf(options, false);
  const info = limited('info', o.info);
  const aad = limited('aad', o.aad);
  if (k.keystore) return k.keystore.openSealed(k.identity as IdentityHandle | string, box, { info, aad });
  const sk = k.secretKey as Uint8Array;
  const subtle = nativeAead(box.length - SEALED_BOX.overhead);
  if (subtle) return openNative(subtle, sk, box, info, aad);
  return openWithSecretKey(sk, box, info, aad);
}

/**
 * RFC 9180 single-shot `SendExport`: a fresh `enc` for `recipient` and a `length`-byte secret that
 * only the recipient can derive from it ({@link openExport}). Send `enc`; keep `secret`.
 */
export async function sealExport(recipient: SealRecipient, options: ExportOptions): Promise<{ enc: Uint8Array; secret: Uint8Array }> {
  const pk = recipientKey(recipient);
  const { info, context, length } = exportArgs(options);
  const out = call(() => wasm.hpkeSendExport(pk, info, context, length));
  const enc = out.slice(0, SEALED_BOX.encLength);
  const secret = out.slice(SEALED_BOX.encLength);
  out.fill(0);
  return { enc, secret };
}

/**
 * RFC 9180 single-shot `ReceiveExport`: the secret {@link sealExport} produced for `enc`. Nothing is
 * authenticated: a wrong key, `enc` or `info` gives an unrelated secret, never an error; use it as
 * a key whose first use authenticates. With a keystore identity it is derived in the worker.
 */
export async function openExport(enc: Uint8Array, key: OpenKey, options: ExportOptions): Promise<Uint8Array> {
  const e = checkedEnc(enc);
  const k = keyOf(key);
  const { info, context, length } = exportArgs(options);
  if (k.keystore) return k.keystore.openSealedExport(k.identity as IdentityHandle | string, e, { info, exporterContext: context, length });
  const sk = k.secretKey as Uint8Array;
  return exportWithSecretKey(sk, e, info, context, length);
}

/**
 * A sealed box of a plausible length (checked before it crosses into WebAssembly or a worker). The
 * box comes from someone else: a wrong length is `VeilError('INVALID_LENGTH')`, the core's answer
 * to the same bytes (docs/SEALED.md §5), not a `RangeError`.
 */
export function checkedSealed(sealed: unknown): Uint8Array {
  return untrusted('sealed', sealed, SEALED_BOX.overhead, SEALED_BOX.maxPlaintextLength + SEALED_BOX.overhead, 'INVALID_LENGTH');
}

/** An exporter `enc` (1120 bytes) from the sender: `VeilError('INVALID_LENGTH')` otherwise, like {@link checkedSealed}. */
export function checkedEnc(enc: unknown): Uint8Array {
  return untrustedExact('enc', enc, SEALED_BOX.encLength, 'INVALID_LENGTH');
}

/** Opens with a raw 32-byte secret key, on this thread (the keystore worker's path). Arguments already checked. */
export function openWithSecretKey(sk: Uint8Array, sealed: Uint8Array, info: Uint8Array, aad: Uint8Array): Uint8Array {
  return call(() => wasm.hpkeOpen(sk, sealed, info, aad));
}

/** Receive-export with a raw 32-byte secret key, on this thread (the keystore worker's path). Arguments already checked. */
export function exportWithSecretKey(sk: Uint8Array, enc: Uint8Array, info: Uint8Array, context: Uint8Array, length: number): Uint8Array {
  return call(() => wasm.hpkeReceiveExport(sk, enc, info, context, length));
}

/** Re-checks request fields in the worker (a message may come from anywhere on the page). */
export function checkedRequest(info: unknown, aad: unknown): { info: Uint8Array; aad: Uint8Array } {
  return { info: limited('info', info), aad: limited('aad', aad) };
}
