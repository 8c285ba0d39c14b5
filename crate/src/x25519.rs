//! X25519 Diffie-Hellman key agreement (RFC 7748), over `x25519-dalek`.
//!
//! Secret keys are 32 uniformly random bytes (clamped inside the scalar
//! multiplication, as RFC 7748 specifies). Public keys are Montgomery
//! u-coordinates; the most significant bit is ignored, non-canonical values are
//! reduced, as RFC 7748 §5 requires. A shared secret that is all zero (the peer
//! sent a low-order point) is refused with [`CryptoError::WeakKey`].
//! [`x25519_check_public`] refuses such a point where a public key enters
//! without a key agreement (a bundle, the X-Wing encapsulation key).

use core::fmt;

use subtle::ConstantTimeEq;
use x25519_dalek::{PublicKey, StaticSecret};
use zeroize::Zeroizing;

use crate::error::{CryptoError, Result, exact};
use crate::rng;

/// Length of an X25519 secret key, public key and shared secret.
pub const KEY_LEN: usize = 32;

/// An X25519 key pair. The secret is wiped on drop; `Debug` shows only the public key.
pub struct X25519Keypair {
    /// The 32-byte secret scalar (unclamped random bytes).
    pub secret: Zeroizing<[u8; 32]>,
    /// The 32-byte public u-coordinate.
    pub public: [u8; 32],
}

impl fmt::Debug for X25519Keypair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("X25519Keypair")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// Generates a fresh X25519 key pair from the platform CSPRNG.
///
/// # Errors
/// [`CryptoError::RandomnessUnavailable`] if the random generator fails.
#[must_use = "the generated key pair is the only copy of the secret"]
pub fn x25519_generate() -> Result<X25519Keypair> {
    let secret = rng::array::<KEY_LEN>()?;
    let public = x25519_public(secret.as_slice())?;
    Ok(X25519Keypair { secret, public })
}

/// X25519 through an opaque function pointer, so LTO does not inline the
/// Montgomery ladder into veilkit's size-optimized code (see the `lc` module
/// of [`crate::mlkem`]): `dh(k, u)` = X25519(k, u).
pub(crate) mod ops {
    use core::hint::black_box;

    use x25519_dalek::{PublicKey, SharedSecret, StaticSecret};

    pub(crate) fn dh(secret: &StaticSecret, public: &PublicKey) -> SharedSecret {
        black_box(StaticSecret::diffie_hellman as fn(&StaticSecret, &PublicKey) -> SharedSecret)(
            secret, public,
        )
    }
}

/// Computes the public key `X25519(secret, 9)` of a 32-byte secret key.
///
/// # Errors
/// [`CryptoError::InvalidLength`] (`secretKey`) unless `secret` is 32 bytes.
#[must_use = "this returns the public key and has no side effect"]
pub fn x25519_public(secret: &[u8]) -> Result<[u8; 32]> {
    let secret = exact::<KEY_LEN>("secretKey", "32 bytes", secret)?;
    let secret = StaticSecret::from(*secret);
    Ok(PublicKey::from(&secret).to_bytes())
}

/// Every encoding of a small-order u-coordinate with bit 255 clear (the bit
/// X25519 ignores): 0, 1, the two of order 8, p − 1, p (= 0) and p + 1 (= 1)
/// — libsodium's blocklist. The curve's small subgroup has order 8 and the
/// twist's 4, so these five values mod p are exactly the keys whose X25519
/// with any clamped scalar (a multiple of 8) is all zero.
const SMALL_ORDER: [[u8; KEY_LEN]; 7] = [
    [0; 32],
    [
        1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0,
    ],
    [
        0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4,
        0x6a, 0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49,
        0xb8, 0x00,
    ],
    [
        0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef,
        0x5b, 0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f,
        0x11, 0x57,
    ],
    p_plus(0xec),
    p_plus(0xed),
    p_plus(0xee),
];

/// p − 1, p or p + 1 (p = 2^255 − 19): `low` ‖ 0xff × 30 ‖ 0x7f.
const fn p_plus(low: u8) -> [u8; KEY_LEN] {
    let mut k = [0xff; KEY_LEN];
    k[0] = low;
    k[KEY_LEN - 1] = 0x7f;
    k
}

/// Refuses a small-order X25519 public key, in any of its encodings
/// (bit 255 is ignored, p and p + 1 encode 0 and 1): the key of which every
/// key agreement is the all-zero value anyone knows. Not constant time
/// (public keys only).
///
/// # Errors
/// [`CryptoError::WeakKey`] for such a key.
pub fn x25519_check_public(public: &[u8; KEY_LEN]) -> Result<()> {
    let mut u = *public;
    if let Some(top) = u.last_mut() {
        *top &= 0x7f;
    }
    if SMALL_ORDER.contains(&u) {
        return Err(CryptoError::WeakKey);
    }
    Ok(())
}

