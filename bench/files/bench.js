// veilkit file benchmark, in the page (driven by bench/files/run.mjs).
// Every case works on the same generated plaintext (an OPFS File of `mib` MiB
// of AES-CTR keystream, disk-backed, so in-memory Blob quotas only count the
// outputs). Each case runs `reps` times; results are MiB/s of plaintext.
import { encryptFile, decryptFile, WorkerPool, init, blake3 } from '/dist/ts/index.js';
// openpgp.js is loaded when its cases run, so an engine where it cannot load still runs the rest
// (reported under notRun with the reason).

const MIB = 1 << 20;
const q = new URLSearchParams(location.search);
const mib = Number(q.get('mib') ?? 256);
const reps = Number(q.get('reps') ?? 3);
const only = q.get('only');
/** Optional tuning (`--batch <MiB>`, `--concurrency <n>`): veilkit's batchBytes / concurrency. */
const tuning = {
  ...(q.get('batch') ? { batchBytes: Number(q.get('batch')) * MIB } : {}),
  ...(q.get('concurrency') ? { concurrency: Number(q.get('concurrency')) } : {}),
};
const log = (...a) => console.log('bench-files:', ...a);
/** The raw loops' 96-bit counter IV for chunk `i` (one key per run, so never repeated). */
const iv = (i) => { const b = new Uint8Array(12); new DataView(b.buffer).setUint32(8, i); return b; };
const gc = () => globalThis.gc?.();
/** The format's minimum Argon2id cost: the password KDF is not what is measured here (its default cost is, once, below). */
const FAST = { algorithm: 'argon2id', memoryKib: 19456, iterations: 2, parallelism: 1 };
const PASSWORD = 'benchmark password';

/** Whether this engine can write OPFS files from the page (createWritable); where not, inputs stay in-memory Blobs. */
let opfsWritable = true;

async function generate(dir, name) {
  const key = await crypto.subtle.importKey('raw', new Uint8Array(16).fill(3), 'AES-CTR', false, ['encrypt']);
  const zero = new Uint8Array(MIB);
  const chunk = async (i) => {
    const counter = new Uint8Array(16);
    new DataView(counter.buffer).setUint32(8, i);
    return new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-CTR', counter, length: 64 }, key, zero));
  };
  if (!opfsWritable) {
    const parts = [];
    for (let i = 0; i < mib; i++) parts.push(new Blob([await chunk(i)]));
    return new Blob(parts);
  }
  const fh = await dir.getFileHandle(name, { create: true });
  const w = await fh.createWritable();
  for (let i = 0; i < mib; i++) await w.write(await chunk(i));
  await w.close();
  return fh.getFile();
}

async function toFile(dir, name, blob) {
  if (!opfsWritable) return blob;
  const fh = await dir.getFileHandle(name, { create: true });
  const w = await fh.createWritable();
  await w.write(blob);
  await w.close();
  return fh.getFile();
}

/** Runs `fn` `reps` times (GC before each) and returns every duration in ms. */
async function timed(name, fn) {
  const ms = [];
  for (let r = 0; r < reps; r++) {
    gc();
    await new Promise((res) => setTimeout(res, 50));
    const t0 = performance.now();
    await fn(r);
    ms.push(performance.now() - t0);
  }
  log(name, ms.map((x) => x.toFixed(0)).join(' '), 'ms');
  return ms;
}

