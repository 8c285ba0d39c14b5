// <VeilProvider>: resources created in an effect, one ref-counted pool + keystore per
// configuration, StrictMode's double effects create one pool and dispose it once, on the last unmount.
import { describe, expect, test, vi } from 'vitest';
import { StrictMode, createElement, type ReactNode } from 'react';
import { renderHook, waitFor } from '@testing-library/react';
import { installFakeRuntime, type FakeRuntime } from './fakes.js';
import { VeilError } from '../../protocol/errors.js';
import { VeilProvider, useVeil, type VeilProviderProps } from '../../ts/react/index.js';
import { liveResources } from '../../ts/react/resources.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

let f: FakeRuntime;
installFakeRuntime((r) => {
  f = r;
});

function wrapper(props: Omit<VeilProviderProps, 'children'>, strict = false) {
  return ({ children }: { children: ReactNode }) => {
    const p = createElement(VeilProvider, props, children);
    return strict ? createElement(StrictMode, null, p) : p;
  };
}

describe('VeilProvider', () => {
  test('starts idle, then pending → success with capabilities, pool and keystore', async () => {
    const { result, unmount } = renderHook(() => useVeil(), { wrapper: wrapper({ keystore: 'p1', pool: { workers: 2 } }) });
    expect(['idle', 'pending']).toContain(result.current.status);
    await waitFor(() => expect(result.current.status).toBe('success'));
    expect(result.current.capabilities?.wasmBuild).toBe('simd');
    expect(result.current.pool).toBe(f.pools[0]);
    expect(result.current.keystore).toBe(f.keystores[0]);
    expect(f.runtime.createPool).toHaveBeenCalledWith({ size: 2 });
    expect(f.runtime.openKeystore).toHaveBeenCalledWith({ name: 'p1', poolOptions: {} });
    unmount();
    await waitFor(() => expect(f.pools[0]?.dispose).toHaveBeenCalledTimes(1));
    expect(f.keystores[0]?.dispose).toHaveBeenCalledTimes(1);
    expect(liveResources()).toBe(0);
  });

  test('StrictMode double effects: one pool and one keystore, disposed once on the last unmount', async () => {
    const { result, unmount } = renderHook(() => useVeil(), { wrapper: wrapper({ keystore: 'strict' }, true) });
    await waitFor(() => expect(result.current.status).toBe('success'));
    // Let the zero-delay disposal timer of StrictMode's simulated unmount pass: it must not fire.
    await new Promise((r) => setTimeout(r, 10));
    expect(f.runtime.createPool).toHaveBeenCalledTimes(1);
    expect(f.runtime.openKeystore).toHaveBeenCalledTimes(1);
    expect(f.pools[0]?.dispose).not.toHaveBeenCalled();
    expect(f.keystores[0]?.dispose).not.toHaveBeenCalled();
    unmount();
    await waitFor(() => expect(f.pools[0]?.dispose).toHaveBeenCalledTimes(1));
    expect(f.keystores[0]?.dispose).toHaveBeenCalledTimes(1);
    await new Promise((r) => setTimeout(r, 10));
    expect(f.pools[0]?.dispose).toHaveBeenCalledTimes(1);
  });

  test('providers of one configuration share the pool; the last unmount disposes it', async () => {
    const a = renderHook(() => useVeil(), { wrapper: wrapper({ keystore: 'shared', pool: { workers: 1 } }) });
    const b = renderHook(() => useVeil(), { wrapper: wrapper({ keystore: 'shared', pool: { workers: 1 } }) });
    await waitFor(() => expect(b.result.current.status).toBe('success'));
    await waitFor(() => expect(a.result.current.status).toBe('success'));
    expect(f.runtime.createPool).toHaveBeenCalledTimes(1);
    expect(a.result.current.pool).toBe(b.result.current.pool);
    a.unmount();
    await new Promise((r) => setTimeout(r, 10));
    expect(f.pools[0]?.dispose).not.toHaveBeenCalled();
    b.unmount();
    await waitFor(() => expect(f.pools[0]?.dispose).toHaveBeenCalledTimes(1));
  });

  test('another configuration gets its own pool; no keystore without a name', async () => {
    const a = renderHook(() => useVeil(), { wrapper: wrapper({ pool: { workers: 1 } }) });
    const b = renderHook(() => useVeil(), { wrapper: wrapper({ pool: { workers: 3 } }) });
    await waitFor(() => expect(a.result.current.status).toBe('success'));
    await waitFor(() => expect(b.result.current.status).toBe('success'));
    expect(f.runtime.createPool).toHaveBeenCalledTimes(2);
    expect(a.result.current.pool).not.toBe(b.result.current.pool);
    expect(a.result.current.keystore).toBeUndefined();
    expect(f.runtime.openKeystore).not.toHaveBeenCalled();
  });

  test('new props of another configuration release the old pool and take a new one', async () => {
    let workers = 1;
    const Wrapper = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { pool: { workers } }, children);
    const r = renderHook(() => useVeil(), { wrapper: Wrapper });
    await waitFor(() => expect(r.result.current.status).toBe('success'));
    const first = r.result.current.pool;
    workers = 4;
    r.rerender();
    await waitFor(() => expect(r.result.current.pool).not.toBe(first));
    await waitFor(() => expect(r.result.current.status).toBe('success'));
    expect(f.runtime.createPool).toHaveBeenCalledTimes(2);
    expect(f.runtime.createPool).toHaveBeenLastCalledWith({ size: 4 });
    await waitFor(() => expect(f.pools[0]?.dispose).toHaveBeenCalledTimes(1));
    expect(f.pools[1]?.dispose).not.toHaveBeenCalled();
  });

  test('a failed start is status error with the error', async () => {
    const boom = new Error('no wasm');
    f.runtime.start.mockRejectedValueOnce(boom);
    const { result } = renderHook(() => useVeil(), { wrapper: wrapper({ pool: { workers: 5 } }) });
    await waitFor(() => expect(result.current.status).toBe('error'));
    // Typed: a VeilError whose cause is what failed.
    expect(result.current.error).toBeInstanceOf(VeilError);
    expect(result.current.error?.code).toBe('INTERNAL');
    expect(result.current.error?.cause).toBe(boom);
  });

  test('useVeil outside a provider throws', () => {
    expect(() => renderHook(() => useVeil())).toThrow(/VeilProvider/);
  });
});
