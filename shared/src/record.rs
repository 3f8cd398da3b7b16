//! The store's records and their versioned encoding.
//!
//! Every value written to the store is `[version byte] ++ postcard(record)`. A reader that
//! meets a version it does not know reports [`RecordError::UnknownVersion`] instead of
//! misreading bytes; a new field means a new version and a decoder for the old one.
//! The distributed crawl's records are in `record/partition.rs`, what a browser's render
//! found in `record/rendered.rs`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::dates::PageDates;
use crate::kind::ContentKind;

/// Why a stored value could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Written by a newer (or older, retired) format.
    #[error("record of kind {kind} has version {found}, this build reads version {expected}")]
    UnknownVersion {
        /// The record type.
        kind: &'static str,
        /// The version byte found.
        found: u8,
        /// The version this build writes and reads.
        expected: u8,
    },
    /// An empty value.
    #[error("record of kind {0} is empty")]
    Empty(&'static str),
    /// Bytes that do not decode.
    #[error("record of kind {kind} is corrupt: {source}")]
    Corrupt {
        /// The record type.
        kind: &'static str,
        /// The decoder's complaint.
        source: postcard::Error,
    },
    /// A compressed body that does not decompress.
    #[error("stored body is corrupt: {0}")]
    Body(String),
}

/// A record type stored in the content store, with its format version.
pub trait Record: Serialize + DeserializeOwned {
    /// Name used in error messages.
    const KIND: &'static str;
    /// Format version; bump it when the layout changes.
    const VERSION: u8;

    /// Encodes as `[VERSION] ++ postcard(self)`.
    fn encode(&self) -> Vec<u8> {
        let mut out = vec![Self::VERSION];
        // postcard only fails on writers that run out of room; a Vec never does.
        out.extend(postcard::to_allocvec(self).unwrap_or_default());
        out
    }

    /// Reads a value of an older `version` this build still understands (`None`: none).
    fn upgrade(version: u8, bytes: &[u8]) -> Option<Result<Self, RecordError>> {
        let _ = (version, bytes);
        None
    }

    /// Decodes bytes written by [`Record::encode`] (of this version or an older one that
    /// [`Record::upgrade`] reads).
    fn decode(bytes: &[u8]) -> Result<Self, RecordError> {
        let (&version, rest) = bytes.split_first().ok_or(RecordError::Empty(Self::KIND))?;
        if version != Self::VERSION {
            return Self::upgrade(version, rest).unwrap_or(Err(RecordError::UnknownVersion {
                kind: Self::KIND,
                found: version,
                expected: Self::VERSION,
            }));
        }
        decode_body(Self::KIND, rest)
    }
}

/// Decodes the postcard body of a record of kind `kind`.
fn decode_body<T: DeserializeOwned>(kind: &'static str, bytes: &[u8]) -> Result<T, RecordError> {
    postcard::from_bytes(bytes).map_err(|source| RecordError::Corrupt { kind, source })
}

/// What robots META tags and `X-Robots-Tag` headers asked of a page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsDirectives {
    /// Store it, but never index it.
    pub noindex: bool,
    /// Neither follow its links nor count them for ranking.
    pub nofollow: bool,
    /// Show no cached copy.
    pub noarchive: bool,
    /// Show no snippet.
    pub nosnippet: bool,
}

impl RobotsDirectives {
    /// Everything either asked for (directives only ever add restrictions).
    pub fn or(self, other: Self) -> Self {
        Self {
            noindex: self.noindex || other.noindex,
            nofollow: self.nofollow || other.nofollow,
            noarchive: self.noarchive || other.noarchive,
            nosnippet: self.nosnippet || other.nosnippet,
        }
    }
}

/// A page body, decoded to UTF-8 and lz4-compressed.
///
/// Serialized as one byte string (postcard writes it exactly as a sequence of `u8`, so the
/// format is the same, but it is copied at once instead of byte by byte).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompressedBody(Vec<u8>);

impl Serialize for CompressedBody {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        byte_string::serialize(&self.0, serializer)
    }
}

impl<'de> Deserialize<'de> for CompressedBody {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        byte_string::deserialize(deserializer).map(CompressedBody)
    }
}

