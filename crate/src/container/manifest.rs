//! Group manifest: a hash-linked chain of Ed25519-signed blocks recording who
//! belongs to a group, who administers it and which group-key epochs exist.
//!
//! ```text
//! manifest = "VCGM" ‖ u8 format (1) ‖ u32be block_count ‖ block × block_count
//! block (221 bytes) = group_id16 ‖ u32be epoch ‖ u8 op ‖ prev_hash32 ‖ subject32
//!                   ‖ key_commitment32 ‖ u64be timestamp ‖ signer32 ‖ signature64
//! signature  = Ed25519(signer, "vollcrypt-group-manifest-block-v1" ‖ block[0..157])
//! block_hash = SHA-256("vollcrypt-group-manifest-hash-v1" ‖ block[0..221])
//! commitment = SHA-256("vollcrypt-group-key-commitment-v1" ‖ group_id16 ‖ u32be epoch ‖ group_key32)
//! ```
//!
//! Rules: block `i` has epoch `i`; block 0 is the genesis (prev_hash zero,
//! signer = subject = founder, who is the first member and admin); every later
//! block links to the hash of its predecessor, keeps the group id, has a
//! timestamp not below its predecessor's and is signed by a current admin.
//! `AddMember` needs a non-member subject, `RemoveMember` a member other
//! than the founder, `PromoteAdmin` a member who is not yet admin;
//! `RotateKey` has a zero subject and opens key epoch = its epoch. Only
//! genesis and rotate blocks carry a key commitment (zero elsewhere).
//!
//! Size: one chain format (block codec, chain rules, state fold, revocation) whose rules read the block's private fields; splitting the codec out is a follow-up.

use std::collections::BTreeSet;

use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::encoding::Cursor;
use super::error::{ContainerError, Result};
use crate::ed25519;
use crate::hash::Sha256;

/// Manifest magic.
pub const MANIFEST_MAGIC: &[u8; 4] = b"VCGM";
/// Manifest format version.
pub const MANIFEST_FORMAT: u8 = 1;
/// Serialised block length.
pub const BLOCK_LEN: usize = 221;
/// Bytes of a block covered by its signature.
pub const BLOCK_SIGNED_LEN: usize = 157;
/// Largest number of blocks accepted.
pub const MAX_BLOCKS: u32 = 1_000_000;
/// Signature label.
pub const BLOCK_SIGNATURE_LABEL: &[u8] = b"vollcrypt-group-manifest-block-v1";
/// Block hash label.
pub const BLOCK_HASH_LABEL: &[u8] = b"vollcrypt-group-manifest-hash-v1";
/// Key commitment label.
pub const KEY_COMMITMENT_LABEL: &[u8] = b"vollcrypt-group-key-commitment-v1";

/// Manifest operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManifestOp {
    /// 0: genesis by the founder.
    Genesis,
    /// 1: add a member.
    AddMember,
    /// 2: remove a member.
    RemoveMember,
    /// 3: rotate the group key (new key epoch).
    RotateKey,
    /// 4: promote a member to admin.
    PromoteAdmin,
}

impl ManifestOp {
    /// Wire id.
    #[must_use]
    pub const fn id(self) -> u8 {
        match self {
            Self::Genesis => 0,
            Self::AddMember => 1,
            Self::RemoveMember => 2,
            Self::RotateKey => 3,
            Self::PromoteAdmin => 4,
        }
    }

    const fn from_id(id: u8) -> Result<Self> {
        match id {
            0 => Ok(Self::Genesis),
            1 => Ok(Self::AddMember),
            2 => Ok(Self::RemoveMember),
            3 => Ok(Self::RotateKey),
            4 => Ok(Self::PromoteAdmin),
            _ => Err(ContainerError::InvalidManifest("unknown operation")),
        }
    }
}

/// One manifest block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestBlock {
    /// Group id (the same in every block).
    pub group_id: [u8; 16],
    /// Epoch = position in the chain.
    pub epoch: u32,
    /// Operation.
    pub op: ManifestOp,
    /// Hash of the previous block (zero for the genesis).
    pub prev_hash: [u8; 32],
    /// Member Ed25519 key the operation is about (zero for `RotateKey`).
    pub subject: [u8; 32],
    /// Group key commitment (genesis and rotate only; zero otherwise).
    pub key_commitment: [u8; 32],
    /// Timestamp (seconds since the Unix epoch by convention), non-decreasing.
    pub timestamp: u64,
    /// Signer's Ed25519 public key.
    pub signer: [u8; 32],
    /// Ed25519 signature.
    pub signature: [u8; 64],
}

