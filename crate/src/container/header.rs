//! The container header: fixed 112-byte part, wrap table, and (v5/v6) the
//! signed metadata and signature table. Parsing is canonical and total:
//! every accepted byte string re-serialises to itself
//! (`to_bytes(parse(x)) == x`), every length is bounded before anything is
//! allocated, and nothing is skipped.
//!
//! Fixed part (big-endian):
//!
//! | off | len | field |
//! |---|---|---|
//! | 0 | 8 | magic `VOLLVALT` |
//! | 8 | 1 | version: 4 unsigned, 5 Ed25519, 6 Ed25519 + ML-DSA-65 (1–3: refused) |
//! | 9 | 1 | mode (derived from the wrap table, see [`Mode`]) |
//! | 10 | 1 | cipher suite: 0 = AES-256-GCM |
//! | 11 | 16 | file id |
//! | 27 | 4 | chunk size, 4096 ..= 16 777 216 |
//! | 31 | 8 | plaintext size |
//! | 39 | 32 | Merkle root |
//! | 71 | 1 | wrap count |
//! | 72 | 1 | hash algorithm: 0 SHA-256, 1 BLAKE3 |
//! | 73 | 3 | reserved, zero |
//! | 76 | 4 | variable length (bytes of the wrap table) |
//! | 80 | 32 | DEK commitment (`chunk::dek_commitment`) |
//! | 112 | var | wrap table |
//! | 112+var | 4 | metadata length (v5/v6) |
//! | 116+var | mlen | signed metadata (v5/v6) |
//! | 116+var+mlen | 64 / 64+3309 | signature table (v5 / v6) |
//!
//! The leaf table (`32 · n` bytes, `merkle::leaf_hash` of every envelope)
//! follows the header; the chunk envelopes follow the table.

use super::encoding::Cursor;
use super::error::{ContainerError, Result};
use super::wrap::{MAX_WRAP_ENTRY_LEN, MIN_WRAP_ENTRY_LEN, WrapEntry, WrapKind};
use crate::{ed25519, mldsa};

/// Magic bytes.
pub const MAGIC: &[u8; 8] = b"VOLLVALT";
/// Length of the fixed header part (the DEK commitment included).
pub const FIXED_HEADER_LEN: usize = 112;
/// Offset of the DEK commitment in the fixed part.
pub const DEK_COMMITMENT_OFFSET: usize = 80;
/// Version byte of an unsigned header.
pub const VERSION_UNSIGNED: u8 = 4;
/// Version byte of an Ed25519-signed header.
pub const VERSION_ED25519: u8 = 5;
/// Version byte of an Ed25519 + ML-DSA-65 signed header.
pub const VERSION_HYBRID: u8 = 6;
/// Cipher suite 0: AES-256-GCM.
pub const CIPHER_SUITE_AES_256_GCM: u8 = 0;
/// Smallest chunk size (4 KiB).
pub const MIN_CHUNK_SIZE: u32 = 4096;
/// Largest chunk size (16 MiB).
pub const MAX_CHUNK_SIZE: u32 = 16 * 1024 * 1024;
/// Default chunk size (1 MiB).
pub const DEFAULT_CHUNK_SIZE: u32 = 1024 * 1024;
/// Largest wrap count (u8).
pub const MAX_WRAPS: usize = 255;
/// Longest seal reason, in bytes of UTF-8.
pub const MAX_SEAL_REASON_LEN: usize = 1024;
/// Length of v5 plain metadata: kind ‖ u64 ts ‖ ed25519 pk ‖ key_log_id.
pub const METADATA_V2_LEN: usize = 1 + 8 + 32 + 32;
/// Length of v6 plain metadata: v5 fields plus the ML-DSA-65 public key.
pub const METADATA_V3_LEN: usize = METADATA_V2_LEN + mldsa::PK_LEN;
/// Extra metadata bytes of a sealed marker besides the reason: mode ‖ u16 reason_len.
pub const SEAL_FIELDS_LEN: usize = 3;
/// Largest metadata length of any version.
pub const MAX_METADATA_LEN: usize = METADATA_V3_LEN + SEAL_FIELDS_LEN + MAX_SEAL_REASON_LEN;
/// Signature table length of a v5 header.
pub const SIG_TABLE_V2_LEN: usize = ed25519::SIGNATURE_LEN;
/// Signature table length of a v6 header.
pub const SIG_TABLE_V3_LEN: usize = ed25519::SIGNATURE_LEN + mldsa::SIG_LEN;
/// Largest header of any version.
pub const MAX_HEADER_LEN: usize =
    FIXED_HEADER_LEN + MAX_WRAPS * MAX_WRAP_ENTRY_LEN + 4 + MAX_METADATA_LEN + SIG_TABLE_V3_LEN;