/// Bytes serialized as one byte string: postcard writes it exactly as a sequence of `u8`, so
/// the format is the same, but it is copied at once instead of byte by byte (`#[serde(with)]`).
mod byte_string {
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
                Ok(v)
            }
        }
        deserializer.deserialize_byte_buf(Visitor)
    }
}

impl CompressedBody {
    /// Compresses a body.
    pub fn compress(text: &str) -> Self {
        Self(lz4_flex::compress_prepend_size(text.as_bytes()))
    }

    /// The body as text.
    pub fn decompress(&self) -> Result<String, RecordError> {
        let bytes = lz4_flex::decompress_size_prepended(&self.0)
            .map_err(|e| RecordError::Body(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| RecordError::Body(e.to_string()))
    }

    /// Size in bytes, compressed.
    pub fn compressed_len(&self) -> usize {
        self.0.len()
    }
}

/// One fetched URL, as the crawler stored it. Key: the canonical URL (column family `pages`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PageRecord {
    /// The canonical URL that was requested.
    pub url: String,
    /// The URL the answer came from (differs from `url` only for redirects the HTTP client
    /// followed itself; the crawler follows redirects as separate records, see `redirect_to`).
    pub final_url: String,
    /// HTTP status; 0 when no answer came (see `error`).
    pub status: u16,
    /// Why the fetch failed (connection refused, timeout, address refused ...), if it did.
    pub error: Option<String>,
    /// The body was longer than the crawler's limit and was cut.
    pub truncated: bool,
    /// Response headers, names lowercase, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body, decoded to UTF-8 (empty for non-HTML answers and redirects).
    pub body: CompressedBody,
    /// Body length in bytes before compression.
    pub body_len: u64,
    /// When the answer arrived, in milliseconds since the Unix epoch.
    pub fetched_at_ms: u64,
    /// xxh3-64 of the page's normalized text: equal pages have equal hashes.
    pub content_hash: u64,
    /// The `<title>`, whitespace collapsed.
    pub title: String,
    /// `<meta name="description">`.
    pub description: String,
    /// What robots META tags and headers said.
    pub robots: RobotsDirectives,
    /// Link depth from a seed.
    pub depth: u32,
    /// For a 3xx answer: the canonical target, queued as its own URL.
    pub redirect_to: Option<String>,
    /// When another stored page already had this content: that page's URL.
    pub duplicate_of: Option<String>,
    /// `<meta name="keywords">`.
    pub keywords: String,
    /// `<meta name="revisit-after">`, in seconds: how often the site asks to be re-read.
    pub revisit_after_secs: Option<u64>,
    /// The URLs that redirected to this one on the way here (3xx or meta refresh), first
    /// hop first.
    pub aliases: Vec<String>,
    /// The URL the page asks to be indexed as (`<link rel="canonical">`, else a `Link: <..>;
    /// rel="canonical"` header), canonical; `None` when it names none, or names this page.
    pub canonical: Option<String>,
    /// The part of `robots` that `X-Robots-Tag` headers asked for (the rest came from robots
    /// META tags), so `explain` can say where a directive came from.
    pub robots_header: RobotsDirectives,
    /// The store's change number of this write: every page write gets the next one
    /// ([`CrawlCounters::next_change`]), so a build knows which pages changed since it last
    /// ran. 0 for a page written before change numbers existed.
    pub change: u64,
    /// What the body is (by its bytes, the server's `Content-Type` only a hint): an HTML
    /// page's body is its text; a PDF's body is the text read out of it (its metadata in
    /// [`MediaRecord`]); an image keeps no body (its size and thumbnail in [`MediaRecord`]).
    /// [`ContentKind::Html`] for every page written before kinds existed, and for answers
    /// with no body.
    pub kind: ContentKind,
    /// When the page was published and last modified, and where each was read
    /// ([`crate::dates`]); `None` for a page written before dates were read.
    pub dates: Option<PageDates>,
}

impl Record for PageRecord {
    const KIND: &'static str = "page";
    const VERSION: u8 = 6;

    fn upgrade(version: u8, bytes: &[u8]) -> Option<Result<Self, RecordError>> {
        match version {
            1 => {
                Some(decode_body::<page_versions::PageRecordV1>(Self::KIND, bytes).map(Self::from))
            }
            2 => {
                Some(decode_body::<page_versions::PageRecordV2>(Self::KIND, bytes).map(Self::from))
            }
            3 => {
                Some(decode_body::<page_versions::PageRecordV3>(Self::KIND, bytes).map(Self::from))
            }
            4 => {
                Some(decode_body::<page_versions::PageRecordV4>(Self::KIND, bytes).map(Self::from))
            }
            5 => {
                Some(decode_body::<page_versions::PageRecordV5>(Self::KIND, bytes).map(Self::from))
            }
            _ => None,
        }
    }
}

