//! Device registry: the devices of an account, as an append-only hash-linked
//! log of `add` / `revoke` changes, every one signed by the account identity
//! key. A registry is only ever used after verifying it against the account
//! key the caller already trusts (pinned), so a server that stores it cannot
//! add, re-add or resurrect a device, reorder or drop changes, or swap in its
//! own account key.
//!
//! ```text
//! body = "veilkit-registry-v1" ‖ accountKey(32) ‖ prevHash(32) ‖ u8(action: 1 add, 2 revoke)
//!        ‖ u64(timestamp) ‖ u16(|deviceId|) ‖ deviceId(UTF-8)
//!        [add only: ‖ u16(|name|) ‖ name(UTF-8) ‖ u16(|publicKey|) ‖ publicKey]
//! sig  = Ed25519(account identity key, body)
//! hash = SHA-256(body ‖ sig)
//! ```
//!
//! Rules for change `i`: `prevHash` = zero for `i = 0`, else the hash of change
//! `i − 1`; timestamps non-decreasing; the signature verifies under the
//! account key; an `add` never reuses a device id (even a revoked one); a
//! `revoke` names a device that is active.
//!
//! JSON form: `{"version":1,"accountKey":b64url,"changes":[…]}` with each change
//! `{"action":"add"|"revoke","deviceId","name"?,"publicKey"?,"timestamp","prevHash","signature"}`
//! (`name` and `publicKey` present exactly for `add`), bytes as unpadded
//! base64url, integers ≤ 2^53 − 1, unknown fields refused.
//!
//! Size: one registry format (change codec, chain rules, verification) over private change fields, like `keylog.rs`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::codec::{MAX_SAFE_INTEGER, b64_decode, b64_decode_array, b64_encode, put_u16_prefixed};
use super::error::{MessagingError, RegistryFault, Result};
use crate::error::{CryptoError, exact};
use crate::{ed25519, hash};

/// Body label.
pub const LABEL: &[u8] = b"veilkit-registry-v1";
/// JSON `version`.
pub const VERSION: u32 = 1;
/// Longest device id, in UTF-8 bytes.
pub const MAX_DEVICE_ID_LEN: usize = 256;
/// Longest device name, in UTF-8 bytes.
pub const MAX_NAME_LEN: usize = 1024;
/// Longest device public key.
pub const MAX_DEVICE_KEY_LEN: usize = 4096;

/// What a change does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegistryAction {
    /// Adds a device.
    Add,
    /// Revokes a device; final.
    Revoke,
}

/// One signed change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistryChange {
    /// Add or revoke.
    pub action: RegistryAction,
    /// The device.
    pub device_id: String,
    /// Device name (`add`; empty for `revoke`).
    pub name: String,
    /// Device public key (`add`; empty for `revoke`).
    pub public_key: Vec<u8>,
    /// When, ≤ 2^53 − 1.
    pub timestamp: u64,
    /// Hash of the previous change (zero for the first).
    pub prev_hash: [u8; 32],
    /// Ed25519 signature of the account key over the body.
    pub signature: [u8; 64],
}

/// An active device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Its id.
    pub device_id: String,
    /// Its name.
    pub name: String,
    /// Its public key.
    pub public_key: Vec<u8>,
    /// Timestamp of its `add`.
    pub added_at: u64,
}

/// A device registry (not necessarily verified: see [`DeviceRegistry::verify`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceRegistry {
    /// The account identity key (Ed25519) that signs every change.
    pub account_key: [u8; 32],
    /// The changes, oldest first.
    pub changes: Vec<RegistryChange>,
}

fn invalid(index: Option<usize>, fault: RegistryFault) -> MessagingError {
    MessagingError::Registry { index, fault }
}

