//! Entry points shared by the cargo-fuzz targets (`fuzz/`) and the corpus
//! replay test. Each returns `Err` only when an invariant is broken (never
//! for merely invalid input), so a fuzz target panics on `Err`.

use super::header::Header;
use super::manifest::GroupManifest;
use super::policy::VerificationPolicy;
use super::wrap::{ThresholdShare, WrapEntry};

/// Header parser: canonical round trip, prefix-length agreement, and the
/// verification pipeline on arbitrary bytes.
///
/// # Errors
/// A description of the broken invariant.
pub fn header(data: &[u8]) -> Result<(), &'static str> {
    if let Ok((h, len)) = Header::parse(data) {
        let bytes = h
            .to_bytes()
            .map_err(|_| "parsed header does not serialise")?;
        if Some(bytes.as_slice()) != data.get(..len) {
            return Err("header round trip is not canonical");
        }
        match Header::required_len(data) {
            Ok(Ok(l)) if l == len => {}
            _ => return Err("required_len disagrees with parse"),
        }
        if Header::parse_exact(&bytes).as_ref() != Ok(&h) {
            return Err("parse_exact of the serialised header differs");
        }
    }
    // Must not panic, whatever the outcome.
    let _ = super::verify_container(data, &VerificationPolicy::default(), None);
    Ok(())
}

/// Wrap-table parser: `data[0]` is the wrap count, the rest the table.
///
/// # Errors
/// A description of the broken invariant.
pub fn wrap(data: &[u8]) -> Result<(), &'static str> {
    let Some((&count, table)) = data.split_first() else {
        return Ok(());
    };
    if let Ok(wraps) = WrapEntry::parse_table(table, count) {
        let mut out = Vec::new();
        for w in &wraps {
            w.write(&mut out);
        }
        if out != table {
            return Err("wrap table round trip is not canonical");
        }
    }
    if let Ok((w, used)) = WrapEntry::parse(data)
        && (Some(w.to_bytes().as_slice()) != data.get(..used) || used != w.wire_len())
    {
        return Err("wrap entry round trip is not canonical");
    }
    Ok(())
}

/// Share parser: string form and payload form.
///
/// # Errors
/// A description of the broken invariant.
pub fn share(data: &[u8]) -> Result<(), &'static str> {
    if let Ok(text) = core::str::from_utf8(data)
        && let Ok(s) = ThresholdShare::parse(text)
        && s.to_vcs().as_str() != text
    {
        return Err("share string round trip is not canonical");
    }
    if let Ok(s) = ThresholdShare::from_payload(data)
        && s.to_payload().as_slice() != data
    {
        return Err("share payload round trip is not canonical");
    }
    Ok(())
}

/// Manifest parser and verifier.
///
/// # Errors
/// A description of the broken invariant.
pub fn manifest(data: &[u8]) -> Result<(), &'static str> {
    if let Ok(m) = GroupManifest::parse(data) {
        if m.to_bytes() != data {
            return Err("manifest round trip is not canonical");
        }
        if let Ok(state) = m.verify(None, None) {
            if m.verify(Some(state.head_epoch), None).is_err() {
                return Err("a verified manifest fails its own head pin");
            }
            if !state.admins.is_subset(&state.members) || !state.members.contains(&state.founder) {
                return Err("admins must be members and the founder a member");
            }
        }
    }
    Ok(())
}
