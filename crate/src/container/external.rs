//! An encryptor whose chunk layer runs elsewhere (the browser's WebCrypto,
//! FORMAT.md §6.3): it builds the header (DEK, file id, wraps, signer), hands
//! the DEK out exactly once, is fed the leaf of every chunk (hashed over the
//! whole envelope by the chunk layer) instead of its plaintext, and returns
//! the header followed by the leaf table.
//!
//! 1. [`new`](ExternalEncryptor::new) draws the DEK and the file id;
//!    [`add_wrap`](ExternalEncryptor::add_wrap) builds the wraps (the password
//!    KDF runs here); [`set_signer`](ExternalEncryptor::set_signer) /
//!    [`set_external_signer`](ExternalEncryptor::set_external_signer) optionally;
//! 2. [`prefix_len`](ExternalEncryptor::prefix_len) (header and leaf table)
//!    is then final;
//! 3. [`take_dek`](ExternalEncryptor::take_dek) hands the DEK out once and
//!    wipes it here; the header layout is fixed from then on;
//! 4. [`push_leaves`](ExternalEncryptor::push_leaves) the leaf of every chunk, in order;
//! 5. [`finish`](ExternalEncryptor::finish): the header and leaf table, or,
//!    with an external signer, the message to sign
//!    ([`Finished::NeedsSignatures`]), whose signatures
//!    [`finish_signed`](ExternalEncryptor::finish_signed) checks and inserts.
//!
//! Size: one state machine (wraps → DEK hand-off → leaves → header and external signatures) over shared private state; a few lines over the ~400-line guideline.

use super::chunk::{self, Dek, FileContext};
use super::error::{ContainerError, Result};
use super::header::{
    HashAlg, Header, MAX_WRAPS, Metadata, MetadataKind, SignedPart, check_chunk_size,
    check_plaintext_size,
};
use super::merkle;
use super::signature::{self, SigningKeys};
use super::wrap::{self, KdfBudget, ThresholdShare, WrapSpec};
use crate::{mldsa, rng};

enum Signer {
    Unsigned,
    /// Keys held here.
    Keys(SigningKeys),
    /// Signatures computed elsewhere (e.g. a keystore identity) over the signed message.
    External,
}

/// What [`ExternalEncryptor::finish`] returns.
pub enum Finished {
    /// The final header (unsigned, or signed with the keys of
    /// [`set_signer`](ExternalEncryptor::set_signer)) followed by the leaf table.
    Prefix(Vec<u8>),
    /// An external signer was set: the message both signatures cover
    /// (FORMAT.md §8.1: Ed25519 over it, ML-DSA-65 with context
    /// `vollcrypt-file-header-v3`), for
    /// [`finish_signed`](ExternalEncryptor::finish_signed).
    NeedsSignatures(Vec<u8>),
}

/// Streaming encryptor whose chunks are sealed outside (see the module docs).
/// Holds the DEK until [`take_dek`](Self::take_dek); no `Debug`.
pub struct ExternalEncryptor {
    /// Boxed so that moving the encryptor (construction, wasm-bindgen's
    /// boxing of its handle) copies a pointer, never the key: with veilkit
    /// built for size, a moved inline DEK left an unwiped copy in the
    /// handle's heap block (zeroize test).
    dek: Option<Box<Dek>>,
    header: Header,
    ctx: FileContext,
    signer: Signer,
    leaves: Vec<[u8; 32]>,
    finished: bool,
}

impl ExternalEncryptor {
    /// A new container of `plaintext_size` bytes (fresh random DEK and file id).
    ///
    /// # Errors
    /// [`ContainerError::InvalidChunkSize`], [`ContainerError::InvalidPlaintextSize`];
    /// `RANDOMNESS_UNAVAILABLE`.
    pub fn new(plaintext_size: u64, chunk_size: u32, hash_alg: HashAlg) -> Result<Self> {
        let dek = Dek::generate_boxed()?;
        let file_id = *rng::array::<16>()?;
        Self::start(plaintext_size, chunk_size, hash_alg, dek, file_id)
    }

