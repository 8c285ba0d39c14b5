//! Key derivation: HKDF-SHA-256 (RFC 5869), PBKDF2-HMAC-SHA-256 (RFC 8018)
//! and Argon2id v1.3 (RFC 9106).
//!
//! Every output is returned in a [`Zeroizing`] buffer. All parameters are
//! range-checked before any work or allocation; a parameter outside its range
//! is a [`CryptoError::InvalidParameter`] whose message names it.

use argon2::{Algorithm, Argon2, AssociatedData, Block, ParamsBuilder, Version};
use hkdf::Hkdf;
use hmac::Hmac;
use sha2::Sha256;
use zeroize::{Zeroize, Zeroizing};

use crate::error::{CryptoError, Result};

// ---------------------------------------------------------------- HKDF

/// Largest HKDF-SHA-256 output: 255 blocks of 32 bytes (RFC 5869 §2.3).
pub const HKDF_MAX_LEN: usize = 255 * 32;

/// HKDF-SHA-256 (RFC 5869): extract with `salt`, expand with `info` to `len` bytes.
///
/// An empty `salt` is the RFC's "not provided" case and behaves exactly as a
/// salt of 32 zero bytes.
///
/// # Errors
/// [`CryptoError::InvalidParameter`] if `len` is 0 or greater than
/// [`HKDF_MAX_LEN`] (8160).
#[must_use = "the derived key is the only output"]
pub fn hkdf_sha256(ikm: &[u8], salt: &[u8], info: &[u8], len: usize) -> Result<Zeroizing<Vec<u8>>> {
    if len == 0 || len > HKDF_MAX_LEN {
        return Err(CryptoError::InvalidParameter(
            "hkdf: output length must be 1..=8160 bytes",
        ));
    }
    let salt = if salt.is_empty() { None } else { Some(salt) };
    let hk = Hkdf::<Sha256>::new(salt, ikm);
    let mut okm = Zeroizing::new(vec![0u8; len]);
    hk.expand(info, &mut okm)
        .map_err(|_| CryptoError::InvalidParameter("hkdf: output length must be 1..=8160 bytes"))?;
    Ok(okm)
}

// ---------------------------------------------------------------- PBKDF2

/// Largest PBKDF2 output accepted, in bytes.
///
/// PBKDF2 can produce up to (2^32 − 1) · 32 bytes, but every block beyond the
/// first costs a full `iterations` run while adding no strength against an
/// attacker (who needs only the first block to test a guess). 1024 bytes
/// covers every real use (BIP-39 seeds are 64 bytes) and bounds the work.
pub const PBKDF2_MAX_LEN: usize = 1024;

/// PBKDF2-HMAC-SHA-256 (RFC 8018 §5.2).
///
/// # Errors
/// [`CryptoError::InvalidParameter`] if `iterations` is 0 or `len` is not in
/// `1..=`[`PBKDF2_MAX_LEN`].
#[must_use = "the derived key is the only output"]
pub fn pbkdf2_sha256(
    password: &[u8],
    salt: &[u8],
    iterations: u32,
    len: usize,
) -> Result<Zeroizing<Vec<u8>>> {
    if iterations == 0 {
        return Err(CryptoError::InvalidParameter(
            "pbkdf2: iterations must be at least 1",
        ));
    }
    if len == 0 || len > PBKDF2_MAX_LEN {
        return Err(CryptoError::InvalidParameter(
            "pbkdf2: output length must be 1..=1024 bytes",
        ));
    }
    let mut out = Zeroizing::new(vec![0u8; len]);
    pbkdf2::pbkdf2::<Hmac<Sha256>>(password, salt, iterations, &mut out)
        // HMAC accepts keys (passwords) of any length; this cannot happen.
        .map_err(|_| CryptoError::InvalidParameter("pbkdf2: password rejected by HMAC"))?;
    Ok(out)
}

// ---------------------------------------------------------------- Argon2id

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

// ---------------------------------------------------------------- Cost bounds

/// The inclusive range of one password-KDF cost parameter and the value a
/// writer uses when the caller gives none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CostBounds {
    /// Smallest accepted value.
    pub min: u32,
    /// Largest accepted value.
    pub max: u32,
    /// The writers' default.
    pub default: u32,
}

impl CostBounds {
    /// Whether `value` lies in `min..=max`.
    #[must_use]
    pub const fn contains(&self, value: u32) -> bool {
        value >= self.min && value <= self.max
    }
}

/// The bounds of an Argon2id cost (memory, passes, lanes) for one use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Argon2CostBounds {
    /// Memory cost in KiB.
    pub memory_kib: CostBounds,
    /// Time cost (passes).
    pub iterations: CostBounds,
    /// Lanes.
    pub parallelism: CostBounds,
}

