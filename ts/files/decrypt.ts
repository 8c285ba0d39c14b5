/** Decryption: {@link decryptFile}, verified (a `Blob`) or streaming (a `ReadableStream`). */
import { VeilError } from '../../protocol/errors.js';
import { readBlob } from '../bytes.js';
import { CONTAINER, chunkLength, envelopeOffset } from '../files-format.js';
import { resolveKdfBudget } from '../keystore-format.js';
import type { SignaturePolicy } from '../../protocol/files.protocol.js';
import { FileJob, JobState, batchProgress, batching, observe, pipeline, progress } from './job.js';
import { openCore, signatureInfo, type Opened } from './open.js';
import { checkInput, policyOf, unlockOf } from './options.js';
import { containerSource, truncated, type ContainerSource } from './source.js';
import type { DecryptFileOptions, FileInput, FileJobOptions, FileOperation, FileUnlock, SignatureInfo } from './types.js';

/**
 * Decrypts a container. `unlock` is a password, `vcs_` shares, `{ group }`,
 * a keystore identity `{ keystore, identity }` or `{ xWingSecretKey }`.
 * Verified mode (default) resolves to a `Blob` once everything is
 * authenticated; streaming mode returns a `ReadableStream` at once.
 * Failures are `VeilError`s: `AUTHENTICATION_FAILED` (wrong password / key /
 * shares, tampered chunk, Merkle mismatch), `TRUNCATED`, `TRAILING_BYTES`,
 * `NO_MATCHING_WRAP`, `SEALED`, signature policy codes, header codes.
 * In verified mode the promise is also a {@link FileOperation} (`subscribe` / `getSnapshot`).
 */
export function decryptFile(input: FileInput, unlock: FileUnlock, options: DecryptFileOptions & { readonly releaseMode: 'streaming' }): ReadableStream<Uint8Array> & { readonly signature: Promise<SignatureInfo> };
export function decryptFile(input: FileInput, unlock: FileUnlock, options?: DecryptFileOptions & { readonly releaseMode?: 'verified' }): FileOperation<Blob & { readonly signature: SignatureInfo }>;
export function decryptFile(input: FileInput, unlock: FileUnlock, options: DecryptFileOptions = {}): ReadableStream<Uint8Array> | FileOperation<Blob> {
  checkInput('input', input);
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const mode = options.releaseMode ?? 'verified';
  if (mode !== 'verified' && mode !== 'streaming') throw new TypeError(`releaseMode must be 'verified' or 'streaming'`);
  const policy = policyOf(options);
  unlockOf(unlock); // argument errors now, not later
  resolveKdfBudget(options.kdfBudget);
  if (mode === 'verified') {
    const state = new JobState<Blob & { readonly signature: SignatureInfo }>();
    return observe(state, decryptVerified(input, unlock, options, policy, state as JobState<unknown>), options.signal instanceof AbortSignal ? options.signal : undefined);
  }
  return decryptStreaming(input, unlock, options, policy);
}

/** Runs the chunk pipeline of an opened container, handing each batch's plaintext to `put` in order. */
async function decryptBody(
  job: FileJob, source: ContainerSource, o: Opened, output: 'blob' | 'bytes', onProgress: FileJobOptions['onProgress'],
  put: (data: Blob | readonly Uint8Array[]) => Promise<void> | void,
): Promise<void> {
  const { ctx } = o;
  const n = o.raw.chunkCount;
  const H = o.bodyOffset;
  const { batches, range } = batching(n, ctx.chunkSize, job.batchBytes);
  const tick = progress(onProgress, ctx.plaintextSize, n, job.state);
  await pipeline(job, batches, async (b) => {
    const [first, count] = range(b);
    const from = H + envelopeOffset(ctx.chunkSize, first);
    const bytes = envelopeOffset(ctx.chunkSize, count - 1) + chunkLength(ctx, first + count - 1) + CONTAINER.envelopeOverhead;
    const [data, chunkKeys] = await Promise.all([source.body(from, bytes), o.keys(first, count)]);
    const got = data instanceof Blob ? data.size : data.length;
    if (got < bytes) throw truncated(from + bytes, from + got);
    job.throwIfStopped();
    const leaves = o.table.slice(CONTAINER.leafLength * first, CONTAINER.leafLength * (first + count));
    const steps = batchProgress(tick, Math.min(ctx.plaintextSize, (first + count) * ctx.chunkSize) - first * ctx.chunkSize, count);
    const out = await job.run(
      { type: 'files/decrypt-chunks', chunkKeys, ctx, first, count, source: data, output, leaves },
      { transfer: data instanceof Uint8Array ? [data.buffer, leaves.buffer] : [leaves.buffer], onProgress: steps.onProgress },
    );
    steps.finish();
    return out;
  }, async (_b, out) => {
    await put(out.data);
  });
  if (await source.trailing(o.raw.containerLength)) throw new VeilError('TRAILING_BYTES', 'trailing bytes after the last structure');
}

