//! MLS groups (RFC 9420) on OpenMLS: veilkit's group engine.
//!
//! veilkit does not implement MLS: this module wraps [OpenMLS] 0.9 (the choice
//! and its measurements are in `docs/GROUPS.md`). What is veilkit's here:
//!
//! - the **crypto provider** ([`crypto`]): OpenMLS's crypto trait on the core's
//!   primitives and HPKE (OpenMLS's own providers run HPKE through the MPL-2.0
//!   `hpke-rs`);
//! - the **client**: one member's MLS signature key (Ed25519, `ed25519-dalek`
//!   from the core's tree), its credential and OpenMLS's key-value storage;
//! - the **state codec** ([`Client::export_state`] / [`Client::import_state`]):
//!   the whole client (signature key, credential, every group and key package)
//!   as one canonical byte string that the keystore worker seals in IndexedDB;
//! - **transactional receive**: a message that fails (forged, bit-flipped,
//!   replayed, another epoch) leaves the client's state exactly as it was, so
//!   the next genuine message still decrypts;
//! - the ciphersuite policy ([`Suite`]), the wire-format policy (handshake
//!   messages sent as `PrivateMessage`, both forms accepted) and the mapping of
//!   OpenMLS's errors to the stable [`GroupError`] codes.
//!
//! [OpenMLS]: https://github.com/openmls/openmls

pub mod credential;
mod crypto;
mod error;
mod state;
mod storage;
#[cfg(feature = "group-wasm")]
pub mod wasm;

pub use error::GroupError;

use ed25519_dalek::{Signer as _, SigningKey};
use openmls::framing::errors::MessageDecryptionError;
use openmls::framing::errors::SecretTreeError;
use openmls::group::{CommitBuilder, Initial};
use openmls::prelude::{
    BasicCredential, Ciphersuite, CredentialWithKey, KeyPackage, KeyPackageIn, LeafNodeIndex,
    LeafNodeParameters, MIXED_CIPHERTEXT_WIRE_FORMAT_POLICY, MlsGroup, MlsGroupCreateConfig,
    MlsGroupJoinConfig, MlsMessageBodyIn, MlsMessageIn, MlsMessageOut, ProcessMessageError,
    ProcessedMessageContent, ProtocolMessage, ProtocolVersion, Sender, StagedWelcome,
    ValidationError,
};
use openmls_traits::OpenMlsProvider;
use openmls_traits::signatures::{Signer, SignerError};
use openmls_traits::types::SignatureScheme;
use tls_codec::{Deserialize as _, Serialize as _};
use zeroize::Zeroizing;

/// Longest credential identity accepted (bytes).
pub const MAX_IDENTITY_LEN: usize = 4096;
/// Most key packages one commit adds.
pub const MAX_ADD: usize = 1000;
/// Largest MLS message parsed (bytes): a welcome to a 1,000-member X-Wing
/// group is about 1.4 MB.
pub const MAX_MESSAGE_LEN: usize = 16 * 1024 * 1024;

/// The ciphersuites veilkit groups offer; fixed at group creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// `MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519` (0x004D, OpenMLS's
    /// `draft-ietf-mls-pq-ciphersuites` feature): X-Wing (draft-06, HPKE KEM
    /// 0x647A) for post-quantum confidentiality; signatures stay Ed25519.
    XWing,
    /// `MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519` (0x0001), RFC 9420's
    /// mandatory suite, for interoperability.
    Classic,
}

impl Suite {
    /// The suite's IANA / draft code point.
    #[must_use]
    pub const fn id(self) -> u16 {
        match self {
            Self::XWing => 0x004D,
            Self::Classic => 0x0001,
        }
    }

    /// The suite of a code point.
    ///
    /// # Errors
    /// [`GroupError::UnsupportedSuite`] for any other code point.
    pub const fn from_id(id: u16) -> Result<Self, GroupError> {
        match id {
            0x004D => Ok(Self::XWing),
            0x0001 => Ok(Self::Classic),
            other => Err(GroupError::UnsupportedSuite(other)),
        }
    }

    const fn mls(self) -> Ciphersuite {
        match self {
            Self::XWing => Ciphersuite::MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519,
            Self::Classic => Ciphersuite::MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519,
        }
    }

    fn of(cs: Ciphersuite) -> Result<Self, GroupError> {
        Self::from_id(u16::from(cs))
    }
}

/// OpenMLS's provider: veilkit's crypto ([`crypto::VeilCrypto`], the core's
/// primitives) and the key-value store whose contents [`Client::export_state`]
/// serializes.
pub(crate) struct Provider {
    crypto: crypto::VeilCrypto,
    storage: storage::Store,
}

impl OpenMlsProvider for Provider {
    type CryptoProvider = crypto::VeilCrypto;
    type RandProvider = crypto::VeilCrypto;
    type StorageProvider = storage::Store;

    fn storage(&self) -> &Self::StorageProvider {
        &self.storage
    }
    fn crypto(&self) -> &Self::CryptoProvider {
        &self.crypto
    }
    fn rand(&self) -> &Self::RandProvider {
        &self.crypto
    }
}

impl Provider {
    fn new(values: std::collections::HashMap<Vec<u8>, Vec<u8>>) -> Result<Self, GroupError> {
        Ok(Self {
            crypto: crypto::VeilCrypto,
            storage: storage::Store::new(values),
        })
    }

