//! Run as a service: a real `prometheus` scrapes searchd and a crawl worker and sees both
//! up and their counters grow; the worker's `/metrics` passes `promtool check metrics` and
//! counts every fetch; its `/readyz` follows it through starting, crawling, Redis away and
//! back, and stopped; of two workers sharing one partition, the one without it is not ready.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crawler::CrawlOptions;
use crawler::cluster::{WorkerOptions, run_worker};
use crawler::metrics::CrawlMetrics;
use testweb::{Prometheus, RedisServer, SoakWeb, TestWeb};

use crate::support::{Searchd, crawled_and_indexed, crawler_config};

/// A few slow-enough hosts: the crawl lasts several scrapes.
const WEB: SoakWeb = SoakWeb {
    hosts: 4,
    pages: 24,
    slow: Duration::from_millis(20),
    crawl_delay_ms: 0,
};

/// Runs Prometheus's `promtool check metrics` on `text`, failing with what it said.
fn promtool_check(text: &str) {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool runs (Debian's prometheus: `bash tests/setup`)");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(text.as_bytes()).expect("write the metrics");
    drop(stdin);
    let output = child.wait_with_output().expect("promtool ends");
    assert!(
        output.status.success(),
        "promtool check metrics:\n{}{}\n--- the metrics:\n{text}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `GET url`: status and body.
async fn get(url: &str) -> (u16, String) {
    // reqwest's TLS needs a process-wide provider even for http:// (the crawler's and the
    // gateway's clients install it; a test may ask before either is built).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let answer = reqwest::get(url).await.expect("the server answers");
    let status = answer.status().as_u16();
    (status, answer.text().await.expect("a body"))
}

/// `GET url` until `ok` says yes of its status and body, within 60 s: the body.
async fn until(url: &str, what: &str, ok: impl Fn(u16, &str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, body) = get(url).await;
        if ok(status, &body) {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: {url} still answers {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The values of a PromQL `query`, by the `job` label of each series.
async fn query(prometheus: &Prometheus, query: &str) -> Vec<(String, f64)> {
    let url = format!("{}/api/v1/query?query={query}", prometheus.url());
    let Ok(answer) = reqwest::get(&url).await else {
        return Vec::new(); // not listening yet
    };
    let Ok(body) = answer.text().await else {
        return Vec::new();
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&body) else {
        return Vec::new();
    };
    json["data"]["result"]
        .as_array()
        .map(|series| {
            series
                .iter()
                .filter_map(|s| {
                    let job = s["metric"]["job"].as_str().unwrap_or_default().to_string();
                    let value = s["value"][1].as_str()?.parse().ok()?;
                    Some((job, value))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Asks Prometheus `promql` until `ok` says yes of its values, within 60 s.
async fn until_prometheus(
    prometheus: &Prometheus,
    promql: &str,
    ok: impl Fn(&[(String, f64)]) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let values = query(prometheus, promql).await;
        if ok(&values) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus: {promql} = {values:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The sum of every sample of `name` (all label sets) in a `/metrics` answer.
fn sum_of(text: &str, name: &str) -> f64 {
    text.lines()
        .filter(|line| line.starts_with(name) && !line.starts_with('#'))
        .filter(|line| matches!(line.as_bytes().get(name.len()), Some(b'{' | b' ')))
        .filter_map(|line| line.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_searchd_and_a_worker_and_readiness_follows_the_worker() {
    let searchd = Searchd::start(crawled_and_indexed(&TestWeb::start().await).await).await;
    let web = TestWeb::start_on(WEB, &[Ipv4Addr::new(127, 0, 0, 2)]).await;
    let mut redis = RedisServer::start();
    let data = tempfile::tempdir().expect("tempdir");

    let (metrics, worker_addr) = crawler::metrics::serve("127.0.0.1:0".parse().expect("addr"))
        .await
        .expect("the metrics listener binds");
    let worker_url = |path: &str| format!("http://{worker_addr}{path}");
    assert_eq!(get(&worker_url("/healthz")).await, (200, "ok\n".into()));
    assert_eq!(
        get(&worker_url("/readyz")).await,
        (503, "not ready: starting\n".into())
    );
    let targets: [(&str, SocketAddr); 2] = [("searchd", searchd.addr), ("worker", worker_addr)];
    let prometheus = Prometheus::start(&targets);
    until_prometheus(&prometheus, "up", |up| {
        up.len() == 2 && up.iter().all(|(_, v)| *v == 1.0)
    })
    .await;

    // searchd's searches, counted and scraped.
    for q in ["robots", "page", "nothing-matches-this-zzz"] {
        let (status, _) = get(&searchd.url(&format!("/api/search?q={q}"))).await;
        assert_eq!(status, 200);
    }
    until_prometheus(&prometheus, "searchd_queries_total", |v| {
        v == [("searchd".to_string(), 3.0)]
    })
    .await;

    // The worker crawls; its fetches grow in Prometheus as they happen.
    let options = worker_options(&web, &redis, data.path(), 4, metrics);
    let worker = tokio::spawn(run_worker(options, std::future::pending()));
    let ready = until(
        &worker_url("/readyz"),
        "a worker holding leases",
        |status, _| status == 200,
    )
    .await;
    assert!(
        ready.starts_with("ready: ") && ready.ends_with(" held\n"),
        "{ready}"
    );
    until_prometheus(&prometheus, "sum(crawler_fetches_total)", |v| {
        v.first().is_some_and(|(_, n)| *n > 0.0)
    })
    .await;

    // Redis away: not ready, saying why; back: ready again, and the crawl goes on.
    redis.kill();
    let away = until(&worker_url("/readyz"), "Redis away", |status, _| {
        status == 503
    })
    .await;
    assert!(
        away.starts_with("not ready: Redis does not answer"),
        "{away}"
    );
    redis.restart();
    until(&worker_url("/readyz"), "Redis back", |status, _| {
        status == 200
    })
    .await;

    let summary = tokio::time::timeout(Duration::from_secs(120), worker)
        .await
        .expect("the worker finishes within 120 s")
        .expect("the worker task runs")
        .expect("the worker succeeds");
    let (status, stopped) = get(&worker_url("/readyz")).await;
    assert_eq!(status, 503);
    assert!(
        stopped.starts_with("not ready: the worker stopped"),
        "{stopped}"
    );

    let (_, text) = get(&worker_url("/metrics")).await;
    promtool_check(&text);
    assert_eq!(
        sum_of(&text, "crawler_fetches_total"),
        summary.fetched as f64,
        "every fetch counted once:\n{text}"
    );
    assert!(sum_of(&text, "crawler_fetched_bytes_total") > 0.0, "{text}");
    assert!(sum_of(&text, "crawler_robots_fetches_total") >= WEB.hosts as f64);
    assert!(sum_of(&text, "crawler_store_page_writes_total") > 0.0);
    assert!(sum_of(&text, "crawler_redis_commands_total") > 0.0);
    assert!(
        sum_of(&text, "crawler_politeness_waits_total") > 0.0,
        "a 150 ms delay makes requests wait:\n{text}"
    );
    assert_eq!(sum_of(&text, "crawler_frontier_urls"), 0.0, "{text}");
    assert_eq!(sum_of(&text, "crawler_partitions_held"), 0.0, "{text}");
    for host in 0..WEB.hosts {
        assert!(
            !text.contains(&SoakWeb::host(host)),
            "a host in a label:\n{text}"
        );
    }
    let final_fetches = summary.fetched as f64;
    until_prometheus(&prometheus, "sum(crawler_fetches_total)", |v| {
        v.first().is_some_and(|(_, n)| *n == final_fetches)
    })
    .await;
}

/// A worker crawling `WEB` (with 150 ms between a host's requests, so that the crawl lasts
/// several scrapes) into `data` through `redis`, in `partitions`, counting in `metrics`.
fn worker_options(
    web: &TestWeb,
    redis: &RedisServer,
    data: &Path,
    partitions: u32,
    metrics: CrawlMetrics,
) -> WorkerOptions {
    let mut config = crawler_config(web);
    config.delay_ms = 150;
    for n in 0..WEB.hosts {
        config
            .resolve
            .insert(SoakWeb::host(n), Ipv4Addr::new(127, 0, 0, 2).into());
    }
    WorkerOptions {
        redis: redis.url(),
        crawl: CrawlOptions {
            data: data.to_path_buf(),
            seeds: vec![
                web.url(&SoakWeb::host(0), "/"),
                web.url(&SoakWeb::host(1), "/"),
            ],
            scope: (0..WEB.hosts)
                .map(|n| web.url(&SoakWeb::host(n), "/"))
                .collect(),
            config: config.validate().expect("valid settings"),
            max_time: None,
            pdf_child: Some(crate::support::pdf_child()),
        },
        partitions: Some(partitions),
        lease: Duration::from_secs(3),
        metrics: Some(metrics),
        backups: None,
    }
}

/// Two workers and one partition: the one without a lease says so on `/readyz`, the other is
/// ready with it, and both end not ready, stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_without_a_partition_is_not_ready_and_says_why() {
    let web = TestWeb::start_on(WEB, &[Ipv4Addr::new(127, 0, 0, 2)]).await;
    let redis = RedisServer::start();
    let data = tempfile::tempdir().expect("tempdir");
    let mut urls = Vec::new();
    let mut workers = Vec::new();
    for _ in 0..2 {
        let (metrics, addr) = crawler::metrics::serve("127.0.0.1:0".parse().expect("addr"))
            .await
            .expect("the metrics listener binds");
        urls.push(format!("http://{addr}/readyz"));
        let options = worker_options(&web, &redis, data.path(), 1, metrics);
        workers.push(tokio::spawn(run_worker(options, std::future::pending())));
    }

    // Once both have beaten twice and shared, one holds the partition and the other none,
    // until the crawl ends.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut answers;
    loop {
        answers = vec![get(&urls[0]).await, get(&urls[1]).await];
        answers.sort();
        if answers
            == [
                (200, "ready: 1 partition held\n".to_string()),
                (503, "not ready: no partition lease held\n".to_string()),
            ]
        {
            break;
        }
        assert!(Instant::now() < deadline, "/readyz of both: {answers:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    for (worker, url) in workers.into_iter().zip(&urls) {
        tokio::time::timeout(Duration::from_secs(120), worker)
            .await
            .expect("the worker finishes within 120 s")
            .expect("the worker task runs")
            .expect("the worker succeeds");
        let (status, stopped) = get(url).await;
        assert_eq!(status, 503);
        assert!(
            stopped.starts_with("not ready: the worker stopped"),
            "{stopped}"
        );
    }
}
