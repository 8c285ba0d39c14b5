/**
 * The keystore worker's MLS group requests (docs/GROUPS.md#groups-in-the-keystore): what `ts/group.ts`
 * sends and `worker/group/` answers. Part of `KeystoreRequest` / `KeystoreReplies`. A group's state
 * never crosses: the page gets public facts (`GroupInfo`), wire messages and plaintexts.
 */

/** The MLS ciphersuites of veilkit groups: X-Wing (0x004D, the default) and the classical 0x0001. */
export const GROUP_SUITES = { xwing: 0x004d, classical: 0x0001 } as const;
/** A group's ciphersuite code point. */
export type GroupSuiteId = (typeof GROUP_SUITES)[keyof typeof GROUP_SUITES];

/**
 * The update policy (post-compromise security, docs/GROUPS.md#update-policy): this member makes an update
 * commit by itself after `messages` messages sent or `days` days since its last update, whichever comes first.
 */
export interface GroupUpdatePolicy {
  readonly messages: number;
  readonly days: number;
}

/** One member of a group: its leaf, its keystore identity (`Enc(ID)`, docs/SESSIONS.md §2.1) and MLS signature key. */
export interface GroupMember {
  readonly index: number;
  /** The member's `Enc(ID)` (2,017 bytes), certified in its credential. */
  readonly identity: Uint8Array;
  /** Hex of SHA-256("veilkit-session-identity-v1" ‖ Enc(ID)): the same id a 1:1 session shows for this identity. */
  readonly identityId: string;
  readonly signatureKey: Uint8Array;
}

/** Public facts of a group, read from its sealed state in the keystore worker. */
export interface GroupInfo {
  readonly kind: 'group';
  /** The handle: `<identity id>/<MLS group id in hex>`. */
  readonly id: string;
  /** The keystore identity this member is. */
  readonly identity: string;
  readonly groupId: Uint8Array;
  readonly suite: number;
  readonly epoch: number;
  readonly ownIndex: number;
  readonly members: readonly GroupMember[];
  /** A commit of this member waits for the delivery service (until it comes back, or `confirm`). */
  readonly commitPending: boolean;
  /** False once this member was removed: the group can only be deleted. */
  readonly active: boolean;
  readonly policy: GroupUpdatePolicy;
  /** Messages sent since this member's last update commit, and when that was (Unix seconds). */
  readonly sentSinceUpdate: number;
  readonly lastUpdateAt: number;
  readonly createdAt: number;
}

/** A commit this member made: send `commit` to the group, and `welcome` (adds) to the new members. */
export interface GroupCommit {
  readonly commit: Uint8Array;
  readonly welcome?: Uint8Array;
}

/**
 * Where `receive` stores an application message in the keystore's encrypted history, in the commit that advances
 * the group (exactly once): the conversation, the app's position for the message (its delivery-log sequence
 * number) and the conversation's new metadata (the app's cursor), replaced in the same commit whatever the message.
 */
export interface GroupHistoryTarget {
  readonly conversation: string;
  readonly position: number;
  readonly meta?: Uint8Array;
}

/** What `receive` found in a message, and what it stored in the history when asked to. */
export type GroupReceived = GroupReceivedMessage & {
  /** With `history`: the entries written (`first` … `next − 1`; none for a commit or proposal). */
  readonly history?: { readonly first: number; readonly next: number };
};

/** What `receive` found in a message (without the history part). */
export type GroupReceivedMessage =
  | { readonly kind: 'application'; readonly sender: GroupMember; readonly bytes: Uint8Array; readonly aad: Uint8Array; readonly epoch: number }
  | {
    readonly kind: 'commit';
    /** This member's own pending commit, come back from the delivery service: now merged. */
    readonly own: boolean;
    /** The committer, when it is a member (null: an external commit). */
    readonly sender: GroupMember | null;
    readonly epoch: number;
    /** `Enc(ID)` of each member added. */
    readonly added: readonly Uint8Array[];
    /** Leaf indices removed (in the previous epoch's tree). */
    readonly removed: readonly number[];
    readonly removedSelf: boolean;
    /** This member's pending commit lost to this one and was discarded. */
    readonly discardedOwn: boolean;
    /** When `discardedOwn`: the same intent made again in the new epoch — send it (absent if nothing was left to do). */
    readonly reapplied?: GroupCommit;
    /** When `discardedOwn` and the intent could not be made again: the error code why. */
    readonly reapplyFailed?: string;
  }
  | { readonly kind: 'proposal'; readonly sender: GroupMember | null };

/** What `encrypt` made: the message, and an update commit when the update policy fell due (send it after the message). */
export interface GroupEncrypted {
  readonly message: Uint8Array;
  readonly commit?: Uint8Array;
}

type R<T extends string, F> = { readonly id: number; readonly type: T; readonly name: string } & F;

/** `group` is a {@link GroupInfo.id}. */
export type GroupRequest =
  | R<'keystore/group-key-packages', { readonly identity: string; readonly suite: number; readonly count: number; readonly lastResort: boolean }>
  | R<'keystore/group-create', { readonly identity: string; readonly suite: number; readonly policy?: GroupUpdatePolicy }>
  | R<'keystore/group-join', { readonly identity: string; readonly welcome: Uint8Array; readonly policy?: GroupUpdatePolicy }>
  | R<'keystore/group-add', { readonly group: string; readonly keyPackages: readonly Uint8Array[] }>
  | R<'keystore/group-remove', { readonly group: string; readonly members: readonly number[] }>
  | R<'keystore/group-update', { readonly group: string }>
  | R<'keystore/group-confirm', { readonly group: string }>
  | R<'keystore/group-encrypt', { readonly group: string; readonly plaintext: Uint8Array; readonly aad?: Uint8Array }>
  | R<'keystore/group-receive', { readonly group: string; readonly message: Uint8Array; readonly history?: GroupHistoryTarget }>
  | R<'keystore/group-info', { readonly group: string }>
  | R<'keystore/group-list', { readonly identity?: string }>
  | R<'keystore/group-delete', { readonly group: string }>;

export interface GroupReplies {
  'keystore/group-key-packages': Uint8Array[];
  'keystore/group-create': GroupInfo;
  'keystore/group-join': GroupInfo;
  'keystore/group-add': GroupCommit & { readonly info: GroupInfo };
  'keystore/group-remove': GroupCommit & { readonly info: GroupInfo };
  'keystore/group-update': GroupCommit & { readonly info: GroupInfo };
  'keystore/group-confirm': GroupInfo;
  'keystore/group-encrypt': GroupEncrypted;
  'keystore/group-receive': GroupReceived;
  'keystore/group-info': GroupInfo;
  'keystore/group-list': GroupInfo[];
  'keystore/group-delete': true;
}
