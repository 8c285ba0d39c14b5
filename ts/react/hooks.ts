/**
 * `<VeilProvider>` and the hooks: thin `useSyncExternalStore` readers over the framework-free
 * stores and controllers of this directory. Written with `createElement` (no JSX), so the repo's
 * tsc compiles it like the rest of ts/. Nothing here runs during import or server rendering
 * beyond creating plain objects: resources are taken in effects, which servers never run.
 */
import {
  createContext, createElement, useCallback, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore,
  type ReactElement, type ReactNode,
} from 'react';
import { VeilClient, type IdentityState, type VeilState } from './client.js';
import { configKey, type VeilConfig } from './resources.js';
import { createVeilStore, type VeilStatus, type VeilStore } from './store.js';
import { FileTask, type FileTaskState } from './file-task.js';
import { ChatConversation, CHAT_IDLE, type ChatPeer, type ChatState, type ChatTransport } from './chat.js';
import { defaultChatStorage, type ChatStorage } from './chat-storage.js';
import { verificationCodeOf, type ChatVerificationCode } from './verification.js';
import { runtime } from './runtime.js';
import type { VeilDelivery } from './groups.js';
import { hookError } from './errors.js';
import type { VeilError } from '../../protocol/errors.js';
import type { InitOptions } from '../init.js';
import type { PoolOptions } from '../pool.js';
import type {
  CreatePrekeyBundleOptions, CurrentPassphraseOptions, ExportBackupOptions, ImportBackupOptions, IdentityHandle, KeystoreOptions, PrekeyBundles, RestoreOptions,
} from '../keystore.js';
import type { InitiateOptions, RespondOptions, Session } from '../session.js';
import type { DecryptFileOptions, EncryptFileOptions, FileInput, FileUnlock, SignatureInfo } from '../files.js';

/** The provider's shared pool: `workers` is the pool size (default `navigator.hardwareConcurrency`). */
export type VeilPoolOptions = Omit<PoolOptions, 'size'> & { workers?: number };

/** Props of `<VeilProvider>`: the keystore (`keystore` or `keystoreOptions`), the shared pool, `init()` options and chat storage. */
export interface VeilProviderProps {
  /** Keystore name (`KeystoreOptions.name`); no keystore is opened without it (or `keystoreOptions`). */
  keystore?: string;
  /** Full keystore options instead of `keystore` (its own private pool; `pool` is not shared with it). */
  keystoreOptions?: Omit<KeystoreOptions, 'pool'>;
  /** Options of the one worker pool the file hooks share. */
  pool?: VeilPoolOptions;
  /** `init()` options of this page (e.g. `wasm` location); read by the first provider that starts. */
  init?: InitOptions;
  /** The delivery service of `useGroups` / `useGroupChat` (e.g. `httpDelivery('/api/ds')`); read once, on the first render. */
  delivery?: VeilDelivery;
  /** Where `useChat` keeps conversations (default: the keystore's encrypted history, `keystoreChatStorage()`, see docs/REACT.md); read once, on the first render. */
  chatStorage?: ChatStorage;
  children?: ReactNode;
}

const VeilContext = createContext<VeilClient | null>(null);

/** The locations a keystore's private pool takes from `pool`, so that one `workerUrl` serves both. */
function locationOf(pool: VeilPoolOptions): PoolOptions {
  const o: PoolOptions = {};
  if (pool.workerUrl !== undefined) o.workerUrl = pool.workerUrl;
  if (pool.wasmUrl !== undefined) o.wasmUrl = pool.wasmUrl;
  if (pool.createWorker !== undefined) o.createWorker = pool.createWorker;
  if (pool.startTimeoutMs !== undefined) o.startTimeoutMs = pool.startTimeoutMs;
  if (pool.threads !== undefined) o.threads = pool.threads;
  return o;
}

