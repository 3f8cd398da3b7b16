//! The distributed crawl (`crawler worker`) against a real `redis-server`: one worker and
//! three store the same pages, once each, with the same links; every gap to a host and to an
//! address holds across workers.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use std::path::Path;
use std::time::Duration;

use crawler::CrawlOptions;
use crawler::cluster::{WorkerOptions, WorkerSummary, run_worker};
use shared::StoreReader;
use shared::config::RawCrawlerConfig;
use shared::partition::{Partitions, local_partitions};
use testweb::{RedisServer, Request, SoakWeb, TestWeb};

use crate::support::crawler_config;

mod kills;
mod pauses;

/// The soak hosts of these tests: a dozen small ones, some slow, some failing.
const WEB: SoakWeb = SoakWeb {
    hosts: 12,
    pages: 24,
    slow: Duration::from_millis(20),
    crawl_delay_ms: 0,
};
/// The crawl's partitions.
const PARTITIONS: u32 = 8;
/// The hosts seeded: the others are reached through links from host to host only.
const SEEDED: [usize; 2] = [0, 1];
const HOST_DELAY: Duration = Duration::from_millis(40);
const IP_DELAY: Duration = Duration::from_millis(25);

/// The address soak host `n` resolves to: three addresses, four hosts each.
fn address_of(n: usize) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, 0, 2 + (n % 3) as u8)
}

fn addresses() -> Vec<Ipv4Addr> {
    (0..3).map(address_of).collect()
}

/// The web's config: soak hosts on their addresses, short delays.
fn config(web: &TestWeb) -> RawCrawlerConfig {
    let mut config = crawler_config(web);
    for n in 0..WEB.hosts {
        config
            .resolve
            .insert(SoakWeb::host(n), address_of(n).into());
    }
    config.delay_ms = HOST_DELAY.as_millis() as u64;
    config.ip_concurrency = 4;
    config.ip_delay_ms = IP_DELAY.as_millis() as u64;
    config
}

