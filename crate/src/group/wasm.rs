//! The group module's wasm bindings (feature `group-wasm`): its own wasm
//! module, loaded only when an app uses a group.
//!
//! Thin: check argument shapes, call [`crate::group`], convert. One class,
//! [`MlsClient`], holds a [`Client`] and its open groups by id; a
//! [`GroupError`] crosses as an `Error` named `VeilError` with its stable
//! `code` (the same shape as the base module's errors).
use super::{Client, CommitOutput, Group, GroupError, Received, Suite};
use js_sys::{Array, Object, Reflect, Uint8Array};
use std::collections::HashMap;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast as _, JsValue};

fn set(obj: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}

fn bytes(b: &[u8]) -> JsValue {
    Uint8Array::from(b).into()
}

fn fail(e: &GroupError) -> JsValue {
    let err = js_sys::Error::new(&e.to_string());
    err.set_name("VeilError");
    set(&err, "code", &JsValue::from_str(e.code()));
    if let GroupError::UnsupportedSuite(id) = e {
        set(&err, "suite", &JsValue::from(*id));
    }
    err.into()
}

type R<T> = Result<T, JsValue>;

/// Shadow stack each export's body may use, plus headroom. Measured with no
/// wipe (canary-painted stack, one call, deepest overwritten byte): at most
/// 47 KiB (X-Wing suite: `remove`, `update`, `createGroup`, `join`), 17 KiB
/// with the classical suite. `tests/playwright/zeroize.spec.ts` checks on
/// every call of its group scenario that no body reaches below the wipe.
const STACK_WIPE_WORDS: usize = 64 * 1024 / 8;

/// Runs an export's body in its own frame, then wipes the stack it used
/// (secrets of OpenMLS's and the crypto crates' temporaries; [`crate::stack`]).
fn scrubbed<T>(f: impl FnOnce() -> T) -> T {
    let out = crate::stack::in_own_frame(f);
    crate::stack::wipe::<STACK_WIPE_WORDS>();
    out
}

/// One MLS client and its open groups.
#[wasm_bindgen]
pub struct MlsClient {
    client: Client,
    groups: HashMap<Vec<u8>, Group>,
}

fn commit_js(out: &CommitOutput) -> JsValue {
    let o = Object::new();
    set(&o, "commit", &bytes(&out.commit));
    set(
        &o,
        "welcome",
        &out.welcome.as_deref().map_or(JsValue::UNDEFINED, bytes),
    );
    o.into()
}

#[wasm_bindgen]
impl MlsClient {
    /// A new client with a fresh MLS signature key; `identity` is its basic credential (1–4,096 bytes).
    #[wasm_bindgen(constructor)]
    pub fn new(identity: &[u8]) -> R<MlsClient> {
        scrubbed(|| {
            Ok(Self {
                client: Client::new(identity).map_err(|e| fail(&e))?,
                groups: HashMap::new(),
            })
        })
    }

    /// A new client whose credential is certified by a keystore identity: its
    /// `Enc(ID)` (2,017 bytes) and Ed25519 seed (32 bytes, not kept). It requires a
    /// certified credential of every member (`INVALID_CREDENTIAL` otherwise).
    pub fn certified(enc_id: &[u8], ed25519_seed: &[u8]) -> R<MlsClient> {
        scrubbed(|| {
            Ok(Self {
                client: Client::new_certified(enc_id, ed25519_seed).map_err(|e| fail(&e))?,
                groups: HashMap::new(),
            })
        })
    }

    /// A client from `exportState` bytes.
    #[wasm_bindgen(js_name = importState)]
    pub fn import_state(state: &[u8]) -> R<MlsClient> {
        scrubbed(|| {
            Ok(Self {
                client: Client::import_state(state).map_err(|e| fail(&e))?,
                groups: HashMap::new(),
            })
        })
    }

    /// The whole client state (secret: seal it before it is stored).
    #[wasm_bindgen(js_name = exportState)]
    pub fn export_state(&self) -> Vec<u8> {
        scrubbed(|| self.client.export_state().to_vec())
    }

    /// The Ed25519 MLS signature public key.
    #[wasm_bindgen(js_name = signatureKey)]
    pub fn signature_key(&self) -> Vec<u8> {
        scrubbed(|| self.client.signature_key().to_vec())
    }

