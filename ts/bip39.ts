/** BIP-39 English mnemonics (seed names `generateMnemonic` / `mnemonicToSeed`). */
import * as wasm from './wasm/veilkit.js';
import { VeilError } from '../protocol/errors.js';
import { call } from './init.js';
import { bytes, string } from './validate.js';

/** A fresh 24-word phrase (256-bit entropy). */
export function generateMnemonic(): string {
  return call(() => wasm.bip39Generate());
}

/** Encodes 16/20/24/28/32 bytes of entropy as a phrase. */
export function entropyToMnemonic(entropy: Uint8Array): string {
  const e = bytes('entropy', entropy);
  if (![16, 20, 24, 28, 32].includes(e.length)) {
    throw new RangeError(`entropy must be 16, 20, 24, 28 or 32 bytes, got ${e.length}`);
  }
  return call(() => wasm.bip39FromEntropy(e));
}

/**
 * NFKD, as BIP-39 prescribes, done here with the engine's `String.prototype.normalize` (the
 * wasm side expects normalised text, which keeps the Unicode tables out of the module).
 */
function nfkd(text: string): string {
  return text.normalize('NFKD');
}

/** Decodes a phrase to its entropy; an unknown word or bad checksum throws `VeilError('INVALID_MNEMONIC')`. */
export function mnemonicToEntropy(phrase: string): Uint8Array {
  const p = nfkd(string('phrase', phrase));
  return call(() => wasm.bip39ToEntropy(p));
}

/** Whether the phrase is a valid English BIP-39 mnemonic (words and checksum). */
export function validateMnemonic(phrase: string): boolean {
  const p = nfkd(string('phrase', phrase));
  try {
    call(() => wasm.bip39ToEntropy(p)).fill(0);
    return true;
  } catch (e) {
    if (e instanceof VeilError && e.code === 'INVALID_MNEMONIC') return false;
    throw e;
  }
}

/**
 * The 64-byte BIP-39 seed (PBKDF2-HMAC-SHA512, 2048 rounds, NFKD). The phrase
 * is validated first: `VeilError('INVALID_MNEMONIC')`.
 */
export function mnemonicToSeed(phrase: string, password?: string | null): Uint8Array {
  const p = nfkd(string('phrase', phrase));
  const pw = password === undefined || password === null ? '' : nfkd(string('password', password));
  return call(() => wasm.bip39ToSeed(p, pw));
}
