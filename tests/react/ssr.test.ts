// @vitest-environment node
// Server rendering: importing veilkit/react (the real modules, no fakes) and rendering the
// provider and every hook with react-dom/server touches no browser API and evaluates no wasm.
// The browser globals are throwing getters that also record the access (in case a caller
// swallowed the throw); WebAssembly's compile/instantiate entry points are replaced likewise.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';

const touched: string[] = [];
const GLOBALS = ['window', 'document', 'navigator', 'Worker', 'SharedWorker', 'indexedDB', 'localStorage', 'sessionStorage', 'BroadcastChannel'];
const WASM = ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming'] as const;
const saved = new Map<string, PropertyDescriptor | undefined>();
const savedWasm = new Map<string, unknown>();

beforeAll(() => {
  for (const name of GLOBALS) {
    saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        touched.push(name);
        throw new Error(`server rendering touched globalThis.${name}`);
      },
    });
  }
  const wasm = WebAssembly as unknown as Record<string, unknown>;
  for (const name of WASM) {
    savedWasm.set(name, wasm[name]);
    wasm[name] = () => {
      touched.push(`WebAssembly.${name}`);
      throw new Error(`server rendering called WebAssembly.${name}`);
    };
  }
});

afterAll(() => {
  for (const [name, d] of saved) {
    if (d === undefined) Reflect.deleteProperty(globalThis, name);
    else Object.defineProperty(globalThis, name, d);
  }
  const wasm = WebAssembly as unknown as Record<string, unknown>;
  for (const [name, v] of savedWasm) wasm[name] = v;
});

describe('server rendering', () => {
  test('import and renderToString of the provider and every hook touch no browser API', async () => {
    const r = await import('../../ts/react/index.js');
    const transport = r.broadcastChannelTransport('ssr-channel', 'me', 'you');
    function Probe() {
      const veil = r.useVeil();
      const identity = r.useIdentity();
      const enc = r.useEncryptFile();
      const dec = r.useDecryptFile();
      const session = r.useSession({ sessionId: 'abc' });
      const chat = r.useChat('conversation', transport, { bundle: new Uint8Array(4) });
      return createElement('p', null,
        `veil:${veil.status} identity:${identity.status} enc:${enc.status} dec:${dec.status} session:${session.status} chat:${chat.status} messages:${chat.messages.length}`);
    }
    const html = renderToString(createElement(r.VeilProvider, { keystore: 'ssr', pool: { workers: 2 } }, createElement(Probe)));
    expect(html).toContain('veil:idle identity:idle enc:idle dec:idle session:idle chat:idle messages:0');
    expect(touched).toEqual([]);
    // The getters do fire when something reads them (the check itself works).
    expect(() => (globalThis as { indexedDB?: unknown }).indexedDB).toThrow(/indexedDB/);
    expect(touched).toEqual(['indexedDB']);
  });
});
