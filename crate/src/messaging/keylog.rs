//! Key-transparency log: an append-only, hash-linked, signed log of identity
//! key changes (`add`, `update`, `revoke`) for many users.
//!
//! ```text
//! body         = "veilkit-keylog-v2" ‖ u8(action: 1 add, 2 update, 3 revoke) ‖ u16(|userId|) ‖ userId
//!                ‖ publicKey(32) ‖ u64(timestamp) ‖ prevHash(32)
//! signature    = Ed25519(authorising key, body)
//! keySignature = Ed25519(publicKey, "veilkit-keylog-pop-v2" ‖ body)        (add and update only)
//! hash         = SHA-256(body ‖ signature [‖ keySignature])
//! ```
//!
//! Chain rules, checked in order for entry `i`:
//! 1. `prevHash` is 32 zero bytes for `i = 0`, else the hash of entry `i − 1`;
//! 2. the timestamp is not smaller than entry `i − 1`'s;
//! 3. per user: the first entry is an `add`; `update` (new key = `publicKey`)
//!    and `revoke` (`publicKey` = the current key) follow; a second `add`, or
//!    anything after `revoke`, is refused;
//! 4. a key that is or was bound to one user is never added or updated into
//!    another user (`KEY_OF_ANOTHER_USER`);
//! 5. `signature`: `add` by its own `publicKey` (self-signed), `update` and
//!    `revoke` by the user's current key;
//! 6. `keySignature` (every entry that introduces a key, `add` and `update`):
//!    by `publicKey` itself, the proof that whoever binds the key holds its
//!    secret (`BAD_KEY_SIGNATURE`). Without it, a user could `update` their
//!    entry to someone else's public key (v1).
//!
//! JSON form: an array of
//! `{"version":2,"userId","publicKey","timestamp","prevHash","action","signature","keySignature"}`
//! (in that order; `keySignature` present exactly for `add` and `update`),
//! bytes as unpadded base64url, `action` one of `"add"`, `"update"`,
//! `"revoke"`, timestamps integers ≤ 2^53 − 1. Unknown fields are refused; an
//! entry without `"version":2` (v1 entries had none) is `UNSUPPORTED_VERSION`.
//!
//! Size: one log format (entry codec, chain rules, verification) checked in one pass over private entry fields; a few lines over the ~400-line guideline.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::codec::{MAX_SAFE_INTEGER, b64_decode, b64_decode_array, b64_encode, put_u16_prefixed};
use super::error::{KeyLogFault, MessagingError, Result};
use crate::error::{CryptoError, exact};
use crate::{ed25519, hash};

/// Body label.
pub const LABEL: &[u8] = b"veilkit-keylog-v2";
/// Label of the new key's proof-of-possession signature (`keySignature`).
pub const KEY_LABEL: &[u8] = b"veilkit-keylog-pop-v2";
/// JSON `version`.
pub const VERSION: u32 = 2;
/// `prevHash` of the first entry.
pub const GENESIS_HASH: [u8; 32] = [0u8; 32];
/// Longest user id (its length is a `u16`).
pub const MAX_USER_ID_LEN: usize = 65535;

/// What an entry does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyLogAction {
    /// First key of a user (self-signed).
    Add,
    /// Replace the user's key (signed by the current key).
    Update,
    /// Revoke the user's key (signed by it); final.
    Revoke,
}

impl KeyLogAction {
    /// Wire byte.
    #[must_use]
    pub const fn byte(self) -> u8 {
        match self {
            Self::Add => 1,
            Self::Update => 2,
            Self::Revoke => 3,
        }
    }

    /// From the wire byte / the seed's numeric action (1, 2, 3).
    ///
    /// # Errors
    /// `INVALID_PARAMETER` for any other value.
    pub fn from_byte(b: u8) -> Result<Self> {
        match b {
            1 => Ok(Self::Add),
            2 => Ok(Self::Update),
            3 => Ok(Self::Revoke),
            _ => Err(CryptoError::InvalidParameter("action must be 1 (add), 2 (update) or 3 (revoke)").into()),
        }
    }
}