    /// Runs `op` so that its storage changes are undone if it fails.
    fn undoable<T>(&self, op: impl FnOnce() -> Result<T, GroupError>) -> Result<T, GroupError> {
        self.storage.begin().map_err(|_| GroupError::Internal)?;
        let out = op();
        let end = if out.is_ok() {
            self.storage.commit()
        } else {
            self.storage.rollback()
        };
        end.map_err(|_| GroupError::Internal)?;
        out
    }
}

/// The member's MLS signature key: Ed25519 (`ed25519-dalek`, zeroized on drop).
struct MlsSigner(SigningKey);

impl Signer for MlsSigner {
    fn sign(&self, payload: &[u8]) -> Result<Vec<u8>, SignerError> {
        Ok(self.0.sign(payload).to_bytes().to_vec())
    }
    fn signature_scheme(&self) -> SignatureScheme {
        SignatureScheme::ED25519
    }
}

/// One MLS client: a member's signature key and credential, and the state of
/// all its groups and key packages. Its secrets never leave it except through
/// [`Client::export_state`] (for the keystore worker to seal).
pub struct Client {
    provider: Provider,
    signer: MlsSigner,
    identity: Vec<u8>,
}

/// A member of a group as [`Group::members`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberInfo {
    /// Leaf index in the ratchet tree (stable while the member stays).
    pub index: u32,
    /// The credential's identity bytes (a basic credential).
    pub identity: Vec<u8>,
    /// The member's Ed25519 MLS signature key.
    pub signature_key: Vec<u8>,
}

/// What [`Group::info`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupInfo {
    /// The group id.
    pub group_id: Vec<u8>,
    /// The ciphersuite, fixed at creation.
    pub suite: Suite,
    /// The current epoch.
    pub epoch: u64,
    /// This member's leaf index.
    pub own_index: u32,
    /// Every member.
    pub members: Vec<MemberInfo>,
    /// Whether a commit of this member awaits [`Group::merge_pending`] or
    /// [`Group::discard_pending`].
    pub commit_pending: bool,
    /// Whether this client is still a member.
    pub active: bool,
}

/// A commit this member created, pending until the delivery service accepts
/// it ([`Group::merge_pending`]) or another member's commit wins the epoch.
#[derive(Debug)]
pub struct CommitOutput {
    /// The commit, an `MLSMessage` for every current member.
    pub commit: Vec<u8>,
    /// The welcome for the members it adds (an `MLSMessage`), if any.
    pub welcome: Option<Vec<u8>>,
}

/// What [`Group::receive`] returns.
#[derive(Debug)]
pub enum Received {
    /// An application message.
    Application {
        /// The sender's leaf index.
        sender: u32,
        /// The sender's credential identity.
        sender_identity: Vec<u8>,
        /// The plaintext.
        bytes: Zeroizing<Vec<u8>>,
        /// The authenticated data sent with it.
        aad: Vec<u8>,
    },
    /// A commit, merged: the group is at `epoch` now.
    Commit {
        /// The committer's leaf index (`None` for an external commit).
        sender: Option<u32>,
        /// The new epoch.
        epoch: u64,
        /// Identities of the members it added.
        added: Vec<Vec<u8>>,
        /// Leaf indices of the members it removed.
        removed: Vec<u32>,
        /// This client was removed: the group is inactive now.
        removed_self: bool,
        /// A pending commit of this member lost the epoch and was discarded
        /// (its intent must be applied again in the new epoch).
        discarded_own: bool,
    },
    /// A proposal, stored for a later commit.
    Proposal {
        /// The proposer's leaf index (`None` for an external sender).
        sender: Option<u32>,
    },
}

/// A group of one [`Client`]. Holds no secrets of its own beyond OpenMLS's
/// in-memory group; every operation takes the client that owns it.
pub struct Group {
    inner: MlsGroup,
}

impl core::fmt::Debug for Group {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Group")
            .field("epoch", &self.inner.epoch().as_u64())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A new client with a fresh Ed25519 MLS signature key and a basic
    /// credential holding `identity`.
    ///
    /// # Errors
    /// [`GroupError::InvalidArgument`] for an empty identity or one longer
    /// than [`MAX_IDENTITY_LEN`]; [`GroupError::RandomnessUnavailable`].
    pub fn new(identity: &[u8]) -> Result<Self, GroupError> {
        check_identity(identity)?;
        let mut seed = Zeroizing::new([0u8; 32]);
        getrandom::fill(seed.as_mut()).map_err(|_| GroupError::RandomnessUnavailable)?;
        Self::from_parts(identity.to_vec(), &seed, std::collections::HashMap::new())
    }

    /// A new client whose credential is certified by a keystore identity
    /// ([`credential`]): `enc_id` is the identity's `Enc(ID)` and
    /// `ed25519_seed` its Ed25519 seed, which signs the certificate of the
    /// client's fresh MLS signature key and is not kept. Such a client
    /// requires a certified credential of every member.
    ///
    /// # Errors
    /// [`GroupError::InvalidArgument`] if `enc_id` is not a canonical
    /// identity encoding with the ML-DSA-65 key or the seed is not its
    /// Ed25519 key's; [`GroupError::RandomnessUnavailable`].
    pub fn new_certified(enc_id: &[u8], ed25519_seed: &[u8]) -> Result<Self, GroupError> {
        let mut seed = Zeroizing::new([0u8; 32]);
        getrandom::fill(seed.as_mut()).map_err(|_| GroupError::RandomnessUnavailable)?;
        let key = SigningKey::from_bytes(&seed).verifying_key().to_bytes();
        let identity = credential::issue(enc_id, ed25519_seed, &key)?;
        Self::from_parts(identity, &seed, std::collections::HashMap::new())
    }

