/** A session's verification code as the chat hooks show it (docs/REACT.md#verification-code). */
import type { Session } from '../session.js';

/** The SAS emoji table (docs/PROTOCOL.md §8.2, crate/src/messaging/verification.rs `EMOJI`). */
const EMOJI = [
  '🐶', '🐱', '🐭', '🐹', '🐰', '🦊', '🐻', '🐼', '🐨', '🐯', '🦁', '🐮', '🐷', '🐸', '🐵', '🐔',
  '🐧', '🐦', '🦆', '🦉', '🐴', '🦄', '🐝', '🐛', '🦋', '🐌', '🐞', '🐢', '🐍', '🐙', '🦀', '🐬',
  '🐳', '🦈', '🐘', '🦒', '🍎', '🍐', '🍊', '🍋', '🍌', '🍉', '🍇', '🍓', '🍒', '🍑', '🍍', '🥝',
  '🥕', '🌽', '🍄', '🌵', '🌲', '🌻', '🌙', '🌈', '🔥', '💧', '🌊', '🎈', '🎸', '🚀', '🔑', '🔔',
] as const;

/**
 * The static code of a session, the same on both sides. Every form carries the whole code: a static
 * code must keep about 200 bits (docs/PROTOCOL.md §8.1), so there is no short form.
 */
export interface ChatVerificationCode {
  /** 60 decimal digits in 12 groups of 5 (`Session.verificationCode().numeric`: the same name everywhere). */
  readonly numeric: string;
  /** @deprecated The same string as {@link ChatVerificationCode.numeric}, under its old name; use `numeric`. */
  readonly digits: string;
  /** All 256 bits of the fingerprint as 43 emoji (6 bits each, most significant first; the last carries 4), separated by spaces. */
  readonly emoji: string;
  /** 64 lowercase hex digits (`VerificationCode.fingerprint`). */
  readonly fingerprint: string;
}

/** The 256-bit hex fingerprint as 43 emoji. */
export function fingerprintEmoji(hex: string): string {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new TypeError('fingerprint must be 64 lowercase hex digits');
  let bits = '';
  for (let i = 0; i < hex.length; i++) bits += parseInt(hex.charAt(i), 16).toString(2).padStart(4, '0');
  const out: string[] = [];
  for (let i = 0; i < bits.length; i += 6) out.push(EMOJI[parseInt(bits.slice(i, i + 6).padEnd(6, '0'), 2)] ?? '?');
  return out.join(' ');
}

export async function verificationCodeOf(session: Session): Promise<ChatVerificationCode> {
  const c = await session.verificationCode();
  return Object.freeze({ numeric: c.numeric, digits: c.numeric, emoji: fingerprintEmoji(c.fingerprint), fingerprint: c.fingerprint });
}
