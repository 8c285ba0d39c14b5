//! The container's byte cursor: the crate's bounds-checked big-endian reader
//! ([`crate::bytes::ByteReader`]) with failures mapped to
//! [`ContainerError::Truncated`] at absolute offsets.

use super::error::{ContainerError, Result};
use crate::bytes::ByteReader;

/// A forward-only, bounds-checked reader over a byte slice. Every read that
/// would run past the end is [`ContainerError::Truncated`] (with offsets
/// relative to `base`, so errors name absolute positions).
pub(crate) struct Cursor<'a> {
    inner: ByteReader<'a>,
    base: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) const fn new(bytes: &'a [u8]) -> Self {
        Self::with_base(bytes, 0)
    }

    pub(crate) const fn with_base(bytes: &'a [u8], base: usize) -> Self {
        Self {
            inner: ByteReader::new(bytes),
            base,
        }
    }

    pub(crate) const fn position(&self) -> usize {
        self.inner.position()
    }

    pub(crate) fn remaining(&self) -> usize {
        self.inner.rest().len()
    }

    /// The error of a read of `n` bytes that did not fit.
    fn truncated(&self, n: usize) -> ContainerError {
        let len = self.inner.len();
        match self.inner.position().checked_add(n) {
            None => ContainerError::truncated(usize::MAX, len),
            Some(end) => ContainerError::truncated(
                self.base.saturating_add(end),
                self.base.saturating_add(len),
            ),
        }
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        self.inner.take(n).ok_or_else(|| self.truncated(n))
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.inner.array().ok_or_else(|| self.truncated(N))
    }

    pub(crate) fn u8(&mut self) -> Result<u8> {
        self.inner.u8().ok_or_else(|| self.truncated(1))
    }

    pub(crate) fn u16(&mut self) -> Result<u16> {
        self.inner.u16().ok_or_else(|| self.truncated(2))
    }

    pub(crate) fn u32(&mut self) -> Result<u32> {
        self.inner.u32().ok_or_else(|| self.truncated(4))
    }

    pub(crate) fn u64(&mut self) -> Result<u64> {
        self.inner.u64().ok_or_else(|| self.truncated(8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_names_absolute_offsets() {
        let mut c = Cursor::with_base(&[0, 1, 2], 10);
        assert_eq!(c.u16().unwrap(), 1);
        assert_eq!(c.u32().unwrap_err(), ContainerError::truncated(16, 13));
        assert_eq!(c.position(), 2);
        assert_eq!(c.remaining(), 1);
        assert_eq!(
            c.take(usize::MAX).unwrap_err(),
            ContainerError::truncated(usize::MAX, 3)
        );
        assert_eq!(c.u8().unwrap(), 2);
        assert_eq!(
            c.array::<1>().unwrap_err(),
            ContainerError::truncated(14, 13)
        );
    }
}