async function main() {
  const results = [];
  const record = (name, ms, bytes, note = '') => {
    const sorted = [...ms].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    results.push({ name, mibps: bytes / MIB / (median / 1000), bestMibps: bytes / MIB / (sorted[0] / 1000), ms: ms.map((x) => Math.round(x)), note });
  };
  const want = (name) => !only || only.split('|').some((s) => name.includes(s));
  /** Cases that could not run here, with the reason (never dropped silently). */
  const notRun = [];
  const section = async (name, fn) => {
    try {
      await fn();
    } catch (e) {
      log(`${name} did not run: ${e?.message ?? e}`);
      notRun.push({ name, reason: String(e?.message ?? e) });
    }
  };
  const notes = [];
  let root;
  let dir;
  try {
    root = await navigator.storage.getDirectory();
    dir = await root.getDirectoryHandle(`bench-files-${Date.now()}`, { create: true });
    const probe = await dir.getFileHandle('probe', { create: true });
    if (typeof probe.createWritable !== 'function') throw new Error('FileSystemFileHandle.createWritable is missing');
  } catch (e) {
    opfsWritable = false;
    notes.push(`no writable OPFS on this page (${e?.message ?? e}): the plaintext and the ciphertexts are in-memory Blobs, not disk-backed Files`);
  }
  try {
    log(`generating ${mib} MiB`);
    const plain = await generate(dir, 'plain.bin');
    const bytes = plain.size;
    const cores = navigator.hardwareConcurrency || 2;

    // ---- ceiling: raw WebCrypto AES-GCM over the same 1 MiB chunks, already in memory
    if (want('ceiling')) await section('ceiling', async () => {
      const chunks = [];
      for (let i = 0; i < mib; i++) chunks.push(new Uint8Array(await plain.slice(i * MIB, (i + 1) * MIB).arrayBuffer()));
      const key = await crypto.subtle.importKey('raw', crypto.getRandomValues(new Uint8Array(32)), 'AES-GCM', false, ['encrypt']);
      record('ceiling: WebCrypto AES-GCM, 1 MiB chunks in memory, one at a time', await timed('ceiling-seq', async () => {
        for (let i = 0; i < chunks.length; i++) await crypto.subtle.encrypt({ name: 'AES-GCM', iv: iv(i) }, key, chunks[i]);
      }), bytes);
      record(`ceiling: WebCrypto AES-GCM, 1 MiB chunks in memory, ${cores} in flight`, await timed('ceiling-par', async () => {
        for (let i = 0; i < chunks.length; i += cores) {
          await Promise.all(chunks.slice(i, i + cores).map((c, k) => crypto.subtle.encrypt({ name: 'AES-GCM', iv: iv(i + k) }, key, c)));
        }
      }), bytes);
      chunks.length = 0;
    });

    // ---- the leaf hash alone (FORMAT.md §7: every chunk's leaf covers its whole ciphertext), over the
    // same 1 MiB chunks in memory: SHA-256 by WebCrypto `digest` (what the workers use for hash 0) and
    // BLAKE3 by the SIMD wasm (hash 1), on this thread; the pool spreads either over its workers.
    if (want('hash')) await section('leaf hash', async () => {
      await init({ threads: false });
      const chunks = [];
      for (let i = 0; i < Math.min(mib, 64); i++) chunks.push(new Uint8Array(await plain.slice(i * MIB, (i + 1) * MIB).arrayBuffer()));
      const hashed = chunks.length * MIB;
      record('leaf hash: WebCrypto SHA-256 digest, 1 MiB chunks in memory, one at a time', await timed('hash-sha256-seq', async () => {
        for (const c of chunks) await crypto.subtle.digest('SHA-256', c);
      }), hashed);
      record(`leaf hash: WebCrypto SHA-256 digest, 1 MiB chunks in memory, ${cores} in flight`, await timed('hash-sha256-par', async () => {
        for (let i = 0; i < chunks.length; i += cores) await Promise.all(chunks.slice(i, i + cores).map((c) => crypto.subtle.digest('SHA-256', c)));
      }), hashed);
      record('leaf hash: wasm BLAKE3 (SIMD128), 1 MiB chunks in memory, this thread', await timed('hash-blake3', async () => {
        for (const c of chunks) blake3(c);
      }), hashed);
      chunks.length = 0;
    });

    // ---- the I/O alone (no crypto): the same File read in 16 MiB slices into a new Blob, on this thread
    if (want('io')) await section('I/O floor', async () => {
      record('I/O floor: File read in 16 MiB slices → new Blob, no crypto', await timed('io', async () => {
        const parts = [];
        for (let off = 0; off < bytes; off += 16 * MIB) parts.push(new Blob([await plain.slice(off, off + 16 * MIB).arrayBuffer()]));
        const out = new Blob(parts);
        await out.slice(out.size - 1).arrayBuffer();
      }), bytes);
    });

    // ---- the raw WebCrypto chunk loop over the same I/O: the same File read in 16-chunk slices (one read
    // ahead), every 1 MiB chunk of a slice sealed with WebCrypto AES-GCM (one key, counter IVs, no
    // key derivation, no format), the ciphertexts collected into a Blob — the peer for "≥ 0.8× raw loop"
    if (want('raw')) await section('raw WebCrypto chunk loop', async () => {
      const key = await crypto.subtle.importKey('raw', crypto.getRandomValues(new Uint8Array(32)), 'AES-GCM', false, ['encrypt', 'decrypt']);
      const loop = async (src, chunk, op) => {
        const SLICE = 16 * chunk;
        const parts = [];
        let idx = 0;
        let next = src.slice(0, SLICE).arrayBuffer();
        for (let off = 0; off < src.size; off += SLICE) {
          const d = new Uint8Array(await next);
          if (off + SLICE < src.size) next = src.slice(off + SLICE, off + 2 * SLICE).arrayBuffer();
          const outs = [];
          for (let a = 0; a < d.length; a += chunk) outs.push(crypto.subtle[op]({ name: 'AES-GCM', iv: iv(idx++) }, key, d.subarray(a, Math.min(d.length, a + chunk))));
          parts.push(new Blob(await Promise.all(outs)));
        }
        const out = new Blob(parts);
        await out.slice(out.size - 1).arrayBuffer();
        return out;
      };
      let sealedRaw;
      record('raw WebCrypto chunk loop: File → AES-GCM 1 MiB chunks → Blob (encrypt)', await timed('raw-enc', async () => {
        // Drop the previous run's Blob first (as the veilkit cases do): with several 256 MiB Blobs alive
        // Chromium pages blob data to disk, and reads of paged blobs fail here (NotReadableError).
        sealedRaw = undefined;
        sealedRaw = await loop(plain, MIB, 'encrypt');
      }), bytes);
      const rawFile = await toFile(dir, 'raw.bin', sealedRaw);
      sealedRaw = undefined;
      record('raw WebCrypto chunk loop: File → AES-GCM 1 MiB chunks → Blob (decrypt)', await timed('raw-dec', async () => {
        const out = await loop(rawFile, MIB + 16, 'decrypt');
        if (out.size !== bytes) throw new Error('size');
      }), bytes);
    });

    // ---- veilkit: File → container Blob, container File → plaintext Blob
    let sealedFile;
    for (const workers of [1, cores]) {
      const label = workers === 1 ? '1 worker' : `full pool (${workers} workers)`;
      if (!want('veilkit') && !(workers === 1 && want('w1'))) continue;
      await section(`veilkit, ${label}`, async () => {
      const pool = new WorkerPool({ size: workers, idleTimeoutMs: 0, threads: false });
      try {
        await decryptFile(await encryptFile(new Blob([new Uint8Array(1000)]), { password: PASSWORD, kdf: FAST, pool }), PASSWORD, { pool }); // warm-up
        let sealed;
        record(`veilkit encryptFile, ${label}`, await timed(`veilkit-enc-w${workers}`, async () => {
          sealed = undefined;
          sealed = await encryptFile(plain, { password: PASSWORD, kdf: FAST, pool, ...tuning });
        }), bytes);
        sealedFile = await toFile(dir, `sealed-${workers}.vvlt`, sealed);
        sealed = undefined;
        record(`veilkit decryptFile (verified → Blob), ${label}`, await timed(`veilkit-dec-w${workers}`, async () => {
          const out = await decryptFile(sealedFile, PASSWORD, { pool, ...tuning });
          if (out.size !== bytes) throw new Error('size');
        }), bytes);
        record(`veilkit decryptFile (streaming, drained), ${label}`, await timed(`veilkit-decs-w${workers}`, async () => {
          const reader = decryptFile(sealedFile, PASSWORD, { pool, releaseMode: 'streaming', ...tuning }).getReader();
          let n = 0;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            n += value.length;
          }
          if (n !== bytes) throw new Error('size');
        }), bytes);
      } finally {
        pool.dispose();
      }
      });
    }

    // ---- veilkit with the BLAKE3 Merkle hash (leaves hashed by the wasm in each worker)
    if (want('blake3')) await section('veilkit BLAKE3 leaves', async () => {
      const pool = new WorkerPool({ size: cores, idleTimeoutMs: 0, threads: false });
      try {
        await decryptFile(await encryptFile(new Blob([new Uint8Array(1000)]), { password: PASSWORD, kdf: FAST, pool, hash: 'blake3' }), PASSWORD, { pool });
        let sealed;
        record(`veilkit encryptFile, BLAKE3 leaves, full pool (${cores} workers)`, await timed('veilkit-b3-enc', async () => {
          sealed = undefined;
          sealed = await encryptFile(plain, { password: PASSWORD, kdf: FAST, pool, hash: 'blake3', ...tuning });
        }), bytes);
        const b3File = await toFile(dir, 'sealed-b3.vvlt', sealed);
        sealed = undefined;
        record(`veilkit decryptFile (verified → Blob), BLAKE3 leaves, full pool (${cores} workers)`, await timed('veilkit-b3-dec', async () => {
          const out = await decryptFile(b3File, PASSWORD, { pool, ...tuning });
          if (out.size !== bytes) throw new Error('size');
        }), bytes);
      } finally {
        pool.dispose();
      }
    });

    // ---- openpgp.js password encryption over a web stream, output collected into a Blob
    let openpgp;
    const pgp = async (config) => {
      const message = await openpgp.createMessage({ binary: plain.stream() });
      const stream = await openpgp.encrypt({ message, passwords: [PASSWORD], format: 'binary', config });
      return new Response(stream).blob();
    };
    if (want('openpgp')) await section('openpgp.js', async () => {
      try {
        openpgp = await import('/node_modules/openpgp/dist/openpgp.min.mjs');
      } catch (e) {
        throw new Error(`openpgp.js did not load: ${e?.message ?? e}`);
      }
      let v2;
      record('openpgp.js SEIPDv2 AES-GCM (aeadProtect), web stream → Blob', await timed('openpgp-v2', async () => {
        v2 = undefined;
        v2 = await pgp({ aeadProtect: true, preferredAEADAlgorithm: openpgp.enums.aead.gcm });
      }), bytes);
      const v2File = await toFile(dir, 'pgp-v2.bin', v2);
      v2 = undefined;
      record('openpgp.js SEIPDv1 (default), web stream → Blob', await timed('openpgp-v1', async () => {
        await pgp({});
      }), bytes);
      record('openpgp.js SEIPDv2 decrypt, web stream → Blob', await timed('openpgp-v2-dec', async () => {
        const message = await openpgp.readMessage({ binaryMessage: v2File.stream() });
        const { data } = await openpgp.decrypt({ message, passwords: [PASSWORD], format: 'binary' });
        const out = await new Response(data).blob();
        if (out.size !== bytes) throw new Error('size');
      }), bytes);
    });

    // ---- one-off: default-cost password setup (Argon2id 64 MiB, t=3, p=4) on an empty file
    const setup = [];
    if (want('setup')) await section('default-cost password setup', async () => {
      const pool = new WorkerPool({ size: 1, idleTimeoutMs: 0, threads: false });
      try {
        await encryptFile(new Blob([]), { password: PASSWORD, kdf: FAST, pool });
        for (let r = 0; r < 2; r++) {
          const t0 = performance.now();
          await encryptFile(new Blob([]), { password: PASSWORD, pool });
          setup.push(Math.round(performance.now() - t0));
        }
      } finally {
        pool.dispose();
      }
    });
    return { mib, reps, cores, tuning, userAgent: navigator.userAgent, results, notRun, notes, defaultArgon2idSetupMs: setup };
  } finally {
    if (dir) await root.removeEntry(dir.name, { recursive: true }).catch(() => {});
  }
}

main().then(
  (r) => { window.__benchFiles = { ok: true, ...r }; },
  (e) => { window.__benchFiles = { ok: false, error: String(e && e.stack || e) }; },
);
