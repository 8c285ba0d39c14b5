#!/usr/bin/env bash
# Builds the wasm core, its wasm-bindgen glue and the TypeScript facade:
#   target/wasm32-unknown-unknown/release/veilkit.wasm
#   ts/wasm/veilkit{.js,.d.ts,_bg.wasm}      (generated, gitignored)
#   dist/ts/** (+ dist/ts/wasm/), dist/worker/**, dist/tests/**
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [[ -d "${CARGO_HOME:-$HOME/.cargo}/bin" ]]; then
  export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi

say() { printf 'build: %s\n' "$*"; }

RAW_WASM="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/veilkit.wasm"
GLUE_DIR="ts/wasm"
DIST_WASM_DIR="dist/ts/wasm"

say "cargo build (release, wasm32-unknown-unknown, --features wasm)"
cargo build --release --target wasm32-unknown-unknown -p veilkit --features wasm

say "wasm-bindgen --target web -> $GLUE_DIR/"
mkdir -p "$GLUE_DIR"
wasm-bindgen --target web --out-dir "$GLUE_DIR" --out-name veilkit "$RAW_WASM"

if command -v wasm-opt >/dev/null 2>&1; then
  say "wasm-opt -O3"
  tmp="$GLUE_DIR/veilkit_bg.opt.wasm"
  if wasm-opt -O3 \
      --enable-simd --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
      --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
      "$GLUE_DIR/veilkit_bg.wasm" -o "$tmp"; then
    mv "$tmp" "$GLUE_DIR/veilkit_bg.wasm"
  else
    rm -f "$tmp"
    say "wasm-opt failed; keeping the unoptimised module"
  fi
else
  say "wasm-opt not found; skipped"
fi

say "tsc -p tsconfig.json"
npx --no-install tsc -p tsconfig.json

say "copy wasm glue -> $DIST_WASM_DIR/"
mkdir -p "$DIST_WASM_DIR"
cp "$GLUE_DIR/veilkit.js" "$GLUE_DIR/veilkit_bg.wasm" "$DIST_WASM_DIR/"
# Declarations too, so dist/ts/*.d.ts that mention the glue resolve for consumers.
cp "$GLUE_DIR/veilkit.d.ts" "$DIST_WASM_DIR/"

raw=$(wc -c <"$DIST_WASM_DIR/veilkit_bg.wasm")
gz=$(gzip -9 -c "$DIST_WASM_DIR/veilkit_bg.wasm" | wc -c)
printf 'build: wasm size: %d bytes raw (%d KiB), %d bytes gzip -9 (%d KiB)\n' \
  "$raw" $(( (raw + 1023) / 1024 )) "$gz" $(( (gz + 1023) / 1024 ))
