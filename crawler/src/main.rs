//! The `crawler` binary: see `crawler --help`.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = crawler::cli::Cli::parse();
    match crawler::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("crawler: {}", shared::one_line_error(error.as_ref()));
            std::process::ExitCode::FAILURE
        }
    }
}
