//! Set-up shared by the end-to-end tests.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crawler::{CrawlOptions, CrawlSummary, Crawler};
use indexer::BuildMode;
use shared::StoreReader;
use shared::config::{Config, RawCrawlerConfig};
use testweb::TestWeb;

/// A crawler config for the test web, as a file would give it (tests change its values;
/// [`crawl`] checks them): its host names resolve to loopback, which is allowed, and the
/// politeness delay is short (the test web is ours).
pub fn crawler_config(web: &TestWeb) -> RawCrawlerConfig {
    let mut config = RawCrawlerConfig {
        allow_loopback: true,
        delay_ms: 0,
        robots_retry_ms: 50,
        retry_ms: 20,
        breaker_pause_ms: 200,
        ..RawCrawlerConfig::default()
    };
    for host in web.hosts() {
        config.resolve.insert(
            host.to_string(),
            "127.0.0.1".parse().expect("an IP address"),
        );
    }
    config
}

/// The same, as a TOML config file for the `crawler` command line.
pub fn write_config_file(web: &TestWeb, path: &Path, extra: &str) {
    let mut text = String::from("[crawler]\ndelay_ms = 0\nallow_loopback = true\n");
    text.push_str(extra);
    text.push_str("\n[crawler.resolve]\n");
    for host in web.hosts() {
        text.push_str(&format!("\"{host}\" = \"127.0.0.1\"\n"));
    }
    std::fs::write(path, text).expect("config written");
    Config::load(Some(path)).expect("the written config parses");
}

/// Set for this test binary re-entered as the crawler's PDF reader ([`pdf_child_entry`]).
const PDF_CHILD_ENV: &str = "SIFT_E2E_PDF_CHILD";

/// The PDF reader of an in-process crawl: this test binary, re-entered to run
/// [`pdf_child_entry`] alone (the crawler's own binary would be `crawler pdf-text`).
pub fn pdf_child() -> pdf_reader::ChildCommand {
    pdf_reader::ChildCommand {
        program: std::env::current_exe().expect("test binary path"),
        args: [
            "--exact",
            "support::pdf_child_entry",
            "--nocapture",
            "--test-threads=1",
        ]
        .map(Into::into)
        .to_vec(),
        env: vec![(PDF_CHILD_ENV.into(), "1".into())],
    }
}

/// Not a test of its own: re-entered by [`pdf_child`], this process reads one PDF on stdin
/// as `crawler pdf-text` does.
#[test]
fn pdf_child_entry() {
    if std::env::var_os(PDF_CHILD_ENV).is_some() {
        pdf_reader::run_child().expect("the answer is written");
    }
}

/// Crawls in-process until done, within the seeds' hosts.
pub async fn crawl(data: &Path, seeds: &[String], config: RawCrawlerConfig) -> CrawlSummary {
    crawl_in_scope(data, seeds, &[], config).await
}

/// Crawls in-process until done, under the `scope` prefixes (empty: the seeds' hosts).
pub async fn crawl_in_scope(
    data: &Path,
    seeds: &[String],
    scope: &[String],
    config: RawCrawlerConfig,
) -> CrawlSummary {
    let options = CrawlOptions {
        data: data.to_path_buf(),
        seeds: seeds.to_vec(),
        scope: scope.to_vec(),
        config: config.validate().expect("the test's settings are valid"),
        max_time: None,
        pdf_child: Some(pdf_child()),
    };
    Crawler::open(options)
        .expect("crawl opens")
        .run(std::future::pending())
        .await
        .expect("crawl runs")
}

/// One test's rig: the test web, a data directory of its own and a crawler config for the
/// web, which the test changes before it crawls; then the index and searchd over it. Most
/// end-to-end tests start with it:
///
/// ```ignore
/// let mut rig = Rig::start().await;
/// rig.config.max_depth = 1;
/// rig.crawl(&[rig.web.url("sample.test", "/")]).await;
/// assert_eq!(rig.requested("sample.test")[0], "/robots.txt");
/// rig.index().await;
/// let server = rig.serve().await;
/// ```
pub struct Rig {
    /// The local test web.
    pub web: TestWeb,
    /// What [`Rig::crawl`] crawls with ([`crawler_config`] to start with).
    pub config: RawCrawlerConfig,
    dir: tempfile::TempDir,
}

