//! OpenMLS's storage for one client: a key-value map in memory whose records
//! are postcard, not JSON.
//!
//! OpenMLS hands its storage provider serde values (the ratchet tree, the
//! group context, the secret tree, key pairs, …) and asks for them back.
//! `openmls_memory_storage` writes each as serde_json text, where a byte
//! string becomes an array of decimal numbers: serializing the ratchet tree
//! after a commit (an X-Wing tree holds a 1,216-byte key per node) was about a
//! third of processing that commit. Here every record is
//! [postcard](https://docs.rs/postcard) (bytes as bytes, integers as varints),
//! which serializes and parses several times faster and keeps the client state
//! about a quarter of the size (one X-Wing group of 10: 91 → 24 KiB).
//!
//! One record is the exception: the group's `MlsGroupJoinConfig` stays
//! serde_json. Its `PastEpochDeletionPolicy` reads through an untagged enum
//! (OpenMLS accepts two historical forms), which only a self-describing format
//! can parse. It is written once per group and is small.
//!
//! Keys are `tag (1 byte) || postcard(key)`: one tag per kind of record, so no
//! two kinds can produce the same key. `docs/GROUPS.md#client-state` lists the
//! tags and what each record holds.

use openmls_traits::storage::{StorageProvider, traits};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::sync::RwLock;

/// The storage version of OpenMLS 0.9 (`openmls_traits::storage::CURRENT_VERSION`).
pub(crate) const VERSION: u16 = 1;

// One tag per kind of record (the first byte of its key).
const JOIN_CONFIG: u8 = 1;
const OWN_LEAF_NODES: u8 = 2;
const PROPOSAL: u8 = 3;
const PROPOSAL_REFS: u8 = 4;
const TREE: u8 = 5;
const INTERIM_TRANSCRIPT_HASH: u8 = 6;
const CONTEXT: u8 = 7;
const CONFIRMATION_TAG: u8 = 8;
const GROUP_STATE: u8 = 9;
const MESSAGE_SECRETS: u8 = 10;
const RESUMPTION_PSK_STORE: u8 = 11;
const OWN_LEAF_INDEX: u8 = 12;
const EPOCH_SECRETS: u8 = 13;
const SIGNATURE_KEY_PAIR: u8 = 14;
const ENCRYPTION_KEY_PAIR: u8 = 15;
const EPOCH_KEY_PAIRS: u8 = 16;
const KEY_PACKAGE: u8 = 17;
const PSK: u8 = 18;

