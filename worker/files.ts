/**
 * `files/*` handlers (protocol: protocol/files.protocol.ts), spread into the
 * worker's handler table.
 *
 * - Stateful (session) requests drive a wasm `ContainerEncryptorHandle` /
 *   `ContainerReaderHandle` kept in this worker: wraps and KDFs (Argon2id runs
 *   here, never on the page), the header, signatures, unlocking, the Merkle
 *   accumulator.
 * - The DEK is imported as a non-extractable HKDF `CryptoKey` into the
 *   session's worker and **never leaves it**: WebCrypto cannot restrict what
 *   an HKDF key derives (a `deriveKey` caller picks `extractable`), so an HKDF
 *   key on the page would hand the page every chunk key. The session worker
 *   derives each batch's chunk keys (`files/chunk-keys`: AES-256-GCM,
 *   non-extractable, the one usage the batch needs) and IVs exactly as the Rust
 *   engine does (FORMAT.md §6.3); only those cross the page.
 * - Chunk requests are stateless: with those keys and IVs each chunk is sealed
 *   / opened with WebCrypto AES-GCM. Each chunk's leaf (FORMAT.md §7) is hashed over
 *   its whole envelope here — SHA-256 by WebCrypto, BLAKE3 by the wasm core —
 *   and, when decrypting, compared with its leaf-table entry before the
 *   plaintext is released (the release rule of FORMAT.md §11).
 *
 * DEK bytes exist only between `takeDek` and `importKey` below and are wiped
 * there; password strings arrive from the page (JavaScript strings cannot be
 * wiped) and are encoded into buffers that are wiped after the wasm call.
 *
 * Size: one handler table whose handlers share the session map and the
 * chunk-key / IV / leaf / progress helpers above them; about 90 lines over ~400.
 */
import * as wasm from '../ts/wasm/veilkit.js';
import { call } from '../ts/init.js';
import { VeilError } from '../protocol/errors.js';
import {
  CONTAINER, HEADER_SIGNATURE_LABEL, KEY_COMMITMENT_LABEL, chunkAad, chunkIvInfo, chunkKeyInfo, chunkLength, envelopeOffset, hybridKekInfo, leafPreimage,
} from '../ts/files-format.js';
import { bs, equalBytes, readBlob } from '../ts/bytes.js';
import type { ChunkContext, ChunkKeys, ChunksOut, EncryptBegun, EncryptFinished, FilesReplies, FilesRequest, HeaderNeedsMore, HeaderRead } from '../protocol/files.protocol.js';
import type { HandlerTable, ProgressMessage } from '../protocol/protocol.js';

type Session = wasm.ContainerEncryptorHandle | wasm.ContainerReaderHandle;
const sessions = new Map<string, Session>();
/** Each session's DEK (non-extractable HKDF key): it never leaves this worker. */
const deks = new Map<string, CryptoKey>();
/** Encryption sessions whose header is signed elsewhere (`signedMessage` + `finishSigned`). */
const externallySigned = new Set<string>();
const enc = new TextEncoder();
const subtle = (): SubtleCrypto => globalThis.crypto.subtle;

function authFailed(): VeilError {
  return new VeilError('AUTHENTICATION_FAILED', 'authentication failed');
}

function session<T extends Session>(id: string, kind: new (...a: never[]) => T): T {
  const s = sessions.get(id);
  if (!(s instanceof kind)) throw new VeilError('INVALID_STATE', `no ${kind.name} for this operation in this worker (it was closed or the worker was replaced)`);
  return s;
}

function adopt(id: string, handle: Session): void {
  if (sessions.has(id)) {
    handle.free();
    throw new VeilError('INVALID_STATE', 'session id already in use');
  }
  sessions.set(id, handle);
}

/** Imports the DEK bytes as the session's HKDF key (kept in this worker) and wipes them. */
async function importDek(session: string, bytes: Uint8Array): Promise<void> {
  try {
    deks.set(session, await subtle().importKey('raw', bs(bytes), 'HKDF', false, ['deriveKey', 'deriveBits']));
  } finally {
    bytes.fill(0);
  }
}

/** Runs `fn` with the UTF-8 bytes of `text`, wiping them afterwards. */
function withUtf8<T>(text: string, fn: (b: Uint8Array) => T): T {
  if (typeof text !== 'string') throw new TypeError('password must be a string');
  const b = enc.encode(text);
  try {
    return fn(b);
  } finally {
    b.fill(0);
  }
}

