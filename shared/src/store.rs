//! The content store's layout: column families, keys, and a read-only view.
//!
//! The store is a RocksDB database in `DATA/store`. The crawler is its only writer (it opens it
//! with [`open_options`] and [`Cf::descriptors`]); the indexer and searchd read it through
//! [`StoreReader`], which opens it read-only and never takes the writer's lock. Both hold
//! what a [`MemoryBudget`] allows, whatever the store's size.
//!
//! | column family | key | value |
//! |---|---|---|
//! | `pages` | canonical URL | [`PageRecord`] |
//! | `outlinks` | canonical URL of the linking page | [`Outlinks`] |
//! | `frontier` | [`frontier_key`]: origin, `0x00`, rank (u32 BE, [`FrontierEntry::rank`]), sequence (u64 BE) | [`FrontierEntry`] |
//! | `seen` | [`UrlFingerprint`](crate::url::UrlFingerprint) bytes | while the URL waits in the frontier, its [`QueuePosition`] (rank and sequence, 12 bytes); empty once it was fetched or dropped |
//! | `robots` | origin (`scheme://host[:port]`) | [`RobotsRecord`] |
//! | `content` | content hash (u64 BE) of a page's normalized text | URL of the first page with it |
//! | `near` | block number (u8), its 16 bits (BE), then the whole simhash (u64 BE) of a page's main text; four keys a page | `url \0 title` of the page |
//! | `meta` | [`COUNTERS_KEY`] | [`CrawlCounters`] |
//! | `meta` | [`HOST_QUEUED_PREFIX`] ++ origin | URLs ever queued for the origin (u64 BE) |
//! | `meta` | [`PATH_QUERIES_PREFIX`] ++ hash of origin and path | distinct query strings queued (u64 BE) |
//! | `meta` | [`HALTED_PREFIX`] ++ origin | why its circuit breaker halted it (UTF-8) |
//! | `meta` | [`AUTO_RENDER_PREFIX`] ++ host | `render = "auto"`'s verdict on the host: `render` or `skip` |
//! | `revisit` | canonical URL of a stored page | [`RevisitRecord`] |
//! | `skipped` | canonical URL never fetched | [`SkipRecord`], why |
//! | `history` | canonical URL of a fetched page | [`FetchHistory`]: its last fetches |
//! | `outbox` | [`outbox_key`]: sequence number (u64 BE) | [`OutboxLink`]: a link to another partition, not yet sent |
//! | `meta` | [`OUTBOX_NEXT_KEY`] | the next outbox sequence number (u64 BE) |
//! | `sent` | [`sent_key`]: target partition (u32 BE), parcel number (u64 BE) | [`LinkParcel`]: links sent to the target's stream, kept until the target confirms them |
//! | `meta` | [`PARCEL_NEXT_PREFIX`] ++ target partition (u32 BE) | the next parcel number to that partition (u64 BE) |
//! | `meta` | [`PARCEL_MARK_PREFIX`] ++ source partition (u32 BE) | every parcel of that partition up to this number is applied here (u64 BE) |
//! | `meta` | [`PARCEL_AHEAD_PREFIX`] ++ source partition (u32 BE) ++ number (u64 BE) | a parcel applied past a gap in its numbers (empty) |
//! | `meta` | [`PARTITION_KEY`] | [`PartitionStamp`]: which partition of a distributed crawl this store is |
//! | `media` | canonical URL of a stored image or PDF | [`MediaRecord`]: what it was read to be |
//! | `thumbs` | an image's content hash (u64 BE, [`ImageInfo::content_hash`]) | [`Thumbnail`] |
//! | `images` | canonical URL of a stored page | [`PageImages`]: the images it shows, with their alt text and surroundings |
//! | `rendered` | canonical URL of a stored page | [`RenderedPage`]: what rendering it in a browser found (readers in `store/rendered.rs`) |
//!
//! The `outbox` and `sent` families and the partition keys are used only by `crawler worker` (see
//! [`crate::partition`]); a single-machine crawl leaves them empty.
//!
//! [`FrontierEntry`]: crate::record::FrontierEntry
//! [`PageRecord`]: crate::record::PageRecord
//! [`Outlinks`]: crate::record::Outlinks
//! [`RobotsRecord`]: crate::record::RobotsRecord
//! [`CrawlCounters`]: crate::record::CrawlCounters
//! [`RevisitRecord`]: crate::record::RevisitRecord
//! [`SkipRecord`]: crate::record::SkipRecord
//! [`FetchHistory`]: crate::record::FetchHistory
//! [`MediaRecord`]: crate::record::MediaRecord
//! [`ImageInfo::content_hash`]: crate::record::ImageInfo::content_hash
//! [`Thumbnail`]: crate::record::Thumbnail
//! [`PageImages`]: crate::record::PageImages
//! [`RenderedPage`]: crate::record::RenderedPage
//! [`OutboxLink`]: crate::record::OutboxLink
//! [`LinkParcel`]: crate::record::LinkParcel
//! [`PartitionStamp`]: crate::record::PartitionStamp
//! [`FrontierEntry::rank`]: crate::record::FrontierEntry::rank

