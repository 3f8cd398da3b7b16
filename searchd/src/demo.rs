//! `searchd demo`: one command, no set-up. Serves a directory of HTML on loopback from inside
//! this process, crawls it, indexes it and serves search over it, with progress and stage
//! times. Search is served from the start: the index is built while the crawl runs
//! ([`live_index`]), so results appear within seconds and grow as pages arrive.
//!
//! The directory is `--docs DIR`, else the Rust documentation of the active toolchain
//! (`$(rustc --print sysroot)/share/doc/rust/html`), else the sample site in `data/site`.
//! The crawl and index live in `--data DIR`; a second run reuses them: the site is served on
//! the same port as before when it is free (stored URLs name that port), the crawl resumes
//! where it stopped and the index is updated incrementally. The site stays up while search
//! is served, so result links work. Ctrl-C stops cleanly at any stage.

pub mod live_index;
mod site;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use crawler::{CrawlOptions, Crawler, StopReason};
use shared::config::{BadValue, Config, RawConfig, RawHostOverride};
use tokio::net::TcpListener;
use tokio::sync::watch;

/// What the demo serves and where.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Where search is served.
    pub listen: SocketAddr,
    /// The directory to crawl; `None`: the Rust docs, else the sample site.
    pub docs: Option<PathBuf>,
    /// Where the crawl and index are kept (reused by the next run).
    pub data: PathBuf,
}

/// `searchd pdf-text` (hidden): the child process the demo's crawler runs this binary as for
/// each PDF, as `crawler pdf-text` is the `crawler` binary's (see the `pdf-reader` crate).
pub fn pdf_child() -> std::io::Result<()> {
    pdf_reader::run_child()
}

/// The file in the data directory that remembers which directory was served on which port.
const SITE_FILE: &str = "demo-site.txt";

/// The directory the demo crawls: `--docs`, else the Rust documentation of the active
/// toolchain, else the sample site shipped in `data/site`.
pub fn docs_dir(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(dir) = explicit {
        if !dir.join("index.html").is_file() {
            bail!(
                "{} has no index.html to start the crawl from",
                dir.display()
            );
        }
        return Ok(dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()));
    }
    if let Some(dir) = rust_docs().filter(|d| d.join("index.html").is_file()) {
        return Ok(dir);
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/site");
    if sample.join("index.html").is_file() {
        return Ok(sample.canonicalize().unwrap_or(sample));
    }
    bail!(
        "no Rust documentation (`rustup component add rust-docs`) and no sample site: give --docs DIR"
    )
}

/// `$(rustc --print sysroot)/share/doc/rust/html`, if rustc runs.
fn rust_docs() -> Option<PathBuf> {
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!sysroot.is_empty()).then(|| PathBuf::from(sysroot).join("share/doc/rust/html"))
}

/// A duration as people read it: `850ms`, `12s`, `5m 12s`.
pub fn human(d: Duration) -> String {
    if d.as_secs() == 0 {
        format!("{}ms", d.as_millis())
    } else {
        humantime::format_duration(Duration::from_secs(d.as_secs())).to_string()
    }
}

/// Binds the loopback port for the site: the one the last run of this data directory used
/// when it is free, else any. Refuses a data directory made from another docs directory.
async fn bind_site(data: &Path, docs: &Path) -> Result<TcpListener> {
    let remembered = std::fs::read_to_string(data.join(SITE_FILE)).ok();
    if let Some(text) = &remembered {
        let mut lines = text.lines();
        let port = lines.next().and_then(|p| p.trim().parse::<u16>().ok());
        let dir = lines.next().map(PathBuf::from);
        if let Some(dir) = dir.filter(|dir| dir != docs) {
            bail!(
                "{} holds a demo of {}, not {}: give another --data DIR",
                data.display(),
                dir.display(),
                docs.display()
            );
        }
        if let Some(port) = port {
            match TcpListener::bind(("127.0.0.1", port)).await {
                Ok(listener) => return Ok(listener),
                Err(e) => eprintln!(
                    "searchd: port {port} of the last run is taken ({e}); the site moves, so it is crawled again"
                ),
            }
        }
    }
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .context("cannot bind a loopback port for the site")?;
    let port = listener.local_addr()?.port();
    std::fs::write(
        data.join(SITE_FILE),
        format!("{port}\n{}\n", docs.display()),
    )
    .with_context(|| format!("cannot write {}", data.join(SITE_FILE).display()))?;
    Ok(listener)
}

/// Requests in flight to our own site: its server is in this process, on loopback, so the
/// crawl can ask as fast as the machine answers (as `bench/run` crawls nginx).
const SITE_CONCURRENCY: usize = 32;

/// How long "ready" waits for the search server to load the index just built.
const LOAD_WAIT: Duration = Duration::from_secs(10);

