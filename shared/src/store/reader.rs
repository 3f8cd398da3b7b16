//! [`StoreReader`]: the store opened read-only, for the indexer, searchd and the crawler's
//! inspection commands, and [`ReadPattern`], how it will be read, which decides what its reads
//! keep in memory.

use std::path::Path;

use rocksdb::{DB, IteratorMode, Options, ReadOptions};

use super::{
    COUNTERS_KEY, Cf, MemoryBudget, PARTITION_KEY, StoreError, halted_hosts, read_record, store_dir,
};
use crate::record::{
    CrawlCounters, FetchHistory, MediaRecord, Outlinks, PageImages, PageRecord, Record,
    RevisitRecord, RobotsRecord, SkipRecord, Thumbnail,
};

/// How a [`StoreReader`] will be read: what its block cache is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadPattern {
    /// Lookups of a few records, some asked for again (searchd's cached pages, thumbnails,
    /// status): blocks kept in the default [`MemoryBudget`]'s cache, 32 MiB.
    Lookups,
    /// Every record read once, in key order (a build, an export): a block read is not read
    /// again, so a scan keeps none, and lookups share a small cache
    /// ([`ReadPattern::ONE_PASS_CACHE_BYTES`]), where the tables' index and filter blocks go
    /// in at high priority (RocksDB's defaults) and outlast the data blocks. A build's memory
    /// then does not grow with the store: with the default cache, the blocks its passes read
    /// filled 32 MiB on a store of 52 MB.
    OnePass,
}

impl ReadPattern {
    /// The block cache of a one-pass reader: 8 MiB.
    pub const ONE_PASS_CACHE_BYTES: usize = 8 << 20;

    fn budget(self) -> MemoryBudget {
        match self {
            ReadPattern::Lookups => MemoryBudget::default(),
            ReadPattern::OnePass => MemoryBudget::new(
                Self::ONE_PASS_CACHE_BYTES,
                MemoryBudget::DEFAULT_WRITE_BUFFER_BYTES,
            ),
        }
    }

    /// Read options for a walk over a whole family.
    pub(super) fn scan_options(self) -> ReadOptions {
        let mut options = ReadOptions::default();
        options.fill_cache(self == ReadPattern::Lookups);
        options
    }
}

/// A read-only view of the store, for the indexer, searchd and the crawler's inspection
/// commands.
pub struct StoreReader {
    pub(super) db: DB,
    pub(super) pattern: ReadPattern,
}

impl StoreReader {
    /// Opens `DATA/store` read-only for [`ReadPattern::Lookups`]; works while a crawler is
    /// writing it (the view is the state at open time).
    pub fn open(data: &Path) -> Result<Self, StoreError> {
        Self::open_for(data, ReadPattern::Lookups)
    }

    /// Opens `DATA/store` read-only, its memory fitted to how it will be read.
    pub fn open_for(data: &Path, pattern: ReadPattern) -> Result<Self, StoreError> {
        let path = store_dir(data);
        if !path.join("CURRENT").is_file() {
            return Err(StoreError::Missing(path));
        }
        // A store written by an older build may lack newer families: open those it has.
        let existing =
            DB::list_cf(&Options::default(), &path).map_err(|source| StoreError::Db {
                path: path.clone(),
                source,
            })?;
        let budget = pattern.budget();
        let families = Cf::ALL
            .iter()
            .filter(|cf| existing.iter().any(|e| e == cf.name()))
            .map(|cf| cf.descriptor(&budget));
        let db = DB::open_cf_descriptors_read_only(&Options::default(), &path, families, false)
            .map_err(|source| StoreError::Db {
                path: path.clone(),
                source,
            })?;
        Ok(Self { db, pattern })
    }

    /// The handle of a family, `None` when the store lacks it: a store made by an older
    /// build, or one whose writer is creating it right now (a new store's families are made
    /// one after the other). A family the store lacks reads as empty.
    fn family(&self, cf: Cf) -> Option<&rocksdb::ColumnFamily> {
        self.db.cf_handle(cf.name())
    }

    /// One page by canonical URL.
    pub fn page(&self, url: &str) -> Result<Option<PageRecord>, StoreError> {
        self.get(Cf::Pages, url.as_bytes())
    }

