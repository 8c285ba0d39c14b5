// The app's server state: public prekey bundles and ciphertext frames, nothing else. In memory
// (one instance per server process, kept on globalThis because Next bundles each route handler
// separately), mirrored to a JSON file when VEILKIT_NEXT_STORE names one — the tests read that
// file to check that the server never saw a plaintext or a private key.
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { EventEmitter } from 'node:events';

/** One user's published prekeys (base64): the reusable bundle and the one-time bundles not yet handed out. */
export interface StoredBundles {
  bundle: string;
  oneTime: string[];
}

/** One relayed chat frame: `body` is the base64 of the ciphertext frame exactly as the sender posted it. */
export interface StoredMessage {
  seq: number;
  from: string;
  to: string;
  body: string;
  at: number;
}

export interface StoreData {
  bundles: Record<string, StoredBundles>;
  messages: StoredMessage[];
  nextSeq: number;
}

interface Store {
  data: StoreData;
  events: EventEmitter;
}

const KEY = Symbol.for('veilkit-example-next.store');
const holder = globalThis as typeof globalThis & { [KEY]?: Store };

function load(): StoreData {
  const file = process.env.VEILKIT_NEXT_STORE;
  if (file) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as StoreData;
    } catch {
      // No file yet (or not ours): start empty.
    }
  }
  return { bundles: {}, messages: [], nextSeq: 1 };
}

function store(): Store {
  let s = holder[KEY];
  if (!s) {
    s = { data: load(), events: new EventEmitter() };
    s.events.setMaxListeners(0);
    holder[KEY] = s;
  }
  return s;
}

function persist(): void {
  const file = process.env.VEILKIT_NEXT_STORE;
  if (!file) return;
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, JSON.stringify(store().data, null, 2));
  renameSync(tmp, file);
}

/** User names: what the directory and the relay accept (also keeps them safe in URLs and logs). */
export const USER_NAME = /^[a-z0-9_-]{1,32}$/;

export function publishBundles(user: string, bundles: StoredBundles): void {
  store().data.bundles[user] = bundles;
  persist();
}

/** The bundle for one initiator: a one-time bundle, handed out once (removed), or the reusable bundle when none is left. */
export function takeBundle(user: string): { bundle: string; oneTime: boolean; left: number } | undefined {
  const entry = store().data.bundles[user];
  if (!entry) return undefined;
  const one = entry.oneTime.shift();
  if (one !== undefined) persist();
  return { bundle: one ?? entry.bundle, oneTime: one !== undefined, left: entry.oneTime.length };
}

export function hasBundles(user: string): boolean {
  return store().data.bundles[user] !== undefined;
}

export function relay(from: string, to: string, body: string): StoredMessage {
  const s = store();
  const message: StoredMessage = { seq: s.data.nextSeq++, from, to, body, at: Date.now() };
  s.data.messages.push(message);
  persist();
  s.events.emit(`to:${to}`, message);
  return message;
}

/** Messages for `to` after `after` (a seq), then every new one through `listener` until the returned function is called. */
export function follow(to: string, after: number, listener: (m: StoredMessage) => void): () => void {
  const s = store();
  for (const m of s.data.messages) if (m.to === to && m.seq > after) listener(m);
  const name = `to:${to}`;
  s.events.on(name, listener);
  return () => s.events.off(name, listener);
}
