//! Completions: the phrases `/suggest` offers as a searcher types, written by the indexer
//! beside each generation (`gen-NNNNNN/completions`) and read by searchd.
//!
//! A phrase is a title, a part of one or a run of words frequent in titles (the indexer
//! decides which); its weight says how many documents and links back it. Phrases are kept
//! [`normalize`]d (NFKC, lower case, one space between words), and a typed prefix is
//! normalized alike ([`typed_prefix`]) before it is looked up.
//!
//! The file holds two FSTs and a text:
//! - `phrases`: every phrase to its weight;
//! - `crowded`: every prefix (at a character boundary) that more than [`SCAN`] phrases begin
//!   with, to the place of its best [`KEPT`] phrases in `lists`;
//! - `lists`: lines `WEIGHT\tPHRASE`, each crowded prefix's best first.
//!
//! So a prefix is answered by one lookup in `crowded`, or else by reading at most [`SCAN`]
//! phrases of `phrases`: never more, however common the prefix.
//!
//! Layout: [`MAGIC`], the three parts' lengths and the xxh3 of the parts (`u64`s,
//! little-endian), then the parts: a damaged file is refused when read, never searched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tantivy_fst::{IntoStreamer, Map, MapBuilder, Streamer};
use unicode_normalization::UnicodeNormalization;
use xxhash_rust::xxh3::xxh3_64;

use crate::Error;
use crate::generation::write_atomically;

/// The file's first bytes (the `1` is its version).
pub const MAGIC: &[u8; 8] = b"siftcmp1";
/// Phrases kept per crowded prefix: the most `/suggest` offers.
pub const KEPT: usize = 10;
/// The most phrases read to answer a prefix that is not crowded.
pub const SCAN: usize = 64;
/// The longest phrase kept, in bytes.
pub const MAX_PHRASE_BYTES: usize = 100;
/// The longest prefix looked up, in characters: a longer one completes to nothing.
pub const MAX_PREFIX_CHARS: usize = 100;

/// The completions file of a generation directory.
pub fn completions_file(generation_dir: &Path) -> PathBuf {
    generation_dir.join("completions")
}

/// A phrase offered, and how much backs it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Completion {
    /// The phrase, normalized.
    pub phrase: String,
    /// Its weight: documents and links behind it.
    pub weight: u64,
}

/// Keeps the best `limit` of `completions`, in the order they are offered: heaviest first,
/// a tie in phrase order.
pub fn best_first(completions: &mut Vec<Completion>, limit: usize) {
    completions.sort_by(|a, b| {
        b.weight
            .cmp(&a.weight)
            .then_with(|| a.phrase.cmp(&b.phrase))
    });
    completions.truncate(limit);
}

/// Text as phrases are kept: NFKC, lower case, control characters dropped, words one space
/// apart, no space at either end.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.nfkc().flat_map(char::to_lowercase) {
        if c.is_whitespace() {
            space = !out.is_empty();
        } else if !c.is_control() {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out
}

/// What a searcher typed as a prefix to look up: normalized, keeping one trailing space (a
/// word finished, the next to come). `None` for nothing to complete: blank, longer than
/// [`MAX_PREFIX_CHARS`], or holding a control character.
pub fn typed_prefix(typed: &str) -> Option<String> {
    if typed.chars().count() > MAX_PREFIX_CHARS || typed.chars().any(char::is_control) {
        return None;
    }
    let mut prefix = normalize(typed);
    if prefix.is_empty() {
        return None;
    }
    if typed.ends_with(char::is_whitespace) {
        prefix.push(' ');
    }
    Some(prefix)
}

/// A generation's completions, read into memory.
pub struct Completions {
    phrases: Map<Vec<u8>>,
    crowded: Map<Vec<u8>>,
    lists: String,
}

