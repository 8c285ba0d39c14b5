/** Writing results out: {@link encryptFileTo} (File System Access writable) and {@link saveFile}. */
import { VeilError } from '../../protocol/errors.js';
import { CONTAINER, envelopeOffset } from '../files-format.js';
import { encryptCore, type EnvelopeSink } from './encrypt.js';
import { checkInput } from './options.js';
import type { EncryptFileOptions, EncryptToResult, FileInput } from './types.js';

/**
 * Encrypts into a File System Access writable (seekable model): a
 * placeholder header and leaf table first, each batch of envelopes written
 * at its position as it is produced, the real header and leaf table written
 * over the placeholder at the end, then `close()`. On any failure or abort the writable is `abort()`ed,
 * so the target file keeps no partial result.
 */
export async function encryptFileTo(input: FileInput, writable: FileSystemWritableFileStream, options: EncryptFileOptions): Promise<EncryptToResult> {
  checkInput('input', input);
  if (typeof writable !== 'object' || writable === null || typeof (writable as { write?: unknown }).write !== 'function') {
    throw new TypeError('writable must be a FileSystemWritableFileStream');
  }
  let prefixLength = 0;
  const chunkSize = options?.chunkSize ?? CONTAINER.defaultChunkSize;
  const sink: EnvelopeSink = {
    // The envelopes come back from the workers as transferred buffers and go straight to the file:
    // no Blob in between, so a multi-GiB run never leans on the browser's blob storage (whose
    // overflow is paged to disk and can fail to read back).
    output: 'bytes',
    begin: async (h) => {
      prefixLength = h;
      await writable.write({ type: 'write', position: 0, data: new Uint8Array(h) });
    },
    put: async (first, data) => {
      let position = prefixLength + envelopeOffset(chunkSize, first);
      for (const part of data instanceof Blob ? [data] : data) {
        await writable.write({ type: 'write', position, data: part as Uint8Array<ArrayBuffer> | Blob });
        position += part instanceof Blob ? part.size : part.length;
      }
    },
    finish: async (prefix) => {
      await writable.write({ type: 'write', position: 0, data: prefix as Uint8Array<ArrayBuffer> });
      await writable.close();
    },
    abort: async (reason) => {
      await writable.abort(reason);
    },
  };
  const r = await encryptCore(input, options, sink);
  return { bytesWritten: r.length, header: r.header, ...(options.threshold !== undefined ? { shares: r.shares } : {}) };
}

/** Options of `saveFile`: the save `method` (`auto`, `picker`, `download`) and the MIME `type`. */
export interface SaveFileOptions {
  /** `'auto'` (default): the save picker where available, else a download; `'download'`: always an object-URL download. */
  readonly method?: 'auto' | 'picker' | 'download';
  /** MIME type offered to the picker. */
  readonly type?: string;
}

/**
 * Saves a `Blob` or a byte stream under `suggestedName`: streamed to
 * `showSaveFilePicker` where the browser has it (the user chooses the place;
 * call from a user gesture), otherwise an object-URL download. Resolves with
 * the method used; a cancelled picker rejects with its `AbortError`.
 */
export async function saveFile(data: Blob | ReadableStream<Uint8Array>, suggestedName: string, options: SaveFileOptions = {}): Promise<'picker' | 'download'> {
  checkInput('data', data);
  if (typeof suggestedName !== 'string' || suggestedName.length === 0) throw new TypeError('suggestedName must be a non-empty string');
  const method = options.method ?? 'auto';
  const picker = (globalThis as { showSaveFilePicker?: (o: unknown) => Promise<FileSystemFileHandle> }).showSaveFilePicker;
  if (method === 'picker' || (method === 'auto' && typeof picker === 'function')) {
    if (typeof picker !== 'function') throw new VeilError('UNSUPPORTED_PLATFORM', 'showSaveFilePicker is not available here');
    const handle = await picker({ suggestedName, ...(options.type ? { types: [{ accept: { [options.type]: [] } }] } : {}) });
    const w = await handle.createWritable();
    if (data instanceof Blob) {
      try {
        await w.write(data);
        await w.close();
      } catch (e) {
        await w.abort(e).catch(() => {});
        throw e;
      }
    } else {
      await data.pipeTo(w);
    }
    return 'picker';
  }
  const blob = data instanceof Blob ? data : await new Response(data).blob();
  const url = URL.createObjectURL(blob);
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = suggestedName;
    a.rel = 'noopener';
    a.style.display = 'none';
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    // Give the browser time to start the download before the URL goes away.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
  return 'download';
}
