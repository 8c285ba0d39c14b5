//! The PQ epoch ratchet (docs/SESSIONS.md §5.5): an unchunked ML-KEM-768
//! exchange per epoch, the ek-sender of epoch k fixed by parity (odd k: the
//! initiator).
//!
//! Phases of one party: *idle* (nothing pending), *own ek pending* (it sent
//! `ek_k` and waits for `ct_k`), *peer ek pending* (it holds the peer's
//! authenticated `ek_k` and encapsulates to it when its next sending chain
//! starts). `decrypt` takes no randomness, so the encapsulation happens at
//! the start of the next sending chain, the only place where the sending
//! epoch may change anyway.

use std::sync::Arc;

use zeroize::Zeroizing;

use super::chunks::{self, CHUNK_LEN, Chunk};
use super::header::{KIND_CT, KIND_EK, PqField};
use super::kdf::{self, EpochKeys, Key};
use super::rng::{RandomPurpose, RatchetRng};
use crate::error::CryptoError;
use crate::mlkem::{self, CT_LEN, EK_LEN, SEED_LEN};
use crate::session::{Result, Role, SessionError};

/// The party that sends `ek_k` (odd k: the initiator, even k: the responder).
#[must_use]
pub const fn ek_sender(k: u64) -> Role {
    if k % 2 == 1 {
        Role::Initiator
    } else {
        Role::Responder
    }
}

/// Our own pending encapsulation key `ek_k` with its expanded decapsulation
/// key (`dk_PKE ‖ ek ‖ H(ek) ‖ z`, what decapsulation uses) and, for a key
/// pair generated here, its 64-byte seed `d ‖ z`, the form a serialized state
/// stores (docs/SESSIONS.md §5.9; a load regenerates the pair). A key loaded
/// from a migrated format-2 state has no seed (it cannot be recovered from the
/// expanded key) and is stored expanded until its epoch completes.
#[derive(Clone)]
pub(crate) struct OwnEk {
    pub(crate) epoch: u64,
    pub(crate) ek: Vec<u8>,
    pub(crate) dk: Zeroizing<Vec<u8>>,
    pub(crate) seed: Option<Zeroizing<[u8; SEED_LEN]>>,
}

impl OwnEk {
    /// The key pair of `seed` for epoch `epoch` (FIPS 203
    /// `ML-KEM.KeyGen_internal(d, z)`: deterministic, so a stored seed
    /// regenerates the same pair).
    pub(crate) fn from_seed(epoch: u64, seed: Zeroizing<[u8; SEED_LEN]>) -> Result<Self> {
        let kp = mlkem::mlkem_from_seed(&seed[..])?;
        Ok(Self {
            epoch,
            ek: kp.encapsulation_key.clone(),
            dk: kp.decapsulation_key.clone(),
            seed: Some(seed),
        })
    }

    /// A stored expanded decapsulation key (a migrated format-2 state) for
    /// epoch `epoch`, checked once here (FIPS 203 §7.3 hash check and the
    /// modulus check of its `ek`): `INVALID_KEY`.
    pub(crate) fn from_dk(epoch: u64, dk: Zeroizing<Vec<u8>>) -> Result<Self> {
        let ek = mlkem::check_decapsulation_key(&dk)?.to_vec();
        Ok(Self {
            epoch,
            ek,
            dk,
            seed: None,
        })
    }

    fn generate<R: RatchetRng + ?Sized>(epoch: u64, rng: &mut R) -> Result<Self> {
        let mut seed = Zeroizing::new([0u8; SEED_LEN]);
        rng.fill(RandomPurpose::KemKeygen, &mut seed[..])?;
        Self::from_seed(epoch, seed)
    }
}

/// The FIPS 203 §7.2 encapsulation-key check (length and modulus).
pub(crate) fn check_ek(ek: &[u8]) -> Result<()> {
    let arr = crate::error::exact::<EK_LEN>("encapsulationKey", "1184 bytes", ek)?;
    let key = libcrux_ml_kem::mlkem768::MlKem768PublicKey::from(arr);
    if mlkem::lc::validate_public_key(&key) {
        Ok(())
    } else {
        Err(CryptoError::InvalidKey("ML-KEM encapsulation key fails the modulus check").into())
    }
}