/**
 * `chunk_key_i` (non-extractable AES-256-GCM keys with the one usage asked for)
 * and `chunk_iv_i` (FORMAT.md §6.3) of chunks `first … first + count − 1`,
 * derived from the session's DEK in this worker.
 */
async function chunkKeys(req: Extract<FilesRequest, { type: 'files/chunk-keys' }>): Promise<ChunkKeys> {
  const dek = deks.get(req.session);
  if (dek === undefined) throw new VeilError('INVALID_STATE', 'no DEK for this session in this worker (unlock first; it was closed or the worker was replaced)');
  if (!Number.isSafeInteger(req.first) || req.first < 0 || !Number.isSafeInteger(req.count) || req.count < 1 || req.count > 65_536) {
    throw new RangeError('first and count must be integers (1 ≤ count ≤ 65536)');
  }
  if (req.usage !== 'encrypt' && req.usage !== 'decrypt') throw new TypeError(`usage must be 'encrypt' or 'decrypt'`);
  const salt = bs(req.fileId);
  const ivs = new Uint8Array(CONTAINER.ivLength * req.count);
  const keys = await Promise.all(Array.from({ length: req.count }, async (_, k) => {
    const index = req.first + k;
    const [key, iv] = await Promise.all([
      subtle().deriveKey({ name: 'HKDF', hash: 'SHA-256', salt, info: chunkKeyInfo(index) }, dek, { name: 'AES-GCM', length: 256 }, false, [req.usage]),
      subtle().deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info: chunkIvInfo(index) }, dek, 96),
    ]);
    ivs.set(new Uint8Array(iv), CONTAINER.ivLength * k);
    return key;
  }));
  return { keys, ivs };
}

/** Key and IV of the `k`-th chunk of a request's {@link ChunkKeys}. */
function keyIv(ck: ChunkKeys, k: number): [CryptoKey, Uint8Array<ArrayBuffer>] {
  const key = ck.keys[k];
  if (!(key instanceof CryptoKey) || ck.ivs.length < CONTAINER.ivLength * (k + 1)) throw new TypeError('one chunk key and IV per chunk');
  return [key, bs(ck.ivs.subarray(CONTAINER.ivLength * k, CONTAINER.ivLength * (k + 1)))];
}

/** Bytes `[a, b)` of a request's source: a `Blob` slice read now, or a view of transferred bytes. */
function sourceReader(source: Blob | Uint8Array): { size: number; read: (a: number, b: number) => Promise<Uint8Array<ArrayBuffer>> } {
  if (source instanceof Blob) return { size: source.size, read: (a, b) => readBlob(source.slice(a, b)) };
  const bytes = bs(source);
  return { size: bytes.length, read: async (a, b) => bytes.subarray(a, b) };
}

/** Plaintext bytes per group inside one request: group g+1 is read while group g is in WebCrypto (16 MiB: large slices read fastest). */
const GROUP_BYTES = 16 << 20;

/**
 * Runs `work` over consecutive groups of a request, reading one group ahead:
 * while group g is being encrypted or decrypted (WebCrypto runs off this
 * thread), group g+1 is read and group g−1's output assembled.
 */
async function grouped<T>(bounds: readonly (readonly [number, number])[], read: (a: number, b: number) => Promise<Uint8Array<ArrayBuffer>>, work: (g: number, data: Uint8Array<ArrayBuffer>) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let prev: Promise<T> | undefined;
  try {
    for (const [g, [a, b]] of bounds.entries()) {
      const data = await read(a, b);
      const cur = work(g, data);
      if (prev !== undefined) {
        const p = prev;
        prev = undefined;
        out.push(await p);
      }
      prev = cur;
    }
    if (prev !== undefined) out.push(await prev);
  } finally {
    prev?.catch(() => {}); // an earlier failure: the pending group's outcome no longer matters
  }
  return out;
}

/**
 * The leaf of chunk `index` hashed over `iv` and `ctTag` (ciphertext ‖ tag),
 * the exact bytes this worker encrypted or is about to decrypt.
 */
