//! The tantivy schema: field names come from `shared::fields`, so searchd reads what the
//! indexer writes.

use shared::fields;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

use crate::Error;

/// The tokenizer of every text field: lowercasing, splitting on non-alphanumerics, English
/// stemming. tantivy registers it by default, so any reader can open the index as it is.
pub const TOKENIZER: &str = "en_stem";

fn text(stored: bool) -> TextOptions {
    let indexing =
        TextFieldIndexing::default().set_tokenizer(TOKENIZER).set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let options = TextOptions::default().set_indexing_options(indexing);
    if stored { options.set_stored() } else { options }
}

/// The index schema.
pub fn schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_text_field(fields::URL, STRING | STORED);
    builder.add_text_field(fields::URL_TEXT, text(false));
    builder.add_text_field(fields::HOST, STRING | STORED);
    builder.add_text_field(fields::TITLE, text(true));
    builder.add_text_field(fields::HEADINGS, text(false));
    builder.add_text_field(fields::BODY, text(true));
    builder.add_text_field(fields::DESCRIPTION, text(true));
    builder.add_text_field(fields::ANCHOR, text(false));
    builder.add_u64_field(fields::INLINKS, FAST | STORED | INDEXED);
    builder.add_u64_field(fields::FETCHED_AT, FAST | STORED);
    builder.add_u64_field(fields::NOSNIPPET, FAST | STORED);
    builder.build()
}

/// Handles on every field of the schema.
#[derive(Clone, Copy, Debug)]
pub struct IndexFields {
    /// Canonical URL, one token.
    pub url: Field,
    /// URL split into words.
    pub url_text: Field,
    /// Host name, one token.
    pub host: Field,
    /// `<title>`.
    pub title: Field,
    /// `h1`-`h3`.
    pub headings: Field,
    /// Visible text.
    pub body: Field,
    /// Meta description.
    pub description: Field,
    /// In-link anchor text.
    pub anchor: Field,
    /// In-link count.
    pub inlinks: Field,
    /// Fetch time (ms since the epoch).
    pub fetched_at: Field,
    /// 1 when no snippet may be shown.
    pub nosnippet: Field,
}

impl IndexFields {
    /// Looks every field up in `schema`.
    pub fn new(schema: &Schema) -> Result<Self, Error> {
        let get = |name: &str| schema.get_field(name).map_err(|_| Error::Schema(name.to_string()));
        Ok(Self {
            url: get(fields::URL)?,
            url_text: get(fields::URL_TEXT)?,
            host: get(fields::HOST)?,
            title: get(fields::TITLE)?,
            headings: get(fields::HEADINGS)?,
            body: get(fields::BODY)?,
            description: get(fields::DESCRIPTION)?,
            anchor: get(fields::ANCHOR)?,
            inlinks: get(fields::INLINKS)?,
            fetched_at: get(fields::FETCHED_AT)?,
            nosnippet: get(fields::NOSNIPPET)?,
        })
    }
}