    /// Whether this client's own credential is certified, and so requires a
    /// certified credential of every member ([`credential`]).
    #[must_use]
    pub fn requires_certified(&self) -> bool {
        credential::is_certified(&self.identity)
    }

    /// With [`Client::requires_certified`]: checks a leaf's credential.
    fn check_credential(
        &self,
        credential: &openmls::credentials::Credential,
        signature_key: &[u8],
    ) -> Result<(), GroupError> {
        if self.requires_certified() {
            credential::check_leaf(&identity_of(credential), signature_key)?;
        }
        Ok(())
    }

    fn from_parts(
        identity: Vec<u8>,
        seed: &[u8; 32],
        values: std::collections::HashMap<Vec<u8>, Vec<u8>>,
    ) -> Result<Self, GroupError> {
        Ok(Self {
            provider: Provider::new(values)?,
            signer: MlsSigner(SigningKey::from_bytes(seed)),
            identity,
        })
    }

    /// The credential identity.
    #[must_use]
    pub fn identity(&self) -> &[u8] {
        &self.identity
    }

    /// The Ed25519 MLS signature public key.
    #[must_use]
    pub fn signature_key(&self) -> [u8; 32] {
        self.signer.0.verifying_key().to_bytes()
    }

    fn credential(&self) -> CredentialWithKey {
        CredentialWithKey {
            credential: BasicCredential::new(self.identity.clone()).into(),
            signature_key: self.signature_key().to_vec().into(),
        }
    }

    /// A new key package for `suite` (an `MLSMessage`); its private keys stay
    /// in this client's state until a welcome consumes them (a last-resort
    /// package is not consumed).
    ///
    /// # Errors
    /// [`GroupError::Internal`] if OpenMLS fails.
    pub fn create_key_package(
        &self,
        suite: Suite,
        last_resort: bool,
    ) -> Result<Vec<u8>, GroupError> {
        let mut builder = KeyPackage::builder();
        if last_resort {
            builder = builder.mark_as_last_resort();
        }
        let bundle = builder
            .build(suite.mls(), &self.provider, &self.signer, self.credential())
            .map_err(|_| GroupError::Internal)?;
        encode(&MlsMessageOut::from(bundle.key_package().clone()))
    }

    /// A new group with this client as its only member.
    ///
    /// # Errors
    /// [`GroupError::Internal`] if OpenMLS fails.
    pub fn create_group(&self, suite: Suite) -> Result<Group, GroupError> {
        let config = MlsGroupCreateConfig::builder()
            .ciphersuite(suite.mls())
            .use_ratchet_tree_extension(true)
            .wire_format_policy(MIXED_CIPHERTEXT_WIRE_FORMAT_POLICY)
            .build();
        let inner = MlsGroup::new(&self.provider, &self.signer, &config, self.credential())
            .map_err(|_| GroupError::Internal)?;
        Ok(Group { inner })
    }

    /// Joins a group from a welcome (an `MLSMessage` carrying the ratchet
    /// tree extension), consuming the key package it was made for.
    ///
    /// # Errors
    /// [`GroupError::Malformed`] if the bytes are not a welcome;
    /// [`GroupError::NoMatchingKeyPackage`] if no key package of this client
    /// matches (or it was consumed); [`GroupError::InvalidCommit`] for a
    /// welcome that does not validate; [`GroupError::UnsupportedSuite`].
    pub fn join(&self, welcome: &[u8]) -> Result<Group, GroupError> {
        let MlsMessageBodyIn::Welcome(welcome) = decode(welcome)?.extract() else {
            return Err(GroupError::Malformed("welcome: not a welcome message"));
        };
        Suite::of(welcome.ciphersuite())?;
        let config = MlsGroupJoinConfig::builder()
            .use_ratchet_tree_extension(true)
            .wire_format_policy(MIXED_CIPHERTEXT_WIRE_FORMAT_POLICY)
            .build();
        let inner = self.provider.undoable(|| {
            let staged = StagedWelcome::new_from_welcome(&self.provider, &config, welcome, None)
                .map_err(map_welcome)?;
            for m in staged.members() {
                self.check_credential(&m.credential, &m.signature_key)?;
            }
            staged.into_group(&self.provider).map_err(map_welcome)
        })?;
        Ok(Group { inner })
    }

    /// Loads a group of this client by id.
    ///
    /// # Errors
    /// [`GroupError::NotAMember`] if the client holds no such group.
    pub fn load_group(&self, group_id: &[u8]) -> Result<Group, GroupError> {
        let id = openmls::group::GroupId::from_slice(group_id);
        match MlsGroup::load(self.provider.storage(), &id) {
            Ok(Some(inner)) => Ok(Group { inner }),
            Ok(None) => Err(GroupError::NotAMember),
            Err(_) => Err(GroupError::Internal),
        }
    }

    /// Deletes a group from this client's state.
    ///
    /// # Errors
    /// [`GroupError::NotAMember`] if the client holds no such group.
    pub fn delete_group(&self, group_id: &[u8]) -> Result<(), GroupError> {
        let mut group = self.load_group(group_id)?;
        group
            .inner
            .delete(self.provider.storage())
            .map_err(|_| GroupError::Internal)
    }

