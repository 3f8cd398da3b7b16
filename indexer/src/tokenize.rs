//! The tokenizers of the text fields: words split at anything not alphanumeric, and runs of
//! Hangul, Han, Hiragana or Katakana cut into overlapping two-character tokens (bigrams), as
//! Lucene's CJK analyzer does. Korean attaches particles to words ("러스트는" is "Rust" plus
//! a topic marker) and Chinese and Japanese do not separate words at all, so a whole run is
//! no word a reader would type: bigrams let "러스트" find "러스트는" (the query's bigrams are
//! a phrase, so they must stand together). Then tokens over 40 bytes are dropped, the rest
//! lowercased, and for [`STEMMED`] stemmed as English.
//!
//! Both are registered on every index this crate creates or opens ([`register`]); a reader
//! that opens an index some other way must call it too.

use tantivy::Index;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, Stemmer, TextAnalyzer, Token, TokenStream, Tokenizer,
};

/// Tokenizer name of the stemmed text fields.
pub const STEMMED: &str = "sift_stem";
/// Tokenizer name of the `*_exact` fields: the same tokens, not stemmed.
pub const EXACT: &str = "sift_exact";

/// Registers [`STEMMED`] and [`EXACT`] on `index`.
pub fn register(index: &Index) {
    let manager = index.tokenizers();
    manager.register(
        STEMMED,
        TextAnalyzer::builder(WordsAndBigrams)
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .filter(Stemmer::new(Language::English))
            .build(),
    );
    manager.register(
        EXACT,
        TextAnalyzer::builder(WordsAndBigrams)
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .build(),
    );
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
/// character is a token of its own).
#[derive(Clone, Copy, Debug, Default)]
pub struct WordsAndBigrams;

/// The tokens of one text, cut up front.
pub struct Tokens {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for WordsAndBigrams {
    type TokenStream<'a> = Tokens;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Tokens {
        let mut tokens = Vec::new();
        let mut position = 0;
        let mut push = |from: usize, to: usize, tokens: &mut Vec<Token>| {
            tokens.push(Token {
                offset_from: from,
                offset_to: to,
                position,
                text: text[from..to].to_string(),
                position_length: 1,
            });
            position += 1;
        };
        let mut chars = text.char_indices().peekable();
        while let Some(&(start, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                chars.next();
                continue;
            }
            let cjk = is_cjk(c);
            // One run: alphanumerics of the same kind (CJK or not).
            let mut run: Vec<(usize, char)> = Vec::new();
            while let Some(&(i, c)) = chars.peek() {
                if !c.is_alphanumeric() || is_cjk(c) != cjk {
                    break;
                }
                run.push((i, c));
                chars.next();
            }
            let end = run.last().map_or(start, |&(i, c)| i + c.len_utf8());
            if !cjk || run.len() == 1 {
                push(start, end, &mut tokens);
                continue;
            }
            for pair in run.windows(2) {
                let (from, _) = pair[0];
                let (last, c) = pair[1];
                push(from, last + c.len_utf8(), &mut tokens);
            }
        }
        Tokens { tokens, next: 0 }
    }
}

impl TokenStream for Tokens {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(name: &str, text: &str) -> Vec<String> {
        let index = Index::create_in_ram(crate::schema());
        register(&index);
        let mut analyzer = index.tokenizers().get(name).expect("registered");
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(token) = stream.next() {
            out.push(token.text.clone());
        }
        out
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
    fn hangul_and_han_runs_become_bigrams() {
        assert_eq!(
            tokens(EXACT, "러스트는 빠르다"),
            ["러스", "스트", "트는", "빠르", "르다"]
        );
        assert_eq!(tokens(EXACT, "러스트"), ["러스", "스트"]);
        assert_eq!(tokens(EXACT, "값 Vec벡터"), ["값", "vec", "벡터"]);
        assert_eq!(tokens(EXACT, "所有権"), ["所有", "有権"]);
    }

    #[test]
    fn positions_follow_the_tokens() {
        let index = Index::create_in_ram(crate::schema());
        register(&index);
        let mut analyzer = index.tokenizers().get(EXACT).expect("registered");
        let mut stream = analyzer.token_stream("a 러스트");
        let mut positions = Vec::new();
        while let Some(token) = stream.next() {
            positions.push((token.text.clone(), token.position));
        }
        assert_eq!(
            positions,
            [("a".into(), 0), ("러스".into(), 1), ("스트".into(), 2)]
        );
    }
}
