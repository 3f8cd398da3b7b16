//! A worker Redis refuses stops at once, in one line saying so: no password where one is
//! needed, a wrong one, a user without the permissions a worker needs. Waiting would not
//! help (unlike a Redis that is down, which a worker waits for).

use std::time::Duration;

use crawler::cluster::run_worker;
use testweb::{RedisServer, TestWeb};

use super::{WEB, addresses, options};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_redis_refuses_stops_in_one_line() {
    let web = TestWeb::start_on(WEB, &addresses()).await;
    let redis = RedisServer::start_with(Some("s3cret-worker-pass"));
    // A user who may read and nothing else.
    redis.cli(&[
        "ACL",
        "SETUSER",
        "reader",
        "on",
        ">reader-pass",
        "~*",
        "+@read",
    ]);
    let dir = tempfile::tempdir().expect("tempdir");
    let socket = redis.socket();
    let socket = socket.display();
    for (url, said) in [
        (format!("unix://{socket}"), "noauth"),
        (
            format!("unix://{socket}?pass=wrong-password"),
            "authentication failed",
        ),
        (
            format!("unix://{socket}?user=reader&pass=reader-pass"),
            "noperm",
        ),
    ] {
        let worker = run_worker(
            options(&web, &url, dir.path(), true),
            std::future::pending(),
        );
        let error = tokio::time::timeout(Duration::from_secs(20), worker)
            .await
            .unwrap_or_else(|_| panic!("{url}: the worker stops at once"))
            .expect_err("refused");
        let line = error.to_string();
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(
            line.contains("refused this worker") && line.to_lowercase().contains(said),
            "{url}: {line}"
        );
        assert!(
            !line.contains("wrong-password") && !line.contains("reader-pass"),
            "{line}"
        );
    }
    // The right password: the worker crawls.
    let url = format!("unix://{socket}?pass=s3cret-worker-pass");
    let worker = run_worker(
        options(&web, &url, dir.path(), true),
        std::future::pending(),
    );
    let summary = tokio::time::timeout(Duration::from_secs(90), worker)
        .await
        .expect("the crawl ends")
        .expect("the worker crawls");
    assert!(summary.pages_stored > 0);
    assert!(web.requests().len() > 1);
}
