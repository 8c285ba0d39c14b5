//! The default recipient id of an X-Wing public key
//! (`crate::container::wrap::recipient_id_for`), for the TypeScript file
//! layer: an identity unlock picks the recipient wraps addressed to its key.
use super::JsResult;
use crate::container::wrap;
use crate::xwing;
use wasm_bindgen::prelude::*;

/// `SHA-256("vollcrypt-file-recipient-id-v1" ‖ pk)[0..16]` of a 1216-byte
/// X-Wing public key (FORMAT.md §4.1), the id a recipient wrap carries by
/// default.
#[wasm_bindgen(js_name = "containerRecipientId")]
pub fn container_recipient_id(x_wing_public_key: &[u8]) -> JsResult<Vec<u8>> {
    let pk = crate::error::exact::<{ xwing::PK_LEN }>(
        "xWingPublicKey",
        "1216 bytes",
        x_wing_public_key,
    )?;
    Ok(wrap::recipient_id_for(pk).to_vec())
}
