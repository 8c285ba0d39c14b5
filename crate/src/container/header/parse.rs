//! Canonical, total parsing of the header: fixed part, wrap table, signed
//! metadata and signature table.

use super::{
    CIPHER_SUITE_AES_256_GCM, FIXED_HEADER_LEN, HashAlg, Header, HeaderPrefix, MAGIC,
    MAX_SEAL_REASON_LEN, METADATA_V2_LEN, METADATA_V3_LEN, Metadata, MetadataKind, Mode,
    SEAL_FIELDS_LEN, SIG_TABLE_V2_LEN, SIG_TABLE_V3_LEN, SealMode, SignedPart, VERSION_HYBRID,
    VERSION_UNSIGNED, check_chunk_size, check_plaintext_size,
};
use crate::container::encoding::Cursor;
use crate::container::error::{ContainerError, Result};
use crate::container::wrap::{MAX_WRAP_ENTRY_LEN, MIN_WRAP_ENTRY_LEN, WrapEntry};
use crate::mldsa;

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
    /// Length of the header once the fixed part and, for v5/v6, the metadata
    /// length are known; `NeedMore` otherwise. Every bound is checked on the
    /// bytes seen so far, so a hostile prefix never asks for more than
    /// [`MAX_HEADER_LEN`](super::MAX_HEADER_LEN) bytes.
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
}
