//! `Outgoing`: on one machine of several, what its pages say about pages it does not hold.
//!
//! Read from the local stores' outlinks under the local plan, with the rules of
//! [`LinkGraph`](super::LinkGraph) (nofollow pages and links left out, a source's copies one
//! source): every followed link whose target is not a local document and whose host belongs to
//! a partition held elsewhere becomes part of a [`Contribution`] to that partition, one per
//! source page and partition. Each carries the source's PageRank share, taken from a PageRank
//! over the local links alone (rank leaving for other machines included in each page's
//! out-degree, nothing arriving yet).

use std::collections::BTreeMap;

use shared::docplan::{DocId, DocPlan};
use shared::record::Outlinks;
use xxhash_rust::xxh3::xxh3_64;

use super::Contribution;
use super::pagerank::{self, Inflow};
use crate::Error;

/// The local pages' links to other machines.
#[derive(Debug, Default)]
pub(crate) struct Outgoing {
    /// Per local page (by page number), the distinct targets it links to on other machines.
    pub(crate) remote_degree: Vec<u32>,
    /// Per partition held elsewhere, the sources linking there, in source URL order.
    pub(crate) by_partition: BTreeMap<u32, Vec<Contribution>>,
}

impl Outgoing {
    /// Links sent, over every partition.
    pub(crate) fn links(&self) -> usize {
        let contributions = self.by_partition.values().flatten();
        contributions.map(|c| c.links.len()).sum()
    }
}

/// Reads the local outlinks (in URL order); `elsewhere` gives the partition of a target URL
/// held on another machine, `None` for a local one.
pub(crate) fn outgoing(
    plan: &DocPlan,
    outlinks: impl IntoIterator<Item = Result<(String, Outlinks), Error>>,
    elsewhere: impl Fn(&str) -> Option<u32>,
) -> Result<Outgoing, Error> {
    let mut edges: Vec<(u32, DocId)> = Vec::new();
    let mut remote_targets: Vec<(u32, u64)> = Vec::new();
    let mut pending: Vec<(u32, BTreeMap<u32, Contribution>)> = Vec::new();
    for item in outlinks {
        let (source, links) = item?;
        let Some(source_key) = plan.source_key(&source) else {
            continue;
        };
        if plan.is_nofollow(&source) {
            continue;
        }
        let own_doc = plan.doc_of_page(&source);
        let identity = xxh3_64(
            own_doc
                .map_or(source.as_str(), |d| plan.doc_url(d))
                .as_bytes(),
        );
        let mut parts: BTreeMap<u32, Contribution> = BTreeMap::new();
        for link in links.0.iter().filter(|l| !l.nofollow) {
            if let Some(target) = plan.resolve(&link.target) {
                if Some(target) != own_doc {
                    edges.push((source_key, target));
                }
            } else if let Some(p) = elsewhere(&link.target) {
                remote_targets.push((source_key, xxh3_64(link.target.as_bytes())));
                let contribution = parts.entry(p).or_insert_with(|| Contribution {
                    source: source.clone(),
                    identity,
                    ..Contribution::default()
                });
                contribution
                    .links
                    .push((link.target.clone(), link.anchor.clone()));
            }
        }
        if !parts.is_empty() {
            pending.push((source_key, parts));
        }
    }
    edges.sort_unstable();
    edges.dedup();
    remote_targets.sort_unstable();
    remote_targets.dedup();
    let mut remote_degree = vec![0u32; plan.num_pages()];
    for (source, _) in remote_targets {
        remote_degree[source as usize] += 1;
    }
    let ranks = pagerank::ranks(plan, &edges, &remote_degree, Inflow::Returning);
    let shares = pagerank::shares(&ranks, &edges, &remote_degree);
    let mut by_partition: BTreeMap<u32, Vec<Contribution>> = BTreeMap::new();
    for (source_key, parts) in pending {
        for (p, mut contribution) in parts {
            contribution.share = shares[source_key as usize];
            by_partition.entry(p).or_default().push(contribution);
        }
    }
    Ok(Outgoing {
        remote_degree,
        by_partition,
    })
}
