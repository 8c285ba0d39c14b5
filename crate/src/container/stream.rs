//! Bounded-memory streaming: an encryptor fed chunk by chunk (placeholder
//! header first, final header last, same length) and a reader that parses a
//! header from a prefix, unlocks the DEK and decrypts chunks in any order
//! (each with its Merkle proof) or in sequence.
//!
//! Memory: the encryptor keeps `O(log n)` Merkle peaks; the reader keeps the
//! header and, in sequential mode, `O(log n)` peaks. Neither holds more than
//! one chunk.

use zeroize::Zeroizing;

use super::chunk::{self, Dek, FileContext};
use super::error::{ContainerError, Result};
use super::header::{
    DEFAULT_CHUNK_SIZE, HashAlg, Header, HeaderPrefix, MetadataKind, check_chunk_size,
    check_plaintext_size,
};
use super::merkle::{self, MerkleAccumulator};
use super::signature::{self, SignatureStatus, SigningKeys};
use super::wrap::{self, ThresholdShare, Unlock, WrapSpec};
use crate::rng;

/// Options of a new container. Holds secrets (wrap specs, signer); no `Debug`.
pub struct EncryptOptions {
    /// Exact plaintext size (needed up front: it is bound into every chunk).
    pub plaintext_size: u64,
    /// Chunk size, 4096 ..= 16 777 216 (default 1 MiB).
    pub chunk_size: u32,
    /// Merkle hash (default SHA-256).
    pub hash_alg: HashAlg,
    /// At least one wrap; at most 255.
    pub wraps: Vec<WrapSpec>,
    /// Signer: `None` → v1, Ed25519 → v2, hybrid → v3.
    pub signer: Option<SigningKeys>,
}

impl EncryptOptions {
    /// Defaults (1 MiB chunks, SHA-256, unsigned) for `plaintext_size` and `wraps`.
    #[must_use]
    pub fn new(plaintext_size: u64, wraps: Vec<WrapSpec>) -> Self {
        Self {
            plaintext_size,
            chunk_size: DEFAULT_CHUNK_SIZE,
            hash_alg: HashAlg::Sha256,
            wraps,
            signer: None,
        }
    }
}

/// Streaming encryptor.
///
/// 1. `new(options)` — draws the DEK and file id, builds the wraps;
/// 2. write [`placeholder_header`](Self::placeholder_header) (`header_len` zero bytes);
/// 3. `push_chunk` every chunk in order (each `chunk_size` bytes, the last
///    one `chunk_len(n − 1)`), writing each returned envelope;
/// 4. `finish()` returns the final header, exactly `header_len` bytes, to
///    write over the placeholder (or to prepend when the body was buffered).
pub struct ContainerEncryptor {
    dek: Dek,
    ctx: FileContext,
    header: Header,
    header_len: usize,
    signer: Option<SigningKeys>,
    next: u64,
    merkle: MerkleAccumulator,
    shares: Vec<Vec<ThresholdShare>>,
    finished: bool,
}

impl ContainerEncryptor {
    /// Starts a container.
    ///
    /// # Errors
    /// [`ContainerError::InvalidOption`] (no wraps, > 255 wraps, KDF cost, threshold),
    /// [`ContainerError::InvalidChunkSize`], [`ContainerError::InvalidPlaintextSize`],
    /// primitive errors (bad recipient key, randomness).
    pub fn new(options: EncryptOptions) -> Result<Self> {
        check_chunk_size(options.chunk_size)?;
        check_plaintext_size(options.plaintext_size, options.chunk_size)?;
        if options.wraps.is_empty() {
            return Err(ContainerError::InvalidOption(
                "a new container needs at least one wrap",
            ));
        }
        if options.wraps.len() > super::header::MAX_WRAPS {
            return Err(ContainerError::InvalidOption("at most 255 wraps"));
        }
        let dek = Dek::generate()?;
        let file_id = *rng::array::<16>()?;
        let mut wraps = Vec::with_capacity(options.wraps.len());
        let mut shares = Vec::new();
        for spec in &options.wraps {
            let (entry, s) = wrap::create_wrap(spec, &dek, &file_id)?;
            if matches!(spec, WrapSpec::Threshold { .. }) {
                shares.push(s);
            }
            wraps.push(entry);
        }
        let mut header = Header {
            file_id,
            chunk_size: options.chunk_size,
            plaintext_size: options.plaintext_size,
            merkle_root: [0u8; 32],
            hash_alg: options.hash_alg,
            wraps,
            signed: None,
        };
        if let Some(signer) = &options.signer {
            header.signed = Some(signer.placeholder(MetadataKind::Plain));
        }
        let header_len = header.serialized_len()?;
        let ctx = FileContext::of(&header);
        Ok(Self {
            dek,
            ctx,
            header,
            header_len,
            signer: options.signer,
            next: 0,
            merkle: MerkleAccumulator::new(options.hash_alg),
            shares,
            finished: false,
        })
    }

