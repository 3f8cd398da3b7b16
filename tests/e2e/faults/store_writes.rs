//! Errors and crashes at the crawler's failpoints: a page commit (before and after its
//! write batch), a sitemap (read, and the write of the URLs it lists), a revisit (queued,
//! and answered 304). After each, the store opens with every page whole, and the same
//! command run again ends with the pages of an uninterrupted crawl.

use std::collections::BTreeSet;
use std::path::Path;

use testweb::TestWeb;

use super::child::{self, crawl_args};
use super::{indexed_docs, stored_whole};
use crate::support::write_config_file;

/// How a failpoint interrupts a run.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// The failpoint returns an error after `n` passes.
    ErrorAfter(u32),
    /// The process aborts at the failpoint after `n` passes.
    CrashAfter(u32),
}

impl Fault {
    fn actions(self) -> String {
        match self {
            Fault::ErrorAfter(n) => format!("{n}*off->return"),
            Fault::CrashAfter(n) => format!("{n}*off->abort"),
        }
    }
}

/// A crawl of `seeds` in `dir/data` with the config file `dir/crawl.toml` (`extra` added).
struct Crawl {
    args: Vec<String>,
    data: std::path::PathBuf,
}

impl Crawl {
    fn new(web: &TestWeb, dir: &Path, name: &str, seeds: &[String], extra: &str) -> Crawl {
        let config = dir.join(format!("{name}.toml"));
        write_config_file(web, &config, extra);
        let data = dir.join(name);
        Crawl {
            args: crawl_args(&data, &config, seeds),
            data,
        }
    }

    async fn run(&self, failpoints: &str) -> child::Ended {
        child::run("crawler", &self.args, failpoints).await
    }
}

/// The pages an uninterrupted crawl stores, and its index's documents.
async fn uninterrupted(
    web: &TestWeb,
    dir: &Path,
    seeds: &[String],
    extra: &str,
) -> (BTreeSet<String>, u64) {
    let crawl = Crawl::new(web, dir, "reference", seeds, extra);
    assert!(crawl.run("").await.succeeded(), "the reference crawl");
    let built = child::run("indexer", &child::build_args(&crawl.data), "").await;
    assert!(built.succeeded(), "{built:?}");
    (stored_whole(&crawl.data), indexed_docs(&crawl.data))
}

