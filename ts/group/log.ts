/**
 * The ordering rule of a delivery service for veilkit groups (docs/GROUPS.md "What the delivery
 * service does and sees"), in memory: one log per group. The first commit of an epoch wins and moves the group to the next one; any later
 * message of an older epoch is refused with the group's epoch (the loser is told, catches up by
 * reading the log, and sends again). Members read the log in order from their last sequence number.
 * It reads only the public header (`inspectGroupMessage`) and stores the ciphertext as it came.
 * A server keeps one per process, or applies the same rule over its own store.
 */
import { VeilError } from '../../protocol/errors.js';
import { inspectGroupMessage } from './wire.js';

/** One message of a group's log. */
export interface GroupLogEntry {
  /** 1, 2, … in the group's order: read from the last one seen. */
  readonly seq: number;
  readonly epoch: number;
  readonly contentType: 'application' | 'proposal' | 'commit';
  /** The message as posted. */
  readonly message: Uint8Array;
}

/** What {@link GroupLog.post} did. */
export type GroupLogPost =
  | { readonly accepted: true; readonly groupId: string; readonly seq: number; readonly epoch: number; readonly contentType: GroupLogEntry['contentType'] }
  /** Another commit won the epoch first (or the message is for an epoch the group is not in): `epoch` is the group's. */
  | { readonly accepted: false; readonly groupId: string; readonly reason: 'WRONG_EPOCH'; readonly epoch: number; readonly messageEpoch: number };

/** Ordered logs of groups: the first commit of an epoch wins. */
export class GroupLog {
  private readonly groups = new Map<string, { epoch: number; entries: GroupLogEntry[] }>();

  /**
   * Orders a handshake or application message (`PublicMessage` / `PrivateMessage`) into its group's
   * log. A group's log starts with its first message (the creator's first commit). A welcome or key
   * package is not a group message: `MALFORMED_INPUT`, as is anything `inspectGroupMessage` refuses.
   */
  async post(message: Uint8Array): Promise<GroupLogPost> {
    const info = await inspectGroupMessage(message);
    if (info.wireFormat !== 'public-message' && info.wireFormat !== 'private-message') {
      throw new VeilError('MALFORMED_INPUT', `a ${info.wireFormat} is not ordered in a group's log: deliver it to its recipients`);
    }
    // Synchronous from here: two posts never interleave between the check and the append.
    let g = this.groups.get(info.groupId);
    if (g === undefined) {
      g = { epoch: info.epoch, entries: [] };
      this.groups.set(info.groupId, g);
    }
    if (info.epoch !== g.epoch) {
      return { accepted: false, groupId: info.groupId, reason: 'WRONG_EPOCH', epoch: g.epoch, messageEpoch: info.epoch };
    }
    const seq = g.entries.length + 1;
    g.entries.push({ seq, epoch: info.epoch, contentType: info.contentType, message: message.slice() });
    if (info.contentType === 'commit') g.epoch += 1;
    return { accepted: true, groupId: info.groupId, seq, epoch: info.epoch, contentType: info.contentType };
  }

  /** The group's messages after sequence number `after` (0: from the start), at most `limit`, in order. */
  read(groupId: string, after = 0, limit = 1000): GroupLogEntry[] {
    if (typeof groupId !== 'string') throw new TypeError('groupId must be the hex group id');
    if (!Number.isSafeInteger(after) || after < 0) throw new RangeError('after must be a sequence number (an integer ≥ 0)');
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be an integer ≥ 1');
    return this.groups.get(groupId)?.entries.slice(after, after + limit) ?? [];
  }

  /** The group's current epoch (the one its next commit must be for), or undefined for a group never posted to. */
  epoch(groupId: string): number | undefined {
    return this.groups.get(groupId)?.epoch;
  }
}
