//! Partitions of a distributed crawl: which partition a host belongs to, and where each
//! partition lives under a data directory.
//!
//! A crawl run by `crawler worker` is cut into P partitions, fixed for its life. A host's
//! partition is `xxh3_64(host) mod P`, so every URL of a host (whatever its scheme or port)
//! lands in one partition, owned by one worker at a time. Each partition is a data directory
//! of its own, `DATA/partitions/p-NNN` (its store in `store`, its index shard in `index`),
//! laid out as a single-machine crawl's `DATA`: whatever reads one data directory reads one
//! partition.
//!
//! ```
//! use shared::partition::{PartitionId, Partitions};
//! let partitions = Partitions::new(64).unwrap();
//! let p = partitions.of_host("docs.example.com");
//! assert!(p.get() < 64);
//! assert_eq!(p, partitions.of_host("docs.example.com"));
//! assert_eq!(PartitionId::new(7).dir_name(), "p-007");
//! ```

pub mod redis_address;
pub mod redis_keys;

use std::fmt;
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

/// The most partitions a crawl may have.
pub const MAX_PARTITIONS: u32 = 4096;

/// The number of partitions of a crawl: between 1 and [`MAX_PARTITIONS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partitions(u32);

impl Partitions {
    /// `count` partitions; `None` outside 1..=[`MAX_PARTITIONS`].
    pub fn new(count: u32) -> Option<Self> {
        (1..=MAX_PARTITIONS).contains(&count).then_some(Self(count))
    }

    /// How many.
    pub fn count(self) -> u32 {
        self.0
    }

    /// The partition of a host name (as a canonical URL spells it: lowercase, no port).
    pub fn of_host(self, host: &str) -> PartitionId {
        PartitionId((xxh3_64(host.as_bytes()) % u64::from(self.0)) as u32)
    }

    /// Every partition, in order.
    pub fn all(self) -> impl Iterator<Item = PartitionId> {
        (0..self.0).map(PartitionId)
    }
}

/// One partition's number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartitionId(u32);

impl PartitionId {
    /// Partition number `n`.
    pub fn new(n: u32) -> Self {
        Self(n)
    }

    /// Its number.
    pub fn get(self) -> u32 {
        self.0
    }

    /// Its directory's name under `DATA/partitions`: `p-` and at least three digits.
    pub fn dir_name(self) -> String {
        format!("p-{:03}", self.0)
    }

    /// From a directory name [`PartitionId::dir_name`] made.
    pub fn from_dir_name(name: &str) -> Option<Self> {
        let digits = name.strip_prefix("p-")?;
        if digits.len() < 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().map(Self)
    }

    /// Its data directory: `DATA/partitions/p-NNN`.
    pub fn data_dir(self, data: &Path) -> PathBuf {
        partitions_dir(data).join(self.dir_name())
    }
}

impl fmt::Display for PartitionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.dir_name())
    }
}

/// `DATA/partitions`: where a distributed crawl keeps the partitions this machine holds.
pub fn partitions_dir(data: &Path) -> PathBuf {
    data.join("partitions")
}

/// The partitions under `data` that hold a store, in order, with their data directories;
/// empty for a single-machine data directory. Entries that are not partition directories
/// are ignored.
pub fn local_partitions(data: &Path) -> std::io::Result<Vec<(PartitionId, PathBuf)>> {
    let dir = partitions_dir(data);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(PartitionId::from_dir_name) else {
            continue;
        };
        let path = entry.path();
        if crate::store::store_dir(&path).join("CURRENT").is_file() {
            found.push((id, path));
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_spread_over_the_partitions_and_stay_put() {
        let partitions = Partitions::new(8).unwrap();
        let mut counts = [0u32; 8];
        for i in 0..8000 {
            let host = format!("host{i}.example");
            let p = partitions.of_host(&host);
            assert_eq!(p, partitions.of_host(&host));
            counts[p.get() as usize] += 1;
        }
        // 1,000 expected each; xxh3 spreads within a few percent.
        assert!(
            counts.iter().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(Partitions::new(1).unwrap().of_host("a").get(), 0);
        assert!(Partitions::new(0).is_none());
        assert!(Partitions::new(MAX_PARTITIONS + 1).is_none());
    }

    #[test]
    fn directory_names_round_trip_and_strangers_are_ignored() {
        for n in [0, 7, 63, 999, 4095] {
            let id = PartitionId::new(n);
            assert_eq!(PartitionId::from_dir_name(&id.dir_name()), Some(id));
        }
        assert_eq!(PartitionId::new(1234).dir_name(), "p-1234");
        for name in ["p-1", "p-", "q-001", "p-00x", "p-0001x", "001"] {
            assert_eq!(PartitionId::from_dir_name(name), None, "{name}");
        }
    }

    #[test]
    fn local_partitions_lists_those_with_a_store() {
        let dir = tempfile::tempdir().unwrap();
        assert!(local_partitions(dir.path()).unwrap().is_empty());
        for n in [3, 1] {
            let store = crate::store::store_dir(&PartitionId::new(n).data_dir(dir.path()));
            std::fs::create_dir_all(&store).unwrap();
            std::fs::write(store.join("CURRENT"), "MANIFEST-000001\n").unwrap();
        }
        std::fs::create_dir_all(PartitionId::new(2).data_dir(dir.path())).unwrap();
        std::fs::create_dir_all(partitions_dir(dir.path()).join("notes")).unwrap();
        let found: Vec<u32> = local_partitions(dir.path())
            .unwrap()
            .into_iter()
            .map(|(id, _)| id.get())
            .collect();
        assert_eq!(found, vec![1, 3]);
    }
}
