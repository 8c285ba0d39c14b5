/** Encryption: the plan, the signer, the chunk pipeline into an envelope sink, and {@link encryptFile}. */
import { VeilError } from '../../protocol/errors.js';
import { concatBytes } from '../bytes.js';
import { exact, integer } from '../validate.js';
import { CONTAINER, chunkCount, containerLength } from '../files-format.js';
import type { ChunkContext, ChunkKeys, EncryptPlan } from '../../protocol/files.protocol.js';
import { FileJob, JobState, batchProgress, batching, observe, pipeline, progress } from './job.js';
import { MAX_SAFE, checkInput, isKeystore, nowSeconds, planOf } from './options.js';
import { StreamBytes } from './source.js';
import type { EncryptFileOptions, FileInput, FileOperation, ThresholdOptions } from './types.js';

/** Where {@link encryptCore} writes the container: envelopes as they come, the header and leaf table last. */
export interface EnvelopeSink {
  readonly output: 'blob' | 'bytes';
  /** `prefixLength`: the header and the leaf table, written last (the first envelope starts there). */
  begin(prefixLength: number): Promise<void> | void;
  /** Envelopes of the chunks from `first`, in order. */
  put(first: number, data: Blob | readonly Uint8Array[]): Promise<void> | void;
  /** `prefix`: the final header followed by the leaf table. */
  finish(prefix: Uint8Array): Promise<void> | void;
  abort(reason: unknown): Promise<void> | void;
}

/** Feeds the chunks' leaves to the session's encryptor in order, in messages of up to 1024 chunks. */
class LeafFeed {
  private parts: Uint8Array[] = [];
  private first = 0;
  private count = 0;

  constructor(private readonly job: FileJob) {}

  async push(leaves: Uint8Array): Promise<void> {
    this.parts.push(leaves);
    this.count += leaves.length / CONTAINER.leafLength;
    if (this.count >= 1024) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const leaves = concatBytes(this.parts);
    const first = this.first;
    this.first += this.count;
    this.parts = [];
    this.count = 0;
    await this.job.run({ type: 'files/encrypt-leaves', session: this.job.session, first, leaves }, { session: true, transfer: [leaves.buffer] });
  }
}

/** The session's chunk keys and IVs for a range (the DEK stays in the session's worker). */
function chunkKeysOf(job: FileJob, fileId: Uint8Array, usage: 'encrypt' | 'decrypt'): (first: number, count: number) => Promise<ChunkKeys> {
  return (first, count) => job.run({ type: 'files/chunk-keys', session: job.session, fileId, first, count, usage }, { session: true });
}

