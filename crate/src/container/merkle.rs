//! Merkle tree over chunk leaves, RFC 6962 shape (split at the largest power
//! of two below `n`), with domain-separated leaf / node / empty hashes:
//!
//! ```text
//! leaf  = H("vollcrypt-file-merkle-leaf-v2" ‖ file_id16 ‖ u32be index ‖ u32be chunk_len ‖ iv12 ‖ ciphertext ‖ tag16)
//! node  = H("vollcrypt-file-merkle-node-v1" ‖ left32 ‖ right32)
//! empty = H("vollcrypt-file-merkle-empty-v1")
//! ```
//!
//! `H` is SHA-256 (hash algorithm 0) or BLAKE3 with 32-byte output (1).
//! The leaf covers the whole ciphertext, so a DEK holder cannot rewrite a
//! chunk (AES-GCM is not committing for someone who knows the key) without
//! changing its leaf. The leaves are stored in the leaf table after the header;
//! the header's root is the root over that table.
//! Inclusion proofs are RFC 6962 `PATH(m, D[n])`; verification is the
//! RFC 9162 §2.1.3.2 algorithm, which rejects an index ≥ total, a proof of the
//! wrong length for the total and any odd-level duplication.

use super::error::{ContainerError, Result};
use super::header::HashAlg;
use crate::hash::Sha256;

/// Leaf label (v2: the leaf covers the ciphertext).
pub const LEAF_LABEL: &[u8] = b"vollcrypt-file-merkle-leaf-v2";
/// Node label.
pub const NODE_LABEL: &[u8] = b"vollcrypt-file-merkle-node-v1";
/// Empty-tree label.
pub const EMPTY_LABEL: &[u8] = b"vollcrypt-file-merkle-empty-v1";
/// Longest inclusion proof accepted (a tree of at most 2^32 leaves needs ≤ 32).
pub const MAX_PROOF_LEN: usize = 64;

enum Hasher {
    Sha256(Sha256),
    Blake3(Box<blake3::Hasher>),
}

impl Hasher {
    fn new(alg: HashAlg) -> Self {
        match alg {
            HashAlg::Sha256 => Self::Sha256(Sha256::new()),
            HashAlg::Blake3 => Self::Blake3(Box::new(blake3::Hasher::new())),
        }
    }

    fn update(&mut self, data: &[u8]) {
        match self {
            Self::Sha256(h) => h.update(data),
            Self::Blake3(h) => {
                h.update(data);
            }
        }
    }

    fn finalize(self) -> [u8; 32] {
        match self {
            Self::Sha256(h) => h.finalize(),
            Self::Blake3(h) => *h.finalize().as_bytes(),
        }
    }
}

/// The leaf of one chunk: `H(LEAF_LABEL ‖ file_id ‖ u32be index ‖ u32be
/// chunk_len ‖ iv ‖ ciphertext_and_tag)`, where `ciphertext_and_tag` is the
/// envelope after its 16-byte `index ‖ iv` head.
#[must_use]
pub fn leaf_hash(
    alg: HashAlg,
    file_id: &[u8; 16],
    index: u32,
    chunk_len: u32,
    iv: &[u8; 12],
    ciphertext_and_tag: &[u8],
) -> [u8; 32] {
    let mut h = Hasher::new(alg);
    h.update(LEAF_LABEL);
    h.update(file_id);
    h.update(&index.to_be_bytes());
    h.update(&chunk_len.to_be_bytes());
    h.update(iv);
    h.update(ciphertext_and_tag);
    h.finalize()
}

/// Root over a serialised leaf table (`32 · n` bytes, entry `i` = leaf `i`),
/// in `O(log n)` memory.
///
/// # Errors
/// [`ContainerError::InvalidChunk`] if the length is not a multiple of 32.
pub fn table_root(alg: HashAlg, table: &[u8]) -> Result<[u8; 32]> {
    let (leaves, rest) = table.as_chunks::<32>();
    if !rest.is_empty() {
        return Err(ContainerError::InvalidChunk(
            "leaf table length is not a multiple of 32",
        ));
    }
    let mut acc = MerkleAccumulator::new(alg);
    for leaf in leaves {
        acc.push(*leaf);
    }
    Ok(acc.root())
}

/// Interior node hash.
#[must_use]
pub fn node_hash(alg: HashAlg, left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut h = Hasher::new(alg);
    h.update(NODE_LABEL);
    h.update(left);
    h.update(right);
    h.finalize()
}

/// Root of the empty tree (a file of zero chunks).
#[must_use]
pub fn empty_root(alg: HashAlg) -> [u8; 32] {
    let mut h = Hasher::new(alg);
    h.update(EMPTY_LABEL);
    h.finalize()
}

/// Largest power of two strictly below `n` (`n ≥ 2`).
fn split_point(n: usize) -> usize {
    let mut k = 1usize;
    while k.saturating_mul(2) < n {
        k = k.saturating_mul(2);
    }
    k
}

/// RFC 6962 `MTH` of a non-empty slice.
fn subtree_root(alg: HashAlg, leaves: &[[u8; 32]]) -> [u8; 32] {
    match leaves {
        [] => empty_root(alg),
        [one] => *one,
        _ => {
            let (l, r) = leaves.split_at(split_point(leaves.len()));
            node_hash(alg, &subtree_root(alg, l), &subtree_root(alg, r))
        }
    }
}

