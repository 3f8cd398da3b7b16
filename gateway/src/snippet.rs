//! Snippets: the passage of a page shown under its title, with the query terms marked.
//!
//! [`Passages`] finds, in the start of a page's body (`body_start`, the first 32 KiB the index
//! stores: a huge page costs no more than a big one), the window of [`SNIPPET_CHARS`] that
//! holds the most of the query's terms (weighted by their rarity), and marks every token in it
//! that the body's analyzer turns into a query term: "Reads" and "reading" for `read`. When
//! the body has none of the terms (the page matched on its title or anchors) the passage is
//! the page's description, else the start of its body. A page that asked for `nosnippet`
//! shows none.
//!
//! Only words that could be a term are analyzed, and a word analyzed once is remembered for
//! the rest of the query. An English stem is its word, lowercased, up to its last letter or
//! two, then perhaps one changed letter (`cri` for "cried", `hope` for "hoping"): so a word
//! can only be the term `read` if it starts with `rea`, whatever its case. When every term is
//! written in ASCII, the body is searched for those prefixes (Aho-Corasick, with SIMD
//! prefilters) and only the words that start with one are cut and analyzed; the rest of the
//! text is never walked word by word. Otherwise every word is cut, and one whose first letter
//! starts no term is passed over. (tantivy's `SnippetGenerator` tokenized and stemmed every
//! word of every result, which was 80% of a query's CPU; walking every word of the stored
//! 32 KiB was then a quarter of it.)
//!
//! The scan ends early: at the first window holding every term the page holds, once every
//! occurrence of every term the index counted in the body is met, or [`SCAN_BYTES`] into the
//! body when it has found a term by then.
//!
//! A [`Snippet`] is plain text plus byte ranges: the HTML templates escape the text and wrap
//! the ranges in `<mark>` themselves, so no HTML from the web ever reaches a page unescaped.

use std::collections::HashMap;
use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};

use index_format::language::Stemming;
use index_format::tokenize::{Compounds, stemmed_analyzer};
use tantivy::postings::Postings;
use tantivy::query::Query;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocAddress, DocSet, Searcher, Term};
use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use crate::stored::StoredPage;

/// Longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 200;

/// Most characters of context shown before a passage's first term.
const LEAD_CHARS: usize = 40;

/// How far into a body the scan for terms goes once it has found one: a passage starts in
/// the first 8 KiB of a body that has a term there. A page's start is where a passage is
/// best taken from, and scanning the whole 32 KiB of each result for the window that holds
/// the most terms was a tenth of a query's CPU.
const SCAN_BYTES: usize = 8 * 1024;

/// Most query terms a passage is scored on (a bit each).
const MAX_TERMS: usize = 64;

/// A passage: plain text and the byte ranges of the query terms in it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Snippet {
    /// The text.
    pub text: String,
    /// Byte ranges of `text` to highlight, in order, not overlapping.
    pub highlights: Vec<Range<usize>>,
}

impl Snippet {
    /// A snippet without highlights.
    pub fn plain(text: String) -> Self {
        Self {
            text,
            highlights: Vec::new(),
        }
    }

    /// The text cut into runs, each flagged `true` when it is highlighted. Ranges that are
    /// out of order, out of bounds or not on character boundaries are ignored.
    pub fn runs(&self) -> Vec<(bool, &str)> {
        let text = self.text.as_str();
        let mut runs = Vec::new();
        let mut at = 0;
        for range in &self.highlights {
            if range.start < at
                || range.start >= range.end
                || range.end > text.len()
                || !text.is_char_boundary(range.start)
                || !text.is_char_boundary(range.end)
            {
                continue;
            }
            if range.start > at {
                runs.push((false, &text[at..range.start]));
            }
            runs.push((true, &text[range.start..range.end]));
            at = range.end;
        }
        if at < text.len() {
            runs.push((false, &text[at..]));
        }
        runs
    }
}

