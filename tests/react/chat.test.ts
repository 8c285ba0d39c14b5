// useChat between two providers (two keystores) over an in-memory transport: the first send
// initiates, the peer's first frame responds, messages both ways, the same verification code on
// both sides, a tampered frame rejected (error + count, messages kept), history and session
// restored after a remount. useSession: load by id.
import { describe, expect, test, vi } from 'vitest';
import { StrictMode, createElement, type ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { VeilError } from '../../protocol/errors.js';
import { liveResources } from '../../ts/react/resources.js';
import { installFakeRuntime, type FakeRuntime } from './fakes.js';
import {
  VeilProvider, broadcastChannelTransport, memoryChatStorage, useChat, useIdentity, useSession, CHAT_FRAME, fingerprintEmoji,
  type ChatPeer, type ChatStorage, type ChatTransport,
} from '../../ts/react/index.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

let f: FakeRuntime;
installFakeRuntime((r) => {
  f = r;
});

/** Two connected transports; `tamper` flips a byte of the next frame `a` sends; `frames` records what `a` sent. */
function pipe() {
  const subs = { a: new Set<(b: Uint8Array) => void>(), b: new Set<(b: Uint8Array) => void>() };
  const control = { tamper: false, frames: [] as Uint8Array[] };
  const end = (self: 'a' | 'b', other: 'a' | 'b'): ChatTransport => ({
    send: (bytes) => {
      const copy = bytes.slice();
      if (self === 'a') control.frames.push(copy.slice());
      if (self === 'a' && control.tamper) {
        control.tamper = false;
        copy[copy.length - 6]! ^= 0x01;
      }
      for (const s of subs[other]) s(copy);
    },
    subscribe: (cb) => {
      subs[self].add(cb);
      return () => {
        subs[self].delete(cb);
      };
    },
  });
  return { a: end('a', 'b'), b: end('b', 'a'), control };
}

function provider(keystore: string, chatStorage: ChatStorage, strict = false) {
  return ({ children }: { children: ReactNode }) => {
    const p = createElement(VeilProvider, { keystore, chatStorage }, children);
    return strict ? createElement(StrictMode, null, p) : p;
  };
}

function party(keystore: string, storage: ChatStorage, transport: ChatTransport, strict = false) {
  return renderHook(({ peer }: { peer: ChatPeer | undefined }) => ({ id: useIdentity(), chat: useChat('conv-1', transport, peer) }), {
    wrapper: provider(keystore, storage, strict),
    initialProps: { peer: undefined as ChatPeer | undefined },
  });
}

describe('useChat', () => {
  test('messages both ways, one verification code, a tampered frame rejected, history restored on remount', async () => {
    const t = pipe();
    const storeA = memoryChatStorage();
    const storeB = memoryChatStorage();
    let bob = party('bob', storeB, t.b);
    await waitFor(() => expect(bob.result.current.id.status).toBe('success'));
    await act(async () => {
      await bob.result.current.id.create({ label: 'bob' });
    });
    await waitFor(() => expect(bob.result.current.id.identity).toBeDefined());
    const { bundle } = await bob.result.current.id.createPrekeyBundle();

    const alice = party('alice', storeA, t.a);
    await waitFor(() => expect(alice.result.current.id.status).toBe('success'));
    await act(async () => {
      await alice.result.current.id.create({ label: 'alice' });
    });
    alice.rerender({ peer: { bundle } });
    await waitFor(() => expect(alice.result.current.chat.status).toBe('idle'));
    expect(bob.result.current.chat.status).toBe('idle');

    // Alice's first send initiates: a kind-1 frame; Bob responds to it.
    await act(async () => {
      await alice.result.current.chat.send('hello bob');
    });
    expect(t.control.frames[0]?.[0]).toBe(CHAT_FRAME.initial);
    await waitFor(() => expect(bob.result.current.chat.messages.map((m) => [m.from, m.text])).toEqual([['peer', 'hello bob']]));
    expect(alice.result.current.chat.messages.map((m) => [m.from, m.text])).toEqual([['me', 'hello bob']]);
    expect(alice.result.current.chat.status).toBe('success');
    expect(bob.result.current.chat.status).toBe('success');

    await act(async () => {
      await bob.result.current.chat.send('hi alice');
    });
    await waitFor(() => expect(alice.result.current.chat.messages.map((m) => m.text)).toEqual(['hello bob', 'hi alice']));
    await act(async () => {
      await alice.result.current.chat.send('second');
    });
    expect(t.control.frames[1]?.[0]).toBe(CHAT_FRAME.message);
    await waitFor(() => expect(bob.result.current.chat.messages).toHaveLength(3));

    // The same code on both sides, in every form.
    await waitFor(() => expect(bob.result.current.chat.verificationCode).toBeDefined());
    const codeA = alice.result.current.chat.verificationCode;
    const codeB = bob.result.current.chat.verificationCode;
    expect(codeA).toEqual(codeB);
    expect(codeA?.emoji).toBe(fingerprintEmoji(codeA?.fingerprint ?? ''));

    // A tampered frame: rejected, counted, the error kept, no message added.
    t.control.tamper = true;
    await act(async () => {
      await alice.result.current.chat.send('tampered');
    });
    await waitFor(() => expect(bob.result.current.chat.rejected).toBe(1));
    expect((bob.result.current.chat.error as { code: string }).code).toBe('AUTHENTICATION_FAILED');
    expect(bob.result.current.chat.messages).toHaveLength(3);
    expect(bob.result.current.chat.status).toBe('success');

    // Frames delivered again (a relay after a reconnect): ignored, not rejected, nothing shown twice.
    act(() => {
      for (const frame of t.control.frames.slice(0, 2)) void t.a.send(frame);
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(bob.result.current.chat.rejected).toBe(1);
    expect(bob.result.current.chat.messages).toHaveLength(3);

    // Remount Bob (a reload): the history comes back, the session is loaded by its stored id.
    const sessionId = bob.result.current.chat.sessionId;
    expect(sessionId).toBeDefined();
    bob.unmount();
    await waitFor(() => expect(liveResources()).toBe(1));
    bob = party('bob', storeB, t.b);
    await waitFor(() => expect(bob.result.current.chat.status).toBe('success'));
    expect(f.runtime.load).toHaveBeenCalledWith(expect.objectContaining({ name: 'bob' }), sessionId);
    expect(bob.result.current.chat.messages.map((m) => m.text)).toEqual(['hello bob', 'hi alice', 'second']);
    expect(bob.result.current.chat.rejected).toBe(0);
    await act(async () => {
      await alice.result.current.chat.send('after reload');
    });
    await waitFor(() => expect(bob.result.current.chat.messages.at(-1)?.text).toBe('after reload'));
    await waitFor(() => expect(bob.result.current.chat.verificationCode).toEqual(codeA));
  });

  test('a message frame before any session, an unknown kind and a short frame are rejected', async () => {
    const t = pipe();
    const bob = party('bob2', memoryChatStorage(), t.b);
    await waitFor(() => expect(bob.result.current.id.status).toBe('success'));
    await act(async () => {
      await bob.result.current.id.create({ label: 'bob' });
    });
    await waitFor(() => expect(bob.result.current.chat.status).toBe('idle'));
    act(() => {
      void t.a.send(Uint8Array.of(CHAT_FRAME.message, 1, 2, 3));
      void t.a.send(Uint8Array.of(9, 1, 2, 3));
      void t.a.send(Uint8Array.of(CHAT_FRAME.initial));
    });
    await waitFor(() => expect(bob.result.current.chat.rejected).toBe(3));
    expect(bob.result.current.chat.messages).toHaveLength(0);
    expect(bob.result.current.chat.status).toBe('idle');
  });

  test('send without a session or a peer bundle rejects and sets error', async () => {
    const t = pipe();
    const alice = party('alice3', memoryChatStorage(), t.a);
    await waitFor(() => expect(alice.result.current.id.status).toBe('success'));
    await act(async () => {
      await alice.result.current.id.create({ label: 'alice' });
    });
    await waitFor(() => expect(alice.result.current.chat.status).toBe('idle'));
    let failure: unknown;
    await act(async () => {
      await alice.result.current.chat.send('nobody').catch((e: unknown) => {
        failure = e;
      });
    });
    expect(failure).toBeInstanceOf(VeilError);
    expect((failure as VeilError).code).toBe('INVALID_STATE');
    expect(alice.result.current.chat.error).toBe(failure);
    expect(alice.result.current.chat.messages).toHaveLength(0);
  });
});

describe('useChat under StrictMode', () => {
  test('the double effect leaves one subscription: each frame is one message', async () => {
    const t = pipe();
    const bob = party('bob4', memoryChatStorage(), t.b, true);
    await waitFor(() => expect(bob.result.current.id.status).toBe('success'));
    await act(async () => {
      await bob.result.current.id.create({ label: 'bob' });
    });
    await waitFor(() => expect(bob.result.current.id.identity).toBeDefined());
    const { bundle } = await bob.result.current.id.createPrekeyBundle();
    const alice = party('alice4', memoryChatStorage(), t.a, true);
    await waitFor(() => expect(alice.result.current.id.status).toBe('success'));
    await act(async () => {
      await alice.result.current.id.create({ label: 'alice' });
    });
    alice.rerender({ peer: { bundle } });
    await waitFor(() => expect(alice.result.current.chat.status).toBe('idle'));
    await act(async () => {
      await alice.result.current.chat.send('one');
      await alice.result.current.chat.send('two');
    });
    await waitFor(() => expect(bob.result.current.chat.messages.map((m) => m.text)).toEqual(['one', 'two']));
    await new Promise((r) => setTimeout(r, 20));
    expect(bob.result.current.chat.messages).toHaveLength(2);
    expect(bob.result.current.chat.rejected).toBe(0);
    expect(f.runtime.respond).toHaveBeenCalledTimes(1);
  });
});

describe('broadcastChannelTransport', () => {
  test('delivers frames from the peer to self only, as copies', async () => {
    const a = broadcastChannelTransport('veil-test-channel', 'alice', 'bob');
    const b = broadcastChannelTransport('veil-test-channel', 'bob', 'alice');
    const eve = broadcastChannelTransport('veil-test-channel', 'eve', 'bob');
    const got: Uint8Array[] = [];
    const eveGot: Uint8Array[] = [];
    const off = b.subscribe((bytes) => got.push(bytes));
    const offEve = eve.subscribe((bytes) => eveGot.push(bytes));
    const sent = Uint8Array.of(2, 9, 9);
    void a.send(sent);
    sent[1] = 0;
    await waitFor(() => expect(got).toHaveLength(1));
    expect([...got[0]!]).toEqual([2, 9, 9]);
    void b.send(Uint8Array.of(1));
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toHaveLength(1);
    expect(eveGot).toHaveLength(0);
    off();
    offEve();
    expect(() => broadcastChannelTransport('c', 'a', 1 as unknown as string)).toThrow(TypeError);
  });
});

describe('useSession', () => {
  test('initiate makes the session; { sessionId } loads it in another hook', async () => {
    const wrapper = provider('sess', memoryChatStorage());
    const { result } = renderHook(() => ({ id: useIdentity(), s: useSession() }), { wrapper });
    await waitFor(() => expect(result.current.id.status).toBe('success'));
    await act(async () => {
      await result.current.id.create();
    });
    await waitFor(() => expect(result.current.id.identity).toBeDefined());
    let id = '';
    await act(async () => {
      const r = await result.current.s.initiate(new TextEncoder().encode('prekeys:someone'));
      id = r.session.id;
      expect(r.initialMessage.length).toBeGreaterThan(0);
    });
    expect(result.current.s.status).toBe('success');
    expect(result.current.s.session?.id).toBe(id);
    await waitFor(() => expect(result.current.s.verificationCode?.numeric).toMatch(/digits$/));
    expect(result.current.s.verificationCode?.digits).toBe(result.current.s.verificationCode?.numeric);
    const loaded = renderHook(() => useSession({ sessionId: id }), { wrapper });
    await waitFor(() => expect(loaded.result.current.status).toBe('success'));
    expect(loaded.result.current.session?.id).toBe(id);
    const missing = renderHook(() => useSession({ sessionId: 'nope' }), { wrapper });
    await waitFor(() => expect(missing.result.current.status).toBe('error'));
    expect((missing.result.current.error as { code: string }).code).toBe('KEY_NOT_FOUND');
  });
});

describe('fingerprintEmoji', () => {
  test('43 emoji over all 256 bits; different fingerprints differ', () => {
    const a = fingerprintEmoji('00'.repeat(32));
    expect(a.split(' ')).toHaveLength(43);
    expect(new Set(a.split(' '))).toEqual(new Set(['🐶']));
    const b = fingerprintEmoji(`${'00'.repeat(31)}01`);
    expect(b).not.toBe(a);
    expect(fingerprintEmoji('ff'.repeat(32)).split(' ').at(0)).toBe('🔔');
    expect(() => fingerprintEmoji('xyz')).toThrow(TypeError);
  });
});
