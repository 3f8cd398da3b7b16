//! What the root's merge needs of each of a shard's best documents (URL, host, language,
//! page name, simhash, translations: a [`TopHit`]), read from the segment's fast fields.
//!
//! A stored document is a block of the doc store to decompress and every stored field to
//! decode (the body's first 32 KiB among them): reading thirty of them for a page of ten
//! results was a quarter of a query's CPU. A column lookup is a few reads of memory. An index
//! written before the URL and host were fast fields has no such columns: its documents are
//! read from the store, as before.

use std::sync::Arc;

use index_format::IndexFields;
use serde::{Deserialize, Serialize};
use tantivy::columnar::{Column, StrColumn};
use tantivy::{DocAddress, DocId, Score};

use crate::columns::{Columns, SegmentColumns};
use crate::stored::StoredPage;

/// One of a shard's best documents, with what the root's merge needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TopHit {
    /// Its score: BM25 (global statistics) times its signals.
    pub score: Score,
    /// The shard holding it (numbered within the answering process).
    pub shard: u32,
    /// Its URL.
    pub url: String,
    /// Its host, when asked for (else empty).
    pub host: String,
    /// Its page-name key (0: none, or not the full ranking).
    pub name: u64,
    /// Its body simhash (0: none, or not the full ranking).
    pub simhash: u64,
    /// The key of its set of translations (0: none, or not the full ranking).
    #[serde(default)]
    pub translations: u64,
    /// Its language.
    #[serde(default)]
    pub lang: String,
    /// Its date, seconds since the Unix epoch (`sort=date`), if it has one.
    #[serde(default)]
    pub date: Option<i64>,
    /// Where it was found in its shard's searcher, when in this process (never sent): round 3
    /// reads it there, its URL checked, rather than looking the URL up.
    #[serde(skip)]
    pub address: Option<DocAddress>,
}

/// The first value of `doc` in a string column, or "" when it has none.
fn first_str(column: &StrColumn, doc: DocId) -> String {
    let mut value = String::new();
    if let Some(ord) = column.term_ords(doc).next()
        && !column.ord_to_str(ord, &mut value).unwrap_or(false)
    {
        value.clear();
    }
    value
}

fn first_u64(column: &Option<Column<u64>>, doc: DocId) -> u64 {
    column
        .as_ref()
        .and_then(|column| column.first(doc))
        .unwrap_or(0)
}

/// Reads the [`TopHit`]s of one shard, each segment's columns opened once.
pub(crate) struct Summaries<'a> {
    searcher: &'a tantivy::Searcher,
    fields: &'a IndexFields,
    /// Whether the ranking's fields (page name, simhash, translations) are wanted.
    full: bool,
    /// Whether hosts are wanted.
    hosts: bool,
    columns: Arc<Columns>,
}

impl<'a> Summaries<'a> {
    /// Summaries of documents of `searcher`, read from its `columns`; `full`: with the full
    /// ranking's fields (else 0); `hosts`: with hosts (else empty).
    pub(crate) fn new(
        searcher: &'a tantivy::Searcher,
        columns: Arc<Columns>,
        fields: &'a IndexFields,
        full: bool,
        hosts: bool,
    ) -> Self {
        Self {
            searcher,
            fields,
            full,
            hosts,
            columns,
        }
    }

    /// The summary of the document at `address`, scored `score`, in shard `shard`.
    pub(crate) fn of(
        &self,
        score: Score,
        shard: u32,
        address: DocAddress,
    ) -> tantivy::Result<TopHit> {
        let searcher = self.searcher;
        let columns: &SegmentColumns = &self.columns.segment(address.segment_ord).summary;
        let doc = address.doc_id;
        let full = self.full;
        let ranked = |column: &Option<Column<u64>>| if full { first_u64(column, doc) } else { 0 };
        let (name, simhash, translations) = (
            ranked(&columns.name),
            ranked(&columns.simhash),
            ranked(&columns.translations),
        );
        let (url, host, lang) = match (&columns.url, &columns.host, &columns.lang) {
            (Some(url), Some(host), Some(lang)) => (
                first_str(url, doc),
                if self.hosts {
                    first_str(host, doc)
                } else {
                    String::new()
                },
                first_str(lang, doc),
            ),
            // An index of an older version: its URLs and hosts are stored only.
            _ => {
                let stored: StoredPage = searcher.doc(address)?;
                (
                    stored.text(self.fields.url).to_string(),
                    if self.hosts {
                        stored.text(self.fields.host).to_string()
                    } else {
                        String::new()
                    },
                    stored.text(self.fields.lang).to_string(),
                )
            }
        };
        Ok(TopHit {
            score,
            shard,
            url,
            host,
            name,
            simhash,
            translations,
            lang,
            date: columns.date.as_ref().and_then(|column| column.first(doc)),
            address: Some(address),
        })
    }
}
