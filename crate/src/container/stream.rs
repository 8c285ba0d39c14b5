//! Bounded-memory streaming: an encryptor fed chunk by chunk (placeholder
//! header and leaf table first, final header and table last, same length) and
//! a reader that parses a header from a prefix, checks the leaf table against
//! the header's Merkle root, unlocks the DEK and decrypts chunks in any order
//! or in sequence, each checked against its table entry before release.
//!
//! Memory: both keep the header and the leaf table (32 bytes per chunk:
//! 1/32768 of the plaintext at the default 1 MiB chunk size). Neither holds
//! more than one chunk.

use zeroize::Zeroizing;

use super::chunk::{self, Dek, FileContext};
use super::error::{ContainerError, Result};
use super::header::{
    DEFAULT_CHUNK_SIZE, HashAlg, Header, HeaderPrefix, MetadataKind, check_chunk_size,
    check_plaintext_size,
};
use super::merkle;
use super::signature::{self, SignatureStatus, SigningKeys};
use super::wrap::{self, KdfBudget, ThresholdShare, Unlock, WrapSpec};
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
    /// Signer: `None` → v4, Ed25519 → v5, hybrid → v6.
    pub signer: Option<SigningKeys>,
    /// The reader budget password wraps must fit (default: the default reader
    /// budget, so every honest file opens with default settings).
    pub kdf_budget: KdfBudget,
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
            kdf_budget: KdfBudget::default(),
        }
    }
}

