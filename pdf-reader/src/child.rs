//! The parent side: [`PdfReader`] hands one PDF to a child process and maps how it ended to a
//! [`PdfOutcome`]. The parent holds the PDF's bytes and at most
//! [`PdfLimits::max_answer_bytes`] of answer per child; everything the parser allocates is the
//! child's, under its own limits.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::Semaphore;

use super::limits::PdfLimits;
use super::outcome::PdfOutcome;
use super::wire::{ChildReport, LIMITS_ENV, limits_to_env, read_frame};

/// The most bytes of a child's stderr kept for a crash's reason.
const MAX_STDERR_BYTES: usize = 4 << 10;

/// `SIGKILL` and `SIGXCPU`: the kernel's answers to a child past its CPU time.
const SIGKILL: i32 = 9;
const SIGXCPU: i32 = 24;

/// The program a [`PdfReader`] runs as its child, and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildCommand {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Environment variables set for it, beside the limits.
    pub env: Vec<(OsString, OsString)>,
}

impl ChildCommand {
    /// This process's own binary with `pdf-text`: the `crawler` or `searchd` binary re-entered
    /// as its hidden subcommand.
    pub fn current_exe() -> std::io::Result<Self> {
        Ok(Self {
            program: std::env::current_exe()?,
            args: vec!["pdf-text".into()],
            env: Vec::new(),
        })
    }
}

/// Reads PDFs in child processes, at most `slots` at once (clones share the slots).
#[derive(Debug, Clone)]
pub struct PdfReader {
    command: ChildCommand,
    limits: PdfLimits,
    slots: Arc<Semaphore>,
}

impl PdfReader {
    /// A reader running `command` under `limits`, as many children at once as there are
    /// cores.
    pub fn new(command: ChildCommand, limits: PdfLimits) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Self::with_slots(command, limits, cores)
    }

    /// A reader running at most `slots` children at once (at least one).
    pub fn with_slots(command: ChildCommand, limits: PdfLimits, slots: usize) -> Self {
        Self {
            command,
            limits,
            slots: Arc::new(Semaphore::new(slots.max(1))),
        }
    }

    /// The limits it reads under.
    pub fn limits(&self) -> &PdfLimits {
        &self.limits
    }

    /// Reads one PDF: waits for a free slot, runs a child on `bytes`, and tells what became of
    /// them. Never panics and never fails: a child that misbehaves is an outcome.
    pub async fn read(&self, bytes: Vec<u8>) -> PdfOutcome {
        if bytes.len() > self.limits.max_input_bytes {
            return PdfOutcome::TooLarge {
                bytes: bytes.len(),
                limit: self.limits.max_input_bytes,
            };
        }
        let Ok(_slot) = self.slots.acquire().await else {
            return PdfOutcome::ChildFailed("the reader is closed".into());
        };
        let mut child = match self.spawn() {
            Ok(child) => child,
            Err(error) => {
                return PdfOutcome::ChildFailed(format!(
                    "cannot start {}: {error}",
                    self.command.program.display()
                ));
            }
        };
        let talk = talk(&mut child, bytes, self.limits.max_answer_bytes());
        let Ok(ended) = tokio::time::timeout(self.limits.wall, talk).await else {
            let _ = child.kill().await;
            return PdfOutcome::ParseTimeout;
        };
        match ended {
            Ok(Ended::Exited {
                status,
                stdout,
                stderr,
            }) => self.outcome(status, &stdout, &stderr),
            Ok(Ended::Flooded) => PdfOutcome::ParseCrash(format!(
                "it wrote more than {} bytes of answer",
                self.limits.max_answer_bytes()
            )),
            Err(error) => {
                let _ = child.kill().await;
                PdfOutcome::ChildFailed(error)
            }
        }
    }

    /// The child, its three pipes open, killed if it is dropped.
    fn spawn(&self) -> std::io::Result<Child> {
        Command::new(&self.command.program)
            .args(&self.command.args)
            .envs(self.command.env.iter().map(|(k, v)| (k, v)))
            .env(LIMITS_ENV, limits_to_env(&self.limits.for_child()))
            // Fewer malloc arenas: less address space reserved under the child's RLIMIT_AS.
            .env("MALLOC_ARENA_MAX", "2")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
    }

    /// The outcome of a child that ended: its answer if it gave one, else how it died, with
    /// the first line it wrote on stderr (`memory allocation of N bytes failed`, `thread
    /// 'main' has overflowed its stack`).
    fn outcome(&self, status: ExitStatus, stdout: &[u8], stderr: &[u8]) -> PdfOutcome {
        if let Ok(report) = read_frame(stdout) {
            return self.answer(report);
        }
        let said = String::from_utf8_lossy(stderr);
        let said = said.lines().find(|line| !line.trim().is_empty());
        let said = said
            .map(|line| format!(": {}", line.trim()))
            .unwrap_or_default();
        match status.signal() {
            Some(SIGXCPU | SIGKILL) => PdfOutcome::ParseTimeout,
            Some(signal) => PdfOutcome::ParseCrash(format!("killed by signal {signal}{said}")),
            None => PdfOutcome::ParseCrash(format!("{status} without an answer{said}")),
        }
    }

    /// The child's answer, its text held to the cap again (the child is ours, its parser
    /// is not).
    fn answer(&self, report: ChildReport) -> PdfOutcome {
        match report {
            ChildReport::Read(mut document) => {
                if document.text.len() > self.limits.max_text_bytes {
                    let mut end = self.limits.max_text_bytes;
                    while !document.text.is_char_boundary(end) {
                        end -= 1;
                    }
                    document.text.truncate(end);
                    document.cut = true;
                }
                PdfOutcome::Read(document)
            }
            ChildReport::Encrypted => PdfOutcome::Encrypted,
            ChildReport::NotPdf => PdfOutcome::NotPdf,
            ChildReport::Malformed(reason) => PdfOutcome::Malformed(reason),
            ChildReport::TooLarge { bytes } => PdfOutcome::TooLarge {
                bytes,
                limit: self.limits.max_input_bytes,
            },
            ChildReport::Crashed(reason) => PdfOutcome::ParseCrash(reason),
            ChildReport::Failed(reason) => PdfOutcome::ChildFailed(reason),
        }
    }
}