async function decryptVerified(input: FileInput, unlock: FileUnlock, options: DecryptFileOptions, policy: SignaturePolicy, state: JobState<unknown>): Promise<Blob & { readonly signature: SignatureInfo }> {
  const type = options.type ?? '';
  const job = new FileJob(options, state);
  const source = containerSource(input);
  let parts: (Blob | Uint8Array<ArrayBuffer>)[] = [];
  try {
    const opened = await openCore(job, source, unlock, policy, options);
    await decryptBody(job, source, opened, 'blob', options.onProgress, (d) => {
      if (d instanceof Blob) parts.push(d);
      else parts.push(...(d as Uint8Array<ArrayBuffer>[]));
    });
    return Object.defineProperty(new Blob(parts, { type }), 'signature', { value: Object.freeze(signatureInfo(opened)), enumerable: true }) as Blob & { readonly signature: SignatureInfo };
  } catch (e) {
    const err = job.error(e);
    job.fail(err);
    source.cancel(err);
    throw err;
  } finally {
    parts = [];
    job.dispose();
  }
}

function decryptStreaming(input: FileInput, unlock: FileUnlock, options: DecryptFileOptions, policy: SignaturePolicy): ReadableStream<Uint8Array> & { readonly signature: Promise<SignatureInfo> } {
  let job: FileJob | undefined;
  let source: ContainerSource | undefined;
  let wake: (() => void) | undefined;
  let running: Promise<void> | undefined;
  let signed!: (v: SignatureInfo) => void;
  let unsigned!: (e: unknown) => void;
  const signature = new Promise<SignatureInfo>((res, rej) => {
    signed = res;
    unsigned = rej;
  });
  signature.catch(() => {}); // the stream reports the same error
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      try {
        job = new FileJob(options);
      } catch (e) {
        controller.error(e);
        return;
      }
      source = containerSource(input);
      const j = job;
      const s = source;
      running = (async () => {
        try {
          const opened = await openCore(j, s, unlock, policy, options);
          signed(Object.freeze(signatureInfo(opened)));
          await decryptBody(j, s, opened, 'bytes', options.onProgress, async (data) => {
            j.throwIfStopped();
            if (data instanceof Blob) controller.enqueue(await readBlob(data));
            else for (const piece of data) controller.enqueue(piece);
            // Backpressure: hold the pipeline while the consumer is not reading.
            while ((controller.desiredSize ?? 1) <= 0 && !j.signal.aborted) {
              await new Promise<void>((r) => {
                wake = r;
              });
            }
            j.throwIfStopped();
          });
          controller.close();
        } catch (e) {
          const err = j.error(e);
          j.fail(err);
          s.cancel(err);
          unsigned(err);
          try {
            controller.error(err);
          } catch {
            // already cancelled by the consumer
          }
        } finally {
          j.dispose();
        }
      })();
      j.signal.addEventListener('abort', () => wake?.(), { once: true });
    },
    pull() {
      const w = wake;
      wake = undefined;
      w?.();
    },
    cancel(reason) {
      job?.fail(reason ?? new DOMException('The stream was cancelled', 'AbortError'));
      wake?.();
      return running?.catch(() => {});
    },
  }, { highWaterMark: 1 });
  return Object.defineProperty(stream, 'signature', { value: signature, enumerable: true }) as ReadableStream<Uint8Array> & { readonly signature: Promise<SignatureInfo> };
}
