/**
 * MLS group chat (RFC 9420) with the group state in the keystore worker (docs/GROUPS.md). A `Group` is a
 * handle: the group's secrets, its ratchet tree and this member's keys never reach the page.
 *
 * The app transports the wire messages: commits and application messages go to the delivery service, which
 * orders commits per group and fans every message out to every member (this member too); welcomes go to the
 * members they add; key packages (`ks.createKeyPackages`) are published to it.
 */
import { disposeSymbol, disposedError } from '../dispose.js';
import { Keystore, keystoreRun } from '../keystore.js';
import { atMost, bytes, integer } from '../validate.js';
import { HISTORY_LIMITS } from '../history.js';
import { init } from '../init.js';
import { generateVerificationCode, type VerificationCode } from '../messaging/verification.js';
import { SESSION_VERIFICATION_CONTEXT } from '../session.js';
import type { KeystoreBody } from '../keystore-isolated.js';
import type { IdentityHandle, KeystoreReplies } from '../../protocol/keystore.protocol.js';
import {
  GROUP_SUITES, type GroupCommit, type GroupEncrypted, type GroupHistoryTarget, type GroupInfo, type GroupMember, type GroupReceived, type GroupSuiteId, type GroupUpdatePolicy,
} from '../../protocol/group.protocol.js';

export {
  GROUP_SUITES, type GroupCommit, type GroupEncrypted, type GroupHistoryTarget, type GroupInfo, type GroupMember, type GroupReceived, type GroupSuiteId, type GroupUpdatePolicy,
} from '../../protocol/group.protocol.js';

/** Options of {@link Group.create}. */
export interface CreateGroupOptions {
  /** The ciphersuite, fixed for the group's life: X-Wing (0x004D, default) or the classical 0x0001. */
  suite?: GroupSuiteId;
  /** When this member makes an update commit by itself (default: 100 messages or 7 days). */
  updatePolicy?: GroupUpdatePolicy;
}

/** Options of {@link Group.join}. */
export interface JoinGroupOptions {
  updatePolicy?: GroupUpdatePolicy;
}

/** Options of {@link Group.encrypt}: associated data, carried in the clear inside the message and authenticated. */
export interface GroupMessageOptions {
  aad?: Uint8Array;
}

/** Options of {@link Group.receive}. */
export interface GroupReceiveOptions {
  /** Store an application message in the keystore's history in the same commit (exactly once). */
  history?: GroupHistoryTarget;
}

/** A member with its verification code (the same as a 1:1 session's for the same two identities). */
export interface GroupMemberWithCode extends GroupMember {
  /** Absent for this member itself. */
  readonly verificationCode?: VerificationCode;
  readonly self: boolean;
}

function run<B extends KeystoreBody>(ks: Keystore, body: B): Promise<KeystoreReplies[B['type']]> {
  return keystoreRun(ks, body) as Promise<KeystoreReplies[B['type']]>;
}

function checkKeystore(ks: Keystore): Keystore {
  if (!(ks instanceof Keystore)) throw new TypeError('ks must be a Keystore');
  return ks;
}

function identityId(identity: IdentityHandle | string): string {
  if (typeof identity === 'string') return identity;
  if (typeof identity === 'object' && identity !== null && typeof identity.id === 'string') return identity.id;
  throw new TypeError('identity must be an IdentityHandle or an identity id');
}

function groupId(group: Group | GroupInfo | string): string {
  if (typeof group === 'string') return group;
  if (group instanceof Group) return group.id;
  if (typeof group === 'object' && group !== null && typeof group.id === 'string') return group.id;
  throw new TypeError('group must be a Group, a GroupInfo or a group id');
}

function options<T extends object>(o: T | undefined): Partial<T> {
  if (o === undefined) return {};
  if (typeof o !== 'object' || o === null) throw new TypeError('options must be an object');
  return o;
}

function policy(p: GroupUpdatePolicy | undefined): { policy?: GroupUpdatePolicy } {
  if (p === undefined) return {};
  if (typeof p !== 'object' || p === null) throw new TypeError('updatePolicy must be { messages, days }');
  return { policy: { messages: p.messages, days: p.days } };
}