/// How a child's conversation ended.
#[derive(Debug)]
enum Ended {
    /// It exited or was killed by a signal, with its stdout and the start of its stderr.
    Exited {
        status: ExitStatus,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    /// It wrote more than its answer may hold, and was killed for it.
    Flooded,
}

/// Writes `bytes` to the child's stdin (a task of its own, which ends when the child stops
/// reading) while reading its stdout (up to `max_answer`: a child that writes more is killed)
/// and its stderr (the first [`MAX_STDERR_BYTES`], the rest drained), then waits for it. How
/// it ended, or why its pipes failed.
async fn talk(child: &mut Child, bytes: Vec<u8>, max_answer: usize) -> Result<Ended, String> {
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the child's pipes are missing".into());
    };
    let stderr = tokio::spawn(read_bounded(stderr, MAX_STDERR_BYTES, PastCap::Drain));
    tokio::spawn(async move {
        // A child that stops reading (it died, or refused the input) is answered for by how
        // it ends, not by this error.
        let _ = stdin.write_all(&bytes).await;
    });
    let (stdout, flooded) = read_bounded(stdout, max_answer, PastCap::Stop)
        .await
        .map_err(|error| format!("cannot read its answer: {error}"))?;
    if flooded {
        let _ = child.kill().await;
        return Ok(Ended::Flooded);
    }
    let status = child.wait().await.map_err(|error| error.to_string())?;
    let stderr = match stderr.await {
        Ok(Ok((stderr, _))) => stderr,
        _ => Vec::new(),
    };
    Ok(Ended::Exited {
        status,
        stdout,
        stderr,
    })
}

/// What reading a pipe does past its cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PastCap {
    /// Stop reading (the answer: a child past it is killed).
    Stop,
    /// Read on and drop the rest (stderr: the child must never block on it).
    Drain,
}

/// Up to `cap` bytes of `pipe`, and whether there were more.
async fn read_bounded(
    mut pipe: impl AsyncRead + Unpin,
    cap: usize,
    past_cap: PastCap,
) -> std::io::Result<(Vec<u8>, bool)> {
    let mut kept = Vec::new();
    let mut more = false;
    let mut chunk = vec![0; 64 << 10];
    loop {
        let read = pipe.read(&mut chunk).await?;
        let Some(new) = chunk.get(..read).filter(|new| !new.is_empty()) else {
            return Ok((kept, more));
        };
        let room = cap.saturating_sub(kept.len());
        kept.extend_from_slice(new.get(..room.min(new.len())).unwrap_or_default());
        if new.len() > room {
            more = true;
            if past_cap == PastCap::Stop {
                return Ok((kept, more));
            }
        }
    }
}
