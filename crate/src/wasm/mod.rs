//! wasm-bindgen layer (feature `wasm`): validate, call the core, convert.
