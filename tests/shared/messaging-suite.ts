// Messaging suite through the PUBLIC TypeScript API: the known-answer tests of
// vectors/messaging/kat.json, the seed's full E2EE flow, and adversarial cases.
//
// Shared by tests/node/messaging.test.ts (fs loader) and the Chromium module
// worker tests/playwright/fixtures/messaging-worker.ts (fetch loader), so both
// runtimes check exactly the same cases. Every check records a result instead
// of throwing, so one failure never hides the others.
import { concatBytes } from '../../ts/bytes.js';

export type VeilkitApi = typeof import('../../ts/index.js');
export type Loader = (path: string) => Promise<string>;

export const MESSAGING_KAT_PATH = 'vectors/messaging/kat.json';

/** KAT families in file order, with the number of cases each must have. */
export const KAT_FAMILIES = {
  hybridKem: 2,
  authenticatedKem: 2,
  padding: 10,
  paddedAead: 3,
  chunked: 5,
  srk: 2,
  windowKey: 4,
  ratchet: 3,
  shouldRatchet: 6,
  transcript: 1,
  sealed: 3,
  verificationCode: 2,
  sas: 2,
  keyLog: 1,
  registry: 1,
  replayStore: 1,
} as const;
export type KatFamily = keyof typeof KAT_FAMILIES;

export interface CheckResult {
  name: string;
  ok: boolean;
  message: string;
}

export interface KatReport {
  family: string;
  checked: number;
  expected: number;
  failures: string[];
}

export interface MessagingReport {
  kat: KatReport[];
  flow: CheckResult;
  adversarial: CheckResult[];
}

// ---------------------------------------------------------------------------
// helpers

export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) throw new Error(`bad hex (length ${hex.length})`);
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => concatBytes(parts);

function eqHex(what: string, got: Uint8Array, expectedHex: string): void {
  const g = toHex(got);
  if (g !== expectedHex) throw new Error(`${what}: got ${short(g)}, expected ${short(expectedHex)}`);
}

function eq<T>(what: string, got: T, expected: T): void {
  const g = JSON.stringify(got);
  const e = JSON.stringify(expected);
  if (g !== e) throw new Error(`${what}: got ${short(g)}, expected ${short(e)}`);
}

function short(s: string): string {
  return s.length > 80 ? `${s.slice(0, 40)}…${s.slice(-24)} (${s.length} chars)` : s;
}

function pattern(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (31 * i + 7) % 256;
  return out;
}

/** Runs `fn`, which must throw; returns what it threw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an exception, but the call returned');
}

async function rejected(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

function expectVeil(api: VeilkitApi, e: unknown, code: string): void {
  if (!(e instanceof api.VeilError)) throw new Error(`expected VeilError(${code}), got ${String(e)}`);
  if (e.code !== code) throw new Error(`expected VeilError(${code}), got ${e.code}: ${e.message}`);
}

function expectArgError(e: unknown, ctor: typeof TypeError | typeof RangeError, name: string): void {
  if (!(e instanceof ctor)) throw new Error(`expected ${ctor.name} naming ${name}, got ${String(e)}`);
  if (!e.message.includes(name)) throw new Error(`${ctor.name} does not name ${name}: ${e.message}`);
}

function lp32(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + b.length);
  new DataView(out.buffer).setUint32(0, b.length);
  out.set(b, 4);
  return out;
}

/** docs/PROTOCOL.md §8's emoji table (index = 6-bit value), transcribed independently of the core. */
export const SAS_EMOJI_TABLE = Array.from('🐶🐱🐭🐹🐰🦊🐻🐼🐨🐯🦁🐮🐷🐸🐵🐔🐧🐦🦆🦉🐴🦄🐝🐛🦋🐌🐞🐢🐍🐙🦀🐬🐳🦈🐘🦒🍎🍐🍊🍋🍌🍉🍇🍓🍒🍑🍍🥝🥕🌽🍄🌵🌲🌻🌙🌈🔥💧🌊🎈🎸🚀🔑🔔');

/** The 7 emoji of a SAS hash: bits 6k … 6k+5 of its first 8 bytes. */
export function sasEmoji(sas: Uint8Array): string[] {
  const bits = new DataView(sas.buffer, sas.byteOffset, 8).getBigUint64(0);
  return Array.from({ length: 7 }, (_, k) => SAS_EMOJI_TABLE[Number((bits >> BigInt(58 - 6 * k)) & 63n)] ?? '?');
}

type Obj0 = Record<string, unknown>;
function keysOf(o: Obj0): { ed25519: Uint8Array; x25519: Uint8Array; mlDsa65: Uint8Array | null } {
  return { ed25519: fromHex(o.ed25519 as string), x25519: fromHex(o.x25519 as string), mlDsa65: o.mlDsa65 === null ? null : fromHex(o.mlDsa65 as string) };
}
function identityOf(api: VeilkitApi, o: Obj0): Uint8Array {
  return api.encodeVerificationIdentity(keysOf(o));
}

// ---------------------------------------------------------------------------
// KAT checks, one per family: input + expected -> throws on mismatch

type Obj = Record<string, unknown>;
const h = (o: Obj, k: string): Uint8Array => fromHex(o[k] as string);
const num = (o: Obj, k: string): number => o[k] as number;
const str = (o: Obj, k: string): string => o[k] as string;

