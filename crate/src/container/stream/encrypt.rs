//! The streaming encryptor: [`EncryptOptions`] and [`ContainerEncryptor`].

use super::super::chunk::{self, Dek, FileContext};
use super::super::error::{ContainerError, Result};
use super::super::header::{
    DEFAULT_CHUNK_SIZE, HashAlg, Header, MetadataKind, check_chunk_size,
    check_plaintext_size,
};
use super::super::merkle;
use super::super::signature::{self, SigningKeys};
use super::super::wrap::{self, KdfBudget, ThresholdShare, WrapSpec};
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
        if options.wraps.len() > super::super::header::MAX_WRAPS {
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
}
