//! Redis that loses its data: a crawl's stores keep the lease epochs they were claimed
//! under, and a Redis that starts again empty counts its epochs from 1. Each partition's
//! store refuses the first lease as older than its stamp; the worker raises the partition's
//! epoch to the stamp, and the next lease opens the store. Nothing refuses a worker for ever.

use std::collections::BTreeMap;

use testweb::{RedisServer, TestWeb};

use super::{PARTITIONS, WEB, addresses, crawl_with, stored};
use crate::sends::SendLog;

/// Every partition's epoch in Redis.
fn epochs(redis: &RedisServer) -> BTreeMap<u32, u64> {
    (0..PARTITIONS)
        .map(|p| {
            let epoch = redis.cli(&["GET", &format!("sift:epoch:p-{p:03}")]);
            (p, epoch.trim().parse().unwrap_or(0))
        })
        .collect()
}

/// On a [`SendLog`] runtime, as every test of crawlers sending beside another's send log: a
/// crawler's first send event on a thread with no subscriber of its own, at the moment
/// another test's log starts, was seen to leave that log without its first send.
#[test]
fn a_redis_that_lost_its_epochs_counts_on_from_the_stores() {
    SendLog::new().runtime(2).block_on(lost_epochs());
}

async fn lost_epochs() {
    let web = TestWeb::start_on(WEB, &addresses()).await;
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    crawl_with(&web, &redis, dir.path(), 1).await;
    let pages = stored(dir.path());
    // Later leases: each store is claimed again under epoch 6.
    for p in 0..PARTITIONS {
        redis.cli(&["SET", &format!("sift:epoch:p-{p:03}"), "5"]);
    }
    crawl_with(&web, &redis, dir.path(), 1).await;
    assert!(
        epochs(&redis).values().all(|&e| e == 6),
        "{:?}",
        epochs(&redis)
    );

    // Redis loses everything: its epochs start again below the stores' stamps.
    redis.cli(&["FLUSHALL"]);
    let fetched_before = web.requests().len();
    crawl_with(&web, &redis, dir.path(), 1).await;
    assert!(
        epochs(&redis).values().all(|&e| e == 7),
        "each epoch raised to its store's, then one lease above it: {:?}",
        epochs(&redis)
    );
    assert_eq!(stored(dir.path()), pages, "the same pages, each once");
    let fetched: Vec<_> = web.requests()[fetched_before..]
        .iter()
        .filter(|r| r.path_and_query != "/robots.txt")
        .map(|r| format!("{}{}", r.host, r.path_and_query))
        .collect();
    assert!(
        fetched.is_empty(),
        "nothing stored was fetched again: {fetched:?}"
    );
}