impl Completions {
    /// Reads the completions of a generation directory; `None` when it has none (written
    /// before completions were, or not yet).
    pub fn open(generation_dir: &Path) -> Result<Option<Self>, Error> {
        let path = completions_file(generation_dir);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(path, e)),
        };
        Self::from_bytes(&bytes)
            .map(Some)
            .map_err(|reason| Error::State { path, reason })
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or("not a completions file")?;
        let mut header = [0u64; 4];
        let mut rest = rest;
        for word in &mut header {
            let (bytes, tail) = rest.split_first_chunk::<8>().ok_or("cut short")?;
            *word = u64::from_le_bytes(*bytes);
            rest = tail;
        }
        let [phrases, crowded, lists, checksum] = header;
        let length = |n: u64| usize::try_from(n).map_err(|e| e.to_string());
        let (phrases, crowded, lists) = (length(phrases)?, length(crowded)?, length(lists)?);
        if phrases
            .checked_add(crowded)
            .and_then(|n| n.checked_add(lists))
            != Some(rest.len())
        {
            return Err("its parts' lengths do not add up to its size".into());
        }
        if xxh3_64(rest) != checksum {
            return Err("damaged: its checksum does not match".into());
        }
        let (phrases, rest) = rest.split_at(phrases);
        let (crowded, lists) = rest.split_at(crowded);
        let map = |bytes: &[u8]| Map::from_bytes(bytes.to_vec()).map_err(|e| e.to_string());
        Ok(Self {
            phrases: map(phrases)?,
            crowded: map(crowded)?,
            lists: String::from_utf8(lists.to_vec()).map_err(|e| e.to_string())?,
        })
    }

    /// Phrases held.
    pub fn len(&self) -> usize {
        self.phrases.len()
    }

    /// True when it holds no phrase.
    pub fn is_empty(&self) -> bool {
        self.phrases.is_empty()
    }

    /// The best phrases (heaviest first, then in order) beginning with `prefix`, a
    /// [`typed_prefix`]; at most `limit` and [`KEPT`].
    pub fn complete(&self, prefix: &str, limit: usize) -> Vec<Completion> {
        let limit = limit.min(KEPT);
        if prefix.is_empty() || limit == 0 {
            return Vec::new();
        }
        if let Some(place) = self.crowded.get(prefix) {
            return self.list(place, limit);
        }
        let mut found = Vec::new();
        let mut stream = self.phrases.range().ge(prefix).into_stream();
        while let Some((key, weight)) = stream.next() {
            if !key.starts_with(prefix.as_bytes()) || found.len() > SCAN {
                break;
            }
            found.push(Completion {
                phrase: String::from_utf8_lossy(key).into_owned(),
                weight,
            });
        }
        best_first(&mut found, limit);
        found
    }

    /// The list at `place` (its offset in `lists` shifted by 8, its length in the low byte).
    fn list(&self, place: u64, limit: usize) -> Vec<Completion> {
        let count = (place & 0xff) as usize;
        let offset = usize::try_from(place >> 8).unwrap_or(usize::MAX);
        let Some(text) = self.lists.get(offset..) else {
            return Vec::new();
        };
        text.lines()
            .take(count.min(limit))
            .filter_map(|line| {
                let (weight, phrase) = line.split_once('\t')?;
                Some(Completion {
                    phrase: phrase.to_string(),
                    weight: weight.parse().ok()?,
                })
            })
            .collect()
    }
}

