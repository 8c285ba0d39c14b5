//! Key derivations of the triple ratchet (docs/SESSIONS.md §5.3).
//!
//! ```text
//! KDF_RK(rk, dh)        = HKDF(salt = rk, ikm = dh, info = "veilkit-triple-root-v1" ‖ version, 64)
//!                         → rk' ‖ ck
//! KDF_CK(ck)            = (HMAC(ck, 0x02) → ck', HMAC(ck, 0x01) → key)   (DR chains and PQ chains)
//! KDF_EPOCH(k ≥ 1)      = HKDF(salt = pq_root_{k-1}, ikm = ss_k,
//!                              info = "veilkit-pq-epoch-v1" ‖ u64 k ‖ SHA-256(ek_k) ‖ SHA-256(ct_k), 96)
//!                         → pq_root_k ‖ pq_dir(k, i→r) ‖ pq_dir(k, r→i)
//! KDF_EPOCH(0)          = HKDF(salt = "", ikm = pq_root_0 of the handshake,
//!                              info = "veilkit-pq-epoch-v1" ‖ u64 0, 96)   (same split)
//! KDF_PQCHAIN(d, R)     = HKDF(salt = pq_dir, ikm = R, info = "veilkit-pq-chain-v1" ‖ u64 e ‖ dir, 64)
//!                         → pq_dir' ‖ pq_ck_0          (at the start of every sending chain R)
//! mk                    = HKDF(salt = pq_mk(e, dir, n), ikm = dr_mk,
//!                              info = "veilkit-triple-mk-v1" ‖ version ‖ u64 e ‖ R ‖ u32 n, 32)
//! ```

use zeroize::Zeroizing;

use crate::error::CryptoError;
use crate::hash::{hmac_sha256, sha256};
use crate::kdf::hkdf_sha256;
use crate::session::Result;

/// A 32-byte secret.
pub(crate) type Key = Zeroizing<[u8; 32]>;

/// Root-chain label.
pub const ROOT_LABEL: &[u8] = b"veilkit-triple-root-v1";
/// PQ epoch label.
pub const PQ_EPOCH_LABEL: &[u8] = b"veilkit-pq-epoch-v1";
/// PQ per-chain label.
pub const PQ_CHAIN_LABEL: &[u8] = b"veilkit-pq-chain-v1";
/// Message-key label.
pub const MK_LABEL: &[u8] = b"veilkit-triple-mk-v1";

/// Direction byte of messages from the initiator to the responder.
pub const DIR_INITIATOR_TO_RESPONDER: u8 = 0x01;
/// Direction byte of messages from the responder to the initiator.
pub const DIR_RESPONDER_TO_INITIATOR: u8 = 0x02;

/// HKDF-SHA-256 into `N` 32-byte keys.
fn hkdf_keys<const N: usize>(ikm: &[u8], salt: &[u8], info: &[u8]) -> Result<[Key; N]> {
    let okm = hkdf_sha256(ikm, salt, info, N.saturating_mul(32))?;
    let mut out: [Key; N] = core::array::from_fn(|_| Zeroizing::new([0u8; 32]));
    for (key, chunk) in out.iter_mut().zip(okm.chunks_exact(32)) {
        key.copy_from_slice(chunk);
    }
    if okm.len() != N.saturating_mul(32) {
        return Err(CryptoError::InvalidParameter("hkdf output length").into());
    }
    Ok(out)
}

/// Copies a key.
pub(crate) fn key_from(bytes: &[u8; 32]) -> Key {
    Zeroizing::new(*bytes)
}

/// `KDF_RK`: returns `(rk', ck)`.
pub(crate) fn kdf_root(rk: &[u8; 32], dh: &[u8; 32], version: u8) -> Result<(Key, Key)> {
    let mut info = ROOT_LABEL.to_vec();
    info.push(version);
    let [rk2, ck] = hkdf_keys::<2>(dh, rk, &info)?;
    Ok((rk2, ck))
}

