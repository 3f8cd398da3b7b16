//! How the three programs write their logs (through `tracing`, on stderr) and their last
//! word when they fail.
//!
//! - [`LogFormat::Human`]: one readable line per event, coloured only on a terminal.
//! - [`LogFormat::Json`]: one JSON object per event (`timestamp`, `level`, `fields`,
//!   `target`, spans), for log shippers.
//!
//! `RUST_LOG` picks what is logged (default `info`) in both.
//!
//! [`init_above_bar`] is [`init`] for a program that may draw a progress bar on stderr: each
//! log line is written with the bar cleared, then the bar is drawn again below it.

use std::io::IsTerminal;
use std::str::FromStr;

/// The `--log-format` of every program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// Lines for people.
    #[default]
    Human,
    /// JSON objects for machines, one per line.
    Json,
}

impl FromStr for LogFormat {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.to_ascii_lowercase().as_str() {
            "human" | "text" => Ok(Self::Human),
            "json" => Ok(Self::Json),
            other => Err(format!("{other:?} is not a log format: use human or json")),
        }
    }
}

/// The `--log-format` argument of every program, flattened into its command line
/// (`#[command(flatten)]`); it may be given before or after the subcommand.
#[derive(Clone, Copy, Debug, clap::Args)]
pub struct LogArgs {
    /// Log lines for people (`human`, the default) or one JSON object per event (`json`).
    #[arg(
        long,
        global = true,
        value_name = "human|json",
        default_value = "human"
    )]
    pub log_format: LogFormat,
}

/// Sends `tracing` events to stderr in `format`, filtered by `RUST_LOG` (default `info`).
/// Does nothing when a subscriber is already set (a test, a second call).
pub fn init(format: LogFormat) {
    let ansi = std::io::stderr().is_terminal();
    let _already_set =
        tracing::subscriber::set_global_default(subscriber(format, ansi, std::io::stderr));
}

/// Like [`init`], but every log line is written with `bar` suspended, so lines and a live
/// progress bar on the same stderr do not garble each other. `bar` may be hidden now and
/// drawn later; while it is hidden (or finished) lines are written as [`init`] writes them.
pub fn init_above_bar(format: LogFormat, bar: &indicatif::ProgressBar) {
    let ansi = std::io::stderr().is_terminal();
    let bar = bar.clone();
    let writer = move || AboveBar(bar.clone());
    let _already_set = tracing::subscriber::set_global_default(subscriber(format, ansi, writer));
}

/// Writes to stderr with a progress bar suspended (one formatted event is one `write_all`).
struct AboveBar(indicatif::ProgressBar);

impl std::io::Write for AboveBar {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.suspend(|| std::io::stderr().write(bytes))
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.0.suspend(|| std::io::stderr().write_all(bytes))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// The subscriber [`init`] installs, writing to `writer`.
fn subscriber<W>(
    format: LogFormat,
    ansi: bool,
    writer: W,
) -> Box<dyn tracing::Subscriber + Send + Sync>
where
    W: for<'w> tracing_subscriber::fmt::MakeWriter<'w> + Send + Sync + 'static,
{
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    match format {
        LogFormat::Human => Box::new(builder.with_ansi(ansi).finish()),
        LogFormat::Json => Box::new(builder.json().finish()),
    }
}

/// An error and its causes on one line, leaving out causes a message already quotes and
/// the source excerpts some messages draw under a line (a TOML error's `3 | key = ...` and
/// `^^^` lines): what the binaries print on stderr before exiting non-zero.
pub fn one_line_error(error: &(dyn std::error::Error + 'static)) -> String {
    let mut line = one_line(&error.to_string());
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = one_line(&cause.to_string());
        if !line.contains(&cause_text) {
            line = format!("{line}: {cause_text}");
        }
        source = cause.source();
    }
    line
}

/// How a program's run ends: success, or its name and [`one_line_error`] written to `stderr`
/// (one line) and a failure exit code. A run whose report's reader went away
/// ([`crate::report_out::ReaderGone`]: `crawler explain URL | head`) ends quietly and
/// successfully. The `main` of each program ends here.
pub fn exit_code<E>(
    program: &str,
    outcome: Result<(), E>,
    stderr: &mut dyn std::io::Write,
) -> std::process::ExitCode
where
    E: AsRef<dyn std::error::Error + 'static>,
{
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) if crate::report_out::is_reader_gone(error.as_ref()) => {
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            // Nothing better to do when stderr itself fails: the exit code still says it.
            let _ = writeln!(stderr, "{program}: {}", one_line_error(error.as_ref()));
            std::process::ExitCode::FAILURE
        }
    }
}

