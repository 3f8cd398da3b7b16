//! [`Hit`]: one result as a shard makes it and a root shows it, and [`QuerySpec`]: a query
//! as a root hands it to its shards (which parse it again, the same way); [`SimilarTo`]: the
//! page whose likes are asked for, as the shard holding it describes it.

use index_format::IndexFields;
use serde::{Deserialize, Serialize};
use tantivy::Score;

use crate::query::Matching;
use crate::ranking::PageSignals;
use crate::snippet::Snippet;
use crate::stored::StoredPage;
use crate::synonyms::Expansion;

/// How results are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ranking {
    /// Every text field with its boost, the link boost and host crowding.
    #[default]
    Full,
    /// Plain BM25 over the body text alone, nothing else (`ranking=bm25`): the baseline the
    /// relevance benchmark measures the full ranking against.
    Bm25Body,
}

impl Ranking {
    /// From the API's `ranking` parameter: `bm25` is the baseline, anything else the full
    /// ranking.
    pub fn from_param(value: &str) -> Self {
        if value.eq_ignore_ascii_case("bm25") {
            Ranking::Bm25Body
        } else {
            Ranking::Full
        }
    }
}

/// The order results are shown in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Order {
    /// Best first.
    #[default]
    Relevance,
    /// Newest first by the page's date (its publication, else its last modification), ties
    /// best first; pages with no date after every dated one, best first (`sort=date`).
    Date,
}

impl Order {
    /// From the `sort` parameter: `date` is newest first, anything else best first.
    pub fn from_param(value: &str) -> Self {
        if value.trim().eq_ignore_ascii_case("date") {
            Order::Date
        } else {
            Order::Relevance
        }
    }
}

/// A query as a root sends it to its shards: the text as shown (already cut to the root's
/// length limit), which pages it matches, the ranking and the order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct QuerySpec {
    /// The query text ([`crate::UserQuery::shown`]).
    pub text: String,
    /// Every word, or any.
    pub matching: Matching,
    /// The ranking asked for.
    pub ranking: Ranking,
    /// The order asked for.
    #[serde(default)]
    pub order: Order,
    /// The query's words searched with their synonyms (the root's list: every shard
    /// expands alike).
    #[serde(default)]
    pub synonyms: Vec<Expansion>,
}

/// One result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Hit {
    /// The page's URL.
    pub url: String,
    /// Its title (may be empty).
    pub title: String,
    /// Its host.
    pub host: String,
    /// A passage with the query terms (empty for `nosnippet` pages).
    pub snippet: Snippet,
    /// Relevance: BM25 times the link boost, times the host-crowding demotion.
    pub score: Score,
    /// Its query-independent signals (in-links, depth, PageRank level, code share, words).
    pub signals: PageSignals,
    /// When the page was fetched, ms since the Unix epoch.
    pub fetched_at_ms: u64,
    /// How the score was computed, when asked for (`explain=1`).
    pub explanation: Option<serde_json::Value>,
    /// Whether the page has every word of the query (else it has most of them and is ranked
    /// below every page that has them all).
    #[serde(default = "yes")]
    pub all_words: bool,
    /// What the document was made from: `html`, or `pdf` for a PDF's text.
    #[serde(default = "html")]
    pub kind: String,
    /// The language of its text (`en`, `fr`; `und` when it could not be told).
    #[serde(default = "undetermined")]
    pub lang: String,
    /// Why it has that language (its text, or a declaration when the text could not tell).
    #[serde(default)]
    pub lang_reason: String,
    /// The same page in other languages that matched too, folded under this one (the page
    /// shown is the one in the language the user prefers).
    #[serde(default)]
    pub also_in: Vec<Translation>,
    /// The page's date, seconds since the Unix epoch: its publication, else its last
    /// modification (`sort=date` orders by it); `None` when it has neither.
    #[serde(default)]
    pub date: Option<i64>,
    /// When it was published (`YYYY-MM-DD`), if known.
    #[serde(default)]
    pub published: Option<String>,
    /// When it was last modified (`YYYY-MM-DD`), if known.
    #[serde(default)]
    pub modified: Option<String>,
    /// The simhash of its body text (0: too short to have one): what tells a near-copy.
    #[serde(default)]
    pub simhash: u64,
}

/// A translation of a result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Translation {
    /// Its language.
    pub lang: String,
    /// Its URL.
    pub url: String,
}

fn undetermined() -> String {
    "und".into()
}

fn yes() -> bool {
    true
}

fn html() -> String {
    "html".into()
}

impl Hit {
    /// A result from a stored document, without its snippet.
    pub(crate) fn of(doc: &StoredPage, fields: &IndexFields, score: Score) -> Hit {
        Hit {
            url: text(doc, fields.url),
            title: text(doc, fields.title),
            host: text(doc, fields.host),
            snippet: Snippet::default(),
            score,
            signals: PageSignals {
                inlinks: number(doc, fields.inlinks),
                external_inlinks: number(doc, fields.external_inlinks),
                depth: number(doc, fields.url_depth),
                rank_level: number(doc, fields.rank_level),
                code_percent: number(doc, fields.code_percent),
                body_words: number(doc, fields.body_words),
            },
            fetched_at_ms: number(doc, fields.fetched_at),
            explanation: None,
            all_words: true,
            kind: Some(text(doc, fields.kind))
                .filter(|kind| !kind.is_empty())
                .unwrap_or_else(html),
            lang: Some(text(doc, fields.lang))
                .filter(|lang| !lang.is_empty())
                .unwrap_or_else(undetermined),
            lang_reason: text(doc, fields.lang_reason),
            also_in: Vec::new(),
            date: doc.signed(fields.date),
            published: doc.signed(fields.published).map(shared::dates::day),
            modified: doc.signed(fields.modified).map(shared::dates::day),
            simhash: number(doc, fields.simhash),
        }
    }
}

fn text(doc: &StoredPage, field: tantivy::schema::Field) -> String {
    doc.text(field).to_string()
}

fn number(doc: &StoredPage, field: tantivy::schema::Field) -> u64 {
    doc.number(field).unwrap_or(0)
}

/// The page similar pages are found for: its URL as indexed, its title, the words searched.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SimilarTo {
    /// The page's URL, as indexed (the canonical one when it was asked by a copy's).
    pub url: String,
    /// Its title.
    pub title: String,
    /// The words searched, the weightiest first.
    pub words: Vec<String>,
    /// The simhash of its body text: a result near it is a copy, left out.
    #[serde(default)]
    pub simhash: u64,
}

/// What a root asks a leaf for (`POST /leaf/terms`): the words of the page at `url`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TermsRequest {
    /// The page's URL (or a copy's).
    pub url: String,
}
