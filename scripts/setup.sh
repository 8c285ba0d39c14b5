#!/usr/bin/env bash
# Idempotent machine setup for building and testing veilkit.
#   - wasm32-unknown-unknown Rust target
#   - nightly toolchain + rust-src (the threads build: -Z build-std with atomics)
#   - wasm-bindgen-cli of exactly the wasm-bindgen version in Cargo.lock
#   - npm dev dependencies (no browser download)
#   - Debian browser engines: chromium, firefox-esr, webkit2gtk-driver + xvfb (the test corpus runs in all three)
# Fast on a second run: every step first checks whether it is already done.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# cargo-installed tools live here; a fresh login shell may not have it on PATH.
if [[ -d "${CARGO_HOME:-$HOME/.cargo}/bin" ]]; then
  export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi

step() { printf 'setup: %-28s %s\n' "$1" "$2"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

command -v cargo >/dev/null 2>&1 || die "cargo not found (install Rust with rustup first)"
command -v node >/dev/null 2>&1 || die "node not found (Node.js >= 20 is required)"
command -v npm >/dev/null 2>&1 || die "npm not found"

# 1. Rust target --------------------------------------------------------------
if rustup target list --installed 2>/dev/null | grep -qx 'wasm32-unknown-unknown'; then
  step "wasm32-unknown-unknown" "already present"
else
  rustup target add wasm32-unknown-unknown >/dev/null
  step "wasm32-unknown-unknown" "done (rustup target add)"
fi
for component in clippy rustfmt; do
  if rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    step "$component" "already present"
  else
    rustup component add "$component" >/dev/null
    step "$component" "done (rustup component add)"
  fi
done

# 1b. Nightly toolchain + rust-src for the threads build (scripts/build.sh). The
# toolchain is named by VEILKIT_NIGHTLY (default "nightly"); components are
# installed explicitly because the build runs with RUSTUP_AUTO_INSTALL=0.
NIGHTLY="${VEILKIT_NIGHTLY:-nightly}"
if [[ "${VEILKIT_THREADS:-1}" == 0 ]]; then
  step "toolchain $NIGHTLY" "skipped (VEILKIT_THREADS=0: no threads build)"
else
  if RUSTUP_AUTO_INSTALL=0 rustc "+$NIGHTLY" --version >/dev/null 2>&1; then
    step "toolchain $NIGHTLY" "already present"
  else
    rustup toolchain install "$NIGHTLY" --profile minimal --component rust-src >/dev/null
    step "toolchain $NIGHTLY" "done (rustup toolchain install)"
  fi
  if rustup component list --toolchain "$NIGHTLY" --installed 2>/dev/null | grep -q '^rust-src'; then
    step "rust-src ($NIGHTLY)" "already present"
  else
    rustup component add rust-src --toolchain "$NIGHTLY" >/dev/null
    step "rust-src ($NIGHTLY)" "done (rustup component add)"
  fi
fi

# 2. wasm-bindgen-cli, same version as the wasm-bindgen crate in Cargo.lock -----
[[ -f Cargo.lock ]] || die "Cargo.lock missing"
WB_VERSION="$(awk '
  /^\[\[package\]\]/ { in_wb = 0 }
  /^name = "wasm-bindgen"$/ { in_wb = 1; next }
  in_wb && /^version = / { gsub(/"/, "", $3); print $3; exit }
' Cargo.lock)"
[[ -n "$WB_VERSION" ]] || die "no wasm-bindgen package in Cargo.lock"
HAVE_WB="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [[ "$HAVE_WB" == "$WB_VERSION" ]]; then
  step "wasm-bindgen-cli $WB_VERSION" "already present"
else
  step "wasm-bindgen-cli $WB_VERSION" "installing (had: ${HAVE_WB:-none}; this compiles, takes minutes)…"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
  HAVE_WB="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
  [[ "$HAVE_WB" == "$WB_VERSION" ]] || die "wasm-bindgen --version reports '${HAVE_WB:-nothing}', wanted $WB_VERSION"
  step "wasm-bindgen-cli $WB_VERSION" "done (cargo install)"
fi

# 3. npm dev dependencies -------------------------------------------------------
# npm writes node_modules/.package-lock.json on every install: use it as the stamp.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
STAMP="node_modules/.package-lock.json"
if [[ -f package-lock.json ]]; then
  if [[ ! -f "$STAMP" || package-lock.json -nt "$STAMP" || package.json -nt "$STAMP" ]]; then
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
    step "npm dependencies" "done (npm ci)"
  else
    step "npm dependencies" "already present"
  fi
else
  if [[ ! -f "$STAMP" || package.json -nt "$STAMP" ]]; then
    npm install --no-audit --no-fund --loglevel=error >/dev/null
    step "npm dependencies" "done (npm install, no package-lock.json)"
  else
    step "npm dependencies" "already present"
  fi
fi

# 3b. The group interop peer (tests/interop/ts-mls): its own install, since ts-mls pins exact peer
# versions that differ from the root's devDependencies.
INTEROP="tests/interop/ts-mls"
if [[ ! -f "$INTEROP/node_modules/.package-lock.json" || "$INTEROP/package-lock.json" -nt "$INTEROP/node_modules/.package-lock.json" ]]; then
  npm ci --prefix "$INTEROP" --no-audit --no-fund --loglevel=error >/dev/null
  step "ts-mls interop peer" "done (npm ci --prefix $INTEROP)"
else
  step "ts-mls interop peer" "already present"
fi

# 4. Chromium (Debian package; Playwright cannot download its own browser here) --
# The three browser engines of the test corpus (tests/shared/engines.ts), all Debian packages:
# Chromium (Playwright over CDP), Firefox ESR (Playwright over WebDriver BiDi) and WebKitGTK's
# MiniBrowser (WebKitWebDriver under Xvfb). One apt-get run installs whichever are missing.
# package:binary that shows it is installed
ENGINE_PACKAGES=(
  "chromium:/usr/bin/chromium"
  "firefox-esr:/usr/bin/firefox-esr"
  "webkit2gtk-driver:/usr/bin/WebKitWebDriver"
  "xvfb:/usr/bin/Xvfb"
)
missing=()
for entry in "${ENGINE_PACKAGES[@]}"; do
  package="${entry%%:*}"; binary="${entry#*:}"
  if [[ -x "$binary" ]]; then
    step "$package" "already present ($binary)"
  else
    missing+=("$package")
  fi
done
if [[ ${#missing[@]} -gt 0 ]]; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    step "${missing[*]}" "installing Debian packages…"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    for entry in "${ENGINE_PACKAGES[@]}"; do
      [[ -x "${entry#*:}" ]] || die "apt-get ran but ${entry#*:} (package ${entry%%:*}) is missing"
    done
    step "${missing[*]}" "done (apt-get install)"
  else
    step "${missing[*]}" "MISSING and not root; run: sudo apt-get install -y ${missing[*]} (those engines' browser tests will fail)"
  fi
fi

# 5. pyca/cryptography for the independent messaging cross-check (PyPI) --------------
# vectors/messaging/crosscheck_pyca.py needs cryptography >= 46 (ML-KEM through OpenSSL >= 3.5).
if python3 -c 'import cryptography, sys; sys.exit(int(cryptography.__version__.split(".")[0]) < 46)' 2>/dev/null; then
  step "python cryptography" "already present ($(python3 -c 'import cryptography; print(cryptography.__version__)'))"
else
  step "python cryptography" "installing from PyPI…"
  python3 -m pip install --quiet --user 'cryptography>=46' 2>/dev/null \
    || python3 -m pip install --quiet --user --break-system-packages 'cryptography>=46' \
    || die "pip install cryptography failed"
  step "python cryptography" "done (pip install --user)"
fi
