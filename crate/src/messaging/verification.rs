//! Out-of-band verification of identities, in two forms.
//!
//! **Static code** ([`generate_verification_code`]): both users compare a
//! 60-digit number (≈ 199.3 bits) or a 256-bit fingerprint derived from both
//! identities and the conversation id; symmetric in the two identities. A
//! static code both sides derive from both identities falls to a claw search
//! in 2^(ℓ/2) by a key-substituting man in the middle (he picks both
//! substitute identities), so only forms of about 200 bits or more are
//! offered: the 7-emoji form of v1 (42 bits) was found by a 2^21 search.
//!
//! **Interactive SAS** ([`SasVerification`]): a short 7-emoji code (42 bits)
//! is safe only inside a commit-then-reveal exchange, where a man in the
//! middle gets one 2^-42 guess per attempt: the responder commits to its
//! identity and a fresh nonce, then both reveal their nonces.
//!
//! ```text
//! Enc(I)  = u8(flags) ‖ ed25519(32) ‖ [ml-dsa-65 public(1952) if flags bit 0] ‖ x25519(32)
//!           (flags: bit 0 = ML-DSA-65 key present; every other bit must be 0)
//! static: (lo, hi) = (min(Enc(A), Enc(B)), max(Enc(A), Enc(B)))
//!         enc = lp32(conversationId) ‖ lp32(lo) ‖ lp32(hi)
//!         H_i = SHA-256("veilkit-verification-v2" ‖ u8(i) ‖ enc)
//!         numeric = 12 groups, group j = u40(D[5j .. 5j+5]) mod 100000 as 5 digits, D = H_0 ‖ H_1
//!         fingerprint = lowercase hex of H_2
//! SAS:    c   = SHA-256("veilkit-sas-commit-v1" ‖ lp32(txId) ‖ lp32(Enc(I_resp)) ‖ n_resp)
//!         sas = SHA-256("veilkit-sas-v1" ‖ lp32(txId) ‖ lp32(Enc(I_init)) ‖ lp32(Enc(I_resp)) ‖ n_init ‖ n_resp)
//!         emoji = EMOJI[b_k] for k = 0..7, b_k = bits 6k .. 6k+6 of sas (most significant first)
//! ```
//!
//! Size: ~500 lines, of which ~25 tests; the static code and the SAS share the identity encoding and the transcript helpers.

use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::codec::put_u32_prefixed;
use super::error::{MessagingError, Result};
use crate::error::CryptoError;
use crate::hash::sha256;
use crate::rng;

/// Static-code hash label.
pub const LABEL: &[u8] = b"veilkit-verification-v2";
/// SAS commitment label.
pub const SAS_COMMIT_LABEL: &[u8] = b"veilkit-sas-commit-v1";
/// SAS label.
pub const SAS_LABEL: &[u8] = b"veilkit-sas-v1";
/// Number of 5-digit groups of the numeric static code.
pub const NUMERIC_GROUPS: usize = 12;
/// Number of emoji of a SAS.
pub const EMOJI_COUNT: usize = 7;
/// `flags` bit: an ML-DSA-65 public key is present.
pub const FLAG_ML_DSA_65: u8 = 0x01;
/// Ed25519 public key length.
pub const ED25519_PUBLIC_LEN: usize = 32;
/// ML-DSA-65 public key length.
pub const ML_DSA_65_PUBLIC_LEN: usize = 1952;
/// X25519 public key length.
pub const X25519_PUBLIC_LEN: usize = 32;
/// Length of an identity encoding without / with ML-DSA-65.
pub const IDENTITY_LEN: [usize; 2] = [1 + 32 + 32, 1 + 32 + 1952 + 32];
/// SAS nonce length (256 bits).
pub const NONCE_LEN: usize = 32;
/// SAS commitment length.
pub const COMMITMENT_LEN: usize = 32;
/// Longest SAS transaction id.
pub const MAX_TX_ID_LEN: usize = 255;
/// Largest `max_attempts` of a [`SasVerification`].
pub const MAX_ATTEMPTS_LIMIT: u32 = 10;

