//! The `crawler` binary: see `crawler --help`.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = crawler::cli::Cli::parse();
    shared::logging::init(cli.log_format);
    match crawler::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("crawler: {}", shared::one_line_error(error.as_ref()));
            std::process::ExitCode::FAILURE
        }
    }
}