impl ManifestBlock {
    fn parse(bytes: &[u8]) -> Result<Self> {
        let mut c = Cursor::new(bytes);
        Ok(Self {
            group_id: c.array()?,
            epoch: c.u32()?,
            op: ManifestOp::from_id(c.u8()?)?,
            prev_hash: c.array()?,
            subject: c.array()?,
            key_commitment: c.array()?,
            timestamp: c.u64()?,
            signer: c.array()?,
            signature: c.array()?,
        })
    }

    /// The message its signature covers: label ‖ the first 157 block bytes.
    #[must_use]
    pub fn signed_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(BLOCK_SIGNATURE_LABEL.len() + BLOCK_SIGNED_LEN);
        out.extend_from_slice(BLOCK_SIGNATURE_LABEL);
        out.extend_from_slice(&self.group_id);
        out.extend_from_slice(&self.epoch.to_be_bytes());
        out.push(self.op.id());
        out.extend_from_slice(&self.prev_hash);
        out.extend_from_slice(&self.subject);
        out.extend_from_slice(&self.key_commitment);
        out.extend_from_slice(&self.timestamp.to_be_bytes());
        out.extend_from_slice(&self.signer);
        out
    }

    /// The 221 serialised bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.signed_bytes().split_off(BLOCK_SIGNATURE_LABEL.len());
        out.extend_from_slice(&self.signature);
        out
    }

    /// `block_hash`.
    #[must_use]
    pub fn hash(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(BLOCK_HASH_LABEL);
        h.update(&self.to_bytes());
        h.finalize()
    }
}

/// Commitment to a group key of one epoch, published in the manifest.
#[must_use]
pub fn group_key_commitment(group_id: &[u8; 16], epoch: u32, group_key: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(KEY_COMMITMENT_LABEL);
    h.update(group_id);
    h.update(&epoch.to_be_bytes());
    h.update(group_key);
    h.finalize()
}

/// The group state a verified manifest establishes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupState {
    /// Group id.
    pub group_id: [u8; 16],
    /// Founder (genesis signer).
    pub founder: [u8; 32],
    /// Epoch of the last block.
    pub head_epoch: u32,
    /// Hash of the last block.
    pub head_hash: [u8; 32],
    /// Current members (admins included).
    pub members: BTreeSet<[u8; 32]>,
    /// Current admins.
    pub admins: BTreeSet<[u8; 32]>,
    /// Key epochs `(epoch, commitment)` in order; the last is current.
    pub key_epochs: Vec<(u32, [u8; 32])>,
    last_timestamp: u64,
}

impl GroupState {
    /// The current key epoch (the latest genesis / rotate block).
    #[must_use]
    pub fn current_key_epoch(&self) -> u32 {
        self.key_epochs.last().map_or(0, |(e, _)| *e)
    }

    /// Checks that `group_key` is the committed key of key epoch `key_version`.
    ///
    /// # Errors
    /// [`ContainerError::InvalidManifest`] if `key_version` is no key epoch of
    /// the manifest, [`ContainerError::AuthenticationFailed`] if the key does
    /// not match the commitment.
    pub fn check_group_key(&self, key_version: u32, group_key: &[u8]) -> Result<()> {
        let (_, commitment) = self
            .key_epochs
            .iter()
            .find(|(e, _)| *e == key_version)
            .ok_or(ContainerError::InvalidManifest(
                "key version is not a key epoch of the manifest",
            ))?;
        let key =
            <&[u8; 32]>::try_from(group_key).map_err(|_| ContainerError::AuthenticationFailed)?;
        let c = group_key_commitment(&self.group_id, key_version, key);
        if bool::from(c.ct_eq(commitment)) {
            Ok(())
        } else {
            Err(ContainerError::AuthenticationFailed)
        }
    }