async function leafOf(ctx: ChunkContext, index: number, length: number, iv: Uint8Array, ctTag: Uint8Array): Promise<Uint8Array> {
  if (ctx.hashAlgorithm === 1) {
    const env = new Uint8Array(16 + ctTag.length);
    new DataView(env.buffer).setUint32(0, index, false);
    env.set(iv, 4);
    env.set(ctTag, 16);
    return call(() => wasm.containerEnvelopeLeaf(1, ctx.fileId, ctx.chunkSize, ctx.plaintextSize, index, env));
  }
  return new Uint8Array(await subtle().digest('SHA-256', leafPreimage(ctx.fileId, index, length, iv, ctTag)));
}

/**
 * Plaintext bytes between two progress messages of a chunk request: one message per chunk at the
 * default 1 MiB chunk size, one per ~1 MiB of smaller chunks (the reply covers the rest).
 */
const PROGRESS_STEP_BYTES = 1 << 20;

/** Counts a request's finished chunks and posts a {@link ProgressMessage} every {@link PROGRESS_STEP_BYTES}. */
function progressOf(id: number): (bytes: number) => void {
  const scope = globalThis as unknown as { postMessage(message: ProgressMessage): void };
  let bytes = 0;
  let chunks = 0;
  return (len) => {
    bytes += len;
    chunks += 1;
    if (bytes < PROGRESS_STEP_BYTES) return;
    scope.postMessage({ type: 'veilkit/progress', id, bytes, chunks });
    bytes = 0;
    chunks = 0;
  };
}

function u32be(index: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, index, false);
  return b;
}

async function encryptChunks(req: Extract<FilesRequest, { type: 'files/encrypt-chunks' }>): Promise<ChunksOut> {
  const { ctx, first, chunkKeys: ck } = req;
  const src = sourceReader(req.source);
  // Chunk geometry of this request: every chunk but the file's last is full-size.
  const lens: number[] = [];
  for (let off = 0, index = first; off < src.size; index++) {
    const len = chunkLength(ctx, index);
    if (off + len > src.size) throw new VeilError('INVALID_CHUNK', 'chunk plaintext has the wrong length');
    lens.push(len);
    off += len;
  }
  if (lens.length === 0) throw new VeilError('INVALID_CHUNK', 'no chunk to encrypt');
  const per = Math.max(1, Math.floor(GROUP_BYTES / ctx.chunkSize));
  const bounds: [number, number][] = [];
  for (let k = 0; k < lens.length; k += per) bounds.push([k * ctx.chunkSize, k * ctx.chunkSize + lens.slice(k, k + per).reduce((x, y) => x + y, 0)]);
  const leaves = new Uint8Array(lens.length * CONTAINER.leafLength);
  const done = progressOf(req.id);
  const groups = await grouped(bounds, src.read, async (g, data) => {
    const k0 = g * per;
    const sealed = await Promise.all(lens.slice(k0, k0 + per).map(async (len, j) => {
      const index = first + k0 + j;
      const [key, iv] = keyIv(ck, k0 + j);
      const pt = data.subarray(j * ctx.chunkSize, j * ctx.chunkSize + len);
      const ct = new Uint8Array(await subtle().encrypt({ name: 'AES-GCM', iv, additionalData: chunkAad(ctx, index, len), tagLength: 128 }, key, pt));
      leaves.set(await leafOf(ctx, index, len, iv, ct), CONTAINER.leafLength * (k0 + j));
      done(len);
      return [iv, ct] as const;
    }));
    const parts: Uint8Array<ArrayBuffer>[] = [];
    sealed.forEach(([iv, ct], j) => {
      const head = new Uint8Array(16);
      head.set(u32be(first + k0 + j));
      head.set(iv, 4);
      parts.push(head, ct);
    });
    // Hand the group to the blob store now (while the next group is in WebCrypto).
    return req.output === 'blob' ? new Blob(parts) : parts;
  });
  return { data: req.output === 'blob' ? new Blob(groups as Blob[]) : (groups as Uint8Array[][]).flat(), leaves };
}