/// The fixed 64-entry emoji table (index = 6-bit value). Every entry is one
/// Unicode code point with default emoji presentation.
pub const EMOJI: [&str; 64] = [
    "🐶", "🐱", "🐭", "🐹", "🐰", "🦊", "🐻", "🐼", // 0-7
    "🐨", "🐯", "🦁", "🐮", "🐷", "🐸", "🐵", "🐔", // 8-15
    "🐧", "🐦", "🦆", "🦉", "🐴", "🦄", "🐝", "🐛", // 16-23
    "🦋", "🐌", "🐞", "🐢", "🐍", "🐙", "🦀", "🐬", // 24-31
    "🐳", "🦈", "🐘", "🦒", "🍎", "🍐", "🍊", "🍋", // 32-39
    "🍌", "🍉", "🍇", "🍓", "🍒", "🍑", "🍍", "🥝", // 40-47
    "🥕", "🌽", "🍄", "🌵", "🌲", "🌻", "🌙", "🌈", // 48-55
    "🔥", "💧", "🌊", "🎈", "🎸", "🚀", "🔑", "🔔", // 56-63
];

/// The canonical encoding `Enc(I)` of an identity's public keys.
///
/// # Errors
/// `INVALID_LENGTH` naming the key of the wrong size.
pub fn encode_identity(ed25519: &[u8], ml_dsa_65: Option<&[u8]>, x25519: &[u8]) -> Result<Vec<u8>> {
    if ed25519.len() != ED25519_PUBLIC_LEN {
        return Err(CryptoError::length("ed25519", "32 bytes", ed25519.len()).into());
    }
    if x25519.len() != X25519_PUBLIC_LEN {
        return Err(CryptoError::length("x25519", "32 bytes", x25519.len()).into());
    }
    if let Some(k) = ml_dsa_65
        && k.len() != ML_DSA_65_PUBLIC_LEN
    {
        return Err(CryptoError::length("mlDsa65", "1952 bytes", k.len()).into());
    }
    let mut out = Vec::with_capacity(1 + 32 + ml_dsa_65.map_or(0, <[u8]>::len) + 32);
    out.push(if ml_dsa_65.is_some() { FLAG_ML_DSA_65 } else { 0 });
    out.extend_from_slice(ed25519);
    if let Some(k) = ml_dsa_65 {
        out.extend_from_slice(k);
    }
    out.extend_from_slice(x25519);
    Ok(out)
}

/// Checks that `enc` is a canonical identity encoding.
///
/// # Errors
/// `MALFORMED_INPUT` (empty, unknown flag bits), `INVALID_LENGTH` (the
/// length does not match the flags).
pub fn check_identity(what: &'static str, enc: &[u8]) -> Result<()> {
    let flags = *enc.first().ok_or(MessagingError::Malformed("identity encoding is empty"))?;
    if flags & !FLAG_ML_DSA_65 != 0 {
        return Err(MessagingError::Malformed("identity encoding has unknown flags"));
    }
    let (expected, text) = if flags & FLAG_ML_DSA_65 == 0 {
        (IDENTITY_LEN[0], "65 bytes (flags 0)")
    } else {
        (IDENTITY_LEN[1], "2017 bytes (flags 1)")
    };
    if enc.len() != expected {
        return Err(CryptoError::length(what, text, enc.len()).into());
    }
    Ok(())
}

/// A static verification code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerificationCode {
    /// 12 groups of 5 digits separated by spaces (71 characters, ≈ 199.3 bits).
    pub numeric: String,
    /// 64 lowercase hex digits (256 bits).
    pub fingerprint: String,
}

