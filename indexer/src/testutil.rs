//! Test helpers: a real content store, written the way the crawler writes it.

#![allow(clippy::unwrap_used)] // test set-up fails loudly on purpose

use std::path::{Path, PathBuf};

use rocksdb::DB;
use shared::docplan::{PageKind, PageMeta};
use shared::record::{
    CompressedBody, CrawlCounters, Outlink, Outlinks, PageRecord, Record, RobotsDirectives,
};
use shared::store::{COUNTERS_KEY, Cf, MemoryBudget, open_options, store_dir};
use tempfile::TempDir;

/// A 200 page with `html` as its body; the content hash is the hash of the HTML.
pub fn page(url: &str, html: &str) -> PageRecord {
    PageRecord {
        url: url.into(),
        final_url: url.into(),
        status: 200,
        error: None,
        truncated: false,
        headers: vec![("content-type".into(), "text/html".into())],
        body: CompressedBody::compress(html),
        body_len: html.len() as u64,
        fetched_at_ms: 1_700_000_000_000,
        content_hash: if html.is_empty() {
            0
        } else {
            xxhash_rust::xxh3::xxh3_64(html.as_bytes())
        },
        title: String::new(),
        description: String::new(),
        robots: RobotsDirectives::default(),
        depth: 0,
        redirect_to: None,
        duplicate_of: None,
        keywords: String::new(),
        revisit_after_secs: None,
        aliases: Vec::new(),
        canonical: None,
        robots_header: RobotsDirectives::default(),
        change: 0,
        kind: shared::ContentKind::Html,
    }
}

/// The plan's view of a page: `kind`, with content hash `hash`, naming nothing.
pub fn meta(url: &str, kind: PageKind, hash: u64) -> PageMeta {
    PageMeta::new(url, kind, hash)
}

/// A followed link with anchor text.
pub fn link(target: &str, anchor: &str) -> Outlink {
    Outlink {
        target: target.into(),
        anchor: anchor.into(),
        nofollow: false,
    }
}

/// A data directory with a store open for writing, as the crawler holds it.
pub struct TestStore {
    _dir: Option<TempDir>,
    path: PathBuf,
    db: DB,
}

impl TestStore {
    /// An empty store in a new temporary data directory.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Self::at(dir.path());
        store._dir = Some(dir);
        store
    }

    /// An empty store in the data directory `data` (a partition's, say), which outlives it.
    pub fn at(data: &Path) -> Self {
        std::fs::create_dir_all(data).unwrap();
        let budget = MemoryBudget::default();
        let db = DB::open_cf_descriptors(
            &open_options(&budget),
            store_dir(data),
            Cf::descriptors(&budget),
        )
        .unwrap();
        Self {
            _dir: None,
            path: data.to_path_buf(),
            db,
        }
    }

    /// The data directory.
    pub fn data(&self) -> &Path {
        &self.path
    }

    /// Stores a page and its links (the crawler writes both in one batch), with the store's
    /// next change number, as the crawler does.
    pub fn put(&self, page: &PageRecord, links: &[Outlink]) {
        let mut batch = rocksdb::WriteBatch::default();
        let mut counters: CrawlCounters = self
            .db
            .get_cf(self.cf(Cf::Meta), COUNTERS_KEY)
            .unwrap()
            .map(|bytes| CrawlCounters::decode(&bytes).unwrap())
            .unwrap_or_default();
        let page = PageRecord {
            change: counters.take_change(),
            ..page.clone()
        };
        batch.put_cf(self.cf(Cf::Meta), COUNTERS_KEY, counters.encode());
        batch.put_cf(self.cf(Cf::Pages), page.url.as_bytes(), page.encode());
        batch.put_cf(
            self.cf(Cf::Outlinks),
            page.url.as_bytes(),
            Outlinks(links.to_vec()).encode(),
        );
        self.db.write(batch).unwrap();
    }

    /// A page with a title, its HTML made from `body_html`.
    pub fn put_html(
        &self,
        url: &str,
        title: &str,
        body_html: &str,
        links: &[Outlink],
    ) -> PageRecord {
        let html =
            format!("<html><head><title>{title}</title></head><body>{body_html}</body></html>");
        let mut record = page(url, &html);
        record.title = title.into();
        self.put(&record, links);
        record
    }

    fn cf(&self, cf: Cf) -> &rocksdb::ColumnFamily {
        shared::store::cf_handle(&self.db, cf)
    }
}
