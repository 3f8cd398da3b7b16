//! `searchd demo`: one call serves a docs directory, crawls it, indexes it and serves search.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use searchd::demo::{DemoOptions, run};
use shared::StoreReader;

/// How long the demo may take over the sample site (it takes about a second).
const DEADLINE: Duration = Duration::from_secs(60);

/// A loopback address with a free port for the demo's search to listen on.
fn free_address() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    probe.local_addr().expect("address")
}

/// The URL paths stored under `data` so far (nothing while the crawl has written nothing).
fn stored_paths(data: &std::path::Path) -> BTreeSet<String> {
    let Ok(store) = StoreReader::open(data) else {
        return BTreeSet::new();
    };
    store
        .pages()
        .filter_map(Result::ok)
        .filter_map(|page| url::Url::parse(&page.url).ok())
        .map(|url| match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_string(),
        })
        .collect()
}

/// The JSON answer of the demo's search for `word`, once it answers 200.
async fn search(listen: SocketAddr, word: &str) -> Option<serde_json::Value> {
    let response = reqwest::get(format!("http://{listen}/api/search?q={word}"))
        .await
        .ok()?;
    if response.status() != 200 {
        return None;
    }
    serde_json::from_str(&response.text().await.ok()?).ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_crawls_indexes_and_serves_a_docs_directory() {
    let data = tempfile::tempdir().expect("tempdir");
    let listen = free_address();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let options = DemoOptions {
        listen,
        docs: Some(testweb::sample_site_dir()),
        data: data.path().to_path_buf(),
    };
    let demo = tokio::spawn(run(options, async {
        let _ = stopped.await;
    }));

    // The crawl stores the site as a crawl through the test web does.
    let want: BTreeSet<String> = testweb::SAMPLE_STORED
        .iter()
        .map(|p| p.to_string())
        .collect();
    let started = Instant::now();
    let mut stored = BTreeSet::new();
    while stored != want && started.elapsed() < DEADLINE {
        tokio::time::sleep(Duration::from_millis(100)).await;
        stored = stored_paths(data.path());
    }
    assert_eq!(stored, want, "the demo's crawl of the sample site");

    // Search answers from the index the demo built, and its result links work: the site
    // stays served.
    let word = testweb::SAMPLE_RANKED_WORD;
    let mut answer = None;
    while started.elapsed() < DEADLINE {
        answer = search(listen, word)
            .await
            .filter(|json| json["total"].as_u64() == Some(2));
        if answer.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let answer = answer.expect("the demo's search finds both pages that hold the ranked word");
    let top = answer["hits"][0]["url"].as_str().expect("a result URL");
    let page = reqwest::get(top).await.expect("the site answers");
    assert_eq!(page.status(), 200, "{top}");

    stop.send(()).expect("the demo listens for Ctrl-C");
    tokio::time::timeout(DEADLINE, demo)
        .await
        .expect("the demo stops when told")
        .expect("demo task")
        .expect("the demo ends without an error");
}