/// The static verification code of two identities (canonical encodings, see
/// [`encode_identity`]) in a conversation; symmetric in the two.
///
/// # Errors
/// As [`check_identity`]; `INVALID_LENGTH` if the conversation id is 2^32
/// bytes or longer.
#[must_use = "the code is the only output"]
pub fn generate_verification_code(identity_a: &[u8], identity_b: &[u8], conversation_id: &[u8]) -> Result<VerificationCode> {
    check_identity("identityA", identity_a)?;
    check_identity("identityB", identity_b)?;
    let (lo, hi) = if identity_a <= identity_b { (identity_a, identity_b) } else { (identity_b, identity_a) };
    let mut enc = Vec::with_capacity(12 + conversation_id.len() + lo.len() + hi.len());
    put_u32_prefixed(&mut enc, "conversationId", conversation_id)?;
    put_u32_prefixed(&mut enc, "identityA", lo)?;
    put_u32_prefixed(&mut enc, "identityB", hi)?;
    let h = |i: u8| sha256(&[LABEL, &[i], &enc].concat());

    let d = [h(0), h(1)].concat();
    let groups: Vec<String> = d
        .chunks_exact(5)
        .take(NUMERIC_GROUPS)
        .map(|c| {
            let v = c.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
            format!("{:05}", v % 100_000)
        })
        .collect();
    let fingerprint = h(2).iter().map(|b| format!("{b:02x}")).collect();
    Ok(VerificationCode { numeric: groups.join(" "), fingerprint })
}

// ---------------------------------------------------------------- interactive SAS

fn check_tx_id(tx_id: &[u8]) -> Result<()> {
    if tx_id.is_empty() || tx_id.len() > MAX_TX_ID_LEN {
        return Err(CryptoError::length("txId", "1 to 255 bytes", tx_id.len()).into());
    }
    Ok(())
}

/// The responder's commitment `c`.
///
/// # Errors
/// `INVALID_LENGTH` (tx id, identity), `MALFORMED_INPUT` (identity flags).
pub fn sas_commitment(tx_id: &[u8], responder: &[u8], responder_nonce: &[u8; NONCE_LEN]) -> Result<[u8; COMMITMENT_LEN]> {
    check_tx_id(tx_id)?;
    check_identity("responder", responder)?;
    let mut m = Vec::with_capacity(SAS_COMMIT_LABEL.len() + 8 + tx_id.len() + responder.len() + NONCE_LEN);
    m.extend_from_slice(SAS_COMMIT_LABEL);
    put_u32_prefixed(&mut m, "txId", tx_id)?;
    put_u32_prefixed(&mut m, "responder", responder)?;
    m.extend_from_slice(responder_nonce);
    Ok(sha256(&m))
}

/// The SAS hash both sides compare (as emoji, [`sas_emoji`]).
///
/// # Errors
/// As [`sas_commitment`].
pub fn sas_hash(
    tx_id: &[u8],
    initiator: &[u8],
    responder: &[u8],
    initiator_nonce: &[u8; NONCE_LEN],
    responder_nonce: &[u8; NONCE_LEN],
) -> Result<[u8; 32]> {
    check_tx_id(tx_id)?;
    check_identity("initiator", initiator)?;
    check_identity("responder", responder)?;
    let mut m = Vec::with_capacity(SAS_LABEL.len() + 12 + tx_id.len() + initiator.len() + responder.len() + 2 * NONCE_LEN);
    m.extend_from_slice(SAS_LABEL);
    put_u32_prefixed(&mut m, "txId", tx_id)?;
    put_u32_prefixed(&mut m, "initiator", initiator)?;
    put_u32_prefixed(&mut m, "responder", responder)?;
    m.extend_from_slice(initiator_nonce);
    m.extend_from_slice(responder_nonce);
    Ok(sha256(&m))
}

/// The 7 emoji of a SAS hash: `EMOJI[(u64(sas[0..8]) >> (58 − 6k)) & 63]`.
#[must_use]
pub fn sas_emoji(sas: &[u8; 32]) -> [&'static str; EMOJI_COUNT] {
    let mut head = [0u8; 8];
    head.copy_from_slice(sas.first_chunk::<8>().unwrap_or(&[0u8; 8]));
    let bits = u64::from_be_bytes(head);
    core::array::from_fn(|k| EMOJI.get(((bits >> (58 - 6 * k)) & 63) as usize).copied().unwrap_or(""))
}

