/** Random access: {@link openContainer} and the {@link OpenedContainer} it returns. */
import { VeilError } from '../../protocol/errors.js';
import { integer } from '../validate.js';
import { disposeSymbol, disposedError } from '../dispose.js';
import { CONTAINER, chunkLength, envelopeOffset } from '../files-format.js';
import { resolveKdfBudget } from '../keystore-format.js';
import type { HeaderRead } from '../../protocol/files.protocol.js';
import { FileJob, anySignal, progress } from './job.js';
import { openCore, type Opened } from './open.js';
import { policyOf } from './options.js';
import { containerSource } from './source.js';
import type {
  FileJobOptions, FileUnlock, OpenedContainer, SignaturePolicyOptions, UnlockOptions, VerificationReport,
} from './types.js';

/**
 * Opens a container `Blob` for random access: header, signature policy,
 * length check, the leaf table (32 bytes per chunk, checked against the
 * header's root) and unlock. `read()` then decrypts only the chunks a range
 * needs, each read now, its leaf recomputed and compared with its table entry,
 * and its AEAD tag checked (a `Blob` may change between opening and reading).
 * `dispose()` when done (or `using c = await openContainer(…)`).
 */
export async function openContainer(blob: Blob, unlock: FileUnlock, options: FileJobOptions & SignaturePolicyOptions & UnlockOptions = {}): Promise<OpenedContainer> {
  if (!(blob instanceof Blob)) throw new TypeError('openContainer needs a File or a Blob (random access)');
  const policy = policyOf(options);
  resolveKdfBudget(options.kdfBudget); // argument errors now, not later
  const job = new FileJob(options);
  let o: Opened;
  try {
    o = await openCore(job, containerSource(blob), unlock, policy, options);
  } catch (e) {
    const err = job.error(e);
    job.dispose();
    throw err;
  }
  const { ctx } = o;
  const n = o.raw.chunkCount;
  const H = o.bodyOffset;
  let disposed = false;
  const live = () => {
    if (disposed) throw disposedError('this container');
  };
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    job.dispose();
  };
  const runChunks = async (first: number, count: number, extra: { discard?: boolean; signal?: AbortSignal }) => {
    const from = H + envelopeOffset(ctx.chunkSize, first);
    const bytes = envelopeOffset(ctx.chunkSize, count - 1) + chunkLength(ctx, first + count - 1) + CONTAINER.envelopeOverhead;
    const leaves = o.table.slice(CONTAINER.leafLength * first, CONTAINER.leafLength * (first + count));
    const chunkKeys = await o.keys(first, count, extra.signal);
    return job.pool.run({
      type: 'files/decrypt-chunks', chunkKeys, ctx, first, count, source: blob.slice(from, from + bytes), output: 'bytes',
      leaves, ...(extra.discard ? { discard: true } : {}),
    }, { signal: anySignal(job.signal, extra.signal) });
  };
  const per = Math.max(1, Math.floor(job.batchBytes / ctx.chunkSize));
  return {
    header: o.header,
    signature: o.signature,
    size: ctx.plaintextSize,
    async read(offset, length, ro = {}) {
      live();
      integer('offset', offset, 0, ctx.plaintextSize);
      integer('length', length, 0, ctx.plaintextSize - offset);
      const out = new Uint8Array(length);
      if (length === 0) return out;
      const firstChunk = Math.floor(offset / ctx.chunkSize);
      const lastChunk = Math.floor((offset + length - 1) / ctx.chunkSize);
      const jobs: Promise<void>[] = [];
      for (let c = firstChunk; c <= lastChunk; c += per) {
        const count = Math.min(per, lastChunk - c + 1);
        jobs.push(runChunks(c, count, { ...(ro.signal ? { signal: ro.signal } : {}) }).then((r) => {
          let base = c * ctx.chunkSize; // plaintext offset of the next piece
          for (const piece of r.data as readonly Uint8Array[]) {
            const a = Math.max(offset, base);
            const b = Math.min(offset + length, base + piece.length);
            if (a < b) out.set(piece.subarray(a - base, b - base), a - offset);
            base += piece.length;
          }
        }));
      }
      await Promise.all(jobs);
      return out;
    },
    async verify(vp = {}) {
      live();
      const vpol = policyOf(vp);
      const onTamper = vp.onTamper ?? 'report';
      if (onTamper !== 'report' && onTamper !== 'abort') throw new TypeError(`onTamper must be 'report' or 'abort'`);
      const sig = await job.pool.run({ type: 'files/open', header: o.headerBytes, policy: vpol }, { signal: anySignal(job.signal, vp.signal) }) as HeaderRead;
      const bad: number[] = [];
      const tick = progress(vp.onProgress, ctx.plaintextSize, n);
      const tasks: Promise<void>[] = [];
      let next = 0;
      const lane = async () => {
        while (next < n) {
          const first = next;
          const count = Math.min(per, n - first);
          next += count;
          const r = await runChunks(first, count, { discard: true, ...(vp.signal ? { signal: vp.signal } : {}) });
          if (r.bad && r.bad.length > 0) {
            if (onTamper === 'abort') throw new VeilError('AUTHENTICATION_FAILED', 'authentication failed');
            bad.push(...r.bad);
          }
          tick(Math.min(ctx.plaintextSize, (first + count) * ctx.chunkSize) - first * ctx.chunkSize, count);
        }
      };
      for (let w = 0; w < Math.min(job.limit, Math.max(1, n)); w++) tasks.push(lane());
      await Promise.all(tasks);
      bad.sort((a, b) => a - b);
      return {
        version: o.header.version, signature: sig.signature as VerificationReport['signature'], signer: o.header.signer?.ed25519 ?? null,
        chunkCount: n, chunksAuthenticated: true, badChunks: bad, lengthValid: blob.size === o.raw.containerLength, merkleValid: true,
        intact: bad.length === 0 && blob.size === o.raw.containerLength,
      };
    },
    dispose,
    [disposeSymbol]: dispose,
    close: dispose,
  };
}
