//! Search replicas: the test web crawled into 4 partitions and indexed, served by two
//! `searchd leaf` processes over the same shards (on 127.0.0.2 and 127.0.0.3, each a child
//! process: this test binary re-entered through [`child_leaf`]), and a root in this process
//! (`gateway::serve_root` with `--leaf A|B`, the leaf token shown to both). Clients search
//! at once; one replica is killed with SIGKILL midway; no answer is partial, and every
//! answer is the one given while both were up (and the one the shards give in one process).
//! The answer times before and after the kill are printed, not asserted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use shared::partition::{PartitionId, Partitions};
use testweb::TestWeb;

use crate::support::{crawl, crawler_config, index};

const CHILD_ARGS: &str = "E2E_LEAF_ARGS";
const PARTITIONS: u32 = 4;
/// Hosts with pages to search; between them they fill every partition.
const HOSTS: [&str; 8] = [
    "sample.test",
    "ranked.test",
    "copies.test",
    "charsets.test",
    "languages.test",
    "dates.test",
    "almanac.test",
    "meta.test",
];
const QUERIES: [&str; 6] = [
    "page",
    "the",
    "sample",
    "copy text",
    "almanac",
    "\"the page\"",
];
/// Searches in all, over every client: a bound on the test's work.
const SEARCHES: usize = 400;
const CLIENTS: usize = 4;
/// The replica is killed once this many searches have been answered.
const KILL_AFTER: usize = SEARCHES / 3;

/// Not a test of its own: when the parent test sets `E2E_LEAF_ARGS` (`[data, listen,
/// config, address file]`), this serves the shards of `data` as `searchd leaf` does, in this
/// (child) process, and writes the address it listens on to the address file.
#[test]
fn child_leaf() {
    let Ok(args) = std::env::var(CHILD_ARGS) else {
        return;
    };
    let [data, listen, config, address]: [String; 4] =
        serde_json::from_str(&args).expect("[data, listen, config, address file]");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async move {
        let config = shared::Config::load(Some(Path::new(&config))).expect("config");
        let listener = tokio::net::TcpListener::bind(&listen).await.expect("bind");
        let addr = listener.local_addr().expect("addr").to_string();
        let written = PathBuf::from(format!("{address}.part"));
        std::fs::write(&written, addr).expect("address written");
        std::fs::rename(&written, &address).expect("address file");
        gateway::serve_leaf(
            listener,
            PathBuf::from(data),
            config,
            std::future::pending(),
        )
        .await
        .expect("the leaf serves");
    });
}

/// A `searchd leaf` child process; killed with SIGKILL when dropped.
struct LeafProcess {
    child: Child,
    url: String,
}