impl PageRecord {
    /// A header's value, by lowercase name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The page's dates: as the crawler read them, or for a page stored before it read
    /// dates, those of its URL and `Last-Modified` header.
    pub fn page_dates(&self) -> PageDates {
        self.dates.unwrap_or_else(|| {
            PageDates::decide(
                &crate::dates::DeclaredDates::default(),
                &self.url,
                self.header("last-modified"),
                self.fetched_at_ms,
            )
        })
    }

    /// Whether this record holds a page whose text can be indexed: a 2xx answer with a
    /// body (HTML, or the text of a PDF: see [`PageRecord::kind`]).
    pub fn is_html_page(&self) -> bool {
        (200..300).contains(&self.status) && self.body_len > 0
    }
}

/// One link found on a page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outlink {
    /// Canonical target URL.
    pub target: String,
    /// The link's anchor text, whitespace collapsed (or the `alt` of a linked image).
    pub anchor: String,
    /// `rel="nofollow"` (or `ugc`, `sponsored`) on the link, or `nofollow` on the page.
    pub nofollow: bool,
}

/// Every link of one page. Key: the page's canonical URL (column family `outlinks`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outlinks(pub Vec<Outlink>);

impl Record for Outlinks {
    const KIND: &'static str = "outlinks";
    const VERSION: u8 = 1;
}

/// What a frontier entry asks the crawler to fetch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EntryKind {
    /// A page seen for the first time.
    #[default]
    Page,
    /// A stored page whose next visit is due: fetched with `If-None-Match` /
    /// `If-Modified-Since`, a 304 keeps the stored copy.
    Revisit,
    /// A sitemap or sitemap index (from robots.txt `Sitemap:` lines): its URLs are queued.
    Sitemap,
    /// An image a page shows (or links to): fetched as an image, its size and thumbnail
    /// kept, nothing followed.
    Image,
}

/// The rank of a URL whose fetch failed and waits to be tried again: the last of all, so
/// failed URLs wait in the order they failed, behind the rest of their origin's queue.
pub const RETRY_RANK: u32 = u32::MAX;

/// A URL waiting in the frontier. Key: see [`crate::store::frontier_key`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontierEntry {
    /// Canonical URL.
    pub url: String,
    /// Link depth from a seed.
    pub depth: u32,
    /// The page that linked here (sent as `Referer`).
    pub referrer: Option<String>,
    /// The URLs that redirected here, first hop first (empty: no redirect).
    pub redirected_from: Vec<String>,
    /// What to fetch it as.
    pub kind: EntryKind,
    /// Failed attempts so far (5xx, 429, network errors); the entry is retried after a
    /// back-off until the crawler's limit.
    pub attempts: u8,
    /// How many times it was found while it waited: links from pages, seeds, sitemap
    /// listings. Raises its [`rank`](Self::rank).
    pub inlinks: u32,
}

impl FrontierEntry {
    /// A page entry with no referrer or redirect history, found once.
    pub fn page(url: impl Into<String>, depth: u32) -> Self {
        Self {
            url: url.into(),
            depth,
            inlinks: 1,
            ..Self::default()
        }
    }

    /// Its place in its origin's queue, smaller first: breadth-first by depth, and a URL
    /// found often moves up, by up to a level and a half for 16 in-links or more.
    /// `4 × depth + 3 − 2 × b`, where `b` is 0 for one in-link, 1 for 2–3, 2 for 4–15 and
    /// 3 for 16 or more. A URL whose fetch failed ([`attempts`](Self::attempts) > 0) ranks
    /// [`RETRY_RANK`], behind every URL that has not: one bad URL never holds up its host.
    pub fn rank(&self) -> u32 {
        if self.attempts > 0 {
            return RETRY_RANK;
        }
        let boost = match self.inlinks {
            0..=1 => 0,
            2..=3 => 1,
            4..=15 => 2,
            _ => 3,
        };
        self.depth
            .saturating_mul(4)
            .saturating_add(3)
            .saturating_sub(2 * boost)
    }

