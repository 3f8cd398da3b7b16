//! "Did you mean": a spelling suggestion from the index's own words. A query word that no
//! page holds (not even in another form, in any stemming the index holds: "herons" stands
//! when pages say "heron", `cheval` on a French site saying `chevaux`), or that few
//! pages hold while a word one or two edits away is far more common, is replaced by the most
//! common such word of the unstemmed body text; when the query has other words, the one most
//! pages hold together with them ("mutex lcok" is "mutex lock", though "look" is commoner).

use std::collections::HashMap;
use std::sync::LazyLock;

use index_format::IndexFields;
use levenshtein_automata::{DFA, Distance, LevenshteinAutomatonBuilder, SINK_STATE};
use tantivy::collector::Count;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Index, Searcher, Term};
use tantivy_fst::Automaton;

/// Builders of the automata of the words one and two edits (a transposition is one) from a
/// word: made once, as tantivy's fuzzy queries keep theirs (each is a table worked out from
/// the edit distance alone, a few hundred microseconds to make).
static ONE_EDIT: LazyLock<LevenshteinAutomatonBuilder> =
    LazyLock::new(|| LevenshteinAutomatonBuilder::new(1, true));
static TWO_EDITS: LazyLock<LevenshteinAutomatonBuilder> =
    LazyLock::new(|| LevenshteinAutomatonBuilder::new(2, true));

/// A word on fewer pages than this may be a misspelling.
const RARE: u64 = 3;
/// A replacement must be on this many times more pages than the word it replaces.
const MORE_COMMON: u64 = 20;
/// Spellings weighed against the rest of the query, the commonest first.
const CANDIDATES: usize = 5;

/// Where words are looked up: `stemmed` (with `stem`, its analyzers: one cut per stemming
/// the index holds, the first one's used to weigh candidates) says whether a word is known in
/// some form, in some language; `exact` holds the spellings offered.
struct Dictionary<'a> {
    stemmed: Field,
    stem: &'a dyn Fn(&str) -> Vec<Vec<String>>,
    exact: Field,
}

/// The query's `words` with rare ones respelled from the body text of `index`, or `None`
/// when every word stands.
pub fn suggest(
    index: &Index,
    searcher: &Searcher,
    fields: &IndexFields,
    words: &[&str],
) -> Option<String> {
    let held = crate::analysis::stemmings_held(searcher, fields.stemmer);
    let stem = |word: &str| -> Vec<Vec<String>> {
        held.iter()
            .map(|&stemming| {
                let tokenizers = crate::analysis::tokenizers(stemming);
                crate::query::field_tokens_with(index, fields.body, word, tokenizers)
            })
            .collect()
    };
    let dictionary = Dictionary {
        stemmed: fields.body,
        stem: &stem,
        exact: fields.body_exact,
    };
    respell(searcher, &dictionary, words)
}

fn respell(searcher: &Searcher, dictionary: &Dictionary<'_>, words: &[&str]) -> Option<String> {
    let mut changed = false;
    let mut out = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let lower = word.to_lowercase();
        let cuts = (dictionary.stem)(&lower);
        // Known in any language's form: `cheval` stands on a French site saying `chevaux`.
        let found = cuts
            .iter()
            .map(|forms| {
                forms
                    .iter()
                    .map(|form| doc_freq(searcher, dictionary.stemmed, form))
                    .min()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0);
        let one_form = cuts.first().is_some_and(|forms| forms.len() == 1);
        if found >= RARE || !one_form || lower.chars().count() < 3 {
            out.push((*word).to_string());
            continue;
        }
        let candidates: Vec<(String, u64)> = close_words(searcher, dictionary.exact, &lower)
            .into_iter()
            .filter(|(_, df)| found == 0 || *df >= found * MORE_COMMON)
            .take(CANDIDATES)
            .collect();
        let others: Vec<String> = words
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .flat_map(|(_, w)| {
                (dictionary.stem)(&w.to_lowercase())
                    .into_iter()
                    .next()
                    .unwrap_or_default()
            })
            .collect();
        let best = candidates.into_iter().max_by_key(|(candidate, df)| {
            (together(searcher, dictionary, candidate, &others), *df)
        });
        match best {
            Some((better, _)) => {
                changed = true;
                out.push(better);
            }
            None => out.push((*word).to_string()),
        }
    }
    changed.then(|| out.join(" "))
}

/// Pages holding `candidate` (unstemmed) and every one of `others` (stemmed forms).
fn together(
    searcher: &Searcher,
    dictionary: &Dictionary<'_>,
    candidate: &str,
    others: &[String],
) -> usize {
    if others.is_empty() {
        return 0;
    }
    let term = |field, text: &str| -> Box<dyn Query> {
        Box::new(TermQuery::new(
            Term::from_field_text(field, text),
            IndexRecordOption::Basic,
        ))
    };
    let mut clauses = vec![(Occur::Must, term(dictionary.exact, candidate))];
    clauses.extend(
        others
            .iter()
            .map(|form| (Occur::Must, term(dictionary.stemmed, form))),
    );
    searcher
        .search(&BooleanQuery::new(clauses), &Count)
        .unwrap_or(0)
}

/// Pages holding `word`, over every segment.
fn doc_freq(searcher: &Searcher, field: Field, word: &str) -> u64 {
    searcher
        .doc_freq(&Term::from_field_text(field, word))
        .unwrap_or(0)
}

/// Indexed words within one edit of `word` (two for words of 6 characters or more), other
/// than `word`, with their page counts, the commonest first.
fn close_words(searcher: &Searcher, field: Field, word: &str) -> Vec<(String, u64)> {
    let builder = match word.chars().count() {
        6.. => &*TWO_EDITS,
        _ => &*ONE_EDIT,
    };
    let mut counts: HashMap<String, u64> = HashMap::new();
    for segment in searcher.segment_readers() {
        let Ok(inverted) = segment.inverted_index(field) else {
            continue;
        };
        let Ok(mut stream) = inverted
            .terms()
            .search(Dfa(builder.build_dfa(word)))
            .into_stream()
        else {
            continue;
        };
        while stream.advance() {
            let Ok(term) = std::str::from_utf8(stream.key()) else {
                continue;
            };
            if term != word {
                *counts.entry(term.to_string()).or_default() += u64::from(stream.value().doc_freq);
            }
        }
    }
    let mut words: Vec<(String, u64)> = counts.into_iter().collect();
    words.sort_by(|(a, x), (b, y)| y.cmp(x).then_with(|| a.cmp(b)));
    words
}

/// A Levenshtein DFA as the term dictionary's automaton.
struct Dfa(DFA);

impl Automaton for Dfa {
    type State = u32;

    fn start(&self) -> u32 {
        self.0.initial_state()
    }

    fn is_match(&self, state: &u32) -> bool {
        matches!(self.0.distance(*state), Distance::Exact(_))
    }

    fn can_match(&self, state: &u32) -> bool {
        *state != SINK_STATE
    }

    fn accept(&self, state: &u32, byte: u8) -> u32 {
        self.0.transition(*state, byte)
    }
}