    /// The whole client as one canonical byte string (format in
    /// `docs/GROUPS.md#client-state`): signature key seed, identity and
    /// OpenMLS's storage. Secret: the keystore worker seals it.
    #[must_use]
    pub fn export_state(&self) -> Zeroizing<Vec<u8>> {
        self.encode_state(&self.provider.storage.values)
    }

    /// The state codec over this client's seed, identity and `records`.
    fn encode_state(
        &self,
        records: &std::sync::RwLock<std::collections::HashMap<Vec<u8>, Vec<u8>>>,
    ) -> Zeroizing<Vec<u8>> {
        let values = match records.read() {
            Ok(v) => v,
            Err(poisoned) => poisoned.into_inner(),
        };
        state::encode(&self.signer.0.to_bytes(), &self.identity, &values)
    }

    /// Test builds only: [`Client::export_state`]'s layout with the records'
    /// serde_json mirror as values (`storage.rs`, `Store::json`): the records
    /// written since the mirror was turned on.
    #[cfg(feature = "group-testing")]
    #[must_use]
    pub fn export_state_json_for_testing(&self) -> Zeroizing<Vec<u8>> {
        self.encode_state(&self.provider.storage.json)
    }

    /// Test builds only: turns the storage's serde_json mirror on or off for
    /// every client of this module.
    #[cfg(feature = "group-testing")]
    pub fn set_json_mirror_for_testing(on: bool) {
        storage::json_mirror::ON.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// A client from [`Client::export_state`]'s bytes.
    ///
    /// # Errors
    /// [`GroupError::Malformed`] for bytes that are not a canonical state.
    pub fn import_state(bytes: &[u8]) -> Result<Self, GroupError> {
        let decoded = state::decode(bytes)?;
        check_identity(&decoded.identity).map_err(|_| GroupError::Malformed("state: identity"))?;
        Self::from_parts(decoded.identity, &decoded.seed, decoded.values)
    }
}

impl Group {
    /// The group's id.
    #[must_use]
    pub fn id(&self) -> Vec<u8> {
        self.inner.group_id().as_slice().to_vec()
    }

    /// Suite, epoch, members and state.
    ///
    /// # Errors
    /// [`GroupError::UnsupportedSuite`] if the stored group uses another suite.
    pub fn info(&self) -> Result<GroupInfo, GroupError> {
        Ok(GroupInfo {
            group_id: self.id(),
            suite: Suite::of(self.inner.ciphersuite())?,
            epoch: self.inner.epoch().as_u64(),
            own_index: self.inner.own_leaf_index().u32(),
            members: self.members(),
            commit_pending: self.inner.pending_commit().is_some(),
            active: self.inner.is_active(),
        })
    }

    /// Every member, by leaf index.
    #[must_use]
    pub fn members(&self) -> Vec<MemberInfo> {
        self.inner
            .members()
            .map(|m| MemberInfo {
                index: m.index.u32(),
                identity: identity_of(&m.credential),
                signature_key: m.signature_key,
            })
            .collect()
    }

    fn ensure_operational(&self) -> Result<(), GroupError> {
        if !self.inner.is_active() {
            return Err(GroupError::NotAMember);
        }
        if self.inner.pending_commit().is_some() {
            return Err(GroupError::CommitPending);
        }
        Ok(())
    }

    /// A commit adding the members of `key_packages` (each an `MLSMessage`),
    /// with a welcome for them; pending until [`Group::merge_pending`].
    ///
    /// # Errors
    /// [`GroupError::InvalidArgument`] for none or more than [`MAX_ADD`];
    /// [`GroupError::Malformed`] / [`GroupError::InvalidKeyPackage`] for a
    /// key package that does not parse or validate; [`GroupError::CommitPending`].
    pub fn add(
        &mut self,
        client: &Client,
        key_packages: &[&[u8]],
    ) -> Result<CommitOutput, GroupError> {
        self.ensure_operational()?;
        if key_packages.is_empty() || key_packages.len() > MAX_ADD {
            return Err(GroupError::InvalidArgument("key packages: 1 to 1000"));
        }
        let suite = self.inner.ciphersuite();
        let mut packages = Vec::with_capacity(key_packages.len());
        for bytes in key_packages {
            let package = validate_key_package(client, bytes)?;
            if package.ciphersuite() != suite {
                return Err(GroupError::InvalidKeyPackage(
                    "another ciphersuite than the group's",
                ));
            }
            if package.leaf_node().signature_key().as_slice() == client.signature_key() {
                return Err(GroupError::InvalidKeyPackage("this client's own"));
            }
            packages.push(package);
        }
        let (commit, welcome) = self.commit(
            client,
            |builder| builder.propose_adds(packages),
            GroupError::InvalidKeyPackage("refused by the commit's proposal validation"),
        )?;
        Ok(CommitOutput {
            commit,
            welcome: Some(welcome.ok_or(GroupError::Internal)?),
        })
    }

    /// A commit removing the members at `indices`; pending until
    /// [`Group::merge_pending`].
    ///
    /// # Errors
    /// [`GroupError::NotAMember`] for an index that is not a member (or this
    /// member's own); [`GroupError::CommitPending`].
    pub fn remove(&mut self, client: &Client, indices: &[u32]) -> Result<CommitOutput, GroupError> {
        self.ensure_operational()?;
        if indices.is_empty() || indices.len() > MAX_ADD {
            return Err(GroupError::InvalidArgument("indices: 1 to 1000"));
        }
        let own = self.inner.own_leaf_index().u32();
        let mut leaves = Vec::with_capacity(indices.len());
        for &i in indices {
            if i == own || self.inner.member_at(LeafNodeIndex::new(i)).is_none() {
                return Err(GroupError::NotAMember);
            }
            leaves.push(LeafNodeIndex::new(i));
        }
        let (commit, welcome) = self.commit(
            client,
            |builder| builder.propose_removals(leaves),
            GroupError::Internal,
        )?;
        Ok(CommitOutput { commit, welcome })
    }

