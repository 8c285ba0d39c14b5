/** Reading inputs: byte streams, container sources (Blob or stream) and the container header. */
import { VeilError } from '../../protocol/errors.js';
import { concatBytes, readBlob } from '../bytes.js';
import type { ChunkContext, HeaderInfo, HeaderRead, SignaturePolicy } from '../../protocol/files.protocol.js';
import type { FileJob } from './job.js';
import type { ContainerHeader, FileInput, WrapInfo } from './types.js';

/** Sequential exact-size reads from a byte stream (each `read` waits for the previous one). */
export class StreamBytes {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private pending: Uint8Array | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private ended = false;
  total = 0;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /** Up to `n` bytes (fewer only at the end of the stream), in a fresh buffer. */
  read(n: number): Promise<Uint8Array<ArrayBuffer>> {
    const p = this.queue.then(() => this.readNow(n));
    this.queue = p.catch(() => {});
    return p;
  }

  private async readNow(n: number): Promise<Uint8Array<ArrayBuffer>> {
    const out = new Uint8Array(n);
    let have = 0;
    while (have < n) {
      if (this.pending === undefined) {
        if (this.ended) break;
        const { done, value } = await this.reader.read();
        if (done) {
          this.ended = true;
          break;
        }
        if (!(value instanceof Uint8Array)) throw new TypeError('the stream must yield Uint8Array chunks');
        this.pending = value;
      }
      const take = Math.min(n - have, this.pending.length);
      out.set(this.pending.subarray(0, take), have);
      have += take;
      this.pending = take === this.pending.length ? undefined : this.pending.subarray(take);
    }
    this.total += have;
    return have === n ? out : out.slice(0, have);
  }

  /** Whether the stream has more bytes. */
  async hasMore(): Promise<boolean> {
    const more = await this.read(1);
    return more.length > 0;
  }

  cancel(reason?: unknown): void {
    this.reader.cancel(reason).catch(() => {});
  }
}

/** A container input: random access (Blob) or sequential (stream). */
export interface ContainerSource {
  readonly size: number | undefined;
  /** Bytes `[0, n)` (fewer at the end), only ever called with growing `n` before `body`. */
  prefix(n: number): Promise<Uint8Array<ArrayBuffer>>;
  /** The next `length` bytes starting at `offset` (streams: must be called in order). */
  body(offset: number, length: number): Promise<Blob | Uint8Array<ArrayBuffer>>;
  /** Streams: whether bytes follow offset `end` (the container's end; every body read so far ends there). */
  trailing(end: number): Promise<boolean>;
  cancel(reason?: unknown): void;
}

export function containerSource(input: FileInput): ContainerSource {
  if (input instanceof Blob) {
    return {
      size: input.size,
      prefix: (n) => readBlob(input.slice(0, n)),
      body: async (offset, length) => input.slice(offset, offset + length),
      trailing: async () => false,
      cancel: () => {},
    };
  }
  const s = new StreamBytes(input);
  // Bytes already read from the stream: `buf` holds container bytes [bufStart, bufStart + buf.length).
  // State changes happen synchronously at call time; the stream reads themselves are queued in order.
  let buf: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  let bufStart = 0;
  return {
    size: undefined,
    prefix: async (n) => {
      if (bufStart !== 0) throw new VeilError('INTERNAL', 'prefix read after the body');
      if (n > buf.length) buf = concatBytes([buf, await s.read(n - buf.length)]);
      return buf.slice(0, n);
    },
    body: (offset, length) => {
      if (offset < bufStart) return Promise.reject(new VeilError('INTERNAL', 'stream bodies must be read in order'));
      const at = Math.min(offset - bufStart, buf.length);
      const head = buf.subarray(at, Math.min(buf.length, at + length));
      const end = offset + length;
      if (end <= bufStart + buf.length) {
        buf = buf.subarray(end - bufStart);
      } else {
        buf = new Uint8Array(0);
      }
      bufStart = end;
      const rest = length - head.length;
      if (rest === 0) return Promise.resolve(head.slice());
      return s.read(rest).then((tail) => (head.length === 0 ? tail : concatBytes([head, tail])));
    },
    trailing: async (end) => bufStart + buf.length > end || s.hasMore(),
    cancel: (reason) => s.cancel(reason),
  };
}

