//! Near-duplicate fingerprints: a 64-bit simhash (Charikar) of a page's main text.
//!
//! Each feature (three consecutive lower-cased words) is hashed with xxh3 (over the xxh3
//! hashes of its words, so each word is lower-cased and hashed once); bit `i` of the
//! simhash is set when more features have bit `i` set than clear. Pages whose texts share
//! almost all their features get hashes a few bits apart, so a page within
//! [`NEAR_DISTANCE`] bits of a stored one is a near-duplicate of it (a date line, a counter,
//! an ad slot changed). Texts too short to say ([`MIN_FEATURES`]) get no simhash: they are
//! compared by their exact hash only.
//!
//! Text alone misleads where a page's own words are few beside text it shares with many
//! others: API documentation whose pages list the same inherited methods, catalogues around
//! one template. Two pages are near-duplicates only when their titles agree as well
//! ([`similar_titles`]): a copy keeps its title (or adds words at an end, "(print)"); a
//! different page has its own, even when it differs by one word ("RChunksMut" and
//! "RChunksExactMut in std::slice", "ExtractIf in alloc::vec" and "ExtractIf in
//! alloc::collections::vec_deque").
//!
//! Finding a hash within 3 bits among millions uses the pigeonhole principle: split the 64
//! bits into [`BLOCKS`] blocks of 16; two hashes at most 3 bits apart agree exactly on at
//! least one block. The store indexes every hash under each of its blocks
//! ([`block_keys`]) and looks up the four blocks of a new hash.

use xxhash_rust::xxh3::xxh3_64;

/// Most differing bits between near-duplicates.
pub const NEAR_DISTANCE: u32 = 3;
/// Fewer features than this and the text is too short for a meaningful simhash.
pub const MIN_FEATURES: usize = 24;
/// Words per feature.
const SHINGLE: usize = 3;
/// Blocks a hash is indexed under: `NEAR_DISTANCE + 1`, so one always matches exactly.
pub const BLOCKS: u8 = 4;
/// Bits per block.
const BLOCK_BITS: u32 = 64 / BLOCKS as u32;

/// The words of `text`: runs of alphanumeric characters.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The simhash of `text`, or `None` when it has fewer than [`MIN_FEATURES`] features.
pub fn simhash(text: &str) -> Option<u64> {
    let mut lower = String::new();
    let words: Vec<u64> = words(text)
        .map(|word| {
            lower.clear();
            if word.is_ascii() {
                lower.extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
            } else {
                lower.extend(word.chars().flat_map(char::to_lowercase));
            }
            xxh3_64(lower.as_bytes())
        })
        .collect();
    let features = words.len().checked_sub(SHINGLE - 1)?;
    if features < MIN_FEATURES {
        return None;
    }
    let mut votes = [0i32; 64];
    let mut shingle = [0u8; 8 * SHINGLE];
    for window in words.windows(SHINGLE) {
        for (slot, word) in shingle.chunks_exact_mut(8).zip(window) {
            slot.copy_from_slice(&word.to_le_bytes());
        }
        let hash = xxh3_64(&shingle);
        for (bit, vote) in votes.iter_mut().enumerate() {
            *vote += ((hash >> bit) & 1) as i32 * 2 - 1;
        }
    }
    Some(
        votes
            .iter()
            .enumerate()
            .filter(|(_, vote)| **vote > 0)
            .fold(0u64, |hash, (bit, _)| hash | 1 << bit),
    )
}

/// Whether two simhashes mark near-duplicates.
pub fn is_near(a: u64, b: u64) -> bool {
    (a ^ b).count_ones() <= NEAR_DISTANCE
}

/// Whether two titles can name the same page: the words of one (lower-cased, split at
/// anything not alphanumeric) run, in order, inside the words of the other.
pub fn similar_titles(a: &str, b: &str) -> bool {
    let lowered = |title: &str| -> Vec<String> { words(title).map(str::to_lowercase).collect() };
    let (a, b) = (lowered(a), lowered(b));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.is_empty() || long.windows(short.len()).any(|run| run == short.as_slice())
}