fn check_change_fields(action: RegistryAction, device_id: &str, name: &str, public_key: &[u8], timestamp: u64) -> Result<()> {
    if device_id.is_empty() || device_id.len() > MAX_DEVICE_ID_LEN {
        return Err(CryptoError::length("deviceId", "1 to 256 UTF-8 bytes", device_id.len()).into());
    }
    if timestamp > MAX_SAFE_INTEGER {
        return Err(CryptoError::InvalidParameter("timestamp must be at most 2^53 - 1").into());
    }
    match action {
        RegistryAction::Add => {
            if name.len() > MAX_NAME_LEN {
                return Err(CryptoError::length("name", "at most 1024 UTF-8 bytes", name.len()).into());
            }
            if public_key.is_empty() || public_key.len() > MAX_DEVICE_KEY_LEN {
                return Err(CryptoError::length("publicKey", "1 to 4096 bytes", public_key.len()).into());
            }
        }
        RegistryAction::Revoke => {
            if !name.is_empty() || !public_key.is_empty() {
                return Err(CryptoError::InvalidParameter("a revoke carries no name or public key").into());
            }
        }
    }
    Ok(())
}

impl RegistryChange {
    /// The canonical signed body for the registry of `account_key`.
    ///
    /// # Errors
    /// `INVALID_LENGTH` / `INVALID_PARAMETER` if a field is out of range.
    pub fn body(&self, account_key: &[u8; 32]) -> Result<Vec<u8>> {
        check_change_fields(self.action, &self.device_id, &self.name, &self.public_key, self.timestamp)?;
        let mut b = Vec::with_capacity(LABEL.len() + 64 + 1 + 8 + 6 + self.device_id.len() + self.name.len() + self.public_key.len());
        b.extend_from_slice(LABEL);
        b.extend_from_slice(account_key);
        b.extend_from_slice(&self.prev_hash);
        b.push(match self.action {
            RegistryAction::Add => 1,
            RegistryAction::Revoke => 2,
        });
        b.extend_from_slice(&self.timestamp.to_be_bytes());
        put_u16_prefixed(&mut b, "deviceId", self.device_id.as_bytes())?;
        if self.action == RegistryAction::Add {
            put_u16_prefixed(&mut b, "name", self.name.as_bytes())?;
            put_u16_prefixed(&mut b, "publicKey", &self.public_key)?;
        }
        Ok(b)
    }
}

enum DeviceState {
    Active(Device),
    Revoked,
}

/// Result of folding the changes: device states in add order, the next
/// `prevHash` and the last timestamp. A `BTreeMap`: its cost does not depend
/// on how attacker-chosen device ids hash.
struct Folded {
    order: Vec<String>,
    states: BTreeMap<String, DeviceState>,
    next_prev: [u8; 32],
    last_time: u64,
}

impl DeviceRegistry {
    /// An empty registry of the account whose identity key is `account_key`.
    ///
    /// # Errors
    /// `INVALID_LENGTH` unless `account_key` is 32 bytes.
    pub fn new(account_key: &[u8]) -> Result<Self> {
        Ok(Self { account_key: *exact::<32>("accountPublicKey", "32 bytes", account_key)?, changes: Vec::new() })
    }

    fn fold(&self) -> Result<Folded> {
        let mut f = Folded { order: Vec::new(), states: BTreeMap::new(), next_prev: [0u8; 32], last_time: 0 };
        for (i, c) in self.changes.iter().enumerate() {
            let at = |fault| invalid(Some(i), fault);
            let body = c.body(&self.account_key).map_err(|_| at(RegistryFault::Malformed))?;
            if c.prev_hash != f.next_prev {
                return Err(at(RegistryFault::BadPrevHash));
            }
            if c.timestamp < f.last_time {
                return Err(at(RegistryFault::TimestampDecreased));
            }
            ed25519::ed25519_verify(&self.account_key, &body, &c.signature)
                .map_err(|_| at(RegistryFault::BadSignature))?;
            match (c.action, f.states.get(&c.device_id)) {
                (RegistryAction::Add, Some(_)) => return Err(at(RegistryFault::DuplicateDevice)),
                (RegistryAction::Add, None) => {
                    f.order.push(c.device_id.clone());
                    f.states.insert(
                        c.device_id.clone(),
                        DeviceState::Active(Device {
                            device_id: c.device_id.clone(),
                            name: c.name.clone(),
                            public_key: c.public_key.clone(),
                            added_at: c.timestamp,
                        }),
                    );
                }
                (RegistryAction::Revoke, None) => return Err(at(RegistryFault::UnknownDevice)),
                (RegistryAction::Revoke, Some(DeviceState::Revoked)) => return Err(at(RegistryFault::AlreadyRevoked)),
                (RegistryAction::Revoke, Some(DeviceState::Active(_))) => {
                    f.states.insert(c.device_id.clone(), DeviceState::Revoked);
                }
            }
            let mut hashed = body;
            hashed.extend_from_slice(&c.signature);
            f.next_prev = hash::sha256(&hashed);
            f.last_time = c.timestamp;
        }
        Ok(f)
    }

