//! Shared helpers of the container tests.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use veilkit::container::*;
use zeroize::Zeroizing;

pub const PASSWORD: &[u8] = b"correct horse battery staple";
pub const GROUP_ID: [u8; 16] = [0x47; 16];
pub const GROUP_KEY: [u8; 32] = [0x4b; 32];
pub const SMALL: u32 = 4096;

/// Deterministic test plaintext.
pub fn data(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(31) ^ (i >> 8)) as u8)
        .collect()
}

pub fn argon_min(password: &[u8]) -> WrapSpec {
    WrapSpec::Argon2id {
        password: Zeroizing::new(password.to_vec()),
        cost: Argon2idCost::MINIMUM,
    }
}

pub fn group_spec() -> WrapSpec {
    WrapSpec::group(GROUP_ID, 0, &GROUP_KEY)
}

pub fn group_unlock() -> Unlock<'static> {
    Unlock::Group(GroupUnlock {
        group_id: GROUP_ID,
        key_version: 0,
        group_key: &GROUP_KEY,
        manifest: None,
    })
}

/// X-Wing key pair from a fixed seed byte.
pub fn xwing(seed: u8) -> veilkit::xwing::XWingKeypair {
    veilkit::xwing::xwing_from_seed(&[seed; 32]).unwrap()
}

pub fn options(wraps: Vec<WrapSpec>, chunk_size: u32) -> EncryptOptions {
    let mut o = EncryptOptions::new(0, wraps);
    o.chunk_size = chunk_size;
    o
}

/// A group-wrapped container (fast to open) of `len` bytes in `chunk_size` chunks.
pub fn group_container(len: usize, chunk_size: u32) -> (Vec<u8>, Vec<u8>) {
    let pt = data(len);
    let c = encrypt(&pt, options(vec![group_spec()], chunk_size))
        .unwrap()
        .container;
    (c, pt)
}

pub fn ed_signer(ts: u64) -> SigningKeys {
    SigningKeys::ed25519(&[0x11; 32], [0x22; 32], ts).unwrap()
}

pub fn hybrid_signer(ts: u64) -> SigningKeys {
    SigningKeys::hybrid(&[0x11; 32], &[0x33; 32], [0x22; 32], ts).unwrap()
}

pub fn open(container: &[u8], unlock: &Unlock<'_>) -> Result<Vec<u8>> {
    let d = decrypt(container, unlock, &VerificationPolicy::default())?;
    Ok(d.plaintext.expect("intact container").to_vec())
}

/// Decrypts in verified/abort mode and asserts the error and that the sink
/// never saw plaintext.
pub fn assert_rejected(container: &[u8], unlock: &Unlock<'_>, want: &str) -> ContainerError {
    let mut released = 0usize;
    let r = decrypt_with_sink(
        container,
        unlock,
        &VerificationPolicy::default(),
        &mut |_, _| released += 1,
    );
    let err = match r {
        Ok(rep) => panic!("expected {want}, got Ok({rep:?})"),
        Err(e) => e,
    };
    assert_eq!(err.code(), want, "{err}");
    assert_eq!(released, 0, "plaintext released in verified mode");
    err
}

/// The leaf table of a container (the `32 · n` bytes after the header).
pub fn leaf_table(container: &[u8]) -> Vec<[u8; 32]> {
    let reader = ContainerReader::new(container).unwrap();
    let h = reader.header_len();
    let n = reader.leaf_table_len() as usize;
    container[h..h + n]
        .chunks_exact(32)
        .map(|c| <[u8; 32]>::try_from(c).unwrap())
        .collect()
}

/// A reader over `container` with its leaf table accepted.
pub fn reader_with_table(container: &[u8]) -> ContainerReader {
    let mut reader = ContainerReader::new(container).unwrap();
    let h = reader.header_len();
    let n = reader.leaf_table_len() as usize;
    reader.set_leaf_table(&container[h..h + n]).unwrap();
    reader
}

/// Header length of a container.
pub fn header_len(container: &[u8]) -> usize {
    Header::parse(container).unwrap().1
}

/// Splits a container into (header ‖ leaf table, envelopes).
pub fn split(container: &[u8]) -> (Vec<u8>, Vec<Vec<u8>>) {
    let reader = ContainerReader::new(container).unwrap();
    let h = reader.header_len() + reader.leaf_table_len() as usize;
    let mut envs = Vec::new();
    for i in 0..reader.chunk_count() {
        let off = reader.chunk_offset(i).unwrap() as usize;
        let len = reader.envelope_len(i).unwrap();
        envs.push(container[off..off + len].to_vec());
    }
    (container[..h].to_vec(), envs)
}

pub fn join(header: &[u8], envs: &[Vec<u8>]) -> Vec<u8> {
    let mut out = header.to_vec();
    envs.iter().for_each(|e| out.extend_from_slice(e));
    out
}

/// Re-serialises a header after `edit` (no re-signing).
pub fn edit_header(container: &[u8], edit: impl FnOnce(&mut Header)) -> Vec<u8> {
    let (mut h, len) = Header::parse(container).unwrap();
    edit(&mut h);
    let mut out = h.to_bytes().unwrap();
    out.extend_from_slice(&container[len..]);
    out
}