/// The fields a snippet is made from.
#[derive(Clone, Copy, Debug)]
pub struct SnippetFields {
    /// The stored start of the body, where passages are searched.
    pub body_start: Field,
    /// The fallback.
    pub description: Field,
    /// 1 when no snippet may be shown.
    pub nosnippet: Field,
    /// The document's language: its body's words are analyzed as its stemming cut them.
    pub lang: Field,
}

/// One query's passage finder: its terms in the body field, and the analyzer that turns a
/// body's words into terms.
pub struct Passages {
    /// Terms as indexed (lowercased, stemmed), with their weights.
    terms: Vec<(String, f32)>,
    /// The same terms in the index, when the finder was made from a query: what
    /// [`Passages::held_by`] looks up.
    index_terms: Vec<Term>,
    /// Bit `b` set when some term starts with the ASCII byte `b`.
    ascii_firsts: u128,
    /// When every term is ASCII: a search for the prefixes a word of each term starts with
    /// ([`word_prefix`]).
    prefixes: Option<AhoCorasick>,
    /// The body field's analyzer, run on one word at a time: the index's own, or the one of
    /// the stemming of the document read now.
    analyzer: TextAnalyzer,
    /// The stemming `analyzer` cuts by.
    stemming: Stemming,
    /// Words analyzed so far, as they appear in bodies: the term each one is, if any.
    known: HashMap<String, Option<usize>, Xxh3DefaultBuilder>,
    /// Longest passage, in characters.
    max_chars: usize,
}

/// A query term found in a body.
#[derive(Clone, Debug)]
struct Found {
    range: Range<usize>,
    term: usize,
}

impl Passages {
    /// The passage finder for `query`'s terms in `field` (a text field), each weighted by its
    /// inverse document frequency; terms no document holds are left out.
    pub fn new(searcher: &Searcher, query: &dyn Query, field: Field) -> tantivy::Result<Self> {
        let mut terms: Vec<&Term> = Vec::new();
        query.query_terms(&mut |term, _| {
            if term.field() == field && !terms.contains(&term) {
                terms.push(term);
            }
        });
        let docs = searcher.num_docs() as f32;
        let mut weighted = Vec::new();
        let mut index_terms = Vec::new();
        for term in terms {
            let value = term.value();
            let Some(text) = value.as_str() else {
                continue;
            };
            let freq = searcher.doc_freq(term)? as f32;
            if freq > 0.0 && weighted.len() < MAX_TERMS {
                let idf = (1.0 + (docs - freq + 0.5) / (freq + 0.5)).ln();
                weighted.push((text.to_string(), idf));
                index_terms.push(term.clone());
            }
        }
        let analyzer = searcher.index().tokenizer_for_field(field)?;
        let mut passages = Self::with_terms(analyzer, weighted, SNIPPET_CHARS);
        passages.index_terms = index_terms;
        Ok(passages)
    }

    /// The terms (a bit each, in order) that the document at `address` holds in its body
    /// anywhere, and how often: a passage is looked for among those alone, so the scan of a
    /// page that lacks one (it matched by title or anchors) ends as soon as it holds the
    /// others, a page that holds none is not scanned, and a scan that met every occurrence of
    /// every term ends there. Every term, without a bound, when the finder was not made from
    /// a query or the index cannot say.
    pub fn held_by(&self, searcher: &Searcher, address: DocAddress) -> Held {
        let unknown = Held::every_term(self.terms.len());
        let Some(field) = self.index_terms.first().map(Term::field) else {
            return unknown;
        };
        let segment = searcher.segment_reader(address.segment_ord);
        let Ok(inverted) = segment.inverted_index(field) else {
            return unknown;
        };
        let mut held = Held {
            terms: 0,
            occurrences: vec![0; self.index_terms.len()],
        };
        for (i, term) in self.index_terms.iter().enumerate() {
            let occurrences = match inverted.read_postings(term, IndexRecordOption::WithFreqs) {
                // A seek may not go back: a list that starts past the document lacks it.
                Ok(Some(mut postings)) => {
                    let holds = postings.doc() <= address.doc_id
                        && postings.seek(address.doc_id) == address.doc_id;
                    if holds { postings.term_freq() } else { 0 }
                }
                Ok(None) => 0,
                Err(_) => u32::MAX,
            };
            if occurrences > 0 {
                held.terms |= 1 << i;
            }
            held.occurrences[i] = occurrences;
        }
        held
    }

