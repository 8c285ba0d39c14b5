// One password-KDF bounds table per language: ts/kdf-bounds.ts' KDF_BOUNDS must
// equal the Rust core's kdf::KDF_BOUNDS (read through the wasm export kdfBoundsJson),
// and the TypeScript checks must take their numbers from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init } from '../../ts/init.js';
import * as wasm from '../../ts/wasm/veilkit.js';
import { KDF_BOUNDS } from '../../ts/index.js';
import { argon2id, derivePbkdf2 } from '../../ts/kdf.js';
import {
  DEFAULT_KDF_BUDGET, DEFAULT_PASSPHRASE_KDF, MAX_PASSPHRASE_KDF, MIN_PASSPHRASE_KDF, checkPassphraseKdf,
} from '../../ts/keystore-format.js';

test('KDF_BOUNDS (TypeScript) equals kdf::KDF_BOUNDS (Rust)', async () => {
  await init();
  const rust: unknown = JSON.parse(wasm.kdfBoundsJson());
  assert.deepEqual(rust, KDF_BOUNDS);
});

test('KDF_BOUNDS is frozen all the way down', () => {
  assert.ok(Object.isFrozen(KDF_BOUNDS));
  assert.ok(Object.isFrozen(KDF_BOUNDS.wrapArgon2id.memoryKib));
  assert.ok(Object.isFrozen(KDF_BOUNDS.defaultBudget));
});

test('the keystore passphrase constants and check come from KDF_BOUNDS', () => {
  const b = KDF_BOUNDS.passphraseArgon2id;
  assert.deepEqual(DEFAULT_PASSPHRASE_KDF, { memoryKib: b.memoryKib.default, iterations: b.iterations.default, parallelism: b.parallelism.default });
  assert.deepEqual(MIN_PASSPHRASE_KDF, { memoryKib: b.memoryKib.min, iterations: b.iterations.min, parallelism: b.parallelism.min });
  assert.deepEqual(MAX_PASSPHRASE_KDF, { memoryKib: b.memoryKib.max, iterations: b.iterations.max, parallelism: b.parallelism.max });
  assert.deepEqual(DEFAULT_KDF_BUDGET, KDF_BOUNDS.defaultBudget);
  assert.deepEqual(checkPassphraseKdf(MAX_PASSPHRASE_KDF), MAX_PASSPHRASE_KDF);
  assert.throws(() => checkPassphraseKdf({ ...MIN_PASSPHRASE_KDF, iterations: b.iterations.max + 1 }), {
    name: 'RangeError', message: `params.iterations must be between ${b.iterations.min} and ${b.iterations.max}, got ${b.iterations.max + 1}`,
  });
  assert.throws(() => checkPassphraseKdf({ ...MIN_PASSPHRASE_KDF, memoryKib: b.memoryKib.min - 1 }), RangeError);
});

test('the primitives check their arguments against KDF_BOUNDS before any work', async () => {
  await init();
  const a = KDF_BOUNDS.argon2id;
  const params = { memoryKib: 64, iterations: 1, parallelism: 1, length: 32 };
  assert.throws(() => argon2id('pw', new Uint8Array(a.minSaltLen - 1), params), {
    name: 'RangeError', message: `salt must be at least ${a.minSaltLen} bytes, got ${a.minSaltLen - 1}`,
  });
  assert.throws(() => argon2id('pw', new Uint8Array(16), { ...params, parallelism: a.maxParallelism + 1 }), RangeError);
  assert.throws(() => argon2id('pw', new Uint8Array(16), { ...params, memoryKib: a.maxMemoryKib + 1 }), RangeError);
  assert.throws(() => argon2id('pw', new Uint8Array(16), { ...params, length: a.maxOutputLen + 1 }), RangeError);
  assert.throws(() => argon2id('pw', new Uint8Array(16), { ...params, secret: new Uint8Array(a.maxSecretLen + 1) }), {
    name: 'RangeError', message: `params.secret must be at most ${a.maxSecretLen} bytes, got ${a.maxSecretLen + 1}`,
  });
  assert.equal(argon2id('pw', new Uint8Array(16), { ...params, secret: new Uint8Array(a.maxSecretLen) }).length, 32);
  assert.throws(() => derivePbkdf2('pw', new Uint8Array(16), 1, KDF_BOUNDS.pbkdf2MaxOutputLen + 1), RangeError);
});