/// Data chunks of an `ek` (1,184 / 32).
pub(crate) const EK_CHUNKS: usize = EK_LEN / CHUNK_LEN;
/// Data chunks of a `ct` (1,088 / 32).
pub(crate) const CT_CHUNKS: usize = CT_LEN / CHUNK_LEN;

/// The chunked PQ state of version 2 (docs/SESSIONS.md §5.11).
#[derive(Clone, Default)]
pub(crate) struct Chunked {
    /// Index of the next chunk of own `ek_{latest+1}` to send.
    pub(crate) ek_next: u16,
    /// Index of the next chunk of own `ct_{latest+1}` to send.
    pub(crate) ct_next: u16,
    /// The keys of epoch `latest+1`, derived when this side encapsulated
    /// (`own_ct`); installed when the peer's first chain of that epoch arrives.
    pub(crate) pending: Option<EpochKeys>,
    /// `pq_dir(latest − 1, peer direction)`, kept after this side installed
    /// `latest` by decapsulation until a peer chain of epoch `latest` arrives
    /// (until then the peer still starts its chains in `latest − 1`).
    pub(crate) prev_peer_dir: Option<Key>,
    /// Distinct chunks received of the peer's `ek_{latest+1}` (fewer than `EK_CHUNKS`).
    pub(crate) ek_rx: Vec<Chunk>,
    /// Distinct chunks received of `ct_{latest+1}` answering own `ek` (fewer than `CT_CHUNKS`).
    pub(crate) ct_rx: Vec<Chunk>,
}

/// PQ state of one party.
#[derive(Clone)]
pub(crate) struct PqState {
    /// The newest epoch whose keys this party has.
    pub(crate) latest: u64,
    /// `pq_root_latest` (salt of the next epoch).
    pub(crate) root: Key,
    /// `pq_dir(latest, own direction)`, advanced at every own new sending chain.
    pub(crate) own_dir: Key,
    /// `pq_dir(latest, peer direction)`, advanced at every new peer chain.
    pub(crate) peer_dir: Key,
    /// Own `ek_{latest+1}` sent until `ct_{latest+1}` is processed. The
    /// immutable key material is shared between copies of the state (an
    /// `Arc`: `decrypt`'s copy does not duplicate the 2,400-byte `dk`); it is
    /// zeroized when the last copy drops.
    pub(crate) own_ek: Option<Arc<OwnEk>>,
    /// Own `ct_k`, sent until a peer message of epoch ≥ k is authenticated.
    pub(crate) own_ct: Option<(u64, Arc<[u8]>)>,
    /// The peer's authenticated `ek_{latest+1}`, encapsulated to at the start of the next sending chain.
    pub(crate) peer_ek: Option<(u64, Arc<[u8]>)>,
    /// Version 2 only: the chunk state (`None` for version 1).
    pub(crate) chunked: Option<Chunked>,
}

/// Own direction byte.
pub(crate) const fn own_dir_byte(role: Role) -> u8 {
    match role {
        Role::Initiator => kdf::DIR_INITIATOR_TO_RESPONDER,
        Role::Responder => kdf::DIR_RESPONDER_TO_INITIATOR,
    }
}

/// Peer direction byte.
pub(crate) const fn peer_dir_byte(role: Role) -> u8 {
    match role {
        Role::Initiator => kdf::DIR_RESPONDER_TO_INITIATOR,
        Role::Responder => kdf::DIR_INITIATOR_TO_RESPONDER,
    }
}

/// The peer of `role`.
pub(crate) const fn peer(role: Role) -> Role {
    match role {
        Role::Initiator => Role::Responder,
        Role::Responder => Role::Initiator,
    }
}

impl PqState {
    fn from_epoch(role: Role, latest: u64, keys: EpochKeys) -> Self {
        let EpochKeys {
            root,
            initiator_to_responder,
            responder_to_initiator,
        } = keys;
        let (own_dir, peer_dir) = match role {
            Role::Initiator => (initiator_to_responder, responder_to_initiator),
            Role::Responder => (responder_to_initiator, initiator_to_responder),
        };
        Self {
            latest,
            root,
            own_dir,
            peer_dir,
            own_ek: None,
            own_ct: None,
            peer_ek: None,
            chunked: None,
        }
    }

