/**
 * A set of listeners: `add` returns the unsubscribe function, `emit` calls a
 * snapshot of them (a listener may unsubscribe itself or others while it runs).
 * The keystore's `onChange` and its isolated-origin port use it.
 */
export class Listeners<T> {
  readonly #set = new Set<(value: T) => void>();

  /** Adds `listener`; the returned function removes it (again: no effect). */
  add(listener: (value: T) => void): () => void {
    this.#set.add(listener);
    return () => {
      this.#set.delete(listener);
    };
  }

  /** Calls every listener present when the call starts, in the order they were added. */
  emit(value: T): void {
    for (const l of [...this.#set]) l(value);
  }

  /** Removes every listener. */
  clear(): void {
    this.#set.clear();
  }
}
