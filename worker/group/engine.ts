/**
 * The group module (docs/GROUPS.md): its own wasm, instantiated on the first group request this worker
 * answers — a files-only or sessions-only app never downloads it. The glue is part of the worker; the
 * wasm is located with a literal `new URL` (ts/assets.ts `groupWasmUrl`) that bundlers follow.
 *
 * Errors of the module cross as `Error`s named `VeilError` with a stable `code`
 * (crate/src/group/wasm.rs); {@link call} turns them into real {@link VeilError}s.
 */
import initGroup, { MlsClient } from '../../ts/wasm-group/veilkit_group.js';
import { groupWasmUrl } from '../../ts/assets.js';
import { VeilError, isVeilErrorCode } from '../../protocol/errors.js';

export { MlsClient };

let ready: Promise<void> | undefined;

/** Instantiates the group module once per worker (a failure is retried by the next request). */
export function loadGroupModule(): Promise<void> {
  if (!ready) {
    const p = initGroup({ module_or_path: groupWasmUrl() }).then(() => undefined);
    ready = p;
    p.catch(() => {
      if (ready === p) ready = undefined;
    });
  }
  return ready;
}

/** A group module error as a {@link VeilError}; a trap: `WASM_PANIC`; anything else: `INTERNAL`. */
export function groupError(e: unknown): Error {
  if (e instanceof VeilError || e instanceof TypeError || e instanceof RangeError) return e;
  if (e instanceof Error && e.name === 'VeilError') {
    const code: unknown = (e as { code?: unknown }).code;
    if (isVeilErrorCode(code)) return new VeilError(code, e.message);
  }
  if (e instanceof WebAssembly.RuntimeError) return new VeilError('WASM_PANIC', `the group module trapped: ${e.message}`);
  return new VeilError('INTERNAL', `the group module failed: ${e instanceof Error ? e.message : String(e)}`);
}

/** Runs `fn` (a call into the group module), its errors converted by {@link groupError}. */
export function call<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw groupError(e);
  }
}

/** `info(id)` of the module, typed. */
export interface ModuleInfo {
  groupId: Uint8Array;
  suite: number;
  /** A u64: a BigInt. */
  epoch: bigint;
  ownIndex: number;
  members: { index: number; identity: Uint8Array; signatureKey: Uint8Array }[];
  commitPending: boolean;
  active: boolean;
}

/** `receive(id, message)` of the module, typed. */
export type ModuleReceived =
  | { kind: 'application'; sender: number; senderIdentity: Uint8Array; bytes: Uint8Array; aad: Uint8Array }
  | { kind: 'commit'; sender: number | null; epoch: bigint; added: Uint8Array[]; removed: number[]; removedSelf: boolean; discardedOwn: boolean }
  | { kind: 'proposal'; sender: number | null };

/** `add` / `remove` / `update` of the module, typed. */
export interface ModuleCommit {
  commit: Uint8Array;
  welcome: Uint8Array | undefined;
}