    /// A key package (`MLSMessage` bytes) for the suite code point.
    #[wasm_bindgen(js_name = createKeyPackage)]
    pub fn create_key_package(&self, suite: u16, last_resort: bool) -> R<Vec<u8>> {
        scrubbed(|| {
            let suite = Suite::from_id(suite).map_err(|e| fail(&e))?;
            self.client
                .create_key_package(suite, last_resort)
                .map_err(|e| fail(&e))
        })
    }

    /// Creates a group; returns its id.
    #[wasm_bindgen(js_name = createGroup)]
    pub fn create_group(&mut self, suite: u16) -> R<Vec<u8>> {
        scrubbed(|| {
            let suite = Suite::from_id(suite).map_err(|e| fail(&e))?;
            let group = self.client.create_group(suite).map_err(|e| fail(&e))?;
            let id = group.id();
            self.groups.insert(id.clone(), group);
            Ok(id)
        })
    }

    /// Joins from a welcome; returns the group id.
    pub fn join(&mut self, welcome: &[u8]) -> R<Vec<u8>> {
        scrubbed(|| {
            let group = self.client.join(welcome).map_err(|e| fail(&e))?;
            let id = group.id();
            self.groups.insert(id.clone(), group);
            Ok(id)
        })
    }

    /// `{ commit, welcome }` adding the key packages (an array of `Uint8Array`).
    pub fn add(&mut self, id: &[u8], key_packages: Array) -> R<JsValue> {
        scrubbed(|| {
            let mut packages = Vec::with_capacity(key_packages.length() as usize);
            for v in key_packages.iter() {
                let Some(u) = v.dyn_ref::<Uint8Array>() else {
                    return Err(fail(&GroupError::InvalidArgument(
                        "key packages: Uint8Array each",
                    )));
                };
                packages.push(u.to_vec());
            }
            let refs: Vec<&[u8]> = packages.iter().map(Vec::as_slice).collect();
            let client = &self.client;
            let group = Self::open(&mut self.groups, client, id)?;
            group
                .add(client, &refs)
                .map(|o| commit_js(&o))
                .map_err(|e| fail(&e))
        })
    }

