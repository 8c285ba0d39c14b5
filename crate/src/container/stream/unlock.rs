//! Unlocking a [`ContainerReader`]: every way to recover the DEK (each
//! checks the DEK commitment), and its hand-off and wiping.

use zeroize::Zeroizing;

use super::super::chunk::Dek;
use super::super::error::{ContainerError, Result};
use super::super::wrap::{self, KdfBudget, ThresholdShare, Unlock};
use super::ContainerReader;

impl ContainerReader {
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
}
