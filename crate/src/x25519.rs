//! X25519 Diffie-Hellman key agreement (RFC 7748), over `x25519-dalek`.
//!
//! Secret keys are 32 uniformly random bytes (clamped inside the scalar
//! multiplication, as RFC 7748 specifies). Public keys are Montgomery
//! u-coordinates; the most significant bit is ignored, non-canonical values are
//! reduced, as RFC 7748 §5 requires. A shared secret that is all zero (the peer
//! sent a low-order point) is refused with [`CryptoError::WeakKey`].

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
