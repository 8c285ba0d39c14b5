//! Handshake bindings: `initiate` and `respond`, each ending in a ratchet
//! state (docs/SESSIONS.md §4, §5.1) and the first ratchet message.
use super::{identity_of, int, limits_of, opt_int, parts_out, safe_u64};
use crate::session::HandshakeKeys;
use crate::session::handshake::{self, LocalDevice, PrekeyStore, ReplayKey};
use crate::session::prekey::PrekeyKind;
use crate::session::ratchet::RatchetState;
use crate::session::versions::SUPPORTED_VERSIONS;
use crate::wasm::{JsResult, StackUse, scrubbed, secret_in};
use crate::{error::CryptoError, rng};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

/// Starts a session: verifies `peer_bundle` at `now` (optional pin),
/// derives the keys, builds the initiator's ratchet state, encrypts
/// `plaintext` with `aad` as the first ratchet message and puts it in the
/// initial message. `lp(state) ‖ lp(initial message) ‖ int(counter) ‖
/// lp(peer Enc(ID)) ‖ int(peer device id) ‖ int(version) ‖ lp(own Enc(ID))`
/// (the state binds both encodings by hash only: the caller keeps them).
#[wasm_bindgen(js_name = "sessionInitiate")]
#[allow(
    clippy::too_many_arguments,
    reason = "one flat argument list per JS option"
)]
pub fn session_initiate(
    seeds: Vec<u8>,
    device_id: u32,
    peer_bundle: &[u8],
    now: f64,
    pinned: Option<Vec<u8>>,
    plaintext: Vec<u8>,
    aad: &[u8],
    max_jump: Option<u32>,
    max_skipped_keys: Option<u32>,
    max_receiving_chains: Option<u32>,
    max_skipped_age_secs: Option<f64>,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::MlDsa, || {
        let (seeds, plaintext) = (secret_in(seeds), secret_in(plaintext));
        let now = safe_u64("now must be a safe integer", now)?;
        let limits = limits_of(
            max_jump,
            max_skipped_keys,
            max_receiving_chains,
            max_skipped_age_secs,
        )?;
        let id = identity_of(&seeds)?;
        let local = LocalDevice {
            identity: &id,
            device_id,
            versions: SUPPORTED_VERSIONS,
        };
        let init = handshake::initiate(&local, peer_bundle, pinned.as_deref(), now)?;
        let peer = init.binding.responder_identity.clone();
        let version = init.binding.version;
        let (peer_device_id, spk) = (init.peer_device_id, init.peer_signed_prekey);
        let mut state = RatchetState::new_initiator(
            clone_keys(&init.keys),
            init.binding.clone(),
            spk,
            limits,
            &mut rng::fill,
        )?;
        let first = state.encrypt(&plaintext, aad, &mut rng::fill)?;
        let initial = init.initial_message(&first)?;
        let bytes = state.to_bytes();
        parts_out(&[
            &bytes,
            &initial,
            &int(state.counter()),
            &peer,
            &int(u64::from(peer_device_id)),
            &int(u64::from(version)),
            &init.binding.initiator_identity,
        ])
    })
}

/// A copy of the handshake keys (the `Initiation` is still needed for its tag).
fn clone_keys(k: &HandshakeKeys) -> HandshakeKeys {
    HandshakeKeys {
        root_key: k.root_key.clone(),
        chain_key: k.chain_key.clone(),
        pq_root_0: k.pq_root_0.clone(),
    }
}

/// A one-shot prekey store: the secrets the caller looked up for one
/// initial message (by `sessionInitialMessageInfo`). The replay check is the
/// caller's (it looks the digest up before calling), so `replay_seen` is false.
struct OneShotStore {
    signed: Zeroizing<[u8; 32]>,
    pq: Zeroizing<Vec<u8>>,
    one_time: Option<Zeroizing<[u8; 32]>>,
}

impl PrekeyStore for OneShotStore {
    fn signed_prekey(&self, _key_id: u32) -> Option<Zeroizing<[u8; 32]>> {
        Some(self.signed.clone())
    }

    fn one_time_prekey(&self, _key_id: u32) -> Option<Zeroizing<[u8; 32]>> {
        self.one_time.clone()
    }

    fn mlkem_prekey(&self, _kind: PrekeyKind, _key_id: u32) -> Option<Zeroizing<Vec<u8>>> {
        Some(self.pq.clone())
    }

    fn replay_seen(&self, _key: &ReplayKey) -> bool {
        false
    }
}

fn scalar(what: &'static str, bytes: &[u8]) -> JsResult<Zeroizing<[u8; 32]>> {
    Ok(Zeroizing::new(<[u8; 32]>::try_from(bytes).map_err(
        |_| CryptoError::length(what, "32", bytes.len()),
    )?))
}

/// Answers an initial message with the prekey secrets it names, builds the
/// responder's state and decrypts the first ratchet message with `aad`.
/// `lp(state) ‖ lp(plaintext) ‖ int(counter) ‖ lp(peer Enc(ID)) ‖
/// int(peer device id) ‖ int(version) ‖ opt(consumed one-time X25519 id) ‖
/// opt(consumed one-time ML-KEM id) ‖ lp(replay digest, empty with a one-time prekey)
/// ‖ lp(own Enc(ID))` (the state binds both encodings by hash only: the caller keeps them).
#[wasm_bindgen(js_name = "sessionRespond")]
#[allow(
    clippy::too_many_arguments,
    reason = "one flat argument list per JS option"
)]
pub fn session_respond(
    seeds: Vec<u8>,
    device_id: u32,
    initial_message: &[u8],
    now: f64,
    pinned: Option<Vec<u8>>,
    signed_prekey_secret: Vec<u8>,
    pq_prekey_secret: Vec<u8>,
    one_time_prekey_secret: Option<Vec<u8>>,
    aad: &[u8],
    max_jump: Option<u32>,
    max_skipped_keys: Option<u32>,
    max_receiving_chains: Option<u32>,
    max_skipped_age_secs: Option<f64>,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::MlDsa, || {
        let seeds = secret_in(seeds);
        let spk = secret_in(signed_prekey_secret);
        let pq = secret_in(pq_prekey_secret);
        let opk = one_time_prekey_secret.map(secret_in);
        let now = safe_u64("now must be a safe integer", now)?;
        let limits = limits_of(
            max_jump,
            max_skipped_keys,
            max_receiving_chains,
            max_skipped_age_secs,
        )?;
        let store = OneShotStore {
            signed: scalar("signed prekey secret", &spk)?,
            pq,
            one_time: opk
                .as_deref()
                .map(|s| scalar("one-time prekey secret", s))
                .transpose()?,
        };
        let id = identity_of(&seeds)?;
        let local = LocalDevice {
            identity: &id,
            device_id,
            versions: SUPPORTED_VERSIONS,
        };
        let r = handshake::respond(&local, initial_message, pinned.as_deref(), &store)?;
        let state =
            RatchetState::new_responder(r.keys, r.binding.clone(), r.signed_prekey_secret, limits)?;
        let (state, plaintext) = state.decrypt(&r.first_message, aad, now)?;
        let bytes = state.to_bytes();
        let digest = r.replay_key.map(|k| k.digest);
        parts_out(&[
            &bytes,
            &plaintext,
            &int(state.counter()),
            r.initiator.encoding(),
            &int(u64::from(r.initiator_device_id)),
            &int(u64::from(r.binding.version)),
            &opt_int(r.consumed.one_time_x25519),
            &opt_int(r.consumed.one_time_mlkem),
            digest.as_ref().map_or(&[][..], |d| d.as_slice()),
            &r.binding.responder_identity,
        ])
    })
}
