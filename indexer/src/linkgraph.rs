//! `LinkGraph`: for every document, how many distinct pages link to it and with what anchor
//! text.
//!
//! - A link counts once per distinct source page; all pages of one document (copies, pages
//!   filed under their `rel=canonical` URL) are one source, and a link to any of them counts
//!   for the document.
//! - Self-links (the source's own document, also through a redirect or a copy) do not count.
//! - Links from pages of another host are also counted apart ([`Inbound::external`]): a
//!   site's own navigation says less about a page than another site choosing to link to it,
//!   and the ranking weighs them more (`ranking.external_link_weight`).
//! - `nofollow` links, and every link of a `nofollow` page, do not count; links from
//!   `noindex` pages do.
//! - A link to a redirect counts for the redirect's final target (see [`DocPlan::resolve`]).
//! - Anchor texts are kept per document, distinct (ignoring case), the ones most pages use
//!   first (ties in the order the sources come, URL order), at most [`MAX_ANCHORS`] and
//!   [`MAX_ANCHOR_BYTES`]: how the site names a page, not the first hundred names it got.
//!
//! - PageRank over the same links ([`pagerank`]: damping 0.85, 20 iterations; pages without
//!   links spread their rank evenly), expressed as a level:
//!   `round(8 * log2(1 + rank * pages))`, so the average page is at level 8 and a level
//!   moves only when the rank changes markedly (an incremental build does not rewrite every
//!   document for a tiny shift).
//!
//! Only outlinks are read; page bodies never are. The links are held in memory as one pair
//! of `u32` per distinct (source, target), 8 bytes a link (and another for a link across
//! hosts); their anchor texts are not: they are spilled by document within a memory budget,
//! counted one document at a time and kept on disk until their document is written
//! ([`anchors`]), so the texts cost the budget, not a share of every page's links.
//!
//! **On several machines** (`indexer build --redis`, `crate::exchange`), each machine's plan
//! holds only its own partitions' pages. What other machines' pages say arrives as
//! [`Contribution`]s ([`outgoing`] makes them: the sender's plan resolves its sources, its
//! nofollow rules apply, a copy group is one identity), held within a memory budget
//! ([`arrived`]: spilled to disk in sorted runs, [`spill`], their sources' shares kept as
//! numbers) and merged with the local outlinks in source URL order ([`merged`]), so counts,
//! external counts and anchors follow the rules above exactly, with these differences:
//!
//! - A link's target is resolved through the receiving machine's plan: a redirect or a
//!   `rel=canonical` pointing to a host of a third machine's partition is not followed (the
//!   link is lost), and copies across machines are not folded (each machine keeps its own).
//! - PageRank is computed per machine. Rank arriving from other machines is a fixed inflow per
//!   page: each remote source's share (its rank, 1 being an average page, over its
//!   out-degree, local and remote targets counted) once per distinct document it links to.
//!   Before the exchange, a machine's ranks assume that the rank leaving it comes back evenly
//!   (as a dangling page's does); then [`SHARE_STEPS`](crate::exchange::SHARE_STEPS) steps
//!   compute each machine's PageRank again with what arrived and send the senders' new
//!   shares, a block-Jacobi iteration between machines. What stays approximate: pages without
//!   links spread their rank over their own machine's pages, and the random jump is spread
//!   per machine, both as if every machine's average page were the web's; and 2 steps are not
//!   convergence. Measured (`linkgraph/split_tests.rs`, 3,200 pages on 16 hosts, 2 and 4
//!   machines, 10% or 50% of pages linking across, evenly or half to one hub site): at most
//!   1 level off, 0-0.8% of documents moved (without the share steps, up to 7 levels and
//!   22% moved with the hub).

use std::collections::HashMap;

use anchors::{AnchorSpill, Anchors};

use serde::{Deserialize, Serialize};

use shared::record::Outlinks;

use crate::Error;
use crate::by_url::ByUrl;
use shared::docplan::{DocId, DocPlan};

pub(crate) mod anchors;
pub(crate) mod arrived;
pub(crate) mod outgoing;
mod pagerank;
pub(crate) mod spill;
#[cfg(test)]
mod split_tests;