/** An MLS group of a keystore identity: a handle; the state stays in the keystore's worker. */
export class Group {
  readonly keystore: Keystore;
  /** `<identity id>/<MLS group id in hex>`. */
  readonly id: string;
  private last: GroupInfo;
  private closed = false;

  private constructor(ks: Keystore, info: GroupInfo) {
    this.keystore = ks;
    this.id = info.id;
    this.last = info;
  }

  /** A new group with `identity` as its only member (suite default X-Wing, 0x004D). Stored before this resolves. */
  static async create(ks: Keystore, identity: IdentityHandle | string, o?: CreateGroupOptions): Promise<Group> {
    checkKeystore(ks);
    const oo = options(o);
    const suite = oo.suite ?? GROUP_SUITES.xwing;
    return new Group(ks, await run(ks, { type: 'keystore/group-create', identity: identityId(identity), suite, ...policy(oo.updatePolicy) }));
  }

  /**
   * Joins from a welcome made for one of `identity`'s key packages (consumed by this join, in the same write that
   * stores the group). A welcome already joined: `REPLAY_DETECTED`; no key package for it: `NO_MATCHING_KEY_PACKAGE`.
   */
  static async join(ks: Keystore, identity: IdentityHandle | string, welcome: Uint8Array, o?: JoinGroupOptions): Promise<Group> {
    checkKeystore(ks);
    const oo = options(o);
    return new Group(ks, await run(ks, { type: 'keystore/group-join', identity: identityId(identity), welcome: bytes('welcome', welcome).slice(), ...policy(oo.updatePolicy) }));
  }

  /** A stored group (`NOT_A_MEMBER` if the identity holds none of that id; `STATE_ROLLBACK` if its stored state is older than one committed). */
  static async load(ks: Keystore, id: string): Promise<Group> {
    checkKeystore(ks);
    return new Group(ks, await run(ks, { type: 'keystore/group-info', group: groupId(id) }));
  }

  /** Every stored group (of `identity`, if given), oldest first. */
  static async list(ks: Keystore, identity?: IdentityHandle | string): Promise<GroupInfo[]> {
    checkKeystore(ks);
    return run(ks, { type: 'keystore/group-list', ...(identity === undefined ? {} : { identity: identityId(identity) }) });
  }

  /** Deletes a stored group and every secret of it. */
  static async delete(ks: Keystore, group: Group | GroupInfo | string): Promise<true> {
    checkKeystore(ks);
    return run(ks, { type: 'keystore/group-delete', group: groupId(group) });
  }

  private check(): void {
    if (this.closed) throw disposedError('this Group');
  }

  /**
   * Adds the owners of `keyPackages`: send `commit` to the group and `welcome` to them. The commit stays pending
   * until it comes back from the delivery service (`receive`) or `confirm()`; meanwhile `encrypt`, `add`, `remove`
   * and `update` fail with `COMMIT_CONFLICT`.
   */
  async add(keyPackages: readonly Uint8Array[]): Promise<GroupCommit> {
    this.check();
    if (!Array.isArray(keyPackages)) throw new TypeError('keyPackages must be an array of Uint8Array');
    const kps = keyPackages.map((k, i) => bytes(`keyPackages[${i}]`, k).slice());
    const r = await run(this.keystore, { type: 'keystore/group-add', group: this.id, keyPackages: kps });
    this.last = r.info;
    return { commit: r.commit, ...(r.welcome ? { welcome: r.welcome } : {}) };
  }

  /** Removes members (by leaf index, or a member from `members()` / `info()`): send `commit`. Pending as with `add`. */
  async remove(...members: (number | GroupMember)[]): Promise<GroupCommit> {
    this.check();
    const indices = members.map((m) => (typeof m === 'number' ? m : typeof m === 'object' && m !== null ? m.index : Number.NaN));
    if (indices.length === 0 || !indices.every((i) => Number.isInteger(i) && i >= 0 && i <= 0xffffffff)) throw new TypeError('members must be leaf indices or GroupMembers');
    const r = await run(this.keystore, { type: 'keystore/group-remove', group: this.id, members: indices });
    this.last = r.info;
    return { commit: r.commit };
  }

  /** A fresh leaf and path for this member (post-compromise security): send `commit`. Pending as with `add`. */
  async update(): Promise<GroupCommit> {
    this.check();
    const r = await run(this.keystore, { type: 'keystore/group-update', group: this.id });
    this.last = r.info;
    return { commit: r.commit };
  }

