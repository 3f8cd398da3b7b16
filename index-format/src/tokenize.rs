//! The tokenizers of the text fields: words split at anything not alphanumeric, and runs of
//! Hangul, Han, Hiragana or Katakana cut into overlapping two-character tokens (bigrams), as
//! Lucene's CJK analyzer does. Korean attaches particles to words ("러스트는" is "Rust" plus
//! a topic marker) and Chinese and Japanese do not separate words at all, so a whole run is
//! no word a reader would type: bigrams let "러스트" find "러스트는" (the query's bigrams are
//! a phrase, so they must stand together). Then tokens over 40 bytes are dropped, the rest
//! lowercased, and for [`STEMMED`] folded (accents off, `tokenize/fold.rs`), made singular
//! where Snowball leaves short plurals alone (`tokenize/plural.rs`) and stemmed
//! (Snowball's stems, remembered per analyzer, in `tokenize/stem.rs`): as English in the
//! analyzer registered on an index; a document in another language that Snowball stems is
//! cut by [`stemmed_analyzer`] of its [`Stemming`] and added pre-tokenized, and a query is
//! cut once per stemming an index holds ([`query_tokenizers_for`]).
//!
//! Compounds: words joined by single hyphens, dots or underscores with at least one letter
//! among them (`f-string`, `e-mail`, `os.path.join`, `read_to_string`) are indexed as their
//! parts and, at the position of the last part, as one joined token (`fstring`, `email`,
//! `ospathjoin`, `readtostring`): a query typed joined finds the hyphenated form, and one
//! typed hyphenated finds the joined form (searchd turns a compound query word into "its
//! parts as a phrase, or the joined word"). Numbers (`3.11`, `1.6.0`) are only their parts:
//! joined, `3.1.1` and `3.11` would meet. Queries are cut without joined tokens
//! ([`query_tokenizers`]): a query's compound is a phrase of its parts.
//!
//! Both are registered on every index this crate creates or opens ([`register`]); a reader
//! that opens an index some other way must call it too.

mod fold;
mod plural;
mod stem;

pub use fold::fold;

use tantivy::Index;
use tantivy::tokenizer::{
    LowerCaser, RemoveLongFilter, TextAnalyzer, Token, TokenStream, Tokenizer, TokenizerManager,
};

use crate::language::Stemming;
use stem::RememberingStemmer;

/// Tokenizer name of the stemmed text fields.
pub const STEMMED: &str = "sift_stem";
/// Tokenizer name of the `*_exact` fields: the same tokens, not stemmed.
pub const EXACT: &str = "sift_exact";

/// Longest token kept, in bytes (a joined compound longer than this is not made).
const MAX_TOKEN_BYTES: usize = 40;

/// A character that puts [`SECTION_GAP`] positions between the words on either side: the
/// indexer joins a page's sections with it, so no phrase (however sloppy) spans two.
pub const SECTION_BREAK: char = '\u{1E}';

/// Positions between the words on either side of a [`SECTION_BREAK`] (more than any slop).
pub const SECTION_GAP: u32 = 1024;

/// Registers [`STEMMED`] and [`EXACT`] on `index`: what documents are cut with, compounds
/// joined.
pub fn register(index: &Index) {
    register_on(index.tokenizers(), Compounds::Joined);
}

/// [`STEMMED`] and [`EXACT`] as queries are cut: the same tokens without joined compounds.
/// Give this to a `QueryParser` (and use it for any query text) so a query's `f-string` is
/// the phrase `f string` rather than three tokens, two of them at one position.
pub fn query_tokenizers() -> TokenizerManager {
    query_tokenizers_for(Stemming::DEFAULT)
}

/// [`query_tokenizers`] with [`STEMMED`] stemming by `stemming`: how a query meets the
/// documents of that stemming.
pub fn query_tokenizers_for(stemming: Stemming) -> TokenizerManager {
    let manager = TokenizerManager::default();
    register_with(&manager, stemming, Compounds::PartsOnly);
    manager
}

fn register_on(manager: &TokenizerManager, compounds: Compounds) {
    register_with(manager, Stemming::DEFAULT, compounds);
}

fn register_with(manager: &TokenizerManager, stemming: Stemming, compounds: Compounds) {
    manager.register(STEMMED, stemmed_analyzer(stemming, compounds));
    manager.register(
        EXACT,
        TextAnalyzer::builder(WordsAndBigrams { compounds })
            .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
            .filter(LowerCaser)
            .build(),
    );
}