/// The limits of the Argon2id primitive itself ([`argon2id`]); the memory
/// cost must also be at least 8 · parallelism.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Argon2Limits {
    /// [`ARGON2_MAX_MEMORY_KIB`].
    pub max_memory_kib: u32,
    /// [`ARGON2_MAX_PARALLELISM`].
    pub max_parallelism: u32,
    /// [`ARGON2_MIN_OUTPUT_LEN`].
    pub min_output_len: usize,
    /// [`ARGON2_MAX_OUTPUT_LEN`].
    pub max_output_len: usize,
    /// [`ARGON2_MIN_SALT_LEN`].
    pub min_salt_len: usize,
    /// [`ARGON2_MAX_SECRET_LEN`].
    pub max_secret_len: usize,
}

/// The default per-derivation KDF budget of every reader (container unlock,
/// keystore unlock, backup import): password costs over it are refused
/// before any work. `crate::container::KdfBudget::default()` is this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetDefaults {
    /// Largest Argon2id memory cost tried (KiB).
    pub argon2_memory_kib: u32,
    /// Largest Argon2id time cost tried.
    pub argon2_iterations: u32,
    /// Largest PBKDF2 iteration count tried.
    pub pbkdf2_iterations: u32,
    /// Most password wraps one container unlock tries.
    #[serde(rename = "passwordWraps")]
    pub password_attempts: u32,
}

/// Every bound on a password KDF's cost, in one table. The TypeScript facade
/// exports the same table as `KDF_BOUNDS` (`ts/kdf-bounds.ts`); a Node test
/// compares the two through the wasm getter `kdfBounds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KdfBounds {
    /// The Argon2id primitive ([`argon2id`]).
    pub argon2id: Argon2Limits,
    /// Largest output of the PBKDF2 primitive ([`PBKDF2_MAX_LEN`]).
    pub pbkdf2_max_output_len: usize,
    /// A container's Argon2id password wrap (type 1, FORMAT.md §5).
    pub wrap_argon2id: Argon2CostBounds,
    /// A container's PBKDF2 password wrap (type 0): the iteration count.
    pub wrap_pbkdf2_iterations: CostBounds,
    /// A keystore passphrase (lock and backup, KEYSTORE.md); enforced by the
    /// TypeScript keystore, listed here so the table is whole.
    pub passphrase_argon2id: Argon2CostBounds,
    /// The readers' default KDF budget.
    pub default_budget: BudgetDefaults,
}

const fn bounds(min: u32, max: u32, default: u32) -> CostBounds {
    CostBounds { min, max, default }
}

/// The Argon2id memory of a password (container wrap and keystore passphrase
/// alike): OWASP's 19 MiB floor up to the primitive's 1 GiB, 64 MiB by default.
const PASSWORD_MEMORY_KIB: CostBounds = bounds(19_456, ARGON2_MAX_MEMORY_KIB, 65_536);

