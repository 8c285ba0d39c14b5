// useIdentity: the current identity and bundle from the provider's keystore, create (mlDsa by
// default), select, lock / unlock, errors surfaced and rethrown, shared by every hook of a provider.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createElement, type ReactNode } from 'react';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { liveResources } from '../../ts/react/resources.js';
import { fakeRuntime, type FakeRuntime } from './fakes.js';
import { VeilProvider, useIdentity } from '../../ts/react/index.js';

const fake = vi.hoisted((): { current: unknown } => ({ current: undefined }));
vi.mock('../../ts/react/runtime.js', () => ({
  runtime: new Proxy({}, { get: (_t, k: string) => (fake.current as FakeRuntime).runtime[k as keyof FakeRuntime['runtime']] }),
}));

let f: FakeRuntime;
beforeEach(() => {
  f = fakeRuntime();
  fake.current = f;
});
afterEach(async () => {
  cleanup();
  await waitFor(() => expect(liveResources()).toBe(0));
});

const wrapper = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { keystore: 'ids' }, children);

describe('useIdentity', () => {
  test('no identity at first; create() makes one (mlDsa: true by default) with its bundle', async () => {
    const { result } = renderHook(() => useIdentity(), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('success'));
    expect(result.current.identity).toBeUndefined();
    let made: { id: string } | undefined;
    await act(async () => {
      made = await result.current.create({ label: 'me' });
    });
    expect(f.keystores[0]?.createIdentity).toHaveBeenCalledWith({ label: 'me', mlDsa: true });
    await waitFor(() => expect(result.current.identity?.id).toBe(made?.id));
    expect(result.current.bundle?.id).toBe(made?.id);
    expect(result.current.identities).toHaveLength(1);
    expect(await result.current.exportRecoveryPhrase()).toBe(`phrase of ${made?.id ?? ''}`);
  });

  test('select() switches the current identity; every useIdentity of the provider sees it', async () => {
    const { result } = renderHook(() => [useIdentity(), useIdentity()] as const, { wrapper });
    await waitFor(() => expect(result.current[0].status).toBe('success'));
    await act(async () => {
      await result.current[0].create({ label: 'a' });
    });
    let second = '';
    await act(async () => {
      second = (await result.current[0].create({ label: 'b', mlDsa: false })).id;
    });
    expect(f.keystores[0]?.createIdentity).toHaveBeenLastCalledWith({ label: 'b', mlDsa: false });
    await waitFor(() => expect(result.current[1].identity?.id).toBe(second));
    const first = result.current[0].identities[0]!.id;
    act(() => result.current[1].select(first));
    await waitFor(() => expect(result.current[0].identity?.id).toBe(first));
  });

  test('lock / unlock: locked follows; a wrong passphrase rejects and sets error', async () => {
    const { result } = renderHook(() => useIdentity(), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('success'));
    await act(async () => {
      await result.current.setPassphrase('secret');
      await result.current.lock();
    });
    await waitFor(() => expect(result.current.locked).toBe(true));
    let failure: unknown;
    await act(async () => {
      await result.current.unlock('wrong').catch((e: unknown) => {
        failure = e;
      });
    });
    expect((failure as { code: string }).code).toBe('AUTHENTICATION_FAILED');
    expect(result.current.error).toBe(failure);
    expect(result.current.locked).toBe(true);
    await act(async () => {
      await result.current.unlock('secret');
    });
    await waitFor(() => expect(result.current.locked).toBe(false));
  });

  test('remove() deletes the current identity; a backup brings it back in another keystore', async () => {
    const { result } = renderHook(() => useIdentity(), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('success'));
    let id = '';
    await act(async () => {
      id = (await result.current.create({ label: 'x' })).id;
    });
    await waitFor(() => expect(result.current.identity?.id).toBe(id));
    let backup: Uint8Array = new Uint8Array(0);
    await act(async () => {
      backup = await result.current.exportBackup('backup pw');
      await result.current.remove();
    });
    await waitFor(() => expect(result.current.identity).toBeUndefined());
    expect(result.current.identities).toHaveLength(0);
    await act(async () => {
      await expect(result.current.importBackup(backup, 'wrong')).rejects.toMatchObject({ code: 'AUTHENTICATION_FAILED' });
      await result.current.importBackup(backup, 'backup pw');
    });
    await waitFor(() => expect(result.current.identity?.id).toBe(id));
  });

  test('without a keystore, actions reject with a clear error', async () => {
    const noKs = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { pool: { workers: 1 } }, children);
    const { result } = renderHook(() => useIdentity(), { wrapper: noKs });
    await expect(result.current.create()).rejects.toThrow(/keystore/);
  });
});
