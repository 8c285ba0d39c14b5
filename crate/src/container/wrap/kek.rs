//! The key-encryption keys of each wrap type and the AES-256-KW wrapping of
//! the DEK under them.

use zeroize::Zeroizing;

use super::super::chunk::{DEK_LEN, Dek};
use super::super::error::{ContainerError, Result};
use super::super::header::CIPHER_SUITE_AES_256_GCM;
use super::params::Argon2idCost;
use crate::hash::Sha256;
use crate::kdf::{Argon2Params, argon2id, hkdf_sha256, pbkdf2_sha256};
use crate::keywrap::{aes_kw_unwrap, aes_kw_wrap};

/// HKDF info label of the group KEK.
pub const GROUP_KEK_LABEL: &[u8] = b"vollcrypt-file-group-kek-v1";
/// HKDF info label of the hybrid-KEM KEK.
pub const HYBRID_KEK_LABEL: &[u8] = b"vollcrypt-file-hybrid-kem-v1";
/// HKDF info label of the threshold KEK.
pub const THRESHOLD_KEK_LABEL: &[u8] = b"vollcrypt-file-threshold-kek-v1";
/// Domain label of a derived recipient id.
pub const RECIPIENT_ID_LABEL: &[u8] = b"vollcrypt-file-recipient-id-v1";
/// KEM suite id of X-Wing (bound into the hybrid KEK).
pub const KEM_SUITE_XWING: u8 = 1;

pub(super) type Kek = Zeroizing<Vec<u8>>;

pub(super) fn pbkdf2_kek(password: &[u8], salt: &[u8; 16], iterations: u32) -> Result<Kek> {
    Ok(pbkdf2_sha256(password, salt, iterations, 32)?)
}

pub(super) fn argon2_kek(password: &[u8], salt: &[u8; 16], cost: &Argon2idCost) -> Result<Kek> {
    cost.validate()?;
    let params = Argon2Params {
        memory_kib: cost.memory_kib,
        iterations: cost.iterations,
        parallelism: cost.parallelism,
        output_len: 32,
    };
    Ok(argon2id(password, salt, b"", b"", &params)?)
}

pub(super) fn group_kek(
    file_id: &[u8; 16],
    group_key: &[u8],
    group_id: &[u8; 16],
    key_version: u32,
) -> Result<Kek> {
    if group_key.len() != 32 {
        return Err(ContainerError::Crypto(crate::CryptoError::length(
            "groupKey",
            "32 bytes",
            group_key.len(),
        )));
    }
    let mut info = Vec::with_capacity(GROUP_KEK_LABEL.len() + 20);
    info.extend_from_slice(GROUP_KEK_LABEL);
    info.extend_from_slice(group_id);
    info.extend_from_slice(&key_version.to_be_bytes());
    Ok(hkdf_sha256(group_key, file_id, &info, 32)?)
}

pub(super) fn hybrid_kek(
    file_id: &[u8; 16],
    shared: &[u8],
    recipient_id: &[u8; 16],
    key_version: u32,
) -> Result<Kek> {
    let mut info = Vec::with_capacity(HYBRID_KEK_LABEL.len() + 22);
    info.extend_from_slice(HYBRID_KEK_LABEL);
    info.extend_from_slice(recipient_id);
    info.extend_from_slice(&key_version.to_be_bytes());
    info.push(KEM_SUITE_XWING);
    info.push(CIPHER_SUITE_AES_256_GCM);
    Ok(hkdf_sha256(shared, file_id, &info, 32)?)
}

pub(super) fn threshold_kek(
    file_id: &[u8; 16],
    tms: &[u8],
    share_set_id: &[u8; 16],
    t: u8,
    n: u8,
) -> Result<Kek> {
    let mut info = Vec::with_capacity(THRESHOLD_KEK_LABEL.len() + 18);
    info.extend_from_slice(THRESHOLD_KEK_LABEL);
    info.extend_from_slice(share_set_id);
    info.push(t);
    info.push(n);
    Ok(hkdf_sha256(tms, file_id, &info, 32)?)
}

pub(super) fn wrap_dek(kek: &[u8], dek: &Dek) -> Result<[u8; 40]> {
    let w = aes_kw_wrap(kek, dek.as_bytes())?;
    <[u8; 40]>::try_from(w.as_slice())
        .map_err(|_| ContainerError::InvalidWrap("wrapped DEK length"))
}

pub(super) fn unwrap_dek(kek: &[u8], wrapped: &[u8; 40]) -> Result<Dek> {
    let k = aes_kw_unwrap(kek, wrapped)?;
    if k.len() != DEK_LEN {
        return Err(ContainerError::AuthenticationFailed);
    }
    Dek::from_bytes(&k)
}

/// The default recipient id of an X-Wing public key:
/// `SHA-256("vollcrypt-file-recipient-id-v1" ‖ pk)[0..16]`.
#[must_use]
pub fn recipient_id_for(public_key: &[u8]) -> [u8; 16] {
    let mut h = Sha256::new();
    h.update(RECIPIENT_ID_LABEL);
    h.update(public_key);
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(d.get(..16).unwrap_or(&[0u8; 16]));
    out
}