/// Interrupts a crawl of `seeds` at `point` with `fault`, then checks: the error is one line
/// naming the failpoint (or the process died), the store opens with every page whole and
/// indexes, and the same command again stores `expected` without fetching a page stored
/// before the fault again; the index then holds `docs` documents.
async fn interrupted(
    web: &TestWeb,
    dir: &Path,
    seeds: &[String],
    point: &str,
    fault: Fault,
    (expected, docs): &(BTreeSet<String>, u64),
) {
    let crawl = Crawl::new(web, dir, &format!("{fault:?}"), seeds, "");
    let ended = crawl.run(&format!("{point}={}", fault.actions())).await;
    match fault {
        Fault::ErrorAfter(_) => {
            let line = ended.failed_in_one_line("crawler");
            assert!(line.contains(&format!("failpoint {point}")), "{line}");
            assert!(
                line.contains(&crawl.data.join("store").display().to_string()),
                "{line}"
            );
        }
        Fault::CrashAfter(_) => assert!(ended.crashed(), "{point}: {ended:?}"),
    }
    let before = stored_whole(&crawl.data);
    assert!(
        before.is_subset(expected),
        "{point} {fault:?}: stored {before:?}"
    );
    assert!(
        before.len() < expected.len(),
        "{point} {fault:?}: stopped early"
    );
    let built = child::run("indexer", &child::build_args(&crawl.data), "").await;
    assert!(
        built.succeeded(),
        "the interrupted store indexes: {built:?}"
    );

    let requests_before = web.requests().len();
    let again = crawl.run("").await;
    assert!(
        again.succeeded(),
        "{point} {fault:?}: the next run: {again:?}"
    );
    assert_eq!(
        &stored_whole(&crawl.data),
        expected,
        "{point} {fault:?}: the next run finished the work"
    );
    let fetched_again: Vec<String> = web.requests()[requests_before..]
        .iter()
        .map(|r| web.url(&r.host, &r.path_and_query))
        .filter(|url| before.contains(url))
        .collect();
    assert!(
        fetched_again.is_empty(),
        "{point} {fault:?}: stored before the fault and fetched again: {fetched_again:?}"
    );
    let built = child::run("indexer", &child::build_args(&crawl.data), "").await;
    assert!(built.succeeded(), "{built:?}");
    assert_eq!(
        indexed_docs(&crawl.data),
        *docs,
        "{point} {fault:?}: every document indexed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_commit_interrupted_before_or_after_its_write_loses_nothing() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let seeds = [web.url("sample.test", "/")];
    let reference = uninterrupted(&web, dir.path(), &seeds, "").await;
    for point in [
        "crawler::store::commit_page::before_write",
        "crawler::store::commit_page::after_write",
    ] {
        for fault in [Fault::ErrorAfter(4), Fault::CrashAfter(4)] {
            let case = tempfile::tempdir().expect("tempdir");
            interrupted(&web, case.path(), &seeds, point, fault, &reference).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_interrupted_while_read_or_written_is_read_again() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let seeds = [web.url("maps.test", "/")];
    let reference = uninterrupted(&web, dir.path(), &seeds, "").await;
    for (point, fault) in [
        (
            "crawler::store::sitemap::before_write",
            Fault::ErrorAfter(1),
        ),
        (
            "crawler::store::sitemap::before_write",
            Fault::CrashAfter(1),
        ),
        ("crawler::sitemap::read", Fault::CrashAfter(1)),
    ] {
        let case = tempfile::tempdir().expect("tempdir");
        interrupted(&web, case.path(), &seeds, point, fault, &reference).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revisit_interrupted_while_queued_or_written_is_done_by_the_next_run() {
    let web = TestWeb::start().await;
    // Every stored page is due again at once.
    let extra = "revisit_ms = 0\nmin_revisit_ms = 0\nmax_revisit_ms = 0\nretry_ms = 10\n";
    let seeds = [web.url("fresh.test", "/")];
    for (point, fault) in [
        (
            "crawler::store::revisit::before_write",
            Fault::ErrorAfter(1),
        ),
        (
            "crawler::store::revisit::before_write",
            Fault::CrashAfter(1),
        ),
        (
            "crawler::store::queue_revisits::before_write",
            Fault::ErrorAfter(0),
        ),
        (
            "crawler::store::queue_revisits::before_write",
            Fault::CrashAfter(0),
        ),
    ] {
        let case = tempfile::tempdir().expect("tempdir");
        let crawl = Crawl::new(&web, case.path(), "data", &seeds, extra);
        assert!(crawl.run("").await.succeeded(), "the first crawl");
        let first = stored_whole(&crawl.data);
        let fetches = |url: &String| {
            shared::StoreReader::open(&crawl.data)
                .expect("store")
                .history(url)
                .expect("history")
                .0
                .len()
        };
        let ended = crawl.run(&format!("{point}={}", fault.actions())).await;
        match fault {
            Fault::ErrorAfter(_) => {
                let line = ended.failed_in_one_line("crawler");
                assert!(line.contains(&format!("failpoint {point}")), "{line}");
            }
            Fault::CrashAfter(_) => assert!(ended.crashed(), "{point}: {ended:?}"),
        }
        assert_eq!(
            stored_whole(&crawl.data),
            first,
            "{point} {fault:?}: nothing lost"
        );
        let before: Vec<usize> = first.iter().map(fetches).collect();
        let again = crawl.run("").await;
        assert!(again.succeeded(), "{point} {fault:?}: {again:?}");
        assert_eq!(stored_whole(&crawl.data), first, "{point} {fault:?}");
        let after: Vec<usize> = first.iter().map(fetches).collect();
        assert!(
            before.iter().zip(&after).all(|(b, a)| a > b),
            "{point} {fault:?}: every due page revisited: {before:?} -> {after:?}"
        );
    }
}