    /// Length of the final header (and of the placeholder).
    #[must_use]
    pub const fn header_len(&self) -> usize {
        self.header_len
    }

    /// `header_len` zero bytes to reserve the header's place.
    #[must_use]
    pub fn placeholder_header(&self) -> Vec<u8> {
        vec![0u8; self.header_len]
    }

    /// The file id of the new container.
    #[must_use]
    pub const fn file_id(&self) -> &[u8; 16] {
        &self.ctx.file_id
    }

    /// The chunk-bound header fields.
    #[must_use]
    pub const fn context(&self) -> &FileContext {
        &self.ctx
    }

    /// Number of chunks to push.
    #[must_use]
    pub fn chunk_count(&self) -> u64 {
        self.ctx.chunk_count()
    }

    /// Plaintext length chunk `index` must have.
    ///
    /// # Errors
    /// [`ContainerError::InvalidChunk`] if out of range.
    pub fn chunk_len(&self, index: u64) -> Result<u32> {
        self.ctx.chunk_len(index)
    }

    /// Index of the next chunk to push.
    #[must_use]
    pub const fn next_index(&self) -> u64 {
        self.next
    }

    /// Shares of each threshold wrap (in wrap-spec order). Hand them out and
    /// drop the encryptor: they are not stored anywhere else.
    #[must_use]
    pub fn threshold_shares(&self) -> &[Vec<ThresholdShare>] {
        &self.shares
    }

    /// Encrypts the next chunk; returns its envelope.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] after the last chunk or after `finish`;
    /// [`ContainerError::InvalidChunk`] for a wrong length (nothing is consumed).
    pub fn push_chunk(&mut self, plaintext: &[u8]) -> Result<Vec<u8>> {
        if self.finished || self.next >= self.ctx.chunk_count() {
            return Err(ContainerError::InvalidState(
                "every chunk was already pushed",
            ));
        }
        let envelope = chunk::seal_chunk(&self.dek, &self.ctx, self.next, plaintext)?;
        let leaf = chunk::envelope_leaf(&self.ctx, self.next, &envelope)?;
        self.merkle.push(leaf);
        self.next += 1;
        Ok(envelope)
    }

    /// Finishes: computes the Merkle root, signs, and returns the final header
    /// (exactly `header_len` bytes).
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] before every chunk was pushed or on a second call.
    pub fn finish(&mut self) -> Result<Vec<u8>> {
        if self.finished {
            return Err(ContainerError::InvalidState("finish was already called"));
        }
        if self.next != self.ctx.chunk_count() {
            return Err(ContainerError::InvalidState("not every chunk was pushed"));
        }
        self.header.merkle_root = self.merkle.root();
        if let Some(signer) = &self.signer {
            signature::sign_header(&mut self.header, signer, MetadataKind::Plain)?;
        }
        let bytes = self.header.to_bytes()?;
        if bytes.len() != self.header_len {
            return Err(ContainerError::InvalidState("header length changed"));
        }
        self.finished = true;
        Ok(bytes)
    }

    /// Exports the DEK (documented export path for a WebCrypto chunk layer).
    #[must_use]
    pub fn export_dek(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(*self.dek.as_bytes())
    }
}

