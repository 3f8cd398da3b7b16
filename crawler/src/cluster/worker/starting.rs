//! Starting a partition the worker took: its store opens (and restores) on a blocking
//! thread while the worker's loop goes on renewing the lease, then its crawl starts; or the
//! lease waits for a store another process still has open, or goes back.

use shared::partition::PartitionId;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use super::WorkerLoop;
use crate::cluster::held::{Held, NotStarted, Opened};
use crate::cluster::lease::Lease;
use crate::cluster::links;
use crate::cluster::shares::Taking;
use crate::error::Error;
use crate::store::Marks;

/// A partition whose store opens on a blocking thread, under its lease (renewed meanwhile).
pub(super) struct Starting {
    pub(super) lease: Lease,
    pub(super) opening: JoinHandle<Result<Opened, NotStarted>>,
}

impl WorkerLoop {
    /// Opens `lease`'s partition store off the worker's loop; [`WorkerLoop::started`] starts
    /// its crawl once it is open.
    pub(super) async fn start(&mut self, lease: Lease, taking: Taking) {
        let p = lease.partition;
        let mut confirmed = Marks::new();
        if taking == Taking::Over {
            // Its store is lost: what its holders applied there is not in this one, and the
            // senders let it go once confirmed. Their marks start where they confirmed.
            match links::confirmed_to(&self.shared.redis, p, self.shared.partitions).await {
                Ok(marks) => confirmed = marks,
                Err(error) => {
                    self.redis_away(&error);
                    let _ = self.leases.release(&lease).await;
                    return;
                }
            }
            warn!(partition = %p, "taken over on this disk: its store lived where no live worker reaches (a lost disk, a machine gone): what it held is lost, its crawl goes on from the links that arrive");
        }
        let opening = Held::open(&self.shared, &lease, confirmed);
        self.starting.insert(p, Starting { lease, opening });
    }

    /// Starts the crawls of the partitions whose store is open, or keeps their lease
    /// waiting for the store, or gives it back.
    pub(super) async fn started(&mut self) {
        let open: Vec<PartitionId> = self
            .starting
            .iter()
            .filter(|(_, s)| s.opening.is_finished())
            .map(|(&p, _)| p)
            .collect();
        for p in open {
            let Some(Starting { lease, opening }) = self.starting.remove(&p) else {
                continue;
            };
            let opened = opening.await.unwrap_or_else(|error| {
                Err(NotStarted::Failed(Error::Cluster(format!(
                    "opening the store of {p} failed: {error}"
                ))))
            });
            match opened {
                Ok(opened) if !lease.fence.holds() => {
                    warn!(partition = %p, "lease lost while its store opened: not crawled here");
                    drop(opened);
                    if let Err(error) = self.leases.release(&lease).await {
                        self.redis_away(&error);
                    }
                }
                Ok(opened) => self.crawl(lease, opened).await,
                Err(NotStarted::StoreBusy) => {
                    info!(partition = %p, "its store is still open in another process: waiting");
                    self.waiting.insert(p, lease);
                }
                Err(NotStarted::StaleEpoch { stamp }) => {
                    // Redis gave an epoch it had given before (it lost writes: a restart
                    // without its data, a failover to a replica behind): it counts on from
                    // the store's, and the next turn takes the lease above it.
                    warn!(
                        partition = %p,
                        epoch = lease.epoch,
                        store_epoch = stamp,
                        "Redis's lease epoch is behind the partition store's (Redis lost writes): raised to the store's"
                    );
                    let raised = self.leases.raise_epoch(p, stamp).await;
                    if let Err(error) = raised.and(self.leases.release(&lease).await) {
                        self.redis_away(&error);
                    }
                }
                Err(NotStarted::Failed(error)) => self.not_crawled(&lease, &error).await,
            }
        }
    }

    /// Runs the crawl of `lease`'s partition on its `opened` store.
    async fn crawl(&mut self, lease: Lease, opened: Opened) {
        let p = lease.partition;
        let epoch = lease.epoch;
        let held = match Held::start(&self.shared, lease.clone(), opened) {
            Ok(held) => held,
            Err(error) => return self.not_crawled(&lease, &error).await,
        };
        info!(partition = %p, epoch, "partition taken");
        if let Some(backup) = held.restored {
            warn!(
                partition = %p,
                backup_epoch = backup.epoch,
                backup_age_ms = shared::now_ms().saturating_sub(backup.at_ms),
                "partition restored from its newest backup: the pages fetched since are fetched again, and every sender sends its unconfirmed parcels again"
            );
            if let Err(error) = links::all_may_be_lost(&self.shared.redis).await {
                self.redis_away(&error);
            }
        }
        let inbox = held.inbox.clone();
        self.held.insert(p, held);
        self.readers.send_modify(|r| {
            r.insert(p, inbox);
        });
    }

    /// Gives back the lease of a partition that cannot be crawled here.
    async fn not_crawled(&mut self, lease: &Lease, error: &Error) {
        warn!(partition = %lease.partition, %error, "cannot crawl the partition: its lease goes back");
        // Given back at once, so that a worker that can open it takes it.
        if let Err(error) = self.leases.release(lease).await {
            self.redis_away(&error);
        }
    }
}
