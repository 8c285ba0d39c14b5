import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useChat, useIdentity, type ChatTransport } from 'veilkit/react';
import { describeError } from '../util';

interface Props {
  /** Who this pane is ("alice", "bob"): the label of its identity. */
  name: string;
  conversationId: string;
  transport: ChatTransport;
  /** The peer's prekey bundle, for the side that starts the session; the other side answers its initial message. */
  peerBundle?: Uint8Array | undefined;
  /** Called with this side's prekey bundle once it exists (what a prekey server would publish). */
  onBundle?: (bundle: Uint8Array) => void;
  /** The "tamper with my next message" switch, when the transport offers one. */
  tamper?: { on: boolean; set: (on: boolean) => void };
}

/**
 * One side of a conversation. It must be rendered inside its own `<VeilProvider keystore=…>`: its
 * identity, prekeys and session state live in that keystore.
 */
export function ChatPane({ name, conversationId, transport, peerBundle, onBundle, tamper }: Props) {
  const id = useIdentity();
  const [setupError, setSetupError] = useState<unknown>();
  const creating = useRef(false);
  const me = id.identity;

  // The demo creates each pane's identity itself (a real app would use the Keys page's flow).
  useEffect(() => {
    if (id.status !== 'success' || me !== undefined || creating.current) return;
    creating.current = true;
    id.create({ label: name }).catch(setSetupError);
  }, [id, me, name]);

  // Publish a prekey bundle (signed X25519 + last-resort ML-KEM-768 prekeys) for the peer to start
  // from — once per identity (what a prekey server would hand out).
  const published = useRef<string>(undefined);
  const createPrekeyBundle = id.createPrekeyBundle;
  useEffect(() => {
    if (onBundle === undefined || me === undefined || id.locked || published.current === me.id) return;
    published.current = me.id;
    createPrekeyBundle().then((b) => { onBundle(b.bundle); }, (e: unknown) => { setSetupError(e); });
  }, [me, id.locked, onBundle, createPrekeyBundle]);

  // useChat binds the conversation to the first identity it has a session with: another identity's
  // initial message shows up as `identityChange` below, never as this conversation.
  const chat = useChat(conversationId, transport, peerBundle === undefined ? undefined : { bundle: peerBundle });
  const peerName = name === 'alice' ? 'bob' : 'alice';
  const [draft, setDraft] = useState('');
  const canSend = me !== undefined && (chat.status === 'success' || peerBundle !== undefined);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    if (text === '' || !canSend) return;
    setDraft('');
    void chat.send(text);
  };

  return (
    <div className="pane" data-testid={`pane-${name}`} data-status={chat.status}>
      <h3>{name}</h3>
      <p className="hint">
        {me === undefined ? 'creating an identity…' : <>identity <code>{me.id.slice(0, 12)}…</code> · keystore of this pane only</>}
      </p>
      <div className="verification" data-testid="verification">
        {chat.verificationCode === undefined
          ? <span className="hint">{chat.status === 'pending' ? 'establishing the session…' : 'no session yet'}</span>
          : <>
              <span className="hint">verification code — compare with {peerName}:</span>
              <span className="digits" data-testid="code-digits">{chat.verificationCode.numeric}</span>
              <span className="emoji" data-testid="code-emoji">{chat.verificationCode.emoji}</span>
              {chat.verified
                ? <span className="badge ok" data-testid="verified">verified — bound to this identity</span>
                : <span className="row">
                    <span className="badge" data-testid="unverified">unverified — bound to this identity on first use</span>
                    <button type="button" className="secondary" data-testid="mark-verified" onClick={() => { void chat.markVerified(); }}>The codes match</button>
                  </span>}
            </>}
      </div>
      {chat.identityChange !== undefined && (
        <div className="identity-change" data-testid="identity-change">
          <strong>Another identity claims to be {peerName}.</strong>{' '}
          {chat.identityChange.wasVerified ? `${peerName} was verified. ` : ''}
          Its {chat.identityChange.held} message{chat.identityChange.held === 1 ? ' is' : 's are'} held back, and your messages still
          go to the identity you know. Accept only if {peerName} confirms this new code out of band:
          <span className="digits" data-testid="change-digits">{chat.identityChange.verificationCode.numeric}</span>
          <span className="row">
            <button type="button" className="danger" data-testid="accept-change" onClick={() => { void chat.acceptIdentityChange(); }}>Accept the new identity</button>
            <button type="button" className="secondary" data-testid="reject-change" onClick={() => { void chat.rejectIdentityChange(); }}>Reject</button>
          </span>
        </div>
      )}
      <ol className="messages" data-testid="messages">
        {chat.messages.map((m) => (
          <li key={m.id} className={m.from} data-from={m.from}>{m.text}</li>
        ))}
      </ol>
      {chat.rejected > 0 && (
        <p className="error" data-testid="rejected" data-count={chat.rejected}>
          {chat.rejected} incoming message{chat.rejected === 1 ? '' : 's'} rejected: {describeError(chat.error)}
        </p>
      )}
      {chat.rejected === 0 && chat.error !== undefined && <p className="error" data-testid="chat-error">{describeError(chat.error)}</p>}
      {setupError !== undefined && <p className="error">{describeError(setupError)}</p>}
      <form onSubmit={submit} className="row">
        <input type="text" value={draft} placeholder={canSend ? 'message' : 'waiting for the other side…'} data-testid="draft"
          onChange={(e) => { setDraft(e.target.value); }} />
        <button type="submit" data-testid="send" disabled={!canSend || draft.trim() === ''}>Send</button>
      </form>
      {tamper !== undefined && (
        <label className="row tamper">
          <input type="checkbox" checked={tamper.on} data-testid="tamper" onChange={(e) => { tamper.set(e.target.checked); }} />
          tamper with my next message in transit (flip one bit)
        </label>
      )}
    </div>
  );
}