/// Waits, at most [`LOAD_WAIT`], until the search server at `addr` serves the index `built`
/// describes (its generation and documents, from `/status`): the server loads a new index
/// on its own schedule, and "ready" must mean that a query finds it.
async fn until_served(addr: SocketAddr, built: &indexer::BuildSummary) {
    let client = reqwest::Client::new();
    let url = format!("http://{addr}/status?format=json");
    let deadline = Instant::now() + LOAD_WAIT;
    while Instant::now() < deadline {
        let body = async { client.get(&url).send().await?.bytes().await };
        if let Ok(body) = body.await
            && let Ok(status) = serde_json::from_slice::<serde_json::Value>(&body)
            && status["generation"] == built.generation.as_str()
            && status["docs"] == built.total_docs
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The settings for our own site: loopback allowed, no delay, [`SITE_CONCURRENCY`] requests
/// at a time; the rest the defaults.
fn crawl_config() -> Result<Config, BadValue> {
    let mut raw = RawConfig::default();
    raw.crawler.allow_loopback = true;
    raw.crawler.max_in_flight = SITE_CONCURRENCY;
    raw.crawler.max_body_bytes = 32 * 1024 * 1024;
    raw.crawler.hosts.insert(
        "127.0.0.1".into(),
        RawHostOverride {
            delay_ms: Some(0),
            concurrency: Some(SITE_CONCURRENCY),
            ..RawHostOverride::default()
        },
    );
    raw.validate()
}

/// Runs the demo until `shutdown`.
pub async fn run(
    options: DemoOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let begun = Instant::now();
    let docs = docs_dir(options.docs.as_deref())?;
    // Bind search first, so a busy port is reported before minutes of crawling.
    let search_listener = TcpListener::bind(options.listen).await.with_context(|| {
        format!(
            "cannot listen on {} (another searchd running? try --listen)",
            options.listen
        )
    })?;
    std::fs::create_dir_all(&options.data)
        .with_context(|| format!("cannot create {}", options.data.display()))?;
    let (stop_tx, stop_rx) = watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });
    let stopped = move || {
        let mut rx = stop_rx.clone();
        async move {
            let _ = rx.wait_for(|stop| *stop).await;
        }
    };

    let site_listener = bind_site(&options.data, &docs).await?;
    let site_addr = site_listener.local_addr()?;
    let site = warp::serve(site::routes(docs.clone()))
        .incoming(site_listener)
        .graceful(stopped())
        .run();
    let site_task = tokio::spawn(site);
    println!("Serving {} at http://{site_addr}/", docs.display());

    let config = crawl_config()?;
    let root = format!("http://{site_addr}/");
    let started = Instant::now();
    let crawler = Crawler::open(CrawlOptions {
        data: options.data.clone(),
        seeds: vec![root.clone()],
        scope: vec![root],
        config: config.crawler.clone(),
        max_time: None,
        // This binary, as `searchd pdf-text`.
        pdf_child: None,
    })
    .with_context(|| format!("cannot open the crawl in {}", options.data.display()))?;
    // Search is open from the start: each index build during the crawl shows up in it.
    let addr = search_listener.local_addr()?;
    let server = tokio::spawn(gateway::serve(
        search_listener,
        options.data.clone(),
        config.clone(),
        stopped(),
    ));
    println!("Crawling (data in {}) ...", options.data.display());
    println!(
        "Search is open at http://{addr}/ : results appear within seconds and grow as the crawl goes."
    );
    let reporter = tokio::spawn(crawler::progress::report(
        crawler.progress(),
        Duration::from_secs(2),
        |line| println!("  {line}"),
    ));
    let (crawled_tx, crawled_rx) = watch::channel(false);
    let live = tokio::spawn(live_index::index_while(
        options.data.clone(),
        live_index::Cadence::DEMO,
        async move {
            let mut rx = crawled_rx;
            let _ = rx.wait_for(|crawled| *crawled).await;
        },
        |built| {
            println!(
                "  index: {} documents searchable (crawl still running)",
                built.total_docs
            );
        },
    ));
    let summary = crawler.run(stopped()).await;
    reporter.abort();
    let _ = crawled_tx.send(true);
    let _ = live.await;
    let summary = summary.context("the crawl failed")?;
    println!(
        "crawl: {} pages in {} ({} fetched in this run, {} errors)",
        summary.pages_stored,
        human(started.elapsed()),
        summary.fetched,
        summary.errors
    );
    if summary.stop == StopReason::Shutdown {
        println!("Stopped. Run the same command again to resume.");
        return Ok(());
    }

    println!("Indexing ...");
    let started = Instant::now();
    let data = options.data.clone();
    let build =
        tokio::task::spawn_blocking(move || indexer::build(&data, indexer::BuildMode::Incremental));
    let built = tokio::select! {
        built = build => built.context("the index build stopped")?.context("indexing failed")?,
        () = stopped() => {
            println!("Stopped while indexing. Run the same command again to resume.");
            return Ok(());
        }
    };
    println!(
        "index: {} documents in {} ({} new or changed)",
        built.total_docs,
        human(started.elapsed()),
        built.indexed
    );

    until_served(addr, &built).await;
    println!();
    println!(
        "    ==> Search is ready at http://{addr}/   ({} after the start; Ctrl-C to stop)",
        human(begun.elapsed())
    );
    println!();
    server.await.context("search stopped")??;
    site_task.abort();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_docs_need_an_index_page() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(docs_dir(Some(dir.path())).is_err());
        std::fs::write(dir.path().join("index.html"), "<h1>hi</h1>").expect("write");
        assert!(docs_dir(Some(dir.path())).is_ok());
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(human(Duration::from_millis(850)), "850ms");
        assert_eq!(human(Duration::from_secs(312)), "5m 12s");
    }

    #[tokio::test]
    async fn the_site_port_is_remembered_and_other_docs_are_refused() {
        let data = tempfile::tempdir().expect("tempdir");
        let docs = Path::new("/docs/a");
        let first = bind_site(data.path(), docs).await.expect("bind");
        let port = first.local_addr().expect("addr").port();
        drop(first);
        let second = bind_site(data.path(), docs).await.expect("bind again");
        assert_eq!(second.local_addr().expect("addr").port(), port);
        drop(second);
        assert!(bind_site(data.path(), Path::new("/docs/b")).await.is_err());
    }
}