impl Rig {
    /// The test web started, an empty data directory, the test web's crawler config.
    pub async fn start() -> Rig {
        let web = TestWeb::start().await;
        let config = crawler_config(&web);
        Rig {
            web,
            config,
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// The data directory.
    pub fn data(&self) -> &Path {
        self.dir.path()
    }

    /// Crawls `seeds` in-process into the data directory until done, within their hosts.
    pub async fn crawl(&self, seeds: &[String]) -> CrawlSummary {
        crawl(self.data(), seeds, self.config.clone()).await
    }

    /// Crawls `seeds` under the `scope` prefixes.
    pub async fn crawl_in_scope(&self, seeds: &[String], scope: &[String]) -> CrawlSummary {
        crawl_in_scope(self.data(), seeds, scope, self.config.clone()).await
    }

    /// The paths asked of `host` so far, in order.
    pub fn requested(&self, host: &str) -> Vec<String> {
        paths_requested(&self.web, host)
    }

    /// The store, read-only.
    pub fn store(&self) -> StoreReader {
        StoreReader::open(self.data()).expect("store opens read-only")
    }

    /// The data directory's crawl as `crawler status`, `report` and `explain` read it.
    pub fn crawl_stores(&self) -> crawler::inspect::CrawlStores {
        crawler::inspect::CrawlStores::open(self.data()).expect("the crawl opens read-only")
    }

    /// Builds the index of the data directory (a full build).
    pub async fn index(&self) {
        index(self.data()).await;
    }

    /// searchd over the data directory (indexed or not yet), on a free loopback port.
    pub async fn serve(&self) -> Searchd {
        Searchd::over(self.data()).await
    }
}

/// Paths requested from one host, in order.
pub fn paths_requested(web: &TestWeb, host: &str) -> Vec<String> {
    web.requests()
        .into_iter()
        .filter(|r| r.host == host)
        .map(|r| r.path_and_query)
        .collect()
}

/// Crawls one host of the test web from its home page; returns the data directory.
pub async fn crawled(web: &TestWeb, host: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    crawl(dir.path(), &[web.url(host, "/")], crawler_config(web)).await;
    dir
}

/// Builds the index of a data directory (a full build).
pub async fn index(data: &Path) {
    let path = data.to_path_buf();
    tokio::task::spawn_blocking(move || indexer::build(&path, BuildMode::Full))
        .await
        .expect("build task")
        .expect("index builds");
}

/// Crawls the sample site and indexes it; returns the data directory.
pub async fn crawled_and_indexed(web: &TestWeb) -> tempfile::TempDir {
    let dir = crawled(web, "sample.test").await;
    index(dir.path()).await;
    dir
}

/// Every URL stored under `data`.
pub fn stored_urls(data: &Path) -> BTreeSet<String> {
    let store = StoreReader::open(data).expect("store opens read-only");
    store
        .pages()
        .map(|p| p.expect("page decodes").url)
        .collect()
}

/// The URLs of `paths` on `host` of the test web.
pub fn urls_of(web: &TestWeb, host: &str, paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| web.url(host, p)).collect()
}

/// searchd serving a data directory on 127.0.0.1; it stops on drop, and a directory it
/// was given to own goes with it.
pub struct Searchd {
    /// Where it listens.
    pub addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
    data: PathBuf,
    _owned: Option<tempfile::TempDir>,
}

impl Searchd {
    /// Starts searchd (default config) over `dir`, which it owns, on a free loopback port.
    pub async fn start(dir: tempfile::TempDir) -> Searchd {
        let mut server = Searchd::over(dir.path()).await;
        server._owned = Some(dir);
        server
    }

    /// Starts searchd (default config) over `data` on a free loopback port.
    pub async fn over(data: &Path) -> Searchd {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = data.to_path_buf();
        tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            let config = Config::load(None).expect("the defaults are valid");
            gateway::serve(listener, served, config, shutdown)
                .await
                .expect("searchd serves");
        });
        Searchd {
            addr,
            _stop: stop,
            data: data.to_path_buf(),
            _owned: None,
        }
    }

    /// The data directory it serves.
    pub fn data(&self) -> &Path {
        &self.data
    }

    /// `http://{addr}{path_and_query}`.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{path_and_query}", self.addr)
    }

    /// The URLs the JSON API ranks for `query`, best first.
    pub async fn api_ranking(&self, query: &str) -> Vec<String> {
        let body = reqwest::get(self.url(&format!("/api/search?q={query}")))
            .await
            .expect("searchd answers")
            .text()
            .await
            .expect("body");
        let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        json["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .map(|hit| hit["url"].as_str().expect("a URL").to_string())
            .collect()
    }
}

/// Copies a directory tree (a closed store, a store's backups), RocksDB's `LOCK` file left
/// out.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("directory made");
    for entry in std::fs::read_dir(from).expect("directory read") {
        let entry = entry.expect("entry");
        let target: PathBuf = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else if entry.file_name() != "LOCK" {
            std::fs::copy(entry.path(), &target).expect("file copied");
        }
    }
}
