//! Hashes and MACs: SHA-256 (FIPS 180-4), HMAC-SHA-256 (RFC 2104 / FIPS 198-1)
//! and BLAKE3 (hash, keyed hash, key derivation; extendable output).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Digest;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use crate::error::{CryptoError, Result, exact};

/// SHA-256 digest length in bytes.
pub const SHA256_LEN: usize = 32;
/// SHA-256 block length in bytes (the HMAC key block).
const SHA256_BLOCK_LEN: usize = 64;
/// Shortest HMAC tag accepted by [`hmac_sha256_verify`] (128 bits).
pub const HMAC_MIN_TAG_LEN: usize = 16;
/// BLAKE3 key length (keyed mode) in bytes.
pub const BLAKE3_KEY_LEN: usize = 32;
/// Largest BLAKE3 output produced by this API, in bytes.
pub const BLAKE3_MAX_OUT: usize = 65536;

// ---------------------------------------------------------------- SHA-256

/// SHA-256 of `data`.
#[must_use]
pub fn sha256(data: &[u8]) -> [u8; 32] {
    sha2::Sha256::digest(data).into()
}

/// Streaming SHA-256.
#[derive(Clone, Default)]
pub struct Sha256(sha2::Sha256);

impl Sha256 {
    /// A fresh SHA-256 state.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.0, data);
    }

    /// The digest of everything absorbed.
    #[must_use]
    pub fn finalize(self) -> [u8; 32] {
        self.0.finalize().into()
    }
}

// ---------------------------------------------------------------- HMAC-SHA-256

/// HMAC-SHA-256 keyed with `key` (any length).
///
/// The key is brought to the 64-byte HMAC key block here (hashed if longer
/// than a block, zero-padded otherwise, RFC 2104 §2), so construction is
/// infallible; the temporary block is zeroized.
fn hmac_state(key: &[u8]) -> Hmac<sha2::Sha256> {
    let mut block = Zeroizing::new([0u8; SHA256_BLOCK_LEN]);
    if key.len() > SHA256_BLOCK_LEN {
        let mut digest = Zeroizing::new(sha256(key));
        block
            .iter_mut()
            .zip(digest.iter())
            .for_each(|(b, d)| *b = *d);
        digest.zeroize();
    } else {
        block.iter_mut().zip(key.iter()).for_each(|(b, k)| *b = *k);
    }
    <Hmac<sha2::Sha256> as KeyInit>::new((&*block).into())
}

/// HMAC-SHA-256 of `data` under `key` (any key length).
#[must_use]
pub fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut mac = hmac_state(key);
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// Verifies an HMAC-SHA-256 `tag` over `data` in constant time.
///
/// `tag` may be truncated (RFC 2104 §5): 16 to 32 bytes, compared against the
/// same-length prefix of the full MAC.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`what: "tag"`) if `tag` is not 16..=32 bytes.
/// - [`CryptoError::AuthenticationFailed`] if the tag does not match.
pub fn hmac_sha256_verify(key: &[u8], data: &[u8], tag: &[u8]) -> Result<()> {
    if tag.len() < HMAC_MIN_TAG_LEN || tag.len() > SHA256_LEN {
        return Err(CryptoError::length("tag", "16 to 32 bytes", tag.len()));
    }
    let full = Zeroizing::new(hmac_sha256(key, data));
    let expected =
        full.get(..tag.len())
            .ok_or(CryptoError::length("tag", "16 to 32 bytes", tag.len()))?;
    if bool::from(expected.ct_eq(tag)) {
        Ok(())
    } else {
        Err(CryptoError::AuthenticationFailed)
    }
}

// ---------------------------------------------------------------- BLAKE3

fn check_blake3_out(out_len: usize) -> Result<()> {
    if out_len == 0 || out_len > BLAKE3_MAX_OUT {
        return Err(CryptoError::InvalidParameter(
            "blake3: output length must be 1..=65536 bytes",
        ));
    }
    Ok(())
}

/// Squeezes `out_len` bytes from a finished hasher, zeroizing its state.
fn blake3_squeeze(mut hasher: blake3::Hasher, out: &mut [u8]) {
    let mut reader = hasher.finalize_xof();
    reader.fill(out);
    reader.zeroize();
    hasher.zeroize();
}

/// BLAKE3 hash of `data`, `out_len` bytes of extendable output (32 is the
/// standard digest; longer outputs extend it, shorter ones are its prefix).
///
/// # Errors
/// [`CryptoError::InvalidParameter`] if `out_len` is not in `1..=`[`BLAKE3_MAX_OUT`].
#[must_use = "the digest is the only output"]
pub fn blake3_hash(data: &[u8], out_len: usize) -> Result<Vec<u8>> {
    check_blake3_out(out_len)?;
    let mut hasher = blake3::Hasher::new();
    hasher.update(data);
    let mut out = vec![0u8; out_len];
    blake3_squeeze(hasher, &mut out);
    Ok(out)
}

