//! Groups of replicas over real HTTP on loopback, against one index of the same documents:
//! a replica whose port is closed, one that answers 500, one that answers too slowly
//! (hedged) and one found down leave the answer whole while another replica answers; only a
//! group none of whose replicas answers is missing. `/readyz` and `/status` say each
//! replica's state, and every replica is sent the leaf token.
//!
//! The replicas that misbehave on purpose are [`OddLeaf`]s: real HTTP servers on loopback
//! that answer every request with one status, after a delay.

use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::time::Duration;

use shared::config::RawSearchdConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::replicas::LeafGroup;
use crate::search::{SearchResults, Searcher};
use crate::sharded_tests::{compare, documents, leaf, leaf_with_token, split};
use crate::sharded_tests::{readyz_until, remote, searcher, test_token};

/// An HTTP server on loopback answering every request with its status (an empty JSON
/// object) after its delay, counting the requests it read.
struct OddLeaf {
    url: String,
    asked: Arc<AtomicUsize>,
    status: Arc<AtomicU16>,
}

impl OddLeaf {
    async fn start(status: u16, delay: Duration) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let asked = Arc::new(AtomicUsize::new(0));
        let status = Arc::new(AtomicU16::new(status));
        let (counted, answering) = (Arc::clone(&asked), Arc::clone(&status));
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let (counted, answering) = (Arc::clone(&counted), Arc::clone(&answering));
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buffer = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 1 << 20 {
                        match socket.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buffer[..n]),
                        }
                    }
                    counted.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(delay).await;
                    let status = answering.load(Ordering::SeqCst);
                    let answer = format!(
                        "HTTP/1.1 {status} Odd\r\ncontent-type: application/json\r\n\
                         content-length: 2\r\nconnection: close\r\n\r\n{{}}"
                    );
                    let _ = socket.write_all(answer.as_bytes()).await;
                });
            }
        });
        Self { url, asked, status }
    }

    fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }
}

/// A closed port's address: a connection to it is refused.
async fn closed_port() -> String {
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    format!("http://{}", closed.local_addr().expect("addr"))
}

/// A group of the leaves at `urls`, each given `timeout_ms`.
fn group(urls: &[&str], timeout_ms: u64) -> LeafGroup {
    LeafGroup::parse(&urls.join("|"), |url| Ok(remote(url, timeout_ms))).expect("group")
}

/// Probes each replica of `group`, as the server does every second.
async fn probe(group: &LeafGroup) {
    for leaf in group.leaves() {
        leaf.probe().await;
    }
}

