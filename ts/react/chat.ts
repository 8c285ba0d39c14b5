/**
 * One conversation of `useChat`, framework-free: a session from the keystore (stored id →
 * `Session.load`; else the first `send` initiates from the peer's prekey bundle, or the peer's
 * first frame is answered with `Session.respond`), chat frames over an app-provided transport, and
 * the history in a {@link ChatStorage}. Everything a conversation does runs in one queue, in order.
 *
 * Chat frame (the transport's payload): 1 byte kind ‖ body — kind 1: `Session.initiate`'s
 * `initialMessage`; kind 2: a `session.encrypt` message. The plaintext is the UTF-8 text.
 */
import { runtime } from './runtime.js';
import { verificationCodeOf, type ChatVerificationCode } from './verification.js';
import type { VeilStatus, VeilStore } from './store.js';
import type { ChatMessage, ChatRecord, ChatStorage } from './chat-storage.js';
import type { IdentityHandle, Keystore } from '../keystore.js';
import type { Session } from '../session.js';

/** How chat frames travel: the app's channel to the peer (a WebSocket, a server relay, a BroadcastChannel…). */
export interface ChatTransport {
  /** Sends one frame to the peer. */
  send(bytes: Uint8Array): void | Promise<void>;
  /** Calls `onBytes` with every frame from the peer; returns the function that stops it. */
  subscribe(onBytes: (bytes: Uint8Array) => void): () => void;
}

/** Frame kinds (first byte). */
export const CHAT_FRAME = Object.freeze({ initial: 1, message: 2 } as const);

export interface ChatPeer {
  /** The peer's prekey bundle (`createPrekeyBundle(…).bundle` or a one-time one): needed to initiate. */
  readonly bundle?: Uint8Array;
  /** The peer's `Enc(ID)` as verified out of band: handshakes with anyone else fail (`IDENTITY_MISMATCH`). */
  readonly pinned?: Uint8Array;
}

export interface ChatState {
  /** `idle`: no session yet; `pending`: loading or handshaking; `success`: session established; `error`: loading or establishing failed. */
  readonly status: VeilStatus;
  readonly messages: readonly ChatMessage[];
  readonly verificationCode: ChatVerificationCode | undefined;
  /** The last failure (a rejected incoming frame, a failed send, …); messages are kept. */
  readonly error: unknown;
  /** Incoming frames that failed (tampered, wrong session, unknown kind, before any session); redeliveries of frames already read are not counted. */
  readonly rejected: number;
  /** The keystore session of the conversation. */
  readonly sessionId: string | undefined;
}

export const CHAT_IDLE: ChatState = { status: 'idle', messages: [], verificationCode: undefined, error: undefined, rejected: 0, sessionId: undefined };

export interface ChatContext {
  readonly keystore: Keystore;
  readonly identity: IdentityHandle;
  readonly conversationId: string;
  readonly transport: ChatTransport;
  readonly storage: ChatStorage;
  readonly peer: () => ChatPeer | undefined;
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

export class ChatConversation {
  readonly #store: VeilStore<ChatState>;
  readonly #c: ChatContext;
  readonly #key: string;
  #session: Session | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #off: (() => void) | undefined;

