/**
 * Values crossing between Node and the page as JSON, with what JSON loses kept: undefined, NaN,
 * ±Infinity, -0, bigint, Date, RegExp, Error, typed arrays / ArrayBuffer, Map, Set, nested arrays and
 * objects (shared references are copied, cycles become `"[Circular]"`). Every non-JSON-primitive
 * value is an object tagged with `$`, so plain objects never collide with tags; objects travel as
 * key/value pairs so that their key order survives.
 *
 * `PAGE_CODEC` is the same codec as page-side source text (the adapter inlines it in each script).
 */

/** An encoded value. */
export type Encoded = null | boolean | number | string | { $: string; v?: unknown; k?: string };

const TYPED = [
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
] as const;

/** Shared by both sides: written once as a function whose source is also sent to the page. */
function codec(g: typeof globalThis, TYPED_NAMES: readonly string[]) {
  const b64e = (bytes: Uint8Array): string => {
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, i + 0x8000)));
    return g.btoa(s);
  };
  const b64d = (s: string): Uint8Array<ArrayBuffer> => {
    const bin = g.atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };
  const encode = (value: unknown, seen: unknown[] = []): unknown => {
    if (value === null) return null;
    switch (typeof value) {
      case 'undefined': return { $: 'u' };
      case 'boolean': case 'string': return value;
      case 'number':
        if (Number.isNaN(value)) return { $: 'n', v: 'NaN' };
        if (value === Infinity) return { $: 'n', v: 'Infinity' };
        if (value === -Infinity) return { $: 'n', v: '-Infinity' };
        if (Object.is(value, -0)) return { $: 'n', v: '-0' };
        return value;
      case 'bigint': return { $: 'b', v: value.toString() };
      case 'symbol': return { $: 'u' };
      case 'function': return { $: 'u' };
      default: break;
    }
    const o = value;
    if (seen.includes(o)) return '[Circular]';
    seen.push(o);
    try {
      if (o instanceof Date) return { $: 'd', v: o.toISOString() };
      if (o instanceof RegExp) return { $: 'r', v: [o.source, o.flags] };
      if (o instanceof Error) return { $: 'e', v: { name: o.name, message: o.message, stack: o.stack ?? '' } };
      if (o instanceof ArrayBuffer) return { $: 'ab', v: b64e(new Uint8Array(o)) };
      if (ArrayBuffer.isView(o)) {
        const name = o.constructor.name;
        const bytes = new Uint8Array(o.buffer, o.byteOffset, o.byteLength);
        if (TYPED_NAMES.includes(name)) return { $: 'ta', k: name, v: b64e(bytes) };
        return { $: 'ta', k: 'Uint8Array', v: b64e(bytes) };
      }
      if (Array.isArray(o)) return { $: 'a', v: o.map((x) => encode(x, seen)) };
      if (o instanceof Map) return { $: 'm', v: Array.from(o.entries()).map(([k, x]) => [encode(k, seen), encode(x, seen)]) };
      if (o instanceof Set) return { $: 's', v: Array.from(o.values()).map((x) => encode(x, seen)) };
      // Key/value pairs, not an object: WebKitWebDriver's JSON does not keep the order of object keys.
      return { $: 'o', v: Object.keys(o).map((key) => [key, encode((o as Record<string, unknown>)[key], seen)]) };
    } finally {
      seen.pop();
    }
  };
  const decode = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const t = value as { $: string; v: unknown; k?: string };
    switch (t.$) {
      case 'u': return undefined;
      case 'n': return Number(t.v === '-0' ? -0 : t.v);
      case 'b': return BigInt(t.v as string);
      case 'd': return new Date(t.v as string);
      case 'r': { const [s, f] = t.v as [string, string]; return new RegExp(s, f); }
      case 'e': {
        const e = t.v as { name: string; message: string; stack: string };
        const err = new Error(e.message);
        err.name = e.name;
        err.stack = e.stack;
        return err;
      }
      case 'ab': return b64d(t.v as string).buffer;
      case 'ta': {
        const bytes = b64d(t.v as string);
        const Ctor = (g as unknown as Record<string, new (b: ArrayBuffer, o: number, n: number) => unknown>)[t.k ?? 'Uint8Array'];
        if (Ctor === undefined) return bytes;
        const per = (Ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
        return new Ctor(bytes.buffer, 0, bytes.byteLength / per);
      }
      case 'a': return (t.v as unknown[]).map(decode);
      case 'm': return new Map((t.v as [unknown, unknown][]).map(([k, x]) => [decode(k), decode(x)]));
      case 's': return new Set((t.v as unknown[]).map(decode));
      case 'o': {
        const out: Record<string, unknown> = {};
        for (const [k, x] of t.v as [string, unknown][]) out[k] = decode(x);
        return out;
      }
      default: return value;
    }
  };
  return { encode, decode };
}

const node = codec(globalThis, TYPED);

/** Encodes a Node value for the page. */
export const encode: (value: unknown) => unknown = (value) => node.encode(value);
/** Decodes a page value in Node. */
export const decode: (value: unknown) => unknown = node.decode;

/** Page-side source: an expression evaluating to `{ encode, decode }`. */
export const PAGE_CODEC = `(${codec.toString()})(globalThis, ${JSON.stringify(TYPED)})`;