/** Encrypts `input` into `sink` on the job's pool; the header, the threshold shares and the container length. */
export async function encryptCore(input: FileInput, options: EncryptFileOptions, sink: EnvelopeSink, state?: JobState<unknown>): Promise<{ header: Uint8Array; shares: string[]; length: number }> {
  const base = planOf(options);
  let size: number;
  let read: (first: number, count: number, bytes: number) => Promise<Blob | Uint8Array<ArrayBuffer>>;
  let stream: StreamBytes | undefined;
  if (input instanceof Blob) {
    size = input.size;
    if (options.size !== undefined && options.size !== size) throw new RangeError(`size ${String(options.size)} does not match the Blob's ${size} bytes`);
    read = async (first, _count, bytes) => input.slice(first * base.chunkSize, first * base.chunkSize + bytes);
  } else {
    if (options.size === undefined) throw new TypeError('a ReadableStream input needs options.size (its exact byte count)');
    size = integer('size', options.size, 0, MAX_SAFE);
    const s = new StreamBytes(input);
    stream = s;
    read = async (_first, _count, bytes) => {
      const b = await s.read(bytes);
      if (b.length !== bytes) throw new VeilError('SIZE_MISMATCH', `the stream ended after ${s.total} bytes; options.size is ${size}`);
      return b;
    };
  }
  if (Math.ceil(size / base.chunkSize) > 2 ** 32) throw new RangeError('the input needs more than 2^32 chunks at this chunk size');
  const job = new FileJob(options, state);
  try {
    const signer = await signerOf(options);
    // Secret bytes go to the worker as copies that are transferred (nothing stays on the page) and wiped there.
    const transfer: ArrayBuffer[] = [];
    const own = (b: Uint8Array): Uint8Array => {
      const c = b.slice();
      transfer.push(c.buffer);
      return c;
    };
    const plan: EncryptPlan = {
      ...base,
      plaintextSize: size,
      groups: base.groups.map((g) => ({ ...g, key: own(g.key) })),
      ...(base.fixedKeys ? { fixedKeys: { dek: own(base.fixedKeys.dek), fileId: base.fixedKeys.fileId } } : {}),
      ...(signer ? { signer: signer.plan.kind === 'keys' ? { ...signer.plan, ed25519Seed: own(signer.plan.ed25519Seed), ...(signer.plan.mlDsaSeed ? { mlDsaSeed: own(signer.plan.mlDsaSeed) } : {}) } : signer.plan } : {}),
    };
    // Argon2id / PBKDF2 run inside encrypt-begin: say so before it starts (it can take seconds).
    if (plan.passwords.length > 0) job.kdfStarted(size, chunkCount(size, base.chunkSize));
    const begun = await job.run({ type: 'files/encrypt-begin', session: job.session, plan }, { session: true, transfer });
    const keysFor = chunkKeysOf(job, begun.fileId, 'encrypt');
    const ctx: ChunkContext = { fileId: begun.fileId, headerHash: begun.headerHash, chunkSize: base.chunkSize, plaintextSize: size, hashAlgorithm: base.hashAlgorithm };
    await sink.begin(begun.prefixLength);
    const n = begun.chunkCount;
    const { batches, range } = batching(n, base.chunkSize, job.batchBytes);
    const tick = progress(options.onProgress, size, n, job.state);
    const leaves = new LeafFeed(job);
    await pipeline(job, batches, async (b) => {
      const [first, count] = range(b);
      const bytes = Math.min(size, (first + count) * base.chunkSize) - first * base.chunkSize;
      const [source, chunkKeys] = await Promise.all([read(first, count, bytes), keysFor(first, count)]);
      job.throwIfStopped();
      const steps = batchProgress(tick, bytes, count);
      const out = await job.run(
        { type: 'files/encrypt-chunks', chunkKeys, ctx, first, source, output: sink.output },
        source instanceof Uint8Array ? { transfer: [source.buffer], onProgress: steps.onProgress } : { onProgress: steps.onProgress },
      );
      steps.finish();
      return out;
    }, async (b, out) => {
      await sink.put(range(b)[0], out.data);
      if (!(out.leaves instanceof Uint8Array)) throw new VeilError('INTERNAL', 'a chunk batch came back without its leaves');
      await leaves.push(out.leaves);
    });
    if (stream !== undefined && await stream.hasMore()) {
      throw new VeilError('SIZE_MISMATCH', `the stream has more than options.size (${size}) bytes`);
    }
    await leaves.flush();
    const fin = await job.run({ type: 'files/encrypt-finish', session: job.session }, { session: true });
    let prefix: Uint8Array;
    if ('header' in fin) {
      prefix = fin.header;
    } else {
      if (!signer?.sign) throw new VeilError('INTERNAL', 'an external signature was requested without a signer');
      const sigs = await signer.sign(fin.unsignedHeader);
      prefix = await job.run({ type: 'files/encrypt-finish-signed', session: job.session, ...sigs }, { session: true });
    }
    if (prefix.length !== begun.prefixLength) throw new VeilError('INTERNAL', 'the header changed length');
    await sink.finish(prefix);
    return { header: prefix.slice(0, begun.headerLength), shares: begun.shares.flat(), length: containerLength(begun.headerLength, size, base.chunkSize) };
  } catch (e) {
    const err = job.error(e);
    job.fail(err);
    stream?.cancel(err);
    await Promise.resolve(sink.abort(err)).catch(() => {});
    throw err;
  } finally {
    job.dispose();
  }
}

interface PreparedSigner {
  readonly plan: NonNullable<EncryptPlan['signer']>;
  readonly sign?: (unsignedHeader: Uint8Array) => Promise<{ ed25519: Uint8Array; mlDsa65?: Uint8Array }>;
}

