// VeilError details end to end in Node: from the wasm core's error objects (toVeilError),
// through a worker reply (serializeError → deserializeError), and what is dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init, call } from '../../ts/init.js';
import * as wasm from '../../ts/wasm/veilkit.js';
import { VeilError, detailsOf } from '../../protocol/errors.js';
import { deserializeError } from '../../ts/pool.js';
import { serializeError } from '../../protocol/protocol.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an exception');
}

test('a truncated container header: TRUNCATED with { needed, got } from the core, also after a worker reply', async () => {
  await init();
  const e = caught(() => call(() => new wasm.ContainerReaderHandle(new Uint8Array([0x56, 0x56, 0x4c, 0x54, 0x04]))));
  assert.ok(e instanceof VeilError);
  assert.equal(e.code, 'TRUNCATED');
  assert.equal(typeof e.details.needed, 'number');
  assert.equal(e.details.got, 5);
  assert.ok((e.details.needed ?? 0) > 5);
  const back = deserializeError(serializeError(e));
  assert.ok(back instanceof VeilError);
  assert.equal(back.code, 'TRUNCATED');
  assert.deepEqual(back.details, e.details);
  assert.ok(Object.isFrozen(back.details));
});

test('errors without details carry an empty object, and serialize without a details field', () => {
  const e = new VeilError('AUTHENTICATION_FAILED', 'authentication failed');
  assert.deepEqual(e.details, {});
  assert.deepEqual(serializeError(e), { name: 'VeilError', message: 'authentication failed', code: 'AUTHENTICATION_FAILED' });
});

test('detailsOf keeps the known fields of the right type and drops everything else', () => {
  assert.deepEqual(detailsOf({ needed: 9, got: 2, index: null, reason: 'BAD_PREV_HASH', extra: 1 }), { needed: 9, got: 2, index: null, reason: 'BAD_PREV_HASH' });
  assert.deepEqual(detailsOf({ needed: '9', got: undefined, index: 'x', reason: 4 }), {});
  assert.deepEqual(detailsOf(null), {});
  // A reply from a worker cannot smuggle other properties onto the error.
  const e = deserializeError({ name: 'VeilError', message: 'm', code: 'KEY_LOG_INVALID', details: { index: 3, reason: 'AFTER_REVOKE', stack: 'x' } as never });
  assert.ok(e instanceof VeilError);
  assert.deepEqual(e.details, { index: 3, reason: 'AFTER_REVOKE' });
});

/** The error as a VeilError (asserted). */
function veil(e: Error): VeilError {
  assert.ok(e instanceof VeilError, `a VeilError, not ${e.name}`);
  return e;
}

test('an error nothing maps crosses the worker boundary as INTERNAL naming what it was and which request it answers', () => {
  // A DOMException as a worker's Blob read or postMessage throws it (Node has DOMException too).
  const dom = new DOMException('The requested file could not be read', 'NotReadableError');
  assert.deepEqual(serializeError(dom), { name: 'NotReadableError', message: 'The requested file could not be read' });
  const back = deserializeError(serializeError(dom), 'files/encrypt-chunks');
  assert.ok(back instanceof VeilError);
  assert.equal(back.code, 'INTERNAL');
  assert.deepEqual(back.details, { reason: 'NotReadableError', step: 'files/encrypt-chunks' });
  // A plain Error and a thrown non-error: still a reason.
  assert.deepEqual(veil(deserializeError(serializeError(new Error('boom')))).details, { reason: 'Error' });
  assert.deepEqual(veil(deserializeError(serializeError('a string'), 'x/y')).details, { reason: 'string', step: 'x/y' });
  // A worker's own INTERNAL keeps its reason and gains the step; a malformed error object is named so.
  const own = veil(deserializeError(serializeError(new VeilError('INTERNAL', 'the header changed length')), 'files/encrypt-finish'));
  assert.deepEqual(own.details, { reason: 'invariant', step: 'files/encrypt-finish' });
  const malformed = veil(deserializeError(null as never, 'files/open'));
  assert.deepEqual(malformed.details, { reason: 'malformed', step: 'files/open' });
  // TypeError / RangeError stay themselves; other codes keep exactly their details.
  assert.ok(deserializeError(serializeError(new TypeError('t')), 'x') instanceof TypeError);
  assert.deepEqual(veil(deserializeError(serializeError(new VeilError('TRUNCATED', 't', { details: { needed: 9, got: 3 } })), 'x')).details, { needed: 9, got: 3 });
});

test('readBlob: a Blob the browser cannot read is READ_FAILED with the browser\'s error name', async () => {
  const { readBlob } = await import('../../ts/bytes.js');
  assert.deepEqual(await readBlob(new Blob([new Uint8Array([1, 2, 3])])), new Uint8Array([1, 2, 3]));
  // A Blob whose read fails as a picked file changed on disk makes it fail.
  const unreadable = new Blob([]);
  Object.defineProperty(unreadable, 'arrayBuffer', { value: () => Promise.reject(new DOMException('could not be read', 'NotReadableError')) });
  await assert.rejects(readBlob(unreadable), (e) => e instanceof VeilError && e.code === 'READ_FAILED' && e.details.reason === 'NotReadableError');
});