    fn genesis(block: &ManifestBlock) -> Result<Self> {
        if block.op != ManifestOp::Genesis {
            return Err(ContainerError::InvalidManifest(
                "the first block must be a genesis",
            ));
        }
        if block.epoch != 0 || block.prev_hash != [0u8; 32] {
            return Err(ContainerError::InvalidManifest(
                "genesis must have epoch 0 and a zero prev_hash",
            ));
        }
        if block.subject != block.signer {
            return Err(ContainerError::InvalidManifest(
                "genesis subject must be its signer (the founder)",
            ));
        }
        if block.key_commitment == [0u8; 32] {
            return Err(ContainerError::InvalidManifest(
                "genesis needs a key commitment (all zero is refused)",
            ));
        }
        verify_block_signature(block)?;
        let mut members = BTreeSet::new();
        members.insert(block.signer);
        Ok(Self {
            group_id: block.group_id,
            founder: block.signer,
            head_epoch: 0,
            head_hash: block.hash(),
            admins: members.clone(),
            members,
            key_epochs: vec![(0, block.key_commitment)],
            last_timestamp: block.timestamp,
        })
    }

    fn apply(&mut self, block: &ManifestBlock) -> Result<()> {
        if block.group_id != self.group_id {
            return Err(ContainerError::InvalidManifest(
                "group id changes along the chain",
            ));
        }
        if block.prev_hash != self.head_hash {
            return Err(ContainerError::InvalidManifest(
                "prev_hash does not link to the previous block",
            ));
        }
        let expected_epoch = self
            .head_epoch
            .checked_add(1)
            .ok_or(ContainerError::InvalidManifest("epoch overflow"))?;
        if block.epoch != expected_epoch {
            return Err(ContainerError::InvalidManifest(
                "epochs must increase by one per block",
            ));
        }
        if block.timestamp < self.last_timestamp {
            return Err(ContainerError::InvalidManifest(
                "timestamps must not decrease",
            ));
        }
        if !self.admins.contains(&block.signer) {
            return Err(ContainerError::InvalidManifest("signer is not an admin"));
        }
        let zero = [0u8; 32];
        let needs_commitment = block.op == ManifestOp::RotateKey;
        if !needs_commitment && block.key_commitment != zero {
            return Err(ContainerError::InvalidManifest(
                "only rotate blocks carry a key commitment",
            ));
        }
        if needs_commitment && block.key_commitment == zero {
            return Err(ContainerError::InvalidManifest(
                "a rotate block needs a key commitment (all zero is refused)",
            ));
        }
        verify_block_signature(block)?;
        match block.op {
            ManifestOp::Genesis => return Err(ContainerError::InvalidManifest("a second genesis")),
            ManifestOp::AddMember => {
                if block.subject == zero || !self.members.insert(block.subject) {
                    return Err(ContainerError::InvalidManifest(
                        "subject is already a member",
                    ));
                }
            }
            ManifestOp::RemoveMember => {
                if block.subject == self.founder {
                    return Err(ContainerError::InvalidManifest(
                        "the founder cannot be removed",
                    ));
                }
                if !self.members.remove(&block.subject) {
                    return Err(ContainerError::InvalidManifest("subject is not a member"));
                }
                self.admins.remove(&block.subject);
            }
            ManifestOp::RotateKey => {
                if block.subject != zero {
                    return Err(ContainerError::InvalidManifest(
                        "rotate blocks have a zero subject",
                    ));
                }
                self.key_epochs.push((block.epoch, block.key_commitment));
            }
            ManifestOp::PromoteAdmin => {
                if !self.members.contains(&block.subject) {
                    return Err(ContainerError::InvalidManifest("subject is not a member"));
                }
                if !self.admins.insert(block.subject) {
                    return Err(ContainerError::InvalidManifest(
                        "subject is already an admin",
                    ));
                }
            }
        }
        self.head_epoch = block.epoch;
        self.head_hash = block.hash();
        self.last_timestamp = block.timestamp;
        Ok(())
    }
}

fn verify_block_signature(block: &ManifestBlock) -> Result<()> {
    ed25519::ed25519_verify(&block.signer, &block.signed_bytes(), &block.signature)
        .map_err(|_| ContainerError::InvalidManifest("block signature does not verify"))
}

/// A group manifest (parsed; [`GroupManifest::verify`] checks the chain).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupManifest {
    blocks: Vec<ManifestBlock>,
}

