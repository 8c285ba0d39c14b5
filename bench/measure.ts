/**
 * The measuring loop of the benchmark cases (bench/worker.ts runs it in each case's worker,
 * bench/session-keystore.ts on the page): set-up, warm-up (calibrates a batch to ~RUN_MS), then
 * RUNS timed batches; the reported figure is the median. Slow cases time single operations.
 */
type Op = () => unknown;
export interface Prepared {
  op: Op;
  /** The op returns a promise (awaited one at a time). */
  async?: boolean;
  /** Seconds per op: one op per sample. */
  slow?: boolean;
  /**
   * Slow cases: untimed work run for {@link WARMUP_MS} (at least {@link MIN_WARM} calls) before the op's own
   * warm-up, so the timed ops run on code that has tiered up (V8's optimizing tier for wasm and JS), as in a
   * long-lived app: the op itself when it can be repeated, else the same kind of op on other data.
   */
  warm?: Op;
  /** Slow cases: how long {@link Prepared.warm} runs, in ms (default {@link WARMUP_MS}). */
  warmMs?: number;
  /** Slow cases: how many single ops are timed after the warm-up op (default {@link SLOW_RUNS}). */
  runs?: number;
  note?: string;
}
export interface CaseResult {
  id: string;
  ok: boolean;
  unit?: 'ops/s' | 's' | 'bytes';
  value?: number;
  samples?: number[];
  note?: string;
  /** Untimed figures of a case (the session wire sizes). */
  details?: Record<string, number>;
  error?: string;
  /** veilkit cases: the route measured (`'native'`: WebCrypto; `'wasm'`: the Rust core). */
  route?: 'wasm' | 'native';
}

export const RUNS = 7;
const RUN_MS = 250;
const WARMUP_MS = 400;
export const SLOW_RUNS = 5;
const MIN_WARM = 3;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  const upper = s[m];
  if (upper === undefined) throw new RangeError('median of no samples');
  return s.length % 2 ? upper : ((s[m - 1] ?? upper) + upper) / 2;
}

export async function measure(id: string, p: Prepared): Promise<CaseResult> {
  const { op } = p;
  if (p.slow) {
    if (p.warm) {
      const w0 = performance.now();
      for (let i = 0; i < MIN_WARM || performance.now() - w0 < (p.warmMs ?? WARMUP_MS); i++) await p.warm();
    }
    await op(); // warm-up
    const samples: number[] = [];
    for (let r = 0; r < (p.runs ?? SLOW_RUNS); r++) {
      const t0 = performance.now();
      await op();
      samples.push((performance.now() - t0) / 1000);
    }
    return { id, ok: true, unit: 's', value: median(samples), samples, ...(p.note ? { note: p.note } : {}) };
  }
  let n = 0;
  const w0 = performance.now();
  if (p.async) {
    while (performance.now() - w0 < WARMUP_MS) {
      await op();
      n++;
    }
  } else {
    while (performance.now() - w0 < WARMUP_MS) {
      op();
      n++;
    }
  }
  const per = (performance.now() - w0) / n;
  const batch = Math.max(1, Math.round(RUN_MS / per));
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    if (p.async) for (let i = 0; i < batch; i++) await op();
    else for (let i = 0; i < batch; i++) op();
    samples.push(batch / ((performance.now() - t0) / 1000));
  }
  return { id, ok: true, unit: 'ops/s', value: median(samples), samples, ...(p.note ? { note: p.note } : {}) };
}

