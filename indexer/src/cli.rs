//! `indexer build --data DIR [--full] [--config FILE] [--redis URL]`, the program's command
//! line ([`Cli`]) and its run ([`run`]): `src/main.rs` parses and logs, the e2e tests' child
//! processes run the same.
//!
//! When stderr is a terminal a bar shows the write pass: documents done of the total, the
//! rate and the time left; log lines are written above it.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::{BuildMode, BuildProgress, BuildSummary, Exchange};

/// How often the bar is updated (and at most redrawn).
const REFRESH: Duration = Duration::from_millis(250);
/// The bar's layout: what the build does, time since the start, documents, rate, time left.
const TEMPLATE: &str =
    "{spinner} {msg} [{elapsed_precise}] {bar:30} {pos}/{len} documents, {per_sec}, ETA {eta}";

/// Builds the search index (DIR/index) from a crawl's content store (DIR/store).
#[derive(Parser)]
#[command(name = "indexer", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// How the program logs.
    #[command(flatten)]
    pub log: shared::logging::LogArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Build or update the index: incremental unless --full.
    Build {
        /// The data directory (holds store/ and index/, or partitions/p-NNN/ each with its
        /// own store/ and index shard).
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Write a new index generation and switch to it atomically.
        #[arg(long)]
        full: bool,
        /// A TOML config file (checked; the indexer has no settings of its own yet).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// The crawl's Redis, when its partitions are indexed on several machines: every
        /// machine's build sends the others its pages' links to their partitions, so each
        /// shard gets in-links and anchor texts from every partition.
        #[arg(long, value_name = "URL")]
        redis: Option<String>,
        /// How long the exchange may wait for the other machines before failing, naming the
        /// partitions missing (with --redis).
        #[arg(long, value_name = "SECONDS", default_value_t = crate::DEFAULT_DEADLINE.as_secs())]
        exchange_deadline: u64,
        /// Mebibytes of link contributions (URLs and anchor texts) the exchange holds in
        /// memory, sending and receiving each; what arrives past it is spilled to sorted runs
        /// in DIR/exchange-spill, removed when the build ends (with --redis).
        #[arg(
            long,
            value_name = "MIB",
            default_value_t = (crate::DEFAULT_BUDGET >> 20) as u64,
            value_parser = clap::value_parser!(u64).range(1..=1 << 20),
        )]
        exchange_memory: u64,
        /// Anchor texts held in memory while the build reads links, in MiB; past it they are
        /// sorted to runs in DIR/anchor-spill, where each document's kept texts wait until
        /// it is written (removed when the build ends).
        #[arg(
            long,
            value_name = "MIB",
            default_value_t = (crate::DEFAULT_ANCHOR_BUDGET >> 20) as u64,
            value_parser = clap::value_parser!(u64).range(1..=1 << 20),
        )]
        anchor_memory: u64,
        /// Mebibytes of tantivy's indexing buffers, shared by its threads; past it the
        /// documents indexed so far are written as a segment. Less memory, more segments to
        /// merge (at least 15: tantivy's floor for one thread).
        #[arg(
            long,
            value_name = "MIB",
            default_value_t = (crate::DEFAULT_WRITER_BUDGET >> 20) as u64,
            value_parser = clap::value_parser!(u64).range(15..=1 << 20),
        )]
        writer_memory: u64,
    },
}

/// Runs the command line `cli`, drawing `bar` while the build writes when stderr is a
/// terminal: what the build did.
pub fn run(cli: Cli, bar: &ProgressBar) -> anyhow::Result<BuildSummary> {
    let Command::Build {
        data,
        full,
        config,
        redis,
        exchange_deadline,
        exchange_memory,
        anchor_memory,
        writer_memory,
    } = cli.command;
    shared::Config::load(config.as_deref())?;
    let mode = if full {
        BuildMode::Full
    } else {
        BuildMode::Incremental
    };
    let progress = BuildProgress::new();
    let exchange = redis.map(|url| Exchange {
        deadline: Duration::from_secs(exchange_deadline),
        budget: mebibytes(exchange_memory),
        ..Exchange::new(&url)
    });
    let links = crate::Links {
        exchange: exchange.as_ref(),
        anchor_budget: mebibytes(anchor_memory),
    };
    let build = || crate::build_exchanging(&data, mode, &progress, links, mebibytes(writer_memory));
    let built = if bar_wanted() {
        with_bar(bar, &progress, build)
    } else {
        build()
    };
    built.with_context(|| format!("cannot index {}", data.display()))
}