/// Outcome of [`ContainerReader::parse_header`].
pub enum ReaderPrefix {
    /// Supply a prefix of at least `needed` bytes.
    NeedMore {
        /// Total prefix length to supply next.
        needed: usize,
    },
    /// The reader over the parsed header.
    Ready(Box<ContainerReader>),
}

/// Random-access / sequential container reader.
pub struct ContainerReader {
    header: Header,
    header_len: usize,
    ctx: FileContext,
    dek: Option<Dek>,
    seq: Option<(u64, MerkleAccumulator)>,
}

impl ContainerReader {
    /// Parses a header from a prefix of the container.
    ///
    /// # Errors
    /// Header errors ([`Header::parse`]).
    pub fn parse_header(prefix: &[u8]) -> Result<ReaderPrefix> {
        match Header::parse_prefix(prefix)? {
            HeaderPrefix::NeedMore { needed } => Ok(ReaderPrefix::NeedMore { needed }),
            HeaderPrefix::Complete { header, header_len } => Ok(ReaderPrefix::Ready(Box::new(
                Self::from_header(*header, header_len),
            ))),
        }
    }

    /// A reader over a complete header (the prefix must hold all of it).
    ///
    /// # Errors
    /// Header errors; [`ContainerError::Truncated`] if the prefix is short.
    pub fn new(prefix: &[u8]) -> Result<Self> {
        let (header, header_len) = Header::parse(prefix)?;
        Ok(Self::from_header(header, header_len))
    }

    fn from_header(header: Header, header_len: usize) -> Self {
        let ctx = FileContext::of(&header);
        Self {
            header,
            header_len,
            ctx,
            dek: None,
            seq: None,
        }
    }

    /// The parsed header.
    #[must_use]
    pub const fn header(&self) -> &Header {
        &self.header
    }

    /// Header length: envelope 0 starts here.
    #[must_use]
    pub const fn header_len(&self) -> usize {
        self.header_len
    }

    /// The chunk-bound header fields.
    #[must_use]
    pub const fn context(&self) -> &FileContext {
        &self.ctx
    }

    /// Number of chunks.
    #[must_use]
    pub fn chunk_count(&self) -> u64 {
        self.ctx.chunk_count()
    }

    /// Plaintext length of chunk `index`.
    ///
    /// # Errors
    /// [`ContainerError::InvalidChunk`] if out of range.
    pub fn chunk_len(&self, index: u64) -> Result<u32> {
        self.ctx.chunk_len(index)
    }

    /// Envelope length of chunk `index`.
    ///
    /// # Errors
    /// [`ContainerError::InvalidChunk`] if out of range.
    pub fn envelope_len(&self, index: u64) -> Result<usize> {
        self.ctx.envelope_len(index)
    }

    /// Byte offset of envelope `index` in the container:
    /// `header_len + index · (chunk_size + 32)`.
    ///
    /// # Errors
    /// [`ContainerError::InvalidChunk`] if out of range; [`ContainerError::Sealed`] after a purge.
    pub fn chunk_offset(&self, index: u64) -> Result<u64> {
        self.ctx.chunk_len(index)?;
        if self.is_purged() {
            return Err(ContainerError::Sealed);
        }
        Ok((self.header_len as u64).saturating_add(self.ctx.envelope_offset(index)))
    }

    /// Whether the ciphertext was purged (sealed in purge mode).
    #[must_use]
    pub fn is_purged(&self) -> bool {
        matches!(
            self.header.signed.as_ref().map(|s| &s.metadata.kind),
            Some(MetadataKind::Sealed {
                mode: super::header::SealMode::Purge,
                ..
            })
        )
    }

    /// Exact length of the whole container (header alone after a purge).
    #[must_use]
    pub fn container_len(&self) -> u64 {
        let h = self.header_len as u64;
        if self.is_purged() {
            h
        } else {
            h.saturating_add(self.ctx.body_len())
        }
    }