    /// The links of one page.
    pub fn outlinks(&self, url: &str) -> Result<Option<Outlinks>, StoreError> {
        self.get(Cf::Outlinks, url.as_bytes())
    }

    /// The cached robots.txt answer of an origin (`scheme://host[:port]`).
    pub fn robots(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        self.get(Cf::Robots, origin.as_bytes())
    }

    /// The re-crawl schedule of a stored URL (`None` too for a store older than schedules).
    pub fn revisit(&self, url: &str) -> Result<Option<RevisitRecord>, StoreError> {
        self.get(Cf::Revisit, url.as_bytes())
    }

    /// Why a URL was dropped unfetched (`None`: it was not, or the store is older than
    /// these records).
    pub fn skipped(&self, url: &str) -> Result<Option<SkipRecord>, StoreError> {
        self.get(Cf::Skipped, url.as_bytes())
    }

    /// The last fetches of a URL, oldest first (empty: never fetched, or fetched only by a
    /// build older than histories).
    pub fn history(&self, url: &str) -> Result<FetchHistory, StoreError> {
        Ok(self.get(Cf::History, url.as_bytes())?.unwrap_or_default())
    }

    /// What a stored image or PDF was read to be (`None`: an HTML page, or a store older than
    /// content kinds).
    pub fn media(&self, url: &str) -> Result<Option<MediaRecord>, StoreError> {
        self.get(Cf::Media, url.as_bytes())
    }

    /// The thumbnail of the image whose bytes hash to `content_hash`.
    pub fn thumbnail(&self, content_hash: u64) -> Result<Option<Thumbnail>, StoreError> {
        self.get(Cf::Thumbs, &content_hash.to_be_bytes())
    }

    /// The images one page shows (`None`: none, or a store older than content kinds).
    pub fn page_images(&self, url: &str) -> Result<Option<PageImages>, StoreError> {
        self.get(Cf::Images, url.as_bytes())
    }

