/** Splits a buffer returned by wasm (which this library owns) into copies, then wipes it. */
export function splitOwned(buffer: Uint8Array, ...lengths: number[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let offset = 0;
  for (const len of lengths) {
    parts.push(buffer.slice(offset, offset + len));
    offset += len;
  }
  buffer.fill(0);
  return parts;
}

/** A `[secretKey, publicKey]` pair, as the seed API returns key pairs. */
export type Keypair = [secretKey: Uint8Array, publicKey: Uint8Array];

/** Splits `secret ‖ public`. */
export function keypair(buffer: Uint8Array, secretLength: number, publicLength: number): Keypair {
  const [s, p] = splitOwned(buffer, secretLength, publicLength) as [Uint8Array, Uint8Array];
  return [s, p];
}

/** The result of a key encapsulation. */
export interface EncapsulationResult {
  /** Send this to the holder of the decapsulation key. */
  ciphertext: Uint8Array;
  /** 32-byte shared secret. */
  sharedSecret: Uint8Array;
}

/** Splits `ciphertext ‖ sharedSecret`. */
export function encapsulation(buffer: Uint8Array, ciphertextLength: number): EncapsulationResult {
  const [ciphertext, sharedSecret] = splitOwned(buffer, ciphertextLength, 32) as [Uint8Array, Uint8Array];
  return { ciphertext, sharedSecret };
}
