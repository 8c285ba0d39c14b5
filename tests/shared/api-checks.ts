// Argument-check and error-contract checks of the PUBLIC TypeScript API.
//
// Shared by tests/node/api.test.ts (one node:test subtest per check) and the
// browser page tests/playwright/fixtures/api.html (results posted back to
// tests/playwright/api.spec.ts). Each check throws an Error describing the
// problem, or returns normally. No node:* imports: this also runs in Chromium.

import type { VeilkitApi } from './vector-suites.js';

export interface ApiCheck {
  name: string;
  run: (api: VeilkitApi) => void | Promise<void>;
}

export interface ApiCheckResult {
  name: string;
  ok: boolean;
  message: string;
}

function fail(message: string): never {
  throw new Error(message);
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return `${e.name}${typeof code === 'string' ? `[${code}]` : ''}: ${e.message}`;
  }
  return `non-Error ${String(e)}`;
}

/** Calls fn and returns what it threw; fails if it returned. */
function thrown(what: string, fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return fail(`${what}: expected a throw, but it returned`);
}

function expectTypeError(what: string, fn: () => unknown): void {
  const e = thrown(what, fn);
  if (!(e instanceof TypeError)) fail(`${what}: expected TypeError, got ${describe(e)}`);
}

/** RangeError whose message names the offending argument (matched case-insensitively). */
function expectRangeError(what: string, names: RegExp, fn: () => unknown): void {
  const e = thrown(what, fn);
  if (!(e instanceof RangeError)) fail(`${what}: expected RangeError, got ${describe(e)}`);
  if (!names.test(e.message)) fail(`${what}: RangeError message should name the argument (${names}), got "${e.message}"`);
}

function expectVeilError(api: VeilkitApi, what: string, code: string, fn: () => unknown): void {
  const e = thrown(what, fn);
  if (!(e instanceof api.VeilError)) fail(`${what}: expected VeilError[${code}], got ${describe(e)}`);
  if (!(e instanceof Error)) fail(`${what}: VeilError should extend Error`);
  if (e.code !== code) fail(`${what}: expected code ${code}, got ${e.code}`);
}

function sameBytes(what: string, a: Uint8Array, b: Uint8Array): void {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array)) fail(`${what}: expected Uint8Arrays`);
  if (a.length !== b.length || a.some((x, i) => x !== b[i])) fail(`${what}: byte arrays differ`);
}

function expectLength(what: string, a: unknown, n: number): void {
  if (!(a instanceof Uint8Array)) fail(`${what}: expected a Uint8Array, got ${Object.prototype.toString.call(a)}`);
  if (a.length !== n) fail(`${what}: expected ${n} bytes, got ${a.length}`);
}

const bytes = (n: number, fill = 7): Uint8Array => new Uint8Array(n).fill(fill);
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

// The deliberately ill-typed arguments are cast to `never` (assignable to any parameter).