    /// Verifies the header's signature table (any present signature must be valid).
    ///
    /// # Errors
    /// [`ContainerError::SignatureInvalid`].
    pub fn verify_signature(&self) -> Result<SignatureStatus> {
        signature::verify_header(&self.header)
    }

    /// Recovers the DEK through a wrap.
    ///
    /// # Errors
    /// [`ContainerError::Sealed`], [`ContainerError::NoWraps`],
    /// [`ContainerError::NoMatchingWrap`], [`ContainerError::AuthenticationFailed`], share errors.
    pub fn unlock(&mut self, unlock: &Unlock<'_>) -> Result<()> {
        if self.header.is_sealed() {
            return Err(ContainerError::Sealed);
        }
        let dek = wrap::unlock_dek(&self.header.wraps, &self.header.file_id, unlock)?;
        self.dek = Some(dek);
        Ok(())
    }

    /// [`unlock`](Self::unlock) with a password.
    ///
    /// # Errors
    /// As [`unlock`](Self::unlock).
    pub fn unlock_password(&mut self, password: &[u8]) -> Result<()> {
        self.unlock(&Unlock::Password(password))
    }

    /// [`unlock`](Self::unlock) with an X-Wing secret key.
    ///
    /// # Errors
    /// As [`unlock`](Self::unlock).
    pub fn unlock_recipient(
        &mut self,
        secret_key: &[u8],
        recipient_id: Option<[u8; 16]>,
    ) -> Result<()> {
        self.unlock(&Unlock::Recipient {
            secret_key,
            recipient_id,
        })
    }

    /// [`unlock`](Self::unlock) with a group key.
    ///
    /// # Errors
    /// As [`unlock`](Self::unlock).
    pub fn unlock_group(
        &mut self,
        group_id: [u8; 16],
        key_version: u32,
        group_key: &[u8],
    ) -> Result<()> {
        self.unlock(&Unlock::Group(wrap::GroupUnlock {
            group_id,
            key_version,
            group_key,
            manifest: None,
        }))
    }

    /// [`unlock`](Self::unlock) with threshold shares.
    ///
    /// # Errors
    /// As [`unlock`](Self::unlock).
    pub fn unlock_shares(&mut self, shares: &[ThresholdShare]) -> Result<()> {
        self.unlock(&Unlock::Shares(shares))
    }

    /// [`unlock`](Self::unlock) with the DEK itself.
    ///
    /// # Errors
    /// [`ContainerError::Sealed`].
    pub fn unlock_dek(&mut self, dek: &[u8]) -> Result<()> {
        let dek = Dek::from_bytes(dek)?;
        self.unlock(&Unlock::Dek(&dek))
    }

    /// Whether a DEK is held.
    #[must_use]
    pub const fn is_unlocked(&self) -> bool {
        self.dek.is_some()
    }

    pub(crate) fn dek(&self) -> Result<&Dek> {
        if self.header.is_sealed() {
            return Err(ContainerError::Sealed);
        }
        self.dek
            .as_ref()
            .ok_or(ContainerError::InvalidState("unlock the container first"))
    }

