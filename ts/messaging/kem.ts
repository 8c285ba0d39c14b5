/** Hybrid X25519 + ML-KEM-768 and authenticated (Ed25519-signed) KEM. */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { exact, oneOf, untrustedExact } from '../validate.js';
import { splitOwned } from '../split.js';
import { ED25519_SECRET_LENGTHS } from './internal.js';
import { MESSAGING } from './sizes.js';

// ---------------------------------------------------------------- hybrid and authenticated KEM

/** Result of {@link hybridKemEncapsulate}. */
export interface HybridKemResult {
  /** 32-byte shared key. */
  sharedKey: Uint8Array;
  /** 1088-byte ML-KEM-768 ciphertext to send (with the sender's X25519 public key). */
  mlKemCiphertext: Uint8Array;
}

/**
 * Hybrid X25519 + ML-KEM-768 encapsulation. The key is HKDF over both shared
 * secrets, bound to both X25519 public keys and the ciphertext.
 */
export function hybridKemEncapsulate(x25519OurSecret: Uint8Array, x25519TheirPublic: Uint8Array, mlKemEk: Uint8Array): HybridKemResult {
  const s = exact('x25519OurSecret', x25519OurSecret, 32);
  const p = exact('x25519TheirPublic', x25519TheirPublic, 32);
  const ek = exact('mlKemEk', mlKemEk, MESSAGING.mlKemEncapsulationKeyLength);
  const [mlKemCiphertext, sharedKey] = splitOwned(call(() => wasm.hybridKemEncapsulate(s, p, ek)), 1088, 32) as [Uint8Array, Uint8Array];
  return { sharedKey, mlKemCiphertext };
}

/** Hybrid decapsulation: the 32-byte shared key (a forged ciphertext gives an unrelated key). */
export function hybridKemDecapsulate(
  x25519OurSecret: Uint8Array,
  x25519TheirPublic: Uint8Array,
  mlKemDk: Uint8Array,
  mlKemCt: Uint8Array,
): Uint8Array {
  const s = exact('x25519OurSecret', x25519OurSecret, 32);
  const p = exact('x25519TheirPublic', x25519TheirPublic, 32);
  const dk = exact('mlKemDk', mlKemDk, MESSAGING.mlKemDecapsulationKeyLength);
  // The ciphertext comes from the sender: a wrong length is INVALID_LENGTH (the core's code), not a RangeError.
  const ct = untrustedExact('mlKemCt', mlKemCt, MESSAGING.mlKemCiphertextLength, 'INVALID_LENGTH');
  return call(() => wasm.hybridKemDecapsulate(s, p, dk, ct));
}

/** `[ciphertext (1154 bytes), sharedSecret (32 bytes)]`, as the seed returns it. */
export type AuthenticatedKemResult = [ciphertext: Uint8Array, sharedSecret: Uint8Array];

/**
 * Hybrid encapsulation signed by the sender's Ed25519 identity key (64-byte
 * secret or 32-byte seed): `u16(1088) ‖ mlkem_ct ‖ signature`.
 */
export function authenticatedKemEncapsulate(
  ourX25519Sk: Uint8Array,
  recipientX25519Pub: Uint8Array,
  recipientMlkemEk: Uint8Array,
  senderIdentitySk: Uint8Array,
): AuthenticatedKemResult {
  const s = exact('ourX25519Sk', ourX25519Sk, 32);
  const p = exact('recipientX25519Pub', recipientX25519Pub, 32);
  const ek = exact('recipientMlkemEk', recipientMlkemEk, MESSAGING.mlKemEncapsulationKeyLength);
  const id = oneOf('senderIdentitySk', senderIdentitySk, ED25519_SECRET_LENGTHS);
  const [ct, ss] = splitOwned(call(() => wasm.authenticatedKemEncapsulate(s, p, ek, id)), 1154, 32) as [Uint8Array, Uint8Array];
  return [ct, ss];
}

/**
 * Verifies the sender's signature, then decapsulates. A bad signature (or a
 * swapped X25519 key) throws `VeilError('AUTHENTICATION_FAILED')`.
 */
export function authenticatedKemDecapsulate(
  ourX25519Sk: Uint8Array,
  senderX25519Pub: Uint8Array,
  ourMlkemDk: Uint8Array,
  authenticatedCiphertext: Uint8Array,
  senderIdentityPk: Uint8Array,
): Uint8Array {
  const s = exact('ourX25519Sk', ourX25519Sk, 32);
  const p = exact('senderX25519Pub', senderX25519Pub, 32);
  const dk = exact('ourMlkemDk', ourMlkemDk, MESSAGING.mlKemDecapsulationKeyLength);
  // From the sender: INVALID_LENGTH (docs/PROTOCOL.md §2), not a RangeError.
  const ct = untrustedExact('authenticatedCiphertext', authenticatedCiphertext, MESSAGING.authenticatedKemCiphertextLength, 'INVALID_LENGTH');
  const id = exact('senderIdentityPk', senderIdentityPk, 32);
  return call(() => wasm.authenticatedKemDecapsulate(s, p, dk, ct, id));
}
