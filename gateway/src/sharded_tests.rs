//! Search over shards against one index of the same documents: the same results and scores
//! (within 1e-4), with the shards in this process, behind a remote leaf over real HTTP, and
//! with a leaf that is down or stalls (a partial answer, never an error).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use shared::config::{RankingConfig, RawSearchdConfig};
use shared::partition::Partitions;

use crate::accept_language::Preferred;
use crate::handlers::AppState;
use crate::hit::{Order, Ranking};
use crate::leaf_token::LeafToken;
use crate::remote::RemoteLeaf;
use crate::search::{SearchResults, Searcher};
use crate::testutil::{Doc, write_generation};

const PARTITIONS: u32 = 3;

/// Documents over many hosts. "heron" is skewed: nearly every page of the first hosts says
/// it, one page elsewhere; "river" is everywhere; "grey heron" is a phrase on a few. Every
/// page but the fifth of each host has a date, a few share one.
pub(crate) fn documents() -> Vec<Doc> {
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let mut docs = Vec::new();
    for h in 0..12u64 {
        for p in 0..5u64 {
            let body = match (h, p) {
                (0..=2, _) => format!("heron heron by the river, page {p} of host {h} grey heron"),
                (7, 0) => "a lone heron on a wide river".to_string(),
                _ => format!("the river runs past host {h}, page {p}; fish and bird"),
            };
            docs.push(Doc {
                // Distinct link boosts: few exact ties in score.
                inlinks: h * 5 + p,
                external_inlinks: h % 2,
                anchor: if p == 0 { "home heron" } else { "" },
                published: (p != 4).then(|| {
                    leak(format!(
                        "20{:02}-0{}-1{}",
                        (h * 7 + p * 3) % 17,
                        p + 1,
                        h % 9
                    ))
                }),
                ..Doc::new(
                    leak(format!("http://host{h}.test/page{p}")),
                    leak(format!("Page {p} of host {h}")),
                    leak(body),
                )
            });
        }
    }
    docs
}

/// A partitioned data directory holding `docs`, each in its host's partition, keeping only
/// the partitions `keep` says.
pub(crate) fn partitioned(docs: &[Doc], keep: impl Fn(u32) -> bool) -> tempfile::TempDir {
    let data = tempfile::tempdir().expect("tempdir");
    let partitions = Partitions::new(PARTITIONS).expect("partitions");
    let mut by_partition: BTreeMap<u32, Vec<Doc>> = BTreeMap::new();
    for doc in docs {
        let host = url::Url::parse(doc.url).expect("url");
        let p = partitions.of_host(host.host_str().expect("host"));
        by_partition.entry(p.get()).or_default().push(doc.clone());
    }
    assert!(by_partition.len() >= 2, "the hosts spread over partitions");
    for (p, docs) in by_partition.into_iter().filter(|(p, _)| keep(*p)) {
        let dir = shared::partition::PartitionId::new(p).data_dir(data.path());
        // A partition is listed by its store; searching needs only its index.
        let store = shared::store::store_dir(&dir);
        std::fs::create_dir_all(&store).expect("store dir");
        std::fs::write(store.join("CURRENT"), "MANIFEST-000001\n").expect("store CURRENT");
        write_generation(&dir, 1, &docs);
    }
    data
}

/// [`partitioned`] twice: the root's partition 0, and the far leaf's others.
pub(crate) fn split(docs: &[Doc]) -> (tempfile::TempDir, tempfile::TempDir) {
    (partitioned(docs, |p| p == 0), partitioned(docs, |p| p != 0))
}

pub(crate) const QUERIES: &[&str] = &[
    "heron",
    "river",
    "heron river",
    "\"grey heron\"",
    "fish OR heron",
    "title:page heron",
    "river -heron",
    "lone heron",
    "site:host7.test river",
    "heron zzzunknownword",
];

/// Prefixes whose completions are few enough (ten at most) that shards merged must offer
/// exactly one index's: "host 1" and "page 2 of host 1" are on pages of several partitions.
const PREFIXES: &[&str] = &["host 1", "page 2 of host 1", "page 4 of host 1"];

fn compare_completions(single: &Searcher, sharded: &Searcher) {
    for prefix in PREFIXES {
        let expected = single.complete(prefix, 10);
        assert!(!expected.is_empty(), "{prefix}");
        assert_eq!(sharded.complete(prefix, 10), expected, "{prefix}");
    }
}