  constructor(store: VeilStore<ChatState>, context: ChatContext) {
    this.#store = store;
    this.#c = context;
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

  /** Loads the stored conversation and listens to the transport. */
  start(): void {
    this.#store.set({ ...CHAT_IDLE, status: 'pending' });
    this.#off = this.#c.transport.subscribe((bytes) => {
      void this.#enqueue(() => this.#receive(bytes)).catch(() => {});
    });
    void this.#enqueue(async () => {
      const record = await this.#c.storage.load(this.#c.keystore.name, this.#key);
      this.#set({ messages: Object.freeze([...(record?.messages ?? [])]) });
      if (record?.sessionId === undefined) {
        this.#set({ status: 'idle' });
        return;
      }
      try {
        await this.#adopt(await runtime.load(this.#c.keystore, record.sessionId));
      } catch (e) {
        // The stored session is gone (deleted, another keystore): a new handshake starts over.
        this.#set({ status: 'idle', error: e, sessionId: undefined });
      }
    }).catch((e: unknown) => this.#set({ status: 'error', error: e }));
  }

  /** Stops listening; queued work is dropped, the stored conversation stays. */
  stop(): void {
    this.#stopped = true;
    this.#off?.();
    this.#off = undefined;
  }

  async #adopt(session: Session): Promise<void> {
    this.#session = session;
    this.#set({ status: 'success', sessionId: session.id });
    const code = await verificationCodeOf(session);
    if (this.#session === session) this.#set({ verificationCode: code });
  }

  async #persist(): Promise<void> {
    if (this.#stopped) return;
    const s = this.#store.getSnapshot();
    const record: ChatRecord = { sessionId: s.sessionId, messages: s.messages };
    await this.#c.storage.save(this.#c.keystore.name, this.#key, record);
  }

  #append(from: ChatMessage['from'], text: string): void {
    const m: ChatMessage = Object.freeze({ id: messageId(), from, text, at: Date.now() });
    this.#set({ messages: Object.freeze([...this.#store.getSnapshot().messages, m]) });
  }

  /** Encrypts and sends `text` (initiating the session first if there is none); rejects (and sets `error`) on failure. */
  send(text: string): Promise<void> {
    if (typeof text !== 'string') return Promise.reject(new TypeError('text must be a string'));
    return this.#enqueue(async () => {
      const plaintext = new TextEncoder().encode(text);
      let out: Uint8Array;
      try {
        if (this.#session === undefined) {
          const peer = this.#c.peer();
          if (peer?.bundle === undefined) throw new TypeError('no session yet: pass the peer\'s prekey bundle (useChat(id, transport, { bundle })) or wait for its first message');
          this.#set({ status: 'pending' });
          const { session, initialMessage } = await runtime.initiate(this.#c.keystore, this.#c.identity, peer.bundle, {
            plaintext, ...(peer.pinned === undefined ? {} : { pinned: peer.pinned }),
          });
          out = frame(CHAT_FRAME.initial, initialMessage);
          await this.#adopt(session);
        } else {
          out = frame(CHAT_FRAME.message, await this.#session.encrypt(plaintext));
        }
        this.#append('me', text);
        await this.#persist();
        await this.#c.transport.send(out);
      } catch (e) {
        this.#set(this.#session === undefined ? { status: 'error', error: e } : { error: e });
        throw e;
      }
    });
  }

  async #receive(bytes: Uint8Array): Promise<void> {
    try {
      if (!(bytes instanceof Uint8Array) || bytes.length < 2) throw new TypeError('not a chat frame');
      const kind = bytes[0];
      const body = bytes.slice(1);
      let plaintext: Uint8Array;
      if (kind === CHAT_FRAME.initial) {
        const pinned = this.#c.peer()?.pinned;
        const r = await runtime.respond(this.#c.keystore, this.#c.identity, body, pinned === undefined ? {} : { pinned });
        plaintext = r.plaintext;
        await this.#adopt(r.session);
      } else if (kind === CHAT_FRAME.message) {
        if (this.#session === undefined) throw new TypeError('a chat message before any session');
        plaintext = (await this.#session.decrypt(body)).plaintext;
      } else {
        throw new TypeError(`unknown chat frame kind ${String(kind)}`);
      }
      if (plaintext.length > 0) this.#append('peer', new TextDecoder('utf-8', { fatal: false }).decode(plaintext));
      await this.#persist();
    } catch (e) {
      if (this.#stopped || this.#redelivered(bytes, e)) return;
      this.#set({ error: e, rejected: this.#store.getSnapshot().rejected + 1 });
    }
  }

  /**
   * A frame delivered again (a relay redelivering after a reconnect or reload): a message the session
   * already decrypted (`DUPLICATE_MESSAGE`), or an initial message answered before while a session
   * exists (`REPLAY_DETECTED`, `PREKEY_NOT_FOUND`). Nothing is shown for it; the session refused it as usual.
   */
  #redelivered(bytes: Uint8Array, e: unknown): boolean {
    const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
    if (bytes[0] === CHAT_FRAME.message) return code === 'DUPLICATE_MESSAGE';
    return bytes[0] === CHAT_FRAME.initial && this.#session !== undefined && (code === 'REPLAY_DETECTED' || code === 'PREKEY_NOT_FOUND');
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
