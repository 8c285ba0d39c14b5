// useChat with a transport that is not memoized (issue 28): an inline `{ send, subscribe }` object,
// new on every render, reaches a session and carries messages both ways (before: the conversation
// restarted on every render and stayed `pending` forever, with no error). A new object over the same
// functions keeps one subscription; a new `subscribe` function moves it; a malformed transport
// throws a TypeError during render.
import { describe, expect, expectTypeOf, test, vi } from 'vitest';
import { VeilError } from '../../protocol/errors.js';
import { createElement, type ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { installFakeRuntime } from './fakes.js';
import {
  VeilProvider, memoryChatStorage, useChat, useDecryptFile, useEncryptFile, useIdentity, useSession, useVeil, type ChatPeer, type ChatStorage, type ChatTransport,
} from '../../ts/react/index.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

installFakeRuntime(() => {});

/** Two connected ends; `subscriptions` counts live subscribers per end, `subscribeCalls` every call. */
function pipe() {
  const subs = { a: new Set<(b: Uint8Array) => void>(), b: new Set<(b: Uint8Array) => void>() };
  const stats = { subscribeCalls: { a: 0, b: 0 } };
  const end = (self: 'a' | 'b', other: 'a' | 'b'): ChatTransport => ({
    send: (bytes) => {
      for (const s of subs[other]) s(bytes.slice());
    },
    subscribe: (cb) => {
      stats.subscribeCalls[self]++;
      subs[self].add(cb);
      return () => {
        subs[self].delete(cb);
      };
    },
  });
  return { a: end('a', 'b'), b: end('b', 'a'), subs, stats };
}

function provider(keystore: string, chatStorage: ChatStorage) {
  return ({ children }: { children: ReactNode }) => createElement(VeilProvider, { keystore, chatStorage }, children);
}

/** A party whose transport is written inline: a new object with new functions on every render. */
function inlineParty(keystore: string, end: ChatTransport) {
  return renderHook(({ peer }: { peer: ChatPeer | undefined }) => ({
    id: useIdentity(),
    chat: useChat('conv-inline', { send: (b) => end.send(b), subscribe: (cb) => end.subscribe(cb) }, peer),
  }), { wrapper: provider(keystore, memoryChatStorage()), initialProps: { peer: undefined as ChatPeer | undefined } });
}

describe('useChat transport rule', () => {
  test('an inline transport object (new every render) reaches idle, initiates, and carries messages both ways', async () => {
    const t = pipe();
    const bob = inlineParty('bob-inline', t.b);
    await waitFor(() => expect(bob.result.current.id.status).toBe('success'));
    await act(async () => {
      await bob.result.current.id.create({ label: 'bob' });
    });
    await waitFor(() => expect(bob.result.current.chat.status).toBe('idle'));
    const { bundle } = await bob.result.current.id.createPrekeyBundle();

    const alice = inlineParty('alice-inline', t.a);
    await waitFor(() => expect(alice.result.current.id.status).toBe('success'));
    await act(async () => {
      await alice.result.current.id.create({ label: 'alice' });
    });
    alice.rerender({ peer: { bundle } });
    await waitFor(() => expect(alice.result.current.chat.status).toBe('idle'));

    await act(async () => {
      await alice.result.current.chat.send('hello over an inline transport');
    });
    expect(alice.result.current.chat.status).toBe('success');
    await waitFor(() => expect(bob.result.current.chat.messages.map((m) => m.text)).toEqual(['hello over an inline transport']));
    await act(async () => {
      await bob.result.current.chat.send('and back');
    });
    await waitFor(() => expect(alice.result.current.chat.messages.map((m) => m.text)).toEqual(['hello over an inline transport', 'and back']));
    // However many renders happened, each end listens once.
    expect(t.subs.a.size).toBe(1);
    expect(t.subs.b.size).toBe(1);
  });

  test('a new object over the same functions keeps one subscription; a new subscribe function moves it', async () => {
    const t = pipe();
    const other = pipe();
    const send = (b: Uint8Array) => t.b.send(b);
    const subscribe = (cb: (b: Uint8Array) => void) => t.b.subscribe(cb);
    // Every rerender (a new `n`) builds a fresh object literal over the same two functions.
    const hook = renderHook(({ end }: { end: ChatTransport; n: number }) => ({
      id: useIdentity(),
      chat: useChat('conv-same-functions', end === t.b ? { send, subscribe } : end),
    }), { wrapper: provider('carol-inline', memoryChatStorage()), initialProps: { end: t.b, n: 0 } });
    await waitFor(() => expect(hook.result.current.id.status).toBe('success'));
    await act(async () => {
      await hook.result.current.id.create({ label: 'carol' });
    });
    await waitFor(() => expect(hook.result.current.chat.status).toBe('idle'));
    const calls = t.stats.subscribeCalls.b;
    for (let n = 1; n <= 5; n++) hook.rerender({ end: t.b, n });
    expect(t.stats.subscribeCalls.b).toBe(calls);
    expect(t.subs.b.size).toBe(1);

    hook.rerender({ end: other.b, n: 6 });
    expect(t.subs.b.size).toBe(0);
    expect(other.subs.b.size).toBe(1);
    expect(hook.result.current.chat.status).toBe('idle');
  });

  test('a transport without send / subscribe throws a TypeError during render', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => renderHook(() => useChat('x', {} as ChatTransport), { wrapper: provider('dave-inline', memoryChatStorage()) }))
      .toThrow(/transport must be an object with send\(bytes\) and subscribe\(onBytes\)/);
    spy.mockRestore();
  });
});