/// One log entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyLogEntry {
    /// The user (1..=65535 bytes).
    pub user_id: Vec<u8>,
    /// The Ed25519 key added, the new key (update) or the revoked key.
    pub public_key: [u8; 32],
    /// Seconds (or any monotone unit), ≤ 2^53 − 1.
    pub timestamp: u64,
    /// Hash of the previous entry (zero for the first).
    pub prev_hash: [u8; 32],
    /// What the entry does.
    pub action: KeyLogAction,
    /// Ed25519 signature of the authorising key over [`KeyLogEntry::body`].
    pub signature: [u8; 64],
    /// Proof of possession: Ed25519 signature of `public_key` over
    /// `KEY_LABEL ‖ body`; present exactly for `add` and `update`.
    pub key_signature: Option<[u8; 64]>,
}

/// Whether an action introduces a key (and so carries a `keySignature`).
const fn introduces_key(action: KeyLogAction) -> bool {
    matches!(action, KeyLogAction::Add | KeyLogAction::Update)
}

fn body(user_id: &[u8], public_key: &[u8; 32], timestamp: u64, prev_hash: &[u8; 32], action: KeyLogAction) -> Result<Vec<u8>> {
    let mut b = Vec::with_capacity(LABEL.len() + 1 + 2 + user_id.len() + 32 + 8 + 32);
    b.extend_from_slice(LABEL);
    b.push(action.byte());
    put_u16_prefixed(&mut b, "userId", user_id)?;
    b.extend_from_slice(public_key);
    b.extend_from_slice(&timestamp.to_be_bytes());
    b.extend_from_slice(prev_hash);
    Ok(b)
}

fn pop_message(body: &[u8]) -> Vec<u8> {
    [KEY_LABEL, body].concat()
}

fn check_fields(user_id: &[u8], timestamp: u64) -> Result<()> {
    if user_id.is_empty() || user_id.len() > MAX_USER_ID_LEN {
        return Err(CryptoError::length("userId", "1 to 65535 bytes", user_id.len()).into());
    }
    if timestamp > MAX_SAFE_INTEGER {
        return Err(CryptoError::InvalidParameter("timestamp must be at most 2^53 - 1").into());
    }
    Ok(())
}

impl KeyLogEntry {
    /// The canonical signed body.
    ///
    /// # Errors
    /// `INVALID_LENGTH` if the user id is longer than 65535 bytes.
    pub fn body(&self) -> Result<Vec<u8>> {
        body(&self.user_id, &self.public_key, self.timestamp, &self.prev_hash, self.action)
    }

    /// `SHA-256(body ‖ signature [‖ keySignature])`, the next entry's `prevHash`.
    ///
    /// # Errors
    /// As [`KeyLogEntry::body`].
    pub fn hash(&self) -> Result<[u8; 32]> {
        let mut b = self.body()?;
        b.extend_from_slice(&self.signature);
        if let Some(k) = &self.key_signature {
            b.extend_from_slice(k);
        }
        Ok(hash::sha256(&b))
    }
}

/// The public key of a 32-byte seed or 64-byte Ed25519 secret.
fn public_of(what: &'static str, secret: &[u8]) -> Result<[u8; 32]> {
    let seed = secret
        .first_chunk::<32>()
        .filter(|_| secret.len() == 32 || secret.len() == 64)
        .ok_or(CryptoError::length(what, "32 or 64 bytes", secret.len()))?;
    Ok(ed25519::ed25519_from_seed(seed)?.public)
}

