'use client';
// Group chat rooms (MLS, X-Wing suite) over the app's delivery service. Sign up makes an identity in this
// browser's keystore and publishes key packages under "<name>" / "<name>-<device>"; a room is an MLS group;
// inviting a user adds one key package of each of their devices; the invited devices find the welcome in
// their mailbox and join. Messages are JSON inside the MLS ciphertext: { kind: 'text' | 'room', from, … }.
// `from` is what the sender calls itself; who sent it is the MLS sender (its identity id).
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useDecryptFile, useEncryptFile, useGroupChat, useGroups, useIdentity, useVeil } from 'veilkit/react';
import { fromBase64, toBase64 } from '../lib/base64';
import { describe } from './errors';
import { SignUp, USER_NAME } from './SignUp';

const KEY_PACKAGES = 10;
const key = (...parts: string[]): string => `veilkit-next:${parts.join(':')}`;
const enc = new TextEncoder();
const dec = new TextDecoder();

/** An attachment: the file container's server id, and its group wrap's key and id (the key only ever in MLS messages). */
type FileWire = { kind: 'file'; from: string; name: string; size: number; ref: string; key: string; gid: string };
type Wire = { kind: 'text'; from: string; text: string } | { kind: 'room'; from: string; name: string } | FileWire;

// Parsed once per message (a stored message keeps its bytes object from render to render).
const parsed = new WeakMap<Uint8Array, Wire | null>();

function parse(bytes: Uint8Array): Wire | undefined {
  let w = parsed.get(bytes);
  if (w === undefined) {
    w = parseWire(bytes) ?? null;
    parsed.set(bytes, w);
  }
  return w ?? undefined;
}

function parseWire(bytes: Uint8Array): Wire | undefined {
  try {
    const w = JSON.parse(dec.decode(bytes)) as Partial<Wire>;
    if (w.kind === 'text' && typeof w.text === 'string' && typeof w.from === 'string') return w as Wire;
    if (w.kind === 'room' && typeof w.name === 'string' && typeof w.from === 'string') return w as Wire;
    if (w.kind === 'file' && typeof w.name === 'string' && typeof w.from === 'string' && typeof w.ref === 'string' && /^[0-9a-f]{32}$/.test(w.ref)
      && typeof w.key === 'string' && typeof w.gid === 'string' && typeof w.size === 'number') return w as Wire;
  } catch {
    // Not ours: not shown.
  }
  return undefined;
}

const wire = (w: Wire): Uint8Array => enc.encode(JSON.stringify(w));