    /// Epoch 0 from the handshake's `pq_root_0`; `chunked` for version 2.
    pub(crate) fn new(role: Role, pq_root_0: &[u8; 32], chunked: bool) -> Result<Self> {
        let mut s = Self::from_epoch(role, 0, kdf::epoch_zero(pq_root_0)?);
        if chunked {
            s.chunked = Some(Chunked::default());
        }
        Ok(s)
    }

    fn install(&mut self, role: Role, k: u64, keys: EpochKeys) {
        let next = Self::from_epoch(role, k, keys);
        self.latest = next.latest;
        self.root = next.root;
        self.own_dir = next.own_dir;
        self.peer_dir = next.peer_dir;
    }

    /// The initiator's `ek_1`.
    pub(crate) fn generate_first_ek<R: RatchetRng + ?Sized>(&mut self, rng: &mut R) -> Result<()> {
        self.own_ek = Some(Arc::new(OwnEk::generate(1, rng)?));
        Ok(())
    }

    /// At the start of an own sending chain: encapsulates to a pending peer
    /// `ek_{latest+1}` (moving to that epoch and generating own `ek_{latest+2}`).
    /// Returns the epoch of the new chain.
    pub(crate) fn begin_sending_chain<R: RatchetRng + ?Sized>(
        &mut self,
        role: Role,
        rng: &mut R,
    ) -> Result<u64> {
        if self.chunked.is_some() {
            // Version 2 encapsulates in `prepare_chunked`, not at a chain start.
            return Ok(self.latest);
        }
        if let Some((k, ek)) = self.peer_ek.take() {
            let next_k = self
                .latest
                .checked_add(1)
                .ok_or(SessionError::InvalidState("epoch overflow"))?;
            if k == next_k {
                let mut m = Zeroizing::new([0u8; mlkem::M_LEN]);
                rng.fill(RandomPurpose::KemEncapsulation, &mut m[..])?;
                // `ek` passed `check_ek` when it was accepted (or loaded).
                let (ct, ss) = mlkem::encapsulate_prechecked_derand(&ek, &m[..])?;
                let keys = kdf::epoch_next(&self.root, &ss, k, &ek, &ct)?;
                let after = k
                    .checked_add(1)
                    .ok_or(SessionError::InvalidState("epoch overflow"))?;
                let own = OwnEk::generate(after, rng)?;
                self.install(role, k, keys);
                self.own_ct = Some((k, Arc::from(ct)));
                self.own_ek = Some(Arc::new(own));
            }
        }
        Ok(self.latest)
    }

    /// The PQ field of a message of a sending chain of epoch `epoch`:
    /// `(ct_epoch, ek_{epoch+1})`, each if pending (borrowed, not copied).
    pub(crate) fn field_for(&self, epoch: u64) -> (Option<&[u8]>, Option<&[u8]>) {
        let ct = self
            .own_ct
            .as_ref()
            .filter(|(k, _)| *k == epoch)
            .map(|(_, ct)| &ct[..]);
        let ek = self
            .own_ek
            .as_ref()
            .filter(|o| Some(o.epoch) == epoch.checked_add(1))
            .map(|o| o.ek.as_slice());
        (ct, ek)
    }

    /// Before authentication, for the first message of a new peer chain: a
    /// `ct` answering our pending `ek_k` (k = the header's epoch) is
    /// decapsulated and epoch k installed. Runs on a copy; committed only if
    /// the message authenticates.
    pub(crate) fn absorb_ct(
        &mut self,
        role: Role,
        header_epoch: u64,
        ct: Option<&[u8]>,
    ) -> Result<()> {
        let (Some(ct), Some(own)) = (ct, self.own_ek.as_ref()) else {
            return Ok(());
        };
        if own.epoch != header_epoch {
            return Ok(());
        }
        // `dk` was expanded here from its seed (when generated or loaded), or
        // checked when a migrated state was loaded (`OwnEk::from_dk`).
        let ss = mlkem::decapsulate_own(&own.dk, ct)?;
        let keys = kdf::epoch_next(&self.root, &ss, header_epoch, &own.ek, ct)?;
        self.install(role, header_epoch, keys);
        self.own_ek = None;
        Ok(())
    }