    /// A finder for these terms (as `analyzer` makes them) and weights, passages of at most
    /// `max_chars` characters.
    pub fn with_terms(
        analyzer: TextAnalyzer,
        mut terms: Vec<(String, f32)>,
        max_chars: usize,
    ) -> Self {
        terms.truncate(MAX_TERMS);
        let ascii_firsts = terms
            .iter()
            .filter_map(|(text, _)| text.bytes().next().filter(u8::is_ascii))
            .fold(0u128, |bits, byte| bits | 1 << byte);
        Self {
            prefixes: prefix_search(&terms),
            terms,
            index_terms: Vec::new(),
            ascii_firsts,
            analyzer,
            stemming: Stemming::DEFAULT,
            known: HashMap::default(),
            max_chars,
        }
    }

    /// The snippet of `doc`, the stored document at `address`.
    pub fn snippet_for(
        &mut self,
        searcher: &Searcher,
        address: DocAddress,
        doc: &StoredPage,
        fields: SnippetFields,
    ) -> Snippet {
        let nosnippet = doc.number(fields.nosnippet) == Some(1);
        if nosnippet {
            return Snippet::default();
        }
        let held = self.held_by(searcher, address);
        self.analyze_as(Stemming::of_language(doc.text(fields.lang)));
        let body_start = doc.text(fields.body_start);
        let body = body_start.trim();
        if let Some(passage) = self.passage_among(body, &held) {
            return passage;
        }
        let description = doc.text(fields.description);
        let fallback = match description.trim() {
            "" => body_start,
            description => description,
        };
        Snippet::plain(shorten(fallback, SNIPPET_CHARS))
    }

    /// Analyzes the words of the next bodies as a document stemmed by `stemming` was cut
    /// (its stemmed fields hold that language's stems).
    fn analyze_as(&mut self, stemming: Stemming) {
        if stemming != self.stemming {
            self.stemming = stemming;
            self.analyzer = stemmed_analyzer(stemming, Compounds::Joined);
            self.known.clear();
        }
    }

    /// The best passage of `body`, if it holds any term (the tests' way in).
    #[cfg(test)]
    pub fn passage(&mut self, body: &str) -> Option<Snippet> {
        self.passage_among(body, &Held::every_term(self.terms.len()))
    }

    /// The best passage of `body` for the terms `held`, if it holds any.
    fn passage_among(&mut self, body: &str, held: &Held) -> Option<Snippet> {
        let (found, starts) = self.find(body, held);
        let (first, last) = self.best_window(&found, starts)?;
        let window = found[first].range.start..found[last].range.end;
        let cut = cut_around(body, window, self.max_chars);
        // Overlapping tokens (CJK bigrams) are marked as one.
        let mut highlights: Vec<Range<usize>> = Vec::new();
        for f in found.iter().skip_while(|f| f.range.start < cut.start) {
            if f.range.end > cut.end {
                break;
            }
            let range = f.range.start - cut.start..f.range.end - cut.start;
            match highlights.last_mut() {
                Some(last) if range.start < last.end => last.end = last.end.max(range.end),
                _ => highlights.push(range),
            }
        }
        Some(ellipsized(
            &body[cut.clone()],
            &highlights,
            cut.start > 0,
            cut.end < body.len(),
        ))
    }