function checkKat(api: VeilkitApi, family: KatFamily, i: Obj, e: Obj): void {
  switch (family) {
    case 'hybridKem': {
      eqHex('sender public', api.x25519PublicKey(h(i, 'senderX25519Secret')), str(e, 'senderX25519Public'));
      const [dk] = api.mlKemKeygen(h(i, 'recipientMlKemSeed'));
      const k = api.hybridKemDecapsulate(h(i, 'recipientX25519Secret'), h(e, 'senderX25519Public'), dk, h(e, 'mlKemCiphertext'));
      eqHex('sharedKey', k, str(e, 'sharedKey'));
      return;
    }
    case 'authenticatedKem': {
      const [, idPk] = api.ed25519KeypairFromSeed(h(i, 'senderIdentitySeed'));
      eqHex('identity public', idPk, str(e, 'senderIdentityPublic'));
      const [dk] = api.mlKemKeygen(h(i, 'recipientMlKemSeed'));
      const k = api.authenticatedKemDecapsulate(h(i, 'recipientX25519Secret'), h(e, 'senderX25519Public'), dk, h(e, 'ciphertext'), idPk);
      eqHex('sharedSecret', k, str(e, 'sharedSecret'));
      return;
    }
    case 'padding': {
      const len = num(i, 'contentLength');
      const p = api.padMessage(pattern(len));
      eq('padded length', p.length, num(e, 'paddedLength'));
      eq('paddedLength()', api.paddedLength(len), num(e, 'paddedLength'));
      eqHex('padded sha256', api.sha256(p), str(e, 'paddedSha256'));
      if (typeof e.padded === 'string') eqHex('padded', p, e.padded);
      eqHex('unpadded', api.unpadMessage(p), toHex(pattern(len)));
      return;
    }
    case 'paddedAead': {
      const pt = api.decryptAesGcmPadded(h(i, 'key'), h(e, 'ciphertext'), h(i, 'aad'));
      eqHex('plaintext', pt, str(i, 'plaintext'));
      const fresh = api.encryptAesGcmPadded(h(i, 'key'), h(i, 'plaintext'), h(i, 'aad'));
      eq('fresh ciphertext length', fresh.length, h(e, 'ciphertext').length);
      eqHex('fresh round trip', api.decryptAesGcmPadded(h(i, 'key'), fresh, h(i, 'aad')), str(i, 'plaintext'));
      return;
    }
    case 'chunked': {
      const pt = api.decryptAesGcmChunked(h(i, 'key'), h(e, 'ciphertext'), h(i, 'aad'));
      eqHex('plaintext', pt, str(i, 'plaintext'));
      const fresh = api.encryptAesGcmChunked(h(i, 'key'), h(i, 'plaintext'), h(i, 'aad'), num(i, 'chunkSize'));
      eq('fresh ciphertext length', fresh.length, h(e, 'ciphertext').length);
      eqHex('fresh header', fresh.subarray(0, 8), toHex(h(e, 'ciphertext').subarray(0, 8)));
      return;
    }
    case 'srk':
      eqHex('srk', api.deriveSrk(h(i, 'dek'), h(i, 'chatId')), str(e, 'srk'));
      return;
    case 'windowKey':
      eqHex('windowKey', api.deriveWindowKey(h(i, 'srk'), num(i, 'windowIndex')), str(e, 'windowKey'));
      return;
    case 'ratchet': {
      const alicePub = api.x25519PublicKey(h(i, 'aliceRatchetSecret'));
      const bobPub = api.x25519PublicKey(h(i, 'bobRatchetSecret'));
      eqHex('alice public', alicePub, str(e, 'aliceRatchetPublic'));
      const a = api.ratchetSrk(h(i, 'currentSrk'), h(i, 'aliceRatchetSecret'), bobPub, h(i, 'chatId'), num(i, 'ratchetStep'), true);
      const b = api.ratchetSrk(h(i, 'currentSrk'), h(i, 'bobRatchetSecret'), alicePub, h(i, 'chatId'), num(i, 'ratchetStep'), false);
      eqHex('alice newSrk', a, str(e, 'newSrk'));
      eqHex('bob newSrk', b, str(e, 'newSrk'));
      return;
    }
    case 'shouldRatchet':
      eq(
        'shouldRatchet',
        api.shouldRatchet(num(i, 'messageCount'), i.windowChanged as boolean, num(i, 'messagesPerRatchet'), i.ratchetOnNewWindow as boolean),
        e.result,
      );
      return;
    case 'transcript': {
      let chain = api.transcriptNew(h(i, 'sessionId'));
      eqHex('h0', chain, str(e, 'h0'));
      (i.messages as Obj[]).forEach((m, k) => {
        const mh = api.transcriptComputeMessageHash(h(m, 'messageId'), h(m, 'senderId'), num(m, 'timestamp'), h(m, 'ciphertext'));
        eqHex(`message hash ${k}`, mh, (e.messageHashes as string[])[k] ?? '');
        chain = api.transcriptUpdate(chain, mh);
        eqHex(`chain ${k}`, chain, (e.chain as string[])[k] ?? '');
      });
      if (!api.transcriptVerifySync(chain, fromHex((e.chain as string[]).at(-1) ?? ''))) throw new Error('verifySync');
      return;
    }
    case 'sealed': {
      const u = api.unsealMessage(h(e, 'packet'), h(i, 'recipientX25519Secret'), h(e, 'senderIdentityPublic'));
      eqHex('senderId', u.senderId, str(i, 'senderId'));
      eqHex('content', u.content, str(i, 'content'));
      const [sk] = api.ed25519KeypairFromSeed(h(i, 'senderSigningSeed'));
      const fresh = api.sealMessage(h(e, 'recipientX25519Public'), h(i, 'senderId'), h(i, 'content'), sk);
      eq('fresh packet length', fresh.length, h(e, 'packet').length);
      return;
    }
    case 'verificationCode': {
      const a = identityOf(api, i.a as Obj);
      const b = identityOf(api, i.b as Obj);
      eqHex('identityA', a, str(e, 'identityA'));
      eqHex('identityB', b, str(e, 'identityB'));
      const c = api.generateVerificationCode(a, b, h(i, 'conversationId'));
      eq('code', c, { numeric: e.numeric, fingerprint: e.fingerprint });
      eq('symmetric', api.generateVerificationCode(b, a, h(i, 'conversationId')), c);
      eq('from the keys', api.generateVerificationCode(keysOf(i.a as Obj), keysOf(i.b as Obj), h(i, 'conversationId')), c);
      return;
    }
    case 'sas': {
      // No pure SAS function is exported (nonces live inside SasVerification):
      // re-derived from docs/PROTOCOL.md §8 with the SHA-256 primitive.
      const init = identityOf(api, i.initiator as Obj);
      const resp = identityOf(api, i.responder as Obj);
      eqHex('initiator identity', init, str(e, 'initiatorIdentity'));
      eqHex('responder identity', resp, str(e, 'responderIdentity'));
      const tx = h(i, 'txId');
      const c = api.sha256(concat(utf8('veilkit-sas-commit-v1'), lp32(tx), lp32(resp), h(i, 'responderNonce')));
      eqHex('commitment', c, str(e, 'commitment'));
      const sas = api.sha256(concat(utf8('veilkit-sas-v1'), lp32(tx), lp32(init), lp32(resp), h(i, 'initiatorNonce'), h(i, 'responderNonce')));
      eqHex('sas', sas, str(e, 'sas'));
      eq('emoji', sasEmoji(sas), e.emoji);
      return;
    }
    case 'keyLog': {
      const entries: import('../../ts/index.js').KeyLogEntry[] = [];
      for (const op of i.ops as Obj[]) {
        const [newSk, pk] = api.ed25519KeypairFromSeed(h(op, 'publicKeySeed'));
        const [sk] = api.ed25519KeypairFromSeed(h(op, 'signingSeed'));
        const last = entries.at(-1);
        const prev = last === undefined ? api.KEY_LOG_GENESIS_HASH : api.keyLogEntryHash(last);
        const action = str(op, 'action') as 'add' | 'update' | 'revoke';
        entries.push(api.keyLogCreateEntry(h(op, 'userId'), pk, num(op, 'timestamp'), prev, action, sk, action === 'update' ? newSk : undefined));
      }
      eq('json', api.keyLogToJson(entries), str(e, 'json'));
      eq('hashes', entries.map((x) => toHex(api.keyLogEntryHash(x))), e.entryHashes);
      eq('verify', api.keyLogVerifyChain(entries), { valid: true });
      eq('verify (json)', api.keyLogVerifyChain(str(e, 'json')), { valid: true });
      eq('round trip', api.keyLogToJson(api.keyLogFromJson(str(e, 'json'))), str(e, 'json'));
      (i.queries as Obj[]).forEach((q, k) => {
        const at = q.atTime === null ? undefined : (q.atTime as number);
        const key = api.keyLogCurrentKey(entries, h(q, 'userId'), at);
        eq(`current key ${k}`, key === null ? null : toHex(key), (e.currentKeys as (string | null)[])[k]);
      });
      return;
    }
    case 'registry': {
      const [sk, pk] = api.ed25519KeypairFromSeed(h(i, 'accountSeed'));
      eqHex('account key', pk, str(e, 'accountPublicKey'));
      let json = api.registryEmpty(pk);
      for (const op of i.ops as Obj[]) {
        json =
          op.op === 'add'
            ? api.registryAddDevice(json, str(op, 'deviceId'), str(op, 'name'), num(op, 'at'), h(op, 'devicePublicKey'), sk)
            : api.registryRevokeDevice(json, str(op, 'deviceId'), num(op, 'at'), sk);
      }
      eq('json', json, str(e, 'json'));
      eq('active', api.registryListActive(json, pk).map((d) => d.deviceId), e.activeDeviceIds);
      eq('verify', api.registryVerify(json, pk), { valid: true });
      return;
    }
    case 'replayStore': {
      const store = new api.ReplayStore({ windowSeconds: num(i, 'windowSeconds'), maxEntries: num(i, 'maxEntries') });
      try {
        const results = (i.inserts as Obj[]).map((op) => {
          try {
            store.insert(h(op, 'hash'), num(op, 'timestamp'), num(op, 'now'));
            return 'OK';
          } catch (err) {
            return err instanceof api.VeilError ? err.code : String(err);
          }
        });
        eq('results', results, e.results);
        eq('json', store.toJson(), str(e, 'json'));
        const loaded = api.ReplayStore.fromJson(store.toJson());
        eq('round trip', loaded.toJson(), str(e, 'json'));
        loaded.free();
      } finally {
        store.free();
      }
      return;
    }
  }
}