function configOf(props: VeilProviderProps): VeilConfig {
  const { workers, ...rest } = props.pool ?? {};
  const pool: PoolOptions = workers === undefined ? rest : { ...rest, size: workers };
  const location = locationOf(props.pool ?? {});
  let keystore: KeystoreOptions | undefined;
  if (props.keystoreOptions !== undefined) keystore = { poolOptions: location, ...props.keystoreOptions };
  else if (props.keystore !== undefined) keystore = { name: props.keystore, poolOptions: location };
  return { keystore, pool, init: props.init ?? {} };
}

/**
 * Gives its subtree one worker pool, the keystore (when named) and the page's `init()`: created in
 * an effect (never during render or on the server), shared and ref-counted with every provider of
 * the same configuration, disposed (workers terminated) after the last one unmounts.
 */
export function VeilProvider(props: VeilProviderProps): ReactElement {
  const [client] = useState(() => new VeilClient(props.chatStorage ?? defaultChatStorage(), props.delivery));
  const config = configOf(props);
  const key = configKey(config);
  const latest = useRef(config);
  latest.current = config;
  useEffect(() => {
    client.attach(latest.current);
    return () => {
      client.detach();
    };
  }, [client, key]);
  return createElement(VeilContext.Provider, { value: client }, props.children);
}

/** @internal The provider's client (a `TypeError` outside `<VeilProvider>`); the group hooks use it too. */
export function useClient(hook: string): VeilClient {
  const client = useContext(VeilContext);
  if (client === null) throw new TypeError(`${hook}() must be called inside <VeilProvider>`);
  return client;
}

function useStore<T extends object>(store: VeilStore<T>): Readonly<T> {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
}

/** The provider's state: `status` of starting (init, pool, keystore), `capabilities()`, the `keystore` and `pool`. */
export function useVeil(): VeilState {
  return useStore(useClient('useVeil').veil);
}

/** `useIdentity()`: the current identity's state and the keystore actions on it. */
export interface UseIdentityResult extends IdentityState {
  /** A new identity (default `label: ''`, `mlDsa: true`: sessions need ML-DSA-65), made current. */
  create(options?: { label?: string; mlDsa?: boolean }): Promise<IdentityHandle>;
  /** Restores an identity from its phrase (default `mlDsa: true`, as `create`), made current. */
  restoreFromPhrase(phrase: string, options?: RestoreOptions): Promise<IdentityHandle>;
  /** The current identity's 24-word phrase: show it once, never store it. */
  exportRecoveryPhrase(): Promise<string>;
  lock(): Promise<void>;
  unlock(passphrase: string): Promise<void>;
  /** `options.currentPassphrase`: required by an isolated-origin keystore (docs/KEYSTORE.md#isolated-origin-mode). */
  setPassphrase(passphrase: string | null, options?: CurrentPassphraseOptions): Promise<void>;
  /** Every identity, encrypted under `passphrase`; `options.includeHistory: true` adds the message history (useChat's stored conversations; docs/KEYSTORE.md#backup). */
  exportBackup(passphrase: string, options?: ExportBackupOptions): Promise<Uint8Array>;
  /** Adds a backup's identities and restores the history it carries (`options.includeHistory: false`: identities only). */
  importBackup(backup: Uint8Array, passphrase: string, options?: ImportBackupOptions): Promise<void>;
  /** Prekey bundles of the current identity: publish `bundle` (or one-time ones) for peers' `useChat`. */
  createPrekeyBundle(options?: CreatePrekeyBundleOptions): Promise<PrekeyBundles>;
  /** Makes the identity with this id current. */
  select(id: string): void;
  /** Deletes the current identity (and its keys) from the keystore (`options.currentPassphrase`: as `setPassphrase`). */
  remove(options?: CurrentPassphraseOptions): Promise<void>;
}

