//! A partition a worker holds: its lease, its store opened and claimed under the lease's
//! epoch, and its crawl running as a task of its own.

use std::path::Path;
use std::sync::Arc;

use shared::StoreError;
use shared::partition::{PartitionId, Partitions};
use shared::store::MemoryBudget;
use tokio::sync::{Semaphore, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tracing::info;

use super::Backups;
use super::connection::Redis;
use super::lease::Lease;
use crate::crawl::{CrawlOptions, CrawlSummary, Crawler, Delivery, PartitionRole, PartitionState};
use crate::error::Error;
use crate::fetch::Fetcher;
use crate::store::backup::{self, BackupRecord};
use crate::store::{Marks, PageStore};

/// Parcels waiting for a partition's crawl (each holds up to a few hundred links).
const INBOX: usize = 8;

/// What one worker holds in common for its partitions.
pub(crate) struct Shared {
    pub(crate) data: std::path::PathBuf,
    pub(crate) partitions: Partitions,
    pub(crate) budget: MemoryBudget,
    pub(crate) fetcher: Fetcher,
    /// Renders for every partition (one browser), when some host's pages are rendered.
    pub(crate) renderer: Option<crate::render::Renderer>,
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) redis: Redis,
    /// The options every partition's crawl runs with (its `data` replaced).
    pub(crate) options: CrawlOptions,
    /// Where every partition's crawl counts.
    pub(crate) metrics: crate::metrics::CrawlMetrics,
    /// Where and how often partitions are backed up.
    pub(crate) backups: Option<super::Backups>,
}

/// A partition whose crawl runs.
pub(crate) struct Held {
    pub(crate) lease: Lease,
    /// Stops the crawl at once (its fetches in flight are dropped).
    stop: Option<oneshot::Sender<()>>,
    /// Lets the partition go: the crawl finishes its fetches in flight, then returns.
    let_go: watch::Sender<bool>,
    pub(crate) crawl: JoinHandle<Result<CrawlSummary, Error>>,
    pub(crate) state: watch::Receiver<PartitionState>,
    /// Where the stream reader hands its links.
    pub(crate) inbox: mpsc::Sender<Delivery>,
    /// The state last written to Redis.
    pub(crate) published: Option<String>,
    /// The backup its store was restored from, when it was.
    pub(crate) restored: Option<BackupRecord>,
}

/// Why a partition did not start.
pub(crate) enum NotStarted {
    /// Another process has its store open (a worker stopped and not yet gone): try again.
    StoreBusy,
    /// Its store was claimed under a newer epoch than the lease's: Redis lost epochs it gave.
    StaleEpoch {
        /// The store's epoch.
        stamp: u64,
    },
    /// It cannot be crawled under this lease.
    Failed(Error),
}

/// A partition's store opened for its crawl: restored first when a backup is newer, claimed
/// under the lease's epoch, its marks raised.
pub(crate) struct Opened {
    store: PageStore,
    /// The backup it was restored from, when it was.
    restored: Option<BackupRecord>,
}

impl Held {
    /// Opens `lease`'s partition store under `shared.data` on a blocking thread (a restore
    /// copies the whole partition, and a store's opening replays its log: the worker goes on
    /// renewing its leases meanwhile), claims it under the lease's epoch and raises its marks
    /// to what earlier holders `confirmed` (empty but for a store taken over from a lost one:
    /// see [`PageStore::raise_marks`]).
    pub(crate) fn open(
        shared: &Shared,
        lease: &Lease,
        confirmed: Marks,
    ) -> JoinHandle<Result<Opened, NotStarted>> {
        let p = lease.partition;
        let dir = p.data_dir(&shared.data);
        let budget = shared.budget.clone();
        let partitions = shared.partitions;
        let backups = shared.backups.clone();
        let lease = lease.clone();
        tokio::task::spawn_blocking(move || {
            let (mut store, restored) = open(&dir, &budget, partitions, &lease, backups.as_ref())?;
            let raised = store
                .raise_marks(&confirmed)
                .map_err(|e| NotStarted::Failed(e.into()))?;
            if !raised.is_empty() {
                info!(partition = %p, ?raised, "marks raised to what earlier holders confirmed: their parcels are not in this store");
            }
            Ok(Opened { store, restored })
        })
    }

