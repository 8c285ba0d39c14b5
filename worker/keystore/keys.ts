/**
 * Using an identity's private keys: signing, key agreement and
 * decapsulation, on the WebCrypto route (native keys imported once per
 * session) or the wasm route (the seed, unwrapped and wiped after use).
 */
import * as P from '../../ts/primitives.js';
import * as wasm from '../../ts/wasm/veilkit.js';
import { call } from '../../ts/init.js';
import { VeilError } from '../../protocol/errors.js';
import { atLeast, bytes, exact, integer, untrustedExact, wipe } from '../../ts/validate.js';
import { SEALED_BOX, checkedEnc, checkedRequest, checkedSealed, exportWithSecretKey, openWithSecretKey } from '../../ts/sealed.js';
import { appContext, appMlDsaContext, appSignatureMessage } from '../../ts/app-signature.js';
import { CONTAINER, HEADER_SIGNATURE_LABEL, MLDSA_HEADER_CONTEXT } from '../../ts/files-format.js';
import type { ContainerHeaderSignature, HybridSignature, KeystoreRequest } from '../../protocol/keystore.protocol.js';
import type { IdentityRecord } from './records.js';
import { notFound } from './db.js';
import { identityRecord, loadSecret } from './identities.js';
import { bs, concatBytes, equalBytes } from '../../ts/bytes.js';
import { importSeedKey, subtle, type SeedKeyType } from '../../ts/webcrypto/subtle.js';
import { withSecret, type SecretRecord } from './records.js';
import { open, type Session, type Store } from './store.js';

/** The non-extractable WebCrypto key of a native-route record, imported from its seed into this worker's memory once per session. */
async function nativeKey(session: Session, r: SecretRecord, type: SeedKeyType): Promise<CryptoKey> {
  const cached = session.native.get(r.id);
  if (cached) return cached;
  const key = await withSecret(session, r, (seed) => importSeedKey(subtle(), type, seed));
  session.native.set(r.id, key);
  return key;
}

/**
 * Signs `message` as it is. Called only with signed bytes built in this worker: app signatures
 * (`"veilkit-app-signature-v1" ‖ …`, ts/app-signature.ts) and container headers
 * (`"vollcrypt-file-header-signature-v1" ‖ a parsed header`) and device registry changes
 * (`"veilkit-device-registry-v1" ‖ 0x02 ‖ a body built in worker/keystore/devices.ts`); prekeys are
 * signed by the core (worker/keystore/prekeys.ts) and the public bundle when the identity is made.
 * No request passes page bytes here unprefixed (docs/KEYSTORE.md#app-signatures).
 */
export async function signWith(s: Store, id: unknown, algorithm: 'ed25519' | 'ml-dsa-65', message: Uint8Array, context: Uint8Array | undefined): Promise<Uint8Array> {
  if (algorithm === 'ed25519') {
    if (context !== undefined) throw new TypeError('Ed25519 takes no context');
    const { session, identity, record } = await loadSecret(s, id, 'ed25519');
    if (identity.routes.ed25519 === 'native') {
      return new Uint8Array(await subtle().sign({ name: 'Ed25519' }, await nativeKey(session, record, 'ed25519'), bs(message)));
    }
    return withSecret(session, record, (sk) => P.signMessage(sk, message));
  }
  const { session, identity, record } = await loadSecret(s, id, 'ml-dsa-65');
  if (identity.routes['ml-dsa-65'] === 'native') {
    return new Uint8Array(await subtle().sign({ name: 'ML-DSA-65', context }, await nativeKey(session, record, 'ml-dsa-65'), bs(message)));
  }
  return withSecret(session, record, (sk) => P.mlDsaSign(sk, message, context ? { context } : {}));
}

/** HKDF-SHA256(ikm, salt = empty, info) → non-extractable AES-256-GCM key, or the HKDF base key with `deriveKey` only (never `deriveBits`). */
async function keyFromSecret(ikm: Uint8Array | CryptoKey, info: Uint8Array, output: 'aes-gcm' | 'hkdf'): Promise<CryptoKey> {
  const base = ikm instanceof Uint8Array
    ? await subtle().importKey('raw', bs(ikm), { name: 'HKDF' }, false, ['deriveKey'])
    : ikm;
  if (output === 'hkdf') return base;
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: bs(info) }, base,
    { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'],
  );
}

/** {@link keyFromSecret} of a shared secret this worker computed; wiped afterwards. */
async function keyFromOwnedSecret(secret: Uint8Array, info: Uint8Array, output: 'aes-gcm' | 'hkdf'): Promise<CryptoKey> {
  try {
    return await keyFromSecret(secret, info, output);
  } finally {
    wipe(secret);
  }
}

// ---------------------------------------------------------------------------
// Requests