    /// A commit with a fresh leaf and path (post-compromise security);
    /// pending until [`Group::merge_pending`].
    ///
    /// # Errors
    /// [`GroupError::CommitPending`], [`GroupError::NotAMember`].
    pub fn update(&mut self, client: &Client) -> Result<CommitOutput, GroupError> {
        self.ensure_operational()?;
        let (commit, _) = self.commit(
            client,
            |builder| builder.leaf_node_parameters(LeafNodeParameters::default()),
            GroupError::Internal,
        )?;
        Ok(CommitOutput {
            commit,
            welcome: None,
        })
    }

    /// Builds, signs and stages (pending) a commit of this member: what
    /// OpenMLS's `add_members_without_update` / `remove_members` /
    /// `self_update` do, less the exported `GroupInfo` they also make whenever
    /// the ratchet tree extension is on. That one is signed over the whole
    /// tree and carries an external-commit key (an HPKE key pair derived for
    /// it: an X-Wing key generation in 0x004D); nothing here publishes it, and
    /// a Welcome carries its own signed `GroupInfo` (docs/GROUPS.md,
    /// Benchmarks: "No exported GroupInfo on commits").
    ///
    /// Returns the commit and, when it adds members, the Welcome (both
    /// `MLSMessage`s). A commit OpenMLS refuses to build is `refused`; a
    /// failure staging it is [`GroupError::Internal`].
    fn commit(
        &mut self,
        client: &Client,
        propose: impl for<'g> FnOnce(CommitBuilder<'g, Initial>) -> CommitBuilder<'g, Initial>,
        refused: GroupError,
    ) -> Result<(Vec<u8>, Option<Vec<u8>>), GroupError> {
        // OpenMLS clears the additional data after every operation; a commit's is empty.
        self.inner.set_aad(Vec::new());
        let bundle = propose(self.inner.commit_builder())
            .load_psks(client.provider.storage())
            .map_err(|_| GroupError::Internal)?
            .create_group_info(false)
            .build(
                client.provider.rand(),
                client.provider.crypto(),
                &client.signer,
                |_| true,
            )
            .map_err(|_| refused)?
            .stage_commit(&client.provider)
            .map_err(|_| GroupError::Internal)?;
        let welcome = bundle.to_welcome_msg().map(|w| encode(&w)).transpose()?;
        Ok((encode(bundle.commit())?, welcome))
    }

    /// Merges this member's pending commit (the delivery service accepted it).
    ///
    /// # Errors
    /// [`GroupError::NoPendingCommit`].
    pub fn merge_pending(&mut self, client: &Client) -> Result<(), GroupError> {
        if self.inner.pending_commit().is_none() {
            return Err(GroupError::NoPendingCommit);
        }
        self.inner
            .merge_pending_commit(&client.provider)
            .map_err(|_| GroupError::Internal)
    }

    /// Discards this member's pending commit (another commit won the epoch).
    ///
    /// # Errors
    /// [`GroupError::NoPendingCommit`].
    pub fn discard_pending(&mut self, client: &Client) -> Result<(), GroupError> {
        if self.inner.pending_commit().is_none() {
            return Err(GroupError::NoPendingCommit);
        }
        self.inner
            .clear_pending_commit(client.provider.storage())
            .map_err(|_| GroupError::Internal)
    }

    /// Encrypts an application message (a `PrivateMessage` in an `MLSMessage`).
    ///
    /// # Errors
    /// [`GroupError::CommitPending`] while a commit of this member is pending;
    /// [`GroupError::NotAMember`] once removed.
    pub fn encrypt(
        &mut self,
        client: &Client,
        plaintext: &[u8],
        aad: &[u8],
    ) -> Result<Vec<u8>, GroupError> {
        self.ensure_operational()?;
        self.inner.set_aad(aad.to_vec());
        let message = self
            .inner
            .create_message(&client.provider, &client.signer, plaintext)
            .map_err(|_| GroupError::Internal)?;
        encode(&message)
    }

    /// Processes a message from the delivery service. A commit is merged
    /// before this returns (a pending commit of this member for the same
    /// epoch is discarded first: the delivery service's order decides). On
    /// any error the client's state is exactly as before the call.
    ///
    /// # Errors
    /// [`GroupError::Malformed`], [`GroupError::WrongGroup`],
    /// [`GroupError::WrongEpoch`], [`GroupError::AuthenticationFailed`],
    /// [`GroupError::DuplicateMessage`], [`GroupError::InvalidCommit`],
    /// [`GroupError::NotAMember`].
    pub fn receive(&mut self, client: &Client, bytes: &[u8]) -> Result<Received, GroupError> {
        let message: ProtocolMessage = decode(bytes)?
            .try_into_protocol_message()
            .map_err(|_| GroupError::Malformed("message: not a PublicMessage or PrivateMessage"))?;
        if message.group_id() != self.inner.group_id() {
            return Err(GroupError::WrongGroup);
        }
        if !self.inner.is_active() {
            return Err(GroupError::NotAMember);
        }
        // A handshake message can fail after OpenMLS wrote part of its effect (a pending
        // commit discarded, a staged commit half merged): every record it changed is put back
        // (`Provider::undoable`). An application message's secret-tree step is applied, and
        // written, only after it decrypted and its signature verified (OpenMLS 0.9's deferred
        // `ratchet_update`), so a refused one leaves the storage as it was and only the in-memory
        // group is reloaded. The `attack_*` tests and the group_receive fuzz target check both
        // cases byte for byte.
        let received = if message.is_handshake_message() {
            client
                .provider
                .undoable(|| self.receive_inner(client, message))
        } else {
            self.receive_inner(client, message)
        };
        match received {
            Ok(received) => Ok(received),
            Err(e) => {
                let id = self.inner.group_id().clone();
                self.inner = MlsGroup::load(client.provider.storage(), &id)
                    .ok()
                    .flatten()
                    .ok_or(GroupError::Internal)?;
                Err(e)
            }
        }
    }

