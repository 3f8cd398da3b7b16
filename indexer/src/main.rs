//! `indexer build --data DIR [--full] [--config FILE]`: see `indexer --help`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

/// Builds the search index (DIR/index) from a crawl's content store (DIR/store).
#[derive(Parser)]
#[command(name = "indexer", version, about)]
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
    /// Build or update the index: incremental unless --full.
    Build {
        /// The data directory (holds store/ and index/).
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Write a new index generation and switch to it atomically.
        #[arg(long)]
        full: bool,
        /// A TOML config file (checked; the indexer has no settings of its own yet).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    shared::logging::init(cli.log_format);
    match run(cli) {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("indexer: {}", shared::one_line_error(error.as_ref()));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<indexer::BuildSummary> {
    let Command::Build { data, full, config } = cli.command;
    shared::Config::load(config.as_deref())?;
    let mode = if full {
        indexer::BuildMode::Full
    } else {
        indexer::BuildMode::Incremental
    };
    indexer::build(&data, mode).with_context(|| format!("cannot index {}", data.display()))
}
