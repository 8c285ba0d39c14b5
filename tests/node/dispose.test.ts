// One release verb (issue 15): every public object with something to release has `dispose()` and
// `[Symbol.dispose]` (so `using` works), and every method called after it throws or rejects with
// VeilError('INVALID_STATE'). The published older names (`close`, `free`, `destroy`) are aliases.
// Worker-backed objects run on a fake in-process Worker (Node has no Web Worker): it answers the
// pool's init and every request, which is all the page-side objects observe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../../ts/index.js';
import * as hazmat from '../../ts/hazmat.js';
import * as primitives from '../../ts/primitives.js';

const invalidState = (e: unknown): boolean => e instanceof api.VeilError && e.code === 'INVALID_STATE';

/** A Worker stand-in: ready on init, then `{ ok: true, value: null }` for every request; counts requests. */
class FakeWorker extends EventTarget {
  requests: string[] = [];
  terminated = false;
  postMessage(message: { type: string; id?: number }): void {
    queueMicrotask(() => {
      if (message.type === 'veilkit/init') {
        this.dispatchEvent(new MessageEvent('message', { data: { type: 'veilkit/ready', ok: true } }));
        return;
      }
      this.requests.push(message.type);
      this.dispatchEvent(new MessageEvent('message', { data: { id: message.id, ok: true, value: null } }));
    });
  }
  terminate(): void {
    this.terminated = true;
  }
}

function fakePool(): { pool: api.WorkerPool; workers: FakeWorker[] } {
  const workers: FakeWorker[] = [];
  const pool = new api.WorkerPool({
    size: 1,
    idleTimeoutMs: 0,
    createWorker: () => {
      const w = new FakeWorker();
      workers.push(w);
      return w as unknown as Worker;
    },
  });
  return { pool, workers };
}

test('Symbol.dispose: the engine symbol where it exists (Node 20)', () => {
  assert.equal(typeof Symbol.dispose, 'symbol');
  const { pool } = fakePool();
  assert.equal(typeof pool[Symbol.dispose], 'function');
});

test('WorkerPool: run and call after dispose reject with INVALID_STATE; dispose and release stay harmless', async () => {
  const { pool, workers } = fakePool();
  assert.equal(await pool.run({ type: 'veilkit/ping' }), null);
  assert.equal(workers.length, 1);
  pool[Symbol.dispose]();
  assert.ok(workers[0]!.terminated, 'the worker is terminated');
  await assert.rejects(pool.run({ type: 'veilkit/ping' }), invalidState);
  await assert.rejects(pool.call('sha256', [new Uint8Array(1)]), invalidState);
  pool.dispose();
  pool.release('anything');
  assert.equal(workers.length, 1, 'no worker is started after dispose');
});

test('WorkerPool: `using` disposes at the end of the block', async () => {
  const { pool, workers } = fakePool();
  {
    using p = pool;
    await p.run({ type: 'veilkit/ping' });
  }
  assert.ok(workers[0]!.terminated);
  await assert.rejects(pool.run({ type: 'veilkit/ping' }), invalidState);
});

test('Keystore: every method after dispose() (and after the deprecated close()) is INVALID_STATE', async () => {
  for (const release of ['dispose', 'close', Symbol.dispose] as const) {
    const { pool, workers } = fakePool();
    const ks = await api.Keystore.open({ name: 'dispose-test', pool, persist: false });
    assert.deepEqual(workers[0]!.requests, ['keystore/open']);
    ks[release]();
    await assert.rejects(ks.status(), invalidState, String(release));
    await assert.rejects(ks.listIdentities(), invalidState, String(release));
    await assert.rejects(ks.sign('id', new Uint8Array(1)), invalidState, String(release));
    assert.throws(() => ks.onChange(() => {}), invalidState, String(release));
    assert.throws(() => ks.openManager(), invalidState, String(release));
    assert.deepEqual(workers[0]!.requests, ['keystore/open'], 'nothing reaches the worker after dispose');
    ks.dispose();
    pool.dispose();
  }
});

