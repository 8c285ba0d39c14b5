//! BIP-39 mnemonics (English wordlist): entropy ↔ phrase with checksum, and
//! phrase → 64-byte seed (PBKDF2-HMAC-SHA512, 2048 rounds, NFKD-normalised
//! phrase and `"mnemonic" ‖ passphrase` salt).
//!
//! veilkit generates 24-word phrases (256-bit entropy); parsing accepts the
//! standard 12/15/18/21/24-word lengths so standard vectors and other wallets'
//! phrases can be checked. Words are separated by any Unicode whitespace; the
//! seed is computed over the canonical form (NFKD words joined by one space).

use crate::error::{CryptoError, Result};
use crate::rng;
use sha2::{Digest, Sha256, Sha512};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use unicode_normalization::UnicodeNormalization;
use zeroize::Zeroizing;

/// Entropy length of the phrases veilkit generates (24 words).
pub const ENTROPY_LEN: usize = 32;
/// Length of the seed derived from a phrase.
pub const SEED_LEN: usize = 64;
/// PBKDF2 rounds fixed by BIP-39.
const PBKDF2_ROUNDS: u32 = 2048;

const WORDLIST_TEXT: &str = include_str!("../data/bip39-english.txt");

/// Longest word of the English list.
const MAX_WORD_LEN: usize = 8;

/// A word as a fixed-size record `len ‖ bytes ‖ zero fill`, so that
/// comparisons and selections take the same time for every word. `None` for
/// a word longer than any in the list (not a word; that its length is
/// public is harmless).
fn record(word: &str) -> Option<Zeroizing<[u8; MAX_WORD_LEN + 1]>> {
    let bytes = word.as_bytes();
    let len = u8::try_from(bytes.len())
        .ok()
        .filter(|&n| usize::from(n) <= MAX_WORD_LEN)?;
    let mut r = Zeroizing::new([0u8; MAX_WORD_LEN + 1]);
    let (head, tail) = r.split_at_mut(1);
    head.copy_from_slice(&[len]);
    tail.get_mut(..bytes.len())?.copy_from_slice(bytes);
    Some(r)
}

/// The word at `index` (0..2048) in constant time: every word of the list is
/// read and the one whose position equals `index` is kept by conditional
/// selection, so neither the time nor the memory accesses depend on `index`.
fn word_at(index: u16) -> Option<Zeroizing<String>> {
    let mut selected = Zeroizing::new([0u8; MAX_WORD_LEN + 1]);
    let mut found = Choice::from(0);
    for (i, w) in WORDLIST_TEXT.lines().enumerate() {
        let r = record(w)?;
        let hit = u16::try_from(i).map_or(Choice::from(0), |i| i.ct_eq(&index));
        for (s, b) in selected.iter_mut().zip(r.iter()) {
            s.conditional_assign(b, hit);
        }
        found |= hit;
    }
    if !bool::from(found) {
        return None;
    }
    let (len, bytes) = selected.split_first()?;
    let word = core::str::from_utf8(bytes.get(..usize::from(*len))?).ok()?;
    Some(Zeroizing::new(word.to_owned()))
}

/// The index of `word` in constant time: the word is compared with every one
/// of the 2048 words (`subtle`, fixed-size records) and the index is
/// accumulated by conditional selection, with no early exit and no branch on
/// the word. Only its being longer than 8 bytes (not a word at all) is
/// decided early.
fn index_of(word: &str) -> Option<u16> {
    let wanted = record(word)?;
    let mut index = 0u16;
    let mut found = Choice::from(0);
    for (i, w) in WORDLIST_TEXT.lines().enumerate() {
        let r = record(w)?;
        let hit = r.as_slice().ct_eq(wanted.as_slice());
        index.conditional_assign(&u16::try_from(i).ok()?, hit);
        found |= hit;
    }
    bool::from(found).then_some(index)
}

