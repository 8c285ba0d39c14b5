//! The core's [`HeaderInfo`] (`crate::container::info`) as a plain JS object:
//! byte strings as fresh `Uint8Array`s, sizes as numbers, names as the API's
//! strings. Its exact shape is declared once, below, in the glue's `.d.ts`
//! (`HeaderInfo`, the return type of `ContainerReaderHandle.info()`). The
//! object holds only public data and survives `postMessage` (structured clone).
use crate::container::{HeaderInfo, SealedInfo, SignerInfo, WrapInfo};
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const HEADER_INFO_TS: &str = r#"
/** A parsed container header (`ContainerReaderHandle.info()`; Rust `container::HeaderInfo`). */
export interface HeaderInfo {
  readonly version: 4 | 5 | 6;
  readonly mode: 'password' | 'recipient' | 'group' | 'threshold' | 'mixed' | 'none';
  readonly fileId: Uint8Array<ArrayBuffer>;
  readonly chunkSize: number;
  /** Plaintext size: not a safe integer when the header claims more than JS can address. */
  readonly plaintextSize: number;
  readonly merkleRoot: Uint8Array<ArrayBuffer>;
  readonly hashAlgorithm: 'sha256' | 'blake3';
  /** The header's DEK commitment (FORMAT.md §3.1). */
  readonly dekCommitment: Uint8Array<ArrayBuffer>;
  /** `header_hash` (FORMAT.md §6.2). */
  readonly headerHash: Uint8Array<ArrayBuffer>;
  /** The header-hash preimage (FORMAT.md §6.2, 62 bytes): `headerHash` is its SHA-256, the DEK commitment its HMAC. */
  readonly headerHashPreimage: Uint8Array<ArrayBuffer>;
  readonly headerLength: number;
  /** `32 · chunkCount`: the leaf table follows the header. */
  readonly leafTableLength: number;
  readonly containerLength: number;
  readonly chunkCount: number;
  readonly wraps: readonly HeaderWrapInfo[];
  readonly signer: HeaderSignerInfo | null;
  readonly sealed: HeaderSealedInfo | null;
}

/** One wrap entry of a {@link HeaderInfo} (Rust `container::WrapInfo`). */
export type HeaderWrapInfo =
  | { readonly type: 'pbkdf2'; readonly iterations: number; readonly salt: Uint8Array<ArrayBuffer>; readonly wrapped: Uint8Array<ArrayBuffer> }
  | { readonly type: 'argon2id'; readonly memoryKib: number; readonly iterations: number; readonly parallelism: number; readonly salt: Uint8Array<ArrayBuffer>; readonly wrapped: Uint8Array<ArrayBuffer> }
  | { readonly type: 'group'; readonly groupId: Uint8Array<ArrayBuffer>; readonly keyVersion: number; readonly wrapped: Uint8Array<ArrayBuffer> }
  | { readonly type: 'recipient'; readonly recipientId: Uint8Array<ArrayBuffer>; readonly keyVersion: number; readonly ciphertext: Uint8Array<ArrayBuffer>; readonly wrapped: Uint8Array<ArrayBuffer> }
  | { readonly type: 'threshold'; readonly t: number; readonly n: number; readonly shareSetId: Uint8Array<ArrayBuffer>; readonly wrapped: Uint8Array<ArrayBuffer> };

/** The signer of a v5/v6 {@link HeaderInfo} (Rust `container::SignerInfo`). */
export interface HeaderSignerInfo {
  readonly ed25519: Uint8Array<ArrayBuffer>;
  readonly mlDsa65: Uint8Array<ArrayBuffer> | null;
  readonly keyLogId: Uint8Array<ArrayBuffer>;
  readonly timestamp: number;
}

/** The seal of a sealed {@link HeaderInfo} (Rust `container::SealedInfo`). */
export interface HeaderSealedInfo {
  readonly mode: 'seal' | 'purge';
  readonly reason: string;
  readonly timestamp: number;
  readonly sealer: Uint8Array<ArrayBuffer>;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// The JS object of a [`HeaderInfo`] (`HeaderInfo` in the glue's `.d.ts`).
    #[wasm_bindgen(typescript_type = "HeaderInfo")]
    pub type JsHeaderInfo;
}

