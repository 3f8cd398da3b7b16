//! The crawl a data directory holds, as `crawler status`, `report` and `explain` read it: the
//! one store of a crawl by `crawler crawl` (`DATA/store`), or every partition's store that
//! `crawler worker`s left (`DATA/partitions/p-NNN/store`), each opened read-only, so workers
//! may still be writing them.
//!
//! A URL is looked up in its host's partition (`xxh3(host) mod P`, as the workers place it,
//! P from the stores' stamps); the copies and links of a crawl cross partitions, so what
//! depends on them (which copy the index keeps, a page's in-links) is read from every store.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use shared::partition::{PartitionId, Partitions, local_partitions};
use shared::store::store_dir;
use shared::{CanonicalUrl, StoreReader};

/// The stores of one data directory: one, or a partition's each.
pub struct CrawlStores {
    /// In partition order; one entry with no partition for a single-machine crawl.
    parts: Vec<StorePart>,
    /// The crawl's partition count, from the stores' stamps; `None` for a single store or
    /// partitions crawled without a stamp.
    partitions: Option<Partitions>,
}

/// One store of a data directory.
pub(super) struct StorePart {
    /// Its partition; `None` for a single-machine crawl's store.
    pub(super) partition: Option<PartitionId>,
    /// Its data directory (`DATA`, or `DATA/partitions/p-NNN`), where its index shard lives.
    pub(super) data: PathBuf,
    /// The store, read-only.
    pub(super) store: StoreReader,
}

/// Where a URL's records are.
pub(super) enum Holding<'a> {
    /// In this store.
    Here(&'a StorePart),
    /// In a partition of the crawl that this data directory does not hold.
    Elsewhere(PartitionId),
}

impl CrawlStores {
    /// Opens the store of `data`, else every partition's store under it.
    pub fn open(data: &Path) -> Result<Self> {
        if store_dir(data).join("CURRENT").is_file() {
            let store = StoreReader::open(data)
                .with_context(|| format!("no readable crawl in {}", data.display()))?;
            return Ok(Self::single(store, data));
        }
        let found = local_partitions(data)
            .with_context(|| format!("cannot list the partitions in {}", data.display()))?;
        if found.is_empty() {
            bail!(
                "no content store in {0}: neither {0}/store nor partitions in {0}/partitions \
                 (run `crawler crawl --data DIR` or `crawler worker --data DIR` first)",
                data.display()
            );
        }
        let mut parts = Vec::with_capacity(found.len());
        let mut partitions: Option<Partitions> = None;
        for (id, dir) in found {
            let store = StoreReader::open(&dir)
                .with_context(|| format!("no readable store in {}", dir.display()))?;
            if let Some(stamp) = store.partition_stamp()? {
                if stamp.id != id.get() {
                    bail!("the store of {id} is stamped as partition {}", stamp.id);
                }
                let crawl = Partitions::new(stamp.partitions)
                    .with_context(|| format!("{id} names {} partitions", stamp.partitions))?;
                match partitions {
                    Some(known) if known != crawl => bail!(
                        "{id} belongs to a crawl of {} partitions, others in {} to one of {}",
                        crawl.count(),
                        data.display(),
                        known.count()
                    ),
                    _ => partitions = Some(crawl),
                }
            }
            parts.push(StorePart {
                partition: Some(id),
                data: dir,
                store,
            });
        }
        Ok(Self { parts, partitions })
    }

    /// The one store of a single-machine crawl in `data`, opened already.
    pub fn single(store: StoreReader, data: &Path) -> Self {
        Self {
            parts: vec![StorePart {
                partition: None,
                data: data.to_path_buf(),
                store,
            }],
            partitions: None,
        }
    }

    /// Whether these are a partitioned crawl's stores.
    pub fn is_partitioned(&self) -> bool {
        self.parts.iter().any(|part| part.partition.is_some())
    }

    /// The stores, in partition order.
    pub(super) fn parts(&self) -> &[StorePart] {
        &self.parts
    }

    /// Every store.
    pub(super) fn stores(&self) -> impl Iterator<Item = &StoreReader> {
        self.parts.iter().map(|part| &part.store)
    }

    /// The crawl's partitions that are not here (none when the count is unknown).
    pub fn absent(&self) -> Vec<PartitionId> {
        let Some(crawl) = self.partitions else {
            return Vec::new();
        };
        crawl
            .all()
            .filter(|id| !self.parts.iter().any(|part| part.partition == Some(*id)))
            .collect()
    }

    /// The store that holds `url`'s records: its host's partition when the partition count is
    /// known, else the first store that has the URL (stored or kept out), else the first.
    pub(super) fn holding(&self, url: &CanonicalUrl) -> Result<Holding<'_>> {
        if let Some(crawl) = self.partitions {
            let id = crawl.of_host(url.host());
            return Ok(self
                .parts
                .iter()
                .find(|part| part.partition == Some(id))
                .map_or(Holding::Elsewhere(id), Holding::Here));
        }
        for part in &self.parts {
            if part.store.page(url.as_str())?.is_some()
                || part.store.skipped(url.as_str())?.is_some()
            {
                return Ok(Holding::Here(part));
            }
        }
        Ok(Holding::Here(&self.parts[0]))
    }
}
