//! The formats [`PageRecord`] had before its current version, read and upgraded as they
//! are found in a store written by an older crawler.

use serde::Deserialize;
#[cfg(test)]
use serde::Serialize;

use super::*;

/// [`PageRecord`] as version 5 wrote it: no dates.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct PageRecordV5 {
    pub(super) v4: PageRecordV4,
    pub(super) kind: ContentKind,
}

impl From<PageRecordV5> for PageRecord {
    fn from(v5: PageRecordV5) -> Self {
        Self {
            kind: v5.kind,
            ..Self::from(v5.v4)
        }
    }
}

/// [`PageRecord`] as version 4 wrote it: no content kind (every page was HTML).
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct PageRecordV4 {
    pub(super) v3: PageRecordV3,
    pub(super) robots_header: RobotsDirectives,
    pub(super) change: u64,
}

impl From<PageRecordV4> for PageRecord {
    fn from(v4: PageRecordV4) -> Self {
        Self {
            robots_header: v4.robots_header,
            change: v4.change,
            ..Self::from(v4.v3)
        }
    }
}

/// [`PageRecord`] as version 3 wrote it: no header directives apart, no change number.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct PageRecordV3 {
    pub(super) v2: PageRecordV2,
    pub(super) canonical: Option<String>,
}

impl From<PageRecordV3> for PageRecord {
    fn from(v3: PageRecordV3) -> Self {
        Self {
            canonical: v3.canonical,
            ..Self::from(v3.v2)
        }
    }
}

/// [`PageRecord`] as version 2 wrote it: no canonical. Version 1's fields come first, and
/// postcard writes a struct as its fields one after the other, with no framing, so a nested
/// [`PageRecordV1`] reads them.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct PageRecordV2 {
    pub(super) v1: PageRecordV1,
    pub(super) keywords: String,
    pub(super) revisit_after_secs: Option<u64>,
    pub(super) aliases: Vec<String>,
}

/// [`PageRecord`] as version 1 wrote it: no keywords, revisit-after or aliases.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
pub(super) struct PageRecordV1 {
    pub(super) url: String,
    pub(super) final_url: String,
    pub(super) status: u16,
    pub(super) error: Option<String>,
    pub(super) truncated: bool,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: CompressedBody,
    pub(super) body_len: u64,
    pub(super) fetched_at_ms: u64,
    pub(super) content_hash: u64,
    pub(super) title: String,
    pub(super) description: String,
    pub(super) robots: RobotsDirectives,
    pub(super) depth: u32,
    pub(super) redirect_to: Option<String>,
    pub(super) duplicate_of: Option<String>,
}

impl From<PageRecordV1> for PageRecord {
    fn from(v1: PageRecordV1) -> Self {
        Self {
            url: v1.url,
            final_url: v1.final_url,
            status: v1.status,
            error: v1.error,
            truncated: v1.truncated,
            headers: v1.headers,
            body: v1.body,
            body_len: v1.body_len,
            fetched_at_ms: v1.fetched_at_ms,
            content_hash: v1.content_hash,
            title: v1.title,
            description: v1.description,
            robots: v1.robots,
            depth: v1.depth,
            redirect_to: v1.redirect_to,
            duplicate_of: v1.duplicate_of,
            keywords: String::new(),
            revisit_after_secs: None,
            aliases: Vec::new(),
            canonical: None,
            robots_header: RobotsDirectives::default(),
            change: 0,
            kind: ContentKind::Html,
            dates: None,
        }
    }
}

impl From<PageRecordV2> for PageRecord {
    fn from(v2: PageRecordV2) -> Self {
        Self {
            keywords: v2.keywords,
            revisit_after_secs: v2.revisit_after_secs,
            aliases: v2.aliases,
            ..Self::from(v2.v1)
        }
    }
}