/// The analyzer of the stemmed fields for text stemmed by `stemming`: what [`STEMMED`] is
/// for [`Stemming::DEFAULT`], and what the indexer cuts a document of another stemming with.
pub fn stemmed_analyzer(stemming: Stemming, compounds: Compounds) -> TextAnalyzer {
    TextAnalyzer::builder(WordsAndBigrams { compounds })
        .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
        .filter(LowerCaser)
        .filter(RememberingStemmer::new(stemming))
        .build()
}

/// Whether words joined by hyphens, dots or underscores also give their joined token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compounds {
    /// Parts and the joined token (documents).
    #[default]
    Joined,
    /// Parts only (queries).
    PartsOnly,
}

/// Whether `c` belongs to a script written without spaces between words (or, for Hangul,
/// with particles attached): those runs become bigrams.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF      // Hangul Jamo
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
    )
}

/// Splits text into alphanumeric runs; CJK runs into overlapping bigrams (a lone CJK
/// character is a token of its own); compounds joined as `compounds` says.
#[derive(Clone, Copy, Debug, Default)]
pub struct WordsAndBigrams {
    /// Whether compounds also give their joined token.
    pub compounds: Compounds,
}

/// The tokens of one text, cut as they are asked for: one [`Token`] whose text buffer is
/// reused, as tantivy's own tokenizers do (a `String` per token was a tenth of a build).
pub struct Tokens<'a> {
    spans: Spans<'a>,
    token: Token,
    compounds: Compounds,
    /// The compound the last tokens belong to, while one is being read.
    compound: Option<Compound>,
    /// A joined compound to give before the next span.
    joined: Option<std::ops::Range<usize>>,
}

/// A compound being read: where it starts, where its next part must start, how many parts
/// it has so far, whether one of them has a letter, and its joined length.
#[derive(Clone, Copy, Debug)]
struct Compound {
    start: usize,
    next_at: usize,
    parts: usize,
    has_letter: bool,
    joined_bytes: usize,
}

impl Tokenizer for WordsAndBigrams {
    type TokenStream<'a> = Tokens<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Tokens<'a> {
        Tokens {
            spans: spans(text),
            token: Token::default(),
            compounds: self.compounds,
            compound: None,
            joined: None,
        }
    }
}

/// Whether `byte` joins two words into a compound.
fn is_connector(byte: u8) -> bool {
    matches!(byte, b'-' | b'.' | b'_')
}

/// Whether `c` can be part of a compound: a letter or digit outside the CJK scripts.
fn is_compound_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// The byte ranges of the tokens [`WordsAndBigrams`] cuts `text` into, in order, before any
/// filter: what a reader that must find tokens again (searchd's snippets) walks without
/// allocating.
pub fn spans(text: &str) -> Spans<'_> {
    Spans {
        text,
        at: 0,
        bigram_from: None,
        section_break: false,
    }
}

/// The word (a run of alphanumerics that are not CJK) that starts at byte `at`, if one
/// does: the span [`spans`] yields there, found without walking the text before it.
pub fn word_at(text: &str, at: usize) -> Option<std::ops::Range<usize>> {
    let first = text.get(at..)?.chars().next()?;
    if !first.is_alphanumeric() || is_cjk(first) {
        return None;
    }
    let before = text[..at].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() && !is_cjk(c)) {
        return None;
    }
    Spans {
        text,
        at,
        bigram_from: None,
        section_break: false,
    }
    .next()
}

/// Iterator of [`spans`].
#[derive(Clone, Debug)]
pub struct Spans<'a> {
    text: &'a str,
    /// Where the rest of the text starts.
    at: usize,
    /// Inside a CJK run: where its last character starts, the first of the next bigram.
    bigram_from: Option<usize>,
    /// A [`SECTION_BREAK`] was passed over before the last span.
    section_break: bool,
}

impl Spans<'_> {
    /// The character at `at`, if any.
    fn char_at(&self, at: usize) -> Option<char> {
        match self.text.as_bytes().get(at) {
            Some(&byte) if byte.is_ascii() => Some(char::from(byte)),
            Some(_) => self.text[at..].chars().next(),
            None => None,
        }
    }

    /// The character at `at` when it continues a CJK run.
    fn cjk_at(&self, at: usize) -> Option<char> {
        self.char_at(at)
            .filter(|&c| c.is_alphanumeric() && is_cjk(c))
    }

    /// A CJK character at `start`: its bigram with the next one, or itself when alone.
    fn cjk_from(&mut self, start: usize, first: char) -> std::ops::Range<usize> {
        let second = start + first.len_utf8();
        match self.cjk_at(second) {
            Some(c) => {
                self.bigram_from = Some(second);
                self.at = second + c.len_utf8();
                start..self.at
            }
            _ => {
                self.at = second;
                start..second
            }
        }
    }
}