    /// Exports the DEK (documented path for a WebCrypto chunk layer).
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] before `unlock`; [`ContainerError::Sealed`].
    pub fn export_dek(&self) -> Result<Zeroizing<[u8; 32]>> {
        Ok(Zeroizing::new(*self.dek()?.as_bytes()))
    }

    /// Merkle leaf of the envelope of chunk `index` (no key needed).
    ///
    /// # Errors
    /// Envelope structure errors ([`chunk::envelope_parts`]).
    pub fn leaf_hash(&self, index: u64, envelope: &[u8]) -> Result<[u8; 32]> {
        chunk::envelope_leaf(&self.ctx, index, envelope)
    }

    /// Checks an envelope's inclusion proof against the header's Merkle root
    /// (total = the header's chunk count). No key needed.
    ///
    /// # Errors
    /// Envelope structure errors; [`ContainerError::AuthenticationFailed`] if the proof fails.
    pub fn verify_chunk_proof(
        &self,
        index: u64,
        envelope: &[u8],
        proof: &[[u8; 32]],
    ) -> Result<()> {
        let leaf = self.leaf_hash(index, envelope)?;
        if merkle::verify_merkle_proof(
            self.ctx.hash_alg,
            &leaf,
            index,
            self.ctx.chunk_count(),
            proof,
            &self.header.merkle_root,
        ) {
            Ok(())
        } else {
            Err(ContainerError::AuthenticationFailed)
        }
    }

    /// Random access: verifies the envelope of chunk `index` against the
    /// Merkle root with `proof`, then authenticates and decrypts it.
    ///
    /// # Errors
    /// [`ContainerError::Sealed`], [`ContainerError::InvalidState`] (locked),
    /// envelope structure errors, [`ContainerError::AuthenticationFailed`].
    pub fn decrypt_chunk(
        &self,
        index: u64,
        envelope: &[u8],
        proof: &[[u8; 32]],
    ) -> Result<Zeroizing<Vec<u8>>> {
        let dek = self.dek()?;
        self.verify_chunk_proof(index, envelope, proof)?;
        chunk::open_chunk(dek, &self.ctx, index, envelope)
    }

    /// Authenticates and decrypts chunk `index` without a Merkle proof (its
    /// AEAD binds it to the header hash and index; the Merkle root is then
    /// unchecked). Used by sequential readers that check the root at the end.
    ///
    /// # Errors
    /// As [`decrypt_chunk`](Self::decrypt_chunk).
    pub fn decrypt_chunk_unproven(
        &self,
        index: u64,
        envelope: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>> {
        let dek = self.dek()?;
        chunk::open_chunk(dek, &self.ctx, index, envelope)
    }

    /// Starts (or restarts) sequential decryption at chunk 0.
    ///
    /// # Errors
    /// [`ContainerError::Sealed`], [`ContainerError::InvalidState`] (locked).
    pub fn begin_sequential(&mut self) -> Result<()> {
        self.dek()?;
        self.seq = Some((0, MerkleAccumulator::new(self.ctx.hash_alg)));
        Ok(())
    }

    /// Decrypts the next envelope in order. Each chunk is authenticated
    /// before it is returned; the stream is complete (and the Merkle root
    /// checked) only when [`end_sequential`](Self::end_sequential) succeeds.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] (not started / past the end), envelope
    /// errors, [`ContainerError::AuthenticationFailed`].
    pub fn next_chunk(&mut self, envelope: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let (index, _) = self
            .seq
            .as_ref()
            .ok_or(ContainerError::InvalidState("call begin_sequential first"))?;
        let index = *index;
        if index >= self.ctx.chunk_count() {
            return Err(ContainerError::TrailingBytes);
        }
        let pt = self.decrypt_chunk_unproven(index, envelope)?;
        let leaf = self.leaf_hash(index, envelope)?;
        if let Some((i, acc)) = self.seq.as_mut() {
            acc.push(leaf);
            *i += 1;
        }
        Ok(pt)
    }

    /// Ends sequential decryption: every chunk must have been read and the
    /// Merkle root must match.
    ///
    /// # Errors
    /// [`ContainerError::Truncated`] if chunks are missing,
    /// [`ContainerError::AuthenticationFailed`] on a root mismatch.
    pub fn end_sequential(&mut self) -> Result<()> {
        let (index, acc) = self
            .seq
            .take()
            .ok_or(ContainerError::InvalidState("call begin_sequential first"))?;
        let count = self.ctx.chunk_count();
        if index != count {
            let got = (self.header_len as u64).saturating_add(self.ctx.envelope_offset(index));
            return Err(ContainerError::Truncated {
                needed: self.container_len(),
                got,
            });
        }
        if subtle::ConstantTimeEq::ct_eq(&acc.root()[..], &self.header.merkle_root[..]).into() {
            Ok(())
        } else {
            Err(ContainerError::AuthenticationFailed)
        }
    }
}
