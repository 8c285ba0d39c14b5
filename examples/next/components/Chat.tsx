'use client';
// The chat: an identity in this browser's keystore, its prekeys published to the app's directory,
// and one conversation at a time over the app's relay (lib/transport.ts). The server only ever
// sees public prekey bundles and ciphertext frames.
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useChat, useIdentity, useVeil } from 'veilkit/react';
import { fromBase64, toBase64 } from '../lib/base64';
import { sseTransport } from '../lib/transport';
import { describe } from './errors';
import { SignUp, USER_NAME } from './SignUp';

const ONE_TIME_BUNDLES = 10;
const key = (...parts: string[]): string => `veilkit-next:${parts.join(':')}`;

async function publishPrekeys(user: string, bundles: { bundle: Uint8Array; oneTime: Uint8Array[] }): Promise<void> {
  const response = await fetch(`/api/bundles/${user}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ bundle: toBase64(bundles.bundle), oneTime: bundles.oneTime.map(toBase64) }),
  });
  if (!response.ok) throw new Error(`the directory refused the prekeys: ${response.status}`);
}

export function Chat() {
  const veil = useVeil();
  const id = useIdentity();
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [published, setPublished] = useState(false);
  const me = id.identity?.label;

  // Publish this identity's prekeys once (again if this browser never did, e.g. a restored identity).
  const { identity, createPrekeyBundle } = id;
  useEffect(() => {
    if (!identity) return;
    if (localStorage.getItem(key('published', identity.id)) !== null) {
      setPublished(true);
      return;
    }
    let live = true;
    void (async () => {
      try {
        await publishPrekeys(identity.label, await createPrekeyBundle({ oneTime: ONE_TIME_BUNDLES }));
        localStorage.setItem(key('published', identity.id), String(Date.now()));
        if (live) setPublished(true);
      } catch (e) {
        if (live) setProblem(describe(e));
      }
    })();
    return () => {
      live = false;
    };
  }, [identity, createPrekeyBundle]);

  return (
    <section className="card" aria-label="chat">
      <h2>Encrypted chat</h2>
      {veil.status === 'error' && <p className="error">veilkit failed to start: {describe(veil.error)}</p>}
      {id.status === 'error' && <p className="error">{describe(id.error)}</p>}
      {problem !== undefined && <p className="error">{problem}</p>}
      {me === undefined ? (
        veil.status === 'success' && id.status !== 'pending' ? (
          <SignUp />
        ) : (
          <p className="muted">Opening the keystore…</p>
        )
      ) : (
        <>
          <p className="muted">
            Signed in as <strong data-testid="me">{me}</strong> (keys in this browser only).{' '}
            <span data-testid="prekeys">{published ? 'Prekeys published.' : 'Publishing prekeys…'}</span>
          </p>
          <Peer me={me} />
        </>
      )}
    </section>
  );
}

type PeerBundle = { peer: string; bundle: Uint8Array | undefined };

/** Picks the peer; fetches (once, cached) a prekey bundle for them from the directory. */
function Peer({ me }: { me: string }) {
  const [input, setInput] = useState('');
  const [current, setCurrent] = useState<PeerBundle | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);

  useEffect(() => {
    const peer = localStorage.getItem(key('peer', me));
    if (peer === null) return;
    const cached = localStorage.getItem(key('bundle', me, peer));
    setCurrent({ peer, bundle: cached === null ? undefined : fromBase64(cached) });
  }, [me]);

  async function open(event: FormEvent) {
    event.preventDefault();
    const peer = input.trim().toLowerCase();
    if (!USER_NAME.test(peer) || peer === me) {
      setNote('enter another user’s name');
      return;
    }
    setNote(undefined);
    let bundle: Uint8Array | undefined;
    const cached = localStorage.getItem(key('bundle', me, peer));
    if (cached !== null) bundle = fromBase64(cached);
    else {
      const response = await fetch(`/api/bundles/${peer}`, { cache: 'no-store' });
      if (response.ok) {
        const body = (await response.json()) as { bundle: string };
        localStorage.setItem(key('bundle', me, peer), body.bundle);
        bundle = fromBase64(body.bundle);
      } else {
        setNote(`${peer} has not published prekeys yet: you can read their first message, not start the session.`);
      }
    }
    localStorage.setItem(key('peer', me), peer);
    setCurrent({ peer, bundle });
  }

  return (
    <>
      <form className="row" onSubmit={(e) => void open(e)}>
        <input type="text" aria-label="peer name" placeholder="chat with…" value={input} onChange={(e) => setInput(e.target.value)} />
        <button type="submit" className="secondary">Open</button>
      </form>
      {note !== undefined && <p className="muted">{note}</p>}
      {current !== undefined && <Conversation key={current.peer} me={me} peer={current.peer} bundle={current.bundle} />}
    </>
  );
}

function Conversation({ me, peer, bundle }: { me: string; peer: string; bundle: Uint8Array | undefined }) {
  const transport = useMemo(() => sseTransport(me, peer), [me, peer]);
  const chatPeer = useMemo(() => (bundle === undefined ? undefined : { bundle }), [bundle]);
  // Bound to the first identity this conversation has a session with (the directory and the relay
  // are the server's: trust on first use, then compare the code). Another identity's initial
  // message becomes `chat.identityChange`, never this conversation.
  const chat = useChat(`${me}:${peer}`, transport, chatPeer);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);

  async function send(event: FormEvent) {
    event.preventDefault();
    if (text.trim() === '') return;
    setSending(true);
    try {
      await chat.send(text);
      setText('');
    } catch {
      // chat.error says why
    } finally {
      setSending(false);
    }
  }

  return (
    <div data-testid="conversation" data-status={chat.status}>
      <h2 style={{ marginTop: '1rem' }}>With {peer}</h2>
      <p className="muted">
        {chat.status === 'idle' && (bundle ? 'No session yet: your first message starts it.' : `Waiting for ${peer}’s first message.`)}
        {chat.status === 'pending' && 'Establishing the session…'}
        {chat.status === 'success' && 'Session established (post-quantum handshake, triple ratchet).'}
        {chat.status === 'error' && 'The session could not be established.'}
      </p>
      {chat.verificationCode && (
        <details>
          <summary>
            Verification code (compare with {peer} out of band):{' '}
            <span data-testid="verified">{chat.verified ? 'verified' : 'not verified yet'}</span>
          </summary>
          <p className="code" data-testid="verification-digits">{chat.verificationCode.numeric}</p>
          {!chat.verified && (
            <button type="button" className="secondary" data-testid="mark-verified" onClick={() => void chat.markVerified()}>
              The codes match
            </button>
          )}
        </details>
      )}
      {chat.identityChange && (
        <div className="error" data-testid="identity-change">
          <p>
            <strong>Another identity claims to be {peer}.</strong>{' '}
            {chat.identityChange.wasVerified ? `You had verified ${peer}. ` : ''}
            Its {chat.identityChange.held} message(s) are held back and your messages still go to the identity you know.
            Accept only if {peer} confirms this new code out of band:
          </p>
          <p className="code" data-testid="change-digits">{chat.identityChange.verificationCode.numeric}</p>
          <div className="row">
            <button type="button" onClick={() => void chat.acceptIdentityChange()}>Accept the new identity</button>
            <button type="button" className="secondary" onClick={() => void chat.rejectIdentityChange()}>Reject</button>
          </div>
        </div>
      )}
      <ul className="messages" data-testid="messages">
        {chat.messages.map((m) => (
          <li key={m.id} data-from={m.from}>{m.text}</li>
        ))}
      </ul>
      {chat.error !== undefined && (
        <p className="error" data-testid="chat-error">
          {chat.rejected > 0 ? `Rejected ${chat.rejected} incoming message${chat.rejected === 1 ? '' : 's'}: ` : ''}
          {describe(chat.error)}
        </p>
      )}
      <form className="row" onSubmit={(e) => void send(e)}>
        <input type="text" aria-label="message" placeholder="message" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit" disabled={sending || (chat.status === 'idle' && bundle === undefined)}>Send</button>
      </form>
    </div>
  );
}
