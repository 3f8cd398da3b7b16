//! Workers and Redis that stop for a while: a worker stopped (`SIGSTOP`) past its leases and
//! resumed writes nothing under them; Redis killed and started again holds every request
//! back while it is away, and the crawl then finishes.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crawler::cluster::{WorkerOptions, run_worker};
use testweb::{RedisServer, TestWeb};

use super::kills::{LEASE_MS, Rig, WEB, worker_args};
use super::{WorkerProcess, addresses, coordination, expected_of, pending, stored};
use crate::faults::child::{spawn, spawn_logging};

/// Sends `signal` (`STOP`, `CONT`) to a child.
pub(super) fn signal(worker: &mut WorkerProcess, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(worker.child().id().to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal}");
}

/// Waits until the test web has had `count` requests.
pub(super) async fn until_requests(web: &TestWeb, count: usize) {
    let started = Instant::now();
    while web.requests().len() < count {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the crawl goes on"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for every child to exit 0. Past 2 minutes it fails, printing the workers' logs in
/// `logs` (when given) and what Redis holds of the crawl's progress.
pub(super) async fn until_done(
    workers: &mut [WorkerProcess],
    redis: &RedisServer,
    logs: Option<&std::path::Path>,
) {
    let started = Instant::now();
    for worker in workers {
        loop {
            if let Some(status) = worker.child().try_wait().expect("child status") {
                assert!(status.success(), "a worker failed: {status}");
                break;
            }
            if started.elapsed() > Duration::from_secs(120) {
                let files = logs.and_then(|dir| std::fs::read_dir(dir).ok());
                for entry in files.into_iter().flatten().flatten() {
                    let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                    eprintln!("{}:\n{text}", entry.path().display());
                }
                panic!("the crawl ends within 2 minutes:\n{}", coordination(redis));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_stopped_past_its_leases_writes_nothing_when_resumed() {
    let Rig {
        web,
        redis,
        dir,
        data,
        config,
    } = Rig::start().await;
    let stopped_log = dir.path().join("stopped.log");
    let log = std::fs::File::create(&stopped_log).expect("log file");
    // The stopped worker says why its partitions stopped (a warning).
    let mut stopped = WorkerProcess(spawn_logging(
        "crawler",
        &worker_args(&web, &redis, &data, &config, true),
        "",
        Stdio::from(log),
        "warn",
    ));
    until_requests(&web, 40).await;
    let other = WorkerProcess(spawn(
        "crawler",
        &worker_args(&web, &redis, &data, &config, false),
        "",
        Stdio::null(),
    ));
    until_requests(&web, 200).await;
    signal(&mut stopped, "STOP");
    // Three lease times: its leases run out, the other worker takes them and waits for the
    // stores the stopped one still has open.
    tokio::time::sleep(Duration::from_millis(3 * LEASE_MS)).await;
    signal(&mut stopped, "CONT");
    let mut workers = vec![stopped, other];
    until_done(&mut workers, &redis, None).await;

    let text = std::fs::read_to_string(&stopped_log).unwrap_or_default();
    assert!(
        text.contains("lease lost") || text.contains("lease not renewed in time"),
        "the resumed worker found its leases gone and stopped those crawls:\n{text}"
    );
    eprintln!(
        "the resumed worker: {} leases lost, {} writes refused by their fences",
        text.matches("lease lost").count() + text.matches("lease not renewed in time").count(),
        text.matches("nothing was written").count()
    );
    assert!(
        !text.contains("panicked"),
        "no panic in the resumed worker:\n{text}"
    );
    let urls: std::collections::BTreeSet<String> = stored(&data).into_keys().collect();
    assert_eq!(
        urls,
        expected_of(&web, WEB),
        "every reachable page stored, once"
    );
    assert_eq!(pending(&redis), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_redis_no_request_goes_and_the_crawl_finishes_after() {
    let web = TestWeb::start_on(WEB, &addresses()).await;
    let mut redis = RedisServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let options = |seeded: bool| {
        let mut options = super::options(&web, &redis.url(), dir.path(), seeded);
        options.lease = Duration::from_secs(6);
        options
    };
    let options: Vec<WorkerOptions> = vec![options(true), options(false)];
    let workers: Vec<_> = options
        .into_iter()
        .map(|o| tokio::spawn(run_worker(o, std::future::pending())))
        .collect();
    until_requests(&web, 150).await;
    redis.kill();
    let killed = Instant::now();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let restarted = Instant::now();
    // Requests already past the gate when Redis died may still arrive in the first moment.
    let grace = killed + Duration::from_millis(300);
    let while_away: Vec<String> = web
        .requests()
        .iter()
        .filter(|r| r.at > grace && r.at < restarted)
        .map(|r| format!("{}{}", r.host, r.path_and_query))
        .collect();
    assert!(
        while_away.is_empty(),
        "requests while Redis was away: {while_away:?}"
    );
    redis.restart();
    for worker in workers {
        tokio::time::timeout(Duration::from_secs(120), worker)
            .await
            .expect("the workers finish within 2 minutes")
            .expect("the worker task runs")
            .expect("the worker succeeds");
    }
    let urls: std::collections::BTreeSet<String> = stored(dir.path()).into_keys().collect();
    assert_eq!(
        urls,
        expected_of(&web, WEB),
        "every reachable page stored, once"
    );
    assert_eq!(pending(&redis), 0);
}
