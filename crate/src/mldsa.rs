//! ML-DSA-65 signatures (FIPS 204, pure ML-DSA with a context string), over
//! RustCrypto `ml-dsa`.
//!
//! - The secret key is the 32-byte seed `ξ` (FIPS 204 `ML-DSA.KeyGen_internal`).
//! - Signing is hedged by default: the 32-byte `rnd` comes from [`crate::rng`];
//!   the deterministic variant uses `rnd = 0³²`. The crate is driven through a
//!   one-shot generator that yields exactly the given `rnd`, so no fallible RNG
//!   object can panic inside it.
//! - Every 1952-byte string is a well-formed public key (`pkDecode` accepts all
//!   10-bit `t1` values), so a malformed public key can only be of the wrong
//!   length ([`CryptoError::InvalidLength`]); a wrong key of the right length
//!   makes verification fail with [`CryptoError::InvalidSignature`].
//! - Signatures are decoded strictly (`sigDecode`: canonical hint encoding,
//!   `‖z‖∞ < γ1 − β`); any violation is [`CryptoError::InvalidSignature`].

use core::fmt;

use ml_dsa::signature::rand_core::{TryCryptoRng, TryRng};
use ml_dsa::{ExpandedSigningKey, Keypair, MlDsa65, Signature, SigningKey, VerifyingKey};
use zeroize::Zeroizing;

use crate::error::{CryptoError, Result, exact};
use crate::rng;

/// Length of a public (verifying) key.
pub const PK_LEN: usize = 1952;
/// Length of a signature.
pub const SIG_LEN: usize = 3309;
/// Length of the secret seed `ξ`.
pub const SEED_LEN: usize = 32;
/// Length of the signing randomness `rnd`.
pub const RND_LEN: usize = 32;
/// Maximum length of the context string.
pub const MAX_CONTEXT_LEN: usize = 255;
/// Length of the legacy expanded private key (`skEncode`), test-vector use only.
#[doc(hidden)]
pub const EXPANDED_SK_LEN: usize = 4032;

/// An ML-DSA-65 key pair. The seed is wiped on drop; `Debug` shows only the public key length.
pub struct MlDsaKeypair {
    /// The 32-byte secret seed `ξ` (the secret key form).
    pub seed: Zeroizing<[u8; 32]>,
    /// The 1952-byte public key.
    pub public: Vec<u8>,
}

impl fmt::Debug for MlDsaKeypair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MlDsaKeypair")
            .field("public_len", &self.public.len())
            .finish_non_exhaustive()
    }
}

/// Generates a fresh ML-DSA-65 key pair (seed from the platform CSPRNG).
///
/// # Errors
/// [`CryptoError::RandomnessUnavailable`] if the random generator fails.
#[must_use = "the generated key pair is the only copy of the secret"]
pub fn mldsa_generate() -> Result<MlDsaKeypair> {
    let seed = rng::array::<SEED_LEN>()?;
    mldsa_from_seed(seed.as_slice())
}

/// Derives the ML-DSA-65 key pair of a 32-byte seed (FIPS 204 Algorithm 6).
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`seed`) unless `seed` is 32 bytes.
#[must_use = "this returns the key pair and has no side effect"]
pub fn mldsa_from_seed(seed: &[u8]) -> Result<MlDsaKeypair> {
    let seed = exact::<SEED_LEN>("seed", "32 bytes", seed)?;
    let signing = SigningKey::<MlDsa65>::from_seed(seed.into());
    let public = signing.verifying_key().encode().to_vec();
    Ok(MlDsaKeypair {
        seed: Zeroizing::new(*seed),
        public,
    })
}

/// Signs `msg` under context `ctx` (FIPS 204 Algorithm 2, pure ML-DSA).
///
/// Hedged (fresh random `rnd`) unless `deterministic`, which uses `rnd = 0³²`
/// (same key, message and context give the same signature).
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`seed`) unless `seed` is 32 bytes.
/// - [`CryptoError::InvalidParameter`] if `ctx` is longer than 255 bytes.
/// - [`CryptoError::RandomnessUnavailable`] if the random generator fails (hedged only).
#[must_use = "this returns the signature and has no side effect"]
pub fn mldsa_sign(seed: &[u8], msg: &[u8], ctx: &[u8], deterministic: bool) -> Result<Vec<u8>> {
    let key = expanded_key(seed)?;
    check_context(ctx)?;
    let rnd = if deterministic {
        Zeroizing::new([0u8; RND_LEN])
    } else {
        rng::array::<RND_LEN>()?
    };
    sign_with(&key, msg, ctx, &rnd)
}

