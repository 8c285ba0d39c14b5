//! Identity, prekey and bundle bindings, and the clear fields of an initial
//! message (public outputs except a prekey's secret).
use super::{identity_of, int, opt_int, parts_out, safe_u64};
use crate::error::CryptoError;
use crate::hash::sha256;
use crate::session::SessionError;
use crate::session::bundle::Bundle;
use crate::session::handshake::InitialMessage;
use crate::session::identity::SessionIdentity;
use crate::session::prekey::{self, PrekeyKind, SignedPrekey};
use crate::session::versions::SUPPORTED_VERSIONS;
use crate::wasm::{JsResult, StackUse, scrubbed, secret_in};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

/// `lp(Enc(ID)) ‖ lp(identity id)` of the 96-byte identity seeds.
#[wasm_bindgen(js_name = "sessionIdentity")]
pub fn session_identity(seeds: Vec<u8>) -> JsResult<Uint8Array> {
    scrubbed(StackUse::MlDsa, || {
        let seeds = secret_in(seeds);
        let id = identity_of(&seeds)?;
        parts_out(&[id.public().encoding(), id.public().id()])
    })
}

/// A new signed prekey of `kind` (1 signed X25519, 2 one-time X25519,
/// 3 last-resort ML-KEM-768, 4 one-time ML-KEM-768):
/// `lp(record) ‖ lp(secret)` (32-byte scalar or 2,400-byte decapsulation key).
#[wasm_bindgen(js_name = "sessionGeneratePrekey")]
pub fn session_generate_prekey(
    seeds: Vec<u8>,
    kind: u8,
    key_id: u32,
    created: f64,
    expires: f64,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::MlDsa, || {
        let seeds = secret_in(seeds);
        let kind = PrekeyKind::from_byte(kind)
            .ok_or(CryptoError::InvalidParameter("prekey kind must be 1 to 4"))?;
        let created = safe_u64("created must be a safe integer", created)?;
        let expires = safe_u64("expires must be a safe integer", expires)?;
        let id = identity_of(&seeds)?;
        if kind.is_kem() {
            let p = prekey::generate_mlkem_prekey(&id, kind, key_id, created, expires)?;
            let record = Zeroizing::new(p.public.to_bytes());
            parts_out(&[&record, &p.decapsulation_key])
        } else {
            let p = prekey::generate_x25519_prekey(&id, kind, key_id, created, expires)?;
            let record = Zeroizing::new(p.public.to_bytes());
            parts_out(&[&record, p.secret.as_slice()])
        }
    })
}

fn record(what: &'static str, bytes: &[u8], kind: PrekeyKind) -> JsResult<SignedPrekey> {
    let p = SignedPrekey::parse(bytes)?;
    if p.kind != kind {
        return Err(SessionError::BundleInvalid(what).into());
    }
    Ok(p)
}

/// The canonical bundle bytes of an identity encoding, a device id, a
/// version list (default: the supported versions) and prekey records, each
/// of its slot's kind (`BUNDLE_INVALID` otherwise). Signatures are not
/// checked here (`sessionVerifyBundle` does).
#[wasm_bindgen(js_name = "sessionEncodeBundle")]
pub fn session_encode_bundle(
    identity: &[u8],
    device_id: u32,
    versions: Option<Vec<u8>>,
    signed_prekey: &[u8],
    pq_last_resort: &[u8],
    one_time_x25519: Option<Vec<u8>>,
    one_time_mlkem: Option<Vec<u8>>,
) -> JsResult<Vec<u8>> {
    let one_time = one_time_x25519
        .map(|b| {
            record(
                "one-time X25519 prekey slot holds another kind",
                &b,
                PrekeyKind::X25519OneTime,
            )
        })
        .transpose()?;
    let pq_one_time = one_time_mlkem
        .map(|b| {
            record(
                "one-time ML-KEM prekey slot holds another kind",
                &b,
                PrekeyKind::MlKemOneTime,
            )
        })
        .transpose()?;
    let bundle = Bundle {
        identity: SessionIdentity::from_encoding(identity)?,
        device_id,
        versions: versions.unwrap_or_else(|| SUPPORTED_VERSIONS.to_vec()),
        signed_prekey: record(
            "signed X25519 prekey slot holds another kind",
            signed_prekey,
            PrekeyKind::X25519Signed,
        )?,
        pq_last_resort: record(
            "last-resort ML-KEM prekey slot holds another kind",
            pq_last_resort,
            PrekeyKind::MlKemLastResort,
        )?,
        one_time,
        pq_one_time,
    };
    Ok(bundle.to_bytes()?)
}