    fn receive_inner(
        &mut self,
        client: &Client,
        message: ProtocolMessage,
    ) -> Result<Received, GroupError> {
        let mut discarded_own = false;
        if self.inner.pending_commit().is_some()
            && message.is_handshake_message()
            && message.epoch() == self.inner.epoch()
        {
            self.inner
                .clear_pending_commit(client.provider.storage())
                .map_err(|_| GroupError::Internal)?;
            discarded_own = true;
        }
        let past = message.epoch() < self.inner.epoch();
        let processed = self
            .inner
            .process_message(&client.provider, message)
            .map_err(|e| past_epoch(map_process(e), past))?;
        let sender = match processed.sender() {
            Sender::Member(i) => Some(i.u32()),
            _ => None,
        };
        let aad = processed.aad().to_vec();
        let sender_identity = identity_of(processed.credential());
        match processed.into_content() {
            ProcessedMessageContent::ApplicationMessage(app) => Ok(Received::Application {
                sender: sender.ok_or(GroupError::AuthenticationFailed)?,
                sender_identity,
                bytes: Zeroizing::new(app.into_bytes()),
                aad,
            }),
            ProcessedMessageContent::StagedCommitMessage(staged) => {
                self.check_commit_credentials(client, &staged, sender)?;
                let added = staged
                    .add_proposals()
                    .map(|p| identity_of(p.add_proposal().key_package().leaf_node().credential()))
                    .collect();
                let removed = staged
                    .remove_proposals()
                    .map(|p| p.remove_proposal().removed().u32())
                    .collect();
                let removed_self = staged.self_removed();
                self.inner
                    .merge_staged_commit(&client.provider, *staged)
                    .map_err(|_| GroupError::Internal)?;
                Ok(Received::Commit {
                    sender,
                    epoch: self.inner.epoch().as_u64(),
                    added,
                    removed,
                    removed_self,
                    discarded_own,
                })
            }
            ProcessedMessageContent::ProposalMessage(proposal) => {
                self.inner
                    .store_pending_proposal(client.provider.storage(), *proposal)
                    .map_err(|_| GroupError::Internal)?;
                Ok(Received::Proposal { sender })
            }
            ProcessedMessageContent::ExternalJoinProposalMessage(_) => Err(
                GroupError::InvalidCommit("external join proposals are not accepted"),
            ),
            // A message whose (unauthenticated) sender data names this member: the delivery
            // service fanned one of this member's own messages back. Nothing changes.
            ProcessedMessageContent::OwnPrivateMessage
            | ProcessedMessageContent::OwnPendingCommit => Err(GroupError::DuplicateMessage),
        }
    }
}

impl Group {
    /// With [`Client::requires_certified`]: every leaf a commit adds or
    /// changes has a certified credential, and a changed leaf keeps its
    /// member's `Enc(ID)`.
    fn check_commit_credentials(
        &self,
        client: &Client,
        staged: &openmls::group::StagedCommit,
        committer: Option<u32>,
    ) -> Result<(), GroupError> {
        if !client.requires_certified() {
            return Ok(());
        }
        for p in staged.add_proposals() {
            let leaf = p.add_proposal().key_package().leaf_node();
            credential::check_leaf(
                &identity_of(leaf.credential()),
                leaf.signature_key().as_slice(),
            )?;
        }
        // A changed leaf: certified, and still its member's Enc(ID).
        let check_changed = |index: LeafNodeIndex, leaf: &openmls::prelude::LeafNode| {
            let new = identity_of(leaf.credential());
            credential::check_leaf(&new, leaf.signature_key().as_slice())?;
            let old = self
                .inner
                .member(index)
                .map(identity_of)
                .ok_or(GroupError::InvalidCredential)?;
            if credential::enc_id(&old) == credential::enc_id(&new) {
                Ok(())
            } else {
                Err(GroupError::InvalidCredential)
            }
        };
        for p in staged.update_proposals() {
            if let Sender::Member(i) = p.sender() {
                check_changed(*i, p.update_proposal().leaf_node())?;
            }
        }
        if let (Some(leaf), Some(i)) = (staged.update_path_leaf_node(), committer) {
            check_changed(LeafNodeIndex::new(i), leaf)?;
        }
        Ok(())
    }
}

fn check_identity(identity: &[u8]) -> Result<(), GroupError> {
    if identity.is_empty() || identity.len() > MAX_IDENTITY_LEN {
        return Err(GroupError::InvalidArgument("identity: 1 to 4096 bytes"));
    }
    Ok(())
}