    /// [`new`](Self::new) with a given DEK and file id, so that chunks can be
    /// compared byte for byte with the Rust engine's. Reusing either breaks
    /// the format's security: for known-answer tests only.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    #[doc(hidden)]
    pub fn with_fixed_keys_for_testing(
        plaintext_size: u64,
        chunk_size: u32,
        hash_alg: HashAlg,
        dek: Dek,
        file_id: [u8; 16],
    ) -> Result<Self> {
        Self::start(plaintext_size, chunk_size, hash_alg, Box::new(dek), file_id)
    }

    fn start(
        plaintext_size: u64,
        chunk_size: u32,
        hash_alg: HashAlg,
        dek: Box<Dek>,
        file_id: [u8; 16],
    ) -> Result<Self> {
        check_chunk_size(chunk_size)?;
        check_plaintext_size(plaintext_size, chunk_size)?;
        let mut header = Header {
            file_id,
            chunk_size,
            plaintext_size,
            merkle_root: [0u8; 32],
            hash_alg,
            dek_commitment: [0u8; 32],
            wraps: Vec::new(),
            signed: None,
        };
        let ctx = FileContext::of(&header);
        header.dek_commitment = chunk::dek_commitment(&dek, &file_id, &ctx.header_hash_preimage())?;
        // The leaf table grows as leaves arrive (32 bytes per chunk, not reserved up front).
        Ok(Self {
            dek: Some(dek),
            header,
            ctx,
            signer: Signer::Unsigned,
            leaves: Vec::new(),
            finished: false,
        })
    }

    /// Adds a wrap of the DEK; returns the shares of a threshold wrap (none
    /// for the other kinds). Password wraps must fit the default reader
    /// budget, so that every honest file opens.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] after [`take_dek`](Self::take_dek);
    /// [`ContainerError::InvalidOption`] beyond 255 wraps or for a bad spec;
    /// [`ContainerError::KdfBudgetExceeded`]; primitive errors.
    pub fn add_wrap(&mut self, spec: &WrapSpec) -> Result<Vec<ThresholdShare>> {
        let dek = self.dek.as_ref().ok_or(ContainerError::InvalidState(
            "wraps must be added before takeDek",
        ))?;
        if self.header.wraps.len() >= MAX_WRAPS {
            return Err(ContainerError::InvalidOption("at most 255 wraps"));
        }
        let passwords = self
            .header
            .wraps
            .iter()
            .filter(|w| w.kind() == wrap::WrapKind::Password)
            .count();
        wrap::check_writer_budget(
            core::slice::from_ref(spec),
            passwords,
            &KdfBudget::default(),
        )?;
        let (entry, shares) = wrap::create_wrap(spec, dek, &self.header.file_id)?;
        self.header.wraps.push(entry);
        Ok(shares)
    }

