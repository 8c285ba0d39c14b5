/** Opening a container for reading: header and policy, the leaf table against the root, then unlocking the DEK. */
import { VeilError } from '../../protocol/errors.js';
import { equalBytes, readBlob } from '../bytes.js';
import { resolveKdfBudget } from '../keystore-format.js';
import type { KdfBudget } from '../../protocol/keystore.protocol.js';
import type { ChunkContext, ChunkKeys, HeaderInfo, HeaderWrapInfo, SignaturePolicy, UnlockSpec } from '../../protocol/files.protocol.js';
import { anySignal, type FileJob } from './job.js';
import { unlockOf, type UnlockRoute } from './options.js';
import { ctxOf, headerOf, readHeader, truncated, type ContainerSource } from './source.js';
import type { ContainerHeader, FileUnlock, SignatureInfo, SignatureStatus, UnlockOptions } from './types.js';

/** A container opened by {@link openCore}: its header, signature status, chunk context, chunk keys and the checked leaf table. */
export interface Opened {
  readonly raw: HeaderInfo;
  readonly header: ContainerHeader;
  readonly headerBytes: Uint8Array;
  readonly signature: Exclude<SignatureStatus, 'invalid'>;
  readonly ctx: ChunkContext;
  /** Chunk keys (one usage) and IVs of a range, from the DEK in the session's worker. */
  readonly keys: (first: number, count: number, signal?: AbortSignal) => Promise<ChunkKeys>;
  /** The leaf table, checked against the header's root by the session reader. */
  readonly table: Uint8Array;
  /** Offset of the first envelope: header and leaf table. */
  readonly bodyOffset: number;
}

/** Recovers the DEK into the session's worker (it stays there). */
async function unlockDek(job: FileJob, raw: HeaderInfo, route: UnlockRoute, kdfBudget: Required<KdfBudget>): Promise<void> {
  if (route.kind === 'worker') {
    const spec = route.spec;
    // Our copies of secret bytes are handed over (transferred) and wiped by the worker.
    let body: UnlockSpec = spec;
    const transfer: ArrayBuffer[] = [];
    if (spec.kind === 'group') {
      const key = spec.key.slice();
      transfer.push(key.buffer);
      body = { ...spec, key };
    } else if (spec.kind === 'x-wing-secret-key') {
      const secretKey = spec.secretKey.slice();
      transfer.push(secretKey.buffer);
      body = { ...spec, secretKey };
    }
    await job.run({ type: 'files/unlock', session: job.session, unlock: body, kdfBudget }, { session: true, transfer });
    return;
  }
  // A keystore identity: decapsulate in the keystore's worker (HKDF key of the
  // X-Wing shared secret), which posts the key straight to the session's files
  // worker on a MessageChannel (the page relays the two ports, never the key);
  // that worker derives the KEK, unwraps and checks the DEK commitment —
  // WebCrypto keys all the way, no secret bytes, no derivable key on the page.
  if (raw.wraps.length === 0) throw new VeilError('NO_WRAPS', 'the container has no wrap entry');
  const bundle = await route.keystore.getPublicBundle(route.identity);
  const rid = await job.run({ type: 'files/recipient-id', xWingPublicKey: bundle.xWing });
  const all = raw.wraps.filter((w): w is Extract<HeaderWrapInfo, { type: 'recipient' }> => w.type === 'recipient');
  const mine = all.filter((w) => equalBytes(w.recipientId, rid));
  const candidates = mine.length > 0 ? mine : all;
  if (candidates.length === 0) throw new VeilError('NO_MATCHING_WRAP', 'no wrap entry matches the unlock method');
  for (const w of candidates) {
    const { port1, port2 } = new MessageChannel();
    try {
      // In this order: the key waits in the channel until the session worker takes port2, so no
      // worker ever waits for another one (the keystore may share this pool, even this worker).
      await route.keystore.decapsulate(route.identity, 'x-wing', w.ciphertext, { output: 'hkdf', port: port1 });
      await job.run({
        type: 'files/unlock-kem', session: job.session, port: port2, fileId: raw.fileId, recipientId: w.recipientId,
        keyVersion: w.keyVersion, wrapped: w.wrapped, commitment: raw.dekCommitment, preimage: raw.headerHashPreimage,
      }, { session: true, transfer: [port2] });
      return;
    } catch (e) {
      if (!(e instanceof VeilError) || e.code !== 'AUTHENTICATION_FAILED') throw e;
    }
  }
  throw new VeilError('AUTHENTICATION_FAILED', 'authentication failed');
}

/** Header, signature policy, seal check, length check (Blobs), the leaf table against the root, then unlock. */
export async function openCore(job: FileJob, source: ContainerSource, unlock: FileUnlock, policy: SignaturePolicy, options: UnlockOptions): Promise<Opened> {
  const route = unlockOf(unlock);
  const kdfBudget = resolveKdfBudget(options.kdfBudget);
  const { read, bytes, hash } = await readHeader(job, source, policy, true);
  const raw = read.info;
  const header = headerOf(raw);
  if (raw.sealed !== null) throw new VeilError('SEALED', 'the container is sealed');
  if (source.size !== undefined && source.size !== raw.containerLength) {
    if (source.size < raw.containerLength) throw truncated(raw.containerLength, source.size);
    throw new VeilError('TRAILING_BYTES', 'trailing bytes after the last structure');
  }
  // The leaf table before any key work: it must match the (signed) root.
  const at = raw.headerLength;
  const got = await source.body(at, raw.leafTableLength);
  const table = got instanceof Blob ? await readBlob(got) : got;
  if (table.length < raw.leafTableLength) throw truncated(at + raw.leafTableLength, at + table.length);
  await job.run({ type: 'files/leaf-table', session: job.session, table }, { session: true });
  if (route.kind === 'worker' && route.spec.kind === 'password') job.kdfStarted(raw.plaintextSize, raw.chunkCount);
  await unlockDek(job, raw, route, kdfBudget);
  const fileId = raw.fileId;
  const keys = (first: number, count: number, signal?: AbortSignal) => job.pool.run(
    { type: 'files/chunk-keys', session: job.session, fileId, first, count, usage: 'decrypt' },
    { affinity: `files:${job.session}`, signal: anySignal(job.signal, signal) },
  );
  return {
    raw, header, headerBytes: bytes, signature: read.signature as Opened['signature'], ctx: ctxOf(raw, hash), keys,
    table, bodyOffset: at + raw.leafTableLength,
  };
}

export function signatureInfo(o: Opened): SignatureInfo {
  const s = o.header.signer;
  return { status: o.signature, signer: s === null ? null : { ed25519: s.ed25519, ...(s.mlDsa65 ? { mlDsa65: s.mlDsa65 } : {}) } };
}
