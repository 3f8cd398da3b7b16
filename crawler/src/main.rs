//! The `crawler` binary: see `crawler --help`.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = crawler::cli::Cli::parse();
    // Created hidden: `crawler crawl` draws it at a terminal, and log lines go above it.
    let bar = indicatif::ProgressBar::hidden();
    shared::logging::init_above_bar(cli.log.log_format, &bar);
    let outcome = crawler::cli::run_with_bar(cli, bar).await;
    shared::logging::exit_code("crawler", outcome, &mut std::io::stderr())
}
