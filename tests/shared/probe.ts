/**
 * The capability probe: what the engine running it really has, found by trying each feature
 * (never by reading `capabilities()` or the user agent's name). One module for the tests and the
 * README: tests/playwright/capabilities.spec.ts checks `capabilities()` against it, and
 * scripts/browser-support.mjs renders the README "Browser support" table from it
 * (tests/shared/browser-support.ts) in each engine.
 *
 * `probeContext()` runs in a page or a worker; `probeEngine()` runs in a page and also probes a
 * module worker (tests/shared/probe-worker.ts), where some features differ (SharedArrayBuffer and
 * the threads build are used there; OPFS's synchronous access handles exist only there, and
 * WebKit's workers have no `navigator.storage.getDirectory`). The page must be served with
 * COOP/COEP (tests/server.mjs) so that cross-origin isolation is part of what is probed.
 */

/** What one context (a page or a module worker) has. */
export interface ContextProbe {
  readonly crossOriginIsolated: boolean;
  /** `SharedArrayBuffer` is a constructor here. */
  readonly sharedArrayBuffer: boolean;
  /** A shared `WebAssembly.Memory` can be made (what the threads build needs). */
  readonly sharedWasmMemory: boolean;
  /** A module using a SIMD128 instruction validates. */
  readonly wasmSimd: boolean;
  /** WebCrypto, per algorithm: the operations veilkit's native routes use worked end to end. */
  readonly webCrypto: {
    /** PBKDF2-HMAC-SHA256 `deriveBits`. */
    readonly pbkdf2: boolean;
    /** X25519: two non-extractable key pairs agree on `deriveBits`. */
    readonly x25519: boolean;
    /** Ed25519: a non-extractable key signs, the public key verifies. */
    readonly ed25519: boolean;
    /**
     * Ed25519 verification decides two C2SP CCTV edge cases as veilkit's core does
     * (vectors/ed25519/cctv_ed25519vectors.json #50: accepted; #160, a low-order residue: refused).
     */
    readonly ed25519CoreRules: boolean;
    /** ML-KEM-768: generate, export the 1184-byte public key, `encapsulateBits`, `decapsulateBits` agree. */
    readonly mlKem768: boolean;
    /** ML-KEM-768: a non-extractable decapsulation key imports from a 64-byte `raw-seed`. */
    readonly mlKem768SeedImport: boolean;
    /** ML-DSA-65: a non-extractable key signs, the public key verifies. */
    readonly mlDsa65: boolean;
  };
  readonly indexedDb: boolean;
  readonly webLocks: boolean;
  readonly broadcastChannel: boolean;
  /** `navigator.storage.getDirectory()` resolves (the origin private file system). */
  readonly opfs: boolean;
  /** An OPFS file handle gives a `createWritable()` stream (what `encryptFileTo` writes to). */
  readonly opfsWritable: boolean;
  /** An OPFS file handle gives a synchronous access handle (workers only). */
  readonly opfsSyncAccess: boolean;
  /** `navigator.storage.persist` exists (the keystore's `persist` option). */
  readonly storagePersist: boolean;
  /** `showSaveFilePicker` exists (File System Access: `saveFile`'s picker). */
  readonly saveFilePicker: boolean;
}

/** What the engine has: a page and a module worker of the same page. */
export interface EngineProbe {
  readonly userAgent: string;
  readonly page: ContextProbe;
  readonly worker: ContextProbe | { readonly error: string };
}

// (module (func (result v128) i32.const 0 i8x16.splat)): validates only with SIMD128.
const SIMD_MODULE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11];

/** Runs the checks one after another; their results in order. */
async function inOrder(checks: readonly (() => Promise<boolean>)[]): Promise<boolean[]> {
  const out: boolean[] = [];
  for (const check of checks) out.push(await check());
  return out;
}

async function ok(f: () => Promise<boolean> | boolean): Promise<boolean> {
  try {
    return (await f()) === true;
  } catch {
    return false;
  }
}

function same(a: ArrayBuffer, b: ArrayBuffer): boolean {
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  return x.length === y.length && x.length > 0 && x.every((v, i) => v === y[i]);
}