use std::path::{Path, PathBuf};

use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, DB, IteratorMode, Options, WriteBufferManager,
};

use crate::record::Record;

/// The key of the crawl counters in `meta`.
pub const COUNTERS_KEY: &[u8] = b"counters";
/// `meta` key prefix, then an origin: how many URLs of that origin were ever queued (u64 BE),
/// the count the per-host page budget is checked against.
pub const HOST_QUEUED_PREFIX: &[u8] = b"host_queued\0";
/// `meta` key prefix, then xxh3-64 (BE) of `origin ++ path`: how many distinct query strings
/// were queued for that path (u64 BE).
pub const PATH_QUERIES_PREFIX: &[u8] = b"path_queries\0";
/// `meta` key prefix, then an origin: the host was halted by its circuit breaker; the value
/// says why (UTF-8). It stays halted, run after run, until an operator resumes it.
pub const HALTED_PREFIX: &[u8] = b"halted\0";
/// `meta` key prefix, then a host: `render = "auto"`'s verdict on it (`render` or `skip`),
/// where a later run starts.
pub const AUTO_RENDER_PREFIX: &[u8] = b"render_auto\0";

/// `render = "auto"`'s verdict on a host, as the store keeps it under [`AUTO_RENDER_PREFIX`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoVerdict {
    /// Its pages are rendered.
    Render,
    /// Its pages are not rendered, but for re-checks.
    Skip,
}

impl AutoVerdict {
    /// Its name in the store.
    pub fn name(self) -> &'static str {
        match self {
            AutoVerdict::Render => "render",
            AutoVerdict::Skip => "skip",
        }
    }

    /// The verdict named `name`, if one is.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "render" => Some(AutoVerdict::Render),
            "skip" => Some(AutoVerdict::Skip),
            _ => None,
        }
    }
}

/// `meta` key of the next outbox sequence number (u64 BE).
pub const OUTBOX_NEXT_KEY: &[u8] = b"outbox_next";
/// `meta` key prefix, then a target partition (u32 BE): the number of the next parcel sent to
/// it (u64 BE; absent: 1).
pub const PARCEL_NEXT_PREFIX: &[u8] = b"parcel_next\0";
/// `meta` key prefix, then a source partition (u32 BE): every parcel that partition sent here
/// up to this number (u64 BE) is applied; one at or below it that arrives again is skipped.
pub const PARCEL_MARK_PREFIX: &[u8] = b"parcel_mark\0";
/// `meta` key prefix, then a source partition (u32 BE) and a parcel number (u64 BE): a parcel
/// applied while one before it was missing (lost in Redis, sent again later); the mark moves
/// past it once the gap is filled.
pub const PARCEL_AHEAD_PREFIX: &[u8] = b"parcel_ahead\0";
/// `meta` key of the store's [`PartitionStamp`](crate::record::PartitionStamp).
pub const PARTITION_KEY: &[u8] = b"partition";

/// The `outbox` key of sequence number `seq`: big-endian, so keys sort in sending order.
pub fn outbox_key(seq: u64) -> [u8; 8] {
    seq.to_be_bytes()
}

