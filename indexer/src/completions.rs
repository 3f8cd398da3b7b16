//! A generation's completions (`index_format::completions`): the phrases `/suggest` offers,
//! read from the titles of the documents the generation holds once its commit is done, so a
//! full build and an update in place write them alike.
//!
//! Each document offers its title's parts: the pieces between its separators, or the whole
//! title when it has none (`Vec in std::vec - Rust` offers `vec in std::vec` and `rust`), each weighted
//! one plus the document's in-links, so what more pages link to comes first; and the runs of
//! one to [`RUN_WORDS`] words of those parts that neither begin nor end with a stop word of
//! the document's language, weighted one. A part is always kept; a run only when at least
//! [`FREQUENT`] documents offer it (a phrase of the corpus, not of one page).

use std::collections::HashMap;
use std::path::Path;

use index_format::IndexFields;
use index_format::completions::{MAX_PHRASE_BYTES, normalize, write_completions};
use index_format::stop_words::StopWords;
use tantivy::schema::Value;
use tantivy::{Index, TantivyDocument};

use crate::Error;

/// The longest run of words offered.
const RUN_WORDS: usize = 3;
/// Documents that must offer a run for it to be kept.
const FREQUENT: u32 = 2;
/// What a title is cut into parts at.
const SEPARATORS: &[&str] = &[" - ", " | ", " – ", " — ", " · ", " :: ", " » "];
/// What is trimmed off a word's ends in a run (`Traits:` is `traits`).
const EDGE_PUNCTUATION: &[char] = &[
    ',', '.', ';', ':', '!', '?', '"', '\'', '(', ')', '[', ']', '{', '}', '«', '»', '“', '”',
];

/// Phrases gathered so far, over every document.
#[derive(Default)]
struct Gathered {
    phrases: HashMap<String, Offered>,
}

/// What backs one phrase.
#[derive(Default)]
struct Offered {
    weight: u64,
    docs: u32,
    part: bool,
}

/// Writes the completions of the generation in `dir` from its committed `index` (every
/// build does after its commit); returns how many phrases it holds.
pub fn write(dir: &Path, index: &Index) -> Result<usize, Error> {
    let fields = IndexFields::new(&index.schema())?;
    let searcher = index.reader()?.searcher();
    let mut gathered = Gathered::default();
    let mut stop_words = StopWordLists::default();
    for segment in searcher.segment_readers() {
        let store = segment.get_store_reader(1).map_err(|e| Error::io(dir, e))?;
        for doc in store.iter::<TantivyDocument>(segment.alive_bitset()) {
            let doc = doc?;
            let text = |field| doc.get_first(field).and_then(|v| v.as_str()).unwrap_or("");
            let inlinks = doc
                .get_first(fields.inlinks)
                .and_then(|v| v.as_u64())
                .unwrap_or(0);
            let stops = stop_words.of(text(fields.lang));
            gathered.offer(text(fields.title), inlinks, stops);
        }
    }
    let phrases: HashMap<String, u64> = gathered
        .phrases
        .into_iter()
        .filter(|(_, offered)| offered.part || offered.docs >= FREQUENT)
        .map(|(phrase, offered)| (phrase, offered.weight))
        .collect();
    let count = phrases.len();
    write_completions(dir, phrases)?;
    Ok(count)
}

impl Gathered {
    /// Adds what a document of `title` and `inlinks` offers.
    fn offer(&mut self, title: &str, inlinks: u64, stops: Option<&StopWords>) {
        let mut offers: HashMap<String, (u64, bool)> = HashMap::new();
        let title = normalize(title);
        for part in split_parts(&title) {
            if part.is_empty() || part.len() > MAX_PHRASE_BYTES {
                continue;
            }
            offers.insert(part.to_string(), (1 + inlinks, true));
            let words: Vec<&str> = part
                .split(' ')
                .map(|word| word.trim_matches(EDGE_PUNCTUATION))
                .collect();
            for start in 0..words.len() {
                for end in start + 1..=(start + RUN_WORDS).min(words.len()) {
                    let run = &words[start..end];
                    let edges = [run[0], run[run.len() - 1]];
                    if run.iter().any(|w| w.is_empty())
                        || edges.iter().any(|w| is_stop_word(stops, w))
                    {
                        continue;
                    }
                    offers.entry(run.join(" ")).or_insert((1, false));
                }
            }
        }
        for (phrase, (weight, part)) in offers {
            let offered = self.phrases.entry(phrase).or_default();
            offered.weight = offered.weight.saturating_add(weight);
            offered.docs = offered.docs.saturating_add(1);
            offered.part |= part;
        }
    }
}

