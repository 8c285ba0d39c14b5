// useIdentity: the current identity and bundle from the provider's keystore, create (mlDsa by
// default), select, lock / unlock, errors surfaced and rethrown, shared by every hook of a provider.
import { describe, expect, test, vi } from 'vitest';
import { createElement, type ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { installFakeRuntime, type FakeRuntime } from './fakes.js';
import { VeilError } from '../../protocol/errors.js';
import { VeilProvider, bundleFromString, useIdentity } from '../../ts/react/index.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

let f: FakeRuntime;
installFakeRuntime((r) => {
  f = r;
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

  test('create() resolves with the state updated even when the change event overtakes its own refresh', async () => {
    const { result } = renderHook(() => useIdentity(), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('success'));
    const ks = f.keystores[0]!;
    // As in a browser: the change event arrives a moment after createIdentity resolved, while the
    // refresh the action started is still reading (a slow getPublicBundle), and starts a newer one.
    ks.createIdentity.mockImplementationOnce(async (o: { label: string; mlDsa?: boolean }) => {
      const h = { kind: 'identity' as const, id: 'late-event', label: o.label, createdAt: 0, mlDsa: o.mlDsa === true, routes: {} };
      ks.identities.push(h);
      setTimeout(() => ks.emit('identity-created'), 1);
      return h;
    });
    const bundle = ks.getPublicBundle.bind(ks);
    vi.spyOn(ks, 'getPublicBundle').mockImplementation(async (i) => {
      await new Promise((r) => setTimeout(r, 20));
      return bundle(i);
    });
    let phrase = '';
    await act(async () => {
      await result.current.create({ label: 'late' });
      phrase = await result.current.exportRecoveryPhrase();
    });
    expect(phrase).toBe('phrase of late-event');
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
    expect(result.current.error).toBeInstanceOf(VeilError);
    expect(result.current.error?.code).toBe('AUTHENTICATION_FAILED');
    expect(result.current.error?.cause).toBe(failure);
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

  test('exportBackup / importBackup pass includeHistory to the keystore (default: not set, the keystore\'s defaults)', async () => {
    const { result } = renderHook(() => useIdentity(), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('success'));
    await act(async () => {
      await result.current.create({ label: 'h' });
      const withHistory = await result.current.exportBackup('pw', { includeHistory: true });
      await result.current.exportBackup('pw');
      await result.current.importBackup(withHistory, 'pw', { includeHistory: false });
    });
    expect(f.keystores[0]!.backupOptions).toEqual([
      { call: 'export', options: { includeHistory: true } }, { call: 'export', options: undefined }, { call: 'import', options: { includeHistory: false } },
    ]);
  });

  test('without a keystore, actions reject with a clear error', async () => {
    const noKs = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { pool: { workers: 1 } }, children);
    const { result } = renderHook(() => useIdentity(), { wrapper: noKs });
    await expect(result.current.create()).rejects.toThrow(/keystore/);
  });
});

describe('useIdentity shareableBundle (issue 28)', () => {
  test('the current identity\'s prekey bundle as text: undefined before an identity and while locked, bundleFromString gives the bytes', async () => {
    const { result } = renderHook(() => useIdentity(), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('success'));
    expect(result.current.shareableBundle).toBeUndefined();
    await act(async () => {
      await result.current.create({ label: 'me' });
    });
    const text = result.current.shareableBundle;
    expect(text).toMatch(/^veilkit-bundle-v1\./);
    const id = result.current.identity?.id ?? '';
    expect(new TextDecoder().decode(bundleFromString(text ?? ''))).toBe(`prekeys:${id}`);
    // Without ML-DSA-65 (sessions need it) there is nothing to share.
    await act(async () => {
      await result.current.create({ label: 'classic', mlDsa: false });
    });
    expect(result.current.shareableBundle).toBeUndefined();
  });
});