/// Merkle hash algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum HashAlg {
    /// 0: SHA-256.
    #[default]
    Sha256,
    /// 1: BLAKE3 (32-byte output).
    Blake3,
}

impl HashAlg {
    /// Wire id.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::Sha256 => 0,
            Self::Blake3 => 1,
        }
    }

    /// Parses a wire id.
    ///
    /// # Errors
    /// [`ContainerError::UnsupportedHashAlgorithm`].
    pub const fn from_id(id: u8) -> Result<Self> {
        match id {
            0 => Ok(Self::Sha256),
            1 => Ok(Self::Blake3),
            other => Err(ContainerError::UnsupportedHashAlgorithm(other)),
        }
    }

    /// Name in the JS API: `sha256` or `blake3`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Sha256 => "sha256",
            Self::Blake3 => "blake3",
        }
    }
}

/// Container mode byte. Advisory in the seed format; here it is a function of
/// the wrap table (so a parser can reject any other value): the wrap kinds
/// present decide it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// 0: every wrap is a password wrap (PBKDF2 / Argon2id).
    Password,
    /// 1: every wrap is a hybrid-KEM recipient wrap.
    Recipient,
    /// 2: every wrap is a group wrap.
    Group,
    /// 3: every wrap is a threshold wrap.
    Threshold,
    /// 4: wraps of more than one of the kinds above.
    Mixed,
    /// 5: no wraps (sealed or key-shredded).
    None,
}

impl Mode {
    /// Wire id.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::Password => 0,
            Self::Recipient => 1,
            Self::Group => 2,
            Self::Threshold => 3,
            Self::Mixed => 4,
            Self::None => 5,
        }
    }

    /// Name in the JS API: `password`, `recipient`, `group`, `threshold`, `mixed` or `none`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::Recipient => "recipient",
            Self::Group => "group",
            Self::Threshold => "threshold",
            Self::Mixed => "mixed",
            Self::None => "none",
        }
    }

    /// The mode a wrap table implies.
    #[must_use]
    pub fn of(wraps: &[WrapEntry]) -> Self {
        let mut kind: Option<WrapKind> = None;
        for w in wraps {
            match kind {
                None => kind = Some(w.kind()),
                Some(k) if k != w.kind() => return Self::Mixed,
                Some(_) => {}
            }
        }
        match kind {
            None => Self::None,
            Some(WrapKind::Password) => Self::Password,
            Some(WrapKind::Recipient) => Self::Recipient,
            Some(WrapKind::Group) => Self::Group,
            Some(WrapKind::Threshold) => Self::Threshold,
        }
    }
}

/// How a sealed container was sealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SealMode {
    /// 0: wraps removed, ciphertext kept.
    Seal,
    /// 1: wraps removed and ciphertext discarded (the container is the header alone).
    Purge,
}

impl SealMode {
    /// Wire id.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::Seal => 0,
            Self::Purge => 1,
        }
    }

    /// Name in the JS API: `seal` or `purge`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Seal => "seal",
            Self::Purge => "purge",
        }
    }
}

/// Kind of the signed metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MetadataKind {
    /// 0: an ordinary signed container.
    Plain,
    /// 1: a sealed marker.
    Sealed {
        /// Seal or purge.
        mode: SealMode,
        /// Free-text reason (UTF-8, ≤ 1024 bytes).
        reason: String,
    },
}

