//! Reading a stored document's text fields: [`text`].

use tantivy::TantivyDocument;
use tantivy::schema::{Field, Value};

/// The first text of `field` in `doc`, as stored (empty when missing): plain, or
/// pre-tokenized (the stemmed fields of a document in a language the index does not stem
/// by default are added so).
pub(crate) fn text(doc: &TantivyDocument, field: Field) -> String {
    let Some(value) = doc.get_first(field) else {
        return String::new();
    };
    match value.as_str() {
        Some(text) => text.to_string(),
        None => value
            .as_pre_tokenized_text()
            .map(|pre| pre.text)
            .unwrap_or_default(),
    }
}