impl Iterator for Spans<'_> {
    type Item = std::ops::Range<usize>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(from) = self.bigram_from.take()
            && let Some(c) = self.cjk_at(self.at)
        {
            self.bigram_from = Some(self.at);
            self.at += c.len_utf8();
            return Some(from..self.at);
        }
        let bytes = self.text.as_bytes();
        // Skip to the next alphanumeric, bytewise over ASCII.
        let (start, first) = loop {
            let &byte = bytes.get(self.at)?;
            if byte.is_ascii() {
                if byte.is_ascii_alphanumeric() {
                    break (self.at, char::from(byte));
                }
                self.section_break |= byte == SECTION_BREAK as u8;
                self.at += 1;
                continue;
            }
            let c = self.char_at(self.at)?;
            if c.is_alphanumeric() {
                break (self.at, c);
            }
            self.at += c.len_utf8();
        };
        if is_cjk(first) {
            return Some(self.cjk_from(start, first));
        }
        // A run of alphanumerics that are not CJK.
        self.at = start + first.len_utf8();
        while let Some(&byte) = bytes.get(self.at) {
            if byte.is_ascii() {
                if !byte.is_ascii_alphanumeric() {
                    break;
                }
                self.at += 1;
                continue;
            }
            match self.char_at(self.at) {
                Some(c) if c.is_alphanumeric() && !is_cjk(c) => self.at += c.len_utf8(),
                _ => break,
            }
        }
        Some(start..self.at)
    }
}

impl Tokens<'_> {
    /// Follows compounds over the word `span` just given; when it ends one of two or more
    /// parts with a letter (and short enough), its range is kept to be given next, joined.
    fn track_compound(&mut self, span: &std::ops::Range<usize>) {
        let text = self.spans.text;
        let word = &text[span.clone()];
        if !word.chars().all(is_compound_char) {
            self.compound = None;
            return;
        }
        let mut compound = match self.compound.filter(|c| c.next_at == span.start) {
            Some(mut c) => {
                c.parts += 1;
                c.joined_bytes += word.len();
                c.has_letter |= word.chars().any(char::is_alphabetic);
                c
            }
            None => Compound {
                start: span.start,
                next_at: 0,
                parts: 1,
                has_letter: word.chars().any(char::is_alphabetic),
                joined_bytes: word.len(),
            },
        };
        let bytes = text.as_bytes();
        let joins_next = bytes.get(span.end).copied().is_some_and(is_connector)
            && text
                .get(span.end + 1..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(is_compound_char);
        if joins_next {
            compound.next_at = span.end + 1;
            self.compound = Some(compound);
            return;
        }
        self.compound = None;
        if compound.parts >= 2 && compound.has_letter && compound.joined_bytes <= MAX_TOKEN_BYTES {
            self.joined = Some(compound.start..span.end);
        }
    }
}