/// Signed metadata of a v5/v6 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metadata {
    /// Plain or sealed marker.
    pub kind: MetadataKind,
    /// Signer-supplied timestamp (seconds since the Unix epoch by convention).
    pub timestamp: u64,
    /// Signer's Ed25519 public key.
    pub ed25519_public: [u8; 32],
    /// Signer's ML-DSA-65 public key (v6 only).
    pub mldsa_public: Option<Vec<u8>>,
    /// Key-log id: opaque reference to the signer key's transparency-log entry.
    pub key_log_id: [u8; 32],
}

/// The signed part of a v5/v6 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedPart {
    /// Metadata (covered by the signatures).
    pub metadata: Metadata,
    /// Ed25519 signature.
    pub ed25519_signature: [u8; 64],
    /// ML-DSA-65 signature (v6 only; present iff `metadata.mldsa_public` is).
    pub mldsa_signature: Option<Vec<u8>>,
}

impl SignedPart {
    /// Whether this is a sealed marker.
    #[must_use]
    pub const fn is_sealed(&self) -> bool {
        matches!(self.metadata.kind, MetadataKind::Sealed { .. })
    }
}

/// A parsed container header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Random per-container file id.
    pub file_id: [u8; 16],
    /// Chunk size `C`.
    pub chunk_size: u32,
    /// Plaintext size `P`.
    pub plaintext_size: u64,
    /// Merkle root over the leaf table.
    pub merkle_root: [u8; 32],
    /// Merkle hash algorithm.
    pub hash_alg: HashAlg,
    /// `HMAC-SHA-256(K_c, header-hash preimage)`: commits the header to the DEK
    /// (`chunk::dek_commitment`). Copied verbatim by seal and rewrap.
    pub dek_commitment: [u8; 32],
    /// Wrap table (at most 255 entries).
    pub wraps: Vec<WrapEntry>,
    /// Metadata and signatures (v5/v6), `None` for v4.
    pub signed: Option<SignedPart>,
}

/// Outcome of [`Header::parse_prefix`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderPrefix {
    /// More bytes are needed: the prefix must be at least `needed` bytes long.
    /// `needed` is an upper bound of what is still missing only once the
    /// fixed part (and, for v5/v6, the metadata length) is present.
    NeedMore {
        /// Total prefix length to supply next.
        needed: usize,
    },
    /// The header is complete.
    Complete {
        /// The header.
        header: Box<Header>,
        /// Its serialised length: chunk envelopes start here.
        header_len: usize,
    },
}

pub(crate) fn check_chunk_size(chunk_size: u32) -> Result<()> {
    if (MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&chunk_size) {
        Ok(())
    } else {
        Err(ContainerError::InvalidChunkSize(chunk_size))
    }
}

/// Largest container length any reader handles: `2^53 − 1`, the largest
/// integer a JavaScript number holds exactly, so the Rust and browser readers
/// accept exactly the same headers.
pub const MAX_CONTAINER_LEN: u64 = (1 << 53) - 1;

/// `⌈P / C⌉ ≤ 2^32` and `P + 64 · ⌈P / C⌉ + MAX_HEADER_LEN ≤ 2^53 − 1` (the
/// largest header, its leaf table and every envelope fit [`MAX_CONTAINER_LEN`]).
pub(crate) fn check_plaintext_size(plaintext_size: u64, chunk_size: u32) -> Result<()> {
    let n = super::chunk::chunk_count(plaintext_size, chunk_size);
    let per_chunk = (super::chunk::ENVELOPE_OVERHEAD + super::chunk::LEAF_LEN) as u64;
    let total = plaintext_size
        .checked_add(n.saturating_mul(per_chunk))
        .and_then(|b| b.checked_add(MAX_HEADER_LEN as u64));
    if n > super::chunk::MAX_CHUNKS || total.is_none_or(|t| t > MAX_CONTAINER_LEN) {
        Err(ContainerError::InvalidPlaintextSize)
    } else {
        Ok(())
    }
}

