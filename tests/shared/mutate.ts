/**
 * Deterministic, seeded mutation fuzzing for the TypeScript parsers that take
 * outside bytes (tests/node/fuzz-*.test.ts, tests/playwright/untrusted-input.spec.ts).
 * No dependency, no wall clock: the same seed gives the same cases, so a failure
 * names a reproducible case. {@link TypedErrors} holds every entry point to the
 * rule that untrusted bytes fail only with a `VeilError` of a known code.
 */
import { concatBytes } from '../../ts/bytes.js';
import { VeilError, isVeilErrorCode } from '../../protocol/errors.js';

/** A small seeded PRNG (mulberry32): fast, deterministic, not cryptographic. */
export class Rng {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0;
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return n <= 0 ? 0 : this.u32() % n;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  pick<T>(items: readonly T[]): T {
    const x = items[this.below(items.length)];
    if (x === undefined) throw new Error('pick from an empty list');
    return x;
  }
}

/** One mutated input and how it was made (for failure messages). */
export interface Case {
  readonly kind: string;
  readonly input: Uint8Array;
}

/** Bytes that often hit edge cases of length and flag fields. */
const INTERESTING = [0x00, 0x01, 0x02, 0x0f, 0x10, 0x7f, 0x80, 0xfe, 0xff] as const;

const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => concatBytes(parts);

/**
 * A view of `bytes` at a random offset inside a larger buffer (parsers must
 * honour `byteOffset`); half of the time a plain copy.
 */
export function placed(rng: Rng, bytes: Uint8Array): Uint8Array {
  if (rng.below(2) === 0) return bytes.slice();
  const before = rng.below(17);
  const host = rng.bytes(before + bytes.length + rng.below(17));
  host.set(bytes, before);
  return host.subarray(before, before + bytes.length);
}

export interface MutationPlan {
  /** Single-bit flips: every bit when the input has at most this many bits, else this many random bits. */
  readonly bitFlips: number;
  /** Byte positions (0-based) whose every "interesting" value is tried; other positions are sampled. */
  readonly fieldBytes?: readonly number[];
  /** Random multi-byte overwrites. */
  readonly overwrites: number;
  /** Truncations: every length when the input is at most this long, else this many random lengths plus the first 64 and last 64. */
  readonly truncations: number;
  /** Every truncation `0 … n − 1`, whatever `truncations` says (no random lengths are drawn then). */
  readonly everyTruncation?: boolean;
  /** Extensions by 1..64 random bytes (and by one zero byte). */
  readonly extensions: number;
  /** Random inputs (lengths around the input's). */
  readonly random: number;
  /** Valid prefix (random length) followed by random garbage. */
  readonly prefixGarbage: number;
}

/** Every mutated case of `seed` under `plan`, deterministically from `rng`. */
export function* mutations(rng: Rng, seed: Uint8Array, plan: MutationPlan): Generator<Case> {
  const n = seed.length;
  const bits = n * 8;
  if (bits <= plan.bitFlips) {
    for (let b = 0; b < bits; b++) yield { kind: `flip bit ${b}`, input: flip(seed, b) };
  } else {
    for (let k = 0; k < plan.bitFlips; k++) {
      const b = rng.below(bits);
      yield { kind: `flip bit ${b}`, input: flip(seed, b) };
    }
  }
  for (const at of plan.fieldBytes ?? []) {
    if (at >= n) continue;
    for (const v of INTERESTING) {
      if (seed[at] === v) continue;
      const m = seed.slice();
      m[at] = v;
      yield { kind: `byte ${at} := ${v}`, input: m };
    }
  }
  for (let k = 0; k < plan.overwrites; k++) {
    const m = seed.slice();
    const at = rng.below(n);
    const len = 1 + rng.below(Math.min(8, n - at));
    m.set(rng.bytes(len), at);
    yield { kind: `overwrite ${len} at ${at}`, input: m };
  }
  if (n <= plan.truncations || plan.everyTruncation === true) {
    for (let len = 0; len < n; len++) yield { kind: `truncate to ${len}`, input: seed.slice(0, len) };
  } else {
    const lengths = new Set<number>();
    for (let len = 0; len < Math.min(64, n); len++) lengths.add(len);
    for (let len = Math.max(0, n - 64); len < n; len++) lengths.add(len);
    for (let k = 0; k < plan.truncations; k++) lengths.add(rng.below(n));
    for (const len of lengths) yield { kind: `truncate to ${len}`, input: seed.slice(0, len) };
  }
  yield { kind: 'extend by one zero byte', input: concat(seed, new Uint8Array(1)) };
  for (let k = 0; k < plan.extensions; k++) {
    const extra = 1 + rng.below(64);
    yield { kind: `extend by ${extra} random bytes`, input: concat(seed, rng.bytes(extra)) };
  }
  for (let k = 0; k < plan.random; k++) {
    const len = rng.below(2) === 0 ? rng.below(n + 64) : n;
    yield { kind: `random ${len} bytes`, input: rng.bytes(len) };
  }
  for (let k = 0; k < plan.prefixGarbage; k++) {
    const keep = rng.below(n);
    const extra = rng.below(n - keep + 64);
    yield { kind: `prefix ${keep} + ${extra} garbage`, input: concat(seed.subarray(0, keep), rng.bytes(extra)) };
  }
}

