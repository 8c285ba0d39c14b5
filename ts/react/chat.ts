/**
 * One conversation of `useChat`, framework-free: a session from the keystore (stored id →
 * `Session.load`; else the first `send` initiates from the peer's prekey bundle, or the peer's
 * first frame is answered with `Session.respond`), chat frames over an app-provided transport, and
 * the history in a {@link ChatStorage}. Everything a conversation does runs in one queue, in order.
 *
 * The conversation is bound to its peer's identity once a session exists (trust on first use,
 * docs/REACT.md#peer-identity): an initial frame from another identity never replaces the session —
 * it becomes `identityChange` until the app accepts or rejects it. Older sessions with the same peer
 * (a re-initiation, crossing initiations) stay archived and are tried on decrypt; crossing
 * initiations converge on the session initiated by the side with the lower identity id.
 *
 * Chat frame (the transport's payload): 1 byte kind ‖ body — kind 1: `Session.initiate`'s
 * `initialMessage`; kind 2: a `session.encrypt` message. The plaintext is the UTF-8 text.
 */
import { runtime } from './runtime.js';
import { verificationCodeOf, type ChatVerificationCode } from './verification.js';
import { VeilError } from '../../protocol/errors.js';
import { hookError } from './errors.js';
import type { VeilStatus, VeilStore } from './store.js';
import type { ChatMessage, ChatPeerBinding, ChatRecord, ChatStorage } from './chat-storage.js';
import type { IdentityHandle, Keystore } from '../keystore.js';
import type { Session } from '../session.js';

/** How frames travel: the app's channel to the peer (a WebSocket, a server relay, a BroadcastChannel…). */
export interface ChatTransport {
  /** Sends one frame to the peer. */
  send(bytes: Uint8Array): void | Promise<void>;
  /** Calls `onBytes` with every frame from the peer; returns the function that stops it. */
  subscribe(onBytes: (bytes: Uint8Array) => void): () => void;
}

/** Frame kinds (first byte). */
export const CHAT_FRAME = Object.freeze({ initial: 1, message: 2 } as const);

/**
 * How many older sessions with the same peer a conversation keeps and tries on decrypt (newest
 * first, after the current one). libsignal keeps 40 archived states per record; a conversation keeps
 * 5 because each one is a keystore record and a worker round trip for every frame no newer session reads.
 */
export const CHAT_ARCHIVED_SESSIONS = 5;

/** How many messages from an identity change waiting for the app are held; later ones are rejected (not consumed). */
export const CHAT_HELD_MESSAGES = 50;

/** `useChat`'s third argument: who the conversation is with (read whenever needed; may change freely). */
export interface ChatPeer {
  /** The peer's prekey bundle (`createPrekeyBundle(…).bundle` or a one-time one): needed to initiate. */
  readonly bundle?: Uint8Array;
  /** The peer's `Enc(ID)` as verified out of band: handshakes with anyone else fail (`IDENTITY_MISMATCH`), no `identityChange` is offered. */
  readonly pinned?: Uint8Array;
}

/** An initial frame from an identity other than the bound peer's, waiting for `acceptIdentityChange` / `rejectIdentityChange`. */
export interface ChatIdentityChange {
  /** The new identity's `Enc(ID)` (2,017 bytes). */
  readonly newIdentity: Uint8Array;
  /** Hex of its session identity id. */
  readonly newIdentityId: string;
  /** The verification code with the new identity: compare it out of band before accepting. */
  readonly verificationCode: ChatVerificationCode;
  /** Whether the peer it would replace had been verified (`markVerified`). */
  readonly wasVerified: boolean;
  /** Messages from the new identity held back (not in `messages`): they are shown if it is accepted, dropped if rejected. */
  readonly held: number;
}