    /// After authentication: acknowledges our `ct` (peer epoch ≥ its epoch)
    /// and takes the peer's `ek_{latest+1}` if it is the peer's turn (FIPS 203 check).
    pub(crate) fn absorb_authenticated(
        &mut self,
        role: Role,
        header_epoch: u64,
        ek: Option<&[u8]>,
    ) -> Result<()> {
        if self
            .own_ct
            .as_ref()
            .is_some_and(|(k, _)| *k <= header_epoch)
        {
            self.own_ct = None;
        }
        let Some(ek) = ek else { return Ok(()) };
        let Some(next_k) = self.latest.checked_add(1) else {
            return Ok(());
        };
        if header_epoch == self.latest
            && ek_sender(next_k) == peer(role)
            && self.peer_ek.is_none()
            && self.own_ek.is_none()
        {
            check_ek(ek)?;
            self.peer_ek = Some((next_k, Arc::from(ek)));
        }
        Ok(())
    }
}

/// Inserts `(index, chunk)` unless the index is already held.
fn insert_chunk(rx: &mut Vec<Chunk>, index: u16, chunk: &[u8; CHUNK_LEN]) {
    if !rx.iter().any(|(i, _)| *i == index) {
        rx.push((index, *chunk));
    }
}

impl PqState {
    /// Version 2, at every `encrypt` (on a copy, committed with the message):
    /// encapsulates to a reassembled peer `ek_{latest+1}` (the epoch's keys are
    /// derived now and installed when the peer's first chain of that epoch
    /// arrives), or, when epoch `latest+1` is ours by parity and nothing is
    /// pending, generates own `ek_{latest+1}`.
    pub(crate) fn prepare_chunked<R: RatchetRng + ?Sized>(
        &mut self,
        role: Role,
        rng: &mut R,
    ) -> Result<()> {
        let Some(c) = self.chunked.as_mut() else {
            return Ok(());
        };
        let Some(next_k) = self.latest.checked_add(1) else {
            return Ok(());
        };
        if let Some((k, ek)) = self.peer_ek.take() {
            if k != next_k {
                return Err(SessionError::InvalidState("peer ek epoch"));
            }
            let mut m = Zeroizing::new([0u8; mlkem::M_LEN]);
            rng.fill(RandomPurpose::KemEncapsulation, &mut m[..])?;
            // `ek` passed `check_ek` when it was reassembled (or loaded).
            let (ct, ss) = mlkem::encapsulate_prechecked_derand(&ek, &m[..])?;
            c.pending = Some(kdf::epoch_next(&self.root, &ss, k, &ek, &ct)?);
            c.ct_next = 0;
            self.own_ct = Some((k, Arc::from(ct)));
        } else if self.own_ek.is_none() && self.own_ct.is_none() && ek_sender(next_k) == role {
            self.own_ek = Some(Arc::new(OwnEk::generate(next_k, rng)?));
            c.ek_next = 0;
            c.ct_rx.clear();
        }
        Ok(())
    }

    /// Version 2: the PQ chunk of the next message of a chain of epoch
    /// `epoch` — the next chunk of own `ek_{epoch+1}` until a chunk of its
    /// `ct` arrives, else the next chunk of own `ct_{epoch+1}` until the peer's
    /// first chain of that epoch arrives, else none — and advances its index.
    pub(crate) fn next_chunk(&mut self, epoch: u64) -> Result<Option<(u8, u16, [u8; CHUNK_LEN])>> {
        let Some(c) = self.chunked.as_mut() else {
            return Ok(None);
        };
        let next = epoch.checked_add(1);
        if let Some(own) = &self.own_ek
            && Some(own.epoch) == next
            && c.ct_rx.is_empty()
        {
            let i = c.ek_next;
            c.ek_next = i.wrapping_add(1);
            return Ok(Some((KIND_EK, i, chunks::encode(&own.ek, i)?)));
        }
        if let Some((k, ct)) = &self.own_ct
            && Some(*k) == next
        {
            let i = c.ct_next;
            c.ct_next = i.wrapping_add(1);
            return Ok(Some((KIND_CT, i, chunks::encode(ct, i)?)));
        }
        Ok(None)
    }