/// Computes the X25519 shared secret between our `secret` and the peer's `public` key.
///
/// # Errors
/// - [`CryptoError::InvalidLength`] (`secretKey` / `publicKey`) unless both are 32 bytes.
/// - [`CryptoError::WeakKey`] if the result is the all-zero value (the peer's
///   key is a low-order point); the check is constant time.
#[must_use = "this returns the shared secret and has no side effect"]
pub fn x25519_dh(secret: &[u8], public: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    let secret = exact::<KEY_LEN>("secretKey", "32 bytes", secret)?;
    let public = exact::<KEY_LEN>("publicKey", "32 bytes", public)?;
    let secret = StaticSecret::from(*secret);
    let shared = ops::dh(&secret, &PublicKey::from(*public));
    let out = Zeroizing::new(shared.to_bytes());
    if bool::from(out.as_slice().ct_eq(&[0u8; KEY_LEN])) {
        return Err(CryptoError::WeakKey);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let a = x25519_generate().unwrap();
        let b = x25519_generate().unwrap();
        assert_ne!(*a.secret, *b.secret);
        assert_eq!(x25519_public(a.secret.as_slice()).unwrap(), a.public);
        let ab = x25519_dh(a.secret.as_slice(), &b.public).unwrap();
        let ba = x25519_dh(b.secret.as_slice(), &a.public).unwrap();
        assert_eq!(*ab, *ba);
        let dbg = format!("{a:?}");
        assert!(!dbg.contains("secret"));
    }

    #[test]
    fn wrong_lengths() {
        let a = x25519_generate().unwrap();
        assert!(matches!(
            x25519_public(&[0u8; 31]),
            Err(CryptoError::InvalidLength {
                what: "secretKey",
                got: 31,
                ..
            })
        ));
        assert!(matches!(
            x25519_dh(&[0u8; 33], &a.public),
            Err(CryptoError::InvalidLength {
                what: "secretKey",
                got: 33,
                ..
            })
        ));
        assert!(matches!(
            x25519_dh(a.secret.as_slice(), &[9u8; 31]),
            Err(CryptoError::InvalidLength {
                what: "publicKey",
                got: 31,
                ..
            })
        ));
    }

    #[test]
    fn low_order_point_is_weak() {
        let a = x25519_generate().unwrap();
        // u = 0 and u = 1 are low-order points: the shared secret is all zero.
        let mut one = [0u8; 32];
        one[0] = 1;
        assert_eq!(
            x25519_dh(a.secret.as_slice(), &[0u8; 32]),
            Err(CryptoError::WeakKey)
        );
        assert_eq!(
            x25519_dh(a.secret.as_slice(), &one),
            Err(CryptoError::WeakKey)
        );
    }

    #[test]
    fn small_order_list_is_exactly_the_all_zero_key_agreements() {
        // The 14 encodings (bit 255 clear and set) are refused, and the key
        // agreement with each is all zero for random scalars: the list and the
        // DH output check agree.
        for k in SMALL_ORDER {
            for high in [0u8, 0x80] {
                let mut pk = k;
                pk[31] |= high;
                assert_eq!(x25519_check_public(&pk), Err(CryptoError::WeakKey));
                for _ in 0..4 {
                    let a = x25519_generate().unwrap();
                    assert_eq!(
                        x25519_dh(a.secret.as_slice(), &pk),
                        Err(CryptoError::WeakKey)
                    );
                }
            }
        }
        // Honest keys, and the neighbours of the listed values, pass.
        for _ in 0..16 {
            assert_eq!(
                x25519_check_public(&x25519_generate().unwrap().public),
                Ok(())
            );
        }
        for k in SMALL_ORDER {
            for i in [0usize, 15, 31] {
                let mut pk = k;
                pk[i] ^= 0x10;
                assert_eq!(x25519_check_public(&pk), Ok(()), "{pk:02x?}");
            }
        }
    }

    #[test]
    fn tampered_public_key_changes_secret() {
        let a = x25519_generate().unwrap();
        let b = x25519_generate().unwrap();
        let mut tampered = b.public;
        tampered[3] ^= 1;
        let good = x25519_dh(a.secret.as_slice(), &b.public).unwrap();
        let bad = x25519_dh(a.secret.as_slice(), &tampered).unwrap();
        assert_ne!(*good, *bad);
    }

    #[test]
    fn rfc7748_section_6_1() {
        let alice_sk =
            hex::decode("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
                .unwrap();
        let bob_sk =
            hex::decode("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
                .unwrap();
        let alice_pk = x25519_public(&alice_sk).unwrap();
        let bob_pk = x25519_public(&bob_sk).unwrap();
        assert_eq!(
            hex::encode(alice_pk),
            "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
        );
        assert_eq!(
            hex::encode(bob_pk),
            "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"
        );
        let k = x25519_dh(&alice_sk, &bob_pk).unwrap();
        assert_eq!(
            hex::encode(*k),
            "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        );
    }
}
