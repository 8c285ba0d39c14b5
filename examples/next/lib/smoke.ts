// A copy of tests/bundlers/smoke.ts (the bundler matrix's shared smoke flow; keep them identical).
/**
 * The bundler matrix's smoke flow: what every scratch app (tests/bundlers/vite6, vite8, importmap)
 * and the Next example's `/smoke` page run against the packed package, through the public API only
 * and by package name. Framework-free; the caller passes the `veilkit` module it imported.
 *
 * Steps: init and capabilities (the page's build, and the build a `new WorkerPool()` worker loads:
 * under COOP/COEP that is where the threads build runs), a small file encrypted with a password and
 * decrypted back to the same bytes, a keystore identity (ML-DSA-65) that signs and whose signature
 * verifies against its public bundle, one session message between two keystores, then every object
 * disposed. Each step either completes or throws; the returned list names the steps done.
 */
type Veilkit = typeof import('veilkit');

/** What the flow observed about the builds (for the matrix report). */
export interface SmokeBuilds {
  /** `capabilities().wasmBuild` on the page (a window keeps the SIMD build). */
  page?: string;
  /** The build a default `new WorkerPool()` worker loaded (`'threads'` under COOP/COEP when it starts). */
  worker?: string;
  /** That worker's thread count (1 for SIMD). */
  workerThreads?: number;
  /** Whether the page is cross-origin isolated. */
  crossOriginIsolated?: boolean;
}

export interface SmokeOptions {
  /** Called as each step starts (a page shows it, so that a hang names its step). */
  onStep?: (step: string) => void;
  /** Called as each step ends, with its duration (ms). */
  onStepDone?: (step: string, ms: number) => void;
  /** Filled in as the builds are learnt. */
  builds?: SmokeBuilds;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`smoke: ${what}`);
}

/** Runs the flow; resolves with the steps done, rejects with the first failure. */
export async function smoke(v: Veilkit, options: SmokeOptions = {}): Promise<string[]> {
  const done: string[] = [];
  const builds = options.builds ?? {};
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    options.onStep?.(name);
    const t0 = performance.now();
    const r = await work();
    options.onStepDone?.(name, Math.round(performance.now() - t0));
    done.push(name);
    return r;
  };
  // Unique store names: a rerun in the same profile never meets an older store.
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
  const disposables: { dispose(): void }[] = [];
  try {
    await step('init', () => v.init());
    await step('capabilities', async () => {
      const caps = v.capabilities();
      builds.page = caps.wasmBuild;
      builds.crossOriginIsolated = caps.crossOriginIsolated;
    });

    const pool = new v.WorkerPool();
    disposables.push(pool);
    await step('pool worker capabilities', async () => {
      const caps = await pool.run({ type: 'veilkit/capabilities' });
      builds.worker = caps.wasmBuild;
      builds.workerThreads = caps.threads;
    });

    await step('file encrypt/decrypt', async () => {
      // 100,000 random bytes (getRandomValues fills at most 65,536 at a time).
      const plain = new Uint8Array(100_000);
      for (let i = 0; i < plain.length; i += 65_536) crypto.getRandomValues(plain.subarray(i, i + 65_536));
      const file = new Blob([plain]);
      const password = 'correct horse battery staple';
      // The smallest Argon2id cost a writer accepts: the smoke checks plumbing, not the KDF.
      const kdf = { algorithm: 'argon2id', memoryKib: 19_456, iterations: 2, parallelism: 1 } as const;
      const sealed = await v.encryptFile(file, { password, kdf, pool, chunkSize: 65_536 });
      check(sealed.size > plain.length, `container of ${sealed.size} bytes for ${plain.length} plaintext bytes`);
      const back = await v.decryptFile(sealed, password, { pool });
      check(equalBytes(new Uint8Array(await back.arrayBuffer()), plain), 'decrypted bytes differ from the plaintext');
    });

    const alice = await step('keystore open', () => v.Keystore.open({ name: `smoke-alice-${suffix}` }));
    disposables.push(alice);
    const a = await step('identity create (mlDsa)', () => alice.createIdentity({ label: 'alice', mlDsa: true }));
    await step('sign/verify', async () => {
      const message = enc.encode('veilkit bundler smoke');
      const bundle = await alice.getPublicBundle(a);
      check(v.verifyPublicBundle(bundle.bytes), 'own public bundle does not verify');
      const sig = await alice.sign(a, message);
      check(v.verifyAppSignature(bundle.ed25519, message, sig), 'Ed25519 app signature does not verify');
      check(!v.verifyAppSignature(bundle.ed25519, enc.encode('another message'), sig), 'signature verifies another message');
      const hybrid = await alice.signHybrid(a, message);
      check(v.verifyHybridAppSignature(bundle, message, hybrid), 'hybrid app signature does not verify');
    });

    const bob = await step('second keystore open', () => v.Keystore.open({ name: `smoke-bob-${suffix}` }));
    disposables.push(bob);
    await step('session message', async () => {
      const b = await bob.createIdentity({ label: 'bob', mlDsa: true });
      const { oneTime } = await bob.createPrekeyBundle(b, { oneTime: 1 });
      const prekey = oneTime[0];
      check(prekey !== undefined, 'no one-time prekey bundle');
      const { session: toBob, initialMessage } = await v.Session.initiate(alice, a, prekey!, { plaintext: enc.encode('hello Bob') });
      disposables.push(toBob);
      const { session: toAlice, plaintext } = await v.Session.respond(bob, b, initialMessage);
      disposables.push(toAlice);
      check(dec.decode(plaintext) === 'hello Bob', `initial message decrypted to "${dec.decode(plaintext)}"`);
      const reply = await toAlice.encrypt(enc.encode('hi Alice'));
      const got = await toBob.decrypt(reply);
      check(dec.decode(got.plaintext) === 'hi Alice', `reply decrypted to "${dec.decode(got.plaintext)}"`);
      const [ca, cb] = await Promise.all([toBob.verificationCode(), toAlice.verificationCode()]);
      check(ca.numeric === cb.numeric, 'verification codes differ');
    });
  } finally {
    // Sessions first, then keystores and the pool (their workers).
    for (const d of disposables.reverse()) d.dispose();
  }
  done.push('dispose');
  return done;
}