/// Signs `msg` under context `ctx` with caller-provided randomness `rnd`
/// (FIPS 204 Algorithm 2). For known-answer tests; use [`mldsa_sign`] otherwise.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`seed` 32 bytes, `rnd` 32 bytes).
/// - [`CryptoError::InvalidParameter`] if `ctx` is longer than 255 bytes.
#[must_use = "this returns the signature and has no side effect"]
pub fn mldsa_sign_with_rnd(seed: &[u8], msg: &[u8], ctx: &[u8], rnd: &[u8]) -> Result<Vec<u8>> {
    let key = expanded_key(seed)?;
    check_context(ctx)?;
    let rnd = exact::<RND_LEN>("rnd", "32 bytes", rnd)?;
    sign_with(&key, msg, ctx, rnd)
}

/// Signs with a legacy 4032-byte expanded private key (`skEncode` form), as
/// used by some test-vector suites. The `s1`/`s2` coefficients are
/// range-checked (constant time) before use. Not part of the stable API.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`privateKey` 4032 bytes, `rnd` 32 bytes).
/// - [`CryptoError::InvalidKey`] if an `s1`/`s2` coefficient is outside `[-η, η]`.
/// - [`CryptoError::InvalidParameter`] if `ctx` is longer than 255 bytes.
#[doc(hidden)]
#[must_use = "this returns the signature and has no side effect"]
pub fn mldsa_sign_expanded_with_rnd(
    sk: &[u8],
    msg: &[u8],
    ctx: &[u8],
    rnd: &[u8],
) -> Result<Vec<u8>> {
    let sk = exact::<EXPANDED_SK_LEN>("privateKey", "4032 bytes", sk)?;
    check_expanded_key(sk)?;
    check_context(ctx)?;
    let rnd = exact::<RND_LEN>("rnd", "32 bytes", rnd)?;
    #[allow(deprecated)]
    let key = ExpandedSigningKey::<MlDsa65>::from_expanded(sk.into());
    sign_with(&key, msg, ctx, rnd)
}

/// Verifies an ML-DSA-65 signature on `msg` under context `ctx` (FIPS 204 Algorithm 3).
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`publicKey` 1952 bytes, `signature` 3309 bytes).
/// - [`CryptoError::InvalidParameter`] if `ctx` is longer than 255 bytes.
/// - [`CryptoError::InvalidSignature`] if the signature is malformed or does not verify.
#[must_use = "the signature is only checked if the result is inspected"]
pub fn mldsa_verify(pk: &[u8], msg: &[u8], ctx: &[u8], sig: &[u8]) -> Result<()> {
    let pk = exact::<PK_LEN>("publicKey", "1952 bytes", pk)?;
    let sig = exact::<SIG_LEN>("signature", "3309 bytes", sig)?;
    check_context(ctx)?;
    let key = VerifyingKey::<MlDsa65>::decode(pk.into());
    let sig = Signature::<MlDsa65>::decode(sig.into()).ok_or(CryptoError::InvalidSignature)?;
    if key.verify_with_context(msg, ctx, &sig) {
        Ok(())
    } else {
        Err(CryptoError::InvalidSignature)
    }
}

fn expanded_key(seed: &[u8]) -> Result<ExpandedSigningKey<MlDsa65>> {
    let seed = exact::<SEED_LEN>("seed", "32 bytes", seed)?;
    Ok(ExpandedSigningKey::<MlDsa65>::from_seed(seed.into()))
}

fn check_context(ctx: &[u8]) -> Result<()> {
    if ctx.len() > MAX_CONTEXT_LEN {
        return Err(CryptoError::InvalidParameter(
            "ML-DSA context longer than 255 bytes",
        ));
    }
    Ok(())
}

