//! The `searchd` binary: see `searchd --help`.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

/// Search over a crawl: HTML pages, a JSON API, cached copies; or the whole pipeline as a demo.
#[derive(Parser)]
#[command(name = "searchd", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve search over DIR/index (reloaded when the indexer writes a new one).
    Serve {
        /// The data directory of a crawl.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Address to listen on (default 127.0.0.1:8080, or the config's).
        #[arg(long, value_name = "ADDR")]
        listen: Option<SocketAddr>,
        /// A TOML config file (see data/example.toml).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Crawl the local Rust documentation (or --docs DIR), index it and serve search.
    Demo {
        /// Address to listen on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
        /// A directory of HTML to crawl instead of the Rust documentation.
        #[arg(long, value_name = "DIR")]
        docs: Option<PathBuf>,
        /// Where the crawl and index are kept; a second run reuses them.
        #[arg(long, value_name = "DIR", default_value = "sift-demo")]
        data: PathBuf,
    },
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match cli.command {
        Command::Serve {
            data,
            listen,
            config,
        } => {
            let config = shared::Config::load(config.as_deref())?;
            let listen =
                match listen {
                    Some(addr) => addr,
                    None => config.searchd.listen.parse().with_context(|| {
                        format!("bad searchd.listen {:?}", config.searchd.listen)
                    })?,
                };
            if !shared::store::store_dir(&data).is_dir()
                && indexer::current_generation(&data)?.is_none()
            {
                anyhow::bail!(
                    "{} holds no crawl: run `crawler crawl --data {}` first",
                    data.display(),
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
            searchd::serve(listener, data, config, shutdown).await?;
        }
        Command::Demo { listen, docs, data } => {
            searchd::demo::run(searchd::demo::DemoOptions { listen, docs, data }, shutdown).await?;
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("searchd: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