/// Which side of the exchange an object plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SasRole {
    /// Receives the commitment first, then reveals its nonce.
    Initiator,
    /// Commits first (identity and nonce), reveals its nonce last.
    Responder,
}

enum Phase {
    /// No attempt running.
    Idle,
    /// Initiator: started, waiting for the commitment.
    AwaitingCommitment,
    /// Initiator: nonce revealed, waiting for the responder's nonce.
    AwaitingNonce([u8; COMMITMENT_LEN]),
    /// Responder: commitment sent, waiting for the initiator's nonce.
    Committed,
    /// Both nonces known: the users compare the emoji.
    Compare([u8; 32]),
    /// The users confirmed the match. Final.
    Verified,
}

/// One side of an interactive commit-then-reveal SAS verification, with an
/// attempt counter. Message flow of one attempt (each side calls
/// [`SasVerification::start`] with the same transaction id first):
///
/// ```text
/// responder.start(txId)             → c      (send to the initiator)
/// initiator.receive_commitment(c)   → n_init (send to the responder)
/// responder.receive_nonce(n_init)   → n_resp (send to the initiator)
/// initiator.receive_nonce(n_resp)   (checks c; SAS_COMMITMENT_MISMATCH aborts)
/// both: emoji() shown, then confirm() if they match, reject() if not
/// ```
///
/// Misuse resistance: nonces are generated inside, fresh for every attempt,
/// and never accepted from the caller; the initiator's nonce is released only
/// after the commitment arrived; every call out of order is `INVALID_STATE`;
/// a received nonce or commitment equal to any nonce or commitment this
/// object generated or received before (replay, reflection) aborts the
/// attempt with `SAS_NONCE_REUSED`. A mismatch, reuse, [`SasVerification::reject`]
/// or [`SasVerification::abort`] counts as a failed attempt; after
/// `max_attempts` of them [`SasVerification::start`] refuses with
/// `SAS_ATTEMPTS_EXHAUSTED`, for good. After [`SasVerification::confirm`]
/// every call is `INVALID_STATE`.
pub struct SasVerification {
    role: SasRole,
    own: Vec<u8>,
    peer: Vec<u8>,
    max_attempts: u32,
    failures: u32,
    tx_id: Vec<u8>,
    nonce: Zeroizing<[u8; NONCE_LEN]>,
    seen: Vec<[u8; 32]>,
    phase: Phase,
}

impl SasVerification {
    /// A verifier for `role`, for our identity and the identity we believe
    /// the peer has (canonical encodings).
    ///
    /// # Errors
    /// As [`check_identity`]; `INVALID_PARAMETER` unless
    /// `1 ≤ max_attempts ≤ MAX_ATTEMPTS_LIMIT`.
    pub fn new(role: SasRole, own_identity: &[u8], peer_identity: &[u8], max_attempts: u32) -> Result<Self> {
        check_identity("ownIdentity", own_identity)?;
        check_identity("peerIdentity", peer_identity)?;
        if max_attempts == 0 || max_attempts > MAX_ATTEMPTS_LIMIT {
            return Err(CryptoError::InvalidParameter("maxAttempts must be 1 to 10").into());
        }
        Ok(Self {
            role,
            own: own_identity.to_vec(),
            peer: peer_identity.to_vec(),
            max_attempts,
            failures: 0,
            tx_id: Vec::new(),
            nonce: Zeroizing::new([0u8; NONCE_LEN]),
            seen: Vec::new(),
            phase: Phase::Idle,
        })
    }

    /// The role.
    #[must_use]
    pub const fn role(&self) -> SasRole {
        self.role
    }

    /// Failed or aborted attempts so far.
    #[must_use]
    pub const fn failures(&self) -> u32 {
        self.failures
    }

