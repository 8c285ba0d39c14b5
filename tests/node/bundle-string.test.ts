// bundleToString / bundleFromString (issue 28): a real prekey bundle round-trips through the text
// form; every damaged, edited or foreign text is a VeilError with its code — never another
// exception, never bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundleFromString, bundleToString, BUNDLE_STRING_PREFIX, MAX_BUNDLE_STRING_BYTES } from '../../ts/bundle-string.js';
import { VeilError, type VeilErrorCode } from '../../protocol/errors.js';
import { base64urlDecode, base64urlEncode } from '../../ts/bytes.js';
import { init } from '../../ts/init.js';
import * as core from '../../ts/session/core.js';
import { peer } from '../shared/session-fixtures.js';

function code(f: () => unknown): VeilErrorCode {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof VeilError, `expected a VeilError, got ${String(e)}`);
    return e.code;
  }
  assert.fail('expected a VeilError');
}

/** A real prekey bundle of the session fixtures. */
async function prekeyBundle(): Promise<Uint8Array> {
  await init();
  const p = peer(7);
  const bundle = core.encodeBundle({ identity: p.identity.encoding, deviceId: 1, signedPrekey: p.spk.record, pqLastResort: p.pq.record });
  return bundle;
}

test('a prekey bundle round-trips through the text form, which is one URL-safe line with the prefix', async () => {
  const bundle = await prekeyBundle();
  const text = bundleToString(bundle);
  assert.ok(text.startsWith(BUNDLE_STRING_PREFIX));
  assert.match(text, /^veilkit-bundle-v1\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(bundleFromString(text), bundle);
  assert.deepEqual(bundleFromString(`  ${text}\n`), bundle); // pasted with whitespace
  const max = new Uint8Array(MAX_BUNDLE_STRING_BYTES).fill(7);
  assert.deepEqual(bundleFromString(bundleToString(max)), max);
});

test('every single-character edit of the text is refused with a typed error (checksum, base64url, prefix)', async () => {
  const text = bundleToString(await prekeyBundle());
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  // About 300 positions spread over the whole body.
  const body = text.length - BUNDLE_STRING_PREFIX.length;
  for (let i = 0; i < body; i += Math.max(1, Math.floor(body / 300))) {
    const at = BUNDLE_STRING_PREFIX.length + i;
    const old = text.charAt(at);
    const repl = alphabet.charAt((alphabet.indexOf(old) + 17) % 64);
    const edited = text.slice(0, at) + repl + text.slice(at + 1);
    assert.equal(code(() => bundleFromString(edited)), 'MALFORMED_INPUT', `edit at ${String(at)}`);
  }
  // A tampered byte, re-encoded canonically: the checksum catches it.
  const raw = base64urlDecode(text.slice(BUNDLE_STRING_PREFIX.length))!;
  raw[100]! ^= 1;
  const tampered = BUNDLE_STRING_PREFIX + base64urlEncode(raw);
  try {
    bundleFromString(tampered);
    assert.fail('accepted');
  } catch (e) {
    assert.ok(e instanceof VeilError);
    assert.equal(e.code, 'MALFORMED_INPUT');
    assert.equal(e.details.reason, 'checksum');
  }
  // Truncated by a character, by four.
  assert.equal(code(() => bundleFromString(text.slice(0, -1))), 'MALFORMED_INPUT');
  assert.equal(code(() => bundleFromString(text.slice(0, -4))), 'MALFORMED_INPUT');
});

test('foreign text: the parser is total and typed', () => {
  const ok = bundleToString(Uint8Array.of(1, 2, 3));
  assert.equal(code(() => bundleFromString('')), 'MALFORMED_INPUT');
  assert.equal(code(() => bundleFromString('hello')), 'MALFORMED_INPUT');
  assert.equal(code(() => bundleFromString(ok.replace('v1.', 'v2.'))), 'UNSUPPORTED_VERSION');
  assert.equal(code(() => bundleFromString(ok.replace('veilkit-bundle-v1.', 'veilkit-bundle-v1'))), 'MALFORMED_INPUT');
  assert.equal(code(() => bundleFromString(BUNDLE_STRING_PREFIX)), 'INVALID_LENGTH');
  assert.equal(code(() => bundleFromString(`${BUNDLE_STRING_PREFIX}AAAA`)), 'INVALID_LENGTH');
  assert.equal(code(() => bundleFromString(`${BUNDLE_STRING_PREFIX}AA=A`)), 'MALFORMED_INPUT');
  assert.equal(code(() => bundleFromString(`${BUNDLE_STRING_PREFIX}${'A'.repeat(100_000)}`)), 'INVALID_LENGTH');
  for (const v of [undefined, null, 42, {}, Uint8Array.of(1)]) assert.equal(code(() => bundleFromString(v as string)), 'MALFORMED_INPUT');
  // Arguments of the encoder are the caller's: TypeError / RangeError.
  assert.throws(() => bundleToString('x' as unknown as Uint8Array), TypeError);
  assert.throws(() => bundleToString(new Uint8Array(0)), RangeError);
  assert.throws(() => bundleToString(new Uint8Array(MAX_BUNDLE_STRING_BYTES + 1)), RangeError);
});
