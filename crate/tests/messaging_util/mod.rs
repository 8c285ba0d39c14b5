//! Shared by the messaging test binaries (`mod messaging_util;`).

/// The code PROTOCOL.md §4 gives a chunked ciphertext that is not an
/// encryption under (KEY, AAD): `INVALID_LENGTH` below the 8-byte header,
/// `MALFORMED_INPUT` when the header's geometry does not fit the length
/// (chunk size or count zero; every chunk but the last full, the last
/// `1..chunk_size` bytes, 0 only for a single chunk), else
/// `AUTHENTICATION_FAILED`.
pub fn chunked_failure(ct: &[u8]) -> &'static str {
    if ct.len() < 8 {
        return "INVALID_LENGTH";
    }
    let size = u128::from(u32::from_be_bytes(ct[..4].try_into().unwrap()));
    let n = u128::from(u32::from_be_bytes(ct[4..8].try_into().unwrap()));
    let body = (ct.len() - 8) as u128;
    let fits = size > 0 && n > 0 && body >= 28 * n && {
        let (pt, full) = (body - 28 * n, (n - 1) * size);
        pt >= full && pt - full <= size && (pt > full || n == 1)
    };
    if fits {
        "AUTHENTICATION_FAILED"
    } else {
        "MALFORMED_INPUT"
    }
}