/// Range check of the packed `s1 ‖ s2` (η = 4: 4-bit values `η − c` must be ≤ 2η = 8).
/// Layout: `ρ (32) ‖ K (32) ‖ tr (64) ‖ s1 (5·128) ‖ s2 (6·128) ‖ t0 (6·416)`.
/// Every `t0` encoding is in range, so it needs no check.
fn check_expanded_key(sk: &[u8; EXPANDED_SK_LEN]) -> Result<()> {
    const S_START: usize = 32 + 32 + 64;
    const S_END: usize = S_START + 5 * 128 + 6 * 128;
    // Constant time: accumulate a flag instead of stopping at the first bad nibble.
    let above_eight = |nibble: u8| (8u8.wrapping_sub(nibble) >> 7) & 1;
    let bad = sk
        .get(S_START..S_END)
        .ok_or(CryptoError::InvalidKey("ML-DSA expanded key too short"))?
        .iter()
        .fold(0u8, |acc, &b| {
            acc | above_eight(b & 0x0f) | above_eight(b >> 4)
        });
    if bad == 0 {
        Ok(())
    } else {
        Err(CryptoError::InvalidKey(
            "ML-DSA expanded key: s1/s2 coefficient out of range",
        ))
    }
}

/// A one-shot generator that yields exactly the caller's 32-byte `rnd`, once.
/// Any other request is an error (returned, never a panic).
struct FixedRnd<'a> {
    rnd: Option<&'a [u8; RND_LEN]>,
}

#[derive(Debug)]
struct RndExhausted;

impl fmt::Display for RndExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("fixed ML-DSA rnd already used or wrong size requested")
    }
}

impl core::error::Error for RndExhausted {}

impl TryRng for FixedRnd<'_> {
    type Error = RndExhausted;

    fn try_next_u32(&mut self) -> core::result::Result<u32, Self::Error> {
        Err(RndExhausted)
    }

    fn try_next_u64(&mut self) -> core::result::Result<u64, Self::Error> {
        Err(RndExhausted)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> core::result::Result<(), Self::Error> {
        match (self.rnd.take(), <&mut [u8; RND_LEN]>::try_from(dst)) {
            (Some(rnd), Ok(dst)) => {
                *dst = *rnd;
                Ok(())
            }
            _ => Err(RndExhausted),
        }
    }
}

impl TryCryptoRng for FixedRnd<'_> {}

