//! The index built from a crawl: what is in it and how it ranks.

use gateway::Searcher;
use shared::config::RankingConfig;
use testweb::TestWeb;

use crate::support::{crawled, crawled_and_indexed, index};

fn hit_urls(searcher: &Searcher, query: &str) -> Vec<String> {
    let results = searcher.search(query, 1, 10).expect("search runs");
    results.hits.into_iter().map(|hit| hit.url).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn noindex_pages_are_never_indexed_but_their_links_are_followed() {
    let web = TestWeb::start().await;
    let dir = crawled_and_indexed(&web).await;
    let searcher = Searcher::open(dir.path(), RankingConfig::default()).expect("searcher");

    assert!(
        hit_urls(&searcher, testweb::SAMPLE_NOINDEX_WORD).is_empty(),
        "the word only the noindex page has finds nothing"
    );
    let behind = hit_urls(&searcher, testweb::SAMPLE_BEHIND_NOINDEX_WORD);
    assert_eq!(
        behind,
        vec![web.url("sample.test", testweb::SAMPLE_BEHIND_NOINDEX)],
        "the page linked only from the noindex page was crawled and indexed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicates_collapse_and_in_links_raise_rank() {
    let web = TestWeb::start().await;
    let dir = crawled_and_indexed(&web).await;
    let searcher = Searcher::open(dir.path(), RankingConfig::default()).expect("searcher");

    let (popular, obscure) = testweb::SAMPLE_RANKED_PAIR;
    let ranked = hit_urls(&searcher, testweb::SAMPLE_RANKED_WORD);
    assert_eq!(
        ranked,
        vec![
            web.url("sample.test", popular),
            web.url("sample.test", obscure)
        ],
        "equal text, more in-links: ranked first"
    );

    // Without the link signals (in-links, PageRank) and the depth prior the two pages score
    // the same: the order above comes from links.
    let flat = Searcher::open(
        dir.path(),
        RankingConfig {
            link_weight: 0.0,
            pagerank_weight: 0.0,
            depth_weight: 0.0,
            ..RankingConfig::default()
        },
    )
    .expect("searcher");
    let scores: Vec<f32> = flat
        .search(testweb::SAMPLE_RANKED_WORD, 1, 10)
        .expect("search")
        .hits
        .iter()
        .map(|h| h.score)
        .collect();
    assert_eq!(scores.len(), 2);
    assert!(
        (scores[0] - scores[1]).abs() < 1e-4,
        "text relevance alone is equal: {scores:?}"
    );

    let (first, second) = testweb::SAMPLE_DUPLICATES;
    let dupes = hit_urls(&searcher, testweb::SAMPLE_DUPLICATE_WORD);
    assert_eq!(
        dupes.len(),
        1,
        "two URLs with the same content are one result: {dupes:?}"
    );
    let shortest = if first.len() <= second.len() {
        first
    } else {
        second
    };
    assert_eq!(
        dupes[0],
        web.url("sample.test", shortest),
        "the shortest URL represents them"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copies_are_one_result_under_their_rel_canonical_url() {
    let web = TestWeb::start().await;
    let dir = crawled(&web, "copies.test").await;
    let canonical = web.url("copies.test", testweb::COPIES_CANONICAL);
    let (copy, print) = testweb::COPIES_CANONICAL_COPIES;
    let reader = shared::StoreReader::open(dir.path()).expect("store");
    let stored = |path: &str| {
        reader
            .page(&web.url("copies.test", path))
            .expect("read")
            .expect("stored")
            .canonical
    };
    assert_eq!(stored(copy).as_ref(), Some(&canonical));
    assert_eq!(stored(print).as_ref(), Some(&canonical));
    assert_eq!(
        stored(testweb::COPIES_CANONICAL),
        None,
        "naming itself says nothing"
    );
    drop(reader);

    index(dir.path()).await;
    let searcher = Searcher::open(dir.path(), RankingConfig::default()).expect("searcher");
    assert!(
        copy.len() < testweb::COPIES_CANONICAL.len(),
        "the shortest URL is a copy"
    );
    assert_eq!(
        hit_urls(&searcher, testweb::COPIES_CANONICAL_WORD),
        vec![canonical],
        "one result, under the URL the copies name"
    );
}
