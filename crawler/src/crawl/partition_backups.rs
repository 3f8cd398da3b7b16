//! A partition's backups while it is crawled (`crawler worker --backup`): every interval,
//! what the store holds is backed up on a blocking thread (`store/backup.rs`); once it is
//! written, the parcels it holds are confirmed to their senders and the backup recorded in
//! Redis (the sink's [`OutboxSink::backed_up`]). A backup that fails is said and tried again
//! an interval later.

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
    every: Duration,
    next: Instant,
    writing: Option<JoinHandle<Written>>,
    sink: Arc<dyn OutboxSink>,
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
            every,
            next: Instant::now() + every,
            writing: None,
            sink,
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
                tokio::time::sleep_until(self.next).await;
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
                self.next = Instant::now() + self.every;
            }
            BackupEvent::Written(Err(error)) => {
                warn!(partition = %self.partition, %error, "partition not backed up: trying again at the next interval");
                self.next = Instant::now() + self.every;
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