  /** Merges this member's pending commit when the delivery service accepted it but does not send it back. */
  async confirm(): Promise<GroupInfo> {
    this.check();
    this.last = await run(this.keystore, { type: 'keystore/group-confirm', group: this.id });
    return this.last;
  }

  /**
   * Encrypts an application message for the group; resolves after the state is committed. When the update policy
   * falls due, `commit` is an update commit made right after the message: send it after the message.
   */
  async encrypt(plaintext: Uint8Array, o?: GroupMessageOptions): Promise<GroupEncrypted> {
    this.check();
    const oo = options(o);
    return run(this.keystore, {
      type: 'keystore/group-encrypt', group: this.id, plaintext: bytes('plaintext', plaintext).slice(),
      ...(oo.aad === undefined ? {} : { aad: bytes('aad', oo.aad).slice() }),
    });
  }

  /**
   * Processes a message from the delivery service: an application message (sender and bytes), a commit (what
   * changed; this member's own commit coming back merges it) or a proposal. A message that fails changes nothing:
   * `WRONG_EPOCH`, `AUTHENTICATION_FAILED`, `DUPLICATE_MESSAGE`, `MALFORMED_INPUT`, `INVALID_COMMIT`, …
   *
   * With `history`, an application message is also stored in `keystore.history(history.conversation)` (as
   * `encodeGroupHistoryMessage` bytes, at `history.position`) and the conversation's metadata replaced by
   * `history.meta`, in the same commit as the group's new state: a message is stored exactly once, even when the
   * page dies right after (docs/GROUPS.md#group-chat).
   */
  async receive(message: Uint8Array, o?: GroupReceiveOptions): Promise<GroupReceived> {
    this.check();
    const oo = options(o);
    const h = oo.history;
    let history: GroupHistoryTarget | undefined;
    if (h !== undefined) {
      if (typeof h !== 'object' || h === null) throw new TypeError('history must be { conversation, position, meta? }');
      if (typeof h.conversation !== 'string' || h.conversation.length === 0 || h.conversation.length > HISTORY_LIMITS.name) {
        throw new TypeError(`history.conversation must be a string of 1 to ${HISTORY_LIMITS.name} characters`);
      }
      history = {
        conversation: h.conversation, position: integer('history.position', h.position, 0, Number.MAX_SAFE_INTEGER),
        ...(h.meta === undefined ? {} : { meta: atMost('history.meta', h.meta, HISTORY_LIMITS.entry).slice() }),
      };
    }
    return run(this.keystore, { type: 'keystore/group-receive', group: this.id, message: bytes('message', message).slice(), ...(history ? { history } : {}) });
  }

  /** The group's public facts (suite, epoch, members …), freshly read from the keystore. */
  async info(): Promise<GroupInfo> {
    this.check();
    this.last = await run(this.keystore, { type: 'keystore/group-info', group: this.id });
    return this.last;
  }

  /** The members, each with its verification code (over both `Enc(ID)`s, as a 1:1 session's): compare out of band. */
  async members(): Promise<GroupMemberWithCode[]> {
    const i = await this.info();
    await init();
    const own = i.members.find((m) => m.index === i.ownIndex);
    const context = new TextEncoder().encode(SESSION_VERIFICATION_CONTEXT);
    return i.members.map((m) => (m.index === i.ownIndex || !own
      ? { ...m, self: m.index === i.ownIndex }
      : { ...m, self: false, verificationCode: generateVerificationCode(own.identity, m.identity, context) }));
  }

  /** Deletes the group from the keystore and disposes the handle. */
  async delete(): Promise<true> {
    this.check();
    const r = await Group.delete(this.keystore, this.id);
    this.dispose();
    return r;
  }

  /** The last info read (no keystore round trip). */
  get cachedInfo(): GroupInfo {
    return this.last;
  }

  /** Forgets the handle (the stored group stays). Idempotent; every other method afterwards throws `INVALID_STATE`. */
  dispose(): void {
    this.closed = true;
  }

  /** Same as {@link Group.dispose} (`using`). */
  [disposeSymbol](): void {
    this.dispose();
  }
}