/// Encodes entropy (16, 20, 24, 28 or 32 bytes) as a mnemonic phrase.
///
/// # Errors
/// [`CryptoError::InvalidLength`] for any other entropy length.
pub fn entropy_to_mnemonic(entropy: &[u8]) -> Result<Zeroizing<String>> {
    if !matches!(entropy.len(), 16 | 20 | 24 | 28 | 32) {
        return Err(CryptoError::length(
            "entropy",
            "16, 20, 24, 28 or 32 bytes",
            entropy.len(),
        ));
    }
    let checksum_bits = entropy.len() / 4;
    let hash = Sha256::digest(entropy);
    let words = (entropy.len() * 8 + checksum_bits) / 11;
    let bit = |i: usize| -> u16 {
        let byte = if i < entropy.len() * 8 {
            entropy.get(i / 8).copied()
        } else {
            hash.get((i - entropy.len() * 8) / 8).copied()
        };
        u16::from(byte.unwrap_or(0) >> (7 - (i % 8)) & 1)
    };
    let mut phrase = Zeroizing::new(String::with_capacity(words * 9));
    for w in 0..words {
        let mut idx: u16 = 0;
        for b in 0..11 {
            idx = (idx << 1) | bit(w * 11 + b);
        }
        let word = word_at(idx).ok_or(CryptoError::InvalidMnemonic("wordlist"))?;
        if w > 0 {
            phrase.push(' ');
        }
        phrase.push_str(&word);
    }
    Ok(phrase)
}

/// Generates a fresh 24-word phrase from 256 bits of CSPRNG entropy.
///
/// # Errors
/// [`CryptoError::RandomnessUnavailable`].
pub fn generate_mnemonic() -> Result<Zeroizing<String>> {
    let entropy = rng::array::<ENTROPY_LEN>()?;
    entropy_to_mnemonic(entropy.as_slice())
}

/// NFKD of `text`, in a zeroizing string.
fn nfkd(text: &str) -> Zeroizing<String> {
    Zeroizing::new(text.nfkd().collect())
}

/// Splits an already NFKD-normalised phrase into its words.
fn words_of(phrase_nfkd: &str) -> Zeroizing<Vec<String>> {
    Zeroizing::new(phrase_nfkd.split_whitespace().map(str::to_owned).collect())
}

/// Decodes a phrase back to its entropy, checking every word and the checksum.
///
/// # Errors
/// [`CryptoError::InvalidMnemonic`] naming the problem (word count, unknown
/// word, checksum).
pub fn mnemonic_to_entropy(phrase: &str) -> Result<Zeroizing<Vec<u8>>> {
    mnemonic_to_entropy_nfkd(&nfkd(phrase))
}

/// [`mnemonic_to_entropy`] for a phrase that is already NFKD-normalised (the wasm
/// bindings use it: the TypeScript facade normalises with `String.prototype.normalize`,
/// which keeps the Unicode tables out of the wasm module). A phrase that is not NFKD is
/// not normalised here; with the English list that can only make it fail
/// ([`CryptoError::InvalidMnemonic`]), never decode differently.
///
/// # Errors
/// As [`mnemonic_to_entropy`].
pub fn mnemonic_to_entropy_nfkd(phrase_nfkd: &str) -> Result<Zeroizing<Vec<u8>>> {
    entropy_of_words(&words_of(phrase_nfkd))
}

/// The entropy of a phrase's words, checking the count, every word and the checksum.
fn entropy_of_words(words: &[String]) -> Result<Zeroizing<Vec<u8>>> {
    if !matches!(words.len(), 12 | 15 | 18 | 21 | 24) {
        return Err(CryptoError::InvalidMnemonic(
            "word count must be 12, 15, 18, 21 or 24",
        ));
    }
    let total_bits = words.len() * 11;
    let checksum_bits = total_bits / 33;
    let entropy_bytes = (total_bits - checksum_bits) / 8;
    // 24 words = 33 bytes of bits at most.
    let mut bits = Zeroizing::new([0u8; 33]);
    for (w, word) in words.iter().enumerate() {
        let idx = index_of(word).ok_or(CryptoError::InvalidMnemonic("unknown word"))?;
        for b in 0..11 {
            // No branch on the (secret) index bits.
            let bit = u8::try_from((idx >> (10 - b)) & 1).unwrap_or(0);
            let pos = w * 11 + b;
            if let Some(byte) = bits.get_mut(pos / 8) {
                *byte |= bit << (7 - pos % 8);
            }
        }
    }
    let entropy = bits
        .get(..entropy_bytes)
        .ok_or(CryptoError::InvalidMnemonic("length"))?;
    let hash = Sha256::digest(entropy);
    // Checksum: first `checksum_bits` (≤ 8) bits of the hash, stored right after the entropy.
    let mask = 0xffu8 << (8 - checksum_bits);
    let stored = bits.get(entropy_bytes).copied().unwrap_or(0) & mask;
    let expected = hash.first().copied().unwrap_or(0) & mask;
    if !bool::from(stored.ct_eq(&expected)) {
        return Err(CryptoError::InvalidMnemonic("checksum mismatch"));
    }
    Ok(Zeroizing::new(entropy.to_vec()))
}

