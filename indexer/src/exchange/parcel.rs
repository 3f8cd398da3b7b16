//! `IndexParcel`: contributions sent to one partition's stream in one `XADD` (and
//! `ShareParcel`: their sources' PageRank shares, sent in each step), versioned like
//! the store's records (`[version] ++ postcard`). Only indexers write and read them, so the
//! type lives here rather than in `shared`.

use serde::{Deserialize, Serialize};
use shared::record::Record;

use crate::linkgraph::Contribution;

/// Links sent at most in one parcel (a source's links to one partition are never split).
pub(crate) const PARCEL_LINKS: usize = 1024;

/// Contributions of one machine's pages to one partition. Version 2: each contribution's
/// `share` is left 0, its source's share comes in step 0's [`ShareParcel`]s (version 1
/// carried it, and step 0 sent no shares).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct IndexParcel {
    /// Each source page's links to the partition, with its identity and rank share.
    pub(crate) sources: Vec<Contribution>,
}

impl Record for IndexParcel {
    const KIND: &'static str = "index parcel";
    const VERSION: u8 = 2;
}

/// PageRank shares sent to one partition in a step of the round: each source's identity and
/// its share (step 0: the first, then each step's new one).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ShareParcel {
    /// (source identity, share).
    pub(crate) shares: Vec<(u64, f64)>,
}

impl Record for ShareParcel {
    const KIND: &'static str = "share parcel";
    const VERSION: u8 = 1;
}

/// Cuts a partition's contributions into parcels of about [`PARCEL_LINKS`] links.
pub(crate) fn parcels(contributions: &[Contribution]) -> Vec<IndexParcel> {
    let mut out = Vec::new();
    let mut current = IndexParcel::default();
    let mut links = 0;
    for contribution in contributions {
        if links > 0 && links + contribution.links.len() > PARCEL_LINKS {
            out.push(std::mem::take(&mut current));
            links = 0;
        }
        links += contribution.links.len();
        current.sources.push(contribution.clone());
    }
    if !current.sources.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contribution(links: usize) -> Contribution {
        Contribution {
            source: "http://a.test/".into(),
            identity: 7,
            share: 0.5,
            links: vec![("http://b.test/".into(), "b".into()); links],
        }
    }

    #[test]
    fn parcels_round_trip_and_are_cut_between_sources() {
        let all = vec![contribution(1000), contribution(30), contribution(2000)];
        let parcels = parcels(&all);
        let sizes: Vec<usize> = parcels.iter().map(|p| p.sources.len()).collect();
        assert_eq!(sizes, [1, 1, 1]);
        let parcel = &parcels[0];
        assert_eq!(
            IndexParcel::decode(&parcel.encode()).ok().as_ref(),
            Some(parcel)
        );
        assert!(super::parcels(&[]).is_empty());
    }
}