/// Writes the completions of a generation directory from `phrases` (normalized, each once,
/// with its weight), replacing the file whole: a reader sees the old one or the new.
/// Phrases empty or over [`MAX_PHRASE_BYTES`] are left out.
pub fn write_completions(
    generation_dir: &Path,
    phrases: HashMap<String, u64>,
) -> Result<(), Error> {
    let path = completions_file(generation_dir);
    let mut sorted: Vec<(String, u64)> = phrases
        .into_iter()
        .filter(|(phrase, _)| !phrase.is_empty() && phrase.len() <= MAX_PHRASE_BYTES)
        .collect();
    sorted.sort_unstable();
    let bytes = encode(&sorted).map_err(|e| Error::State {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    write_atomically(&path, &bytes)
}

/// The file's bytes for `sorted` phrases.
fn encode(sorted: &[(String, u64)]) -> Result<Vec<u8>, tantivy_fst::Error> {
    let mut phrases = MapBuilder::memory();
    for (phrase, weight) in sorted {
        phrases.insert(phrase, *weight)?;
    }
    let phrases = phrases.into_inner()?;
    let phrases_len = phrases.len();
    let mut crowded_prefixes = crowded(sorted);
    crowded_prefixes.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut lists = String::new();
    let mut crowded = MapBuilder::memory();
    for (prefix, best) in crowded_prefixes {
        crowded.insert(prefix, ((lists.len() as u64) << 8) | best.len() as u64)?;
        for index in best {
            let (phrase, weight) = &sorted[index];
            lists.push_str(&format!("{weight}\t{phrase}\n"));
        }
    }
    let crowded = crowded.into_inner()?;
    let mut parts = phrases;
    parts.extend_from_slice(&crowded);
    parts.extend_from_slice(lists.as_bytes());
    let mut bytes = Vec::with_capacity(40 + parts.len());
    bytes.extend_from_slice(MAGIC);
    let lengths = [phrases_len, crowded.len(), lists.len()].map(|n| n as u64);
    for word in lengths.into_iter().chain([xxh3_64(&parts)]) {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes.extend_from_slice(&parts);
    Ok(bytes)
}

/// A prefix of the phrase being read, open while the phrases that follow begin with it.
struct Open {
    /// Its length in bytes.
    len: usize,
    /// The first phrase beginning with it.
    start: usize,
    /// Its best phrases so far: (weight, index), heaviest first, the earlier of a tie first.
    best: Vec<(u64, usize)>,
}

impl Open {
    fn offer(&mut self, weight: u64, index: usize) {
        if self.best.len() == KEPT && self.best.last().is_some_and(|&(w, _)| w >= weight) {
            return;
        }
        let at = self.best.partition_point(|&(w, _)| w >= weight);
        self.best.insert(at, (weight, index));
        self.best.truncate(KEPT);
    }
}

/// Every prefix (at a character boundary) of more than [`SCAN`] of the `sorted` phrases,
/// with the indexes of its best [`KEPT`]: the phrases are read once, in order, each offered
/// to the prefixes it shares with the one before and opening its own.
fn crowded(sorted: &[(String, u64)]) -> Vec<(String, Vec<usize>)> {
    let mut found = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let close = |open: Open, end: usize, found: &mut Vec<(String, Vec<usize>)>| {
        if end - open.start > SCAN {
            let prefix = sorted[open.start].0[..open.len].to_string();
            found.push((prefix, open.best.into_iter().map(|(_, i)| i).collect()));
        }
    };
    for (index, (phrase, weight)) in sorted.iter().enumerate() {
        let shared = match index.checked_sub(1) {
            Some(before) => common_prefix(&sorted[before].0, phrase),
            None => 0,
        };
        while open.last().is_some_and(|o| o.len > shared) {
            if let Some(done) = open.pop() {
                close(done, index, &mut found);
            }
        }
        let from = open.last().map_or(0, |o| o.len);
        for (at, c) in phrase.char_indices() {
            let len = at + c.len_utf8();
            if len > from {
                open.push(Open {
                    len,
                    start: index,
                    best: Vec::new(),
                });
            }
        }
        for prefix in &mut open {
            prefix.offer(*weight, index);
        }
    }
    while let Some(done) = open.pop() {
        close(done, sorted.len(), &mut found);
    }
    found
}

/// The bytes `a` and `b` begin with alike, cut back to a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut len = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(len) {
        len -= 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(phrases: &[(&str, u64)]) -> Completions {
        let dir = tempfile::tempdir().expect("temporary directory");
        let phrases = phrases.iter().map(|(p, w)| (p.to_string(), *w)).collect();
        write_completions(dir.path(), phrases).expect("written");
        Completions::open(dir.path())
            .expect("read")
            .expect("present")
    }

    fn phrases(found: Vec<Completion>) -> Vec<String> {
        found.into_iter().map(|c| c.phrase).collect()
    }

    #[test]
    fn text_and_prefixes_are_normalized() {
        assert_eq!(normalize("  Vec\u{a0}in\tstd::VEC \n"), "vec in std::vec");
        assert_eq!(normalize("ｆｕｌｌ width"), "full width");
        assert_eq!(typed_prefix("Vec  "), Some("vec ".to_string()));
        assert_eq!(typed_prefix("  "), None);
        assert_eq!(typed_prefix(""), None);
        assert_eq!(typed_prefix("ab\u{7}c"), None);
        assert_eq!(typed_prefix(&"a".repeat(MAX_PREFIX_CHARS + 1)), None);
        assert_eq!(
            typed_prefix(&"é".repeat(MAX_PREFIX_CHARS)).map(|p| p.chars().count()),
            Some(MAX_PREFIX_CHARS)
        );
    }

    #[test]
    fn a_sparse_prefix_is_read_from_the_phrases_heaviest_first() {
        let completions = written(&[
            ("hashmap", 40),
            ("hashset", 70),
            ("hash", 5),
            ("heron", 100),
            ("hashmap in std::collections", 40),
        ]);
        assert_eq!(completions.len(), 5);
        assert_eq!(
            phrases(completions.complete("hash", 10)),
            ["hashset", "hashmap", "hashmap in std::collections", "hash"]
        );
        assert_eq!(
            phrases(completions.complete("hashmap ", 10)),
            ["hashmap in std::collections"]
        );
        assert_eq!(
            phrases(completions.complete("hash", 2)),
            ["hashset", "hashmap"]
        );
        assert!(completions.complete("z", 10).is_empty());
        assert!(completions.complete("", 10).is_empty());
    }

    #[test]
    fn a_crowded_prefix_answers_from_its_list_as_a_scan_would() {
        // 500 phrases under "p", 200 under "pa", weights that do not follow their order.
        let owned: Vec<(String, u64)> = (0..500u64)
            .map(|i| {
                let stem = if i < 200 { "pa" } else { "pé" };
                (format!("{stem}{i:03}"), (i * 7919) % 503)
            })
            .collect();
        let borrowed: Vec<(&str, u64)> = owned.iter().map(|(p, w)| (p.as_str(), *w)).collect();
        let completions = written(&borrowed);
        for prefix in ["p", "pa", "pé", "pa1", "pa19", "pé3", "pé49", "pé499"] {
            let mut expected: Vec<&(String, u64)> = owned
                .iter()
                .filter(|(p, _)| p.starts_with(prefix))
                .collect();
            expected.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let expected: Vec<Completion> = expected
                .into_iter()
                .take(KEPT)
                .map(|(phrase, weight)| Completion {
                    phrase: phrase.clone(),
                    weight: *weight,
                })
                .collect();
            assert_eq!(
                completions.complete(prefix, 50),
                expected,
                "prefix {prefix}"
            );
        }
        // The check above ran through lists ("pa1": 100 phrases) and scans ("pa19": 10).
        assert!(completions.crowded.get("p").is_some());
        assert!(completions.crowded.get("pé").is_some());
        assert!(completions.crowded.get("pa1").is_some());
        assert!(completions.crowded.get("pa19").is_none());
    }

    #[test]
    fn a_missing_file_is_none_and_a_damaged_one_an_error() {
        let dir = tempfile::tempdir().expect("temporary directory");
        assert!(Completions::open(dir.path()).expect("no file").is_none());
        write_completions(dir.path(), HashMap::from([("heron".to_string(), 3)])).expect("written");
        let path = completions_file(dir.path());
        let bytes = std::fs::read(&path).expect("read");
        for cut in [0, 7, 12, 40, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).expect("cut");
            assert!(Completions::open(dir.path()).is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0xff;
        std::fs::write(&path, &flipped).expect("flipped");
        assert!(Completions::open(dir.path()).is_err());
    }
}
