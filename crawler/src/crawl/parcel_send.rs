//! A partition's parcels on their way to the other partitions: the outbox made into parcels
//! and sent, the targets' confirmations taken in (each send brings them back), and every
//! unconfirmed parcel sent again whenever it may have been lost.
//!
//! Redis acknowledges a parcel and may still lose it: a restart without its data, a
//! failover to a replica that never had it, a `FLUSHALL`. The first two break the connection
//! the parcel went on; the first and the last lose the token of Redis's data
//! (`sift:instance`). So each send says where it went ([`SentOn`]: the connection and the
//! token); when a send goes elsewhere than every unconfirmed parcel went, a *pass* sends every
//! unconfirmed parcel again, in order, before anything new. A pass is also made when the
//! partition is taken (what was sent before may be lost), after a failed send, and when no
//! confirmation has come for [`STALLED`] (a parcel lost some way no one saw: the crawl is
//! never left waiting for ever). The targets skip what they applied before, and confirm
//! again.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use shared::partition::PartitionId;
use shared::record::LinkParcel;
use tokio::task::JoinHandle;
use tokio::time::{Duration, Instant};
use tracing::{debug, warn};

use crate::error::Error;
use crate::store::backup::BackupRecord;
use crate::store::{Marks, PageStore, SentCursor};

/// Links sent in one go (a parcel may carry fewer; one parcel is sent however large).
const SEND_BATCH: usize = 1024;
/// How long a failed send waits before the next try.
const SEND_RETRY: Duration = Duration::from_millis(500);
/// How often a partition with nothing to send asks for its parcels' confirmations.
const CONFIRM_POLL: Duration = Duration::from_millis(300);
/// Unconfirmed parcels whose confirmations have not moved for this long are sent again.
const STALLED: Duration = Duration::from_secs(120);

/// Why parcels were not sent: they stay in `sent` and are sent again.
pub(crate) type SendError = Box<dyn std::error::Error + Send + Sync>;

/// Where a send went: parcels sent to the same place are all kept, or all lost together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SentOn {
    /// The connection: a new one after any failure (perhaps to a Redis that lost what the
    /// old one accepted).
    pub(crate) connection: u64,
    /// The token of Redis's data, which a Redis that lost its data no longer has.
    pub(crate) instance: String,
}

/// What a send brought back.
#[derive(Clone, Debug, Default)]
pub(crate) struct Receipt {
    /// Per target, in order, the number up to which it applied this partition's parcels.
    pub(crate) confirmed: Marks,
    pub(crate) sent_on: SentOn,
}

/// Where a partition's parcels go: the streams of the partitions they belong to.
pub(crate) trait OutboxSink: Send + Sync {
    /// Sends `parcels` (target, parcel) from `source`, in order, and reads the targets'
    /// confirmations of `source`'s parcels; with no parcels, only reads them.
    fn send(
        &self,
        source: PartitionId,
        parcels: Vec<(PartitionId, LinkParcel)>,
    ) -> BoxFuture<'static, Result<Receipt, SendError>>;

    /// Says that partition `target` holds `record`, a backup holding every parcel up to
    /// `marks`: confirmed to their senders.
    fn backed_up(
        &self,
        target: PartitionId,
        record: BackupRecord,
        marks: Marks,
    ) -> BoxFuture<'static, Result<(), SendError>>;
}

/// What a send carries.
#[derive(Clone, Copy, Debug)]
enum Carrying {
    /// New parcels, just made of the outbox.
    New,
    /// Unconfirmed parcels again, up to this one, in a pass.
    Again(SentCursor),
    /// Nothing: it asks for confirmations.
    Nothing,
}

/// A send under way.
struct Sending {
    carrying: Carrying,
    task: JoinHandle<Result<Receipt, SendError>>,
}

/// A pass over the unconfirmed parcels, sending each again.
#[derive(Clone, Debug, Default)]
struct Pass {
    /// The last parcel sent in this pass (`None`: none yet).
    after: Option<SentCursor>,
    /// Where the pass's sends went; elsewhere starts the pass again.
    sent_on: Option<SentOn>,
}

/// The sending side of a partition's links.
pub(crate) struct ParcelSender {
    partition: PartitionId,
    sink: Arc<dyn OutboxSink>,
    sending: Option<Sending>,
    /// After a failed send: no send before this.
    retry_at: Option<Instant>,
    /// No poll for confirmations before this.
    poll_at: Instant,
    /// A pass under way (or due).
    pass: Option<Pass>,
    /// Where every unconfirmed parcel went (`None`: none waits).
    sent_on: Option<SentOn>,
    /// The confirmations last read, and since when they stand still.
    confirmed: Marks,
    confirmed_since: Instant,
}

impl ParcelSender {
    /// The sender of `partition`, whose store holds what it sent before: all of that is sent
    /// again first.
    pub(crate) fn new(
        partition: PartitionId,
        sink: Arc<dyn OutboxSink>,
        store: &PageStore,
    ) -> Self {
        Self {
            partition,
            sink,
            sending: None,
            retry_at: None,
            poll_at: Instant::now(),
            pass: store.has_unconfirmed().then(Pass::default),
            sent_on: None,
            confirmed: Marks::new(),
            confirmed_since: Instant::now(),
        }
    }