    fn open<'a>(
        groups: &'a mut HashMap<Vec<u8>, Group>,
        client: &Client,
        id: &[u8],
    ) -> R<&'a mut Group> {
        if !groups.contains_key(id) {
            let group = client.load_group(id).map_err(|e| fail(&e))?;
            groups.insert(id.to_vec(), group);
        }
        groups
            .get_mut(id)
            .ok_or_else(|| fail(&GroupError::NotAMember))
    }

    /// `{ commit, welcome }` removing the members at the leaf indices.
    pub fn remove(&mut self, id: &[u8], indices: &[u32]) -> R<JsValue> {
        scrubbed(|| {
            let client = &self.client;
            let group = Self::open(&mut self.groups, client, id)?;
            group
                .remove(client, indices)
                .map(|o| commit_js(&o))
                .map_err(|e| fail(&e))
        })
    }

    /// `{ commit }` with a fresh leaf and path.
    pub fn update(&mut self, id: &[u8]) -> R<JsValue> {
        scrubbed(|| {
            let client = &self.client;
            let group = Self::open(&mut self.groups, client, id)?;
            group
                .update(client)
                .map(|o| commit_js(&o))
                .map_err(|e| fail(&e))
        })
    }

    /// Deletes the group and every secret of it from the client (`NOT_A_MEMBER` if it holds none).
    #[wasm_bindgen(js_name = deleteGroup)]
    pub fn delete_group(&mut self, id: &[u8]) -> R<()> {
        scrubbed(|| {
            self.groups.remove(id);
            self.client.delete_group(id).map_err(|e| fail(&e))
        })
    }

    /// Merges this member's pending commit.
    #[wasm_bindgen(js_name = mergePending)]
    pub fn merge_pending(&mut self, id: &[u8]) -> R<()> {
        scrubbed(|| {
            let client = &self.client;
            Self::open(&mut self.groups, client, id)?
                .merge_pending(client)
                .map_err(|e| fail(&e))
        })
    }

    /// Discards this member's pending commit.
    #[wasm_bindgen(js_name = discardPending)]
    pub fn discard_pending(&mut self, id: &[u8]) -> R<()> {
        scrubbed(|| {
            let client = &self.client;
            Self::open(&mut self.groups, client, id)?
                .discard_pending(client)
                .map_err(|e| fail(&e))
        })
    }

    /// An application message (`MLSMessage` bytes).
    pub fn encrypt(&mut self, id: &[u8], plaintext: &[u8], aad: &[u8]) -> R<Vec<u8>> {
        scrubbed(|| {
            let client = &self.client;
            Self::open(&mut self.groups, client, id)?
                .encrypt(client, plaintext, aad)
                .map_err(|e| fail(&e))
        })
    }

    /// Processes a message: `{ kind: 'application', sender, senderIdentity, bytes, aad }`,
    /// `{ kind: 'commit', sender, epoch, added, removed, removedSelf, discardedOwn }` or
    /// `{ kind: 'proposal', sender }`.
    pub fn receive(&mut self, id: &[u8], message: &[u8]) -> R<JsValue> {
        scrubbed(|| {
            let client = &self.client;
            let received = Self::open(&mut self.groups, client, id)?
                .receive(client, message)
                .map_err(|e| fail(&e))?;
            let o = Object::new();
            let sender = |s: Option<u32>| s.map_or(JsValue::NULL, JsValue::from);
            match received {
                Received::Application {
                    sender: s,
                    sender_identity,
                    bytes: b,
                    aad,
                } => {
                    set(&o, "kind", &"application".into());
                    set(&o, "sender", &JsValue::from(s));
                    set(&o, "senderIdentity", &bytes(&sender_identity));
                    set(&o, "bytes", &bytes(&b));
                    set(&o, "aad", &bytes(&aad));
                }
                Received::Commit {
                    sender: s,
                    epoch,
                    added,
                    removed,
                    removed_self,
                    discarded_own,
                } => {
                    set(&o, "kind", &"commit".into());
                    set(&o, "sender", &sender(s));
                    set(&o, "epoch", &JsValue::from(epoch));
                    set(
                        &o,
                        "added",
                        &added.iter().map(|a| bytes(a)).collect::<Array>(),
                    );
                    set(
                        &o,
                        "removed",
                        &removed.iter().map(|&r| JsValue::from(r)).collect::<Array>(),
                    );
                    set(&o, "removedSelf", &JsValue::from(removed_self));
                    set(&o, "discardedOwn", &JsValue::from(discarded_own));
                }
                Received::Proposal { sender: s } => {
                    set(&o, "kind", &"proposal".into());
                    set(&o, "sender", &sender(s));
                }
            }
            Ok(o.into())
        })
    }

    /// `{ groupId, suite, epoch, ownIndex, members: [{ index, identity, signatureKey }], commitPending, active }`.
    pub fn info(&mut self, id: &[u8]) -> R<JsValue> {
        scrubbed(|| {
            let client = &self.client;
            let info = Self::open(&mut self.groups, client, id)?
                .info()
                .map_err(|e| fail(&e))?;
            let o = Object::new();
            set(&o, "groupId", &bytes(&info.group_id));
            set(&o, "suite", &JsValue::from(info.suite.id()));
            set(&o, "epoch", &JsValue::from(info.epoch));
            set(&o, "ownIndex", &JsValue::from(info.own_index));
            let members = Array::new();
            for m in &info.members {
                let mo = Object::new();
                set(&mo, "index", &JsValue::from(m.index));
                set(&mo, "identity", &bytes(&m.identity));
                set(&mo, "signatureKey", &bytes(&m.signature_key));
                members.push(&mo);
            }
            set(&o, "members", &members);
            set(&o, "commitPending", &JsValue::from(info.commit_pending));
            set(&o, "active", &JsValue::from(info.active));
            Ok(o.into())
        })
    }
}

/// Test-only exports (feature `group-testing`; `scripts/build.sh` with VEILKIT_TESTING=1).
#[cfg(feature = "group-testing")]
#[wasm_bindgen]
impl MlsClient {
    /// Turns the serde_json mirror of every client's storage records on or off
    /// (`crate/src/group/storage.rs`); off by default.
    #[wasm_bindgen(js_name = setStateJsonMirrorForTesting)]
    pub fn set_state_json_mirror_for_testing(on: bool) {
        Client::set_json_mirror_for_testing(on);
    }

    /// `exportState`'s layout with each record as the serde_json the mirror
    /// holds (the records written while it was on).
    #[wasm_bindgen(js_name = exportStateJsonForTesting)]
    pub fn export_state_json_for_testing(&self) -> Vec<u8> {
        scrubbed(|| self.client.export_state_json_for_testing().to_vec())
    }
}
