#!/usr/bin/env bash
# Dependency hygiene gate (no network beyond what cargo itself needs for crates.io).
#
# Fails when
#   1. a cryptographic crate resolves to more than one version in any of the
#      dependency graphs of `veilkit` (default features on the host; `wasm`
#      (and `threads`, when the manifest has it) on wasm32-unknown-unknown;
#      `group` on the host and `group-wasm` on wasm32; each with and without
#      dev-dependencies), counted on the crates `cargo tree` builds;
#   2. any crate in those graphs, or any npm runtime dependency, has a licence
#      outside the allowlist below (offenders are printed);
#   3. an npm runtime dependency (package.json "dependencies") is not listed
#      in README.md's "npm runtime dependencies" line.
# Other duplicated crates (e.g. two `syn` majors used by proc-macros) are
# reported, not failed.
#
# Usage: bash scripts/check-deps.sh      (exit 0 = clean)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [[ -d "${CARGO_HOME:-$HOME/.cargo}/bin" ]]; then
  export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

features="$(cargo metadata --format-version 1 --no-deps \
  | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const p=JSON.parse(s).packages.find(p=>p.name==="veilkit");console.log(Object.keys(p.features).join(" "))})')"

HOST="$(rustc -vV | sed -n 's/^host: //p')"
# name|cargo metadata arguments
GRAPHS=("default ($HOST)|--filter-platform $HOST")
GRAPHS+=("wasm (wasm32)|--features wasm --filter-platform wasm32-unknown-unknown")
if [[ " $features " == *" group-wasm "* ]]; then
  GRAPHS+=("group ($HOST)|--features group --filter-platform $HOST")
  GRAPHS+=("group-wasm (wasm32)|--features group-wasm --filter-platform wasm32-unknown-unknown")
fi
if [[ " $features " == *" threads "* ]]; then
  GRAPHS+=("threads (wasm32)|--features threads --filter-platform wasm32-unknown-unknown")
fi

i=0
for g in "${GRAPHS[@]}"; do
  name="${g%%|*}"
  args="${g#*|}"
  # shellcheck disable=SC2086
  cargo metadata --format-version 1 $args >"$TMP/graph$i.json"
  # The crates actually built: `cargo metadata` also resolves weak optional
  # dependencies ("dep?/feature") that no feature turns on (openmls's test-only
  # RustCrypto provider, for one), so duplicates are counted on `cargo tree`.
  tree_args="${args/--filter-platform/--target}"
  # shellcheck disable=SC2086
  cargo tree -q --manifest-path crate/Cargo.toml -e normal,build --prefix none -f '{p}' $tree_args >"$TMP/graph$i.tree"
  # shellcheck disable=SC2086
  cargo tree -q --manifest-path crate/Cargo.toml -e normal,build,dev --prefix none -f '{p}' $tree_args >"$TMP/graph$i.devtree"
  printf '%s\n' "$name" >"$TMP/graph$i.name"
  i=$((i + 1))
done

node - "$TMP" "$i" <<'NODE'
const fs = require('node:fs');
const path = require('node:path');
const [dir, countArg] = process.argv.slice(2);

// ---------------------------------------------------------------- policy
// Cryptographic crates (and the plumbing their types flow through): two
// versions of any of these means two implementations, two RNG traits or two
// array types in one binary — fail.
const CRYPTO = new Set([
  'rand', 'rand_core', 'rand_chacha', 'getrandom', 'chacha20', 'subtle', 'zeroize',
  'aes', 'aes-gcm', 'aes-kw', 'aead', 'cipher', 'ctr', 'ghash', 'polyval', 'universal-hash',
  'sha2', 'sha3', 'keccak', 'digest', 'block-buffer', 'crypto-common', 'hybrid-array', 'generic-array',
  'hmac', 'hkdf', 'pbkdf2', 'argon2', 'blake2', 'blake3', 'password-hash',
  'curve25519-dalek', 'ed25519-dalek', 'x25519-dalek', 'ed25519', 'signature',
  'ml-kem', 'ml-dsa', 'x-wing', 'kem', 'module-lattice', 'crypto-bigint', 'elliptic-curve',
  'libcrux-ml-kem', 'libcrux-ml-dsa', 'libcrux-sha3', 'libcrux-intrinsics', 'libcrux-platform',
  'libcrux-secrets', 'libcrux-traits',
  'base64ct', 'const-oid', 'der', 'pkcs8', 'spki',
]);
// SPDX identifiers accepted (permissive, no copyleft).
const ALLOWED = new Set([
  'MIT', 'MIT-0', 'Apache-2.0', 'Apache-2.0 WITH LLVM-exception', 'BSD-2-Clause', 'BSD-3-Clause',
  'ISC', 'Unicode-3.0', 'Unicode-DFS-2016', 'CC0-1.0', 'Zlib', '0BSD', 'BSL-1.0', 'Unlicense',
]);
const ALLOWED_EXCEPTIONS = new Set(['LLVM-exception']);

