//! Shamir secret sharing checked against an independent implementation
//! written here from the specification (docs/FORMAT.md §5, `shamir.rs`):
//! GF(2^8) with the AES polynomial x^8 + x^4 + x^3 + x + 1 (0x11B), built
//! from log / antilog tables of the generator 3 (veilkit multiplies by
//! shift-and-add and inverts as a^254), polynomial evaluation at
//! x = 1, 2, …, n and Lagrange interpolation. And the `vcs_` shares of the
//! `threshold_2of3` fixture decoded and combined by that implementation,
//! with no veilkit Shamir or container code, down to the DEK commitment.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use veilkit::shamir::{self, Share};

/// GF(2^8) mod 0x11B by log / antilog tables of the generator 3.
struct Gf {
    exp: [u8; 255],
    log: [u8; 256],
}

impl Gf {
    fn new() -> Self {
        let (mut exp, mut log) = ([0u8; 255], [0u8; 256]);
        let mut v: u16 = 1;
        for (i, e) in exp.iter_mut().enumerate() {
            *e = v as u8;
            log[v as usize] = i as u8;
            // v · 3 = v · x + v, reduced by 0x11B.
            v ^= v << 1;
            if v & 0x100 != 0 {
                v ^= 0x11b;
            }
        }
        assert_eq!(v, 1, "3 generates the multiplicative group (order 255)");
        Self { exp, log }
    }

    fn mul(&self, a: u8, b: u8) -> u8 {
        if a == 0 || b == 0 {
            return 0;
        }
        let s = usize::from(self.log[usize::from(a)]) + usize::from(self.log[usize::from(b)]);
        self.exp[s % 255]
    }

    fn div(&self, a: u8, b: u8) -> u8 {
        assert_ne!(b, 0);
        if a == 0 {
            return 0;
        }
        let s = 255 + usize::from(self.log[usize::from(a)]) - usize::from(self.log[usize::from(b)]);
        self.exp[s % 255]
    }

    /// `c_0 + c_1·x + … + c_d·x^d`, term by term.
    fn eval(&self, coeffs: &[u8], x: u8) -> u8 {
        let mut sum = 0u8;
        let mut power = 1u8;
        for &c in coeffs {
            sum ^= self.mul(c, power);
            power = self.mul(power, x);
        }
        sum
    }

    /// The polynomial of least degree through `points`, evaluated at `at`.
    fn lagrange(&self, points: &[(u8, u8)], at: u8) -> u8 {
        let mut sum = 0u8;
        for (i, &(xi, yi)) in points.iter().enumerate() {
            let mut l = 1u8;
            for (j, &(xj, _)) in points.iter().enumerate() {
                if i != j {
                    // (at − x_j) / (x_i − x_j); minus is xor.
                    l = self.mul(l, self.div(at ^ xj, xi ^ xj));
                }
            }
            sum ^= self.mul(yi, l);
        }
        sum
    }

    /// Byte-wise interpolation of shares at 0: the secret.
    fn recover(&self, shares: &[(u8, Vec<u8>)]) -> Vec<u8> {
        (0..shares[0].1.len())
            .map(|k| {
                let points: Vec<(u8, u8)> = shares.iter().map(|(x, y)| (*x, y[k])).collect();
                self.lagrange(&points, 0)
            })
            .collect()
    }
}

/// Deterministic bytes (SHA-256 counter mode over a label).
fn bytes(label: &str, n: usize) -> Vec<u8> {
    use sha2::Digest;
    let mut out = Vec::new();
    let mut counter = 0u32;
    while out.len() < n {
        let mut h = sha2::Sha256::new();
        h.update(label.as_bytes());
        h.update(counter.to_be_bytes());
        out.extend_from_slice(&h.finalize());
        counter += 1;
    }
    out.truncate(n);
    out
}

fn veilkit_shares(shares: &[(u8, Vec<u8>)]) -> Vec<Share> {
    shares
        .iter()
        .map(|(x, y)| Share {
            x: *x,
            y: y.clone(),
        })
        .collect()
}