/// Why the storage failed: a record that does not encode or decode, or a
/// poisoned lock. OpenMLS turns it into its own storage error; the group
/// code reports that as `Internal` (the state is sealed by the keystore, so a
/// record that does not parse is not something an attacker can supply).
#[derive(Debug)]
pub struct StoreError(&'static str);

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "group storage: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

type R<T> = Result<T, StoreError>;

const POISONED: StoreError = StoreError("lock poisoned");

/// Keys an undoable operation changed, with their records before (`None`: absent).
type Undo = HashMap<Vec<u8>, Option<Vec<u8>>>;

/// Sets (`Some`) or deletes (`None`) the record at `key`; returns the record it replaced.
fn apply(
    values: &mut HashMap<Vec<u8>, Vec<u8>>,
    key: Vec<u8>,
    value: Option<Vec<u8>>,
) -> Option<Vec<u8>> {
    match value {
        Some(value) => values.insert(key, value),
        None => values.remove(&key),
    }
}

/// The records of one client (see the module documentation).
pub(crate) struct Store {
    pub(crate) values: RwLock<HashMap<Vec<u8>, Vec<u8>>>,
    /// While an operation may have to be undone ([`Store::begin`]): every key it changed, with the
    /// record it had before its first change (`None`: it had none). Undoing an operation restores
    /// only what it touched; copying the whole client first (every group it is in) cost a fifth of
    /// processing a commit for a member of one group of 10, and grew with each further group.
    undo: RwLock<Option<Undo>>,
    /// Test builds only (feature `group-testing`), filled while
    /// [`json_mirror::ON`]: every record written also as serde_json, under the
    /// same key, so the zeroization scan can tell which bytes of a state are
    /// secrets (postcard does not name its fields). Records imported with a
    /// state are not in it, nor is it rolled back when an operation fails.
    #[cfg(feature = "group-testing")]
    pub(crate) json: RwLock<HashMap<Vec<u8>, Vec<u8>>>,
}

/// The switch of [`Store::json`] (test builds only; off unless a test turns it on).
#[cfg(feature = "group-testing")]
pub(crate) mod json_mirror {
    pub(crate) static ON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
}

fn encode(value: &(impl Serialize + ?Sized)) -> R<Vec<u8>> {
    postcard::to_allocvec(value).map_err(|_| StoreError("a record does not encode"))
}

fn decode<V: DeserializeOwned>(bytes: &[u8]) -> R<V> {
    postcard::from_bytes(bytes).map_err(|_| StoreError("a record does not decode"))
}

fn key(tag: u8, key: &impl Serialize) -> R<Vec<u8>> {
    postcard::to_extend(key, vec![tag]).map_err(|_| StoreError("a key does not encode"))
}

impl Store {
    pub(crate) fn new(values: HashMap<Vec<u8>, Vec<u8>>) -> Self {
        Self {
            values: RwLock::new(values),
            undo: RwLock::new(None),
            #[cfg(feature = "group-testing")]
            json: RwLock::new(HashMap::new()),
        }
    }

    #[cfg(feature = "group-testing")]
    fn mirror(&self, key: &[u8], json: Option<Vec<u8>>) -> R<()> {
        if !json_mirror::ON.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(());
        }
        let mut mirror = self.json.write().map_err(|_| POISONED)?;
        match json {
            Some(json) => mirror.insert(key.to_vec(), json),
            None => mirror.remove(key),
        };
        Ok(())
    }

    /// Sets (`Some`) or deletes (`None`) the record at `key`, noting what it replaced while an
    /// undoable operation runs.
    fn write(&self, key: Vec<u8>, value: Option<Vec<u8>>) -> R<()> {
        let mut values = self.values.write().map_err(|_| POISONED)?;
        let mut undo = self.undo.write().map_err(|_| POISONED)?;
        match undo.as_mut() {
            Some(undo) => {
                let before = apply(&mut values, key.clone(), value);
                undo.entry(key).or_insert(before);
            }
            None => {
                apply(&mut values, key, value);
            }
        }
        Ok(())
    }

    /// Starts an operation [`Store::rollback`] can undo (one at a time).
    pub(crate) fn begin(&self) -> R<()> {
        let mut undo = self.undo.write().map_err(|_| POISONED)?;
        if undo.is_some() {
            return Err(StoreError("an undoable operation is already running"));
        }
        *undo = Some(HashMap::new());
        Ok(())
    }

    /// Ends the running operation, keeping its changes.
    pub(crate) fn commit(&self) -> R<()> {
        *self.undo.write().map_err(|_| POISONED)? = None;
        Ok(())
    }

    /// Ends the running operation, putting back every record it changed as it was before.
    pub(crate) fn rollback(&self) -> R<()> {
        let mut values = self.values.write().map_err(|_| POISONED)?;
        let Some(undo) = self.undo.write().map_err(|_| POISONED)?.take() else {
            return Err(StoreError("no undoable operation is running"));
        };
        for (key, before) in undo {
            apply(&mut values, key, before);
        }
        Ok(())
    }

    /// Parses the record at `key` in place, under the read lock (no copy of it first).
    fn read<T>(&self, key: &[u8], parse: impl FnOnce(&[u8]) -> R<T>) -> R<Option<T>> {
        let values = self.values.read().map_err(|_| POISONED)?;
        values.get(key).map(|bytes| parse(bytes)).transpose()
    }

    fn put(&self, tag: u8, k: &impl Serialize, value: &(impl Serialize + ?Sized)) -> R<()> {
        let k = key(tag, k)?;
        #[cfg(feature = "group-testing")]
        self.mirror(&k, serde_json::to_vec(value).ok())?;
        let value = encode(value)?;
        self.write(k, Some(value))
    }

    fn get<V: DeserializeOwned>(&self, tag: u8, k: &impl Serialize) -> R<Option<V>> {
        self.read(&key(tag, k)?, decode)
    }

    fn delete(&self, tag: u8, k: &impl Serialize) -> R<()> {
        let k = key(tag, k)?;
        #[cfg(feature = "group-testing")]
        self.mirror(&k, None)?;
        self.write(k, None)
    }

    /// A list record: the elements' encodings, in order (`Vec<Vec<u8>>`).
    fn list(&self, tag: u8, k: &impl Serialize) -> R<Vec<Vec<u8>>> {
        Ok(self.get(tag, k)?.unwrap_or_default())
    }

    fn append(&self, tag: u8, k: &impl Serialize, item: &impl Serialize) -> R<()> {
        let mut list = self.list(tag, k)?;
        list.push(encode(item)?);
        self.put(tag, k, &list)
    }

    /// Removes every element equal (as encoded) to `item`; drops an emptied list.
    fn remove_item(&self, tag: u8, k: &impl Serialize, item: &impl Serialize) -> R<()> {
        let item = encode(item)?;
        let mut list = self.list(tag, k)?;
        list.retain(|e| *e != item);
        if list.is_empty() {
            self.delete(tag, k)
        } else {
            self.put(tag, k, &list)
        }
    }

    fn decode_list<V: DeserializeOwned>(&self, tag: u8, k: &impl Serialize) -> R<Vec<V>> {
        self.list(tag, k)?.iter().map(|e| decode(e)).collect()
    }
}

