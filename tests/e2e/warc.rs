//! WARC in and out: a crawl exported and imported into a fresh store searches the same;
//! warcio (an independent reader, from PyPI) checks and indexes our export; wget's WARC of
//! the sample site is imported and searched. The hostile files (a bad `Content-Length`, a
//! truncated gzip member, a record over the limit, no WARC at all) are in `warc/hostile.rs`.

mod hostile;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use gateway::Searcher;
use shared::config::RankingConfig;

use crate::support::{Rig, index, write_config_file};

/// Runs the `crawler` command line in this process; panics if it fails.
async fn crawler(args: &[&str]) {
    let cli =
        crawler::cli::Cli::try_parse_from(std::iter::once("crawler").chain(args.iter().copied()))
            .expect("the arguments parse");
    crawler::cli::run(cli)
        .await
        .unwrap_or_else(|e| panic!("crawler {args:?}: {e:#}"));
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// What a store holds of each answered URL: status, title, text hash, body and links.
fn answers(data: &Path) -> BTreeMap<String, (u16, String, u64, String, Vec<String>)> {
    let store = shared::StoreReader::open(data).expect("store opens");
    store
        .pages()
        .map(|page| page.expect("page decodes"))
        .filter(|page| page.status != 0)
        .map(|page| {
            let body = if page.body.compressed_len() == 0 {
                String::new()
            } else {
                page.body.decompress().expect("body decompresses")
            };
            let links = store
                .outlinks(&page.url)
                .expect("outlinks read")
                .map(|links| {
                    links
                        .0
                        .into_iter()
                        .map(|l| format!("{} {}", l.target, l.anchor))
                        .collect()
                })
                .unwrap_or_default();
            let facts = (page.status, page.title, page.content_hash, body, links);
            (page.url, facts)
        })
        .collect()
}

fn hit_urls(data: &Path, query: &str) -> Vec<String> {
    let searcher = Searcher::open(data, RankingConfig::default()).expect("searcher");
    let results = searcher.search(query, 1, 10).expect("search runs");
    results.hits.into_iter().map(|hit| hit.url).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_exported_and_imported_afresh_holds_and_searches_the_same_pages_and_links() {
    let rig = Rig::start().await;
    let seed = rig.web.url("sample.test", "/");
    rig.crawl(std::slice::from_ref(&seed)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let warc = dir.path().join("sample.warc.gz");
    crawler(&["export", "--data", path(rig.data()), "--warc", path(&warc)]).await;
    let fresh = dir.path().join("fresh");
    crawler(&["import", "--data", path(&fresh), "--warc", path(&warc)]).await;

    let (crawled, imported) = (answers(rig.data()), answers(&fresh));
    assert!(crawled.len() > 20, "{} answers", crawled.len());
    assert_eq!(
        crawled.keys().collect::<Vec<_>>(),
        imported.keys().collect::<Vec<_>>()
    );
    for (url, facts) in &crawled {
        assert_eq!(Some(facts), imported.get(url), "{url}");
    }

    rig.index().await;
    index(&fresh).await;
    for word in [
        testweb::SAMPLE_RANKED_WORD,
        testweb::SAMPLE_DUPLICATE_WORD,
        testweb::SAMPLE_BEHIND_NOINDEX_WORD,
        testweb::SAMPLE_NOINDEX_WORD,
        "oystercatcher",
    ] {
        assert_eq!(hit_urls(rig.data(), word), hit_urls(&fresh, word), "{word}");
    }
    let (popular, obscure) = testweb::SAMPLE_RANKED_PAIR;
    assert_eq!(
        hit_urls(&fresh, testweb::SAMPLE_RANKED_WORD),
        [
            rig.web.url("sample.test", popular),
            rig.web.url("sample.test", obscure)
        ],
        "the imported links rank the page with more in-links first"
    );

    // A crawl of the imported store from the same seed asks the site for nothing stored.
    let before = rig.web.requests().len();
    crate::support::crawl(&fresh, &[seed], rig.config.clone()).await;
    let asked: Vec<String> = rig.web.requests()[before..]
        .iter()
        .map(|r| rig.web.url(&r.host, &r.path_and_query))
        .filter(|url| imported.contains_key(url))
        .collect();
    assert!(
        asked.is_empty(),
        "fetched again after the import: {asked:?}"
    );
}

/// warcio's command, from the venv `tests/setup` makes (`target/warcio-venv`, under
/// `CARGO_TARGET_DIR` when that is set).
fn warcio() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut places = vec![workspace.join("target")];
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        places.insert(0, PathBuf::from(target));
    }
    places
        .iter()
        .map(|target| target.join("warcio-venv/bin/warcio"))
        .find(|warcio| warcio.is_file())
        .unwrap_or_else(|| {
            panic!("warcio is not installed in {places:?}/warcio-venv: run `bash tests/setup`")
        })
}

/// Checks `warc` with `warcio check`, panicking with what it said if a record fails.
fn warcio_check(warcio: &Path, warc: &Path) {
    let check = Command::new(warcio)
        .args(["check", "-v", path(warc)])
        .output()
        .expect("warcio runs");
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "warcio check failed:\n{said}");
    assert!(!said.contains("digest failed"), "{said}");
}

