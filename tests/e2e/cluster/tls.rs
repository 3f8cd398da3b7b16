//! Redis over TLS: a worker given `rediss://...?ca=CA.pem` crawls through Debian's
//! `redis-server` speaking TLS only (`--tls-port`, a certificate the test made with
//! `rcgen`); a worker asking that port in clear stops in one line saying so, instead of
//! waiting as for a Redis that is down.

use std::time::Duration;

use crawler::cluster::run_worker;
use testweb::{RedisServer, TestWeb};

use super::{WEB, addresses, expected, options, stored};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_crawls_through_a_redis_over_tls_and_one_in_clear_stops_in_one_line() {
    let web = TestWeb::start_on(WEB, &addresses()).await;
    let redis = RedisServer::start_tls();
    let dir = tempfile::tempdir().expect("tempdir");

    let clear = redis.plain_url_of_tls_port();
    let worker = run_worker(
        options(&web, &clear, dir.path(), true),
        std::future::pending(),
    );
    let error = tokio::time::timeout(Duration::from_secs(20), worker)
        .await
        .expect("the worker in clear stops at once")
        .expect_err("refused");
    let line = error.to_string();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.contains("rediss://"), "says what to try: {line}");
    assert!(web.requests().is_empty(), "nothing fetched");

    let worker = run_worker(
        options(&web, &redis.tls_url(), dir.path(), true),
        std::future::pending(),
    );
    tokio::time::timeout(Duration::from_secs(90), worker)
        .await
        .expect("the crawl ends")
        .expect("the worker crawls over TLS");
    let urls: std::collections::BTreeSet<String> = stored(dir.path()).into_keys().collect();
    assert_eq!(urls, expected(&web), "every reachable page stored, once");
}
