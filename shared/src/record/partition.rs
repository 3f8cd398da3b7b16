//! The records of a distributed crawl (`crawler worker`): a link waiting in a partition's
//! outbox, links sent to a partition's stream, and a partition store's stamp.

use serde::{Deserialize, Serialize};

use super::{FrontierEntry, Record};

/// A link to a URL of another partition, waiting in the `outbox` column family until it is
/// sent to that partition's stream (see `shared::partition`). Key: its sequence number in the
/// partition that found it (u64 BE, [`crate::store::outbox_key`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboxLink {
    /// The partition that owns the URL's host.
    pub target: u32,
    /// The entry to queue there, as it would have been queued here.
    pub entry: FrontierEntry,
}

impl Record for OutboxLink {
    const KIND: &'static str = "outbox link";
    const VERSION: u8 = 1;
}

/// Links sent to one partition's stream in one message: from a partition's outbox (each with
/// its outbox sequence number) or from a worker's seed list (no source, sequence 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkParcel {
    /// The sending partition; `None` for seeds.
    pub source: Option<u32>,
    /// The links, by rising sequence number.
    pub links: Vec<(u64, FrontierEntry)>,
}

impl Record for LinkParcel {
    const KIND: &'static str = "link parcel";
    const VERSION: u8 = 1;
}

/// Which partition of a distributed crawl a store is, and the newest lease epoch that wrote
/// it. Key: [`crate::store::PARTITION_KEY`] in `meta`; absent in a single-machine store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionStamp {
    /// The crawl's number of partitions.
    pub partitions: u32,
    /// This store's partition.
    pub id: u32,
    /// The epoch of the newest lease under which a worker opened it: a worker holding an
    /// older one writes nothing.
    pub epoch: u64,
}

impl Record for PartitionStamp {
    const KIND: &'static str = "partition stamp";
    const VERSION: u8 = 1;
}
