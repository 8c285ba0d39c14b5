// verifyPublicBundle before init() (issue 17): it used to swallow NOT_INITIALIZED and answer `false` for a
// genuine bundle, so an app that never called init() would treat every peer as forged. It throws now.
// The tests of this file run in order in one process: the first runs before anything calls init().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as api from '../../ts/index.js';

const PHRASE = `${'abandon '.repeat(23)}art`;

/** A genuine bundle (with ML-DSA-65), built in a child process so that this one stays uninitialised. */
function genuineBundleFromChild(): Uint8Array {
  const shared = new URL('../shared/bundle.js', import.meta.url).href;
  const primitives = new URL('../../ts/primitives.js', import.meta.url).href;
  const script = `
    const P = await import(${JSON.stringify(primitives)});
    const { buildBundle } = await import(${JSON.stringify(shared)});
    await P.init();
    process.stdout.write(Buffer.from(buildBundle(P.mnemonicToSeed(${JSON.stringify(PHRASE)}), true).bytes).toString('hex'));
  `;
  const hex = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

const genuine = genuineBundleFromChild();
const notInitialized = (e: unknown): boolean => e instanceof api.VeilError && e.code === 'NOT_INITIALIZED';

test('before init(): verifyPublicBundle throws NOT_INITIALIZED for a genuine bundle, a forged one and junk (no silent false)', () => {
  assert.equal(api.isInitialized(), false, 'nothing in this process has called init() yet');
  assert.equal(genuine.length, 7795);
  const forged = genuine.slice();
  forged[100]! ^= 1;
  assert.throws(() => api.verifyPublicBundle(genuine), notInitialized);
  assert.throws(() => api.verifyPublicBundle(forged), notInitialized);
  assert.throws(() => api.verifyPublicBundle(new Uint8Array(10)), notInitialized);
  assert.throws(() => api.decodePublicBundle(genuine), notInitialized);
});

test('after init(): genuine → true (bytes and decoded), forged or malformed → false, a JSON round trip → TypeError', async () => {
  await api.init();
  assert.equal(api.verifyPublicBundle(genuine), true);
  const decoded = api.decodePublicBundle(genuine);
  assert.equal(api.verifyPublicBundle(decoded), true);
  for (const at of [6, 200, genuine.length - 1]) {
    const forged = genuine.slice();
    forged[at]! ^= 1;
    assert.equal(api.verifyPublicBundle(forged), false, `flip at ${at}`);
  }
  assert.equal(api.verifyPublicBundle(genuine.subarray(0, 100)), false);
  // What a bundle looks like after JSON.stringify / JSON.parse: not bytes any more. Send `bundle.bytes`.
  const viaJson = JSON.parse(JSON.stringify(decoded)) as api.PublicBundle;
  assert.throws(() => api.verifyPublicBundle(viaJson), TypeError);
  const viaBase64 = new Uint8Array(Buffer.from(Buffer.from(decoded.bytes).toString('base64'), 'base64'));
  assert.equal(api.verifyPublicBundle(viaBase64), true);
});
