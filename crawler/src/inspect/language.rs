//! The language the index gave a page, for `crawler explain`: the indexer decides it (from
//! the page's text, its declarations as hints) and stores it with why; this reads the
//! current generation, read-only, beside the store.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use shared::CanonicalUrl;
use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{TantivyDocument, Term};

/// Writes the line saying the language of `url` in the index of `data`, if it is indexed
/// under that URL.
pub(super) fn explain_language(
    data: &Path,
    url: &CanonicalUrl,
    out: &mut impl Write,
) -> Result<()> {
    if let Some((lang, reason)) = indexed_language(data, url.as_str()) {
        writeln!(out, "  language: {lang} ({reason})")?;
    }
    Ok(())
}

/// The language and its reason the current index holds for the document filed under `url`.
fn indexed_language(data: &Path, url: &str) -> Option<(String, String)> {
    let current = index_format::open_current(data).ok()??;
    index_format::tokenize::register(&current.index);
    let searcher = current.index.reader().ok()?.searcher();
    let query = TermQuery::new(
        Term::from_field_text(current.fields.url, url),
        IndexRecordOption::Basic,
    );
    let best = searcher
        .search(&query, &TopDocs::with_limit(1).order_by_score())
        .ok()?;
    let (_, address) = best.first()?;
    let doc: TantivyDocument = searcher.doc(*address).ok()?;
    let text = |field| {
        doc.get_first(field)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    Some((text(current.fields.lang), text(current.fields.lang_reason)))
}
