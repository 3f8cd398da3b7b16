//! The `crawler` binary: see `crawler --help`.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = crawler::cli::Cli::parse();
    // Created hidden: `crawler crawl` draws it at a terminal, and log lines go above it.
    let bar = indicatif::ProgressBar::hidden();
    shared::logging::init_above_bar(cli.log_format, &bar);
    match crawler::cli::run_with_bar(cli, bar).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("crawler: {}", shared::one_line_error(error.as_ref()));
            std::process::ExitCode::FAILURE
        }
    }
}
