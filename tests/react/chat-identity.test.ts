// useChat's peer binding (issue 34 item 2): a relay's own initial frame never takes a conversation
// over (it becomes `identityChange`; `pinned` refuses it outright); a legitimate identity change is
// held until accepted; crossing initiations converge on the lower identity id's session with every
// message delivered once; a re-initiation by the same peer keeps in-flight messages of the old
// session readable; the verified flag and the binding survive a reload; a bound conversation with
// no session initiates only to its peer.
import { describe, expect, test, vi } from 'vitest';
import { createElement, type ReactNode } from 'react';
import { act, renderHook, waitFor, type RenderHookResult } from '@testing-library/react';
import { installFakeRuntime, sessionIdentityId, sessions, type FakeKeystore, type FakeRuntime } from './fakes.js';
import {
  VeilProvider, memoryChatStorage, useChat, useIdentity, CHAT_FRAME, CHAT_ARCHIVED_SESSIONS,
  type ChatPeer, type ChatStorage, type ChatTransport, type UseChatResult, type UseIdentityResult,
} from '../../ts/react/index.js';

vi.mock('../../ts/react/runtime.js', async () => (await import('./fakes.js')).fakeRuntimeModule);

let f: FakeRuntime;
installFakeRuntime((r) => {
  f = r;
});

const utf8 = new TextEncoder();

type Side = 'a' | 'b';

/**
 * Two transport ends `a` and `b`. `sent[x]`: every frame `x` sent; `hold[x]`: queue what `x` sends
 * instead of delivering it; `release(x, order?)`: deliver the queue (in `order`, by index);
 * `deliver(to, frame)`: a frame from nowhere (the relay) to `to`.
 */
function pipe() {
  const subs = { a: new Set<(b: Uint8Array) => void>(), b: new Set<(b: Uint8Array) => void>() };
  const sent = { a: [] as Uint8Array[], b: [] as Uint8Array[] };
  const held = { a: [] as Uint8Array[], b: [] as Uint8Array[] };
  const hold = { a: false, b: false };
  const other = (x: Side): Side => (x === 'a' ? 'b' : 'a');
  const deliver = (to: Side, bytes: Uint8Array): void => {
    for (const s of subs[to]) s(bytes.slice());
  };
  const end = (self: Side): ChatTransport => ({
    send: (bytes) => {
      const copy = bytes.slice();
      sent[self].push(copy);
      if (hold[self]) held[self].push(copy);
      else deliver(other(self), copy);
    },
    subscribe: (cb) => {
      subs[self].add(cb);
      return () => {
        subs[self].delete(cb);
      };
    },
  });
  const release = (from: Side, order?: number[]): void => {
    const q = held[from];
    held[from] = [];
    for (const i of order ?? q.map((_, k) => k)) deliver(other(from), q[i]!);
  };
  return { a: end('a'), b: end('b'), sent, hold, held, deliver, release };
}

function provider(keystore: string, chatStorage: ChatStorage) {
  return ({ children }: { children: ReactNode }) => createElement(VeilProvider, { keystore, chatStorage }, children);
}

type Party = RenderHookResult<{ id: UseIdentityResult; chat: UseChatResult }, { peer: ChatPeer | undefined }>;

function party(keystore: string, storage: ChatStorage, transport: ChatTransport, peer?: ChatPeer): Party {
  return renderHook(({ peer: p }: { peer: ChatPeer | undefined }) => ({ id: useIdentity(), chat: useChat('conv', transport, p) }), {
    wrapper: provider(keystore, storage),
    initialProps: { peer },
  });
}

/** Mounts a party and gives it an identity; resolves to it and its prekey bundle. */
async function withIdentity(keystore: string, storage: ChatStorage, transport: ChatTransport): Promise<{ p: Party; bundle: Uint8Array; idOf: string }> {
  const p = party(keystore, storage, transport);
  await waitFor(() => expect(p.result.current.id.status).toBe('success'));
  if (p.result.current.id.identity === undefined) {
    await act(async () => {
      await p.result.current.id.create({ label: keystore });
    });
  }
  await waitFor(() => expect(p.result.current.id.identity).toBeDefined());
  await waitFor(() => expect(p.result.current.chat.status).not.toBe('pending'));
  const { bundle } = await p.result.current.id.createPrekeyBundle();
  return { p, bundle, idOf: p.result.current.id.identity!.id };
}