/// Anchor texts kept per document.
pub const MAX_ANCHORS: usize = 100;
/// Anchor text kept per document, in bytes.
pub const MAX_ANCHOR_BYTES: usize = 8 * 1024;
/// What links say about one document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inbound {
    /// Distinct pages linking here.
    pub count: u64,
    /// Those of them on another host than this document's.
    pub external: u64,
    /// Distinct anchor texts of those links, bounded.
    pub anchors: Vec<String>,
    /// Its PageRank level (see the module docs): 8 is an average page.
    pub rank_level: u64,
}

/// Where a source's links were read: this machine's stores, or another machine's
/// contributions (see [`crate::exchange`]).
pub(crate) enum Linking {
    /// The source page's stored outlinks.
    Local(Outlinks),
    /// Links another machine counted for one of its pages.
    Remote(Contribution),
}

/// A source page of another machine, as its contributions describe it: its links to this
/// machine's partitions, already past its own `nofollow` rules. What crosses between
/// machines, in an `exchange` parcel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Contribution {
    /// The source page's URL (its host tells external links apart; it orders anchors).
    pub(crate) source: String,
    /// The source's document (xxh3 of its URL): pages of one document are one source.
    pub(crate) identity: u64,
    /// The source's PageRank share: its rank (1 is an average page) over its out-degree.
    /// Sent apart (0 in a parcel and in a spill), set again when read back.
    pub(crate) share: f64,
    /// Target URL and anchor text of each link.
    pub(crate) links: Vec<(String, String)>,
}

/// A source of links, boxed: local outlinks or remote contributions.
type Sources<'a> = Box<dyn Iterator<Item = Result<(String, Linking), Error>> + 'a>;

/// One machine's sources of links: its stores' outlinks (in URL order) and the contributions
/// that arrived from other machines (in source URL order, a source's contributions joined:
/// [`Arrived::sources`](arrived::Arrived::sources)), merged in source URL order as one store
/// holding every page would give them.
pub(crate) fn merged<'a>(
    local: impl Iterator<Item = Result<(String, Outlinks), Error>> + 'a,
    arrived: impl Iterator<Item = Result<Contribution, Error>> + 'a,
) -> impl Iterator<Item = Result<(String, Linking), Error>> + 'a {
    let local = local.map(|item| item.map(|(url, links)| (url, Linking::Local(links))));
    let remote = arrived.map(|item| {
        item.map(|contribution| (contribution.source.clone(), Linking::Remote(contribution)))
    });
    let sources: Vec<Sources<'a>> = vec![Box::new(local), Box::new(remote)];
    ByUrl::new(sources)
}

/// In-links of every document of a [`DocPlan`]: their numbers in memory, their anchor texts
/// on disk.
#[derive(Debug)]
pub struct LinkGraph {
    counts: Vec<InCounts>,
    anchors: Anchors,
}

/// What links say of one document, as numbers.
#[derive(Clone, Copy, Debug, Default)]
struct InCounts {
    count: u32,
    external: u32,
    rank_level: u32,
}

impl LinkGraph {
    /// Reads every page's outlinks (in URL order, so anchors come in a stable order), their
    /// anchor texts spilled to `spill`.
    pub(crate) fn build(
        plan: &DocPlan,
        outlinks: impl IntoIterator<Item = Result<(String, Outlinks), Error>>,
        spill: AnchorSpill<'_>,
    ) -> Result<Self, Error> {
        let sources = outlinks
            .into_iter()
            .map(|item| item.map(|(url, links)| (url, Linking::Local(links))));
        Self::build_from(plan, sources, &[], spill)
    }