/// Root of the tree over `leaves` (the empty root for no leaves).
#[must_use]
pub fn merkle_root(alg: HashAlg, leaves: &[[u8; 32]]) -> [u8; 32] {
    subtree_root(alg, leaves)
}

/// RFC 6962 inclusion proof (audit path) of leaf `index`, leaf-to-root order.
///
/// # Errors
/// [`ContainerError::InvalidChunk`] if `index ≥ leaves.len()`.
pub fn inclusion_proof(alg: HashAlg, leaves: &[[u8; 32]], index: usize) -> Result<Vec<[u8; 32]>> {
    if index >= leaves.len() {
        return Err(ContainerError::InvalidChunk("proof index out of range"));
    }
    let mut path = Vec::new();
    let mut slice = leaves;
    let mut m = index;
    let mut siblings = Vec::new();
    // Walk down, remembering the sibling subtree of every level, then reverse.
    while slice.len() > 1 {
        let k = split_point(slice.len());
        let (l, r) = slice.split_at(k);
        if m < k {
            siblings.push(subtree_root(alg, r));
            slice = l;
        } else {
            siblings.push(subtree_root(alg, l));
            slice = r;
            m -= k;
        }
    }
    path.extend(siblings.into_iter().rev());
    Ok(path)
}

/// Verifies that `leaf` is leaf `index` of a tree of `total` leaves with root
/// `root` (RFC 9162 §2.1.3.2). `total` must come from a trusted source (the
/// container header), never from the proof's supplier.
#[must_use]
pub fn verify_merkle_proof(
    alg: HashAlg,
    leaf: &[u8; 32],
    index: u64,
    total: u64,
    proof: &[[u8; 32]],
    root: &[u8; 32],
) -> bool {
    if index >= total || proof.len() > MAX_PROOF_LEN {
        return false;
    }
    let mut fnode = index;
    let mut snode = total - 1;
    let mut r = *leaf;
    for p in proof {
        if snode == 0 {
            return false;
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(alg, p, &r);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            r = node_hash(alg, &r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    snode == 0 && subtle::ConstantTimeEq::ct_eq(&r[..], &root[..]).into()
}

/// Incremental root computation in `O(log n)` memory: leaves are pushed in
/// order; perfect subtrees are merged as soon as they pair up, and the root
/// folds the remaining peaks right to left, which is exactly the RFC 6962 shape.
#[derive(Clone, Debug)]
pub struct MerkleAccumulator {
    alg: HashAlg,
    /// (leaf count of the perfect subtree, its root), largest first.
    peaks: Vec<(u64, [u8; 32])>,
    count: u64,
}

impl MerkleAccumulator {
    /// An empty accumulator.
    #[must_use]
    pub const fn new(alg: HashAlg) -> Self {
        Self {
            alg,
            peaks: Vec::new(),
            count: 0,
        }
    }

    /// Leaves pushed so far.
    #[must_use]
    pub const fn len(&self) -> u64 {
        self.count
    }

    /// Whether no leaf was pushed.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Appends the next leaf.
    pub fn push(&mut self, leaf: [u8; 32]) {
        let mut size = 1u64;
        let mut hash = leaf;
        while let Some(&(top_size, top)) = self.peaks.last() {
            if top_size != size {
                break;
            }
            self.peaks.pop();
            hash = node_hash(self.alg, &top, &hash);
            size = size.saturating_mul(2);
        }
        self.peaks.push((size, hash));
        self.count = self.count.saturating_add(1);
    }

    /// Root of the leaves pushed so far.
    #[must_use]
    pub fn root(&self) -> [u8; 32] {
        let mut iter = self.peaks.iter().rev();
        let Some(&(_, mut acc)) = iter.next() else {
            return empty_root(self.alg);
        };
        for (_, peak) in iter {
            acc = node_hash(self.alg, peak, &acc);
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: usize) -> Vec<[u8; 32]> {
        (0..n).map(|i| [i as u8 ^ 0x5a; 32]).collect()
    }

    #[test]
    fn accumulator_matches_recursive_and_proofs_verify() {
        for alg in [HashAlg::Sha256, HashAlg::Blake3] {
            for n in 0..40 {
                let ls = leaves(n);
                let mut acc = MerkleAccumulator::new(alg);
                ls.iter().for_each(|l| acc.push(*l));
                let root = merkle_root(alg, &ls);
                assert_eq!(acc.root(), root, "n={n}");
                for i in 0..n {
                    let proof = inclusion_proof(alg, &ls, i).unwrap();
                    assert!(verify_merkle_proof(
                        alg, &ls[i], i as u64, n as u64, &proof, &root
                    ));
                    // (`total` is not bound by the proof itself: it must come
                    // from the header. A wrong root or index fails.)
                    assert!(!verify_merkle_proof(
                        alg, &ls[i], i as u64, n as u64, &proof, &[0u8; 32]
                    ));
                    assert!(!verify_merkle_proof(
                        alg, &ls[i], n as u64, n as u64, &proof, &root
                    ));
                    if n > 1 {
                        let j = (i + 1) % n;
                        assert!(!verify_merkle_proof(
                            alg, &ls[i], j as u64, n as u64, &proof, &root
                        ));
                    }
                }
            }
        }
    }
}
