//! The crawl loop's part in a distributed crawl: a crawl that runs one partition of it
//! (`crawler worker`) takes the links other partitions send, sends its outbox, shares the
//! worker's fetch slots with the worker's other partitions, and tells the worker its state.
//! A single-machine crawl has no role and none of this.
//!
//! The crawl owns this interface and the cluster fills it: the inbox of [`Delivery`]s (the
//! worker's stream reader sends them), the [`OutboxSink`] (Redis streams, in
//! `cluster/links.rs`), the worker's fetch slots and the [`PartitionState`] it reads.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use shared::partition::PartitionId;
use shared::record::OutboxLink;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::{Duration, Instant};
use tracing::warn;

use super::CrawlProgress;
use crate::error::Error;
use crate::frontier::Frontier;
use crate::store::{ArrivedLink, PageStore};

/// Outbox links sent in one go.
const SEND_BATCH: usize = 1024;
/// How long a failed send waits before the next try.
const SEND_RETRY: Duration = Duration::from_millis(500);

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

/// Links that arrived for one partition, to be applied in one store batch. `through` is
/// the inbox position read up to: after applying, the partition has applied its stream that
/// far.
#[derive(Debug)]
pub(crate) struct Delivery {
    pub(crate) links: Vec<ArrivedLink>,
    pub(crate) through: EntryId,
    /// Told once the links are in the store.
    pub(crate) applied: Option<oneshot::Sender<()>>,
}

/// Why links were not sent: they stay in the outbox and are sent again.
pub(crate) type SendError = Box<dyn std::error::Error + Send + Sync>;

/// Where a partition's outbox goes: the inboxes of the partitions its links belong to.
pub(crate) trait OutboxSink: Send + Sync {
    /// Sends `links` (outbox sequence numbers and links) from `source`; done when the
    /// other side holds them, so the outbox may let them go.
    fn send(
        &self,
        source: PartitionId,
        links: Vec<(u64, OutboxLink)>,
    ) -> BoxFuture<'static, Result<(), SendError>>;
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
    pub(crate) partition: PartitionId,
    /// Where the outbox goes.
    outbox: Arc<dyn OutboxSink>,
    /// Links that arrived, from the worker's stream reader.
    pub(crate) inbox: mpsc::Receiver<Delivery>,
    /// The worker's fetch slots, shared by its partitions.
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) state: watch::Sender<PartitionState>,
    /// Turns true when the worker lets the partition go; `None` once seen.
    let_go: Option<watch::Receiver<bool>>,
    /// The send under way: the last sequence number and the count it sends.
    sending: Option<Sending>,
    /// After a failed send: not before this.
    send_after: Option<Instant>,
    /// A slot the loop waited for and got, kept for its next fetch.
    spare_slot: Option<OwnedSemaphorePermit>,
    applied_through: Option<EntryId>,
}

/// An outbox send under way.
struct Sending {
    /// The last outbox sequence number it sends.
    last: u64,
    /// How many links it sends.
    count: u64,
    task: JoinHandle<Result<(), SendError>>,
}

/// What woke the loop for the role.
pub(crate) enum RoleEvent {
    Delivered(Delivery),
    Sent(Result<(), SendError>),
    /// A fetch slot came free (the loop was waiting for one): kept for the next fetch.
    Slot(OwnedSemaphorePermit),
    /// A pause after a failed send ended.
    SendAgain,
    LetGo,
}

impl PartitionRole {
    pub(crate) fn new(
        partition: PartitionId,
        outbox: Arc<dyn OutboxSink>,
        inbox: mpsc::Receiver<Delivery>,
        slots: Arc<Semaphore>,
        state: watch::Sender<PartitionState>,
        let_go: watch::Receiver<bool>,
    ) -> Self {
        Self {
            partition,
            outbox,
            inbox,
            slots,
            state,
            let_go: Some(let_go),
            sending: None,
            send_after: None,
            spare_slot: None,
            applied_through: None,
        }
    }

    /// A fetch slot, if one is free.
    pub(crate) fn slot(&mut self) -> Option<OwnedSemaphorePermit> {
        self.spare_slot
            .take()
            .or_else(|| self.slots.clone().try_acquire_owned().ok())
    }

    /// Starts sending the outbox when links wait, no send is under way and no failed one is
    /// waiting out its pause.
    pub(crate) fn pump(&mut self, store: &PageStore, now: Instant) -> Result<(), Error> {
        if self.sending.is_some()
            || store.outbox_len() == 0
            || self.send_after.is_some_and(|at| now < at)
        {
            return Ok(());
        }
        let batch = store.outbox(SEND_BATCH)?;
        let Some(&(last, _)) = batch.last() else {
            return Ok(());
        };
        let count = batch.len() as u64;
        let task = tokio::spawn(self.outbox.send(self.partition, batch));
        self.sending = Some(Sending { last, count, task });
        Ok(())
    }

    /// Waits for the next thing the role must handle; `slot_wanted`: the loop is held up for
    /// want of a fetch slot.
    pub(crate) async fn next_event(&mut self, slot_wanted: bool) -> RoleEvent {
        let send_retry = self.send_after;
        tokio::select! {
            Some(delivery) = self.inbox.recv() => RoleEvent::Delivered(delivery),
            sent = async {
                match self.sending.as_mut() {
                    Some(sending) => (&mut sending.task).await,
                    None => std::future::pending().await,
                }
            } => RoleEvent::Sent(sent.unwrap_or_else(|e| Err(SendError::from(e)))),
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
                match send_retry {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => {
                self.send_after = None;
                RoleEvent::SendAgain
            }
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
            RoleEvent::Delivered(delivery) => {
                if !delivery.links.is_empty() {
                    let queued = store.apply_links(delivery.links)?;
                    frontier.push(queued, now);
                }
                self.applied_through = self.applied_through.max(Some(delivery.through));
                if let Some(applied) = delivery.applied {
                    let _ = applied.send(());
                }
            }
            RoleEvent::Sent(result) => {
                let Some(Sending { last, count, .. }) = self.sending.take() else {
                    return Ok(false);
                };
                match result {
                    Ok(()) => {
                        shared::fail_point!("crawler::cluster::sent::before_delete", |_| {
                            std::process::abort()
                        });
                        store.outbox_sent(last, count)?;
                    }
                    Err(error) => {
                        warn!(partition = %self.partition, %error, "links to other partitions not sent: trying again");
                        self.send_after = Some(now + SEND_RETRY);
                    }
                }
            }
            RoleEvent::Slot(slot) => self.spare_slot = Some(slot),
            RoleEvent::SendAgain => {}
            RoleEvent::LetGo => return Ok(true),
        }
        Ok(false)
    }

    /// Tells the worker the crawl's state, just before the loop waits; `settled`: nothing in
    /// flight and nothing scheduled.
    pub(crate) fn report(
        &self,
        settled: bool,
        store: &PageStore,
        frontier: &Frontier,
        progress: &CrawlProgress,
    ) {
        let idle =
            settled && store.outbox_len() == 0 && self.sending.is_none() && self.inbox.is_empty();
        self.state.send_modify(|state| {
            state.idle = idle;
            state.applied_through = self.applied_through;
            state.progress = progress.clone();
            state.hosts = frontier.host_count() as u64;
        });
    }

    /// Keeps the crawl's last monitoring line for the worker's.
    pub(crate) fn keep_line(&mut self, line: Option<serde_json::Value>) {
        if line.is_some() {
            self.state.send_modify(|state| state.monitor = line);
        }
    }
}
