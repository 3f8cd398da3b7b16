//! `Held`: the partitions of a crawl a data directory holds, and the crawl's partition count
//! as their stores' stamps give it: what a machine is missing of the crawl's link signals.

use shared::partition::{PartitionId, Partitions};
use tracing::warn;

use crate::Error;
use crate::source::Source;

/// The partitions this machine holds of a crawl.
#[derive(Clone, Debug, Default)]
pub(crate) struct Held {
    /// The crawl's partitions, from the stores' stamps; `None` when no store has one (a
    /// single-machine `DATA`, or partitions crawled each by `crawler crawl`).
    pub(crate) crawl: Option<Partitions>,
    /// The partitions held here, in order.
    pub(crate) ids: Vec<PartitionId>,
}

impl Held {
    /// From the partitions found under `DATA` and their opened stores; stamps that disagree
    /// on P, or on a store's own partition, are an error.
    pub(crate) fn read(found: &[(PartitionId, &Source)]) -> Result<Self, Error> {
        let mut crawl: Option<Partitions> = None;
        for (id, source) in found {
            let Some(stamp) = source.partition_stamp()? else {
                continue;
            };
            if stamp.id != id.get() {
                return Err(Error::Partitions(format!(
                    "the store of {id} is stamped as partition {}",
                    stamp.id
                )));
            }
            let partitions = Partitions::new(stamp.partitions).ok_or_else(|| {
                Error::Partitions(format!("{id} names {} partitions", stamp.partitions))
            })?;
            match crawl {
                Some(known) if known != partitions => {
                    return Err(Error::Partitions(format!(
                        "{id} belongs to a crawl of {} partitions, others here to one of {}",
                        partitions.count(),
                        known.count()
                    )));
                }
                _ => crawl = Some(partitions),
            }
        }
        Ok(Self {
            crawl,
            ids: found.iter().map(|(id, _)| *id).collect(),
        })
    }

    /// The crawl's partitions not held here (none when the count is unknown).
    pub(crate) fn absent(&self) -> Vec<PartitionId> {
        let Some(crawl) = self.crawl else {
            return Vec::new();
        };
        crawl.all().filter(|p| !self.ids.contains(p)).collect()
    }

    /// Warns that link signals from the absent partitions are missing (a build without
    /// `--redis` on a machine holding only some of a crawl's partitions).
    pub(crate) fn warn_if_partial(&self) {
        let absent = self.absent();
        if absent.is_empty() {
            return;
        }
        let names: Vec<String> = absent.iter().take(16).map(|p| p.dir_name()).collect();
        let more = absent.len().saturating_sub(names.len());
        warn!(
            absent = absent.len(),
            partitions = self.crawl.map_or(0, Partitions::count),
            "this data directory holds {} of the crawl's {} partitions: in-links, anchor texts and \
             PageRank from pages of the others ({}{}) are missing; run `indexer build --redis URL` \
             on every machine holding some",
            self.ids.len(),
            self.crawl.map_or(0, Partitions::count),
            names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partitions_absent_are_those_of_the_crawl_not_held() {
        let held = Held {
            crawl: Partitions::new(4),
            ids: vec![PartitionId::new(0), PartitionId::new(2)],
        };
        assert_eq!(held.absent(), [PartitionId::new(1), PartitionId::new(3)]);
        let unstamped = Held {
            crawl: None,
            ids: vec![PartitionId::new(0)],
        };
        assert!(unstamped.absent().is_empty(), "unknown P: nothing to name");
    }
}
