/**
 * App signatures (docs/KEYSTORE.md#app-signatures): what `Keystore.sign` and `Keystore.signHybrid`
 * sign with an identity's keys, and their verifiers.
 *
 * ```text
 * signed bytes = "veilkit-app-signature-v1" ‖ u8(|context|) ‖ context ‖ message   (context ≤ 255 bytes, default empty)
 * Ed25519      = Ed25519.Sign(sk, signed bytes)
 * ML-DSA-65    = ML-DSA-65.Sign(sk, signed bytes, ctx = "veilkit-app-signature-v1")   (hedged)
 * ```
 *
 * The same keys sign session prekeys, the public bundle and container headers. Those signed bytes
 * begin with other labels and their ML-DSA-65 contexts differ, so no app signature is ever one of
 * them (and none of them is an app signature): an application cannot be made to sign a protocol
 * object through `sign`, whatever message it passes.
 */
import { bytes, atMost, exact, optionalBytes } from './validate.js';
import { verifySignature } from './ed25519.js';
import { ML_DSA_65, mlDsaVerify } from './mldsa.js';

const enc = new TextEncoder();

/** Constants of app signatures. */
export const APP_SIGNATURE = Object.freeze({
  /** The label the signed bytes begin with, also the ML-DSA-65 context (ASCII, 24 bytes). */
  label: 'veilkit-app-signature-v1',
  /** Longest app context, in bytes. */
  maxContextLength: 255,
});

const LABEL = enc.encode(APP_SIGNATURE.label);

/** Options of app signatures: the app's own context, bound into the signed bytes (default empty). */
export interface AppSignatureOptions {
  /** At most 255 bytes; a signature made with one context never verifies under another. */
  context?: Uint8Array;
}

/** Package-internal: the checked app context. */
export function appContext(value: unknown): Uint8Array {
  return atMost('context', optionalBytes('context', value), APP_SIGNATURE.maxContextLength);
}

/** Package-internal: the ML-DSA-65 context of app signatures. */
export function appMlDsaContext(): Uint8Array {
  return LABEL.slice();
}

/**
 * The bytes an app signature covers: `"veilkit-app-signature-v1" ‖ u8(|context|) ‖ context ‖ message`
 * (a fresh buffer). Any Ed25519 / ML-DSA-65 implementation verifies an app signature over these
 * (ML-DSA-65 with context `"veilkit-app-signature-v1"`).
 */
export function appSignatureMessage(message: Uint8Array, options: AppSignatureOptions = {}): Uint8Array {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const m = bytes('message', message);
  const ctx = appContext(options.context);
  const out = new Uint8Array(LABEL.length + 1 + ctx.length + m.length);
  out.set(LABEL, 0);
  out[LABEL.length] = ctx.length;
  out.set(ctx, LABEL.length + 1);
  out.set(m, LABEL.length + 1 + ctx.length);
  return out;
}

/**
 * Verifies an app signature of `Keystore.sign` (Ed25519 by default, or `algorithm: 'ml-dsa-65'`)
 * under the identity's public key (e.g. `bundle.ed25519` / `bundle.mlDsa65`). `false` for any
 * invalid signature, another message or another context; throws only for wrong argument types
 * or lengths.
 */
export function verifyAppSignature(
  publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array,
  options: AppSignatureOptions & { algorithm?: 'ed25519' | 'ml-dsa-65' } = {},
): boolean {
  if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
  const algorithm = options.algorithm ?? 'ed25519';
  if (algorithm !== 'ed25519' && algorithm !== 'ml-dsa-65') throw new TypeError(`algorithm must be 'ed25519' or 'ml-dsa-65'`);
  const signed = appSignatureMessage(message, options);
  if (algorithm === 'ed25519') return verifySignature(publicKey, signed, signature);
  return mlDsaVerify(publicKey, signed, signature, { context: LABEL });
}

/**
 * Verifies an app signature of `Keystore.signHybrid`: both halves must verify, under the identity's
 * Ed25519 and ML-DSA-65 public keys (a `PublicBundle` of an identity with ML-DSA-65 will do).
 */
export function verifyHybridAppSignature(
  publicKeys: { readonly ed25519: Uint8Array; readonly mlDsa65?: Uint8Array | undefined },
  message: Uint8Array, signature: { readonly ed25519: Uint8Array; readonly mlDsa65: Uint8Array },
  options: AppSignatureOptions = {},
): boolean {
  if (typeof publicKeys !== 'object' || publicKeys === null) throw new TypeError('publicKeys must be an object');
  if (typeof signature !== 'object' || signature === null) throw new TypeError('signature must be an object');
  const mlDsaKey = exact('publicKeys.mlDsa65', publicKeys.mlDsa65, ML_DSA_65.publicKeyLength);
  const signed = appSignatureMessage(message, options);
  // Both halves are always checked.
  const ed = verifySignature(publicKeys.ed25519, signed, signature.ed25519);
  const ml = mlDsaVerify(mlDsaKey, signed, signature.mlDsa65, { context: LABEL });
  return ed && ml;
}
