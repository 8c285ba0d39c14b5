/** Sealed sender: the sender id travels inside the encryption, signed. */
import * as wasm from '../wasm/veilkit.js';
import { call } from '../init.js';
import { bytes, exact, oneOf, untrusted, wipe } from '../validate.js';
import { splitOwned } from '../split.js';
import { ED25519_SECRET_LENGTHS, nonEmpty } from './internal.js';
import { MESSAGING } from './sizes.js';

// ---------------------------------------------------------------- sealed sender

/** A verified sealed-sender message. */
export interface UnsealedMessage {
  /** The sender id whose key verified the signature. */
  senderId: Uint8Array;
  /** The content. */
  content: Uint8Array;
}

/** Looks up the Ed25519 identity key of the sender id a packet claims. */
export type SenderKeyResolver = (senderId: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/**
 * Seals `content` from `senderId` (1 … 65535 bytes) to the recipient's X25519
 * key, signed with the sender's Ed25519 secret (64 bytes or 32-byte seed).
 */
export function sealMessage(recipientX25519Pub: Uint8Array, senderId: Uint8Array, content: Uint8Array, senderSigningKey: Uint8Array): Uint8Array {
  const r = exact('recipientX25519Pub', recipientX25519Pub, 32);
  const id = nonEmpty('senderId', senderId, MESSAGING.maxSenderIdLength);
  const c = bytes('content', content);
  const k = oneOf('senderSigningKey', senderSigningKey, ED25519_SECRET_LENGTHS);
  return call(() => wasm.sealMessage(r, id, c, k));
}

function unsealWithKey(packet: Uint8Array, sk: Uint8Array, senderPk: Uint8Array): UnsealedMessage {
  const out = call(() => wasm.unsealMessage(packet, sk, senderPk));
  const idLen = ((out[0] ?? 0) << 8) | (out[1] ?? 0);
  const [, senderId, content] = splitOwned(out, 2, idLen, out.length - 2 - idLen) as [Uint8Array, Uint8Array, Uint8Array];
  return { senderId, content };
}

/**
 * Decrypts a sealed packet and returns `{ senderId, content }` only after the
 * sender's signature verifies under `senderIdentityPk` — or under the key the
 * resolver returns for the claimed sender id (then the result is a promise).
 * Any failure is `VeilError('AUTHENTICATION_FAILED')`.
 */
export function unsealMessage(sealedPacket: Uint8Array, ourX25519Sk: Uint8Array, senderIdentityPk: Uint8Array): UnsealedMessage;
export function unsealMessage(sealedPacket: Uint8Array, ourX25519Sk: Uint8Array, resolveSenderKey: SenderKeyResolver): Promise<UnsealedMessage>;
export function unsealMessage(
  sealedPacket: Uint8Array,
  ourX25519Sk: Uint8Array,
  senderKey: Uint8Array | SenderKeyResolver,
): UnsealedMessage | Promise<UnsealedMessage> {
  // A packet shorter than the smallest one is INVALID_LENGTH (docs/PROTOCOL.md §7), not a RangeError.
  const p = untrusted('sealedPacket', sealedPacket, MESSAGING.sealedPacketMinLength, undefined, 'INVALID_LENGTH');
  const sk = exact('ourX25519Sk', ourX25519Sk, 32);
  if (typeof senderKey !== 'function') {
    return unsealWithKey(p, sk, exact('senderIdentityPk', senderKey, 32));
  }
  // Copies: the caller's buffers may change while the resolver runs.
  const packet = p.slice();
  const secret = sk.slice();
  let claimed: Uint8Array;
  try {
    claimed = call(() => wasm.unsealSenderId(packet, secret));
  } catch (e) {
    wipe(secret);
    throw e;
  }
  return (async () => {
    try {
      const key = exact('resolved sender key', await senderKey(claimed), 32);
      return unsealWithKey(packet, secret, key);
    } finally {
      wipe(secret);
    }
  })();
}