impl LeafProcess {
    /// Starts a leaf over `data` on `ip` (a free port), and waits until it listens.
    fn start(data: &Path, ip: &str, config: &Path) -> LeafProcess {
        let address = config.with_file_name(format!("leaf-{ip}"));
        let args = [
            data.display().to_string(),
            format!("{ip}:0"),
            config.display().to_string(),
            address.display().to_string(),
        ];
        let mut child = Command::new(std::env::current_exe().expect("test binary path"))
            .args([
                "--exact",
                "replicas::child_leaf",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ARGS, serde_json::to_string(&args).expect("json"))
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("child leaf starts");
        let deadline = Instant::now() + Duration::from_secs(30);
        let addr = loop {
            if let Ok(addr) = std::fs::read_to_string(&address) {
                break addr;
            }
            if let Some(status) = child.try_wait().expect("child status") {
                panic!("the leaf on {ip} ended: {status}");
            }
            assert!(Instant::now() < deadline, "the leaf on {ip} never listened");
            std::thread::sleep(Duration::from_millis(20));
        };
        LeafProcess {
            child,
            url: format!("http://{addr}"),
        }
    }

    /// `kill -9`.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LeafProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What an answer is compared by.
#[derive(Clone, Debug, PartialEq)]
struct Answer {
    total: u64,
    urls: Vec<String>,
    partial: bool,
    missing: Vec<String>,
}

async fn search(client: &reqwest::Client, root: &str, query: &str) -> Answer {
    let body = client
        .get(format!("{root}/api/search?q={}", gateway::urlencode(query)))
        .send()
        .await
        .expect("the root answers")
        .text()
        .await
        .expect("body");
    let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let urls = json["hits"].as_array().expect("hits").iter();
    Answer {
        total: json["total"].as_u64().expect("total"),
        urls: urls
            .map(|h| h["url"].as_str().expect("url").into())
            .collect(),
        partial: json["partial"].as_bool().expect("partial"),
        missing: serde_json::from_value(json["missing_shards"].clone()).unwrap_or_default(),
    }
}

/// The test web's `HOSTS` crawled into `PARTITIONS` partitions of `data`, and indexed.
async fn partitioned_crawl(web: &TestWeb, data: &Path) {
    let partitions = Partitions::new(PARTITIONS).expect("partitions");
    let mut owned: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for host in HOSTS {
        let p = partitions.of_host(host).get();
        owned.entry(p).or_default().push(web.url(host, "/"));
    }
    assert_eq!(
        owned.len(),
        PARTITIONS as usize,
        "every partition: {owned:?}"
    );
    for (p, seeds) in &owned {
        let dir = PartitionId::new(*p).data_dir(data);
        crawl(&dir, seeds, crawler_config(web)).await;
    }
    index(data).await;
}

/// The 0.99 quantile of `times` (nearest rank), in milliseconds.
fn p99(times: &mut [Duration]) -> f64 {
    times.sort();
    let rank = (times.len() * 99).div_ceil(100).saturating_sub(1);
    times.get(rank).map_or(0.0, |t| t.as_secs_f64() * 1000.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_over_two_replicas_loses_one_under_load_and_no_answer_is_partial() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    partitioned_crawl(&web, &data).await;
    let token_file = dir.path().join("leaf-token");
    std::fs::write(&token_file, "shared-by-the-root-and-its-replicas\n").expect("token");
    let config_file = dir.path().join("searchd.toml");
    // No kept answers: every search asks the replicas.
    let text = format!(
        "[searchd]\nleaf_token_file = {:?}\nanswer_cache = 0\n",
        token_file.display().to_string()
    );
    std::fs::write(&config_file, text).expect("config written");

    let a = LeafProcess::start(&data, "127.0.0.2", &config_file);
    let mut b = LeafProcess::start(&data, "127.0.0.3", &config_file);
    let group = format!("{}|{}", a.url, b.url);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let root = format!("http://{}", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = shared::Config::load(Some(&config_file)).expect("config");
    let root_data = tempfile::tempdir().expect("the root holds no shard");
    let served = tokio::spawn(gateway::serve_root(
        listener,
        root_data.path().to_path_buf(),
        vec![group.clone()],
        config,
        async {
            let _ = stopped.await;
        },
    ));
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ready = match client.get(format!("{root}/readyz")).send().await {
            Ok(answer) if answer.status() == 200 => break,
            Ok(answer) => answer.text().await.unwrap_or_default(),
            Err(error) => error.to_string(),
        };
        assert!(
            !served.is_finished(),
            "the root stopped: {:?}",
            served.await
        );
        assert!(
            Instant::now() < deadline,
            "the root never got ready: {ready}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Both up: the answers the shards give in one process.
    let one = gateway::Searcher::open(&data, Default::default()).expect("searcher");
    let mut expected = BTreeMap::new();
    for query in QUERIES {
        let answer = search(&client, &root, query).await;
        let alone = one.search(query, 1, 10).expect("in one process");
        assert!(
            !answer.partial && answer.missing.is_empty(),
            "{query}: {answer:?}"
        );
        assert_eq!(answer.total, alone.total, "{query}");
        let urls: Vec<String> = alone.hits.iter().map(|h| h.url.clone()).collect();
        assert_eq!(answer.urls, urls, "{query}");
        expected.insert(query, answer);
    }
    let expected = Arc::new(expected);

    // Under load, one replica killed midway.
    let answered = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (client, root) = (client.clone(), root.clone());
            let (answered, expected) = (Arc::clone(&answered), Arc::clone(&expected));
            tokio::spawn(async move {
                let mut times = Vec::new();
                for i in (c..SEARCHES).step_by(CLIENTS) {
                    let query = QUERIES[i % QUERIES.len()];
                    let started = Instant::now();
                    let answer = search(&client, &root, query).await;
                    let took = started.elapsed();
                    let after_kill = answered.fetch_add(1, Ordering::SeqCst) >= KILL_AFTER;
                    assert_eq!(&answer, &expected[query], "{query}, search {i}");
                    times.push((after_kill, took));
                }
                times
            })
        })
        .collect();
    let load_deadline = Instant::now() + Duration::from_secs(120);
    while answered.load(Ordering::SeqCst) < KILL_AFTER {
        assert!(Instant::now() < load_deadline, "the searches stalled");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    b.kill();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for client in clients {
        for (after_kill, took) in client.await.expect("every answer whole and the same") {
            let times = if after_kill { &mut after } else { &mut before };
            times.push(took);
        }
    }
    println!(
        "replicas: {} searches, p99 {:.1} ms with both up, {:.1} ms after one was killed",
        SEARCHES,
        p99(&mut before),
        p99(&mut after)
    );

    // The root says which replica is down (by its next probe at the latest), and stays
    // ready on the other.
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        let status = client
            .get(format!("{root}/status?format=json"))
            .send()
            .await
            .expect("status")
            .text()
            .await
            .expect("body");
        let status: serde_json::Value = serde_json::from_str(&status).expect("JSON");
        if status["leaves"][0]["replicas"][1]["state"] == "down" {
            break status;
        }
        assert!(Instant::now() < deadline, "{status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let replicas = &status["leaves"][0]["replicas"];
    assert_eq!(status["leaves"][0]["group"], group.as_str());
    assert_eq!(replicas[0]["state"], "up", "{status}");
    assert!(replicas[0]["p95_ms"].is_f64(), "{status}");
    let ready = client
        .get(format!("{root}/readyz"))
        .send()
        .await
        .expect("readyz");
    assert_eq!(ready.status(), 200);
    let ready = ready.text().await.expect("body");
    assert!(
        ready.contains(&format!("leaf {} failed: ", b.url)),
        "{ready}"
    );
    drop(stop);
    served
        .await
        .expect("served")
        .expect("the root stops cleanly");
    drop(a);
}
