//! The streaming reader: [`ContainerReader`] and [`ReaderPrefix`].

use zeroize::Zeroizing;

use super::super::chunk::{self, Dek, FileContext};
use super::super::error::{ContainerError, Result};
use super::super::header::{Header, HeaderPrefix, MetadataKind};
use super::super::merkle;
use super::super::signature::{self, SignatureStatus};

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
    pub(super) header: Header,
    header_len: usize,
    pub(super) ctx: FileContext,
    pub(super) dek: Option<Dek>,
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
                mode: super::super::header::SealMode::Purge,
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
