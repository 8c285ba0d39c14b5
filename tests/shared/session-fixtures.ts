// Helpers shared by the Node session tests (tests/node/session-core.test.ts,
// tests/node/session-state.test.ts). Node only (node:assert): not for the Chromium
// fixtures, unlike session-sim.ts.
import assert from 'node:assert/strict';
import { VeilError } from '../../ts/errors.js';

/** The VeilError code `fn` throws synchronously; fails if it throws anything else or returns. */
export function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof VeilError, `expected a VeilError, got ${String(e)}`);
    return e.code;
  }
  throw new Error('expected an exception');
}
