/**
 * What a delivery service reads of an MLS message (RFC 9420 §6, docs/GROUPS.md "What the delivery
 * service does and sees"): the group id, epoch and content type of a handshake or application
 * message (to order commits and fan messages out), the key package references a welcome is for (to
 * deliver it), and a key package's reference (to store it under). Plain TypeScript, no wasm and no
 * keys: it runs in a server (Node ≥ 20, any runtime with WebCrypto). It reads the public header only;
 * everything else is the members' to check. Any input it cannot read is `MALFORMED_INPUT`.
 */
import { VeilError } from '../../protocol/errors.js';
import { bytesToHex, concatBytes } from '../bytes.js';

/** What {@link inspectGroupMessage} read. */
export type GroupWireInfo =
  | {
    /** `PublicMessage` (a handshake message in the clear) or `PrivateMessage` (encrypted). */
    readonly wireFormat: 'public-message' | 'private-message';
    /** Hex of the group id. */
    readonly groupId: string;
    readonly epoch: number;
    readonly contentType: 'application' | 'proposal' | 'commit';
  }
  | {
    readonly wireFormat: 'welcome';
    readonly cipherSuite: number;
    /** Hex of the `KeyPackageRef` of each key package the welcome adds (deliver it to their owners). */
    readonly newMembers: readonly string[];
  }
  | {
    readonly wireFormat: 'key-package';
    readonly cipherSuite: number;
    /** Hex of its `KeyPackageRef` (RFC 9420 §5.2), what a welcome names it by; for the SHA-256 suites (0x0001-0x0003, 0x004D). */
    readonly ref?: string;
    /**
     * The identity id (hex, docs/SESSIONS.md §2.1) its credential *claims*, when the credential has veilkit's
     * certified form (`0x01 ‖ Enc(ID) ‖ certificate`, docs/GROUPS.md): to pick a user's registered devices
     * before adding (docs/DEVICES.md §7). Not verified here: `Group.add` verifies the certificate and refuses
     * a key package whose credential its identity did not certify.
     */
    readonly identityId?: string;
  }
  | { readonly wireFormat: 'group-info'; readonly cipherSuite: number };

const WIRE_FORMATS = { 1: 'public-message', 2: 'private-message', 3: 'welcome', 4: 'group-info', 5: 'key-package' } as const;
const CONTENT_TYPES = { 1: 'application', 2: 'proposal', 3: 'commit' } as const;
/** Suites whose hash is SHA-256 (RFC 9420 §17.1 and X-Wing's 0x004D). */
const SHA256_SUITES: ReadonlySet<number> = new Set([0x0001, 0x0002, 0x0003, 0x004d]);
/** Largest message read: 16 MiB. */
const MAX_MESSAGE = 16 * 1024 * 1024;

class Reader {
  at = 0;
  constructor(readonly b: Uint8Array) {}

  fail(what: string): VeilError {
    return new VeilError('MALFORMED_INPUT', `MLS message: ${what}`, { details: { index: this.at } });
  }

  need(n: number, what: string): void {
    if (this.b.length - this.at < n) throw this.fail(`it ends inside ${what}`);
  }

  u8(what: string): number {
    this.need(1, what);
    return this.b[this.at++] ?? 0;
  }

  u16(what: string): number {
    this.need(2, what);
    const v = ((this.b[this.at] ?? 0) << 8) | (this.b[this.at + 1] ?? 0);
    this.at += 2;
    return v;
  }

  u32(what: string): number {
    this.need(4, what);
    const v = new DataView(this.b.buffer, this.b.byteOffset + this.at, 4).getUint32(0);
    this.at += 4;
    return v;
  }

  u64(what: string): number {
    this.need(8, what);
    const v = new DataView(this.b.buffer, this.b.byteOffset + this.at, 8).getBigUint64(0);
    this.at += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw this.fail(`${what} is above 2^53 - 1`);
    return Number(v);
  }

