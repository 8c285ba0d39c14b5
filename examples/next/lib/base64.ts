// Base64 for JSON bodies, on both the server and the client (no Buffer in the browser).

export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Whether `text` is canonical base64 of at most `max` bytes. */
export function isBase64(text: unknown, max: number): text is string {
  return typeof text === 'string' && text.length > 0 && text.length <= Math.ceil(max / 3) * 4
    && /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0;
}
