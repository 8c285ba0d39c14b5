import { useCallback, useMemo, useState } from 'react';
import { VeilProvider } from 'veilkit/react';
import { ChatPane } from './ChatPane';
import { Relay } from './Relay';
import { pairTransport, type WireFrame } from './pairTransport';
import { hex } from '../util';

/**
 * Two people in one page: each pane has its own provider, so its own keystore (its own IndexedDB
 * database and worker) — as separate as two browsers, except for the in-page "wire" between them.
 * Bob publishes a prekey bundle; Alice starts the session from it; Bob answers her initial message.
 * The relay in the middle can also try to take the conversation over with a session of its own.
 */
export function Chat() {
  const [frames, setFrames] = useState<WireFrame[]>([]);
  const [tamper, setTamper] = useState<[boolean, boolean]>([false, false]);
  const [bobBundle, setBobBundle] = useState<Uint8Array>();

  const wire = useMemo(() => pairTransport(['alice', 'bob'], (f) => {
    setFrames((fs) => [...fs.slice(-7), f]);
    if (f.tampered) setTamper((t) => (f.from === 'alice' ? [false, t[1]] : [t[0], false]));
  }), []);

  const setTamperOf = (side: 0 | 1) => (on: boolean) => {
    wire.tamperNext(side, on);
    setTamper((t) => (side === 0 ? [on, t[1]] : [t[0], on]));
  };
  const onBobBundle = useCallback((b: Uint8Array) => { setBobBundle(b); }, []);
  const injectToBob = useCallback((f: Uint8Array) => { wire.inject(1, f); }, [wire]);

  return (
    <section className="screen" data-testid="screen-chat">
      <h2>Chat</h2>
      <p className="lead">
        A post-quantum session (PQXDH-style handshake, triple ratchet) between two identities. Each message is
        encrypted in the sender&apos;s keystore worker and decrypted in the receiver&apos;s; the middle column is all a server would see.
        Each side is bound to the identity it first had a session with: when the relay starts a session of its own with Bob,
        Bob sees an identity change to accept or reject, and his messages still go to Alice.
      </p>
      <div className="chat">
        <VeilProvider keystore="veilkit-demo-alice">
          <ChatPane name="alice" conversationId="demo-pair:alice" transport={wire.a} peerBundle={bobBundle}
            tamper={{ on: tamper[0], set: setTamperOf(0) }} />
        </VeilProvider>
        <div className="wire" data-testid="wire">
          <h3>on the wire</h3>
          <p className="hint">{bobBundle === undefined ? 'waiting for Bob\'s prekey bundle…' : `Bob's prekey bundle: ${bobBundle.length} bytes`}</p>
          <VeilProvider keystore="veilkit-demo-relay">
            <Relay bobBundle={bobBundle} onFrame={injectToBob} />
          </VeilProvider>
          <ol>
            {frames.map((f) => (
              <li key={f.n} className={f.tampered ? 'tampered' : ''}>
                {f.from} → {f.from === 'bob' ? 'alice' : 'bob'} · {f.bytes[0] === 1 ? 'initial' : 'ratchet'} · {f.bytes.length} B
                <code>{hex(f.bytes.subarray(1), 10)}</code>{f.tampered ? ' · tampered' : ''}
              </li>
            ))}
          </ol>
        </div>
        <VeilProvider keystore="veilkit-demo-bob">
          <ChatPane name="bob" conversationId="demo-pair:bob" transport={wire.b} onBundle={onBobBundle}
            tamper={{ on: tamper[1], set: setTamperOf(1) }} />
        </VeilProvider>
      </div>
    </section>
  );
}
