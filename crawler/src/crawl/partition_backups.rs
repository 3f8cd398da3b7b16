//! A partition's backups while it is crawled (`crawler worker --backup`): every interval,
//! what the store holds is backed up on a blocking thread (`store/backup.rs`); once it is
//! written, the parcels it holds are confirmed to their senders and the backup recorded in
//! Redis (the sink's [`OutboxSink::backed_up`]). A backup that fails is said and tried again
//! an interval later.
//!
//! Senders wait for those confirmations, and the crawl ends only when nothing is left
//! unconfirmed, so a partition that settles (nothing to fetch, nothing in flight) with
//! parcels applied since its last backup is backed up within [`SETTLED_BACKUP`] rather than
//! at its next interval: the crawl's end waits about a second, not up to an interval.

use std::path::PathBuf;
use std::sync::Arc;

use shared::StoreError;
use shared::partition::PartitionId;
use tokio::task::JoinHandle;
use tokio::time::{Duration, Instant};
use tracing::{debug, warn};

use super::parcel_send::OutboxSink;
use crate::error::Error;
use crate::store::backup::{BackupRecord, BackupSource};
use crate::store::{Marks, PageStore};

/// How soon a partition that settled with parcels applied since its last backup is backed
/// up (and never sooner than this after the last one ended, so the trickle of a crawl's last
/// links makes at most one backup a second).
pub(crate) const SETTLED_BACKUP: Duration = Duration::from_secs(1);

/// A backup written, and the marks of the parcels it holds; or why not.
type Written = Result<(BackupRecord, Marks), String>;

/// What the backups of a partition wait for.
pub(crate) enum BackupEvent {
    /// A backup is due.
    Due,
    /// The backup under way ended.
    Written(Written),
}

/// The backups of one partition.
pub(crate) struct PartitionBackups {
    partition: PartitionId,
    /// The partition's backup directory (`BACKUP/p-NNN`).
    dir: PathBuf,
    schedule: Schedule,
    writing: Option<JoinHandle<Written>>,
    sink: Arc<dyn OutboxSink>,
}

/// When a partition's next backup is due.
#[derive(Debug)]
struct Schedule {
    every: Duration,
    next: Instant,
    /// Parcels were applied since the last backup started.
    unsaved: bool,
    /// When the last backup ended (or the backups began).
    last_ended: Instant,
}

impl Schedule {
    /// The first backup an interval from `now`.
    fn new(every: Duration, now: Instant) -> Self {
        Self {
            every,
            next: now + every,
            unsaved: false,
            last_ended: now,
        }
    }

    /// The partition settled at `now`: with parcels applied since the last backup, the
    /// next one is brought forward to [`SETTLED_BACKUP`] after the last one ended.
    fn settled(&mut self, now: Instant) {
        if self.unsaved {
            let soon = (self.last_ended + SETTLED_BACKUP).max(now);
            self.next = self.next.min(soon);
        }
    }

    /// A backup starts: it holds every parcel applied so far.
    fn started(&mut self) {
        self.unsaved = false;
    }

    /// The backup under way ended at `now` (written or not): the next an interval later.
    fn ended(&mut self, now: Instant) {
        self.last_ended = now;
        self.next = now + self.every;
    }
}

impl PartitionBackups {
    /// Backups of `partition` into `dir` every `every`, the first an interval from now.
    pub(crate) fn new(
        partition: PartitionId,
        dir: PathBuf,
        every: Duration,
        sink: Arc<dyn OutboxSink>,
    ) -> Self {
        Self {
            partition,
            dir,
            schedule: Schedule::new(every, Instant::now()),
            writing: None,
            sink,
        }
    }

    /// Parcels were applied: the next backup has something senders wait for.
    pub(crate) fn applied(&mut self) {
        self.schedule.unsaved = true;
    }

    /// The partition settled at `now`: parcels applied since the last backup get one soon.
    pub(crate) fn settled(&mut self, now: Instant) {
        if self.writing.is_none() {
            self.schedule.settled(now);
        }
    }

