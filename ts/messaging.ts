/**
 * Messaging primitives (seed names): hybrid and authenticated KEM, padded and
 * chunked AES-GCM, session root / window keys and the PCS ratchet, transcript
 * hashing, sealed sender, verification codes, the key-transparency log, the
 * device registry and a replay store. Byte-exact constructions:
 * `docs/PROTOCOL.md`. Errors: `TypeError`/`RangeError` for argument misuse
 * (before WebAssembly), `VeilError` with a stable `code` otherwise.
 */
import * as wasm from './wasm/veilkit.js';
import { VeilError } from './errors.js';
import { call } from './init.js';
import { disposeSymbol, disposedError } from './dispose.js';
import { bytes, exact, integer, oneOf, optionalBytes, string, utf8, wipe } from './validate.js';
import { base64urlDecode, base64urlEncode } from './bytes.js';
import { keypair, splitOwned, type Keypair } from './split.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const ED25519_SECRET_LENGTHS = [64, 32] as const;

/** Sizes of the messaging constructions, in bytes. */
export const MESSAGING = Object.freeze({
  x25519KeyLength: 32,
  mlKemEncapsulationKeyLength: 1184,
  mlKemDecapsulationKeyLength: 2400,
  mlKemCiphertextLength: 1088,
  sharedKeyLength: 32,
  authenticatedKemCiphertextLength: 1154,
  ed25519PublicKeyLength: 32,
  sessionKeyLength: 32,
  transcriptHashLength: 32,
  sealedPacketMinLength: 188,
  maxSenderIdLength: 65535,
  maxUserIdLength: 65535,
  maxDeviceIdLength: 256,
  maxDeviceNameLength: 1024,
  maxDevicePublicKeyLength: 4096,
  replayHashLength: 32,
  verificationIdentityLength: 65,
  verificationIdentityWithMlDsaLength: 2017,
  mlDsa65PublicKeyLength: 1952,
  sasNonceLength: 32,
  sasCommitmentLength: 32,
  sasMaxTxIdLength: 255,
  sasMaxAttempts: 10,
});

function nonEmpty(name: string, value: unknown, max: number): Uint8Array {
  const b = bytes(name, value);
  if (b.length === 0 || b.length > max) throw new RangeError(`${name} must be 1 to ${max} bytes, got ${b.length}`);
  return b;
}

function safeInteger(name: string, value: unknown, min = 0): number {
  return integer(name, value, min, MAX_SAFE);
}

function boolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${typeof value}`);
  return value;
}

function malformed(what: string): VeilError {
  return new VeilError('MALFORMED_INPUT', `malformed input: ${what}`);
}

// ---------------------------------------------------------------- base64url (RFC 4648 §5, unpadded, canonical)

function b64urlDecode(what: string, text: unknown, length?: number): Uint8Array {
  const out = typeof text === 'string' ? base64urlDecode(text) : undefined;
  if (out === undefined || (length !== undefined && out.length !== length)) throw malformed(what);
  return out;
}

// ---------------------------------------------------------------- hybrid and authenticated KEM

/** Result of {@link hybridKemEncapsulate}. */
export interface HybridKemResult {
  /** 32-byte shared key. */
  sharedKey: Uint8Array;
  /** 1088-byte ML-KEM-768 ciphertext to send (with the sender's X25519 public key). */
  mlKemCiphertext: Uint8Array;
}

/**
 * Hybrid X25519 + ML-KEM-768 encapsulation. The key is HKDF over both shared
 * secrets, bound to both X25519 public keys and the ciphertext.
 */
export function hybridKemEncapsulate(x25519OurSecret: Uint8Array, x25519TheirPublic: Uint8Array, mlKemEk: Uint8Array): HybridKemResult {
  const s = exact('x25519OurSecret', x25519OurSecret, 32);
  const p = exact('x25519TheirPublic', x25519TheirPublic, 32);
  const ek = exact('mlKemEk', mlKemEk, MESSAGING.mlKemEncapsulationKeyLength);
  const [mlKemCiphertext, sharedKey] = splitOwned(call(() => wasm.hybridKemEncapsulate(s, p, ek)), 1088, 32) as [Uint8Array, Uint8Array];
  return { sharedKey, mlKemCiphertext };
}

/** Hybrid decapsulation: the 32-byte shared key (a forged ciphertext gives an unrelated key). */
export function hybridKemDecapsulate(
  x25519OurSecret: Uint8Array,
  x25519TheirPublic: Uint8Array,
  mlKemDk: Uint8Array,
  mlKemCt: Uint8Array,
): Uint8Array {
  const s = exact('x25519OurSecret', x25519OurSecret, 32);
  const p = exact('x25519TheirPublic', x25519TheirPublic, 32);
  const dk = exact('mlKemDk', mlKemDk, MESSAGING.mlKemDecapsulationKeyLength);
  const ct = exact('mlKemCt', mlKemCt, MESSAGING.mlKemCiphertextLength);
  return call(() => wasm.hybridKemDecapsulate(s, p, dk, ct));
}

/** `[ciphertext (1154 bytes), sharedSecret (32 bytes)]`, as the seed returns it. */
export type AuthenticatedKemResult = [ciphertext: Uint8Array, sharedSecret: Uint8Array];

/**
 * Hybrid encapsulation signed by the sender's Ed25519 identity key (64-byte
 * secret or 32-byte seed): `u16(1088) ‖ mlkem_ct ‖ signature`.
 */
export function authenticatedKemEncapsulate(
  ourX25519Sk: Uint8Array,
  recipientX25519Pub: Uint8Array,
  recipientMlkemEk: Uint8Array,
  senderIdentitySk: Uint8Array,
): AuthenticatedKemResult {
  const s = exact('ourX25519Sk', ourX25519Sk, 32);
  const p = exact('recipientX25519Pub', recipientX25519Pub, 32);
  const ek = exact('recipientMlkemEk', recipientMlkemEk, MESSAGING.mlKemEncapsulationKeyLength);
  const id = oneOf('senderIdentitySk', senderIdentitySk, ED25519_SECRET_LENGTHS);
  const [ct, ss] = splitOwned(call(() => wasm.authenticatedKemEncapsulate(s, p, ek, id)), 1154, 32) as [Uint8Array, Uint8Array];
  return [ct, ss];
}

/**
 * Verifies the sender's signature, then decapsulates. A bad signature (or a
 * swapped X25519 key) throws `VeilError('AUTHENTICATION_FAILED')`.
 */
export function authenticatedKemDecapsulate(
  ourX25519Sk: Uint8Array,
  senderX25519Pub: Uint8Array,
  ourMlkemDk: Uint8Array,
  authenticatedCiphertext: Uint8Array,
  senderIdentityPk: Uint8Array,
): Uint8Array {
  const s = exact('ourX25519Sk', ourX25519Sk, 32);
  const p = exact('senderX25519Pub', senderX25519Pub, 32);
  const dk = exact('ourMlkemDk', ourMlkemDk, MESSAGING.mlKemDecapsulationKeyLength);
  const ct = exact('authenticatedCiphertext', authenticatedCiphertext, MESSAGING.authenticatedKemCiphertextLength);
  const id = exact('senderIdentityPk', senderIdentityPk, 32);
  return call(() => wasm.authenticatedKemDecapsulate(s, p, dk, ct, id));
}

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
  const c = bytes('ciphertext', ciphertext);
  if (c.length < 12 + 64 + 16) throw new RangeError(`ciphertext must be at least 92 bytes, got ${c.length}`);
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
  const c = bytes('ciphertext', ciphertext);
  if (c.length < 8 + 28) throw new RangeError(`ciphertext must be at least 36 bytes, got ${c.length}`);
  const a = optionalBytes('aad', aad);
  return call(() => wasm.decryptAesGcmChunked(k, c, a));
}

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

// ---------------------------------------------------------------- sealed sender

/** A verified sealed-sender message. */
export interface UnsealedMessage {
  /** The sender id whose key verified the signature. */
  senderId: Uint8Array;
  /** The content. */
  content: Uint8Array;
}

/** Looks up the Ed25519 identity key of the sender id a packet claims. */
export type SenderKeyResolver = (senderId: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/**
 * Seals `content` from `senderId` (1 … 65535 bytes) to the recipient's X25519
 * key, signed with the sender's Ed25519 secret (64 bytes or 32-byte seed).
 */
export function sealMessage(recipientX25519Pub: Uint8Array, senderId: Uint8Array, content: Uint8Array, senderSigningKey: Uint8Array): Uint8Array {
  const r = exact('recipientX25519Pub', recipientX25519Pub, 32);
  const id = nonEmpty('senderId', senderId, MESSAGING.maxSenderIdLength);
  const c = bytes('content', content);
  const k = oneOf('senderSigningKey', senderSigningKey, ED25519_SECRET_LENGTHS);
  return call(() => wasm.sealMessage(r, id, c, k));
}

function unsealWithKey(packet: Uint8Array, sk: Uint8Array, senderPk: Uint8Array): UnsealedMessage {
  const out = call(() => wasm.unsealMessage(packet, sk, senderPk));
  const idLen = ((out[0] ?? 0) << 8) | (out[1] ?? 0);
  const [, senderId, content] = splitOwned(out, 2, idLen, out.length - 2 - idLen) as [Uint8Array, Uint8Array, Uint8Array];
  return { senderId, content };
}

/**
 * Decrypts a sealed packet and returns `{ senderId, content }` only after the
 * sender's signature verifies under `senderIdentityPk` — or under the key the
 * resolver returns for the claimed sender id (then the result is a promise).
 * Any failure is `VeilError('AUTHENTICATION_FAILED')`.
 */
export function unsealMessage(sealedPacket: Uint8Array, ourX25519Sk: Uint8Array, senderIdentityPk: Uint8Array): UnsealedMessage;
export function unsealMessage(sealedPacket: Uint8Array, ourX25519Sk: Uint8Array, resolveSenderKey: SenderKeyResolver): Promise<UnsealedMessage>;
export function unsealMessage(
  sealedPacket: Uint8Array,
  ourX25519Sk: Uint8Array,
  senderKey: Uint8Array | SenderKeyResolver,
): UnsealedMessage | Promise<UnsealedMessage> {
  const p = bytes('sealedPacket', sealedPacket);
  if (p.length < MESSAGING.sealedPacketMinLength) {
    throw new RangeError(`sealedPacket must be at least ${MESSAGING.sealedPacketMinLength} bytes, got ${p.length}`);
  }
  const sk = exact('ourX25519Sk', ourX25519Sk, 32);
  if (typeof senderKey !== 'function') {
    return unsealWithKey(p, sk, exact('senderIdentityPk', senderKey, 32));
  }
  // Copies: the caller's buffers may change while the resolver runs.
  const packet = p.slice();
  const secret = sk.slice();
  let claimed: Uint8Array;
  try {
    claimed = call(() => wasm.unsealSenderId(packet, secret));
  } catch (e) {
    wipe(secret);
    throw e;
  }
  return (async () => {
    try {
      const key = exact('resolved sender key', await senderKey(claimed), 32);
      return unsealWithKey(packet, secret, key);
    } finally {
      wipe(secret);
    }
  })();
}

// ---------------------------------------------------------------- verification codes

/** The public keys of an identity, all of which a verification code covers. */
export interface VerificationIdentity {
  /** Ed25519 identity (signing) key, 32 bytes. */
  ed25519: Uint8Array;
  /** X25519 identity key, 32 bytes: the key that authenticates sessions. */
  x25519: Uint8Array;
  /** ML-DSA-65 public key, 1952 bytes, if the identity has one. */
  mlDsa65?: Uint8Array | null;
}

/**
 * `Enc(I) = u8(flags) ‖ ed25519 ‖ [mlDsa65] ‖ x25519` (flags bit 0: ML-DSA-65
 * present), the canonical encoding verification codes take (docs/PROTOCOL.md §8).
 */
export function encodeVerificationIdentity(identity: VerificationIdentity): Uint8Array {
  if (typeof identity !== 'object' || identity === null) throw new TypeError('identity must be { ed25519, x25519, mlDsa65? }');
  const ed = exact('identity.ed25519', identity.ed25519, MESSAGING.ed25519PublicKeyLength);
  const x = exact('identity.x25519', identity.x25519, MESSAGING.x25519KeyLength);
  const ml = identity.mlDsa65 === undefined || identity.mlDsa65 === null ? undefined : exact('identity.mlDsa65', identity.mlDsa65, MESSAGING.mlDsa65PublicKeyLength);
  return call(() => wasm.encodeVerificationIdentity(ed, ml, x));
}

function identityBytes(name: string, identity: VerificationIdentity | Uint8Array): Uint8Array {
  if (identity instanceof Uint8Array) {
    const n = identity.length;
    if (n !== MESSAGING.verificationIdentityLength && n !== MESSAGING.verificationIdentityWithMlDsaLength) {
      throw new RangeError(`${name} must be an identity encoding of 65 or 2017 bytes, got ${n}`);
    }
    return identity;
  }
  return encodeVerificationIdentity(identity);
}

/** A static out-of-band verification code; the same for both parties. */
export interface VerificationCode {
  /** 12 groups of 5 digits separated by spaces (60 digits, ≈ 199 bits). */
  numeric: string;
  /** 64 lowercase hex digits (256 bits). */
  fingerprint: string;
}

/**
 * Static verification code of two identities (every key of each; order does
 * not matter) in a conversation. There is deliberately no short (emoji)
 * form: a man in the middle who substitutes both identities finds a
 * collision of a static code in 2^(bits/2) work, so only ≈ 200-bit forms
 * are offered. For a short code, use {@link SasVerification}.
 */
export function generateVerificationCode(
  identityA: VerificationIdentity | Uint8Array,
  identityB: VerificationIdentity | Uint8Array,
  conversationId: Uint8Array,
): VerificationCode {
  const a = identityBytes('identityA', identityA);
  const b = identityBytes('identityB', identityB);
  const c = bytes('conversationId', conversationId);
  const parsed = JSON.parse(call(() => wasm.generateVerificationCode(a, b, c))) as VerificationCode;
  return { numeric: parsed.numeric, fingerprint: parsed.fingerprint };
}

/** Options of a {@link SasVerification}. */
export interface SasVerificationOptions {
  /** `'initiator'` receives the commitment first; `'responder'` commits first. */
  role: 'initiator' | 'responder';
  /** Our identity (keys or its encoding). */
  ownIdentity: VerificationIdentity | Uint8Array;
  /** The identity we believe the peer has (keys or its encoding). */
  peerIdentity: VerificationIdentity | Uint8Array;
  /** Failed or aborted attempts allowed (1 … 10, default 3); then `SAS_ATTEMPTS_EXHAUSTED`. */
  maxAttempts?: number;
}

/** State of a {@link SasVerification}. */
export type SasState = 'idle' | 'awaiting-commitment' | 'awaiting-nonce' | 'committed' | 'compare' | 'verified' | 'exhausted';

/**
 * One side of an interactive commit-then-reveal short-authentication-string
 * verification (docs/PROTOCOL.md §8): 7 emoji that a man in the middle can
 * match only by luck (2^-42 per attempt), because the responder commits to its
 * identity and nonce before it sees the initiator's nonce.
 *
 * ```text
 * responder.start(txId)            → commitment  (send)
 * initiator.start(txId); initiator.receiveCommitment(commitment) → nonce (send)
 * responder.receiveNonce(nonce)    → its nonce   (send)
 * initiator.receiveNonce(its nonce)              (SAS_COMMITMENT_MISMATCH aborts)
 * both: emoji() → compare → confirm() or reject()
 * ```
 *
 * Nonces are made inside (fresh per attempt) and never taken from the caller;
 * out-of-order calls throw `VeilError('INVALID_STATE')`; a nonce or
 * commitment seen before is `SAS_NONCE_REUSED`. Mismatches, reuse, `reject()`
 * and `abort()` count as failed attempts; after `maxAttempts`, `start` throws
 * `SAS_ATTEMPTS_EXHAUSTED` for good. Call {@link SasVerification.dispose} when done (or `using`);
 * every method afterwards throws `VeilError('INVALID_STATE')`.
 */
export class SasVerification {
  #handle: wasm.SasHandle | undefined;

  constructor(options: SasVerificationOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be { role, ownIdentity, peerIdentity, maxAttempts? }');
    if (options.role !== 'initiator' && options.role !== 'responder') throw new TypeError(`role must be 'initiator' or 'responder', got ${String(options.role)}`);
    const own = identityBytes('ownIdentity', options.ownIdentity);
    const peer = identityBytes('peerIdentity', options.peerIdentity);
    const max = options.maxAttempts === undefined ? 3 : integer('maxAttempts', options.maxAttempts, 1, MESSAGING.sasMaxAttempts);
    const initiator = options.role === 'initiator';
    this.#handle = call(() => new wasm.SasHandle(initiator, own, peer, max));
  }

  #live(): wasm.SasHandle {
    if (this.#handle === undefined) throw disposedError('this SasVerification');
    return this.#handle;
  }

  /** Starts an attempt (1 … 255-byte transaction id, the same on both sides): the responder's commitment, `null` for the initiator. */
  start(txId: Uint8Array): Uint8Array | null {
    const h = this.#live();
    const t = nonEmpty('txId', txId, MESSAGING.sasMaxTxIdLength);
    const c = call(() => h.start(t));
    return c.length === 0 ? null : c;
  }

  /** Initiator: the responder's commitment in, our nonce (to send) out. */
  receiveCommitment(commitment: Uint8Array): Uint8Array {
    const h = this.#live();
    const c = exact('commitment', commitment, MESSAGING.sasCommitmentLength);
    return call(() => h.receiveCommitment(c));
  }

  /** The peer's nonce in; the responder gets its own nonce (to send), the initiator `null`. */
  receiveNonce(nonce: Uint8Array): Uint8Array | null {
    const h = this.#live();
    const n = exact('nonce', nonce, MESSAGING.sasNonceLength);
    const out = call(() => h.receiveNonce(n));
    return out.length === 0 ? null : out;
  }

  /** The 7 emoji to compare (from the table of docs/PROTOCOL.md §8). */
  emoji(): string[] {
    const h = this.#live();
    return JSON.parse(call(() => h.emoji())) as string[];
  }

  /** The users saw the same emoji: verified (final). */
  confirm(): void {
    const h = this.#live();
    call(() => h.confirm());
  }

  /** The users saw different emoji: a failed attempt. */
  reject(): void {
    const h = this.#live();
    call(() => h.reject());
  }

  /** Abandons the running attempt (counts as failed); nothing if none runs. */
  abort(): void {
    const h = this.#live();
    call(() => h.abort());
  }

  /** Failed or aborted attempts so far. */
  get failures(): number {
    const h = this.#live();
    return call(() => h.failures);
  }

  /** Attempts left before `start` refuses. */
  get attemptsLeft(): number {
    const h = this.#live();
    return call(() => h.attemptsLeft);
  }

  /** Where the exchange is. */
  get state(): SasState {
    const h = this.#live();
    return call(() => h.state) as SasState;
  }

  /** Releases the WebAssembly memory. Idempotent. */
  dispose(): void {
    this.#handle?.free();
    this.#handle = undefined;
  }

  /** Same as {@link SasVerification.dispose} (`using`). */
  [disposeSymbol](): void {
    this.dispose();
  }

  /** @deprecated Use {@link SasVerification.dispose} (or `using`); the same call. */
  free(): void {
    this.dispose();
  }
}

// ---------------------------------------------------------------- key-transparency log

export type KeyLogAction = 'add' | 'update' | 'revoke';
const ACTION_CODES: Readonly<Record<KeyLogAction, number>> = { add: 1, update: 2, revoke: 3 };
const ACTIONS: readonly KeyLogAction[] = ['add', 'update', 'revoke'];

/** One key-transparency log entry (format v2). */
export interface KeyLogEntry {
  userId: Uint8Array;
  /** Ed25519 key added, new key (update) or revoked key. */
  publicKey: Uint8Array;
  timestamp: number;
  /** Hash of the previous entry ({@link keyLogEntryHash}); 32 zero bytes for the first. */
  prevHash: Uint8Array;
  action: KeyLogAction;
  /** Signature of the authorising key: `publicKey` itself for `add`, the user's current key otherwise. */
  signature: Uint8Array;
  /** Proof of possession: `publicKey`'s signature; present exactly for `add` and `update`. */
  keySignature?: Uint8Array;
}

/** Why an entry was rejected (docs/PROTOCOL.md §9). */
export type KeyLogFailureReason =
  | 'MALFORMED'
  | 'BAD_PREV_HASH'
  | 'TIMESTAMP_DECREASED'
  | 'BAD_SIGNATURE'
  | 'FIRST_NOT_ADD'
  | 'DUPLICATE_ADD'
  | 'AFTER_REVOKE'
  | 'REVOKE_KEY_MISMATCH'
  | 'UNSUPPORTED_VERSION'
  | 'KEY_OF_ANOTHER_USER'
  | 'BAD_KEY_SIGNATURE';

export type KeyLogVerification = { valid: true } | { valid: false; index: number; reason: KeyLogFailureReason };

/** `prevHash` of the first entry. */
export const KEY_LOG_GENESIS_HASH: Uint8Array = new Uint8Array(32);

const KEY_LOG_VERSION = 2;

function entryToJsonObject(e: KeyLogEntry, name: string): Record<string, unknown> {
  if (typeof e !== 'object' || e === null) throw new TypeError(`${name} must be a KeyLogEntry object`);
  if (!ACTIONS.includes(e.action)) throw new TypeError(`${name}.action must be 'add', 'update' or 'revoke'`);
  const o: Record<string, unknown> = {
    version: KEY_LOG_VERSION,
    userId: base64urlEncode(nonEmpty(`${name}.userId`, e.userId, MESSAGING.maxUserIdLength)),
    publicKey: base64urlEncode(exact(`${name}.publicKey`, e.publicKey, 32)),
    timestamp: safeInteger(`${name}.timestamp`, e.timestamp),
    prevHash: base64urlEncode(exact(`${name}.prevHash`, e.prevHash, 32)),
    action: e.action,
    signature: base64urlEncode(exact(`${name}.signature`, e.signature, 64)),
  };
  if (e.keySignature !== undefined) o.keySignature = base64urlEncode(exact(`${name}.keySignature`, e.keySignature, 64));
  return o;
}

function entryFromJsonObject(o: unknown, index: number): KeyLogEntry {
  const what = `key log entry ${index}`;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw malformed(what);
  const r = o as Record<string, unknown>;
  if (r.version !== KEY_LOG_VERSION) throw new VeilError('UNSUPPORTED_VERSION', `${what}: not a version ${KEY_LOG_VERSION} entry`);
  const { timestamp, action } = r;
  if (typeof action !== 'string' || !ACTIONS.includes(action as KeyLogAction)) throw malformed(what);
  const introducesKey = action !== 'revoke';
  const keys = Object.keys(r);
  const expected = ['version', 'userId', 'publicKey', 'timestamp', 'prevHash', 'action', 'signature', ...(introducesKey ? ['keySignature'] : [])];
  if (keys.length !== expected.length || !expected.every((k) => k in r)) throw malformed(what);
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0) throw malformed(what);
  const userId = b64urlDecode(what, r.userId);
  if (userId.length === 0 || userId.length > MESSAGING.maxUserIdLength) throw malformed(what);
  const entry: KeyLogEntry = {
    userId,
    publicKey: b64urlDecode(what, r.publicKey, 32),
    timestamp,
    prevHash: b64urlDecode(what, r.prevHash, 32),
    action: action as KeyLogAction,
    signature: b64urlDecode(what, r.signature, 64),
  };
  if (introducesKey) entry.keySignature = b64urlDecode(what, r.keySignature, 64);
  return entry;
}

/** The stable JSON form of a log (array of entries, bytes as unpadded base64url). */
export function keyLogToJson(entries: readonly KeyLogEntry[]): string {
  const list: unknown = entries; // Array.isArray would narrow `entries` itself to any[]
  if (!Array.isArray(list)) throw new TypeError('entries must be an array of KeyLogEntry');
  return JSON.stringify(entries.map((e, i) => entryToJsonObject(e, `entries[${i}]`)));
}

/**
 * Parses the JSON form of a log (structure only; see {@link keyLogVerifyChain}).
 * An entry that is not format v2 throws `VeilError('UNSUPPORTED_VERSION')`.
 */
export function keyLogFromJson(json: string): KeyLogEntry[] {
  const text = string('json', json);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed('key log JSON');
  }
  if (!Array.isArray(parsed)) throw malformed('key log JSON must be an array');
  return parsed.map((o, i) => entryFromJsonObject(o, i));
}

/**
 * Creates and signs an entry. `action` is `'add'` (self-signed: `signingKey`
 * must be the secret of `publicKey`), `'update'` (signed by the user's current
 * key, and co-signed by the new key: `newKeySigningKey` must be the secret of
 * `publicKey`, the proof of possession) or `'revoke'` (signed by the user's
 * current key), or the seed's numbers 1, 2, 3. Secrets are 64-byte Ed25519
 * secrets or 32-byte seeds.
 */
export function keyLogCreateEntry(
  userId: Uint8Array,
  publicKey: Uint8Array,
  timestamp: number,
  prevEntryHash: Uint8Array,
  action: KeyLogAction | 1 | 2 | 3,
  signingKey: Uint8Array,
  newKeySigningKey?: Uint8Array,
): KeyLogEntry {
  const u = nonEmpty('userId', userId, MESSAGING.maxUserIdLength);
  const pk = exact('publicKey', publicKey, 32);
  const t = safeInteger('timestamp', timestamp);
  const prev = exact('prevEntryHash', prevEntryHash, 32);
  let code: number;
  if (typeof action === 'number') {
    code = integer('action', action, 1, 3);
  } else if (typeof action === 'string' && ACTIONS.includes(action)) {
    code = ACTION_CODES[action];
  } else {
    throw new TypeError(`action must be 'add', 'update', 'revoke' or 1, 2, 3, got ${String(action)}`);
  }
  const sk = oneOf('signingKey', signingKey, ED25519_SECRET_LENGTHS);
  let newSk: Uint8Array | undefined;
  if (code === ACTION_CODES.update) {
    if (newKeySigningKey === undefined) throw new TypeError('an update needs newKeySigningKey, the secret of the new publicKey');
    newSk = oneOf('newKeySigningKey', newKeySigningKey, ED25519_SECRET_LENGTHS);
  } else if (newKeySigningKey !== undefined) {
    throw new TypeError('newKeySigningKey is only for update');
  }
  const json = call(() => wasm.keyLogCreateEntry(u, pk, t, prev, code, sk, newSk));
  return entryFromJsonObject(JSON.parse(json), 0);
}

/** Hash of an entry: the next entry's `prevHash`. */
export function keyLogEntryHash(entry: KeyLogEntry): Uint8Array {
  const json = JSON.stringify(entryToJsonObject(entry, 'entry'));
  return call(() => wasm.keyLogEntryHash(json));
}

/** Verifies a whole log (typed entries or their JSON form); says which entry failed and why. */
export function keyLogVerifyChain(entries: readonly KeyLogEntry[] | string): KeyLogVerification {
  const json = typeof entries === 'string' ? entries : keyLogToJson(entries);
  return JSON.parse(call(() => wasm.keyLogVerifyChain(json))) as KeyLogVerification;
}

/**
 * The user's key after the entries with `timestamp ≤ atTime` (all if
 * omitted), or `null` (never added, or revoked). Throws
 * `VeilError('KEY_LOG_INVALID')` if the log does not verify.
 */
export function keyLogCurrentKey(entries: readonly KeyLogEntry[] | string, userId: Uint8Array, atTime?: number): Uint8Array | null {
  const json = typeof entries === 'string' ? entries : keyLogToJson(entries);
  const u = bytes('userId', userId);
  const at = atTime === undefined ? undefined : safeInteger('atTime', atTime);
  return call(() => wasm.keyLogCurrentKey(json, u, at)) ?? null;
}

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

// ---------------------------------------------------------------- replay store

/** Options of a {@link ReplayStore}. */
export interface ReplayStoreOptions {
  /** How long a hash is remembered, in seconds (≥ 1). */
  windowSeconds: number;
  /** Capacity (1 … 1048576); when full, the oldest is forgotten and older timestamps are refused. */
  maxEntries: number;
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Handle handed from {@link ReplayStore.fromJson} to the constructor. */
let adopted: wasm.ReplayStoreHandle | undefined;

/**
 * Bounded replay protection: 32-byte hashes with timestamps, O(log n) `has`
 * and `insert` (an ordered map: no hash flooding), held in WebAssembly memory.
 * Call {@link ReplayStore.dispose} when done (or `using`); every method afterwards throws
 * `VeilError('INVALID_STATE')`. Times are seconds; `now` defaults to the clock.
 */
export class ReplayStore {
  #handle: wasm.ReplayStoreHandle | undefined;

  constructor(options: ReplayStoreOptions) {
    if (adopted !== undefined) {
      this.#handle = adopted;
      adopted = undefined;
      return;
    }
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be { windowSeconds, maxEntries }');
    const w = safeInteger('windowSeconds', options.windowSeconds, 1);
    const m = integer('maxEntries', options.maxEntries, 1, 1 << 20);
    this.#handle = call(() => new wasm.ReplayStoreHandle(w, m));
  }

  /** A store from its JSON form ({@link ReplayStore.toJson}). */
  static fromJson(json: string): ReplayStore {
    const text = string('json', json);
    adopted = call(() => wasm.ReplayStoreHandle.fromJson(text));
    return new ReplayStore({ windowSeconds: 1, maxEntries: 1 });
  }

  #live(): wasm.ReplayStoreHandle {
    if (this.#handle === undefined) throw disposedError('this ReplayStore');
    return this.#handle;
  }

  /** Whether the hash has been seen (and not forgotten). */
  has(hash: Uint8Array): boolean {
    const handle = this.#live();
    const h = exact('hash', hash, MESSAGING.replayHashLength);
    return call(() => handle.has(h));
  }

  /**
   * Records a message hash. `timestamp` must be the **sender's timestamp that
   * the message authenticates** (signed or inside the encrypted envelope, and
   * covered by `hash`, e.g. the one given to {@link transcriptComputeMessageHash}),
   * never the time of receipt: the window and the floor stop a replay only
   * because a replayed message comes back with its original timestamp; a
   * receive time would give a replay of a forgotten hash a fresh one.
   * `now` is the receiver's clock. Throws `VeilError('REPLAY_DETECTED')` if
   * the hash is stored, `VeilError('REPLAY_OUT_OF_WINDOW')` if the timestamp
   * is outside the window (or older than what the store has had to forget).
   */
  insert(hash: Uint8Array, timestamp: number, now: number = nowSeconds()): void {
    const handle = this.#live();
    const h = exact('hash', hash, MESSAGING.replayHashLength);
    const t = safeInteger('timestamp', timestamp);
    const n = safeInteger('now', now);
    call(() => handle.insert(h, t, n));
  }

  /** Forgets expired hashes; returns how many. */
  prune(now: number = nowSeconds()): number {
    const handle = this.#live();
    const n = safeInteger('now', now);
    return call(() => handle.prune(n));
  }

  /** Number of stored hashes. */
  get size(): number {
    const handle = this.#live();
    return call(() => handle.size);
  }

  /** Timestamps below the floor are refused. */
  get floor(): number {
    const handle = this.#live();
    return call(() => handle.floor);
  }

  /** The JSON form (docs/PROTOCOL.md §11). */
  toJson(): string {
    const handle = this.#live();
    return call(() => handle.toJson());
  }

  /** Releases the WebAssembly memory. Idempotent. */
  dispose(): void {
    this.#handle?.free();
    this.#handle = undefined;
  }

  /** Same as {@link ReplayStore.dispose} (`using`). */
  [disposeSymbol](): void {
    this.dispose();
  }

  /** @deprecated Use {@link ReplayStore.dispose} (or `using`); the same call. */
  free(): void {
    this.dispose();
  }
}
