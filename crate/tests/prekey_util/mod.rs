//! Shared setup of the prekey attack tests (`degenerate_keys.rs`,
//! `prekey_lifetime.rs`): an identity whose seeds the test holds, prekeys
//! signed with those seeds directly — the signed bytes of docs/SESSIONS.md
//! §2.2 under Ed25519 and ML-DSA-65, with no check on the dates or the key,
//! which is what anyone holding the identity's signing keys (or, issue 34
//! item 1, a script using the keystore's raw `sign`) can produce — and
//! bundles of them.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use veilkit::messaging::verification::encode_identity;
use veilkit::session::bundle::Bundle;
use veilkit::session::handshake::LocalDevice;
use veilkit::session::identity::{IdentityKeyPair, SessionIdentity};
use veilkit::session::prekey::{PREKEY_LABEL, PrekeyKind, SignedPrekey, signed_bytes};
use veilkit::session::versions::SUPPORTED_VERSIONS;
use veilkit::{ed25519, hash, mldsa, mlkem, x25519};

/// Unix time of the tests.
pub const NOW: u64 = 1_700_000_000;
/// One day in seconds.
pub const DAY: u64 = 86_400;

/// A 32-byte seed of `tag` and `i`.
pub fn seed(tag: u8, i: u8) -> [u8; 32] {
    hash::sha256(&[b"veilkit-prekey-attack-test".as_slice(), &[tag, i]].concat())
}

/// The signing seeds of an identity and its public part (whose X25519 key
/// may be any 32 bytes: the signatures bind it through the identity id).
pub struct Signer {
    pub ed25519_seed: [u8; 32],
    pub ml_dsa_seed: [u8; 32],
    pub public: SessionIdentity,
}

/// An identity with the honest X25519 key of its seeds.
pub fn signer(tag: u8) -> Signer {
    let x = x25519::x25519_public(&seed(tag, 3)).unwrap();
    signer_with_x25519(tag, &x)
}

/// An identity whose `Enc(ID)` carries the X25519 key `x25519_public`.
pub fn signer_with_x25519(tag: u8, x25519_public: &[u8; 32]) -> Signer {
    let ed25519_seed = seed(tag, 1);
    let ml_dsa_seed = seed(tag, 2);
    let ed = ed25519::ed25519_from_seed(&ed25519_seed).unwrap();
    let ml = mldsa::mldsa_from_seed(&ml_dsa_seed).unwrap();
    let encoding = encode_identity(&ed.public, Some(&ml.public), x25519_public).unwrap();
    Signer {
        ed25519_seed,
        ml_dsa_seed,
        public: SessionIdentity::from_encoding(&encoding).unwrap(),
    }
}

impl Signer {
    /// A prekey of `kind` over `key`, valid from `created` to `expires`,
    /// signed with both keys of the identity and nothing checked.
    pub fn prekey(
        &self,
        kind: PrekeyKind,
        key_id: u32,
        created: u64,
        expires: u64,
        key: &[u8],
    ) -> SignedPrekey {
        let m = signed_bytes(kind, key_id, created, expires, self.public.id(), key);
        SignedPrekey {
            kind,
            key_id,
            created,
            expires,
            key: key.to_vec(),
            ed25519_signature: ed25519::ed25519_sign(&self.ed25519_seed, &m).unwrap(),
            ml_dsa_signature: mldsa::mldsa_sign_with_rnd(
                &self.ml_dsa_seed,
                &m,
                PREKEY_LABEL,
                &[0; 32],
            )
            .unwrap(),
        }
    }

    /// An honest signed X25519 prekey, created a day before [`NOW`], 30 days long.
    pub fn x25519_prekey(&self, kind: PrekeyKind, key_id: u32) -> SignedPrekey {
        let key = x25519::x25519_public(&seed(0x70, u8::try_from(key_id).unwrap())).unwrap();
        self.prekey(kind, key_id, NOW - DAY, NOW + 29 * DAY, &key)
    }

    /// An honest signed ML-KEM-768 prekey, created a day before [`NOW`], 30 days long.
    pub fn mlkem_prekey(&self, kind: PrekeyKind, key_id: u32) -> SignedPrekey {
        let mut s = [0u8; 64];
        s[..32].copy_from_slice(&seed(0x71, u8::try_from(key_id).unwrap()));
        s[32..].copy_from_slice(&seed(0x72, u8::try_from(key_id).unwrap()));
        let kp = mlkem::mlkem_from_seed(&s).unwrap();
        self.prekey(
            kind,
            key_id,
            NOW - DAY,
            NOW + 29 * DAY,
            &kp.encapsulation_key,
        )
    }

    /// A bundle with honest prekeys in every slot (one-time ones included).
    pub fn bundle(&self) -> Bundle {
        Bundle {
            identity: self.public.clone(),
            device_id: 2,
            versions: SUPPORTED_VERSIONS.to_vec(),
            signed_prekey: self.x25519_prekey(PrekeyKind::X25519Signed, 1),
            pq_last_resort: self.mlkem_prekey(PrekeyKind::MlKemLastResort, 2),
            one_time: Some(self.x25519_prekey(PrekeyKind::X25519OneTime, 3)),
            pq_one_time: Some(self.mlkem_prekey(PrekeyKind::MlKemOneTime, 4)),
        }
    }
}

/// The four slots of a bundle.
pub const SLOTS: [PrekeyKind; 4] = [
    PrekeyKind::X25519Signed,
    PrekeyKind::MlKemLastResort,
    PrekeyKind::X25519OneTime,
    PrekeyKind::MlKemOneTime,
];

/// The prekey of `bundle` in the slot of `kind`.
pub fn slot(bundle: &mut Bundle, kind: PrekeyKind) -> &mut SignedPrekey {
    match kind {
        PrekeyKind::X25519Signed => &mut bundle.signed_prekey,
        PrekeyKind::MlKemLastResort => &mut bundle.pq_last_resort,
        PrekeyKind::X25519OneTime => bundle.one_time.as_mut().unwrap(),
        PrekeyKind::MlKemOneTime => bundle.pq_one_time.as_mut().unwrap(),
    }
}

/// The initiating device of the tests (an honest identity).
pub fn initiator() -> IdentityKeyPair {
    IdentityKeyPair::from_seeds(&seed(0xA1, 1), &seed(0xA1, 2), &seed(0xA1, 3)).unwrap()
}

/// `identity` as device 1 with the supported versions.
pub fn local(identity: &IdentityKeyPair) -> LocalDevice<'_> {
    LocalDevice {
        identity,
        device_id: 1,
        versions: SUPPORTED_VERSIONS,
    }
}