    /// Starts the crawl of `lease`'s partition on its `opened` store.
    pub(crate) fn start(shared: &Shared, lease: Lease, opened: Opened) -> Result<Self, Error> {
        let p = lease.partition;
        let Opened { store, restored } = opened;
        let (inbox, inbox_rx) = mpsc::channel(INBOX);
        let (state_tx, state) = watch::channel(PartitionState::default());
        let (let_go, let_go_rx) = watch::channel(false);
        let sink = Arc::new(shared.redis.clone());
        let mut role = PartitionRole::new(
            p,
            sink.clone(),
            &store,
            inbox_rx,
            shared.slots.clone(),
            state_tx,
            let_go_rx,
        );
        if let Some(backups) = &shared.backups {
            role = role.with_backups(backup::partition_dir(&backups.dir, p), backups.every, sink);
        }
        let options = CrawlOptions {
            data: p.data_dir(&shared.data),
            ..shared.options.clone()
        };
        let crawler = Crawler::for_partition(
            options,
            store,
            shared.fetcher.clone(),
            shared.renderer.clone(),
            role,
        )?
        .with_metrics(shared.metrics.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        let crawl = tokio::spawn(crawler.run(async move {
            let _ = stopped.await;
        }));
        Ok(Self {
            lease,
            stop: Some(stop),
            let_go,
            crawl,
            state,
            inbox,
            published: None,
            restored,
        })
    }

    /// The partition.
    pub(crate) fn partition(&self) -> PartitionId {
        self.lease.partition
    }

    /// Asks the crawl to end: `Ending::Drain` after its fetches in flight, `Ending::Now`
    /// at once (they are dropped, and fetched again by the next owner).
    pub(crate) fn end(&mut self, ending: Ending) {
        match ending {
            Ending::Drain => {
                self.let_go.send_replace(true);
            }
            Ending::Now => {
                if let Some(stop) = self.stop.take() {
                    let _ = stop.send(());
                }
            }
        }
    }
}

/// How a partition's crawl ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// After the fetches in flight: the partition is handed on.
    Drain,
    /// At once: its lease is lost, or the worker is asked to stop.
    Now,
}

fn open(
    dir: &Path,
    budget: &MemoryBudget,
    partitions: Partitions,
    lease: &Lease,
    backups: Option<&Backups>,
) -> Result<(PageStore, Option<BackupRecord>), NotStarted> {
    if let Err(e) = std::fs::create_dir_all(dir) {
        return Err(NotStarted::Failed(Error::Cluster(format!(
            "cannot make {}: {e}",
            dir.display()
        ))));
    }
    let mut store = open_store(dir, budget)?;
    let mut restored = None;
    if let Some(backups) = backups {
        // A store that is not here, or older than the newest backup (another machine held
        // the partition since): the backup.
        let from = backup::partition_dir(&backups.dir, lease.partition);
        if let Some(newest) = backup::newest(&from) {
            let here = store
                .stamp_epoch()
                .map_err(|e| NotStarted::Failed(e.into()))?;
            if here.is_none_or(|epoch| epoch < newest.epoch) {
                drop(store);
                backup::restore(&from, dir).map_err(|e| NotStarted::Failed(e.into()))?;
                store = open_store(dir, budget)?;
                restored = Some(newest);
            }
        }
    }
    store
        .claim_partition(
            partitions,
            lease.partition,
            lease.epoch,
            lease.fence.clone(),
        )
        .map_err(|e| match e {
            StoreError::StaleEpoch { stamp, .. } => NotStarted::StaleEpoch { stamp },
            e => NotStarted::Failed(e.into()),
        })?;
    Ok((store, restored))
}

/// Opens a partition's store for writing; busy while another process has it.
fn open_store(dir: &Path, budget: &MemoryBudget) -> Result<PageStore, NotStarted> {
    match PageStore::open_within(dir, budget) {
        Ok(store) => Ok(store),
        Err(StoreError::Locked(_)) => Err(NotStarted::StoreBusy),
        Err(e) => Err(NotStarted::Failed(e.into())),
    }
}
