//! Receiving: `decrypt` on a copy of the state (docs/SESSIONS.md §5.4, §5.7).

use zeroize::Zeroizing;

use super::RatchetState;
use super::header::{self, Header, ParsedMessage};
use super::kdf::{self, ChainKeys, Key};
use super::skipped::{Ctx, RecvChain};
use super::{pad, pq};
use crate::session::{Result, SessionError};
use crate::{aead, x25519};

impl RatchetState {
    fn too_far(&self, jump: u64) -> Result<()> {
        if jump > u64::from(self.limits.max_jump) {
            return Err(SessionError::TooFarAhead {
                jump,
                limit: self.limits.max_jump,
            });
        }
        Ok(())
    }

    /// The first message of a new peer chain: jump checks, the PQ `ct` (if it
    /// answers our `ek`), closing the open receiving chain at `PN`, the DH
    /// step, closing our sending chain.
    fn new_peer_chain(&mut self, h: &Header, ctx: &Ctx, seq: &mut u64) -> Result<Key> {
        let dh_secret = self
            .dh_self
            .as_ref()
            .map(|d| kdf::key_from(&d.secret))
            .ok_or(SessionError::AuthenticationFailed)?;
        let open_jump = self
            .recv
            .open_mut()
            .map_or(0, |c| c.jump_to(h.previous_chain_length));
        self.too_far(open_jump)?;
        self.too_far(u64::from(h.message_number))?;
        let use_prev = if self.pq.chunked.is_some() {
            self.pq.enter_peer_chain(self.role, h.epoch)?
        } else {
            self.pq.absorb_ct(self.role, h.epoch, h.pq.ct())?;
            if h.epoch != self.pq.latest {
                return Err(SessionError::AuthenticationFailed);
            }
            false
        };
        if let Some(open) = self.recv.open_mut() {
            open.skip_to(h.previous_chain_length, ctx, seq)?;
            open.keys = None;
        }
        let dh_out = x25519::x25519_dh(&dh_secret[..], &h.ratchet_public)
            .map_err(|_| SessionError::AuthenticationFailed)?;
        let (root_key, ck) = kdf::kdf_root(&self.root_key, &dh_out, ctx.version)?;
        let dir_key = match (use_prev, self.pq.chunked.as_mut()) {
            (true, Some(c)) => c.prev_peer_dir.as_mut(),
            _ => Some(&mut self.pq.peer_dir),
        }
        .ok_or(SessionError::AuthenticationFailed)?;
        let (peer_dir, pq_ck) = kdf::pq_chain_start(
            dir_key,
            &h.ratchet_public,
            h.epoch,
            pq::peer_dir_byte(self.role),
        )?;
        *dir_key = peer_dir;
        self.root_key = root_key;
        if let Some(send) = self.send.take() {
            self.previous_send_len = send.n;
        }
        self.dh_self = None;
        self.dh_remote = Some(h.ratchet_public);
        let mut chain = RecvChain {
            ratchet_public: h.ratchet_public,
            epoch: h.epoch,
            keys: Some(ChainKeys { ck, pq_ck }),
            next: 0,
            skipped: Vec::new(),
        };
        let mk = chain.key_for(h.message_number, ctx, seq)?;
        super::skipped::reserve_wiped(&mut self.recv.chains, 1);
        self.recv.chains.push(chain);
        Ok(mk)
    }

    /// Decrypts `message` with the `aad` the sender used, at Unix time `now`
    /// (seconds; ages skipped keys). Works on a copy: returns the advanced
    /// state and the plaintext; `self` is never changed, so on any error the
    /// caller keeps its state and the genuine message still decrypts.
    ///
    /// # Errors
    /// - [`SessionError::Malformed`]: not a version-1 message;
    /// - [`SessionError::TooFarAhead`]: the jump exceeds `max_jump` (checked first);
    /// - [`SessionError::DuplicateMessage`]: replay on a chain still held, or
    ///   the key was evicted or expired;
    /// - [`SessionError::AuthenticationFailed`]: wrong key, any modified
    ///   byte, wrong `aad`, bad padding, an unknown epoch, or a
    ///   ratchet key not held (a chain already evicted);
    /// - `INVALID_KEY`: an authenticated `ek` fails the FIPS 203 check.
    pub fn decrypt(
        &self,
        message: &[u8],
        aad: &[u8],
        now: u64,
    ) -> Result<(Self, Zeroizing<Vec<u8>>)> {
        let msg = ParsedMessage::parse(message)?;
        let h = &msg.header;
        if h.version != self.version {
            return Err(SessionError::Malformed(
                "message: version differs from the session's",
            ));
        }
        let mut s = self.clone();
        s.recv.purge_expired(now, &s.limits);
        let ctx = Ctx {
            version: h.version,
            now,
        };
        let mut seq = s.recv.next_seq;
        let limits = s.limits;
        let mk = if let Some(chain) = s.recv.find_mut(&h.ratchet_public) {
            if chain.epoch != h.epoch {
                return Err(SessionError::AuthenticationFailed);
            }
            let jump = chain.jump_to(h.message_number);
            if jump > u64::from(limits.max_jump) {
                return Err(SessionError::TooFarAhead {
                    jump,
                    limit: limits.max_jump,
                });
            }
            chain.key_for(h.message_number, &ctx, &mut seq)?
        } else {
            s.new_peer_chain(h, &ctx, &mut seq)?
        };
        s.recv.next_seq = seq;
        // The header as received: `ParsedMessage::parse` accepts canonical encodings only.
        let ad = header::associated_data(s.version, &s.identities_hash, msg.header_bytes, aad)?;
        let padded = Zeroizing::new(
            aead::aes_gcm_decrypt_with_iv(&mk[..], &msg.nonce, msg.sealed, &ad)
                .map_err(|_| SessionError::AuthenticationFailed)?,
        );
        let plaintext = pad::unpad(s.version, &padded)?;
        if s.pq.chunked.is_some() {
            s.pq.absorb_chunk(s.role, h.epoch, &h.pq)?;
        } else {
            s.pq.absorb_authenticated(s.role, h.epoch, h.pq.ek())?;
        }
        s.recv.enforce(&s.limits);
        s.bump();
        Ok((s, plaintext))
    }
}
