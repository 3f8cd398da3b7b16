//! Backups of a partition's store in another directory (`crawler worker --backup DIR`: a
//! second disk, an NFS mount), so the partition outlives its machine.
//!
//! Each partition has its own RocksDB backup directory, `DIR/p-NNN`, written by RocksDB's
//! backup engine: a backup flushes the memtables and copies the files the last one lacks
//! (SST files are immutable and shared between backups, so unchanged ones are not copied
//! again); the two newest backups are kept. Beside them, `latest` records the newest
//! backup's lease epoch and time ([`BackupRecord`]).
//!
//! What a backup holds is at least what the store held when [`PageStore::backup_source`]
//! was read: the marks of the parcels applied (so the worker confirms those, and only those,
//! once the backup is written: a parcel applied since stays with its sender until a backup
//! holds it too) and the stamp's epoch.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rocksdb::backup::{BackupEngine, BackupEngineOptions, RestoreOptions};
use rocksdb::{DB, Direction, Env, IteratorMode};
use serde::{Deserialize, Serialize};
use shared::StoreError;
use shared::partition::PartitionId;
use shared::record::PartitionStamp;
use shared::store::{Cf, PARCEL_MARK_PREFIX, PARTITION_KEY, store_dir};

use super::{Marks, PageStore};

/// Backups kept per partition: the newest, and the one before while it is written.
const KEEP: usize = 2;
/// The file beside a partition's backups that says what the newest is.
const LATEST: &str = "latest";

/// What the newest backup of a partition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BackupRecord {
    /// The lease epoch of the store it was taken of.
    pub(crate) epoch: u64,
    /// When it was taken (ms since the Unix epoch).
    pub(crate) at_ms: u64,
}

/// A store to back up, read on the crawl's side; written on a blocking thread.
pub(crate) struct BackupSource {
    db: Arc<DB>,
    /// The parcels' marks, at most what the backup holds.
    pub(crate) marks: Marks,
    epoch: u64,
}

/// Where a partition's backups are.
pub(crate) fn partition_dir(backups: &Path, p: PartitionId) -> PathBuf {
    backups.join(p.dir_name())
}

impl PageStore {
    /// The lease epoch the store was last claimed under (`None`: never claimed, a new
    /// store).
    pub(crate) fn stamp_epoch(&self) -> Result<Option<u64>, StoreError> {
        Ok(self
            .get::<PartitionStamp>(Cf::Meta, PARTITION_KEY)?
            .map(|stamp| stamp.epoch))
    }

    /// What a backup of the store needs, read now.
    pub(crate) fn backup_source(&self) -> Result<BackupSource, StoreError> {
        let mut marks = Marks::new();
        let meta = self.cf(Cf::Meta);
        let from = IteratorMode::From(PARCEL_MARK_PREFIX, Direction::Forward);
        for item in self.db.iterator_cf(meta, from) {
            let (key, value) = item?;
            let Some(rest) = key.strip_prefix(PARCEL_MARK_PREFIX) else {
                break;
            };
            let (Ok(source), Ok(mark)) = (
                <[u8; 4]>::try_from(rest).map(u32::from_be_bytes),
                <[u8; 8]>::try_from(value.as_ref()).map(u64::from_be_bytes),
            ) else {
                continue;
            };
            marks.push((PartitionId::new(source), mark));
        }
        let epoch = self.stamp_epoch()?.unwrap_or(0);
        Ok(BackupSource {
            db: self.db.clone(),
            marks,
            epoch,
        })
    }
}

impl BackupSource {
    /// Writes a backup in `dir` (a partition's backup directory), and its record.
    pub(crate) fn write(&self, dir: &Path, at_ms: u64) -> Result<BackupRecord, StoreError> {
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            StoreError::Backup(format!("{what} {}: {e}", dir.display()))
        };
        std::fs::create_dir_all(dir).map_err(|e| failed("cannot make", &e))?;
        if let Some(newer) = newest(dir).filter(|newest| newest.epoch > self.epoch) {
            // The partition moved on (a later holder backed it up): this store is stale.
            return Err(StoreError::Backup(format!(
                "{} holds a backup under lease epoch {}, newer than this store's {}: not \
                 replaced",
                dir.display(),
                newer.epoch,
                self.epoch
            )));
        }
        let mut engine = engine(dir)?;
        engine
            .create_new_backup_flush(&*self.db, true)
            .map_err(|e| failed("cannot back up into", &e))?;
        engine
            .purge_old_backups(KEEP)
            .map_err(|e| failed("cannot purge old backups in", &e))?;
        let record = BackupRecord {
            epoch: self.epoch,
            at_ms,
        };
        let text = serde_json::to_string(&record).unwrap_or_default();
        let tmp = dir.join(format!("{LATEST}.tmp"));
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, dir.join(LATEST)))
            .map_err(|e| failed("cannot record the backup in", &e))?;
        Ok(record)
    }
}