const texts = (p: Party, from: 'me' | 'peer') => p.result.current.chat.messages.filter((m) => m.from === from).map((m) => m.text);

async function send(p: Party, text: string): Promise<void> {
  await act(async () => {
    await p.result.current.chat.send(text);
  });
}

/** Bob publishes a bundle; Alice initiates from it; one message each way. */
async function established(tag: string) {
  const t = pipe();
  const storeA = memoryChatStorage();
  const storeB = memoryChatStorage();
  const bob = await withIdentity(`bob-${tag}`, storeB, t.b);
  const alice = await withIdentity(`alice-${tag}`, storeA, t.a);
  alice.p.rerender({ peer: { bundle: bob.bundle } });
  await send(alice.p, 'hello bob');
  await waitFor(() => expect(texts(bob.p, 'peer')).toEqual(['hello bob']));
  await send(bob.p, 'hi alice');
  await waitFor(() => expect(texts(alice.p, 'peer')).toEqual(['hi alice']));
  return { t, storeA, storeB, alice, bob };
}

/** A third party's keystore and identity, outside any hook (the relay's own, or the peer's new one). */
async function outsider(name: string): Promise<{ ks: FakeKeystore; identity: { id: string } }> {
  const ks = await f.runtime.openKeystore({ name });
  return { ks, identity: await ks.createIdentity({ label: name }) };
}

function frame(kind: number, body: Uint8Array): Uint8Array {
  return Uint8Array.of(kind, ...body);
}

const codeOf = (e: unknown) => (e as { code?: unknown } | undefined)?.code;

