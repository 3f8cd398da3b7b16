//! The tantivy schema. Field names come from [`crate::fields`], so searchd reads what the
//! indexer writes.
//!
//! | field | options |
//! |---|---|
//! | `url`, `host` | one token (`STRING`), stored and fast (what a search's merge reads of its best documents) |
//! | `kind` | one token (`STRING`), stored and fast (the kind facet) |
//! | `copies` | one token (`STRING`) per other page folded into the document, not stored |
//! | `url_text` | the URL split into words, not stored |
//! | `title`, `description` | text with positions, stored |
//! | `body`, `headings`, `anchor`, `lead` | text with positions, not stored |
//! | `sections` | text with positions, no length norms, not stored: sections kept [`crate::tokenize::SECTION_BREAK`] apart |
//! | `body_start` | the snippet source: the body text with its link-dense blocks (menus, tables of contents) put last, its first [`BODY_START_BYTES`], stored, not indexed |
//! | `title_exact`, `headings_exact`, `body_exact` | the same text, not stemmed, not stored |
//! | `inlinks`, `external_inlinks`, `fetched_at`, `nosnippet` | `u64`, fast and stored |
//! | `simhash` | `u64` simhash of the body text, fast and stored |
//! | `url_depth` | `u64` path segments of the URL, fast and stored |
//! | `rank_level` | `u64` PageRank level (8: an average page), fast and stored |
//! | `code_percent` | `u64` share of the body text in `<pre>` code listings, fast and stored |
//! | `body_words` | `u64` words of the content (`<main>`, else the body), fast and stored |
//! | `page_name` | `u64` hash of the page's name (last segment or index folder), fast |
//! | `lang` | the text's language, one token (`STRING`), stored and fast |
//! | `lang_reason` | why it has that language, stored, not indexed |
//! | `stemmer` | the stemming of the stemmed fields, one token (`STRING`) |
//! | `translations` | `u64` hash of the page's set of translations (0: none), fast and stored |
//! | `date` | `i64` the page's date (published, else modified), seconds, indexed, fast and stored; absent when unknown |
//! | `published`, `modified` | `i64` seconds, stored, each when known |
//! | `date_sources` | where the dates were read, stored, not indexed |
//!
//! A document whose stemming is not [`crate::language::Stemming::DEFAULT`] has its stemmed
//! fields added pre-tokenized, cut by [`crate::tokenize::stemmed_analyzer`] of its language.

use crate::fields;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

/// How much of a body's text is stored, in bytes (cut at a character boundary): searchd cuts
/// snippets from it. A result's stored fields are read whole, so a smaller copy than the up
/// to 1 MiB of body makes every result cheaper to show; a passage is best taken from the
/// start of a page anyway.
pub const BODY_START_BYTES: usize = 32 * 1024;

use crate::Error;

/// The tokenizer of the text fields: words, CJK bigrams, lowercased and stemmed as English
/// (see [`crate::tokenize`]; registered on every index this crate opens).
pub const TOKENIZER: &str = crate::tokenize::STEMMED;

/// The tokenizer of the `*_exact` fields: the same tokens, lowercased, not stemmed.
pub const EXACT_TOKENIZER: &str = crate::tokenize::EXACT;

/// Tokenized text with frequencies and positions (phrase queries), optionally stored: the
/// options of the page and image indexes' text fields.
pub(crate) fn text(stored: bool) -> TextOptions {
    text_with(TOKENIZER, stored)
}

/// The sections field: positions for sloppy phrases, and no length norm, so a long page's
/// matching section counts as much as a short page's.
fn sections() -> TextOptions {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions)
        .set_fieldnorms(false);
    TextOptions::default().set_indexing_options(indexing)
}

fn text_with(tokenizer: &str, stored: bool) -> TextOptions {
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(tokenizer)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let options = TextOptions::default().set_indexing_options(indexing);
    if stored {
        options.set_stored()
    } else {
        options
    }
}

/// The index schema.
pub fn schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_text_field(fields::URL, STRING | STORED | FAST);
    builder.add_text_field(fields::URL_TEXT, text(false));
    builder.add_text_field(fields::HOST, STRING | STORED | FAST);
    builder.add_text_field(fields::KIND, STRING | STORED | FAST);
    builder.add_text_field(fields::COPIES, STRING);
    builder.add_text_field(fields::TITLE, text(true));
    builder.add_text_field(fields::HEADINGS, text(false));
    builder.add_text_field(fields::BODY, text(false));
    builder.add_text_field(fields::BODY_START, STORED);
    builder.add_text_field(fields::LEAD, text(false));
    builder.add_text_field(fields::SECTIONS, sections());
    builder.add_text_field(fields::TITLE_EXACT, text_with(EXACT_TOKENIZER, false));
    builder.add_text_field(fields::HEADINGS_EXACT, text_with(EXACT_TOKENIZER, false));
    builder.add_text_field(fields::BODY_EXACT, text_with(EXACT_TOKENIZER, false));
    builder.add_text_field(fields::DESCRIPTION, text(true));
    builder.add_text_field(fields::ANCHOR, text(false));
    builder.add_u64_field(fields::INLINKS, FAST | STORED);
    builder.add_u64_field(fields::EXTERNAL_INLINKS, FAST | STORED);
    builder.add_u64_field(fields::FETCHED_AT, FAST | STORED);
    builder.add_u64_field(fields::NOSNIPPET, FAST | STORED);
    builder.add_u64_field(fields::SIMHASH, FAST | STORED);
    builder.add_u64_field(fields::URL_DEPTH, FAST | STORED);
    builder.add_u64_field(fields::RANK_LEVEL, FAST | STORED);
    builder.add_u64_field(fields::CODE_PERCENT, FAST | STORED);
    builder.add_u64_field(fields::PAGE_NAME, FAST);
    builder.add_u64_field(fields::BODY_WORDS, FAST | STORED);
    builder.add_text_field(fields::LANG, STRING | STORED | FAST);
    builder.add_text_field(fields::LANG_REASON, STORED);
    builder.add_text_field(fields::STEMMER, STRING);
    builder.add_u64_field(fields::TRANSLATIONS, FAST | STORED);
    builder.add_i64_field(fields::DATE, INDEXED | FAST | STORED);
    builder.add_i64_field(fields::PUBLISHED, STORED);
    builder.add_i64_field(fields::MODIFIED, STORED);
    builder.add_text_field(fields::DATE_SOURCES, STORED);
    builder.build()
}