impl StorageProvider<VERSION> for Store {
    type Error = StoreError;

    fn write_mls_join_config<
        GroupId: traits::GroupId<VERSION>,
        MlsGroupJoinConfig: traits::MlsGroupJoinConfig<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        config: &MlsGroupJoinConfig,
    ) -> R<()> {
        // serde_json: see the module documentation.
        let value =
            serde_json::to_vec(config).map_err(|_| StoreError("a record does not encode"))?;
        let k = key(JOIN_CONFIG, group_id)?;
        #[cfg(feature = "group-testing")]
        self.mirror(&k, Some(value.clone()))?;
        self.write(k, Some(value))
    }

    fn append_own_leaf_node<
        GroupId: traits::GroupId<VERSION>,
        LeafNode: traits::LeafNode<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        leaf_node: &LeafNode,
    ) -> R<()> {
        self.append(OWN_LEAF_NODES, group_id, leaf_node)
    }

    fn queue_proposal<
        GroupId: traits::GroupId<VERSION>,
        ProposalRef: traits::ProposalRef<VERSION>,
        QueuedProposal: traits::QueuedProposal<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        proposal_ref: &ProposalRef,
        proposal: &QueuedProposal,
    ) -> R<()> {
        self.put(PROPOSAL, &(group_id, proposal_ref), proposal)?;
        self.append(PROPOSAL_REFS, group_id, proposal_ref)
    }

    fn write_tree<GroupId: traits::GroupId<VERSION>, TreeSync: traits::TreeSync<VERSION>>(
        &self,
        group_id: &GroupId,
        tree: &TreeSync,
    ) -> R<()> {
        self.put(TREE, group_id, tree)
    }

    fn write_interim_transcript_hash<
        GroupId: traits::GroupId<VERSION>,
        InterimTranscriptHash: traits::InterimTranscriptHash<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        interim_transcript_hash: &InterimTranscriptHash,
    ) -> R<()> {
        self.put(INTERIM_TRANSCRIPT_HASH, group_id, interim_transcript_hash)
    }

    fn write_context<
        GroupId: traits::GroupId<VERSION>,
        GroupContext: traits::GroupContext<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        group_context: &GroupContext,
    ) -> R<()> {
        self.put(CONTEXT, group_id, group_context)
    }

    fn write_confirmation_tag<
        GroupId: traits::GroupId<VERSION>,
        ConfirmationTag: traits::ConfirmationTag<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        confirmation_tag: &ConfirmationTag,
    ) -> R<()> {
        self.put(CONFIRMATION_TAG, group_id, confirmation_tag)
    }

    fn write_group_state<
        GroupState: traits::GroupState<VERSION>,
        GroupId: traits::GroupId<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        group_state: &GroupState,
    ) -> R<()> {
        self.put(GROUP_STATE, group_id, group_state)
    }

    fn write_message_secrets<
        GroupId: traits::GroupId<VERSION>,
        MessageSecrets: traits::MessageSecrets<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        message_secrets: &MessageSecrets,
    ) -> R<()> {
        self.put(MESSAGE_SECRETS, group_id, message_secrets)
    }

    fn write_resumption_psk_store<
        GroupId: traits::GroupId<VERSION>,
        ResumptionPskStore: traits::ResumptionPskStore<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        resumption_psk_store: &ResumptionPskStore,
    ) -> R<()> {
        self.put(RESUMPTION_PSK_STORE, group_id, resumption_psk_store)
    }

    fn write_own_leaf_index<
        GroupId: traits::GroupId<VERSION>,
        LeafNodeIndex: traits::LeafNodeIndex<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        own_leaf_index: &LeafNodeIndex,
    ) -> R<()> {
        self.put(OWN_LEAF_INDEX, group_id, own_leaf_index)
    }

    fn write_group_epoch_secrets<
        GroupId: traits::GroupId<VERSION>,
        GroupEpochSecrets: traits::GroupEpochSecrets<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        group_epoch_secrets: &GroupEpochSecrets,
    ) -> R<()> {
        self.put(EPOCH_SECRETS, group_id, group_epoch_secrets)
    }

    fn write_signature_key_pair<
        SignaturePublicKey: traits::SignaturePublicKey<VERSION>,
        SignatureKeyPair: traits::SignatureKeyPair<VERSION>,
    >(
        &self,
        public_key: &SignaturePublicKey,
        signature_key_pair: &SignatureKeyPair,
    ) -> R<()> {
        self.put(SIGNATURE_KEY_PAIR, public_key, signature_key_pair)
    }

    fn write_encryption_key_pair<
        EncryptionKey: traits::EncryptionKey<VERSION>,
        HpkeKeyPair: traits::HpkeKeyPair<VERSION>,
    >(
        &self,
        public_key: &EncryptionKey,
        key_pair: &HpkeKeyPair,
    ) -> R<()> {
        self.put(ENCRYPTION_KEY_PAIR, public_key, key_pair)
    }

    fn write_encryption_epoch_key_pairs<
        GroupId: traits::GroupId<VERSION>,
        EpochKey: traits::EpochKey<VERSION>,
        HpkeKeyPair: traits::HpkeKeyPair<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        epoch: &EpochKey,
        leaf_index: u32,
        key_pairs: &[HpkeKeyPair],
    ) -> R<()> {
        self.put(EPOCH_KEY_PAIRS, &(group_id, epoch, leaf_index), key_pairs)
    }

    fn write_key_package<
        HashReference: traits::HashReference<VERSION>,
        KeyPackage: traits::KeyPackage<VERSION>,
    >(
        &self,
        hash_ref: &HashReference,
        key_package: &KeyPackage,
    ) -> R<()> {
        self.put(KEY_PACKAGE, hash_ref, key_package)
    }

    fn write_psk<PskId: traits::PskId<VERSION>, PskBundle: traits::PskBundle<VERSION>>(
        &self,
        psk_id: &PskId,
        psk: &PskBundle,
    ) -> R<()> {
        self.put(PSK, psk_id, psk)
    }

    fn mls_group_join_config<
        GroupId: traits::GroupId<VERSION>,
        MlsGroupJoinConfig: traits::MlsGroupJoinConfig<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Option<MlsGroupJoinConfig>> {
        self.read(&key(JOIN_CONFIG, group_id)?, |bytes| {
            serde_json::from_slice(bytes).map_err(|_| StoreError("a record does not decode"))
        })
    }

    fn own_leaf_nodes<GroupId: traits::GroupId<VERSION>, LeafNode: traits::LeafNode<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<Vec<LeafNode>> {
        self.decode_list(OWN_LEAF_NODES, group_id)
    }

    fn queued_proposal_refs<
        GroupId: traits::GroupId<VERSION>,
        ProposalRef: traits::ProposalRef<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Vec<ProposalRef>> {
        self.decode_list(PROPOSAL_REFS, group_id)
    }

    fn queued_proposals<
        GroupId: traits::GroupId<VERSION>,
        ProposalRef: traits::ProposalRef<VERSION>,
        QueuedProposal: traits::QueuedProposal<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Vec<(ProposalRef, QueuedProposal)>> {
        let refs: Vec<ProposalRef> = self.decode_list(PROPOSAL_REFS, group_id)?;
        let mut out = Vec::with_capacity(refs.len());
        for proposal_ref in refs {
            let proposal = self
                .get(PROPOSAL, &(group_id, &proposal_ref))?
                .ok_or(StoreError("a queued proposal is missing"))?;
            out.push((proposal_ref, proposal));
        }
        Ok(out)
    }

    fn tree<GroupId: traits::GroupId<VERSION>, TreeSync: traits::TreeSync<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<Option<TreeSync>> {
        self.get(TREE, group_id)
    }

    fn group_context<
        GroupId: traits::GroupId<VERSION>,
        GroupContext: traits::GroupContext<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Option<GroupContext>> {
        self.get(CONTEXT, group_id)
    }

    fn interim_transcript_hash<
        GroupId: traits::GroupId<VERSION>,
        InterimTranscriptHash: traits::InterimTranscriptHash<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Option<InterimTranscriptHash>> {
        self.get(INTERIM_TRANSCRIPT_HASH, group_id)
    }

    fn confirmation_tag<
        GroupId: traits::GroupId<VERSION>,
        ConfirmationTag: traits::ConfirmationTag<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Option<ConfirmationTag>> {
        self.get(CONFIRMATION_TAG, group_id)
    }

    fn group_state<GroupState: traits::GroupState<VERSION>, GroupId: traits::GroupId<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<Option<GroupState>> {
        self.get(GROUP_STATE, group_id)
    }

    fn message_secrets<
        GroupId: traits::GroupId<VERSION>,
        MessageSecrets: traits::MessageSecrets<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Option<MessageSecrets>> {
        self.get(MESSAGE_SECRETS, group_id)
    }

    fn resumption_psk_store<
        GroupId: traits::GroupId<VERSION>,
        ResumptionPskStore: traits::ResumptionPskStore<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Option<ResumptionPskStore>> {
        self.get(RESUMPTION_PSK_STORE, group_id)
    }

    fn own_leaf_index<
        GroupId: traits::GroupId<VERSION>,
        LeafNodeIndex: traits::LeafNodeIndex<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Option<LeafNodeIndex>> {
        self.get(OWN_LEAF_INDEX, group_id)
    }

    fn group_epoch_secrets<
        GroupId: traits::GroupId<VERSION>,
        GroupEpochSecrets: traits::GroupEpochSecrets<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<Option<GroupEpochSecrets>> {
        self.get(EPOCH_SECRETS, group_id)
    }

    fn signature_key_pair<
        SignaturePublicKey: traits::SignaturePublicKey<VERSION>,
        SignatureKeyPair: traits::SignatureKeyPair<VERSION>,
    >(
        &self,
        public_key: &SignaturePublicKey,
    ) -> R<Option<SignatureKeyPair>> {
        self.get(SIGNATURE_KEY_PAIR, public_key)
    }

    fn encryption_key_pair<
        HpkeKeyPair: traits::HpkeKeyPair<VERSION>,
        EncryptionKey: traits::EncryptionKey<VERSION>,
    >(
        &self,
        public_key: &EncryptionKey,
    ) -> R<Option<HpkeKeyPair>> {
        self.get(ENCRYPTION_KEY_PAIR, public_key)
    }

    fn encryption_epoch_key_pairs<
        GroupId: traits::GroupId<VERSION>,
        EpochKey: traits::EpochKey<VERSION>,
        HpkeKeyPair: traits::HpkeKeyPair<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        epoch: &EpochKey,
        leaf_index: u32,
    ) -> R<Vec<HpkeKeyPair>> {
        Ok(self
            .get(EPOCH_KEY_PAIRS, &(group_id, epoch, leaf_index))?
            .unwrap_or_default())
    }

    fn key_package<
        KeyPackageRef: traits::HashReference<VERSION>,
        KeyPackage: traits::KeyPackage<VERSION>,
    >(
        &self,
        hash_ref: &KeyPackageRef,
    ) -> R<Option<KeyPackage>> {
        self.get(KEY_PACKAGE, hash_ref)
    }

    fn psk<PskBundle: traits::PskBundle<VERSION>, PskId: traits::PskId<VERSION>>(
        &self,
        psk_id: &PskId,
    ) -> R<Option<PskBundle>> {
        self.get(PSK, psk_id)
    }

    fn remove_proposal<
        GroupId: traits::GroupId<VERSION>,
        ProposalRef: traits::ProposalRef<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        proposal_ref: &ProposalRef,
    ) -> R<()> {
        self.remove_item(PROPOSAL_REFS, group_id, proposal_ref)?;
        self.delete(PROPOSAL, &(group_id, proposal_ref))
    }

    fn delete_own_leaf_nodes<GroupId: traits::GroupId<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<()> {
        self.delete(OWN_LEAF_NODES, group_id)
    }

    fn delete_group_config<GroupId: traits::GroupId<VERSION>>(&self, group_id: &GroupId) -> R<()> {
        self.delete(JOIN_CONFIG, group_id)
    }

    fn delete_tree<GroupId: traits::GroupId<VERSION>>(&self, group_id: &GroupId) -> R<()> {
        self.delete(TREE, group_id)
    }

    fn delete_confirmation_tag<GroupId: traits::GroupId<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<()> {
        self.delete(CONFIRMATION_TAG, group_id)
    }

    fn delete_group_state<GroupId: traits::GroupId<VERSION>>(&self, group_id: &GroupId) -> R<()> {
        self.delete(GROUP_STATE, group_id)
    }

    fn delete_context<GroupId: traits::GroupId<VERSION>>(&self, group_id: &GroupId) -> R<()> {
        self.delete(CONTEXT, group_id)
    }

    fn delete_interim_transcript_hash<GroupId: traits::GroupId<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<()> {
        self.delete(INTERIM_TRANSCRIPT_HASH, group_id)
    }

    fn delete_message_secrets<GroupId: traits::GroupId<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<()> {
        self.delete(MESSAGE_SECRETS, group_id)
    }

    fn delete_all_resumption_psk_secrets<GroupId: traits::GroupId<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<()> {
        self.delete(RESUMPTION_PSK_STORE, group_id)
    }

    fn delete_own_leaf_index<GroupId: traits::GroupId<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<()> {
        self.delete(OWN_LEAF_INDEX, group_id)
    }

    fn delete_group_epoch_secrets<GroupId: traits::GroupId<VERSION>>(
        &self,
        group_id: &GroupId,
    ) -> R<()> {
        self.delete(EPOCH_SECRETS, group_id)
    }

    fn clear_proposal_queue<
        GroupId: traits::GroupId<VERSION>,
        ProposalRef: traits::ProposalRef<VERSION>,
    >(
        &self,
        group_id: &GroupId,
    ) -> R<()> {
        let refs: Vec<ProposalRef> = self.decode_list(PROPOSAL_REFS, group_id)?;
        for proposal_ref in &refs {
            self.delete(PROPOSAL, &(group_id, proposal_ref))?;
        }
        self.delete(PROPOSAL_REFS, group_id)
    }

    fn delete_signature_key_pair<SignaturePublicKey: traits::SignaturePublicKey<VERSION>>(
        &self,
        public_key: &SignaturePublicKey,
    ) -> R<()> {
        self.delete(SIGNATURE_KEY_PAIR, public_key)
    }

    fn delete_encryption_key_pair<EncryptionKey: traits::EncryptionKey<VERSION>>(
        &self,
        public_key: &EncryptionKey,
    ) -> R<()> {
        self.delete(ENCRYPTION_KEY_PAIR, public_key)
    }

    fn delete_encryption_epoch_key_pairs<
        GroupId: traits::GroupId<VERSION>,
        EpochKey: traits::EpochKey<VERSION>,
    >(
        &self,
        group_id: &GroupId,
        epoch: &EpochKey,
        leaf_index: u32,
    ) -> R<()> {
        self.delete(EPOCH_KEY_PAIRS, &(group_id, epoch, leaf_index))
    }

    fn delete_key_package<KeyPackageRef: traits::HashReference<VERSION>>(
        &self,
        hash_ref: &KeyPackageRef,
    ) -> R<()> {
        self.delete(KEY_PACKAGE, hash_ref)
    }

    fn delete_psk<PskKey: traits::PskId<VERSION>>(&self, psk_id: &PskKey) -> R<()> {
        self.delete(PSK, psk_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use openmls_traits::storage::{Entity, Key};
    use serde::Deserialize;

    /// A stand-in for every OpenMLS storage type (the trait's generics only ask for serde).
    #[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
    struct T(Vec<u8>);
    impl Key<VERSION> for T {}
    impl Entity<VERSION> for T {}
    impl traits::GroupId<VERSION> for T {}
    impl traits::ProposalRef<VERSION> for T {}
    impl traits::QueuedProposal<VERSION> for T {}
    impl traits::EpochKey<VERSION> for T {}
    impl traits::HpkeKeyPair<VERSION> for T {}
    impl traits::LeafNode<VERSION> for T {}
    impl traits::TreeSync<VERSION> for T {}
    impl traits::MlsGroupJoinConfig<VERSION> for T {}
    impl traits::GroupContext<VERSION> for T {}

    fn t(b: &[u8]) -> T {
        T(b.to_vec())
    }

    #[test]
    fn the_proposal_queue_keeps_order_removes_one_and_clears_all() {
        let s = Store::new(HashMap::new());
        let g = t(b"group");
        for (r, p) in [(b"r1", b"p1"), (b"r2", b"p2"), (b"r3", b"p3")] {
            s.queue_proposal(&g, &t(r), &t(p)).unwrap();
        }
        s.remove_proposal(&g, &t(b"r2")).unwrap();
        let q: Vec<(T, T)> = s.queued_proposals(&g).unwrap();
        assert_eq!(q, vec![(t(b"r1"), t(b"p1")), (t(b"r3"), t(b"p3"))]);
        let refs: Vec<T> = s.queued_proposal_refs(&g).unwrap();
        assert_eq!(refs, vec![t(b"r1"), t(b"r3")]);
        // Another group's queue is its own.
        s.queue_proposal(&t(b"other"), &t(b"r9"), &t(b"p9"))
            .unwrap();
        s.clear_proposal_queue::<T, T>(&g).unwrap();
        assert!(s.queued_proposals::<T, T, T>(&g).unwrap().is_empty());
        assert_eq!(
            s.values.read().unwrap().len(),
            2,
            "only the other group's two records stay"
        );
    }

    #[test]
    fn lists_epoch_key_pairs_and_the_json_join_config_round_trip() {
        let s = Store::new(HashMap::new());
        let g = t(b"group");
        s.append_own_leaf_node(&g, &t(b"leaf 1")).unwrap();
        s.append_own_leaf_node(&g, &t(b"leaf 2")).unwrap();
        assert_eq!(
            s.own_leaf_nodes::<T, T>(&g).unwrap(),
            vec![t(b"leaf 1"), t(b"leaf 2")]
        );
        s.delete_own_leaf_nodes(&g).unwrap();
        assert!(s.own_leaf_nodes::<T, T>(&g).unwrap().is_empty());

        let pairs = [t(b"kp a"), t(b"kp b")];
        s.write_encryption_epoch_key_pairs(&g, &t(b"epoch 3"), 7, &pairs)
            .unwrap();
        assert_eq!(
            s.encryption_epoch_key_pairs::<T, T, T>(&g, &t(b"epoch 3"), 7)
                .unwrap(),
            pairs
        );
        assert!(
            s.encryption_epoch_key_pairs::<T, T, T>(&g, &t(b"epoch 3"), 8)
                .unwrap()
                .is_empty()
        );
        s.delete_encryption_epoch_key_pairs(&g, &t(b"epoch 3"), 7)
            .unwrap();
        assert!(
            s.encryption_epoch_key_pairs::<T, T, T>(&g, &t(b"epoch 3"), 7)
                .unwrap()
                .is_empty()
        );

        s.write_mls_join_config(&g, &t(b"config")).unwrap();
        let raw = s.values.read().unwrap().values().next().cloned().unwrap();
        assert_eq!(
            serde_json::from_slice::<T>(&raw).unwrap(),
            t(b"config"),
            "serde_json"
        );
        assert_eq!(
            s.mls_group_join_config::<T, T>(&g).unwrap(),
            Some(t(b"config"))
        );
    }

    #[test]
    fn keys_are_tag_then_postcard_and_a_bad_record_is_an_error() {
        let s = Store::new(HashMap::new());
        let g = t(b"gid");
        s.write_tree(&g, &t(&[0xAB; 300])).unwrap();
        let values = s.values.read().unwrap().clone();
        let (k, v) = values.iter().next().unwrap();
        // tag 5, then T's postcard: a varint length 3 and the bytes.
        assert_eq!(k.as_slice(), b"\x05\x03gid");
        // 300 as a varint is AC 02; then the bytes themselves.
        assert_eq!(&v[..2], &[0xAC, 0x02]);
        assert_eq!(v.len(), 302);
        // Another kind of record under the same key bytes is another key.
        s.write_context(&g, &t(b"ctx")).unwrap();
        assert_eq!(s.tree::<T, T>(&g).unwrap(), Some(t(&[0xAB; 300])));
        // A truncated record is a StoreError, not a panic.
        s.values
            .write()
            .unwrap()
            .insert(k.clone(), v[..10].to_vec());
        assert!(s.tree::<T, T>(&g).is_err());
    }

    /// An undone operation leaves exactly the records it found (set, overwritten, deleted, set
    /// twice); a committed one keeps its changes; one operation at a time.
    #[test]
    fn rollback_restores_only_what_the_operation_changed() {
        let start: HashMap<Vec<u8>, Vec<u8>> = [
            (vec![1], vec![10]),
            (vec![2], vec![20]),
            (vec![3], vec![30]),
        ]
        .into();
        let s = Store::new(start.clone());
        assert!(s.rollback().is_err(), "nothing to undo");
        s.begin().unwrap();
        assert!(s.begin().is_err(), "one operation at a time");
        s.write(vec![1], Some(vec![11])).unwrap();
        s.write(vec![1], Some(vec![12])).unwrap();
        s.write(vec![2], None).unwrap();
        s.write(vec![4], Some(vec![40])).unwrap();
        s.write(vec![5], Some(vec![50])).unwrap();
        s.write(vec![5], None).unwrap();
        assert_ne!(*s.values.read().unwrap(), start);
        s.rollback().unwrap();
        assert_eq!(*s.values.read().unwrap(), start);

        s.begin().unwrap();
        s.write(vec![3], None).unwrap();
        s.write(vec![6], Some(vec![60])).unwrap();
        s.commit().unwrap();
        let mut expected = start;
        expected.remove(&vec![3]);
        expected.insert(vec![6], vec![60]);
        assert_eq!(*s.values.read().unwrap(), expected);
        // After the commit, nothing is noted: a later rollback has nothing to undo.
        s.write(vec![7], Some(vec![70])).unwrap();
        assert!(s.rollback().is_err());
        assert_eq!(s.values.read().unwrap().get(&vec![7]), Some(&vec![70]));
    }
}