/// A plain object with these properties.
fn object(props: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (key, value) in props {
        // Defining a data property on a fresh ordinary object cannot fail.
        let _ = Reflect::set(&o, &JsValue::from_str(key), value);
    }
    o
}

fn bytes(b: &[u8]) -> JsValue {
    Uint8Array::from(b).into()
}

fn text(s: &str) -> JsValue {
    JsValue::from_str(s)
}

/// A size as a JS number (not a `BigInt`); above 2^53 it is no longer a safe
/// integer, which the facade checks.
fn size(v: u64) -> JsValue {
    JsValue::from_f64(v as f64)
}

fn wrap(w: &WrapInfo) -> JsValue {
    let kind = ("type", text(w.type_name()));
    match w {
        WrapInfo::Pbkdf2 { iterations, salt, wrapped } => {
            object(&[kind, ("iterations", (*iterations).into()), ("salt", bytes(salt)), ("wrapped", bytes(wrapped))])
        }
        WrapInfo::Argon2id { memory_kib, iterations, parallelism, salt, wrapped } => object(&[
            kind,
            ("memoryKib", (*memory_kib).into()),
            ("iterations", (*iterations).into()),
            ("parallelism", (*parallelism).into()),
            ("salt", bytes(salt)),
            ("wrapped", bytes(wrapped)),
        ]),
        WrapInfo::Group { group_id, key_version, wrapped } => {
            object(&[kind, ("groupId", bytes(group_id)), ("keyVersion", (*key_version).into()), ("wrapped", bytes(wrapped))])
        }
        WrapInfo::Recipient { recipient_id, key_version, ciphertext, wrapped } => object(&[
            kind,
            ("recipientId", bytes(recipient_id)),
            ("keyVersion", (*key_version).into()),
            ("ciphertext", bytes(ciphertext)),
            ("wrapped", bytes(wrapped)),
        ]),
        WrapInfo::Threshold { threshold, shares, share_set_id, wrapped } => object(&[
            kind,
            ("t", (*threshold).into()),
            ("n", (*shares).into()),
            ("shareSetId", bytes(share_set_id)),
            ("wrapped", bytes(wrapped)),
        ]),
    }
    .into()
}

fn signer(s: &SignerInfo) -> JsValue {
    object(&[
        ("ed25519", bytes(&s.ed25519)),
        ("mlDsa65", s.mldsa65.as_deref().map_or(JsValue::NULL, bytes)),
        ("keyLogId", bytes(&s.key_log_id)),
        ("timestamp", size(s.timestamp)),
    ])
    .into()
}

fn sealed(s: &SealedInfo) -> JsValue {
    object(&[
        ("mode", text(s.mode.name())),
        ("reason", text(&s.reason)),
        ("timestamp", size(s.timestamp)),
        ("sealer", bytes(&s.sealer)),
    ])
    .into()
}

/// `info` as the `HeaderInfo` object declared above.
pub(crate) fn header_info(info: &HeaderInfo) -> JsHeaderInfo {
    let wraps: Array = info.wraps.iter().map(wrap).collect();
    object(&[
        ("version", info.version.into()),
        ("mode", text(info.mode.name())),
        ("fileId", bytes(&info.file_id)),
        ("chunkSize", info.chunk_size.into()),
        ("plaintextSize", size(info.plaintext_size)),
        ("merkleRoot", bytes(&info.merkle_root)),
        ("hashAlgorithm", text(info.hash_alg.name())),
        ("dekCommitment", bytes(&info.dek_commitment)),
        ("headerHash", bytes(&info.header_hash)),
        ("headerHashPreimage", bytes(&info.header_hash_preimage)),
        ("headerLength", size(info.header_len)),
        ("leafTableLength", size(info.leaf_table_len)),
        ("containerLength", size(info.container_len)),
        ("chunkCount", size(info.chunk_count)),
        ("wraps", wraps.into()),
        ("signer", info.signer.as_ref().map_or(JsValue::NULL, signer)),
        ("sealed", info.sealed.as_ref().map_or(JsValue::NULL, sealed)),
    ])
    .unchecked_into()
}