/** The ML-KEM methods of SubtleCrypto (WICG "Modern Algorithms in WebCrypto"), absent from lib.dom. */
interface KemSubtle {
  encapsulateBits(alg: { name: string }, key: CryptoKey): Promise<{ ciphertext: ArrayBuffer; sharedKey: ArrayBuffer }>;
  decapsulateBits(alg: { name: string }, key: CryptoKey, ciphertext: BufferSource): Promise<ArrayBuffer>;
}

async function probeWebCrypto(): Promise<ContextProbe['webCrypto']> {
  const s = globalThis.crypto?.subtle;
  if (s === undefined) return { pbkdf2: false, x25519: false, ed25519: false, ed25519CoreRules: false, mlKem768: false, mlKem768SeedImport: false, mlDsa65: false };
  const msg = new TextEncoder().encode('veilkit probe');
  const signs = (name: string) => ok(async () => {
    const pair = await s.generateKey({ name }, false, ['sign', 'verify']) as CryptoKeyPair;
    const sig = await s.sign({ name }, pair.privateKey, msg);
    return pair.privateKey.extractable === false && await s.verify({ name }, pair.publicKey, sig, msg);
  });
  const kem = s as unknown as SubtleCrypto & KemSubtle;
  const alg = { name: 'ML-KEM-768' };
  // One check at a time (each engine's WebCrypto is probed as an app would use it, not under load).
  const [pbkdf2, x25519, ed25519, ed25519CoreRules, mlKem768, mlKem768SeedImport, mlDsa65] = await inOrder([
    () => ok(async () => {
      const key = await s.importKey('raw', msg, 'PBKDF2', false, ['deriveBits']);
      const bits = await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: msg, iterations: 2 }, key, 256);
      return bits.byteLength === 32;
    }),
    () => ok(async () => {
      const a = await s.generateKey({ name: 'X25519' }, false, ['deriveBits']);
      const b = await s.generateKey({ name: 'X25519' }, false, ['deriveBits']);
      const ab = await s.deriveBits({ name: 'X25519', public: b.publicKey }, a.privateKey, 256);
      const ba = await s.deriveBits({ name: 'X25519', public: a.publicKey }, b.privateKey, 256);
      return a.privateKey.extractable === false && same(ab, ba);
    }),
    () => signs('Ed25519'),
    () => ok(async () => {
      const hex = (h: string): Uint8Array<ArrayBuffer> => Uint8Array.from(h.match(/../g) ?? [], (x) => Number.parseInt(x, 16));
      const verdict = async (key: string, m: string, sig: string): Promise<boolean> => {
        const k = await s.importKey('raw', hex(key), { name: 'Ed25519' }, false, ['verify']);
        return s.verify({ name: 'Ed25519' }, k, hex(sig), new TextEncoder().encode(m));
      };
      const accepted = await verdict('10eb7c3acfb2bed3e0d6ab89bf5a3d6afddd1176ce4812e38d9fd485058fdb1f', 'ed25519vectors 5',
        'b62cf890de42c413b11b1411c9f01f1c4d77aa87ef182258d1251f69af2a350608f32d206a7c0b7efa9a59e66546e8f1f599ef843fb502c9cc3c4ae8b7c11e05');
      const refused = await verdict('dd1483c5304d412c1f29547640a5c2950222ee8931b7ed1c72602b7afa7024e0', 'ed25519vectors 3',
        'b797b156efcd45a4e2454d2fd0b21438b3ccd80d4c7fd1d1b2c8e55bd4ed4a9468966bbfc7bcce00aeebb561f0197cb0b823ec3f17056333fce73486dc3cbe06');
      return accepted && !refused;
    }),
    () => ok(async () => {
      if (typeof kem.encapsulateBits !== 'function') return false;
      const pair = await s.generateKey(alg, false, ['encapsulateBits', 'decapsulateBits'] as unknown as KeyUsage[]) as CryptoKeyPair;
      const ek = await s.exportKey('raw-public' as 'raw', pair.publicKey);
      const { ciphertext, sharedKey } = await kem.encapsulateBits(alg, pair.publicKey);
      const back = await kem.decapsulateBits(alg, pair.privateKey, ciphertext);
      return pair.privateKey.extractable === false && ek.byteLength === 1184 && ciphertext.byteLength === 1088 && same(back, sharedKey);
    }),
    () => ok(async () => {
      const key = await s.importKey('raw-seed' as 'raw', new Uint8Array(64).fill(7), alg, false, ['decapsulateBits'] as unknown as KeyUsage[]);
      return key.extractable === false;
    }),
    () => signs('ML-DSA-65'),
  ]);
  const is = (v: boolean | undefined): boolean => v === true;
  return {
    pbkdf2: is(pbkdf2), x25519: is(x25519), ed25519: is(ed25519), ed25519CoreRules: is(ed25519CoreRules),
    mlKem768: is(mlKem768), mlKem768SeedImport: is(mlKem768SeedImport), mlDsa65: is(mlDsa65),
  };
}