/** `keystore/sign`: an app signature (docs/KEYSTORE.md#app-signatures) over `message` in the app `context`. */
export async function sign(
  s: Store, id: string, algorithm: 'ed25519' | 'ml-dsa-65', message: Uint8Array, context: Uint8Array | undefined,
): Promise<Uint8Array> {
  const checked = bytes('message', message);
  if (algorithm !== 'ed25519' && algorithm !== 'ml-dsa-65') throw new TypeError(`algorithm must be 'ed25519' or 'ml-dsa-65'`);
  const signed = appSignatureMessage(checked, { context: appContext(context) });
  return signWith(s, id, algorithm, signed, algorithm === 'ml-dsa-65' ? appMlDsaContext() : undefined);
}

/** `keystore/sign-hybrid`: both app signatures over the same signed bytes. */
export async function signHybrid(s: Store, id: string, message: Uint8Array, context: Uint8Array | undefined): Promise<HybridSignature> {
  const signed = appSignatureMessage(bytes('message', message), { context: appContext(context) });
  const r = await identityRecord(s, id);
  if (!r.mlDsa) throw notFound(`the ml-dsa-65 key of identity ${r.id} (a hybrid signature needs an identity made with mlDsa: true)`);
  const mlDsa65 = await signWith(s, r.id, 'ml-dsa-65', signed, appMlDsaContext());
  const ed25519 = await signWith(s, r.id, 'ed25519', signed, undefined);
  return { ed25519, mlDsa65 };
}

const MAGIC = new TextEncoder().encode(CONTAINER.magic);
const ED25519_SIGNATURE = 64;
const ML_DSA_SIGNATURE = 3309;

/**
 * The signed bytes of a container header (docs/FORMAT.md §8.1), built here from `unsigned` (every
 * header byte before the signature table) after the core has parsed it as a whole version 5 or 6
 * header naming `identity` as its signer: `"vollcrypt-file-header-signature-v1" ‖ unsigned`.
 * An identity with ML-DSA-65 signs version 6 headers only, one without version 5 only.
 */
function containerHeaderSignedBytes(unsigned: Uint8Array, identity: IdentityRecord): Uint8Array {
  if (!equalBytes(unsigned.subarray(0, MAGIC.length), MAGIC)) throw new VeilError('BAD_MAGIC', 'the header does not begin with VOLLVALT');
  const version = unsigned[MAGIC.length];
  if (version !== 5 && version !== 6) {
    throw new VeilError('UNSUPPORTED_VERSION', `only signed container headers (version 5 or 6) are signed, got version ${String(version)}`);
  }
  // Zeros in place of the signature table: the core parses the header whole (signatures are not checked here).
  const table = ED25519_SIGNATURE + (version === 6 ? ML_DSA_SIGNATURE : 0);
  const header = new Uint8Array(unsigned.length + table);
  header.set(unsigned);
  const reader = call(() => new wasm.ContainerReaderHandle(header));
  let info: ReturnType<typeof reader.info>;
  try {
    info = call(() => reader.info());
  } finally {
    reader.free();
  }
  if (info.headerLength !== header.length) {
    throw new VeilError('NON_CANONICAL', `the header is ${info.headerLength - table} bytes before its signature table, not ${unsigned.length}`);
  }
  const ed = identity.publicKeys.ed25519;
  const ml = identity.publicKeys['ml-dsa-65'];
  const signer = info.signer;
  if (signer === null || ed === undefined || !equalBytes(signer.ed25519, ed)) {
    throw new VeilError('SIGNER_MISMATCH', `the header does not name identity ${identity.id} as its signer`);
  }
  if (identity.mlDsa ? ml === undefined || signer.mlDsa65 === null || !equalBytes(signer.mlDsa65, ml) : signer.mlDsa65 !== null) {
    throw new VeilError('SIGNER_MISMATCH', identity.mlDsa
      ? `identity ${identity.id} has an ML-DSA-65 key: it signs version 6 headers naming both its keys`
      : `identity ${identity.id} has no ML-DSA-65 key: it signs version 5 headers`);
  }
  return concatBytes([HEADER_SIGNATURE_LABEL, unsigned]);
}

/**
 * `keystore/sign-container-header`: the header signatures (Ed25519, and ML-DSA-65 with the header
 * context for an identity that has the key) over the signed bytes this worker builds from the
 * unsigned header. The one request that signs with the container's label and context.
 */
export async function signContainerHeader(s: Store, id: string, header: unknown): Promise<ContainerHeaderSignature> {
  const unsigned = atLeast('header', header, CONTAINER.fixedHeaderLength);
  const r = await identityRecord(s, id);
  const signed = containerHeaderSignedBytes(unsigned, r);
  const ed25519 = await signWith(s, r.id, 'ed25519', signed, undefined);
  if (!r.mlDsa) return { ed25519 };
  return { ed25519, mlDsa65: await signWith(s, r.id, 'ml-dsa-65', signed, MLDSA_HEADER_CONTEXT) };
}