/// The `sent` key of parcel `number` to partition `target`: big-endian, so a target's parcels
/// sort together in the order they were numbered.
pub fn sent_key(target: u32, number: u64) -> [u8; 12] {
    let mut key = [0; 12];
    key[..4].copy_from_slice(&target.to_be_bytes());
    key[4..].copy_from_slice(&number.to_be_bytes());
    key
}

/// A `meta` key: `prefix ++ rest`.
pub fn meta_key(prefix: &[u8], rest: &[u8]) -> Vec<u8> {
    let mut key = prefix.to_vec();
    key.extend_from_slice(rest);
    key
}

/// A column family of the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cf {
    /// Fetched pages.
    Pages,
    /// Links found on pages.
    Outlinks,
    /// URLs waiting to be fetched, one queue per origin.
    Frontier,
    /// Fingerprints of every URL ever queued.
    Seen,
    /// Cached robots.txt answers.
    Robots,
    /// Content hash -> the first URL stored with that content (duplicate detection).
    Content,
    /// Crawl-wide counters.
    Meta,
    /// When each stored page is due for its next visit.
    Revisit,
    /// Simhashes of stored pages, indexed by each of their four 16-bit blocks
    /// (near-duplicate detection).
    Near,
    /// URLs dropped unfetched, with why ([`crate::record::SkipRecord`]).
    Skipped,
    /// Each fetched URL's last fetches ([`crate::record::FetchHistory`]).
    History,
    /// Links to other partitions' URLs not yet sent ([`crate::record::OutboxLink`]).
    Outbox,
    /// Parcels of links sent to other partitions and not yet confirmed applied
    /// ([`crate::record::LinkParcel`]).
    Sent,
    /// What each stored image or PDF was read to be ([`crate::record::MediaRecord`]).
    Media,
    /// Image thumbnails by content hash ([`crate::record::Thumbnail`]).
    Thumbs,
    /// The images each page shows ([`crate::record::PageImages`]).
    Images,
    /// What rendering each page in a browser found ([`crate::record::RenderedPage`]).
    Rendered,
}

impl Cf {
    /// Every column family.
    pub const ALL: [Cf; 17] = [
        Cf::Pages,
        Cf::Outlinks,
        Cf::Frontier,
        Cf::Seen,
        Cf::Robots,
        Cf::Content,
        Cf::Meta,
        Cf::Revisit,
        Cf::Near,
        Cf::Skipped,
        Cf::History,
        Cf::Outbox,
        Cf::Sent,
        Cf::Media,
        Cf::Thumbs,
        Cf::Images,
        Cf::Rendered,
    ];

    /// The RocksDB name.
    pub fn name(self) -> &'static str {
        match self {
            Cf::Pages => "pages",
            Cf::Outlinks => "outlinks",
            Cf::Frontier => "frontier",
            Cf::Seen => "seen",
            Cf::Robots => "robots",
            Cf::Content => "content",
            Cf::Meta => "meta",
            Cf::Revisit => "revisit",
            Cf::Near => "near",
            Cf::Skipped => "skipped",
            Cf::History => "history",
            Cf::Outbox => "outbox",
            Cf::Sent => "sent",
            Cf::Media => "media",
            Cf::Thumbs => "thumbs",
            Cf::Images => "images",
            Cf::Rendered => "rendered",
        }
    }

    /// The unit in which a memtable takes memory (RocksDB's default: an eighth of the
    /// memtable's size, at most 1 MiB).
    const ARENA_BLOCK_BYTES: usize = 64 << 10;

    /// Every family's descriptor (see [`Cf::descriptor`]).
    pub fn descriptors(budget: &MemoryBudget) -> Vec<ColumnFamilyDescriptor> {
        Cf::ALL.iter().map(|cf| cf.descriptor(budget)).collect()
    }

    /// The family's descriptor: a bloom filter on the point-lookup families; its blocks in
    /// `budget`'s one cache, its memtables within `budget`'s.
    pub fn descriptor(self, budget: &MemoryBudget) -> ColumnFamilyDescriptor {
        let mut opts = Options::default();
        let mut table = budget.table_options();
        if matches!(
            self,
            Cf::Seen
                | Cf::Pages
                | Cf::Robots
                | Cf::Content
                | Cf::Revisit
                | Cf::Media
                | Cf::Thumbs
                | Cf::Rendered
        ) {
            table.set_bloom_filter(10.0, false);
        }
        opts.set_block_based_table_factory(&table);
        opts.set_write_buffer_size(budget.family_write_buffer());
        // A memtable takes memory from the budget a block at a time, 1 MiB by default: the
        // active families of the dozens of stores a worker holds took more than the whole
        // budget while nearly empty, and every write flushed one (4,560 flushes in a crawl
        // of the Rust docs over 64 partitions, against 38 in one store).
        opts.set_arena_block_size(Self::ARENA_BLOCK_BYTES);
        opts.set_compression_type(rocksdb::DBCompressionType::Lz4);
        ColumnFamilyDescriptor::new(self.name(), opts)
    }
}

