//! `PageStore`: the crawler's handle on the content store, and its only writer.
//!
//! Every state change of one URL is one RocksDB `WriteBatch` (WAL on): the page record, its
//! outlinks, the frontier entries it adds, their seen-set entries, the removal of its own
//! frontier entry and the counters. A `kill -9` at any moment leaves either all of it or none.
//!
//! Failpoints (compiled in for the fault-injection tests only, see `tests/e2e/faults.rs`):
//! `crawler::store::commit_page::before_write` and `::after_write` around a page's batch,
//! `crawler::store::sitemap::before_write` (the URLs a sitemap lists),
//! `crawler::store::revisit::before_write` (a revisit answered 304),
//! `crawler::store::queue_revisits::before_write` (the due pages queued at the start of a run)
//! and `crawler::store::confirmed::before_write` (sent parcels their targets confirmed).
//! An injected error is a refused write ([`StoreError::Write`]).
//!
//! One file per job, all behind the one writer: [`commit`] a page's batch, [`queue`] the
//! frontier's persistent half, [`admission`] the trap rules at the door, [`near`] duplicate
//! lookups, [`revisits`] the re-crawl schedule, [`hosts`] halts and the robots cache,
//! [`partition`] a distributed crawl's partition (its claim and outbox), [`parcels`] the
//! links it sends and applies, and [`backup`] its backups and their restore. The
//! submodules add methods to [`PageStore`], and every one writes through this file's
//! `write` (or `written`), so a refused write always names the store.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rocksdb::{DB, WriteBatch};
use shared::record::{CrawlCounters, PageRecord, Record};
use shared::store::{
    COUNTERS_KEY, Cf, MemoryBudget, cf_handle, open_options, read_record, store_dir,
};
use shared::{CanonicalUrl, StoreError};

use crate::traps::TrapRules;

mod admission;
pub(crate) mod backup;
mod commit;
mod hosts;
mod near;
mod parcels;
mod partition;
#[cfg(test)]
mod partition_tests;
mod queue;
#[cfg(test)]
mod rendered_tests;
mod revisits;
#[cfg(test)]
mod tests;

pub(crate) use commit::PageCommit;
pub(crate) use near::{BeforeRender, CopyCheck, RenderClaim};
pub(crate) use parcels::{ArrivedParcel, Marks, SentCursor};
pub(crate) use partition::Fence;
pub(crate) use queue::QueuedUrl;
pub(crate) use shared::store::KindCommit;

/// The writable content store.
pub struct PageStore {
    /// Shared only with [`CopyCheck`]s, which hold it weakly: the store closes when dropped.
    db: Arc<DB>,
    /// `DATA/store`, named by write errors.
    path: PathBuf,
    counters: CrawlCounters,
    traps: TrapRules,
    /// URLs queued per origin (the budget's count), read from `meta` on first use.
    host_queued: HashMap<String, u64>,
    /// URLs kept out by each trap rule in this run.
    trapped: BTreeMap<&'static str, u64>,
    /// Trapped URLs recorded as skipped in this run (see [`admission::MAX_SKIP_RECORDS_PER_RUN`]).
    skips_recorded: u64,
    /// Frontier keys handed to a fetch and not done yet: they keep their place.
    handed_out: HashSet<Vec<u8>>,
    /// Per origin, a key at or below its first queued entry. A fetched entry's delete stays
    /// in RocksDB as a tombstone until compaction, and an iterator steps over every one: a
    /// refill that started at the origin's first key would step over every URL of the origin
    /// fetched so far, again at each refill. Lowered when a key is queued below it, raised to
    /// the first queued key each refill finds. (A cache: [`PageStore::queued_for`] reads.)
    queue_floor: RefCell<HashMap<String, Vec<u8>>>,
    /// As a partition of a distributed crawl: where other partitions' URLs go (`None`: a
    /// single-machine store, every URL is its own).
    route: Option<partition::Route>,
    /// The lease that must hold for a write (`None`: a single-machine store).
    fence: Option<Fence>,
    /// The next outbox sequence number, and the links waiting in the outbox.
    outbox_next: u64,
    outbox_len: u64,
    /// Whether parcels sent to other partitions wait for their confirmation (`sent`).
    unconfirmed: bool,
    /// Pages being rendered now, by variant key: shared with [`CopyCheck`]s, so copies
    /// fetched at once are rendered once.
    rendering: near::Rendering,
}

