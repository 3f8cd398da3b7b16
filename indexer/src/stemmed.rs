//! [`StemmedFields`]: a document's stemmed fields cut in its language.
//!
//! The index's registered analyzer stems as English ([`Stemming::DEFAULT`]); a document of
//! another stemming is cut here by [`stemmed_analyzer`] of its language and its stemmed
//! fields added pre-tokenized, so tantivy keeps those tokens as they are (the text still
//! stored where the field is stored).

use index_format::language::Stemming;
use index_format::tokenize::{Compounds, stemmed_analyzer};
use tantivy::TantivyDocument;
use tantivy::schema::Field;
use tantivy::tokenizer::{PreTokenizedString, TextAnalyzer, TokenStream};

/// Adds a document's stemmed fields, cut by its stemming.
pub struct StemmedFields {
    /// The analyzer of a stemming other than the default; `None`: the index's own.
    analyzer: Option<TextAnalyzer>,
}

impl StemmedFields {
    /// For a document stemmed by `stemming`.
    pub fn new(stemming: Stemming) -> Self {
        Self {
            analyzer: (stemming != Stemming::DEFAULT)
                .then(|| stemmed_analyzer(stemming, Compounds::Joined)),
        }
    }

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