/** The current identity of the provider's keystore as state (`identity`, `bundle`, `shareableBundle`, `locked`, `identities`) with its actions: create, restore, lock, backup, prekey bundles, select, remove. */
export function useIdentity(): UseIdentityResult {
  const client = useClient('useIdentity');
  const state = useStore(client.identity);
  const actions = useMemo(() => ({
    create: (o?: { label?: string; mlDsa?: boolean }) => client.create(o),
    restoreFromPhrase: (phrase: string, o?: RestoreOptions) => client.restoreFromPhrase(phrase, o),
    exportRecoveryPhrase: () => client.exportRecoveryPhrase(),
    lock: () => client.lock(),
    unlock: (p: string) => client.unlock(p),
    setPassphrase: (p: string | null, o?: CurrentPassphraseOptions) => client.setPassphrase(p, o),
    exportBackup: (p: string, o?: ExportBackupOptions) => client.exportBackup(p, o),
    importBackup: (b: Uint8Array, p: string, o?: ImportBackupOptions) => client.importBackup(b, p, o),
    createPrekeyBundle: (o?: CreatePrekeyBundleOptions) => client.createPrekeyBundle(o),
    select: (id: string) => {
      client.select(id);
    },
    remove: (o?: CurrentPassphraseOptions) => client.remove(o),
  }), [client]);
  return useMemo(() => ({ ...state, ...actions }), [state, actions]);
}

/** What the file hooks return. */
export interface UseFileResult<A extends unknown[], R> extends FileTaskState<R> {
  /** Starts a job (aborting the previous one); resolves to its result, or `undefined` when it failed, was cancelled or superseded. Never rejects. */
  run(...args: A): Promise<R | undefined>;
  /** Aborts the running job: `status: 'error'`, `error`: an `AbortError`. */
  cancel(): void;
  /** Aborts any running job and returns to `idle`. */
  reset(): void;
}

/** Encryption options of the hook: the job's `signal` is merged with the hook's own; `pool` defaults to the provider's. */
export type EncryptOptions = EncryptFileOptions;
/** Decryption options of the hook: verified mode only (the result is a `Blob`). */
export type DecryptOptions = Omit<DecryptFileOptions, 'releaseMode'>;
/** The result of `useDecryptFile`: the plaintext `Blob` and who signed it. */
export type DecryptResult = Blob & { readonly signature: SignatureInfo };

function useFileTask<R>(): FileTask<R> {
  const client = useContext(VeilContext);
  const [task] = useState(() => new FileTask<R>(async () => (client === null ? undefined : (await client.ready()).pool)));
  useEffect(() => () => {
    task.dispose();
  }, [task]);
  return task;
}

function useFileResult<A extends unknown[], R>(task: FileTask<R>, run: (...args: A) => Promise<R | undefined>): UseFileResult<A, R> {
  const state = useStore(task.store);
  const cancel = useCallback(() => {
    task.cancel();
  }, [task]);
  const reset = useCallback(() => {
    task.reset();
  }, [task]);
  return useMemo(() => ({ ...state, run, cancel, reset }), [state, run, cancel, reset]);
}

/** `encryptFile` on the provider's pool, as state: `run(file, options)`; the result is the container `Blob`. Unmount aborts. */
export function useEncryptFile(): UseFileResult<[file: FileInput, options: EncryptOptions], Blob> {
  const task = useFileTask<Blob>();
  const run = useCallback((file: FileInput, options: EncryptOptions) =>
    task.run(({ signal, pool }) => runtime.encryptFile(file, { ...options, signal, ...(pool === undefined ? {} : { pool }) }), options), [task]);
  return useFileResult(task, run);
}

/** `decryptFile` (verified) on the provider's pool, as state: `run(file, unlock, options?)`. Unmount aborts. */
export function useDecryptFile(): UseFileResult<[file: FileInput, unlock: FileUnlock, options?: DecryptOptions], DecryptResult> {
  const task = useFileTask<DecryptResult>();
  const run = useCallback((file: FileInput, unlock: FileUnlock, options: DecryptOptions = {}) =>
    task.run(({ signal, pool }) => runtime.decryptFile(file, unlock, {
      ...options, releaseMode: 'verified', signal, ...(pool === undefined ? {} : { pool }),
    }), options), [task]);
  return useFileResult(task, run);
}

