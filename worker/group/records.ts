/**
 * The sealed MLS client record of an identity (docs/GROUPS.md#groups-in-the-keystore), byte-exact:
 *
 * ```text
 * record  = { id: "<identity id>", identityId, counter, recordVersion: 1, wrapped }   (object store `groups`)
 * wrapped = iv (12) ‖ AES-256-GCM(storage key, payload, AAD)
 * AAD     = "veilkit-keystore-record-v2" ‖ 0x00 ‖ UTF-8("<identity id>/mls-client") ‖ 0x00
 *           ‖ UTF-8("mls-client-v1:<counter>") ‖ 0x00 ‖ u32be(generation)
 * payload = u32be(meta_len) ‖ meta (UTF-8 JSON, {@link ClientMeta}) ‖ client state ("VKMLSC02 …", GROUPS.md#client-state)
 * ```
 *
 * Its head (the `heads` store, records.ts `sealHead`) has id `mls-client:<identity id>` and names the same
 * counter: a record put back from an earlier copy, or without its head, is refused (`STATE_ROLLBACK`).
 */
import { VeilError } from '../../protocol/errors.js';
import type { GroupUpdatePolicy } from '../../protocol/group.protocol.js';
import { concatBytes } from '../../ts/bytes.js';
import { wipe } from '../../ts/validate.js';
import { seal, unseal } from '../keystore/records.js';

export interface GroupClientRecord {
  id: string;
  identityId: string;
  counter: number;
  recordVersion: 1;
  wrapped: Uint8Array;
}

/** What a pending commit of this member was for: made again in the next epoch when another commit wins. */
export type Intent =
  | { kind: 'add'; keyPackages: string[] }
  | { kind: 'remove'; identities: string[] }
  | { kind: 'update' };

/** Per group, sealed with the state (hex for bytes). */
export interface GroupMeta {
  createdAt: number;
  policy: GroupUpdatePolicy;
  sent: number;
  lastUpdate: number;
  pending?: { commit: string; welcome?: string; intent: Intent };
}

export interface ClientMeta {
  v: 1;
  /** By MLS group id in hex. */
  groups: Record<string, GroupMeta>;
  /** SHA-256 (hex) of the welcomes this client joined from, newest last (at most {@link MAX_WELCOMES}). */
  welcomes: string[];
}

/** How many welcome digests a client keeps for replay refusal. */
export const MAX_WELCOMES = 1024;

export function headId(identityId: string): string {
  return `mls-client:${identityId}`;
}

const aadId = (identityId: string) => `${identityId}/mls-client`;
const aadType = (counter: number) => `mls-client-v1:${counter}`;

export async function sealClient(key: CryptoKey, identityId: string, counter: number, generation: number, meta: ClientMeta, state: Uint8Array): Promise<Uint8Array> {
  const m = new TextEncoder().encode(JSON.stringify(meta));
  const len = new Uint8Array(4);
  new DataView(len.buffer).setUint32(0, m.length);
  const payload = concatBytes([len, m, state]);
  try {
    return await seal(key, aadId(identityId), aadType(counter), generation, payload);
  } finally {
    wipe(payload);
  }
}

const damaged = (identityId: string) => new VeilError('AUTHENTICATION_FAILED', `the MLS client of identity ${identityId} is damaged`);

/** Opens {@link sealClient}'s output: the metadata and the state (a fresh buffer the caller wipes). */
export async function unsealClient(
  key: CryptoKey, identityId: string, counter: number, generation: number, wrapped: Uint8Array | undefined,
): Promise<{ meta: ClientMeta; state: Uint8Array }> {
  if (!Number.isSafeInteger(counter) || counter < 1) throw damaged(identityId);
  const payload = await unseal(key, aadId(identityId), aadType(counter), generation, wrapped);
  try {
    if (payload.length < 4) throw damaged(identityId);
    const len = new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0);
    if (len > payload.length - 4) throw damaged(identityId);
    const meta = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload.subarray(4, 4 + len))) as ClientMeta;
    if (meta?.v !== 1 || typeof meta.groups !== 'object' || meta.groups === null || !Array.isArray(meta.welcomes)) throw damaged(identityId);
    return { meta, state: payload.slice(4 + len) };
  } catch (e) {
    throw e instanceof VeilError ? e : damaged(identityId);
  } finally {
    wipe(payload);
  }
}

/** A client record re-wrapped from `from` to `to` (a passphrase change). */
export async function rewrapClient(
  from: { key: CryptoKey; generation: number }, to: { key: CryptoKey; generation: number }, r: GroupClientRecord,
): Promise<GroupClientRecord> {
  const { meta, state } = await unsealClient(from.key, r.identityId, r.counter, from.generation, r.wrapped);
  try {
    return { ...r, wrapped: await sealClient(to.key, r.identityId, r.counter, to.generation, meta, state) };
  } finally {
    wipe(state);
  }
}