test('Session: every method after dispose() (and Symbol.dispose, and delete()) is INVALID_STATE', async () => {
  for (const release of ['dispose', Symbol.dispose, 'delete'] as const) {
    const { pool, workers } = fakePool();
    const ks = await api.Keystore.open({ name: 'dispose-test', pool, persist: false });
    // The fake worker answers null: enough for load (a handle around the id it asked for) once patched in.
    const id = '0'.repeat(32);
    const original = workers[0]!.postMessage.bind(workers[0]!);
    workers[0]!.postMessage = (m: { type: string; id?: number }) => {
      if (m.type !== 'keystore/session-info') {
        original(m);
        return;
      }
      workers[0]!.requests.push(m.type);
      queueMicrotask(() => workers[0]!.dispatchEvent(new MessageEvent('message', { data: { id: m.id, ok: true, value: { kind: 'session', id } } })));
    };
    const s = await api.Session.load(ks, id);
    assert.equal(s.id, id);
    if (release === 'delete') await s.delete();
    else s[release]();
    const before = workers[0]!.requests.length;
    await assert.rejects(s.encrypt(new Uint8Array(1)), invalidState, String(release));
    await assert.rejects(s.decrypt(new Uint8Array(200)), invalidState, String(release));
    await assert.rejects(s.info(), invalidState, String(release));
    await assert.rejects(s.verificationCode(), invalidState, String(release));
    await assert.rejects(s.delete(), invalidState, String(release));
    assert.equal(workers[0]!.requests.length, before, 'nothing reaches the worker after dispose');
    s.dispose();
    ks.dispose();
    pool.dispose();
  }
});

test('SasVerification and ReplayStore: every method after dispose is INVALID_STATE (free is the deprecated alias)', async () => {
  await api.init();
  const own = { ed25519: new Uint8Array(32).fill(1), x25519: new Uint8Array(32).fill(2) };
  const peer = { ed25519: new Uint8Array(32).fill(4), x25519: new Uint8Array(32).fill(5) };
  for (const release of ['dispose', 'free', Symbol.dispose] as const) {
    const sas = new api.SasVerification({ role: 'initiator', ownIdentity: own, peerIdentity: peer });
    assert.equal(sas.state, 'idle');
    sas[release]();
    const sasCalls: [string, () => unknown][] = [
      ['start', () => sas.start(new Uint8Array(4))],
      // A wrong-length argument too: the state is checked before the arguments.
      ['receiveCommitment', () => sas.receiveCommitment(new Uint8Array(1))],
      ['receiveNonce', () => sas.receiveNonce(new Uint8Array(32))],
      ['emoji', () => sas.emoji()],
      ['confirm', () => sas.confirm()],
      ['reject', () => sas.reject()],
      ['abort', () => sas.abort()],
      ['failures', () => sas.failures],
      ['attemptsLeft', () => sas.attemptsLeft],
      ['state', () => sas.state],
    ];
    for (const [name, fn] of sasCalls) assert.throws(fn, invalidState, `SasVerification.${name} after ${String(release)}`);
    sas.dispose();

    const store = new api.ReplayStore({ windowSeconds: 60, maxEntries: 8 });
    store.insert(new Uint8Array(32).fill(9), 1000, 1000);
    assert.equal(store.size, 1);
    store[release]();
    const storeCalls: [string, () => unknown][] = [
      ['has', () => store.has(new Uint8Array(32))],
      ['insert', () => store.insert(new Uint8Array(32), 1000, 1000)],
      ['prune', () => store.prune(1000)],
      ['size', () => store.size],
      ['floor', () => store.floor],
      ['toJson', () => store.toJson()],
    ];
    for (const [name, fn] of storeCalls) assert.throws(fn, invalidState, `ReplayStore.${name} after ${String(release)}`);
    store.dispose();
  }
});

test('MlKemDecapsulationKey: decapsulate after dispose is INVALID_STATE; the public key stays readable', async () => {
  await api.init();
  for (const release of ['dispose', 'destroy', Symbol.dispose] as const) {
    const key = await api.generateMlKemKey();
    const { ciphertext } = api.mlKemEncapsulate(key.encapsulationKey);
    assert.equal((await key.decapsulate(ciphertext)).length, 32);
    key[release]();
    await assert.rejects(key.decapsulate(ciphertext), invalidState, String(release));
    await assert.rejects(key.decapsulate(new Uint8Array(1)), invalidState, 'the state is checked before the arguments');
    assert.equal(key.webCryptoKey, undefined, 'the WebCrypto key is dropped (a property: it does not throw)');
    assert.equal(key.encapsulationKey.length, 1184);
    key.dispose();
  }
});

test('veilkit/hazmat: the caller-chosen IV / randomness entry points, still on the main entry as deprecated aliases', () => {
  const names = ['encryptAesGcmWithIv', 'decryptAesGcmWithIv', 'mlKemEncapsulateDerand', 'xWingEncapsulateDerand', 'mlDsaSignDerand'] as const;
  // withFixedKeysForTesting is hazmat-only (never on the main entry).
  assert.deepEqual(Object.keys(hazmat).sort(), [...names, 'withFixedKeysForTesting'].sort(), 'veilkit/hazmat exports exactly these');
  for (const n of names) {
    assert.equal(api[n], hazmat[n], `veilkit exports the same ${n}`);
    assert.equal(primitives[n], hazmat[n], `veilkit/primitives exports the same ${n}`);
  }
});
