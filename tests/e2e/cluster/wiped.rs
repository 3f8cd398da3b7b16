//! Redis that restarts empty mid-crawl (no append-only file, no replica): the streams and
//! the links in them, the confirmations, leases, epochs, idle states, address turns and the
//! crawl's settings are all gone. To be sure links are lost, one worker is stopped
//! (`SIGSTOP`) until the others have sent its partitions parcels it never read; then Redis
//! is wiped and the worker resumed. The workers go on from their stores: every partition is
//! taken again above its store's stamp, every parcel not yet confirmed is sent again from its
//! sender's store, and the crawl completes with every reachable page, each stored once.

use std::process::Stdio;
use std::time::{Duration, Instant};

use super::kills::{Rig, WEB, worker_args};
use super::pauses::{signal, until_requests};
use super::{
    WorkerProcess, assert_fetched_at_most_twice, assert_status_from_redis_after_the_crawl,
    assert_stored_every_page, coordination, expected_of,
};
use crate::faults::child::spawn;

/// Entries of the partitions' streams that no worker has read (past each group's
/// last-delivered ID): links that exist nowhere but in Redis.
const UNREAD: &str = "local n = 0 \
    for _, key in ipairs(redis.call('KEYS', 'sift:links:*')) do \
      for _, group in ipairs(redis.call('XINFO', 'GROUPS', key)) do \
        for i = 1, #group, 2 do \
          if group[i] == 'last-delivered-id' then \
            n = n + #redis.call('XRANGE', key, '(' .. group[i + 1], '+') \
          end \
        end \
      end \
    end \
    return n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_restarted_empty_mid_crawl_loses_no_page() {
    let Rig {
        web,
        mut redis,
        dir,
        data,
        config,
    } = Rig::start().await;
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).expect("logs dir");
    let mut workers: Vec<WorkerProcess> = (0..3)
        .map(|i| {
            let log = std::fs::File::create(logs.join(format!("worker-{i}.log"))).expect("log");
            WorkerProcess(spawn(
                "crawler",
                &worker_args(&web, &redis, &data, &config, i == 0),
                "",
                Stdio::from(log),
            ))
        })
        .collect();
    let expected = expected_of(&web, WEB);
    until_requests(&web, expected.len() / 4).await;

    // One worker stopped until parcels wait unread for its partitions (within its lease;
    // else resumed and stopped again).
    let mut unread = 0;
    'stopping: for round in 0..20 {
        let stopped = &mut workers[round % 3];
        signal(stopped, "STOP");
        let since = Instant::now();
        while since.elapsed() < Duration::from_millis(1000) {
            unread = redis
                .cli(&["EVAL", UNREAD, "0"])
                .trim()
                .parse()
                .unwrap_or(0);
            if unread > 0 {
                break 'stopping;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        signal(stopped, "CONT");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(unread > 0, "parcels wait unread for a stopped worker");
    let wiped_at = web.requests().len();
    redis.restart_empty();
    eprintln!("Redis wiped after {wiped_at} requests, {unread} parcels unread in its streams");
    for worker in &mut workers {
        // Resumes the stopped one (the others were never stopped, or resumed already).
        signal(worker, "CONT");
    }
    let started = Instant::now();
    for worker in &mut workers {
        while worker.child().try_wait().expect("child status").is_none() {
            if started.elapsed() > Duration::from_secs(120) {
                for entry in std::fs::read_dir(&logs).expect("logs").flatten() {
                    let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                    eprintln!("{}:\n{text}", entry.path().display());
                }
                panic!("the crawl ends within 120 s:\n{}", coordination(&redis));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let status = worker.child().wait().expect("child status");
        assert!(status.success(), "a worker failed: {status}");
    }

    let pages = assert_stored_every_page(&data, &expected, &redis);
    assert_fetched_at_most_twice(&web, WEB);
    // The settings the workers wrote again: `crawler status` reads the crawl as done.
    assert_status_from_redis_after_the_crawl(&redis, pages.len()).await;
}
