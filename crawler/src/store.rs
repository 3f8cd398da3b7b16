//! `PageStore`: the crawler's handle on the content store, and its only writer.
//!
//! Every state change of one URL is one RocksDB `WriteBatch` (WAL on): the page record, its
//! outlinks, the frontier entries it adds, their seen-set entries, the removal of its own
//! frontier entry and the counters. A `kill -9` at any moment leaves either all of it or none.
//!
//! Failpoints (compiled in for the fault-injection tests only, see `tests/e2e/faults.rs`):
//! `crawler::store::commit_page::before_write` and `::after_write` around a page's batch,
//! `crawler::store::sitemap::before_write` (the URLs a sitemap lists),
//! `crawler::store::revisit::before_write` (a revisit answered 304) and
//! `crawler::store::queue_revisits::before_write` (the due pages queued at the start of a run).
//! An injected error is a refused write ([`StoreError::Write`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rocksdb::{DB, Direction, IteratorMode, ReadOptions, WriteBatch};
use shared::fail_point;
use shared::record::{
    CrawlCounters, EntryKind, FetchEvent, FetchHistory, FrontierEntry, Outlinks, PageRecord,
    Record, RevisitRecord, RobotsRecord, SkipReason, SkipRecord,
};
use shared::store::{
    COUNTERS_KEY, Cf, HALTED_PREFIX, HOST_QUEUED_PREFIX, MemoryBudget, PATH_QUERIES_PREFIX,
    QueuePosition, cf_handle, frontier_key, frontier_key_origin, frontier_origin_range, meta_key,
    open_options, read_record, store_dir,
};
use shared::{CanonicalUrl, StoreError};
use tracing::debug;
use xxhash_rust::xxh3::xxh3_64;

use crate::traps::{TrapRule, TrapRules};
use shared::simhash;

/// Index entries read per simhash block when looking for a near-duplicate: a bound on the
/// work of one lookup (a block value shared by this many pages is noise, not a match).
const NEAR_CANDIDATES: usize = 512;

/// A frontier entry with its key.
#[derive(Clone, Debug)]
pub struct QueuedUrl {
    /// The key in the `frontier` column family.
    pub key: Vec<u8>,
    /// The entry.
    pub entry: FrontierEntry,
    /// The key it had before it moved up its queue (found again, see
    /// [`FrontierEntry::rank`]); `None` for a URL queued for the first time.
    pub replaces: Option<Vec<u8>>,
}

/// The result of fetching one URL, written at once.
pub struct PageCommit<'a> {
    /// The frontier key of the URL that was fetched.
    pub done: &'a [u8],
    /// The record to store; its [`PageRecord::change`] number is set here.
    pub page: &'a mut PageRecord,
    /// Its links.
    pub outlinks: &'a Outlinks,
    /// Links to queue (already filtered by scope and depth; unseen ones are queued).
    pub discovered: Vec<(CanonicalUrl, FrontierEntry)>,
    /// The page's next visit.
    pub revisit: &'a RevisitRecord,
    /// The simhash of its main text, indexed for near-duplicate detection when the page is
    /// an original.
    pub simhash: Option<u64>,
    /// Failed fetches of the URL before this one ([`FrontierEntry::attempts`]): the history
    /// holds them, so it is read even for a URL stored for the first time.
    pub failed_before: u8,
}

/// URLs kept out by trap rules that one run records with their reason (the counts in
/// [`PageStore::trapped`] go on): a trap can make links without end, the store must not.
pub const MAX_SKIP_RECORDS_PER_RUN: u64 = 100_000;

/// The writable content store.
pub struct PageStore {
    db: DB,
    /// `DATA/store`, named by write errors.
    path: PathBuf,
    counters: CrawlCounters,
    traps: TrapRules,
    /// URLs queued per origin (the budget's count), read from `meta` on first use.
    host_queued: HashMap<String, u64>,
    /// URLs kept out by each trap rule in this run.
    trapped: BTreeMap<&'static str, u64>,
    /// Trapped URLs recorded as skipped in this run (see [`MAX_SKIP_RECORDS_PER_RUN`]).
    skips_recorded: u64,
    /// Frontier keys handed to a fetch and not done yet: they keep their place.
    handed_out: HashSet<Vec<u8>>,
    /// Per origin, a key at or below its first queued entry. A fetched entry's delete stays
    /// in RocksDB as a tombstone until compaction, and an iterator steps over every one: a
    /// refill that started at the origin's first key would step over every URL of the origin
    /// fetched so far, again at each refill. Lowered when a key is queued below it, raised to
    /// the first queued key each refill finds. (A cache: [`PageStore::queued_for`] reads.)
    queue_floor: RefCell<HashMap<String, Vec<u8>>>,
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
            db,
            path,
            counters: CrawlCounters::default(),
            traps: TrapRules::default(),
            host_queued: HashMap::new(),
            trapped: BTreeMap::new(),
            skips_recorded: 0,
            handed_out: HashSet::new(),
            queue_floor: RefCell::default(),
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
    fn write(&self, batch: WriteBatch) -> Result<(), StoreError> {
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

    /// Sets the trap rules new URLs must pass to be queued.
    pub fn set_trap_rules(&mut self, traps: TrapRules) {
        self.traps = traps;
    }

    /// URLs kept out by each trap rule in this run, by rule name.
    pub fn trapped(&self) -> &BTreeMap<&'static str, u64> {
        &self.trapped
    }