// ---------------------------------------------------------------- SPDX
function tokenize(expr) {
  return expr.replace(/\//g, ' OR ').replace(/([()])/g, ' $1 ').split(/\s+/).filter(Boolean);
}
/** Whether an SPDX expression can be satisfied using only allowed licences. */
function satisfiable(expr) {
  const t = tokenize(expr);
  let i = 0;
  const atom = () => {
    if (t[i] === '(') {
      i++;
      const v = or();
      if (t[i++] !== ')') throw new Error(`unbalanced parentheses in "${expr}"`);
      return v;
    }
    const id = t[i++];
    if (id === undefined) throw new Error(`truncated licence expression "${expr}"`);
    if (t[i] === 'WITH') {
      const exc = t[i + 1];
      i += 2;
      return ALLOWED.has(`${id} WITH ${exc}`) || (ALLOWED.has(id) && ALLOWED_EXCEPTIONS.has(exc));
    }
    return ALLOWED.has(id.replace(/\+$/, ''));
  };
  const and = () => {
    let v = atom();
    while (t[i] === 'AND') { i++; v = atom() && v; }
    return v;
  };
  const or = () => {
    let v = and();
    while (t[i] === 'OR') { i++; v = and() || v; }
    return v;
  };
  const v = or();
  if (i !== t.length) throw new Error(`unexpected "${t[i]}" in "${expr}"`);
  return v;
}

// ---------------------------------------------------------------- graphs
let failed = false;
const licenceOffenders = new Map(); // "name version" -> licence
const allPackages = new Map();
const count = Number(countArg);

for (let g = 0; g < count; g++) {
  const meta = JSON.parse(fs.readFileSync(path.join(dir, `graph${g}.json`), 'utf8'));
  const graphName = fs.readFileSync(path.join(dir, `graph${g}.name`), 'utf8').trim();
  const pkgs = new Map(meta.packages.map((p) => [p.id, p]));
  const nodes = new Map(meta.resolve.nodes.map((n) => [n.id, n]));
  const root = meta.packages.find((p) => p.name === 'veilkit' && p.source === null);

  const built = (file) => new Set(
    fs.readFileSync(path.join(dir, file), 'utf8').split('\n')
      .map((l) => /^(\S+) v(\S+)/.exec(l)).filter(Boolean).map((m) => `${m[1]} ${m[2]}`),
  );
  const builtSets = [built(`graph${g}.tree`), built(`graph${g}.devtree`)];

  for (const withDev of [false, true]) {
    const inTree = builtSets[withDev ? 1 : 0];
    const seen = new Set([root.id]);
    const stack = [root.id];
    while (stack.length) {
      const id = stack.pop();
      for (const dep of nodes.get(id)?.deps ?? []) {
        const kinds = dep.dep_kinds.map((k) => k.kind);
        const follow = kinds.some((k) => k === null || k === 'build' || (withDev && id === root.id && k === 'dev'));
        if (follow && !seen.has(dep.pkg)) {
          seen.add(dep.pkg);
          stack.push(dep.pkg);
        }
      }
    }
    const byName = new Map();
    for (const id of seen) {
      const p = pkgs.get(id);
      if (!inTree.has(`${p.name} ${p.version}`)) continue;
      allPackages.set(`${p.name} ${p.version}`, p);
      if (!byName.has(p.name)) byName.set(p.name, new Set());
      byName.get(p.name).add(p.version);
    }
    const label = `${graphName}${withDev ? ' + dev-dependencies' : ''}`;
    const dups = [...byName].filter(([, v]) => v.size > 1).sort(([a], [b]) => a.localeCompare(b));
    const cryptoDups = dups.filter(([n]) => CRYPTO.has(n));
    const otherDups = dups.filter(([n]) => !CRYPTO.has(n));
    console.log(`check-deps: ${label}: ${[...seen].filter((id) => inTree.has(`${pkgs.get(id).name} ${pkgs.get(id).version}`)).length} crates, ${cryptoDups.length} duplicated crypto crates`);
    for (const [n, v] of cryptoDups) {
      failed = true;
      console.log(`  FAIL duplicate crypto crate ${n}: ${[...v].join(', ')}   (see: cargo tree -i ${n})`);
    }
    for (const [n, v] of otherDups) console.log(`  note duplicate (not crypto) ${n}: ${[...v].join(', ')}`);
  }
}

for (const [key, p] of [...allPackages].sort(([a], [b]) => a.localeCompare(b))) {
  const lic = p.license;
  let ok = false;
  try {
    ok = typeof lic === 'string' && satisfiable(lic);
  } catch (e) {
    ok = false;
  }
  if (!ok) licenceOffenders.set(key, lic ?? `(no SPDX licence; license_file=${p.license_file ?? 'none'})`);
}

// ---------------------------------------------------------------- npm
const pkgJson = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const runtime = Object.keys(pkgJson.dependencies ?? {});
const readme = fs.readFileSync('README.md', 'utf8');
const npmLine = readme.split('\n').find((l) => /npm runtime dependencies/i.test(l)) ?? '';
for (const dep of runtime) {
  if (!npmLine.includes(`\`${dep}\``)) {
    failed = true;
    console.log(`  FAIL npm runtime dependency \`${dep}\` is not listed (with why) on README's "npm runtime dependencies" line`);
  }
}
// Licences of the npm runtime closure (package-lock entries not marked dev).
let npmChecked = 0;
if (fs.existsSync('package-lock.json')) {
  const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
  for (const [where, entry] of Object.entries(lock.packages ?? {})) {
    if (where === '' || entry.dev || entry.devOptional) continue;
    npmChecked++;
    let ok = false;
    try {
      ok = typeof entry.license === 'string' && satisfiable(entry.license);
    } catch {
      ok = false;
    }
    if (!ok) licenceOffenders.set(`npm:${where.replace(/^.*node_modules\//, '')} ${entry.version}`, entry.license ?? '(none)');
  }
}
console.log(`check-deps: npm runtime dependencies: ${runtime.length ? runtime.join(', ') : 'none'} (${npmChecked} packages in the runtime closure)`);

console.log(`check-deps: licences: ${allPackages.size} crates checked against ${[...ALLOWED].join(', ')}`);
for (const [key, lic] of licenceOffenders) {
  failed = true;
  console.log(`  FAIL licence not allowed: ${key}: ${lic}`);
}
console.log(failed ? 'check-deps: FAILED' : 'check-deps: OK');
process.exit(failed ? 1 : 0);
NODE