/// What an open store may hold in memory: one block cache shared by every column family, the
/// tables' index and filter blocks included, and one budget for every family's memtables.
///
/// RocksDB's defaults bound neither by the store's size: each family gets a cache of its own
/// (32 MiB), memtables of 64 MiB each (eleven families, two each), and every table file's
/// index and filter blocks stay in memory outside any cache, so a long crawl's resident memory
/// grows with what it has stored. A budget is cheap to clone (the cache and the memtable
/// budget are shared): stores opened with clones of one budget share both, so the partitions
/// a `crawler worker` holds take no more memory than one store.
#[derive(Clone)]
pub struct MemoryBudget {
    cache: Cache,
    write_buffer_bytes: usize,
    /// Counts every memtable of every store opened within this budget, and flushes the
    /// largest of the store being written when they pass `write_buffer_bytes`.
    write_buffers: WriteBufferManager,
}

impl MemoryBudget {
    /// The default block cache: 32 MiB.
    pub const DEFAULT_CACHE_BYTES: usize = 32 << 20;
    /// The default memtable budget: 64 MiB for all families together.
    pub const DEFAULT_WRITE_BUFFER_BYTES: usize = 64 << 20;
    /// The largest memtable of one family (RocksDB's default).
    const FAMILY_WRITE_BUFFER_BYTES: usize = 64 << 20;

    /// A budget of `cache_bytes` of cached blocks and `write_buffer_bytes` of memtables
    /// (at least 1 MiB each).
    pub fn new(cache_bytes: usize, write_buffer_bytes: usize) -> Self {
        let write_buffer_bytes = write_buffer_bytes.max(1 << 20);
        Self {
            cache: Cache::new_lru_cache(cache_bytes.max(1 << 20)),
            write_buffer_bytes,
            write_buffers: WriteBufferManager::new_write_buffer_manager(write_buffer_bytes, false),
        }
    }

    /// Table options whose blocks, index and filter blocks included, go in the cache;
    /// those of level-0 files stay pinned there (they are read on every lookup).
    fn table_options(&self) -> BlockBasedOptions {
        let mut table = BlockBasedOptions::default();
        table.set_block_cache(&self.cache);
        table.set_cache_index_and_filter_blocks(true);
        table.set_pin_l0_filter_and_index_blocks_in_cache(true);
        table
    }

    /// One family's memtable size: RocksDB's default, or the whole budget when smaller.
    fn family_write_buffer(&self) -> usize {
        Self::FAMILY_WRITE_BUFFER_BYTES.min(self.write_buffer_bytes)
    }
}

impl Default for MemoryBudget {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CACHE_BYTES, Self::DEFAULT_WRITE_BUFFER_BYTES)
    }
}

/// Database options for the writer: every family's memtables, of every store opened within
/// `budget`, together within its memtable budget (the largest is flushed when they pass it).
pub fn open_options(budget: &MemoryBudget) -> Options {
    let mut opts = Options::default();
    opts.create_if_missing(true);
    opts.create_missing_column_families(true);
    opts.set_compression_type(rocksdb::DBCompressionType::Lz4);
    opts.set_write_buffer_manager(&budget.write_buffers);
    opts
}

/// The handle of a column family of an open store.
pub fn cf_handle(db: &DB, cf: Cf) -> &rocksdb::ColumnFamily {
    // Every family is created when the writer first opens the store, and every writer opens
    // all of them; `StoreReader` asks for its families itself, as a store may lack some.
    db.cf_handle(cf.name())
        .expect("every column family is opened with the store")
}