/// The pieces of a (normalized) title between its separators (the title itself when it has
/// none): a searcher types `heron nesting`, not `heron nesting - birds of the bay`.
fn split_parts(title: &str) -> Vec<&str> {
    let mut parts = vec![title];
    for separator in SEPARATORS {
        parts = parts.into_iter().flat_map(|p| p.split(separator)).collect();
    }
    parts.into_iter().map(str::trim).collect()
}

/// True when `word` is a stop word by `stops` (none: no list for the language).
fn is_stop_word(stops: Option<&StopWords>, word: &str) -> bool {
    stops.is_some_and(|stops| stops.contains(word))
}

/// Stop words by language code, made as languages are met.
#[derive(Default)]
struct StopWordLists {
    made: HashMap<String, Option<StopWords>>,
}

impl StopWordLists {
    /// The stop words of language `code` (`en`, `fr` ...), if there is a list.
    fn of(&mut self, code: &str) -> Option<&StopWords> {
        self.made
            .entry(code.to_string())
            .or_insert_with(|| StopWords::of(code))
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(gathered: &Gathered) -> Vec<(String, u64, u32, bool)> {
        let mut all: Vec<_> = gathered
            .phrases
            .iter()
            .map(|(p, o)| (p.clone(), o.weight, o.docs, o.part))
            .collect();
        all.sort();
        all
    }

    #[test]
    fn a_title_offers_its_parts_by_links_and_its_runs_by_documents() {
        let mut stops = StopWordLists::default();
        let mut gathered = Gathered::default();
        gathered.offer("Vec in std::vec - Rust", 9, stops.of("en"));
        gathered.offer("HashMap in std::collections - Rust", 2, stops.of("en"));
        let all = weights(&gathered);
        let find = |phrase: &str| all.iter().find(|(p, ..)| p == phrase).cloned();
        assert_eq!(
            find("vec in std::vec - rust"),
            None,
            "a title with parts is offered in parts"
        );
        assert_eq!(
            find("vec in std::vec"),
            Some(("vec in std::vec".into(), 10, 1, true))
        );
        // The part every page repeats: backed by both, with both's links.
        assert_eq!(find("rust"), Some(("rust".into(), 13, 2, true)));
        assert_eq!(find("vec"), Some(("vec".into(), 1, 1, false)));
        assert_eq!(
            find("std::collections"),
            Some(("std::collections".into(), 1, 1, false))
        );
        // "in" is an English stop word: no run begins or ends with it.
        assert_eq!(find("in"), None);
        assert_eq!(find("vec in"), None);
        assert_eq!(find("in std::vec"), None);
    }

    #[test]
    fn languages_without_a_list_keep_every_run_and_punctuation_is_trimmed() {
        let mut stops = StopWordLists::default();
        let mut gathered = Gathered::default();
        gathered.offer("Traits: Defining (Shared) Behavior", 0, stops.of("und"));
        let all = weights(&gathered);
        let phrases: Vec<&str> = all.iter().map(|(p, ..)| p.as_str()).collect();
        assert!(phrases.contains(&"traits defining shared"), "{phrases:?}");
        assert!(
            phrases.contains(&"traits: defining (shared) behavior"),
            "{phrases:?}"
        );
        assert!(phrases.contains(&"behavior"), "{phrases:?}");
        // French stop words are French.
        let mut gathered = Gathered::default();
        gathered.offer("Le chat de la voisine", 0, stops.of("fr"));
        let all = weights(&gathered);
        let phrases: Vec<&str> = all.iter().map(|(p, ..)| p.as_str()).collect();
        assert!(phrases.contains(&"le chat de la voisine"));
        assert!(phrases.contains(&"voisine"));
        assert!(phrases.contains(&"chat"));
        assert!(!phrases.contains(&"le chat"), "{phrases:?}");
        assert!(!phrases.contains(&"chat de"), "{phrases:?}");
    }
}