/// Whether `phrase` is a valid English BIP-39 mnemonic.
#[must_use]
pub fn validate_mnemonic(phrase: &str) -> bool {
    mnemonic_to_entropy(phrase).is_ok()
}

/// Derives the 64-byte BIP-39 seed. The phrase is validated first.
///
/// # Errors
/// [`CryptoError::InvalidMnemonic`] if the phrase is not a valid mnemonic.
pub fn mnemonic_to_seed(phrase: &str, passphrase: &str) -> Result<Zeroizing<[u8; SEED_LEN]>> {
    mnemonic_to_seed_nfkd(&nfkd(phrase), &nfkd(passphrase))
}

/// [`mnemonic_to_seed`] for a phrase and passphrase that are already NFKD-normalised
/// (see [`mnemonic_to_entropy_nfkd`]). The caller must normalise the passphrase: one that
/// is not NFKD gives a different seed than [`mnemonic_to_seed`] would.
///
/// # Errors
/// [`CryptoError::InvalidMnemonic`] if the phrase is not a valid mnemonic.
pub fn mnemonic_to_seed_nfkd(
    phrase_nfkd: &str,
    passphrase_nfkd: &str,
) -> Result<Zeroizing<[u8; SEED_LEN]>> {
    let words = words_of(phrase_nfkd);
    entropy_of_words(&words)?;
    let canonical = Zeroizing::new(words.join(" "));
    let mut salt: Zeroizing<String> = Zeroizing::new(String::from("mnemonic"));
    salt.push_str(passphrase_nfkd);
    let mut seed = Zeroizing::new([0u8; SEED_LEN]);
    pbkdf2::pbkdf2_hmac::<Sha512>(
        canonical.as_bytes(),
        salt.as_bytes(),
        PBKDF2_ROUNDS,
        seed.as_mut_slice(),
    );
    Ok(seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordlist_has_2048_sorted_words() {
        let words: Vec<&str> = WORDLIST_TEXT.lines().collect();
        assert_eq!(words.len(), 2048);
        assert!(words.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn every_word_maps_to_its_index_and_back_and_non_words_are_rejected() {
        for (i, w) in WORDLIST_TEXT.lines().enumerate() {
            let i = u16::try_from(i).unwrap();
            assert_eq!(index_of(w), Some(i), "{w}");
            assert_eq!(word_at(i).as_deref().map(String::as_str), Some(w), "{i}");
        }
        assert_eq!(word_at(2048), None);
        assert_eq!(word_at(u16::MAX), None);
        for not_a_word in [
            "",
            "abando",
            "abandonx",
            "Abandon",
            "abandon\0",
            "zoo\0",
            "zoo ",
            "zo",
            "aaaaaaaa",
            "abandonab",
            "zzzzzzzzz",
            "\u{e9}",
            "abc\0\0\0\0\0",
        ] {
            assert_eq!(index_of(not_a_word), None, "{not_a_word:?}");
        }
        assert_eq!(index_of("zoo"), Some(2047));
        assert_eq!(index_of("abandon"), Some(0));
    }

    #[test]
    fn generated_phrases_have_24_words_and_round_trip() {
        let p = generate_mnemonic().unwrap();
        assert_eq!(p.split(' ').count(), 24);
        let e = mnemonic_to_entropy(&p).unwrap();
        assert_eq!(e.len(), 32);
        assert_eq!(*entropy_to_mnemonic(&e).unwrap(), *p);
    }

    #[test]
    fn rejects_bad_checksum_unknown_word_and_count() {
        let good = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
        assert!(validate_mnemonic(good));
        let bad_sum = good.replace("about", "abandon");
        assert_eq!(
            mnemonic_to_entropy(&bad_sum).unwrap_err().code(),
            "INVALID_MNEMONIC"
        );
        assert!(!validate_mnemonic(&good.replace("about", "aboutx")));
        assert!(!validate_mnemonic("abandon abandon"));
        assert!(!validate_mnemonic(""));
        assert!(mnemonic_to_seed(&bad_sum, "").is_err());
        assert_eq!(
            entropy_to_mnemonic(&[0u8; 15]).unwrap_err().code(),
            "INVALID_LENGTH"
        );
    }

    #[test]
    fn whitespace_is_canonicalised() {
        let good = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
        let messy = format!("  {}\n", good.replace(' ', "  \t"));
        assert_eq!(
            *mnemonic_to_seed(good, "x").unwrap(),
            *mnemonic_to_seed(&messy, "x").unwrap()
        );
    }
}