async function decryptChunks(req: Extract<FilesRequest, { type: 'files/decrypt-chunks' }>): Promise<ChunksOut> {
  const { ctx, first, count, chunkKeys: ck, leaves } = req;
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
  if (!(leaves instanceof Uint8Array) || leaves.length !== count * CONTAINER.leafLength) throw new TypeError('one 32-byte leaf per chunk');
  const src = sourceReader(req.source);
  const stride = ctx.chunkSize + CONTAINER.envelopeOverhead;
  // Every chunk of a request but the file's last is full-size.
  const expected = envelopeOffset(ctx.chunkSize, count - 1) + chunkLength(ctx, first + count - 1) + CONTAINER.envelopeOverhead;
  if (src.size < expected) throw new VeilError('TRUNCATED', `truncated: envelopes need ${expected} bytes, got ${src.size}`);
  if (src.size > expected) throw new VeilError('TRAILING_BYTES', 'trailing bytes after the last envelope');
  const per = Math.max(1, Math.floor(GROUP_BYTES / ctx.chunkSize));
  const bounds: [number, number][] = [];
  for (let k = 0; k < count; k += per) bounds.push([k * stride, Math.min(expected, (k + per) * stride)]);
  const bad: number[] = [];
  const done = progressOf(req.id);
  const groups = await grouped(bounds, src.read, async (g, data) => {
    const k0 = g * per;
    const n = Math.min(per, count - k0);
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const jobs: Promise<Uint8Array<ArrayBuffer>>[] = [];
    for (let j = 0, off = 0; j < n; j++) {
      const k = k0 + j;
      const index = first + k;
      const len = chunkLength(ctx, index);
      const at = off;
      const env = data.subarray(off, off + len + CONTAINER.envelopeOverhead);
      off += env.length;
      const storedIv = env.subarray(4, 16);
      const open = async (): Promise<Uint8Array<ArrayBuffer>> => {
        // A misplaced (swapped, spliced) envelope: FORMAT.md §6.5.
        if (view.getUint32(at, false) !== index) throw authFailed();
        // The release rule: the leaf of these exact bytes must be the table's entry.
        const leaf = await leafOf(ctx, index, len, storedIv, env.subarray(16));
        if (!equalBytes(leaf, leaves.subarray(CONTAINER.leafLength * k, CONTAINER.leafLength * (k + 1)))) throw authFailed();
        const [key, iv] = keyIv(ck, k);
        if (!equalBytes(iv, storedIv)) throw authFailed();
        try {
          const plain = new Uint8Array(await subtle().decrypt(
            { name: 'AES-GCM', iv, additionalData: chunkAad(ctx, index, len), tagLength: 128 }, key, env.subarray(16),
          ));
          done(len);
          return plain;
        } catch (e) {
          if (e instanceof DOMException && e.name === 'OperationError') throw authFailed();
          throw e;
        }
      };
      jobs.push(open());
    }
    if (req.discard) {
      // Verify only: every chunk is checked, the bad ones are listed, nothing is released.
      const outcomes = await Promise.allSettled(jobs);
      outcomes.forEach((o, j) => {
        if (o.status === 'rejected') {
          if (!(o.reason instanceof VeilError) || o.reason.code !== 'AUTHENTICATION_FAILED') throw o.reason;
          bad.push(first + k0 + j);
        }
      });
      return [] as Uint8Array<ArrayBuffer>[];
    }
    const plain = await Promise.all(jobs);
    return req.output === 'blob' ? new Blob(plain) : plain;
  });
  if (req.discard) return { data: [], bad };
  return { data: req.output === 'blob' ? new Blob(groups as Blob[]) : (groups as Uint8Array[][]).flat() };
}

/**
 * Unwraps the DEK of an X-Wing wrap whose shared secret is a (keystore) HKDF
 * key: WebCrypto only. The DEK never reaches Rust here, so this path checks
 * the header's DEK commitment itself (FORMAT.md §3.1): `K_c` is derived as a
 * non-extractable HMAC key and must verify `commitment` over the header-hash
 * preimage, or the unwrapped key is refused like a failed unwrap.
 */
async function unlockKem(req: Extract<FilesRequest, { type: 'files/unlock-kem' }>): Promise<true> {
  if (!(req.port instanceof MessagePort)) throw new TypeError('port must be a MessagePort');
  const port = req.port;
  const sharedSecret = await new Promise<CryptoKey>((resolve, reject) => {
    port.onmessage = (e: MessageEvent<{ key?: unknown; failed?: unknown }>) => {
      port.close();
      if (e.data?.key instanceof CryptoKey) resolve(e.data.key);
      else reject(new VeilError('AUTHENTICATION_FAILED', 'the keystore did not deliver the shared secret'));
    };
  });
  const kek = await subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: bs(req.fileId), info: hybridKekInfo(req.recipientId, req.keyVersion) },
    sharedSecret, { name: 'AES-KW', length: 256 }, false, ['unwrapKey'],
  );
  let dek: CryptoKey;
  try {
    dek = await subtle().unwrapKey('raw', bs(req.wrapped), kek, 'AES-KW', 'HKDF', false, ['deriveKey', 'deriveBits']);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'OperationError') throw authFailed();
    throw e;
  }
  const kc = await subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: bs(req.fileId), info: KEY_COMMITMENT_LABEL },
    dek, { name: 'HMAC', hash: 'SHA-256', length: 256 }, false, ['verify'],
  );
  if (!await subtle().verify('HMAC', kc, bs(req.commitment), bs(req.preimage))) throw authFailed();
  deks.set(req.session, dek);
  return true;
}

