import { useEffect, useRef, useState } from 'react';
import { CHAT_FRAME, useIdentity, useSession } from 'veilkit/react';
import { describeError } from '../util';

const RELAY_TEXT = 'hi bob, it is alice on a new phone';

/**
 * The relay turned attacker. It has an identity of its own (in its own keystore) and Bob's public
 * prekey bundle, and that is all it needs to make a valid initial message to Bob. `onFrame` hands
 * the frame to Bob as if Alice had sent it. Bob's `useChat` shows it as an identity change and
 * keeps the conversation with Alice: the relay's text is never shown as hers.
 */
export function Relay({ bobBundle, onFrame }: { bobBundle: Uint8Array | undefined; onFrame: (frame: Uint8Array) => void }) {
  const id = useIdentity();
  const session = useSession();
  const creating = useRef(false);
  const [problem, setProblem] = useState<unknown>();

  useEffect(() => {
    if (id.status !== 'success' || id.identity !== undefined || creating.current) return;
    creating.current = true;
    id.create({ label: 'relay' }).catch(setProblem);
  }, [id]);

  const inject = async () => {
    if (bobBundle === undefined) return;
    try {
      const { initialMessage } = await session.initiate(bobBundle, { plaintext: new TextEncoder().encode(RELAY_TEXT) });
      const frame = new Uint8Array(initialMessage.length + 1);
      frame[0] = CHAT_FRAME.initial;
      frame.set(initialMessage, 1);
      onFrame(frame);
    } catch (e) {
      setProblem(e);
    }
  };

  return (
    <div className="relay">
      <button type="button" data-testid="relay-inject" disabled={bobBundle === undefined || id.identity === undefined || session.status === 'pending'}
        onClick={() => { void inject(); }}>
        relay: start its own session with Bob
      </button>
      {problem !== undefined && <p className="error">{describeError(problem)}</p>}
    </div>
  );
}
