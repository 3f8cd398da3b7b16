//! Test helpers: a real content store, written the way the crawler writes it.

#![allow(clippy::unwrap_used)] // test set-up fails loudly on purpose

use std::path::{Path, PathBuf};

use index_format::open_current;
use rocksdb::DB;
use shared::docplan::{DocId, DocPlan, PageKind, PageMeta};
use shared::record::{
    CompressedBody, CrawlCounters, ImageInfo, ImageRef, MediaRecord, Outlink, Outlinks, PageImages,
    PageRecord, Record, RenderedPage, RobotsDirectives,
};
use shared::store::{
    COUNTERS_KEY, Cf, KindCommit, MemoryBudget, PageRecords, open_options, store_dir,
};
use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{TantivyDocument, Term};
use tempfile::TempDir;

use crate::Error;
use crate::linkgraph::anchors::AnchorSpill;
use crate::linkgraph::{Inbound, LinkGraph, Linking};

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
        // As a page stored before the crawler read dates: those of its URL and headers.
        dates: None,
    }
}

/// A 200 image as the crawler stores one: no body, its facts in a media record.
pub fn image_page(url: &str) -> PageRecord {
    PageRecord {
        headers: vec![("content-type".into(), "image/png".into())],
        kind: shared::ContentKind::Image,
        ..page(url, "")
    }
}

/// A PNG of `width` x `height` with a thumbnail, its content hash `hash`.
pub fn png(width: u32, height: u32, hash: u64) -> ImageInfo {
    ImageInfo {
        format: "png".into(),
        width,
        height,
        bytes: u64::from(width * height / 4),
        jpeg_quality: None,
        content_hash: hash,
        thumbnail: true,
        problem: None,
    }
}

/// An image shown on a page.
pub fn shows(url: &str, alt: &str, context: &str) -> ImageRef {
    ImageRef {
        url: url.into(),
        alt: alt.into(),
        title: String::new(),
        context: context.into(),
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

/// A link graph read in a temporary directory of its own, its anchor texts spilled there
/// past [`GRAPH_BUDGET`] (small: the tests read them back from runs).
pub struct TestGraph {
    pub graph: LinkGraph,
    _dir: TempDir,
}

/// The anchor texts a [`TestGraph`] holds in memory while reading links, in bytes.
pub const GRAPH_BUDGET: usize = 4096;

impl TestGraph {
    /// The graph of `plan` from its pages' `outlinks`.
    pub fn build(
        plan: &DocPlan,
        outlinks: impl IntoIterator<Item = Result<(String, Outlinks), Error>>,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let spill = AnchorSpill {
            dir: dir.path(),
            budget: GRAPH_BUDGET,
        };
        let graph = LinkGraph::build(plan, outlinks, spill).unwrap();
        Self { graph, _dir: dir }
    }

    /// The graph of `plan` from local and remote `sources` (see [`LinkGraph::build_from`]).
    pub fn build_from(
        plan: &DocPlan,
        sources: impl IntoIterator<Item = Result<(String, Linking), Error>>,
        remote_degree: &[u32],
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let spill = AnchorSpill {
            dir: dir.path(),
            budget: GRAPH_BUDGET,
        };
        let graph = LinkGraph::build_from(plan, sources, remote_degree, spill).unwrap();
        Self { graph, _dir: dir }
    }

    /// What links say of `doc`.
    pub fn inbound(&mut self, doc: DocId) -> Inbound {
        self.graph.inbound(doc).unwrap()
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

    /// The document of the built index filed under `url`, if any (one at most: a URL is one
    /// document).
    pub fn indexed_doc(&self, url: &str) -> Option<TantivyDocument> {
        let current = open_current(self.data()).unwrap().unwrap();
        let searcher = current.index.reader().unwrap().searcher();
        let query = TermQuery::new(
            Term::from_field_text(current.fields.url, url),
            IndexRecordOption::Basic,
        );
        let hits = searcher
            .search(&query, &TopDocs::with_limit(2).order_by_score())
            .unwrap();
        assert!(hits.len() <= 1, "one document per URL: {url}");
        hits.first()
            .map(|(_, address)| searcher.doc(*address).unwrap())
    }

    /// Stores a page and its links (the crawler writes both in one batch), with the store's
    /// next change number, as the crawler does; like the crawler's page write, it removes
    /// the media, images and render records a page stored before had.
    pub fn put(&self, page: &PageRecord, links: &[Outlink]) {
        self.put_records(page, links, KindCommit::default(), None);
    }

    /// Stores an image's page record and its media record, in one batch.
    pub fn put_image(&self, page: &PageRecord, info: &ImageInfo) {
        let media = MediaRecord::Image(info.clone());
        let kind = KindCommit {
            media: Some(&media),
            ..KindCommit::default()
        };
        self.put_records(page, &[], kind, None);
    }

    /// [`TestStore::put_html`] for a page showing `images` (its `images` record in the same
    /// batch).
    pub fn put_html_showing(
        &self,
        url: &str,
        title: &str,
        links: &[Outlink],
        images: &[ImageRef],
    ) -> PageRecord {
        let html =
            format!("<html><head><title>{title}</title></head><body><p>{title}</p></body></html>");
        let mut record = page(url, &html);
        record.title = title.into();
        let shown = PageImages(images.to_vec());
        let kind = KindCommit {
            images: Some(&shown),
            ..KindCommit::default()
        };
        self.put_records(&record, links, kind, None);
        record
    }

    /// Stores a page, its links and what rendering it found in one batch, as the crawler's
    /// page write does: `None` removes a render stored before.
    pub fn put_rendered(
        &self,
        page: &PageRecord,
        links: &[Outlink],
        rendered: Option<&RenderedPage>,
    ) {
        self.put_records(page, links, KindCommit::default(), rendered);
    }

    /// Writes a page's records through the crawler's own page write
    /// ([`PageRecords::put`]), with the store's next change number and counters.
    fn put_records(
        &self,
        page: &PageRecord,
        links: &[Outlink],
        kind: KindCommit<'_>,
        rendered: Option<&RenderedPage>,
    ) {
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
        let stored_before = self
            .db
            .get_pinned_cf(self.cf(Cf::Pages), page.url.as_bytes())
            .unwrap()
            .is_some();
        PageRecords {
            page: &page,
            outlinks: &Outlinks(links.to_vec()),
            kind,
            rendered,
        }
        .put(&self.db, &mut batch, stored_before)
        .unwrap();
        batch.put_cf(self.cf(Cf::Meta), COUNTERS_KEY, counters.encode());
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