export async function runKats(api: VeilkitApi, load: Loader): Promise<KatReport[]> {
  const doc = JSON.parse(await load(MESSAGING_KAT_PATH)) as { families: Record<string, { input: Obj; expected: Obj }[]> };
  const reports: KatReport[] = [];
  for (const family of Object.keys(KAT_FAMILIES) as KatFamily[]) {
    const cases = doc.families[family] ?? [];
    const report: KatReport = { family, checked: 0, expected: KAT_FAMILIES[family], failures: [] };
    if (cases.length !== report.expected) report.failures.push(`${cases.length} cases in the file, expected ${report.expected}`);
    cases.forEach((c, k) => {
      try {
        checkKat(api, family, c.input, c.expected);
      } catch (e) {
        report.failures.push(`${family}[${k}]: ${e instanceof Error ? e.message : String(e)}`);
      }
      report.checked++;
    });
    reports.push(report);
  }
  return reports;
}

// ---------------------------------------------------------------------------
// The seed's "Full E2EE Flow Example", with veilkit's names and decisions.

export async function runFlow(api: VeilkitApi): Promise<CheckResult> {
  const name = 'seed full E2EE flow';
  try {
    const {
      generateEd25519Keypair, generateX25519Keypair, mlKemKeygen,
      authenticatedKemEncapsulate, authenticatedKemDecapsulate,
      deriveSrk, deriveWindowKey,
      transcriptNew, transcriptComputeMessageHash, transcriptUpdate, transcriptVerifySync,
      encryptAesGcm, decryptAesGcm, sealMessage, unsealMessage,
    } = api;

    // 1. Participant identity key pairs.
    const [aliceIdSk, aliceIdPk] = generateEd25519Keypair();
    const [, aliceX25519Pk] = generateX25519Keypair();
    const [, aliceMlkemEncaps] = mlKemKeygen(); // [decaps, encaps]
    const [, bobIdPk] = generateEd25519Keypair();
    const [bobX25519Sk, bobX25519Pk] = generateX25519Keypair();
    const [bobMlkemDecaps, bobMlkemEncaps] = mlKemKeygen();

    // 2. Hybrid handshake.
    const conversationId = utf8('conv-alice-bob-001');
    const [aliceEphSk, aliceEphPk] = generateX25519Keypair();
    const [authCiphertext, aliceSharedSecret] = authenticatedKemEncapsulate(aliceEphSk, bobX25519Pk, bobMlkemEncaps, aliceIdSk);
    const bobSharedSecret = authenticatedKemDecapsulate(bobX25519Sk, aliceEphPk, bobMlkemDecaps, authCiphertext, aliceIdPk);
    eqHex('shared secrets agree', bobSharedSecret, toHex(aliceSharedSecret));

    // 3. Key derivation (SRK and window keys).
    const aliceSrk = deriveSrk(aliceSharedSecret, conversationId);
    const bobSrk = deriveSrk(bobSharedSecret, conversationId);
    const windowIndex = Math.floor(Date.now() / 1000 / 3600);
    const aliceWindowKey = deriveWindowKey(aliceSrk, windowIndex);
    const bobWindowKey = deriveWindowKey(bobSrk, windowIndex);

    // 4. Transcripts.
    let aliceChain = transcriptNew(conversationId);
    let bobChain = transcriptNew(conversationId);

    // 5. Alice encrypts and seals (sealMessage takes her signing key).
    const messageId = utf8('msg-001');
    const senderId = utf8('alice@example.com');
    const timestamp = Math.floor(Date.now() / 1000);
    const aad = concat(messageId, senderId, utf8(timestamp.toString()));
    const plaintext = utf8('Hello Bob');
    const ciphertext = encryptAesGcm(aliceWindowKey, plaintext, aad);
    const sealed = sealMessage(bobX25519Pk, senderId, ciphertext, aliceIdSk);
    const msgHash = transcriptComputeMessageHash(messageId, senderId, timestamp, ciphertext);
    aliceChain = transcriptUpdate(aliceChain, msgHash);

    // 6. Bob unseals (verifying Alice's signature, key looked up by sender id) and decrypts.
    const directory = new Map([[text(senderId), aliceIdPk]]);
    const { senderId: revealedSender, content: revealedCiphertext } = await unsealMessage(sealed, bobX25519Sk, (id) => {
      const key = directory.get(text(id));
      if (key === undefined) throw new Error('unknown sender');
      return key;
    });
    const sync = unsealMessage(sealed, bobX25519Sk, aliceIdPk);
    eqHex('sync and async unseal agree', sync.content, toHex(revealedCiphertext));
    const decrypted = decryptAesGcm(bobWindowKey, revealedCiphertext, aad);
    bobChain = transcriptUpdate(bobChain, transcriptComputeMessageHash(messageId, revealedSender, timestamp, revealedCiphertext));

    // 7. Integrity and equivalence.
    eq('decrypted', text(decrypted), 'Hello Bob');
    eq('revealed sender', text(revealedSender), 'alice@example.com');
    eq('transcripts in sync', transcriptVerifySync(aliceChain, bobChain), true);
    eq('unused keys have their sizes', [aliceX25519Pk.length, aliceMlkemEncaps.length, bobIdPk.length], [32, 1184, 32]);
    return { name, ok: true, message: '' };
  } catch (e) {
    return { name, ok: false, message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

// ---------------------------------------------------------------------------
// Adversarial cases through the TS API.

type Case = [name: string, run: () => void | Promise<void>];

function adversarialCases(api: VeilkitApi): Case[] {
  const [aliceIdSk, aliceIdPk] = api.ed25519KeypairFromSeed(new Uint8Array(32).fill(1));
  const [eveIdSk, eveIdPk] = api.ed25519KeypairFromSeed(new Uint8Array(32).fill(2));
  const [bobSk, bobPk] = api.generateX25519Keypair();
  const [carolSk] = api.generateX25519Keypair();
  const key = new Uint8Array(32).fill(9);

  return [
    ['sealed: bit flips across the packet fail opaquely', () => {
      const packet = api.sealMessage(bobPk, utf8('alice'), utf8('hi'), aliceIdSk);
      for (let byte = 0; byte < packet.length; byte += 7) {
        const p = packet.slice();
        p[byte] = (p[byte] ?? 0) ^ (1 << byte % 8);
        expectVeil(api, thrown(() => api.unsealMessage(p, bobSk, aliceIdPk)), 'AUTHENTICATION_FAILED');
      }
    }],
    ['sealed: another recipient or another sender key fails', async () => {
      const packet = api.sealMessage(bobPk, utf8('alice'), utf8('hi'), aliceIdSk);
      expectVeil(api, thrown(() => api.unsealMessage(packet, carolSk, aliceIdPk)), 'AUTHENTICATION_FAILED');
      expectVeil(api, thrown(() => api.unsealMessage(packet, bobSk, eveIdPk)), 'AUTHENTICATION_FAILED');
      expectVeil(api, await rejected(api.unsealMessage(packet, bobSk, () => Promise.resolve(eveIdPk))), 'AUTHENTICATION_FAILED');
    }],
    ['authenticated KEM: signature replaced, stripped or X25519 key swapped fails', () => {
      const [dk, ek] = api.mlKemKeygen();
      const [ephSk, ephPk] = api.generateX25519Keypair();
      const [ct] = api.authenticatedKemEncapsulate(ephSk, bobPk, ek, aliceIdSk);
      const signed = concat(utf8('veilkit-akem-v1'), ephPk, bobPk, ct.subarray(2, 1090));
      const forged = ct.slice();
      forged.set(api.signMessage(eveIdSk, signed), 1090);
      expectVeil(api, thrown(() => api.authenticatedKemDecapsulate(bobSk, ephPk, dk, forged, aliceIdPk)), 'AUTHENTICATION_FAILED');
      const zeroed = ct.slice();
      zeroed.fill(0, 1090);
      expectVeil(api, thrown(() => api.authenticatedKemDecapsulate(bobSk, ephPk, dk, zeroed, aliceIdPk)), 'AUTHENTICATION_FAILED');
      // A short ciphertext came from the sender: INVALID_LENGTH (docs/PROTOCOL.md §2), not a RangeError (issue 34 item 4).
      expectVeil(api, thrown(() => api.authenticatedKemDecapsulate(bobSk, ephPk, dk, ct.subarray(0, 1090), aliceIdPk)), 'INVALID_LENGTH');
      const [, otherPk] = api.generateX25519Keypair();
      expectVeil(api, thrown(() => api.authenticatedKemDecapsulate(bobSk, otherPk, dk, ct, aliceIdPk)), 'AUTHENTICATION_FAILED');
    }],
    ['chunked: reordered, dropped, duplicated, truncated chunks fail', () => {
      const ct = api.encryptAesGcmChunked(key, new Uint8Array(40).fill(5), utf8('file-1'), 16);
      const chunk = (k: number): Uint8Array => ct.subarray(8 + 44 * k, Math.min(8 + 44 * (k + 1), ct.length));
      const header = ct.subarray(0, 8);
      const withCount = (n: number): Uint8Array => {
        const hdr = header.slice();
        new DataView(hdr.buffer).setUint32(4, n);
        return hdr;
      };
      const dec = (c: Uint8Array): unknown => thrown(() => api.decryptAesGcmChunked(key, c, utf8('file-1')));
      expectVeil(api, dec(concat(header, chunk(1), chunk(0), chunk(2))), 'AUTHENTICATION_FAILED');
      expectVeil(api, dec(concat(header, chunk(0), chunk(2))), 'MALFORMED_INPUT');
      expectVeil(api, dec(concat(withCount(2), chunk(0), chunk(2))), 'AUTHENTICATION_FAILED');
      expectVeil(api, dec(concat(header, chunk(0), chunk(0), chunk(2))), 'AUTHENTICATION_FAILED');
      expectVeil(api, dec(concat(withCount(2), chunk(0), chunk(1))), 'AUTHENTICATION_FAILED');
      // One byte short: the header still parses, the last chunk's tag fails.
      expectVeil(api, dec(ct.subarray(0, ct.length - 1)), 'AUTHENTICATION_FAILED');
      expectVeil(api, dec(ct.subarray(0, ct.length - 44)), 'MALFORMED_INPUT');
    }],
    ['padding: a length field beyond P is refused', () => {
      const p = api.padMessage(utf8('hello'));
      new DataView(p.buffer, p.byteOffset).setUint32(0, 100);
      expectVeil(api, thrown(() => api.unpadMessage(p)), 'INVALID_PADDING');
    }],
    ['key log: reordered, wrong signer, appended after revoke', () => {
      const e0 = api.keyLogCreateEntry(utf8('alice'), aliceIdPk, 1, api.KEY_LOG_GENESIS_HASH, 'add', aliceIdSk);
      const e1 = api.keyLogCreateEntry(utf8('alice'), aliceIdPk, 2, api.keyLogEntryHash(e0), 'revoke', aliceIdSk);
      const e2 = api.keyLogCreateEntry(utf8('alice'), eveIdPk, 3, api.keyLogEntryHash(e1), 'update', aliceIdSk, eveIdSk);
      eq('after revoke', api.keyLogVerifyChain([e0, e1, e2]), { valid: false, index: 2, reason: 'AFTER_REVOKE' });
      eq('reordered', api.keyLogVerifyChain([e1, e0]), { valid: false, index: 0, reason: 'BAD_PREV_HASH' });
      const wrong = api.keyLogCreateEntry(utf8('alice'), eveIdPk, 2, api.keyLogEntryHash(e0), 'update', eveIdSk, eveIdSk);
      eq('wrong signer', api.keyLogVerifyChain([e0, wrong]), { valid: false, index: 1, reason: 'BAD_SIGNATURE' });
      const invalid = thrown(() => api.keyLogCurrentKey([e0, wrong], utf8('alice')));
      expectVeil(api, invalid, 'KEY_LOG_INVALID');
      // The failing entry and the reason arrive as the error's details (docs/PROTOCOL.md §9).
      eq('details', (invalid as InstanceType<typeof api.VeilError>).details, { index: 1, reason: 'BAD_SIGNATURE' });
      expectVeil(api, thrown(() => api.keyLogCreateEntry(utf8('eve'), aliceIdPk, 1, api.KEY_LOG_GENESIS_HASH, 'add', eveIdSk)), 'INVALID_KEY');
    }],
    ['key log (issue 13): Mallory cannot update her entry to Alice\'s key, nor bind an unproven key', () => {
      const [malSk, malPk] = api.ed25519KeypairFromSeed(new Uint8Array(32).fill(3));
      const [nextSk, nextPk] = api.ed25519KeypairFromSeed(new Uint8Array(32).fill(4));
      const e0 = api.keyLogCreateEntry(utf8('alice'), aliceIdPk, 1, api.KEY_LOG_GENESIS_HASH, 'add', aliceIdSk);
      const e1 = api.keyLogCreateEntry(utf8('mallory'), malPk, 2, api.keyLogEntryHash(e0), 'add', malSk);
      // Without Alice's secret there is no proof of possession to make.
      expectVeil(api, thrown(() => api.keyLogCreateEntry(utf8('mallory'), aliceIdPk, 3, api.keyLogEntryHash(e1), 'update', malSk, malSk)), 'INVALID_KEY');
      expectArgError(thrown(() => api.keyLogCreateEntry(utf8('mallory'), nextPk, 3, api.keyLogEntryHash(e1), 'update', malSk)), TypeError, 'newKeySigningKey');
      // An honest update, then its key swapped for Alice's in the JSON (Mallory's signature re-made is not needed to see the refusal).
      const honest = api.keyLogCreateEntry(utf8('mallory'), nextPk, 3, api.keyLogEntryHash(e1), 'update', malSk, nextSk);
      eq('honest', api.keyLogVerifyChain([e0, e1, honest]), { valid: true });
      const stolen = { ...honest, publicKey: aliceIdPk };
      eq('Alice\'s key', api.keyLogVerifyChain([e0, e1, stolen]), { valid: false, index: 2, reason: 'KEY_OF_ANOTHER_USER' });
      expectVeil(api, thrown(() => api.keyLogCurrentKey([e0, e1, stolen], utf8('mallory'))), 'KEY_LOG_INVALID');
      // Mallory's own valid signature over an update to a key she does not hold: the proof fails.
      const [, otherPk] = api.ed25519KeypairFromSeed(new Uint8Array(32).fill(5));
      const forged = api.keyLogCreateEntry(utf8('mallory'), nextPk, 3, api.keyLogEntryHash(e1), 'update', malSk, nextSk);
      const body = concat(utf8('veilkit-keylog-v2'), new Uint8Array([2, 0, 7]), utf8('mallory'), otherPk, new Uint8Array([0, 0, 0, 0, 0, 0, 0, 3]), api.keyLogEntryHash(e1));
      const unproven = { ...forged, publicKey: otherPk, signature: api.signMessage(malSk, body) };
      eq('unproven key', api.keyLogVerifyChain([e0, e1, unproven]), { valid: false, index: 2, reason: 'BAD_KEY_SIGNATURE' });
      // Alice's key for a second user, properly proven by Alice: still refused.
      const twice = api.keyLogCreateEntry(utf8('alice-2'), aliceIdPk, 3, api.keyLogEntryHash(e1), 'add', aliceIdSk);
      eq('second user', api.keyLogVerifyChain([e0, e1, twice]), { valid: false, index: 2, reason: 'KEY_OF_ANOTHER_USER' });
      // v1 entries (no version) are refused with a typed reason.
      const v1 = JSON.parse(api.keyLogToJson([e0])) as Record<string, unknown>[];
      delete v1[0]?.version;
      eq('v1', api.keyLogVerifyChain(JSON.stringify(v1)), { valid: false, index: 0, reason: 'UNSUPPORTED_VERSION' });
      expectVeil(api, thrown(() => api.keyLogFromJson(JSON.stringify(v1))), 'UNSUPPORTED_VERSION');
    }],
    ['transcript (issue 13): transcriptNew(chain ‖ h) is not transcriptUpdate(chain, h)', () => {
      const chain = api.transcriptNew(utf8('session'));
      const mh = api.transcriptComputeMessageHash(utf8('1'), utf8('alice'), 1, utf8('ct'));
      const asNew = api.transcriptNew(concat(chain, mh));
      const asUpdate = api.transcriptUpdate(chain, mh);
      eq('differ', api.transcriptVerifySync(asNew, asUpdate), false);
      eqHex('labelled update', asUpdate, toHex(api.sha256(concat(utf8('veilkit-transcript-v2/update'), chain, mh))));
      eqHex('labelled new', asNew, toHex(api.sha256(concat(utf8('veilkit-transcript-v2/new'), lp32(concat(chain, mh))))));
    }],
    ['verification code (issue 13): every component key is in it, ≈ 200 bits shown, no short form', () => {
      const ml = new Uint8Array(1952).fill(7);
      const alice = { ed25519: aliceIdPk, x25519: bobPk, mlDsa65: ml };
      const bob = { ed25519: eveIdPk, x25519: api.x25519PublicKey(carolSk) };
      const conv = utf8('conv');
      const base = api.generateVerificationCode(alice, bob, conv);
      eq('fields', Object.keys(base).sort(), ['fingerprint', 'numeric']);
      if (!/^(\d{5} ){11}\d{5}$/.test(base.numeric)) throw new Error(`numeric form: ${base.numeric}`);
      if (!/^[0-9a-f]{64}$/.test(base.fingerprint)) throw new Error(`fingerprint: ${base.fingerprint}`);
      if (60 * Math.log2(10) < 199) throw new Error('fewer than 199 bits');
      const flip = (b: Uint8Array, i: number): Uint8Array => {
        const c = b.slice();
        c[i] = (c[i] ?? 0) ^ 1;
        return c;
      };
      const variants = [
        { ...alice, ed25519: flip(alice.ed25519, 0) },
        { ...alice, x25519: flip(alice.x25519, 31) },
        { ...alice, mlDsa65: flip(ml, 1000) },
        { ...alice, mlDsa65: null },
      ];
      for (const v of variants) {
        const c = api.generateVerificationCode(v, bob, conv);
        if (c.numeric === base.numeric || c.fingerprint === base.fingerprint) throw new Error('a changed key kept the code');
      }
      const bad = api.encodeVerificationIdentity(bob);
      bad[0] = 2;
      expectVeil(api, thrown(() => api.generateVerificationCode(bad, alice, conv)), 'MALFORMED_INPUT');
      // An encoding of the wrong length is the peer's (docs/PROTOCOL.md §8): INVALID_LENGTH; an empty one MALFORMED_INPUT.
      expectVeil(api, thrown(() => api.generateVerificationCode(new Uint8Array(32), alice, conv)), 'INVALID_LENGTH');
      expectVeil(api, thrown(() => api.generateVerificationCode(new Uint8Array(0), alice, conv)), 'MALFORMED_INPUT');
    }],
    ['SAS (issue 13): commit-then-reveal agrees; changed nonce or identity, reuse, order and attempts are enforced', () => {
      const alice = { ed25519: aliceIdPk, x25519: bobPk };
      const bob = { ed25519: eveIdPk, x25519: api.x25519PublicKey(carolSk) };
      const init = new api.SasVerification({ role: 'initiator', ownIdentity: alice, peerIdentity: bob, maxAttempts: 3 });
      const resp = new api.SasVerification({ role: 'responder', ownIdentity: bob, peerIdentity: alice, maxAttempts: 3 });
      const other = new api.SasVerification({ role: 'responder', ownIdentity: bob, peerIdentity: alice });
      const mitm = new api.SasVerification({ role: 'responder', ownIdentity: { ed25519: aliceIdPk, x25519: bobPk }, peerIdentity: alice });
      try {
        // Out of order: the initiator's nonce is not released before the commitment.
        expectVeil(api, thrown(() => init.receiveNonce(new Uint8Array(32))), 'INVALID_STATE');
        eq('initiator start', init.start(utf8('tx-1')), null);
        expectVeil(api, thrown(() => init.receiveNonce(new Uint8Array(32))), 'INVALID_STATE');
        expectVeil(api, thrown(() => init.emoji()), 'INVALID_STATE');
        // Honest exchange.
        const c = resp.start(utf8('tx-1'));
        if (c === null) throw new Error('no commitment');
        const ni = init.receiveCommitment(c);
        const nr = resp.receiveNonce(ni);
        if (nr === null) throw new Error('no responder nonce');
        eq('initiator reveal', init.receiveNonce(nr), null);
        eq('same emoji', init.emoji(), resp.emoji());
        eq('emoji from the spec', init.emoji(), sasEmoji(api.sha256(concat(utf8('veilkit-sas-v1'), lp32(utf8('tx-1')), lp32(api.encodeVerificationIdentity(alice)), lp32(api.encodeVerificationIdentity(bob)), ni, nr))));
        init.reject();
        resp.reject();
        // A responder changing its nonce after the commitment.
        init.start(utf8('tx-2'));
        const c2 = resp.start(utf8('tx-2'));
        if (c2 === null) throw new Error('no commitment');
        const ni2 = init.receiveCommitment(c2);
        other.start(utf8('tx-2'));
        const changed = other.receiveNonce(ni2);
        if (changed === null) throw new Error('no nonce');
        expectVeil(api, thrown(() => init.receiveNonce(changed)), 'SAS_COMMITMENT_MISMATCH');
        eq('failures', init.failures, 2);
        // A responder that committed under another identity (the substituting MITM).
        init.start(utf8('tx-3'));
        const c3 = mitm.start(utf8('tx-3'));
        if (c3 === null) throw new Error('no commitment');
        const ni3 = init.receiveCommitment(c3);
        const nm = mitm.receiveNonce(ni3);
        if (nm === null) throw new Error('no nonce');
        expectVeil(api, thrown(() => init.receiveNonce(nm)), 'SAS_COMMITMENT_MISMATCH');
        // Three failed attempts: refused for good.
        eq('exhausted', [init.state, init.attemptsLeft], ['exhausted', 0]);
        expectVeil(api, thrown(() => init.start(utf8('tx-4'))), 'SAS_ATTEMPTS_EXHAUSTED');
        // Replays: the responder refuses the initiator nonce of attempt 1; the initiator its own reflected nonce.
        resp.abort();
        resp.start(utf8('tx-5'));
        expectVeil(api, thrown(() => resp.receiveNonce(ni)), 'SAS_NONCE_REUSED');
        const fresh = new api.SasVerification({ role: 'initiator', ownIdentity: alice, peerIdentity: bob });
        try {
          fresh.start(utf8('tx-6'));
          other.abort();
          const c6 = other.start(utf8('tx-6')) ?? new Uint8Array(32);
          const n6 = fresh.receiveCommitment(c6);
          expectVeil(api, thrown(() => fresh.receiveNonce(n6)), 'SAS_NONCE_REUSED');
          expectVeil(api, thrown(() => fresh.receiveCommitment(c6)), 'INVALID_STATE');
        } finally {
          fresh.free();
        }
        expectArgError(thrown(() => resp.start(new Uint8Array(0))), RangeError, 'txId');
        expectArgError(thrown(() => new api.SasVerification({ role: 'initiator', ownIdentity: alice, peerIdentity: bob, maxAttempts: 11 })), RangeError, 'maxAttempts');
      } finally {
        init.free();
        resp.free();
        other.free();
        mitm.free();
      }
      expectVeil(api, thrown(() => init.start(utf8('x'))), 'INVALID_STATE');
    }],
    ['registry: a change signed by a device key is refused', () => {
      let json = api.registryEmpty(aliceIdPk);
      json = api.registryAddDevice(json, 'laptop', 'Laptop', 1, eveIdPk, aliceIdSk);
      // The device (Eve's key) tries to add a device itself.
      expectVeil(api, thrown(() => api.registryAddDevice(json, 'rogue', 'Rogue', 2, bobPk, eveIdSk)), 'REGISTRY_INVALID');
      // A server forges a change with the device's signature.
      const forged = JSON.parse(api.registryAddDevice(json, 'rogue', 'Rogue', 2, bobPk, aliceIdSk)) as { changes: { signature: string }[] };
      const other = JSON.parse(api.registryAddDevice(json, 'rogue', 'Rogue', 2, bobPk, aliceIdSk)) as { changes: { signature: string }[] };
      eq('deterministic signatures', forged.changes[1]?.signature, other.changes[1]?.signature);
      const devSigned = JSON.parse(api.registryAddDevice(api.registryEmpty(eveIdPk), 'x', 'x', 0, bobPk, eveIdSk)) as { changes: { signature: string }[] };
      (forged.changes[1] as { signature: string }).signature = devSigned.changes[0]?.signature ?? '';
      eq('verify', api.registryVerify(JSON.stringify(forged), aliceIdPk), { valid: false, index: 1, reason: 'BAD_SIGNATURE' });
      eq('pinned key', api.registryVerify(json, eveIdPk), { valid: false, index: null, reason: 'ACCOUNT_KEY_MISMATCH' });
      expectVeil(api, thrown(() => api.registryListActive(JSON.stringify(forged), aliceIdPk)), 'REGISTRY_INVALID');
    }],
    ['replay store: a stored hash is refused, also after a JSON round trip', () => {
      const store = new api.ReplayStore({ windowSeconds: 3600, maxEntries: 100 });
      const hash = api.sha256(utf8('msg-001'));
      store.insert(hash, 1000, 1000);
      expectVeil(api, thrown(() => store.insert(hash, 1000, 1001)), 'REPLAY_DETECTED');
      const loaded = api.ReplayStore.fromJson(store.toJson());
      expectVeil(api, thrown(() => loaded.insert(hash, 1000, 1002)), 'REPLAY_DETECTED');
      expectVeil(api, thrown(() => loaded.insert(api.sha256(utf8('old')), 1, 10_000)), 'REPLAY_OUT_OF_WINDOW');
      eq('has', loaded.has(hash), true);
      store.dispose();
      loaded.free(); // the deprecated alias
      // Use after release is INVALID_STATE on every object (issue 15; it was INTERNAL here).
      expectVeil(api, thrown(() => store.has(hash)), 'INVALID_STATE');
      expectVeil(api, thrown(() => loaded.has(hash)), 'INVALID_STATE');
    }],
    ['argument errors name the argument, before wasm', () => {
      expectArgError(thrown(() => api.deriveSrk(new Uint8Array(31), utf8('c'))), RangeError, 'dek');
      expectArgError(thrown(() => api.deriveSrk(new Uint8Array(32), new Uint8Array(0))), RangeError, 'chatId');
      expectArgError(thrown(() => api.deriveWindowKey(new Uint8Array(32), -1)), RangeError, 'windowIndex');
      expectArgError(thrown(() => api.deriveWindowKey(new Uint8Array(32), 1.5)), TypeError, 'windowIndex');
      expectArgError(thrown(() => api.sealMessage(bobPk, new Uint8Array(0), utf8('x'), aliceIdSk)), RangeError, 'senderId');
      expectArgError(thrown(() => api.encryptAesGcmChunked(key, utf8('x'), null, 0)), RangeError, 'chunkSize');
      expectArgError(thrown(() => api.hybridKemEncapsulate('nope' as unknown as Uint8Array, bobPk, new Uint8Array(1184))), TypeError, 'x25519OurSecret');
      expectArgError(thrown(() => api.shouldRatchet(1, 'yes' as unknown as boolean, 1, true)), TypeError, 'windowChanged');
      // A packet is the sender's bytes: a short one is INVALID_LENGTH (docs/PROTOCOL.md §7), not an argument error.
      expectVeil(api, thrown(() => api.unsealMessage(new Uint8Array(10), bobSk, aliceIdPk)), 'INVALID_LENGTH');
      expectArgError(thrown(() => api.registryAddDevice('{}', '', 'n', 1, bobPk, aliceIdSk)), RangeError, 'deviceId');
    }],
    ['every messaging error code is a known VeilError code', () => {
      for (const code of ['MALFORMED_INPUT', 'INVALID_PADDING', 'KEY_LOG_INVALID', 'REGISTRY_INVALID', 'REPLAY_DETECTED', 'REPLAY_OUT_OF_WINDOW', 'AUTHENTICATION_FAILED', 'INVALID_STATE', 'UNSUPPORTED_VERSION', 'SAS_COMMITMENT_MISMATCH', 'SAS_NONCE_REUSED', 'SAS_ATTEMPTS_EXHAUSTED']) {
        if (!(api.VEIL_ERROR_CODES as readonly string[]).includes(code)) throw new Error(`${code} missing from VEIL_ERROR_CODES`);
      }
    }],
  ];
}

export async function runAdversarial(api: VeilkitApi): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const [name, run] of adversarialCases(api)) {
    try {
      await run();
      results.push({ name, ok: true, message: '' });
    } catch (e) {
      results.push({ name, ok: false, message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  }
  return results;
}

/** Number of adversarial cases (for the runners' completeness checks). */
export const ADVERSARIAL_CASE_COUNT = 14;

export async function runMessagingSuite(api: VeilkitApi, load: Loader): Promise<MessagingReport> {
  return { kat: await runKats(api, load), flow: await runFlow(api), adversarial: await runAdversarial(api) };
}