function openHeader(req: Extract<FilesRequest, { type: 'files/open' }>): HeaderRead | HeaderNeedsMore {
  const len = call(() => wasm.containerHeaderLength(req.header));
  if (len < 0 || len > req.header.length) return { needed: Math.abs(len) };
  const reader = call(() => new wasm.ContainerReaderHandle(req.header));
  try {
    const info = reader.info();
    let signature: HeaderRead['signature'];
    const policy = req.policy;
    if (policy) {
      const pin = policy.expectedSigner;
      signature = call(() => reader.checkSignature(policy.required, pin?.ed25519, pin?.mlDsa65)) as HeaderRead['signature'];
    } else {
      try {
        signature = call(() => reader.checkSignature(false, undefined, undefined)) as HeaderRead['signature'];
      } catch (e) {
        if (!(e instanceof VeilError) || e.code !== 'INVALID_SIGNATURE') throw e;
        signature = 'invalid';
      }
    }
    if (req.session !== undefined) adopt(req.session, reader);
    else reader.free();
    return { info, signature };
  } catch (e) {
    if (sessions.get(req.session ?? '') !== reader) reader.free();
    throw e;
  }
}

/** The test-only constructor, present only in a module built with the cargo feature `testing` (VEILKIT_TESTING=1). */
type FixedKeysConstructor = (plaintextSize: number, chunkSize: number, hashAlgorithm: number, dek: Uint8Array, fileId: Uint8Array) => wasm.ContainerEncryptorHandle;

function withFixedKeys(p: Extract<FilesRequest, { type: 'files/encrypt-begin' }>['plan'], keys: { dek: Uint8Array; fileId: Uint8Array }): wasm.ContainerEncryptorHandle {
  const make = (wasm.ContainerEncryptorHandle as unknown as { withFixedKeysForTesting?: FixedKeysConstructor }).withFixedKeysForTesting;
  if (typeof make !== 'function') {
    throw new VeilError('INVALID_OPTION', 'unsafeFixedKeysForTesting needs a wasm module built for tests (VEILKIT_TESTING=1 bash scripts/build.sh); the shipped module has no fixed-key constructor');
  }
  return make(p.plaintextSize, p.chunkSize, p.hashAlgorithm, keys.dek, keys.fileId);
}

function beginEncrypt(req: Extract<FilesRequest, { type: 'files/encrypt-begin' }>): Promise<EncryptBegun> {
  const p = req.plan;
  const h = call(() => (p.fixedKeys
    ? withFixedKeys(p, p.fixedKeys)
    : new wasm.ContainerEncryptorHandle(p.plaintextSize, p.chunkSize, p.hashAlgorithm)));
  const run = async (): Promise<EncryptBegun> => {
    for (const w of p.passwords) {
      withUtf8(w.password, (pw) => call(() => (w.kdf.algorithm === 'argon2id'
        ? h.addArgon2id(pw, w.kdf.memoryKib, w.kdf.iterations, w.kdf.parallelism)
        : h.addPbkdf2(pw, w.kdf.iterations))));
    }
    for (const r of p.recipients) call(() => h.addRecipient(r.publicKey, r.keyVersion, r.recipientId));
    for (const g of p.groups) {
      try {
        call(() => h.addGroup(g.id, g.keyVersion, g.key));
      } finally {
        g.key.fill(0); // this worker's structured-clone copy
      }
    }
    const shares = p.thresholds.map((t) => call(() => h.addThreshold(t.t, t.n)).split('\n'));
    const s = p.signer;
    if (s?.kind === 'keys') {
      try {
        call(() => h.setSigner(s.ed25519Seed, s.mlDsaSeed, s.keyLogId, s.timestamp));
      } finally {
        s.ed25519Seed.fill(0);
        s.mlDsaSeed?.fill(0);
      }
    } else if (s?.kind === 'external') {
      call(() => h.setExternalSigner(s.ed25519Public, s.mlDsa65Public, s.keyLogId, s.timestamp));
    }
    const headerLength = call(() => h.headerLength());
    const prefixLength = call(() => h.prefixLength());
    adopt(req.session, h);
    await importDek(req.session, call(() => h.takeDek()));
    if (s?.kind === 'external') externallySigned.add(req.session);
    return { headerLength, prefixLength, chunkCount: h.chunkCount(), fileId: h.fileId(), headerHash: h.headerHash(), shares };
  };
  return run().catch((e: unknown) => {
    if (sessions.get(req.session) !== h) h.free();
    throw e;
  }).finally(() => p.fixedKeys?.dek.fill(0));
}