    /// The tokens of `text` that are query terms, in order, and how many of them may start
    /// the passage's window. The scan ends soon after the first window of `max_chars` that
    /// holds every term of `held` (no later window weighs more, and the start of a page is
    /// where a passage is best taken from): once past any text a passage starting in that
    /// window can show, so every term shown is found and marked. It ends at once when every
    /// occurrence the index counted of every term is found: the rest of the text has none.
    fn find(&mut self, text: &str, held: &Held) -> (Vec<Found>, usize) {
        let mut found: Vec<Found> = Vec::new();
        if held.terms == 0 {
            return (found, 0);
        }
        let mut unseen = held.occurrences.clone();
        let mut unseen_total: u64 = unseen.iter().map(|&n| u64::from(n)).sum();
        // Once every term is in a window: the number of terms found by then, and where the
        // text a passage starting at them can show ends (characters are at most 4 bytes).
        let mut complete: Option<(usize, usize)> = None;
        // Where the scan ends once a term is found (see [`SCAN_BYTES`]).
        let mut scan_end: Option<usize> = None;
        let ascii_firsts = self.ascii_firsts;
        // A clone (one reference count) to search with while `term_of` borrows `self`.
        let prefixes = self.prefixes.clone();
        let words: Box<dyn Iterator<Item = Range<usize>>> = match &prefixes {
            Some(prefixes) => Box::new(in_order(
                prefixes
                    .find_iter(text)
                    .filter_map(|found| index_format::tokenize::word_at(text, found.start())),
                accented_words(text),
            )),
            None => Box::new(index_format::tokenize::spans(text).filter(|span| {
                // A stem keeps its word's first letter: an ASCII word whose lowercased first
                // letter starts no term is no term.
                let first = text.as_bytes()[span.start];
                !first.is_ascii() || ascii_firsts & (1 << first.to_ascii_lowercase()) != 0
            })),
        };
        for span in words {
            if let Some((_, shown_end)) = complete
                && span.start >= shown_end
            {
                break;
            }
            if scan_end.is_some_and(|end| span.start >= end) {
                break;
            }
            let Some(term) = self.term_of(&text[span.clone()]) else {
                continue;
            };
            let end = span.end;
            // The scan ends SCAN_BYTES in or, when the first term is past that, once the
            // text a passage starting at it shows is scanned.
            scan_end.get_or_insert(SCAN_BYTES.max(end + 4 * self.max_chars));
            found.push(Found { range: span, term });
            if let Some(count) = unseen.get_mut(term).filter(|count| **count > 0) {
                *count -= 1;
                unseen_total -= 1;
                if unseen_total == 0 {
                    break;
                }
            }
            if complete.is_none() {
                let window = found
                    .iter()
                    .rev()
                    .take_while(|f| end - f.range.start <= self.max_chars);
                if window.fold(0u64, |bits, f| bits | 1 << f.term) & held.terms == held.terms {
                    complete = Some((found.len(), end + 4 * self.max_chars));
                }
            }
        }
        let starts = complete.map_or(found.len(), |(count, _)| count);
        (found, starts)
    }

    /// The term a body word is, once analyzed.
    fn term_of(&mut self, word: &str) -> Option<usize> {
        if let Some(&known) = self.known.get(word) {
            return known;
        }
        let mut stream = self.analyzer.token_stream(word);
        let term = stream
            .next()
            .and_then(|token| self.terms.iter().position(|(text, _)| *text == token.text));
        self.known.insert(word.to_string(), term);
        term
    }

    /// The first and last found term of the window of at most `max_chars` bytes (so at most
    /// as many characters), starting at one of the first `starts` found terms, with the most
    /// weight of distinct terms, then the most terms, then the earliest.
    fn best_window(&self, found: &[Found], starts: usize) -> Option<(usize, usize)> {
        let mut best: Option<(f32, usize, (usize, usize))> = None;
        for first in 0..starts {
            let start = found[first].range.start;
            let mut bits = 0u64;
            let mut weight = 0.0;
            let mut last = first;
            for (i, f) in found.iter().enumerate().skip(first) {
                if f.range.end - start > self.max_chars {
                    break;
                }
                if bits & (1 << f.term) == 0 {
                    bits |= 1 << f.term;
                    weight += self.terms[f.term].1;
                }
                last = i;
            }
            let count = last - first + 1;
            let better = best.is_none_or(|(w, c, _)| weight > w || (weight == w && count > c));
            if better {
                best = Some((weight, count, (first, last)));
            }
        }
        best.map(|(_, _, window)| window)
    }
}