export const API_CHECKS: ApiCheck[] = [
  {
    name: 'init() twice resolves and the API works afterwards',
    run: async (api) => {
      const first = api.init();
      const second = api.init();
      if (!(first instanceof Promise) || !(second instanceof Promise)) fail('init() should return a Promise');
      await Promise.all([first, second]);
      await api.init();
      expectLength('sha256 after init', api.sha256(text('abc')), 32);
    },
  },
  {
    name: 'wrong argument type → TypeError',
    run: (api) => {
      const key = bytes(32);
      expectTypeError('sha256("abc")', () => api.sha256('abc' as never));
      expectTypeError('sha256(number[])', () => api.sha256([1, 2, 3] as never));
      expectTypeError('encryptAesGcm(ArrayBuffer key)', () => api.encryptAesGcm(new ArrayBuffer(32) as never, bytes(4)));
      expectTypeError('encryptAesGcm(plaintext = string)', () => api.encryptAesGcm(key, 'hello' as never));
      expectTypeError('decryptAesGcm(key = null)', () => api.decryptAesGcm(null as never, bytes(40)));
      expectTypeError('ecdhSharedSecret(undefined, pk)', () => api.ecdhSharedSecret(undefined as never, bytes(32, 9)));
      expectTypeError('signMessage(sk, {})', () => api.signMessage(bytes(64), {} as never));
      expectTypeError('deriveHkdf(ikm, salt, info, "32")', () => api.deriveHkdf(bytes(32), null, null, '32' as never));
      expectTypeError('mlKemDecapsulate(number, ct)', () => api.mlKemDecapsulate(42 as never, bytes(1088)));
    },
  },
  {
    name: 'wrong length → RangeError naming the argument',
    run: (api) => {
      expectRangeError('encryptAesGcm(31-byte key)', /key/i, () => api.encryptAesGcm(bytes(31), bytes(4)));
      expectRangeError('encryptAesGcmWithIv(11-byte iv)', /\biv\b|nonce/i, () =>
        api.hazmat.encryptAesGcmWithIv(bytes(32), bytes(11), bytes(4)),
      );
      expectRangeError('decryptAesGcm(27-byte ciphertext)', /ciphertext|sealed/i, () =>
        api.decryptAesGcm(bytes(32), bytes(27)),
      );
      expectRangeError('ecdhSharedSecret(31-byte public key)', /public|their/i, () =>
        api.ecdhSharedSecret(bytes(32), bytes(31)),
      );
      expectRangeError('x25519PublicKey(33-byte secret)', /secret|key/i, () => api.x25519PublicKey(bytes(33)));
      expectRangeError('ed25519KeypairFromSeed(31-byte seed)', /seed/i, () => api.ed25519KeypairFromSeed(bytes(31)));
      expectRangeError('mlKemKeygen(63-byte seed)', /seed/i, () => api.mlKemKeygen(bytes(63)));
      expectRangeError('mlKemEncapsulate(1183-byte key)', /key|\bek\b/i, () => api.mlKemEncapsulate(bytes(1183)));
      expectRangeError('xWingKeygen(31-byte seed)', /seed/i, () => api.xWingKeygen(bytes(31)));
      expectRangeError('xWingDecapsulate(sk, 1119-byte ciphertext)', /ciphertext|\bct\b/i, () =>
        api.xWingDecapsulate(bytes(32), bytes(1119)),
      );
    },
  },
  {
    name: 'tampered AES-GCM ciphertext → VeilError AUTHENTICATION_FAILED',
    run: (api) => {
      const key = bytes(32, 1);
      const aad = text('header');
      const sealed = api.encryptAesGcm(key, text('attack at dawn'), aad);
      expectLength('encryptAesGcm output', sealed, 12 + 14 + 16);
      sameBytes('round trip', api.decryptAesGcm(key, sealed, aad), text('attack at dawn'));
      for (const index of [0, 12, sealed.length - 1]) {
        const tampered = sealed.slice();
        tampered[index] = (tampered[index] ?? 0) ^ 0x01;
        expectVeilError(api, `decryptAesGcm with byte ${index} flipped`, 'AUTHENTICATION_FAILED', () =>
          api.decryptAesGcm(key, tampered, aad),
        );
      }
      expectVeilError(api, 'decryptAesGcm with the wrong aad', 'AUTHENTICATION_FAILED', () =>
        api.decryptAesGcm(key, sealed, text('other')),
      );
      expectVeilError(api, 'decryptAesGcm with the wrong key', 'AUTHENTICATION_FAILED', () =>
        api.decryptAesGcm(bytes(32, 2), sealed, aad),
      );
      const wrapped = api.wrapKey(key, bytes(32, 3));
      expectLength('wrapKey output', wrapped, 40);
      sameBytes('unwrapKey', api.unwrapKey(key, wrapped), bytes(32, 3));
      const badWrap = wrapped.slice();
      badWrap[5] = (badWrap[5] ?? 0) ^ 0x80;
      expectVeilError(api, 'unwrapKey of a tampered blob', 'AUTHENTICATION_FAILED', () => api.unwrapKey(key, badWrap));
    },
  },
  {
    name: 'VeilError is an Error subclass with a stable code',
    run: (api) => {
      const e = thrown('decryptAesGcm', () => api.decryptAesGcm(bytes(32), bytes(40)));
      if (!(e instanceof api.VeilError)) fail(`expected VeilError, got ${describe(e)}`);
      if (!(e instanceof Error)) fail('VeilError should extend Error');
      // ts/aead.ts: "Any tampering, wrong key or wrong AAD throws VeilError('AUTHENTICATION_FAILED')".
      if (e.code !== 'AUTHENTICATION_FAILED') fail(`VeilError.code: expected AUTHENTICATION_FAILED, got ${e.code}`);
      if (e.name !== 'VeilError') fail(`VeilError.name: expected "VeilError", got "${e.name}"`);
      if (!api.VEIL_ERROR_CODES.includes(e.code)) fail(`VeilError.code ${e.code} is not in VEIL_ERROR_CODES`);
      if (typeof e.message !== 'string' || e.message.length === 0) fail('VeilError should have a message');
    },
  },
  {
    name: 'key agreement, signatures and KEM round trips',
    run: (api) => {
      const [aSk, aPk] = api.generateX25519Keypair();
      const [bSk, bPk] = api.generateX25519Keypair();
      expectLength('X25519 secret key', aSk, 32);
      sameBytes('x25519PublicKey', api.x25519PublicKey(aSk), aPk);
      sameBytes('ECDH symmetric', api.ecdhSharedSecret(aSk, bPk), api.ecdhSharedSecret(bSk, aPk));

      const [edSk, edPk] = api.generateEd25519Keypair();
      expectLength('Ed25519 secret key', edSk, 64);
      expectLength('Ed25519 public key', edPk, 32);
      const sig = api.signMessage(edSk, text('hello'));
      expectLength('Ed25519 signature', sig, 64);
      if (api.verifySignature(edPk, text('hello'), sig) !== true) fail('Ed25519 signature should verify');
      if (api.verifySignature(edPk, text('hellO'), sig) !== false) fail('Ed25519 signature over another message should not verify');

      const [dk, ek] = api.mlKemKeygen();
      expectLength('ML-KEM decapsulation key', dk, 2400);
      expectLength('ML-KEM encapsulation key', ek, 1184);
      const kem = api.mlKemEncapsulate(ek);
      expectLength('ML-KEM ciphertext', kem.ciphertext, 1088);
      sameBytes('ML-KEM shared secret', api.mlKemDecapsulate(dk, kem.ciphertext), kem.sharedSecret);

      const [xSk, xPk] = api.xWingKeygen();
      expectLength('X-Wing secret key', xSk, 32);
      expectLength('X-Wing public key', xPk, 1216);
      const xw = api.xWingEncapsulate(xPk);
      expectLength('X-Wing ciphertext', xw.ciphertext, 1120);
      sameBytes('X-Wing shared secret', api.xWingDecapsulate(xSk, xw.ciphertext), xw.sharedSecret);
    },
  },
  {
    name: 'dispose: page-side objects refuse every use after dispose() / [Symbol.dispose]() / the deprecated alias with INVALID_STATE',
    run: async (api) => {
      // Engines without Symbol.dispose (WebKitGTK 2.50) get the registry symbol the polyfills install (ts/dispose.ts).
      const disposeSymbol: typeof Symbol.dispose = typeof Symbol.dispose === 'symbol' ? Symbol.dispose : (Symbol.for('Symbol.dispose') as typeof Symbol.dispose);
      const own = { ed25519: bytes(32, 1), x25519: bytes(32, 2) };
      const peer = { ed25519: bytes(32, 4), x25519: bytes(32, 5) };
      for (const release of ['dispose', 'free', disposeSymbol] as const) {
        const sas = new api.SasVerification({ role: 'responder', ownIdentity: own, peerIdentity: peer });
        sas[release]();
        expectVeilError(api, `SasVerification.start after ${String(release)}`, 'INVALID_STATE', () => sas.start(bytes(4)));
        expectVeilError(api, `SasVerification.state after ${String(release)}`, 'INVALID_STATE', () => sas.state);
        const store = new api.ReplayStore({ windowSeconds: 60, maxEntries: 4 });
        store[release]();
        expectVeilError(api, `ReplayStore.has after ${String(release)}`, 'INVALID_STATE', () => store.has(bytes(32)));
        expectVeilError(api, `ReplayStore.toJson after ${String(release)}`, 'INVALID_STATE', () => store.toJson());
      }
      for (const release of ['dispose', 'destroy', disposeSymbol] as const) {
        const key = await api.generateMlKemKey();
        const { ciphertext } = api.mlKemEncapsulate(key.encapsulationKey);
        key[release]();
        const e = await key.decapsulate(ciphertext).then(() => undefined, (x: unknown) => x);
        if (!(e instanceof api.VeilError) || e.code !== 'INVALID_STATE') fail(`MlKemDecapsulationKey (${key.route}).decapsulate after ${String(release)}: expected VeilError[INVALID_STATE], got ${describe(e)}`);
        if (key.webCryptoKey !== undefined) fail(`MlKemDecapsulationKey (${key.route}).webCryptoKey after ${String(release)}: still set`);
        expectLength('encapsulationKey after dispose', key.encapsulationKey, 1184);
      }
    },
  },
  {
    name: 'hazmat: veilkit/hazmat holds the caller-chosen IV / randomness functions; the main entry keeps them as deprecated aliases',
    run: (api) => {
      for (const n of ['encryptAesGcmWithIv', 'decryptAesGcmWithIv', 'mlKemEncapsulateDerand', 'xWingEncapsulateDerand', 'mlDsaSignDerand'] as const) {
        if (typeof api.hazmat[n] !== 'function') fail(`veilkit/hazmat lacks ${n}`);
        if (api[n] !== api.hazmat[n]) fail(`the main entry's ${n} is not veilkit/hazmat's`);
      }
      const key = bytes(32, 3);
      const iv = bytes(12, 4);
      sameBytes('hazmat AES-GCM round trip', api.hazmat.decryptAesGcmWithIv(key, iv, api.hazmat.encryptAesGcmWithIv(key, iv, text('x'))), text('x'));
    },
  },
];

/** Runs every check, never throws; for the browser page. */
export async function runApiChecks(api: VeilkitApi): Promise<ApiCheckResult[]> {
  const results: ApiCheckResult[] = [];
  for (const check of API_CHECKS) {
    try {
      await check.run(api);
      results.push({ name: check.name, ok: true, message: '' });
    } catch (e) {
      results.push({ name: check.name, ok: false, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return results;
}
