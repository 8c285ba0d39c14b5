/**
 * Post-quantum chat sessions (docs/SESSIONS.md): a PQXDH-style handshake and a
 * triple ratchet whose state lives in the keystore's worker. The page holds a
 * `Session` handle — an id and public information — and never a key: every
 * operation runs in the worker under a per-session Web Lock and commits the
 * advanced state to IndexedDB before it returns (docs/SESSIONS.md §7).
 *
 * ```ts
 * const { bundle } = await bob.createPrekeyBundle(bobId, { oneTime: 0 });   // Bob publishes `bundle`
 * const { session, initialMessage } = await Session.initiate(alice, aliceId, bundle, { plaintext: hello });
 * const { session: s2, plaintext } = await Session.respond(bob, bobId, initialMessage);
 * const m = await s2.encrypt(reply, { aad });               // plain bytes on the wire
 * const { plaintext: r } = await session.decrypt(m, { aad });
 * ```
 */
import { disposeSymbol, disposedError } from './dispose.js';
import { Keystore, keystoreRun } from './keystore.js';
import { bytes } from './validate.js';
import { init } from './init.js';
import { generateVerificationCode, type VerificationCode } from './messaging/verification.js';
import type { KeystoreBody } from './keystore-isolated.js';
import type { IdentityHandle, KeystoreReplies, SessionBatchItem, SessionInfo } from '../protocol/keystore.protocol.js';
import { deserializeError } from './pool.js';
import { VeilError } from '../protocol/errors.js';

export type { SessionInfo } from '../protocol/keystore.protocol.js';

/** The conversation id of a session's verification code (docs/SESSIONS.md §7). */
export const SESSION_VERIFICATION_CONTEXT = 'veilkit-session-v1';

/** Options of `Session.initiate`: the first message's `plaintext` and `aad`, and a `pinned` peer identity. */
export interface InitiateOptions {
  /** The peer's `Enc(ID)` as verified out of band: the bundle must carry exactly it (`IDENTITY_MISMATCH`). */
  pinned?: Uint8Array;
  /** Plaintext of the first ratchet message, carried in the initial message (default empty). */
  plaintext?: Uint8Array;
  /** Associated data of that first message; the responder passes the same `aad`. */
  aad?: Uint8Array;
}

/** Options of `Session.respond`: a `pinned` peer identity (`Enc(ID)`) and the initial message's `aad`. */
export interface RespondOptions {
  /** The initiator's `Enc(ID)` as verified out of band (`IDENTITY_MISMATCH` otherwise). */
  pinned?: Uint8Array;
  /** The `aad` the initiator used for its first message. */
  aad?: Uint8Array;
}

/** Options of `session.encrypt` / `session.decrypt`: associated data (`aad`) bound to the message. */
export interface MessageOptions {
  /** Associated data: not sent; the receiver passes the same bytes. */
  aad?: Uint8Array;
}

/** One message of {@link Session.decryptMany} with its own `aad` (an entry given as bare bytes takes the call's `aad`). */
export interface BatchMessage {
  message: Uint8Array;
  aad?: Uint8Array;
}

/** One plaintext of {@link Session.encryptMany} with its own `aad` (an entry given as bare bytes takes the call's `aad`). */
export interface BatchPlaintext {
  plaintext: Uint8Array;
  aad?: Uint8Array;
}

/**
 * The outcome of one message of {@link Session.decryptMany}: its plaintext and the session's state counter after
 * it, or the typed error it failed with (`AUTHENTICATION_FAILED`, `DUPLICATE_MESSAGE`, `TOO_FAR_AHEAD`,
 * `MALFORMED_INPUT`, …), in which case that message changed nothing.
 */
export type DecryptManyResult =
  | { ok: true; plaintext: Uint8Array; counter: number }
  | { ok: false; error: VeilError };

/** The most messages one `encryptMany` / `decryptMany` call carries (a longer list: `RangeError`; split it). */
export const MAX_SESSION_BATCH = 1000;

/** Copies a batch into worker items: `field` of an object entry, or a bare `Uint8Array`; each with its `aad` or the call's. */
function batch<K extends 'message' | 'plaintext'>(
  name: string, entries: readonly (Uint8Array | ({ [P in K]: Uint8Array } & { aad?: Uint8Array }))[], field: K, aad: Uint8Array | undefined,
): SessionBatchItem[] {
  const given: unknown = entries;
  if (!Array.isArray(given)) throw new TypeError(`${name} must be an array`);
  if (entries.length > MAX_SESSION_BATCH) throw new RangeError(`${name} holds at most ${MAX_SESSION_BATCH} entries (got ${entries.length})`);
  const common = aad === undefined ? undefined : bytes('aad', aad).slice();
  return entries.map((e, i) => {
    if (e instanceof Uint8Array) return { data: bytes(`${name}[${i}]`, e).slice(), ...(common ? { aad: common } : {}) };
    if (typeof e !== 'object' || (e as unknown) === null) throw new TypeError(`${name}[${i}] must be a Uint8Array or { ${field}, aad? }`);
    const own = e.aad === undefined ? common : bytes(`${name}[${i}].aad`, e.aad).slice();
    return { data: bytes(`${name}[${i}].${field}`, e[field]).slice(), ...(own ? { aad: own } : {}) };
  });
}