    /// Reads every source's links, local and remote, in source URL order. `remote_degree`
    /// (empty on one machine) is, per local page, how many distinct targets it links to on
    /// other machines: its rank is spread over those too.
    pub(crate) fn build_from(
        plan: &DocPlan,
        sources: impl IntoIterator<Item = Result<(String, Linking), Error>>,
        remote_degree: &[u32],
        spill: AnchorSpill<'_>,
    ) -> Result<Self, Error> {
        // Per document, the last source that linked to it: repeats are dropped as they come
        // (a source's links are read together; a copy group's pages may come apart, and the
        // sorts below drop those).
        let mut last_source: Vec<u32> = vec![u32::MAX; plan.num_docs()];
        let mut anchors = anchors::Reading::new(spill);
        let mut edges: Vec<(u32, DocId)> = Vec::new();
        // The links from another host than their target's, counted apart.
        let mut external: Vec<(u32, DocId)> = Vec::new();
        // Remote sources get the keys after the local pages', one per identity.
        let mut remote_keys: HashMap<u64, u32> = HashMap::new();
        let mut shares: Vec<f64> = Vec::new();
        let mut remote_edges: Vec<(u32, DocId)> = Vec::new();
        for item in sources {
            let (source, linking) = item?;
            let source_host = host(&source);
            let (source_key, own_doc, links): (u32, Option<DocId>, Vec<(&str, &str)>) =
                match &linking {
                    Linking::Local(links) => {
                        let Some(source_key) = plan.source_key(&source) else {
                            continue;
                        };
                        if plan.is_nofollow(&source) {
                            continue;
                        }
                        let followed = links.0.iter().filter(|l| !l.nofollow);
                        (
                            source_key,
                            plan.doc_of_page(&source),
                            followed
                                .map(|l| (l.target.as_str(), l.anchor.as_str()))
                                .collect(),
                        )
                    }
                    Linking::Remote(remote) => {
                        let next = (plan.num_pages() + shares.len()) as u32;
                        let key = *remote_keys.entry(remote.identity).or_insert_with(|| {
                            shares.push(remote.share);
                            next
                        });
                        let links = remote.links.iter();
                        (
                            key,
                            None,
                            links.map(|(t, a)| (t.as_str(), a.as_str())).collect(),
                        )
                    }
                };
            let remote = matches!(linking, Linking::Remote(_));
            for (target_url, anchor) in links {
                let Some(target) = plan.resolve(target_url) else {
                    continue;
                };
                if Some(target) == own_doc {
                    continue;
                }
                let last = &mut last_source[target as usize];
                if *last != source_key {
                    *last = source_key;
                    if remote {
                        remote_edges.push((source_key, target));
                    } else {
                        edges.push((source_key, target));
                    }
                    if host(plan.doc_url(target)) != source_host {
                        external.push((source_key, target));
                    }
                }
                anchors.add(target, source_key, anchor)?;
            }
        }
        drop(last_source);
        edges.sort_unstable();
        edges.dedup();
        remote_edges.sort_unstable();
        remote_edges.dedup();
        external.sort_unstable();
        external.dedup();
        let mut counts = vec![InCounts::default(); plan.num_docs()];
        for &(_, target) in edges.iter().chain(&remote_edges) {
            counts[target as usize].count += 1;
        }
        for (_, target) in external {
            counts[target as usize].external += 1;
        }
        // Each remote source's share flows into each distinct document it links to.
        let mut inflow = Vec::new();
        if !remote_edges.is_empty() {
            inflow = vec![0.0; plan.num_pages()];
            for (key, target) in remote_edges {
                inflow[plan.doc_page(target) as usize] += shares[key as usize - plan.num_pages()];
            }
        }
        let ranks = pagerank::ranks(
            plan,
            &edges,
            remote_degree,
            pagerank::Inflow::Arriving(&inflow),
        );
        drop(edges);
        for (counts, level) in counts.iter_mut().zip(pagerank::levels(plan, &ranks)) {
            counts.rank_level = u32::try_from(level).unwrap_or(u32::MAX);
        }
        let anchors = anchors.finish(plan.num_docs())?;
        Ok(Self { counts, anchors })
    }

    /// How many distinct pages link to a document.
    pub(crate) fn in_links(&self, doc: DocId) -> u64 {
        self.counts
            .get(doc as usize)
            .map_or(0, |counts| u64::from(counts.count))
    }

    /// What links say of a document (its anchor texts read from disk).
    pub fn inbound(&mut self, doc: DocId) -> Result<Inbound, Error> {
        let counts = self.counts.get(doc as usize).copied().unwrap_or_default();
        Ok(Inbound {
            count: u64::from(counts.count),
            external: u64::from(counts.external),
            anchors: self.anchors.of(doc)?,
            rank_level: u64::from(counts.rank_level),
        })
    }
}

