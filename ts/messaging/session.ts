/** Session root / window keys, the PCS ratchet and transcript hashing. */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { bytes, exact } from '../validate.js';
import { keypair, type Keypair } from '../split.js';
import { boolean, nonEmpty, safeInteger } from './internal.js';

// ---------------------------------------------------------------- session keys and PCS ratchet

/** Session root key of a 32-byte DEK (e.g. a KEM shared secret) for a (non-empty) chat id. */
export function deriveSrk(dek: Uint8Array, chatId: Uint8Array): Uint8Array {
  const d = exact('dek', dek, 32);
  const c = nonEmpty('chatId', chatId, Number.MAX_SAFE_INTEGER);
  return call(() => wasm.deriveSrk(d, c));
}

/** Key of a time window (`windowIndex = ⌊unixSeconds / windowSeconds⌋`, 0 … 2^53 − 1). */
export function deriveWindowKey(srk: Uint8Array, windowIndex: number): Uint8Array {
  const s = exact('srk', srk, 32);
  const w = safeInteger('windowIndex', windowIndex);
  return call(() => wasm.deriveWindowKey(s, w));
}

/** A fresh X25519 `[secretKey, publicKey]` for a ratchet step. */
export function generateRatchetKeypair(): Keypair {
  return keypair(call(() => wasm.generateRatchetKeypair()), 32, 32);
}

/**
 * One PCS ratchet step. Both sides get the same SRK (the public keys are
 * ordered), whatever `isSender` says. Wipe the old SRK afterwards.
 */
export function ratchetSrk(
  currentSrk: Uint8Array,
  ourRatchetSecret: Uint8Array,
  theirRatchetPub: Uint8Array,
  chatId: Uint8Array,
  ratchetStep: number,
  isSender: boolean,
): Uint8Array {
  const srk = exact('currentSrk', currentSrk, 32);
  const ours = exact('ourRatchetSecret', ourRatchetSecret, 32);
  const theirs = exact('theirRatchetPub', theirRatchetPub, 32);
  const c = nonEmpty('chatId', chatId, Number.MAX_SAFE_INTEGER);
  const step = safeInteger('ratchetStep', ratchetStep);
  const sender = boolean('isSender', isSender);
  return call(() => wasm.ratchetSrk(srk, ours, theirs, c, step, sender));
}

/** `(ratchetOnNewWindow && windowChanged) || messageCount >= messagesPerRatchet`. */
export function shouldRatchet(messageCount: number, windowChanged: boolean, messagesPerRatchet: number, ratchetOnNewWindow: boolean): boolean {
  const count = safeInteger('messageCount', messageCount);
  const changed = boolean('windowChanged', windowChanged);
  const per = safeInteger('messagesPerRatchet', messagesPerRatchet);
  const onNew = boolean('ratchetOnNewWindow', ratchetOnNewWindow);
  return call(() => wasm.shouldRatchet(count, changed, per, onNew));
}

// ---------------------------------------------------------------- transcript

/** Initial chain state `SHA-256("veilkit-transcript-v2/new" ‖ lp32(sessionId))`. */
export function transcriptNew(sessionId: Uint8Array): Uint8Array {
  const s = bytes('sessionId', sessionId);
  return call(() => wasm.transcriptNew(s));
}

/**
 * `SHA-256("veilkit-transcript-v2/message" ‖ lp32(messageId) ‖ lp32(senderId) ‖ u64(timestamp) ‖ lp32(ciphertext))`.
 * Pass the sender's authenticated timestamp (the one the message carries), so the hash covers it.
 */
export function transcriptComputeMessageHash(messageId: Uint8Array, senderId: Uint8Array, timestamp: number, ciphertext: Uint8Array): Uint8Array {
  const m = bytes('messageId', messageId);
  const s = bytes('senderId', senderId);
  const t = safeInteger('timestamp', timestamp);
  const c = bytes('ciphertext', ciphertext);
  return call(() => wasm.transcriptComputeMessageHash(m, s, t, c));
}

/** `SHA-256("veilkit-transcript-v2/update" ‖ chainState ‖ messageHash)`. */
export function transcriptUpdate(chainState: Uint8Array, messageHash: Uint8Array): Uint8Array {
  const c = exact('chainState', chainState, 32);
  const h = exact('messageHash', messageHash, 32);
  return call(() => wasm.transcriptUpdate(c, h));
}

/** Constant-time comparison of two 32-byte chain states. */
export function transcriptVerifySync(hashA: Uint8Array, hashB: Uint8Array): boolean {
  const a = exact('hashA', hashA, 32);
  const b = exact('hashB', hashB, 32);
  return call(() => wasm.transcriptVerifySync(a, b));
}