/// The index keys of `hash`: for each block, `[block number, block bits (BE)]` followed by
/// the whole hash (BE). Keys of one prefix (`block_keys(h)[i][..3]`) hold every candidate
/// for block `i`.
pub fn block_keys(hash: u64) -> [[u8; 11]; BLOCKS as usize] {
    std::array::from_fn(|block| {
        let bits = (hash >> (block as u32 * BLOCK_BITS)) as u16;
        let mut key = [0u8; 11];
        key[0] = block as u8;
        key[1..3].copy_from_slice(&bits.to_be_bytes());
        key[3..].copy_from_slice(&hash.to_be_bytes());
        key
    })
}

/// The whole hash in an index key.
pub fn hash_of_key(key: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(key.get(3..11)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text of `n` distinct-ish words drawn from a fixed vocabulary by a PRNG.
    fn prose(seed: u64, n: usize) -> String {
        const VOCAB: &[&str] = &[
            "heron", "river", "stone", "marsh", "wind", "reed", "water", "light", "grey", "wing",
            "fish", "shallow", "morning", "still", "bank", "tall", "slow", "patient", "flight",
            "nest", "mud", "tide", "sky", "cold",
        ];
        let mut state = seed | 1;
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                VOCAB[(state % VOCAB.len() as u64) as usize]
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_changed_line_is_near_and_another_text_is_not() {
        // Simhash is statistical: a small edit usually moves a few bits, and rarely more.
        let pages: Vec<String> = (1..=50).map(|seed| prose(seed * 2, 2000)).collect();
        let hashes: Vec<u64> = pages.iter().map(|p| simhash(p).unwrap()).collect();
        let near = pages
            .iter()
            .zip(&hashes)
            .filter(|(page, hash)| {
                let dated = format!("Updated 2026-11-23 at 10:41. {page} Visitors today: 5321.");
                is_near(**hash, simhash(&dated).unwrap())
            })
            .count();
        assert!(near >= 45, "only {near} of 50 edited pages found near");
        for (i, a) in hashes.iter().enumerate() {
            for (j, b) in hashes.iter().enumerate().skip(i + 1) {
                assert!(
                    !is_near(*a, *b),
                    "pages {i} and {j}: {}",
                    (a ^ b).count_ones()
                );
            }
        }
    }

    #[test]
    fn case_punctuation_and_spacing_do_not_matter() {
        let page = prose(7, 200);
        let shouted = page.to_uppercase().replace(' ', " ,  ");
        assert_eq!(simhash(&page), simhash(&shouted));
    }

    #[test]
    fn titles_agree_when_one_runs_inside_the_other() {
        assert!(similar_titles("The marsh story", "The Marsh Story (print)"));
        assert!(similar_titles("Print: the marsh story", "The marsh story"));
        assert!(similar_titles("", ""));
        assert!(similar_titles("", "A title lost by the copy"));
        for (a, b) in [
            (
                "RChunksMut in std::slice - Rust",
                "RChunksExactMut in std::slice - Rust",
            ),
            (
                "RMatchIndices in core::str - Rust",
                "RSplitTerminator in core::str - Rust",
            ),
            (
                "_mm512_mask_sqrt_round_pd in core::arch::x86_64 - Rust",
                "_mm512_mask_div_round_pd in core::arch::x86_64 - Rust",
            ),
            (
                "BTreeMap in std::collections - Rust",
                "BTreeMap in alloc::collections::btree_map - Rust",
            ),
            (
                "ExtractIf in alloc::vec - Rust",
                "ExtractIf in alloc::collections::vec_deque - Rust",
            ),
            ("The marsh story", "The story of the marsh"),
        ] {
            assert!(!similar_titles(a, b), "{a} / {b}");
        }
    }

    #[test]
    fn short_texts_have_no_simhash() {
        assert_eq!(simhash(""), None);
        assert_eq!(simhash(&prose(3, MIN_FEATURES + 1)), None);
        assert!(simhash(&prose(3, MIN_FEATURES + 2)).is_some());
    }

    #[test]
    fn hashes_within_three_bits_share_a_block_key() {
        let hash = 0x0123_4567_89ab_cdef_u64;
        // Flip three bits in three different blocks: the fourth block still matches.
        let near = hash ^ (1 << 3) ^ (1 << 20) ^ (1 << 40);
        assert!(is_near(hash, near));
        let shared = block_keys(hash)
            .iter()
            .zip(block_keys(near))
            .filter(|(a, b)| a[..3] == b[..3])
            .count();
        assert_eq!(shared, 1);
        assert_eq!(hash_of_key(&block_keys(near)[2]), Some(near));
        assert!(!is_near(hash, near ^ (1 << 63)));
    }
}
