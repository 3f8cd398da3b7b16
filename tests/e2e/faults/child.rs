//! `crawler` and `indexer` command lines in a child process: this test binary re-entered
//! through [`child_program`], with failpoints set from its environment. A failpoint can so
//! make a real process fail or die without touching the tests that run beside it (the `fail`
//! crate's configuration is global to a process).
//!
//! Failpoint actions are the `fail` crate's (`return`, `3*off->return`, ...), plus `abort`:
//! the process dies at the failpoint (`SIGABRT`, no unwinding, no destructors: a crash).

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;

const PROGRAM: &str = "E2E_FAULT_PROGRAM";
const ARGS: &str = "E2E_FAULT_ARGS";
const FAILPOINTS: &str = "E2E_FAULT_FAILPOINTS";

/// The longest a child may run.
const CHILD_TIMEOUT: Duration = Duration::from_secs(60);

/// Not a test of its own: when the parent sets `E2E_FAULT_PROGRAM`, this runs that program's
/// command line in this (child) process, ends as the program's `main` ends (one line on
/// stderr and exit code 1 on failure) and never returns.
#[test]
fn child_program() {
    let Ok(program) = std::env::var(PROGRAM) else {
        return;
    };
    let args: Vec<String> =
        serde_json::from_str(&std::env::var(ARGS).expect("arguments")).expect("a JSON list");
    if let Ok(points) = std::env::var(FAILPOINTS) {
        set_failpoints(&points);
    }
    shared::logging::init(shared::LogFormat::Human);
    let outcome = match program.as_str() {
        "crawler" => run_crawler(&args),
        "indexer" => run_indexer(&args),
        other => panic!("no program {other}"),
    };
    let code = shared::logging::exit_code(&program, outcome, &mut std::io::stderr());
    std::process::exit(if code == std::process::ExitCode::SUCCESS {
        0
    } else {
        1
    });
}

/// `NAME=ACTIONS;NAME=ACTIONS`: `abort` in ACTIONS is a panic that aborts the process.
fn set_failpoints(spec: &str) {
    for point in spec.split(';').filter(|p| !p.is_empty()) {
        let (name, actions) = point.split_once('=').expect("NAME=ACTIONS");
        if actions.contains("abort") {
            std::panic::set_hook(Box::new(|_| std::process::abort()));
        }
        fail::cfg(name, &actions.replace("abort", "panic")).expect("failpoint actions parse");
    }
}

/// The `crawler` command line, as its `main` runs it.
fn run_crawler(args: &[String]) -> anyhow::Result<()> {
    let cli = crawler::cli::Cli::try_parse_from(
        std::iter::once("crawler".to_string()).chain(args.to_vec()),
    )?;
    tokio::runtime::Runtime::new()?.block_on(crawler::cli::run(cli))
}

/// The `indexer` command line, as its `main` runs it (no bar: stderr is not a terminal).
fn run_indexer(args: &[String]) -> anyhow::Result<()> {
    let cli = indexer::cli::Cli::try_parse_from(
        std::iter::once("indexer".to_string()).chain(args.to_vec()),
    )?;
    let summary = indexer::cli::run(cli, &indicatif::ProgressBar::hidden())?;
    println!("{summary}");
    Ok(())
}

/// How a child ended.
#[derive(Debug)]
pub struct Ended {
    /// Its exit status.
    pub status: ExitStatus,
    /// What it wrote on stderr.
    pub stderr: String,
}

impl Ended {
    /// It exited 0.
    pub fn succeeded(&self) -> bool {
        self.status.success()
    }

    /// It died of a signal (the `abort` of a failpoint) rather than exiting.
    pub fn crashed(&self) -> bool {
        self.status.code().is_none()
    }

    /// It exited 1 with one line on stderr, `PROGRAM: ...`, and no panic; returns the line.
    pub fn failed_in_one_line(&self, program: &str) -> String {
        assert_eq!(self.status.code(), Some(1), "{self:?}");
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line on stderr: {}", self.stderr);
        assert!(
            lines[0].starts_with(&format!("{program}: ")),
            "{}",
            lines[0]
        );
        lines[0].to_string()
    }
}

/// Runs `program args` in a child with `failpoints` (`NAME=ACTIONS;...`, empty for none),
/// waiting for it off the async threads so the test web keeps answering it.
pub async fn run(program: &str, args: &[String], failpoints: &str) -> Ended {
    let mut child = spawn(program, args, failpoints, Stdio::piped());
    let started = Instant::now();
    loop {
        if child.try_wait().expect("child status").is_some() {
            break;
        }
        if started.elapsed() > CHILD_TIMEOUT {
            let _ = child.kill();
            panic!("{program} {args:?} ran over {CHILD_TIMEOUT:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let output = child.wait_with_output().expect("child output");
    Ended {
        status: output.status,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Starts `program args` in a child with `failpoints`, its stderr going to `stderr` (its
/// logs at `error` level, or as `E2E_CHILD_LOG` says when a test is debugged); the caller
/// waits for it, or kills it.
pub fn spawn(program: &str, args: &[String], failpoints: &str, stderr: Stdio) -> Child {
    let log = std::env::var("E2E_CHILD_LOG").unwrap_or_else(|_| "error".into());
    spawn_logging(program, args, failpoints, stderr, &log)
}

/// [`spawn`], logging at `log` (a `RUST_LOG` value).
pub fn spawn_logging(
    program: &str,
    args: &[String],
    failpoints: &str,
    stderr: Stdio,
    log: &str,
) -> Child {
    let mut command = Command::new(std::env::current_exe().expect("test binary path"));
    command
        .args([
            "--exact",
            "faults::child::child_program",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PROGRAM, program)
        .env(ARGS, serde_json::to_string(args).expect("json"))
        .env(FAILPOINTS, failpoints)
        .env("RUST_LOG", log)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    command.spawn().expect("the child starts")
}

/// `crawl --data DATA --config CONFIG --seed SEED...`.
pub fn crawl_args(data: &Path, config: &Path, seeds: &[String]) -> Vec<String> {
    let mut args = vec![
        "crawl".to_string(),
        "--data".into(),
        path_arg(data),
        "--config".into(),
        path_arg(config),
    ];
    for seed in seeds {
        args.extend(["--seed".to_string(), seed.clone()]);
    }
    args
}

/// `build --data DATA --full`.
pub fn build_args(data: &Path) -> Vec<String> {
    vec![
        "build".into(),
        "--data".into(),
        path_arg(data),
        "--full".into(),
    ]
}

/// A path as a command-line argument.
pub fn path_arg(path: &Path) -> String {
    path.to_str().expect("a UTF-8 path").to_string()
}
