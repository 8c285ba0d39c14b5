/**
 * The sealed box's AES-256-GCM on WebCrypto (docs/SEALED.md §4): for a payload of
 * {@link NATIVE_AEAD_MIN} bytes or more, `seal` / `open` with a raw key run the X-Wing KEM and the
 * RFC 9180 key schedule in the wasm core (synchronous: `xWingEncapsulate` / `xWingDecapsulate`,
 * HMAC-SHA256) and the payload through the browser's AES-GCM, about ten times the wasm core's
 * software AES. Below it the whole box stays in wasm (one call beats two WebCrypto round trips).
 * The bytes are those of the core's `hpkeSeal` / `hpkeOpen`, checked against each other and against
 * `@hpke/core` (tests/playwright/hpke.spec.ts).
 *
 * The AEAD key exists as bytes only between the key schedule and `importKey` (non-extractable,
 * one usage) and is wiped there, as are the shared secret and the schedule's secret.
 */
import { VeilError } from '../protocol/errors.js';
import { hmacSha256 } from './hash.js';
import { xWingDecapsulate, xWingEncapsulate } from './xwing.js';
import { findSubtle } from './webcrypto/subtle.js';
import { capabilities } from './webcrypto/routes.js';
import { bufferSource, concatBytes, copyBytes } from './bytes.js';
import { wipe } from './validate.js';

/** Plaintexts from this length on use WebCrypto's AES-GCM (bench: the crossover is near 2–4 KiB). */
export const NATIVE_AEAD_MIN = 4096;

const ENC_LENGTH = 1120;
const TAG_LENGTH = 16;
const latin1 = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
/** `"HPKE-v1" ‖ "HPKE" ‖ KEM 0x647a ‖ KDF 0x0001 ‖ AEAD 0x0002`: the prefix of every labeled input. */
const PREFIX = concatBytes([latin1('HPKE-v1'), latin1('HPKE'), new Uint8Array([0x64, 0x7a, 0x00, 0x01, 0x00, 0x02])]);
/** HKDF-Extract with an empty salt is HMAC with HashLen zero bytes (RFC 5869 §2.2). */
const ZERO_SALT = new Uint8Array(32);

/** RFC 9180 `LabeledExtract(salt, label, ikm)`. */
function labeledExtract(salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array {
  return hmacSha256(salt.length === 0 ? ZERO_SALT : salt, concatBytes([PREFIX, latin1(label), ikm]));
}

/** RFC 9180 `LabeledExpand(prk, label, info, L)` for L ≤ 32: one HMAC block `T(1)`. */
function labeledExpand(prk: Uint8Array, label: string, info: Uint8Array, length: number): Uint8Array {
  const t = hmacSha256(prk, concatBytes([new Uint8Array([0, length]), PREFIX, latin1(label), info, new Uint8Array([1])]));
  const out = t.slice(0, length);
  wipe(t);
  return out;
}

let pskIdHash: Uint8Array | undefined;

/** The base-mode key schedule (RFC 9180 §5.1, empty `psk` and `psk_id`): the AEAD key and `base_nonce`. */
function keySchedule(sharedSecret: Uint8Array, info: Uint8Array): { key: Uint8Array; nonce: Uint8Array } {
  pskIdHash ??= labeledExtract(new Uint8Array(0), 'psk_id_hash', new Uint8Array(0));
  const context = concatBytes([new Uint8Array([0x00]), pskIdHash, labeledExtract(new Uint8Array(0), 'info_hash', info)]);
  const secret = labeledExtract(sharedSecret, 'secret', new Uint8Array(0));
  try {
    return { key: labeledExpand(secret, 'key', context, 32), nonce: labeledExpand(secret, 'base_nonce', context, 12) };
  } finally {
    wipe(secret);
  }
}

/** {@link keySchedule} of a shared secret this module got from the core, wiped after. */
function keyScheduleOnce(sharedSecret: Uint8Array, info: Uint8Array): { key: Uint8Array; nonce: Uint8Array } {
  try {
    return keySchedule(sharedSecret, info);
  } finally {
    wipe(sharedSecret);
  }
}

async function aesKey(subtle: SubtleCrypto, key: Uint8Array, usage: 'encrypt' | 'decrypt'): Promise<CryptoKey> {
  try {
    return await subtle.importKey('raw', bufferSource(key), 'AES-GCM', false, [usage]);
  } finally {
    wipe(key);
  }
}

/** Whether `seal` / `open` of `length` plaintext bytes go through WebCrypto here (never under `init({ route: 'wasm' })`). */
export function nativeAead(length: number): SubtleCrypto | undefined {
  if (length < NATIVE_AEAD_MIN || capabilities().routePreference === 'wasm') return undefined;
  return findSubtle();
}

/** `hpkeSeal` with WebCrypto's AES-GCM. Arguments already checked. */
export async function sealNative(subtle: SubtleCrypto, pk: Uint8Array, info: Uint8Array, aad: Uint8Array, pt: Uint8Array): Promise<Uint8Array> {
  // Copies now: the caller may change or transfer its buffers once this returns a promise, and
  // the wasm path (smaller boxes) reads them before that.
  const data = copyBytes(pt);
  const ad = copyBytes(aad);
  const { ciphertext: enc, sharedSecret } = xWingEncapsulate(pk);
  const schedule = keyScheduleOnce(sharedSecret, info);
  const key = await aesKey(subtle, schedule.key, 'encrypt');
  let ct: Uint8Array;
  try {
    ct = new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv: bufferSource(schedule.nonce), additionalData: ad }, key, data));
  } finally {
    wipe(data);
  }
  const out = new Uint8Array(ENC_LENGTH + ct.length);
  out.set(enc);
  out.set(ct, ENC_LENGTH);
  return out;
}

/** `hpkeOpen` with WebCrypto's AES-GCM. Arguments already checked; any failure of the AEAD is `AUTHENTICATION_FAILED`. */
export async function openNative(subtle: SubtleCrypto, sk: Uint8Array, sealed: Uint8Array, info: Uint8Array, aad: Uint8Array): Promise<Uint8Array> {
  const body = copyBytes(sealed.subarray(ENC_LENGTH)); // read now (see sealNative)
  const ad = copyBytes(aad);
  const schedule = keyScheduleOnce(xWingDecapsulate(sk, sealed.subarray(0, ENC_LENGTH)), info);
  const key = await aesKey(subtle, schedule.key, 'decrypt');
  try {
    return new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv: bufferSource(schedule.nonce), additionalData: ad, tagLength: TAG_LENGTH * 8 }, key, body));
  } catch (e) {
    if (typeof DOMException === 'function' && e instanceof DOMException && e.name === 'OperationError') throw new VeilError('AUTHENTICATION_FAILED', 'authentication failed');
    throw e;
  }
}
