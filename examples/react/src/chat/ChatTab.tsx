import { useCallback, useEffect, useMemo, useState } from 'react';
import { VeilProvider, broadcastChannelTransport } from 'veilkit/react';
import { ChatPane } from './ChatPane';

type Who = 'alice' | 'bob';
const CHANNEL = 'veilkit-demo-tabs';

function whoAmI(): Who {
  return new URLSearchParams(location.hash.split('?')[1] ?? '').get('me') === 'bob' ? 'bob' : 'alice';
}

/**
 * Bob's prekey bundle over a BroadcastChannel of its own (standing in for a prekey server): Bob's
 * tab posts it when it has one and whenever Alice's tab asks.
 */
function useBundleDirectory(me: Who, own: Uint8Array | undefined): Uint8Array | undefined {
  const [peer, setPeer] = useState<Uint8Array>();
  useEffect(() => {
    const ch = new BroadcastChannel(`${CHANNEL}-bundles`);
    ch.onmessage = (e: MessageEvent<{ ask?: true; bundle?: Uint8Array }>) => {
      if (me === 'bob' && e.data.ask === true && own !== undefined) ch.postMessage({ bundle: own });
      if (me === 'alice' && e.data.bundle instanceof Uint8Array) setPeer(e.data.bundle);
    };
    if (me === 'alice') ch.postMessage({ ask: true });
    if (me === 'bob' && own !== undefined) ch.postMessage({ bundle: own });
    return () => { ch.close(); };
  }, [me, own]);
  return peer;
}

/** The same conversation across two tabs of this browser, over `broadcastChannelTransport`. */
export function ChatTab() {
  const me = whoAmI();
  const peer: Who = me === 'alice' ? 'bob' : 'alice';
  const transport = useMemo(() => broadcastChannelTransport(CHANNEL, me, peer), [me, peer]);
  const [own, setOwn] = useState<Uint8Array>();
  const onBundle = useCallback((b: Uint8Array) => { setOwn(b); }, []);
  const peerBundle = useBundleDirectory(me, own);

  return (
    <section className="screen" data-testid="screen-chat-tab">
      <h2>Chat across tabs — you are {me}</h2>
      <p className="lead">
        Open <a href={`#chat-tab?me=${peer}`} target="_blank" rel="noreferrer">{peer}&apos;s tab</a> beside this one: the two tabs
        talk over a <code>BroadcastChannel</code> (<code>broadcastChannelTransport</code> from <code>veilkit/react</code>), each with
        its own keystore. Bob&apos;s tab publishes a prekey bundle; Alice&apos;s tab starts the session.
      </p>
      <div className="chat single">
        <VeilProvider key={me} keystore={`veilkit-demo-tab-${me}`}>
          {me === 'alice'
            ? <ChatPane name="alice" conversationId="demo-tabs:alice" transport={transport} peerBundle={peerBundle} />
            : <ChatPane name="bob" conversationId="demo-tabs:bob" transport={transport} onBundle={onBundle} />}
        </VeilProvider>
      </div>
    </section>
  );
}