    /// Whether nothing is left to send or to be confirmed.
    pub(crate) fn is_done(&self, store: &PageStore) -> bool {
        self.sending.is_none() && store.outbox_len() == 0 && !store.has_unconfirmed()
    }

    /// When the sender next wants to send, if it waits for a time: the end of a pause after
    /// a failure, or its next poll for confirmations.
    pub(crate) fn wakes_at(&self, store: &PageStore) -> Option<Instant> {
        if self.sending.is_some() {
            return None;
        }
        self.retry_at
            .or_else(|| store.has_unconfirmed().then_some(self.poll_at))
    }

    /// Starts the next send, if one is due and none is under way: a pass's next parcels,
    /// else the outbox's, else a poll for confirmations.
    pub(crate) fn pump(&mut self, store: &mut PageStore, now: Instant) -> Result<(), Error> {
        if self.sending.is_some() || self.retry_at.is_some_and(|at| now < at) {
            return Ok(());
        }
        self.retry_at = None;
        let (carrying, parcels) = if let Some(pass) = &self.pass {
            let parcels = store.unconfirmed(pass.after, SEND_BATCH)?;
            match parcels.last() {
                Some((target, parcel)) => (Carrying::Again((target.get(), parcel.number)), parcels),
                None => {
                    // The pass is over: every unconfirmed parcel went where its sends did.
                    let pass = self.pass.take().unwrap_or_default();
                    debug!(partition = %self.partition, sent_on = ?pass.sent_on, "every unconfirmed parcel sent again");
                    self.sent_on = pass.sent_on.filter(|_| store.has_unconfirmed());
                    return self.pump(store, now);
                }
            }
        } else if store.outbox_len() > 0 {
            (Carrying::New, store.parcel_outbox(SEND_BATCH)?)
        } else if store.has_unconfirmed() && now >= self.poll_at {
            (Carrying::Nothing, Vec::new())
        } else {
            return Ok(());
        };
        let task = tokio::spawn(self.sink.send(self.partition, parcels));
        self.sending = Some(Sending { carrying, task });
        Ok(())
    }

    /// Waits for the send under way (for ever when there is none).
    pub(crate) async fn sent(&mut self) -> Result<Receipt, SendError> {
        match self.sending.as_mut() {
            Some(sending) => (&mut sending.task)
                .await
                .unwrap_or_else(|e| Err(SendError::from(e))),
            None => std::future::pending().await,
        }
    }

    /// Takes in the answer of the send [`ParcelSender::sent`] waited for.
    pub(crate) fn handle(
        &mut self,
        result: Result<Receipt, SendError>,
        store: &mut PageStore,
        now: Instant,
    ) -> Result<(), Error> {
        let Some(Sending { carrying, .. }) = self.sending.take() else {
            return Ok(());
        };
        let receipt = match result {
            Ok(receipt) => receipt,
            Err(error) => {
                warn!(partition = %self.partition, %error, "links to other partitions not sent: trying again");
                // What went out, and what went before, may or may not be in Redis.
                self.pass = Some(Pass::default());
                self.retry_at = Some(now + SEND_RETRY);
                return Ok(());
            }
        };
        shared::fail_point!("crawler::cluster::sent::before_confirmed", |_| {
            std::process::abort()
        });
        store.confirmed(&receipt.confirmed)?;
        if receipt.confirmed != self.confirmed || !store.has_unconfirmed() {
            self.confirmed = receipt.confirmed;
            self.confirmed_since = now;
        } else if self.pass.is_none() && now - self.confirmed_since >= STALLED {
            warn!(partition = %self.partition, "no confirmation of its parcels for {STALLED:?}: every unconfirmed one goes again");
            self.pass = Some(Pass::default());
            self.confirmed_since = now;
        }
        let on = receipt.sent_on;
        match (carrying, self.pass.as_mut()) {
            (Carrying::Again(last), Some(pass)) => {
                if pass.sent_on.as_ref().is_some_and(|s| *s != on) {
                    // Elsewhere mid-pass: what the pass sent may be lost too.
                    *pass = Pass::default();
                } else {
                    *pass = Pass {
                        after: Some(last),
                        sent_on: Some(on),
                    };
                }
            }
            _ if !store.has_unconfirmed() => self.sent_on = None,
            _ => match &self.sent_on {
                None => self.sent_on = Some(on),
                Some(s) if *s == on => {}
                Some(before) => {
                    debug!(partition = %self.partition, ?before, now = ?on, "sent elsewhere than before: every unconfirmed parcel goes again");
                    self.pass.get_or_insert_with(Pass::default);
                }
            },
        }
        // Each send brought the confirmations: the next poll is one poll's time after it.
        self.poll_at = now + CONFIRM_POLL;
        Ok(())
    }
}