fn options(web: &TestWeb, redis: &RedisServer, data: &Path, seeded: bool) -> WorkerOptions {
    let (seeds, scope) = if seeded {
        (
            SEEDED
                .iter()
                .map(|&n| web.url(&SoakWeb::host(n), "/"))
                .collect(),
            (0..WEB.hosts)
                .map(|n| web.url(&SoakWeb::host(n), "/"))
                .collect(),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    WorkerOptions {
        redis: redis.url(),
        crawl: CrawlOptions {
            data: data.to_path_buf(),
            seeds,
            scope,
            config: config(web).validate().expect("valid settings"),
            max_time: None,
            pdf_child: Some(crate::support::pdf_child()),
        },
        partitions: Some(PARTITIONS),
        lease: Duration::from_secs(3),
    }
}

/// Runs `count` workers in this process over one data directory (the first with the
/// seeds) until the crawl is done.
async fn crawl_with(
    web: &TestWeb,
    redis: &RedisServer,
    data: &Path,
    count: usize,
) -> Vec<WorkerSummary> {
    let workers: Vec<_> = (0..count)
        .map(|i| {
            let options = options(web, redis, data, i == 0);
            tokio::spawn(run_worker(options, std::future::pending()))
        })
        .collect();
    let mut summaries = Vec::new();
    for worker in workers {
        let summary = tokio::time::timeout(Duration::from_secs(90), worker).await;
        if summary.is_err() {
            eprintln!("{}", coordination(redis));
        }
        let summary = summary
            .expect("the workers finish within 90 s")
            .expect("the worker task runs")
            .expect("the worker succeeds");
        summaries.push(summary);
    }
    summaries
}

/// What Redis holds of the crawl's progress, for a failure's message.
fn coordination(redis: &RedisServer) -> String {
    let mut text = format!("idle states: {}", redis.cli(&["HGETALL", "sift:idle"]));
    for p in 0..PARTITIONS {
        let key = format!("sift:links:p-{p:03}");
        text.push_str(&format!(
            "\n{key}: {}",
            redis.cli(&["XINFO", "STREAM", &key])
        ));
        text.push_str(&format!(
            "pending: {}",
            redis.cli(&["XPENDING", &key, "owners"])
        ));
    }
    text
}

/// Every page stored under `data`, by URL, with the partition that holds it; panics on a
/// page stored twice.
fn stored(data: &Path) -> BTreeMap<String, u32> {
    let mut pages = BTreeMap::new();
    for (id, dir) in local_partitions(data).expect("partitions listed") {
        let store = StoreReader::open(&dir).expect("a partition store opens");
        for page in store.pages() {
            let page = page.expect("page decodes");
            let before = pages.insert(page.url.clone(), id.get());
            assert!(before.is_none(), "{} stored in two partitions", page.url);
        }
    }
    pages
}

/// In-link counts of every stored page, from every partition's outlinks.
fn in_links(data: &Path) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for (_, dir) in local_partitions(data).expect("partitions listed") {
        let store = StoreReader::open(&dir).expect("a partition store opens");
        for item in store.all_outlinks() {
            let (from, links) = item.expect("outlinks decode");
            for link in links.0 {
                if link.target != from {
                    *counts.entry(link.target).or_default() += 1;
                }
            }
        }
    }
    counts
}

/// Every page the crawl should store, as URLs.
fn expected(web: &TestWeb) -> BTreeSet<String> {
    expected_of(web, WEB)
}

/// Every page a crawl of `soak`'s hosts seeded with [`SEEDED`] should store, as URLs.
fn expected_of(web: &TestWeb, soak: SoakWeb) -> BTreeSet<String> {
    soak.reachable_from(SEEDED)
        .into_iter()
        .map(|(host, path)| web.url(&host, &path))
        .collect()
}

/// Every gap between two requests to one host (from the end of one to the next) and to
/// one address (from arrival to arrival) held its delay.
fn assert_polite(requests: &[Request]) {
    let mut by_host: BTreeMap<&str, Vec<&Request>> = BTreeMap::new();
    let mut by_address: BTreeMap<Ipv4Addr, Vec<&Request>> = BTreeMap::new();
    for request in requests {
        let Some(n) = WEB.host_number(&request.host) else {
            continue;
        };
        by_host.entry(&request.host).or_default().push(request);
        by_address.entry(address_of(n)).or_default().push(request);
    }
    for (host, mut mine) in by_host {
        mine.sort_by_key(|r| r.at);
        for pair in mine.windows(2) {
            let answered = pair[0].answered_at.expect("answered");
            assert!(
                pair[1].at >= answered + HOST_DELAY,
                "{host}: {} asked {:?} after {} was answered",
                pair[1].path_and_query,
                pair[1].at.saturating_duration_since(answered),
                pair[0].path_and_query
            );
        }
    }
    // Arrival to arrival: Redis books each turn, and the time its answer takes to reach the
    // worker, then the request the server, varies by a few milliseconds on a busy machine
    // (the whole suite running beside it). The soak's rule: 10% and 5 ms of slack.
    let least = IP_DELAY
        .mul_f64(0.9)
        .saturating_sub(Duration::from_millis(5));
    for (address, mut mine) in by_address {
        mine.sort_by_key(|r| r.at);
        for pair in mine.windows(2) {
            let gap = pair[1].at.saturating_duration_since(pair[0].at);
            assert!(
                gap >= least,
                "{address}: {}{} then {}{} {gap:?} apart",
                pair[0].host,
                pair[0].path_and_query,
                pair[1].host,
                pair[1].path_and_query
            );
        }
    }
}

/// Links read and never applied, over every stream.
fn pending(redis: &RedisServer) -> u64 {
    (0..PARTITIONS)
        .map(|p| {
            let key = format!("sift:links:p-{p:03}");
            let out = redis.cli(&["XPENDING", &key, "owners"]);
            out.lines()
                .next()
                .and_then(|l| l.trim().parse().ok())
                .unwrap_or(0)
        })
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_worker_and_three_store_the_same_pages_once_each_politely() {
    if std::env::var_os("E2E_LOG").is_some() {
        shared::logging::init(shared::LogFormat::Human);
    }
    let web = TestWeb::start_on(WEB, &addresses()).await;
    let expected = expected(&web);
    let partitions = Partitions::new(PARTITIONS).expect("partitions");
    let seeded_partitions: BTreeSet<u32> = SEEDED
        .iter()
        .map(|&n| partitions.of_host(&SoakWeb::host(n)).get())
        .collect();
    let reached_only_by_links: Vec<&String> = expected
        .iter()
        .filter(|url| {
            let host = url::Url::parse(url)
                .expect("url")
                .host_str()
                .expect("host")
                .to_string();
            !seeded_partitions.contains(&partitions.of_host(&host).get())
        })
        .collect();
    assert!(
        reached_only_by_links.len() > 20,
        "the test needs pages that only a link from another partition reaches"
    );

    let mut outcomes = Vec::new();
    for workers in [1, 3] {
        let redis = RedisServer::start();
        let dir = tempfile::tempdir().expect("tempdir");
        let before = web.requests().len();
        let summaries = crawl_with(&web, &redis, dir.path(), workers).await;
        let requests = web.requests()[before..].to_vec();
        let pages = stored(dir.path());
        let urls: BTreeSet<String> = pages.keys().cloned().collect();
        assert_eq!(
            urls, expected,
            "{workers} workers store every reachable page"
        );
        for (url, &p) in &pages {
            let host = url::Url::parse(url)
                .expect("url")
                .host_str()
                .expect("host")
                .to_string();
            assert_eq!(
                partitions.of_host(&host).get(),
                p,
                "{url} is in its host's partition"
            );
        }
        assert_eq!(
            pending(&redis),
            0,
            "{workers} workers: every link applied and acknowledged"
        );
        assert_polite(&requests);
        let fetched: u64 = summaries.iter().map(|s| s.fetched).sum();
        let commands: u64 = summaries.iter().map(|s| s.redis_commands).sum();
        eprintln!(
            "{workers} workers: {} pages, {fetched} fetches, {commands} Redis commands",
            pages.len()
        );
        outcomes.push(in_links(dir.path()));
    }
    assert_eq!(
        outcomes[0], outcomes[1],
        "the same links, whatever the workers"
    );
}

/// A worker process that is killed when dropped: a failing test leaves none behind.
struct WorkerProcess(std::process::Child);

impl WorkerProcess {
    fn child(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
