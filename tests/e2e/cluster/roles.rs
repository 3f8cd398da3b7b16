//! The Redis users of `packaging/redis/users.acl`, one per role, as shipped: a worker crawls
//! as `sift-worker`; `crawler status` reads as `sift-status`, who can write nothing.

use std::time::Duration;

use crawler::cluster::run_worker;
use testweb::{RedisServer, TestWeb};

use super::{WEB, addresses, expected, options, stored};

/// The shipped file with test passwords, and a default user for the test's `redis-cli`.
fn acl_file(dir: &std::path::Path) -> std::path::PathBuf {
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../packaging/redis/users.acl");
    let text = std::fs::read_to_string(shipped).expect("the shipped ACL file");
    assert!(text.contains(">CHANGE-ME-worker") && text.contains(">CHANGE-ME-status"));
    let text = text.replace(">CHANGE-ME-", ">test-pass-") + "user default on nopass ~* &* +@all\n";
    let path = dir.join("users.acl");
    std::fs::write(&path, text).expect("the ACL file written");
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipped_acl_roles_crawl_and_read_and_no_more() {
    let web = TestWeb::start_on(WEB, &addresses()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let redis = RedisServer::start_with_acl_file(&acl_file(dir.path()));
    let socket = redis.socket();
    let as_user = |user: &str| {
        format!(
            "unix://{}?user={user}&pass=test-pass-{}",
            socket.display(),
            user.trim_start_matches("sift-")
        )
    };
    let data = dir.path().join("data");
    let worker = run_worker(
        options(&web, &as_user("sift-worker"), &data, true),
        std::future::pending(),
    );
    tokio::time::timeout(Duration::from_secs(90), worker)
        .await
        .expect("the crawl ends")
        .expect("sift-worker crawls");
    let urls: std::collections::BTreeSet<String> = stored(&data).into_keys().collect();
    assert_eq!(urls, expected(&web));

    let mut out = Vec::new();
    crawler::cluster::status::status(&as_user("sift-status"), true, &mut out)
        .await
        .expect("sift-status reads the crawl");
    let status: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    assert_eq!(status["done"], true, "{status}");
    assert_eq!(status["pages_stored"], urls.len(), "{status}");

    // sift-status writes nothing, not even through a script; no user reaches other keys.
    let cli = |user: &str, args: &[&str]| {
        let mut all = vec!["--user", user, "--pass"];
        let pass = format!("test-pass-{}", user.trim_start_matches("sift-"));
        all.push(&pass);
        all.push("--no-auth-warning");
        all.extend_from_slice(args);
        redis.cli(&all)
    };
    assert!(cli("sift-status", &["SET", "sift:crawl", "x"]).contains("NOPERM"));
    let refused = cli(
        "sift-status",
        &[
            "EVAL",
            "return redis.call('DEL', KEYS[1])",
            "1",
            "sift:crawl",
        ],
    );
    assert!(refused.contains("can't run this command"), "{refused}");
    assert!(
        !redis.cli(&["HGETALL", "sift:crawl"]).is_empty(),
        "the settings are still there"
    );
    assert!(cli("sift-worker", &["GET", "other:key"]).contains("NOPERM"));
    assert!(cli("sift-worker", &["FLUSHALL"]).contains("NOPERM"));
}
