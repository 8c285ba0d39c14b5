// The bundler smoke flow, framework-free: everything a bundled app needs from veilkit once
// (wasm, the file workers, the keystore worker and IndexedDB, a session). Returns the steps done;
// throws on the first failure. (tests/bundlers/smoke.ts, owned by the bundler matrix, runs the same flow.)
import type * as Veilkit from 'veilkit';

export async function smoke(veilkit: typeof Veilkit): Promise<string[]> {
  const steps: string[] = [];
  const { init, capabilities, encryptFile, decryptFile, Keystore, Session, WorkerPool } = veilkit;
  const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

  await init();
  const caps = capabilities();
  steps.push(`init (${caps.wasmBuild}, ${caps.threads} thread(s), crossOriginIsolated ${String(caps.crossOriginIsolated)})`);

  const pool = new WorkerPool({ size: 1 });
  try {
    const plain = crypto.getRandomValues(new Uint8Array(60_000));
    const sealed = await encryptFile(new Blob([plain]), { password: 'smoke', kdf: { algorithm: 'pbkdf2', iterations: 10_000 }, pool });
    const opened = await decryptFile(sealed, { password: 'smoke' }, { pool });
    if (!same(new Uint8Array(await opened.arrayBuffer()), plain)) throw new Error('file round trip differs');
    steps.push('file encrypt/decrypt');
  } finally {
    pool.dispose();
  }

  const tag = Math.random().toString(36).slice(2, 10);
  const alice = await Keystore.open({ name: `smoke-a-${tag}` });
  const bob = await Keystore.open({ name: `smoke-b-${tag}` });
  try {
    const a = await alice.createIdentity({ label: 'alice', mlDsa: true });
    const b = await bob.createIdentity({ label: 'bob', mlDsa: true });
    const signature = await alice.sign(a, new TextEncoder().encode('smoke'));
    if (signature.length !== 64) throw new Error(`Ed25519 signature of ${signature.length} bytes`);
    steps.push('keystore open/create/sign');

    const { oneTime } = await bob.createPrekeyBundle(b, { oneTime: 1 });
    const hello = new TextEncoder().encode('hello from the smoke test');
    const { initialMessage } = await Session.initiate(alice, a, oneTime[0]!, { plaintext: hello });
    const { plaintext } = await Session.respond(bob, b, initialMessage);
    if (!same(plaintext, hello)) throw new Error('session message differs');
    steps.push('session message');
  } finally {
    alice.dispose();
    bob.dispose();
    for (const name of [`smoke-a-${tag}`, `smoke-b-${tag}`]) indexedDB.deleteDatabase(`veilkit-keystore:${name}`);
  }
  return steps;
}