/// The newest backup in a partition's backup directory, if any.
pub(crate) fn newest(dir: &Path) -> Option<BackupRecord> {
    let text = std::fs::read_to_string(dir.join(LATEST)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Replaces the store in `data` with the newest backup in `dir`.
pub(crate) fn restore(dir: &Path, data: &Path) -> Result<(), StoreError> {
    let path = store_dir(data);
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        StoreError::Backup(format!("{what} {}: {e}", path.display()))
    };
    if path.exists() {
        std::fs::remove_dir_all(&path).map_err(|e| failed("cannot clear", &e))?;
    }
    let mut engine = engine(dir)?;
    engine
        .restore_from_latest_backup(&path, &path, &RestoreOptions::default())
        .map_err(|e| failed("cannot restore into", &e))
}

fn engine(dir: &Path) -> Result<BackupEngine, StoreError> {
    let failed = |e: rocksdb::Error| StoreError::Backup(format!("{}: {e}", dir.display()));
    let options = BackupEngineOptions::new(dir).map_err(failed)?;
    let env = Env::new().map_err(failed)?;
    BackupEngine::open(&options, &env).map_err(failed)
}

#[cfg(test)]
mod tests {
    use shared::partition::Partitions;
    use shared::record::FrontierEntry;
    use tokio::time::{Duration, Instant};

    use super::*;
    use crate::store::{ArrivedParcel, Fence};

    fn files_in(dir: &Path) -> std::collections::BTreeSet<String> {
        let mut names = std::collections::BTreeSet::new();
        for entry in walk(dir) {
            names.insert(entry.strip_prefix(dir).unwrap().display().to_string());
        }
        names
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
        out
    }

    #[test]
    fn backups_copy_only_new_files_and_restore_the_newest() {
        let data = tempfile::tempdir().unwrap();
        let backups = tempfile::tempdir().unwrap();
        let partitions = Partitions::new(4).unwrap();
        let own = partitions.of_host("a.test");
        let source = PartitionId::new((own.get() + 1) % 4);
        let dir = partition_dir(backups.path(), own);
        let parcel = |number: u64, n: usize| ArrivedParcel {
            source: Some(source),
            number,
            links: (0..n)
                .map(|i| FrontierEntry::page(format!("http://a.test/{number}/{i}"), 1))
                .collect(),
        };
        let mut store = PageStore::open(data.path()).unwrap();
        let fence = Fence::until(Instant::now() + Duration::from_secs(3600));
        store.claim_partition(partitions, own, 3, fence).unwrap();
        store.apply_parcels(vec![parcel(1, 500)]).unwrap();
        let first = store.backup_source().unwrap();
        assert_eq!(first.marks, vec![(source, 1)]);
        let record = first.write(&dir, 1_000).unwrap();
        assert_eq!(
            record,
            BackupRecord {
                epoch: 3,
                at_ms: 1_000
            }
        );
        let after_first = files_in(&dir);

        // More pages, a second backup: only the new files are copied.
        store.apply_parcels(vec![parcel(2, 20)]).unwrap();
        let second = store.backup_source().unwrap();
        assert_eq!(second.marks, vec![(source, 2)]);
        second.write(&dir, 2_000).unwrap();
        let after_second = files_in(&dir);
        let shared: Vec<_> = after_first.iter().filter(|f| f.contains(".sst")).collect();
        assert!(!shared.is_empty(), "{after_first:?}");
        assert!(
            shared.iter().all(|f| after_second.contains(*f)),
            "the first backup's table files are kept and shared: {after_first:?} {after_second:?}"
        );
        let new_tables = after_second
            .iter()
            .filter(|f| f.contains(".sst") && !after_first.contains(*f))
            .count();
        assert!(
            new_tables < shared.len() + 1 && new_tables > 0,
            "the second backup copies its new tables only: {new_tables} new of {}",
            after_second.len()
        );
        assert_eq!(
            newest(&dir),
            Some(BackupRecord {
                epoch: 3,
                at_ms: 2_000
            })
        );

        // Written after the backup: lost by a restore.
        store.apply_parcels(vec![parcel(3, 5)]).unwrap();
        assert_eq!(store.stamp_epoch().unwrap(), Some(3));
        drop(store);
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(
            PageStore::open(elsewhere.path())
                .unwrap()
                .stamp_epoch()
                .unwrap(),
            None
        );
        restore(&dir, elsewhere.path()).unwrap();
        let restored = shared::StoreReader::open(elsewhere.path()).unwrap();
        assert_eq!(
            restored.frontier_len(),
            520,
            "the second backup's URLs, not the third's"
        );
        drop(restored);
        assert_eq!(
            PageStore::open(elsewhere.path())
                .unwrap()
                .stamp_epoch()
                .unwrap(),
            Some(3)
        );
        // A restore replaces what is there.
        restore(&dir, data.path()).unwrap();
        assert_eq!(
            shared::StoreReader::open(data.path())
                .unwrap()
                .frontier_len(),
            520
        );
    }
}