/// `KDF_CK`: returns `(ck', key)`.
pub(crate) fn kdf_chain(ck: &[u8; 32]) -> (Key, Key) {
    (
        Zeroizing::new(hmac_sha256(ck, &[0x02])),
        Zeroizing::new(hmac_sha256(ck, &[0x01])),
    )
}

/// The keys of one PQ epoch: the root (salt of the next epoch) and one
/// direction key per direction.
#[derive(Clone)]
pub(crate) struct EpochKeys {
    pub(crate) root: Key,
    pub(crate) initiator_to_responder: Key,
    pub(crate) responder_to_initiator: Key,
}

fn split_epoch(keys: [Key; 3]) -> EpochKeys {
    let [root, initiator_to_responder, responder_to_initiator] = keys;
    EpochKeys {
        root,
        initiator_to_responder,
        responder_to_initiator,
    }
}

/// `KDF_EPOCH(0)` from the handshake's `pq_root_0`.
pub(crate) fn epoch_zero(pq_root_0: &[u8; 32]) -> Result<EpochKeys> {
    let mut info = PQ_EPOCH_LABEL.to_vec();
    info.extend_from_slice(&0u64.to_be_bytes());
    Ok(split_epoch(hkdf_keys::<3>(pq_root_0, &[], &info)?))
}

/// `KDF_EPOCH(k)` for `k ≥ 1`.
pub(crate) fn epoch_next(
    prev_root: &[u8; 32],
    ss: &[u8; 32],
    k: u64,
    ek: &[u8],
    ct: &[u8],
) -> Result<EpochKeys> {
    let mut info = PQ_EPOCH_LABEL.to_vec();
    info.extend_from_slice(&k.to_be_bytes());
    info.extend_from_slice(&sha256(ek));
    info.extend_from_slice(&sha256(ct));
    Ok(split_epoch(hkdf_keys::<3>(ss, prev_root, &info)?))
}

/// `KDF_PQCHAIN`: returns `(pq_dir', pq_ck_0)`.
pub(crate) fn pq_chain_start(
    dir_key: &[u8; 32],
    ratchet_public: &[u8; 32],
    epoch: u64,
    dir: u8,
) -> Result<(Key, Key)> {
    let mut info = PQ_CHAIN_LABEL.to_vec();
    info.extend_from_slice(&epoch.to_be_bytes());
    info.push(dir);
    let [next, ck] = hkdf_keys::<2>(ratchet_public, dir_key, &info)?;
    Ok((next, ck))
}

/// The final message key.
pub(crate) fn message_key(
    pq_mk: &[u8; 32],
    dr_mk: &[u8; 32],
    version: u8,
    epoch: u64,
    ratchet_public: &[u8; 32],
    n: u32,
) -> Result<Key> {
    let mut info = MK_LABEL.to_vec();
    info.push(version);
    info.extend_from_slice(&epoch.to_be_bytes());
    info.extend_from_slice(ratchet_public);
    info.extend_from_slice(&n.to_be_bytes());
    let [mk] = hkdf_keys::<1>(dr_mk, pq_mk, &info)?;
    Ok(mk)
}

/// A sending or receiving chain position: the DR chain key and the PQ chain
/// key advance together, one step per message.
#[derive(Clone)]
pub(crate) struct ChainKeys {
    pub(crate) ck: Key,
    pub(crate) pq_ck: Key,
}

