// useChat without a `chatStorage`: the conversation goes to the keystore's encrypted history
// (keystoreChatStorage, docs/REACT.md#what-usechat-stores-where): each message appended once as its own
// entry (never the whole conversation again), the rest of the record as the sealed metadata, nothing in
// IndexedDB on the page; a remount restores messages and session from it; a locked keystore is an error.
import { describe, expect, test, vi } from 'vitest';
import { createElement, type ReactNode } from 'react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { fakeHistories, installFakeRuntime, type FakeRuntime } from './fakes.js';
import { VeilProvider, useChat, useIdentity, type ChatPeer, type ChatTransport } from '../../ts/react/index.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

let f: FakeRuntime;
installFakeRuntime((r) => {
  f = r;
});

function pipe() {
  const subs = { a: new Set<(b: Uint8Array) => void>(), b: new Set<(b: Uint8Array) => void>() };
  const end = (self: 'a' | 'b', other: 'a' | 'b'): ChatTransport => ({
    send: (bytes) => {
      for (const s of subs[other]) s(bytes.slice());
    },
    subscribe: (cb) => {
      subs[self].add(cb);
      return () => {
        subs[self].delete(cb);
      };
    },
  });
  return { a: end('a', 'b'), b: end('b', 'a') };
}

/** A provider WITHOUT chatStorage: the default. */
function party(keystore: string, transport: ChatTransport) {
  const wrapper = ({ children }: { children: ReactNode }) => createElement(VeilProvider, { keystore }, children);
  return renderHook(({ peer }: { peer: ChatPeer | undefined }) => ({ id: useIdentity(), chat: useChat('conv-h', transport, peer) }), {
    wrapper, initialProps: { peer: undefined as ChatPeer | undefined },
  });
}

const dec = new TextDecoder();

describe('useChat default storage', () => {
  test('messages are appended one entry each to the keystore history; a remount restores them; locked is KEYSTORE_LOCKED', async () => {
    const idb = vi.spyOn(globalThis.indexedDB ?? { open: () => undefined }, 'open');
    const t = pipe();
    let bob = party('bob-h', t.b);
    await waitFor(() => expect(bob.result.current.id.status).toBe('success'));
    await act(async () => {
      await bob.result.current.id.create({ label: 'bob' });
    });
    await waitFor(() => expect(bob.result.current.id.identity).toBeDefined());
    const { bundle } = await bob.result.current.id.createPrekeyBundle();
    const alice = party('alice-h', t.a);
    await waitFor(() => expect(alice.result.current.id.status).toBe('success'));
    await act(async () => {
      await alice.result.current.id.create({ label: 'alice' });
    });
    alice.rerender({ peer: { bundle } });
    await waitFor(() => expect(alice.result.current.chat.status).toBe('idle'));
    for (const text of ['one', 'two', 'three']) {
      await act(async () => {
        await alice.result.current.chat.send(text);
      });
    }
    await waitFor(() => expect(bob.result.current.chat.messages).toHaveLength(3));
    const aliceId = alice.result.current.id.identity!.id;
    const bobId = bob.result.current.id.identity!.id;
    const h = fakeHistories.get(`alice-h\u0000${aliceId}/conv-h`)!;
    // One entry per message, each appended once (no rewrite of the conversation).
    expect(h.entries.map((e) => (JSON.parse(dec.decode(e.data)) as { text: string }).text)).toEqual(['one', 'two', 'three']);
    expect(h.appends).toEqual([1, 1, 1]);
    const meta = JSON.parse(dec.decode(h.meta)) as { sessionId: string; messages?: unknown };
    expect(meta.sessionId).toBe(alice.result.current.chat.sessionId);
    expect(meta.messages).toBeUndefined();
    expect(fakeHistories.get(`bob-h\u0000${bobId}/conv-h`)!.entries).toHaveLength(3);
    // Nothing opened an IndexedDB database on the page (the plaintext store is opt-in only).
    expect(idb).not.toHaveBeenCalled();

    // Remount Bob: the messages and the session come back from the history.
    const sessionId = bob.result.current.chat.sessionId;
    bob.unmount();
    bob = party('bob-h', t.b);
    await waitFor(() => expect(bob.result.current.chat.status).toBe('success'));
    expect(bob.result.current.chat.messages.map((m) => m.text)).toEqual(['one', 'two', 'three']);
    expect(bob.result.current.chat.sessionId).toBe(sessionId);
    // A new message after the reload is appended alone; the three loaded are not written again.
    await act(async () => {
      await alice.result.current.chat.send('four');
    });
    await waitFor(() => expect(bob.result.current.chat.messages).toHaveLength(4));
    expect(fakeHistories.get(`bob-h\u0000${bobId}/conv-h`)!.entries).toHaveLength(4);

    // A locked keystore: the conversation cannot load (typed error), nothing is shown.
    bob.unmount();
    for (const ks of f.keystores.filter((k) => k.name === 'bob-h')) ks.locked = true;
    bob = party('bob-h', t.b);
    await waitFor(() => expect(bob.result.current.chat.status).toBe('error'));
    expect((bob.result.current.chat.error as { code: string }).code).toBe('KEYSTORE_LOCKED');
    expect(bob.result.current.chat.messages).toEqual([]);
  });
});