    /// How many redirects led here.
    pub fn redirects(&self) -> usize {
        self.redirected_from.len()
    }
}

impl Record for FrontierEntry {
    const KIND: &'static str = "frontier entry";
    // Version 4 added `EntryKind::Image`; its layout is version 3's.
    const VERSION: u8 = 4;

    fn upgrade(version: u8, bytes: &[u8]) -> Option<Result<Self, RecordError>> {
        match version {
            3 => Some(decode_body(Self::KIND, bytes)),
            1 => Some(
                decode_body::<FrontierEntryV1>(Self::KIND, bytes).map(|v1| Self {
                    url: v1.url,
                    depth: v1.depth,
                    referrer: v1.referrer,
                    // Version 1 kept only the count; the hops themselves are not known.
                    redirected_from: vec![String::new(); usize::from(v1.redirects)],
                    kind: EntryKind::Page,
                    attempts: 0,
                    inlinks: 1,
                }),
            ),
            2 => Some(
                decode_body::<FrontierEntryV2>(Self::KIND, bytes).map(|v2| Self {
                    url: v2.url,
                    depth: v2.depth,
                    referrer: v2.referrer,
                    redirected_from: v2.redirected_from,
                    kind: v2.kind,
                    attempts: v2.attempts,
                    inlinks: 1,
                }),
            ),
            _ => None,
        }
    }
}

/// [`FrontierEntry`] as version 2 wrote it.
#[derive(Deserialize)]
struct FrontierEntryV2 {
    url: String,
    depth: u32,
    referrer: Option<String>,
    redirected_from: Vec<String>,
    kind: EntryKind,
    attempts: u8,
}

/// [`FrontierEntry`] as version 1 wrote it.
#[derive(Deserialize)]
struct FrontierEntryV1 {
    url: String,
    depth: u32,
    referrer: Option<String>,
    redirects: u8,
}

/// When a stored URL is to be fetched again, and what the last visits found. Key: the
/// canonical URL (column family `revisit`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevisitRecord {
    /// When the next visit is due, ms since the Unix epoch.
    pub due_ms: u64,
    /// The current interval between visits, in ms (shorter after a change, longer after a
    /// visit that found none).
    pub interval_ms: u64,
    /// The page's link depth, for the frontier entry of the next visit.
    pub depth: u32,
    /// A revisit is in the frontier now (so a restart does not queue it twice).
    pub queued: bool,
    /// The `ETag` of the stored copy, sent as `If-None-Match`.
    pub etag: Option<String>,
    /// The `Last-Modified` of the stored copy, sent as `If-Modified-Since`.
    pub last_modified: Option<String>,
    /// Status and content hash of the stored copy, to tell a change from none.
    pub status: u16,
    /// See `status`.
    pub content_hash: u64,
    /// Visits so far, and how many of them found a change.
    pub visits: u32,
    /// See `visits`.
    pub changes: u32,
}

impl Record for RevisitRecord {
    const KIND: &'static str = "revisit";
    const VERSION: u8 = 1;
}

/// Why a queued URL was never fetched. Key: the URL (column family `skipped`). Written
/// when the crawler drops the URL, so `crawler explain`, `crawler report` and `/explain`
/// can say why a page is not in the index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipRecord {
    /// Why.
    pub reason: SkipReason,
    /// When, ms since the Unix epoch.
    pub at_ms: u64,
}

impl Record for SkipRecord {
    const KIND: &'static str = "skipped";
    const VERSION: u8 = 1;
}

/// The reason of a [`SkipRecord`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SkipReason {
    /// A robots.txt `Disallow` rule matched.
    RobotsRule {
        /// Its line number in the host's robots.txt.
        line: u32,
        /// The line as written.
        rule: String,
    },
    /// robots.txt answered 401 or 403: the whole site is off limits.
    RobotsForbidden,
    /// A trap rule or a configured filter kept it out (`repeated_segment`, `query_cap`,
    /// `denied_url`, `not_allowed_url`, `denied_host`).
    Trap {
        /// The rule's name.
        rule: String,
    },
    /// Its host had used its budget (`max_pages_per_host`).
    Budget {
        /// The budget's name.
        rule: String,
    },
}

