//! PageRank over a link graph's distinct (source page, target document) links: damping 0.85,
//! 20 iterations, pages without links spreading their rank evenly; on several machines, the
//! rank other machines' pages send in is a fixed inflow (see [`crate::linkgraph`]'s docs).

use shared::docplan::{DocId, DocPlan};

/// PageRank's damping factor: the chance a reader follows a link rather than jumping.
const DAMPING: f64 = 0.85;
/// PageRank iterations (enough for the ranks of a site's graph to settle).
const ITERATIONS: usize = 20;

/// What other machines' pages send in.
#[derive(Clone, Copy, Debug)]
pub(super) enum Inflow<'a> {
    /// Not known yet (before the exchange): the rank leaving for other machines is assumed
    /// to come back spread evenly, as a dangling page's does, so the ranks still sum to 1.
    Returning,
    /// Per page (or empty), the rank arriving from other machines' pages, in relative units
    /// (1 is an average page), a fixed amount each iteration.
    Arriving(&'a [f64]),
}

/// Every page's rank (summing to 1 over the pages, less what leaves for other machines).
/// `edges` are (source page, target document) pairs, distinct; `remote_degree` (empty, or
/// one per page) adds the targets a page links to on other machines, whose rank leaves; and
/// `inflow` is what arrives.
pub(super) fn ranks(
    plan: &DocPlan,
    edges: &[(u32, DocId)],
    remote_degree: &[u32],
    inflow: Inflow<'_>,
) -> Vec<f64> {
    let pages = plan.num_pages();
    if pages == 0 {
        return Vec::new();
    }
    let n = pages as f64;
    let mut out_degree = vec![0u32; pages];
    for &(source, _) in edges {
        out_degree[source as usize] += 1;
    }
    for (degree, remote) in out_degree.iter_mut().zip(remote_degree) {
        *degree += remote;
    }
    let mut rank = vec![1.0 / n; pages];
    let mut next = vec![0.0; pages];
    for _ in 0..ITERATIONS {
        let dangling: f64 = rank
            .iter()
            .zip(&out_degree)
            .filter(|(_, degree)| **degree == 0)
            .map(|(r, _)| r)
            .sum();
        // What leaves for other machines, when it is assumed to come back evenly.
        let returning: f64 = match inflow {
            Inflow::Returning => rank
                .iter()
                .zip(remote_degree)
                .zip(&out_degree)
                .filter(|((_, remote), _)| **remote > 0)
                .map(|((r, remote), degree)| r * f64::from(*remote) / f64::from(*degree))
                .sum(),
            Inflow::Arriving(_) => 0.0,
        };
        next.fill((1.0 - DAMPING) / n + DAMPING * (dangling + returning) / n);
        for &(source, target) in edges {
            let share = rank[source as usize] / f64::from(out_degree[source as usize]);
            next[plan.doc_page(target) as usize] += DAMPING * share;
        }
        if let Inflow::Arriving(inflow) = inflow {
            for (next, inflow) in next.iter_mut().zip(inflow) {
                *next += DAMPING * inflow / n;
            }
        }
        std::mem::swap(&mut rank, &mut next);
    }
    rank
}

/// Each page's share to pass on per link: its rank relative to an average page (1) over its
/// out-degree (local and remote targets); 0 for a page without links.
pub(super) fn shares(ranks: &[f64], edges: &[(u32, DocId)], remote_degree: &[u32]) -> Vec<f64> {
    let n = ranks.len() as f64;
    let mut out_degree: Vec<u32> = remote_degree.to_vec();
    out_degree.resize(ranks.len(), 0);
    for &(source, _) in edges {
        out_degree[source as usize] += 1;
    }
    ranks
        .iter()
        .zip(out_degree)
        .map(|(rank, degree)| {
            if degree == 0 {
                0.0
            } else {
                rank * n / f64::from(degree)
            }
        })
        .collect()
}

/// The PageRank level of every document: `round(8 * log2(1 + rank * pages))`.
pub(super) fn levels(plan: &DocPlan, ranks: &[f64]) -> Vec<u64> {
    if ranks.is_empty() {
        return vec![0; plan.num_docs()];
    }
    let n = ranks.len() as f64;
    (0..plan.num_docs() as DocId)
        .map(|doc| {
            let relative = ranks[plan.doc_page(doc) as usize] * n;
            (8.0 * (1.0 + relative).log2()).round() as u64
        })
        .collect()
}