/** The state `useChat` returns (besides its actions): messages, status, session, verification and identity change. */
export interface ChatState {
  /** `idle`: no session yet; `pending`: loading or handshaking; `success`: session established; `error`: loading or establishing failed. */
  readonly status: VeilStatus;
  readonly messages: readonly ChatMessage[];
  /** The verification code of the current session (with the bound peer). */
  readonly verificationCode: ChatVerificationCode | undefined;
  /** The last failure (a rejected incoming frame, a failed send, …); messages are kept. Cleared by the next successful send or received message. */
  readonly error: VeilError | undefined;
  /** Incoming frames that failed (tampered, wrong session, unknown kind, before any session); redeliveries of frames already read are not counted. */
  readonly rejected: number;
  /** The keystore session `send` uses. */
  readonly sessionId: string | undefined;
  /** Whether the user confirmed the verification code with the bound peer (`markVerified`); false until then, and again after an accepted identity change. */
  readonly verified: boolean;
  /** The bound peer's `Enc(ID)` (from the current session): pass it as `peer.pinned` to refuse every other identity outright. */
  readonly peerIdentity: Uint8Array | undefined;
  /** An initial frame from another identity: the conversation and `send` stay with the bound peer until the app accepts it. */
  readonly identityChange: ChatIdentityChange | undefined;
}

export const CHAT_IDLE: ChatState = {
  status: 'idle', messages: [], verificationCode: undefined, error: undefined, rejected: 0, sessionId: undefined,
  verified: false, peerIdentity: undefined, identityChange: undefined,
};

export interface ChatContext {
  readonly keystore: Keystore;
  readonly identity: IdentityHandle;
  readonly conversationId: string;
  readonly transport: ChatTransport;
  readonly storage: ChatStorage;
  readonly peer: () => ChatPeer | undefined;
}

/** A session of the conversation with what the conversation needs to know about it. */
interface Live {
  readonly session: Session;
  readonly role: 'initiator' | 'responder';
  /** Hex session identity ids: ours and the peer's. */
  readonly localId: string;
  readonly peerId: string;
  readonly peerIdentity: Uint8Array;
}

interface PendingChange {
  readonly live: Live;
  readonly held: readonly ChatMessage[];
  readonly view: ChatIdentityChange;
}

function messageId(): string {
  const c = globalThis.crypto as Crypto | undefined;
  return typeof c?.randomUUID === 'function' ? c.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

function frame(kind: number, body: Uint8Array): Uint8Array {
  const f = new Uint8Array(body.length + 1);
  f[0] = kind;
  f.set(body, 1);
  return f;
}

function codeOf(e: unknown): unknown {
  return typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
}

function chatMessage(from: ChatMessage['from'], text: string): ChatMessage {
  return Object.freeze({ id: messageId(), from, text, at: Date.now() });
}

function peerText(plaintext: Uint8Array): ChatMessage | undefined {
  return plaintext.length > 0 ? chatMessage('peer', new TextDecoder('utf-8', { fatal: false }).decode(plaintext)) : undefined;
}

/** The stored binding, if it has the right shape (the record is page-writable; a wrong shape is no binding). */
function bindingOf(v: unknown): ChatPeerBinding | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const b = v as { identityId?: unknown; verified?: unknown };
  return typeof b.identityId === 'string' && /^[0-9a-f]{64}$/.test(b.identityId) ? { identityId: b.identityId, verified: b.verified === true } : undefined;
}

function idsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export class ChatConversation {
  readonly #store: VeilStore<ChatState>;
  readonly #c: ChatContext;
  readonly #key: string;
  /** The session `send` uses. */
  #current: Live | undefined;
  /**
   * Whether a new initial frame from the peer is a re-initiation rather than a crossing one: the peer
   * holds `#current` (we answered its initial frame, or it sent on it), or a crossing was already resolved for it.
   */
  #confirmed = true;
  #code: ChatVerificationCode | undefined;
  /** Older sessions with the bound peer, newest first. */
  #archived: Live[] = [];
  #binding: ChatPeerBinding | undefined;
  #change: PendingChange | undefined;
  /** Sessions the conversation no longer refers to: deleted from the keystore once the record without them is stored. */
  #dropped: Session[] = [];
  #queue: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #off: (() => void) | undefined;
  /** The transport `send` uses: the latest one given (`setTransport`). */
  #transport: ChatTransport;
  /** The transport whose `subscribe` the conversation listens through. */
  #subscribedWith: ChatTransport | undefined;

  constructor(store: VeilStore<ChatState>, context: ChatContext) {
    this.#store = store;
    this.#c = context;
    this.#transport = context.transport;
    this.#key = `${context.identity.id}/${context.conversationId}`;
  }

  /** Runs `f` after everything queued before it; nothing runs once stopped. */
  #enqueue<T>(f: () => Promise<T>): Promise<T> {
    const p = this.#queue.then(() => {
      if (this.#stopped) throw new DOMException('the conversation was closed', 'AbortError');
      return f();
    });
    this.#queue = p.catch(() => {});
    return p;
  }

  #set(patch: Partial<ChatState>): void {
    if (!this.#stopped) this.#store.set(patch);
  }

  /** Publishes the session, binding and identity-change fields (plus `patch`). */
  #publish(patch: Partial<ChatState> = {}): void {
    this.#set({
      sessionId: this.#current?.session.id,
      verificationCode: this.#current === undefined ? undefined : this.#code,
      peerIdentity: this.#current?.peerIdentity,
      verified: this.#binding?.verified ?? false,
      identityChange: this.#change?.view,
      ...patch,
    });
  }

  /** Loads the stored conversation and listens to the transport. */
  start(): void {
    this.#store.set({ ...CHAT_IDLE, status: 'pending' });
    this.#listen();
    void this.#enqueue(() => this.#load()).catch((e: unknown) => this.#set({ status: 'error', error: hookError(e) }));
  }

  async #load(): Promise<void> {
    const record: ChatRecord | undefined = await this.#c.storage.load(this.#c.keystore.name, this.#key, { keystore: this.#c.keystore });
    this.#set({ messages: Object.freeze([...(record?.messages ?? [])]) });
    this.#binding = bindingOf(record?.peer);
    this.#confirmed = record?.confirmed !== false;
    let error: VeilError | undefined;
    if (record?.sessionId !== undefined) {
      try {
        const live = await this.#describe(await runtime.load(this.#c.keystore, record.sessionId));
        // A record from before the binding: bound to the peer of its session.
        this.#binding ??= { identityId: live.peerId, verified: false };
        if (live.peerId !== this.#binding.identityId) throw new VeilError('IDENTITY_MISMATCH', 'the stored session is with another identity than the conversation\'s peer');
        this.#current = live;
        this.#code = await verificationCodeOf(live.session);
      } catch (e) {
        // The stored session is gone (deleted, another keystore): a new handshake starts over, with the same peer.
        error = hookError(e);
      }
    }
    for (const id of idsOf(record?.archived).slice(0, CHAT_ARCHIVED_SESSIONS)) {
      try {
        const live = await this.#describe(await runtime.load(this.#c.keystore, id));
        if (live.peerId === this.#binding?.identityId) this.#archived.push(live);
      } catch {
        // Deleted meanwhile: nothing to try any more.
      }
    }
    const pending: unknown = record?.identityChange;
    if (this.#binding !== undefined && typeof pending === 'object' && pending !== null) {
      const p = pending as { sessionId?: unknown; held?: unknown };
      try {
        if (typeof p.sessionId !== 'string') throw new TypeError('no session');
        const live = await this.#describe(await runtime.load(this.#c.keystore, p.sessionId));
        if (live.peerId !== this.#binding.identityId) {
          const held = Array.isArray(p.held) ? (p.held as ChatMessage[]).slice(0, CHAT_HELD_MESSAGES).map((m) => Object.freeze({ ...m })) : [];
          await this.#setChange(live, held);
        }
      } catch {
        // The pending session is gone: nothing left to accept.
      }
    }
    this.#publish({ status: this.#current === undefined ? 'idle' : 'success', error });
  }

  /** Stops listening; queued work is dropped, the stored conversation stays. */
  stop(): void {
    this.#stopped = true;
    this.#off?.();
    this.#off = undefined;
    this.#subscribedWith = undefined;
  }

  /**
   * Follows a new transport object without restarting the conversation: `send` uses it from now on,
   * and the subscription moves to it only when its `subscribe` function differs (as
   * `useSyncExternalStore` does), so an inline `{ send, subscribe }` over stable functions keeps one
   * subscription.
   */
  setTransport(transport: ChatTransport): void {
    this.#transport = transport;
    if (!this.#stopped && this.#subscribedWith !== undefined && transport.subscribe !== this.#subscribedWith.subscribe) this.#listen();
  }

  #listen(): void {
    this.#off?.();
    const transport = this.#transport;
    this.#subscribedWith = transport;
    this.#off = transport.subscribe((bytes) => {
      void this.#enqueue(() => this.#receive(bytes)).catch(() => {});
    });
  }

  async #describe(session: Session): Promise<Live> {
    const info = await session.info();
    const [localId, peerId] = await Promise.all([runtime.sessionIdentityId(info.localIdentity), runtime.sessionIdentityId(info.peerIdentity)]);
    return { session, role: info.role, localId, peerId, peerIdentity: info.peerIdentity.slice() };
  }

  async #makeCurrent(live: Live, confirmed: boolean): Promise<void> {
    this.#current = live;
    this.#confirmed = confirmed;
    this.#code = await verificationCodeOf(live.session);
  }

  #archive(live: Live): void {
    this.#archived.unshift(live);
    for (const old of this.#archived.splice(CHAT_ARCHIVED_SESSIONS)) this.#dropped.push(old.session);
  }

  async #setChange(live: Live, held: readonly ChatMessage[]): Promise<void> {
    const verificationCode = this.#change?.live === live ? this.#change.view.verificationCode : await verificationCodeOf(live.session);
    const view: ChatIdentityChange = Object.freeze({
      newIdentity: live.peerIdentity, newIdentityId: live.peerId, verificationCode, wasVerified: this.#binding?.verified === true, held: held.length,
    });
    this.#change = { live, held: Object.freeze([...held]), view };
  }

  /** Stores the conversation, then deletes the sessions it dropped (only once no stored record names them). */
  async #persist(): Promise<void> {
    if (this.#stopped) return;
    const change = this.#change;
    const record: ChatRecord = {
      sessionId: this.#current?.session.id,
      messages: this.#store.getSnapshot().messages,
      peer: this.#binding,
      archived: this.#archived.map((l) => l.session.id),
      confirmed: this.#confirmed,
      identityChange: change === undefined ? undefined : { sessionId: change.live.session.id, held: change.held },
    };
    await this.#c.storage.save(this.#c.keystore.name, this.#key, record, { keystore: this.#c.keystore });
    const dropped = this.#dropped;
    this.#dropped = [];
    for (const s of dropped) {
      // Best effort: a session that cannot be deleted now only takes space in the keystore.
      await runtime.deleteSession(this.#c.keystore, s.id).catch(() => {});
      s.dispose();
    }
  }

  #append(add: readonly (ChatMessage | undefined)[]): void {
    const m = add.filter((x) => x !== undefined);
    if (m.length > 0) this.#set({ messages: Object.freeze([...this.#store.getSnapshot().messages, ...m]) });
  }

  /** Encrypts and sends `text` (initiating the session first if there is none); rejects (and sets `error`) on failure. */
  send(text: string): Promise<void> {
    if (typeof text !== 'string') return Promise.reject(new TypeError('text must be a string'));
    return this.#enqueue(async () => {
      const plaintext = new TextEncoder().encode(text);
      let out: Uint8Array;
      try {
        if (this.#current === undefined) {
          const peer = this.#c.peer();
          if (peer?.bundle === undefined) throw new VeilError('INVALID_STATE', 'no session yet: pass the peer\'s prekey bundle (useChat(id, transport, { bundle })) or wait for its first message');
          this.#set({ status: 'pending' });
          const { session, initialMessage } = await runtime.initiate(this.#c.keystore, this.#c.identity, peer.bundle, {
            plaintext, ...(peer.pinned === undefined ? {} : { pinned: peer.pinned }),
          });
          const live = await this.#describe(session);
          if (this.#binding !== undefined && live.peerId !== this.#binding.identityId) {
            // Nothing was sent: the new session goes (a bound conversation initiates only to its peer).
            await runtime.deleteSession(this.#c.keystore, session.id).catch(() => {});
            session.dispose();
            throw new VeilError('IDENTITY_MISMATCH', 'peer.bundle belongs to another identity than the peer this conversation is bound to');
          }
          this.#binding ??= { identityId: live.peerId, verified: false };
          await this.#makeCurrent(live, false);
          this.#publish({ status: 'success' });
          out = frame(CHAT_FRAME.initial, initialMessage);
        } else {
          out = frame(CHAT_FRAME.message, await this.#current.session.encrypt(plaintext));
        }
        this.#append([chatMessage('me', text)]);
        await this.#persist();
        try {
          await this.#transport.send(out);
        } catch (e) {
          throw new VeilError('TRANSPORT_FAILED', `the transport did not send the frame: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
        }
        // A successful send clears the last failure.
        this.#set({ error: undefined });
      } catch (e) {
        const error = hookError(e);
        this.#set(this.#current === undefined ? { status: 'error', error } : { error });
        throw error;
      }
    });
  }

  /** Marks the bound peer verified (the user compared the verification code); stored with the conversation. */
  markVerified(): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#binding === undefined) throw new TypeError('no peer to verify yet: the conversation has no session');
      this.#binding = { identityId: this.#binding.identityId, verified: true };
      this.#publish();
      await this.#persist();
    });
  }

  /**
   * Accepts the pending identity change: its session becomes the conversation's, bound to the new
   * identity (unverified); its held messages are appended; the sessions with the old identity are deleted.
   */
  acceptIdentityChange(): Promise<void> {
    return this.#enqueue(async () => {
      const change = this.#change;
      if (change === undefined) throw new TypeError('no identity change to accept');
      for (const old of [...(this.#current === undefined ? [] : [this.#current]), ...this.#archived]) this.#dropped.push(old.session);
      this.#archived = [];
      this.#change = undefined;
      this.#binding = { identityId: change.live.peerId, verified: false };
      this.#current = change.live;
      this.#confirmed = true;
      this.#code = change.view.verificationCode;
      this.#append(change.held);
      this.#publish({ status: 'success' });
      await this.#persist();
    });
  }

  /** Rejects the pending identity change: its session is deleted and its held messages dropped. */
  rejectIdentityChange(): Promise<void> {
    return this.#enqueue(async () => {
      const change = this.#change;
      if (change === undefined) throw new TypeError('no identity change to reject');
      this.#dropped.push(change.live.session);
      this.#change = undefined;
      this.#publish();
      await this.#persist();
    });
  }

  async #receive(bytes: Uint8Array): Promise<void> {
    try {
      if (!(bytes instanceof Uint8Array) || bytes.length < 2) throw new VeilError('MALFORMED_INPUT', 'not a chat frame');
      const kind = bytes[0];
      const body = bytes.slice(1);
      if (kind === CHAT_FRAME.initial) await this.#receiveInitial(body);
      else if (kind === CHAT_FRAME.message) await this.#receiveMessage(body);
      else throw new VeilError('MALFORMED_INPUT', `unknown chat frame kind ${String(kind)}`);
      // A frame read clears the last failure (`rejected` keeps the count).
      this.#set({ error: undefined });
    } catch (e) {
      if (this.#stopped || this.#redelivered(bytes, e)) return;
      this.#set({ error: hookError(e), rejected: this.#store.getSnapshot().rejected + 1 });
    }
  }

  async #receiveInitial(body: Uint8Array): Promise<void> {
    const pinned = this.#c.peer()?.pinned;
    const r = await runtime.respond(this.#c.keystore, this.#c.identity, body, pinned === undefined ? {} : { pinned });
    const live = await this.#describe(r.session);
    const text = peerText(r.plaintext);
    const binding = this.#binding;
    if (binding === undefined || live.peerId === binding.identityId) {
      // First contact (trust on first use), or the bound peer again: a re-initiation or crossing initiations.
      this.#binding = binding ?? { identityId: live.peerId, verified: false };
      const current = this.#current;
      if (current !== undefined && current.role === 'initiator' && !this.#confirmed && current.localId < current.peerId) {
        // Both sides initiated, and the session we initiated wins (our identity id is the lower one):
        // the peer adopts it when our initial frame reaches it; its session stays to read what it sent
        // on it. A crossing is resolved once: the peer's next initial frame is a re-initiation.
        this.#archive(live);
        this.#confirmed = true;
      } else {
        if (current !== undefined) this.#archive(current);
        await this.#makeCurrent(live, true);
      }
      this.#append([text]);
      this.#publish({ status: 'success' });
      await this.#persist();
      return;
    }
    // Another identity: never swapped in; held for the app.
    const change = this.#change;
    if (change !== undefined && change.live.peerId !== live.peerId) {
      await runtime.deleteSession(this.#c.keystore, live.session.id).catch(() => {});
      live.session.dispose();
      throw new VeilError('IDENTITY_MISMATCH', 'an initial frame from a third identity while an identity change is pending');
    }
    // The pending identity initiating again: its newer session replaces the pending one.
    if (change !== undefined) this.#dropped.push(change.live.session);
    const held = [...(change?.held ?? []), ...(text === undefined ? [] : [text])].slice(-CHAT_HELD_MESSAGES);
    await this.#setChange(live, held);
    this.#publish();
    await this.#persist();
  }

  /**
   * A message: tried on the current session, then the archived ones (newest first), then the
   * pending identity change's (held, not shown). The first that decrypts it wins; none changes which
   * session `send` uses. `DUPLICATE_MESSAGE` from any of them ends the search (a redelivery).
   */
  async #receiveMessage(body: Uint8Array): Promise<void> {
    const tries = [...(this.#current === undefined ? [] : [this.#current]), ...this.#archived];
    const change = this.#change !== undefined && this.#change.held.length < CHAT_HELD_MESSAGES ? this.#change : undefined;
    if (tries.length === 0 && change === undefined) throw new VeilError('INVALID_STATE', 'a chat message before any session');
    let failure: unknown;
    for (const live of tries) {
      let plaintext: Uint8Array;
      try {
        plaintext = (await live.session.decrypt(body)).plaintext;
      } catch (e) {
        if (codeOf(e) === 'DUPLICATE_MESSAGE') throw e;
        failure ??= e;
        continue;
      }
      if (live === this.#current) this.#confirmed = true;
      this.#append([peerText(plaintext)]);
      await this.#persist();
      return;
    }
    if (change !== undefined) {
      let plaintext: Uint8Array;
      try {
        plaintext = (await change.live.session.decrypt(body)).plaintext;
      } catch (e) {
        if (codeOf(e) === 'DUPLICATE_MESSAGE') throw e;
        throw failure ?? e;
      }
      const text = peerText(plaintext);
      if (text !== undefined) await this.#setChange(change.live, [...change.held, text]);
      this.#publish();
      await this.#persist();
      return;
    }
    throw failure;
  }

  /**
   * A frame delivered again (a relay redelivering after a reconnect or reload): a message a session
   * already decrypted (`DUPLICATE_MESSAGE`), or an initial message answered before while the
   * conversation has a peer (`REPLAY_DETECTED`, `PREKEY_NOT_FOUND`). Nothing is shown for it; the session refused it as usual.
   */
  #redelivered(bytes: Uint8Array, e: unknown): boolean {
    const code = codeOf(e);
    if (bytes[0] === CHAT_FRAME.message) return code === 'DUPLICATE_MESSAGE';
    return bytes[0] === CHAT_FRAME.initial && this.#binding !== undefined && (code === 'REPLAY_DETECTED' || code === 'PREKEY_NOT_FOUND');
  }
}

/**
 * A {@link ChatTransport} over a `BroadcastChannel` (tabs and panes of one origin — demos and tests,
 * not a network): frames are posted as `{ from: self, to: peer, bytes }` and only those addressed
 * `from: peer, to: self` are delivered. Opens the channel on `subscribe` / the first `send`, never at creation.
 */
export function broadcastChannelTransport(channelName: string, self: string, peer: string): ChatTransport {
  if (typeof channelName !== 'string' || typeof self !== 'string' || typeof peer !== 'string') {
    throw new TypeError('channelName, self and peer must be strings');
  }
  let sender: BroadcastChannel | undefined;
  return {
    send(bytes: Uint8Array): void {
      if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
      sender ??= new BroadcastChannel(channelName);
      sender.postMessage({ from: self, to: peer, bytes: bytes.slice() });
    },
    subscribe(onBytes: (bytes: Uint8Array) => void): () => void {
      const channel = new BroadcastChannel(channelName);
      channel.onmessage = (e: MessageEvent) => {
        const d = e.data as { from?: unknown; to?: unknown; bytes?: unknown } | null;
        if (d?.from === peer && d.to === self && d.bytes instanceof Uint8Array) onBytes(d.bytes);
      };
      return () => {
        channel.close();
      };
    },
  };
}