    /// Attempts left before [`SasVerification::start`] refuses.
    #[must_use]
    pub const fn attempts_left(&self) -> u32 {
        self.max_attempts.saturating_sub(self.failures)
    }

    /// Whether the users confirmed a match.
    #[must_use]
    pub const fn is_verified(&self) -> bool {
        matches!(self.phase, Phase::Verified)
    }

    /// The state's name: `idle`, `awaiting-commitment`, `awaiting-nonce`,
    /// `committed`, `compare`, `verified` or `exhausted`.
    #[must_use]
    pub const fn state(&self) -> &'static str {
        match self.phase {
            Phase::Idle if self.failures >= self.max_attempts => "exhausted",
            Phase::Idle => "idle",
            Phase::AwaitingCommitment => "awaiting-commitment",
            Phase::AwaitingNonce(_) => "awaiting-nonce",
            Phase::Committed => "committed",
            Phase::Compare(_) => "compare",
            Phase::Verified => "verified",
        }
    }

    fn fail(&mut self, e: MessagingError) -> MessagingError {
        self.failures = self.failures.saturating_add(1);
        self.phase = Phase::Idle;
        *self.nonce = [0u8; NONCE_LEN];
        e
    }

    fn remember(&mut self, value: [u8; 32]) -> Result<()> {
        if self.seen.iter().any(|s| bool::from(s.ct_eq(&value))) {
            return Err(self.fail(MessagingError::SasNonceReused));
        }
        self.seen.push(value);
        Ok(())
    }

    /// Starts an attempt: a fresh nonce. The responder gets the commitment to
    /// send; the initiator gets `None` and waits for it.
    ///
    /// # Errors
    /// `SAS_ATTEMPTS_EXHAUSTED`; `INVALID_STATE` while an attempt runs (call
    /// [`SasVerification::abort`] first) or after `confirm`; `INVALID_LENGTH`
    /// (tx id, 1 to 255 bytes); `RANDOMNESS_UNAVAILABLE`.
    pub fn start(&mut self, tx_id: &[u8]) -> Result<Option<[u8; COMMITMENT_LEN]>> {
        match self.phase {
            Phase::Idle => {}
            _ => return Err(MessagingError::InvalidState),
        }
        if self.failures >= self.max_attempts {
            return Err(MessagingError::SasAttemptsExhausted);
        }
        check_tx_id(tx_id)?;
        let nonce = rng::array::<NONCE_LEN>()?;
        self.tx_id = tx_id.to_vec();
        self.remember(*nonce)?;
        *self.nonce = *nonce;
        match self.role {
            SasRole::Initiator => {
                self.phase = Phase::AwaitingCommitment;
                Ok(None)
            }
            SasRole::Responder => {
                let c = sas_commitment(&self.tx_id, &self.own, &self.nonce)?;
                self.remember(c)?;
                self.phase = Phase::Committed;
                Ok(Some(c))
            }
        }
    }

    /// Initiator: takes the responder's commitment and returns our nonce to
    /// send (never before the commitment arrived).
    ///
    /// # Errors
    /// `INVALID_STATE` (responder, or not waiting for a commitment);
    /// `INVALID_LENGTH` (not 32 bytes; the attempt goes on);
    /// `SAS_NONCE_REUSED` (a commitment or nonce seen before; attempt failed).
    pub fn receive_commitment(&mut self, commitment: &[u8]) -> Result<[u8; NONCE_LEN]> {
        if self.role != SasRole::Initiator || !matches!(self.phase, Phase::AwaitingCommitment) {
            return Err(MessagingError::InvalidState);
        }
        let c = *crate::error::exact::<COMMITMENT_LEN>("commitment", "32 bytes", commitment)?;
        self.remember(c)?;
        self.phase = Phase::AwaitingNonce(c);
        Ok(*self.nonce)
    }

    /// Takes the peer's nonce. The responder gets its own nonce to send back;
    /// the initiator checks it against the commitment and gets `None`. Then
    /// [`SasVerification::emoji`] is available.
    ///
    /// # Errors
    /// `INVALID_STATE` (out of order: e.g. the initiator before the
    /// commitment); `INVALID_LENGTH` (not 32 bytes; the attempt goes on);
    /// `SAS_NONCE_REUSED` or `SAS_COMMITMENT_MISMATCH` (the attempt failed).
    pub fn receive_nonce(&mut self, nonce: &[u8]) -> Result<Option<[u8; NONCE_LEN]>> {
        let expected = match (self.role, &self.phase) {
            (SasRole::Initiator, Phase::AwaitingNonce(c)) => Some(*c),
            (SasRole::Responder, Phase::Committed) => None,
            _ => return Err(MessagingError::InvalidState),
        };
        let n = *crate::error::exact::<NONCE_LEN>("nonce", "32 bytes", nonce)?;
        self.remember(n)?;
        match expected {
            Some(c) => {
                let opened = sas_commitment(&self.tx_id, &self.peer, &n)?;
                if !bool::from(opened.ct_eq(&c)) {
                    return Err(self.fail(MessagingError::SasCommitmentMismatch));
                }
                let sas = sas_hash(&self.tx_id, &self.own, &self.peer, &self.nonce, &n)?;
                self.phase = Phase::Compare(sas);
                Ok(None)
            }
            None => {
                let sas = sas_hash(&self.tx_id, &self.peer, &self.own, &n, &self.nonce)?;
                self.phase = Phase::Compare(sas);
                Ok(Some(*self.nonce))
            }
        }
    }

    /// The 7 emoji to compare.
    ///
    /// # Errors
    /// `INVALID_STATE` unless both nonces are known and no verdict is given yet.
    pub fn emoji(&self) -> Result<[&'static str; EMOJI_COUNT]> {
        match &self.phase {
            Phase::Compare(sas) => Ok(sas_emoji(sas)),
            _ => Err(MessagingError::InvalidState),
        }
    }

    /// The users saw the same emoji: verified (final).
    ///
    /// # Errors
    /// `INVALID_STATE` unless the emoji are being compared.
    pub fn confirm(&mut self) -> Result<()> {
        match self.phase {
            Phase::Compare(_) => {
                self.phase = Phase::Verified;
                *self.nonce = [0u8; NONCE_LEN];
                Ok(())
            }
            _ => Err(MessagingError::InvalidState),
        }
    }

    /// The users saw different emoji: a failed attempt.
    ///
    /// # Errors
    /// `INVALID_STATE` unless the emoji are being compared.
    pub fn reject(&mut self) -> Result<()> {
        match self.phase {
            Phase::Compare(_) => {
                let _ = self.fail(MessagingError::InvalidState);
                Ok(())
            }
            _ => Err(MessagingError::InvalidState),
        }
    }

    /// Abandons the running attempt (a failed attempt); nothing if none runs.
    pub fn abort(&mut self) {
        match self.phase {
            Phase::Idle | Phase::Verified => {}
            Phase::AwaitingCommitment | Phase::AwaitingNonce(_) | Phase::Committed | Phase::Compare(_) => {
                let _ = self.fail(MessagingError::InvalidState);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_64_distinct_single_code_points() {
        let mut seen = std::collections::HashSet::new();
        for e in EMOJI {
            assert_eq!(e.chars().count(), 1, "{e}");
            assert!(seen.insert(e), "duplicate {e}");
        }
    }

    #[test]
    fn symmetric() {
        let a = encode_identity(&[1; 32], None, &[2; 32]).unwrap();
        let b = encode_identity(&[3; 32], Some(&[4; 1952]), &[5; 32]).unwrap();
        let ab = generate_verification_code(&a, &b, b"conv").unwrap();
        assert_eq!(ab, generate_verification_code(&b, &a, b"conv").unwrap());
        assert_eq!(ab.numeric.len(), 71);
        assert_eq!(ab.fingerprint.len(), 64);
    }
}