async function signerOf(o: EncryptFileOptions): Promise<PreparedSigner | undefined> {
  if (o.signWithKeys !== undefined) {
    const k = o.signWithKeys;
    return {
      plan: {
        kind: 'keys',
        ed25519Seed: exact('signWithKeys.ed25519Seed', k.ed25519Seed, 32),
        ...(k.mlDsaSeed === undefined ? {} : { mlDsaSeed: exact('signWithKeys.mlDsaSeed', k.mlDsaSeed, 32) }),
        keyLogId: k.keyLogId === undefined ? new Uint8Array(32) : exact('signWithKeys.keyLogId', k.keyLogId, 32),
        timestamp: integer('signWithKeys.timestamp', k.timestamp ?? nowSeconds(), 0, MAX_SAFE),
      },
    };
  }
  if (o.sign === undefined) return undefined;
  const s = o.sign;
  if (typeof s !== 'object' || s === null || !isKeystore(s.keystore) || typeof s.keystore.signContainerHeader !== 'function') {
    throw new TypeError('sign must be { keystore, identity }');
  }
  const bundle = await s.keystore.getPublicBundle(s.identity);
  // An identity with an ML-DSA-65 key always signs hybrid: an Ed25519-only header of a hybrid
  // identity would give verifiers pinning only its Ed25519 key no post-quantum authenticity.
  const hybrid = bundle.mlDsa65 !== undefined;
  if (s.hybrid === false && hybrid) throw new TypeError('an identity with an ML-DSA-65 key always signs hybrid (sign.hybrid: false is refused)');
  if (s.hybrid === true && !hybrid) throw new TypeError('sign.hybrid needs an identity with an ML-DSA-65 key');
  return {
    plan: {
      kind: 'external',
      ed25519Public: bundle.ed25519,
      ...(hybrid ? { mlDsa65Public: bundle.mlDsa65 } : {}),
      keyLogId: s.keyLogId === undefined ? new Uint8Array(32) : exact('sign.keyLogId', s.keyLogId, 32),
      timestamp: integer('sign.timestamp', s.timestamp ?? nowSeconds(), 0, MAX_SAFE),
    },
    // The keystore's dedicated request: it parses the header and builds the signed bytes itself
    // (its generic `sign` makes app signatures only, which never verify as header signatures).
    sign: async (unsignedHeader) => {
      const sig = await s.keystore.signContainerHeader(s.identity, unsignedHeader);
      if (hybrid !== (sig.mlDsa65 !== undefined)) throw new VeilError('INTERNAL', 'the keystore signed with another set of keys than its bundle names');
      return sig.mlDsa65 === undefined ? { ed25519: sig.ed25519 } : { ed25519: sig.ed25519, mlDsa65: sig.mlDsa65 };
    },
  };
}

function blobSink(type: string): EnvelopeSink & { result(): Blob | undefined } {
  let parts: (Blob | Uint8Array<ArrayBuffer>)[] = [];
  let out: Blob | undefined;
  return {
    output: 'blob',
    begin: () => {},
    put: (_first, data) => {
      if (data instanceof Blob) parts.push(data);
      else parts.push(...(data as Uint8Array<ArrayBuffer>[]));
    },
    finish: (header) => {
      out = new Blob([header as Uint8Array<ArrayBuffer>, ...parts], { type });
      parts = [];
    },
    abort: () => {
      parts = [];
    },
    result: () => out,
  };
}

/**
 * Encrypts a `File`, `Blob` or `ReadableStream` (with `options.size`) into a
 * VOLLVALT container `Blob`. With a threshold wrap the result carries the
 * `vcs_` shares (hand them out; they are not stored anywhere else).
 *
 * The returned promise is also a {@link FileOperation}: `subscribe` / `getSnapshot` observe its
 * progress and outcome without callbacks (e.g. with React's `useSyncExternalStore`).
 */
export function encryptFile(input: FileInput, options: EncryptFileOptions & { readonly threshold: ThresholdOptions }): FileOperation<Blob & { readonly shares: readonly string[] }>;
export function encryptFile(input: FileInput, options: EncryptFileOptions): FileOperation<Blob>;
export function encryptFile(input: FileInput, options: EncryptFileOptions): FileOperation<Blob> {
  const state = new JobState<Blob>();
  const signal = typeof options === 'object' && options !== null && options.signal instanceof AbortSignal ? options.signal : undefined;
  return observe(state, encryptBlob(input, options, state as JobState<unknown>), signal);
}

async function encryptBlob(input: FileInput, options: EncryptFileOptions, state: JobState<unknown>): Promise<Blob> {
  checkInput('input', input);
  const type = options?.type ?? 'application/octet-stream';
  if (typeof type !== 'string') throw new TypeError('type must be a string');
  const sink = blobSink(type);
  const r = await encryptCore(input, options, sink, state);
  const blob = sink.result();
  if (blob === undefined) throw new VeilError('INTERNAL', 'encryption ended without a container');
  if (options.threshold !== undefined) Object.defineProperty(blob, 'shares', { value: Object.freeze([...r.shares]), enumerable: true });
  return blob;
}