    /// Waits until a backup is due, or the one under way ends.
    pub(crate) async fn next(&mut self) -> BackupEvent {
        match self.writing.as_mut() {
            Some(task) => {
                let written = task.await.unwrap_or_else(|e| Err(e.to_string()));
                self.writing = None;
                BackupEvent::Written(written)
            }
            None => {
                tokio::time::sleep_until(self.schedule.next).await;
                BackupEvent::Due
            }
        }
    }

    /// Writes a backup now, after the one under way if any, and says it (the crawl is
    /// ending: its next holder restores what it holds).
    pub(crate) async fn last(&mut self, source: Result<BackupSource, StoreError>) {
        if let Some(task) = self.writing.take() {
            let _ = task.await;
        }
        let written = match source {
            Ok(source) => {
                let dir = self.dir.clone();
                tokio::task::spawn_blocking(move || {
                    let record = source
                        .write(&dir, shared::now_ms())
                        .map_err(|e| e.to_string())?;
                    Ok((record, source.marks))
                })
                .await
                .unwrap_or_else(|e| Err(e.to_string()))
            }
            Err(error) => Err(error.to_string()),
        };
        match written {
            Ok((record, marks)) => {
                if let Err(error) = self.sink.backed_up(self.partition, record, marks).await {
                    warn!(partition = %self.partition, %error, "the last backup not said in Redis");
                }
            }
            Err(error) => warn!(partition = %self.partition, %error, "no last backup"),
        }
    }

    /// Handles what [`PartitionBackups::next`] answered.
    pub(crate) fn handle(&mut self, event: BackupEvent, store: &PageStore) -> Result<(), Error> {
        match event {
            BackupEvent::Due => {
                self.schedule.started();
                let source = store.backup_source()?;
                let dir = self.dir.clone();
                self.writing = Some(tokio::task::spawn_blocking(move || write(&source, &dir)));
            }
            BackupEvent::Written(Ok((record, marks))) => {
                debug!(partition = %self.partition, epoch = record.epoch, "partition backed up");
                let said = self.sink.backed_up(self.partition, record, marks);
                let partition = self.partition;
                // Said again with the next backup's marks, should this one fail.
                tokio::spawn(async move {
                    if let Err(error) = said.await {
                        debug!(%partition, %error, "a backup not yet said in Redis");
                    }
                });
                self.schedule.ended(Instant::now());
            }
            BackupEvent::Written(Err(error)) => {
                warn!(partition = %self.partition, %error, "partition not backed up: trying again at the next interval");
                self.schedule.ended(Instant::now());
            }
        }
        Ok(())
    }
}

/// Writes a backup of `source` into `dir`: the record and the marks it holds.
fn write(source: &BackupSource, dir: &std::path::Path) -> Written {
    let record = source
        .write(dir, shared::now_ms())
        .map_err(|e| e.to_string())?;
    Ok((record, source.marks.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settled_partition_with_parcels_not_backed_up_is_backed_up_within_a_second() {
        let every = Duration::from_secs(600);
        let start = Instant::now();
        let mut schedule = Schedule::new(every, start);
        schedule.settled(start);
        assert_eq!(schedule.next, start + every, "nothing applied: no hurry");

        schedule.unsaved = true;
        schedule.settled(start);
        assert_eq!(
            schedule.next,
            start + SETTLED_BACKUP,
            "a second after the start"
        );
        schedule.started();
        let ended = start + Duration::from_secs(3);
        schedule.ended(ended);
        assert_eq!(schedule.next, ended + every);

        // The trickle of a crawl's last links: one backup a second at most.
        schedule.unsaved = true;
        let soon = ended + Duration::from_millis(100);
        schedule.settled(soon);
        assert_eq!(schedule.next, ended + SETTLED_BACKUP);
        let later = ended + Duration::from_secs(5);
        schedule.settled(later);
        assert_eq!(schedule.next, ended + SETTLED_BACKUP, "never put back");
    }
}