impl ChainKeys {
    /// Derives message `n`'s key and advances both chains.
    pub(crate) fn step(
        &mut self,
        version: u8,
        epoch: u64,
        ratchet_public: &[u8; 32],
        n: u32,
    ) -> Result<Key> {
        let (ck, dr_mk) = kdf_chain(&self.ck);
        let (pq_ck, pq_mk) = kdf_chain(&self.pq_ck);
        self.ck = ck;
        self.pq_ck = pq_ck;
        message_key(&pq_mk, &dr_mk, version, epoch, ratchet_public, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(e: &EpochKeys) -> [[u8; 32]; 3] {
        [
            *e.root,
            *e.initiator_to_responder,
            *e.responder_to_initiator,
        ]
    }

    fn flipped(bytes: &[u8], at: usize) -> Vec<u8> {
        let mut out = bytes.to_vec();
        out[at] ^= 0x01;
        out
    }

    /// `KDF_EPOCH(k)` as docs/SESSIONS.md §5.3 writes it, computed here with
    /// HKDF directly: `HKDF(salt = pq_root_{k−1}, ikm = ss_k, info = label ‖
    /// u64 k ‖ SHA-256(ek_k) ‖ SHA-256(ct_k), 96)`.
    fn documented(prev_root: &[u8; 32], ss: &[u8; 32], k: u64, ek: &[u8], ct: &[u8]) -> Vec<u8> {
        let info = [PQ_EPOCH_LABEL, &k.to_be_bytes(), &sha256(ek), &sha256(ct)].concat();
        hkdf_sha256(ss, prev_root, &info, 96).unwrap().to_vec()
    }

    /// The PQ epoch KDF, property-shaped (its only other check is the
    /// known-answer `known_answer_first_round_trip`, through whole messages):
    /// it is the documented formula for any inputs, its three outputs are
    /// distinct, and changing any one input — the previous root, the shared
    /// secret, the epoch number (low, middle or high bit), any byte of `ek` or
    /// of `ct` (so their hashes), or swapping `ek` and `ct` — changes every
    /// output.
    #[test]
    fn every_epoch_kdf_input_changes_every_output() {
        let root = [0x11u8; 32];
        let ss = [0x22u8; 32];
        let ek: Vec<u8> = (0..1184u32).map(|i| (i % 251) as u8).collect();
        let ct: Vec<u8> = (0..1088u32).map(|i| (i % 241) as u8).collect();
        let k = 5u64;
        let base = keys(&epoch_next(&root, &ss, k, &ek, &ct).unwrap());
        assert_eq!(base.concat(), documented(&root, &ss, k, &ek, &ct));
        assert!(base[0] != base[1] && base[1] != base[2] && base[0] != base[2]);
        let mut root2 = root;
        root2[31] ^= 0x80;
        let mut ss2 = ss;
        ss2[0] ^= 0x01;
        let mut variants: Vec<(String, [[u8; 32]; 3])> = vec![
            (
                "previous root".into(),
                keys(&epoch_next(&root2, &ss, k, &ek, &ct).unwrap()),
            ),
            (
                "shared secret".into(),
                keys(&epoch_next(&root, &ss2, k, &ek, &ct).unwrap()),
            ),
            (
                "ek and ct swapped".into(),
                keys(&epoch_next(&root, &ss, k, &ct, &ek).unwrap()),
            ),
        ];
        for other in [k + 1, k - 1, k ^ (1 << 32), k ^ (1 << 63)] {
            let e = keys(&epoch_next(&root, &ss, other, &ek, &ct).unwrap());
            assert_eq!(e.concat(), documented(&root, &ss, other, &ek, &ct));
            variants.push((format!("epoch {other}"), e));
        }
        for at in [0, 1, 600, 1151, 1152, 1183] {
            let e2 = flipped(&ek, at);
            variants.push((
                format!("ek byte {at}"),
                keys(&epoch_next(&root, &ss, k, &e2, &ct).unwrap()),
            ));
        }
        for at in [0, 544, 1087] {
            let c2 = flipped(&ct, at);
            variants.push((
                format!("ct byte {at}"),
                keys(&epoch_next(&root, &ss, k, &ek, &c2).unwrap()),
            ));
        }
        for (what, v) in &variants {
            for (i, (got, was)) in v.iter().zip(&base).enumerate() {
                assert_ne!(got, was, "{what}: output {i} unchanged");
            }
        }
        // And no two variants collide.
        for (i, (a, va)) in variants.iter().enumerate() {
            for (b, vb) in variants.iter().skip(i + 1) {
                assert_ne!(va, vb, "{a} and {b}");
            }
        }
    }
}
