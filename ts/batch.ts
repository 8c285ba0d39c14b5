/**
 * Batched KEM operations. With the threads build loaded (`capabilities().wasmBuild ===
 * 'threads'`, e.g. in a cross-origin isolated worker) the items of a batch run in parallel on
 * the wasm thread pool (rayon); otherwise they run one after another on this thread. Both give
 * the same results item for item (encapsulation randomness is fresh per item either way), and a
 * batch fails as a whole: the first invalid key throws, and nothing of the batch is returned.
 */
import { call, threadsBatchGlue, type BatchGlue } from './init.js';
import { exact } from './validate.js';
import { ML_KEM_768, mlKemDecapsulate, mlKemEncapsulate } from './mlkem.js';
import { X_WING, xWingDecapsulate, xWingEncapsulate } from './xwing.js';
import { splitOwned, type EncapsulationResult } from './split.js';
import { concatBytes } from './bytes.js';

/** Most items in one batch call (bounds the memory one call may allocate). */
export const MAX_BATCH_ITEMS = 4096;

/** One decapsulation of a batch. */
export interface DecapsulationItem {
  readonly decapsulationKey: Uint8Array;
  readonly ciphertext: Uint8Array;
}

/** One X-Wing decapsulation of a batch. */
export interface XWingDecapsulationItem {
  readonly secretKey: Uint8Array;
  readonly ciphertext: Uint8Array;
}

function list(name: string, value: unknown): readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array`);
  if (value.length > MAX_BATCH_ITEMS) throw new RangeError(`${name} must have at most ${MAX_BATCH_ITEMS} items, got ${value.length}`);
  return value;
}

function item(name: string, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object') throw new TypeError(`${name} must be an object`);
  return value as Record<string, unknown>;
}

/** Splits `n × (ct ‖ ss)` (owned, wiped) into results. */
function encapsulations(buffer: Uint8Array, n: number, ctLength: number): EncapsulationResult[] {
  const parts = splitOwned(buffer, ...Array.from({ length: 2 * n }, (_, i) => (i % 2 === 0 ? ctLength : 32)));
  const out: EncapsulationResult[] = [];
  let ciphertext: Uint8Array | undefined;
  for (const part of parts) {
    if (ciphertext === undefined) {
      ciphertext = part;
    } else {
      out.push({ ciphertext, sharedSecret: part });
      ciphertext = undefined;
    }
  }
  return out;
}

/** Splits `n × ss` (owned, wiped). */
function secrets(buffer: Uint8Array, n: number): Uint8Array[] {
  return splitOwned(buffer, ...Array.from({ length: n }, () => 32));
}

/** Checks an encapsulation batch, then runs it on the threads build's `many` or item by item with `one`. */
function encapsulateEach(
  name: string, value: unknown, keyLength: number, ciphertextLength: number,
  one: (key: Uint8Array) => EncapsulationResult, many: (glue: BatchGlue, keys: Uint8Array) => Uint8Array,
): EncapsulationResult[] {
  const keys = list(name, value).map((k, i) => exact(`${name}[${i}]`, k, keyLength));
  if (keys.length === 0) return [];
  const glue = threadsBatchGlue();
  if (glue === undefined) return keys.map(one);
  const all = concatBytes(keys);
  return encapsulations(call(() => many(glue, all)), keys.length, ciphertextLength);
}

/** Checks a decapsulation batch, then runs it on the threads build's `many` or item by item with `one`. */
function decapsulateEach(
  value: unknown, secretField: 'decapsulationKey' | 'secretKey', secretLength: number, ciphertextLength: number,
  one: (secret: Uint8Array, ciphertext: Uint8Array) => Uint8Array, many: (glue: BatchGlue, secrets: Uint8Array, cts: Uint8Array) => Uint8Array,
): Uint8Array[] {
  const checked = list('items', value).map((v, i) => {
    const o = item(`items[${i}]`, v);
    return { sk: exact(`items[${i}].${secretField}`, o[secretField], secretLength), ct: exact(`items[${i}].ciphertext`, o.ciphertext, ciphertextLength) };
  });
  if (checked.length === 0) return [];
  const glue = threadsBatchGlue();
  if (glue === undefined) return checked.map(({ sk, ct }) => one(sk, ct));
  const sks = concatBytes(checked.map((c) => c.sk)); // our copy: wiped below
  try {
    const cts = concatBytes(checked.map((c) => c.ct));
    return secrets(call(() => many(glue, sks, cts)), checked.length);
  } finally {
    sks.fill(0); // our copy of the secret keys
  }
}

/** `mlKemEncapsulate` for every 1184-byte key of `encapsulationKeys`, in parallel on the threads build. */
export function mlKemEncapsulateBatch(encapsulationKeys: readonly Uint8Array[]): EncapsulationResult[] {
  const { encapsulationKeyLength, ciphertextLength } = ML_KEM_768;
  return encapsulateEach('encapsulationKeys', encapsulationKeys, encapsulationKeyLength, ciphertextLength, mlKemEncapsulate, (g, eks) => g.mlKemEncapsulateBatch(eks));
}

/** `mlKemDecapsulate` for every item, in parallel on the threads build; one 32-byte secret per item. */
export function mlKemDecapsulateBatch(items: readonly DecapsulationItem[]): Uint8Array[] {
  const { decapsulationKeyLength, ciphertextLength } = ML_KEM_768;
  return decapsulateEach(items, 'decapsulationKey', decapsulationKeyLength, ciphertextLength, mlKemDecapsulate, (g, dks, cts) => g.mlKemDecapsulateBatch(dks, cts));
}

/** `xWingEncapsulate` for every 1216-byte public key, in parallel on the threads build. */
export function xWingEncapsulateBatch(publicKeys: readonly Uint8Array[]): EncapsulationResult[] {
  return encapsulateEach('publicKeys', publicKeys, X_WING.publicKeyLength, X_WING.ciphertextLength, xWingEncapsulate, (g, pks) => g.xWingEncapsulateBatch(pks));
}

/** `xWingDecapsulate` for every item, in parallel on the threads build; one 32-byte secret per item. */
export function xWingDecapsulateBatch(items: readonly XWingDecapsulationItem[]): Uint8Array[] {
  return decapsulateEach(items, 'secretKey', X_WING.secretKeyLength, X_WING.ciphertextLength, xWingDecapsulate, (g, sks, cts) => g.xWingDecapsulateBatch(sks, cts));
}
