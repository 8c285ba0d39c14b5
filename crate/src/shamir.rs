//! Shamir secret sharing over GF(2^8) (AES/Rijndael polynomial
//! x^8 + x^4 + x^3 + x + 1, the field SLIP-0039 also uses).
//!
//! Each secret byte is the constant term of an independent random polynomial
//! of degree `threshold − 1`; share `i` holds the evaluations at `x = i`
//! (`x = 1..=count`). Field arithmetic is branch-free and table-free
//! (constant time): multiplication by shift-and-add with masks, inversion as
//! `a^254`. Combining uses Lagrange interpolation at `x = 0`.
//!
//! Combining fewer than `threshold` shares yields an unrelated value (this is
//! what makes the scheme hiding); formats that need to detect that carry the
//! threshold and a checksum next to the shares (see the container's `vcs_`
//! share export).

use crate::error::{CryptoError, Result};
use crate::rng;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Largest secret accepted, in bytes.
pub const MAX_SECRET_LEN: usize = 1024;

/// One share: the evaluation point `x` (1..=255) and one byte per secret byte.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Share {
    /// Evaluation point, never 0.
    pub x: u8,
    /// Evaluations, as long as the secret.
    pub y: Vec<u8>,
}

impl Share {
    /// Serialises as `x ‖ y`.
    #[must_use]
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(1 + self.y.len()));
        out.push(self.x);
        out.extend_from_slice(&self.y);
        out
    }

    /// Parses `x ‖ y` (at least 2 bytes).
    ///
    /// # Errors
    /// [`CryptoError::InvalidLength`] if shorter than 2 bytes,
    /// [`CryptoError::InvalidShares`] if `x = 0`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match bytes.split_first() {
            Some((&x, y)) if !y.is_empty() => {
                if x == 0 {
                    return Err(CryptoError::InvalidShares("share x must not be 0"));
                }
                Ok(Self { x, y: y.to_vec() })
            }
            _ => Err(CryptoError::length(
                "share",
                "at least 2 bytes (x ‖ y)",
                bytes.len(),
            )),
        }
    }
}

/// Constant-time multiplication in GF(2^8) mod 0x11b.
#[inline]
fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    for _ in 0..8 {
        p ^= a & 0u8.wrapping_sub(b & 1);
        let carry = 0u8.wrapping_sub(a >> 7);
        a = (a << 1) ^ (0x1b & carry);
        b >>= 1;
    }
    p
}

/// Constant-time inverse (`a^254`; maps 0 to 0, callers never pass 0).
#[inline]
fn gf_inv(a: u8) -> u8 {
    // a^254 = a^(2+4+8+16+32+64+128)
    let mut result = 1u8;
    let mut power = a;
    for _ in 0..7 {
        power = gf_mul(power, power);
        result = gf_mul(result, power);
    }
    result
}

/// Splits `secret` into `count` shares, any `threshold` of which recover it.
///
/// # Errors
/// [`CryptoError::InvalidParameter`] unless `2 ≤ threshold ≤ count ≤ 255`;
/// [`CryptoError::InvalidLength`] for an empty secret or one over
/// [`MAX_SECRET_LEN`]; [`CryptoError::RandomnessUnavailable`].
pub fn split(secret: &[u8], threshold: u8, count: u8) -> Result<Vec<Share>> {
    if threshold < 2 || threshold > count {
        return Err(CryptoError::InvalidParameter(
            "need 2 <= threshold <= shares <= 255",
        ));
    }
    if secret.is_empty() || secret.len() > MAX_SECRET_LEN {
        return Err(CryptoError::length(
            "secret",
            "1 to 1024 bytes",
            secret.len(),
        ));
    }
    let degree = usize::from(threshold) - 1;
    let mut shares: Vec<Share> = (1..=count)
        .map(|x| Share {
            x,
            y: Vec::with_capacity(secret.len()),
        })
        .collect();
    let mut coeffs = Zeroizing::new(vec![0u8; degree]);
    for &s in secret {
        rng::fill(&mut coeffs)?;
        for share in &mut shares {
            // Horner: ((c_d·x + c_{d-1})·x + … + c_1)·x + s
            let mut acc = 0u8;
            for &c in coeffs.iter().rev() {
                acc = gf_mul(acc, share.x) ^ c;
            }
            acc = gf_mul(acc, share.x) ^ s;
            share.y.push(acc);
        }
    }
    Ok(shares)
}

