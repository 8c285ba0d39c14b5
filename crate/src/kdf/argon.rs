//! Argon2id v1.3 (RFC 9106): its limits, its parameters and the derivation.

use argon2::{Algorithm, Argon2, AssociatedData, Block, ParamsBuilder, Version};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{CryptoError, Result};

/// Largest Argon2 memory cost, in KiB: 1 GiB, a quarter of the 4 GiB
/// wasm32 address space.
pub const ARGON2_MAX_MEMORY_KIB: u32 = 1_048_576;
/// Largest Argon2 parallelism (lanes). Lanes are computed sequentially here;
/// the value only changes the result, so it is kept small.
pub const ARGON2_MAX_PARALLELISM: u32 = 16;
/// Smallest Argon2 output length, in bytes (RFC 9106).
pub const ARGON2_MIN_OUTPUT_LEN: usize = 4;
/// Largest Argon2 output length, in bytes (a policy cap; RFC 9106 allows 2^32 − 1).
pub const ARGON2_MAX_OUTPUT_LEN: usize = 1024;
/// Smallest salt, in bytes (RFC 9106 §3.1).
pub const ARGON2_MIN_SALT_LEN: usize = 8;
/// Largest secret ("pepper") in bytes: a key, at most 32 bytes (policy cap;
/// RFC 9106 allows 2^32 − 1).
pub const ARGON2_MAX_SECRET_LEN: usize = 32;
/// Largest associated data in bytes: the limit of the `argon2` crate's
/// `AssociatedData` (RFC 9106 allows 2^32 − 1).
pub const ARGON2_MAX_AD_LEN: usize = 32;

/// Argon2id cost parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argon2Params {
    /// Memory cost `m` in KiB: `8 · parallelism ..= ARGON2_MAX_MEMORY_KIB`.
    pub memory_kib: u32,
    /// Time cost `t` (passes): at least 1.
    pub iterations: u32,
    /// Degree of parallelism `p` (lanes): `1..=16`.
    pub parallelism: u32,
    /// Tag length `T` in bytes: `4..=1024`.
    pub output_len: usize,
}

impl Argon2Params {
    /// Checks every parameter against its allowed range.
    ///
    /// # Errors
    /// [`CryptoError::InvalidParameter`] naming the first out-of-range parameter.
    pub fn validate(&self) -> Result<()> {
        if self.parallelism == 0 || self.parallelism > ARGON2_MAX_PARALLELISM {
            return Err(CryptoError::InvalidParameter(
                "argon2id: parallelism must be 1..=16",
            ));
        }
        // parallelism <= 16, so 8 * parallelism cannot overflow.
        if self.memory_kib < self.parallelism.saturating_mul(8) {
            return Err(CryptoError::InvalidParameter(
                "argon2id: memory_kib must be at least 8 * parallelism",
            ));
        }
        if self.memory_kib > ARGON2_MAX_MEMORY_KIB {
            return Err(CryptoError::InvalidParameter(
                "argon2id: memory_kib must be at most 1048576 (1 GiB)",
            ));
        }
        if self.iterations == 0 {
            return Err(CryptoError::InvalidParameter(
                "argon2id: iterations must be at least 1",
            ));
        }
        if self.output_len < ARGON2_MIN_OUTPUT_LEN || self.output_len > ARGON2_MAX_OUTPUT_LEN {
            return Err(CryptoError::InvalidParameter(
                "argon2id: output_len must be 4..=1024 bytes",
            ));
        }
        Ok(())
    }
}

/// Maps an `argon2` crate error (which should not occur after our own
/// validation) to a parameter error.
fn argon2_err(e: argon2::Error) -> CryptoError {
    use argon2::Error as E;
    CryptoError::InvalidParameter(match e {
        E::AdTooLong => "argon2id: associated_data must be at most 32 bytes",
        E::SecretTooLong => "argon2id: secret must be at most 32 bytes",
        E::SaltTooShort | E::SaltTooLong => "argon2id: salt must be at least 8 bytes",
        E::PwdTooLong => "argon2id: password too long",
        E::MemoryTooLittle | E::MemoryTooMuch => "argon2id: memory_kib out of range",
        E::ThreadsTooFew | E::ThreadsTooMany => "argon2id: parallelism out of range",
        E::TimeTooSmall => "argon2id: iterations must be at least 1",
        E::OutputTooShort | E::OutputTooLong => "argon2id: output_len out of range",
        E::OutOfMemory => "argon2id: memory_kib could not be allocated",
        _ => "argon2id: rejected by the argon2 implementation",
    })
}

/// Argon2id, version 0x13 (RFC 9106), with optional secret key and associated data.
///
/// Everything is validated before the block memory is reserved. The
/// `memory_kib` KiB of block memory is reserved with a fallible allocation
/// (so exhausting the wasm32 heap is an error, not an abort) and zeroized
/// before it is freed.
///
/// Limits beyond [`Argon2Params::validate`]: `salt` ≥ 8 bytes; `secret`
/// ≤ 32 bytes (empty = no secret); `associated_data` ≤ 32 bytes (limit of the
/// underlying `argon2` crate).
///
/// # Errors
/// [`CryptoError::InvalidParameter`] naming the offending parameter (including
/// "memory_kib could not be allocated" when the allocation fails).
#[must_use = "the derived key is the only output"]
pub fn argon2id(
    password: &[u8],
    salt: &[u8],
    secret: &[u8],
    associated_data: &[u8],
    params: &Argon2Params,
) -> Result<Zeroizing<Vec<u8>>> {
    params.validate()?;
    if salt.len() < ARGON2_MIN_SALT_LEN {
        return Err(CryptoError::InvalidParameter(
            "argon2id: salt must be at least 8 bytes",
        ));
    }
    if u32::try_from(salt.len()).is_err() {
        return Err(CryptoError::InvalidParameter("argon2id: salt too long"));
    }
    if u32::try_from(password.len()).is_err() {
        return Err(CryptoError::InvalidParameter("argon2id: password too long"));
    }
    if secret.len() > ARGON2_MAX_SECRET_LEN {
        return Err(CryptoError::InvalidParameter(
            "argon2id: secret must be at most 32 bytes",
        ));
    }
    if associated_data.len() > ARGON2_MAX_AD_LEN {
        return Err(CryptoError::InvalidParameter(
            "argon2id: associated_data must be at most 32 bytes",
        ));
    }

    let ad = AssociatedData::new(associated_data).map_err(argon2_err)?;
    let argon_params = ParamsBuilder::new()
        .m_cost(params.memory_kib)
        .t_cost(params.iterations)
        .p_cost(params.parallelism)
        .output_len(params.output_len)
        .data(ad)
        .build()
        .map_err(argon2_err)?;
    let ctx = if secret.is_empty() {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, argon_params)
    } else {
        Argon2::new_with_secret(secret, Algorithm::Argon2id, Version::V0x13, argon_params)
            .map_err(argon2_err)?
    };

    // Block memory: m' = 4·p·⌊m / 4p⌋ blocks of 1 KiB, reserved fallibly.
    let block_count = ctx.params().block_count();
    let mut blocks: Vec<Block> = Vec::new();
    blocks.try_reserve_exact(block_count).map_err(|_| {
        CryptoError::InvalidParameter("argon2id: memory_kib could not be allocated")
    })?;
    blocks.resize(block_count, Block::new());

    let mut out = Zeroizing::new(vec![0u8; params.output_len]);
    let res = ctx.hash_password_into_with_memory(password, salt, &mut out, blocks.as_mut_slice());
    blocks.zeroize();
    res.map_err(argon2_err)?;
    Ok(out)
}
