/**
 * Every bound on a password KDF's cost, in one table: the Argon2id and PBKDF2
 * primitives, a container's password wraps (docs/FORMAT.md), a keystore
 * passphrase (docs/KEYSTORE.md) and the readers' default KDF budget. It is the
 * Rust core's `kdf::KDF_BOUNDS` (crate/src/kdf/bounds.rs); tests/node/kdf-bounds.test.ts
 * compares the two through the wasm export `kdfBoundsJson`. Change a value in
 * both places or not at all: the container bounds are part of the format.
 */

/** The inclusive range of one cost parameter and the writers' default. */
export interface CostBounds {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/** The bounds of an Argon2id cost (memory, passes, lanes) for one use. */
export interface Argon2CostBounds {
  /** Memory cost in KiB. */
  readonly memoryKib: CostBounds;
  /** Time cost (passes). */
  readonly iterations: CostBounds;
  /** Lanes. */
  readonly parallelism: CostBounds;
}

/** Shape of {@link KDF_BOUNDS}. */
export interface KdfBounds {
  /** The Argon2id primitive (`argon2id()`); memory must also be at least 8 · parallelism. */
  readonly argon2id: {
    readonly maxMemoryKib: number;
    readonly maxParallelism: number;
    readonly minOutputLen: number;
    readonly maxOutputLen: number;
    readonly minSaltLen: number;
    readonly maxSecretLen: number;
  };
  /** Largest output of the PBKDF2 primitive (`derivePbkdf2()`), in bytes. */
  readonly pbkdf2MaxOutputLen: number;
  /** A container's Argon2id password wrap (type 1; `encryptFile`'s `kdf`). */
  readonly wrapArgon2id: Argon2CostBounds;
  /** A container's PBKDF2 password wrap (type 0): the iteration count. */
  readonly wrapPbkdf2Iterations: CostBounds;
  /** A keystore passphrase (`setPassphrase`, `exportBackup`, a backup's header). */
  readonly passphraseArgon2id: Argon2CostBounds;
  /** The readers' default KDF budget (`DEFAULT_KDF_BUDGET`). */
  readonly defaultBudget: {
    readonly argon2MemoryKib: number;
    readonly argon2Iterations: number;
    readonly pbkdf2Iterations: number;
    readonly passwordWraps: number;
  };
}

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) deepFreeze(v as object);
  return Object.freeze(o);
}

/** The Argon2id memory of a password (container wrap and keystore passphrase alike): 19 MiB to 1 GiB, 64 MiB by default. */
const PASSWORD_MEMORY_KIB: CostBounds = { min: 19_456, max: 1_048_576, default: 65_536 };

/** The password-KDF bounds (see {@link KdfBounds}); frozen. */
export const KDF_BOUNDS: KdfBounds = deepFreeze({
  argon2id: { maxMemoryKib: 1_048_576, maxParallelism: 16, minOutputLen: 4, maxOutputLen: 1024, minSaltLen: 8, maxSecretLen: 32 },
  pbkdf2MaxOutputLen: 1024,
  wrapArgon2id: {
    memoryKib: PASSWORD_MEMORY_KIB,
    iterations: { min: 2, max: 10, default: 3 },
    parallelism: { min: 1, max: 16, default: 4 },
  },
  wrapPbkdf2Iterations: { min: 600_000, max: 10_000_000, default: 600_000 },
  passphraseArgon2id: {
    memoryKib: PASSWORD_MEMORY_KIB,
    iterations: { min: 2, max: 16, default: 3 },
    parallelism: { min: 1, max: 16, default: 1 },
  },
  defaultBudget: { argon2MemoryKib: 262_144, argon2Iterations: 4, pbkdf2Iterations: 2_000_000, passwordWraps: 2 },
});
