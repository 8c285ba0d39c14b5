//! The client-state codec: one canonical byte string per MLS client.
//!
//! ```text
//! state   = magic "VKMLSC02" (8) || seed (32) || id_len (u16 BE) || identity
//!           || count (u32 BE) || entry*count
//! entry   = key_len (u32 BE) || key || value_len (u32 BE) || value
//! ```
//! Entries are OpenMLS's storage records as `storage.rs` writes them
//! (postcard), in strictly increasing byte order of their keys (so one state
//! has one encoding); nothing follows the last. "VKMLSC01" (the same layout
//! with `openmls_memory_storage`'s serde_json records) is refused.
//! Every length is checked against the bytes left before anything is
//! allocated. `docs/GROUPS.md#client-state` is the same text for a third party.

use super::GroupError;
use std::collections::HashMap;
use zeroize::Zeroizing;

const MAGIC: &[u8; 8] = b"VKMLSC02";
/// The earlier format (JSON records), refused with its own message.
const MAGIC_V1: &[u8; 8] = b"VKMLSC01";
/// Largest state accepted (bytes).
pub(crate) const MAX_STATE_LEN: usize = 256 * 1024 * 1024;

pub(crate) struct Decoded {
    pub(crate) seed: Zeroizing<[u8; 32]>,
    pub(crate) identity: Vec<u8>,
    pub(crate) values: HashMap<Vec<u8>, Vec<u8>>,
}

fn push_len(out: &mut Vec<u8>, len: usize) {
    // Record lengths are bounded by MAX_STATE_LEN (< 2^32) on every path that builds them.
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
}

pub(crate) fn encode(
    seed: &[u8; 32],
    identity: &[u8],
    values: &HashMap<Vec<u8>, Vec<u8>>,
) -> Zeroizing<Vec<u8>> {
    let mut keys: Vec<&Vec<u8>> = values.keys().collect();
    keys.sort();
    let size = 8
        + 32
        + 2
        + identity.len()
        + 4
        + values
            .iter()
            .map(|(k, v)| 8 + k.len() + v.len())
            .sum::<usize>();
    let mut out = Zeroizing::new(Vec::with_capacity(size));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(seed);
    out.extend_from_slice(
        &u16::try_from(identity.len())
            .unwrap_or(u16::MAX)
            .to_be_bytes(),
    );
    out.extend_from_slice(identity);
    push_len(&mut out, keys.len());
    for k in keys {
        push_len(&mut out, k.len());
        out.extend_from_slice(k);
        let v = values.get(k).map_or(&[][..], Vec::as_slice);
        push_len(&mut out, v.len());
        out.extend_from_slice(v);
    }
    out
}

struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], GroupError> {
        if n > self.rest.len() {
            return Err(GroupError::Malformed(what));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }
    fn u32(&mut self, what: &'static str) -> Result<usize, GroupError> {
        let b = self.take(4, what)?;
        let arr: [u8; 4] = b.try_into().map_err(|_| GroupError::Malformed(what))?;
        usize::try_from(u32::from_be_bytes(arr)).map_err(|_| GroupError::Malformed(what))
    }
}

pub(crate) fn decode(bytes: &[u8]) -> Result<Decoded, GroupError> {
    if bytes.len() > MAX_STATE_LEN {
        return Err(GroupError::Malformed("state: longer than 256 MiB"));
    }
    let mut r = Reader { rest: bytes };
    let magic = r.take(8, "state: magic")?;
    if magic == MAGIC_V1 {
        return Err(GroupError::Malformed(
            "state: VKMLSC01 (JSON records) is an earlier, unpublished format that is not read",
        ));
    }
    if magic != MAGIC {
        return Err(GroupError::Malformed("state: magic"));
    }
    let mut seed = Zeroizing::new([0u8; 32]);
    seed.copy_from_slice(r.take(32, "state: seed")?);
    let id_len = {
        let b = r.take(2, "state: identity length")?;
        let arr: [u8; 2] = b
            .try_into()
            .map_err(|_| GroupError::Malformed("state: identity length"))?;
        usize::from(u16::from_be_bytes(arr))
    };
    let identity = r.take(id_len, "state: identity")?.to_vec();
    let count = r.u32("state: entry count")?;
    // Each entry takes at least 8 bytes: a count the rest cannot hold is refused before allocating.
    if count > r.rest.len() / 8 {
        return Err(GroupError::Malformed("state: entry count"));
    }
    let mut values = HashMap::with_capacity(count);
    let mut previous: Option<&[u8]> = None;
    for _ in 0..count {
        let k_len = r.u32("state: key length")?;
        let key = r.take(k_len, "state: key")?;
        if previous.is_some_and(|p| p >= key) {
            return Err(GroupError::Malformed(
                "state: keys not in strictly increasing order",
            ));
        }
        previous = Some(key);
        let v_len = r.u32("state: value length")?;
        let value = r.take(v_len, "state: value")?;
        values.insert(key.to_vec(), value.to_vec());
    }
    if !r.rest.is_empty() {
        return Err(GroupError::Malformed("state: trailing bytes"));
    }
    Ok(Decoded {
        seed,
        identity,
        values,
    })
}
