//! The triple ratchet (docs/SESSIONS.md §5): a Double Ratchet (X25519 DH
//! ratchet, HKDF root chain, HMAC chain keys) whose every message key also
//! mixes a key from a PQ ratchet running alongside — ML-KEM-768 epochs
//! (ek-sender by parity), each epoch feeding per-direction forward-secure
//! chains.
//!
//! Initialisation as in Signal: the responder's first ratchet key is its
//! signed prekey `SPK_B`; the initiator performs one DH step with a fresh
//! ratchet key against it. The handshake's `chain_key` is not used by
//! version 1 (it is wiped when the state is built): as in Signal, the first
//! sending chain comes out of the initiator's DH step, so no message is ever
//! sent under a chain without a fresh ratchet key.
//!
//! `encrypt` and `decrypt` are all-or-nothing: `encrypt` commits only after
//! the ciphertext exists, `decrypt` works on a copy and returns it. The
//! state counter increments on every committed change (rollback detection by
//! the keystore, [`RatchetState::check_not_rolled_back`]).

pub mod chunks;
mod codec;
pub mod header;
mod invariants;
mod kdf;
pub mod limits;
pub mod pad;
mod pq;
mod recv;
pub mod rng;
mod send;
mod skipped;

pub use header::{Header, Message, PqField};
pub use kdf::{
    DIR_INITIATOR_TO_RESPONDER, DIR_RESPONDER_TO_INITIATOR, MK_LABEL, PQ_CHAIN_LABEL,
    PQ_EPOCH_LABEL, ROOT_LABEL,
};
pub use limits::Limits;
pub use pq::ek_sender;
pub use rng::{RandomPurpose, RatchetRng};

use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use self::kdf::{ChainKeys, Key};
use self::pq::PqState;
use self::skipped::Receiving;
use crate::session::identity::IDENTITY_ENCODING_LEN;
use crate::session::{
    HandshakeKeys, Result, Role, SessionBinding, SessionError, VERSION_1, VERSION_2,
};
use crate::x25519;

/// Own X25519 ratchet key pair.
#[derive(Clone)]
struct DhPair {
    secret: Key,
    public: [u8; 32],
}

impl DhPair {
    fn from_secret(secret: Key) -> Result<Self> {
        let public = x25519::x25519_public(&secret[..])?;
        Ok(Self { secret, public })
    }

    fn generate<R: RatchetRng + ?Sized>(rng: &mut R) -> Result<Self> {
        let mut secret = Zeroizing::new([0u8; 32]);
        rng.fill(RandomPurpose::RatchetKey, &mut secret[..])?;
        Self::from_secret(secret)
    }
}

/// The current sending chain.
#[derive(Clone)]
struct SendChain {
    keys: ChainKeys,
    /// Next message number.
    n: u32,
    /// PQ epoch of every message of this chain.
    epoch: u64,
}

/// The state of one side of a session. Secrets are zeroized on drop; no `Debug`.
///
/// `Clone` copies the secrets (as `decrypt` does internally); a clone that is
/// used to send forks the session, so keep one live copy per session.
#[derive(Clone)]
pub struct RatchetState {
    /// The negotiated protocol version.
    version: u8,
    /// `H_ID` = [`header::identities_hash`] of the session's binding, bound by
    /// every message's AD. The identity encodings themselves are not held:
    /// the session record keeps them ([`RatchetState::check_identities`]).
    identities_hash: [u8; 32],
    role: Role,
    limits: Limits,
    counter: u64,
    root_key: Key,
    /// Own ratchet key pair; `None` after a peer DH step until the next sending chain.
    dh_self: Option<DhPair>,
    /// The peer's current ratchet public key.
    dh_remote: Option<[u8; 32]>,
    send: Option<SendChain>,
    /// `PN` of the next sending chain.
    previous_send_len: u32,
    pq: PqState,
    recv: Receiving,
}

fn check_version(version: u8) -> Result<()> {
    if version != VERSION_1 && version != VERSION_2 {
        return Err(SessionError::InvalidState("unsupported protocol version"));
    }
    Ok(())
}

fn check_binding(binding: &SessionBinding) -> Result<()> {
    check_version(binding.version)?;
    if binding.initiator_identity.len() > codec::MAX_IDENTITY_LEN
        || binding.responder_identity.len() > codec::MAX_IDENTITY_LEN
    {
        return Err(SessionError::InvalidState("identity encoding too long"));
    }
    Ok(())
}

impl RatchetState {
    fn base(
        keys: &HandshakeKeys,
        binding: SessionBinding,
        role: Role,
        limits: Limits,
    ) -> Result<Self> {
        check_binding(&binding)?;
        limits.validate()?;
        let binding_version = binding.version;
        let identities_hash = header::identities_hash(&binding);
        Ok(Self {
            version: binding.version,
            identities_hash,
            role,
            limits,
            counter: 0,
            root_key: kdf::key_from(&keys.root_key),
            dh_self: None,
            dh_remote: None,
            send: None,
            previous_send_len: 0,
            pq: PqState::new(role, &keys.pq_root_0, binding_version == VERSION_2)?,
            recv: Receiving::default(),
        })
    }

