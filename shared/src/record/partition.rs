//! The records of a distributed crawl (`crawler worker`): a link waiting in a partition's
//! outbox, links sent to a partition's stream, and a partition store's stamp.

use serde::{Deserialize, Serialize};

use super::{FrontierEntry, Record, RecordError, decode_body};

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

/// Links sent to one partition's stream in one message: from a partition's outbox, numbered
/// per (source, target) without gaps from 1, or from a worker's seed list (no source, number
/// 0). The receiver applies each numbered parcel once and confirms it by number
/// (`sift:confirmed:p-SOURCE`); the sender keeps it (the `sent` column family) until then.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkParcel {
    /// The sending partition; `None` for seeds.
    pub source: Option<u32>,
    /// The parcel's number among those `source` sent to this target: 1, 2, ...; 0 for seeds
    /// and for parcels of version 1, which are applied without being confirmed.
    pub number: u64,
    /// The entries to queue.
    pub links: Vec<FrontierEntry>,
}

/// Version 1 of [`LinkParcel`]: links numbered by the sender's outbox sequence.
#[derive(Deserialize)]
#[cfg_attr(test, derive(Serialize))]
struct LinkParcelV1 {
    source: Option<u32>,
    links: Vec<(u64, FrontierEntry)>,
}

impl Record for LinkParcel {
    const KIND: &'static str = "link parcel";
    const VERSION: u8 = 2;

    fn upgrade(version: u8, bytes: &[u8]) -> Option<Result<Self, RecordError>> {
        (version == 1).then(|| {
            decode_body::<LinkParcelV1>(Self::KIND, bytes).map(|v1| LinkParcel {
                source: v1.source,
                number: 0,
                links: v1.links.into_iter().map(|(_, entry)| entry).collect(),
            })
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parcel_of_version_1_reads_as_unnumbered() {
        let entry = FrontierEntry::page("http://a.test/", 2);
        let v1 = LinkParcelV1 {
            source: Some(3),
            links: vec![(17, entry.clone())],
        };
        let mut bytes = vec![1];
        bytes.extend(postcard::to_allocvec(&v1).unwrap());
        let parcel = LinkParcel::decode(&bytes).unwrap();
        assert_eq!(
            parcel,
            LinkParcel {
                source: Some(3),
                number: 0,
                links: vec![entry],
            }
        );
        let v2 = LinkParcel {
            number: 9,
            ..parcel
        };
        assert_eq!(LinkParcel::decode(&v2.encode()).unwrap(), v2);
    }
}
