//! `searchd demo`: serve a directory of HTML on loopback from inside this process, crawl it,
//! index it and serve search over it, with progress and stage times.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use crawler::{CrawlOptions, Crawler};
use shared::config::{Config, HostOverride};

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
        return Ok(dir.to_path_buf());
    }
    let rust_docs = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| {
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("share/doc/rust/html")
        });
    if let Some(dir) = rust_docs.filter(|d| d.join("index.html").is_file()) {
        return Ok(dir);
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/site");
    if sample.join("index.html").is_file() {
        return Ok(sample);
    }
    bail!(
        "no Rust documentation (rustup component add rust-docs) and no sample site; give --docs DIR"
    )
}

fn human(d: Duration) -> String {
    if d.as_secs() == 0 {
        format!("{}ms", d.as_millis())
    } else {
        humantime::format_duration(Duration::from_secs(d.as_secs())).to_string()
    }
}

/// Runs the demo until `shutdown`.
pub async fn run(
    options: DemoOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let docs = docs_dir(options.docs.as_deref())?;
    // Bind search first, so a busy port is reported before minutes of crawling.
    let search_listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .with_context(|| {
            format!(
                "cannot listen on {} (is another searchd running? try --listen)",
                options.listen
            )
        })?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    });
    let stopped = move || {
        let mut rx = stop_rx.clone();
        async move {
            let _ = rx.wait_for(|s| *s).await;
        }
    };

    // A static file server for the docs, on a loopback port of its own.
    let site_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("cannot bind a loopback port")?;
    let site_addr = site_listener.local_addr()?;
    let site = warp::serve(warp::fs::dir(docs.clone()))
        .incoming(site_listener)
        .graceful(stopped())
        .run();
    let site_task = tokio::spawn(site);
    println!("Serving {} at http://{site_addr}/", docs.display());

    // Crawl it: our own host, so no delay and several requests at a time.
    let mut config = Config::default();
    config.crawler.allow_loopback = true;
    config.crawler.max_in_flight = 16;
    config.crawler.max_body_bytes = 32 * 1024 * 1024;
    config.crawler.hosts.insert(
        "127.0.0.1".into(),
        HostOverride {
            delay_ms: Some(0),
            concurrency: Some(8),
        },
    );
    let seed = format!("http://{site_addr}/index.html");
    std::fs::create_dir_all(&options.data)
        .with_context(|| format!("cannot create {}", options.data.display()))?;
    let crawl_started = Instant::now();
    let crawler = Crawler::open(CrawlOptions {
        data: options.data.clone(),
        seeds: vec![seed],
        scope: vec![format!("http://{site_addr}/")],
        config: config.crawler.clone(),
        max_time: None,
    })
    .with_context(|| format!("cannot open the crawl in {}", options.data.display()))?;
    let mut progress = crawler.progress();
    let reporter = tokio::spawn(async move {
        let mut last = (Instant::now(), progress.borrow().fetched);
        loop {
            tokio::time::sleep(Duration::from_secs(2)).await;
            let p = progress.borrow_and_update().clone();
            let rate = (p.fetched - last.1) as f64 / last.0.elapsed().as_secs_f64();
            last = (Instant::now(), p.fetched);
            println!(
                "  crawl: {} pages stored, {:.0} pages/s, {} queued, {} errors",
                p.pages_stored, rate, p.frontier, p.errors
            );
        }
    });
    println!("Crawling (data in {}) ...", options.data.display());
    let summary = crawler.run(stopped()).await;
    reporter.abort();
    let summary = summary?;
    let crawl_time = crawl_started.elapsed();
    println!(
        "crawl: {} pages stored ({} fetched now) in {}",
        summary.pages_stored,
        summary.fetched,
        human(crawl_time)
    );
    if summary.stop == crawler::StopReason::Shutdown {
        return Ok(());
    }

    println!("Indexing ...");
    let index_started = Instant::now();
    let data = options.data.clone();
    let built =
        tokio::task::spawn_blocking(move || indexer::build(&data, indexer::BuildMode::Incremental))
            .await??;
    println!(
        "index: {} documents ({} new or changed) in {}",
        built.total_docs,
        built.indexed,
        human(index_started.elapsed())
    );
    site_task.abort();

    let addr = search_listener.local_addr()?;
    println!();
    println!("    Search is ready at http://{addr}/   (Ctrl-C to stop)");
    println!();
    crate::serve(search_listener, options.data.clone(), config, stopped()).await?;
    Ok(())
}
