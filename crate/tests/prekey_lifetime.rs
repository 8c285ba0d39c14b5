//! Prekey lifetime cap (issue 34 item 1, docs/SESSIONS.md §2.2): whoever
//! can make the identity sign once (an XSS episode using the keystore's raw
//! signing, a stolen key used briefly) must not be able to mint a prekey that
//! stays valid long after. Verification refuses a prekey whose `expires −
//! created` exceeds 90 days, or whose `created` lies more than a day after
//! the verifier's `now` (else a far-future `created` would carry a short
//! lifetime into the future); signing refuses the same lifetimes.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod prekey_util;

use prekey_util::{DAY, NOW, SLOTS, initiator, local, seed, signer, slot};
use veilkit::session::SessionError;
use veilkit::session::handshake::initiate;
use veilkit::session::identity::IdentityKeyPair;
use veilkit::session::prekey::{
    MAX_PREKEY_CREATED_SKEW, MAX_PREKEY_LIFETIME, PrekeyKind, SignedPrekey, generate_mlkem_prekey,
    generate_x25519_prekey,
};
use veilkit::x25519;

const YEAR: u64 = 365 * DAY;

fn code<T>(r: Result<T, SessionError>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(e) => e.code(),
    }
}

/// The documented numbers.
#[test]
fn the_cap_is_90_days_and_the_skew_one_day() {
    assert_eq!(MAX_PREKEY_LIFETIME, 90 * DAY);
    assert_eq!(MAX_PREKEY_CREATED_SKEW, DAY);
}

/// The attack of the review (issue 34 item 1): a prekey signed once with
/// `expires` = 2^64 − 1 in any slot of a bundle. Before the fix every slot
/// verified, at `NOW` and a century later, and `initiate` used the bundle.
#[test]
fn a_bundle_with_expiry_2_pow_64_minus_1_is_refused() {
    let bob = signer(0xB2);
    let base = bob.bundle();
    let alice = initiator();
    for kind in SLOTS {
        let mut b = base.clone();
        let honest = slot(&mut b, kind).clone();
        *slot(&mut b, kind) = bob.prekey(kind, honest.key_id, NOW - DAY, u64::MAX, &honest.key);
        let forged = slot(&mut b, kind).clone();
        for now in [NOW, NOW + 100 * YEAR] {
            let got = forged.verify(&bob.public, kind, now);
            assert!(
                matches!(got, Err(SessionError::BundleInvalid(_))),
                "{kind:?} at {now}: {got:?}"
            );
        }
        assert!(
            matches!(b.verify(None, NOW), Err(SessionError::BundleInvalid(_))),
            "{kind:?}: {:?}",
            b.verify(None, NOW)
        );
        let bytes = b.to_bytes().unwrap();
        assert_eq!(
            code(initiate(&local(&alice), &bytes, None, NOW)),
            "BUNDLE_INVALID",
            "{kind:?}"
        );
    }
}

/// The cap is inclusive: 90 days verify, 90 days and one second do not; the
/// signing side refuses the same lifetime (`INVALID_PARAMETER`).
#[test]
fn the_lifetime_cap_is_90_days_inclusive() {
    let bob = signer(0xB3);
    let base = bob.bundle();
    let created = NOW - DAY;
    for kind in SLOTS {
        for (lifetime, ok) in [(90 * DAY, true), (90 * DAY + 1, false), (91 * DAY, false)] {
            let mut b = base.clone();
            let key = slot(&mut b, kind).key.clone();
            *slot(&mut b, kind) = bob.prekey(kind, 9, created, created + lifetime, &key);
            let got = b.verify(None, NOW);
            if ok {
                assert_eq!(got, Ok(()), "{kind:?} lifetime {lifetime}");
            } else {
                assert!(
                    matches!(got, Err(SessionError::BundleInvalid(_))),
                    "{kind:?} lifetime {lifetime}: {got:?}"
                );
            }
        }
    }
    let id = IdentityKeyPair::from_seeds(&seed(1, 1), &seed(1, 2), &seed(1, 3)).unwrap();
    let key = x25519::x25519_public(&seed(1, 4)).unwrap();
    let sign =
        |expires| SignedPrekey::sign(&id, PrekeyKind::X25519Signed, 1, created, expires, &key);
    assert!(sign(created + 90 * DAY).is_ok());
    assert_eq!(code(sign(created + 90 * DAY + 1)), "INVALID_PARAMETER");
    assert_eq!(code(sign(u64::MAX)), "INVALID_PARAMETER");
}

/// What the keystore makes (worker/keystore/prekeys.ts `PREKEY_POLICY`:
/// signed and last-resort prekeys 30 days, one-time prekeys 90 days, created
/// at the keystore's `now`) verifies at once and until it expires.
#[test]
fn the_keystore_lifetimes_fit_the_cap() {
    let id = IdentityKeyPair::from_seeds(&seed(2, 1), &seed(2, 2), &seed(2, 3)).unwrap();
    for (kind, lifetime) in [
        (PrekeyKind::X25519Signed, 30 * DAY),
        (PrekeyKind::MlKemLastResort, 30 * DAY),
        (PrekeyKind::X25519OneTime, 90 * DAY),
        (PrekeyKind::MlKemOneTime, 90 * DAY),
    ] {
        let p = if kind.is_kem() {
            generate_mlkem_prekey(&id, kind, 5, NOW, NOW + lifetime)
                .unwrap()
                .public
        } else {
            generate_x25519_prekey(&id, kind, 5, NOW, NOW + lifetime)
                .unwrap()
                .public
        };
        for now in [NOW - DAY, NOW, NOW + lifetime - 1] {
            assert_eq!(
                p.verify(id.public(), kind, now),
                Ok(()),
                "{kind:?} at {now}"
            );
        }
        assert_eq!(
            p.verify(id.public(), kind, NOW + lifetime),
            Err(SessionError::PrekeyExpired)
        );
    }
}

/// A short lifetime placed in the future: created ten years from now,
/// expiring 30 days later, is within the cap but would be valid a decade
/// after the signing. Refused unless `created` is at most a day after `now`.
/// Before the fix it verified (the design said future `created` values were
/// not refused).
#[test]
fn a_prekey_created_in_the_future_is_refused_beyond_a_day() {
    let bob = signer(0xB4);
    let base = bob.bundle();
    for kind in SLOTS {
        for (created, ok) in [
            (NOW + 10 * YEAR, false),
            (NOW + DAY + 1, false),
            (NOW + DAY, true),
            (NOW + 1, true),
        ] {
            let mut b = base.clone();
            let key = slot(&mut b, kind).key.clone();
            *slot(&mut b, kind) = bob.prekey(kind, 9, created, created + 30 * DAY, &key);
            let got = b.verify(None, NOW);
            if ok {
                assert_eq!(got, Ok(()), "{kind:?} created {created}");
            } else {
                assert!(
                    matches!(got, Err(SessionError::BundleInvalid(_))),
                    "{kind:?} created {created}: {got:?}"
                );
            }
        }
    }
    // Near the end of time: no overflow in `now + skew`.
    let p = bob.prekey(
        PrekeyKind::X25519Signed,
        1,
        u64::MAX - 2,
        u64::MAX,
        &base.signed_prekey.key,
    );
    assert_eq!(
        p.verify(&bob.public, PrekeyKind::X25519Signed, u64::MAX - 1),
        Ok(())
    );
    assert!(matches!(
        p.verify(&bob.public, PrekeyKind::X25519Signed, NOW),
        Err(SessionError::BundleInvalid(_))
    ));
}