/// The password-KDF bounds (see [`KdfBounds`]).
pub const KDF_BOUNDS: KdfBounds = KdfBounds {
    argon2id: Argon2Limits {
        max_memory_kib: ARGON2_MAX_MEMORY_KIB,
        max_parallelism: ARGON2_MAX_PARALLELISM,
        min_output_len: ARGON2_MIN_OUTPUT_LEN,
        max_output_len: ARGON2_MAX_OUTPUT_LEN,
        min_salt_len: ARGON2_MIN_SALT_LEN,
        max_secret_len: ARGON2_MAX_SECRET_LEN,
    },
    pbkdf2_max_output_len: PBKDF2_MAX_LEN,
    wrap_argon2id: Argon2CostBounds {
        memory_kib: PASSWORD_MEMORY_KIB,
        iterations: bounds(2, 10, 3),
        parallelism: bounds(1, ARGON2_MAX_PARALLELISM, 4),
    },
    wrap_pbkdf2_iterations: bounds(600_000, 10_000_000, 600_000),
    passphrase_argon2id: Argon2CostBounds {
        memory_kib: PASSWORD_MEMORY_KIB,
        iterations: bounds(2, 16, 3),
        parallelism: bounds(1, ARGON2_MAX_PARALLELISM, 1),
    },
    default_budget: BudgetDefaults {
        argon2_memory_kib: 262_144,
        argon2_iterations: 4,
        pbkdf2_iterations: 2_000_000,
        password_attempts: 2,
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    fn p(m: u32, t: u32, par: u32, len: usize) -> Argon2Params {
        Argon2Params {
            memory_kib: m,
            iterations: t,
            parallelism: par,
            output_len: len,
        }
    }

    #[test]
    fn hkdf_rfc5869_a3_and_ranges() {
        let okm = hkdf_sha256(&[0x0b; 22], b"", b"", 42).unwrap();
        assert_eq!(okm[..4], [0x8d, 0xa4, 0xe7, 0x75]);
        // Empty salt == 32 zero bytes.
        assert_eq!(
            hkdf_sha256(b"ikm", b"", b"i", 80).unwrap(),
            hkdf_sha256(b"ikm", &[0; 32], b"i", 80).unwrap()
        );
        assert_eq!(
            hkdf_sha256(b"ikm", b"s", b"i", HKDF_MAX_LEN).unwrap().len(),
            HKDF_MAX_LEN
        );
        for bad in [0, HKDF_MAX_LEN + 1] {
            assert!(matches!(
                hkdf_sha256(b"ikm", b"s", b"i", bad),
                Err(CryptoError::InvalidParameter(_))
            ));
        }
    }

    #[test]
    fn pbkdf2_rfc7914_and_ranges() {
        let dk = pbkdf2_sha256(b"passwd", b"salt", 1, 64).unwrap();
        assert_eq!(dk[..4], [0x55, 0xac, 0x04, 0x6e]);
        assert_eq!(
            pbkdf2_sha256(b"p", b"s", 1, PBKDF2_MAX_LEN).unwrap().len(),
            PBKDF2_MAX_LEN
        );
        assert!(matches!(
            pbkdf2_sha256(b"p", b"s", 0, 32),
            Err(CryptoError::InvalidParameter(_))
        ));
        assert!(matches!(
            pbkdf2_sha256(b"p", b"s", 1, 0),
            Err(CryptoError::InvalidParameter(_))
        ));
        assert!(matches!(
            pbkdf2_sha256(b"p", b"s", 1, 1025),
            Err(CryptoError::InvalidParameter(_))
        ));
    }

    #[test]
    fn argon2id_small_and_validation() {
        // pyca COUNT 5: argon2 -id -t 1 -k 8 -p 1 -l 4, password "password", salt "pycasalt"
        let out = argon2id(b"password", b"pycasalt", b"", b"", &p(8, 1, 1, 4)).unwrap();
        assert_eq!(out.as_slice(), [0x00, 0x9c, 0x78, 0x09]);

        let bad = [
            (p(64, 1, 0, 32), "parallelism"),
            (p(1024, 1, 17, 32), "parallelism"),
            (p(15, 1, 2, 32), "memory_kib"),
            (p(ARGON2_MAX_MEMORY_KIB + 1, 1, 1, 32), "memory_kib"),
            (p(64, 0, 1, 32), "iterations"),
            (p(64, 1, 1, 3), "output_len"),
            (p(64, 1, 1, 1025), "output_len"),
        ];
        for (params, what) in bad {
            match argon2id(b"pw", b"saltsalt", b"", b"", &params) {
                Err(CryptoError::InvalidParameter(m)) => assert!(m.contains(what), "{m} / {what}"),
                other => panic!("{params:?}: {other:?}"),
            }
            assert!(params.validate().is_err());
        }
        let ok = p(8, 1, 1, 32);
        for (salt, secret, ad, what) in [
            (&b"short"[..], &b""[..], &b""[..], "salt"),
            (&b"saltsalt"[..], &[0u8; 33][..], &b""[..], "secret"),
            (
                &b"saltsalt"[..],
                &b""[..],
                &[0u8; 33][..],
                "associated_data",
            ),
        ] {
            match argon2id(b"pw", salt, secret, ad, &ok) {
                Err(CryptoError::InvalidParameter(m)) => assert!(m.contains(what), "{m} / {what}"),
                other => panic!("{what}: {other:?}"),
            }
        }
        // Secret and AD change the result.
        let a = argon2id(b"pw", b"saltsalt", b"", b"", &ok).unwrap();
        let b = argon2id(b"pw", b"saltsalt", b"k", b"", &ok).unwrap();
        let c = argon2id(b"pw", b"saltsalt", b"", b"d", &ok).unwrap();
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_ne!(b, c);
    }

    #[test]
    fn bounds_table_is_consistent() {
        let b = KDF_BOUNDS;
        for c in [b.wrap_argon2id, b.passphrase_argon2id] {
            for r in [c.memory_kib, c.iterations, c.parallelism] {
                assert!(r.min <= r.default && r.default <= r.max, "{r:?}");
                assert!(r.contains(r.min) && r.contains(r.max) && !r.contains(r.max + 1));
            }
            assert!(c.memory_kib.max <= b.argon2id.max_memory_kib);
            assert!(c.parallelism.max <= b.argon2id.max_parallelism);
            // Every accepted cost is a valid primitive call (m ≥ 8 · p).
            assert!(c.memory_kib.min >= 8 * c.parallelism.max);
            assert!(c.iterations.min >= 1 && c.parallelism.min >= 1);
        }
        let p = b.wrap_pbkdf2_iterations;
        assert!(p.min <= p.default && p.default <= p.max);
        // The default budget admits the writers' defaults and stays within the format.
        let d = b.default_budget;
        assert!(d.argon2_memory_kib >= b.wrap_argon2id.memory_kib.default);
        assert!(d.argon2_memory_kib <= b.wrap_argon2id.memory_kib.max);
        assert!(d.argon2_iterations >= b.wrap_argon2id.iterations.default);
        assert!(d.argon2_iterations >= b.passphrase_argon2id.iterations.default);
        assert!(d.pbkdf2_iterations >= p.default && d.pbkdf2_iterations <= p.max);
        assert!(d.password_attempts >= 1);
    }
}