impl GroupManifest {
    /// Parses the wire form (structure only: magic, count, exact length).
    ///
    /// # Errors
    /// [`ContainerError::InvalidManifest`], [`ContainerError::Truncated`],
    /// [`ContainerError::TrailingBytes`].
    pub fn parse(bytes: &[u8]) -> Result<Self> {
        let mut c = Cursor::new(bytes);
        if &c.array::<4>()? != MANIFEST_MAGIC {
            return Err(ContainerError::InvalidManifest("bad magic"));
        }
        if c.u8()? != MANIFEST_FORMAT {
            return Err(ContainerError::InvalidManifest(
                "unsupported format version",
            ));
        }
        let count = c.u32()?;
        if count == 0 || count > MAX_BLOCKS {
            return Err(ContainerError::InvalidManifest(
                "block count outside 1..=1000000",
            ));
        }
        let count =
            usize::try_from(count).map_err(|_| ContainerError::InvalidManifest("block count"))?;
        let body_len = count.saturating_mul(BLOCK_LEN);
        if c.remaining() < body_len {
            return Err(ContainerError::truncated(
                9usize.saturating_add(body_len),
                bytes.len(),
            ));
        }
        if c.remaining() > body_len {
            return Err(ContainerError::TrailingBytes);
        }
        let mut blocks = Vec::with_capacity(count);
        for _ in 0..count {
            blocks.push(ManifestBlock::parse(c.take(BLOCK_LEN)?)?);
        }
        Ok(Self { blocks })
    }

