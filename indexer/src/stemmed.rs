//! [`StemmedFields`]: a document's stemmed fields cut in its language.
//!
//! The index's registered analyzer stems as English ([`Stemming::DEFAULT`]); a document of
//! another stemming is cut here by [`stemmed_analyzer`] of its language and its stemmed
//! fields added pre-tokenized, so tantivy keeps those tokens as they are (the text still
//! stored where the field is stored).
//!
//! Each parser thread keeps its analyzers ([`Analyzers`]) for the whole build: an analyzer
//! remembers the words it stemmed, and a new one for every document stemmed every word of
//! every page anew.

use index_format::language::Stemming;
use index_format::tokenize::{Compounds, stemmed_analyzer};
use tantivy::TantivyDocument;
use tantivy::schema::Field;
use tantivy::tokenizer::{PreTokenizedString, TextAnalyzer, TokenStream};

/// One parser thread's analyzers of the stemmings other than the default, made as its
/// documents first need them.
#[derive(Default)]
pub struct Analyzers {
    made: Vec<(Stemming, TextAnalyzer)>,
}

impl Analyzers {
    /// The fields of a document stemmed by `stemming`.
    pub fn fields(&mut self, stemming: Stemming) -> StemmedFields<'_> {
        if stemming == Stemming::DEFAULT {
            return StemmedFields { analyzer: None };
        }
        let at = match self.made.iter().position(|(made, _)| *made == stemming) {
            Some(at) => at,
            None => {
                self.made
                    .push((stemming, stemmed_analyzer(stemming, Compounds::Joined)));
                self.made.len() - 1
            }
        };
        StemmedFields {
            analyzer: Some(&mut self.made[at].1),
        }
    }
}

/// Adds a document's stemmed fields, cut by its stemming.
pub struct StemmedFields<'a> {
    /// The analyzer of a stemming other than the default; `None`: the index's own.
    analyzer: Option<&'a mut TextAnalyzer>,
}

impl StemmedFields<'_> {
    /// Adds `text` to the stemmed `field` of `doc`.
    pub fn add(&mut self, doc: &mut TantivyDocument, field: Field, text: &str) {
        let Some(analyzer) = &mut self.analyzer else {
            doc.add_text(field, text);
            return;
        };
        let mut tokens = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            tokens.push(stream.token().clone());
        }
        doc.add_pre_tokenized_text(
            field,
            PreTokenizedString {
                text: text.to_string(),
                tokens,
            },
        );
    }
}