  /** RFC 9420 §2.1.2 variable-size length: 1, 2 or 4 bytes, the shortest form only. */
  varint(what: string): number {
    const first = this.u8(what);
    const prefix = first >> 6;
    if (prefix === 0) return first & 0x3f;
    if (prefix === 1) {
      const v = ((first & 0x3f) << 8) | this.u8(what);
      if (v < 64) throw this.fail(`${what}: a length not in its shortest form`);
      return v;
    }
    if (prefix === 2) {
      this.need(3, what);
      const v = (((first & 0x3f) << 24) | ((this.b[this.at] ?? 0) << 16) | ((this.b[this.at + 1] ?? 0) << 8) | (this.b[this.at + 2] ?? 0)) >>> 0;
      this.at += 3;
      if (v < 16384) throw this.fail(`${what}: a length not in its shortest form`);
      return v;
    }
    throw this.fail(`${what}: an invalid length prefix`);
  }

  /** `opaque<V>`: a view (nothing is copied). */
  opaque(what: string): Uint8Array {
    const n = this.varint(what);
    this.need(n, what);
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
}

async function sha256(data: Uint8Array): Promise<Uint8Array> {
  const copy = new Uint8Array(data);
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', copy));
}

/** `opaque<V>` encoding of `v` (for RefHash's input). */
function vec(v: Uint8Array): Uint8Array {
  const n = v.length;
  const head = n < 64 ? Uint8Array.of(n) : n < 16384 ? Uint8Array.of(0x40 | (n >> 8), n & 0xff) : Uint8Array.of(0x80 | (n >>> 24), (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  const out = new Uint8Array(head.length + n);
  out.set(head);
  out.set(v, head.length);
  return out;
}

/** `Enc(ID)` (docs/SESSIONS.md §2.1) and veilkit's certified basic credential: 0x01 ‖ `Enc(ID)` ‖ Ed25519 certificate (docs/GROUPS.md). */
const IDENTITY_ENCODING = 2017;
const CERTIFIED_CREDENTIAL = 1 + IDENTITY_ENCODING + 64;

/**
 * SHA-256("veilkit-session-identity-v1" ‖ Enc(ID)), hex: `sessionIdentityId` of ts/session/core.ts, here on
 * WebCrypto's SHA-256 because this module runs in servers without the wasm core.
 */
async function identityIdOf(encoding: Uint8Array): Promise<string> {
  return bytesToHex(await sha256(concatBytes([new TextEncoder().encode('veilkit-session-identity-v1'), encoding])));
}

/** `KeyPackageRef = RefHash("MLS 1.0 KeyPackage Reference", KeyPackage)` (RFC 9420 §5.2) with SHA-256. */
async function keyPackageRef(keyPackage: Uint8Array): Promise<string> {
  const label = vec(new TextEncoder().encode('MLS 1.0 KeyPackage Reference'));
  const value = vec(keyPackage);
  const input = new Uint8Array(label.length + value.length);
  input.set(label);
  input.set(value, label.length);
  return bytesToHex(await sha256(input));
}

/**
 * Reads the public header of an MLS message (`MLSMessage`, RFC 9420 §6): what a delivery service
 * needs to order, route and store it. `MALFORMED_INPUT` (with `details.index`, the byte) for a message
 * it cannot read: another protocol version, an unknown wire format or content type, a length not in
 * its shortest form, a message that ends early. A key package is read whole (its reference hashes all
 * of it), so trailing bytes after it are refused; for the other formats only the header is read.
 */
export async function inspectGroupMessage(message: Uint8Array): Promise<GroupWireInfo> {
  if (!(message instanceof Uint8Array)) throw new TypeError('message must be a Uint8Array');
  if (message.length > MAX_MESSAGE) {
    throw new VeilError('MALFORMED_INPUT', `MLS message: ${message.length} bytes, more than ${MAX_MESSAGE}`, { details: { got: message.length } });
  }
  const r = new Reader(message);
  const version = r.u16('the version');
  if (version !== 1) throw r.fail(`protocol version ${version} is not mls10 (1)`);
  const wire = r.u16('the wire format');
  const wireFormat = WIRE_FORMATS[wire as keyof typeof WIRE_FORMATS] as GroupWireInfo['wireFormat'] | undefined;
  if (wireFormat === undefined) throw r.fail(`wire format ${wire} is not one of RFC 9420's (1 to 5)`);
  const contentType = (what: string): 'application' | 'proposal' | 'commit' => {
    const t = r.u8(what);
    const c = CONTENT_TYPES[t as keyof typeof CONTENT_TYPES] as 'application' | 'proposal' | 'commit' | undefined;
    if (c === undefined) throw r.fail(`content type ${t} is not application (1), proposal (2) or commit (3)`);
    return c;
  };
  switch (wireFormat) {
    case 'public-message': {
      const groupId = bytesToHex(r.opaque('the group id'));
      const epoch = r.u64('the epoch');
      const senderType = r.u8('the sender type');
      if (senderType === 1 || senderType === 2) r.u32('the sender index');
      else if (senderType !== 3 && senderType !== 4) throw r.fail(`sender type ${senderType} is not 1 to 4`);
      r.opaque('the authenticated data');
      return { wireFormat, groupId, epoch, contentType: contentType('the content type') };
    }
    case 'private-message': {
      const groupId = bytesToHex(r.opaque('the group id'));
      const epoch = r.u64('the epoch');
      return { wireFormat, groupId, epoch, contentType: contentType('the content type') };
    }
    case 'welcome': {
      const cipherSuite = r.u16('the cipher suite');
      const secrets = r.opaque('the group secrets');
      const s = new Reader(secrets);
      const newMembers: string[] = [];
      while (s.at < secrets.length) {
        newMembers.push(bytesToHex(s.opaque('a new member\'s key package reference')));
        s.opaque('a KEM output');
        s.opaque('an encrypted group secret');
      }
      return { wireFormat, cipherSuite, newMembers };
    }
    case 'group-info': {
      r.u16('the group context version');
      return { wireFormat, cipherSuite: r.u16('the cipher suite') };
    }
    case 'key-package': {
      const start = r.at;
      const kpVersion = r.u16('the key package version');
      if (kpVersion !== 1) throw r.fail(`key package version ${kpVersion} is not mls10 (1)`);
      const cipherSuite = r.u16('the cipher suite');
      r.opaque('the init key');
      // LeafNode (RFC 9420 §7.2): encryption key, signature key, credential, capabilities, source, extensions, signature.
      r.opaque('the encryption key');
      r.opaque('the signature key');
      const credentialType = r.u16('the credential type');
      let credential: Uint8Array | undefined;
      if (credentialType === 1) credential = r.opaque('the basic credential');
      else if (credentialType === 2) r.opaque('the certificate chain');
      else throw r.fail(`credential type ${credentialType} is not basic (1) or x509 (2)`);
      for (const what of ['versions', 'cipher suites', 'extensions', 'proposals', 'credentials']) r.opaque(`the capabilities' ${what}`);
      const source = r.u8('the leaf node source');
      if (source !== 1) throw r.fail(`a key package's leaf node source is key_package (1), not ${source}`);
      r.u64('not_before');
      r.u64('not_after');
      r.opaque('the leaf node extensions');
      r.opaque('the leaf node signature');
      r.opaque('the key package extensions');
      r.opaque('the key package signature');
      if (r.at !== message.length) throw r.fail(`${message.length - r.at} bytes after the key package`);
      const kp = message.subarray(start);
      const claimed = credential?.length === CERTIFIED_CREDENTIAL && credential[0] === 0x01 ? await identityIdOf(credential.subarray(1, 1 + IDENTITY_ENCODING)) : undefined;
      return {
        wireFormat, cipherSuite, ...(SHA256_SUITES.has(cipherSuite) ? { ref: await keyPackageRef(kp) } : {}), ...(claimed === undefined ? {} : { identityId: claimed }),
      };
    }
  }
}
