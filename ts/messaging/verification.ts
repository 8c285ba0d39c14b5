/** Static verification codes and interactive SAS (emoji) verification. */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { WasmResource, disposedError } from '../dispose.js';
import { VeilError } from '../../protocol/errors.js';
import { bytes, exact, integer, untrustedExact } from '../validate.js';
import { nonEmpty } from './internal.js';
import { MESSAGING } from './sizes.js';

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
    // An encoding that came from the peer: the core decoder's codes (docs/PROTOCOL.md §8), not a RangeError.
    if (n === 0) throw new VeilError('MALFORMED_INPUT', `${name} is an empty identity encoding`, { details: { got: 0 } });
    if (n !== MESSAGING.verificationIdentityLength && n !== MESSAGING.verificationIdentityWithMlDsaLength) {
      throw new VeilError('INVALID_LENGTH', `${name} must be an identity encoding of 65 or 2017 bytes, got ${n}`, { details: { got: n } });
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
export class SasVerification extends WasmResource {
  #handle: wasm.SasHandle | undefined;

  constructor(options: SasVerificationOptions) {
    super();
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
    const c = untrustedExact('commitment', commitment, MESSAGING.sasCommitmentLength, 'INVALID_LENGTH');
    return call(() => h.receiveCommitment(c));
  }

  /** The peer's nonce in; the responder gets its own nonce (to send), the initiator `null`. */
  receiveNonce(nonce: Uint8Array): Uint8Array | null {
    const h = this.#live();
    const n = untrustedExact('nonce', nonce, MESSAGING.sasNonceLength, 'INVALID_LENGTH');
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

  /** Releases the WebAssembly memory. Idempotent (also `[Symbol.dispose]()`, deprecated `free()`). */
  override dispose(): void {
    this.#handle?.free();
    this.#handle = undefined;
  }
}