/** `useSession()`'s state. */
export interface SessionState {
  readonly status: VeilStatus;
  /** The last failure (load, initiate, respond); cleared by the next success. */
  readonly error: VeilError | undefined;
  readonly session: Session | undefined;
  readonly verificationCode: ChatVerificationCode | undefined;
}

/** What `useSession` returns: its state and `initiate` / `respond`. */
export interface UseSessionResult extends SessionState {
  /** `Session.initiate` as the current identity; the result becomes this hook's session. Send `initialMessage` yourself. */
  initiate(peerBundle: Uint8Array, options?: InitiateOptions): Promise<{ session: Session; initialMessage: Uint8Array }>;
  /** `Session.respond` as the current identity; the result becomes this hook's session. */
  respond(initialMessage: Uint8Array, options?: RespondOptions): Promise<{ session: Session; plaintext: Uint8Array; peer: { identity: Uint8Array; deviceId: number } }>;
}

const SESSION_IDLE: SessionState = { status: 'idle', error: undefined, session: undefined, verificationCode: undefined };

/**
 * A session of the current identity: `{ sessionId }` loads a stored one (`Session.load`); otherwise
 * `initiate` / `respond` make one. Low-level: `useChat` does all of this for a conversation.
 */
export function useSession(peer?: { sessionId: string }): UseSessionResult {
  const client = useClient('useSession');
  const [store] = useState(() => createVeilStore<SessionState>(SESSION_IDLE));
  const generation = useRef(0);
  const id = peer?.sessionId;
  const { keystore } = useStore(client.veil);
  const adopt = useCallback(async (session: Session, g: number) => {
    if (g !== generation.current) return;
    store.set({ status: 'success', session, error: undefined, verificationCode: undefined });
    const verificationCode = await verificationCodeOf(session);
    if (g === generation.current && store.getSnapshot().session === session) store.set({ verificationCode });
  }, [store]);
  useEffect(() => {
    const g = ++generation.current;
    store.reset();
    if (id === undefined || keystore === undefined) return;
    store.set({ status: 'pending' });
    runtime.load(keystore, id).then((s) => adopt(s, g)).catch((e: unknown) => {
      if (g === generation.current) store.set({ status: 'error', error: hookError(e) });
    });
    return () => {
      generation.current++;
    };
  }, [id, keystore, store, adopt]);
  const identity = useCallback((): IdentityHandle => {
    const i = client.identity.getSnapshot().identity;
    if (i === undefined) throw new TypeError('no identity yet: create one with useIdentity().create()');
    return i;
  }, [client]);
  const act = useCallback(async <T extends { session: Session }>(f: () => Promise<T>): Promise<T> => {
    const g = ++generation.current;
    store.set({ status: 'pending', error: undefined });
    try {
      const r = await f();
      await adopt(r.session, g);
      return r;
    } catch (e) {
      if (g === generation.current) store.set({ status: 'error', error: hookError(e) });
      throw e;
    }
  }, [store, adopt]);
  const initiate = useCallback(async (bundle: Uint8Array, o?: InitiateOptions) => {
    const ks = await client.keystore();
    return act(() => runtime.initiate(ks, identity(), bundle, o));
  }, [client, act, identity]);
  const respond = useCallback(async (message: Uint8Array, o?: RespondOptions) => {
    const ks = await client.keystore();
    return act(() => runtime.respond(ks, identity(), message, o));
  }, [client, act, identity]);
  const state = useStore(store);
  return useMemo(() => ({ ...state, initiate, respond }), [state, initiate, respond]);
}

