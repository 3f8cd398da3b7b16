//! Workers that die: `kill -9` at a random moment, a crash between sending parcels and taking
//! in their confirmations, a crash between applying links and acknowledging them (failpoints).
//! Workers started in their place finish the crawl: every page stored once, the pages only
//! a link from another partition reaches among them, no link pending, each page fetched
//! again at most once per fetch in flight at a kill, and Redis's memory flat.

use std::process::Stdio;
use std::time::{Duration, Instant};

use testweb::{RedisServer, SoakWeb, TestWeb};

use super::{PARTITIONS, WorkerProcess, addresses, expected_of, page_fetches, pending, stored};
use crate::faults::child::{path_arg, spawn, spawn_logging};

/// A bigger web than the first test's: the kills need a crawl that lasts a few seconds.
pub(super) const WEB: SoakWeb = SoakWeb {
    hosts: 12,
    pages: 60,
    slow: Duration::from_millis(20),
    crawl_delay_ms: 0,
};
/// Fetch slots per worker: the most pages a kill can lose in flight.
pub(super) const MAX_IN_FLIGHT: usize = 8;
pub(super) const LEASE_MS: u64 = 1500;

/// The workers' config file: soak hosts on their addresses.
pub(super) fn write_config(web: &TestWeb, path: &std::path::Path) {
    let mut text = format!(
        "[crawler]\nallow_loopback = true\ndelay_ms = 30\nip_delay_ms = 10\nip_concurrency = 4\n\
         max_in_flight = {MAX_IN_FLIGHT}\nretry_ms = 20\nrobots_retry_ms = 50\nbreaker_pause_ms = 200\n\
         \n[crawler.resolve]\n"
    );
    for host in web.hosts() {
        let address = WEB
            .host_number(&host)
            .map_or(std::net::Ipv4Addr::LOCALHOST, super::address_of);
        text.push_str(&format!("\"{host}\" = \"{address}\"\n"));
    }
    std::fs::write(path, text).expect("config written");
}

pub(super) fn worker_args(
    web: &TestWeb,
    redis: &RedisServer,
    data: &std::path::Path,
    config: &std::path::Path,
    seeded: bool,
) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "worker".into(),
        "--redis".into(),
        redis.url(),
        "--data".into(),
        path_arg(data),
        "--config".into(),
        path_arg(config),
        "--partitions".into(),
        PARTITIONS.to_string(),
        "--lease-ms".into(),
        LEASE_MS.to_string(),
    ];
    if seeded {
        for &n in &super::SEEDED {
            args.extend(["--seed".into(), web.url(&SoakWeb::host(n), "/")]);
        }
        for n in 0..WEB.hosts {
            args.extend(["--scope".into(), web.url(&SoakWeb::host(n), "/")]);
        }
    }
    args
}

/// What a test of worker processes starts with: the web, Redis, a directory holding the
/// data directory and the workers' config file.
pub(super) struct Rig {
    pub(super) web: TestWeb,
    pub(super) redis: RedisServer,
    pub(super) dir: tempfile::TempDir,
    pub(super) data: std::path::PathBuf,
    pub(super) config: std::path::PathBuf,
}

/// Two workers on machines of their own: each its data directory (`DIR/a`, `DIR/b`) and its
/// log (`DIR/logs/worker-N.log`).
pub(super) struct Machines {
    pub(super) data: Vec<std::path::PathBuf>,
    pub(super) logs: std::path::PathBuf,
    pub(super) workers: Vec<super::WorkerProcess>,
}

impl Rig {
    /// Starts a worker on each of two machines, a with the seeds, each with `extra`
    /// arguments, logging at `log` (`E2E_CHILD_LOG`'s level, else `error`, without one).
    pub(super) fn machines(&self, extra: &[String], log: Option<&str>) -> Machines {
        let data: Vec<std::path::PathBuf> =
            ["a", "b"].iter().map(|m| self.dir.path().join(m)).collect();
        let logs = self.dir.path().join("logs");
        std::fs::create_dir_all(&logs).expect("logs dir");
        let workers = data
            .iter()
            .enumerate()
            .map(|(i, dir)| {
                let mut args = worker_args(&self.web, &self.redis, dir, &self.config, i == 0);
                args.extend_from_slice(extra);
                let file =
                    std::fs::File::create(logs.join(format!("worker-{i}.log"))).expect("log");
                let stderr = Stdio::from(file);
                WorkerProcess(match log {
                    Some(log) => spawn_logging("crawler", &args, "", stderr, log),
                    None => spawn("crawler", &args, "", stderr),
                })
            })
            .collect();
        Machines {
            data,
            logs,
            workers,
        }
    }