interface StorageWithDir {
  getDirectory?: () => Promise<FileSystemDirectoryHandle>;
  persist?: () => Promise<boolean>;
}

/** Probes the context it runs in (a page or a worker). */
export async function probeContext(): Promise<ContextProbe> {
  const g = globalThis as typeof globalThis & { showSaveFilePicker?: unknown; crossOriginIsolated?: boolean };
  const storage = (globalThis.navigator as { storage?: StorageWithDir } | undefined)?.storage;
  const tag = `veilkit-probe-${Math.random().toString(36).slice(2)}`;
  const dir = await (async () => {
    try {
      return typeof storage?.getDirectory === 'function' ? await storage.getDirectory() : undefined;
    } catch {
      return undefined;
    }
  })();
  const file = dir ? await dir.getFileHandle(tag, { create: true }).catch(() => undefined) : undefined;
  const opfsWritable = await ok(async () => {
    if (!file || typeof file.createWritable !== 'function') return false;
    const w = await file.createWritable();
    await w.write(new Uint8Array([1, 2, 3]));
    await w.close();
    return (await file.getFile()).size === 3;
  });
  const opfsSyncAccess = await ok(async () => {
    const f = file as (FileSystemFileHandle & { createSyncAccessHandle?: () => Promise<{ close(): void }> }) | undefined;
    if (!f || typeof f.createSyncAccessHandle !== 'function') return false;
    (await f.createSyncAccessHandle()).close();
    return true;
  });
  if (dir && file) await dir.removeEntry(tag).catch(() => {});
  const [webCrypto, indexedDb, webLocks] = await Promise.all([
    probeWebCrypto(),
    ok(() => new Promise<boolean>((resolve) => {
      const req = indexedDB.open(tag);
      req.onsuccess = () => {
        req.result.close();
        indexedDB.deleteDatabase(tag);
        resolve(true);
      };
      req.onerror = () => resolve(false);
    })),
    ok(async () => (await navigator.locks.request(tag, () => 'held')) === 'held'),
  ]);
  return {
    crossOriginIsolated: g.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
    sharedWasmMemory: await ok(() => typeof SharedArrayBuffer === 'function' && new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer),
    wasmSimd: await ok(() => WebAssembly.validate(new Uint8Array(SIMD_MODULE))),
    webCrypto,
    indexedDb,
    webLocks,
    broadcastChannel: await ok(() => {
      new BroadcastChannel(tag).close();
      return true;
    }),
    opfs: dir !== undefined,
    opfsWritable,
    opfsSyncAccess,
    storagePersist: typeof storage?.persist === 'function',
    saveFilePicker: typeof g.showSaveFilePicker === 'function',
  };
}

/** Probes the page and a module worker started from `workerUrl` (tests/shared/probe-worker.ts). */
export async function probeEngine(workerUrl: string): Promise<EngineProbe> {
  const page = await probeContext();
  const worker = await new Promise<ContextProbe | { error: string }>((resolve) => {
    const w = new Worker(workerUrl, { type: 'module' });
    const done = (v: ContextProbe | { error: string }) => {
      w.terminate();
      resolve(v);
    };
    w.onmessage = (e: MessageEvent<ContextProbe | { error: string }>) => done(e.data);
    w.onerror = (e) => done({ error: `worker error: ${e.message || 'failed to load'}` });
  });
  return { userAgent: navigator.userAgent, page, worker };
}