function flip(seed: Uint8Array, bit: number): Uint8Array {
  const m = seed.slice();
  m[bit >> 3] = (m[bit >> 3] ?? 0) ^ (1 << (bit & 7));
  return m;
}

/** Per-outcome counts of a fuzz run, printed by the tests. */
export class Tally {
  readonly counts = new Map<string, number>();
  total = 0;

  add(outcome: string): void {
    this.total++;
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
  }

  toString(): string {
    const parts = [...this.counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
    return `${this.total} cases (${parts.join(', ')})`;
  }
}

/** Equal bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** XORs `mask` into `bytes[at]` in place; throws when `at` is outside `bytes` (a tamper that missed). */
export function xorAt(bytes: Uint8Array, at: number, mask: number): void {
  const b = bytes[at];
  if (b === undefined) throw new RangeError(`tamper offset ${at} is outside ${bytes.length} bytes`);
  bytes[at] = b ^ mask;
}

/**
 * The outcome of a call on untrusted bytes: `'ok'`, the code of a `VeilError` with a known code, or
 * `untyped <name>: <message>` for anything else thrown (a `RangeError`, a `TypeError`, an `Error`, a
 * `VeilError` whose code is not in `VEIL_ERROR_CODES`, a non-error).
 */
export function outcomeOf(e: unknown): string {
  if (e instanceof VeilError && isVeilErrorCode(e.code)) return e.code;
  if (e instanceof Error) return `untyped ${e.constructor.name}: ${e.message}`;
  return `untyped ${typeof e}: ${String(e)}`;
}

/** Whether an outcome of {@link outcomeOf} is untyped. */
export const isUntyped = (outcome: string): boolean => outcome.startsWith('untyped ');

/** Per-entry-point counts of a run of {@link TypedErrors}. */
export interface EntryCounts {
  cases: number;
  untyped: number;
  /** Outcome → count (codes, 'ok', and the first untyped outcome of each kind). */
  outcomes: Record<string, number>;
  /** Up to 3 untyped cases: `<case kind>: <outcome>`. */
  examples: string[];
  /** Up to 3 cases that succeeded (their kinds). */
  succeeded: string[];
}

/**
 * Runs calls on untrusted bytes by entry point and records every outcome. The rule they are held
 * to (issue 34 item 4): every failure is a `VeilError` with a known code; `untyped` counts the rest.
 * Serializable (`report()`), so a browser page can hand it to its spec.
 */
export class TypedErrors {
  readonly entries = new Map<string, EntryCounts>();

  private record(entry: string, kind: string, outcome: string): string {
    let c = this.entries.get(entry);
    if (c === undefined) {
      c = { cases: 0, untyped: 0, outcomes: {}, examples: [], succeeded: [] };
      this.entries.set(entry, c);
    }
    c.cases++;
    // Untyped messages carry lengths: one bucket per error class keeps the counts readable.
    const bucket = isUntyped(outcome) ? outcome.slice(0, outcome.indexOf(':') === -1 ? undefined : outcome.indexOf(':')) : outcome;
    c.outcomes[bucket] = (c.outcomes[bucket] ?? 0) + 1;
    if (outcome === 'ok' && c.succeeded.length < 3) c.succeeded.push(kind);
    if (isUntyped(outcome)) {
      c.untyped++;
      if (c.examples.length < 3) c.examples.push(`${kind}: ${outcome}`);
    }
    return outcome;
  }

  /** Runs `fn` (synchronous) as a case of `entry`; returns its outcome. */
  run(entry: string, kind: string, fn: () => unknown): string {
    let outcome = 'ok';
    try {
      fn();
    } catch (e) {
      outcome = outcomeOf(e);
    }
    return this.record(entry, kind, outcome);
  }

  /** Runs `fn` (a promise, or a function that may throw before returning one) as a case of `entry`. */
  async runAsync(entry: string, kind: string, fn: () => Promise<unknown>): Promise<string> {
    let outcome = 'ok';
    try {
      await fn();
    } catch (e) {
      outcome = outcomeOf(e);
    }
    return this.record(entry, kind, outcome);
  }

  /** Cases and untyped failures of every entry point. */
  report(): Record<string, EntryCounts> {
    return Object.fromEntries(this.entries);
  }

  /** Untyped failures over every entry point. */
  get untyped(): number {
    let n = 0;
    for (const c of this.entries.values()) n += c.untyped;
    return n;
  }

  /** One line per entry point: `entry: cases, untyped (examples), outcomes`. */
  toString(): string {
    return formatTyped(this.report());
  }
}

/** The lines of a {@link TypedErrors.report} (also for a report that crossed from a page). */
export function formatTyped(report: Record<string, EntryCounts>): string {
  return Object.entries(report).map(([entry, c]) => {
    const outcomes = Object.entries(c.outcomes).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');
    const pct = c.cases === 0 ? 0 : (100 * c.untyped) / c.cases;
    return `${entry}: ${c.cases} cases, ${c.untyped} untyped (${pct.toFixed(1)} %)${c.examples.length ? ` e.g. ${c.examples.join(' | ')}` : ''}; ${outcomes}`;
  }).join('\n');
}