/// Recovers the secret from shares (Lagrange interpolation at 0).
///
/// # Errors
/// [`CryptoError::InvalidShares`] for fewer than 2 shares, an `x` of 0, a
/// duplicate `x`, or shares of different lengths.
pub fn combine(shares: &[Share]) -> Result<Zeroizing<Vec<u8>>> {
    let first = match shares {
        [first, _, ..] => first,
        _ => return Err(CryptoError::InvalidShares("at least 2 shares are needed")),
    };
    let len = first.y.len();
    if len == 0 || len > MAX_SECRET_LEN {
        return Err(CryptoError::InvalidShares("share length out of range"));
    }
    let mut seen = [false; 256];
    for s in shares {
        if s.x == 0 {
            return Err(CryptoError::InvalidShares("share x must not be 0"));
        }
        if s.y.len() != len {
            return Err(CryptoError::InvalidShares("shares have different lengths"));
        }
        let slot = seen
            .get_mut(usize::from(s.x))
            .ok_or(CryptoError::InvalidShares("x"))?;
        if *slot {
            return Err(CryptoError::InvalidShares("duplicate share x"));
        }
        *slot = true;
    }
    // Lagrange basis at 0: l_i = Π_{j≠i} x_j / (x_i ⊕ x_j).
    let mut basis = Zeroizing::new(Vec::with_capacity(shares.len()));
    for (i, si) in shares.iter().enumerate() {
        let mut num = 1u8;
        let mut den = 1u8;
        for (j, sj) in shares.iter().enumerate() {
            if i != j {
                num = gf_mul(num, sj.x);
                den = gf_mul(den, si.x ^ sj.x);
            }
        }
        basis.push(gf_mul(num, gf_inv(den)));
    }
    let mut secret = Zeroizing::new(vec![0u8; len]);
    for (share, &l) in shares.iter().zip(basis.iter()) {
        for (out, &y) in secret.iter_mut().zip(share.y.iter()) {
            *out ^= gf_mul(y, l);
        }
    }
    Ok(secret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_axioms() {
        for a in 1..=255u8 {
            assert_eq!(gf_mul(a, gf_inv(a)), 1, "a={a}");
            assert_eq!(gf_mul(a, 1), a);
            assert_eq!(gf_mul(a, 0), 0);
        }
        // Known AES products (FIPS 197 §4.2): {57}·{83} = {c1}, {57}·{13} = {fe}.
        assert_eq!(gf_mul(0x57, 0x83), 0xc1);
        assert_eq!(gf_mul(0x57, 0x13), 0xfe);
    }

    #[test]
    fn any_threshold_subset_recovers() {
        let secret: Vec<u8> = (0..32).collect();
        let shares = split(&secret, 3, 5).unwrap();
        assert_eq!(shares.len(), 5);
        for a in 0..5 {
            for b in (a + 1)..5 {
                for c in (b + 1)..5 {
                    let subset = [shares[a].clone(), shares[b].clone(), shares[c].clone()];
                    assert_eq!(*combine(&subset).unwrap(), secret);
                }
            }
        }
        // All five also work.
        assert_eq!(*combine(&shares).unwrap(), secret);
        // Two shares (below threshold) give something else.
        assert_ne!(*combine(&shares[..2]).unwrap(), secret);
    }

    #[test]
    fn bounds_and_bad_sets() {
        let s = [7u8; 32];
        assert!(split(&s, 1, 3).is_err());
        assert!(split(&s, 4, 3).is_err());
        assert!(split(&[], 2, 3).is_err());
        assert_eq!(split(&s, 255, 255).unwrap().len(), 255);
        let shares = split(&s, 2, 3).unwrap();
        assert!(combine(&shares[..1]).is_err());
        let dup = [shares[0].clone(), shares[0].clone()];
        assert_eq!(
            combine(&dup).unwrap_err(),
            CryptoError::InvalidShares("duplicate share x")
        );
        let mut zero = shares[1].clone();
        zero.x = 0;
        assert!(combine(&[shares[0].clone(), zero]).is_err());
        let mut short = shares[1].clone();
        short.y.pop();
        assert!(combine(&[shares[0].clone(), short]).is_err());
        assert!(Share::from_bytes(&[0, 1]).is_err());
        assert!(Share::from_bytes(&[1]).is_err());
        let bytes = shares[2].to_bytes();
        let parsed = Share::from_bytes(&bytes).unwrap();
        assert_eq!(parsed.x, 3);
        assert_eq!(parsed.y, shares[2].y);
    }
}
