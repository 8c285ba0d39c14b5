//! ML-DSA-65 signatures (FIPS 204, pure ML-DSA with a context string), over
//! Cryspen's formally verified `libcrux-ml-dsa` (portable implementation;
//! checked against the Wycheproof and NIST ACVP vectors in `tests/asym_mldsa.rs`).
//!
//! - The secret key is the 32-byte seed `ξ` (FIPS 204 `ML-DSA.KeyGen_internal`).
//! - Signing is hedged by default: the 32-byte `rnd` comes from [`crate::rng`];
//!   the deterministic variant uses `rnd = 0³²`. The crate takes `rnd` as a
//!   value, so no RNG object is handed to it.
//! - The crate's key types do not wipe themselves: the expanded signing key
//!   (`skEncode`, 4032 bytes) is wiped here after every use.
//! - Every 1952-byte string is a well-formed public key (`pkDecode` accepts all
//!   10-bit `t1` values), so a malformed public key can only be of the wrong
//!   length ([`CryptoError::InvalidLength`]); a wrong key of the right length
//!   makes verification fail with [`CryptoError::InvalidSignature`].
//! - Signatures are decoded strictly (`sigDecode`: canonical hint encoding,
//!   `‖z‖∞ < γ1 − β`); any violation is [`CryptoError::InvalidSignature`].

use core::fmt;

use libcrux_ml_dsa::ml_dsa_65::{MLDSA65Signature, MLDSA65SigningKey, MLDSA65VerificationKey};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{CryptoError, Result, exact};
use crate::rng;

/// Calls into `libcrux-ml-dsa` through opaque function pointers, so LTO does
/// not inline them into veilkit's size-optimized code (see [`crate::mlkem`]'s
/// `lc` module for the reason).
mod ml_dsa_65 {
    use core::hint::black_box;

    use libcrux_ml_dsa::ml_dsa_65::{
        self, MLDSA65KeyPair, MLDSA65Signature, MLDSA65SigningKey, MLDSA65VerificationKey,
    };
    use libcrux_ml_dsa::{SigningError, VerificationError};

    pub(super) fn generate_key_pair(seed: [u8; 32]) -> MLDSA65KeyPair {
        black_box(ml_dsa_65::generate_key_pair as fn([u8; 32]) -> MLDSA65KeyPair)(seed)
    }

    pub(super) fn sign(
        key: &MLDSA65SigningKey,
        msg: &[u8],
        ctx: &[u8],
        rnd: [u8; 32],
    ) -> Result<MLDSA65Signature, SigningError> {
        black_box(
            ml_dsa_65::sign
                as fn(
                    &MLDSA65SigningKey,
                    &[u8],
                    &[u8],
                    [u8; 32],
                ) -> Result<MLDSA65Signature, SigningError>,
        )(key, msg, ctx, rnd)
    }

    pub(super) fn verify(
        key: &MLDSA65VerificationKey,
        msg: &[u8],
        ctx: &[u8],
        sig: &MLDSA65Signature,
    ) -> Result<(), VerificationError> {
        black_box(
            ml_dsa_65::verify
                as fn(
                    &MLDSA65VerificationKey,
                    &[u8],
                    &[u8],
                    &MLDSA65Signature,
                ) -> Result<(), VerificationError>,
        )(key, msg, ctx, sig)
    }
}

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
    let key = expanded_key(seed)?;
    let public = key.public.as_slice().to_vec();
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
    let key = expanded_key(seed)?.signing;
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
    let key = expanded_key(seed)?.signing;
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
    let key = SigningKey(MLDSA65SigningKey::new(*sk));
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
    let key = MLDSA65VerificationKey::new(*pk);
    let sig = MLDSA65Signature::new(*sig);
    ml_dsa_65::verify(&key, msg, ctx, &sig).map_err(|_| CryptoError::InvalidSignature)
}

/// An expanded signing key, wiped on drop.
struct SigningKey(MLDSA65SigningKey);

impl Drop for SigningKey {
    fn drop(&mut self) {
        self.0.as_ref_mut().zeroize();
    }
}

/// The key pair of a seed (FIPS 204 `ML-DSA.KeyGen_internal`): expanded signing key and public key.
struct ExpandedPair {
    signing: SigningKey,
    public: MLDSA65VerificationKey,
}

fn expanded_key(seed: &[u8]) -> Result<ExpandedPair> {
    let seed = Zeroizing::new(*exact::<SEED_LEN>("seed", "32 bytes", seed)?);
    let pair = ml_dsa_65::generate_key_pair(*seed);
    Ok(ExpandedPair {
        signing: SigningKey(pair.signing_key),
        public: pair.verification_key,
    })
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

fn sign_with(key: &SigningKey, msg: &[u8], ctx: &[u8], rnd: &[u8; RND_LEN]) -> Result<Vec<u8>> {
    // The context was checked by the caller; the crate's only other failure is
    // running out of rejection-sampling iterations (probability < 2^-128 per FIPS 204 §3.6.3 bound).
    let sig = ml_dsa_65::sign(&key.0, msg, ctx, *rnd)
        .map_err(|_| CryptoError::InvalidKey("ML-DSA signing failed (no signature found)"))?;
    Ok(sig.as_slice().to_vec())
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
        let expanded = ml_dsa_65::generate_key_pair(seed)
            .signing_key
            .as_slice()
            .to_vec();
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
}