/// Runs `work` off the async threads, as the server does.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(work).await.expect("ran")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_fails_over_and_is_partial_only_when_every_replica_fails() {
    let docs = documents();
    let single = crate::testutil::data_with(&docs);
    let (local, far) = split(&docs);
    let (good, _stop) = leaf(far.path()).await;
    let failing = OddLeaf::start(500, Duration::ZERO).await.url;
    let refused = closed_port().await;
    for replicas in [
        [refused.as_str(), good.as_str()],
        [good.as_str(), refused.as_str()],
        [failing.as_str(), good.as_str()],
    ] {
        let root = searcher(local.path()).with_leaves(vec![group(&replicas, 2_000)]);
        let single = searcher(single.path());
        blocking(move || compare(&single, &root)).await;
    }
    let root = searcher(local.path()).with_leaves(vec![group(&[&refused, &failing], 2_000)]);
    let partial = blocking(move || root.search("river", 1, 50).expect("partial")).await;
    assert_eq!(partial.missing_shards, [format!("{refused}|{failing}")]);
    let root = searcher(local.path()).with_leaves(vec![group(&[&refused, &good], 2_000)]);
    let whole = blocking(move || root.search("river", 1, 50).expect("whole")).await;
    assert!(whole.missing_shards.is_empty());
    assert!(whole.total > partial.total, "the far shards are in");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_that_answers_too_slowly_is_hedged_and_the_other_answers() {
    let docs = documents();
    let single = crate::testutil::data_with(&docs);
    let (local, far) = split(&docs);
    let (good, _stop) = leaf(far.path()).await;
    // It answers after 30 s, far beyond the leaf timeout: without the hedge, every call it is
    // asked first would leave the answer partial.
    let slow = OddLeaf::start(200, Duration::from_secs(30)).await;
    let replicas = group(&[&slow.url, &good], 2_000);
    let root = searcher(local.path()).with_leaves(vec![replicas.clone()]);
    let single = searcher(single.path());
    blocking(move || compare(&single, &root)).await;
    assert!(
        slow.asked() >= 1,
        "the slow replica was asked first, in turn"
    );
    // The calls it lost were dropped: nothing is left outstanding.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while replicas.state().replicas.iter().any(|r| r.outstanding > 0) {
        assert!(
            std::time::Instant::now() < deadline,
            "{:?}",
            replicas.state()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let state = replicas.state();
    assert_eq!(state.replicas[1].state, "up", "{state:?}");
    assert!(state.replicas[1].p95_ms.is_some(), "{state:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_found_down_is_skipped_until_it_answers_again() {
    let docs = documents();
    let (local, far) = split(&docs);
    let (good, _stop) = leaf(far.path()).await;
    let odd = OddLeaf::start(500, Duration::ZERO).await;
    let replicas = group(&[&odd.url, &good], 2_000);
    probe(&replicas).await;
    let state = replicas.state();
    assert_eq!(
        (state.replicas[0].state, state.replicas[1].state),
        ("down", "up"),
        "{state:?}"
    );
    let asked = odd.asked();
    let root = searcher(local.path()).with_leaves(vec![replicas.clone()]);
    let root = blocking(move || {
        for _ in 0..10 {
            let found = root.search("heron river", 1, 10).expect("search");
            assert!(found.missing_shards.is_empty());
        }
        root
    })
    .await;
    assert_eq!(odd.asked(), asked, "a replica found down is not asked");
    // It answers its probe again: it is asked again, first, not measured yet (and its answer,
    // an empty object, is a failure: the call fails over).
    odd.status.store(200, Ordering::SeqCst);
    probe(&replicas).await;
    assert_eq!(replicas.state().replicas[0].state, "up");
    let asked = odd.asked();
    let found = blocking(move || root.search("heron river", 1, 10).expect("search")).await;
    assert!(found.missing_shards.is_empty());
    assert!(odd.asked() > asked, "asked again after its probe");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_and_status_say_each_replicas_state() {
    let docs = documents();
    let (local, far) = split(&docs);
    let (good, stop_good) = leaf(far.path()).await;
    let refused = closed_port().await;
    let config = RawSearchdConfig::default().validate().expect("config");
    let root = searcher(local.path()).with_leaves(vec![group(&[&good, &refused], 500)]);
    let root = crate::routes_tests::serve(root, &config).await;
    let root_url = format!("http://{}", root.addr);

    let ready = readyz_until(&root_url, 200).await;
    assert!(
        ready.contains(&format!("replicas {good}|{refused}: ")),
        "{ready}"
    );
    assert!(
        ready.contains(&format!("leaf {good} answered (")),
        "{ready}"
    );
    assert!(
        ready.contains(&format!("leaf {refused} failed: ")),
        "{ready}"
    );
    assert!(ready.contains(" outstanding, p95 "), "{ready}");
    let search = reqwest::get(format!("{root_url}/api/search?q=river"))
        .await
        .expect("search");
    let answer: serde_json::Value =
        serde_json::from_str(&search.text().await.expect("body")).expect("json");
    assert_eq!(answer["partial"], false, "{answer}");

    let status = reqwest::get(format!("{root_url}/status?format=json"))
        .await
        .expect("status")
        .text()
        .await
        .expect("body");
    let status: serde_json::Value = serde_json::from_str(&status).expect("json");
    let leaves = &status["leaves"][0];
    assert_eq!(leaves["group"], format!("{good}|{refused}"), "{status}");
    assert_eq!(leaves["replicas"][0]["url"], good.as_str());
    assert_eq!(leaves["replicas"][0]["state"], "up");
    assert_eq!(leaves["replicas"][0]["outstanding"], 0);
    assert_eq!(leaves["replicas"][1]["state"], "down");
    assert!(leaves["replicas"][1]["failure"].is_string(), "{status}");
    assert!(leaves["replicas"][1]["p95_ms"].is_null(), "{status}");
    let html = reqwest::get(format!("{root_url}/status"))
        .await
        .expect("status")
        .text()
        .await
        .expect("html");
    assert!(
        html.contains(&format!("leaf {good} answered (0 outstanding")),
        "{html}"
    );

    // Both down: not ready, each said.
    drop(stop_good);
    let not_ready = readyz_until(&root_url, 503).await;
    assert!(
        not_ready.starts_with(&format!(
            "not ready: no replica of {good}|{refused} answers: "
        )),
        "{not_ready}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_replica_is_sent_the_leaf_token() {
    let docs = documents();
    let (local, far) = split(&docs);
    let token = test_token();
    let (a, _stop_a) = leaf_with_token(far.path(), Some(token.clone())).await;
    let (b, _stop_b) = leaf_with_token(far.path(), Some(token.clone())).await;
    let spec = format!("{a}|{b}");
    let with = LeafGroup::parse(&spec, |url| {
        Ok(remote(url, 2_000).with_token(Some(token.clone())))
    })
    .expect("group");
    let without = group(&[&a, &b], 2_000);
    probe(&with).await;
    probe(&without).await;
    let states = |group: &LeafGroup| -> Vec<&'static str> {
        group.state().replicas.iter().map(|r| r.state).collect()
    };
    assert_eq!(states(&with), ["up", "up"]);
    assert_eq!(states(&without), ["down", "down"]);
    let (root_dir, spec_shown) = (local.path().to_path_buf(), spec.clone());
    let (with, without): (SearchResults, SearchResults) = blocking(move || {
        let search = |group: LeafGroup| {
            let root: Searcher = searcher(&root_dir).with_leaves(vec![group]);
            root.search("river", 1, 50).expect("searched")
        };
        (search(with), search(without))
    })
    .await;
    assert!(with.missing_shards.is_empty());
    assert_eq!(without.missing_shards, [spec_shown]);
}
