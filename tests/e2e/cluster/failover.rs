//! Redis that fails over: three workers crawl through Sentinels (`redis+sentinel://`), and the
//! master is killed with `kill -9` mid-crawl. The Sentinels promote its replica; the workers
//! follow it and the crawl completes: every reachable page stored once, none fetched more
//! than twice, every link applied, and every politeness gap held across the failover (on the
//! servers' clock, from the workers' send events).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use crawler::cluster::run_worker;
use testweb::{RedisSentinels, TestWeb};

use super::{
    WEB, addresses, assert_fetched_at_most_twice, assert_polite, expected, options, pending_by,
    stored,
};
use crate::sends::SendLog;

/// Workers of the test.
const WORKERS: usize = 3;
/// Their leases: a failover (a server is down after 1 s, then an election) fits in one.
const LEASE: Duration = Duration::from_secs(10);

#[test]
fn a_killed_master_fails_over_and_the_crawl_completes_politely() {
    let sends = SendLog::new();
    sends.runtime(2).block_on(async {
        let web = TestWeb::start_on(WEB, &addresses()).await;
        let expected = expected(&web);
        let mut redis = tokio::task::spawn_blocking(RedisSentinels::start)
            .await
            .expect("Redis with Sentinels starts");
        let dir = tempfile::tempdir().expect("tempdir");
        let workers: Vec<_> = (0..WORKERS)
            .map(|i| {
                let mut options = options(&web, &redis.url(), dir.path(), i == 0);
                options.lease = LEASE;
                tokio::spawn(run_worker(options, std::future::pending()))
            })
            .collect();

        // Once a third of the pages are fetched: kill -9 of the master.
        let started = Instant::now();
        while web.requests().len() < expected.len() / 3 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the crawl gets going"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let killed_at = web.requests().len();
        let (redis, old, promoted) = tokio::task::spawn_blocking(move || {
            let old = redis.kill_master();
            let promoted = redis.wait_for_failover(old, Duration::from_secs(30));
            (redis, old, promoted)
        })
        .await
        .expect("the failover is watched");
        eprintln!(
            "master :{old} killed after {killed_at} requests; :{promoted} promoted after {} more",
            web.requests().len() - killed_at
        );

        for worker in workers {
            tokio::time::timeout(Duration::from_secs(120), worker)
                .await
                .expect("the workers finish within 120 s")
                .expect("the worker task runs")
                .expect("the worker succeeds");
        }

        let pages = stored(dir.path());
        let urls: BTreeSet<String> = pages.keys().cloned().collect();
        assert_eq!(urls, expected, "every reachable page stored, once");
        assert_eq!(
            pending_by(|args| redis.cli(args)),
            0,
            "every link applied and acknowledged on the new master"
        );
        assert_fetched_at_most_twice(&web, WEB);
        assert_polite(&web, &web.requests(), &sends.take(), WORKERS);

        // `crawler status` through the Sentinels: the new master's view of the crawl.
        let mut out = Vec::new();
        crawler::cluster::status::status(&redis.url(), true, &mut out)
            .await
            .expect("status reads the master the Sentinels name");
        let status: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
        assert_eq!(status["done"], true, "{status}");
        assert_eq!(status["pages_stored"], pages.len(), "{status}");
    });
}
