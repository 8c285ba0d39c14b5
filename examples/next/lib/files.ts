// Attachments: encrypted file containers uploaded by the rooms app, streamed to disk and back (bounded memory
// on the server: the body is never held whole). The server stores ciphertext only: the key travels inside the
// room's MLS message. Directory: VEILKIT_NEXT_FILES, or <tmp>/veilkit-next-files.
import { createReadStream, createWriteStream, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';

/** Largest attachment accepted: 256 MiB of ciphertext. */
export const MAX_FILE = 256 * 1024 * 1024;
export const FILE_ID = /^[0-9a-f]{32}$/;

export function filesDir(): string {
  const dir = process.env.VEILKIT_NEXT_FILES ?? join(tmpdir(), 'veilkit-next-files');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Streams `body` to a new file; its id and size, or undefined when it is over {@link MAX_FILE}. */
export async function store(body: ReadableStream<Uint8Array>): Promise<{ id: string; size: number } | undefined> {
  const id = randomBytes(16).toString('hex');
  const path = join(filesDir(), id);
  let size = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.length;
      if (size > MAX_FILE) throw new RangeError('too large');
      controller.enqueue(chunk);
    },
  });
  try {
    await body.pipeThrough(counter).pipeTo(Writable.toWeb(createWriteStream(path)) as WritableStream<Uint8Array>);
  } catch {
    try {
      unlinkSync(path);
    } catch {
      // Not written.
    }
    return undefined;
  }
  return { id, size };
}

/** The stored file as a stream, or undefined. */
export function read(id: string): { stream: ReadableStream<Uint8Array>; size: number } | undefined {
  if (!FILE_ID.test(id)) return undefined;
  const path = join(filesDir(), id);
  try {
    const size = statSync(path).size;
    return { stream: Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>, size };
  } catch {
    return undefined;
  }
}