/// Fixed-part fields read before the wrap table.
struct Fixed {
    version: u8,
    mode: u8,
    file_id: [u8; 16],
    chunk_size: u32,
    plaintext_size: u64,
    merkle_root: [u8; 32],
    wrap_count: u8,
    hash_alg: HashAlg,
    var_len: usize,
    dek_commitment: [u8; 32],
}

fn parse_fixed(bytes: &[u8]) -> Result<Fixed> {
    let mut c = Cursor::new(bytes);
    let magic = c.array::<8>()?;
    if &magic != MAGIC {
        return Err(ContainerError::BadMagic);
    }
    let version = c.u8()?;
    if !(VERSION_UNSIGNED..=VERSION_HYBRID).contains(&version) {
        return Err(ContainerError::UnsupportedVersion(version));
    }
    let mode = c.u8()?;
    let cipher = c.u8()?;
    if cipher != CIPHER_SUITE_AES_256_GCM {
        return Err(ContainerError::UnsupportedCipherSuite(cipher));
    }
    let file_id = c.array::<16>()?;
    let chunk_size = c.u32()?;
    check_chunk_size(chunk_size)?;
    let plaintext_size = c.u64()?;
    check_plaintext_size(plaintext_size, chunk_size)?;
    let merkle_root = c.array::<32>()?;
    let wrap_count = c.u8()?;
    let hash_alg = HashAlg::from_id(c.u8()?)?;
    if c.array::<3>()? != [0u8; 3] {
        return Err(ContainerError::NonCanonical("reserved bytes must be zero"));
    }
    let var_len = c.u32()?;
    let var_len = usize::try_from(var_len).map_err(|_| {
        ContainerError::NonCanonical("variable length inconsistent with wrap count")
    })?;
    let count = usize::from(wrap_count);
    if var_len < count * MIN_WRAP_ENTRY_LEN || var_len > count * MAX_WRAP_ENTRY_LEN {
        return Err(ContainerError::NonCanonical(
            "variable length inconsistent with wrap count",
        ));
    }
    let dek_commitment = c.array::<32>()?;
    Ok(Fixed {
        dek_commitment,
        version,
        mode,
        file_id,
        chunk_size,
        plaintext_size,
        merkle_root,
        wrap_count,
        hash_alg,
        var_len,
    })
}

/// Metadata length a version and kind require, without the seal reason.
const fn metadata_base_len(version: u8) -> usize {
    if version == VERSION_HYBRID {
        METADATA_V3_LEN
    } else {
        METADATA_V2_LEN
    }
}

const fn sig_table_len(version: u8) -> usize {
    if version == VERSION_HYBRID {
        SIG_TABLE_V3_LEN
    } else {
        SIG_TABLE_V2_LEN
    }
}

fn check_metadata_len(version: u8, mlen: usize) -> Result<()> {
    let base = metadata_base_len(version);
    let sealed_min = base + SEAL_FIELDS_LEN;
    let sealed_max = sealed_min + MAX_SEAL_REASON_LEN;
    if mlen == base || (sealed_min..=sealed_max).contains(&mlen) {
        Ok(())
    } else {
        Err(ContainerError::InvalidMetadata(
            "metadata length out of range",
        ))
    }
}

fn parse_metadata(version: u8, bytes: &[u8], base: usize) -> Result<Metadata> {
    let mut c = Cursor::with_base(bytes, base);
    let kind = c.u8()?;
    let timestamp = c.u64()?;
    let ed25519_public = c.array::<32>()?;
    let mldsa_public = if version == VERSION_HYBRID {
        Some(c.take(mldsa::PK_LEN)?.to_vec())
    } else {
        None
    };
    let key_log_id = c.array::<32>()?;
    let kind = match kind {
        0 => MetadataKind::Plain,
        1 => {
            let mode = match c.u8()? {
                0 => SealMode::Seal,
                1 => SealMode::Purge,
                _ => return Err(ContainerError::InvalidMetadata("unknown seal mode")),
            };
            let rlen = usize::from(c.u16()?);
            if rlen > MAX_SEAL_REASON_LEN {
                return Err(ContainerError::InvalidMetadata(
                    "seal reason longer than 1024 bytes",
                ));
            }
            let reason = core::str::from_utf8(c.take(rlen)?)
                .map_err(|_| ContainerError::InvalidMetadata("seal reason is not UTF-8"))?
                .to_owned();
            MetadataKind::Sealed { mode, reason }
        }
        _ => return Err(ContainerError::InvalidMetadata("unknown metadata kind")),
    };
    if c.remaining() != 0 {
        return Err(ContainerError::InvalidMetadata(
            "metadata length does not match its fields",
        ));
    }
    Ok(Metadata {
        kind,
        timestamp,
        ed25519_public,
        mldsa_public,
        key_log_id,
    })
}

