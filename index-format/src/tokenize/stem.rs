//! Stemming by a page's language that remembers the words it has stemmed:
//! [`RememberingStemmer`].
//!
//! Each word is folded first ([`super::fold()`]: accents off), made singular where Snowball
//! leaves short plurals alone ([`super::plural`]: Spanish, Portuguese), then stemmed with the
//! Snowball algorithm of the analyzer's [`Stemming`], so `cafe` meets `cafés`, `cheval` meets
//! `chevaux` and `ojo` meets `ojos`. (Snowball's German stemmer reads `ae`, `oe` and `ue` as umlauts itself, so
//! `Mueller`, `Muller` and `Müller` share a stem.)
//!
//! Text repeats its words (a page of the Rust docs says "the", "type" and "returns" hundreds
//! of times), and the Snowball algorithm costs far more than a hash lookup: stemming was a
//! sixth of an index build. Each analyzer (one per field and indexing thread, kept for a
//! whole segment) keeps a table from the words it met to their stems, bounded by
//! [`REMEMBERED_WORDS`]: when full it starts again empty, so memory never grows with the text.

use std::borrow::Cow;
use std::collections::HashMap;

use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

use super::fold::fold;
use super::plural::singular;
use crate::language::Stemming;

/// Most words one analyzer remembers (tokens are at most 40 bytes: a few MiB at most).
pub const REMEMBERED_WORDS: usize = 1 << 15;

/// A token filter that replaces each token by its folded stem in one language, remembering
/// up to `limit` words per analyzer.
#[derive(Clone, Copy, Debug)]
pub struct RememberingStemmer {
    stemming: Stemming,
    limit: usize,
}

impl RememberingStemmer {
    /// Stems by `stemming`, remembering up to [`REMEMBERED_WORDS`] words.
    pub fn new(stemming: Stemming) -> Self {
        Self::with_limit(stemming, REMEMBERED_WORDS)
    }

    /// Stems by `stemming`, remembering up to `limit` words (at least one).
    pub fn with_limit(stemming: Stemming, limit: usize) -> Self {
        Self {
            stemming,
            limit: limit.max(1),
        }
    }
}

impl TokenFilter for RememberingStemmer {
    type Tokenizer<T: Tokenizer> = RememberingStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> RememberingStemmerFilter<T> {
        RememberingStemmerFilter {
            inner,
            memory: Memory {
                stemming: self.stemming,
                stemmer: frostem::Stemmer::new(self.stemming.algorithm()),
                stems: Remembered::default(),
                limit: self.limit,
            },
        }
    }
}

/// [`RememberingStemmer`] over a tokenizer.
#[derive(Clone)]
pub struct RememberingStemmerFilter<T> {
    inner: T,
    memory: Memory,
}

/// The stemmer and the words it remembers.
#[derive(Clone)]
struct Memory {
    stemming: Stemming,
    stemmer: frostem::Stemmer,
    /// Each word met and its stem; `None`: the word is its own stem.
    stems: Remembered,
    limit: usize,
}

/// Words and their stems, the short ones (nearly all) keyed by their bytes packed in an
/// integer: a lookup is then one hash of a `u128` and one comparison of integers, not a
/// hash of a string and a call to `memcmp` (the lookup was a tenth of an index build).
/// Hashed with a random seed: words come from the web, and a fixed hash could be flooded
/// with colliding words.
#[derive(Clone, Default)]
struct Remembered {
    short: HashMap<u128, Option<Box<str>>, foldhash::fast::RandomState>,
    long: HashMap<Box<str>, Option<Box<str>>, foldhash::fast::RandomState>,
}

/// Bytes of the longest word kept in [`Remembered::short`]: the 16th byte of the key is the
/// word's length, so words that differ only by trailing zero bytes stay apart.
const SHORT_WORD_BYTES: usize = 15;

impl Remembered {
    /// `word` packed as a key of `short`, when it is short enough.
    fn short_key(word: &str) -> Option<u128> {
        let bytes = word.as_bytes();
        if bytes.len() > SHORT_WORD_BYTES {
            return None;
        }
        // Shifted in byte by byte: a copy of a variable length would call `memmove`.
        let packed = bytes
            .iter()
            .rev()
            .fold(0u128, |key, &byte| (key << 8) | u128::from(byte));
        Some(packed | (bytes.len() as u128) << 120)
    }

    fn get(&self, word: &str) -> Option<&Option<Box<str>>> {
        match Self::short_key(word) {
            Some(key) => self.short.get(&key),
            None => self.long.get(word),
        }
    }

    fn insert(&mut self, word: &str, stem: Option<Box<str>>) {
        match Self::short_key(word) {
            Some(key) => self.short.insert(key, stem),
            None => self.long.insert(word.into(), stem),
        };
    }

    fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn clear(&mut self) {
        self.short.clear();
        self.long.clear();
    }
}

impl Memory {
    /// Replaces `text` by its stem.
    fn stem(&mut self, text: &mut String) {
        if let Some(remembered) = self.stems.get(text) {
            if let Some(stem) = remembered {
                text.clear();
                text.push_str(stem);
            }
            return;
        }
        let stem: Option<Box<str>> = {
            let folded = fold(text);
            let singular = singular(self.stemming, &folded);
            match self.stemmer.stem(&singular) {
                Cow::Borrowed(stem) if stem == text.as_str() => None,
                Cow::Borrowed(stem) => Some(stem.into()),
                Cow::Owned(stem) => Some(stem.into_boxed_str()),
            }
        };
        if self.stems.len() >= self.limit {
            self.stems.clear();
        }
        self.stems.insert(text, stem.clone());
        if let Some(stem) = stem {
            text.clear();
            text.push_str(&stem);
        }
    }
}

impl<T: Tokenizer> Tokenizer for RememberingStemmerFilter<T> {
    type TokenStream<'a> = RememberingStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        RememberingStemmerStream {
            tail: self.inner.token_stream(text),
            memory: &mut self.memory,
        }
    }
}

/// The tokens of [`RememberingStemmerFilter`], stemmed.
pub struct RememberingStemmerStream<'a, T> {
    tail: T,
    memory: &'a mut Memory,
}

impl<T: TokenStream> TokenStream for RememberingStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        self.memory.stem(&mut self.tail.token_mut().text);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::tokenizer::{Language, SimpleTokenizer, Stemmer, TextAnalyzer};

    use super::*;

    fn stems(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    /// Words that stem to themselves, to shorter words, and words seen again, across
    /// several texts through one analyzer (as a segment writer uses it).
    const TEXTS: [&str; 4] = [
        "running runs ran runner the connections connected connecting generously",
        "the runs of the runner running again: iterators iterate, iterated, iteration",
        "relational relate related relating the the the happiness happily happy",
        // Longer than a packed key's 15 bytes (21, 16) and as long (15).
        "internationalizations uncharacteristic characteristics internationalization",
    ];

    #[test]
    fn stems_are_snowballs_whether_remembered_or_not() {
        for limit in [1, 2, 5, REMEMBERED_WORDS] {
            let mut remembering = TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(RememberingStemmer::with_limit(Stemming::DEFAULT, limit))
                .build();
            let mut snowball = TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(Stemmer::new(Language::English))
                .build();
            for text in TEXTS.iter().chain(TEXTS.iter()) {
                assert_eq!(
                    stems(&mut remembering, text),
                    stems(&mut snowball, text),
                    "limit {limit}, text {text:?}"
                );
            }
        }
    }

    #[test]
    fn memory_stays_within_its_limit() {
        let mut memory = RememberingStemmer::with_limit(Stemming::DEFAULT, 3)
            .transform(SimpleTokenizer::default());
        {
            let mut stream = memory.token_stream(TEXTS[0]);
            while stream.advance() {}
        }
        assert!(
            memory.memory.stems.len() <= 3,
            "{}",
            memory.memory.stems.len()
        );
        assert!(!memory.memory.stems.is_empty());
    }

    fn analyzer(language: &str) -> TextAnalyzer {
        TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(tantivy::tokenizer::LowerCaser)
            .filter(RememberingStemmer::new(Stemming::of_language(language)))
            .build()
    }

    /// The forms of a word that meet, by language: a plural and its singular, a word and
    /// the same word without its accents or with its umlauts typed as `e`, a noun in two
    /// cases.
    #[test]
    fn other_forms_of_a_word_meet_in_its_language() {
        for (language, a, b) in [
            ("fr", "chevaux", "cheval"),
            ("fr", "café", "cafe"),
            ("fr", "cafés", "café"),
            ("de", "Häuser", "Haus"),
            ("de", "Ebenen", "Ebene"),
            ("de", "Müller", "Mueller"),
            ("de", "Müller", "Muller"),
            ("de", "Straße", "Strasse"),
            ("es", "canciones", "canción"),
            ("es", "canciones", "cancion"),
            ("ru", "книги", "книгой"),
            ("en", "running", "runs"),
            ("en", "naïve", "naive"),
        ] {
            let mut analyzer = analyzer(language);
            let (a_stems, b_stems) = (stems(&mut analyzer, a), stems(&mut analyzer, b));
            assert_eq!(a_stems[0], b_stems[0], "{language}: {a} and {b}");
        }
    }
}
