/**
 * Prekey (or public) bundles as text, for the app to hand to a peer: a QR code, a link, a chat
 * message, a directory entry. `bundleToString(bytes)` → `veilkit-bundle-v1.<base64url(bytes ‖ crc32)>`;
 * `bundleFromString(text)` gives the bytes back or throws a {@link VeilError} — never anything else.
 *
 * The CRC-32 catches text damaged in transit (a character lost or changed when copied); it is not
 * security. What makes a bundle trustworthy is its signature, checked by `Session.initiate`
 * (`BUNDLE_INVALID`) and `verifyPublicBundle`, and the verification code the users compare.
 */
import { base64urlDecode, base64urlEncode } from './bytes.js';
import { VeilError } from '../protocol/errors.js';
import { bytes as checkBytes } from './validate.js';

/** The prefix of the current text form, version included. */
export const BUNDLE_STRING_PREFIX = 'veilkit-bundle-v1.';

/** The largest bundle the text form carries (bytes; a prekey bundle is a few KiB). */
export const MAX_BUNDLE_STRING_BYTES = 65536;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE 802.3, as in zlib). */
function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of data) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * A bundle's bytes (`createPrekeyBundle(…).bundle`, one of its `oneTime` bundles, or a
 * `PublicBundle`'s `bytes`) as one line of URL-safe text: `veilkit-bundle-v1.` then unpadded
 * base64url of the bytes followed by their CRC-32 (4 bytes, big-endian). Throws a `TypeError` for a
 * non-`Uint8Array`, a `RangeError` for an empty one or one over {@link MAX_BUNDLE_STRING_BYTES}.
 */
export function bundleToString(bundle: Uint8Array): string {
  const b = checkBytes('bundle', bundle);
  if (b.length === 0 || b.length > MAX_BUNDLE_STRING_BYTES) {
    throw new RangeError(`bundle must be 1 to ${String(MAX_BUNDLE_STRING_BYTES)} bytes, got ${String(b.length)}`);
  }
  const out = new Uint8Array(b.length + 4);
  out.set(b);
  new DataView(out.buffer).setUint32(b.length, crc32(b));
  return BUNDLE_STRING_PREFIX + base64urlEncode(out);
}

/**
 * The bytes of a {@link bundleToString} text (surrounding whitespace ignored). Total: any other
 * input throws a `VeilError` — `MALFORMED_INPUT` (not a string, no `veilkit-bundle-v<n>.` prefix,
 * not canonical base64url, a checksum mismatch: the text was damaged or edited; `details.reason`
 * says which), `UNSUPPORTED_VERSION` (another version), `INVALID_LENGTH` (empty or over
 * {@link MAX_BUNDLE_STRING_BYTES}). The bytes are not verified here: pass them to `Session.initiate`
 * (`useChat`'s `peer.bundle`), which checks the signatures.
 */
export function bundleFromString(text: string): Uint8Array {
  if (typeof text !== 'string') throw new VeilError('MALFORMED_INPUT', 'a bundle string must be a string', { details: { reason: 'type' } });
  const t = text.trim();
  const m = /^veilkit-bundle-v(\d{1,6})\./.exec(t);
  if (m === null) throw new VeilError('MALFORMED_INPUT', `not a bundle string: it must start with ${BUNDLE_STRING_PREFIX}`, { details: { reason: 'prefix' } });
  if (m[0] !== BUNDLE_STRING_PREFIX) throw new VeilError('UNSUPPORTED_VERSION', `bundle string version ${m[1] ?? '?'} is not supported (this veilkit reads v1)`);
  const body = t.slice(m[0].length);
  const maxChars = Math.ceil(((MAX_BUNDLE_STRING_BYTES + 4) * 4) / 3);
  if (body.length > maxChars) throw new VeilError('INVALID_LENGTH', `bundle string too long: ${String(body.length)} characters`, { details: { got: body.length } });
  const raw = base64urlDecode(body);
  if (raw === undefined) throw new VeilError('MALFORMED_INPUT', 'bundle string is not canonical base64url', { details: { reason: 'base64url' } });
  if (raw.length < 5) throw new VeilError('INVALID_LENGTH', `bundle string holds ${String(raw.length)} bytes: no bundle`, { details: { got: raw.length } });
  const bundle = raw.slice(0, raw.length - 4);
  const stored = new DataView(raw.buffer, raw.byteOffset + raw.length - 4, 4).getUint32(0);
  if (stored !== crc32(bundle)) throw new VeilError('MALFORMED_INPUT', 'bundle string checksum mismatch: the text was damaged or edited', { details: { reason: 'checksum' } });
  return bundle;
}