    /// Signs the header with keys held here: Ed25519 (v5) or Ed25519 + ML-DSA-65 (v6).
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] after [`take_dek`](Self::take_dek).
    pub fn set_signer(&mut self, keys: SigningKeys) -> Result<()> {
        self.check_header_open()?;
        self.header.signed = Some(keys.placeholder(MetadataKind::Plain));
        self.signer = Signer::Keys(keys);
        Ok(())
    }

    /// Prepares a header signed elsewhere: the signer's Ed25519 and optional
    /// ML-DSA-65 public keys are recorded now (so the header length is
    /// final); the signatures over the signed message go to
    /// [`finish_signed`](Self::finish_signed).
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] after [`take_dek`](Self::take_dek);
    /// `INVALID_LENGTH` for an ML-DSA-65 key not of 1952 bytes.
    pub fn set_external_signer(
        &mut self,
        ed25519_public: [u8; 32],
        mldsa_public: Option<Vec<u8>>,
        key_log_id: [u8; 32],
        timestamp: u64,
    ) -> Result<()> {
        self.check_header_open()?;
        if let Some(pk) = &mldsa_public {
            signature::check_mldsa_public("mlDsaPublic", pk)?;
        }
        let mldsa_signature = mldsa_public.as_ref().map(|_| vec![0u8; mldsa::SIG_LEN]);
        self.header.signed = Some(SignedPart {
            metadata: Metadata {
                kind: MetadataKind::Plain,
                timestamp,
                ed25519_public,
                mldsa_public,
                key_log_id,
            },
            ed25519_signature: [0u8; 64],
            mldsa_signature,
        });
        self.signer = Signer::External;
        Ok(())
    }

    /// Whether the header layout is still open (wraps and signer can be set).
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] once the DEK was taken.
    pub fn check_header_open(&self) -> Result<()> {
        if self.dek.is_none() {
            return Err(ContainerError::InvalidState(
                "the header layout is fixed once the DEK was taken",
            ));
        }
        Ok(())
    }

    /// Length of the final header alone (fixed once the wraps and signer are set).
    ///
    /// # Errors
    /// Serialisation errors.
    pub fn header_len(&self) -> Result<usize> {
        self.header.serialized_len()
    }

    /// Length of the header and the leaf table: the first envelope starts here.
    ///
    /// # Errors
    /// Serialisation errors.
    pub fn prefix_len(&self) -> Result<u64> {
        Ok((self.header.serialized_len()? as u64).saturating_add(self.ctx.leaf_table_len()))
    }

    /// The file id.
    #[must_use]
    pub const fn file_id(&self) -> &[u8; 16] {
        &self.header.file_id
    }

    /// The chunk-bound header fields (`header_hash` is part of every chunk's AAD).
    #[must_use]
    pub const fn context(&self) -> &FileContext {
        &self.ctx
    }

    /// Number of chunks.
    #[must_use]
    pub fn chunk_count(&self) -> u64 {
        self.ctx.chunk_count()
    }

    /// Hands the DEK to `out` (once) and wipes it here, in place: nothing
    /// moves the key (`Option::take` would leave its bytes behind in a
    /// heap-allocated owner until it is freed). Needs at least one wrap;
    /// afterwards no wrap or signer can be added.
    ///
    /// # Errors
    /// [`ContainerError::InvalidOption`] without a wrap;
    /// [`ContainerError::InvalidState`] on a second call.
    pub fn take_dek<T>(&mut self, out: impl FnOnce(&[u8; 32]) -> T) -> Result<T> {
        use zeroize::Zeroize;
        if self.header.wraps.is_empty() {
            return Err(ContainerError::InvalidOption(
                "a new container needs at least one wrap",
            ));
        }
        let dek = self
            .dek
            .as_mut()
            .ok_or(ContainerError::InvalidState("the DEK was already taken"))?;
        let taken = out(dek.as_bytes());
        dek.zeroize();
        self.dek = None;
        Ok(taken)
    }

    /// Records the leaves (32 bytes each, FORMAT.md §7) of consecutive
    /// chunks, starting at `first`, which must be the next chunk in order.
    ///
    /// # Errors
    /// [`ContainerError::InvalidChunk`] for a length not a multiple of 32;
    /// [`ContainerError::InvalidState`] out of order, after `finish` or past
    /// the last chunk.
    pub fn push_leaves(&mut self, first: u64, leaves: &[u8]) -> Result<()> {
        let (entries, rest) = leaves.as_chunks::<32>();
        if !rest.is_empty() {
            return Err(ContainerError::InvalidChunk(
                "leaves must be a multiple of 32 bytes",
            ));
        }
        if self.finished || first != self.leaves.len() as u64 {
            return Err(ContainerError::InvalidState(
                "chunk leaves must be pushed once each, in order",
            ));
        }
        if first.saturating_add(entries.len() as u64) > self.ctx.chunk_count() {
            return Err(ContainerError::InvalidState(
                "more leaves than the container has chunks",
            ));
        }
        self.leaves.extend_from_slice(entries);
        Ok(())
    }

    /// Checks that every leaf is in and fixes the Merkle root.
    fn all_pushed(&mut self) -> Result<()> {
        if self.finished {
            return Err(ContainerError::InvalidState("finish was already called"));
        }
        if self.dek.is_some() {
            return Err(ContainerError::InvalidState("takeDek was not called"));
        }
        if self.leaves.len() as u64 != self.ctx.chunk_count() {
            return Err(ContainerError::InvalidState("not every chunk was pushed"));
        }
        self.header.merkle_root = merkle::merkle_root(self.ctx.hash_alg, &self.leaves);
        Ok(())
    }

    /// The header followed by the leaf table; the encryptor is finished.
    fn serialize_final(&mut self) -> Result<Vec<u8>> {
        let mut bytes = self.header.to_bytes()?;
        for leaf in &self.leaves {
            bytes.extend_from_slice(leaf);
        }
        self.finished = true;
        Ok(bytes)
    }

    /// Finishes: the Merkle root, the signature of keys held here, and the
    /// header followed by the leaf table (exactly [`prefix_len`](Self::prefix_len)
    /// bytes); with an external signer, the message to sign instead (the
    /// encryptor stays open for [`finish_signed`](Self::finish_signed)).
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] before [`take_dek`](Self::take_dek),
    /// before every leaf was pushed, or after the encryptor finished;
    /// signing errors.
    pub fn finish(&mut self) -> Result<Finished> {
        self.all_pushed()?;
        match &self.signer {
            Signer::Unsigned => {}
            Signer::Keys(keys) => {
                signature::sign_header(&mut self.header, keys, MetadataKind::Plain)?;
            }
            Signer::External => {
                return Ok(Finished::NeedsSignatures(signature::signed_message(
                    &self.header,
                )?));
            }
        }
        self.serialize_final().map(Finished::Prefix)
    }

    /// External signing: the message both signatures cover (as
    /// [`Finished::NeedsSignatures`]).
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] without an external signer, and as
    /// [`finish`](Self::finish).
    pub fn signed_message(&mut self) -> Result<Vec<u8>> {
        self.external()?;
        self.all_pushed()?;
        signature::signed_message(&self.header)
    }

    /// External signing: inserts the signatures, checks them and returns the
    /// final header followed by the leaf table.
    ///
    /// # Errors
    /// [`ContainerError::SignatureInvalid`] if they do not verify (or have the
    /// wrong length, or the ML-DSA-65 one is missing or unexpected);
    /// [`ContainerError::InvalidState`] as [`signed_message`](Self::signed_message).
    pub fn finish_signed(
        &mut self,
        ed25519_signature: &[u8],
        mldsa_signature: Option<Vec<u8>>,
    ) -> Result<Vec<u8>> {
        self.external()?;
        self.all_pushed()?;
        let ed = <[u8; 64]>::try_from(ed25519_signature)
            .map_err(|_| ContainerError::SignatureInvalid)?;
        let signed = self
            .header
            .signed
            .as_mut()
            .ok_or(ContainerError::InvalidState("no external signer was set"))?;
        if signed.mldsa_signature.is_some() != mldsa_signature.is_some() {
            return Err(ContainerError::SignatureInvalid);
        }
        if mldsa_signature
            .as_ref()
            .is_some_and(|s| s.len() != mldsa::SIG_LEN)
        {
            return Err(ContainerError::SignatureInvalid);
        }
        signed.ed25519_signature = ed;
        signed.mldsa_signature = mldsa_signature;
        signature::verify_header(&self.header)?;
        self.serialize_final()
    }

    fn external(&self) -> Result<()> {
        if matches!(self.signer, Signer::External) {
            Ok(())
        } else {
            Err(ContainerError::InvalidState("no external signer was set"))
        }
    }
}
