// useEncryptFile / useDecryptFile: progress and rate, the provider's pool, unmount aborts,
// cancel, and stale results dropped after reset and after a newer run.
import { describe, expect, test, vi } from 'vitest';
import { createElement, type ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { installFakeRuntime, type FakeRuntime } from './fakes.js';
import { VeilError } from '../../protocol/errors.js';
import { VeilProvider, useDecryptFile, useEncryptFile } from '../../ts/react/index.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

let f: FakeRuntime;
installFakeRuntime((r) => {
  f = r;
});

const wrapper = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { pool: { workers: 2 } }, children);
const file = new Blob([new Uint8Array(8)]);

/** The n-th file operation started (waits for it). */
async function op(n: number) {
  await waitFor(() => expect(f.ops.length).toBeGreaterThan(n));
  return f.ops[n]!;
}

describe('useEncryptFile', () => {
  test('run: pending with progress and rate, then success with the result, on the provider pool', async () => {
    const clock = vi.spyOn(performance, 'now').mockReturnValue(1000);
    const { result } = renderHook(() => useEncryptFile(), { wrapper });
    expect(result.current.status).toBe('idle');
    let done: Promise<Blob | undefined> | undefined;
    act(() => {
      done = result.current.run(file, { password: 'pw' });
    });
    expect(result.current.status).toBe('pending');
    const o = await op(0);
    const [input, options] = o.args as [Blob, { password: string; pool: unknown; signal: AbortSignal }];
    expect(input).toBe(file);
    expect(options.password).toBe('pw');
    expect(options.pool).toBe(f.pools[0]);
    expect(options.signal).toBeInstanceOf(AbortSignal);
    // A KDF phase, then chunk steps 0.5 s and 1.5 s after the first one: the rate counts from the first chunk step.
    act(() => o.progress({ phase: 'kdf', bytesDone: 0, bytesTotal: 4 << 20 }));
    expect(result.current.progress?.phase).toBe('kdf');
    clock.mockReturnValue(5000);
    act(() => o.progress({ phase: 'chunks', bytesDone: 1 << 20, bytesTotal: 4 << 20 }));
    expect(result.current.progress?.bytesPerSecond).toBe(0);
    clock.mockReturnValue(5500);
    act(() => o.progress({ phase: 'chunks', bytesDone: 2 << 20, bytesTotal: 4 << 20 }));
    expect(result.current.progress?.bytesDone).toBe(2 << 20);
    expect(result.current.progress?.bytesPerSecond).toBe(2 * (1 << 20));
    const blob = new Blob(['sealed']);
    await act(async () => {
      o.resolve(blob);
      expect(await done).toBe(blob);
    });
    expect(result.current.status).toBe('success');
    expect(result.current.result).toBe(blob);
    expect(result.current.error).toBeUndefined();
  });

  test('unmount aborts the running job', async () => {
    const { result, unmount } = renderHook(() => useEncryptFile(), { wrapper });
    act(() => {
      void result.current.run(file, { password: 'pw' });
    });
    const o = await op(0);
    expect(o.signal?.aborted).toBe(false);
    unmount();
    expect(o.signal?.aborted).toBe(true);
    expect((o.signal?.reason as DOMException).name).toBe('AbortError');
  });

  test('cancel: status error with ABORTED (cause: an AbortError); the late result is dropped', async () => {
    f.state.ignoreAbort = true;
    const { result } = renderHook(() => useEncryptFile(), { wrapper });
    let done: Promise<Blob | undefined> | undefined;
    act(() => {
      done = result.current.run(file, { password: 'pw' });
    });
    const o = await op(0);
    act(() => result.current.cancel());
    expect(o.signal?.aborted).toBe(true);
    expect(result.current.status).toBe('error');
    expect(result.current.error?.code).toBe('ABORTED');
    expect((result.current.error?.cause as DOMException).name).toBe('AbortError');
    await act(async () => {
      o.resolve(new Blob(['late']));
      expect(await done).toBeUndefined();
    });
    expect(result.current.status).toBe('error');
    expect(result.current.result).toBeUndefined();
  });

  test('reset: back to idle; a late result and late progress are dropped', async () => {
    f.state.ignoreAbort = true;
    const { result } = renderHook(() => useEncryptFile(), { wrapper });
    let done: Promise<Blob | undefined> | undefined;
    act(() => {
      done = result.current.run(file, { password: 'pw' });
    });
    const o = await op(0);
    act(() => result.current.reset());
    expect(result.current.status).toBe('idle');
    expect(o.signal?.aborted).toBe(true);
    await act(async () => {
      o.progress({ phase: 'chunks', bytesDone: 8, bytesTotal: 8 });
      o.resolve(new Blob(['late']));
      expect(await done).toBeUndefined();
    });
    expect(result.current.status).toBe('idle');
    expect(result.current.result).toBeUndefined();
    expect(result.current.progress).toBeUndefined();
  });

  test('a newer run aborts the older one, whose late result is dropped', async () => {
    f.state.ignoreAbort = true;
    const { result } = renderHook(() => useEncryptFile(), { wrapper });
    let first: Promise<Blob | undefined> | undefined;
    let second: Promise<Blob | undefined> | undefined;
    act(() => {
      first = result.current.run(file, { password: 'one' });
    });
    const o1 = await op(0);
    act(() => {
      second = result.current.run(file, { password: 'two' });
    });
    const o2 = await op(1);
    expect(o1.signal?.aborted).toBe(true);
    expect(o2.signal?.aborted).toBe(false);
    const b2 = new Blob(['two']);
    await act(async () => {
      o2.resolve(b2);
      expect(await second).toBe(b2);
    });
    await act(async () => {
      o1.resolve(new Blob(['one, late']));
      expect(await first).toBeUndefined();
    });
    expect(result.current.status).toBe('success');
    expect(result.current.result).toBe(b2);
  });

  test('a failure is status error with the error; run resolves to undefined', async () => {
    const { result } = renderHook(() => useEncryptFile(), { wrapper });
    let done: Promise<Blob | undefined> | undefined;
    act(() => {
      done = result.current.run(file, { password: 'pw' });
    });
    const o = await op(0);
    const e = Object.assign(new Error('bad'), { code: 'INVALID_PARAMETER' });
    await act(async () => {
      o.reject(e);
      expect(await done).toBeUndefined();
    });
    expect(result.current.status).toBe('error');
    expect(result.current.error).toBeInstanceOf(VeilError);
    expect(result.current.error?.code).toBe('INVALID_PARAMETER');
    expect(result.current.error?.cause).toBe(e);
  });

  test("the caller's own signal aborts the job too", async () => {
    const { result } = renderHook(() => useEncryptFile(), { wrapper });
    const c = new AbortController();
    act(() => {
      void result.current.run(file, { password: 'pw', signal: c.signal });
    });
    const o = await op(0);
    const reason = new Error('user abort');
    act(() => c.abort(reason));
    expect(o.signal?.aborted).toBe(true);
    await waitFor(() => expect(result.current.status).toBe('error'));
    expect(result.current.error?.code).toBe('ABORTED');
    expect(result.current.error?.cause).toBe(reason);
  });
});