/** Reads the header (growing the prefix as the worker asks). */
export async function readHeader(job: FileJob, source: ContainerSource, policy: SignaturePolicy | undefined, keep: boolean): Promise<{ read: HeaderRead; bytes: Uint8Array; hash: Uint8Array }> {
  let n = Math.min(source.size ?? Infinity, 8192);
  for (;;) {
    const bytes = await source.prefix(n);
    const r = await job.run(
      { type: 'files/open', header: bytes, ...(policy ? { policy } : {}), ...(keep ? { session: job.session } : {}) },
      keep ? { session: true } : {},
    );
    if (r.needed === undefined) return { read: r, bytes: bytes.slice(0, r.info.headerLength), hash: r.info.headerHash };
    if (bytes.length < n || r.needed <= bytes.length) throw truncated(r.needed, bytes.length);
    n = r.needed;
  }
}

export function truncated(needed: number, got: number): VeilError {
  return new VeilError('TRUNCATED', `truncated: need ${needed} bytes, got ${got}`, { details: { needed, got } });
}

/**
 * The public {@link ContainerHeader} of the core's typed {@link HeaderInfo}: the one place it is
 * converted. Byte fields are copied, so the caller's header never aliases the session's.
 */
export function headerOf(r: HeaderInfo): ContainerHeader {
  if (!Number.isSafeInteger(r.plaintextSize) || !Number.isSafeInteger(r.containerLength)) {
    throw new VeilError('INVALID_PLAINTEXT_SIZE', 'the plaintext size is beyond what JavaScript can address');
  }
  const wraps = r.wraps.map((w): WrapInfo => {
    switch (w.type) {
      case 'pbkdf2': return { type: 'pbkdf2', iterations: w.iterations };
      case 'argon2id': return { type: 'argon2id', memoryKib: w.memoryKib, iterations: w.iterations, parallelism: w.parallelism };
      case 'group': return { type: 'group', groupId: w.groupId.slice(), keyVersion: w.keyVersion };
      case 'recipient': return { type: 'recipient', recipientId: w.recipientId.slice(), keyVersion: w.keyVersion };
      case 'threshold': return { type: 'threshold', t: w.t, n: w.n, shareSetId: w.shareSetId.slice() };
    }
  });
  return {
    version: r.version, mode: r.mode, fileId: r.fileId.slice(), chunkSize: r.chunkSize, plaintextSize: r.plaintextSize,
    merkleRoot: r.merkleRoot.slice(), hashAlgorithm: r.hashAlgorithm, headerLength: r.headerLength,
    containerLength: r.containerLength, chunkCount: r.chunkCount, wraps,
    signer: r.signer === null ? null : {
      ed25519: r.signer.ed25519.slice(), keyLogId: r.signer.keyLogId.slice(), timestamp: r.signer.timestamp,
      ...(r.signer.mlDsa65 === null ? {} : { mlDsa65: r.signer.mlDsa65.slice() }),
    },
    sealed: r.sealed === null ? null : { mode: r.sealed.mode, reason: r.sealed.reason, timestamp: r.sealed.timestamp, sealer: r.sealed.sealer.slice() },
  };
}

export function ctxOf(r: HeaderInfo, headerHash: Uint8Array): ChunkContext {
  return {
    fileId: r.fileId, headerHash, chunkSize: r.chunkSize, plaintextSize: r.plaintextSize,
    hashAlgorithm: r.hashAlgorithm === 'blake3' ? 1 : 0,
  };
}
