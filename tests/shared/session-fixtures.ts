// Helpers shared by the Node session tests (tests/node/session-core.test.ts,
// tests/node/session-state.test.ts). Node only (node:assert): not for the Chromium
// fixtures, unlike session-sim.ts.
import assert from 'node:assert/strict';
import { VeilError } from '../../protocol/errors.js';
import * as core from '../../ts/session/core.js';
import { SIM_NOW, prng, seedsFrom } from './session-sim.js';

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

/** An identity with one prekey of each kind, made from `seed` (Node session tests). */
export interface Peer {
  seeds: core.IdentitySeeds;
  identity: { encoding: Uint8Array; id: Uint8Array };
  spk: { record: Uint8Array; secret: Uint8Array };
  pq: { record: Uint8Array; secret: Uint8Array };
  opk: { record: Uint8Array; secret: Uint8Array };
  otk: { record: Uint8Array; secret: Uint8Array };
}

/**
 * A {@link Peer} whose prekeys were created a day before {@link SIM_NOW}: signed and last-resort
 * prekeys for 31 days, one-time prekeys for 90 days (the core's cap, `MAX_PREKEY_LIFETIME`).
 */
export function peer(seed: number): Peer {
  const now = SIM_NOW;
  const day = 86_400;
  const seeds = seedsFrom(prng(seed));
  return {
    seeds,
    identity: core.sessionIdentity(seeds),
    spk: core.generatePrekey(seeds, 'x25519-signed', 10, now - day, now + 30 * day),
    pq: core.generatePrekey(seeds, 'mlkem-last-resort', 11, now - day, now + 30 * day),
    opk: core.generatePrekey(seeds, 'x25519-one-time', 12, now - day, now + 89 * day),
    otk: core.generatePrekey(seeds, 'mlkem-one-time', 13, now - day, now + 89 * day),
  };
}