#[test]
fn the_field_is_the_aes_field() {
    let gf = Gf::new();
    // FIPS 197 §4.2: {57}·{83} = {c1}, {57}·{13} = {fe}; and {53}·{ca} = {01}
    // (the inverse in the S-box example).
    assert_eq!(gf.mul(0x57, 0x83), 0xc1);
    assert_eq!(gf.mul(0x57, 0x13), 0xfe);
    assert_eq!(gf.mul(0x53, 0xca), 0x01);
    for a in 1..=255u8 {
        assert_eq!(gf.mul(a, gf.div(1, a)), 1, "{a}");
        // x · a by the xtime rule (shift, reduce by 0x1B).
        let xtime = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
        assert_eq!(gf.mul(a, 2), xtime, "{a}");
    }
}

/// Shares made here (polynomials with chosen coefficients, evaluated at
/// x = 1..n) are combined by veilkit into the constant terms, from any
/// quorum; and for any points at all (random y, distinct non-zero x, also
/// below the threshold) veilkit's combine equals Lagrange interpolation at 0.
#[test]
fn combine_agrees_with_independent_interpolation() {
    let gf = Gf::new();
    for (t, n) in [(2u8, 2u8), (2, 3), (3, 5), (5, 9), (4, 255)] {
        let len = 33;
        let secret = bytes(&format!("secret {t}/{n}"), len);
        let coeffs: Vec<Vec<u8>> = (0..len)
            .map(|k| {
                let mut c = vec![secret[k]];
                c.extend(bytes(&format!("coeffs {t}/{n}/{k}"), usize::from(t) - 1));
                c
            })
            .collect();
        let shares: Vec<(u8, Vec<u8>)> = (1..=n)
            .map(|x| (x, coeffs.iter().map(|c| gf.eval(c, x)).collect()))
            .collect();
        // Quorums: the first t, the last t (x up to n), every other share, all.
        let quorums: Vec<Vec<(u8, Vec<u8>)>> = vec![
            shares[..usize::from(t)].to_vec(),
            shares[usize::from(n - t)..].to_vec(),
            shares.iter().step_by(2).cloned().collect(),
            shares.clone(),
        ];
        for q in quorums.iter().filter(|q| q.len() >= usize::from(t)) {
            assert_eq!(gf.recover(q), secret, "oracle {t}/{n}");
            assert_eq!(
                shamir::combine(&veilkit_shares(q)).unwrap().to_vec(),
                secret,
                "{t}/{n} from x = {:?}",
                q.iter().map(|s| s.0).collect::<Vec<_>>()
            );
        }
        // Arbitrary points: the same interpolation, threshold or not.
        for size in 2..=usize::from(t) + 1 {
            let xs = &[255u8, 1, 200, 7, 128, 3, 64][..size];
            let points: Vec<(u8, Vec<u8>)> = xs
                .iter()
                .map(|&x| (x, bytes(&format!("y {t}/{n}/{x}/{size}"), len)))
                .collect();
            assert_eq!(
                shamir::combine(&veilkit_shares(&points)).unwrap().to_vec(),
                gf.recover(&points),
                "{t}/{n}, x = {xs:?}"
            );
        }
    }
}

/// veilkit's split, read by the oracle: x = 1..n in order, the n points of
/// every byte on one polynomial of degree t − 1 (not less) whose constant
/// term is the secret byte.
#[test]
fn split_agrees_with_independent_interpolation() {
    let gf = Gf::new();
    for (t, n) in [(2u8, 2u8), (2, 5), (3, 3), (3, 7), (6, 10), (8, 255)] {
        let secret = bytes(&format!("split {t}/{n}"), 32);
        let shares = shamir::split(&secret, t, n).unwrap();
        let xs: Vec<u8> = shares.iter().map(|s| s.x).collect();
        assert_eq!(xs, (1..=n).collect::<Vec<_>>());
        let own: Vec<(u8, Vec<u8>)> = shares.iter().map(|s| (s.x, s.y.clone())).collect();
        let t = usize::from(t);
        assert_eq!(gf.recover(&own[..t]), secret, "{t}/{n}");
        assert_eq!(gf.recover(&own[own.len() - t..]), secret, "{t}/{n}");
        let mut below_degree = 0;
        for k in 0..secret.len() {
            let first: Vec<(u8, u8)> = own[..t].iter().map(|(x, y)| (*x, y[k])).collect();
            // Every other share lies on the polynomial through the first t.
            for (x, y) in &own[t..] {
                assert_eq!(gf.lagrange(&first, *x), y[k], "{t}/{n} byte {k} x = {x}");
            }
            // Through t − 1 of them it would be of lower degree: then it would
            // pass through share t too (probability 1/256 per byte).
            if gf.lagrange(&first[..t - 1], own[t - 1].0) == own[t - 1].1[k] {
                below_degree += 1;
            }
        }
        assert!(
            below_degree < 8,
            "{t}/{n}: {below_degree} of 32 bytes below degree t − 1"
        );
    }
}

