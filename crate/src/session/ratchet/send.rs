//! Sending: starting a sending chain (DH step, PQ encapsulation) and
//! `encrypt` (docs/SESSIONS.md §5.4).

use super::header::{self, HeaderRef, NONCE_LEN};
use super::kdf::{self, Key};
use super::pad;
use super::pq::{self, PqState};
use super::rng::{RandomPurpose, RatchetRng};
use super::{DhPair, RatchetState, SendChain};
use crate::session::{Result, SessionError, VERSION_1};
use crate::{aead, x25519};

/// A new sending chain, computed without touching the state (its PQ part
/// goes into the caller's copy of the PQ state).
pub(super) struct PreparedChain {
    dh: DhPair,
    root_key: Key,
    send: SendChain,
}

impl RatchetState {
    /// Computes the next sending chain: encapsulation to a pending peer `ek`
    /// (new epoch), a fresh ratchet key, `KDF_RK` with the peer's ratchet key,
    /// and the chain's PQ key from the epoch's own direction key.
    pub(super) fn prepare_sending_chain<R: RatchetRng + ?Sized>(
        &self,
        pq: &mut PqState,
        rng: &mut R,
    ) -> Result<PreparedChain> {
        let remote = self.dh_remote.ok_or(SessionError::InvalidState(
            "no sending chain yet: the responder sends after its first decrypted message",
        ))?;
        let epoch = pq.begin_sending_chain(self.role, rng)?;
        let dh = DhPair::generate(rng)?;
        let dh_out = x25519::x25519_dh(&dh.secret[..], &remote)?;
        let (root_key, ck) = kdf::kdf_root(&self.root_key, &dh_out, self.version)?;
        let (own_dir, pq_ck) =
            kdf::pq_chain_start(&pq.own_dir, &dh.public, epoch, pq::own_dir_byte(self.role))?;
        pq.own_dir = own_dir;
        Ok(PreparedChain {
            dh,
            root_key,
            send: SendChain {
                keys: kdf::ChainKeys { ck, pq_ck },
                n: 0,
                epoch,
            },
        })
    }

    /// Installs a prepared chain (infallible).
    pub(super) fn commit_sending_chain(&mut self, p: PreparedChain) {
        self.dh_self = Some(p.dh);
        self.root_key = p.root_key;
        self.send = Some(p.send);
    }

    /// Encrypts `plaintext` (padded inside the AEAD) with the caller's `aad`
    /// bound into the associated data; `decrypt` must get the same `aad`.
    /// Starts a new sending chain first if the peer has sent a new ratchet
    /// key since (and then, if the peer's `ek` is pending, a new PQ epoch).
    /// The state changes only if the whole operation succeeds.
    ///
    /// # Errors
    /// [`SessionError::InvalidState`] before the responder has received a
    /// message (or after 2^32 messages in one chain), `INVALID_LENGTH` for a
    /// plaintext ≥ 2^32 − 4 bytes, a randomness failure.
    pub fn encrypt<R: RatchetRng + ?Sized>(
        &mut self,
        plaintext: &[u8],
        aad: &[u8],
        rng: &mut R,
    ) -> Result<Vec<u8>> {
        let version = self.version;
        let mut pq_next = self.pq.clone();
        pq_next.prepare_chunked(self.role, rng)?;
        let prepared = if self.send.is_none() {
            Some(self.prepare_sending_chain(&mut pq_next, rng)?)
        } else {
            None
        };
        let (mut chain, ratchet_public) = match (&prepared, &self.send, &self.dh_self) {
            (Some(p), _, _) => (p.send.clone(), p.dh.public),
            (None, Some(send), Some(dh)) => (send.clone(), dh.public),
            _ => {
                return Err(SessionError::InvalidState(
                    "sending chain without a ratchet key",
                ));
            }
        };
        let n = chain.n;
        chain.n = n
            .checked_add(1)
            .ok_or(SessionError::InvalidState("sending chain exhausted"))?;
        let mk = chain
            .keys
            .step(self.version, chain.epoch, &ratchet_public, n)?;
        let chunk = pq_next.next_chunk(chain.epoch)?;
        let (ct, ek) = if version == VERSION_1 {
            pq_next.field_for(chain.epoch)
        } else {
            (None, None)
        };
        let header = HeaderRef {
            version: self.version,
            ratchet_public: &ratchet_public,
            previous_chain_length: self.previous_send_len,
            message_number: n,
            epoch: chain.epoch,
            ct,
            ek,
            chunk,
        };
        let padded = pad::pad(version, plaintext)?;
        let mut out = Vec::with_capacity(
            header
                .len()
                .saturating_add(NONCE_LEN)
                .saturating_add(padded.len())
                .saturating_add(aead::TAG_LEN),
        );
        header.encode_into(&mut out);
        let ad = header::associated_data(self.version, &self.identities_hash, &out, aad)?;
        let mut nonce = [0u8; NONCE_LEN];
        rng.fill(RandomPurpose::Nonce, &mut nonce)?;
        // Ciphertext: not secret, no need to wipe.
        let sealed = aead::aes_gcm_encrypt_with_iv(&mk[..], &nonce, &padded, &ad)?;
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&sealed);
        if let Some(p) = prepared {
            self.commit_sending_chain(p);
        }
        self.pq = pq_next;
        self.send = Some(chain);
        self.bump();
        Ok(out)
    }
}