function identityId(identity: IdentityHandle | string): string {
  if (typeof identity === 'string') return identity;
  if (typeof identity === 'object' && identity !== null && typeof identity.id === 'string') return identity.id;
  throw new TypeError('identity must be an IdentityHandle or an identity id');
}

function sessionId(session: Session | SessionInfo | string): string {
  if (typeof session === 'string') return session;
  if (session instanceof Session) return session.id;
  if (typeof session === 'object' && session !== null && typeof session.id === 'string') return session.id;
  throw new TypeError('session must be a Session, a SessionInfo or a session id');
}

function checkKeystore(ks: Keystore): Keystore {
  if (!(ks instanceof Keystore)) throw new TypeError('ks must be a Keystore');
  return ks;
}

function options<T extends object>(o: T | undefined): T {
  if (o === undefined) return {} as T;
  if (typeof o !== 'object' || o === null) throw new TypeError('options must be an object');
  return o;
}

/** `aad` etc.: a copy (the caller's buffer is never touched) or nothing. */
function opt(name: string, v: Uint8Array | undefined): { [k: string]: Uint8Array } {
  return v === undefined ? {} : { [name]: bytes(name, v).slice() };
}

function run<B extends KeystoreBody>(ks: Keystore, body: B): Promise<KeystoreReplies[B['type']]> {
  return keystoreRun(ks, body) as Promise<KeystoreReplies[B['type']]>;
}

/** A chat session stored in a keystore: a handle (id and public information); the state stays in the keystore's worker. */
export class Session {
  readonly keystore: Keystore;
  readonly id: string;
  private last: SessionInfo;
  private closed = false;

  private constructor(ks: Keystore, info: SessionInfo) {
    this.keystore = ks;
    this.id = info.id;
    this.last = info;
  }

  /**
   * Starts a session with the owner of `peerBundle` (a prekey bundle, docs/SESSIONS.md §3), as
   * `identity` (which must have ML-DSA-65: `PQ_IDENTITY_REQUIRED`). Send `initialMessage`; it carries
   * the first message (`plaintext`, default empty). The session is stored before this resolves.
   */
  static async initiate(ks: Keystore, identity: IdentityHandle | string, peerBundle: Uint8Array, o?: InitiateOptions): Promise<{ session: Session; initialMessage: Uint8Array }> {
    checkKeystore(ks);
    const oo = options(o);
    const r = await run(ks, {
      type: 'keystore/session-initiate', identity: identityId(identity), bundle: bytes('peerBundle', peerBundle).slice(),
      ...opt('pinned', oo.pinned), ...opt('plaintext', oo.plaintext), ...opt('aad', oo.aad),
    });
    return { session: new Session(ks, r.session), initialMessage: r.initialMessage };
  }

  /**
   * Answers an initial message sent to `identity`: the new session, the first message's plaintext and
   * the peer (its `Enc(ID)`: compare it with a pinned identity or its verification code). A replay of
   * an initial message without one-time prekeys fails with `REPLAY_DETECTED`, one whose one-time
   * prekey was used with `PREKEY_NOT_FOUND`; a failed respond consumes nothing.
   */
  static async respond(
    ks: Keystore, identity: IdentityHandle | string, initialMessage: Uint8Array, o?: RespondOptions,
  ): Promise<{ session: Session; plaintext: Uint8Array; peer: { identity: Uint8Array; deviceId: number } }> {
    checkKeystore(ks);
    const oo = options(o);
    const r = await run(ks, {
      type: 'keystore/session-respond', identity: identityId(identity), message: bytes('initialMessage', initialMessage).slice(),
      ...opt('pinned', oo.pinned), ...opt('aad', oo.aad),
    });
    return { session: new Session(ks, r.session), plaintext: r.plaintext, peer: { identity: r.session.peerIdentity, deviceId: r.session.peerDeviceId } };
  }

  /** A stored session by id (`KEY_NOT_FOUND`; `STATE_ROLLBACK` if its stored state is older than one already committed). */
  static async load(ks: Keystore, id: string): Promise<Session> {
    checkKeystore(ks);
    return new Session(ks, await run(ks, { type: 'keystore/session-info', session: sessionId(id) }));
  }

  /** Every stored session (of `identity`, if given), oldest first. */
  static async list(ks: Keystore, identity?: IdentityHandle | string): Promise<SessionInfo[]> {
    checkKeystore(ks);
    return run(ks, { type: 'keystore/session-list', ...(identity === undefined ? {} : { identity: identityId(identity) }) });
  }