export function Rooms() {
  const veil = useVeil();
  const id = useIdentity();
  const [device, setDevice] = useState<string | undefined>(undefined);
  const me = id.identity?.label;
  const identityId = id.identity?.id;

  // This browser's device name: the user's name and a random suffix, chosen once per identity.
  useEffect(() => {
    if (identityId === undefined || me === undefined) return;
    const k = key('device', identityId);
    let d = localStorage.getItem(k);
    if (d === null) {
      d = `${me}-${Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
      localStorage.setItem(k, d);
    }
    setDevice(d);
  }, [identityId, me]);

  return (
    <section className="card" aria-label="rooms">
      {veil.status === 'error' && <p className="error">veilkit failed to start: {describe(veil.error)}</p>}
      {id.status === 'error' && <p className="error">{describe(id.error)}</p>}
      {me === undefined || device === undefined ? (
        veil.status === 'success' && id.status !== 'pending' && me === undefined ? (
          <SignUp />
        ) : (
          <p className="muted">Opening the keystore…</p>
        )
      ) : (
        <Lobby me={me} device={device} />
      )}
    </section>
  );
}

function Lobby({ me, device }: { me: string; device: string }) {
  const groups = useGroups({ user: me, device });
  const [published, setPublished] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [roomName, setRoomName] = useState('');
  const [current, setCurrent] = useState<string | undefined>(undefined);
  const [announce, setAnnounce] = useState<{ id: string; name: string } | undefined>(undefined);
  const { publishKeyPackages } = groups;

  // Key packages once per device (others add this device with them).
  useEffect(() => {
    const k = key('key-packages', device);
    if (localStorage.getItem(k) !== null) {
      setPublished(true);
      return;
    }
    let live = true;
    publishKeyPackages(KEY_PACKAGES).then(() => {
      localStorage.setItem(k, String(Date.now()));
      if (live) setPublished(true);
    }, (e: unknown) => {
      if (live) setProblem(describe(e));
    });
    return () => {
      live = false;
    };
  }, [device, publishKeyPackages]);

  useEffect(() => {
    const saved = localStorage.getItem(key('room', device));
    if (saved !== null) setCurrent(saved);
  }, [device]);

  function open(id: string): void {
    localStorage.setItem(key('room', device), id);
    setCurrent(id);
  }

  async function create(event: FormEvent) {
    event.preventDefault();
    const name = roomName.trim();
    if (name === '') return;
    setProblem(undefined);
    try {
      const info = await groups.create();
      setAnnounce({ id: info.id, name });
      setRoomName('');
      open(info.id);
    } catch (e) {
      setProblem(describe(e));
    }
  }

  return (
    <>
      <p className="muted">
        Signed in as <strong data-testid="me">{me}</strong> on device <span data-testid="device">{device}</span> (keys in this browser only).{' '}
        <span data-testid="key-packages">{published ? 'Key packages published.' : 'Publishing key packages…'}</span>
      </p>
      {problem !== undefined && <p className="error">{problem}</p>}
      {groups.error !== undefined && <p className="error">{describe(groups.error)}</p>}
      <div className="rooms-grid">
        <div>
          <form className="row" onSubmit={(e) => void create(e)}>
            <input type="text" aria-label="room name" placeholder="new room" value={roomName} onChange={(e) => setRoomName(e.target.value)} />
            <button type="submit" className="secondary">Create room</button>
          </form>
          <ul className="rooms" data-testid="rooms">
            {groups.groups.map((g) => (
              <RoomItem key={g.id} id={g.id} active={g.id === current} onOpen={() => open(g.id)} />
            ))}
          </ul>
        </div>
        <div>
          {current !== undefined && <Room key={current} id={current} me={me} announce={announce?.id === current ? announce.name : undefined} />}
        </div>
      </div>
    </>
  );
}

function roomNameOf(messages: readonly { bytes: Uint8Array }[], id: string): string {
  let name = `room ${id.slice(-6)}`;
  for (const m of messages) {
    const w = parse(m.bytes);
    if (w?.kind === 'room') name = w.name;
  }
  return name;
}

function RoomItem({ id, active, onOpen }: { id: string; active: boolean; onOpen: () => void }) {
  const chat = useGroupChat(id);
  const name = roomNameOf(chat.messages, id);
  return (
    <li>
      <button type="button" className={active ? undefined : 'secondary'} data-room={name} onClick={onOpen}>
        {name}{chat.active ? '' : ' (removed)'}
      </button>
    </li>
  );
}

function Room({ id, me, announce }: { id: string; me: string; announce: string | undefined }) {
  const chat = useGroupChat(id);
  const [text, setText] = useState('');
  const [invitee, setInvitee] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [announced, setAnnounced] = useState(false);
  const name = roomNameOf(chat.messages, id);

  // A new room's name goes to the room as its first message.
  const { send, status } = chat;
  useEffect(() => {
    if (announce === undefined || announced || status !== 'success') return;
    setAnnounced(true);
    send(wire({ kind: 'room', from: me, name: announce })).catch((e: unknown) => setProblem(describe(e)));
  }, [announce, announced, status, send, me]);

  // A name per device (MLS-authenticated sender id): the first name its messages give, and a name is one
  // device's only. Later messages cannot rename a device or take another's name. (A real app binds names
  // with the users' device registries, docs/DEVICES.md.)
  const names = useMemo(() => {
    const m = new Map<string, string>();
    const taken = new Set<string>();
    for (const x of chat.messages) {
      const w = parse(x.bytes);
      if (w === undefined || m.has(x.senderId) || taken.has(w.from)) continue;
      m.set(x.senderId, w.from);
      taken.add(w.from);
    }
    return m;
  }, [chat.messages]);

  async function act(f: () => Promise<unknown>) {
    setProblem(undefined);
    try {
      await f();
    } catch (e) {
      setProblem(describe(e));
    }
  }

  async function sendText(event: FormEvent) {
    event.preventDefault();
    if (text.trim() === '') return;
    const t = text;
    setText('');
    await act(() => chat.send(wire({ kind: 'text', from: me, text: t })));
  }

  async function invite(event: FormEvent) {
    event.preventDefault();
    const user = invitee.trim().toLowerCase();
    if (!USER_NAME.test(user)) return;
    setInvitee('');
    // Members read the room from the commit that added them: the name goes to the room again for them.
    await act(async () => {
      await chat.invite(user);
      await chat.send(wire({ kind: 'room', from: me, name }));
    });
  }

  return (
    <div data-testid="room" data-status={chat.status} data-epoch={chat.epoch}>
      <h2>Room {name}</h2>
      {!chat.active && <p className="error" data-testid="removed">You were removed from this room: you read nothing sent after.</p>}
      {problem !== undefined && <p className="error" data-testid="room-error">{problem}</p>}
      <details open>
        <summary className="muted">{chat.members.length} member device(s), epoch {chat.epoch}</summary>
        <ul data-testid="members">
          {chat.members.map((m) => {
            const who = names.get(m.identityId) ?? `device ${m.identityId.slice(0, 8)}`;
            const isSelf = m.index === chat.ownIndex;
            return (
              <li key={m.index} data-member={who}>
                {who}{isSelf ? ' (this device)' : ''}{' '}
                {!isSelf && chat.active && (
                  <button type="button" className="secondary" aria-label={`remove ${who}`} onClick={() => void act(() => chat.remove(m.index))}>Remove</button>
                )}
              </li>
            );
          })}
        </ul>
      </details>
      {chat.active && (
        <form className="row" onSubmit={(e) => void invite(e)}>
          <input type="text" aria-label="invite user" placeholder="invite a user" value={invitee} onChange={(e) => setInvitee(e.target.value)} />
          <button type="submit" className="secondary">Invite</button>
        </form>
      )}
      <ul className="messages" data-testid="messages">
        {chat.messages.map((m) => {
          const w = parse(m.bytes);
          if (w?.kind !== 'text' && w?.kind !== 'file') return null;
          return (
            <li key={m.id} data-from={m.status === 'received' ? 'peer' : 'me'} data-status={m.status} data-kind={w.kind}>
              {m.status === 'received' ? <strong>{names.get(m.senderId) ?? `device ${m.senderId.slice(0, 8)}`}: </strong> : null}
              {w.kind === 'text' ? w.text : <Attachment file={w} />}
              {m.status === 'pending' ? ' …' : m.status === 'failed' ? ` (not sent: ${m.error ?? 'refused'})` : ''}
            </li>
          );
        })}
      </ul>
      {chat.active && <Attach me={me} send={(w) => chat.send(wire(w))} />}
      {chat.active && (
        <form className="row" onSubmit={(e) => void sendText(e)}>
          <input type="text" aria-label="message" placeholder="message" value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit">Send</button>
        </form>
      )}
    </div>
  );
}

/** Encrypts a file into a container (group wrap under a fresh key) in the worker pool, uploads the ciphertext, and sends its reference and key in the room. */
function Attach({ me, send }: { me: string; send: (w: FileWire) => Promise<void> }) {
  const encrypt = useEncryptFile();
  const [note, setNote] = useState<string | undefined>(undefined);

  async function attach(file: File | undefined) {
    if (file === undefined) return;
    setNote(`encrypting ${file.name}…`);
    const key = crypto.getRandomValues(new Uint8Array(32));
    const gid = crypto.getRandomValues(new Uint8Array(16));
    const sealed = await encrypt.run(file, { group: { id: gid, keyVersion: 0, key } });
    if (sealed === undefined) {
      setNote(`not encrypted: ${describe(encrypt.error)}`);
      return;
    }
    setNote(`uploading ${file.name}…`);
    try {
      const response = await fetch('/api/files', { method: 'POST', body: sealed, headers: { 'Content-Type': 'application/octet-stream' } });
      if (!response.ok) throw new Error(`the server refused the upload: ${response.status}`);
      const { id } = (await response.json()) as { id: string };
      await send({ kind: 'file', from: me, name: file.name, size: file.size, ref: id, key: toBase64(key), gid: toBase64(gid) });
      setNote(`sent ${file.name}`);
    } catch (e) {
      setNote(describe(e));
    } finally {
      key.fill(0);
    }
  }

  return (
    <div className="row">
      <input type="file" aria-label="attach a file" onChange={(e) => { void attach(e.target.files?.[0]); e.target.value = ''; }} />
      {note !== undefined && <span className="muted" data-testid="attach-status">{note}</span>}
    </div>
  );
}

/** A received or sent attachment: downloads the ciphertext, decrypts it in the worker pool (verified), saves it. */
function Attachment({ file }: { file: FileWire }) {
  const decrypt = useDecryptFile();
  const [note, setNote] = useState<string | undefined>(undefined);

  async function open() {
    setNote('downloading…');
    try {
      const response = await fetch(`/api/files/${file.ref}`, { cache: 'no-store' });
      if (!response.ok) throw new Error(`no such file on the server: ${response.status}`);
      const sealed = await response.blob();
      setNote('decrypting…');
      const plain = await decrypt.run(sealed, { group: { id: fromBase64(file.gid), keyVersion: 0, key: fromBase64(file.key) } });
      if (plain === undefined) throw decrypt.error ?? new Error('not decrypted');
      const url = URL.createObjectURL(plain);
      const a = document.createElement('a');
      a.href = url;
      a.download = file.name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setNote(undefined);
    } catch (e) {
      setNote(describe(e));
    }
  }

  return (
    <span>
      📎 {file.name} ({file.size.toLocaleString('en')} bytes){' '}
      <button type="button" className="secondary" aria-label={`download ${file.name}`} onClick={() => void open()}>Download</button>
      {note !== undefined && <span className="muted"> {note}</span>}
    </span>
  );
}
