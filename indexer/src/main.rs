//! `indexer build --data DIR [--full] [--config FILE] [--redis URL]`: see `indexer --help`
//! and `indexer::cli`.

use std::process::ExitCode;

use clap::Parser;
use indexer::cli::Cli;
use indicatif::ProgressBar;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Created hidden: drawn only at a terminal, and log lines go above it.
    let bar = ProgressBar::hidden();
    shared::logging::init_above_bar(cli.log.log_format, &bar);
    let outcome = indexer::cli::run(cli, &bar).map(|summary| println!("{summary}"));
    shared::logging::exit_code("indexer", outcome, &mut std::io::stderr())
}