export async function deriveSharedKey(s: Store, id: string, peerPublicKey: Uint8Array, info: Uint8Array): Promise<CryptoKey> {
  const peer = exact('peerPublicKey', peerPublicKey, 32);
  const checkedInfo = bytes('info', info);
  const { session, identity, record } = await loadSecret(s, id, 'x25519');
  let shared: Uint8Array;
  if (identity.routes.x25519 === 'native') {
    const own = await nativeKey(session, record, 'x25519');
    try {
      // Inside the try: Firefox already refuses a low-order peer key at import (DataError), Chromium
      // at deriveBits (OperationError); the length was checked above, so either is the key's fault.
      const peerKey = await subtle().importKey('raw', bs(peer), { name: 'X25519' }, true, []);
      shared = new Uint8Array(await subtle().deriveBits({ name: 'X25519', public: peerKey }, own, 256));
    } catch (e) {
      throw new VeilError('WEAK_KEY', `X25519 with this peer key failed (${(e as Error).message})`);
    }
  } else {
    shared = await withSecret(session, record, (sk) => P.ecdhSharedSecret(sk, peer));
  }
  return keyFromOwnedSecret(shared, checkedInfo, 'aes-gcm');
}

type DecapsulateRequest = Extract<KeystoreRequest, { type: 'keystore/decapsulate' }>;

export async function decapsulateRequest(req: DecapsulateRequest): Promise<CryptoKey | true> {
  const port = req.port;
  if (port !== undefined && !(port instanceof MessagePort)) throw new TypeError('port must be a MessagePort');
  if (port === undefined) return decapsulate(req);
  // Straight to the worker holding the other end: the page relayed only the port. On failure
  // the other end learns it too (its request must not wait for ever); the error itself is ours.
  // This end is not closed here: the receiving worker closes its end once it has the message
  // (worker/files.ts), which disentangles both. Firefox (ESR 153) drops a message posted on a port
  // closed before the other end has reached its worker, and the page transfers that end only
  // after this request has returned.
  try {
    port.postMessage({ key: await decapsulate(req) });
    return true;
  } catch (e) {
    port.postMessage({ failed: true });
    throw e;
  }
}

async function decapsulate(req: DecapsulateRequest): Promise<CryptoKey> {
  {
    const s = await open(req);
    const info = bytes('info', req.info);
    if (req.output !== 'aes-gcm' && req.output !== 'hkdf') throw new TypeError(`output must be 'aes-gcm' or 'hkdf'`);
    if (req.kem === 'ml-kem-768') {
      const ct = untrustedExact('ciphertext', req.ciphertext, 1088, 'INVALID_LENGTH');
      const { session, identity, record } = await loadSecret(s, req.identity, 'ml-kem-768');
      if (identity.routes['ml-kem-768'] === 'native') {
        const dk = await nativeKey(session, record, 'ml-kem-768');
        const base = await subtle().decapsulateKey({ name: 'ML-KEM-768' }, dk, bs(ct), { name: 'HKDF' }, false, ['deriveKey']);
        return keyFromSecret(base, info, req.output);
      }
      const ss = await withSecret(session, record, (seed) => {
        const [dk, ek] = P.mlKemKeygen(seed);
        try {
          return P.mlKemDecapsulate(dk, ct);
        } finally {
          wipe(dk, ek);
        }
      });
      return keyFromOwnedSecret(ss, info, req.output);
    }
    if (req.kem === 'x-wing') {
      const ct = untrustedExact('ciphertext', req.ciphertext, 1120, 'INVALID_LENGTH');
      const { session, record } = await loadSecret(s, req.identity, 'x-wing');
      const ss = await withSecret(session, record, (sk) => P.xWingDecapsulate(sk, ct));
      return keyFromOwnedSecret(ss, info, req.output);
    }
    throw new TypeError(`kem must be 'ml-kem-768' or 'x-wing'`);
  }
}

/** Opens a sealed box with the identity's X-Wing key (docs/SEALED.md); the plaintext is the reply. */
export async function openSealed(s: Store, id: string, sealed: unknown, info: unknown, aad: unknown): Promise<Uint8Array> {
  const box = checkedSealed(sealed);
  const args = checkedRequest(info, aad);
  const { session, record } = await loadSecret(s, id, 'x-wing');
  return withSecret(session, record, (sk) => openWithSecretKey(sk, box, args.info, args.aad));
}

/** HPKE single-shot receive-export with the identity's X-Wing key. */
export async function openSealedExport(
  s: Store, id: string, enc: unknown, info: unknown, exporterContext: unknown, length: unknown,
): Promise<Uint8Array> {
  const e = checkedEnc(enc);
  const args = checkedRequest(info, exporterContext);
  const len = integer('length', length, 1, SEALED_BOX.maxExportLength);
  const { session, record } = await loadSecret(s, id, 'x-wing');
  return withSecret(session, record, (sk) => exportWithSecretKey(sk, e, args.info, args.aad, len));
}