describe('useChat peer binding', () => {
  test('a relay injecting its own initial frame gets an identity change and no conversation: its text is not shown, the next send goes to the original peer', async () => {
    const { t, storeB, alice, bob } = await established('relay');
    const before = bob.p.result.current.chat.sessionId;
    // The relay has its own identity and Bob's public prekey bundle: all it needs to make an initial frame.
    const eve = await outsider('eve-relay');
    const { session: eveSession, initialMessage } = await f.runtime.initiate(eve.ks, eve.identity.id, bob.bundle, { plaintext: utf8.encode('alice here, new phone') });
    act(() => {
      t.deliver('b', frame(CHAT_FRAME.initial, initialMessage));
    });
    await waitFor(() => expect(f.runtime.respond).toHaveBeenCalledTimes(2));
    await new Promise((r) => setTimeout(r, 20));

    // Nothing of the relay's is shown as the peer's, and the conversation keeps its session.
    expect(texts(bob.p, 'peer')).toEqual(['hello bob']);
    expect(bob.p.result.current.chat.sessionId).toBe(before);
    // Bob's next message goes to Alice's session: Alice reads it; the relay cannot.
    await send(bob.p, 'are you there?');
    await waitFor(() => expect(texts(alice.p, 'peer')).toEqual(['hi alice', 'are you there?']));
    expect(alice.p.result.current.chat.rejected).toBe(0);
    const lastFromBob = t.sent.b.at(-1)!;
    expect(lastFromBob[0]).toBe(CHAT_FRAME.message);
    let relayRead: unknown;
    await eveSession.decrypt(lastFromBob.slice(1)).catch((e: unknown) => {
      relayRead = e;
    });
    expect(codeOf(relayRead)).toBe('AUTHENTICATION_FAILED');

    // The typed event: the new identity, its verification code, held text not shown; not an error.
    const change = bob.p.result.current.chat.identityChange;
    expect(change).toBeDefined();
    expect(new TextDecoder().decode(change!.newIdentity)).toBe(eve.identity.id);
    expect(change!.newIdentityId).toBe(sessionIdentityId(utf8.encode(eve.identity.id)));
    expect(change!.held).toBe(1);
    expect(change!.wasVerified).toBe(false);
    expect(change!.verificationCode.numeric).not.toBe(bob.p.result.current.chat.verificationCode?.numeric);
    expect(bob.p.result.current.chat.rejected).toBe(0);
    expect(bob.p.result.current.chat.status).toBe('success');

    // More from the relay's session is held too, never shown.
    const more = await eveSession.encrypt(utf8.encode('please reply'));
    act(() => {
      t.deliver('b', frame(CHAT_FRAME.message, more));
    });
    await waitFor(() => expect(bob.p.result.current.chat.identityChange?.held).toBe(2));
    expect(texts(bob.p, 'peer')).toEqual(['hello bob']);

    // The pending change survives a reload, then is rejected: its session is deleted, nothing shown.
    bob.p.unmount();
    const bob2 = party(`bob-relay`, storeB, t.b);
    await waitFor(() => expect(bob2.result.current.chat.identityChange?.held).toBe(2));
    expect(bob2.result.current.chat.sessionId).toBe(before);
    const pendingId = (await storeB.load('bob-relay', `${bob.idOf}/conv`))?.identityChange?.sessionId;
    expect(pendingId).toBeDefined();
    await act(async () => {
      await bob2.result.current.chat.rejectIdentityChange();
    });
    expect(bob2.result.current.chat.identityChange).toBeUndefined();
    expect(sessions.has(pendingId!)).toBe(false);
    expect((await storeB.load('bob-relay', `${bob.idOf}/conv`))?.identityChange).toBeUndefined();
    expect(texts(bob2, 'peer')).toEqual(['hello bob']);
    const after = await eveSession.encrypt(utf8.encode('hello?'));
    act(() => {
      t.deliver('b', frame(CHAT_FRAME.message, after));
    });
    await waitFor(() => expect(bob2.result.current.chat.rejected).toBe(1));
    expect(codeOf(bob2.result.current.chat.error)).toBe('AUTHENTICATION_FAILED');
    expect(texts(bob2, 'peer')).toEqual(['hello bob']);
  });

  test('with pinned, another identity\'s initial frame is refused outright (IDENTITY_MISMATCH): no identity change, nothing kept', async () => {
    const { t, alice, bob } = await established('pinned');
    bob.p.rerender({ peer: { pinned: bob.p.result.current.chat.peerIdentity! } });
    expect(new TextDecoder().decode(bob.p.result.current.chat.peerIdentity)).toBe(alice.idOf);
    const count = sessions.size;
    const eve = await outsider('eve-pinned');
    const { initialMessage } = await f.runtime.initiate(eve.ks, eve.identity.id, bob.bundle, { plaintext: utf8.encode('let me in') });
    act(() => {
      t.deliver('b', frame(CHAT_FRAME.initial, initialMessage));
    });
    await waitFor(() => expect(bob.p.result.current.chat.rejected).toBe(1));
    expect(codeOf(bob.p.result.current.chat.error)).toBe('IDENTITY_MISMATCH');
    expect(bob.p.result.current.chat.identityChange).toBeUndefined();
    expect(sessions.size).toBe(count + 1); // Eve's own half only: Bob made none.
    expect(texts(bob.p, 'peer')).toEqual(['hello bob']);
  });

  test('an accepted identity change takes the conversation over, unverified, with its held messages; a third identity meanwhile is refused', async () => {
    const { t, alice, bob } = await established('accept');
    await act(async () => {
      await bob.p.result.current.chat.markVerified();
    });
    const oldSession = bob.p.result.current.chat.sessionId!;
    // Alice on a new identity (a new device), announcing herself; then a third identity while it is pending.
    const next = await outsider('alice-accept-new');
    const started = await f.runtime.initiate(next.ks, next.identity.id, bob.bundle, { plaintext: utf8.encode('new phone, same alice') });
    act(() => {
      t.deliver('b', frame(CHAT_FRAME.initial, started.initialMessage));
    });
    await waitFor(() => expect(bob.p.result.current.chat.identityChange?.held).toBe(1));
    expect(bob.p.result.current.chat.identityChange?.wasVerified).toBe(true);
    const third = await outsider('mallory-accept');
    const m = await f.runtime.initiate(third.ks, third.identity.id, bob.bundle, { plaintext: utf8.encode('me too') });
    act(() => {
      t.deliver('b', frame(CHAT_FRAME.initial, m.initialMessage));
    });
    await waitFor(() => expect(bob.p.result.current.chat.rejected).toBe(1));
    expect(codeOf(bob.p.result.current.chat.error)).toBe('IDENTITY_MISMATCH');
    expect([...sessions.values()].filter((s) => s.keystore.name === 'bob-accept' && s.peer === third.identity.id)).toHaveLength(0);
    expect(bob.p.result.current.chat.identityChange?.newIdentityId).toBe(sessionIdentityId(utf8.encode(next.identity.id)));
    const second = await started.session.encrypt(utf8.encode('are you there?'));
    act(() => {
      t.deliver('b', frame(CHAT_FRAME.message, second));
    });
    await waitFor(() => expect(bob.p.result.current.chat.identityChange?.held).toBe(2));
    // Meanwhile Bob still talks to the old Alice.
    await send(bob.p, 'still you?');
    await waitFor(() => expect(texts(alice.p, 'peer')).toEqual(['hi alice', 'still you?']));

    await act(async () => {
      await bob.p.result.current.chat.acceptIdentityChange();
    });
    const chat = bob.p.result.current.chat;
    expect(chat.identityChange).toBeUndefined();
    expect(chat.verified).toBe(false);
    expect(sessions.get(chat.sessionId!)?.pair).toBe(started.session.pair);
    expect(new TextDecoder().decode(chat.peerIdentity)).toBe(next.identity.id);
    expect(texts(bob.p, 'peer')).toEqual(['hello bob', 'new phone, same alice', 'are you there?']);
    expect(sessions.has(oldSession)).toBe(false);
    // Bob's next message is for the new identity; the old identity's messages are no longer read.
    await send(bob.p, 'welcome back');
    const reply = t.sent.b.at(-1)!;
    expect(new TextDecoder().decode((await started.session.decrypt(reply.slice(1))).plaintext)).toBe('welcome back');
    await send(alice.p, 'old identity speaking');
    await waitFor(() => expect(bob.p.result.current.chat.rejected).toBe(2));
    expect(texts(bob.p, 'peer')).not.toContain('old identity speaking');
  });

  test('crossing initiations in the same instant converge on the lower identity id\'s session; 20 messages each way, each delivered exactly once', async () => {
    const t = pipe();
    const bob = await withIdentity('bob-cross', memoryChatStorage(), t.b);
    const alice = await withIdentity('alice-cross', memoryChatStorage(), t.a);
    alice.p.rerender({ peer: { bundle: bob.bundle } });
    bob.p.rerender({ peer: { bundle: alice.bundle } });
    // Both initiate at once, and both send more on their own session while the frames cross.
    t.hold.a = true;
    t.hold.b = true;
    for (let i = 0; i < 5; i++) {
      await act(async () => {
        await Promise.all([alice.p.result.current.chat.send(`a${i}`), bob.p.result.current.chat.send(`b${i}`)]);
      });
    }
    expect(t.sent.a[0]?.[0]).toBe(CHAT_FRAME.initial);
    expect(t.sent.b[0]?.[0]).toBe(CHAT_FRAME.initial);
    act(() => {
      t.release('a');
      t.release('b');
    });
    t.hold.a = false;
    t.hold.b = false;
    for (let i = 5; i < 21; i++) {
      await act(async () => {
        await Promise.all([alice.p.result.current.chat.send(`a${i}`), bob.p.result.current.chat.send(`b${i}`)]);
      });
    }
    const expected = (x: string) => Array.from({ length: 21 }, (_, i) => `${x}${i}`);
    await waitFor(() => expect(texts(bob.p, 'peer')).toHaveLength(21));
    await waitFor(() => expect(texts(alice.p, 'peer')).toHaveLength(21));
    await new Promise((r) => setTimeout(r, 20));
    expect(texts(bob.p, 'peer')).toEqual(expected('a'));
    expect(texts(alice.p, 'peer')).toEqual(expected('b'));
    expect([alice.p.result.current.chat.rejected, bob.p.result.current.chat.rejected]).toEqual([0, 0]);
    expect([alice.p.result.current.chat.error, bob.p.result.current.chat.error]).toEqual([undefined, undefined]);

    // One session on both sides: the one the lower identity id initiated.
    const sa = sessions.get(alice.p.result.current.chat.sessionId!)!;
    const sb = sessions.get(bob.p.result.current.chat.sessionId!)!;
    expect(sa.pair).toBe(sb.pair);
    const aliceLower = sessionIdentityId(utf8.encode(alice.idOf)) < sessionIdentityId(utf8.encode(bob.idOf));
    expect(sa.role).toBe(aliceLower ? 'initiator' : 'responder');
    expect(sb.role).toBe(aliceLower ? 'responder' : 'initiator');
    expect(alice.p.result.current.chat.verificationCode).toEqual(bob.p.result.current.chat.verificationCode);
    expect(alice.p.result.current.chat.identityChange).toBeUndefined();
  });

  test('a crossing is resolved once: a later initial frame from the peer (it lost its record) is adopted, also by the side that won the crossing', async () => {
    const t = pipe();
    const bob = await withIdentity('bob-cross2', memoryChatStorage(), t.b);
    const alice = await withIdentity('alice-cross2', memoryChatStorage(), t.a);
    alice.p.rerender({ peer: { bundle: bob.bundle } });
    bob.p.rerender({ peer: { bundle: alice.bundle } });
    t.hold.a = true;
    t.hold.b = true;
    await act(async () => {
      await Promise.all([alice.p.result.current.chat.send('a0'), bob.p.result.current.chat.send('b0')]);
    });
    t.hold.a = false;
    t.hold.b = false;
    act(() => {
      t.release('a');
      t.release('b');
    });
    await waitFor(() => expect([texts(alice.p, 'peer'), texts(bob.p, 'peer')]).toEqual([['b0'], ['a0']]));
    // The winner (lower identity id) keeps its session; the loser never writes on it, loses its chat
    // record and initiates again: the winner must take the new session, or its messages would go to
    // a session the loser's conversation no longer has.
    const aliceLower = sessionIdentityId(utf8.encode(alice.idOf)) < sessionIdentityId(utf8.encode(bob.idOf));
    const [winner, loser] = aliceLower ? [alice, bob] : [bob, alice];
    const winnerSide: Side = aliceLower ? 'a' : 'b';
    const kept = winner.p.result.current.chat.sessionId!;
    expect(sessions.get(kept)?.role).toBe('initiator');
    const loserKs = f.keystores.find((k) => k.name === (aliceLower ? 'bob-cross2' : 'alice-cross2'))!;
    const again = await f.runtime.initiate(loserKs, loser.idOf, winner.bundle, { plaintext: utf8.encode('lost my history') });
    act(() => {
      t.deliver(winnerSide, frame(CHAT_FRAME.initial, again.initialMessage));
    });
    await waitFor(() => expect(texts(winner.p, 'peer').at(-1)).toBe('lost my history'));
    expect(sessions.get(winner.p.result.current.chat.sessionId!)?.pair).toBe(again.session.pair);
    await send(winner.p, 'got it');
    const out = (winnerSide === 'a' ? t.sent.a : t.sent.b).at(-1)!;
    expect(new TextDecoder().decode((await again.session.decrypt(out.slice(1))).plaintext)).toBe('got it');
  });

  test('a re-initiation by the same peer is adopted; messages in flight on the old session still decrypt, once', async () => {
    const { t, storeA, alice, bob } = await established('reinit');
    await act(async () => {
      await bob.p.result.current.chat.markVerified();
    });
    const oldSession = bob.p.result.current.chat.sessionId;
    // Two messages on the old session, still in flight when Alice (history lost, same identity) starts again.
    t.hold.a = true;
    await send(alice.p, 'old 1');
    await send(alice.p, 'old 2');
    alice.p.unmount();
    await storeA.delete('alice-reinit', `${alice.idOf}/conv`);
    const alice2 = party('alice-reinit', memoryChatStorage(), t.a);
    await waitFor(() => expect(alice2.result.current.chat.status).toBe('idle'));
    alice2.rerender({ peer: { bundle: bob.bundle } });
    await send(alice2, 'again');
    expect(t.held.a.map((x) => x[0])).toEqual([CHAT_FRAME.message, CHAT_FRAME.message, CHAT_FRAME.initial]);
    // The new initial frame overtakes them.
    t.hold.a = false;
    act(() => {
      t.release('a', [2, 0, 1]);
    });
    await waitFor(() => expect(texts(bob.p, 'peer')).toEqual(['hello bob', 'again', 'old 1', 'old 2']));
    expect(bob.p.result.current.chat.rejected).toBe(0);
    expect(bob.p.result.current.chat.sessionId).not.toBe(oldSession);
    expect(bob.p.result.current.chat.identityChange).toBeUndefined();
    expect(bob.p.result.current.chat.verified).toBe(true);
    // Redelivered old-session frames: ignored, not shown twice, not counted.
    act(() => {
      t.deliver('b', t.sent.a.at(-3)!);
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(texts(bob.p, 'peer')).toHaveLength(4);
    expect(bob.p.result.current.chat.rejected).toBe(0);
    // Bob answers on the new session.
    await send(bob.p, 'welcome back');
    await waitFor(() => expect(texts(alice2, 'peer')).toEqual(['welcome back']));
  });

  test(`at most ${String(CHAT_ARCHIVED_SESSIONS)} older sessions are kept; older ones are deleted from the keystore`, async () => {
    const { t, alice, bob } = await established('archive');
    const first = bob.p.result.current.chat.sessionId!;
    const ks = f.keystores.find((k) => k.name === 'alice-archive')!;
    for (let i = 0; i < CHAT_ARCHIVED_SESSIONS + 1; i++) {
      const r = await f.runtime.initiate(ks, alice.idOf, bob.bundle, { plaintext: utf8.encode(`restart ${String(i)}`) });
      act(() => {
        t.deliver('b', frame(CHAT_FRAME.initial, r.initialMessage));
      });
      await waitFor(() => expect(texts(bob.p, 'peer').at(-1)).toBe(`restart ${String(i)}`));
    }
    await waitFor(() => expect(sessions.has(first)).toBe(false));
    const stored = [...sessions.values()].filter((s) => s.keystore.name === 'bob-archive');
    expect(stored).toHaveLength(CHAT_ARCHIVED_SESSIONS + 1);
  });

  test('the verified flag and the binding are stored with the conversation and survive a reload', async () => {
    const { t, storeB, alice, bob } = await established('verified');
    expect(bob.p.result.current.chat.verified).toBe(false);
    expect(alice.p.result.current.chat.verified).toBe(false);
    await act(async () => {
      await bob.p.result.current.chat.markVerified();
    });
    expect(bob.p.result.current.chat.verified).toBe(true);
    expect(alice.p.result.current.chat.verified).toBe(false);
    const record = await storeB.load('bob-verified', `${bob.idOf}/conv`);
    expect(record?.peer).toEqual({ identityId: sessionIdentityId(utf8.encode(alice.idOf)), verified: true });
    bob.p.unmount();
    const again = party('bob-verified', storeB, t.b);
    await waitFor(() => expect(again.result.current.chat.status).toBe('success'));
    expect(again.result.current.chat.verified).toBe(true);
    expect(new TextDecoder().decode(again.result.current.chat.peerIdentity)).toBe(alice.idOf);
  });

  test('a bound conversation whose session is gone initiates only to its peer: another identity\'s bundle is refused before anything is sent', async () => {
    const { t, storeB, alice, bob } = await established('rebind');
    const ks = f.keystores.find((k) => k.name === 'bob-rebind')!;
    await f.runtime.deleteSession(ks, bob.p.result.current.chat.sessionId!);
    bob.p.unmount();
    const eve = await outsider('eve-rebind');
    const { bundle: eveBundle } = await eve.ks.createPrekeyBundle(eve.identity.id);
    const again = party('bob-rebind', storeB, t.b, { bundle: eveBundle });
    await waitFor(() => expect(again.result.current.chat.status).toBe('idle'));
    expect(codeOf(again.result.current.chat.error)).toBe('KEY_NOT_FOUND');
    const frames = t.sent.b.length;
    let failure: unknown;
    await act(async () => {
      await again.result.current.chat.send('to whoever the server says').catch((e: unknown) => {
        failure = e;
      });
    });
    expect(codeOf(failure)).toBe('IDENTITY_MISMATCH');
    expect(t.sent.b).toHaveLength(frames);
    expect([...sessions.values()].filter((s) => s.keystore.name === 'bob-rebind')).toHaveLength(0);
    const { bundle: aliceBundle } = await alice.p.result.current.id.createPrekeyBundle();
    again.rerender({ peer: { bundle: aliceBundle } });
    await send(again, 'back again');
    await waitFor(() => expect(texts(alice.p, 'peer').at(-1)).toBe('back again'));
  });
});
