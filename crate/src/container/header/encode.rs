//! Serialisation of the header (the inverse of `parse`), after checking the
//! invariants it relies on.

use super::{
    CIPHER_SUITE_AES_256_GCM, FIXED_HEADER_LEN, Header, MAGIC, MAX_SEAL_REASON_LEN, MAX_WRAPS,
    METADATA_V3_LEN, Metadata, MetadataKind, check_chunk_size, check_plaintext_size,
};
use crate::container::error::{ContainerError, Result};
use crate::mldsa;

impl Header {
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
