/**
 * Browser file encryption: VOLLVALT containers (byte-exact in docs/FORMAT.md)
 * from a `File`, `Blob` or `ReadableStream`, in bounded memory, on a worker pool
 * (the caller's `pool`, a private one of `workers` workers, or the default pool
 * these calls share, ts/pool.ts `acquireDefaultPool`).
 *
 * ```ts
 * const sealed = await encryptFile(file, { password: 'correct horse battery staple' });
 * await saveFile(sealed, `${file.name}.vvlt`);
 * const plain = await decryptFile(sealed, 'correct horse battery staple');            // Blob, verified
 * const stream = decryptFile(sealed, { password: '…' }, { releaseMode: 'streaming' }); // ReadableStream
 * const c = await openContainer(sealed, '…');  const bytes = await c.read(1_000_000, 4096);  c.dispose();
 * ```
 *
 * How it runs (the page only orchestrates):
 * - the DEK is drawn and wrapped inside a worker's wasm (Argon2id / PBKDF2 /
 *   X-Wing / group / threshold, all in the worker), then imported there as a
 *   **non-extractable** HKDF `CryptoKey` that never leaves that worker, and
 *   wiped in wasm and JS; the page holds no DEK, KEK or password-derived byte
 *   and no key that could derive one;
 * - that worker derives each batch's chunk keys (non-extractable AES-256-GCM,
 *   one usage) and IVs with WebCrypto HKDF; chunks are sealed / opened with
 *   WebCrypto AES-GCM in any worker of the pool, byte-identical to the Rust
 *   engine; each chunk's leaf is hashed over its whole ciphertext in
 *   the same worker, and on decryption must equal its entry in the leaf table
 *   (checked against the header's signed root when the file is opened) before
 *   anything is released;
 * - inputs are read with `blob.slice()` per batch of chunks (or from the
 *   stream), and at most `concurrency` batches are in flight across the pool,
 *   so memory is O(batch × in-flight), never O(file). Results are `Blob`s
 *   (kept by the browser's blob storage) or streamed chunks.
 *
 * Passwords are JavaScript strings: they are sent to a worker as strings and
 * cannot be wiped from JavaScript memory (the UTF-8 bytes made from them in
 * the worker are). Group keys, `xWingSecretKey` and `signWithKeys` are bytes
 * you hold on the page by definition; prefer keystore identities.
 */
export { CONTAINER } from './files-format.js';
export type {
  FileInput, FileProgress, RecipientPublicKey, PasswordKdf, GroupKey, ThresholdOptions, IdentitySigner, SigningSeeds, FileJobOptions,
  EncryptFileOptions, FileUnlock, SignaturePolicyOptions, SignatureInfo, UnlockOptions, DecryptFileOptions, WrapInfo, ContainerHeader,
  SignatureStatus, ContainerInspection, VerifyPolicy, VerificationReport, OpenedContainer, EncryptToResult,
  FileJobStatus, FileJobSnapshot, FileOperation,
} from './files/types.js';
export { encryptFile } from './files/encrypt.js';
export { encryptFileTo, saveFile, type SaveFileOptions } from './files/save.js';
export { decryptFile } from './files/decrypt.js';
export { openContainer } from './files/random-access.js';
export { inspectContainer } from './files/inspect.js';