/// Stems whose word may differ from them in its second letter (Porter2's exceptions
/// "dying", "lying", "tying").
const RESHAPED_STEMS: [&str; 3] = ["die", "lie", "tie"];

/// What every word that stems to `term` starts with, ASCII case aside: the stem up to its
/// last letter (which the stemmer may have changed or added: `cri` for "cried", `hope` for
/// "hoping"), its first letter alone for [`RESHAPED_STEMS`]. Checked over the 117,000
/// distinct words of the Rust documentation.
fn word_prefix(term: &str) -> &str {
    let keep = if RESHAPED_STEMS.contains(&term) {
        1
    } else {
        term.len().saturating_sub(1).max(1)
    };
    &term[..keep.min(term.len())]
}

/// The search for the [`word_prefix`]es of `terms`, when they are all ASCII (a non-ASCII
/// letter's case is not folded by the search).
fn prefix_search(terms: &[(String, f32)]) -> Option<AhoCorasick> {
    if terms.is_empty() || !terms.iter().all(|(text, _)| text.is_ascii()) {
        return None;
    }
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        // The leftmost match at each place: a word's start is never inside another match,
        // since prefixes are alphanumeric.
        .match_kind(MatchKind::LeftmostFirst)
        .build(terms.iter().map(|(text, _)| word_prefix(text)))
        .ok()
}

/// The words of `text` with a letter outside ASCII, in order. Folded before it is stemmed,
/// such a word may be an ASCII term its raw prefix does not start with (`naïve` is `naiv`,
/// `école` is `ecol`), so the prefix search alone would pass it over.
fn accented_words(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            let found = next_non_ascii(text.as_bytes(), at)?;
            let width = text[found..].chars().next().map_or(1, char::len_utf8);
            at = found + width;
            let mut start = found;
            while let Some(c) = text[..start].chars().next_back()
                && c.is_alphanumeric()
            {
                start -= c.len_utf8();
            }
            if let Some(word) = index_format::tokenize::word_at(text, start)
                && word.end > found
            {
                at = at.max(word.end);
                return Some(word);
            }
        }
    })
}

/// The place of the first byte outside ASCII in `bytes` from `from` on. Eight bytes are
/// tested at once: a body is mostly ASCII, and this scan runs over the whole of it.
fn next_non_ascii(bytes: &[u8], from: usize) -> Option<usize> {
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let rest = bytes.get(from..)?;
    let ascii_chunks = rest
        .chunks_exact(8)
        .take_while(|chunk| {
            <[u8; 8]>::try_from(*chunk)
                .is_ok_and(|eight| u64::from_le_bytes(eight) & HIGH_BITS == 0)
        })
        .count();
    let skipped = from + 8 * ascii_chunks;
    bytes[skipped..]
        .iter()
        .position(|b| !b.is_ascii())
        .map(|i| skipped + i)
}

/// Two streams of word ranges, each in order, as one in order (a word in both once).
fn in_order(
    a: impl Iterator<Item = Range<usize>>,
    b: impl Iterator<Item = Range<usize>>,
) -> impl Iterator<Item = Range<usize>> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x.start == y.start => {
            b.next();
            a.next()
        }
        (Some(x), Some(y)) if y.start < x.start => b.next(),
        (Some(_), _) => a.next(),
        (None, _) => b.next(),
    })
}

/// Which of a query's terms a page's body holds, and how often.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    /// A bit per term, in the query's order.
    pub terms: u64,
    /// The occurrences of each term the index counted in the body (`u32::MAX`: unknown).
    pub occurrences: Vec<u32>,
}