impl PageStore {
    /// Opens (creating if needed) `DATA/store` for writing, within the default
    /// [`MemoryBudget`]. Fails if another crawler has it.
    pub fn open(data: &Path) -> Result<Self, StoreError> {
        Self::open_within(data, &MemoryBudget::default())
    }

    /// Opens (creating if needed) `DATA/store` for writing, holding in memory what `budget`
    /// allows. Fails if another crawler has it.
    pub fn open_within(data: &Path, budget: &MemoryBudget) -> Result<Self, StoreError> {
        let path = store_dir(data);
        let db = DB::open_cf_descriptors(&open_options(budget), &path, Cf::descriptors(budget))
            .map_err(|source| StoreError::opening(path.clone(), source))?;
        let mut store = Self {
            db: Arc::new(db),
            path,
            counters: CrawlCounters::default(),
            traps: TrapRules::default(),
            host_queued: HashMap::new(),
            trapped: BTreeMap::new(),
            skips_recorded: 0,
            handed_out: HashSet::new(),
            queue_floor: RefCell::default(),
            route: None,
            fence: None,
            outbox_next: 1,
            outbox_len: 0,
            unconfirmed: false,
            rendering: near::Rendering::default(),
        };
        store.counters = store.get(Cf::Meta, COUNTERS_KEY)?.unwrap_or_default();
        Ok(store)
    }

    fn cf(&self, cf: Cf) -> &rocksdb::ColumnFamily {
        cf_handle(&self.db, cf)
    }

    fn get<R: Record>(&self, cf: Cf, key: &[u8]) -> Result<Option<R>, StoreError> {
        read_record(&self.db, cf, key)
    }

    /// Writes `batch`, all or nothing; a refusal (a full disk, an I/O error) names the store.
    /// As a partition, only while its lease holds ([`StoreError::LeaseLost`] otherwise).
    fn write(&self, batch: WriteBatch) -> Result<(), StoreError> {
        if let Some(fence) = &self.fence
            && !fence.holds()
        {
            return Err(StoreError::LeaseLost(self.path.clone()));
        }
        self.written(self.db.write(batch))
    }

    /// A write's result, its error naming the store.
    fn written(&self, result: Result<(), rocksdb::Error>) -> Result<(), StoreError> {
        result.map_err(|source| StoreError::writing(self.path.clone(), source))
    }

    /// The error a failpoint injects: a write refused at `point`.
    #[cfg(feature = "failpoints")]
    fn injected(&self, point: &str) -> StoreError {
        StoreError::Write {
            path: self.path.clone(),
            message: format!("injected fault at failpoint {point}"),
        }
    }

    /// Crawl-wide counters.
    pub fn counters(&self) -> &CrawlCounters {
        &self.counters
    }

    /// Whether a URL was ever queued.
    pub fn is_seen(&self, url: &CanonicalUrl) -> Result<bool, StoreError> {
        Ok(self
            .db
            .get_pinned_cf(self.cf(Cf::Seen), url.fingerprint().to_bytes())?
            .is_some())
    }

    /// A stored page.
    pub fn page(&self, url: &str) -> Result<Option<PageRecord>, StoreError> {
        self.get(Cf::Pages, url.as_bytes())
    }

    fn put_counters(&self, batch: &mut WriteBatch) {
        batch.put_cf(self.cf(Cf::Meta), COUNTERS_KEY, self.counters.encode());
    }

    /// Writes every column family's in-memory writes to sorted files. RocksDB keeps them in
    /// its write-ahead log until a memtable fills, and every later opener (the indexer,
    /// searchd, `crawler status`) replays that log before its first read: after a crawl of
    /// the Rust docs, 330 MB and 1.2 s per open. Called at the end of a crawl.
    pub fn flush(&self) -> Result<(), StoreError> {
        let families: Vec<_> = Cf::ALL.iter().map(|&cf| self.cf(cf)).collect();
        self.written(
            self.db
                .flush_cfs_opt(&families, &rocksdb::FlushOptions::default()),
        )
    }
}