fn identity_of(credential: &openmls::credentials::Credential) -> Vec<u8> {
    BasicCredential::try_from(credential.clone())
        .map(|b| b.identity().to_vec())
        .unwrap_or_default()
}

fn encode(message: &MlsMessageOut) -> Result<Vec<u8>, GroupError> {
    message
        .tls_serialize_detached()
        .map_err(|_| GroupError::Internal)
}

fn decode(bytes: &[u8]) -> Result<MlsMessageIn, GroupError> {
    if bytes.len() > MAX_MESSAGE_LEN {
        return Err(GroupError::Malformed("message: longer than 16 MiB"));
    }
    MlsMessageIn::tls_deserialize_exact(bytes).map_err(|_| GroupError::Malformed("MLSMessage"))
}

fn validate_key_package(client: &Client, bytes: &[u8]) -> Result<KeyPackage, GroupError> {
    let MlsMessageBodyIn::KeyPackage(package) = decode(bytes)?.extract() else {
        return Err(GroupError::Malformed(
            "key package: not a key package message",
        ));
    };
    let package: KeyPackageIn = package;
    let package = package
        .validate(client.provider.crypto(), ProtocolVersion::Mls10)
        .map_err(|_| GroupError::InvalidKeyPackage("signature, lifetime or leaf node"))?;
    Suite::of(package.ciphersuite())?;
    let leaf = package.leaf_node();
    client.check_credential(leaf.credential(), leaf.signature_key().as_slice())?;
    Ok(package)
}

/// OpenMLS reports an application message of a past epoch whose secrets are not kept with the
/// same error as a generation deleted within an epoch (`TooDistantInThePast`). veilkit keeps no
/// past epochs (docs/GROUPS.md), so a message of a past epoch is `WrongEpoch`, as a past commit is;
/// `DuplicateMessage` stays for the current epoch (a replay, one's own message fanned back).
fn past_epoch(e: GroupError, past: bool) -> GroupError {
    match e {
        GroupError::DuplicateMessage if past => GroupError::WrongEpoch,
        e => e,
    }
}

fn map_process<E>(e: ProcessMessageError<E>) -> GroupError {
    match e {
        ProcessMessageError::ValidationError(v) => match v {
            ValidationError::WrongGroupId => GroupError::WrongGroup,
            ValidationError::WrongEpoch | ValidationError::NoPastEpochData => {
                GroupError::WrongEpoch
            }
            ValidationError::UnableToDecrypt(MessageDecryptionError::SecretTreeError(
                SecretTreeError::SecretReuseError | SecretTreeError::TooDistantInThePast,
            )) => GroupError::DuplicateMessage,
            ValidationError::UnknownMember | ValidationError::NonMemberApplicationMessage => {
                GroupError::NotAMember
            }
            ValidationError::UnableToDecrypt(_)
            | ValidationError::InvalidSignature
            | ValidationError::InvalidMembershipTag
            | ValidationError::MissingMembershipTag
            | ValidationError::MissingConfirmationTag => GroupError::AuthenticationFailed,
            ValidationError::LibraryError(_) => GroupError::Internal,
            _ => GroupError::InvalidCommit("the message fails validation"),
        },
        ProcessMessageError::InvalidCommit(c) => match c {
            openmls::group::StageCommitError::ConfirmationTagMismatch => {
                GroupError::AuthenticationFailed
            }
            openmls::group::StageCommitError::EpochMismatch => GroupError::WrongEpoch,
            _ => GroupError::InvalidCommit("the commit fails validation"),
        },
        ProcessMessageError::IncompatibleWireFormat => GroupError::InvalidCommit("wire format"),
        ProcessMessageError::GroupStateError(_) => GroupError::NotAMember,
        _ => GroupError::Internal,
    }
}

