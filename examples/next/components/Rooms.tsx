'use client';
// Group chat rooms (MLS, X-Wing suite) over the app's delivery service. Sign up makes this browser's device
// identity in its keystore and publishes key packages under "<name>" / "<name>-<device>"; the first device of a
// user also makes the user identity and the user's device registry (useDevices); another browser links to the
// user with a code typed on the first device, which then adds it to the user's rooms (and revoking removes it).
// A room is an MLS group; inviting a user adds one key package of each device the user's registry lists; the
// invited devices find the welcome in their mailbox and join. Messages are JSON inside the MLS ciphertext:
// { kind: 'text' | 'room' | 'file', from, … }. `from` is what the sender calls itself; who sent it is the MLS
// sender (its identity id), shown as a user only when that user's verified registry lists it.
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import {
  useDecryptFile, useDevices, useEncryptFile, useGroupChat, useGroups, useIdentity, useUserDevices, useVeil, type UseDevicesResult,
} from 'veilkit/react';
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
          <SignUp onLink={(name) => localStorage.setItem(key('link', name), '1')} />
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
  const devices = useDevices({ user: me, device });
  const [published, setPublished] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [roomName, setRoomName] = useState('');
  const [current, setCurrent] = useState<string | undefined>(undefined);
  const [announce, setAnnounce] = useState<{ id: string; name: string } | undefined>(undefined);
  // Bumped after a device is linked: each room sends its name again, for the new device that joins from here on.
  const [renamed, setRenamed] = useState(0);
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

  const linking = devices.status === 'success' && devices.role === 'none' && localStorage.getItem(key('link', me)) !== null;

  // Each room of this device holds every device of the user: after a room is created or joined, the user's
  // devices missing from it are added (and revoked ones removed) by whichever of the user's devices is in it.
  const { role, syncGroups } = devices;
  const roomCount = groups.groups.length;
  useEffect(() => {
    if (role === 'none' || roomCount === 0) return;
    syncGroups().catch(() => {});
  }, [role, roomCount, syncGroups]);

  return (
    <>
      <p className="muted">
        Signed in as <strong data-testid="me">{me}</strong> on device <span data-testid="device">{device}</span> (keys in this browser only).{' '}
        <span data-testid="key-packages">{published ? 'Key packages published.' : 'Publishing key packages…'}</span>{' '}
        <span data-testid="device-role" data-role={devices.role}>
          {devices.role === 'primary' ? 'This device holds your user identity.' : devices.role === 'linked' ? 'A linked device.' : ''}
        </span>
      </p>
      {problem !== undefined && <p className="error">{problem}</p>}
      {groups.error !== undefined && <p className="error">{describe(groups.error)}</p>}
      <Devices me={me} devices={devices} published={published} linking={linking} onLinked={() => setRenamed((n) => n + 1)} />
      {!linking && (
        <div className="rooms-grid">
          <div>
            <form className="row" onSubmit={(e) => void create(e)}>
              <input type="text" aria-label="room name" placeholder="new room" value={roomName} onChange={(e) => setRoomName(e.target.value)} />
              <button type="submit" className="secondary">Create room</button>
            </form>
            <ul className="rooms" data-testid="rooms">
              {groups.groups.map((g) => (
                <RoomItem key={g.id} id={g.id} me={me} renamed={renamed} active={g.id === current} onOpen={() => open(g.id)} />
              ))}
            </ul>
          </div>
          <div>
            {current !== undefined && <Room key={current} id={current} me={me} announce={announce?.id === current ? announce.name : undefined} />}
          </div>
        </div>
      )}
    </>
  );
}

/**
 * This user's devices. The first device sets the user up by itself (user identity and registry); a browser that
 * chose "Link to my account" shows a code until the first device links it. The first device links (type the code)
 * and revokes; both changes reach every room of the user in the next commit.
 */