    /// Verifies every change against the pinned `expected_account_key`.
    ///
    /// # Errors
    /// `REGISTRY_INVALID` (`ACCOUNT_KEY_MISMATCH`, or the first change that fails and why).
    pub fn verify(&self, expected_account_key: &[u8]) -> Result<()> {
        self.check_account(expected_account_key)?;
        self.fold().map(|_| ())
    }

    fn check_account(&self, expected_account_key: &[u8]) -> Result<()> {
        let expected = exact::<32>("accountPublicKey", "32 bytes", expected_account_key)?;
        if *expected != self.account_key {
            return Err(invalid(None, RegistryFault::AccountKeyMismatch));
        }
        Ok(())
    }

    /// Active devices in the order they were added, after verifying against
    /// `expected_account_key`.
    ///
    /// # Errors
    /// As [`DeviceRegistry::verify`].
    pub fn active_devices(&self, expected_account_key: &[u8]) -> Result<Vec<Device>> {
        self.check_account(expected_account_key)?;
        let mut f = self.fold()?;
        Ok(f.order
            .iter()
            .filter_map(|id| match f.states.remove(id) {
                Some(DeviceState::Active(d)) => Some(d),
                Some(DeviceState::Revoked) | None => None,
            })
            .collect())
    }

    /// Folds after checking that `signing_key` is the account key's secret.
    fn fold_for_signer(&self, signing_key: &[u8]) -> Result<Folded> {
        let seed = signing_key
            .first_chunk::<32>()
            .filter(|_| signing_key.len() == 32 || signing_key.len() == 64)
            .ok_or(CryptoError::length("accountSigningKey", "32 or 64 bytes", signing_key.len()))?;
        if ed25519::ed25519_from_seed(seed)?.public != self.account_key {
            return Err(invalid(None, RegistryFault::AccountKeyMismatch));
        }
        self.fold()
    }

    fn append(&mut self, f: &Folded, mut change: RegistryChange, signing_key: &[u8]) -> Result<()> {
        let index = Some(self.changes.len());
        if change.timestamp < f.last_time {
            return Err(invalid(index, RegistryFault::TimestampDecreased));
        }
        change.prev_hash = f.next_prev;
        change.signature = ed25519::ed25519_sign(signing_key, &change.body(&self.account_key)?)?;
        self.changes.push(change);
        Ok(())
    }

    /// Appends a signed `add`. The registry is verified first.
    ///
    /// # Errors
    /// `REGISTRY_INVALID` (`ACCOUNT_KEY_MISMATCH` if `account_signing_key` is
    /// not the account's; `DUPLICATE_DEVICE`; `TIMESTAMP_DECREASED`; or the
    /// existing registry is invalid), `INVALID_LENGTH` / `INVALID_PARAMETER` for fields.
    pub fn add_device(
        &mut self,
        device_id: &str,
        name: &str,
        added_at: u64,
        device_public_key: &[u8],
        account_signing_key: &[u8],
    ) -> Result<()> {
        check_change_fields(RegistryAction::Add, device_id, name, device_public_key, added_at)?;
        let f = self.fold_for_signer(account_signing_key)?;
        if f.states.contains_key(device_id) {
            return Err(invalid(Some(self.changes.len()), RegistryFault::DuplicateDevice));
        }
        let change = RegistryChange {
            action: RegistryAction::Add,
            device_id: device_id.to_owned(),
            name: name.to_owned(),
            public_key: device_public_key.to_vec(),
            timestamp: added_at,
            prev_hash: [0u8; 32],
            signature: [0u8; 64],
        };
        self.append(&f, change, account_signing_key)
    }