fn map_welcome<E>(e: openmls::group::WelcomeError<E>) -> GroupError {
    use openmls::group::WelcomeError as W;
    match e {
        W::NoMatchingKeyPackage | W::NoMatchingEncryptionKey | W::PrivateInitKeyNotFound => {
            GroupError::NoMatchingKeyPackage
        }
        W::UnsupportedCiphersuite(cs) => GroupError::UnsupportedSuite(u16::from(cs)),
        W::ConfirmationTagMismatch | W::InvalidGroupInfoSignature | W::UnableToDecrypt => {
            GroupError::AuthenticationFailed
        }
        W::MalformedWelcomeMessage | W::NotAWelcomeMessage => GroupError::Malformed("welcome"),
        W::LibraryError(_) | W::StorageError(_) => GroupError::Internal,
        _ => GroupError::InvalidCommit("the welcome fails validation"),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

    /// An identity's `Enc(ID)` and Ed25519 seed.
    fn identity() -> (Vec<u8>, Vec<u8>) {
        let ed = crate::ed25519::ed25519_generate().unwrap();
        let dsa = crate::mldsa::mldsa_generate().unwrap();
        let x = crate::x25519::x25519_generate().unwrap();
        let enc = crate::messaging::verification::encode_identity(
            &ed.public,
            Some(&dsa.public),
            &x.public,
        )
        .unwrap();
        (enc, ed.secret[..32].to_vec())
    }

    fn certified() -> Client {
        let (enc, seed) = identity();
        Client::new_certified(&enc, &seed).unwrap()
    }

    /// A member rotates its MLS signature key in an update commit, with a
    /// credential for the new key certified by `(enc, seed)`.
    fn rotate(group: &mut Group, client: &Client, enc: &[u8], seed: &[u8]) -> Vec<u8> {
        let new = MlsSigner(SigningKey::from_bytes(&[7u8; 32]));
        let key = new.0.verifying_key().to_bytes();
        let credential_with_key = CredentialWithKey {
            credential: BasicCredential::new(credential::issue(enc, seed, &key).unwrap()).into(),
            signature_key: key.to_vec().into(),
        };
        let bundle = group
            .inner
            .self_update_with_new_signer(
                &client.provider,
                &client.signer,
                openmls::credentials::NewSignerBundle {
                    signer: &new,
                    credential_with_key,
                },
                LeafNodeParameters::default(),
            )
            .unwrap();
        encode(bundle.commit()).unwrap()
    }

    /// A member may rotate its MLS signature key under its own identity, but a
    /// leaf that takes on another identity (even one certified by that
    /// identity's owner) is refused, and nothing changes.
    #[test]
    fn attack_a_leaf_cannot_change_its_identity() {
        let suite = Suite::Classic;
        let (alice_enc, alice_seed) = identity();
        let (mallory_enc, mallory_seed) = identity();
        let alice = Client::new_certified(&alice_enc, &alice_seed).unwrap();
        let bob = certified();
        let mut ga = alice.create_group(suite).unwrap();
        let kp = bob.create_key_package(suite, false).unwrap();
        let out = ga.add(&alice, &[kp.as_slice()]).unwrap();
        ga.merge_pending(&alice).unwrap();
        let mut gb = bob.join(out.welcome.as_deref().unwrap()).unwrap();

        let swap = rotate(&mut ga, &alice, &mallory_enc, &mallory_seed);
        let before = bob.export_state();
        assert_eq!(
            gb.receive(&bob, &swap).unwrap_err(),
            GroupError::InvalidCredential
        );
        assert_eq!(*bob.export_state(), *before);

        ga.discard_pending(&alice).unwrap();
        let rotation = rotate(&mut ga, &alice, &alice_enc, &alice_seed);
        assert!(matches!(
            gb.receive(&bob, &rotation).unwrap(),
            Received::Commit { .. }
        ));
        assert_eq!(gb.info().unwrap().epoch, 2);
    }

    /// Post-compromise security: `update` (built on OpenMLS's commit builder,
    /// `Group::commit`) carries a path, so the committer's leaf gets a new
    /// encryption key, which the other member installs; `remove` too.
    #[test]
    fn update_and_remove_commits_carry_a_new_leaf_key() {
        for suite in [Suite::Classic, Suite::XWing] {
            let alice = certified();
            let bob = certified();
            let carol = certified();
            let mut ga = alice.create_group(suite).unwrap();
            let kps = [
                bob.create_key_package(suite, false).unwrap(),
                carol.create_key_package(suite, false).unwrap(),
            ];
            let out = ga
                .add(&alice, &[kps[0].as_slice(), kps[1].as_slice()])
                .unwrap();
            ga.merge_pending(&alice).unwrap();
            let mut gb = bob.join(out.welcome.as_deref().unwrap()).unwrap();
            let leaf_key = |g: &Group, i: u32| {
                g.inner
                    .public_group()
                    .leaf(LeafNodeIndex::new(i))
                    .map(|l| l.encryption_key().clone())
            };
            let before = leaf_key(&ga, 0).unwrap();
            let up = ga.update(&alice).unwrap();
            ga.merge_pending(&alice).unwrap();
            gb.receive(&bob, &up.commit).unwrap();
            let after = leaf_key(&ga, 0).unwrap();
            assert_ne!(before, after, "{suite:?}: update");
            assert_eq!(
                leaf_key(&gb, 0).unwrap(),
                after,
                "{suite:?}: bob installs it"
            );
            let rm = ga.remove(&alice, &[2]).unwrap();
            ga.merge_pending(&alice).unwrap();
            gb.receive(&bob, &rm.commit).unwrap();
            assert_ne!(leaf_key(&ga, 0).unwrap(), after, "{suite:?}: remove");
            assert_eq!(leaf_key(&gb, 0), leaf_key(&ga, 0));
        }
    }

    /// A committer that skips the credential check (a modified client) adds an
    /// uncertified member: a certified member refuses the commit and its state
    /// does not change.
    #[test]
    fn attack_a_commit_adding_an_uncertified_member_is_refused() {
        let suite = Suite::Classic;
        let (alice, bob) = (certified(), certified());
        let mut ga = alice.create_group(suite).unwrap();
        let kp = bob.create_key_package(suite, false).unwrap();
        let out = ga.add(&alice, &[kp.as_slice()]).unwrap();
        ga.merge_pending(&alice).unwrap();
        let mut gb = bob.join(out.welcome.as_deref().unwrap()).unwrap();

        let plain = Client::new(b"mallory").unwrap();
        let MlsMessageBodyIn::KeyPackage(kp) =
            decode(&plain.create_key_package(suite, false).unwrap())
                .unwrap()
                .extract()
        else {
            panic!("a key package")
        };
        let kp = kp
            .validate(alice.provider.crypto(), ProtocolVersion::Mls10)
            .unwrap();
        let (commit, _, _) = ga
            .inner
            .add_members(&alice.provider, &alice.signer, &[kp])
            .unwrap();
        let before = bob.export_state();
        assert_eq!(
            gb.receive(&bob, &encode(&commit).unwrap()).unwrap_err(),
            GroupError::InvalidCredential
        );
        assert_eq!(*bob.export_state(), *before);
        assert_eq!(gb.info().unwrap().epoch, 1);
    }
}
