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
    /// The local links, distinct (source page, target document).
    edges: Vec<(u32, DocId)>,
    /// Each source sending contributions: its page, its identity and the partitions.
    senders: Vec<(u32, u64, Vec<u32>)>,
    /// Per local page (by page number), the distinct targets it links to on other machines.
    pub(crate) remote_degree: Vec<u32>,
    /// Per partition held elsewhere, the sources linking there, in source URL order.
    pub(crate) by_partition: BTreeMap<u32, Vec<Contribution>>,
}

impl Outgoing {
    /// The senders' shares again, from a PageRank with what `arrived` sends in: per
    /// partition, each source's identity and new share.
    pub(crate) fn refreshed_shares(
        &self,
        plan: &DocPlan,
        arrived: &BTreeMap<String, Contribution>,
    ) -> BTreeMap<u32, BTreeMap<u64, f64>> {
        let inflow = inflow(plan, arrived.values());
        let ranks = pagerank::ranks(
            plan,
            &self.edges,
            &self.remote_degree,
            Inflow::Arriving(&inflow),
        );
        let shares = pagerank::shares(&ranks, &self.edges, &self.remote_degree);
        let mut out: BTreeMap<u32, BTreeMap<u64, f64>> = BTreeMap::new();
        for (source_key, identity, parts) in &self.senders {
            for p in parts {
                out.entry(*p)
                    .or_default()
                    .insert(*identity, shares[*source_key as usize]);
            }
        }
        out
    }

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
    let mut senders = Vec::new();
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
            senders.push((source_key, identity, parts.keys().copied().collect()));
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
        edges,
        senders,
        remote_degree,
        by_partition,
    })
}

/// Per local page, the rank contributions send in (relative units): each source's share
/// once per distinct document it links to.
pub(crate) fn inflow<'a>(
    plan: &DocPlan,
    contributions: impl Iterator<Item = &'a Contribution>,
) -> Vec<f64> {
    let mut shares: BTreeMap<u64, f64> = BTreeMap::new();
    let mut edges: Vec<(u64, DocId)> = Vec::new();
    for contribution in contributions {
        shares
            .entry(contribution.identity)
            .or_insert(contribution.share);
        for (target, _) in &contribution.links {
            if let Some(doc) = plan.resolve(target) {
                edges.push((contribution.identity, doc));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let mut inflow = vec![0.0; plan.num_pages()];
    for (identity, doc) in edges {
        inflow[plan.doc_page(doc) as usize] += shares[&identity];
    }
    inflow
}

/// Sets the share of every arrived contribution whose source `shares` names.
pub(crate) fn apply_shares(
    arrived: &mut BTreeMap<String, Contribution>,
    shares: &BTreeMap<u64, f64>,
) {
    for contribution in arrived.values_mut() {
        if let Some(&share) = shares.get(&contribution.identity) {
            contribution.share = share;
        }
    }
}