/// Creates and signs an entry.
///
/// - `add`: `signing_key` is the secret of `public_key` (self-signed); it
///   also makes the proof of possession. `new_key_signing_key` must be `None`.
/// - `update`: `signing_key` is the user's current key (checked by
///   [`key_log_verify_chain`], not here); `new_key_signing_key` is the secret
///   of the new `public_key`, which co-signs (proof of possession).
/// - `revoke`: `signing_key` is the user's current key (= `public_key`);
///   `new_key_signing_key` must be `None`.
///
/// # Errors
/// `INVALID_LENGTH` (user id, keys, prev hash), `INVALID_PARAMETER`
/// (timestamp; a new-key secret given for `add` / `revoke` or missing for
/// `update`), `INVALID_KEY` (the key that must sign for `public_key` is not
/// its secret).
#[must_use = "the entry is the only output"]
pub fn key_log_create_entry(
    user_id: &[u8],
    public_key: &[u8],
    timestamp: u64,
    prev_entry_hash: &[u8],
    action: KeyLogAction,
    signing_key: &[u8],
    new_key_signing_key: Option<&[u8]>,
) -> Result<KeyLogEntry> {
    check_fields(user_id, timestamp)?;
    let public_key = *exact::<32>("publicKey", "32 bytes", public_key)?;
    let prev_hash = *exact::<32>("prevEntryHash", "32 bytes", prev_entry_hash)?;
    let key_secret = match (action, new_key_signing_key) {
        (KeyLogAction::Add, None) => Some(signing_key),
        (KeyLogAction::Update, Some(k)) => Some(k),
        (KeyLogAction::Revoke, None) => None,
        (KeyLogAction::Update, None) => {
            return Err(CryptoError::InvalidParameter("an update needs the new key's secret (newKeySigningKey)").into());
        }
        (KeyLogAction::Add | KeyLogAction::Revoke, Some(_)) => {
            return Err(CryptoError::InvalidParameter("newKeySigningKey is only for update").into());
        }
    };
    if let Some(k) = key_secret
        && public_of("newKeySigningKey", k)? != public_key
    {
        return Err(CryptoError::InvalidKey("the secret of publicKey must sign an entry that introduces it").into());
    }
    let b = body(user_id, &public_key, timestamp, &prev_hash, action)?;
    let signature = ed25519::ed25519_sign(signing_key, &b)?;
    let key_signature = key_secret.map(|k| ed25519::ed25519_sign(k, &pop_message(&b))).transpose()?;
    Ok(KeyLogEntry { user_id: user_id.to_vec(), public_key, timestamp, prev_hash, action, signature, key_signature })
}

#[derive(Clone, Copy)]
enum UserState {
    Active([u8; 32]),
    Revoked,
}

