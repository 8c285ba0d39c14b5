//! Threads build only (feature `threads`): the rayon pool and batched KEM calls.
//!
//! `initThreadPool(n)` (from wasm-bindgen-rayon) starts `n` Web Workers that
//! share this module's memory; the facade calls it once in `init()` before any
//! other call. Argon2id then computes its lanes in parallel (the `argon2`
//! crate's `parallel` feature), and the batch functions below spread
//! independent KEM operations over the pool. Randomness for a batch is drawn
//! on the calling thread first, so the workers only run the derandomised
//! algorithms.
use super::{JsResult, secret_in};
use crate::error::CryptoError;
use crate::{mlkem, rng, xwing};
use js_sys::Uint8Array;
use rayon::prelude::*;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

// Re-exported so that `initThreadPool` is in the module's export list.
#[allow(unused_imports)]
pub use wasm_bindgen_rayon::init_thread_pool;

/// Number of threads in the rayon pool (1 before `initThreadPool`).
#[wasm_bindgen(js_name = "threadCount")]
#[must_use]
pub fn thread_count() -> usize {
    rayon::current_num_threads()
}

fn items(bytes: &[u8], len: usize, what: &'static str) -> crate::Result<usize> {
    if bytes.is_empty() || !bytes.len().is_multiple_of(len) {
        return Err(CryptoError::InvalidLength {
            what,
            expected: "a non-empty multiple of the item length",
            got: bytes.len(),
        });
    }
    Ok(bytes.len() / len)
}

/// Encapsulates to every 1184-byte key in `eks` (concatenated); returns `(ct1088 ‖ ss32)` per key.
#[wasm_bindgen(js_name = "mlKemEncapsulateBatch")]
pub fn mlkem_encapsulate_batch(eks: &[u8]) -> JsResult<Uint8Array> {
    encapsulate_each(
        eks,
        mlkem::EK_LEN,
        "ML-KEM-768 encapsulation keys",
        mlkem::M_LEN,
        mlkem::mlkem_encapsulate_derand,
    )
}

/// Decapsulates pairwise: `dks` (n × 2400) with `cts` (n × 1088); returns n × 32 shared secrets.
#[wasm_bindgen(js_name = "mlKemDecapsulateBatch")]
pub fn mlkem_decapsulate_batch(dks: Vec<u8>, cts: &[u8]) -> JsResult<Uint8Array> {
    let dks = secret_in(dks);
    pairwise(
        &dks,
        mlkem::DK_LEN,
        cts,
        mlkem::CT_LEN,
        mlkem::mlkem_decapsulate,
    )
}

/// X-Wing encapsulation to every 1216-byte key in `pks`; returns `(ct1120 ‖ ss32)` per key.
#[wasm_bindgen(js_name = "xWingEncapsulateBatch")]
pub fn xwing_encapsulate_batch(pks: &[u8]) -> JsResult<Uint8Array> {
    encapsulate_each(
        pks,
        xwing::PK_LEN,
        "X-Wing public keys",
        xwing::ESEED_LEN,
        xwing::xwing_encapsulate_derand,
    )
}

/// X-Wing decapsulation pairwise: `sks` (n × 32) with `cts` (n × 1120); returns n × 32.
#[wasm_bindgen(js_name = "xWingDecapsulateBatch")]
pub fn xwing_decapsulate_batch(sks: Vec<u8>, cts: &[u8]) -> JsResult<Uint8Array> {
    let sks = secret_in(sks);
    pairwise(
        &sks,
        xwing::SK_LEN,
        cts,
        xwing::CT_LEN,
        xwing::xwing_decapsulate,
    )
}

/// Runs a derandomised encapsulation `f(key, randomness)` for every `key_len`-byte key of
/// `keys` on the pool, with `rand_len` fresh random bytes each (drawn here first); returns
/// `ct ‖ ss` per key, concatenated.
fn encapsulate_each(
    keys: &[u8],
    key_len: usize,
    what: &'static str,
    rand_len: usize,
    f: impl Fn(&[u8], &[u8]) -> crate::Result<(Vec<u8>, Zeroizing<[u8; 32]>)> + Sync + Send,
) -> JsResult<Uint8Array> {
    let n = items(keys, key_len, what)?;
    let mut randomness = Zeroizing::new(vec![0u8; n * rand_len]);
    rng::fill(&mut randomness)?;
    let out = keys
        .par_chunks(key_len)
        .zip(randomness.par_chunks(rand_len))
        .map(|(key, r)| {
            let (ct, ss) = f(key, r)?;
            let mut item = Zeroizing::new(ct);
            item.extend_from_slice(ss.as_slice());
            Ok(item)
        })
        .collect::<crate::Result<Vec<_>>>()?;
    Ok(flatten(&out))
}

fn pairwise(
    keys: &[u8],
    key_len: usize,
    cts: &[u8],
    ct_len: usize,
    f: impl Fn(&[u8], &[u8]) -> crate::Result<Zeroizing<[u8; 32]>> + Sync + Send,
) -> JsResult<Uint8Array> {
    let n = items(keys, key_len, "batch keys")?;
    if cts.len() != n * ct_len {
        return Err(CryptoError::InvalidLength {
            what: "batch ciphertexts",
            expected: "one ciphertext per key",
            got: cts.len(),
        }
        .into());
    }
    let out = keys
        .par_chunks(key_len)
        .zip(cts.par_chunks(ct_len))
        .map(|(k, ct)| f(k, ct))
        .collect::<crate::Result<Vec<_>>>()?;
    let mut flat = Zeroizing::new(Vec::with_capacity(n * 32));
    for ss in &out {
        flat.extend_from_slice(ss.as_slice());
    }
    Ok(Uint8Array::from(flat.as_slice()))
}

fn flatten(parts: &[Zeroizing<Vec<u8>>]) -> Uint8Array {
    let mut flat = Zeroizing::new(Vec::with_capacity(parts.iter().map(|p| p.len()).sum()));
    for p in parts {
        flat.extend_from_slice(p);
    }
    Uint8Array::from(flat.as_slice())
}
