/**
 * One verb to release an object: `dispose()`, also reachable as `[Symbol.dispose]()` so that
 * `using x = …` (TypeScript 5.2+, engines with explicit resource management) releases it at the
 * end of the block. Every method of a disposed object throws (or rejects with)
 * `VeilError('INVALID_STATE')`; `dispose()` itself is idempotent.
 *
 * `Symbol.dispose` exists in Node ≥ 20.4 (and so in every Node veilkit supports, `engines: >=20`
 * after 20.4) and in recent Chromium and Firefox, but not yet in every browser (Safari). Where it
 * is missing we use `Symbol.for('Symbol.dispose')`, the registry symbol that the common
 * `Symbol.dispose` polyfills (core-js, `disposablestack`) install as `Symbol.dispose`, so a page
 * that loads a polyfill after veilkit still finds our method. No global is modified.
 */
import { VeilError } from '../protocol/errors.js';

declare global {
  // The same declarations as TypeScript's lib.esnext.disposable and @types/node: lets consumers
  // compiling with an ES2022 lib read veilkit's `[Symbol.dispose]` members.
  interface SymbolConstructor {
    readonly dispose: unique symbol;
    readonly asyncDispose: unique symbol;
  }
}

/** `Symbol.dispose`, or `Symbol.for('Symbol.dispose')` on engines without it (see the module notes). */
export const disposeSymbol: typeof Symbol.dispose =
  (Symbol as { dispose?: typeof Symbol.dispose }).dispose ?? (Symbol.for('Symbol.dispose') as typeof Symbol.dispose);

/** The error every method of a disposed object throws: `VeilError('INVALID_STATE')`. */
export function disposedError(what: string): VeilError {
  return new VeilError('INVALID_STATE', `${what} has been disposed`);
}

/**
 * The release verbs of an object that owns WebAssembly memory (`ReplayStore`, `SasVerification`):
 * the subclass implements `dispose()` (free the memory; idempotent), and `[disposeSymbol]()`
 * (`using`) and the deprecated `free()` are the same call.
 */
export abstract class WasmResource {
  /** Releases the WebAssembly memory. Idempotent. */
  abstract dispose(): void;

  /** Same as `dispose()` (`using`). */
  [disposeSymbol](): void {
    this.dispose();
  }

  /** @deprecated Use `dispose()` (or `using`); the same call. */
  free(): void {
    this.dispose();
  }
}
