//! The `crawler` command line: flags (clap) turned into validated options, and the
//! subcommands that read the store.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use indicatif::ProgressBar;
use shared::CanonicalUrl;
use shared::config::{BadValue, ConfigError, RawConfig};

use crate::crawl::{CrawlOptions, Crawler};
use crate::inspect::CrawlStores;
use crate::metrics::CrawlMetrics;
use service::health::Readiness;

/// A polite web crawler: robots.txt first, per-host delays, and a RocksDB content store
/// that survives `kill -9`.
#[derive(Debug, Parser)]
#[command(name = "crawler", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// `--log-format`.
    #[command(flatten)]
    pub log: shared::logging::LogArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Crawl from seeds (or continue the crawl stored in --data).
    Crawl(CrawlArgs),
    /// One worker of a crawl spread over several processes or machines, coordinated through
    /// Redis: the first worker with seeds creates the crawl, the others join it.
    Worker(WorkerArgs),
    /// Print the crawl's figures: pages stored, frontier, hosts, errors.
    #[command(group = clap::ArgGroup::new("source").required(true).args(["data", "redis"]))]
    Status {
        /// The data directory.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// A distributed crawl's Redis: every worker, partition, lease and stream.
        #[arg(long, value_name = "URL")]
        redis: Option<String>,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Lift the halt that a host's circuit breaker set (50 failures in a row), so the next
    /// crawl asks it again.
    Resume {
        /// The data directory.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Origins to resume, as `crawler status` names them (`https://example.org`).
        #[arg(required = true, value_name = "ORIGIN")]
        origins: Vec<String>,
    },
    /// List every stored URL that will not be indexed, with its reason.
    Report {
        /// The data directory.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// One JSON object per line instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Tell what the crawl did with one URL, and why.
    Explain {
        /// The data directory.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// The URL.
        url: String,
    },
    /// Write every stored answer to a WARC 1.1 file (gzip per record).
    ///
    /// A warcinfo record, then a request record (the GET the crawler sent: method, path,
    /// Host, User-Agent, Accept, From) and a response record per stored answer, linked by
    /// WARC-Concurrent-To, with WARC-Date (the fetch time), SHA-1 block and payload digests
    /// and record ids that repeat from one export to the next. The store keeps HTML bodies
    /// decoded to UTF-8, not as they came: the response headers are made true for the bytes
    /// written (Content-Encoding and Transfer-Encoding dropped, Content-Length the body's,
    /// charset=utf-8 in Content-Type). Redirects, errors and other media types are written
    /// with their headers and an empty body; fetches that got no answer are left out. The
    /// store is read, not locked: a crawl may be running.
    Export {
        /// The data directory.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// The WARC file to write (replaced when whole).
        #[arg(long, value_name = "FILE")]
        warc: PathBuf,
        /// A TOML config file: the crawl's agent and From for the rebuilt requests.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Load WARC files (plain or gzipped, from any tool) into the store, as a crawl would
    /// have stored their answers.
    ///
    /// Each response record holding an HTTP answer becomes a page: chunked and compressed
    /// bodies undone, the charset decoded, the URL canonicalized (strip_params too), links,
    /// content hash and copies as a crawl finds them; the URL is marked fetched, so a later
    /// crawl of DIR does not fetch it again until its revisit. Links are not queued (a later
    /// crawl seeds what it wants); a later record for a URL replaces an earlier one. Other
    /// records are skipped and counted. A damaged record (a bad Content-Length, a truncated
    /// gzip member, a record over max_body_bytes plus headers) is reported on stderr with its
    /// offset and skipped, and the rest of the file is imported. A file that is not a WARC
    /// fails the command before anything is imported. Takes the store's writer lock.
    Import {
        /// The data directory.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// WARC files, read in order (repeatable; several may follow one --warc).
        #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
        warc: Vec<PathBuf>,
        /// A TOML config file: max_body_bytes, agent, strip_params, the revisit schedule.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// robots.txt tools for site owners.
    Robots {
        /// What to do.
        #[command(subcommand)]
        command: RobotsCommand,
    },
    /// Read one PDF on stdin and write its text and metadata as one answer frame on stdout,
    /// under the limits in `SIFT_PDF_CHILD_LIMITS`: the child process the crawler runs itself
    /// as for each PDF (see `crawler::pdf`). Not for people.
    #[command(hide = true)]
    PdfText,
}

/// `crawler robots ...`.
#[derive(Debug, Subcommand)]
pub enum RobotsCommand {
    /// Print `allowed` or `disallowed` per URL, exactly as the crawler decides.
    Check {
        /// The robots.txt product token to check for.
        #[arg(long, value_name = "TOKEN")]
        agent: String,
        /// The robots.txt file.
        #[arg(long, value_name = "FILE")]
        robots: PathBuf,
        /// URLs to check (absolute URLs, or paths such as `/private/x`).
        #[arg(required = true, value_name = "URL")]
        urls: Vec<String>,
    },
}

/// `crawler worker` flags: the crawl's, and Redis.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The crawl's Redis: `redis://HOST:PORT[/DB]` or `unix:///PATH/redis.sock`.
    #[arg(long, value_name = "URL")]
    pub redis: String,
    /// Partitions of the crawl, when this worker creates it (default 64; fixed for the
    /// crawl's life).
    #[arg(long, value_name = "P")]
    pub partitions: Option<u32>,
    /// How long a partition's lease lasts unrenewed, in ms (renewed every third of it).
    #[arg(long, value_name = "MS", default_value_t = 30_000, hide = true)]
    pub lease_ms: u64,
    /// Back up every partition this worker holds into BACKUP/p-NNN (a second disk, an NFS
    /// mount), incrementally; a partition whose store is nowhere here, or older than its
    /// newest backup, is restored from it. Parcels of links stay with their senders until a
    /// backup holds them.
    #[arg(long, value_name = "BACKUP")]
    pub backup: Option<PathBuf>,
    /// How often each partition is backed up, in ms.
    #[arg(long, value_name = "MS", default_value_t = 60_000, requires = "backup")]
    pub backup_interval_ms: u64,
    /// The crawl's flags; DIR holds this machine's partitions, DIR/partitions/p-NNN.
    #[command(flatten)]
    pub crawl: CrawlArgs,
}

/// `crawler crawl` flags.
#[derive(Debug, Args)]
pub struct CrawlArgs {
    /// The data directory: the store is DIR/store.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// A seed URL (repeatable).
    #[arg(long, value_name = "URL")]
    pub seed: Vec<String>,
    /// A file of seed URLs, one per line (# comments).
    #[arg(long, value_name = "FILE")]
    pub seeds: Option<PathBuf>,
    /// A TOML config file (see data/example.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Only queue URLs under this prefix (repeatable; default: the seeds' hosts).
    #[arg(long, value_name = "URL_PREFIX")]
    pub scope: Vec<String>,
    /// Stop when the store holds this many pages.
    #[arg(long, value_name = "N")]
    pub max_pages: Option<u64>,
    /// Do not follow links deeper than this from a seed.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Stop after this long (e.g. 90s, 10m, 2h).
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub max_time: Option<Duration>,
    /// robots.txt product token and product name in User-Agent.
    #[arg(long, value_name = "TOKEN")]
    pub agent: Option<String>,
    /// Contact address sent in the From header.
    #[arg(long, value_name = "EMAIL")]
    pub from: Option<String>,
    /// Least gap between two requests to one host, in ms (default 1000).
    #[arg(long, value_name = "MS")]
    pub delay_ms: Option<u64>,
    /// Most requests in flight to one host (default 1).
    #[arg(long, value_name = "N")]
    pub host_concurrency: Option<usize>,
    /// Allow loopback addresses (sites on this machine).
    #[arg(long)]
    pub allow_loopback: bool,
    /// Serve Prometheus metrics, /healthz and /readyz at ADDR: a port alone (9184) is
    /// loopback's; give an address (0.0.0.0:9184) to be scraped from other machines.
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<String>,
}

impl CrawlArgs {
    /// Turns flags and config file into crawl options: the flags change the file's raw
    /// values, then all are checked together; a bad value names the flag that gave it, else
    /// the file.
    pub fn into_options(self) -> Result<CrawlOptions> {
        let file = self.config.as_deref();
        let mut raw = RawConfig::load(file)?;
        let c = &mut raw.crawler;
        // The keys a flag set, so that a bad value is blamed on the flag.
        let mut flags: Vec<(&str, &'static str)> = Vec::new();
        if let Some(agent) = self.agent {
            c.agent = agent;
            flags.push(("crawler.agent", "--agent"));
        }
        if self.from.is_some() {
            c.from = self.from;
            flags.push(("crawler.from", "--from"));
        }
        if let Some(ms) = self.delay_ms {
            c.delay_ms = ms;
            flags.push(("crawler.delay_ms", "--delay-ms"));
        }
        if let Some(n) = self.host_concurrency {
            c.host_concurrency = n;
            flags.push(("crawler.host_concurrency", "--host-concurrency"));
        }
        if let Some(n) = self.max_pages {
            c.max_pages = n;
        }
        if let Some(n) = self.max_depth {
            c.max_depth = n;
        }
        c.allow_loopback |= self.allow_loopback;
        // The whole file is checked (one file serves the three programs), the crawler's
        // section kept.
        let config = raw
            .validate()
            .map_err(|bad| blame(bad, file, &flags))?
            .crawler;
        let mut seeds = self.seed;
        if let Some(file) = &self.seeds {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read seeds file {}", file.display()))?;
            seeds.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(String::from),
            );
        }
        Ok(CrawlOptions {
            data: self.data,
            seeds,
            scope: self.scope,
            config,
            max_time: self.max_time,
            pdf_child: None,
        })
    }
}

/// The error of a bad value: given by a flag in `flags` (key, flag), else by the config
/// `file`, else a default.
fn blame(bad: BadValue, file: Option<&Path>, flags: &[(&str, &'static str)]) -> ConfigError {
    if let Some(&(_, flag)) = flags.iter().find(|(key, _)| *key == bad.key) {
        return ConfigError::Flag { flag, source: bad };
    }
    match file {
        Some(path) => ConfigError::Invalid {
            path: path.to_path_buf(),
            source: bad,
        },
        None => ConfigError::Value(bad),
    }
}

/// Runs a parsed command line with a bar of its own, which logging does not know of (the
/// binary uses [`run_with_bar`], so that log lines go above the bar).
pub async fn run(cli: Cli) -> Result<()> {
    run_with_bar(cli, ProgressBar::hidden()).await
}

/// Runs a parsed command line. When stderr is a terminal, `crawler crawl` draws its live
/// status on `bar`, hidden until then: the binary sets up logging to write above it
/// ([`shared::logging::init_above_bar`]).
pub async fn run_with_bar(cli: Cli, bar: ProgressBar) -> Result<()> {
    match cli.command {
        Command::Crawl(args) => crawl(args, bar).await,
        Command::Worker(args) => worker(args).await,
        Command::Status {
            redis: Some(url),
            json,
            ..
        } => crate::cluster::status::status(&url, json, &mut shared::report_out::stdout()).await,
        Command::Status { data, json, .. } => {
            let data = data.context("give --data DIR or --redis URL")?;
            let crawl = CrawlStores::open(&data)?;
            crate::inspect::status(&crawl, json, &mut shared::report_out::stdout())
        }
        Command::Report { data, json } => {
            let crawl = CrawlStores::open(&data)?;
            crate::inspect::report(&crawl, json, &mut shared::report_out::stdout())
        }
        Command::Resume { data, origins } => resume(&data, &origins),
        Command::Explain { data, url } => {
            let crawl = CrawlStores::open(&data)?;
            crate::inspect::explain(&crawl, &url, &mut shared::report_out::stdout())
        }
        Command::Export { data, warc, config } => export(&data, &warc, config.as_deref()),
        Command::Import { data, warc, config } => {
            // Off the async threads: the import reads files and waits for the kinds'
            // readers (see `crate::archive::import`).
            tokio::task::spawn_blocking(move || import(&data, &warc, config.as_deref()))
                .await
                .context("the import stopped")?
        }
        Command::Robots {
            command:
                RobotsCommand::Check {
                    agent,
                    robots,
                    urls,
                },
        } => robots_check(&agent, &robots, &urls),
        Command::PdfText => Ok(pdf_reader::run_child()?),
    }
}

/// `crawler crawl`: the crawl, with a live status on `bar` for people at a terminal (logs
/// and scripts get the monitoring JSON line alone), then its summary on stdout.
async fn crawl(args: CrawlArgs, bar: ProgressBar) -> Result<()> {
    let metrics = match args.metrics_listen.as_deref() {
        Some(listen) => Some(serve_metrics(listen).await?),
        None => None,
    };
    let options = args.into_options()?;
    let data = options.data.clone();
    let mut crawler = Crawler::open(options)
        .with_context(|| format!("cannot open crawl in {}", data.display()))?;
    if let Some(metrics) = metrics {
        metrics.set_readiness(Readiness::Ready(format!("crawling {}", data.display())));
        crawler = crawler.with_metrics(metrics);
    }
    let shutdown = service::shutdown::requested();
    let status = crate::progress::bar::wanted().then(|| {
        tokio::spawn(crate::progress::bar::follow(
            bar.clone(),
            crawler.progress(),
        ))
    });
    let summary = crawler.run(shutdown).await;
    if let Some(status) = status {
        status.abort();
        let _ = status.await; // no update after the clear
        bar.finish_and_clear();
    }
    let summary = summary?;
    println!(
        "{} pages stored ({} fetched in this run, {} errors), {} URLs left in the frontier; stopped: {:?} after {:.1?}",
        summary.pages_stored,
        summary.fetched,
        summary.errors,
        summary.frontier_left,
        summary.stop,
        summary.elapsed
    );
    if !summary.halted_hosts.is_empty() {
        println!(
            "halted by their circuit breaker (50 failures in a row): {}",
            summary.halted_hosts.join(", ")
        );
    }
    Ok(())
}

/// `--metrics-listen ADDR`: the process's metrics served there for the rest of its life.
async fn serve_metrics(listen: &str) -> Result<CrawlMetrics> {
    let addr = service::listen::parse_listen(listen)
        .map_err(|e| anyhow::anyhow!("--metrics-listen: {e}"))?;
    let (metrics, addr) = crate::metrics::serve(addr)
        .await
        .map_err(anyhow::Error::msg)?;
    tracing::info!(%addr, "metrics at /metrics, health at /healthz and /readyz");
    Ok(metrics)
}

/// `crawler worker`: the worker until the crawl is done (or Ctrl-C), then its summary.
async fn worker(args: WorkerArgs) -> Result<()> {
    if args.lease_ms < 300 {
        bail!(
            "--lease-ms {}: a lease needs at least 300 ms",
            args.lease_ms
        );
    }
    let metrics = match args.crawl.metrics_listen.as_deref() {
        Some(listen) => Some(serve_metrics(listen).await?),
        None => None,
    };
    let options = crate::cluster::WorkerOptions {
        redis: args.redis,
        crawl: args.crawl.into_options()?,
        partitions: args.partitions,
        lease: Duration::from_millis(args.lease_ms),
        metrics,
        backups: args.backup.map(|dir| crate::cluster::Backups {
            dir,
            every: Duration::from_millis(args.backup_interval_ms.max(100)),
        }),
    };
    let shutdown = service::shutdown::requested();
    let summary = crate::cluster::run_worker(options, shutdown).await?;
    println!(
        "worker {}: {} fetched ({} errors), {} pages stored in the partitions it held last, {} Redis commands; stopped: {:?} after {:.1?}",
        summary.worker,
        summary.fetched,
        summary.errors,
        summary.pages_stored,
        summary.redis_commands,
        summary.stop,
        summary.elapsed
    );
    Ok(())
}

/// `crawler robots check`: the body read as a fetched robots.txt is, each URL canonicalized
/// as a queued one is, and the same `RobotsPolicy::allows`. A URL that does not parse is
/// reported on stderr and the others are still checked.
fn robots_check(agent: &str, robots: &Path, urls: &[String]) -> Result<()> {
    if !shared::config::is_product_token(agent) {
        // Answered anyway, as Google's library answers it: no group can name such a token,
        // so only the `*` group applies.
        eprintln!(
            "warning: --agent {agent:?} is not a robots.txt product token (letters, '-' and '_' \
             only): no group can name it, so only the `*` group applies; the crawler itself \
             refuses such an agent"
        );
    }
    let body =
        std::fs::read(robots).with_context(|| format!("cannot read {}", robots.display()))?;
    let policy = crate::robots_fetch::policy_of_body(&body, agent);
    let mut out = shared::report_out::stdout();
    let mut unchecked = 0;
    for url in urls {
        match checked_path(url) {
            Ok(path) => {
                let verdict = if policy.allows(&path) {
                    "allowed"
                } else {
                    "disallowed"
                };
                writeln!(out, "{verdict} {url}")?;
            }
            Err(e) => {
                out.flush()?;
                eprintln!("cannot check {url:?}: {e}");
                unchecked += 1;
            }
        }
    }
    if unchecked > 0 {
        bail!(
            "{unchecked} of {} URLs could not be checked (the crawler would not fetch them)",
            urls.len()
        );
    }
    Ok(())
}

/// The path robots.txt rules are matched against for a `robots check` argument: an absolute
/// URL canonicalized as the crawler does it (longer than the crawler's URL limit too: the
/// verdict is robots.txt's, the crawler itself skips such URLs), an absolute path (`/x?y`),
/// or nothing at all, which means `/` (as in Google's library).
fn checked_path(arg: &str) -> Result<String, shared::url::UrlError> {
    let arg = arg.trim();
    if arg.is_empty() || arg.starts_with('/') {
        return shared::url::robots_path(&format!("http://robots-check.invalid{arg}"));
    }
    let path = shared::url::robots_path(arg)?;
    if let Err(e @ shared::url::UrlError::TooLong(_)) = CanonicalUrl::parse(arg) {
        eprintln!("note: {e}: the crawler never fetches it");
    }
    Ok(path)
}

/// The crawler section of the config `file` (the defaults without one).
fn crawler_config(file: Option<&Path>) -> Result<shared::config::CrawlerConfig> {
    let raw = RawConfig::load(file)?;
    Ok(raw.validate().map_err(|bad| blame(bad, file, &[]))?.crawler)
}

/// `crawler export`: the summary on stdout.
fn export(data: &Path, warc: &Path, config: Option<&Path>) -> Result<()> {
    let config = crawler_config(config)?;
    let summary = crate::archive::export(data, warc, &config)
        .with_context(|| format!("cannot export {} to {}", data.display(), warc.display()))?;
    println!(
        "{} answers and {} renders written to {} ({} records, {} bytes) of {} pages stored; skipped: {} without an answer, {} unreadable",
        summary.answers,
        summary.renders,
        warc.display(),
        2 * summary.answers + summary.renders + 1,
        summary.bytes,
        summary.pages,
        summary.no_answer,
        summary.unreadable
    );
    Ok(())
}

/// `crawler import`: each damaged record on stderr as it is met, the summary (with the count
/// of damaged records) on stdout. Damaged records do not fail the command: the rest is
/// imported, and the count says so.
fn import(data: &Path, files: &[PathBuf], config: Option<&Path>) -> Result<()> {
    let config = crawler_config(config)?;
    let summary = crate::archive::import(data, files, &config, &mut |file, problem| {
        eprintln!("crawler: {}: {problem}", file.display());
    })
    .with_context(|| format!("cannot import into {}", data.display()))?;
    let skipped: Vec<String> = summary
        .skipped
        .iter()
        .map(|(why, n)| format!("{n} {why}"))
        .collect();
    println!(
        "{} records read from {} files: {} answers stored ({} as copies of other pages); skipped: {}; {} damaged",
        summary.records,
        files.len(),
        summary.stored,
        summary.copies,
        if skipped.is_empty() {
            "none".to_string()
        } else {
            skipped.join(", ")
        },
        summary.damaged
    );
    Ok(())
}

fn resume(data: &Path, origins: &[String]) -> Result<()> {
    let store = crate::store::PageStore::open(data)
        .with_context(|| format!("cannot open the crawl in {} for writing", data.display()))?;
    for origin in origins {
        let origin = origin.trim_end_matches('/');
        if store.resume_host(origin)? {
            println!("resumed {origin}");
        } else {
            println!("{origin} was not halted");
        }
    }
    Ok(())
}
#[cfg(test)]
mod tests {
    use super::*;

    /// `crawler ARGS...` run to its end: the one line the binary would print on stderr
    /// (`crawler: ...`), and its exit code.
    async fn failed_run(args: &[&str]) -> (String, std::process::ExitCode) {
        let cli = Cli::try_parse_from(std::iter::once("crawler").chain(args.iter().copied()))
            .expect("the arguments parse");
        let mut stderr = Vec::new();
        let code = shared::logging::exit_code("crawler", run(cli).await, &mut stderr);
        let text = String::from_utf8(stderr).expect("UTF-8");
        assert_eq!(text.lines().count(), 1, "one line: {text}");
        (text, code)
    }

    fn crawl_args<'a>(data: &'a str, more: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["crawl", "--data", data, "--seed", "http://a.test/"];
        args.extend(more);
        args
    }

    #[test]
    fn pdf_text_is_a_subcommand_that_help_does_not_list() {
        let cli = Cli::try_parse_from(["crawler", "pdf-text"]).expect("parses");
        assert!(matches!(cli.command, Command::PdfText));
        let help = <Cli as clap::CommandFactory>::command()
            .render_help()
            .to_string();
        assert!(help.contains("robots") && !help.contains("pdf"), "{help}");
    }

    #[tokio::test]
    async fn config_errors_are_one_line_and_fail_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let data = data.to_str().unwrap();
        let config = dir.path().join("crawl.toml");
        let config_arg = config.to_str().unwrap();
        let missing = dir.path().join("missing.toml");
        for (file, flags, says) in [
            (
                None,
                vec!["--config", missing.to_str().unwrap()],
                format!("crawler: cannot read config {}: ", missing.display()),
            ),
            (
                Some("[crawler]\ndelay = 5\n"),
                vec!["--config", config_arg],
                format!(
                    "crawler: config {config_arg} line 2: crawler.delay: unknown key `delay` \
                     (did you mean `delay_ms`?)"
                ),
            ),
            (
                Some("[crawler.hosts.\"docs.test\"]\ndeny_urls = [\"a\", \"(\"]\n"),
                vec!["--config", config_arg, "--delay-ms", "0"],
                format!(
                    "crawler: config {config_arg}: crawler.hosts.\"docs.test\".deny_urls[1]: \
                     invalid regex \"(\": unclosed group"
                ),
            ),
            (
                Some("[searchd]\nlisten = \"nowhere\"\n"),
                vec!["--config", config_arg],
                format!("crawler: config {config_arg}: searchd.listen: "),
            ),
            (
                Some("[crawler]\nhost_concurrency = 2\n"),
                vec!["--config", config_arg, "--host-concurrency", "0"],
                "crawler: --host-concurrency: crawler.host_concurrency: must be at least 1"
                    .to_string(),
            ),
            (
                None,
                vec!["--agent", "sift bot"],
                "crawler: --agent: crawler.agent: \"sift bot\" is not a robots.txt product token"
                    .to_string(),
            ),
            (
                None,
                vec!["--from", "nobody"],
                "crawler: --from: crawler.from: \"nobody\" is not a contact address".to_string(),
            ),
        ] {
            if let Some(text) = file {
                std::fs::write(&config, text).unwrap();
            }
            let (line, code) = failed_run(&crawl_args(data, &flags)).await;
            assert!(line.starts_with(&says), "{flags:?}: {line}");
            assert_eq!(code, std::process::ExitCode::FAILURE);
            assert!(
                !std::path::Path::new(data).exists(),
                "nothing is opened before the config is checked"
            );
        }
    }

    #[tokio::test]
    async fn a_store_in_use_is_refused_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().to_str().unwrap();
        let _writer = crate::store::PageStore::open(dir.path()).expect("the first writer opens");
        let (line, code) = failed_run(&crawl_args(data, &[])).await;
        assert_eq!(code, std::process::ExitCode::FAILURE);
        assert!(
            line.starts_with(&format!("crawler: cannot open crawl in {data}: ")),
            "{line}"
        );
        assert!(line.contains("is in use by another crawler"), "{line}");
    }

    #[tokio::test]
    async fn reports_on_a_directory_with_no_crawl_say_what_to_run_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().to_str().unwrap();
        for args in [
            vec!["status", "--data", data],
            vec!["report", "--data", data],
            vec!["explain", "--data", data, "http://a.test/"],
        ] {
            let (line, code) = failed_run(&args).await;
            assert_eq!(code, std::process::ExitCode::FAILURE);
            assert_eq!(
                line.trim_end(),
                format!(
                    "crawler: no content store in {data}: neither {data}/store nor partitions \
                     in {data}/partitions (run `crawler crawl --data DIR` or `crawler worker \
                     --data DIR` first)"
                ),
                "{args:?}"
            );
        }
    }
}
