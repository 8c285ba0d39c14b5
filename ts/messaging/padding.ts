/** Message padding, padded and chunked AES-256-GCM. */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { bytes, exact, integer, optionalBytes, untrusted } from '../validate.js';

// ---------------------------------------------------------------- padding, padded and chunked AES-GCM

/** `u32(len) ‖ content ‖ zeros`, to 64 B … 64 KiB power-of-two buckets, Padmé above. */
export function padMessage(content: Uint8Array): Uint8Array {
  const c = bytes('content', content);
  return call(() => wasm.padMessage(c));
}

/** Removes veilkit padding; non-canonical input throws `VeilError('INVALID_PADDING')`. */
export function unpadMessage(padded: Uint8Array): Uint8Array {
  const p = bytes('padded', padded);
  return call(() => wasm.unpadMessage(p));
}

/** The padded size of `contentLength` bytes. */
export function paddedLength(contentLength: number): number {
  const n = integer('contentLength', contentLength, 0, 0xffff_fffb);
  return call(() => wasm.paddedLength(n));
}

/** Pads (see {@link padMessage}), then AES-256-GCM with a fresh IV: `iv ‖ ct ‖ tag`. */
export function encryptAesGcmPadded(key: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array | null): Uint8Array {
  const k = exact('key', key, 32);
  const p = bytes('plaintext', plaintext);
  const a = optionalBytes('aad', aad);
  return call(() => wasm.encryptAesGcmPadded(k, p, a));
}

/** Decrypts (`AUTHENTICATION_FAILED`) and unpads (`INVALID_PADDING`). */
export function decryptAesGcmPadded(key: Uint8Array, ciphertext: Uint8Array, aad?: Uint8Array | null): Uint8Array {
  const k = exact('key', key, 32);
  // Shorter than the smallest padded ciphertext (iv, one 64-byte bucket, tag): INVALID_LENGTH, not a RangeError.
  const c = untrusted('ciphertext', ciphertext, 12 + 64 + 16, undefined, 'INVALID_LENGTH');
  const a = optionalBytes('aad', aad);
  return call(() => wasm.decryptAesGcmPadded(k, c, a));
}

/**
 * Chunked AES-256-GCM: `u32 chunkSize ‖ u32 count ‖ (iv ‖ ct ‖ tag)*`, each
 * chunk's AAD naming its index and the count. Use a unique `aad` per message
 * under one key.
 */
export function encryptAesGcmChunked(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array | null | undefined, chunkSize: number): Uint8Array {
  const k = exact('key', key, 32);
  const p = bytes('plaintext', plaintext);
  const a = optionalBytes('aad', aad);
  const size = integer('chunkSize', chunkSize, 1, 0xffff_ffff);
  return call(() => wasm.encryptAesGcmChunked(k, p, a, size));
}

/** Decrypts a chunked ciphertext: all chunks verify or nothing is returned. */
export function decryptAesGcmChunked(key: Uint8Array, ciphertext: Uint8Array, aad?: Uint8Array | null): Uint8Array {
  const k = exact('key', key, 32);
  // Shorter than a header and one empty chunk: MALFORMED_INPUT like every other length mismatch (docs/PROTOCOL.md §4).
  const c = untrusted('ciphertext', ciphertext, 8 + 28);
  const a = optionalBytes('aad', aad);
  return call(() => wasm.decryptAesGcmChunked(k, c, a));
}