impl Held {
    /// Each of `count` terms, how often unknown.
    fn every_term(count: usize) -> Self {
        Self {
            terms: match count {
                0 => 0,
                _ => u64::MAX >> (64 - count.min(64)),
            },
            occurrences: vec![u32::MAX; count],
        }
    }
}

/// The byte range of at most `max_chars` characters of `text` that holds `window` (when it
/// fits): up to [`LEAD_CHARS`] of context before it, cut at spaces where it can be.
fn cut_around(text: &str, window: Range<usize>, max_chars: usize) -> Range<usize> {
    let window_chars = text[window.clone()].chars().count();
    let lead = LEAD_CHARS.min(max_chars.saturating_sub(window_chars) / 2);
    let mut start = text[..window.start]
        .char_indices()
        .rev()
        .take(lead)
        .last()
        .map_or(window.start, |(i, _)| i);
    if start > 0 {
        // Start after a space, so no word is cut; none in the lead: start at the window.
        start = match text[start..window.start].find(char::is_whitespace) {
            Some(space) => start + space,
            None => window.start,
        };
    }
    let mut end = text.len();
    if let Some((at, _)) = text[start..].char_indices().nth(max_chars) {
        end = start + at;
        // End before a space when a word would be cut, but never inside the window.
        let cuts_word = !text[end..].starts_with(char::is_whitespace);
        if cuts_word && let Some(space) = text[window.end.min(end)..end].rfind(char::is_whitespace)
        {
            end = window.end.min(end) + space;
        }
    }
    let kept = text[start..end].trim_end();
    let trimmed = kept.trim_start();
    let start = start + (kept.len() - trimmed.len());
    start..start + trimmed.len()
}

/// A fragment with `…` where it was cut from a longer text; highlights shifted to match.
fn ellipsized(fragment: &str, highlights: &[Range<usize>], before: bool, after: bool) -> Snippet {
    let prefix = if before { "… " } else { "" };
    let mut text = format!("{prefix}{fragment}");
    if after {
        text.push_str(" …");
    }
    let shift = prefix.len();
    Snippet {
        text,
        highlights: highlights
            .iter()
            .map(|r| r.start + shift..r.end + shift)
            .collect(),
    }
}

