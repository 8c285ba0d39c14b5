// Argon2id cases with parallel lanes (p > 1) that the threads build computes lane-parallel:
// tests/playwright/fixtures/threads-worker.ts runs them on each wasm build, and
// tests/playwright/threads.spec.ts compares every tag with an independent Argon2
// (hash-wasm, a devDependency) computed in Node. No imports: loaded in both places.

export interface Argon2LanesCase {
  readonly name: string;
  /** Bytes of the password, all equal to `passwordByte`. */
  readonly passwordLength: number;
  readonly passwordByte: number;
  /** Bytes of the salt, all equal to `saltByte`. */
  readonly saltLength: number;
  readonly saltByte: number;
  /** Optional secret (pepper): that many bytes equal to 0x5e. */
  readonly secretLength: number;
  readonly memoryKib: number;
  readonly iterations: number;
  readonly parallelism: number;
  readonly length: number;
}

export const ARGON2_LANES_CASES: readonly Argon2LanesCase[] = [
  { name: 'p=4 16 MiB t=2', passwordLength: 8, passwordByte: 1, saltLength: 16, saltByte: 2, secretLength: 0, memoryKib: 16 * 1024, iterations: 2, parallelism: 4, length: 32 },
  { name: 'p=2 1 MiB t=3', passwordLength: 32, passwordByte: 0xaa, saltLength: 8, saltByte: 3, secretLength: 0, memoryKib: 1024, iterations: 3, parallelism: 2, length: 32 },
  { name: 'p=3 memory not a multiple of 4p, 64-byte tag', passwordLength: 5, passwordByte: 7, saltLength: 16, saltByte: 9, secretLength: 0, memoryKib: 1000, iterations: 1, parallelism: 3, length: 64 },
  { name: 'p=8 with a secret', passwordLength: 12, passwordByte: 0x42, saltLength: 24, saltByte: 0x24, secretLength: 32, memoryKib: 4096, iterations: 2, parallelism: 8, length: 48 },
  { name: 'p=16 minimum memory', passwordLength: 1, passwordByte: 0, saltLength: 8, saltByte: 0xff, secretLength: 0, memoryKib: 128, iterations: 1, parallelism: 16, length: 16 },
];

export function argon2LanesInputs(c: Argon2LanesCase): { password: Uint8Array; salt: Uint8Array; secret: Uint8Array } {
  return {
    password: new Uint8Array(c.passwordLength).fill(c.passwordByte),
    salt: new Uint8Array(c.saltLength).fill(c.saltByte),
    secret: new Uint8Array(c.secretLength).fill(0x5e),
  };
}
