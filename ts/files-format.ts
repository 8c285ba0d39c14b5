/**
 * Pure VOLLVALT geometry and labels shared by the page (ts/files/) and the
 * worker (worker/files.ts). Byte-exact specification: docs/FORMAT.md.
 */
import type { ChunkContext } from '../protocol/files.protocol.js';

const enc = new TextEncoder();

/** Format constants. */
export const CONTAINER = Object.freeze({
  magic: 'VOLLVALT',
  fixedHeaderLength: 112,
  maxHeaderLength: 308_206,
  /** One leaf-table entry per chunk. */
  leafLength: 32,
  minChunkSize: 4096,
  maxChunkSize: 16 * 1024 * 1024,
  defaultChunkSize: 1024 * 1024,
  /** `u32 index ‖ iv12 ‖ … ‖ tag16`. */
  envelopeOverhead: 32,
  ivLength: 12,
  tagLength: 16,
  xWingPublicKeyLength: 1216,
  xWingCiphertextLength: 1120,
});

export const CHUNK_KEY_LABEL = enc.encode('vollcrypt-file-chunk-key-v1');
export const CHUNK_IV_LABEL = enc.encode('vollcrypt-file-chunk-iv-v1');
export const CHUNK_AAD_LABEL = enc.encode('vollcrypt-file-chunk-aad-v1');
export const HYBRID_KEK_LABEL = enc.encode('vollcrypt-file-hybrid-kem-v1');
export const MLDSA_HEADER_CONTEXT = enc.encode('vollcrypt-file-header-v3');
/** The label before the header bytes both header signatures cover (FORMAT.md §8.1). */
export const HEADER_SIGNATURE_LABEL = enc.encode('vollcrypt-file-header-signature-v1');
export const LEAF_LABEL = enc.encode('vollcrypt-file-merkle-leaf-v2');
export const KEY_COMMITMENT_LABEL = enc.encode('vollcrypt-file-key-commitment-v1');

/** `ceil(P / C)`. */
export function chunkCount(plaintextSize: number, chunkSize: number): number {
  return Math.ceil(plaintextSize / chunkSize);
}

/** Plaintext length of chunk `index` (`RangeError` out of range). */
export function chunkLength(ctx: Pick<ChunkContext, 'chunkSize' | 'plaintextSize'>, index: number): number {
  const n = chunkCount(ctx.plaintextSize, ctx.chunkSize);
  if (!Number.isInteger(index) || index < 0 || index >= n) throw new RangeError(`chunk index ${index} out of range 0..${n - 1}`);
  return index === n - 1 ? ctx.plaintextSize - index * ctx.chunkSize : ctx.chunkSize;
}

/** Offset of envelope `index` after the header and the leaf table: `index · (C + 32)`. */
export function envelopeOffset(chunkSize: number, index: number): number {
  return index * (chunkSize + CONTAINER.envelopeOverhead);
}

/** Container length for `P` plaintext bytes and a header of `headerLength` bytes: header, leaf table (`32 · n`), envelopes. */
export function containerLength(headerLength: number, plaintextSize: number, chunkSize: number): number {
  return headerLength + plaintextSize + (CONTAINER.envelopeOverhead + CONTAINER.leafLength) * chunkCount(plaintextSize, chunkSize);
}

/**
 * The leaf preimage of chunk `index` (FORMAT.md §7) without its ciphertext:
 * `label ‖ file_id ‖ u32 index ‖ u32 len ‖ iv`, followed by `ciphertext ‖ tag`
 * (`ctTag`) in one buffer, for WebCrypto's one-shot SHA-256.
 */
export function leafPreimage(fileId: Uint8Array, index: number, length: number, iv: Uint8Array, ctTag: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = LEAF_LABEL.length + 16 + 8 + CONTAINER.ivLength;
  const m = new Uint8Array(head + ctTag.length);
  const v = new DataView(m.buffer);
  m.set(LEAF_LABEL, 0);
  m.set(fileId, LEAF_LABEL.length);
  u32(v, LEAF_LABEL.length + 16, index);
  u32(v, LEAF_LABEL.length + 20, length);
  m.set(iv, LEAF_LABEL.length + 24);
  m.set(ctTag, head);
  return m;
}

function u32(view: DataView, at: number, v: number): void {
  view.setUint32(at, v >>> 0, false);
}

/** HKDF `info` of chunk key `index` (31 bytes). */
export function chunkKeyInfo(index: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(31);
  out.set(CHUNK_KEY_LABEL);
  u32(new DataView(out.buffer), 27, index);
  return out;
}

/** HKDF `info` of chunk IV `index` (30 bytes). */
export function chunkIvInfo(index: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(30);
  out.set(CHUNK_IV_LABEL);
  u32(new DataView(out.buffer), 26, index);
  return out;
}

/** The 95-byte AAD of chunk `index` (FORMAT.md §6.4). */
export function chunkAad(ctx: ChunkContext, index: number, length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(95);
  const v = new DataView(out.buffer);
  out.set(CHUNK_AAD_LABEL, 0);
  out.set(ctx.headerHash, 27);
  out.set(ctx.fileId, 59);
  u32(v, 75, index);
  u32(v, 79, ctx.chunkSize);
  v.setBigUint64(83, BigInt(ctx.plaintextSize), false);
  u32(v, 91, length);
  return out;
}

/** HKDF `info` of the X-Wing wrap's KEK (FORMAT.md §4.1, 50 bytes). */
export function hybridKekInfo(recipientId: Uint8Array, keyVersion: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(HYBRID_KEK_LABEL.length + 22);
  out.set(HYBRID_KEK_LABEL);
  out.set(recipientId, 28);
  u32(new DataView(out.buffer), 44, keyVersion);
  out[48] = 0x01; // KEM suite: X-Wing
  out[49] = 0x00; // cipher suite: AES-256-GCM
  return out;
}