/// The host of a URL (without scheme, user info and port; the whole text when it has none).
pub(crate) fn host(url: &str) -> &str {
    let rest = url.find("://").map_or(url, |i| &url[i + 3..]);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    match host.rfind(':') {
        // An IPv6 literal's colons sit inside its brackets.
        Some(colon) if !host[colon..].contains(']') => &host[..colon],
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use shared::record::Outlink;

    use super::*;
    use crate::testutil::{TestGraph, meta};
    use shared::docplan::PageKind;

    fn links(source: &str, targets: &[(&str, &str, bool)]) -> Result<(String, Outlinks), Error> {
        let links = targets
            .iter()
            .map(|(target, anchor, nofollow)| Outlink {
                target: (*target).into(),
                anchor: (*anchor).into(),
                nofollow: *nofollow,
            })
            .collect();
        Ok((source.into(), Outlinks(links)))
    }

    const A: &str = "http://a.test/a";
    const B: &str = "http://a.test/b";
    const C: &str = "http://a.test/c";
    const N: &str = "http://a.test/noindex";
    const F: &str = "http://a.test/nofollow-page";
    const R: &str = "http://a.test/moved";

    fn plan() -> DocPlan {
        let mut nofollow_page = meta(F, PageKind::Indexable, 5);
        nofollow_page.nofollow = true;
        let mut redirect = meta(R, PageKind::Skipped, 0);
        redirect.redirect_to = Some(A.into());
        let metas = vec![
            meta(A, PageKind::Indexable, 1),
            meta(B, PageKind::Indexable, 2),
            meta(C, PageKind::Indexable, 3),
            meta(N, PageKind::NoIndex, 4),
            nofollow_page,
            redirect,
        ];
        DocPlan::new(metas)
    }

    #[test]
    fn in_links_count_distinct_followed_sources() {
        let plan = plan();
        let mut graph = TestGraph::build(
            &plan,
            vec![
                // B links to A twice and to itself: A gets one in-link from B.
                links(
                    B,
                    &[
                        (A, "Alpha", false),
                        (A, "alpha page", false),
                        (B, "me", false),
                    ],
                ),
                // C: a nofollow link to A does not count; its followed link to B does.
                links(C, &[(A, "paid", true), (B, "Bravo", false)]),
                // A noindex page's links count.
                links(N, &[(A, "from noindex", false)]),
                // A nofollow page's links never count, even unmarked.
                links(F, &[(A, "ignored", false), (B, "ignored", false)]),
                // A links to the redirect that leads back to itself: a self-link.
                links(A, &[(R, "home", false)]),
            ],
        );
        let a = graph.inbound(plan.resolve(A).unwrap());
        assert_eq!(a.count, 2, "from B and from the noindex page");
        assert_eq!(a.anchors, ["Alpha", "alpha page", "from noindex"]);
        let b = graph.inbound(plan.resolve(B).unwrap());
        assert_eq!(
            b.count, 1,
            "from C; not from itself, not from the nofollow page"
        );
        assert_eq!(b.anchors, ["Bravo"]);
        assert_eq!(graph.inbound(plan.resolve(C).unwrap()).count, 0);
    }

    #[test]
    fn links_from_other_hosts_are_counted_apart() {
        const OTHER: &str = "http://b.test/post";
        const OTHER_PORT: &str = "http://a.test:8080/mirror";
        let metas = [A, B, OTHER, OTHER_PORT]
            .iter()
            .zip(1..)
            .map(|(url, hash)| meta(url, PageKind::Indexable, hash));
        let plan = DocPlan::new(metas);
        let mut graph = TestGraph::build(
            &plan,
            vec![
                links(B, &[(A, "a", false)]),
                // Twice from the other host's page: one external source.
                links(
                    OTHER,
                    &[(A, "a", false), (A, "again", false), (B, "b", false)],
                ),
                // Another port of the same host is the same host.
                links(OTHER_PORT, &[(A, "a", false)]),
                links(A, &[(OTHER, "elsewhere", false)]),
            ],
        );
        let mut inbound = |url| graph.inbound(plan.resolve(url).unwrap());
        let a = inbound(A);
        assert_eq!(
            (a.count, a.external),
            (3, 1),
            "B, the port, and b.test once"
        );
        let b = inbound(B);
        assert_eq!((b.count, b.external), (1, 1));
        let other = inbound(OTHER);
        assert_eq!((other.count, other.external), (1, 1), "from a.test");
    }

    #[test]
    fn hosts_are_read_without_user_port_or_path() {
        assert_eq!(host("http://a.test/x"), "a.test");
        assert_eq!(host("https://u:p@a.test:8443/x?y#z"), "a.test");
        assert_eq!(host("http://[::1]:8080/"), "[::1]");
        assert_eq!(host("http://[::1]/"), "[::1]");
        assert_eq!(host("http://a.test"), "a.test");
        assert_eq!(host("http://a.test?q"), "a.test");
    }

    #[test]
    fn redirects_pass_links_on_and_anchors_are_bounded() {
        let plan = plan();
        let many: Vec<(String, String)> = (0..150)
            .map(|i| (format!("http://a.test/s{i}"), format!("anchor number {i}")))
            .collect();
        let mut outlinks = vec![
            links(B, &[(R, "via redirect", false)]),
            links(C, &[(R, "VIA REDIRECT", false)]),
        ];
        // Sources that are not stored pages are not counted.
        outlinks.extend(
            many.iter()
                .map(|(source, anchor)| links(source, &[(A, anchor, false)])),
        );
        let mut graph = TestGraph::build(&plan, outlinks);
        let a = graph.inbound(plan.resolve(A).unwrap());
        assert_eq!(a.count, 2, "B and C, through the redirect");
        assert_eq!(
            a.anchors,
            ["via redirect"],
            "anchors compared ignoring case"
        );

        // Bounded anchors: 150 stored sources with distinct anchors.
        let mut metas = vec![meta(A, PageKind::Indexable, 1)];
        metas.extend(
            many.iter()
                .map(|(source, _)| meta(source, PageKind::NoIndex, 0)),
        );
        let plan = DocPlan::new(metas);
        let outlinks = many
            .iter()
            .map(|(source, anchor)| links(source, &[(A, anchor, false)]));
        let mut graph = TestGraph::build(&plan, outlinks);
        let a = graph.inbound(plan.resolve(A).unwrap());
        assert_eq!(a.count, 150);
        assert_eq!(a.anchors.len(), MAX_ANCHORS);
        assert!(a.anchors.iter().map(String::len).sum::<usize>() <= MAX_ANCHOR_BYTES);
    }

    #[test]
    fn the_anchors_most_pages_use_come_first() {
        let plan = plan();
        let mut graph = TestGraph::build(
            &plan,
            vec![
                // B says "rare words" twice: one page, counted once.
                links(B, &[(A, "rare words", false), (A, "rare words", false)]),
                links(C, &[(A, "common name", false)]),
                links(N, &[(A, "Common Name", false)]),
            ],
        );
        let a = graph.inbound(plan.resolve(A).unwrap());
        assert_eq!(a.anchors, ["common name", "rare words"]);
    }

    #[test]
    fn links_to_a_page_filed_under_its_canonical_count_for_that_document() {
        let amp = "http://a.test/amp/a";
        let mut metas = vec![
            meta(A, PageKind::Indexable, 1),
            meta(B, PageKind::Indexable, 2),
            meta(C, PageKind::Indexable, 3),
        ];
        metas.push(shared::docplan::PageMeta {
            canonical: Some(A.into()),
            ..meta(amp, PageKind::Indexable, 4)
        });
        let plan = DocPlan::new(metas);
        let mut graph = TestGraph::build(
            &plan,
            vec![
                // The copy links to its own document: a self-link.
                links(amp, &[(A, "self", false)]),
                // B links to A and to its copy: one source.
                links(B, &[(A, "Alpha", false), (amp, "Alpha (AMP)", false)]),
                links(C, &[(amp, "fast alpha", false)]),
            ],
        );
        let a = graph.inbound(plan.resolve(amp).unwrap());
        assert_eq!(plan.resolve(amp), plan.resolve(A));
        assert_eq!(a.count, 2, "B and C");
        assert_eq!(a.anchors, ["Alpha", "Alpha (AMP)", "fast alpha"]);
    }

    #[test]
    fn pagerank_raises_the_page_others_link_to() {
        let plan = plan();
        // B and C (and the noindex page) link to A; A links to B.
        let mut graph = TestGraph::build(
            &plan,
            vec![
                links(A, &[(B, "b", false)]),
                links(B, &[(A, "a", false)]),
                links(C, &[(A, "a", false)]),
                links(N, &[(A, "a", false)]),
            ],
        );
        let mut level = |url| graph.inbound(plan.resolve(url).unwrap()).rank_level;
        assert!(level(A) > level(B), "A {} B {}", level(A), level(B));
        assert!(level(B) > level(C), "B {} C {}", level(B), level(C));
        // C has no in-links: only the random jump reaches it, well below an average page.
        assert!(level(C) < 8, "C {}", level(C));
    }
}