pub(crate) fn searcher(data: &Path) -> Searcher {
    Searcher::open(data, RankingConfig::default()).expect("searcher")
}

/// Asserts the two answers hold the same results with the same scores; results whose
/// scores tie may swap places.
fn assert_same(query: &str, expected: &SearchResults, found: &SearchResults) {
    assert_eq!(found.total, expected.total, "{query}: total");
    assert_eq!(found.partial, expected.partial, "{query}: partial");
    assert_eq!(found.hits.len(), expected.hits.len(), "{query}: hits");
    for (i, (e, f)) in expected.hits.iter().zip(&found.hits).enumerate() {
        assert!(
            (e.score - f.score).abs() <= 1e-4,
            "{query} #{i}: {} {} against {} {}",
            e.url,
            e.score,
            f.url,
            f.score
        );
        // Two results of one score may come in either order.
        let tied = (e.score - f.score).abs() <= 1e-6;
        assert!(
            e.url == f.url || tied,
            "{query} #{i}: {} against {}",
            e.url,
            f.url
        );
    }
}

pub(crate) fn compare(single: &Searcher, sharded: &Searcher) {
    for query in QUERIES {
        for ranking in [Ranking::Full, Ranking::Bm25Body] {
            for order in [Order::Relevance, Order::Date] {
                let mut last_date = Some(i64::MAX);
                for page in [1, 2] {
                    let search = |searcher: &Searcher| {
                        let preferred = Preferred::default();
                        searcher.search_for(query, page, 10, false, ranking, &preferred, order)
                    };
                    let expected = search(single).expect("single index");
                    let found = search(sharded).expect("shards");
                    assert!(found.missing_shards.is_empty(), "{query}");
                    assert_same(query, &expected, &found);
                    if order == Order::Date && page == 1 && !found.hits.is_empty() {
                        assert!(found.hits[0].date.is_some(), "{query}: the newest first");
                    }
                    if order == Order::Date && !found.partial {
                        // Newest first across pages, the undated after every dated page.
                        for hit in found.hits.iter().filter(|hit| hit.all_words) {
                            assert!(
                                hit.date <= last_date || last_date.is_none() && hit.date.is_none(),
                                "{query} page {page}: {} dated {:?} after {last_date:?}",
                                hit.url,
                                hit.date
                            );
                            last_date = hit.date;
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn local_shards_answer_as_one_index() {
    let docs = documents();
    let single = crate::testutil::data_with(&docs);
    let sharded = partitioned(&docs, |_| true);
    let (single, sharded) = (searcher(single.path()), searcher(sharded.path()));
    let heron = single.search("heron", 1, 10).expect("search");
    assert!(heron.total > 10, "the skewed word fills more than a page");
    compare(&single, &sharded);
    compare_completions(&single, &sharded);
    // Explained scores too.
    let explained = sharded.search_explained("heron", 1, 3).expect("explained");
    let first = explained.hits[0].explanation.as_ref().expect("explanation");
    let score = first["score"].as_f64().expect("score") as f32;
    assert!((score - heron.hits[0].score).abs() <= 1e-4);
    assert!(first["bm25"].is_object());
}

/// Starts a leaf serving `data` on loopback; the server stops when the sender is dropped.
pub(crate) async fn leaf(data: &Path) -> (String, tokio::sync::oneshot::Sender<()>) {
    leaf_with_token(data, None).await
}

/// [`leaf`], answering only callers that show `token` when there is one.
pub(crate) async fn leaf_with_token(
    data: &Path,
    token: Option<LeafToken>,
) -> (String, tokio::sync::oneshot::Sender<()>) {
    let config = RawSearchdConfig::default().validate().expect("config");
    let state = Arc::new(AppState::new(searcher(data), &config).with_leaf_token(token));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let limits = crate::limits(&config);
    tokio::spawn(crate::run_leaf(listener, state, limits, async {
        let _ = stopped.await;
    }));
    (format!("http://{addr}"), stop)
}

/// The token `a-token-of-thirty-two-bytes-long`, read from a file as a server reads it.
pub(crate) fn test_token() -> LeafToken {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("leaf-token");
    std::fs::write(&file, "a-token-of-thirty-two-bytes-long\n").expect("token written");
    LeafToken::read(&file).expect("the token")
}

pub(crate) fn remote(url: &str, timeout_ms: u64) -> RemoteLeaf {
    let handle = tokio::runtime::Handle::current();
    RemoteLeaf::new(url, Duration::from_millis(timeout_ms), handle, None).expect("leaf")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_and_a_remote_leaf_answer_as_one_index_and_a_missing_leaf_is_partial() {
    let docs = documents();
    let single = crate::testutil::data_with(&docs);
    // The root holds partition 0; the leaf the others.
    let local = partitioned(&docs, |p| p == 0);
    let far = partitioned(&docs, |p| p != 0);
    let (url, _stop) = leaf(far.path()).await;
    let root = searcher(local.path()).with_leaves(vec![remote(&url, 2_000)]);
    let single = searcher(single.path());
    let full = tokio::task::spawn_blocking(move || {
        compare(&single, &root);
        compare_completions(&single, &root);
        root.search("river", 1, 50).expect("search")
    })
    .await
    .expect("compared");
    assert!(full.missing_shards.is_empty());
    let local_dir = local.path().to_path_buf();
    let (alone, completed_alone) = tokio::task::spawn_blocking(move || {
        let alone = searcher(&local_dir);
        let completed = PREFIXES
            .iter()
            .map(|p| alone.complete(p, 10).len())
            .sum::<usize>();
        (alone.search("river", 1, 50).expect("search"), completed)
    })
    .await
    .expect("searched");
    let single = crate::testutil::data_with(&docs);
    let everywhere = PREFIXES
        .iter()
        .map(|p| searcher(single.path()).complete(p, 10).len())
        .sum::<usize>();
    assert!(
        completed_alone < everywhere,
        "the leaf's completions are merged in"
    );

    // The likes of a page the leaf holds: its words come from the leaf (`/leaf/terms`).
    let partitions = Partitions::new(PARTITIONS).expect("partitions");
    let far_page = docs
        .iter()
        .map(|doc| doc.url)
        .find(|url| {
            let host = url::Url::parse(url).expect("url");
            partitions.of_host(host.host_str().expect("host")).get() != 0
        })
        .expect("a page of the leaf's partitions");
    let (root_dir, leaf_url) = (local.path().to_path_buf(), url.clone());
    let similar = tokio::task::spawn_blocking(move || {
        let root = searcher(&root_dir).with_leaves(vec![remote(&leaf_url, 2_000)]);
        let alone = searcher(&root_dir);
        let preferred = crate::Preferred::default();
        assert!(
            alone
                .similar(far_page, 10, &preferred)
                .expect("asked")
                .is_none()
        );
        root.similar(far_page, 10, &preferred).expect("asked")
    })
    .await
    .expect("searched")
    .expect("the leaf holds the page");
    let source = similar.similar_to.as_ref().expect("similar_to");
    assert_eq!(source.url, far_page);
    assert!(
        source.words.iter().any(|w| w == "river"),
        "{:?}",
        source.words
    );
    assert!(!similar.hits.is_empty());
    assert!(similar.hits.iter().all(|hit| hit.url != far_page));
    assert!(alone.total < full.total, "the leaf holds some of the river");

    // A leaf that is down, and one that accepts and never answers: partial, never an error.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let down = format!("http://{}", closed.local_addr().expect("addr"));
    drop(closed);
    let stalled = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let stall = format!("http://{}", stalled.local_addr().expect("addr"));
    for dead in [down, stall] {
        let root =
            searcher(local.path()).with_leaves(vec![remote(&url, 2_000), remote(&dead, 300)]);
        let partial = tokio::task::spawn_blocking(move || {
            root.search("river", 1, 50).expect("partial, not an error")
        })
        .await
        .expect("searched");
        assert_eq!(partial.missing_shards, vec![dead.clone()], "{dead}");
        let json = crate::handlers::results_json(&partial);
        assert_eq!(json["partial"], true, "{dead}");
        assert_eq!(json["missing_shards"][0], dead.as_str());
        assert_eq!(
            partial.total, full.total,
            "{dead}: the other shards' hits are all there"
        );
        let urls = |r: &SearchResults| r.hits.iter().map(|h| h.url.clone()).collect::<Vec<_>>();
        assert_eq!(urls(&partial), urls(&full), "{dead}");
    }
    drop(stalled);
}

/// A root with a remote leaf, served on loopback until the server is dropped.
async fn root_with_leaf(data: &Path, leaf: &str) -> crate::routes_tests::Server {
    let config = RawSearchdConfig::default().validate().expect("config");
    let searcher = searcher(data).with_leaves(vec![remote(leaf, 500)]);
    crate::routes_tests::serve(searcher, &config).await
}

/// `/readyz` of the server at `base` until it answers `status`, within 10 s: its body.
pub(crate) async fn readyz_until(base: &str, status: u16) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let answer = reqwest::get(format!("{base}/readyz"))
            .await
            .expect("readyz");
        let (got, body) = (answer.status().as_u16(), answer.text().await.expect("body"));
        if got == status {
            return body;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{base}/readyz stayed {got}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_is_ready_while_its_leaf_answers_and_counts_its_calls() {
    let docs = documents();
    let local = partitioned(&docs, |p| p == 0);
    let far = partitioned(&docs, |p| p != 0);
    let (leaf_url, stop_leaf) = leaf(far.path()).await;
    let root = root_with_leaf(local.path(), &leaf_url).await;
    let root_url = format!("http://{}", root.addr);

    let ready = readyz_until(&root_url, 200).await;
    assert!(
        ready.contains(&format!("leaf {leaf_url} answered")),
        "{ready}"
    );
    let leaf_ready = readyz_until(&leaf_url, 200).await;
    assert!(leaf_ready.starts_with("ready: index "), "{leaf_ready}");
    let search = reqwest::get(format!("{root_url}/api/search?q=river"))
        .await
        .expect("search");
    assert_eq!(search.status(), 200);

    let metrics = |url: String| async move {
        reqwest::get(format!("{url}/metrics"))
            .await
            .expect("metrics")
            .text()
            .await
            .expect("text")
    };
    let root = metrics(root_url.clone()).await;
    let leaf_calls = format!(r#"searchd_leaf_request_duration_seconds_count{{leaf="{leaf_url}"}}"#);
    let calls = crate::operations_tests::sample(&root, &leaf_calls).expect(&root);
    assert!(
        calls >= 4.0,
        "a probe and three rounds of a search: {calls}\n{root}"
    );
    for shard in ["p-000", "p-001", "p-002"] {
        let documents = format!(r#"searchd_index_documents{{shard="{shard}"}}"#);
        let held = crate::operations_tests::sample(&root, &documents).is_some();
        assert_eq!(held, shard == "p-000", "{shard} on the root:\n{root}");
    }
    crate::operations_tests::promtool_check(&root);
    let leaf = metrics(leaf_url.clone()).await;
    let top = r#"searchd_http_requests_total{route="/leaf/top",status="200"}"#;
    assert!(
        crate::operations_tests::sample(&leaf, top).is_some_and(|n| n >= 1.0),
        "{leaf}"
    );
    crate::operations_tests::promtool_check(&leaf);

    // The leaf goes away: the root says so at its next probe.
    drop(stop_leaf);
    let not_ready = readyz_until(&root_url, 503).await;
    assert!(
        not_ready.starts_with(&format!("not ready: leaf {leaf_url} failed: ")),
        "{not_ready}"
    );
    let root = metrics(root_url).await;
    let failures = format!(r#"searchd_leaf_failures_total{{leaf="{leaf_url}"}}"#);
    assert!(crate::operations_tests::sample(&root, &failures).is_some_and(|n| n >= 1.0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leaf_with_a_token_answers_only_a_root_that_shows_it() {
    let docs = documents();
    let local = partitioned(&docs, |p| p == 0);
    let far = partitioned(&docs, |p| p != 0);
    let token = test_token();
    let (url, _stop) = leaf_with_token(far.path(), Some(token.clone())).await;

    // A bare call, or one with another token: 401, and nothing said but that.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    for header in [
        None,
        Some("Bearer another-token-of-32-bytes-long"),
        Some("a-token-of-thirty-two-bytes-long"),
    ] {
        let mut request = client.get(format!("{url}/leaf/status"));
        if let Some(header) = header {
            request = request.header("authorization", header);
        }
        let answer = request.send().await.expect("the leaf answers");
        assert_eq!(answer.status().as_u16(), 401, "{header:?}");
        let body = answer.text().await.expect("body");
        assert_eq!(body, r#"{"error":"unauthorized"}"#, "{header:?}");
    }
    let shown = client
        .get(format!("{url}/leaf/status"))
        .header("authorization", "Bearer a-token-of-thirty-two-bytes-long")
        .send()
        .await
        .expect("the leaf answers");
    assert_eq!(shown.status().as_u16(), 200);
    // Its operations routes answer anyone.
    let health = client
        .get(format!("{url}/healthz"))
        .send()
        .await
        .expect("answers");
    assert_eq!(health.status().as_u16(), 200);

    // A root without the token finds the leaf missing; with it, the leaf answers.
    let (root_dir, leaf_url) = (local.path().to_path_buf(), url.clone());
    let (without, with) = tokio::task::spawn_blocking(move || {
        let without = searcher(&root_dir).with_leaves(vec![remote(&leaf_url, 2_000)]);
        let with =
            searcher(&root_dir).with_leaves(vec![remote(&leaf_url, 2_000).with_token(Some(token))]);
        (
            without
                .search("river", 1, 50)
                .expect("partial, not an error"),
            with.search("river", 1, 50).expect("searched"),
        )
    })
    .await
    .expect("searched");
    assert_eq!(without.missing_shards, vec![url.clone()]);
    assert!(with.missing_shards.is_empty());
    assert!(with.total > without.total, "the leaf's pages are in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leaf_without_an_index_answers_503_and_its_root_counts_it_missing() {
    let docs = documents();
    let local = partitioned(&docs, |p| p == 0);
    let empty = tempfile::tempdir().expect("tempdir");
    let (url, _stop) = leaf(empty.path()).await;
    let (root_dir, leaf_url) = (local.path().to_path_buf(), url.clone());
    let results = tokio::task::spawn_blocking(move || {
        searcher(&root_dir)
            .with_leaves(vec![remote(&leaf_url, 2_000)])
            .search("river", 1, 50)
            .expect("partial, not an error")
    })
    .await
    .expect("searched");
    assert_eq!(
        results.missing_shards,
        vec![url],
        "a leaf with no index is missing, not empty"
    );
}

/// Lists partition `p` of `data` by its store, as a crawl does, with no index built yet.
fn crawled_not_indexed(data: &Path, p: u32) {
    let dir = shared::partition::PartitionId::new(p).data_dir(data);
    let store = shared::store::store_dir(&dir);
    std::fs::create_dir_all(&store).expect("store dir");
    std::fs::write(store.join("CURRENT"), "MANIFEST-000001\n").expect("store CURRENT");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_not_yet_indexed_are_named_missing_by_the_root_and_through_a_leaf() {
    let docs = documents();
    // The root: partition 0 indexed, 2 crawled and not indexed yet.
    let near = partitioned(&docs, |p| p == 0);
    crawled_not_indexed(near.path(), 2);
    // The leaf: partition 2 indexed, 1 crawled and not indexed yet.
    let far = partitioned(&docs, |p| p == 2);
    crawled_not_indexed(far.path(), 1);
    let (url, _stop) = leaf(far.path()).await;
    let (root_dir, leaf_url) = (near.path().to_path_buf(), url.clone());
    let (alone, with_leaf) = tokio::task::spawn_blocking(move || {
        let alone = searcher(&root_dir).search("river", 1, 50).expect("partial");
        let with_leaf = searcher(&root_dir)
            .with_leaves(vec![remote(&leaf_url, 2_000)])
            .search("river", 1, 50)
            .expect("partial, not an error");
        (alone, with_leaf)
    })
    .await
    .expect("searched");
    assert_eq!(alone.missing_shards, ["p-002"], "the root's own");
    assert!(alone.total > 0, "the indexed shard answers");
    assert_eq!(
        with_leaf.missing_shards,
        [format!("{url}/p-001"), "p-002".to_string()],
        "the leaf's, named by the leaf"
    );
    assert!(
        with_leaf.total > alone.total,
        "the leaf's indexed shard answers"
    );
    assert_eq!(crate::results_json(&with_leaf)["partial"], true);
}