/// A message's lines joined with `: `, blank lines and source excerpts (lines that start,
/// after an optional line number, with `|`) left out.
fn one_line(message: &str) -> String {
    let is_excerpt = |line: &str| {
        line.trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start()
            .starts_with('|')
    };
    message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !is_excerpt(line))
        .collect::<Vec<_>>()
        .join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_read_by_name() {
        assert_eq!("json".parse(), Ok(LogFormat::Json));
        assert_eq!("Human".parse(), Ok(LogFormat::Human));
        assert!("xml".parse::<LogFormat>().is_err());
    }

    /// A program's command line as the three programs build theirs.
    #[derive(clap::Parser)]
    struct Program {
        #[command(subcommand)]
        command: Sub,
        #[command(flatten)]
        log: LogArgs,
    }

    #[derive(clap::Subcommand)]
    enum Sub {
        Run,
    }

    #[test]
    fn log_format_is_read_before_or_after_the_subcommand() {
        use clap::Parser;
        let format = |args: &[&str]| {
            Program::try_parse_from(args.iter().copied())
                .map(|p| {
                    let Sub::Run = p.command;
                    p.log.log_format
                })
                .map_err(|e| e.kind())
        };
        assert_eq!(format(&["p", "run"]), Ok(LogFormat::Human));
        assert_eq!(
            format(&["p", "--log-format", "json", "run"]),
            Ok(LogFormat::Json)
        );
        assert_eq!(
            format(&["p", "run", "--log-format", "json"]),
            Ok(LogFormat::Json)
        );
        assert_eq!(
            format(&["p", "run", "--log-format", "xml"]),
            Err(clap::error::ErrorKind::ValueValidation)
        );
    }

    /// Collects what a subscriber writes.
    #[derive(Clone, Default)]
    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn logged(format: LogFormat) -> String {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = subscriber(format, false, move || writer.clone());
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(pages = 3, origin = "http://a.test", "crawl finished");
        });
        let bytes = captured.0.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[test]
    fn json_logs_are_one_object_per_event() {
        let text = logged(LogFormat::Json);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{text}");
        let event: serde_json::Value = serde_json::from_str(lines[0]).expect("JSON");
        assert_eq!(event["level"], "INFO");
        assert_eq!(event["fields"]["message"], "crawl finished");
        assert_eq!(event["fields"]["pages"], 3);
        assert_eq!(event["fields"]["origin"], "http://a.test");
        assert!(event["timestamp"].is_string());
    }

    #[test]
    fn human_logs_are_plain_lines() {
        let text = logged(LogFormat::Human);
        assert!(text.contains("INFO"), "{text}");
        assert!(text.contains("crawl finished pages=3"), "{text}");
        assert!(!text.contains('{') && !text.contains('\u{1b}'), "{text}");
    }

    #[test]
    fn a_toml_error_becomes_one_line_naming_the_key() {
        let error = toml::from_str::<crate::config::RawConfig>("[crawler]\nbogus_key = 1\n")
            .expect_err("unknown key");
        let line = one_line_error(&error);
        assert!(!line.contains('\n'), "{line}");
        assert!(line.contains("bogus_key"), "{line}");
        assert!(line.contains("line 2"), "{line}");
        assert!(!line.contains('^'), "{line}");
    }

    #[test]
    fn a_failed_run_is_one_line_and_a_failure_exit_code() {
        let mut stderr = Vec::new();
        let error = crate::ConfigError::Read {
            path: "/nowhere/sift.toml".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        let failed: Result<(), Box<dyn std::error::Error>> = Err(Box::new(error));
        let code = exit_code("crawler", failed, &mut stderr);
        assert_eq!(code, std::process::ExitCode::FAILURE);
        assert_eq!(
            String::from_utf8_lossy(&stderr),
            "crawler: cannot read config /nowhere/sift.toml: entity not found\n"
        );
        let mut stderr = Vec::new();
        let ok: Result<(), Box<dyn std::error::Error>> = Ok(());
        assert_eq!(
            exit_code("crawler", ok, &mut stderr),
            std::process::ExitCode::SUCCESS
        );
        assert!(stderr.is_empty());
    }

    #[test]
    fn a_run_whose_reader_went_away_ends_quietly_and_other_broken_pipes_do_not() {
        use std::io::Write;
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let mut report = crate::report_out::ReportOut::new(writer);
        let gone = writeln!(report, "a line").expect_err("the reader is gone");
        let outcome: anyhow::Result<()> =
            Err(anyhow::Error::from(gone).context("cannot write the report"));
        let mut stderr = Vec::new();
        let code = exit_code("crawler", outcome, &mut stderr);
        assert_eq!(code, std::process::ExitCode::SUCCESS);
        assert!(stderr.is_empty(), "{}", String::from_utf8_lossy(&stderr));

        let socket = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let outcome: anyhow::Result<()> = Err(anyhow::Error::from(socket).context("a fetch"));
        let code = exit_code("crawler", outcome, &mut stderr);
        assert_eq!(code, std::process::ExitCode::FAILURE);
        assert!(
            String::from_utf8_lossy(&stderr).starts_with("crawler: a fetch: "),
            "{}",
            String::from_utf8_lossy(&stderr)
        );
    }

    #[test]
    fn causes_are_appended_once() {
        let inner = std::io::Error::other("disk on fire");
        let outer = crate::ConfigError::Read {
            path: "a.toml".into(),
            source: inner,
        };
        let line = one_line_error(&outer);
        assert_eq!(line.matches("disk on fire").count(), 1, "{line}");
    }
}
