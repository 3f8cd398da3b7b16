//! The `indexer` binary: see `indexer --help`.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

/// Builds the search index from a crawl's content store.
#[derive(Parser)]
#[command(name = "indexer", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build or update DIR/index from DIR/store (incremental unless --full).
    Build {
        /// The data directory of a crawl.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Write a new index generation and switch to it atomically.
        #[arg(long)]
        full: bool,
    },
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    let Command::Build { data, full } = Cli::parse().command;
    let mode = if full { indexer::BuildMode::Full } else { indexer::BuildMode::Incremental };
    match indexer::build(&data, mode).with_context(|| format!("cannot index {}", data.display())) {
        Ok(s) => {
            println!(
                "{}: {} documents ({} indexed, {} unchanged, {} deleted; skipped {} noindex, {} duplicates, {} other) in {:.1?}",
                s.generation, s.total_docs, s.indexed, s.unchanged, s.deleted, s.skipped_noindex, s.skipped_duplicates, s.skipped_other, s.elapsed
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("indexer: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