impl SkipReason {
    /// A short name of the kind of reason, for counts (`robots`).
    pub fn kind(&self) -> &'static str {
        match self {
            SkipReason::RobotsRule { .. } | SkipReason::RobotsForbidden => "robots",
            SkipReason::Trap { .. } => "trap",
            SkipReason::Budget { .. } => "budget",
        }
    }
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::RobotsRule { line, rule } => {
                write!(f, "disallowed by robots.txt line {line}: {rule:?}")
            }
            SkipReason::RobotsForbidden => {
                write!(
                    f,
                    "robots.txt answered 401/403: the whole site is off limits"
                )
            }
            SkipReason::Trap { rule } => write!(f, "cut off by the trap rule {rule}"),
            SkipReason::Budget { rule } => write!(f, "over its host's budget ({rule})"),
        }
    }
}

/// How a robots.txt fetch ended, as cached per origin (column family `robots`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RobotsFetch {
    /// 2xx: these rules (the first 500 KiB of the file).
    Rules(String),
    /// 404, 410 and other 4xx but 401/403: no rules, crawl freely.
    NoRules,
    /// 401 or 403: the whole site is off limits.
    Forbidden,
}

/// A cached robots.txt answer for one origin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsRecord {
    /// The outcome.
    pub fetch: RobotsFetch,
    /// When it was fetched, ms since the Unix epoch.
    pub fetched_at_ms: u64,
    /// When it must be fetched again, ms since the Unix epoch.
    pub expires_at_ms: u64,
    /// Since when every attempt to fetch it again failed (429, 5xx, network), if they have:
    /// after 30 days of that, this copy is obeyed again (RFC 9309 2.4).
    pub unreachable_since_ms: Option<u64>,
}

impl Record for RobotsRecord {
    const KIND: &'static str = "robots";
    const VERSION: u8 = 2;

    fn upgrade(version: u8, bytes: &[u8]) -> Option<Result<Self, RecordError>> {
        (version == 1).then(|| {
            decode_body::<RobotsRecordV1>(Self::KIND, bytes).map(|v1| Self {
                fetch: v1.fetch,
                fetched_at_ms: v1.fetched_at_ms,
                expires_at_ms: v1.expires_at_ms,
                unreachable_since_ms: None,
            })
        })
    }
}

/// [`RobotsRecord`] as version 1 wrote it.
#[derive(Deserialize)]
struct RobotsRecordV1 {
    fetch: RobotsFetch,
    fetched_at_ms: u64,
    expires_at_ms: u64,
}

/// Crawl-wide counters, rewritten in every page's write batch (column family `meta`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrawlCounters {
    /// Records in `pages`.
    pub pages_stored: u64,
    /// The next frontier sequence number.
    pub next_seq: u64,
    /// URLs in the frontier.
    pub frontier_len: u64,
    /// The change number the next page write gets ([`PageRecord::change`]); starts at 1.
    pub next_change: u64,
    /// URLs kept out by each trap rule, by rule name, over the life of the store.
    pub trapped: BTreeMap<String, u64>,
}

impl CrawlCounters {
    /// Takes the next page change number.
    pub fn take_change(&mut self) -> u64 {
        self.next_change = self.next_change.max(1);
        let change = self.next_change;
        self.next_change += 1;
        change
    }

    /// Page writes so far: the last change number given.
    pub fn last_change(&self) -> u64 {
        self.next_change.saturating_sub(1)
    }
}

impl Record for CrawlCounters {
    const KIND: &'static str = "crawl counters";
    const VERSION: u8 = 2;

    fn upgrade(version: u8, bytes: &[u8]) -> Option<Result<Self, RecordError>> {
        (version == 1).then(|| {
            decode_body::<(u64, u64, u64)>(Self::KIND, bytes).map(
                |(pages_stored, next_seq, frontier_len)| Self {
                    pages_stored,
                    next_seq,
                    frontier_len,
                    ..Self::default()
                },
            )
        })
    }
}

mod history;
mod media;
mod page_versions;
mod partition;
mod rendered;
#[cfg(test)]
mod tests;

pub use history::{FetchEvent, FetchHistory};
pub use media::{ImageInfo, ImageRef, MediaRecord, PageImages, PdfInfo, PdfStatus, Thumbnail};
pub use partition::{LinkParcel, OutboxLink, PartitionStamp};
pub use rendered::{RenderOutcome, RenderedPage};

#[cfg(test)]
mod props;
