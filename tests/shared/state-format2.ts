// Test fixture: a state of format 2 (what veilkit stored before issue 28) made from a current format-3 state
// (docs/SESSIONS.md §5.9), for the migration tests. Format 2 stored both identity encodings (u16 length ‖ bytes
// each) in place of H_ID and an own pending ML-KEM key as its expanded decapsulation key (flag 1 ‖ u64 k ‖
// dk(2400)); format 3 stores H_ID and the own key as `0x01 ‖ u64 k ‖ seed d ‖ z` (or `0x02 ‖ u64 k ‖ dk` for a
// key migrated from format 2). Everything else is the same bytes.

import { mlKemKeygen } from '../../ts/mlkem.js';

/** Offset of H_ID in a format-3 state. */
export const H_ID_AT = 35;

/** The format-2 bytes of the format-3 `state` whose identities are `init` and `resp`. */
export function asFormat2(state: Uint8Array, init: Uint8Array, resp: Uint8Array): Uint8Array {
  let o = H_ID_AT + 32 + 32; // H_ID, root key
  const flag = (skip: number): void => {
    const f = state[o++];
    if (f === 1) o += skip;
  };
  flag(32); // own ratchet secret
  flag(32); // peer ratchet key
  flag(64 + 4 + 8); // sending chain: ck ‖ pq_ck, N, epoch
  o += 4 + 8 + 96; // PN, latest, pq_root, pq_dir_own, pq_dir_peer
  const ownAt = o;
  const tag = state[o];
  let own: Uint8Array;
  if (tag === 0) {
    own = Uint8Array.of(0);
    o += 1;
  } else if (tag === 1) {
    const k = state.subarray(o + 1, o + 9);
    const [dk] = mlKemKeygen(state.subarray(o + 9, o + 73));
    own = new Uint8Array([1, ...k, ...dk]);
    o += 73;
  } else if (tag === 2) {
    own = new Uint8Array([1, ...state.subarray(o + 1, o + 9 + 2400)]);
    o += 9 + 2400;
  } else {
    throw new Error(`asFormat2: own key tag ${String(tag)}`);
  }
  const lp = (id: Uint8Array): number[] => [id.length >> 8, id.length & 0xff, ...id];
  const out = new Uint8Array([
    ...state.subarray(0, H_ID_AT), ...lp(init), ...lp(resp), ...state.subarray(H_ID_AT + 32, ownAt), ...own, ...state.subarray(o),
  ]);
  out[4] = 2;
  return out;
}