describe('hook errors (issue 28)', () => {
  test('every hook types error as VeilError | undefined', () => {
    expectTypeOf<ReturnType<typeof useChat>['error']>().toEqualTypeOf<VeilError | undefined>();
    expectTypeOf<ReturnType<typeof useIdentity>['error']>().toEqualTypeOf<VeilError | undefined>();
    expectTypeOf<ReturnType<typeof useVeil>['error']>().toEqualTypeOf<VeilError | undefined>();
    expectTypeOf<ReturnType<typeof useSession>['error']>().toEqualTypeOf<VeilError | undefined>();
    expectTypeOf<ReturnType<typeof useEncryptFile>['error']>().toEqualTypeOf<VeilError | undefined>();
    expectTypeOf<ReturnType<typeof useDecryptFile>['error']>().toEqualTypeOf<VeilError | undefined>();
  });

  test('a failed send (TRANSPORT_FAILED), a rejected frame: error set; the next successful send / frame clears it', async () => {
    const t = pipe();
    let failNext = false;
    const flaky: ChatTransport = {
      send: (b) => {
        if (failNext) {
          failNext = false;
          throw new Error('socket closed');
        }
        void t.a.send(b);
      },
      subscribe: (cb) => t.a.subscribe(cb),
    };
    const bob = inlineParty('bob-err', t.b);
    await waitFor(() => expect(bob.result.current.id.status).toBe('success'));
    await act(async () => {
      await bob.result.current.id.create({ label: 'bob' });
    });
    const { bundle } = await bob.result.current.id.createPrekeyBundle();
    const alice = inlineParty('alice-err', flaky);
    await waitFor(() => expect(alice.result.current.id.status).toBe('success'));
    await act(async () => {
      await alice.result.current.id.create({ label: 'alice' });
    });
    alice.rerender({ peer: { bundle } });
    await waitFor(() => expect(alice.result.current.chat.status).toBe('idle'));
    await act(async () => {
      await alice.result.current.chat.send('one');
    });
    await waitFor(() => expect(bob.result.current.chat.messages).toHaveLength(1));

    failNext = true;
    let failure: unknown;
    await act(async () => {
      await alice.result.current.chat.send('lost').catch((e: unknown) => {
        failure = e;
      });
    });
    expect(failure).toBeInstanceOf(VeilError);
    expect((failure as VeilError).code).toBe('TRANSPORT_FAILED');
    expect(((failure as VeilError).cause as Error).message).toBe('socket closed');
    expect(alice.result.current.chat.error).toBe(failure);
    for (let i = 0; i < 3; i++) {
      await act(async () => {
        await alice.result.current.chat.send(`ok ${String(i)}`);
      });
      expect(alice.result.current.chat.error).toBeUndefined();
    }

    // Bob: a frame that is no chat frame is rejected (MALFORMED_INPUT); the next good one clears it.
    act(() => {
      void t.a.send(Uint8Array.of(9, 9, 9));
    });
    await waitFor(() => expect(bob.result.current.chat.error?.code).toBe('MALFORMED_INPUT'));
    expect(bob.result.current.chat.rejected).toBe(1);
    await act(async () => {
      await alice.result.current.chat.send('after');
    });
    await waitFor(() => expect(bob.result.current.chat.messages.at(-1)?.text).toBe('after'));
    expect(bob.result.current.chat.error).toBeUndefined();
    expect(bob.result.current.chat.rejected).toBe(1);
  });

  test('useIdentity: a failed unlock sets error; the next successful action clears it', async () => {
    const hook = renderHook(() => useIdentity(), { wrapper: provider('erin-err', memoryChatStorage()) });
    await waitFor(() => expect(hook.result.current.status).toBe('success'));
    await act(async () => {
      await hook.result.current.setPassphrase('pw');
      await hook.result.current.lock();
      await hook.result.current.unlock('wrong').catch(() => {});
    });
    expect(hook.result.current.error?.code).toBe('AUTHENTICATION_FAILED');
    await act(async () => {
      await hook.result.current.unlock('pw');
    });
    expect(hook.result.current.error).toBeUndefined();
  });
});