/// `warcio index -f FIELDS`: a JSON object per record, in file order.
fn warcio_index(warcio: &Path, warc: &Path, fields: &str) -> Vec<serde_json::Value> {
    let index = Command::new(warcio)
        .args(["index", "-f", fields, path(warc)])
        .output()
        .expect("warcio runs");
    assert!(
        index.status.success(),
        "{}",
        String::from_utf8_lossy(&index.stderr)
    );
    String::from_utf8_lossy(&index.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// A field of a `warcio index` line, `""` when absent.
fn field(line: &serde_json::Value, name: &str) -> String {
    line[name].as_str().unwrap_or("").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warcio_checks_our_export_and_indexes_each_answer_under_its_url() {
    let warcio = warcio();
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("sample.test", "/")]).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let warc = dir.path().join("sample.warc.gz");
    crawler(&["export", "--data", path(rig.data()), "--warc", path(&warc)]).await;
    warcio_check(&warcio, &warc);
    let lines = warcio_index(&warcio, &warc, "warc-type,warc-target-uri");
    assert_eq!(field(&lines[0], "warc-type"), "warcinfo");
    let stored: Vec<String> = answers(rig.data()).into_keys().collect();
    let mut expected = Vec::new();
    for url in &stored {
        expected.push(("request".to_string(), url.clone()));
        expected.push(("response".to_string(), url.clone()));
    }
    let listed: Vec<(String, String)> = lines[1..]
        .iter()
        .map(|line| (field(line, "warc-type"), field(line, "warc-target-uri")))
        .collect();
    assert_eq!(listed, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wget_warc_of_the_sample_site_is_imported_and_searched() {
    let rig = Rig::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().join("wget");
    // wget reaches sample.test through the test web as its proxy: it resolves no name, and
    // its records carry the site's own URLs.
    let proxy = format!("http_proxy=http://127.0.0.1:{}/", rig.web.port());
    let seed = rig.web.url("sample.test", "/");
    let args = [
        "--recursive",
        "--level=5",
        "--no-verbose",
        "--tries=1",
        "-e",
        "use_proxy=on",
        "-e",
        &proxy,
        &format!("--warc-file={}", path(&base)),
        "--directory-prefix",
        path(&dir.path().join("mirror")),
        &seed,
    ]
    .map(str::to_string);
    let wget = tokio::task::spawn_blocking(move || {
        Command::new("wget")
            .args(&args)
            .env_remove("no_proxy")
            .env_remove("NO_PROXY")
            .output()
    })
    .await
    .expect("wget task")
    .expect("wget runs (Debian's wget: `bash tests/setup` installs it)");
    let warc = dir.path().join("wget.warc.gz");
    assert!(
        warc.is_file(),
        "wget wrote no WARC: {}",
        String::from_utf8_lossy(&wget.stderr)
    );

    let data = dir.path().join("data");
    let config = dir.path().join("crawl.toml");
    write_config_file(&rig.web, &config, "");
    let mut problems = Vec::new();
    // Off the async threads, as `crawler import` runs it.
    let summary = tokio::task::block_in_place(|| {
        crawler::archive::import(
            &data,
            &[warc],
            &shared::config::Config::load(Some(&config))
                .expect("config")
                .crawler,
            &mut |_, problem| problems.push(problem.to_string()),
        )
    })
    .expect("wget's WARC imports");
    assert!(problems.is_empty(), "{problems:?}");
    assert!(summary.stored > 20, "{summary:?}");
    assert_eq!(summary.skipped.get("robots.txt"), Some(&1), "{summary:?}");
    assert!(
        summary.skipped.get("request") >= Some(&summary.stored),
        "{summary:?}"
    );
    assert!(
        rig.web.requests().iter().all(|r| r.host == "sample.test"),
        "wget asked the test web for sample.test only"
    );
    index(&data).await;
    let (popular, obscure) = testweb::SAMPLE_RANKED_PAIR;
    let mut hits = hit_urls(&data, testweb::SAMPLE_RANKED_WORD);
    hits.sort();
    let mut expected = [
        rig.web.url("sample.test", popular),
        rig.web.url("sample.test", obscure),
    ];
    expected.sort();
    assert_eq!(hits, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rendered_page_is_exported_as_a_conversion_of_its_response_that_warcio_reads() {
    let warcio = warcio();
    let mut rig = Rig::start().await;
    rig.config.render = "always".into();
    rig.config.render_settle_ms = 100;
    rig.config.max_depth = 0;
    let home = rig.web.url("router.test", testweb::ROUTER_HOME);
    rig.crawl(std::slice::from_ref(&home)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let warc = dir.path().join("rendered.warc.gz");
    crawler(&["export", "--data", path(rig.data()), "--warc", path(&warc)]).await;
    warcio_check(&warcio, &warc);

    let lines = warcio_index(
        &warcio,
        &warc,
        "warc-type,warc-target-uri,warc-record-id,warc-refers-to,offset",
    );
    let of_home: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|line| field(line, "warc-target-uri") == home)
        .collect();
    let types: Vec<String> = of_home
        .iter()
        .map(|line| field(line, "warc-type"))
        .collect();
    assert_eq!(types, ["request", "response", "conversion"]);
    let (response, conversion) = (of_home[1], of_home[2]);
    assert_eq!(
        field(conversion, "warc-refers-to"),
        field(response, "warc-record-id")
    );
    // The conversion holds the document after scripts: the word only the script writes.
    let payload = |line: &serde_json::Value| {
        let offset = line["offset"].to_string();
        let out = Command::new(&warcio)
            .args([
                "extract",
                "--payload",
                path(&warc),
                offset.trim_matches('"'),
            ])
            .output()
            .expect("warcio runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let word = testweb::ROUTER_ROUTES[0].word;
    assert!(
        payload(conversion).contains(word),
        "{word} not in the render"
    );
    assert!(
        !payload(response).contains(word),
        "{word} in the static page"
    );
}