/// `mib` MiB in bytes (all of memory when that overflows).
fn mebibytes(mib: u64) -> usize {
    usize::try_from(mib << 20).unwrap_or(usize::MAX)
}

/// Whether people are watching, so a bar is wanted: stderr is a terminal.
fn bar_wanted() -> bool {
    std::io::stderr().is_terminal()
}

/// Runs `build` with `bar` following `progress` on another thread, cleared at the end.
fn with_bar<T>(bar: &ProgressBar, progress: &BuildProgress, build: impl FnOnce() -> T) -> T {
    let (stop, stopped) = channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || follow(bar, progress, &stopped));
        let built = build();
        drop(stop);
        built
    })
}

/// Draws `bar` on stderr from `progress` every [`REFRESH`] until `stop` disconnects, then
/// clears it.
fn follow(bar: &ProgressBar, progress: &BuildProgress, stop: &Receiver<()>) {
    bar.set_style(
        ProgressStyle::with_template(TEMPLATE).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
    loop {
        show(bar, progress.total(), progress.done());
        if let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(REFRESH) {
            continue;
        }
        break;
    }
    bar.finish_and_clear();
}

/// Puts the write pass's documents on the bar, and what the build is doing.
fn show(bar: &ProgressBar, total: u64, done: u64) {
    bar.set_length(total);
    bar.set_position(done);
    bar.set_message(phase(total, done));
}

/// What a build is doing, from its write pass's figures.
fn phase(total: u64, done: u64) -> &'static str {
    if total == 0 {
        "reading pages and links"
    } else if done < total {
        "indexing"
    } else {
        "committing"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::ExitCode;

    /// `indexer ARGS...` to its end: the one line it prints on stderr, and its exit code.
    fn failed_run(args: &[&str]) -> (String, ExitCode) {
        let cli = Cli::try_parse_from(std::iter::once("indexer").chain(args.iter().copied()))
            .expect("the arguments parse");
        let outcome = run(cli, &ProgressBar::hidden()).map(|_| ());
        let mut stderr = Vec::new();
        let code = shared::logging::exit_code("indexer", outcome, &mut stderr);
        let line = String::from_utf8(stderr).expect("UTF-8");
        assert_eq!(line.lines().count(), 1, "{line}");
        (line, code)
    }

    #[test]
    fn a_bad_config_stops_the_build_in_one_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().to_str().expect("UTF-8 path");
        let config = dir.path().join("sift.toml");
        let config_arg = config.to_str().expect("UTF-8 path");
        std::fs::write(&config, "[ranking]\ntitle_boost = -3.0\n").expect("written");
        let (line, code) = failed_run(&["build", "--data", data, "--config", config_arg]);
        assert_eq!(code, ExitCode::FAILURE);
        assert!(
            line.starts_with(&format!(
                "indexer: config {config_arg}: ranking.title_boost: "
            )),
            "{line}"
        );
        assert!(
            !dir.path().join("index").exists(),
            "checked before anything is built"
        );
    }

    #[test]
    fn the_template_parses() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
    }

    #[test]
    fn the_phase_follows_the_write_pass() {
        assert_eq!(phase(0, 0), "reading pages and links");
        assert_eq!(phase(10, 3), "indexing");
        assert_eq!(phase(10, 10), "committing");
    }

    #[test]
    fn the_bar_shows_documents_done_of_the_total() {
        let bar = ProgressBar::hidden();
        show(&bar, 40, 25);
        assert_eq!((bar.position(), bar.length()), (25, Some(40)));
        assert_eq!(bar.message(), "indexing");
    }
}
