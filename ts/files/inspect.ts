/** Reading a container's public header without a key: {@link inspectContainer}. */
import type { WorkerPool } from '../pool.js';
import { FileJob } from './job.js';
import { containerSource, headerOf, readHeader, type ContainerSource } from './source.js';
import type { ContainerInspection } from './types.js';

/**
 * Reads a container's public header without a key: version, mode, sizes,
 * wraps, signer, signature status and the sealed marker. Takes the container
 * (`Blob`) or just its first bytes (`Uint8Array`, at least the header).
 */
export async function inspectContainer(input: Blob | Uint8Array, options: { readonly pool?: WorkerPool; readonly signal?: AbortSignal } = {}): Promise<ContainerInspection> {
  let source: ContainerSource;
  if (input instanceof Blob) source = containerSource(input);
  else if (input instanceof Uint8Array) {
    const b = input;
    source = { size: undefined, prefix: async (n) => b.slice(0, n), body: async () => new Uint8Array(0), trailing: async () => false, cancel: () => {} };
  } else throw new TypeError('input must be a Blob or a Uint8Array');
  const job = new FileJob(options);
  try {
    const { read } = await readHeader(job, source, undefined, false);
    const header = headerOf(read.info);
    return {
      header, signature: read.signature, sealed: header.sealed !== null,
      ...(input instanceof Blob ? { lengthValid: input.size === header.containerLength } : {}),
    };
  } catch (e) {
    throw job.error(e);
  } finally {
    job.dispose();
  }
}