    /// Version 2, the first message of a new peer chain of epoch `e` (before
    /// authentication, on a copy): `latest` (the previous epoch's key is then
    /// no longer needed), `latest − 1` while its key is kept (returns `true`:
    /// use `prev_peer_dir`), or the epoch this side encapsulated (installed
    /// now: the peer has the `ct`). Any other epoch: `AUTHENTICATION_FAILED`.
    pub(crate) fn enter_peer_chain(&mut self, role: Role, e: u64) -> Result<bool> {
        let Some(c) = self.chunked.as_mut() else {
            return Err(SessionError::InvalidState("not a chunked state"));
        };
        if e == self.latest {
            c.prev_peer_dir = None;
            return Ok(false);
        }
        if c.prev_peer_dir.is_some() && Some(e) == self.latest.checked_sub(1) {
            return Ok(true);
        }
        if self.own_ct.as_ref().is_some_and(|(k, _)| *k == e)
            && let Some(keys) = c.pending.take()
        {
            c.ct_next = 0;
            c.ek_rx.clear();
            c.prev_peer_dir = None;
            self.own_ct = None;
            self.install(role, e, keys);
            return Ok(false);
        }
        Err(SessionError::AuthenticationFailed)
    }

    /// Version 2, after authentication: stores a chunk of the peer's
    /// `ek_{latest+1}` (when it is the peer's turn and nothing is pending) and
    /// reassembles it from `EK_CHUNKS` distinct chunks (FIPS 203 check:
    /// `INVALID_KEY`); stores a chunk of `ct_{latest+1}` answering own `ek` and,
    /// from `CT_CHUNKS` distinct chunks, decapsulates and installs the epoch.
    /// A chunk of any other epoch, or one no longer needed, is ignored.
    pub(crate) fn absorb_chunk(&mut self, role: Role, e: u64, field: &PqField) -> Result<()> {
        let Some(c) = self.chunked.as_mut() else {
            return Ok(());
        };
        let Some(next_k) = self.latest.checked_add(1) else {
            return Ok(());
        };
        if e != self.latest {
            return Ok(());
        }
        match field {
            PqField::EkChunk(index, chunk)
                if ek_sender(next_k) == peer(role)
                    && self.own_ek.is_none()
                    && self.peer_ek.is_none()
                    && self.own_ct.is_none() =>
            {
                insert_chunk(&mut c.ek_rx, *index, chunk);
                if c.ek_rx.len() >= EK_CHUNKS {
                    let ek = chunks::decode(&c.ek_rx, EK_LEN)
                        .ok_or(SessionError::InvalidState("ek chunks"))?;
                    check_ek(&ek)?;
                    c.ek_rx.clear();
                    self.peer_ek = Some((next_k, Arc::from(ek)));
                }
            }
            PqField::CtChunk(index, chunk) => {
                let Some(own) = self.own_ek.clone() else {
                    return Ok(());
                };
                if own.epoch != next_k {
                    return Ok(());
                }
                insert_chunk(&mut c.ct_rx, *index, chunk);
                if c.ct_rx.len() >= CT_CHUNKS {
                    let ct = chunks::decode(&c.ct_rx, CT_LEN)
                        .ok_or(SessionError::InvalidState("ct chunks"))?;
                    // `dk` was expanded here from its seed, or checked on load (migrated).
                    let ss = mlkem::decapsulate_own(&own.dk, &ct)?;
                    let keys = kdf::epoch_next(&self.root, &ss, next_k, &own.ek, &ct)?;
                    c.ct_rx.clear();
                    c.ek_next = 0;
                    c.prev_peer_dir = Some(self.peer_dir.clone());
                    self.own_ek = None;
                    self.install(role, next_k, keys);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
