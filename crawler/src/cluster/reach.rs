//! Where a worker can open partition stores, and where each partition's store lives.
//!
//! A partition's store is a directory on one disk. A worker can open it when it runs on that
//! data directory (processes of one machine, or a disk shared between machines), or restore
//! it when it backs up into the same backup directory (`--backup`). Each of these
//! directories carries an id of its own ([`PLACE_FILE`], written by the first worker that
//! uses it), and a worker's [`Reach`] is the pair. Redis keeps every live worker's reach and
//! every partition's *home*, the reach of the worker that last took its lease: a partition
//! goes only to workers whose reach meets its home, unless no live worker's does (its disk
//! is lost, or its machine gone past its leases), and then to any, on a fresh store.

use std::io::Write;
use std::path::Path;

use crate::error::Error;

/// The file in a data directory's `partitions` and in a backup directory that names it.
pub(crate) const PLACE_FILE: &str = "sift-place";

/// The directories a worker's stores come from, by their ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reach {
    /// The data directory's id.
    data: String,
    /// The backup directory's id, with `--backup`.
    backups: Option<String>,
}

impl Reach {
    /// The reach of a worker on `data` backing up into `backups`: each directory's id, made
    /// when it has none.
    pub(crate) fn of(data: &Path, backups: Option<&Path>) -> Result<Self, Error> {
        Ok(Self {
            data: place_id(&shared::partition::partitions_dir(data))?,
            backups: backups.map(place_id).transpose()?,
        })
    }

    /// Whether a worker of this reach can open or restore a store that lives at `home`.
    pub(crate) fn meets(&self, home: &Reach) -> bool {
        self.data == home.data || (self.backups.is_some() && self.backups == home.backups)
    }

    /// As Redis keeps it: `DATA` or `DATA BACKUPS`.
    pub(crate) fn to_value(&self) -> String {
        match &self.backups {
            Some(backups) => format!("{} {backups}", self.data),
            None => self.data.clone(),
        }
    }

    /// From [`Reach::to_value`]'s form.
    pub(crate) fn from_value(value: &str) -> Self {
        let mut ids = value.split(' ');
        Self {
            data: ids.next().unwrap_or_default().to_string(),
            backups: ids.next().map(str::to_string),
        }
    }
}

/// The id written in `dir` ([`PLACE_FILE`]); a new one when it has none.
fn place_id(dir: &Path) -> Result<String, Error> {
    let file = dir.join(PLACE_FILE);
    let cannot = |e: std::io::Error| Error::Cluster(format!("{}: {e}", file.display()));
    std::fs::create_dir_all(dir).map_err(cannot)?;
    if let Ok(id) = std::fs::read_to_string(&file) {
        let id = id.trim();
        if !id.is_empty() && !id.contains(' ') {
            return Ok(id.to_string());
        }
    }
    // Unique enough for the handful of directories of one crawl: the moment, the process
    // and the directory's path, hashed.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!("{nanos} {} {}", std::process::id(), dir.display());
    let id = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(seed.as_bytes()));
    // Written under a temporary name of its own and linked in: two workers starting on one
    // directory at once both end up with the one id that won.
    let temporary = dir.join(format!("{PLACE_FILE}.{id}"));
    let mut out = std::fs::File::create(&temporary).map_err(cannot)?;
    out.write_all(id.as_bytes()).map_err(cannot)?;
    out.sync_all().map_err(cannot)?;
    drop(out);
    let linked = std::fs::hard_link(&temporary, &file);
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => Ok(id),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let id = std::fs::read_to_string(&file).map_err(cannot)?;
            Ok(id.trim().to_string())
        }
        Err(e) => Err(cannot(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_keeps_its_id_and_reaches_meet_by_either_directory() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, shared) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("backups"),
        );
        let first = Reach::of(&a, None).unwrap();
        assert_eq!(Reach::of(&a, None).unwrap(), first, "the id is kept");
        let other = Reach::of(&b, None).unwrap();
        assert!(first.meets(&first));
        assert!(!other.meets(&first), "two disks, no backups");
        let (a_backed, b_backed) = (
            Reach::of(&a, Some(&shared)).unwrap(),
            Reach::of(&b, Some(&shared)).unwrap(),
        );
        assert!(b_backed.meets(&a_backed), "one backup directory");
        assert!(!b_backed.meets(&first), "a home without backups");
        assert!(a_backed.meets(&first), "the same data directory");
        for reach in [first, a_backed] {
            assert_eq!(Reach::from_value(&reach.to_value()), reach);
        }
    }
}
