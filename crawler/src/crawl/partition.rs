//! The crawl loop's part in a distributed crawl: a crawl that runs one partition of it
//! (`crawler worker`) takes the links other partitions send, sends its outbox, shares the
//! worker's fetch slots with the worker's other partitions, and tells the worker its state.
//! A single-machine crawl has no role and none of this.
//!
//! The crawl owns this interface and the cluster fills it: the inbox of [`Delivery`]s (the
//! worker's stream reader sends them), the [`OutboxSink`] (Redis streams, in
//! `cluster/links.rs`) behind the [`ParcelSender`], the worker's fetch slots and the
//! [`PartitionState`] it reads.

use std::sync::Arc;

use shared::partition::PartitionId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot, watch};
use tokio::time::Instant;

use super::CrawlProgress;
use super::parcel_send::{OutboxSink, ParcelSender, Receipt, SendError};
use super::partition_backups::{BackupEvent, PartitionBackups};
use crate::error::Error;
use crate::frontier::Frontier;
use crate::store::{ArrivedParcel, Marks, PageStore};

/// Where a partition's inbox stands: the ID of an entry of its links stream (milliseconds and
/// a sequence, as Redis writes them), ordered as the stream orders them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct EntryId {
    ms: u64,
    seq: u64,
}

impl EntryId {
    /// Reads `MS-SEQ`.
    pub(crate) fn parse(id: &str) -> Option<Self> {
        let (ms, seq) = id.split_once('-')?;
        Some(Self {
            ms: ms.parse().ok()?,
            seq: seq.parse().ok()?,
        })
    }

    /// The ID just after this one.
    pub(crate) fn next(self) -> Self {
        Self {
            ms: self.ms,
            seq: self.seq.saturating_add(1),
        }
    }
}

impl std::fmt::Display for EntryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.ms, self.seq)
    }
}

/// What the worker's stream reader hands a partition's crawl.
#[derive(Debug)]
pub(crate) enum Delivery {
    /// Parcels to apply in one store batch; after them the partition has applied its
    /// stream up to `through`, and `applied` is told the marks to confirm.
    Parcels {
        parcels: Vec<ArrivedParcel>,
        through: EntryId,
        applied: oneshot::Sender<Marks>,
    },
    /// The reader took the stream (again): every entry up to this one is applied or was
    /// delivered just before. It may be below what was applied before (a Redis that lost
    /// the stream started it anew).
    TakenAt(EntryId),
}

/// What a partition's crawl tells its worker, replaced at every turn of the loop.
#[derive(Clone, Debug, Default)]
pub(crate) struct PartitionState {
    /// Nothing to fetch, nothing in flight, nothing to send, nothing arrived unapplied.
    pub(crate) idle: bool,
    /// The partition's stream is applied up to here; `None` until the worker's reader has
    /// said where the stream stood when the partition was taken.
    pub(crate) applied_through: Option<EntryId>,
    /// The crawl's figures.
    pub(crate) progress: CrawlProgress,
    /// Hosts the crawl knows.
    pub(crate) hosts: u64,
    /// The last monitoring line (every 5 s).
    pub(crate) monitor: Option<serde_json::Value>,
}

/// A crawl's role as one partition of a distributed crawl.
pub(crate) struct PartitionRole {
    partition: PartitionId,
    /// Where the outbox goes.
    sender: ParcelSender,
    /// When the sender next wants to send, as [`PartitionRole::pump`] left it.
    send_at: Option<Instant>,
    /// The partition's backups, when the worker makes them: then a parcel is confirmed to
    /// its sender only once a backup holds it.
    backups: Option<PartitionBackups>,
    /// Links that arrived, from the worker's stream reader.
    pub(crate) inbox: mpsc::Receiver<Delivery>,
    /// The worker's fetch slots, shared by its partitions.
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) state: watch::Sender<PartitionState>,
    /// Turns true when the worker lets the partition go; `None` once seen.
    let_go: Option<watch::Receiver<bool>>,
    /// A slot the loop waited for and got, kept for its next fetch.
    spare_slot: Option<OwnedSemaphorePermit>,
    applied_through: Option<EntryId>,
}

/// What woke the loop for the role.
pub(crate) enum RoleEvent {
    Delivered(Delivery),
    Sent(Result<Receipt, SendError>),
    /// A fetch slot came free (the loop was waiting for one): kept for the next fetch.
    Slot(OwnedSemaphorePermit),
    /// The sender's wait ended (a pause after a failure, or a poll's time).
    SendAgain,
    /// A backup is due, or one ended.
    Backup(BackupEvent),
    LetGo,
}

impl PartitionRole {
    pub(crate) fn new(
        partition: PartitionId,
        outbox: Arc<dyn OutboxSink>,
        store: &PageStore,
        inbox: mpsc::Receiver<Delivery>,
        slots: Arc<Semaphore>,
        state: watch::Sender<PartitionState>,
        let_go: watch::Receiver<bool>,
    ) -> Self {
        Self {
            partition,
            backups: None,
            sender: ParcelSender::new(partition, outbox, store),
            send_at: None,
            inbox,
            slots,
            state,
            let_go: Some(let_go),
            spare_slot: None,
            applied_through: None,
        }
    }