    /// The initiator's state: one DH step with a fresh ratchet key against
    /// the responder's signed prekey `SPK_B`, its first sending chain in
    /// epoch 0, and `ek_1` (attached to its messages until `ct_1` arrives).
    ///
    /// # Errors
    /// [`SessionError::InvalidState`] (binding version, identity length,
    /// limits), `WEAK_KEY` for a low-order `SPK_B`, a randomness failure.
    pub fn new_initiator<R: RatchetRng + ?Sized>(
        keys: HandshakeKeys,
        binding: SessionBinding,
        responder_ratchet_public: [u8; 32],
        limits: Limits,
        rng: &mut R,
    ) -> Result<Self> {
        let mut s = Self::base(&keys, binding, Role::Initiator, limits)?;
        s.dh_remote = Some(responder_ratchet_public);
        s.pq.generate_first_ek(rng)?;
        let mut pq = s.pq.clone();
        let prepared = s.prepare_sending_chain(&mut pq, rng)?;
        s.commit_sending_chain(prepared);
        s.pq = pq;
        Ok(s)
    }

    /// The responder's state: its first ratchet key is its signed prekey
    /// (`own_ratchet_secret` = the `SPK_B` secret). It can send once it has
    /// decrypted a message from the initiator.
    ///
    /// # Errors
    /// [`SessionError::InvalidState`] (binding version, identity length, limits).
    pub fn new_responder(
        keys: HandshakeKeys,
        binding: SessionBinding,
        own_ratchet_secret: Zeroizing<[u8; 32]>,
        limits: Limits,
    ) -> Result<Self> {
        let mut s = Self::base(&keys, binding, Role::Responder, limits)?;
        s.dh_self = Some(DhPair::from_secret(own_ratchet_secret)?);
        Ok(s)
    }

    /// Which side of the handshake this state is.
    #[must_use]
    pub const fn role(&self) -> Role {
        self.role
    }

    /// The negotiated protocol version (bound by every message).
    #[must_use]
    pub const fn version(&self) -> u8 {
        self.version
    }

    /// `H_ID = SHA-256(Enc(ID_init) ‖ Enc(ID_resp))`: how every message binds
    /// both identity encodings (docs/SESSIONS.md §5.2). The state stores only
    /// this hash (§5.9); the encodings live in the session record.
    #[must_use]
    pub const fn identities_hash(&self) -> &[u8; 32] {
        &self.identities_hash
    }

    /// Checks identity encodings kept beside the state (a session record)
    /// against the state's `H_ID`, and that they have the version and the
    /// length of a session identity (2,017 bytes each: with fixed lengths the
    /// boundary between the two cannot move under one hash).
    ///
    /// # Errors
    /// `IDENTITY_MISMATCH` if the version, a length or the hash differs.
    pub fn check_identities(&self, binding: &SessionBinding) -> Result<()> {
        if binding.version != self.version
            || binding.initiator_identity.len() != IDENTITY_ENCODING_LEN
            || binding.responder_identity.len() != IDENTITY_ENCODING_LEN
        {
            return Err(SessionError::IdentityMismatch(
                "stored identities: wrong version or length",
            ));
        }
        let h = header::identities_hash(binding);
        if !bool::from(h.ct_eq(&self.identities_hash)) {
            return Err(SessionError::IdentityMismatch(
                "stored identities do not match the state's H_ID",
            ));
        }
        Ok(())
    }

    /// The limits this state enforces.
    #[must_use]
    pub const fn limits(&self) -> Limits {
        self.limits
    }

    /// The state counter: increments on every committed change (each
    /// successful `encrypt` and `decrypt`).
    #[must_use]
    pub const fn counter(&self) -> u64 {
        self.counter
    }

    /// The newest PQ epoch whose keys this state holds.
    #[must_use]
    pub const fn pq_epoch(&self) -> u64 {
        self.pq.latest
    }

    /// The PQ phase: own `ek` pending, peer `ek` pending, or idle.
    #[must_use]
    pub const fn pq_phase(&self) -> PqPhase {
        if self.pq.own_ek.is_some() {
            PqPhase::OwnEkPending
        } else if self.pq.peer_ek.is_some() {
            PqPhase::PeerEkPending
        } else {
            PqPhase::Idle
        }
    }

    /// Number of skipped message keys held.
    #[must_use]
    pub fn skipped_keys(&self) -> usize {
        self.recv.skipped_len()
    }

    /// Number of receiving chains held.
    #[must_use]
    pub fn receiving_chains(&self) -> usize {
        self.recv.chains.len()
    }

    /// Refuses a state older than the newest one seen (the keystore passes
    /// the highest counter it has stored for this session).
    ///
    /// # Errors
    /// [`SessionError::StateRollback`] if `counter() < highest_seen`.
    pub const fn check_not_rolled_back(&self, highest_seen: u64) -> Result<()> {
        if self.counter < highest_seen {
            return Err(SessionError::StateRollback {
                counter: self.counter,
                highest_seen,
            });
        }
        Ok(())
    }

    fn bump(&mut self) {
        self.counter = self.counter.saturating_add(1);
    }
}

/// The PQ phase of a state (docs/SESSIONS.md §5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PqPhase {
    /// Nothing pending (the responder before its first message).
    Idle,
    /// This side sent `ek_k` and waits for `ct_k`.
    OwnEkPending,
    /// This side holds the peer's `ek_k` and encapsulates at its next sending chain.
    PeerEkPending,
}
