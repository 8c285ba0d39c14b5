/** Small helpers shared by the screens (no veilkit code here). */
import { useEffect, useState } from 'react';

export function hex(bytes: Uint8Array, max = Infinity): string {
  let s = '';
  for (const b of bytes.subarray(0, Math.min(bytes.length, max))) s += b.toString(16).padStart(2, '0');
  return bytes.length > max ? `${s}…` : s;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

export function formatRate(bytesPerSecond: number): string {
  return `${(bytesPerSecond / 1e6).toFixed(1)} MB/s`;
}

/** A readable message for any thrown value (VeilError carries a `code`). */
export function describeError(e: unknown): string {
  if (e === undefined || e === null) return '';
  if (isAbort(e)) return 'cancelled';
  if (typeof e === 'object') {
    const code = 'code' in e && typeof e.code === 'string' ? e.code : undefined;
    const message = 'message' in e && typeof e.message === 'string' ? e.message : String(e);
    return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(e);
}

export function isAbort(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'name' in e && e.name === 'AbortError';
}

/** An object URL for a Blob, revoked when the component using it changes or unmounts. */
export function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<string>();
  useEffect(() => {
    if (blob === undefined) { setUrl(undefined); return; }
    const u = URL.createObjectURL(blob);
    setUrl(u);
    return () => { URL.revokeObjectURL(u); };
  }, [blob]);
  return url;
}

/** Copies bytes into a fresh ArrayBuffer-backed array (a BlobPart TypeScript accepts). */
export function blobOf(bytes: Uint8Array, type = 'application/octet-stream'): Blob {
  return new Blob([bytes.slice()], { type });
}
