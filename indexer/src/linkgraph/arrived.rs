//! `Arrived`: what other machines' pages sent this machine, held within a memory budget.
//!
//! The contributions themselves (URLs and anchors) go to a [`Spill`] as they are read and
//! come back once, in source URL order, when the link graph is built ([`Arrived::sources`]).
//! What the PageRank share steps need stays in memory as numbers: per remote source
//! (identity), a key and its share (16 bytes, and the table's own); per distinct (remote
//! source, local document) link, resolved through this machine's plan as it arrives, one
//! pair of `u32` (8 bytes, as the link graph's own links). Shares change in place
//! ([`Arrived::set_share`]) and are written into each contribution as it is read back.

use std::collections::HashMap;
use std::path::Path;

use shared::docplan::{DocId, DocPlan};

use super::Contribution;
use super::spill::{Spill, size_of};
use crate::Error;

/// Links resolved before repeats are first dropped.
const SETTLE_FROM: usize = 1 << 16;

/// The contributions that arrived, spilled, and their sources' shares.
#[derive(Debug)]
pub(crate) struct Arrived {
    spill: Spill<Contribution>,
    /// Each remote source's key, by identity.
    keys: HashMap<u64, u32>,
    /// By key: the identity and the current share.
    identities: Vec<u64>,
    shares: Vec<f64>,
    /// Distinct (remote key, local document) links once [`Arrived::settle`] ran.
    edges: Vec<(u32, DocId)>,
    settled: bool,
    /// The links' count when last settled (repeats are dropped again when it doubles).
    settled_len: usize,
    contributions: u64,
    bytes: u64,
}

impl Arrived {
    /// Nothing arrived yet; contributions past `budget` bytes are spilled to `dir`.
    pub(crate) fn new(dir: &Path, budget: usize) -> Self {
        Self {
            spill: Spill::new(dir, budget),
            keys: HashMap::new(),
            identities: Vec::new(),
            shares: Vec::new(),
            edges: Vec::new(),
            settled: true,
            settled_len: 0,
            contributions: 0,
            bytes: 0,
        }
    }

    /// Takes in one contribution (its share comes apart, [`Arrived::set_share`]): its links
    /// resolved through `plan`, the contribution spilled.
    pub(crate) fn add(&mut self, plan: &DocPlan, contribution: Contribution) -> Result<(), Error> {
        let next = self.identities.len() as u32;
        let key = *self.keys.entry(contribution.identity).or_insert(next);
        if key == next {
            self.identities.push(contribution.identity);
            self.shares.push(0.0);
        }
        for (target, _) in &contribution.links {
            if let Some(doc) = plan.resolve(target) {
                self.edges.push((key, doc));
                self.settled = false;
            }
        }
        if self.edges.len() >= 2 * self.settled_len.max(SETTLE_FROM) {
            self.settle();
        }
        self.contributions += 1;
        self.bytes += size_of(&contribution) as u64;
        self.spill.push(contribution)
    }

    /// Sets the share of the source `identity` (one that sent nothing here is ignored).
    pub(crate) fn set_share(&mut self, identity: u64, share: f64) {
        if let Some(&key) = self.keys.get(&identity) {
            self.shares[key as usize] = share;
        }
    }

    /// Per local page, the rank the remote sources send in (relative units): each source's
    /// share once per distinct document it links to (summed in (identity, document) order).
    pub(crate) fn inflow(&mut self, plan: &DocPlan) -> Vec<f64> {
        self.settle();
        let mut inflow = vec![0.0; plan.num_pages()];
        for &(key, doc) in &self.edges {
            inflow[plan.doc_page(doc) as usize] += self.shares[key as usize];
        }
        inflow
    }

    /// Sorts the links by (identity, document) and drops repeats.
    fn settle(&mut self) {
        if self.settled {
            return;
        }
        let identities = &self.identities;
        self.edges
            .sort_unstable_by_key(|&(key, doc)| (identities[key as usize], doc));
        self.edges.dedup();
        self.settled = true;
        self.settled_len = self.edges.len();
    }

    /// Contributions taken in, their estimated bytes, and the runs spilled to disk.
    pub(crate) fn counts(&self) -> (u64, u64, usize) {
        (self.contributions, self.bytes, self.spill.runs_written())
    }

    /// The most bytes of contributions (estimated) held in memory at once.
    pub(crate) fn most_held(&self) -> usize {
        self.spill.most_buffered()
    }

    /// Every arrived source in source URL order, with its current share; a source's
    /// contributions (to several of this machine's partitions) joined in the order they
    /// came.
    pub(crate) fn sources(self) -> Result<Sources, Error> {
        Ok(Sources {
            sorted: self.spill.into_sorted()?.peekable(),
            keys: self.keys,
            shares: self.shares,
        })
    }
}

/// [`Arrived::sources`]: the spill read back, joined by source, shares filled in.
pub(crate) struct Sources {
    sorted: std::iter::Peekable<super::spill::Sorted<Contribution>>,
    keys: HashMap<u64, u32>,
    shares: Vec<f64>,
}

impl Iterator for Sources {
    type Item = Result<Contribution, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut joined = match self.sorted.next()? {
            Ok(contribution) => contribution,
            Err(error) => return Some(Err(error)),
        };
        while let Some(Ok(next)) = self.sorted.peek() {
            if next.source != joined.source {
                break;
            }
            if let Some(Ok(next)) = self.sorted.next() {
                joined.links.extend(next.links);
            }
        }
        if let Some(&key) = self.keys.get(&joined.identity) {
            joined.share = self.shares[key as usize];
        }
        Some(Ok(joined))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use super::*;
    use crate::testutil::meta;
    use shared::docplan::PageKind;

    fn contribution(source: &str, identity: u64, targets: &[&str]) -> Contribution {
        Contribution {
            source: source.into(),
            identity,
            share: 0.0,
            links: targets.iter().map(|t| ((*t).into(), "x".into())).collect(),
        }
    }

    #[test]
    fn a_sources_contributions_are_joined_in_order_with_its_share_and_counted_once() {
        let (a, b) = ("http://a.test/a", "http://a.test/b");
        let plan = DocPlan::new([
            meta(a, PageKind::Indexable, 1),
            meta(b, PageKind::Indexable, 2),
        ]);
        let dir = tempfile::tempdir().unwrap();
        // One contribution a run: the source's two (sent to two partitions of this machine)
        // come from different runs.
        let mut arrived = Arrived::new(dir.path(), 1);
        arrived
            .add(&plan, contribution("http://z.test/", 9, &[b]))
            .unwrap();
        arrived
            .add(&plan, contribution("http://y.test/", 7, &[a, b]))
            .unwrap();
        arrived
            .add(&plan, contribution("http://z.test/", 9, &[a, b]))
            .unwrap();
        arrived.set_share(9, 0.5);
        arrived.set_share(7, 0.25);
        arrived.set_share(1234, 1.0);
        assert_eq!(arrived.counts().2, 3, "a run each");
        let inflow = arrived.inflow(&plan);
        let page = |url| plan.doc_page(plan.resolve(url).unwrap()) as usize;
        assert_eq!(inflow[page(a)], 0.75, "z once though it links twice, and y");
        assert_eq!(inflow[page(b)], 0.75);
        let sources: Vec<Contribution> = arrived.sources().unwrap().map(Result::unwrap).collect();
        assert_eq!(
            sources,
            [
                Contribution {
                    share: 0.25,
                    ..contribution("http://y.test/", 7, &[a, b])
                },
                Contribution {
                    share: 0.5,
                    ..contribution("http://z.test/", 9, &[b, a, b])
                },
            ]
        );
    }
}
