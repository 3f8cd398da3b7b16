//! The distributed crawl (`crawler worker`) against a real `redis-server`: one worker and
//! three store the same pages, once each, with the same links; every gap to a host, and
//! every gap between two turns to an address (Redis's, logged with each send: see
//! [`crate::sends`]), holds across workers.

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use std::path::Path;
use std::time::Duration;

use crawler::CrawlOptions;
use crawler::cluster::{WorkerOptions, WorkerSummary, run_worker};
use shared::StoreReader;
use shared::config::RawCrawlerConfig;
use shared::partition::{Partitions, local_partitions};
use testweb::{RedisServer, Request, SoakAnswer, SoakWeb, TestWeb};

use crate::sends::{Send, SendLog, Sends, micros};
use crate::support::crawler_config;

mod backups;
mod failover;
mod joins;
mod kills;
mod pauses;
mod refusals;
mod restarts;
mod roles;
mod tls;
mod wiped;

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

fn options(web: &TestWeb, redis: &str, data: &Path, seeded: bool) -> WorkerOptions {
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
        redis: redis.to_string(),
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
        metrics: None,
        backups: None,
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
            let options = options(web, &redis.url(), data, i == 0);
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

/// What Redis holds of the crawl's progress, for a failure's message: the partitions not
/// idle first (a long message is cut in the middle where CI shows it).
fn coordination(redis: &RedisServer) -> String {
    let mut text = format!("idle states: {}", redis.cli(&["HGETALL", "sift:idle"]));
    let mut order: Vec<u32> = (0..PARTITIONS).collect();
    order.sort_by_key(|p| {
        let state = redis.cli(&["HGET", "sift:idle", &format!("p-{p:03}")]);
        state.starts_with('1')
    });
    for p in order {
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

/// Every gap between two requests to one host (from the end of one to the arrival of the
/// next) held its delay; every request that arrived was logged as sent, no sooner than a turn
/// Redis booked for its address; the turns of all workers to one address held its delay.
fn assert_polite(web: &TestWeb, requests: &[Request], sends: &Sends, workers: usize) {
    let mut by_host: BTreeMap<&str, Vec<&Request>> = BTreeMap::new();
    let mut arrivals: BTreeMap<String, usize> = BTreeMap::new();
    for request in requests {
        if WEB.host_number(&request.host).is_none() {
            continue;
        }
        by_host.entry(&request.host).or_default().push(request);
        *arrivals
            .entry(web.url(&request.host, &request.path_and_query))
            .or_default() += 1;
    }
    // A late arrival only lengthens this gap: the next request goes a delay after the crawler
    // has the answer, which is after the web finished it.
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
    for (url, &arrived) in &arrivals {
        assert!(
            sends.count_of(url) >= arrived,
            "{url} arrived {arrived} times, logged as sent {} times",
            sends.count_of(url)
        );
    }
    let mut by_address: BTreeMap<Ipv4Addr, Vec<(Send, &str)>> = BTreeMap::new();
    for (url, send) in sends.iter() {
        let host = url::Url::parse(url)
            .expect("a sent URL parses")
            .host_str()
            .map(str::to_string);
        if let Some(n) = host.and_then(|h| WEB.host_number(&h)) {
            by_address
                .entry(address_of(n))
                .or_default()
                .push((send, url));
        }
    }
    // Not arrival to arrival: a request let go on time can reach the web late, right behind
    // the next one, on a busy machine (the whole suite beside it). Across workers, not send to
    // send either: each worker sends when Redis's answer reaches it, later for one worker
    // than for another when the machine is busy (seen: two turns 25 ms apart on Redis's
    // clock let go 8.4 ms apart, the workers' own gates adding 0.06 ms). What the workers
    // share is Redis's clock: there every turn to an address is a whole gap after the last.
    let mut shortest_turn = Duration::MAX;
    for (address, mine) in &by_address {
        let mut turns: Vec<(u128, &str)> = Vec::new();
        for (send, url) in mine {
            let turn = send
                .turn_us
                .unwrap_or_else(|| panic!("{url} was sent without a turn from Redis"));
            // Redis runs on this machine: one clock, read by Redis before the worker.
            assert!(
                send.at_us + 1_000 >= turn,
                "{url} sent {:?} before its turn",
                micros(turn - send.at_us)
            );
            turns.push((turn, url));
        }
        turns.sort_unstable();
        for pair in turns.windows(2) {
            let gap = micros(pair[1].0 - pair[0].0);
            shortest_turn = shortest_turn.min(gap);
            assert!(
                gap >= IP_DELAY,
                "{address}: {} then {} had turns {gap:?} apart",
                pair[0].1,
                pair[1].1
            );
        }
    }
    // Send times are reported, not asserted: a worker stamps its send after its gate lets the
    // request go, and a thread that loses the CPU in between stamps late (seen with one
    // worker at a load of 20 on 2 cores: two sends logged 12.9 ms apart). Only Redis stamps
    // a turn in the same step that spaces it.
    let shortest_send = by_address
        .values_mut()
        .flat_map(|mine| {
            mine.sort_unstable_by_key(|(send, _)| send.at_us);
            mine.windows(2)
                .map(|pair| micros(pair[1].0.at_us - pair[0].0.at_us))
                .collect::<Vec<_>>()
        })
        .min();
    eprintln!(
        "{workers} workers: {} sends; shortest gap to one address between two turns \
         {shortest_turn:?}, between two sends {shortest_send:?}",
        sends.count()
    );
}

/// Links read and never applied, over every stream.
fn pending(redis: &RedisServer) -> u64 {
    pending_by(|args| redis.cli(args))
}

/// Links read and never applied, over every stream, asked with `cli`.
fn pending_by(cli: impl Fn(&[&str]) -> String) -> u64 {
    (0..PARTITIONS)
        .map(|p| {
            let key = format!("sift:links:p-{p:03}");
            let out = cli(&["XPENDING", &key, "owners"]);
            out.lines()
                .next()
                .and_then(|l| l.trim().parse().ok())
                .unwrap_or(0)
        })
        .sum()
}

#[test]
fn one_worker_and_three_store_the_same_pages_once_each_politely() {
    let sends = SendLog::new();
    sends
        .runtime(2)
        .block_on(one_worker_and_three_crawl_politely(&sends));
}

/// The crawl by one worker, then by three, in-process: their sends logged into `log`.
async fn one_worker_and_three_crawl_politely(log: &SendLog) {
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
        assert_polite(&web, &requests, &log.take(), workers);
        let fetched: u64 = summaries.iter().map(|s| s.fetched).sum();
        let commands: u64 = summaries.iter().map(|s| s.redis_commands).sum();
        eprintln!(
            "{workers} workers: {} pages, {fetched} fetches, {commands} Redis commands",
            pages.len()
        );
        assert_inspected_across_partitions(dir.path(), &pages);
        assert_status_from_redis_after_the_crawl(&redis, pages.len()).await;
        outcomes.push(in_links(dir.path()));
    }
    assert_eq!(
        outcomes[0], outcomes[1],
        "the same links, whatever the workers"
    );
}

/// How often each page of `soak` was fetched (error answers, tried again by design, and
/// robots.txt left out).
fn page_fetches(web: &TestWeb, soak: SoakWeb) -> BTreeMap<(String, String), usize> {
    let mut fetches: BTreeMap<(String, String), usize> = BTreeMap::new();
    for request in web.requests() {
        if soak.host_number(&request.host).is_some() && request.path_and_query != "/robots.txt" {
            *fetches
                .entry((request.host.clone(), request.path_and_query.clone()))
                .or_default() += 1;
        }
    }
    fetches.retain(|(host, path), _| {
        let n = soak.host_number(host).expect("a soak host");
        (0..soak.pages_of(n))
            .any(|i| SoakWeb::path(i) == *path && soak.answer_of(n, i) == SoakAnswer::Page)
    });
    fetches
}

/// Asserts no page of `soak` was fetched more than twice; says how many were fetched twice.
/// Returns how often each page was fetched.
fn assert_fetched_at_most_twice(web: &TestWeb, soak: SoakWeb) -> BTreeMap<(String, String), usize> {
    let fetches = page_fetches(web, soak);
    let most = fetches.iter().max_by_key(|(_, n)| **n);
    assert!(
        most.is_none_or(|(_, &n)| n <= 2),
        "no page fetched more than twice: {most:?}"
    );
    let again = fetches.values().filter(|&&n| n > 1).count();
    eprintln!("{} pages fetched, {again} of them twice", fetches.len());
    fetches
}

/// Asserts the partitions under `data` store every page of `expected` and no other, and that
/// every link sent was applied and acknowledged; returns the pages stored.
fn assert_stored_every_page(
    data: &Path,
    expected: &BTreeSet<String>,
    redis: &RedisServer,
) -> BTreeMap<String, u32> {
    let pages = stored(data);
    let urls: BTreeSet<String> = pages.keys().cloned().collect();
    let missing: Vec<_> = expected.difference(&urls).collect();
    assert!(
        missing.is_empty(),
        "every reachable page stored: {missing:?} missing"
    );
    assert_eq!(&urls, expected, "no other page");
    assert_eq!(pending(redis), 0, "every link applied and acknowledged");
    pages
}

/// `crawler status --redis --json` once every worker has gone: the crawl is done, and the
/// partitions' last figures add up to the pages stored in all.
async fn assert_status_from_redis_after_the_crawl(redis: &RedisServer, pages: usize) {
    let mut out = Vec::new();
    crawler::cluster::status::status(&redis.url(), true, &mut out)
        .await
        .expect("status reads Redis");
    let status: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
    assert_eq!(status["done"], true, "{status}");
    assert_eq!(status["workers"], serde_json::json!([]), "{status}");
    assert_eq!(status["pages_stored"], pages, "{status}");
    assert_eq!(status["frontier"], 0, "{status}");
    assert_eq!(
        status["hosts"], 0,
        "no live worker's frontier holds a host: {status}"
    );
}

/// `crawler status`, `report` and `explain` on the workers' data directory read every
/// partition's store: the pages stored in all are the sum of each partition's, a URL is
/// explained from its host's partition with its in-links from the others, and the report
/// names every stored page that failed, whichever partition holds it.
fn assert_inspected_across_partitions(data: &Path, pages: &BTreeMap<String, u32>) {
    let crawl = crawler::inspect::CrawlStores::open(data).expect("the partitions open");
    let mut out = Vec::new();
    crawler::inspect::status(&crawl, true, &mut out).expect("status");
    let status: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
    let mut counted = BTreeMap::new();
    for &p in pages.values() {
        *counted.entry(format!("p-{p:03}")).or_insert(0u64) += 1;
    }
    let listed: BTreeMap<String, u64> = status["partitions"]
        .as_array()
        .expect("partitions listed")
        .iter()
        .filter(|p| p["pages_stored"].as_u64() != Some(0))
        .map(|p| {
            let name = p["partition"].as_str().expect("a name").to_string();
            (name, p["pages_stored"].as_u64().expect("a count"))
        })
        .collect();
    assert_eq!(
        listed, counted,
        "each partition's pages, as its store holds them"
    );
    assert_eq!(
        status["pages_stored"].as_u64(),
        Some(pages.len() as u64),
        "the pages stored in all: {status}"
    );
    assert_eq!(
        status["partitions_absent"],
        serde_json::json!([]),
        "{status}"
    );

    // A page linked from pages of other partitions than its own: its in-links are read from
    // every store.
    let mut sources = BTreeMap::<String, BTreeSet<String>>::new();
    for (_, dir) in local_partitions(data).expect("partitions listed") {
        let store = StoreReader::open(&dir).expect("a partition store opens");
        for item in store.all_outlinks() {
            let (from, links) = item.expect("outlinks decode");
            for link in links.0.iter().filter(|l| l.target != from && !l.nofollow) {
                sources
                    .entry(link.target.clone())
                    .or_default()
                    .insert(from.clone());
            }
        }
    }
    let (linked, sources) = sources
        .iter()
        .filter(|(target, _)| pages.contains_key(*target))
        .find(|(target, from)| from.iter().any(|from| pages[from] != pages[*target]))
        .expect("a page linked from another partition");
    let mut out = Vec::new();
    crawler::inspect::explain(&crawl, linked, &mut out).expect("explain");
    let explained = String::from_utf8(out).expect("UTF-8");
    assert!(
        explained.starts_with(&format!("{linked}\n  status 200")),
        "{explained}"
    );
    assert!(
        explained.contains(&format!("  in-links from {} pages\n", sources.len())),
        "{explained}"
    );

    let mut failed = BTreeSet::new();
    for (_, dir) in local_partitions(data).expect("partitions listed") {
        let store = StoreReader::open(&dir).expect("a partition store opens");
        for page in store.pages() {
            let page = page.expect("page decodes");
            if page.error.is_some() || page.status >= 400 {
                failed.insert(page.url);
            }
        }
    }
    let reported = reported_urls(&crawl);
    // No copies cross partitions here: the whole crawl's report is each partition's.
    let mut each = BTreeSet::new();
    for (_, dir) in local_partitions(data).expect("partitions listed") {
        let store = StoreReader::open(&dir).expect("a partition store opens");
        each.extend(reported_urls(&crawler::inspect::CrawlStores::single(
            store, &dir,
        )));
    }
    assert_eq!(reported, each, "the report reads every partition");
    assert!(!failed.is_empty(), "the soak web fails some pages");
    assert!(
        failed.is_subset(&reported),
        "every failed page is reported: {:?}",
        failed.difference(&reported).collect::<Vec<_>>()
    );
}

/// The URLs `crawler report --json` names.
fn reported_urls(crawl: &crawler::inspect::CrawlStores) -> BTreeSet<String> {
    let mut out = Vec::new();
    crawler::inspect::report(crawl, true, &mut out).expect("report");
    String::from_utf8(out)
        .expect("UTF-8")
        .lines()
        .map(|line| {
            let line: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            line["url"].as_str().expect("a URL").to_string()
        })
        .collect()
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