/// Whitespace collapsed, cut to at most `max_chars` characters at a word boundary when there
/// is one, with an ellipsis when cut.
pub fn shorten(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        let gap = usize::from(!out.is_empty());
        if chars + gap + len > max_chars {
            if out.is_empty() {
                out.extend(word.chars().take(max_chars));
            }
            out.push('…');
            return out;
        }
        if gap == 1 {
            out.push(' ');
        }
        out.push_str(word);
        chars += gap + len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_byte_outside_ascii_is_found_wherever_it_is() {
        let text = "plain ascii text, then naïve and more plain text: école".as_bytes();
        let expected = |from: usize| (from..text.len()).find(|&i| !text[i].is_ascii());
        for from in 0..=text.len() + 1 {
            assert_eq!(next_non_ascii(text, from), expected(from), "from {from}");
        }
        assert_eq!(next_non_ascii(b"only ascii here, seventeen+", 0), None);
    }

    fn analyzer() -> TextAnalyzer {
        let index = tantivy::Index::create_in_ram(index_format::schema());
        index_format::tokenize::register(&index);
        index
            .tokenizers()
            .get(index_format::tokenize::STEMMED)
            .expect("registered")
    }

    /// A finder for the terms `query` analyzes into, all of weight 1.
    fn passages(query: &str) -> Passages {
        let mut analyzer = analyzer();
        let mut stream = analyzer.token_stream(query);
        let mut terms = Vec::new();
        while let Some(token) = stream.next() {
            terms.push((token.text.clone(), 1.0));
        }
        drop(stream);
        Passages::with_terms(analyzer, terms, SNIPPET_CHARS)
    }

    fn marked(snippet: &Snippet) -> Vec<&str> {
        snippet
            .runs()
            .into_iter()
            .filter_map(|(marked, run)| marked.then_some(run))
            .collect()
    }

    #[test]
    fn every_form_of_a_term_is_marked() {
        let mut finder = passages("reading");
        let snippet = finder
            .passage("Reads the file. Already reading? Ready, READ.")
            .expect("a passage");
        assert_eq!(
            snippet.text,
            "Reads the file. Already reading? Ready, READ."
        );
        assert_eq!(marked(&snippet), ["Reads", "reading", "READ"]);
        assert_eq!(finder.passage("Ready? Already."), None);
    }

    #[test]
    fn cjk_bigrams_and_accented_words_are_found() {
        let mut finder = passages("러스트 élan");
        let snippet = finder
            .passage("Über 러스트는 빠르다. Élan vital")
            .expect("a passage");
        assert_eq!(marked(&snippet), ["러스트", "Élan"]);
    }

    #[test]
    fn the_window_with_the_most_distinct_terms_wins() {
        let filler = "mud flat ".repeat(40);
        let body = format!("tide tide tide tide. {filler} the heron waits for the tide. {filler}");
        let snippet = passages("heron tide").passage(&body).expect("a passage");
        assert!(
            snippet.text.contains("heron waits for the tide"),
            "{snippet:?}"
        );
        assert_eq!(marked(&snippet), ["heron", "tide"]);
    }

    #[test]
    fn a_passage_starts_in_the_first_scanned_bytes_when_a_term_is_there() {
        let filler = "mud flat ".repeat(SCAN_BYTES / 8);
        // A better window (both terms) lies past the scanned bytes: the early one is shown.
        let body = format!("the tide turns. {filler} the heron waits for the tide.");
        let snippet = passages("heron tide").passage(&body).expect("a passage");
        assert!(snippet.text.starts_with("the tide turns."), "{snippet:?}");
        assert_eq!(marked(&snippet), ["tide"]);
        // No term in the scanned bytes: the scan goes on to the first one.
        let body = format!("{filler} the heron waits for the tide.");
        let snippet = passages("heron tide").passage(&body).expect("a passage");
        assert_eq!(marked(&snippet), ["heron", "tide"]);
    }

    #[test]
    fn long_bodies_are_cut_between_words_with_ellipses() {
        let words: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
        let mut body = words[..150].join(" ");
        body.push_str(" needle ");
        body.push_str(&words[150..].join(" "));
        let snippet = passages("needle").passage(&body).expect("a passage");
        let inner = snippet
            .text
            .strip_prefix("… ")
            .and_then(|t| t.strip_suffix(" …"))
            .expect("cut at both ends");
        assert!(inner.chars().count() <= SNIPPET_CHARS, "{inner}");
        assert!(inner.chars().count() > SNIPPET_CHARS - 10, "{inner}");
        for word in inner.split(' ') {
            assert!(
                word == "needle" || words.iter().any(|w| w == word),
                "{word:?} cut"
            );
        }
        let lead = inner.find("needle").expect("needle shown");
        assert!((1..=LEAD_CHARS).contains(&lead), "context before: {inner}");
        assert_eq!(marked(&snippet), ["needle"]);
    }

    #[test]
    fn marks_agree_with_the_analyzer() {
        // Every token the analyzer turns into a term is inside a mark, and every mark holds
        // only such tokens.
        let body = "Iterators: an iterator iterates; iter_mut() ITERATES. Itérateur 반복자 \
                    反復子 iteration items iterate.";
        let mut finder = passages("iterate 반복 iteration");
        let snippet = finder.passage(body).expect("a passage");
        assert_eq!(snippet.text, body);
        let mut analyzer = analyzer();
        let terms: Vec<String> = finder.terms.iter().map(|(t, _)| t.clone()).collect();
        let mut stream = analyzer.token_stream(body);
        let mut covered = vec![false; body.len()];
        while let Some(token) = stream.next() {
            let inside = snippet
                .highlights
                .iter()
                .any(|h| h.start <= token.offset_from && token.offset_to <= h.end);
            let is_term = terms.contains(&token.text);
            assert_eq!(inside, is_term, "{:?}", token.text);
            if is_term {
                covered[token.offset_from..token.offset_to].fill(true);
            }
        }
        for h in &snippet.highlights {
            assert!(
                covered[h.clone()].iter().all(|&c| c),
                "{:?}",
                &body[h.clone()]
            );
        }
    }

    #[test]
    fn the_prefix_search_finds_what_walking_every_word_finds() {
        let body = "Reading reads READ; a reader's thread of bread. Dying, lying and tying: he \
                    died, lies, ties. Cried crying cry; hoping hopped hop. Vec<T> vec's vectors \
                    VECTOR. naïve 러스트 x1 2x U32 u32_max. Generalizations relational happiness \
                    happy.";
        let long = format!("{} {body}", "filler words here ".repeat(40)).repeat(3);
        for query in [
            "read",
            "die lie tie",
            "cry",
            "hope",
            "vec",
            "u32",
            "thread read",
            "general relate happy",
            "2x x1",
            "ties",
        ] {
            let mut fast = passages(query);
            assert!(fast.prefixes.is_some(), "{query}");
            let mut walking = passages(query);
            walking.prefixes = None;
            for text in [body, long.as_str()] {
                assert_eq!(fast.passage(text), walking.passage(text), "{query}");
            }
            let marks = fast.passage(body).map(|s| s.highlights.len());
            assert!(marks.is_some_and(|n| n > 0), "{query}");
        }
        // Non-ASCII terms: every word is walked.
        assert!(passages("книги").prefixes.is_none());
        // A folded term is ASCII, and the words written with accents are still found.
        let mut fast = passages("naïve cafe");
        assert!(fast.prefixes.is_some());
        let accented = "A naïve reader sat in the café — a naive one in the cafe.";
        let mut walking = passages("naïve cafe");
        walking.prefixes = None;
        let marked = fast.passage(accented);
        assert_eq!(marked, walking.passage(accented));
        assert_eq!(marked.map(|s| s.highlights.len()), Some(4));
    }

    #[test]
    fn word_prefixes_leave_the_letters_a_stemmer_may_change() {
        assert_eq!(word_prefix("read"), "rea");
        assert_eq!(word_prefix("cri"), "cr");
        assert_eq!(word_prefix("die"), "d");
        assert_eq!(word_prefix("a"), "a");
    }

    #[test]
    fn runs_skip_bad_ranges() {
        let snippet = Snippet {
            text: "héllo world".into(),
            highlights: vec![0..2, 7..12, 7..99, Range { start: 3, end: 1 }],
        };
        assert_eq!(snippet.runs(), vec![(false, "héllo "), (true, "world")]);
        let snippet = Snippet {
            text: "a heron here".into(),
            highlights: vec![2..7, 8..12],
        };
        assert_eq!(
            snippet.runs(),
            vec![(false, "a "), (true, "heron"), (false, " "), (true, "here")]
        );
    }

    #[test]
    fn cut_fragments_get_ellipses_and_keep_their_marks() {
        let snippet = ellipsized("the heron waits", &[Range { start: 4, end: 9 }], true, true);
        assert_eq!(snippet.text, "… the heron waits …");
        assert_eq!(
            snippet.runs(),
            vec![(false, "… the "), (true, "heron"), (false, " waits …")]
        );
        assert_eq!(
            ellipsized("heron", &[Range { start: 0, end: 5 }], false, false).text,
            "heron"
        );
    }

    #[test]
    fn shorten_cuts_at_words() {
        assert_eq!(shorten("  a  b\n c ", 10), "a b c");
        assert_eq!(shorten("one two three", 8), "one two…");
        assert_eq!(shorten("abcdefghij", 4), "abcd…");
    }
}