/** What `useChat` returns. */
export interface UseChatResult extends ChatState {
  /** Encrypts and sends one message (initiating the session first if needed); rejects, and sets `error`, if it could not. */
  send(text: string): Promise<void>;
  /** The user compared the verification code with the peer: `verified` becomes true and is stored with the conversation. */
  markVerified(): Promise<void>;
  /** Makes the pending `identityChange` the conversation's peer (unverified), shows its held messages and deletes the old identity's sessions. */
  acceptIdentityChange(): Promise<void>;
  /** Drops the pending `identityChange`: its session is deleted, its held messages discarded. */
  rejectIdentityChange(): Promise<void>;
}

/** Throws a `TypeError` during render for a transport without `send` and `subscribe` functions. */
function checkTransport(transport: ChatTransport): void {
  const t = transport as Partial<ChatTransport> | null | undefined;
  if (typeof t !== 'object' || t === null || typeof t.send !== 'function' || typeof t.subscribe !== 'function') {
    throw new TypeError('useChat: transport must be an object with send(bytes) and subscribe(onBytes) functions');
  }
}

/**
 * An end-to-end encrypted conversation of the current identity over `transport`. The transport may be
 * a new object on every render: `send` uses the latest one, and the conversation re-subscribes only
 * when `transport.subscribe` is another function (memoize it when subscribing is costly, e.g. opens a
 * connection). `peer.bundle` (the peer's prekey bundle) lets the
 * first `send` initiate; without it the conversation waits for the peer's first frame. The history,
 * the sessions and the peer binding persist in the provider's `chatStorage` under `conversationId`.
 * The conversation is bound to the first peer identity it has a session with: another identity's
 * initial frame becomes `identityChange` (see docs/REACT.md#peer-identity), never the conversation.
 */
export function useChat(conversationId: string, transport: ChatTransport, peer?: ChatPeer): UseChatResult {
  const client = useClient('useChat');
  const { keystore } = useStore(client.veil);
  const identityState = useStore(client.identity);
  const identity = identityState.identity;
  const identityId = identity?.id;
  const [store] = useState(() => createVeilStore<ChatState>(CHAT_IDLE));
  checkTransport(transport);
  const peerRef = useRef(peer);
  const identityRef = useRef(identity);
  const transportRef = useRef(transport);
  const conversation = useRef<ChatConversation | undefined>(undefined);
  useEffect(() => {
    peerRef.current = peer;
    identityRef.current = identity;
    // The transport is not part of the conversation's identity: a new object (an inline
    // `{ send, subscribe }`) is followed, never a restart (which never settled: issue 28).
    transportRef.current = transport;
    conversation.current?.setTransport(transport);
  });
  const storage = client.chatStorage;
  useEffect(() => {
    const me = identityRef.current;
    if (keystore === undefined || me === undefined || me.id !== identityId || storage === undefined) {
      store.reset();
      return;
    }
    const c = new ChatConversation(store, {
      keystore, identity: me, conversationId, transport: transportRef.current, storage, peer: () => peerRef.current,
    });
    conversation.current = c;
    c.start();
    return () => {
      c.stop();
      if (conversation.current === c) conversation.current = undefined;
    };
  }, [keystore, identityId, conversationId, storage, store]);
  const actions = useMemo(() => {
    const on = <A extends unknown[]>(f: (c: ChatConversation, ...a: A) => Promise<void>) => (...a: A): Promise<void> => {
      const c = conversation.current;
      if (c === undefined) return Promise.reject(new TypeError('useChat is not ready: no keystore or identity yet'));
      return f(c, ...a);
    };
    return {
      send: on((c, text: string) => c.send(text)),
      markVerified: on((c) => c.markVerified()),
      acceptIdentityChange: on((c) => c.acceptIdentityChange()),
      rejectIdentityChange: on((c) => c.rejectIdentityChange()),
    };
  }, []);
  const state = useStore(store);
  return useMemo(() => ({ ...state, ...actions }), [state, actions]);
}
