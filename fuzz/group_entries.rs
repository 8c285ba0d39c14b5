//! Entry points of the group fuzz targets (`fuzz/fuzz_targets/group_*.rs`) and
//! of their corpus replay in `cargo test --features group`
//! (`crate/tests/fuzz_corpus_replay.rs`), included in both with `#[path]`.
//!
//! They are the core calls behind the group wasm module's entry points that
//! take untrusted bytes (`MlsClient.importState`, `receive`, `join`, `add`).
//! Each entry returns `Err` only when an invariant is broken, never for merely
//! invalid input. Invariants:
//! - the client-state parser is total and canonical (what parses re-encodes
//!   to the same bytes);
//! - a message, welcome or key package that is refused leaves the client's
//!   state byte-for-byte as it was (the transactional rule of docs/GROUPS.md);
//! - nothing panics.
//!
//! The fixture states in `fuzz/group_fixture/` (a member of a two-member group
//! at epoch 1, and a client holding one key package) were written together with
//! the seed corpora by `crate/tests/fuzz_corpus_replay.rs`
//! `regenerate_group_corpora`; a seed message is valid for them.
#![allow(dead_code)]

use veilkit::group::Client;

/// An entry point: `Err` names the broken invariant.
pub type Entry = fn(&[u8]) -> Result<(), &'static str>;

/// Every group target, by name.
pub const TARGETS: [(&str, Entry); 4] = [
    ("group_state", state),
    ("group_receive", receive),
    ("group_welcome", welcome),
    ("group_key_package", key_package),
];

/// The member that receives: a two-member group (created by "alice") at epoch 1.
pub const MEMBER_STATE: &[u8] = include_bytes!("group_fixture/member.state");
/// That group's id.
pub const GROUP_ID: &[u8] = include_bytes!("group_fixture/group.id");
/// A client holding one key package (the one the seed welcome consumes).
pub const JOINER_STATE: &[u8] = include_bytes!("group_fixture/joiner.state");

/// `Client::import_state`: total, and canonical when it accepts.
pub fn state(data: &[u8]) -> Result<(), &'static str> {
    if let Ok(client) = Client::import_state(data)
        && client.export_state().as_slice() != data
    {
        return Err("an accepted state re-encodes to other bytes");
    }
    Ok(())
}

/// Whether `receive` accepts `data` (for the replay's verdicts).
pub fn receive_accepts(data: &[u8]) -> bool {
    let Ok(client) = Client::import_state(MEMBER_STATE) else {
        return false;
    };
    let Ok(mut group) = client.load_group(GROUP_ID) else {
        return false;
    };
    group.receive(&client, data).is_ok()
}

/// `Group::receive` on the member: a refused message changes nothing.
pub fn receive(data: &[u8]) -> Result<(), &'static str> {
    let client = Client::import_state(MEMBER_STATE).map_err(|_| "fixture: member state")?;
    let mut group = client.load_group(GROUP_ID).map_err(|_| "fixture: group")?;
    if group.receive(&client, data).is_err() && client.export_state().as_slice() != MEMBER_STATE {
        return Err("a refused message changed the state");
    }
    Ok(())
}

/// Whether `join` accepts `data`.
pub fn welcome_accepts(data: &[u8]) -> bool {
    Client::import_state(JOINER_STATE).is_ok_and(|client| client.join(data).is_ok())
}

/// `Client::join` on the joiner: a refused welcome changes nothing (its key
/// package is not consumed).
pub fn welcome(data: &[u8]) -> Result<(), &'static str> {
    let client = Client::import_state(JOINER_STATE).map_err(|_| "fixture: joiner state")?;
    if client.join(data).is_err() && client.export_state().as_slice() != JOINER_STATE {
        return Err("a refused welcome changed the state");
    }
    Ok(())
}

/// Whether `add` accepts `data` as a key package.
pub fn key_package_accepts(data: &[u8]) -> bool {
    let Ok(client) = Client::import_state(MEMBER_STATE) else {
        return false;
    };
    let Ok(mut group) = client.load_group(GROUP_ID) else {
        return false;
    };
    group.add(&client, &[data]).is_ok()
}

/// `Group::add` on the member with `data` as the key package: a refused one
/// changes nothing.
pub fn key_package(data: &[u8]) -> Result<(), &'static str> {
    let client = Client::import_state(MEMBER_STATE).map_err(|_| "fixture: member state")?;
    let mut group = client.load_group(GROUP_ID).map_err(|_| "fixture: group")?;
    if group.add(&client, &[data]).is_err() && client.export_state().as_slice() != MEMBER_STATE {
        return Err("a refused key package changed the state");
    }
    Ok(())
}