function Devices({ me, devices, published, linking, onLinked }: { me: string; devices: UseDevicesResult; published: boolean; linking: boolean; onLinked: () => void }) {
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const { status, role, setUp, startLink } = devices;
  // Started once per page (StrictMode runs effects twice in development: a second set-up or link must not start).
  const started = useRef(false);

  // A new user's first device: the user identity and the registry, once. A linking device: start the link once
  // its key packages are out (the first device adds it to the rooms with one of them).
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (status !== 'success' || role !== 'none' || !published || started.current) return;
    started.current = true;
    const run = linking ? startLink() : setUp();
    run.then(() => localStorage.removeItem(key('link', me)), (e: unknown) => {
      started.current = false;
      setProblem(describe(e));
    });
  }, [status, role, published, linking, setUp, startLink, me, attempt]);

  async function act(f: () => Promise<string | undefined>) {
    setProblem(undefined);
    setNote(undefined);
    try {
      setNote(await f());
    } catch (e) {
      setProblem(describe(e));
    }
  }

  async function link(event: FormEvent) {
    event.preventDefault();
    const c = code.trim();
    if (c === '') return;
    setCode('');
    await act(async () => {
      const d = await devices.link(c);
      onLinked();
      return `linked ${d.name}`;
    });
  }

  return (
    <details className="devices" open={linking || role === 'primary'} data-testid="devices">
      <summary className="muted">
        {role === 'none' ? 'Devices: setting up…' : `Devices of ${me}: ${devices.devices.length} active${devices.revoked.length > 0 ? `, ${devices.revoked.length} revoked` : ''}`}
      </summary>
      {problem !== undefined && (
        <p className="error" data-testid="devices-error">
          {problem}{' '}
          {role === 'none' && <button type="button" className="secondary" onClick={() => { setProblem(undefined); setAttempt((n) => n + 1); }}>Try again</button>}
        </p>
      )}
      {devices.error !== undefined && problem === undefined && <p className="error">{describe(devices.error)}</p>}
      {devices.revokedHere && <p className="error" data-testid="revoked">This device was revoked: it is no longer one of {me}&apos;s devices.</p>}
      {linking && (
        <p>
          Type this code on {me}&apos;s first device (Devices → Link a device):{' '}
          <span className="code" data-testid="link-code">{devices.linkCode ?? '…'}</span>
        </p>
      )}
      {role !== 'none' && (
        <ul data-testid="device-list">
          {devices.devices.map((d) => (
            <li key={d.identityId} data-device={d.name}>
              {d.name}{d.identityId === devices.thisDevice ? ' (this device)' : ''}{' '}
              {role === 'primary' && d.identityId !== devices.thisDevice && (
                <button type="button" className="secondary" aria-label={`revoke ${d.name}`} onClick={() => void act(async () => {
                  await devices.revoke(d);
                  return `revoked ${d.name}`;
                })}>Revoke</button>
              )}
            </li>
          ))}
          {devices.revoked.map((d) => <li key={d.identityId} className="muted" data-revoked={d.name}>{d.name} (revoked)</li>)}
        </ul>
      )}
      {role === 'primary' && (
        <form className="row" onSubmit={(e) => void link(e)}>
          <input type="text" aria-label="link code" placeholder="code shown on the new device" value={code} onChange={(e) => setCode(e.target.value)} />
          <button type="submit" className="secondary">Link device</button>
        </form>
      )}
      {role === 'linked' && <p className="muted">Linked to {me}&apos;s account: {me}&apos;s first device links and revokes devices.</p>}
      {note !== undefined && <p className="muted" data-testid="devices-note">{note}</p>}
    </details>
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

function RoomItem({ id, me, renamed, active, onOpen }: { id: string; me: string; renamed: number; active: boolean; onOpen: () => void }) {
  const chat = useGroupChat(id);
  const name = roomNameOf(chat.messages, id);
  // After this device linked another: the room's name again, the first message the new device reads.
  const { send, status } = chat;
  // A room that appears later (joined, created) does not resend for a link made before it.
  const [sentFor, setSentFor] = useState(renamed);
  useEffect(() => {
    if (renamed === sentFor || status !== 'success' || !chat.active) return;
    setSentFor(renamed);
    send(wire({ kind: 'room', from: me, name })).catch(() => {});
  }, [renamed, sentFor, status, chat.active, send, me, name]);
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

  // Who a device is. A member is shown as user U when U's device registry (verified, pinned on first use,
  // read again when the epoch changes) lists it: every device of a user carries its name. A device no registry
  // claims gets the first name its messages give, if no other device has it and no registry owns it; later
  // messages cannot rename a device or take another's name.
  const claimed = useMemo(() => [...new Set(chat.messages.map((x) => parse(x.bytes)?.from).filter((f): f is string => f !== undefined))], [chat.messages]);
  const registries = useUserDevices(claimed, { revision: chat.epoch });
  const names = useMemo(() => {
    const m = new Map<string, string>();
    const taken = new Set<string>(registries.views.keys());
    for (const [u, v] of registries.views) for (const d of v.revoked) m.set(d.identityId, `${u} (revoked device)`);
    for (const x of chat.members) {
      const u = registries.userOf(x.identityId);
      if (u !== undefined) m.set(x.identityId, u);
    }
    for (const x of chat.messages) {
      const w = parse(x.bytes);
      if (w === undefined || m.has(x.senderId)) continue;
      const u = registries.userOf(x.senderId);
      if (u !== undefined) {
        m.set(x.senderId, u);
        continue;
      }
      if (taken.has(w.from)) continue;
      m.set(x.senderId, w.from);
      taken.add(w.from);
    }
    return m;
  }, [chat.messages, chat.members, registries]);

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
            const deviceName = registries.deviceOf(m.identityId)?.name;
            return (
              <li key={m.index} data-member={who}>
                {who}{deviceName === undefined ? '' : <span className="muted"> on {deviceName}</span>}{isSelf ? ' (this device)' : ''}{' '}
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
