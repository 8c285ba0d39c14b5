/**
 * Device linking (docs/DEVICES.md §6): the bytes of the four link messages, the code and the key
 * schedule. The keystore workers run it (worker/keystore/link.ts); the page only carries the messages.
 *
 * ```text
 * code    = s (16 random bytes), shown as 26 base32 characters (RFC 4648, no padding)
 * channel = hex(SHA-256(label ‖ 0x00 ‖ s))[0 … 32)          the relay's rendezvous name
 * offer   = "VKL1" ‖ 0x01 ‖ X-Wing encapsulation key (1,216)                               new → existing
 * th      = SHA-256(label ‖ 0x01 ‖ offer ‖ "VKL1" ‖ 0x02 ‖ ct)        ct: X-Wing ciphertext (1,120)
 * k_u ‖ k_ne ‖ k_en = HKDF-SHA256(ikm = X-Wing shared secret, salt = s, info = label ‖ 0x02 ‖ th, 96)
 * accept  = "VKL1" ‖ 0x02 ‖ ct ‖ AES-256-GCM(k_u, Enc(U), aad = "VKL1" ‖ 0x02 ‖ ct)             existing → new
 * hello   = "VKL1" ‖ 0x03 ‖ AES-256-GCM(k_ne, Enc(D) ‖ consent ‖ u8(L) ‖ name, aad = "VKL1" ‖ 0x03)   new → existing
 * welcome = "VKL1" ‖ 0x04 ‖ AES-256-GCM(k_en, registry, aad = "VKL1" ‖ 0x04)                   existing → new
 * label   = "veilkit-device-link-v1"
 * ```
 */
import { VeilError } from '../protocol/errors.js';
import { bytesToHex, concatBytes, equalBytes } from './bytes.js';
import { sha256 } from './hash.js';
import { deriveHkdf } from './kdf.js';

const enc = new TextEncoder();

/** Constants of device linking (docs/DEVICES.md §6). */
export const DEVICE_LINK = Object.freeze({
  label: 'veilkit-device-link-v1',
  magic: 'VKL1',
  /** Bytes of the secret a code carries. */
  secretLength: 16,
  /** Characters of a code (base32 of the secret). */
  codeLength: 26,
  /** How long a worker keeps a link it started or accepted (ms). */
  lifetimeMs: 10 * 60 * 1000,
});

/** The type byte of each link message. */
export const LINK_MESSAGES = Object.freeze({ offer: 1, accept: 2, hello: 3, welcome: 4 });
export type LinkMessage = keyof typeof LINK_MESSAGES;

const LABEL = enc.encode(DEVICE_LINK.label);
const MAGIC = enc.encode(DEVICE_LINK.magic);
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The code of secret `s`: 26 base32 characters. */
export function encodeLinkCode(s: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of s) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32.charAt((acc >>> (bits - 5)) & 31);
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out += B32.charAt((acc << (5 - bits)) & 31);
  return out;
}

/**
 * The secret of a code as the user typed it: case, spaces and dashes ignored; then exactly 26 base32
 * characters whose last 2 padding bits are zero (`INVALID_PARAMETER` otherwise, `details.reason` `LINK_CODE`).
 */
export function decodeLinkCode(code: string): Uint8Array {
  if (typeof code !== 'string') throw new TypeError('code must be a string');
  const c = code.toUpperCase().replace(/[\s-]/g, '');
  const bad = (why: string): VeilError => new VeilError('INVALID_PARAMETER', `link code: ${why}`, { details: { reason: 'LINK_CODE' } });
  if (c.length !== DEVICE_LINK.codeLength) throw bad(`${c.length} characters, not ${DEVICE_LINK.codeLength}`);
  const out = new Uint8Array(DEVICE_LINK.secretLength);
  let acc = 0;
  let bits = 0;
  let at = 0;
  for (const ch of c) {
    const v = B32.indexOf(ch);
    if (v < 0) throw bad(`'${ch}' is not a base32 character (A-Z, 2-7)`);
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out[at++] = (acc >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
    acc &= (1 << bits) - 1;
  }
  if (acc !== 0) throw bad('not a code this library made (its last character carries nonzero padding bits)');
  return out;
}

/** The relay channel of secret `s`: 32 hex digits that reveal nothing of `s`. */
export function linkChannel(s: Uint8Array): string {
  return bytesToHex(sha256(concatBytes([LABEL, Uint8Array.of(0), s]))).slice(0, 32);
}

/** `"VKL1" ‖ type`, the prefix of a link message and the AAD of the encrypted ones. */
export function linkPrefix(type: LinkMessage): Uint8Array {
  return concatBytes([MAGIC, Uint8Array.of(LINK_MESSAGES[type])]);
}

/** The payload of a link message of `type` with payload length `length` (or at least `min` for the encrypted ones): `MALFORMED_INPUT` otherwise. */
export function linkPayload(type: LinkMessage, message: unknown, length: { exact?: number; min?: number; max?: number }): Uint8Array {
  if (!(message instanceof Uint8Array)) throw new TypeError(`${type} must be a Uint8Array`);
  const p = linkPrefix(type);
  const bad = (why: string): VeilError => new VeilError('MALFORMED_INPUT', `link ${type}: ${why}`, { details: { got: message.length } });
  if (message.length < p.length || !equalBytes(message.subarray(0, p.length), p)) throw bad(`it does not begin with "VKL1" ‖ ${LINK_MESSAGES[type]}`);
  const body = message.subarray(p.length);
  if (length.exact !== undefined && body.length !== length.exact) throw bad(`${body.length} payload bytes, not ${length.exact}`);
  if (length.min !== undefined && body.length < length.min) throw bad(`${body.length} payload bytes, fewer than ${length.min}`);
  if (length.max !== undefined && body.length > length.max) throw bad(`${body.length} payload bytes, more than ${length.max}`);
  return body;
}

/** `th`, over the offer and the accept's prefix and X-Wing ciphertext. */
export function linkTranscript(offer: Uint8Array, ct: Uint8Array): Uint8Array {
  return sha256(concatBytes([LABEL, Uint8Array.of(1), offer, linkPrefix('accept'), ct]));
}

/** `k_u ‖ k_ne ‖ k_en` (the caller wipes them). */
export function linkKeys(sharedSecret: Uint8Array, s: Uint8Array, th: Uint8Array): { u: Uint8Array; ne: Uint8Array; en: Uint8Array } {
  const k = deriveHkdf(sharedSecret, s, concatBytes([LABEL, Uint8Array.of(2), th]), 96);
  const out = { u: k.slice(0, 32), ne: k.slice(32, 64), en: k.slice(64) };
  k.fill(0);
  return out;
}
