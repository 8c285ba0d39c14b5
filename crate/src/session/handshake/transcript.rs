//! The one transcript builder and the key derivation both sides use
//! (`T`, `info` and `OKM` of the [module documentation](super)).

use zeroize::Zeroizing;

use super::{FLAG_DH4, FLAG_PQ_ONE_TIME, PQXDH_LABEL};
use crate::hash::Sha256;
use crate::kdf::hkdf_sha256;
use crate::session::HandshakeKeys;
use crate::session::error::{Result, SessionError};
use crate::session::versions::write_versions;

/// The public values the key derivation binds.
pub(super) struct Transcript<'a> {
    pub(super) version: u8,
    pub(super) initiator_versions: &'a [u8],
    pub(super) responder_versions: &'a [u8],
    pub(super) initiator: &'a [u8],
    pub(super) responder: &'a [u8],
    pub(super) signed_prekey: &'a [u8],
    pub(super) one_time_prekey: Option<&'a [u8]>,
    pub(super) pq_prekey: &'a [u8],
    pub(super) pq_one_time: bool,
    pub(super) ephemeral: &'a [u8],
    pub(super) ciphertext: &'a [u8],
    pub(super) initiator_device_id: u32,
    pub(super) responder_device_id: u32,
}

/// The HKDF `info` of a transcript.
fn kdf_info(t: &Transcript<'_>) -> Result<Vec<u8>> {
    let mut flags = 0u8;
    if t.one_time_prekey.is_some() {
        flags |= FLAG_DH4;
    }
    if t.pq_one_time {
        flags |= FLAG_PQ_ONE_TIME;
    }
    let mut h = Sha256::new();
    h.update(t.initiator);
    h.update(t.responder);
    h.update(t.signed_prekey);
    if let Some(opk) = t.one_time_prekey {
        h.update(opk);
    }
    h.update(t.pq_prekey);
    h.update(t.ephemeral);
    h.update(t.ciphertext);
    h.update(&t.initiator_device_id.to_be_bytes());
    h.update(&t.responder_device_id.to_be_bytes());
    let mut info = Vec::with_capacity(PQXDH_LABEL.len() + 2 + 34 + 32);
    info.extend_from_slice(PQXDH_LABEL);
    info.push(t.version);
    info.push(flags);
    write_versions(&mut info, t.initiator_versions)?;
    write_versions(&mut info, t.responder_versions)?;
    info.extend_from_slice(&h.finalize());
    Ok(info)
}

/// `OKM = HKDF(0^32, 0xFF^32 ‖ DH1 ‖ DH2 ‖ DH3 ‖ [DH4] ‖ SS, info, 128)`, split.
pub(super) fn derive(
    dhs: &[&[u8; 32]],
    ss: &[u8; 32],
    t: &Transcript<'_>,
) -> Result<(HandshakeKeys, Zeroizing<[u8; 32]>)> {
    let mut ikm = Zeroizing::new(Vec::with_capacity(32 * 6));
    ikm.extend_from_slice(&[0xFF; 32]);
    for dh in dhs {
        ikm.extend_from_slice(dh.as_slice());
    }
    ikm.extend_from_slice(ss);
    let okm = hkdf_sha256(&ikm, &[0u8; 32], &kdf_info(t)?, 128)?;
    let part = |i: usize| -> Result<Zeroizing<[u8; 32]>> {
        okm.get(32 * i..32 * (i + 1))
            .and_then(|s| <[u8; 32]>::try_from(s).ok())
            .map(Zeroizing::new)
            .ok_or(SessionError::Malformed("handshake key schedule"))
    };
    Ok((
        HandshakeKeys {
            root_key: part(0)?,
            chain_key: part(1)?,
            pq_root_0: part(2)?,
        },
        part(3)?,
    ))
}