    /// Appends a signed `revoke`. The registry is verified first.
    ///
    /// # Errors
    /// `REGISTRY_INVALID` (`ACCOUNT_KEY_MISMATCH`, `UNKNOWN_DEVICE`,
    /// `ALREADY_REVOKED`, `TIMESTAMP_DECREASED`, or the existing registry is
    /// invalid), `INVALID_LENGTH` / `INVALID_PARAMETER` for fields.
    pub fn revoke_device(&mut self, device_id: &str, revoked_at: u64, account_signing_key: &[u8]) -> Result<()> {
        check_change_fields(RegistryAction::Revoke, device_id, "", &[], revoked_at)?;
        let f = self.fold_for_signer(account_signing_key)?;
        match f.states.get(device_id) {
            None => return Err(invalid(Some(self.changes.len()), RegistryFault::UnknownDevice)),
            Some(DeviceState::Revoked) => return Err(invalid(Some(self.changes.len()), RegistryFault::AlreadyRevoked)),
            Some(DeviceState::Active(_)) => {}
        }
        let change = RegistryChange {
            action: RegistryAction::Revoke,
            device_id: device_id.to_owned(),
            name: String::new(),
            public_key: Vec::new(),
            timestamp: revoked_at,
            prev_hash: [0u8; 32],
            signature: [0u8; 64],
        };
        self.append(&f, change, account_signing_key)
    }

    /// The JSON form.
    ///
    /// # Errors
    /// `MALFORMED_INPUT` if serialisation fails.
    pub fn to_json(&self) -> Result<String> {
        let j = RegistryJsonOut {
            version: VERSION,
            account_key: b64_encode(&self.account_key),
            changes: self
                .changes
                .iter()
                .map(|c| {
                    let add = c.action == RegistryAction::Add;
                    ChangeJson {
                        action: c.action,
                        device_id: c.device_id.clone(),
                        name: add.then(|| c.name.clone()),
                        public_key: add.then(|| b64_encode(&c.public_key)),
                        timestamp: c.timestamp,
                        prev_hash: b64_encode(&c.prev_hash),
                        signature: b64_encode(&c.signature),
                    }
                })
                .collect(),
        };
        serde_json::to_string(&j).map_err(|_| MessagingError::Malformed("device registry"))
    }

    /// Parses the JSON form **without verifying it** (see [`registry_load`]).
    ///
    /// # Errors
    /// `REGISTRY_INVALID` (`MALFORMED`, with the change index when one change is at fault).
    pub fn from_json_unverified(json: &str) -> Result<Self> {
        let j: RegistryJson = serde_json::from_str(json).map_err(|_| invalid(None, RegistryFault::Malformed))?;
        if j.version != VERSION {
            return Err(invalid(None, RegistryFault::Malformed));
        }
        let account_key = b64_decode_array::<32>("accountKey", &j.account_key).map_err(|_| invalid(None, RegistryFault::Malformed))?;
        let changes = j
            .changes
            .into_iter()
            .enumerate()
            .map(|(i, v)| parse_change(v).map_err(|_| invalid(Some(i), RegistryFault::Malformed)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { account_key, changes })
    }
}

fn parse_change(v: serde_json::Value) -> Result<RegistryChange> {
    let c: ChangeJson = serde_json::from_value(v).map_err(|_| MessagingError::Malformed("change"))?;
    let (name, public_key) = match (c.action, c.name, c.public_key) {
        (RegistryAction::Add, Some(n), Some(pk)) => {
            if pk.len() > MAX_DEVICE_KEY_LEN.div_ceil(3) * 4 {
                return Err(MessagingError::Malformed("publicKey"));
            }
            (n, b64_decode("publicKey", &pk)?)
        }
        (RegistryAction::Revoke, None, None) => (String::new(), Vec::new()),
        _ => return Err(MessagingError::Malformed("change fields")),
    };
    check_change_fields(c.action, &c.device_id, &name, &public_key, c.timestamp)?;
    Ok(RegistryChange {
        action: c.action,
        device_id: c.device_id,
        name,
        public_key,
        timestamp: c.timestamp,
        prev_hash: b64_decode_array("prevHash", &c.prev_hash)?,
        signature: b64_decode_array("signature", &c.signature)?,
    })
}

/// Parsing form: changes stay generic so a bad one is reported by index.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RegistryJson {
    version: u32,
    account_key: String,
    changes: Vec<serde_json::Value>,
}