    /// Every stored image's and PDF's media record, keyed by its URL, in URL order.
    pub fn all_media(
        &self,
    ) -> Box<dyn Iterator<Item = Result<(String, MediaRecord), StoreError>> + '_> {
        Box::new(self.scan(Cf::Media))
    }

    /// Every page's images, keyed by the page's URL, in URL order.
    pub fn all_page_images(
        &self,
    ) -> Box<dyn Iterator<Item = Result<(String, PageImages), StoreError>> + '_> {
        Box::new(self.scan(Cf::Images))
    }

    /// Every URL dropped unfetched, with why, in URL order.
    pub fn all_skipped(
        &self,
    ) -> Box<dyn Iterator<Item = Result<(String, SkipRecord), StoreError>> + '_> {
        Box::new(self.scan(Cf::Skipped))
    }

    /// Origins halted by their circuit breaker, with why, in origin order.
    pub fn halted_hosts(&self) -> Result<Vec<(String, String)>, StoreError> {
        match self.family(Cf::Meta) {
            Some(_) => halted_hosts(&self.db),
            None => Ok(Vec::new()),
        }
    }

    /// Crawl counters (zero for a store never written).
    pub fn counters(&self) -> Result<CrawlCounters, StoreError> {
        Ok(self.get(Cf::Meta, COUNTERS_KEY)?.unwrap_or_default())
    }

    pub(super) fn get<R: Record>(&self, cf: Cf, key: &[u8]) -> Result<Option<R>, StoreError> {
        match self.family(cf) {
            Some(_) => read_record(&self.db, cf, key),
            None => Ok(None),
        }
    }

    /// Which partition of a distributed crawl this store is; `None` for a single-machine
    /// store.
    pub fn partition_stamp(&self) -> Result<Option<crate::record::PartitionStamp>, StoreError> {
        self.get(Cf::Meta, PARTITION_KEY)
    }

    /// Every page, in URL order.
    pub fn pages(&self) -> impl Iterator<Item = Result<PageRecord, StoreError>> + '_ {
        self.scan(Cf::Pages).map(|item| item.map(|(_, page)| page))
    }

    /// Every page's outlinks, keyed by the page's URL, in URL order.
    pub fn all_outlinks(
        &self,
    ) -> impl Iterator<Item = Result<(String, Outlinks), StoreError>> + '_ {
        self.scan(Cf::Outlinks)
    }

    /// Number of URLs waiting in the frontier.
    pub fn frontier_len(&self) -> usize {
        self.family(Cf::Frontier).map_or(0, |family| {
            self.db
                .iterator_cf_opt(family, self.pattern.scan_options(), IteratorMode::Start)
                .count()
        })
    }

    fn scan<R: Record>(
        &self,
        cf: Cf,
    ) -> impl Iterator<Item = Result<(String, R), StoreError>> + '_ {
        self.family(cf)
            .into_iter()
            .flat_map(|family| {
                self.db
                    .iterator_cf_opt(family, self.pattern.scan_options(), IteratorMode::Start)
            })
            .map(|item| {
                let (key, value) = item?;
                let key = String::from_utf8_lossy(&key).into_owned();
                Ok((key, R::decode(&value)?))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{cf_handle, open_options};

    /// A store whose writer has made only some of its families so far (they are made one
    /// after the other when a store is first opened), as a reader polling it may open it:
    /// what it lacks reads as empty, never a panic.
    #[test]
    fn a_store_being_created_reads_as_empty_where_it_lacks_families() {
        let data = tempfile::tempdir().expect("tempdir");
        let path = store_dir(data.path());
        let mut options = Options::default();
        options.create_if_missing(true);
        options.create_missing_column_families(true);
        let budget = MemoryBudget::default();
        let made_first = [Cf::Pages.descriptor(&budget)];
        drop(DB::open_cf_descriptors(&options, &path, made_first).expect("a store"));

        let store = StoreReader::open(data.path()).expect("opened read-only");
        assert_eq!(store.pages().count(), 0);
        assert_eq!(store.all_outlinks().count(), 0);
        assert_eq!(store.frontier_len(), 0);
        assert_eq!(store.counters().expect("read"), CrawlCounters::default());
        assert_eq!(store.halted_hosts().expect("read"), Vec::new());
        assert!(store.outlinks("http://a.test/").expect("read").is_none());
        assert!(store.history("http://a.test/").expect("read").0.is_empty());
        assert!(store.rendered("http://a.test/").expect("read").is_none());
    }

    /// A one-pass reader's walk over a family leaves no data block in its cache, where a
    /// lookups reader's keeps what it read: a build's memory does not grow with the store.
    #[test]
    fn a_one_pass_walk_keeps_no_block_in_the_cache() {
        let data = tempfile::tempdir().expect("tempdir");
        let budget = MemoryBudget::default();
        let db = DB::open_cf_descriptors(
            &open_options(&budget),
            store_dir(data.path()),
            Cf::descriptors(&budget),
        )
        .expect("a store");
        // 4 MiB of values that do not compress, flushed to a table file: a read-only store
        // reads its memtables from the log, not through the cache.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut noise = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()
        };
        let frontier = cf_handle(&db, Cf::Frontier);
        for key in 0..4096_u32 {
            let value: Vec<u8> = (0..128).flat_map(|_| noise()).collect();
            db.put_cf(frontier, key.to_be_bytes(), value).expect("put");
        }
        db.flush_cf(frontier).expect("flushed");
        drop(db);

        let cached = |reader: &StoreReader| {
            reader
                .db
                .property_int_value_cf(
                    cf_handle(&reader.db, Cf::Frontier),
                    "rocksdb.block-cache-usage",
                )
                .expect("a property")
                .expect("a block cache")
        };
        let one_pass = StoreReader::open_for(data.path(), ReadPattern::OnePass).expect("opened");
        assert_eq!(one_pass.frontier_len(), 4096);
        let lookups = StoreReader::open_for(data.path(), ReadPattern::Lookups).expect("opened");
        assert_eq!(lookups.frontier_len(), 4096);
        assert!(
            cached(&one_pass) < 256 << 10,
            "one pass keeps only index and filter blocks: {} bytes",
            cached(&one_pass)
        );
        assert!(
            cached(&lookups) > 3 << 20,
            "lookups keep the blocks read: {} bytes",
            cached(&lookups)
        );
    }
}
