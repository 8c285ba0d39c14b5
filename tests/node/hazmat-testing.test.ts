// The fixed-key test hook lives in `veilkit/hazmat` (issue 28): `withFixedKeysForTesting(options,
// { dek, fileId })` reaches the encryption plan; `EncryptFileOptions` has no such field any more (so
// everyday autocomplete does not offer it) and the root entry exports no such function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as root from '../../ts/index.js';
import * as hazmat from '../../ts/hazmat.js';
import { planOf } from '../../ts/files/options.js';
import type { EncryptFileOptions } from '../../ts/files/types.js';

test('withFixedKeysForTesting (veilkit/hazmat) puts the fixed keys in the plan; the root entry and EncryptFileOptions do not offer them', () => {
  const dek = new Uint8Array(32).fill(0x0d);
  const fileId = new Uint8Array(16).fill(0xf1);
  const options = hazmat.withFixedKeysForTesting({ password: 'pw' }, { dek, fileId });
  assert.deepEqual(planOf(options).fixedKeys, { dek, fileId });
  // Spread by a caller (or by encryptFile itself) keeps them.
  assert.deepEqual(planOf({ ...options, chunkSize: 65536 }).fixedKeys, { dek, fileId });
  assert.equal(planOf({ password: 'pw' }).fixedKeys, undefined);
  assert.equal(Object.keys(options).includes('unsafeFixedKeysForTesting'), false);
  assert.equal('withFixedKeysForTesting' in root, false);
  assert.throws(() => hazmat.withFixedKeysForTesting({ password: 'pw' }, { dek: new Uint8Array(31), fileId }), RangeError);
  // @ts-expect-error the option is gone from EncryptFileOptions (it was in everyday autocomplete)
  const old: EncryptFileOptions = { password: 'pw', unsafeFixedKeysForTesting: { dek, fileId } };
  assert.equal(planOf(old).fixedKeys, undefined);
});
