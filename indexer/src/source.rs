//! `Source`: the content store as the indexer reads it, and what kind of page each record is.
//!
//! The store is opened read-only ([`shared::StoreReader`]): a crawl may be writing it, and the
//! build sees the state at open time, the same in every pass. A record that does not decode is
//! skipped with a warning (one bad value must not stop the index), but a record written by a
//! newer format version stops the build: that store needs a newer indexer. A page's render
//! ([`RenderedWalk`]) is read beside the pages, in their order.

use std::path::Path;

use shared::record::{MediaRecord, Outlinks, PageImages, PageRecord, PartitionStamp, RenderedPage};
use shared::store::{ReadPattern, RenderedInOrder};
use shared::{RecordError, StoreError, StoreReader};
use tracing::warn;

use crate::Error;

/// A read-only snapshot of the content store.
pub struct Source {
    store: StoreReader,
}

impl Source {
    /// Opens `DATA/store` read-only, for one pass: a build reads each record once, so its
    /// reads keep next to nothing of the store in memory ([`ReadPattern::OnePass`]).
    pub fn open(data: &Path) -> Result<Self, Error> {
        let dir = shared::store::store_dir(data);
        if !dir.is_dir() {
            return Err(Error::NoStore(dir));
        }
        Ok(Self {
            store: StoreReader::open_for(data, ReadPattern::OnePass)?,
        })
    }

    /// Which partition of a distributed crawl the store is (`None`: a single-machine store,
    /// or a partition crawled by `crawler crawl`).
    pub fn partition_stamp(&self) -> Result<Option<PartitionStamp>, Error> {
        Ok(self.store.partition_stamp()?)
    }

    /// Every page, in URL order.
    pub fn pages(&self) -> impl Iterator<Item = Result<PageRecord, Error>> + '_ {
        self.store.pages().filter_map(lenient)
    }

    /// Every page's outlinks, keyed by the page's URL, in URL order.
    pub fn outlinks(&self) -> impl Iterator<Item = Result<(String, Outlinks), Error>> + '_ {
        self.store.all_outlinks().filter_map(lenient)
    }

    /// One page by URL (`None`: not stored, or its record does not decode).
    pub fn page(&self, url: &str) -> Result<Option<PageRecord>, Error> {
        lenient(self.store.page(url))
            .transpose()
            .map(Option::flatten)
    }

    /// The images one page shows (`None`: none, or its record does not decode).
    pub fn page_images(&self, url: &str) -> Result<Option<PageImages>, Error> {
        lenient(self.store.page_images(url))
            .transpose()
            .map(Option::flatten)
    }

    /// Every page's images, keyed by the page's URL, in URL order.
    pub fn all_page_images(
        &self,
    ) -> impl Iterator<Item = Result<(String, PageImages), Error>> + '_ {
        self.store.all_page_images().filter_map(lenient)
    }

    /// The renders of pages asked for in URL order, as [`Source::pages`] reads them.
    pub fn rendered_in_order(&self) -> RenderedWalk<'_> {
        RenderedWalk(self.store.rendered_in_order())
    }

    /// Every stored image's and PDF's media record, keyed by its URL, in URL order.
    pub fn media(&self) -> impl Iterator<Item = Result<(String, MediaRecord), Error>> + '_ {
        self.store.all_media().filter_map(lenient)
    }
}

/// What rendering found for pages asked in URL order: one walk over the `rendered` family
/// beside the pages (a store without renders costs one empty seek, not a lookup a page).
pub struct RenderedWalk<'a>(RenderedInOrder<'a>);

impl RenderedWalk<'_> {
    /// The render of `url` (not before a URL asked before); `None` also when its record does
    /// not decode (with a warning: the static page stands).
    pub fn get(&mut self, url: &str) -> Result<Option<RenderedPage>, Error> {
        lenient(self.0.get(url)).transpose().map(Option::flatten)
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