  /** Deletes a stored session and its state (`KEY_NOT_FOUND` if there is none). */
  static async delete(ks: Keystore, session: Session | SessionInfo | string): Promise<true> {
    checkKeystore(ks);
    return run(ks, { type: 'keystore/session-delete', session: sessionId(session) });
  }

  private check(): void {
    if (this.closed) throw disposedError('this Session');
  }

  /** Encrypts one message; resolves after the advanced state is committed. The message is plain bytes. */
  async encrypt(plaintext: Uint8Array, o?: MessageOptions): Promise<Uint8Array> {
    this.check();
    const oo = options(o);
    const r = await run(this.keystore, { type: 'keystore/session-encrypt', session: this.id, plaintext: bytes('plaintext', plaintext).slice(), ...opt('aad', oo.aad) });
    return r.message;
  }

  /**
   * Decrypts one message with the `aad` the sender used. Any failure (tampering, wrong `aad`:
   * `AUTHENTICATION_FAILED`; replay: `DUPLICATE_MESSAGE`; …) leaves the session unchanged.
   * `counter` is the session's state counter after this message.
   */
  async decrypt(message: Uint8Array, o?: MessageOptions): Promise<{ plaintext: Uint8Array; counter: number }> {
    this.check();
    const oo = options(o);
    return run(this.keystore, { type: 'keystore/session-decrypt', session: this.id, message: bytes('message', message).slice(), ...opt('aad', oo.aad) });
  }

  /**
   * Decrypts a batch of messages in order — each on the state the previous ones left, so a burst arriving out of
   * order decrypts as it would one by one — and commits the advanced state **once** (one strict IndexedDB
   * transaction for the batch, docs/SESSIONS.md §7.2). A message that fails gets `{ ok: false, error }` in its slot
   * and changes nothing (a tampered, replayed or mis-`aad`ed message cannot spoil the others); the rest proceed.
   * Nothing is returned before the commit: if it fails, the call rejects and no plaintext is released (the state is
   * as before, so the same batch can be retried). Entries are bytes (decrypted with `o.aad`) or `{ message, aad? }`;
   * at most {@link MAX_SESSION_BATCH}.
   */
  async decryptMany(messages: readonly (Uint8Array | BatchMessage)[], o?: MessageOptions): Promise<DecryptManyResult[]> {
    this.check();
    const items = batch('messages', messages, 'message', options(o).aad);
    if (items.length === 0) return [];
    const r = await run(this.keystore, { type: 'keystore/session-decrypt-many', session: this.id, items });
    return r.results.map((x): DecryptManyResult => {
      if (x.ok) return { ok: true, plaintext: x.plaintext, counter: x.counter };
      const error = deserializeError(x.error);
      return { ok: false, error: error instanceof VeilError ? error : new VeilError('INTERNAL', error.message) };
    });
  }

  /**
   * Encrypts a batch of plaintexts in order and commits once: the messages, in order, after the commit (all or
   * none). Entries are bytes (with `o.aad`) or `{ plaintext, aad? }`; at most {@link MAX_SESSION_BATCH}.
   */
  async encryptMany(plaintexts: readonly (Uint8Array | BatchPlaintext)[], o?: MessageOptions): Promise<Uint8Array[]> {
    this.check();
    const items = batch('plaintexts', plaintexts, 'plaintext', options(o).aad);
    if (items.length === 0) return [];
    const r = await run(this.keystore, { type: 'keystore/session-encrypt-many', session: this.id, items });
    return [...r.messages];
  }

  /** The session's public information, freshly read (and rollback-checked) from the keystore. */
  async info(): Promise<SessionInfo> {
    this.check();
    this.last = await run(this.keystore, { type: 'keystore/session-info', session: this.id });
    return this.last;
  }

  /**
   * The static verification code over both parties' `Enc(ID)` (conversation id `"veilkit-session-v1"`):
   * the same on both sides; compare it out of band, then pin the peer's `Enc(ID)`.
   */
  async verificationCode(): Promise<VerificationCode> {
    this.check();
    await init();
    return generateVerificationCode(this.last.localIdentity, this.last.peerIdentity, new TextEncoder().encode(SESSION_VERIFICATION_CONTEXT));
  }

  /** Deletes this session from the keystore and disposes the handle. */
  async delete(): Promise<true> {
    this.check();
    const r = await Session.delete(this.keystore, this.id);
    this.dispose();
    return r;
  }

  /** Forgets the handle (the stored session stays). Idempotent; every other method afterwards throws `INVALID_STATE`. */
  dispose(): void {
    this.closed = true;
  }

  /** Same as {@link Session.dispose} (`using`). */
  [disposeSymbol](): void {
    this.dispose();
  }
}
