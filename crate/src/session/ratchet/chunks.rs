//! The erasure code of format 2's PQ field (docs/SESSIONS.md §5.11): a
//! systematic polynomial code over GF(2^16) with 32-byte chunks.
//!
//! ```text
//! GF(2^16) = GF(2)[x] / (x^16 + x^12 + x^3 + x + 1)          (0x1100B; a u16 is a polynomial, bit i = x^i)
//! data     = K chunks of 32 bytes (K = 37 for an ek, 34 for a ct); chunk c = 16 symbols s[c][0..16],
//!            s[c][j] = u16 big-endian of bytes 2j, 2j+1 of the chunk
//! P_j      = the unique polynomial of degree < K with P_j(c) = s[c][j] for c = 0 … K − 1
//! chunk(x) = P_0(x) ‖ … ‖ P_15(x)  (u16 big-endian each), for any index x in 0 … 65535
//! ```
//! Indices are field elements (the u16 read as a polynomial), so the
//! chunks at indices 0 … K − 1 are the data itself and every other index is
//! a parity chunk; any K chunks with distinct indices determine the data
//! (Lagrange interpolation). Nothing here is secret (`ek` and `ct` are
//! public), so the field arithmetic need not be constant-time; it is
//! table-free all the same. Every function is total (no panics, no indexing).

use crate::session::{Result, SessionError};

/// Bytes per chunk.
pub const CHUNK_LEN: usize = 32;
/// Symbols (u16) per chunk.
const SYMBOLS: usize = CHUNK_LEN / 2;
/// The reduction polynomial without its x^16 term.
const POLY_LOW: u32 = 0x100B;

/// A chunk: its index and its 32 bytes.
pub type Chunk = (u16, [u8; CHUNK_LEN]);

/// Product in GF(2^16).
fn mul(a: u16, b: u16) -> u16 {
    let mut acc: u32 = 0;
    let mut a = u32::from(a);
    let mut b = b;
    for _ in 0..16 {
        acc ^= a & 0u32.wrapping_sub(u32::from(b & 1));
        b >>= 1;
        a <<= 1;
        a ^= POLY_LOW & 0u32.wrapping_sub(a >> 16);
        a &= 0xFFFF;
    }
    u16::try_from(acc & 0xFFFF).unwrap_or(0)
}

/// Inverse in GF(2^16) (a^(2^16 − 2)); 0 maps to 0 (never called with 0).
fn inv(a: u16) -> u16 {
    // 2^16 − 2 = 0b1111_1111_1111_1110.
    let mut result: u16 = 1;
    let mut base = a;
    let mut e: u32 = 0xFFFE;
    while e > 0 {
        if e & 1 == 1 {
            result = mul(result, base);
        }
        base = mul(base, base);
        e >>= 1;
    }
    result
}

fn symbols(chunk: &[u8; CHUNK_LEN]) -> [u16; SYMBOLS] {
    let mut out = [0u16; SYMBOLS];
    for (o, pair) in out.iter_mut().zip(chunk.chunks_exact(2)) {
        if let [hi, lo] = pair {
            *o = u16::from_be_bytes([*hi, *lo]);
        }
    }
    out
}

fn bytes(symbols: &[u16; SYMBOLS]) -> [u8; CHUNK_LEN] {
    let mut out = [0u8; CHUNK_LEN];
    for (pair, s) in out.chunks_exact_mut(2).zip(symbols) {
        pair.copy_from_slice(&s.to_be_bytes());
    }
    out
}

/// Lagrange weights `w_i = Π_{m≠i} (x − x_m) / (x_i − x_m)` of the points
/// `xs` (distinct) at `x`; `x` equal to a point gives the unit vector.
fn weights(xs: &[u16], x: u16) -> Vec<u16> {
    if let Some(pos) = xs.iter().position(|&p| p == x) {
        return xs
            .iter()
            .enumerate()
            .map(|(i, _)| u16::from(i == pos))
            .collect();
    }
    // Π (x − x_m) once, then divide out (x − x_i) per weight.
    let full = xs.iter().fold(1u16, |acc, &m| mul(acc, x ^ m));
    xs.iter()
        .map(|&xi| {
            let den = xs
                .iter()
                .filter(|&&m| m != xi)
                .fold(x ^ xi, |acc, &m| mul(acc, xi ^ m));
            mul(full, inv(den))
        })
        .collect()
}

/// `Σ w_i · chunk_i`, symbol by symbol.
fn combine(ws: &[u16], chunks: &[[u16; SYMBOLS]]) -> [u8; CHUNK_LEN] {
    let mut acc = [0u16; SYMBOLS];
    for (w, c) in ws.iter().zip(chunks) {
        for (a, s) in acc.iter_mut().zip(c) {
            *a ^= mul(*w, *s);
        }
    }
    bytes(&acc)
}