fn sign_with(
    key: &ExpandedSigningKey<MlDsa65>,
    msg: &[u8],
    ctx: &[u8],
    rnd: &[u8; RND_LEN],
) -> Result<Vec<u8>> {
    let mut fixed = FixedRnd { rnd: Some(rnd) };
    let sig = key
        .sign_randomized(msg, ctx, &mut fixed)
        .map_err(|_| CryptoError::InvalidKey("ML-DSA signing failed (no signature found)"))?;
    Ok(sig.encode().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let kp = mldsa_generate().unwrap();
        assert_eq!(kp.public.len(), PK_LEN);
        let sig = mldsa_sign(kp.seed.as_slice(), b"msg", b"ctx", false).unwrap();
        assert_eq!(sig.len(), SIG_LEN);
        mldsa_verify(&kp.public, b"msg", b"ctx", &sig).unwrap();
        // Hedged signatures differ; deterministic ones repeat.
        let sig2 = mldsa_sign(kp.seed.as_slice(), b"msg", b"ctx", false).unwrap();
        assert_ne!(sig, sig2);
        let d1 = mldsa_sign(kp.seed.as_slice(), b"msg", b"", true).unwrap();
        let d2 = mldsa_sign_with_rnd(kp.seed.as_slice(), b"msg", b"", &[0; 32]).unwrap();
        assert_eq!(d1, d2);
        mldsa_verify(&kp.public, b"msg", b"", &d1).unwrap();
        let max_ctx = [7u8; 255];
        let s = mldsa_sign(kp.seed.as_slice(), b"m", &max_ctx, false).unwrap();
        mldsa_verify(&kp.public, b"m", &max_ctx, &s).unwrap();
        assert_eq!(
            mldsa_from_seed(kp.seed.as_slice()).unwrap().public,
            kp.public
        );
        assert!(!format!("{kp:?}").contains("seed"));
    }

    #[test]
    fn tamper() {
        let kp = mldsa_from_seed(&[1; 32]).unwrap();
        let sig = mldsa_sign(kp.seed.as_slice(), b"msg", b"ctx", true).unwrap();
        let fail = |r: Result<()>| assert_eq!(r, Err(CryptoError::InvalidSignature));
        fail(mldsa_verify(&kp.public, b"msh", b"ctx", &sig));
        fail(mldsa_verify(&kp.public, b"msg", b"ctz", &sig));
        fail(mldsa_verify(&kp.public, b"msg", b"", &sig));
        for i in [0, 100, 2000, SIG_LEN - 1] {
            let mut bad = sig.clone();
            bad[i] ^= 1;
            fail(mldsa_verify(&kp.public, b"msg", b"ctx", &bad));
        }
        let other = mldsa_from_seed(&[2; 32]).unwrap();
        fail(mldsa_verify(&other.public, b"msg", b"ctx", &sig));
    }

    #[test]
    fn wrong_lengths_and_context() {
        let kp = mldsa_from_seed(&[1; 32]).unwrap();
        let sig = mldsa_sign(kp.seed.as_slice(), b"m", b"", true).unwrap();
        let long_ctx = [0u8; 256];
        assert!(matches!(
            mldsa_from_seed(&[0; 31]),
            Err(CryptoError::InvalidLength { what: "seed", .. })
        ));
        assert!(matches!(
            mldsa_sign(&[0; 33], b"m", b"", true),
            Err(CryptoError::InvalidLength { what: "seed", .. })
        ));
        assert!(matches!(
            mldsa_sign_with_rnd(kp.seed.as_slice(), b"m", b"", &[0; 31]),
            Err(CryptoError::InvalidLength { what: "rnd", .. })
        ));
        assert!(matches!(
            mldsa_sign(kp.seed.as_slice(), b"m", &long_ctx, false),
            Err(CryptoError::InvalidParameter(_))
        ));
        assert!(matches!(
            mldsa_verify(&kp.public, b"m", &long_ctx, &sig),
            Err(CryptoError::InvalidParameter(_))
        ));
        assert!(matches!(
            mldsa_verify(&kp.public[1..], b"m", b"", &sig),
            Err(CryptoError::InvalidLength {
                what: "publicKey",
                ..
            })
        ));
        assert!(matches!(
            mldsa_verify(&kp.public, b"m", b"", &sig[1..]),
            Err(CryptoError::InvalidLength {
                what: "signature",
                ..
            })
        ));
    }

    #[test]
    fn expanded_key_matches_seed_and_is_range_checked() {
        let seed = [9u8; 32];
        let signing = SigningKey::<MlDsa65>::from_seed((&seed).into());
        #[allow(deprecated)]
        let expanded = signing.expanded_key().to_expanded().to_vec();
        let a = mldsa_sign_with_rnd(&seed, b"m", b"c", &[5; 32]).unwrap();
        let b = mldsa_sign_expanded_with_rnd(&expanded, b"m", b"c", &[5; 32]).unwrap();
        assert_eq!(a, b);
        let mut bad = expanded.clone();
        bad[128] = 0x09; // s1[0] nibble 9 > 2η
        assert!(matches!(
            mldsa_sign_expanded_with_rnd(&bad, b"m", b"c", &[5; 32]),
            Err(CryptoError::InvalidKey(_))
        ));
        let mut bad = expanded;
        bad[128 + 640 + 767] = 0xf0; // last s2 byte, high nibble 15
        assert!(matches!(
            mldsa_sign_expanded_with_rnd(&bad, b"m", b"c", &[5; 32]),
            Err(CryptoError::InvalidKey(_))
        ));
    }

    #[test]
    fn fixed_rnd_is_one_shot() {
        let rnd = [3u8; 32];
        let mut fixed = FixedRnd { rnd: Some(&rnd) };
        let mut short = [0u8; 16];
        assert!(fixed.try_fill_bytes(&mut short).is_err());
        let mut fixed = FixedRnd { rnd: Some(&rnd) };
        let mut buf = [0u8; 32];
        fixed.try_fill_bytes(&mut buf).unwrap();
        assert_eq!(buf, rnd);
        assert!(fixed.try_fill_bytes(&mut buf).is_err());
        assert!(fixed.try_next_u32().is_err());
    }
}
