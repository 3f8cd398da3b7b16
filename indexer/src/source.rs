//! `Source`: the content store as the indexer reads it, and what kind of page each record is.
//!
//! The store is opened read-only ([`shared::StoreReader`]): a crawl may be writing it, and the
//! build sees the state at open time, the same in every pass. A record that does not decode is
//! skipped with a warning (one bad value must not stop the index), but a record written by a
//! newer format version stops the build: that store needs a newer indexer.

use std::path::Path;

use shared::record::{Outlinks, PageRecord};
use shared::{RecordError, StoreError, StoreReader};
use tracing::warn;

use crate::Error;

/// What the indexer does with a stored page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageKind {
    /// A 2xx page with a body: it becomes a document (or joins one: a duplicate, or a page
    /// whose `rel=canonical` names a page of it).
    Indexable,
    /// A page that asked not to be indexed (robots META or `X-Robots-Tag`).
    NoIndex,
    /// A redirect, a non-2xx answer, a failed fetch or an empty body.
    Skipped,
}

impl PageKind {
    /// Classifies a stored page.
    pub fn of(page: &PageRecord) -> Self {
        if page.redirect_to.is_some() || page.error.is_some() || !page.is_html_page() {
            PageKind::Skipped
        } else if page.robots.noindex {
            PageKind::NoIndex
        } else {
            PageKind::Indexable
        }
    }
}

/// What the plan and the link graph need of a page: everything but its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageMeta {
    /// Canonical URL (the store key).
    pub url: String,
    /// What the indexer does with it.
    pub kind: PageKind,
    /// Hash of its normalized text (0: none).
    pub content_hash: u64,
    /// For a redirect: its target.
    pub redirect_to: Option<String>,
    /// The crawler found another page with the same text first.
    pub duplicate_of: Option<String>,
    /// The URL the page asks to be indexed as (`rel=canonical`; never its own).
    pub canonical: Option<String>,
    /// The page asked that its links not be followed or counted.
    pub nofollow: bool,
}

impl From<&PageRecord> for PageMeta {
    fn from(page: &PageRecord) -> Self {
        Self {
            url: page.url.clone(),
            kind: PageKind::of(page),
            content_hash: page.content_hash,
            redirect_to: page.redirect_to.clone(),
            duplicate_of: page.duplicate_of.clone(),
            canonical: page.canonical.clone(),
            nofollow: page.robots.nofollow,
        }
    }
}

/// A read-only snapshot of the content store.
pub struct Source {
    store: StoreReader,
}

impl Source {
    /// Opens `DATA/store` read-only.
    pub fn open(data: &Path) -> Result<Self, Error> {
        let dir = shared::store::store_dir(data);
        if !dir.is_dir() {
            return Err(Error::NoStore(dir));
        }
        Ok(Self {
            store: StoreReader::open(data)?,
        })
    }

    /// Every page, in URL order.
    pub fn pages(&self) -> impl Iterator<Item = Result<PageRecord, Error>> + '_ {
        self.store.pages().filter_map(lenient)
    }

    /// Every page's outlinks, keyed by the page's URL, in URL order.
    pub fn outlinks(&self) -> impl Iterator<Item = Result<(String, Outlinks), Error>> + '_ {
        self.store.all_outlinks().filter_map(lenient)
    }
}

/// Passes good records and fatal errors on; drops (with a warning) records that do not decode.
fn lenient<T>(item: Result<T, StoreError>) -> Option<Result<T, Error>> {
    match item {
        Ok(value) => Some(Ok(value)),
        Err(StoreError::Record(error @ RecordError::UnknownVersion { .. })) => {
            Some(Err(error.into()))
        }
        Err(StoreError::Record(error)) => {
            warn!(%error, "skipping a stored record that does not decode");
            None
        }
        Err(error) => Some(Err(error.into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::page;

    #[test]
    fn kinds() {
        assert_eq!(
            PageKind::of(&page("http://a.test/", "<p>x</p>")),
            PageKind::Indexable
        );

        let mut noindex = page("http://a.test/", "<p>x</p>");
        noindex.robots.noindex = true;
        assert_eq!(PageKind::of(&noindex), PageKind::NoIndex);

        let mut missing = page("http://a.test/", "<p>x</p>");
        missing.status = 404;
        assert_eq!(PageKind::of(&missing), PageKind::Skipped);

        let empty = page("http://a.test/", "");
        assert_eq!(PageKind::of(&empty), PageKind::Skipped);

        let mut redirect = page("http://a.test/", "");
        redirect.status = 301;
        redirect.redirect_to = Some("http://a.test/b".into());
        assert_eq!(PageKind::of(&redirect), PageKind::Skipped);
    }
}