/// Streaming encryptor.
///
/// 1. `new(options)` — draws the DEK and file id, builds the wraps;
/// 2. write [`placeholder_header`](Self::placeholder_header)
///    ([`prefix_len`](Self::prefix_len) zero bytes: header and leaf table);
/// 3. `push_chunk` every chunk in order (each `chunk_size` bytes, the last
///    one `chunk_len(n − 1)`), writing each returned envelope;
/// 4. `finish()` returns the final header and leaf table, exactly
///    `prefix_len` bytes, to write over the placeholder (or to prepend when
///    the body was buffered).
pub struct ContainerEncryptor {
    dek: Box<Dek>,
    ctx: FileContext,
    header: Header,
    header_len: usize,
    signer: Option<SigningKeys>,
    leaves: Vec<[u8; 32]>,
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
        wrap::check_writer_budget(&options.wraps, 0, &options.kdf_budget)?;
        let dek = Dek::generate_boxed()?;
        let file_id = *rng::array::<16>()?;
        Self::with_keys(options, dek, file_id)
    }

    /// [`new`](Self::new) with a given DEK and file id. Reusing either breaks
    /// the format's security (a (key, IV) pair repeats): for known-answer
    /// tests only.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    #[doc(hidden)]
    pub fn with_fixed_keys_for_testing(
        options: EncryptOptions,
        dek: &[u8],
        file_id: [u8; 16],
    ) -> Result<Self> {
        check_chunk_size(options.chunk_size)?;
        check_plaintext_size(options.plaintext_size, options.chunk_size)?;
        wrap::check_writer_budget(&options.wraps, 0, &options.kdf_budget)?;
        Self::with_keys(options, Box::new(Dek::from_bytes(dek)?), file_id)
    }

    fn with_keys(options: EncryptOptions, dek: Box<Dek>, file_id: [u8; 16]) -> Result<Self> {
        if options.wraps.is_empty() {
            return Err(ContainerError::InvalidOption(
                "a new container needs at least one wrap",
            ));
        }
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
            dek_commitment: [0u8; 32],
            wraps,
            signed: None,
        };
        let ctx = FileContext::of(&header);
        header.dek_commitment = chunk::dek_commitment(&dek, &file_id, &ctx.header_hash_preimage())?;
        if let Some(signer) = &options.signer {
            header.signed = Some(signer.placeholder(MetadataKind::Plain));
        }
        let header_len = header.serialized_len()?;
        // The leaf table grows as chunks are pushed (32 bytes per chunk).
        let leaves = Vec::new();
        Ok(Self {
            dek,
            ctx,
            header,
            header_len,
            signer: options.signer,
            leaves,
            shares,
            finished: false,
        })
    }

    /// Length of the final header alone.
    #[must_use]
    pub const fn header_len(&self) -> usize {
        self.header_len
    }

    /// Length of the header plus the leaf table: the first envelope starts here.
    #[must_use]
    pub fn prefix_len(&self) -> usize {
        let table = usize::try_from(self.ctx.leaf_table_len()).unwrap_or(usize::MAX);
        self.header_len.saturating_add(table)
    }

    /// `prefix_len` zero bytes to reserve the place of the header and the leaf table.
    #[must_use]
    pub fn placeholder_header(&self) -> Vec<u8> {
        vec![0u8; self.prefix_len()]
    }

    /// The DEK commitment of the new header.
    #[must_use]
    pub const fn dek_commitment(&self) -> &[u8; 32] {
        &self.header.dek_commitment
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
    pub fn next_index(&self) -> u64 {
        self.leaves.len() as u64
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
        let index = self.next_index();
        if self.finished || index >= self.ctx.chunk_count() {
            return Err(ContainerError::InvalidState(
                "every chunk was already pushed",
            ));
        }
        let envelope = chunk::seal_chunk(&self.dek, &self.ctx, index, plaintext)?;
        let leaf = chunk::envelope_leaf(&self.ctx, index, &envelope)?;
        self.leaves.push(leaf);
        Ok(envelope)
    }

    /// Records the leaves of chunks sealed elsewhere (a WebCrypto chunk layer
    /// holding the exported DEK), `leaves` = 32 bytes per chunk starting at
    /// chunk `first`, which must be the next index.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] out of order, after the last chunk or
    /// after `finish`; [`ContainerError::InvalidChunk`] for a length not a
    /// multiple of 32.
    pub fn push_leaves(&mut self, first: u64, leaves: &[u8]) -> Result<()> {
        let (entries, rest) = leaves.as_chunks::<32>();
        if !rest.is_empty() {
            return Err(ContainerError::InvalidChunk("leaves are 32 bytes each"));
        }
        if self.finished || first != self.next_index() {
            return Err(ContainerError::InvalidState("leaves must be pushed in order"));
        }
        if first.saturating_add(entries.len() as u64) > self.ctx.chunk_count() {
            return Err(ContainerError::InvalidState(
                "more leaves than the container has chunks",
            ));
        }
        self.leaves.extend_from_slice(entries);
        Ok(())
    }

    /// The header to sign (external signers): finishes the Merkle root and
    /// returns the signed message of the header with placeholder signatures.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] before every chunk was pushed.
    pub(crate) fn seal_root(&mut self) -> Result<&mut Header> {
        if self.finished {
            return Err(ContainerError::InvalidState("finish was already called"));
        }
        if self.next_index() != self.ctx.chunk_count() {
            return Err(ContainerError::InvalidState("not every chunk was pushed"));
        }
        self.header.merkle_root = merkle::merkle_root(self.ctx.hash_alg, &self.leaves);
        Ok(&mut self.header)
    }

    /// The final header and leaf table (exactly `prefix_len` bytes) of `header`.
    pub(crate) fn prefix_of(&mut self) -> Result<Vec<u8>> {
        let mut bytes = self.header.to_bytes()?;
        if bytes.len() != self.header_len {
            return Err(ContainerError::InvalidState("header length changed"));
        }
        for leaf in &self.leaves {
            bytes.extend_from_slice(leaf);
        }
        self.finished = true;
        Ok(bytes)
    }

    /// Finishes: computes the Merkle root, signs, and returns the final header
    /// and leaf table (exactly `prefix_len` bytes).
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] before every chunk was pushed or on a second call.
    pub fn finish(&mut self) -> Result<Vec<u8>> {
        self.seal_root()?;
        if let Some(signer) = &self.signer {
            signature::sign_header(&mut self.header, signer, MetadataKind::Plain)?;
        }
        self.prefix_of()
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
///
/// 1. `parse_header(prefix)` / `new(prefix)`;
/// 2. [`set_leaf_table`](Self::set_leaf_table) with the `32 · n` bytes after
///    the header: checked against the header's Merkle root (and so, for a
///    signed header, against the signature) before anything else is trusted;
/// 3. `unlock_*` (every path checks the DEK commitment);
/// 4. [`decrypt_chunk`](Self::decrypt_chunk) in any order, or
///    `begin_sequential` / `next_chunk` / `end_sequential`: each chunk's leaf
///    is recomputed from the exact envelope bytes and compared with its table
///    entry before its plaintext is released.
pub struct ContainerReader {
    header: Header,
    header_len: usize,
    ctx: FileContext,
    dek: Option<Dek>,
    table: Option<Vec<[u8; 32]>>,
    seq: Option<u64>,
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
            table: None,
            seq: None,
        }
    }

    /// The parsed header.
    #[must_use]
    pub const fn header(&self) -> &Header {
        &self.header
    }

    /// Header length: the leaf table starts here.
    #[must_use]
    pub const fn header_len(&self) -> usize {
        self.header_len
    }

    /// Length of the leaf table (`32 · n`).
    #[must_use]
    pub fn leaf_table_len(&self) -> u64 {
        self.ctx.leaf_table_len()
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
    /// `header_len + 32 · n + index · (chunk_size + 32)`.
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

    /// Takes the leaf table (the `32 · n` bytes after the header) after
    /// checking it against the header's Merkle root. No key is needed.
    ///
    /// # Errors
    /// [`ContainerError::Truncated`] / [`ContainerError::TrailingBytes`] for a
    /// wrong length, [`ContainerError::AuthenticationFailed`] if its root is
    /// not the header's, [`ContainerError::Sealed`] after a purge.
    pub fn set_leaf_table(&mut self, table: &[u8]) -> Result<()> {
        if self.is_purged() {
            return Err(ContainerError::Sealed);
        }
        let want = self.ctx.leaf_table_len();
        let got = table.len() as u64;
        if got < want {
            return Err(ContainerError::Truncated {
                needed: (self.header_len as u64).saturating_add(want),
                got: (self.header_len as u64).saturating_add(got),
            });
        }
        if got > want {
            return Err(ContainerError::TrailingBytes);
        }
        let root = merkle::table_root(self.ctx.hash_alg, table)?;
        if !bool::from(subtle::ConstantTimeEq::ct_eq(
            &root[..],
            &self.header.merkle_root[..],
        )) {
            return Err(ContainerError::AuthenticationFailed);
        }
        let (entries, _) = table.as_chunks::<32>();
        let mut leaves = Vec::new();
        leaves
            .try_reserve_exact(entries.len())
            .map_err(|_| ContainerError::InvalidPlaintextSize)?;
        leaves.extend_from_slice(entries);
        self.table = Some(leaves);
        Ok(())
    }

    /// Whether a leaf table was accepted.
    #[must_use]
    pub const fn has_leaf_table(&self) -> bool {
        self.table.is_some()
    }

    /// Entry `index` of the accepted leaf table.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] before [`set_leaf_table`](Self::set_leaf_table);
    /// [`ContainerError::InvalidChunk`] if out of range.
    pub fn table_leaf(&self, index: u64) -> Result<&[u8; 32]> {
        let table = self
            .table
            .as_ref()
            .ok_or(ContainerError::InvalidState("read the leaf table first"))?;
        usize::try_from(index)
            .ok()
            .and_then(|i| table.get(i))
            .ok_or(ContainerError::InvalidChunk("chunk index out of range"))
    }

    /// Recovers the DEK through a wrap, under the default KDF budget.
    ///
    /// # Errors
    /// [`ContainerError::Sealed`], [`ContainerError::NoWraps`],
    /// [`ContainerError::NoMatchingWrap`], [`ContainerError::KdfBudgetExceeded`],
    /// [`ContainerError::AuthenticationFailed`] (also when a wrap opens but the
    /// DEK does not match the header's commitment), share errors.
    pub fn unlock(&mut self, unlock: &Unlock<'_>) -> Result<()> {
        self.unlock_with_budget(unlock, &KdfBudget::default())
    }

    /// [`unlock`](Self::unlock) under an explicit KDF budget.
    ///
    /// # Errors
    /// As [`unlock`](Self::unlock).
    pub fn unlock_with_budget(&mut self, unlock: &Unlock<'_>, budget: &KdfBudget) -> Result<()> {
        if self.header.is_sealed() {
            return Err(ContainerError::Sealed);
        }
        let dek = wrap::unlock_dek(
            &self.header.wraps,
            &self.ctx,
            &self.header.dek_commitment,
            unlock,
            budget,
        )?;
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

    /// [`unlock`](Self::unlock) with the DEK itself (checked against the
    /// header's DEK commitment).
    ///
    /// # Errors
    /// [`ContainerError::Sealed`]; [`ContainerError::AuthenticationFailed`] for
    /// a DEK that does not open the commitment.
    pub fn unlock_dek(&mut self, dek: &[u8]) -> Result<()> {
        let dek = Dek::from_bytes(dek)?;
        self.unlock(&Unlock::Dek(&dek))
    }

    /// Whether a DEK is held.
    #[must_use]
    pub const fn is_unlocked(&self) -> bool {
        self.dek.is_some()
    }

    /// Drops the DEK (wiped in place by its `Drop`); the header and the leaf
    /// table stay.
    pub fn forget_dek(&mut self) {
        self.dek = None;
    }

    pub(crate) fn dek(&self) -> Result<&Dek> {
        if self.header.is_sealed() {
            return Err(ContainerError::Sealed);
        }
        self.dek
            .as_ref()
            .ok_or(ContainerError::InvalidState("unlock the container first"))
    }

    /// Exports the DEK (documented path for a WebCrypto chunk layer). The DEK
    /// passed the commitment check at unlock.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] before `unlock`; [`ContainerError::Sealed`].
    pub fn export_dek(&self) -> Result<Zeroizing<[u8; 32]>> {
        Ok(Zeroizing::new(*self.dek()?.as_bytes()))
    }

    /// Merkle leaf of the envelope of chunk `index`, recomputed from its bytes
    /// (no key needed).
    ///
    /// # Errors
    /// Envelope structure errors ([`chunk::envelope_parts`]).
    pub fn leaf_hash(&self, index: u64, envelope: &[u8]) -> Result<[u8; 32]> {
        chunk::envelope_leaf(&self.ctx, index, envelope)
    }

    /// Key-less check of one envelope: its recomputed leaf must equal its
    /// table entry.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] without a leaf table; envelope
    /// structure errors; [`ContainerError::AuthenticationFailed`] on a mismatch.
    pub fn verify_chunk(&self, index: u64, envelope: &[u8]) -> Result<()> {
        let want = self.table_leaf(index)?;
        let leaf = self.leaf_hash(index, envelope)?;
        if bool::from(subtle::ConstantTimeEq::ct_eq(&leaf[..], &want[..])) {
            Ok(())
        } else {
            Err(ContainerError::AuthenticationFailed)
        }
    }

    /// Random access: checks the envelope of chunk `index` against its table
    /// entry, then authenticates and decrypts it.
    ///
    /// # Errors
    /// [`ContainerError::Sealed`], [`ContainerError::InvalidState`] (locked, or
    /// no leaf table), envelope structure errors,
    /// [`ContainerError::AuthenticationFailed`].
    pub fn decrypt_chunk(&self, index: u64, envelope: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let dek = self.dek()?;
        let leaf = self.table_leaf(index)?;
        chunk::open_chunk(dek, &self.ctx, index, envelope, leaf)
    }

    /// Starts (or restarts) sequential decryption at chunk 0.
    ///
    /// # Errors
    /// [`ContainerError::Sealed`], [`ContainerError::InvalidState`] (locked, or
    /// no leaf table).
    pub fn begin_sequential(&mut self) -> Result<()> {
        self.dek()?;
        if self.table.is_none() {
            return Err(ContainerError::InvalidState("read the leaf table first"));
        }
        self.seq = Some(0);
        Ok(())
    }

    /// Decrypts the next envelope in order: released as soon as its leaf
    /// matches its table entry and its tag verifies. The stream is complete
    /// only when [`end_sequential`](Self::end_sequential) succeeds.
    ///
    /// # Errors
    /// [`ContainerError::InvalidState`] (not started), [`ContainerError::TrailingBytes`]
    /// past the last chunk, envelope errors, [`ContainerError::AuthenticationFailed`].
    pub fn next_chunk(&mut self, envelope: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let index = self
            .seq
            .ok_or(ContainerError::InvalidState("call begin_sequential first"))?;
        if index >= self.ctx.chunk_count() {
            return Err(ContainerError::TrailingBytes);
        }
        let pt = self.decrypt_chunk(index, envelope)?;
        self.seq = Some(index + 1);
        Ok(pt)
    }

    /// Ends sequential decryption: every chunk must have been read.
    ///
    /// # Errors
    /// [`ContainerError::Truncated`] if chunks are missing.
    pub fn end_sequential(&mut self) -> Result<()> {
        let index = self
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
        Ok(())
    }
}