/// Number of data chunks of `len` bytes (`len` a multiple of 32, ≥ 32).
#[must_use]
pub const fn data_chunks(len: usize) -> usize {
    len / CHUNK_LEN
}

/// Chunk `index` of `data` (its length a non-zero multiple of 32 and at most
/// 65,536 chunks): the data chunk itself below `K`, a parity chunk above.
///
/// # Errors
/// [`SessionError::InvalidState`] for a data length that is not a multiple of 32.
pub fn encode(data: &[u8], index: u16) -> Result<[u8; CHUNK_LEN]> {
    if data.is_empty() || !data.len().is_multiple_of(CHUNK_LEN) || data_chunks(data.len()) > 65_536
    {
        return Err(SessionError::InvalidState("chunked data length"));
    }
    let k = data_chunks(data.len());
    if usize::from(index) < k {
        let start = usize::from(index).saturating_mul(CHUNK_LEN);
        let mut out = [0u8; CHUNK_LEN];
        out.copy_from_slice(
            data.get(start..start.saturating_add(CHUNK_LEN))
                .ok_or(SessionError::InvalidState("chunk index"))?,
        );
        return Ok(out);
    }
    let mut xs = Vec::with_capacity(k);
    let mut ys = Vec::with_capacity(k);
    for (i, c) in data.chunks_exact(CHUNK_LEN).enumerate() {
        xs.push(u16::try_from(i).map_err(|_| SessionError::InvalidState("chunk count"))?);
        let mut arr = [0u8; CHUNK_LEN];
        arr.copy_from_slice(c);
        ys.push(symbols(&arr));
    }
    Ok(combine(&weights(&xs, index), &ys))
}

/// The `len` bytes of data from at least `len / 32` chunks with distinct
/// indices (the first `len / 32` are used). `None` if there are too few or
/// an index repeats.
#[must_use]
pub fn decode(chunks: &[Chunk], len: usize) -> Option<Vec<u8>> {
    let k = data_chunks(len);
    if k == 0 || !len.is_multiple_of(CHUNK_LEN) {
        return None;
    }
    let used = chunks.get(..k)?;
    let xs: Vec<u16> = used.iter().map(|(x, _)| *x).collect();
    if xs
        .iter()
        .enumerate()
        .any(|(i, x)| xs.iter().skip(i.saturating_add(1)).any(|y| y == x))
    {
        return None;
    }
    let ys: Vec<[u16; SYMBOLS]> = used.iter().map(|(_, c)| symbols(c)).collect();
    let mut out = Vec::with_capacity(len);
    for target in 0..k {
        let t = u16::try_from(target).ok()?;
        out.extend_from_slice(&combine(&weights(&xs, t), &ys));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn field_arithmetic() {
        assert_eq!(mul(0, 0x1234), 0);
        assert_eq!(mul(1, 0x1234), 0x1234);
        assert_eq!(mul(2, 0x8000), 0x100B);
        for a in [1u16, 2, 3, 0x1234, 0xFFFF, 0x8000] {
            assert_eq!(mul(a, inv(a)), 1, "{a:#x}");
        }
        // x generates the multiplicative group (0x1100B is primitive): its order is 65535.
        let mut p = 1u16;
        for i in 1..=65535u32 {
            p = mul(p, 2);
            if p == 1 {
                assert_eq!(i, 65535);
            }
        }
        assert_eq!(p, 1);
    }

    #[test]
    fn any_k_distinct_chunks_decode() {
        let data: Vec<u8> = (0..1184u32).map(|i| (i * 7 % 251) as u8).collect();
        let k = data_chunks(data.len());
        assert_eq!(k, 37);
        for i in 0..k {
            assert_eq!(
                encode(&data, i as u16).unwrap()[..],
                data[i * 32..i * 32 + 32]
            );
        }
        // Only parity, a mix, and the highest indices.
        for start in [37u16, 20, 65_535 - 40] {
            let chunks: Vec<Chunk> = (0..k as u16)
                .map(|i| {
                    let x = start.wrapping_add(i * 3 % 65_535);
                    (x, encode(&data, x).unwrap())
                })
                .collect();
            assert_eq!(decode(&chunks, data.len()).unwrap(), data);
        }
        let few: Vec<Chunk> = (0..36u16).map(|x| (x, encode(&data, x).unwrap())).collect();
        assert!(decode(&few, data.len()).is_none());
        let mut dup: Vec<Chunk> = (0..37u16).map(|x| (x, encode(&data, x).unwrap())).collect();
        dup[5] = dup[4];
        assert!(decode(&dup, data.len()).is_none());
        assert!(encode(&data[..33], 0).is_err());
    }
}