/// Reads and decodes one record.
pub fn read_record<R: Record>(db: &DB, cf: Cf, key: &[u8]) -> Result<Option<R>, StoreError> {
    match db.get_pinned_cf(cf_handle(db, cf), key)? {
        Some(bytes) => Ok(Some(R::decode(&bytes)?)),
        None => Ok(None),
    }
}

/// Origins halted by their circuit breaker, with why, in origin order.
pub fn halted_hosts(db: &DB) -> Result<Vec<(String, String)>, StoreError> {
    let mut halted = Vec::new();
    let iter = db.iterator_cf(
        cf_handle(db, Cf::Meta),
        IteratorMode::From(HALTED_PREFIX, rocksdb::Direction::Forward),
    );
    for item in iter {
        let (key, value) = item?;
        let Some(origin) = key.strip_prefix(HALTED_PREFIX) else {
            break;
        };
        halted.push((
            String::from_utf8_lossy(origin).into_owned(),
            String::from_utf8_lossy(&value).into_owned(),
        ));
    }
    Ok(halted)
}

/// The store's directory inside a data directory.
pub fn store_dir(data: &Path) -> PathBuf {
    data.join("store")
}

/// Where an entry waits in its origin's queue: its rank, then the order it was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuePosition {
    /// [`FrontierEntry::rank`](crate::record::FrontierEntry::rank) when it was queued or
    /// last moved.
    pub rank: u32,
    /// The crawl-wide sequence number it was given when first queued.
    pub seq: u64,
}

impl QueuePosition {
    /// The `seen` value.
    pub fn to_bytes(self) -> [u8; 12] {
        let mut bytes = [0u8; 12];
        bytes[..4].copy_from_slice(&self.rank.to_be_bytes());
        bytes[4..].copy_from_slice(&self.seq.to_be_bytes());
        bytes
    }

    /// From a `seen` value; `None` for an empty one (not waiting).
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        let bytes: &[u8; 12] = bytes.try_into().ok()?;
        Some(Self {
            rank: u32::from_be_bytes(bytes[..4].try_into().ok()?),
            seq: u64::from_be_bytes(bytes[4..].try_into().ok()?),
        })
    }
}

/// The frontier key of a URL: entries of one origin sort together, by rank (breadth-first,
/// often-linked URLs moved up), then in the order they were found.
pub fn frontier_key(origin: &str, position: QueuePosition) -> Vec<u8> {
    let mut key = Vec::with_capacity(origin.len() + 13);
    key.extend_from_slice(origin.as_bytes());
    key.push(0);
    key.extend_from_slice(&position.rank.to_be_bytes());
    key.extend_from_slice(&position.seq.to_be_bytes());
    key
}

/// The keys of one origin's frontier entries: every key [`frontier_key`] makes for `origin`
/// is at or above the start (`origin \0`) and below the end (`origin \1`).
pub fn frontier_origin_range(origin: &str) -> std::ops::Range<Vec<u8>> {
    let key = |byte| [origin.as_bytes(), &[byte]].concat();
    key(0)..key(1)
}

/// The origin part of a frontier key.
pub fn frontier_key_origin(key: &[u8]) -> Option<&str> {
    let end = key.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&key[..end]).ok()
}

mod error;
mod page_write;
mod reader;
mod rendered;

pub use error::StoreError;
pub use page_write::{KindCommit, PageRecords};
pub use reader::{ReadPattern, StoreReader};
pub use rendered::RenderedInOrder;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontier_keys_sort_by_rank_within_an_origin() {
        let at = |rank, seq| QueuePosition { rank, seq };
        let a = frontier_key("http://a.test", at(1, 9));
        let b = frontier_key("http://a.test", at(2, 1));
        let c = frontier_key("http://a.test:8080", at(0, 0));
        assert!(a < b, "smaller rank first");
        assert!(b < c, "one origin's entries are contiguous");
        assert_eq!(frontier_key_origin(&c), Some("http://a.test:8080"));
        let position = at(7, u64::MAX - 3);
        assert_eq!(
            QueuePosition::from_bytes(&position.to_bytes()),
            Some(position)
        );
        assert_eq!(QueuePosition::from_bytes(&[]), None, "done: not waiting");
    }
}
