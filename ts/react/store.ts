/**
 * The framework-free store behind every `veilkit/react` hook (no React import): `subscribe` /
 * `getSnapshot` / `getServerSnapshot` as `useSyncExternalStore` wants them. Each snapshot is a
 * frozen object that stays the same (`===`) until a `set` changes one of its fields; the server
 * snapshot is always the initial one, so server and first client render agree.
 */

/** Where an operation is, in TanStack Query's vocabulary. */
export type VeilStatus = 'idle' | 'pending' | 'success' | 'error';

/** A tiny observable of one immutable state object (see {@link createVeilStore}). */
export interface VeilStore<T extends object> {
  /** Calls `listener` after every change; returns the function that stops it. */
  readonly subscribe: (listener: () => void) => () => void;
  /** The current snapshot: frozen, the same object until the next change. */
  readonly getSnapshot: () => Readonly<T>;
  /** The initial snapshot (server rendering and hydration). */
  readonly getServerSnapshot: () => Readonly<T>;
  /** Merges `patch` (or `patch(current)`); a patch that changes no field (`Object.is`) keeps the snapshot and notifies no one. */
  readonly set: (patch: Partial<T> | ((current: Readonly<T>) => Partial<T>)) => void;
  /** Back to the initial snapshot. */
  readonly reset: () => void;
}

/** A store whose first (and server) snapshot is `initial` (copied and frozen). Touches no browser API. */
export function createVeilStore<T extends object>(initial: T): VeilStore<T> {
  const first: Readonly<T> = Object.freeze({ ...initial });
  let snapshot = first;
  const listeners = new Set<() => void>();
  const emit = () => {
    for (const l of [...listeners]) {
      try {
        l();
      } catch {
        // one throwing listener must not starve the others
      }
    }
  };
  const replace = (next: Readonly<T>) => {
    if (next === snapshot) return;
    snapshot = next;
    emit();
  };
  return Object.freeze({
    subscribe: (listener: () => void) => {
      if (typeof listener !== 'function') throw new TypeError('listener must be a function');
      const entry = () => {
        listener();
      };
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    getSnapshot: () => snapshot,
    getServerSnapshot: () => first,
    set: (patch: Partial<T> | ((current: Readonly<T>) => Partial<T>)) => {
      const p = typeof patch === 'function' ? patch(snapshot) : patch;
      const keys = Object.keys(p) as (keyof T)[];
      if (keys.every((k) => Object.is(snapshot[k], p[k]))) return;
      replace(Object.freeze({ ...snapshot, ...p }));
    },
    reset: () => {
      replace(first);
    },
  });
}
