/**
 * What a keystore worker keeps open between operations, per store: objects that own WebAssembly memory
 * (parsed session states, ./session-cache.ts; open MLS clients, worker/group/groups.ts). At most `cap`
 * entries, least recently used dropped first; an entry is freed when it is replaced by another object,
 * evicted, dropped, or when its store locks, changes its passphrase or closes ({@link dropStore}).
 */

/** Every cache, for {@link dropStore}. */
const all = new Set<{ dropStore(name: string): void }>();

export class Kept<T> {
  /** By `<store name>/<id>`, in least-recently-used order (a Map iterates in insertion order). */
  readonly #entries = new Map<string, T>();
  readonly #cap: number;
  readonly #free: (e: T) => void;
  /** What an entry frees: two entries with one owner are one object's (a kept entry and its working copy). */
  readonly #owner: (e: T) => unknown;

  constructor(cap: number, free: (e: T) => void, owner: (e: T) => unknown = (e) => e) {
    this.#cap = cap;
    this.#free = free;
    this.#owner = owner;
    all.add(this);
  }

  /** The entry of `id` in store `name` (and marks it used), or `undefined`. */
  get(name: string, id: string): T | undefined {
    const k = `${name}/${id}`;
    const e = this.#entries.get(k);
    if (e !== undefined) {
      this.#entries.delete(k);
      this.#entries.set(k, e);
    }
    return e;
  }

  /** Keeps `entry`, freeing the entry it replaces (unless it is the same object's) and the least recently used beyond the cap. */
  keep(name: string, id: string, entry: T): void {
    const k = `${name}/${id}`;
    const old = this.#entries.get(k);
    if (old !== undefined && this.#owner(old) !== this.#owner(entry)) this.#free(old);
    this.#entries.delete(k);
    this.#entries.set(k, entry);
    for (const [key, e] of this.#entries) {
      if (this.#entries.size <= this.#cap) break;
      this.#entries.delete(key);
      this.#free(e);
    }
  }

  /** Drops (and frees) the entry of `id`, if any, and frees `also` (an entry not kept) unless it is the same object's. */
  drop(name: string, id: string, also?: T): void {
    const k = `${name}/${id}`;
    const e = this.#entries.get(k);
    if (e !== undefined) {
      this.#entries.delete(k);
      this.#free(e);
    }
    if (also !== undefined && (e === undefined || this.#owner(also) !== this.#owner(e))) this.#free(also);
  }

  /** Drops every entry of store `name`. */
  dropStore(name: string): void {
    const prefix = `${name}/`;
    for (const [k, e] of this.#entries) {
      if (!k.startsWith(prefix)) continue;
      this.#entries.delete(k);
      this.#free(e);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Drops every kept entry of store `name` in every cache: it locked, changed its passphrase or closed. */
export function dropStore(name: string): void {
  for (const c of all) c.dropStore(name);
}