    /// The wire form.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(9 + self.blocks.len() * BLOCK_LEN);
        out.extend_from_slice(MANIFEST_MAGIC);
        out.push(MANIFEST_FORMAT);
        out.extend_from_slice(
            &u32::try_from(self.blocks.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        for b in &self.blocks {
            out.extend_from_slice(&b.to_bytes());
        }
        out
    }

    /// A manifest of the given blocks (not checked: call [`GroupManifest::verify`]).
    #[must_use]
    pub const fn from_blocks(blocks: Vec<ManifestBlock>) -> Self {
        Self { blocks }
    }

    /// The blocks.
    #[must_use]
    pub fn blocks(&self) -> &[ManifestBlock] {
        &self.blocks
    }

    /// Verifies the chain (links, epochs, signatures, authority) and, when
    /// given, the rollback pin (head epoch ≥ `min_epoch`) and the founder anchor.
    ///
    /// # Errors
    /// [`ContainerError::InvalidManifest`], [`ContainerError::ManifestRollback`],
    /// [`ContainerError::FounderMismatch`].
    pub fn verify(
        &self,
        min_epoch: Option<u32>,
        founder_anchor: Option<&[u8; 32]>,
    ) -> Result<GroupState> {
        let (first, rest) = self
            .blocks
            .split_first()
            .ok_or(ContainerError::InvalidManifest("empty manifest"))?;
        if let Some(anchor) = founder_anchor
            && &first.signer != anchor
        {
            return Err(ContainerError::FounderMismatch);
        }
        let mut state = GroupState::genesis(first)?;
        for b in rest {
            state.apply(b)?;
        }
        if let Some(pin) = min_epoch
            && state.head_epoch < pin
        {
            return Err(ContainerError::ManifestRollback {
                pinned: pin,
                head: state.head_epoch,
            });
        }
        Ok(state)
    }

    /// A new manifest: the founder's genesis with the commitment of the
    /// epoch-0 group key.
    ///
    /// # Errors
    /// Primitive errors (seed length).
    pub fn genesis(
        group_id: [u8; 16],
        founder_seed: &[u8],
        group_key: &[u8; 32],
        timestamp: u64,
    ) -> Result<Self> {
        let kp = ed25519::ed25519_from_seed(founder_seed)?;
        let mut block = ManifestBlock {
            group_id,
            epoch: 0,
            op: ManifestOp::Genesis,
            prev_hash: [0u8; 32],
            subject: kp.public,
            key_commitment: group_key_commitment(&group_id, 0, group_key),
            timestamp,
            signer: kp.public,
            signature: [0u8; 64],
        };
        block.signature = ed25519::ed25519_sign(kp.secret.as_slice(), &block.signed_bytes())?;
        Ok(Self {
            blocks: vec![block],
        })
    }

    fn append(
        &mut self,
        op: ManifestOp,
        admin_seed: &[u8],
        subject: [u8; 32],
        key_commitment: [u8; 32],
        timestamp: u64,
    ) -> Result<u32> {
        let mut state = self.verify(None, None)?;
        let kp = ed25519::ed25519_from_seed(admin_seed)?;
        let epoch = state
            .head_epoch
            .checked_add(1)
            .ok_or(ContainerError::InvalidManifest("epoch overflow"))?;
        let mut block = ManifestBlock {
            group_id: state.group_id,
            epoch,
            op,
            prev_hash: state.head_hash,
            subject,
            key_commitment,
            timestamp,
            signer: kp.public,
            signature: [0u8; 64],
        };
        block.signature = ed25519::ed25519_sign(kp.secret.as_slice(), &block.signed_bytes())?;
        state.apply(&block)?;
        self.blocks.push(block);
        Ok(epoch)
    }

    /// Appends `AddMember` signed by an admin; returns the new epoch.
    ///
    /// # Errors
    /// As [`GroupManifest::verify`] for the resulting chain.
    pub fn add_member(
        &mut self,
        admin_seed: &[u8],
        member: [u8; 32],
        timestamp: u64,
    ) -> Result<u32> {
        self.append(
            ManifestOp::AddMember,
            admin_seed,
            member,
            [0u8; 32],
            timestamp,
        )
    }

    /// Appends `RemoveMember`; returns the new epoch.
    ///
    /// # Errors
    /// As [`GroupManifest::verify`] for the resulting chain.
    pub fn remove_member(
        &mut self,
        admin_seed: &[u8],
        member: [u8; 32],
        timestamp: u64,
    ) -> Result<u32> {
        self.append(
            ManifestOp::RemoveMember,
            admin_seed,
            member,
            [0u8; 32],
            timestamp,
        )
    }

    /// Appends `PromoteAdmin`; returns the new epoch.
    ///
    /// # Errors
    /// As [`GroupManifest::verify`] for the resulting chain.
    pub fn promote_admin(
        &mut self,
        admin_seed: &[u8],
        member: [u8; 32],
        timestamp: u64,
    ) -> Result<u32> {
        self.append(
            ManifestOp::PromoteAdmin,
            admin_seed,
            member,
            [0u8; 32],
            timestamp,
        )
    }

    /// Appends `RotateKey` committing to `new_group_key`; returns the new
    /// epoch, which is the key version of the new key.
    ///
    /// # Errors
    /// As [`GroupManifest::verify`] for the resulting chain.
    pub fn rotate_key(
        &mut self,
        admin_seed: &[u8],
        new_group_key: &[u8; 32],
        timestamp: u64,
    ) -> Result<u32> {
        let state = self.verify(None, None)?;
        let epoch = state
            .head_epoch
            .checked_add(1)
            .ok_or(ContainerError::InvalidManifest("epoch overflow"))?;
        let commitment = group_key_commitment(&state.group_id, epoch, new_group_key);
        self.append(
            ManifestOp::RotateKey,
            admin_seed,
            [0u8; 32],
            commitment,
            timestamp,
        )
    }
}

/// How a member removal is enforced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RevocationMode {
    /// Remove the member only; files stay readable with keys the member cached.
    Lazy,
    /// Remove and rotate: new files use the new key epoch; old files untouched.
    ForwardOnly,
    /// Remove and rotate, then rewrap ([`rewrap_group`](super::rewrap_group))
    /// or re-encrypt ([`reencrypt`](super::reencrypt)) existing files.
    Strict,
}

/// Removes `member` according to `mode`. For `ForwardOnly` and `Strict` a
/// fresh group key is drawn, committed in a `RotateKey` block and returned
/// with its key version (distribute it to the remaining members; for
/// `Strict`, rewrap or re-encrypt existing files with it).
///
/// # Errors
/// As [`GroupManifest::verify`]; randomness.
pub fn revoke_member(
    manifest: &mut GroupManifest,
    admin_seed: &[u8],
    member: [u8; 32],
    mode: RevocationMode,
    timestamp: u64,
) -> Result<Option<(u32, Zeroizing<[u8; 32]>)>> {
    manifest.remove_member(admin_seed, member, timestamp)?;
    match mode {
        RevocationMode::Lazy => Ok(None),
        RevocationMode::ForwardOnly | RevocationMode::Strict => {
            let key = crate::rng::array::<32>()?;
            let epoch = manifest.rotate_key(admin_seed, &key, timestamp)?;
            Ok(Some((epoch, key)))
        }
    }
}