/// Verifies the entries in order, returning the per-user state after the
/// entries with timestamp ≤ `until` (all if `None`), or the first failure.
/// `BTreeMap`s: their cost does not depend on how attacker-chosen ids hash.
fn replay(entries: &[KeyLogEntry], until: Option<u64>) -> Result<BTreeMap<Vec<u8>, UserState>> {
    let mut users: BTreeMap<Vec<u8>, UserState> = BTreeMap::new();
    let mut snapshot: BTreeMap<Vec<u8>, UserState> = BTreeMap::new();
    // Every key ever bound, and the user it belongs to.
    let mut owners: BTreeMap<[u8; 32], Vec<u8>> = BTreeMap::new();
    let mut expected_prev = GENESIS_HASH;
    let mut last_time = 0u64;
    for (index, e) in entries.iter().enumerate() {
        let fail = |fault| MessagingError::KeyLog { index, fault };
        if check_fields(&e.user_id, e.timestamp).is_err() || introduces_key(e.action) != e.key_signature.is_some() {
            return Err(fail(KeyLogFault::Malformed));
        }
        if e.prev_hash != expected_prev {
            return Err(fail(KeyLogFault::BadPrevHash));
        }
        if e.timestamp < last_time {
            return Err(fail(KeyLogFault::TimestampDecreased));
        }
        let body = e.body().map_err(|_| fail(KeyLogFault::Malformed))?;
        let state = users.get(&e.user_id).copied();
        let (signer, next) = match (state, e.action) {
            (None, KeyLogAction::Add) => (e.public_key, UserState::Active(e.public_key)),
            (None, _) => return Err(fail(KeyLogFault::FirstNotAdd)),
            (Some(UserState::Revoked), _) => return Err(fail(KeyLogFault::AfterRevoke)),
            (Some(UserState::Active(_)), KeyLogAction::Add) => return Err(fail(KeyLogFault::DuplicateAdd)),
            (Some(UserState::Active(current)), KeyLogAction::Update) => (current, UserState::Active(e.public_key)),
            (Some(UserState::Active(current)), KeyLogAction::Revoke) => {
                if current != e.public_key {
                    return Err(fail(KeyLogFault::RevokeKeyMismatch));
                }
                (current, UserState::Revoked)
            }
        };
        if introduces_key(e.action) && owners.get(&e.public_key).is_some_and(|owner| *owner != e.user_id) {
            return Err(fail(KeyLogFault::KeyOfAnotherUser));
        }
        ed25519::ed25519_verify(&signer, &body, &e.signature).map_err(|_| fail(KeyLogFault::BadSignature))?;
        if let Some(pop) = &e.key_signature {
            ed25519::ed25519_verify(&e.public_key, &pop_message(&body), pop)
                .map_err(|_| fail(KeyLogFault::BadKeySignature))?;
        }
        let mut hashed = body;
        hashed.extend_from_slice(&e.signature);
        if let Some(pop) = &e.key_signature {
            hashed.extend_from_slice(pop);
        }
        expected_prev = hash::sha256(&hashed);
        last_time = e.timestamp;
        if introduces_key(e.action) {
            owners.entry(e.public_key).or_insert_with(|| e.user_id.clone());
        }
        if until.is_none_or(|t| e.timestamp <= t) {
            snapshot.insert(e.user_id.clone(), next);
        }
        users.insert(e.user_id.clone(), next);
    }
    Ok(snapshot)
}

/// Verifies the whole log.
///
/// # Errors
/// `KEY_LOG_INVALID` naming the first entry that fails and why.
pub fn key_log_verify_chain(entries: &[KeyLogEntry]) -> Result<()> {
    replay(entries, None).map(|_| ())
}

/// The key of `user_id` after the entries with timestamp ≤ `at_time` (all
/// entries if `None`), or `None` if the user has no key then (never added,
/// or revoked). The whole log is verified first.
///
/// # Errors
/// `KEY_LOG_INVALID` if the log does not verify.
pub fn key_log_current_key(entries: &[KeyLogEntry], user_id: &[u8], at_time: Option<u64>) -> Result<Option<[u8; 32]>> {
    let users = replay(entries, at_time)?;
    Ok(match users.get(user_id) {
        Some(UserState::Active(k)) => Some(*k),
        Some(UserState::Revoked) | None => None,
    })
}

// ---------------------------------------------------------------- JSON

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EntryJson {
    version: u32,
    user_id: String,
    public_key: String,
    timestamp: u64,
    prev_hash: String,
    action: KeyLogAction,
    signature: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key_signature: Option<String>,
}

impl From<&KeyLogEntry> for EntryJson {
    fn from(e: &KeyLogEntry) -> Self {
        Self {
            version: VERSION,
            user_id: b64_encode(&e.user_id),
            public_key: b64_encode(&e.public_key),
            timestamp: e.timestamp,
            prev_hash: b64_encode(&e.prev_hash),
            action: e.action,
            signature: b64_encode(&e.signature),
            key_signature: e.key_signature.as_ref().map(|k| b64_encode(k)),
        }
    }
}