describe('outside a provider', () => {
  test('useEncryptFile runs on the default pool (no pool option)', async () => {
    const { result } = renderHook(() => useEncryptFile());
    act(() => {
      void result.current.run(file, { password: 'pw' });
    });
    const o = await op(0);
    expect('pool' in (o.args[1] as object)).toBe(false);
    expect(f.runtime.createPool).not.toHaveBeenCalled();
  });
});

describe('useDecryptFile', () => {
  test('run(file, unlock, options): verified mode on the provider pool; the result is the plaintext Blob', async () => {
    const { result } = renderHook(() => useDecryptFile(), { wrapper });
    let done: Promise<unknown> | undefined;
    act(() => {
      done = result.current.run(file, 'pw', { signature: 'optional' });
    });
    const o = await op(0);
    const [input, unlock, options] = o.args as [Blob, string, { releaseMode: string; pool: unknown; signature: string }];
    expect(input).toBe(file);
    expect(unlock).toBe('pw');
    expect(options.releaseMode).toBe('verified');
    expect(options.signature).toBe('optional');
    expect(options.pool).toBe(f.pools[0]);
    const plain = Object.assign(new Blob(['plain']), { signature: { status: 'unsigned', signer: null } });
    await act(async () => {
      o.resolve(plain);
      expect(await done).toBe(plain);
    });
    expect(result.current.status).toBe('success');
    expect(result.current.result).toBe(plain);
  });

  test('unmount aborts the running job', async () => {
    const { result, unmount } = renderHook(() => useDecryptFile(), { wrapper });
    act(() => {
      void result.current.run(file, 'pw');
    });
    const o = await op(0);
    unmount();
    expect(o.signal?.aborted).toBe(true);
  });
});
