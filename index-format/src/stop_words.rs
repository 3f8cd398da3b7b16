//! [`StopWords`]: the words of a language too common to say anything about a page (`the`,
//! `de`, `und`): tantivy's lists (Snowball's; English's is Lucene's short one) for the
//! languages it has them for, by the codes of [`crate::language`].
//! Completions leave them off the edges of a phrase; similar pages leave them out of the
//! words that describe a page.

use tantivy::tokenizer::{Language, RawTokenizer, StopWordFilter, TextAnalyzer};

/// The stop words of one language.
#[derive(Clone)]
pub struct StopWords {
    /// A filter that drops a stop word: a word it keeps is not one.
    filter: TextAnalyzer,
}

impl StopWords {
    /// The stop words of language `code` (`en`, `fr` ...), if tantivy has a list for it.
    pub fn of(code: &str) -> Option<Self> {
        let filter = StopWordFilter::new(tantivy_language(code)?)?;
        Some(StopWords {
            filter: TextAnalyzer::builder(RawTokenizer::default())
                .filter(filter)
                .build(),
        })
    }

    /// Whether `word` (lower case) is one of them.
    pub fn contains(&self, word: &str) -> bool {
        let mut filter = self.filter.clone();
        let mut stream = filter.token_stream(word);
        !stream.advance()
    }
}

/// tantivy's language of a code, for the languages it has stop words for.
fn tantivy_language(code: &str) -> Option<Language> {
    Some(match code {
        "da" => Language::Danish,
        "nl" => Language::Dutch,
        "en" => Language::English,
        "fi" => Language::Finnish,
        "fr" => Language::French,
        "de" => Language::German,
        "hu" => Language::Hungarian,
        "it" => Language::Italian,
        "no" | "nb" | "nn" => Language::Norwegian,
        "pt" => Language::Portuguese,
        "ru" => Language::Russian,
        "es" => Language::Spanish,
        "sv" => Language::Swedish,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_has_its_own() {
        let english = StopWords::of("en").expect("English has a list");
        assert!(english.contains("the") && english.contains("with"));
        assert!(!english.contains("heron") && !english.contains("de"));
        let french = StopWords::of("fr").expect("French has a list");
        assert!(french.contains("de") && !french.contains("the"));
        assert!(StopWords::of("und").is_none() && StopWords::of("ja").is_none());
    }
}
