//! `Outgoing`: on one machine of several, what its pages say about pages it does not hold.
//!
//! Read from the local stores' outlinks under the local plan, with the rules of
//! [`LinkGraph`](super::LinkGraph) (nofollow pages and links left out, a source's copies one
//! source): every followed link whose target is not a local document and whose host belongs to
//! a partition held elsewhere becomes part of a [`Contribution`] to that partition, one per
//! source page and partition, handed to a [`Sending`] as soon as its source is read (the
//! exchange sends them in bounded batches): nothing of them is kept but numbers. The sources'
//! PageRank shares come apart, once every outlink is read ([`Outgoing::first_shares`]: a
//! PageRank over the local links alone, rank leaving for other machines included in each
//! page's out-degree, nothing arriving yet), and again with what arrived
//! ([`Outgoing::refreshed_shares`]).

use std::collections::BTreeMap;

use shared::docplan::{DocId, DocPlan};
use shared::record::Outlinks;
use xxhash_rust::xxh3::xxh3_64;

use super::Contribution;
use super::arrived::Arrived;
use super::pagerank::{self, Inflow};
use crate::Error;

/// Where contributions go as the outlinks are read.
pub(crate) trait Sending {
    /// Takes a source's links to `partition` (its share is sent apart, once known).
    fn send(&mut self, partition: u32, contribution: Contribution) -> Result<(), Error>;
}

/// Per partition held elsewhere, its senders' (identity, share), by identity.
pub(crate) type Shares = BTreeMap<u32, Vec<(u64, f64)>>;

/// The local pages' links to other machines, as numbers: what the shares need.
#[derive(Debug, Default)]
pub(crate) struct Outgoing {
    /// The local links, distinct (source page, target document).
    edges: Vec<(u32, DocId)>,
    /// Each (partition, source identity, source page) that sent contributions, distinct.
    senders: Vec<(u32, u64, u32)>,
    /// Per local page (by page number), the distinct targets it links to on other machines.
    pub(crate) remote_degree: Vec<u32>,
    /// Contributions sent.
    pub(crate) contributions: u64,
    /// Links sent, over every partition.
    pub(crate) links: u64,
}

impl Outgoing {
    /// The senders' shares before anything arrived: the rank leaving for other machines is
    /// assumed to come back evenly.
    pub(crate) fn first_shares(&self, plan: &DocPlan) -> Shares {
        self.shares(plan, Inflow::Returning)
    }

    /// The senders' shares again, from a PageRank with what `arrived` sends in.
    pub(crate) fn refreshed_shares(&self, plan: &DocPlan, arrived: &mut Arrived) -> Shares {
        let inflow = arrived.inflow(plan);
        self.shares(plan, Inflow::Arriving(&inflow))
    }

    /// Per partition, each source's identity and share under `inflow`.
    fn shares(&self, plan: &DocPlan, inflow: Inflow<'_>) -> Shares {
        let ranks = pagerank::ranks(plan, &self.edges, &self.remote_degree, inflow);
        let shares = pagerank::shares(&ranks, &self.edges, &self.remote_degree);
        let mut out: Shares = BTreeMap::new();
        for &(p, identity, source_key) in &self.senders {
            let share = shares[source_key as usize];
            out.entry(p).or_default().push((identity, share));
        }
        out
    }
}

/// Reads the local outlinks (in URL order); `elsewhere` gives the partition of a target URL
/// held on another machine, `None` for a local one. Each source's contributions go to
/// `sending` as it is read.
pub(crate) fn outgoing(
    plan: &DocPlan,
    outlinks: impl IntoIterator<Item = Result<(String, Outlinks), Error>>,
    elsewhere: impl Fn(&str) -> Option<u32>,
    sending: &mut impl Sending,
) -> Result<Outgoing, Error> {
    let mut edges: Vec<(u32, DocId)> = Vec::new();
    let mut remote_targets: Vec<(u32, u64)> = Vec::new();
    let mut senders = Vec::new();
    let (mut contributions, mut sent_links) = (0, 0);
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
        for link in links.0.into_iter().filter(|l| !l.nofollow) {
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
                contribution.links.push((link.target, link.anchor));
            }
        }
        for (p, contribution) in parts {
            senders.push((p, identity, source_key));
            contributions += 1;
            sent_links += contribution.links.len() as u64;
            sending.send(p, contribution)?;
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
    senders.sort_unstable();
    senders.dedup_by_key(|&mut (p, identity, _)| (p, identity));
    Ok(Outgoing {
        edges,
        senders,
        remote_degree,
        contributions,
        links: sent_links,
    })
}