impl Header {
    /// Format version this header serialises as (4, 5 or 6).
    #[must_use]
    pub fn version(&self) -> u8 {
        match &self.signed {
            None => VERSION_UNSIGNED,
            Some(s) if s.metadata.mldsa_public.is_some() => VERSION_HYBRID,
            Some(_) => VERSION_ED25519,
        }
    }

    /// The mode byte (a function of the wrap table).
    #[must_use]
    pub fn mode(&self) -> Mode {
        Mode::of(&self.wraps)
    }

    /// Whether the header carries a sealed marker.
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.signed.as_ref().is_some_and(SignedPart::is_sealed)
    }

    /// Length of the header once the fixed part and, for v5/v6, the metadata
    /// length are known; `NeedMore` otherwise. Every bound is checked on the
    /// bytes seen so far, so a hostile prefix never asks for more than
    /// [`MAX_HEADER_LEN`] bytes.
    ///
    /// # Errors
    /// Every error of the fixed part (magic, version, sizes, reserved bytes,
    /// wrap-count/variable-length bounds, metadata length bound).
    pub fn required_len(prefix: &[u8]) -> Result<core::result::Result<usize, usize>> {
        let Some(fixed_bytes) = prefix.get(..FIXED_HEADER_LEN) else {
            return Ok(Err(FIXED_HEADER_LEN));
        };
        let f = parse_fixed(fixed_bytes)?;
        let table_end = FIXED_HEADER_LEN + f.var_len;
        if f.version == VERSION_UNSIGNED {
            return Ok(Ok(table_end));
        }
        let Some(mlen_bytes) = prefix.get(table_end..table_end + 4) else {
            return Ok(Err(table_end + 4));
        };
        let mut c = Cursor::new(mlen_bytes);
        let mlen = usize::try_from(c.u32()?)
            .map_err(|_| ContainerError::InvalidMetadata("metadata length out of range"))?;
        check_metadata_len(f.version, mlen)?;
        Ok(Ok(table_end + 4 + mlen + sig_table_len(f.version)))
    }

    /// Parses a header from a prefix of a container (the prefix may extend
    /// into the chunk envelopes). Returns `NeedMore` with the total prefix
    /// length to supply next when the prefix is too short.
    ///
    /// # Errors
    /// Every header error of [`Header::parse`].
    pub fn parse_prefix(prefix: &[u8]) -> Result<HeaderPrefix> {
        match Self::required_len(prefix)? {
            Err(needed) => Ok(HeaderPrefix::NeedMore { needed }),
            Ok(len) => match prefix.get(..len) {
                None => Ok(HeaderPrefix::NeedMore { needed: len }),
                Some(bytes) => {
                    let (header, header_len) = Self::parse(bytes)?;
                    Ok(HeaderPrefix::Complete {
                        header: Box::new(header),
                        header_len,
                    })
                }
            },
        }
    }

    /// Parses the header at the start of `bytes`; returns it and its length.
    /// Bytes after the header (chunk envelopes) are not looked at.
    ///
    /// # Errors
    /// [`ContainerError::Truncated`], [`ContainerError::BadMagic`],
    /// [`ContainerError::UnsupportedVersion`], [`ContainerError::UnsupportedCipherSuite`],
    /// [`ContainerError::InvalidChunkSize`], [`ContainerError::InvalidPlaintextSize`],
    /// [`ContainerError::UnsupportedHashAlgorithm`], [`ContainerError::NonCanonical`],
    /// [`ContainerError::InvalidWrap`], [`ContainerError::UnsupportedWrapType`],
    /// [`ContainerError::InvalidMetadata`].
    pub fn parse(bytes: &[u8]) -> Result<(Self, usize)> {
        let fixed_bytes = bytes
            .get(..FIXED_HEADER_LEN)
            .ok_or_else(|| ContainerError::truncated(FIXED_HEADER_LEN, bytes.len()))?;
        let f = parse_fixed(fixed_bytes)?;
        let table_end = FIXED_HEADER_LEN + f.var_len;
        let table = bytes
            .get(FIXED_HEADER_LEN..table_end)
            .ok_or_else(|| ContainerError::truncated(table_end, bytes.len()))?;
        let wraps = WrapEntry::parse_table(table, f.wrap_count)?;
        if Mode::of(&wraps).id() != f.mode {
            return Err(ContainerError::NonCanonical(
                "mode byte does not match the wrap table",
            ));
        }
        let mut c = Cursor::with_base(bytes.get(table_end..).unwrap_or_default(), table_end);
        let signed = if f.version == VERSION_UNSIGNED {
            None
        } else {
            let mlen = usize::try_from(c.u32()?)
                .map_err(|_| ContainerError::InvalidMetadata("metadata length out of range"))?;
            check_metadata_len(f.version, mlen)?;
            let meta_base = table_end + 4;
            let metadata = parse_metadata(f.version, c.take(mlen)?, meta_base)?;
            let ed25519_signature = c.array::<64>()?;
            let mldsa_signature = if f.version == VERSION_HYBRID {
                Some(c.take(mldsa::SIG_LEN)?.to_vec())
            } else {
                None
            };
            if matches!(metadata.kind, MetadataKind::Sealed { .. }) && !wraps.is_empty() {
                return Err(ContainerError::NonCanonical(
                    "a sealed container has no wraps",
                ));
            }
            Some(SignedPart {
                metadata,
                ed25519_signature,
                mldsa_signature,
            })
        };
        let header_len = table_end + c.position();
        let header = Self {
            file_id: f.file_id,
            chunk_size: f.chunk_size,
            plaintext_size: f.plaintext_size,
            merkle_root: f.merkle_root,
            hash_alg: f.hash_alg,
            dek_commitment: f.dek_commitment,
            wraps,
            signed,
        };
        Ok((header, header_len))
    }

    /// Parses a byte string that must be exactly one header.
    ///
    /// # Errors
    /// As [`Header::parse`], plus [`ContainerError::TrailingBytes`].
    pub fn parse_exact(bytes: &[u8]) -> Result<Self> {
        let (h, len) = Self::parse(bytes)?;
        if len != bytes.len() {
            return Err(ContainerError::TrailingBytes);
        }
        Ok(h)
    }

    /// Checks the invariants serialisation relies on.
    fn validate(&self) -> Result<()> {
        check_chunk_size(self.chunk_size)?;
        check_plaintext_size(self.plaintext_size, self.chunk_size)?;
        if self.wraps.len() > MAX_WRAPS {
            return Err(ContainerError::NonCanonical("more than 255 wraps"));
        }
        for w in &self.wraps {
            w.validate()?;
        }
        if let Some(s) = &self.signed {
            if s.metadata.mldsa_public.is_some() != s.mldsa_signature.is_some() {
                return Err(ContainerError::InvalidMetadata(
                    "ML-DSA public key and signature must both be present or absent",
                ));
            }
            if let Some(pk) = &s.metadata.mldsa_public
                && pk.len() != mldsa::PK_LEN
            {
                return Err(ContainerError::InvalidMetadata(
                    "ML-DSA-65 public key length",
                ));
            }
            if let Some(sig) = &s.mldsa_signature
                && sig.len() != mldsa::SIG_LEN
            {
                return Err(ContainerError::InvalidMetadata(
                    "ML-DSA-65 signature length",
                ));
            }
            if let MetadataKind::Sealed { reason, .. } = &s.metadata.kind {
                if reason.len() > MAX_SEAL_REASON_LEN {
                    return Err(ContainerError::InvalidMetadata(
                        "seal reason longer than 1024 bytes",
                    ));
                }
                if !self.wraps.is_empty() {
                    return Err(ContainerError::NonCanonical(
                        "a sealed container has no wraps",
                    ));
                }
            }
        }
        Ok(())
    }

    fn write_metadata(m: &Metadata, out: &mut Vec<u8>) {
        let kind = match m.kind {
            MetadataKind::Plain => 0u8,
            MetadataKind::Sealed { .. } => 1u8,
        };
        out.push(kind);
        out.extend_from_slice(&m.timestamp.to_be_bytes());
        out.extend_from_slice(&m.ed25519_public);
        if let Some(pk) = &m.mldsa_public {
            out.extend_from_slice(pk);
        }
        out.extend_from_slice(&m.key_log_id);
        if let MetadataKind::Sealed { mode, reason } = &m.kind {
            out.push(mode.id());
            // validate() bounds the reason to 1024 bytes.
            let rlen = u16::try_from(reason.len()).unwrap_or(u16::MAX);
            out.extend_from_slice(&rlen.to_be_bytes());
            out.extend_from_slice(reason.as_bytes());
        }
    }

    /// The header bytes before the signature table (everything the signatures
    /// cover, after the domain label). For v4 this is the whole header.
    ///
    /// # Errors
    /// [`ContainerError::NonCanonical`] / [`ContainerError::InvalidWrap`] /
    /// [`ContainerError::InvalidMetadata`] if the struct breaks a format rule.
    pub fn unsigned_prefix(&self) -> Result<Vec<u8>> {
        self.validate()?;
        let mut table = Vec::new();
        for w in &self.wraps {
            w.write(&mut table);
        }
        let var_len = u32::try_from(table.len())
            .map_err(|_| ContainerError::NonCanonical("wrap table too long"))?;
        let wrap_count = u8::try_from(self.wraps.len())
            .map_err(|_| ContainerError::NonCanonical("more than 255 wraps"))?;
        let mut out = Vec::with_capacity(FIXED_HEADER_LEN + table.len() + 4 + METADATA_V3_LEN);
        out.extend_from_slice(MAGIC);
        out.push(self.version());
        out.push(self.mode().id());
        out.push(CIPHER_SUITE_AES_256_GCM);
        out.extend_from_slice(&self.file_id);
        out.extend_from_slice(&self.chunk_size.to_be_bytes());
        out.extend_from_slice(&self.plaintext_size.to_be_bytes());
        out.extend_from_slice(&self.merkle_root);
        out.push(wrap_count);
        out.push(self.hash_alg.id());
        out.extend_from_slice(&[0u8; 3]);
        out.extend_from_slice(&var_len.to_be_bytes());
        out.extend_from_slice(&self.dek_commitment);
        out.extend_from_slice(&table);
        if let Some(s) = &self.signed {
            let mut meta = Vec::with_capacity(METADATA_V3_LEN);
            Self::write_metadata(&s.metadata, &mut meta);
            let mlen = u32::try_from(meta.len())
                .map_err(|_| ContainerError::InvalidMetadata("metadata length out of range"))?;
            out.extend_from_slice(&mlen.to_be_bytes());
            out.extend_from_slice(&meta);
        }
        Ok(out)
    }

    /// Serialises the header.
    ///
    /// # Errors
    /// As [`Header::unsigned_prefix`].
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = self.unsigned_prefix()?;
        if let Some(s) = &self.signed {
            out.extend_from_slice(&s.ed25519_signature);
            if let Some(sig) = &s.mldsa_signature {
                out.extend_from_slice(sig);
            }
        }
        Ok(out)
    }

    /// Serialised length.
    ///
    /// # Errors
    /// As [`Header::unsigned_prefix`].
    pub fn serialized_len(&self) -> Result<usize> {
        Ok(self.to_bytes()?.len())
    }
}