    pub(super) async fn start() -> Rig {
        let web = TestWeb::start_on(WEB, &addresses()).await;
        let redis = RedisServer::start();
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        let config = dir.path().join("crawl.toml");
        write_config(&web, &config);
        Rig {
            web,
            redis,
            dir,
            data,
            config,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_killed_at_any_moment_lose_nothing() {
    let Rig {
        web,
        redis,
        dir,
        data,
        config,
    } = Rig::start().await;
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).expect("logs dir");
    let mut started_workers = 0;
    let mut start = |seeded: bool, failpoints: &str| -> WorkerProcess {
        started_workers += 1;
        let log = std::fs::File::create(logs.join(format!("worker-{started_workers}.log")))
            .expect("log file");
        WorkerProcess(spawn(
            "crawler",
            &worker_args(&web, &redis, &data, &config, seeded),
            failpoints,
            Stdio::from(log),
        ))
    };
    // Three workers: one crashes after sending parcels, before taking in the confirmations;
    // one after applying links, before acknowledging them; one is killed from outside.
    let mut workers = vec![
        start(true, ""),
        start(
            false,
            "crawler::cluster::sent::before_confirmed=2*off->return",
        ),
        start(false, "crawler::cluster::links::before_ack=2*off->return"),
    ];
    let started = Instant::now();
    let mut kills = 0;
    let mut memory = Vec::new();
    let mut killed_from_outside = false;
    let mut status = None;
    loop {
        if started.elapsed() > Duration::from_secs(150) {
            drop(workers);
            for entry in std::fs::read_dir(&logs).expect("logs").flatten() {
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                eprintln!("{}:\n{text}", entry.path().display());
            }
            panic!(
                "the crawl ends within 150 s:\n{}",
                super::coordination(&redis)
            );
        }
        if let Some(used) = redis.info("used_memory") {
            memory.push(used);
        }
        // `crawler status --redis --json` in the middle of the crawl.
        if status.is_none() && web.requests().len() > 150 {
            let mut out = Vec::new();
            crawler::cluster::status::status(&redis.url(), true, &mut out)
                .await
                .expect("status reads Redis");
            status =
                Some(serde_json::from_slice::<serde_json::Value>(&out).expect("one JSON object"));
        }
        // The one killed from outside: once the crawl is well under way.
        if !killed_from_outside && web.requests().len() > 250 {
            workers[0].child().kill().expect("SIGKILL");
            killed_from_outside = true;
        }
        let mut running = Vec::new();
        let mut all_done = true;
        for mut worker in workers {
            match worker.child().try_wait().expect("child status") {
                None => {
                    all_done = false;
                    running.push(worker);
                }
                Some(status) if status.success() => {}
                Some(_) => {
                    // Died: a new worker takes its place.
                    kills += 1;
                    all_done = false;
                    running.push(start(false, ""));
                }
            }
        }
        workers = running;
        if all_done {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        kills, 3,
        "one worker killed, two crashed at their failpoints"
    );

    let status = status.expect("status was read during the crawl");
    assert_eq!(status["partitions"], PARTITIONS, "{status}");
    assert_eq!(status["done"], false, "{status}");
    assert!(
        !status["workers"].as_array().expect("workers").is_empty(),
        "{status}"
    );
    let leased = status["leases"].as_array().expect("leases").len();
    let unleased = status["unleased"].as_array().expect("unleased").len();
    assert_eq!(leased + unleased, PARTITIONS as usize, "{status}");
    assert!(leased > 0, "{status}");
    for key in [
        "pages_stored",
        "frontier",
        "hosts",
        "errors",
        "duplicates",
        "streams",
    ] {
        assert!(status.get(key).is_some(), "status has {key}: {status}");
    }

    let pages = stored(&data);
    let urls: std::collections::BTreeSet<String> = pages.keys().cloned().collect();
    assert_eq!(
        urls,
        expected_of(&web, WEB),
        "every reachable page stored, once"
    );
    assert_eq!(pending(&redis), 0, "every link applied and acknowledged");

    // Fetched again: only pages that were in flight at a kill.
    let fetches = page_fetches(&web, WEB);
    let again: usize = fetches.values().map(|&count| count.saturating_sub(1)).sum();
    assert!(
        again <= kills * MAX_IN_FLIGHT,
        "{again} pages fetched again after {kills} kills of workers with {MAX_IN_FLIGHT} fetches in flight"
    );

    // Redis holds leases, streams in flight and counters, not URLs.
    let (first, last) = (memory[0], *memory.last().expect("samples"));
    let peak = memory.iter().max().copied().unwrap_or(0);
    eprintln!(
        "Redis used_memory: {first} bytes at the start, {peak} at the peak, {last} at the end; {} pages stored, {again} fetched again",
        pages.len()
    );
    assert!(
        peak < first + (4 << 20),
        "Redis memory stays flat: {first} -> {peak} bytes"
    );
}