/// BLAKE3 keyed hash (a MAC / PRF) of `data` under a 32-byte `key`, `out_len`
/// bytes of extendable output.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`what: "key"`) if `key` is not 32 bytes.
/// - [`CryptoError::InvalidParameter`] if `out_len` is not in `1..=`[`BLAKE3_MAX_OUT`].
#[must_use = "the keyed hash is the only output"]
pub fn blake3_keyed(key: &[u8], data: &[u8], out_len: usize) -> Result<Vec<u8>> {
    let key = exact::<BLAKE3_KEY_LEN>("key", "32 bytes", key)?;
    check_blake3_out(out_len)?;
    let mut hasher = blake3::Hasher::new_keyed(key);
    hasher.update(data);
    let mut out = vec![0u8; out_len];
    blake3_squeeze(hasher, &mut out);
    Ok(out)
}

/// BLAKE3 key derivation: `out_len` bytes derived from `material` under the
/// application-specific, hard-coded `context` string
/// (e.g. `"veilkit 2025-01-01 file key"`).
///
/// # Errors
/// [`CryptoError::InvalidParameter`] if `out_len` is not in `1..=`[`BLAKE3_MAX_OUT`].
#[must_use = "the derived key is the only output"]
pub fn blake3_derive_key(
    context: &str,
    material: &[u8],
    out_len: usize,
) -> Result<Zeroizing<Vec<u8>>> {
    check_blake3_out(out_len)?;
    let mut hasher = blake3::Hasher::new_derive_key(context);
    hasher.update(material);
    let mut out = Zeroizing::new(vec![0u8; out_len]);
    blake3_squeeze(hasher, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_streaming_matches_one_shot() {
        let data: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
        let mut h = Sha256::new();
        for chunk in data.chunks(37) {
            h.update(chunk);
        }
        assert_eq!(h.finalize(), sha256(&data));
        assert_eq!(sha256(b"abc")[..4], [0xba, 0x78, 0x16, 0xbf]);
    }

    #[test]
    fn hmac_long_and_short_keys() {
        // Key lengths around the block size all agree with the crate's own key handling.
        for n in [0usize, 1, 32, 63, 64, 65, 131, 200] {
            let key = vec![0xaau8; n];
            let ours = hmac_sha256(&key, b"msg");
            let mut m = <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&key).unwrap();
            m.update(b"msg");
            assert_eq!(ours[..], m.finalize().into_bytes()[..], "key len {n}");
        }
    }

    #[test]
    fn hmac_verify() {
        let tag = hmac_sha256(b"k", b"d");
        for n in 16..=32 {
            hmac_sha256_verify(b"k", b"d", &tag[..n]).unwrap();
        }
        for n in [0usize, 15, 33] {
            let t = vec![0u8; n];
            assert!(matches!(
                hmac_sha256_verify(b"k", b"d", &t),
                Err(CryptoError::InvalidLength { what: "tag", .. })
            ));
        }
        for i in 0..256 {
            let mut bad = tag;
            bad[i / 8] ^= 1 << (i % 8);
            assert_eq!(
                hmac_sha256_verify(b"k", b"d", &bad),
                Err(CryptoError::AuthenticationFailed)
            );
        }
        assert_eq!(
            hmac_sha256_verify(b"K", b"d", &tag),
            Err(CryptoError::AuthenticationFailed)
        );
    }

    #[test]
    fn blake3_ranges_and_prefixes() {
        let long = blake3_hash(b"abc", 200).unwrap();
        assert_eq!(blake3_hash(b"abc", 32).unwrap()[..], long[..32]);
        assert_eq!(
            blake3_hash(b"abc", BLAKE3_MAX_OUT).unwrap().len(),
            BLAKE3_MAX_OUT
        );
        for bad in [0, BLAKE3_MAX_OUT + 1] {
            assert!(matches!(
                blake3_hash(b"", bad),
                Err(CryptoError::InvalidParameter(_))
            ));
            assert!(matches!(
                blake3_keyed(&[0; 32], b"", bad),
                Err(CryptoError::InvalidParameter(_))
            ));
            assert!(matches!(
                blake3_derive_key("c", b"", bad),
                Err(CryptoError::InvalidParameter(_))
            ));
        }
        assert!(matches!(
            blake3_keyed(&[0; 31], b"", 32),
            Err(CryptoError::InvalidLength { what: "key", .. })
        ));
        assert_ne!(
            blake3_keyed(&[0; 32], b"x", 32).unwrap(),
            blake3_hash(b"x", 32).unwrap()
        );
        assert_ne!(
            blake3_derive_key("a", b"x", 32).unwrap(),
            blake3_derive_key("b", b"x", 32).unwrap()
        );
    }
}