/// Parses and verifies a bundle at `now` (optional pin): `lp(Enc(ID)) ‖
/// lp(identity id) ‖ int(device id) ‖ lp(versions) ‖ int(signed prekey id) ‖
/// int(last-resort id) ‖ opt(one-time X25519 id) ‖ opt(one-time ML-KEM id) ‖
/// int(earliest expiry)`.
#[wasm_bindgen(js_name = "sessionVerifyBundle")]
pub fn session_verify_bundle(
    bundle: &[u8],
    now: f64,
    pinned: Option<Vec<u8>>,
) -> JsResult<Uint8Array> {
    scrubbed(StackUse::MlDsa, || {
        let now = safe_u64("now must be a safe integer", now)?;
        let b = Bundle::parse(bundle)?;
        b.verify(pinned.as_deref(), now)?;
        let expires = [
            Some(&b.signed_prekey),
            Some(&b.pq_last_resort),
            b.one_time.as_ref(),
            b.pq_one_time.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(|p| p.expires)
        .min()
        .unwrap_or_default();
        parts_out(&[
            b.identity.encoding(),
            b.identity.id(),
            &int(u64::from(b.device_id)),
            &b.versions,
            &int(u64::from(b.signed_prekey.key_id)),
            &int(u64::from(b.pq_last_resort.key_id)),
            &opt_int(b.one_time.as_ref().map(|p| p.key_id)),
            &opt_int(b.pq_one_time.as_ref().map(|p| p.key_id)),
            &int(expires),
        ])
    })
}

/// The replay digest `SHA-256(EK_A ‖ CT)` when the message used no one-time prekey.
fn replay_digest(m: &InitialMessage) -> Option<[u8; 32]> {
    (m.one_time_prekey_id.is_none() && m.pq_prekey_kind == PrekeyKind::MlKemLastResort)
        .then(|| sha256(&[m.ephemeral.as_slice(), &m.ciphertext].concat()))
}

/// Parses an initial message (no verification): `int(version) ‖
/// lp(Enc(ID_A)) ‖ int(device_A) ‖ lp(identity id_B) ‖ int(device_B) ‖
/// int(signed prekey id) ‖ int(PQ prekey kind byte) ‖ int(PQ prekey id) ‖
/// opt(one-time prekey id) ‖ lp(replay digest, empty with a one-time prekey)`.
#[wasm_bindgen(js_name = "sessionInitialMessageInfo")]
pub fn session_initial_message_info(message: &[u8]) -> JsResult<Uint8Array> {
    let m = InitialMessage::parse(message)?;
    let digest = replay_digest(&m);
    parts_out(&[
        &int(u64::from(m.version)),
        m.initiator_identity.encoding(),
        &int(u64::from(m.initiator_device_id)),
        &m.responder_identity_id,
        &int(u64::from(m.responder_device_id)),
        &int(u64::from(m.signed_prekey_id)),
        &int(u64::from(m.pq_prekey_kind.byte())),
        &int(u64::from(m.pq_prekey_id)),
        &opt_int(m.one_time_prekey_id),
        digest.as_ref().map_or(&[][..], |d| d.as_slice()),
    ])
}