/** The `files/*` handlers, spread into the worker's handler table; each returns `FilesReplies[type]`. */
export const filesHandlers: HandlerTable<FilesRequest, FilesReplies> = {
  'files/encrypt-begin': (req) => beginEncrypt(req),
  'files/encrypt-leaves': (req) => {
    call(() => session(req.session, wasm.ContainerEncryptorHandle).pushChunkLeaves(req.first, req.leaves));
    return true as const;
  },
  'files/encrypt-finish': (req): EncryptFinished => {
    const h = session(req.session, wasm.ContainerEncryptorHandle);
    if (externallySigned.has(req.session)) {
      // signedMessage = "vollcrypt-file-header-signature-v1" ‖ the header before its signature table; the keystore adds the label itself.
      const signed = call(() => h.signedMessage());
      if (!equalBytes(signed.subarray(0, HEADER_SIGNATURE_LABEL.length), HEADER_SIGNATURE_LABEL)) throw new VeilError('INTERNAL', 'the signed header bytes lack their label');
      return { unsignedHeader: signed.slice(HEADER_SIGNATURE_LABEL.length) };
    }
    return { header: call(() => h.finish()) };
  },
  'files/encrypt-finish-signed': (req) => call(() => session(req.session, wasm.ContainerEncryptorHandle).finishSigned(req.ed25519, req.mlDsa65)),
  'files/encrypt-chunks': (req) => encryptChunks(req),
  'files/open': (req) => openHeader(req),
  'files/unlock': async (req) => {
    const r = session(req.session, wasm.ContainerReaderHandle);
    const u = req.unlock;
    // Budgets past u32 mean "no cap" to the core (its format bounds are far below).
    const b = req.kdfBudget;
    const u32 = (v: number): number => Math.min(v, 0xffff_ffff);
    r.setKdfBudget(u32(b.argon2MemoryKib), u32(b.argon2Iterations), u32(b.pbkdf2Iterations), u32(b.passwordWraps));
    switch (u.kind) {
      case 'password':
        withUtf8(u.password, (pw) => call(() => r.unlockPassword(pw)));
        break;
      case 'group':
        try {
          call(() => r.unlockGroup(u.id, u.keyVersion, u.key));
        } finally {
          u.key.fill(0);
        }
        break;
      case 'shares':
        call(() => r.unlockShares(u.shares.join('\n')));
        break;
      case 'x-wing-secret-key':
        try {
          call(() => r.unlockRecipient(u.secretKey, u.recipientId));
        } finally {
          u.secretKey.fill(0);
        }
        break;
      default:
        throw new TypeError('unknown unlock method');
    }
    await importDek(req.session, call(() => r.takeDek()));
    return true as const;
  },
  'files/unlock-kem': (req) => unlockKem(req),
  'files/recipient-id': (req) => call(() => wasm.containerRecipientId(req.xWingPublicKey)),
  'files/chunk-keys': (req) => chunkKeys(req),
  'files/leaf-table': (req) => {
    call(() => session(req.session, wasm.ContainerReaderHandle).setLeafTable(req.table));
    return true as const;
  },
  'files/decrypt-chunks': (req) => decryptChunks(req),
  'files/close': (req) => {
    const s = sessions.get(req.session);
    sessions.delete(req.session);
    deks.delete(req.session);
    externallySigned.delete(req.session);
    s?.free();
    return true as const;
  },
};

export type { ChunkContext };
