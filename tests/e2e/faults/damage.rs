//! A store another crawler holds, corrupt records, and an index removed under a serving
//! searchd: each program gives a clear error or a served answer, never a panic.

use std::panic::PanicHookInfo;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shared::store::{Cf, MemoryBudget, QueuePosition, frontier_key, open_options, store_dir};
use testweb::{RANKED_WORD, TestWeb};

use super::child::{self, Ended, build_args, crawl_args, path_arg};
use super::{indexed_docs, stored_whole};
use crate::support::{
    Searchd, crawl, crawled, crawled_and_indexed, crawler_config, write_config_file,
};

/// A run that either succeeded or failed in one clear line, never a panic.
fn clear(ended: &Ended, program: &str) {
    if !ended.succeeded() {
        ended.failed_in_one_line(program);
    }
    assert!(!ended.stderr.contains("panicked"), "{}", ended.stderr);
}

type Hook = dyn Fn(&PanicHookInfo<'_>) + Send + Sync + 'static;

/// The panics raised outside the test code (in searchd, the store, the indexer) while it is
/// held, on any thread of this process. searchd answers a handler that panicked with the
/// same 500 as a handler that returned an error, so a panic is not seen in its answers.
struct PanicWatch {
    seen: Arc<Mutex<Vec<String>>>,
    previous: Arc<Hook>,
}

impl PanicWatch {
    fn start() -> PanicWatch {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let previous: Arc<Hook> = Arc::from(std::panic::take_hook());
        let (recorded, chained) = (Arc::clone(&seen), Arc::clone(&previous));
        std::panic::set_hook(Box::new(move |info| {
            if info
                .location()
                .is_some_and(|at| !at.file().starts_with("tests/"))
            {
                recorded
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(info.to_string());
            }
            chained(info);
        }));
        PanicWatch { seen, previous }
    }

    /// The panics seen so far.
    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for PanicWatch {
    fn drop(&mut self) {
        // A failing test cannot change the hook while it unwinds; it keeps recording then.
        if std::thread::panicking() {
            return;
        }
        let previous = Arc::clone(&self.previous);
        std::panic::set_hook(Box::new(move |info| previous(info)));
    }
}

/// GET `path_and_query` from searchd: its status and body. A connection closed without an
/// answer (a handler that panicked) fails the test.
async fn get(server: &Searchd, path_and_query: &str) -> (u16, String) {
    let response = reqwest::get(server.url(path_and_query))
        .await
        .unwrap_or_else(|e| panic!("searchd answers {path_and_query}: {e}"));
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_another_crawler_holds_is_refused_in_one_line_and_still_read() {
    let web = TestWeb::start().await;
    let dir = crawled(&web, "sample.test").await;
    let data = dir.path();
    let stored = stored_whole(data);
    let config = data.join("crawl.toml");
    write_config_file(&web, &config, "");
    // The crawler's own writer holds the store's lock, as a running crawl does.
    let writer = crawler::PageStore::open(data).expect("the writer opens");

    let seeds = [web.url("sample.test", "/")];
    let second = child::run("crawler", &crawl_args(data, &config, &seeds), "").await;
    let line = second.failed_in_one_line("crawler");
    assert!(line.contains("in use by another crawler"), "{line}");
    assert!(
        line.contains(&store_dir(data).display().to_string()),
        "{line}"
    );

    // Readers are not kept out: status, and an index build of what is stored.
    let status = child::run(
        "crawler",
        &["status".into(), "--data".into(), path_arg(data)],
        "",
    )
    .await;
    assert!(status.succeeded(), "{status:?}");
    let built = child::run("indexer", &build_args(data), "").await;
    assert!(
        built.succeeded(),
        "the indexer reads a store a crawl holds: {built:?}"
    );
    assert!(indexed_docs(data) > 0);
    drop(writer);
    assert_eq!(stored_whole(data), stored, "nothing changed");
}

/// Writes `value` under `key` in column family `cf` of the store, as RocksDB's own client
/// would: bytes no version of the crawler wrote.
fn write_raw(data: &Path, cf: Cf, key: &[u8], value: &[u8]) {
    let budget = MemoryBudget::default();
    let db = rocksdb::DB::open_cf_descriptors(
        &open_options(&budget),
        store_dir(data),
        Cf::descriptors(&budget),
    )
    .expect("the store opens for writing");
    let handle = db.cf_handle(cf.name()).expect("column family");
    db.put_cf(handle, key, value).expect("written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_records_give_clear_errors_or_answers_never_a_panic() {
    let web = TestWeb::start().await;
    let dir = crawled_and_indexed(&web).await;
    let data = dir.path().to_path_buf();
    let page = web.url("sample.test", "/about.html");
    let linked = web.url("sample.test", "/glossary.html");
    let garbage = b"\xfe\x00\x17not a record at all\xff\xff";
    write_raw(&data, Cf::Pages, page.as_bytes(), garbage);
    write_raw(&data, Cf::Outlinks, linked.as_bytes(), garbage);
    write_raw(&data, Cf::Revisit, linked.as_bytes(), garbage);
    let origin = web.url("sample.test", "").trim_end_matches('/').to_string();
    let position = QueuePosition {
        rank: 0,
        seq: u64::MAX - 1,
    };
    write_raw(
        &data,
        Cf::Frontier,
        &frontier_key(&origin, position),
        garbage,
    );

    let data_arg = path_arg(&data);
    for args in [
        vec!["status".to_string(), "--data".into(), data_arg.clone()],
        vec![
            "status".to_string(),
            "--json".into(),
            "--data".into(),
            data_arg.clone(),
        ],
        vec!["report".to_string(), "--data".into(), data_arg.clone()],
        vec![
            "explain".to_string(),
            "--data".into(),
            data_arg.clone(),
            page.clone(),
        ],
        vec![
            "explain".to_string(),
            "--data".into(),
            data_arg.clone(),
            linked.clone(),
        ],
    ] {
        let ended = child::run("crawler", &args, "").await;
        clear(&ended, "crawler");
    }
    let built = child::run("indexer", &build_args(&data), "").await;
    clear(&built, "indexer");

    let server = Searchd::start(dir).await;
    let panics = PanicWatch::start();
    for path in [
        "/search?q=heron".to_string(),
        "/api/search?q=about".to_string(),
        format!("/cache?url={page}"),
        format!("/cache?url={linked}"),
        format!("/explain?url={page}"),
        "/status".to_string(),
    ] {
        let (status, body) = get(&server, &path).await;
        assert!(
            [200, 404, 500, 503].contains(&status),
            "{path}: {status} {body}"
        );
        assert!(!body.contains("panicked"), "{path}: {body}");
        assert_eq!(
            panics.seen(),
            Vec::<String>::new(),
            "{path}: searchd panicked"
        );
    }
    drop(panics);

    // A crawl over the damaged store: a clear error, or it goes on.
    let config = server.data().join("crawl.toml");
    write_config_file(&web, &config, "");
    let seeds = [web.url("sample.test", "/")];
    let resumed = child::run("crawler", &crawl_args(server.data(), &config, &seeds), "").await;
    clear(&resumed, "crawler");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_index_removed_under_searchd_is_served_or_refused_then_rebuilt() {
    let web = TestWeb::start().await;
    let server = Searchd::start(crawled_and_indexed(&web).await).await;
    let (status, _) = get(&server, "/api/search?q=heron").await;
    assert_eq!(status, 200);

    std::fs::remove_dir_all(server.data().join("index")).expect("index removed");
    // Past a reload check of the server.
    tokio::time::sleep(gateway::RELOAD_EVERY * 2).await;
    for path in ["/search?q=heron", "/api/search?q=heron", "/status", "/"] {
        let (status, body) = get(&server, path).await;
        assert!([200, 503].contains(&status), "{path}: {status} {body}");
    }

    // The rebuilt index holds one more site, so an answer from it cannot come from the old
    // index's files, which searchd may still have mapped.
    let data = server.data().to_path_buf();
    crawl(&data, &[web.url("ranked.test", "/")], crawler_config(&web)).await;
    tokio::task::spawn_blocking(move || indexer::build(&data, indexer::BuildMode::Full))
        .await
        .expect("build task")
        .expect("the index is built again");
    let started = Instant::now();
    loop {
        let (status, body) = get(&server, &format!("/api/search?q={RANKED_WORD}")).await;
        let json: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        if status == 200 && json["total"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the rebuilt index is served: {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
