//! A link graph split over two machines (each with the plan of its own pages, exchanging
//! [`Contribution`]s) against the same graph on one machine: the same in-links, external
//! in-links and anchors in the same order; PageRank levels within 3 (a level is a factor of
//! 2^(1/8) in rank) on a graph where most links cross machines.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use std::collections::BTreeMap;

use shared::docplan::{DocPlan, PageKind, PageMeta};
use shared::record::Outlinks;

use super::outgoing::outgoing;
use super::{Contribution, Inbound, LinkGraph, host, merged};
use crate::testutil::{link, meta};

/// Machine 0 holds `a.test`, machine 1 `b.test`.
fn machine(url: &str) -> usize {
    usize::from(host(url) == "b.test")
}

fn pages() -> Vec<PageMeta> {
    let mut redirect = meta("http://b.test/moved", PageKind::Skipped, 0);
    redirect.redirect_to = Some("http://b.test/d".into());
    let mut nofollow = meta("http://b.test/nofollow", PageKind::Indexable, 9);
    nofollow.nofollow = true;
    vec![
        meta("http://a.test/a", PageKind::Indexable, 1),
        // A copy of a: one source with it.
        meta("http://a.test/a-copy", PageKind::Indexable, 1),
        meta("http://a.test/b", PageKind::Indexable, 2),
        meta("http://b.test/c", PageKind::Indexable, 3),
        meta("http://b.test/d", PageKind::Indexable, 4),
        meta("http://b.test/n", PageKind::NoIndex, 5),
        redirect,
        nofollow,
    ]
}

fn outlinks() -> Vec<(String, Outlinks)> {
    let mut unfollowed = link("http://b.test/d", "paid");
    unfollowed.nofollow = true;
    let links =
        |source: &str, links: Vec<shared::record::Outlink>| (source.to_string(), Outlinks(links));
    vec![
        links(
            "http://a.test/a",
            vec![
                link("http://b.test/c", "Charlie"),
                link("http://b.test/moved", "via redirect"),
                link("http://a.test/b", "bravo"),
            ],
        ),
        links(
            "http://a.test/a-copy",
            vec![link("http://b.test/c", "Charlie again")],
        ),
        links(
            "http://a.test/b",
            vec![link("http://b.test/c", "charlie"), unfollowed],
        ),
        links(
            "http://b.test/c",
            vec![
                link("http://a.test/a", "alpha"),
                link("http://b.test/d", "delta"),
            ],
        ),
        links(
            "http://b.test/d",
            vec![
                link("http://a.test/a", "Alpha"),
                link("http://a.test/b", "from d"),
            ],
        ),
        links(
            "http://b.test/n",
            vec![link("http://a.test/b", "from noindex")],
        ),
        links(
            "http://b.test/nofollow",
            vec![link("http://a.test/a", "ignored")],
        ),
    ]
}

fn inbound_by_url(plan: &DocPlan, mut graph: LinkGraph) -> BTreeMap<String, Inbound> {
    (0..plan.num_docs() as u32)
        .map(|doc| (plan.doc_url(doc).to_string(), graph.take(doc)))
        .collect()
}

fn split() -> BTreeMap<String, Inbound> {
    let plans: Vec<DocPlan> = (0..2)
        .map(|m| DocPlan::new(pages().into_iter().filter(|p| machine(&p.url) == m)))
        .collect();
    let local = |m: usize| {
        outlinks()
            .into_iter()
            .filter(move |(url, _)| machine(url) == m)
            .map(Ok)
    };
    let sent: Vec<_> = (0..2)
        .map(|m| {
            let elsewhere = |url: &str| (machine(url) != m).then_some(machine(url) as u32);
            outgoing(&plans[m], local(m), elsewhere).unwrap()
        })
        .collect();
    let mut all = BTreeMap::new();
    for m in 0..2 {
        let mut arrived: BTreeMap<String, Contribution> = BTreeMap::new();
        for contribution in sent[1 - m]
            .by_partition
            .get(&(m as u32))
            .into_iter()
            .flatten()
        {
            arrived.insert(contribution.source.clone(), contribution.clone());
        }
        let graph =
            LinkGraph::build_from(&plans[m], merged(local(m), arrived), &sent[m].remote_degree)
                .unwrap();
        all.extend(inbound_by_url(&plans[m], graph));
    }
    all
}

#[test]
fn two_machines_count_links_and_anchors_as_one() {
    let plan = DocPlan::new(pages());
    let one = inbound_by_url(
        &plan,
        LinkGraph::build(&plan, outlinks().into_iter().map(Ok)).unwrap(),
    );
    let two = split();
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        two.keys().collect::<Vec<_>>()
    );
    for (url, expected) in &one {
        let found = &two[url];
        assert_eq!(
            (found.count, found.external, &found.anchors),
            (expected.count, expected.external, &expected.anchors),
            "{url}"
        );
        // Most of these links cross machines, PageRank's worst case (the module docs): a, b,
        // c, d are at 12, 11, 13, 11 on one machine, 9, 12, 10, 9 split.
        assert!(
            found.rank_level.abs_diff(expected.rank_level) <= 3,
            "{url}: {} against {}",
            found.rank_level,
            expected.rank_level
        );
    }
    let c = &one["http://b.test/c"];
    assert_eq!((c.count, c.external), (2, 2), "a (with its copy) and b");
    assert_eq!(c.anchors, ["Charlie", "Charlie again"]);
    assert_eq!(one["http://b.test/d"].anchors, ["via redirect", "delta"]);
}