/// Serialisation form (field order as documented).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RegistryJsonOut {
    version: u32,
    account_key: String,
    changes: Vec<ChangeJson>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ChangeJson {
    action: RegistryAction,
    device_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    public_key: Option<String>,
    timestamp: u64,
    prev_hash: String,
    signature: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeviceJson<'a> {
    device_id: &'a str,
    name: &'a str,
    public_key: String,
    added_at: u64,
}

// ---------------------------------------------------------------- seed-style functions (JSON in, JSON out)

/// Parses and verifies a registry against the pinned account key.
///
/// # Errors
/// `REGISTRY_INVALID`, `INVALID_LENGTH` (`accountPublicKey`).
pub fn registry_load(registry_json: &str, account_public_key: &[u8]) -> Result<DeviceRegistry> {
    let r = DeviceRegistry::from_json_unverified(registry_json)?;
    r.verify(account_public_key)?;
    Ok(r)
}

/// JSON of an empty registry for the account key.
///
/// # Errors
/// `INVALID_LENGTH` (`accountPublicKey`).
pub fn registry_empty(account_public_key: &[u8]) -> Result<String> {
    DeviceRegistry::new(account_public_key)?.to_json()
}

/// Adds a device (signed by the account key) and returns the new JSON.
///
/// # Errors
/// As [`DeviceRegistry::add_device`], plus `REGISTRY_INVALID` (`MALFORMED`).
pub fn registry_add_device(
    registry_json: &str,
    device_id: &str,
    name: &str,
    added_at: u64,
    device_public_key: &[u8],
    account_signing_key: &[u8],
) -> Result<String> {
    let mut r = DeviceRegistry::from_json_unverified(registry_json)?;
    r.add_device(device_id, name, added_at, device_public_key, account_signing_key)?;
    r.to_json()
}

/// Revokes a device (signed by the account key) and returns the new JSON.
///
/// # Errors
/// As [`DeviceRegistry::revoke_device`], plus `REGISTRY_INVALID` (`MALFORMED`).
pub fn registry_revoke_device(
    registry_json: &str,
    device_id: &str,
    revoked_at: u64,
    account_signing_key: &[u8],
) -> Result<String> {
    let mut r = DeviceRegistry::from_json_unverified(registry_json)?;
    r.revoke_device(device_id, revoked_at, account_signing_key)?;
    r.to_json()
}

/// Verifies a registry against the pinned account key.
///
/// # Errors
/// `REGISTRY_INVALID`, `INVALID_LENGTH` (`accountPublicKey`).
pub fn registry_verify(registry_json: &str, account_public_key: &[u8]) -> Result<()> {
    registry_load(registry_json, account_public_key).map(|_| ())
}

/// Active devices of a verified registry.
///
/// # Errors
/// As [`registry_verify`].
pub fn registry_list_active(registry_json: &str, account_public_key: &[u8]) -> Result<Vec<Device>> {
    DeviceRegistry::from_json_unverified(registry_json)?.active_devices(account_public_key)
}

/// JSON array `[{"deviceId","name","publicKey","addedAt"}]` of devices.
///
/// # Errors
/// `MALFORMED_INPUT` if serialisation fails.
pub fn devices_to_json(devices: &[Device]) -> Result<String> {
    let js: Vec<DeviceJson<'_>> = devices
        .iter()
        .map(|d| DeviceJson {
            device_id: &d.device_id,
            name: &d.name,
            public_key: b64_encode(&d.public_key),
            added_at: d.added_at,
        })
        .collect();
    serde_json::to_string(&js).map_err(|_| MessagingError::Malformed("devices"))
}
