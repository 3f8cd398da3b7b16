//! `kill -9` of a crawl midway, then the same command again: the store ends with every page,
//! and nothing stored before the kill is fetched again.
//!
//! The crawl runs in a child process (this test binary re-entered through
//! [`child_crawler`]) so it can be killed for real.

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use testweb::TestWeb;

use crate::support::{stored_urls, write_config_file};

const CHILD_ARGS: &str = "E2E_CRAWLER_ARGS";

/// Not a test of its own: when the parent test sets `E2E_CRAWLER_ARGS`, this runs the
/// `crawler` command line with those arguments in this (child) process.
#[test]
fn child_crawler() {
    let Ok(args) = std::env::var(CHILD_ARGS) else {
        return;
    };
    let args: Vec<String> = serde_json::from_str(&args).expect("arguments as a JSON list");
    let cli = crawler::cli::Cli::parse_from(std::iter::once("crawler".to_string()).chain(args));
    // Logs on stderr as the `crawler` binary writes them, at the level `RUST_LOG` says.
    shared::logging::init(cli.log.log_format);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime
        .block_on(crawler::cli::run(cli))
        .expect("crawl succeeds");
}

/// The test binary, set to re-enter [`child_crawler`] with `args`.
pub(crate) fn child_command(args: &[String]) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("test binary path"));
    command
        .args([
            "--exact",
            "resume::child_crawler",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ARGS, serde_json::to_string(args).expect("json"))
        .env("RUST_LOG", "warn");
    command
}

pub(crate) fn spawn_crawler(args: &[String]) -> Child {
    child_command(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("child crawler starts")
}

/// Polls `ready` every `poll` until it holds, while the child crawler runs: the test fails
/// with `what` if 60 s pass first, and if the child ends first.
pub(crate) async fn wait_while_running(
    child: &mut Child,
    mut ready: impl FnMut() -> bool,
    poll: Duration,
    what: &str,
) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < Duration::from_secs(60), "{what}");
        if let Some(status) = child.try_wait().expect("child status") {
            panic!("the crawl ended before it could be killed: {status}");
        }
        tokio::time::sleep(poll).await;
    }
}

/// Runs the `crawler` command line with `args` in a child process to its end; returns what
/// it printed on stdout (with the test harness's own lines).
pub(crate) fn crawler_stdout(args: &[String]) -> String {
    let output = child_command(args).output().expect("child crawler runs");
    assert!(output.status.success(), "crawler {args:?} failed");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_crawl_resumes_without_refetching() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("crawl.toml");
    write_config_file(&web, &config, "");
    let data = dir.path().join("data");
    let args: Vec<String> = [
        "crawl",
        "--data",
        data.to_str().expect("utf-8 path"),
        "--seed",
        &web.url("big.test", "/"),
        "--config",
        config.to_str().expect("utf-8 path"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();

    // First run: kill it once it has made a good part of its requests.
    let mut child = spawn_crawler(&args);
    wait_while_running(
        &mut child,
        || web.requests().len() >= 120,
        Duration::from_millis(2),
        "the crawl made too few requests",
    )
    .await;
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    let at_kill = web.requests().len();
    let stored_before = stored_urls(&data);
    assert!(
        !stored_before.is_empty(),
        "pages were stored before the kill"
    );

    // Second run: the same command, to the end.
    let status = spawn_crawler(&args).wait().expect("second run");
    assert!(status.success(), "second run exits cleanly");
    let stored_after = stored_urls(&data);

    // Every page of the site is stored once: compare with an uninterrupted crawl's answer,
    // which the test web knows: every page of big.test is reachable from its root.
    let expected: BTreeSet<String> = testweb::big_site_paths()
        .iter()
        .map(|p| web.url("big.test", p))
        .collect();
    assert_eq!(
        stored_after, expected,
        "the resumed crawl stored every page of the site"
    );

    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for request in web
        .requests()
        .into_iter()
        .filter(|r| r.host.starts_with("big.test"))
    {
        *counts
            .entry(web.url("big.test", &request.path_and_query))
            .or_default() += 1;
    }
    let twice: Vec<_> = counts
        .iter()
        .filter(|(url, n)| **n > 1 && !url.ends_with("/robots.txt"))
        .collect();
    for (url, _) in &twice {
        assert!(
            !stored_before.contains(*url),
            "{url} was stored before the kill and fetched again"
        );
    }
    // Only a fetch in flight at the kill may be repeated: at most one (host concurrency 1).
    assert!(
        twice.len() <= 1,
        "fetched twice: {twice:?} (requests at kill: {at_kill})"
    );
    assert_eq!(
        counts.get(&web.url("big.test", "/robots.txt")),
        Some(&1),
        "robots.txt is cached in the store across runs"
    );
}