impl TokenStream for Tokens<'_> {
    fn advance(&mut self) -> bool {
        if let Some(range) = self.joined.take() {
            // The joined compound, at its last part's position.
            let token = &mut self.token;
            token.text.clear();
            let text = &self.spans.text[range.clone()];
            token.text.extend(
                text.chars()
                    .filter(|c| !c.is_ascii() || !is_connector(*c as u8)),
            );
            token.offset_from = range.start;
            token.offset_to = range.end;
            return true;
        }
        let Some(span) = self.spans.next() else {
            return false;
        };
        if std::mem::take(&mut self.spans.section_break) {
            self.token.position = self.token.position.wrapping_add(SECTION_GAP as usize);
        }
        if self.compounds == Compounds::Joined {
            self.track_compound(&span);
        }
        let token = &mut self.token;
        token.position = token.position.wrapping_add(1);
        token.text.clear();
        token.text.push_str(&self.spans.text[span.clone()]);
        token.offset_from = span.start;
        token.offset_to = span.end;
        true
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `text` through analyzer `name` of `manager`, with their positions.
    fn positioned(manager: &TokenizerManager, name: &str, text: &str) -> Vec<(String, usize)> {
        let mut analyzer = manager.get(name).expect("registered");
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(token) = stream.next() {
            out.push((token.text.clone(), token.position));
        }
        out
    }

    /// The tokens of `text` through analyzer `name` as documents are cut, with positions.
    fn indexed(name: &str, text: &str) -> Vec<(String, usize)> {
        let index = Index::create_in_ram(crate::schema());
        register(&index);
        positioned(index.tokenizers(), name, text)
    }

    fn tokens(name: &str, text: &str) -> Vec<String> {
        indexed(name, text).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn latin_words_are_split_lowercased_and_stemmed() {
        assert_eq!(
            tokens(STEMMED, "Reading files, HashMap::entry!"),
            ["read", "file", "hashmap", "entri"]
        );
        assert_eq!(
            tokens(EXACT, "Reading files, HashMap::entry!"),
            ["reading", "files", "hashmap", "entry"]
        );
    }

    #[test]
    fn compounds_with_a_letter_are_also_joined_at_their_last_part() {
        assert_eq!(
            tokens(EXACT, "f-string e-mail os.path.join read_to_string."),
            [
                "f",
                "string",
                "fstring",
                "e",
                "mail",
                "email",
                "os",
                "path",
                "join",
                "ospathjoin",
                "read",
                "to",
                "string",
                "readtostring"
            ]
        );
        assert_eq!(tokens(STEMMED, "F-Strings"), ["f", "string", "fstring"]);
        // Numbers, spaced or doubled connectors, CJK neighbours and sentence ends: parts only.
        assert_eq!(tokens(EXACT, "3.11 1.6.0"), ["3", "11", "1", "6", "0"]);
        assert_eq!(
            tokens(EXACT, "a - b a--b end. Next"),
            ["a", "b", "a", "b", "end", "next"]
        );
        assert_eq!(tokens(EXACT, "x-値"), ["x", "値"]);
        // Too long to join: parts only.
        let long = ["abcdefghij"; 5].join("-");
        assert_eq!(tokens(EXACT, &long).len(), 5);
        // Queries are cut into parts only.
        let parts: Vec<String> = positioned(&query_tokenizers(), STEMMED, "f-strings")
            .into_iter()
            .map(|(text, _)| text)
            .collect();
        assert_eq!(parts, ["f", "string"]);
    }

    #[test]
    fn a_section_break_keeps_words_apart() {
        let positions: Vec<usize> = indexed(STEMMED, &format!("a b{SECTION_BREAK}c"))
            .into_iter()
            .map(|(_, position)| position)
            .collect();
        assert_eq!(positions, [0, 1, 2 + SECTION_GAP as usize]);
    }

    #[test]
    fn a_joined_compound_shares_its_last_part_position() {
        let positions = indexed(EXACT, "use f-string now");
        assert_eq!(
            positions,
            [
                ("use".into(), 0),
                ("f".into(), 1),
                ("string".into(), 2),
                ("fstring".into(), 2),
                ("now".into(), 3)
            ]
        );
    }

    #[test]
    fn hangul_and_han_runs_become_bigrams() {
        assert_eq!(
            tokens(EXACT, "러스트는 빠르다"),
            ["러스", "스트", "트는", "빠르", "르다"]
        );
        assert_eq!(tokens(EXACT, "러스트"), ["러스", "스트"]);
        assert_eq!(tokens(EXACT, "값 Vec벡터"), ["값", "vec", "벡터"]);
        assert_eq!(tokens(EXACT, "所有権"), ["所有", "有権"]);
        assert_eq!(tokens(EXACT, "漢 字"), ["漢", "字"]);
        assert_eq!(tokens(EXACT, "é漢字x"), ["é", "漢字", "x"]);
    }

    #[test]
    fn spans_are_byte_ranges_of_the_tokens() {
        let text = "-- Vec<T>: 러스트는, naïve 1.6.0 値";
        let cut: Vec<&str> = spans(text).map(|span| &text[span]).collect();
        assert_eq!(
            cut,
            [
                "Vec", "T", "러스", "스트", "트는", "naïve", "1", "6", "0", "値"
            ]
        );
        assert_eq!(spans("").count(), 0);
        assert_eq!(spans(" ,;").count(), 0);
    }

    #[test]
    fn word_at_finds_the_words_spans_yields_and_nothing_else() {
        let text = "-- Vec<T>: 러스트는 Rust값, naïve x1.6.0 値abc ÉTÉ été_2 Ⅻ";
        let words: Vec<_> = (0..=text.len())
            .filter_map(|at| word_at(text, at))
            .collect();
        let latin: Vec<_> = spans(text)
            .filter(|span| text[span.clone()].chars().all(|c| !is_cjk(c)))
            .collect();
        assert_eq!(words, latin);
        assert!(words.len() > 10, "{words:?}");
    }

    #[test]
    fn positions_follow_the_tokens() {
        let positions = indexed(EXACT, "a 러스트");
        assert_eq!(
            positions,
            [("a".into(), 0), ("러스".into(), 1), ("스트".into(), 2)]
        );
    }
}