    /// Counts `count` URLs kept out by `rule` before they reached the store (links too long
    /// to be URLs at all).
    pub fn note_trapped(&mut self, rule: TrapRule, count: u64) {
        if count > 0 {
            *self.trapped.entry(rule.name()).or_default() += count;
            // Kept for `crawler status`, written with the next counters.
            *self
                .counters
                .trapped
                .entry(rule.name().to_string())
                .or_default() += count;
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

    /// The stored page a page duplicates, other than `except` (the page itself, on a
    /// revisit): the first stored with the same `text_hash`, else one whose simhash is within
    /// [`simhash::NEAR_DISTANCE`] bits of `near`'s and whose title is similar (`near` is the
    /// page's simhash and title, when its text is long enough to have one).
    pub fn content_owner(
        &self,
        text_hash: u64,
        near: Option<(u64, &str)>,
        except: &str,
    ) -> Result<Option<String>, StoreError> {
        let exact = self
            .db
            .get_pinned_cf(self.cf(Cf::Content), text_hash.to_be_bytes())?
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .filter(|owner| owner != except);
        match (exact, near) {
            (Some(owner), _) => Ok(Some(owner)),
            (None, Some((hash, title))) => self.near_owner(hash, title, except),
            (None, None) => Ok(None),
        }
    }

    /// A stored page whose simhash is near `hash` and whose title is similar: candidates
    /// share one of its blocks. Index values are `url \0 title`.
    fn near_owner(
        &self,
        hash: u64,
        title: &str,
        except: &str,
    ) -> Result<Option<String>, StoreError> {
        // One iterator for every block: creating one is most of a short scan's cost.
        let mut candidates = self.db.raw_iterator_cf(self.cf(Cf::Near));
        for key in simhash::block_keys(hash) {
            let prefix = &key[..3];
            candidates.seek(prefix);
            for _ in 0..NEAR_CANDIDATES {
                let (Some(key), Some(value)) = (candidates.key(), candidates.value()) else {
                    break;
                };
                if !key.starts_with(prefix) {
                    break;
                }
                if simhash::hash_of_key(key).is_some_and(|other| simhash::is_near(hash, other)) {
                    let (url, other_title) = match value.iter().position(|&b| b == 0) {
                        Some(nul) => (&value[..nul], &value[nul + 1..]),
                        None => (value, &[][..]),
                    };
                    if url != except.as_bytes()
                        && simhash::similar_titles(title, &String::from_utf8_lossy(other_title))
                    {
                        return Ok(Some(String::from_utf8_lossy(url).into_owned()));
                    }
                }
                candidates.next();
            }
            candidates.status()?;
        }
        Ok(None)
    }

    /// Queues URLs that were never seen (seeds, sitemap URLs); returns what was queued.
    pub fn enqueue(
        &mut self,
        urls: Vec<(CanonicalUrl, FrontierEntry)>,
    ) -> Result<Vec<QueuedUrl>, StoreError> {
        let mut batch = WriteBatch::default();
        let queued = self.queue_unseen(&mut batch, urls)?;
        self.put_counters(&mut batch);
        self.write(batch)?;
        Ok(queued)
    }

    /// Writes one fetched page and everything it changes; returns the newly queued URLs.
    pub fn commit_page(&mut self, commit: PageCommit<'_>) -> Result<Vec<QueuedUrl>, StoreError> {
        let mut batch = WriteBatch::default();
        commit.page.change = self.counters.take_change();
        let key = commit.page.url.as_bytes();
        let is_new = self.db.get_pinned_cf(self.cf(Cf::Pages), key)?.is_none();
        batch.put_cf(self.cf(Cf::Pages), key, commit.page.encode());
        // A URL stored for the first time has no history to read unless its failed attempts
        // wrote one: a first crawl pays no extra read per page.
        let earlier = if is_new && commit.failed_before == 0 {
            FetchHistory::default()
        } else {
            self.history(&commit.page.url)?
        };
        self.add_to_history(
            &mut batch,
            &commit.page.url,
            earlier,
            FetchEvent::of(commit.page),
        );
        batch.put_cf(self.cf(Cf::Outlinks), key, commit.outlinks.encode());
        if commit.page.is_html_page() && commit.page.duplicate_of.is_none() {
            batch.put_cf(
                self.cf(Cf::Content),
                commit.page.content_hash.to_be_bytes(),
                key,
            );
            let mut value = key.to_vec();
            value.push(0);
            value.extend_from_slice(commit.page.title.as_bytes());
            for near_key in commit.simhash.iter().flat_map(|&h| simhash::block_keys(h)) {
                batch.put_cf(self.cf(Cf::Near), near_key, &value);
            }
        }
        batch.put_cf(self.cf(Cf::Revisit), key, commit.revisit.encode());
        let queued = self.queue_unseen(&mut batch, commit.discovered)?;
        // After the links: a link to the page itself must not find its entry waiting.
        self.done(&mut batch, commit.done, Some(&commit.page.url));
        if is_new {
            self.counters.pages_stored += 1;
        }
        self.counters.frontier_len = self.counters.frontier_len.saturating_sub(1);
        self.put_counters(&mut batch);
        fail_point!("crawler::store::commit_page::before_write", |_| Err(
            self.injected("crawler::store::commit_page::before_write")
        ));
        self.write(batch)?;
        fail_point!("crawler::store::commit_page::after_write", |_| Err(
            self.injected("crawler::store::commit_page::after_write")
        ));
        Ok(queued)
    }

    /// Ends a frontier entry that stores no page: a revisit answered 304 (`revisit` is its
    /// new schedule; the stored copy stays as it is) or a sitemap (its URLs are `discovered`).
    pub fn commit_done(
        &mut self,
        done: &[u8],
        revisit: Option<(&str, &RevisitRecord)>,
        discovered: Vec<(CanonicalUrl, FrontierEntry)>,
    ) -> Result<Vec<QueuedUrl>, StoreError> {
        let mut batch = WriteBatch::default();
        if let Some((url, record)) = revisit {
            batch.put_cf(self.cf(Cf::Revisit), url.as_bytes(), record.encode());
            let event = FetchEvent {
                at_ms: shared::now_ms(),
                status: 304,
                error: None,
                content_hash: record.content_hash,
            };
            let earlier = self.history(url)?;
            self.add_to_history(&mut batch, url, earlier, event);
        }
        let queued = self.queue_unseen(&mut batch, discovered)?;
        self.done(&mut batch, done, revisit.map(|(url, _)| url));
        self.counters.frontier_len = self.counters.frontier_len.saturating_sub(1);
        self.put_counters(&mut batch);
        fail_point!(
            "crawler::store::revisit::before_write",
            revisit.is_some(),
            |_| Err(self.injected("crawler::store::revisit::before_write"))
        );
        fail_point!(
            "crawler::store::sitemap::before_write",
            revisit.is_none(),
            |_| Err(self.injected("crawler::store::sitemap::before_write"))
        );
        self.write(batch)?;
        Ok(queued)
    }

    /// A URL's fetches so far (empty for one never fetched).
    pub(crate) fn history(&self, url: &str) -> Result<FetchHistory, StoreError> {
        Ok(self.get(Cf::History, url.as_bytes())?.unwrap_or_default())
    }

    /// Writes `history` with `event` added in `batch`.
    fn add_to_history(
        &self,
        batch: &mut WriteBatch,
        url: &str,
        mut history: FetchHistory,
        event: FetchEvent,
    ) {
        history.push(event);
        batch.put_cf(self.cf(Cf::History), url.as_bytes(), history.encode());
    }

    /// A fetch of the queued entry `key` failed and will be tried again: the entry, its
    /// attempt count raised, moves behind every URL of its origin that has not failed (see
    /// [`FrontierEntry::rank`]), and the failure joins the URL's fetch history, in one batch.
    /// Returns its new key.
    pub fn requeue(
        &mut self,
        key: &[u8],
        entry: &FrontierEntry,
        url: &CanonicalUrl,
        failure: FetchEvent,
    ) -> Result<Vec<u8>, StoreError> {
        self.handed_out.remove(key);
        let position = QueuePosition {
            rank: entry.rank(),
            seq: self.counters.next_seq,
        };
        self.counters.next_seq += 1;
        let new_key = frontier_key(&url.origin(), position);
        let mut batch = WriteBatch::default();
        batch.delete_cf(self.cf(Cf::Frontier), key);
        batch.put_cf(self.cf(Cf::Frontier), &new_key, entry.encode());
        if entry.kind != EntryKind::Revisit {
            // Links to it find its entry by this position (a revisit's URL is done: none).
            batch.put_cf(
                self.cf(Cf::Seen),
                url.fingerprint().to_bytes(),
                position.to_bytes(),
            );
        }
        let earlier = self.history(url.as_str())?;
        self.add_to_history(&mut batch, url.as_str(), earlier, failure);
        self.put_counters(&mut batch);
        self.written(self.db.write(batch))?;
        Ok(new_key)
    }

    /// A queued entry goes to a fetch: it keeps its key until it is done.
    pub fn hand_out(&mut self, key: &[u8]) {
        self.handed_out.insert(key.to_vec());
    }

    /// Ends the frontier entry `key` in `batch`; `url` (its URL, when known) no longer
    /// waits, so links to it stop looking for its entry. Call it after anything else the
    /// batch queues: until then the entry counts as handed out and cannot move.
    fn done(&mut self, batch: &mut WriteBatch, key: &[u8], url: Option<&str>) {
        batch.delete_cf(self.cf(Cf::Frontier), key);
        self.handed_out.remove(key);
        if let Some(url) = url.and_then(|u| CanonicalUrl::parse(u).ok()) {
            batch.put_cf(self.cf(Cf::Seen), url.fingerprint().to_bytes(), []);
        }
    }

    /// The re-crawl schedule of a stored URL.
    pub fn revisit(&self, url: &str) -> Result<Option<RevisitRecord>, StoreError> {
        self.get(Cf::Revisit, url.as_bytes())
    }

    /// Queues every stored page whose next visit is due at `now_ms` (and is not queued
    /// already) as a [`EntryKind::Revisit`] entry; returns how many.
    pub fn queue_due_revisits(&mut self, now_ms: u64) -> Result<u64, StoreError> {
        let mut due = Vec::new();
        for item in self
            .db
            .iterator_cf(self.cf(Cf::Revisit), IteratorMode::Start)
        {
            let (url, value) = item?;
            let record = RevisitRecord::decode(&value)?;
            if record.due_ms <= now_ms && !record.queued {
                due.push((String::from_utf8_lossy(&url).into_owned(), record));
            }
        }
        let count = due.len() as u64;
        for chunk in due.chunks(10_000) {
            let mut batch = WriteBatch::default();
            for (url, record) in chunk {
                let Ok(canonical) = CanonicalUrl::parse(url) else {
                    continue;
                };
                let entry = FrontierEntry {
                    kind: EntryKind::Revisit,
                    ..FrontierEntry::page(url.clone(), record.depth)
                };
                let position = QueuePosition {
                    rank: entry.rank(),
                    seq: self.counters.next_seq,
                };
                let key = frontier_key(&canonical.origin(), position);
                self.counters.next_seq += 1;
                self.counters.frontier_len += 1;
                batch.put_cf(self.cf(Cf::Frontier), &key, entry.encode());
                self.lower_floor(&key);
                let queued = RevisitRecord {
                    queued: true,
                    ..record.clone()
                };
                batch.put_cf(self.cf(Cf::Revisit), url.as_bytes(), queued.encode());
            }
            self.put_counters(&mut batch);
            fail_point!("crawler::store::queue_revisits::before_write", |_| Err(
                self.injected("crawler::store::queue_revisits::before_write")
            ));
            self.write(batch)?;
        }
        Ok(count)
    }

    /// Removes a URL from the frontier without fetching it (robots.txt, scope ...). A
    /// revisit dropped this way is due again one interval later.
    pub fn drop_queued(
        &mut self,
        key: &[u8],
        entry: &FrontierEntry,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        self.skip_queued(key, entry, None, now_ms)
    }

    /// [`PageStore::drop_queued`], recording why (`reason`) in the same write, for
    /// `crawler explain` and `crawler report`.
    pub fn skip_queued(
        &mut self,
        key: &[u8],
        entry: &FrontierEntry,
        reason: Option<SkipReason>,
        now_ms: u64,
    ) -> Result<(), StoreError> {
        let mut batch = WriteBatch::default();
        self.done(&mut batch, key, Some(&entry.url));
        if let Some(reason) = reason {
            let record = SkipRecord {
                reason,
                at_ms: now_ms,
            };
            batch.put_cf(self.cf(Cf::Skipped), entry.url.as_bytes(), record.encode());
        }
        if entry.kind == EntryKind::Revisit
            && let Some(record) = self.revisit(&entry.url)?
        {
            let next = RevisitRecord {
                queued: false,
                due_ms: now_ms.saturating_add(record.interval_ms),
                ..record
            };
            batch.put_cf(self.cf(Cf::Revisit), entry.url.as_bytes(), next.encode());
        }
        self.counters.frontier_len = self.counters.frontier_len.saturating_sub(1);
        self.put_counters(&mut batch);
        self.write(batch)?;
        Ok(())
    }

    fn queue_unseen(
        &mut self,
        batch: &mut WriteBatch,
        urls: Vec<(CanonicalUrl, FrontierEntry)>,
    ) -> Result<Vec<QueuedUrl>, StoreError> {
        let mut queued = Vec::new();
        let mut in_batch = std::collections::HashSet::new();
        let mut path_queries: HashMap<Vec<u8>, u32> = HashMap::new();
        for (url, entry) in urls {
            let fingerprint = url.fingerprint().to_bytes();
            if !in_batch.insert(fingerprint) {
                continue;
            }
            let seen = self
                .db
                .get_pinned_cf(self.cf(Cf::Seen), fingerprint)?
                .map(|value| QueuePosition::from_bytes(&value));
            if let Some(waiting) = seen {
                if entry.kind == EntryKind::Page
                    && let Some(position) = waiting
                    && let Some(moved) =
                        self.found_again(batch, &url, fingerprint, position, &entry)?
                {
                    queued.push(moved);
                }
                continue;
            }
            if entry.kind == EntryKind::Page
                && let Err(rule) = self.admit(batch, &url, &mut path_queries)?
            {
                debug!(%url, rule = rule.name(), "not queued: trap rule");
                self.note_trapped(rule, 1);
                if self.skips_recorded < MAX_SKIP_RECORDS_PER_RUN {
                    self.skips_recorded += 1;
                    let record = SkipRecord {
                        reason: rule.skip_reason(),
                        at_ms: shared::now_ms(),
                    };
                    batch.put_cf(
                        self.cf(Cf::Skipped),
                        url.as_str().as_bytes(),
                        record.encode(),
                    );
                }
                continue;
            }
            let position = QueuePosition {
                rank: entry.rank(),
                seq: self.counters.next_seq,
            };
            let key = frontier_key(&url.origin(), position);
            self.counters.next_seq += 1;
            self.counters.frontier_len += 1;
            batch.put_cf(self.cf(Cf::Seen), fingerprint, position.to_bytes());
            batch.put_cf(self.cf(Cf::Frontier), &key, entry.encode());
            self.lower_floor(&key);
            queued.push(QueuedUrl {
                key,
                entry,
                replaces: None,
            });
        }
        Ok(queued)
    }

    /// A URL found again while it waits at `position`: its entry counts one more in-link
    /// and keeps the shallower depth of the two. When that raises its rank it moves up its
    /// queue (same sequence number, new key), unless a fetch of it is under way; the moved
    /// entry is returned so the in-memory queue can follow.
    fn found_again(
        &self,
        batch: &mut WriteBatch,
        url: &CanonicalUrl,
        fingerprint: [u8; 16],
        position: QueuePosition,
        found: &FrontierEntry,
    ) -> Result<Option<QueuedUrl>, StoreError> {
        let origin = url.origin();
        let key = frontier_key(&origin, position);
        if self.handed_out.contains(&key) {
            return Ok(None);
        }
        let Some(mut entry) = self.get::<FrontierEntry>(Cf::Frontier, &key)? else {
            // Done by a run that did not clear its position: clear it now.
            batch.put_cf(self.cf(Cf::Seen), fingerprint, []);
            return Ok(None);
        };
        if entry.kind != EntryKind::Page {
            return Ok(None);
        }
        entry.inlinks = entry.inlinks.saturating_add(1);
        entry.depth = entry.depth.min(found.depth);
        let raised = QueuePosition {
            rank: entry.rank(),
            seq: position.seq,
        };
        if raised.rank >= position.rank {
            batch.put_cf(self.cf(Cf::Frontier), &key, entry.encode());
            return Ok(None);
        }
        let new_key = frontier_key(&origin, raised);
        batch.delete_cf(self.cf(Cf::Frontier), &key);
        batch.put_cf(self.cf(Cf::Frontier), &new_key, entry.encode());
        self.lower_floor(&new_key);
        batch.put_cf(self.cf(Cf::Seen), fingerprint, raised.to_bytes());
        Ok(Some(QueuedUrl {
            key: new_key,
            entry,
            replaces: Some(key),
        }))
    }

    /// The trap rules for a URL about to be queued; when it passes, its host's budget count
    /// and its path's query count grow in `batch`. (A URL kept out is not marked seen: a run
    /// with looser rules may queue it.)
    fn admit(
        &mut self,
        batch: &mut WriteBatch,
        url: &CanonicalUrl,
        path_queries: &mut HashMap<Vec<u8>, u32>,
    ) -> Result<Result<(), TrapRule>, StoreError> {
        if let Err(rule) = self.traps.check(url) {
            return Ok(Err(rule));
        }
        let origin = url.origin();
        let host_key = meta_key(HOST_QUEUED_PREFIX, origin.as_bytes());
        let host_count = match self.host_queued.get(&origin) {
            Some(&count) => count,
            None => self.read_count(&host_key)?,
        };
        let budget = self.traps.budget(url.host());
        if budget > 0 && host_count >= budget {
            return Ok(Err(TrapRule::HostBudget));
        }
        if url.as_url().query().is_some() {
            let path = format!("{origin}{}", url.as_url().path());
            let path_key = meta_key(PATH_QUERIES_PREFIX, &xxh3_64(path.as_bytes()).to_be_bytes());
            let count = match path_queries.get(&path_key) {
                Some(&count) => u64::from(count),
                None => self.read_count(&path_key)?,
            };
            let cap = u64::from(self.traps.max_queries_per_path);
            if cap > 0 && count >= cap {
                return Ok(Err(TrapRule::QueryCap));
            }
            let count = u32::try_from(count + 1).unwrap_or(u32::MAX);
            path_queries.insert(path_key.clone(), count);
            batch.put_cf(self.cf(Cf::Meta), &path_key, u64::from(count).to_be_bytes());
        }
        self.host_queued.insert(origin, host_count + 1);
        batch.put_cf(self.cf(Cf::Meta), &host_key, (host_count + 1).to_be_bytes());
        Ok(Ok(()))
    }

    /// A count kept in `meta` (0 when absent).
    fn read_count(&self, key: &[u8]) -> Result<u64, StoreError> {
        Ok(self
            .db
            .get_pinned_cf(self.cf(Cf::Meta), key)?
            .and_then(|bytes| <[u8; 8]>::try_from(bytes.as_ref()).ok())
            .map_or(0, u64::from_be_bytes))
    }

    fn put_counters(&self, batch: &mut WriteBatch) {
        batch.put_cf(self.cf(Cf::Meta), COUNTERS_KEY, self.counters.encode());
    }

    /// Up to `limit` queued URLs of one origin, in frontier order, skipping `skip` keys.
    pub fn queued_for(
        &self,
        origin: &str,
        limit: usize,
        skip: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Vec<QueuedUrl>, StoreError> {
        let range = frontier_origin_range(origin);
        let start = self
            .queue_floor
            .borrow()
            .get(origin)
            .cloned()
            .unwrap_or_else(|| range.start.clone());
        let mut options = ReadOptions::default();
        options.set_iterate_upper_bound(range.end.clone());
        let iter = self.db.iterator_cf_opt(
            self.cf(Cf::Frontier),
            options,
            IteratorMode::From(&start, Direction::Forward),
        );
        let mut out = Vec::new();
        let mut first = None;
        for item in iter {
            let (key, value) = item?;
            if first.is_none() {
                first = Some(key.to_vec());
            }
            if out.len() >= limit {
                break;
            }
            if skip(&key) {
                continue;
            }
            out.push(QueuedUrl {
                key: key.to_vec(),
                entry: FrontierEntry::decode(&value)?,
                replaces: None,
            });
        }
        // Nothing queued: the end of the range, above every key of the origin, until one is
        // queued.
        let floor = first.unwrap_or(range.end);
        self.queue_floor
            .borrow_mut()
            .insert(origin.to_string(), floor);
        Ok(out)
    }

    /// A frontier key was written: its origin's floor comes down to it if it was above.
    fn lower_floor(&self, key: &[u8]) {
        let Some(origin) = frontier_key_origin(key) else {
            return;
        };
        if let Some(floor) = self.queue_floor.borrow_mut().get_mut(origin)
            && key < floor.as_slice()
        {
            *floor = key.to_vec();
        }
    }

    /// Every origin with queued URLs, with one entry each as a sample.
    pub fn queued_origins(&self) -> Result<Vec<String>, StoreError> {
        let mut origins = Vec::new();
        let mut iter = self.db.raw_iterator_cf(self.cf(Cf::Frontier));
        iter.seek_to_first();
        while let Some(key) = iter.key() {
            let Some(origin) = frontier_key_origin(key).map(str::to_string) else {
                iter.next();
                continue;
            };
            // Jump past this origin's keys.
            let next = frontier_origin_range(&origin).end;
            origins.push(origin);
            iter.seek(&next);
        }
        iter.status()?;
        Ok(origins)
    }

    /// Marks an origin halted by its circuit breaker, with why: later runs leave it alone
    /// until [`PageStore::resume_host`].
    pub fn halt_host(&self, origin: &str, why: &str) -> Result<(), StoreError> {
        let key = meta_key(HALTED_PREFIX, origin.as_bytes());
        self.written(self.db.put_cf(self.cf(Cf::Meta), key, why.as_bytes()))
    }

    /// Lifts an operator's halt; returns whether the origin was halted.
    pub fn resume_host(&self, origin: &str) -> Result<bool, StoreError> {
        let key = meta_key(HALTED_PREFIX, origin.as_bytes());
        let was = self.db.get_pinned_cf(self.cf(Cf::Meta), &key)?.is_some();
        self.written(self.db.delete_cf(self.cf(Cf::Meta), key))?;
        Ok(was)
    }

    /// Origins halted by their circuit breaker, with why.
    pub fn halted_hosts(&self) -> Result<Vec<(String, String)>, StoreError> {
        shared::store::halted_hosts(&self.db)
    }

    /// The cached robots.txt answer of an origin.
    pub fn robots(&self, origin: &str) -> Result<Option<RobotsRecord>, StoreError> {
        self.get(Cf::Robots, origin.as_bytes())
    }

    /// Caches a robots.txt answer.
    pub fn put_robots(&self, origin: &str, record: &RobotsRecord) -> Result<(), StoreError> {
        self.written(
            self.db
                .put_cf(self.cf(Cf::Robots), origin.as_bytes(), record.encode()),
        )
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

#[cfg(test)]
mod tests {
    use super::*;
    use shared::StoreReader;

    fn store_original(store: &mut PageStore, url: &str, text_hash: u64, simhash: u64) {
        let mut page = PageRecord {
            url: url.to_string(),
            title: "Herons of the marsh".into(),
            status: 200,
            body_len: 100,
            content_hash: text_hash,
            ..PageRecord::default()
        };
        store
            .commit_page(PageCommit {
                done: b"no frontier key",
                page: &mut page,
                outlinks: &Outlinks::default(),
                discovered: Vec::new(),
                revisit: &RevisitRecord::default(),
                simhash: Some(simhash),
                failed_before: 0,
            })
            .unwrap();
    }

    #[test]
    fn every_page_write_gets_the_next_change_number_and_joins_the_history() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        store_original(&mut store, "http://a.test/a", 1, 0x1111);
        store_original(&mut store, "http://a.test/b", 2, 0x2222);
        store_original(&mut store, "http://a.test/a", 3, 0x3333);
        let a = store.page("http://a.test/a").unwrap().unwrap();
        let b = store.page("http://a.test/b").unwrap().unwrap();
        assert_eq!((b.change, a.change), (2, 3), "the rewrite of /a came third");
        assert_eq!(store.counters().last_change(), 3);

        // A revisit answered 304 leaves the page as it is and is remembered.
        let revisit = RevisitRecord {
            content_hash: 3,
            ..RevisitRecord::default()
        };
        store.note_trapped(TrapRule::QueryCap, 5);
        store
            .commit_done(
                b"no frontier key",
                Some(("http://a.test/a", &revisit)),
                Vec::new(),
            )
            .unwrap();
        drop(store);

        let reader = StoreReader::open(dir.path()).unwrap();
        let history = reader.history("http://a.test/a").unwrap();
        let seen: Vec<(u16, u64)> = history
            .0
            .iter()
            .map(|e| (e.status, e.content_hash))
            .collect();
        assert_eq!(seen, [(200, 1), (200, 3), (304, 3)]);
        assert_eq!(reader.page("http://a.test/a").unwrap().unwrap().change, 3);
        let counters = reader.counters().unwrap();
        assert_eq!(counters.last_change(), 3, "a 304 writes no page");
        assert_eq!(
            counters.trapped.get(TrapRule::QueryCap.name()),
            Some(&5),
            "trap cut-offs outlive the run"
        );
    }

    #[test]
    fn a_second_writer_is_told_the_store_is_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let _first = PageStore::open(dir.path()).unwrap();
        let second = PageStore::open(dir.path())
            .err()
            .expect("one writer at a time");
        assert!(matches!(second, StoreError::Locked(_)), "{second:?}");
        let line = second.to_string();
        assert!(line.contains("in use by another crawler"), "{line}");
        assert!(line.contains(&dir.path().display().to_string()), "{line}");
        // Readers are not kept out.
        assert!(StoreReader::open(dir.path()).is_ok());
    }

    #[test]
    fn content_owner_finds_exact_and_near_duplicates_but_not_the_page_itself() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        let hash = 0xfedc_ba98_7654_3210_u64;
        store_original(&mut store, "http://a.test/original", 1, hash);
        store_original(&mut store, "http://a.test/other", 2, !hash);

        let owner = |text_hash, simhash: Option<u64>, except| {
            let near = simhash.map(|h| (h, "Herons of the marsh (print)"));
            store.content_owner(text_hash, near, except).unwrap()
        };
        let original = Some("http://a.test/original".to_string());
        assert_eq!(owner(1, None, "http://a.test/copy"), original, "same text");
        // Three bits apart, one in each of three blocks; then in one block.
        let near = hash ^ (1 << 1) ^ (1 << 30) ^ (1 << 62);
        assert_eq!(owner(9, Some(near), "http://a.test/copy"), original);
        assert_eq!(owner(9, Some(hash ^ 0b111), "http://a.test/copy"), original);
        // Four bits apart is another page.
        assert_eq!(owner(9, Some(near ^ (1 << 45)), "http://a.test/copy"), None);
        // A revisit of the original is not a copy of itself.
        assert_eq!(owner(1, Some(hash), "http://a.test/original"), None);
        assert_eq!(
            owner(9, Some(!hash ^ 1), "http://a.test/copy"),
            Some("http://a.test/other".to_string())
        );
        // Near text under another title is another page.
        let other_title = store
            .content_owner(
                9,
                Some((near, "Gulls of the harbour")),
                "http://a.test/copy",
            )
            .unwrap();
        assert_eq!(other_title, None);
    }

    fn links_from(page: &str, targets: &[&str], depth: u32) -> Vec<(CanonicalUrl, FrontierEntry)> {
        targets
            .iter()
            .map(|t| {
                let entry = FrontierEntry {
                    referrer: Some(page.to_string()),
                    ..FrontierEntry::page(*t, depth)
                };
                (CanonicalUrl::parse(t).unwrap(), entry)
            })
            .collect()
    }

    fn queue_order(store: &PageStore, origin: &str) -> Vec<String> {
        store
            .queued_for(origin, 100, &|_| false)
            .unwrap()
            .into_iter()
            .map(|q| q.entry.url)
            .collect()
    }

    #[test]
    fn a_url_found_again_moves_up_its_queue_unless_it_is_being_fetched() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        let (popular, plain) = ("http://a.test/popular", "http://a.test/plain");
        let shallow = "http://a.test/shallow";
        store
            .enqueue(links_from("http://a.test/", &[shallow], 2))
            .unwrap();
        store
            .enqueue(links_from("http://a.test/x", &[plain, popular], 3))
            .unwrap();
        assert_eq!(
            queue_order(&store, "http://a.test"),
            [shallow, plain, popular]
        );

        // Three more pages link to `popular`: four in-links move it ahead of its level.
        let mut moved = Vec::new();
        for page in ["http://a.test/y", "http://a.test/z", "http://a.test/w"] {
            moved.extend(store.enqueue(links_from(page, &[popular], 3)).unwrap());
        }
        assert_eq!(store.counters().frontier_len, 3, "moved, not queued twice");
        assert_eq!(
            queue_order(&store, "http://a.test"),
            [shallow, popular, plain]
        );
        let last = moved.last().expect("moved up");
        assert_eq!((last.entry.inlinks, last.entry.depth), (4, 3));
        assert!(last.replaces.is_some());

        // Sixteen in-links: ahead of the level above.
        for i in 0..12 {
            store
                .enqueue(links_from(&format!("http://a.test/p{i}"), &[popular], 3))
                .unwrap();
        }
        assert_eq!(
            queue_order(&store, "http://a.test"),
            [popular, shallow, plain]
        );

        // A sitemap lists `plain`: depth 0, so it goes first.
        let listed = FrontierEntry::page(plain, 0);
        let moved = store
            .enqueue(vec![(CanonicalUrl::parse(plain).unwrap(), listed)])
            .unwrap();
        assert_eq!(moved.len(), 1);
        assert_eq!(
            queue_order(&store, "http://a.test"),
            [plain, popular, shallow]
        );

        // Handed to a fetch, an entry stays where it is.
        let key = moved[0].key.clone();
        store.hand_out(&key);
        let again = store
            .enqueue(links_from("http://a.test/v", &[plain], 0))
            .unwrap();
        assert!(again.is_empty());
        assert_eq!(
            store.queued_for("http://a.test", 1, &|_| false).unwrap()[0].key,
            key
        );
    }

    #[test]
    fn a_refill_starts_past_fetched_entries_and_finds_those_queued_below_them() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        let deep: Vec<String> = (0..5).map(|i| format!("http://a.test/deep{i}")).collect();
        let deep: Vec<&str> = deep.iter().map(String::as_str).collect();
        store
            .enqueue(links_from("http://a.test/", &deep[..3], 3))
            .unwrap();
        // The first two are fetched: the next refill starts at the third.
        for queued in store.queued_for("http://a.test", 2, &|_| false).unwrap() {
            store.hand_out(&queued.key);
            store.commit_done(&queued.key, None, Vec::new()).unwrap();
        }
        assert_eq!(queue_order(&store, "http://a.test"), [deep[2]]);
        // Queued later, above the floor and below it (a shallower link ranks first).
        store
            .enqueue(links_from("http://a.test/", &deep[3..], 3))
            .unwrap();
        store
            .enqueue(links_from("http://a.test/", &["http://a.test/shallow"], 0))
            .unwrap();
        assert_eq!(
            queue_order(&store, "http://a.test"),
            ["http://a.test/shallow", deep[2], deep[3], deep[4]]
        );
        // Emptied, then queued again.
        for queued in store.queued_for("http://a.test", 10, &|_| false).unwrap() {
            store.hand_out(&queued.key);
            store.commit_done(&queued.key, None, Vec::new()).unwrap();
        }
        assert!(queue_order(&store, "http://a.test").is_empty());
        store
            .enqueue(links_from("http://a.test/", &["http://a.test/late"], 5))
            .unwrap();
        assert_eq!(queue_order(&store, "http://a.test"), ["http://a.test/late"]);
    }

    #[test]
    fn a_page_linking_to_itself_is_not_queued_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        let url = "http://a.test/self";
        let queued = store
            .enqueue(links_from("http://a.test/", &[url], 1))
            .unwrap();
        store.hand_out(&queued[0].key);
        let mut page = PageRecord {
            url: url.to_string(),
            status: 200,
            body_len: 10,
            ..PageRecord::default()
        };
        let again = store
            .commit_page(PageCommit {
                done: &queued[0].key,
                page: &mut page,
                outlinks: &Outlinks::default(),
                discovered: links_from(url, &[url, url], 2),
                revisit: &RevisitRecord::default(),
                simhash: None,
                failed_before: 0,
            })
            .unwrap();
        assert!(again.is_empty(), "{again:?}");
        assert_eq!(store.counters().frontier_len, 0);
        assert!(queue_order(&store, "http://a.test").is_empty());
        // Later links find it done.
        assert!(
            store
                .enqueue(links_from("http://a.test/x", &[url], 1))
                .unwrap()
                .is_empty()
        );
        assert!(queue_order(&store, "http://a.test").is_empty());
    }
}
