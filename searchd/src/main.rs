//! The `searchd` binary: see `searchd --help`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

/// Search over a crawl: HTML pages, a JSON API, cached copies; or the whole pipeline as a demo.
#[derive(Parser)]
#[command(name = "searchd", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Log lines for people (`human`, the default) or one JSON object per event (`json`).
    #[arg(
        long,
        global = true,
        value_name = "human|json",
        default_value = "human"
    )]
    log_format: shared::LogFormat,
}

#[derive(Subcommand)]
enum Command {
    /// Serve search over DIR/index; a new index generation is picked up without a restart.
    Serve {
        /// The data directory of a crawl (DIR/store, DIR/index).
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Address to listen on [default: the config's searchd.listen, 127.0.0.1:8080].
        #[arg(long, value_name = "ADDR")]
        listen: Option<SocketAddr>,
        /// A TOML config file (see data/example.toml).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Crawl the local Rust documentation (or --docs DIR), index it and serve search.
    Demo {
        /// Address to serve search on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// A directory of HTML to crawl instead of the Rust documentation.
        #[arg(long, value_name = "DIR")]
        docs: Option<PathBuf>,
        /// Where the crawl and index are kept; a second run reuses them.
        #[arg(long, value_name = "DIR", default_value = "sift-demo")]
        data: PathBuf,
    },
    /// Measure relevance: run a judged query set (TOML) through a running server's
    /// /api/search, with our ranking and a plain BM25 baseline, and print MRR@10, nDCG@10
    /// and recall@10.
    Eval {
        /// The server, e.g. http://127.0.0.1:8080.
        #[arg(long, value_name = "URL")]
        url: String,
        /// The judged queries (see bench/relevance/judgments.toml).
        #[arg(long, value_name = "FILE")]
        judgments: PathBuf,
    },
}

async fn serve(
    data: PathBuf,
    listen: Option<SocketAddr>,
    config: Option<PathBuf>,
) -> anyhow::Result<()> {
    let config = shared::Config::load(config.as_deref())?;
    let listen = match listen {
        Some(addr) => addr,
        None => config.searchd.listen.parse().with_context(|| {
            format!(
                "bad searchd.listen {:?} in the config",
                config.searchd.listen
            )
        })?,
    };
    if !shared::store::store_dir(&data).is_dir() && indexer::current_generation(&data)?.is_none() {
        bail!(
            "{} holds no crawl and no index: run `crawler crawl --data {0}` and `indexer build --data {0}` first",
            data.display()
        );
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    println!(
        "searchd: serving {} at http://{}/",
        data.display(),
        listener.local_addr()?
    );
    searchd::serve(listener, data, config, ctrl_c()).await?;
    Ok(())
}

async fn ctrl_c() {
    let _ = tokio::signal::ctrl_c().await;
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    shared::logging::init(cli.log_format);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("searchd: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Serve {
                data,
                listen,
                config,
            } => serve(data, listen, config).await,
            Command::Demo { listen, docs, data } => {
                let options = searchd::demo::DemoOptions { listen, docs, data };
                searchd::demo::run(options, ctrl_c()).await
            }
            Command::Eval { url, judgments } => {
                let judgments = searchd::eval::load(&judgments)?;
                searchd::eval::run(&url, &judgments).await.map(|_| ())
            }
        }
    });
    // An index build interrupted by Ctrl-C runs on a blocking thread: do not wait for it
    // (the build lock and the generation switch make stopping it safe).
    runtime.shutdown_timeout(Duration::from_secs(1));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("searchd: {}", shared::one_line_error(error.as_ref()));
            ExitCode::FAILURE
        }
    }
}