impl TryFrom<EntryJson> for KeyLogEntry {
    type Error = MessagingError;
    fn try_from(j: EntryJson) -> Result<Self> {
        if j.user_id.len() > MAX_USER_ID_LEN.div_ceil(3) * 4 {
            return Err(MessagingError::Malformed("userId"));
        }
        let user_id = b64_decode("userId", &j.user_id)?;
        check_fields(&user_id, j.timestamp).map_err(|_| MessagingError::Malformed("userId / timestamp"))?;
        if introduces_key(j.action) != j.key_signature.is_some() {
            return Err(MessagingError::Malformed("keySignature is present exactly for add and update"));
        }
        Ok(Self {
            user_id,
            public_key: b64_decode_array("publicKey", &j.public_key)?,
            timestamp: j.timestamp,
            prev_hash: b64_decode_array("prevHash", &j.prev_hash)?,
            action: j.action,
            signature: b64_decode_array("signature", &j.signature)?,
            key_signature: j.key_signature.map(|k| b64_decode_array("keySignature", &k)).transpose()?,
        })
    }
}

/// Decodes one entry from a JSON value: `UNSUPPORTED_VERSION` unless it is an
/// object whose `version` is [`VERSION`], else `MALFORMED` for anything wrong.
fn entry_from_value(v: serde_json::Value) -> core::result::Result<KeyLogEntry, KeyLogFault> {
    let version = v.as_object().and_then(|o| o.get("version")).and_then(serde_json::Value::as_u64);
    if v.is_object() && version != Some(u64::from(VERSION)) {
        return Err(KeyLogFault::UnsupportedVersion);
    }
    serde_json::from_value::<EntryJson>(v)
        .map_err(|_| KeyLogFault::Malformed)
        .and_then(|j| KeyLogEntry::try_from(j).map_err(|_| KeyLogFault::Malformed))
}

/// The JSON form of one entry.
///
/// # Errors
/// `MALFORMED_INPUT` if serialisation fails (it does not for valid entries).
pub fn key_log_entry_to_json(entry: &KeyLogEntry) -> Result<String> {
    serde_json::to_string(&EntryJson::from(entry)).map_err(|_| MessagingError::Malformed("key log entry"))
}

/// Parses the JSON form of one entry.
///
/// # Errors
/// `MALFORMED_INPUT` (not a JSON object); `KEY_LOG_INVALID` with index 0 and
/// `UNSUPPORTED_VERSION` (not a v2 entry) or `MALFORMED`.
pub fn key_log_entry_from_json(json: &str) -> Result<KeyLogEntry> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|_| MessagingError::Malformed("key log entry JSON"))?;
    if !v.is_object() {
        return Err(MessagingError::Malformed("key log entry JSON must be an object"));
    }
    entry_from_value(v).map_err(|fault| MessagingError::KeyLog { index: 0, fault })
}

/// The JSON form of a log (an array of entries).
///
/// # Errors
/// `MALFORMED_INPUT` if serialisation fails.
pub fn key_log_to_json(entries: &[KeyLogEntry]) -> Result<String> {
    let js: Vec<EntryJson> = entries.iter().map(EntryJson::from).collect();
    serde_json::to_string(&js).map_err(|_| MessagingError::Malformed("key log"))
}

/// Parses the JSON form of a log.
///
/// # Errors
/// `MALFORMED_INPUT` if the text is not a JSON array; `KEY_LOG_INVALID`
/// naming the first entry that cannot be decoded (`UNSUPPORTED_VERSION` for
/// an entry of another format version, else `MALFORMED`).
pub fn key_log_from_json(json: &str) -> Result<Vec<KeyLogEntry>> {
    let values: Vec<serde_json::Value> =
        serde_json::from_str(json).map_err(|_| MessagingError::Malformed("key log JSON must be an array"))?;
    values
        .into_iter()
        .enumerate()
        .map(|(index, v)| entry_from_value(v).map_err(|fault| MessagingError::KeyLog { index, fault }))
        .collect()
}