/// base64url (RFC 4648 §5) without padding, decoded here.
fn b64url_decode(s: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => panic!("not base64url: {c}"),
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        acc = (acc << 6) | u32::from(value(c));
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    assert_eq!(acc & ((1 << bits) - 1), 0, "canonical last symbol");
    out
}

fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

fn hkdf(ikm: &[u8], salt: &[u8], info: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; 32];
    hkdf::Hkdf::<sha2::Sha256>::new(Some(salt), ikm)
        .expand(info, &mut out)
        .unwrap();
    out
}

/// The `threshold_2of3` fixture opened from its `vcs_` shares with the
/// oracle: each payload decoded and checked as FORMAT.md §5 says, every pair
/// interpolated to the same TMS, and that TMS derives the KEK (§4.1) whose
/// AES-KW unwrap gives a DEK that opens the header's DEK commitment (§6.2).
#[test]
fn fixture_shares_open_the_threshold_container() {
    use hmac::{KeyInit, Mac};
    let gf = Gf::new();
    let c: &[u8] = include_bytes!("../../vectors/container/threshold_2of3.vvlt");
    let text = include_str!("../../vectors/container/threshold_2of3.shares.txt");
    let mut shares = Vec::new();
    let mut set = None;
    for line in text.lines().filter(|l| !l.is_empty()) {
        assert_eq!(line.len(), 83);
        let p = b64url_decode(line.strip_prefix("vcs_").unwrap());
        assert_eq!(p.len(), 59);
        assert_eq!(&p[..4], b"VCS\x01");
        assert_eq!(&p[55..], &sha256(&[&p[..55]])[..4], "checksum");
        let (id, t, n, x) = (p[4..20].to_vec(), p[20], p[21], p[22]);
        assert_eq!((t, n), (2, 3));
        assert!(set.get_or_insert(id.clone()) == &id, "one share set");
        shares.push((x, p[23..55].to_vec()));
    }
    assert_eq!(
        shares.iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    let tms = gf.recover(&shares[..2]);
    for pair in [[0, 2], [1, 2], [2, 0]] {
        let two: Vec<_> = pair.iter().map(|&i| shares[i].clone()).collect();
        assert_eq!(gf.recover(&two), tms);
    }
    assert_eq!(
        shamir::combine(&veilkit_shares(&shares)).unwrap().to_vec(),
        tms
    );
    // Header: fixed part, then the one threshold wrap at 112:
    // type 5 ‖ u16 58 ‖ t ‖ n ‖ share_set_id16 ‖ wrapped40.
    assert_eq!((c[8], c[9], c[71]), (4, 3, 1));
    assert_eq!((c[112], u16::from_be_bytes([c[113], c[114]])), (5, 58));
    assert_eq!((c[115], c[116]), (2, 3));
    assert_eq!(Some(c[117..133].to_vec()), set);
    let file_id = &c[11..27];
    let info = [
        b"vollcrypt-file-threshold-kek-v1",
        &c[117..133],
        &[2u8, 3][..],
    ]
    .concat();
    let kek = hkdf(&tms, file_id, &info);
    let dek = veilkit::keywrap::aes_kw_unwrap(&kek, &c[133..173]).unwrap();
    let preimage = [
        &b"vollcrypt-file-header-v1"[..],
        b"VOLLVALT",
        &[c[10]],
        file_id,
        &c[27..39],
        &[c[72]],
    ]
    .concat();
    let kc = hkdf(&dek, file_id, b"vollcrypt-file-key-commitment-v1");
    let mut mac = <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(&kc).unwrap();
    mac.update(&preimage);
    assert_eq!(mac.finalize().into_bytes().as_slice(), &c[80..112]);
    // One share with a changed y interpolates to another TMS, which the
    // wrap refuses.
    let mut forged = shares[..2].to_vec();
    forged[1].1[0] ^= 1;
    let kek = hkdf(&gf.recover(&forged), file_id, &info);
    assert_eq!(
        veilkit::keywrap::aes_kw_unwrap(&kek, &c[133..173]).unwrap_err(),
        veilkit::CryptoError::AuthenticationFailed
    );
}