/// Handles on every field of the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexFields {
    /// Canonical URL, one token: exact lookups and deletes.
    pub url: Field,
    /// The URL split into words.
    pub url_text: Field,
    /// Host name, one token: `site:` queries.
    pub host: Field,
    /// What the document was made from (`html`, `pdf`), one token.
    pub kind: Field,
    /// The other pages folded into the document.
    pub copies: Field,
    /// `<title>`.
    pub title: Field,
    /// `h1`-`h4`.
    pub headings: Field,
    /// Visible body text.
    pub body: Field,
    /// The start of the body text, stored.
    pub body_start: Field,
    /// The body's first words.
    pub lead: Field,
    /// Sections: heading and first words each.
    pub sections: Field,
    /// The title, not stemmed.
    pub title_exact: Field,
    /// The headings, not stemmed.
    pub headings_exact: Field,
    /// The body text, not stemmed.
    pub body_exact: Field,
    /// `<meta name="description">`.
    pub description: Field,
    /// Anchor text of in-links.
    pub anchor: Field,
    /// In-links from distinct pages.
    pub inlinks: Field,
    /// Those of them from pages of another host.
    pub external_inlinks: Field,
    /// Fetch time, ms since the Unix epoch.
    pub fetched_at: Field,
    /// 1 when no snippet may be shown, else 0.
    pub nosnippet: Field,
    /// Simhash of the body text, 0 when none.
    pub simhash: Field,
    /// Path segments of the URL.
    pub url_depth: Field,
    /// PageRank level.
    pub rank_level: Field,
    /// Share of the body in code listings, percent.
    pub code_percent: Field,
    /// Hash of the page's name.
    pub page_name: Field,
    /// Words of the body text.
    pub body_words: Field,
    /// The text's language code.
    pub lang: Field,
    /// Why it has that language.
    pub lang_reason: Field,
    /// The stemming of the stemmed fields.
    pub stemmer: Field,
    /// The hash of the page's set of translations, 0 when none.
    pub translations: Field,
    /// The page's date (published, else modified), seconds; absent when unknown.
    pub date: Field,
    /// When it was published, seconds, if known.
    pub published: Field,
    /// When it was last modified, seconds, if known.
    pub modified: Field,
    /// Where its dates were read.
    pub date_sources: Field,
}

impl IndexFields {
    /// Looks every field up in `schema`; an index written by another version may lack one.
    pub fn new(schema: &Schema) -> Result<Self, Error> {
        let get = |name: &str| {
            schema
                .get_field(name)
                .map_err(|_| Error::MissingField(name.to_string()))
        };
        Ok(Self {
            url: get(fields::URL)?,
            url_text: get(fields::URL_TEXT)?,
            host: get(fields::HOST)?,
            kind: get(fields::KIND)?,
            copies: get(fields::COPIES)?,
            title: get(fields::TITLE)?,
            headings: get(fields::HEADINGS)?,
            body: get(fields::BODY)?,
            body_start: get(fields::BODY_START)?,
            lead: get(fields::LEAD)?,
            sections: get(fields::SECTIONS)?,
            title_exact: get(fields::TITLE_EXACT)?,
            headings_exact: get(fields::HEADINGS_EXACT)?,
            body_exact: get(fields::BODY_EXACT)?,
            description: get(fields::DESCRIPTION)?,
            anchor: get(fields::ANCHOR)?,
            inlinks: get(fields::INLINKS)?,
            external_inlinks: get(fields::EXTERNAL_INLINKS)?,
            fetched_at: get(fields::FETCHED_AT)?,
            nosnippet: get(fields::NOSNIPPET)?,
            simhash: get(fields::SIMHASH)?,
            url_depth: get(fields::URL_DEPTH)?,
            rank_level: get(fields::RANK_LEVEL)?,
            code_percent: get(fields::CODE_PERCENT)?,
            page_name: get(fields::PAGE_NAME)?,
            body_words: get(fields::BODY_WORDS)?,
            lang: get(fields::LANG)?,
            lang_reason: get(fields::LANG_REASON)?,
            stemmer: get(fields::STEMMER)?,
            translations: get(fields::TRANSLATIONS)?,
            date: get(fields::DATE)?,
            published: get(fields::PUBLISHED)?,
            modified: get(fields::MODIFIED)?,
            date_sources: get(fields::DATE_SOURCES)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_found_and_a_foreign_schema_is_refused() {
        assert!(IndexFields::new(&schema()).is_ok());
        let mut builder = Schema::builder();
        builder.add_text_field(fields::URL, STRING);
        assert!(
            matches!(IndexFields::new(&builder.build()), Err(Error::MissingField(f)) if f == fields::URL_TEXT)
        );
    }

    #[test]
    fn text_fields_use_the_registered_tokenizers() {
        let index = tantivy::Index::create_in_ram(schema());
        crate::tokenize::register(&index);
        assert!(index.tokenizers().get(TOKENIZER).is_some());
        assert!(index.tokenizers().get(EXACT_TOKENIZER).is_some());
    }
}
