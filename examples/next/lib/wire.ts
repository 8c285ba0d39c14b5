// What the server accepts: it checks shapes, never contents it could not read anyway.
import { fromBase64, isBase64 } from './base64';

/** docs/SESSIONS.md §3: "VKPB" ‖ format 1 ‖ …; 10,033 bytes without one-time prekeys, 18,037 with both. */
const BUNDLE_MAGIC = [0x56, 0x4b, 0x50, 0x42, 0x01];
export const MAX_BUNDLE_BYTES = 20_000;
export const MAX_ONE_TIME = 100;
/** A chat frame: 1 byte kind (1 initial message, 2 ratchet message) ‖ body. */
export const MAX_FRAME_BYTES = 64 * 1024;

export function isPrekeyBundle(text: unknown): text is string {
  if (!isBase64(text, MAX_BUNDLE_BYTES)) return false;
  const bytes = fromBase64(text);
  return bytes.length >= 10_000 && BUNDLE_MAGIC.every((b, i) => bytes[i] === b);
}

export function isChatFrame(text: unknown): text is string {
  if (!isBase64(text, MAX_FRAME_BYTES)) return false;
  const kind = fromBase64(text.slice(0, 4))[0];
  return kind === 1 || kind === 2;
}