    /// Backs the partition up into `dir` every `every` (the worker's `--backup`); parcels are
    /// then confirmed to their senders only once a backup holds them.
    pub(crate) fn with_backups(
        mut self,
        dir: std::path::PathBuf,
        every: std::time::Duration,
        sink: Arc<dyn OutboxSink>,
    ) -> Self {
        self.backups = Some(PartitionBackups::new(self.partition, dir, every, sink));
        self
    }

    /// A fetch slot, if one is free.
    pub(crate) fn slot(&mut self) -> Option<OwnedSemaphorePermit> {
        self.spare_slot
            .take()
            .or_else(|| self.slots.clone().try_acquire_owned().ok())
    }

    /// Starts the next send of parcels, if one is due (and notes when the sender next wants
    /// to send, for [`PartitionRole::next_event`]).
    pub(crate) fn pump(&mut self, store: &mut PageStore, now: Instant) -> Result<(), Error> {
        self.sender.pump(store, now)?;
        self.send_at = self.sender.wakes_at(store);
        Ok(())
    }

    /// The next event of `role`; never, on one machine (no role).
    pub(crate) async fn next_event_of(role: &mut Option<Self>, slot_wanted: bool) -> RoleEvent {
        match role {
            Some(role) => role.next_event(slot_wanted).await,
            None => std::future::pending().await,
        }
    }

    /// Waits for the next thing the role must handle; `slot_wanted`: the loop is held up for
    /// want of a fetch slot.
    pub(crate) async fn next_event(&mut self, slot_wanted: bool) -> RoleEvent {
        let send_at = self.send_at;
        tokio::select! {
            Some(delivery) = self.inbox.recv() => RoleEvent::Delivered(delivery),
            sent = self.sender.sent() => RoleEvent::Sent(sent),
            Ok(slot) = self.slots.clone().acquire_owned(), if slot_wanted => RoleEvent::Slot(slot),
            () = async {
                match self.let_go.as_mut() {
                    Some(let_go) => {
                        let _ = let_go.wait_for(|go| *go).await;
                    }
                    None => std::future::pending().await,
                }
            } => {
                self.let_go = None;
                RoleEvent::LetGo
            }
            () = async {
                match send_at {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => RoleEvent::SendAgain,
            event = async {
                match self.backups.as_mut() {
                    Some(backups) => backups.next().await,
                    None => std::future::pending().await,
                }
            } => RoleEvent::Backup(event),
        }
    }

    /// Handles what [`PartitionRole::next_event`] answered; true when the partition is let
    /// go.
    pub(crate) fn handle(
        &mut self,
        event: RoleEvent,
        store: &mut PageStore,
        frontier: &mut Frontier,
    ) -> Result<bool, Error> {
        let now = Instant::now();
        match event {
            RoleEvent::Delivered(Delivery::Parcels {
                parcels,
                through,
                applied,
            }) => {
                let (queued, marks) = store.apply_parcels(parcels)?;
                frontier.push(queued, now);
                self.applied_through = self.applied_through.max(Some(through));
                // With backups, a parcel is confirmed once a backup holds it.
                let confirm = match self.backups.as_mut() {
                    Some(backups) => {
                        backups.applied();
                        Marks::new()
                    }
                    None => marks,
                };
                let _ = applied.send(confirm);
            }
            RoleEvent::Delivered(Delivery::TakenAt(through)) => {
                self.applied_through = Some(through);
            }
            RoleEvent::Sent(result) => self.sender.handle(result, store, now)?,
            RoleEvent::Backup(event) => {
                if let Some(backups) = self.backups.as_mut() {
                    backups.handle(event, store)?;
                }
            }
            RoleEvent::Slot(slot) => self.spare_slot = Some(slot),
            RoleEvent::SendAgain => {}
            RoleEvent::LetGo => return Ok(true),
        }
        Ok(false)
    }

    /// Tells the worker the crawl's state, just before the loop waits; `settled`: nothing in
    /// flight and nothing scheduled. A settled partition's parcels not yet in a backup get
    /// one soon (their senders wait for it).
    pub(crate) fn report(
        &mut self,
        settled: bool,
        store: &PageStore,
        frontier: &Frontier,
        progress: &CrawlProgress,
    ) {
        if let (true, Some(backups)) = (settled, self.backups.as_mut()) {
            backups.settled(Instant::now());
        }
        let idle = settled && self.sender.is_done(store) && self.inbox.is_empty();
        self.state.send_modify(|state| {
            state.idle = idle;
            state.applied_through = self.applied_through;
            state.progress = progress.clone();
            state.hosts = frontier.host_count() as u64;
        });
    }

    /// Backs the store up once more, as it is at the crawl's end, when the worker makes
    /// backups.
    pub(crate) fn last_backup(
        &mut self,
        store: &PageStore,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        // Read now: the store stays on the crawl's side.
        let source = self.backups.as_ref().map(|_| store.backup_source());
        async move {
            if let (Some(backups), Some(source)) = (self.backups.as_mut(), source) {
                backups.last(source).await;
            }
        }
    }

    /// Keeps the crawl's last monitoring line for the worker's.
    pub(crate) fn keep_line(&mut self, line: Option<serde_json::Value>) {
        if line.is_some() {
            self.state.send_modify(|state| state.monitor = line);
        }
    }
}
