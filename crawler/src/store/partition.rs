//! A store as one partition of a distributed crawl (`crawler worker`): which URLs are its
//! own, the outbox that holds links to other partitions' URLs until they are parcelled, and
//! the lease that must hold for any write.
//!
//! A link to a URL of another partition goes to the `outbox` family in the batch that found
//! it, under the next outbox sequence number; the worker makes parcels of the outbox and
//! sends them, and the owners apply each once (`parcels.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rocksdb::{IteratorMode, WriteBatch};
use shared::partition::{PartitionId, Partitions};
use shared::record::{FrontierEntry, OutboxLink, PartitionStamp, Record};
use shared::store::{Cf, OUTBOX_NEXT_KEY, PARTITION_KEY, outbox_key};
use shared::{CanonicalUrl, StoreError};
use tokio::time::Instant;

use super::PageStore;

/// Where a partition store's URLs go: its own host's URLs are queued here, the others'
/// wait in the outbox for their partition.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Route {
    partitions: Partitions,
    own: PartitionId,
}

impl Route {
    /// The partition `url` belongs to when it is not this one.
    pub(crate) fn elsewhere(&self, url: &CanonicalUrl) -> Option<PartitionId> {
        let target = self.partitions.of_host(url.host());
        (target != self.own).then_some(target)
    }

    /// This store's partition.
    pub(crate) fn own(&self) -> PartitionId {
        self.own
    }
}

/// A lease's end, shared between the worker that renews it and the store that checks it
/// before every write. Measured on the monotonic clock, which runs on while a process is
/// stopped: a worker resumed after its lease ran out finds the fence down and writes nothing.
#[derive(Clone, Debug)]
pub(crate) struct Fence {
    /// When the fence was made; `until` counts from it.
    origin: Instant,
    /// Microseconds after `origin` until which writes are allowed (0: never again).
    until_us: Arc<AtomicU64>,
}

impl Fence {
    /// A fence that holds until `until`.
    pub(crate) fn until(until: Instant) -> Self {
        let fence = Self {
            origin: Instant::now(),
            until_us: Arc::new(AtomicU64::new(0)),
        };
        fence.extend_to(until);
        fence
    }

    /// Writes are allowed until `until` (never shortened by a renewal that arrived late).
    pub(crate) fn extend_to(&self, until: Instant) {
        let us = until.saturating_duration_since(self.origin).as_micros() as u64;
        self.until_us.fetch_max(us, Ordering::AcqRel);
    }

    /// No write from now on.
    pub(crate) fn drop_now(&self) {
        self.until_us.store(0, Ordering::Release);
    }

    /// Whether a write may go now.
    pub(crate) fn holds(&self) -> bool {
        let now = Instant::now()
            .saturating_duration_since(self.origin)
            .as_micros() as u64;
        now < self.until_us.load(Ordering::Acquire)
    }
}

impl PageStore {
    /// Makes this store partition `own` of a crawl of `partitions`, written under lease
    /// `epoch` while `fence` holds. Refused when the store is another partition, or when a
    /// newer lease already wrote it.
    pub(crate) fn claim_partition(
        &mut self,
        partitions: Partitions,
        own: PartitionId,
        epoch: u64,
        fence: Fence,
    ) -> Result<(), StoreError> {
        let wrong = |why: String| StoreError::WrongPartition {
            path: self.path.clone(),
            why,
        };
        if let Some(stamp) = self.get::<PartitionStamp>(Cf::Meta, PARTITION_KEY)? {
            if stamp.partitions != partitions.count() || stamp.id != own.get() {
                return Err(wrong(format!(
                    "is partition {} of a crawl of {} partitions, not {own} of {}",
                    PartitionId::new(stamp.id),
                    stamp.partitions,
                    partitions.count()
                )));
            }
            if stamp.epoch > epoch {
                return Err(StoreError::StaleEpoch {
                    path: self.path.clone(),
                    stamp: stamp.epoch,
                    epoch,
                });
            }
        }
        self.fence = Some(fence);
        let stamp = PartitionStamp {
            partitions: partitions.count(),
            id: own.get(),
            epoch,
        };
        let mut batch = WriteBatch::default();
        batch.put_cf(self.cf(Cf::Meta), PARTITION_KEY, stamp.encode());
        self.write(batch)?;
        self.route = Some(Route { partitions, own });
        // Sequence numbers start at 1: a mark of 0 is "none applied".
        self.outbox_next = self.read_count(OUTBOX_NEXT_KEY)?.max(1);
        self.outbox_len = self
            .db
            .iterator_cf(self.cf(Cf::Outbox), IteratorMode::Start)
            .count() as u64;
        self.count_unconfirmed();
        Ok(())
    }

    /// Puts a link to another partition's URL in the outbox, in `batch`.
    pub(super) fn put_outbox(
        &mut self,
        batch: &mut WriteBatch,
        target: PartitionId,
        entry: FrontierEntry,
    ) {
        let link = OutboxLink {
            target: target.get(),
            entry,
        };
        batch.put_cf(
            self.cf(Cf::Outbox),
            outbox_key(self.outbox_next),
            link.encode(),
        );
        self.outbox_next += 1;
        self.outbox_len += 1;
        batch.put_cf(
            self.cf(Cf::Meta),
            OUTBOX_NEXT_KEY,
            self.outbox_next.to_be_bytes(),
        );
    }

    /// Links waiting in the outbox.
    pub(crate) fn outbox_len(&self) -> u64 {
        self.outbox_len
    }

    /// Up to `limit` links of the outbox, oldest first, with their sequence numbers.
    pub(super) fn outbox(&self, limit: usize) -> Result<Vec<(u64, OutboxLink)>, StoreError> {
        let mut links = Vec::new();
        for item in self
            .db
            .iterator_cf(self.cf(Cf::Outbox), IteratorMode::Start)
            .take(limit)
        {
            let (key, value) = item?;
            let Ok(seq) = <[u8; 8]>::try_from(key.as_ref()).map(u64::from_be_bytes) else {
                continue;
            };
            links.push((seq, OutboxLink::decode(&value)?));
        }
        Ok(links)
    }
}
