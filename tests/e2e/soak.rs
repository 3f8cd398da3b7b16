//! The soak: the real `crawler` command line in a child process against a test web of many
//! hosts (`soak-N.test`: slow, failing, `Crawl-delay` and huge hosts; `stalls.test`;
//! `traps.test`), killed with SIGKILL every few minutes and started again at once, then run
//! to its end. At the end: the frontier is empty; the stored URLs are exactly those the web
//! defines as reachable; nothing stored was fetched again, and only fetches in flight at a
//! kill were repeated; every gap between two requests to a host (and to the address) in the
//! server's log held the configured delay, restarts included; failures are stored with their
//! reasons; the child's resident memory is sampled and its slope reported.
//!
//! [`a_short_soak_with_kills_ends_complete_and_polite`] is the CI version (seconds, a small
//! web, two kills); [`an_hour_long_soak`] (ignored) is the hour-long one that `bench/soak`
//! runs. Both are [`Plan`]s run by the same [`soak`] function; `SOAK_*` variables change a
//! plan (see [`Plan::with_env`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use shared::StoreReader;
use testweb::{Request, STALLS_PAGES, SoakAnswer, SoakWeb, TRAPS_LINKED, TestWeb};

use crate::resume::child_command;
use crate::sends::Sends;
use crate::support::write_config_file;

/// What one soak does: how long, how often it kills, how big a web, which politeness.
#[derive(Clone, Debug)]
struct Plan {
    /// Kills happen while the soak is younger than this; then one run goes to the end.
    duration: Duration,
    /// The mean time between a start and its kill (each one 70% to 130% of it).
    kill_every: Duration,
    /// How often the child's resident memory is read.
    sample_every: Duration,
    /// The longest the final run may take.
    final_limit: Duration,
    /// The generated hosts.
    web: SoakWeb,
    /// `--delay-ms`: the least gap between two requests to one host.
    delay_ms: u64,
    /// `ip_delay_ms`: the least gap between two requests to 127.0.0.1.
    ip_delay_ms: u64,
    /// `ip_concurrency`.
    ip_concurrency: usize,
    /// `max_in_flight`: also the most fetches a kill may lose.
    max_in_flight: usize,
    /// `page_attempts`.
    page_attempts: usize,
    /// `header_timeout_ms`.
    header_timeout_ms: u64,
    /// `request_timeout_ms`.
    request_timeout_ms: u64,
    /// `transfer_window_ms`.
    transfer_window_ms: u64,
    /// `max_pages` of `traps.test`: its endless pages stop there.
    traps_budget: usize,
    /// `store_cache_bytes` and `store_write_buffer_bytes`: what RocksDB may hold.
    store_memory: usize,
    /// The largest memory slope allowed across the soak, in MiB an hour (`None`: reported only).
    max_slope_mib_per_hour: Option<f64>,
    /// Where the report goes as the soak runs (besides stderr).
    report: Option<PathBuf>,
}

impl Plan {
    /// The CI version: a few seconds, two kills, a small web.
    fn short() -> Plan {
        Plan {
            duration: Duration::from_millis(2_500),
            kill_every: Duration::from_millis(1_100),
            sample_every: Duration::from_millis(300),
            final_limit: Duration::from_secs(60),
            web: SoakWeb {
                hosts: 8,
                pages: 16,
                slow: Duration::from_millis(60),
                crawl_delay_ms: 150,
            },
            delay_ms: 60,
            ip_delay_ms: 20,
            ip_concurrency: 8,
            max_in_flight: 64,
            page_attempts: 2,
            header_timeout_ms: 1_000,
            request_timeout_ms: 1_500,
            transfer_window_ms: 500,
            traps_budget: 20,
            store_memory: 1 << 20,
            max_slope_mib_per_hour: None,
            report: None,
        }
    }

    /// The hour-long version: about 40,000 pages on 96 hosts at the default one second a host,
    /// 80 ms between two requests to the address (12.5 a second at most: the crawl needs
    /// about an hour), a kill every four minutes or so.
    fn hour() -> Plan {
        Plan {
            duration: Duration::from_secs(3_600),
            kill_every: Duration::from_secs(240),
            sample_every: Duration::from_secs(60),
            final_limit: Duration::from_secs(3 * 3_600),
            web: SoakWeb {
                hosts: 96,
                pages: 300,
                slow: Duration::from_millis(400),
                crawl_delay_ms: 2_000,
            },
            delay_ms: 1_000,
            ip_delay_ms: 80,
            ip_concurrency: 8,
            max_in_flight: 64,
            page_attempts: 3,
            header_timeout_ms: 3_000,
            request_timeout_ms: 6_000,
            transfer_window_ms: 2_000,
            traps_budget: 60,
            store_memory: STORE_MEMORY,
            max_slope_mib_per_hour: Some(MAX_SLOPE_MIB_PER_HOUR),
            report: None,
        }
    }

    /// The plan with `SOAK_SECS`, `SOAK_KILL_SECS`, `SOAK_SAMPLE_SECS`, `SOAK_HOSTS`,
    /// `SOAK_PAGES`, `SOAK_DELAY_MS`, `SOAK_STORE_BYTES` (the store's memory budgets),
    /// `SOAK_MAX_SLOPE` (MiB an hour) and `SOAK_REPORT` (a file) applied.
    fn with_env(mut self) -> Plan {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let number = |name: &str| {
            var(name).map(|v| {
                v.parse::<f64>()
                    .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
            })
        };
        if let Some(secs) = number("SOAK_SECS") {
            self.duration = Duration::from_secs_f64(secs);
        }
        if let Some(secs) = number("SOAK_KILL_SECS") {
            self.kill_every = Duration::from_secs_f64(secs);
        }
        if let Some(secs) = number("SOAK_SAMPLE_SECS") {
            self.sample_every = Duration::from_secs_f64(secs);
        }
        if let Some(hosts) = number("SOAK_HOSTS") {
            self.web.hosts = hosts as usize;
        }
        if let Some(pages) = number("SOAK_PAGES") {
            self.web.pages = pages as usize;
        }
        if let Some(ms) = number("SOAK_DELAY_MS") {
            self.delay_ms = ms as u64;
        }
        if let Some(bytes) = number("SOAK_STORE_BYTES") {
            self.store_memory = bytes as usize;
        }
        if let Some(slope) = number("SOAK_MAX_SLOPE") {
            self.max_slope_mib_per_hour = Some(slope);
        }
        self.report = var("SOAK_REPORT").map(PathBuf::from);
        self
    }

    /// The `[crawler]` keys of the config file (the delay goes by `--delay-ms`).
    fn config(&self) -> String {
        format!(
            "ip_delay_ms = {}\nip_concurrency = {}\nmax_in_flight = {}\npage_attempts = {}\n\
             header_timeout_ms = {}\nrequest_timeout_ms = {}\ntransfer_window_ms = {}\n\
             min_transfer_rate = 1024\nmax_body_bytes = 1048576\nretry_ms = 200\n\
             breaker_pause_ms = 2000\nrobots_retry_ms = 200\n\
             store_cache_bytes = {}\nstore_write_buffer_bytes = {}\n\
             [crawler.hosts.\"traps.test\"]\nmax_pages = {}\n",
            self.ip_delay_ms,
            self.ip_concurrency,
            self.max_in_flight,
            self.page_attempts,
            self.header_timeout_ms,
            self.request_timeout_ms,
            self.transfer_window_ms,
            self.store_memory,
            self.store_memory,
            self.traps_budget,
        )
    }
}

/// The memory bound of the hour-long soak, in MiB an hour across all samples. The crawler
/// keeps its frontier and seen-set in RocksDB with bounded buffers, so what a run holds must
/// not grow with the store: a restarted crawler that loaded the seen-set or the queues into
/// memory would hold some hundreds of bytes a URL (about 40,000 URLs: tens of MiB by the end of
/// the hour). Runs restart every few minutes, so a leak per fetch shows within a run rather
/// than in this slope (both are reported). RocksDB's block cache and memtables are held to
/// [`STORE_MEMORY`] each, small enough to fill within minutes: what grows after that is not
/// theirs. The allocator's high-water mark still steps up when large bodies come together
/// (seen: +12 MiB a minute into the final run of 2026-11-25, flat for its 19 minutes after,
/// which a least-squares slope over the hour counts as +11.8 MiB an hour; the fifteen killed
/// runs before it stayed between 36 and 44 MiB).
const MAX_SLOPE_MIB_PER_HOUR: f64 = 16.0;

/// The hour-long soak's `store_cache_bytes` and `store_write_buffer_bytes`: 4 MiB each,
/// which the crawl's writes (about 3 KiB a page, 12 pages a second) fill in a few minutes.
/// With the defaults (32 and 64 MiB) they would still be filling at the end of the hour
/// and their growth would hide a leak's.
const STORE_MEMORY: usize = 4 << 20;

/// How much sooner than its gap a request may reach the server and still count as polite,
/// besides the 10% tolerance: the crawler spaces requests when it hands them to fetch tasks,
/// and the time from there to the server's log varies by a few milliseconds under load (a new
/// connection, a busy runtime). Seen in CI: two requests handed out 4 ms apart logged 33 µs
/// apart.
const JITTER: Duration = Duration::from_millis(5);

/// The least gap that counts as polite for a delay of `delay`.
fn polite_gap(delay: Duration) -> Duration {
    delay.mul_f64(0.9).saturating_sub(JITTER)
}

/// The CI version: same code, a few seconds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_soak_with_kills_ends_complete_and_polite() {
    let outcome = soak(Plan::short().with_env()).await;
    assert!(outcome.kills >= 2, "two kills at least: {}", outcome.kills);
}

/// The hour-long version (`bench/soak`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "an hour long: run by bench/soak"]
async fn an_hour_long_soak() {
    let outcome = soak(Plan::hour().with_env()).await;
    assert!(
        outcome.kills >= 1,
        "killed at least once: {}",
        outcome.kills
    );
}

/// What a soak reports back to its test.
struct Outcome {
    kills: usize,
}

/// Lines of the report: on stderr, and appended to the report file as they come.
struct Report {
    file: Option<File>,
    started: Instant,
}

impl Report {
    fn new(path: Option<&Path>) -> Report {
        let file = path.map(|p| File::create(p).expect("report file"));
        Report {
            file,
            started: Instant::now(),
        }
    }

    fn line(&mut self, text: impl AsRef<str>) {
        let line = format!(
            "[{:>8.1} s] {}",
            self.started.elapsed().as_secs_f64(),
            text.as_ref()
        );
        eprintln!("{line}");
        if let Some(file) = &mut self.file {
            let _ = writeln!(file, "{line}");
            let _ = file.flush();
        }
    }
}

/// One run of the child crawler.
struct Run {
    /// When it was killed and reaped, and the wall clock then (ms since the epoch).
    killed: Option<(Instant, u64)>,
    log: PathBuf,
}

/// One reading of the child's resident memory.
struct Sample {
    /// Seconds since the soak started.
    at: f64,
    /// Seconds since its run started.
    in_run: f64,
    run: usize,
    rss_kib: u64,
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `VmRSS` of a process, in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The least-squares slope of `y` over `x`.
fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// URLs stored under `data` whose answer came before `before_ms` (wall clock), read while
/// another run may be writing (a read-only open; tried again if it meets the writer's
/// recovery).
fn stored_before(data: &Path, before_ms: u64) -> BTreeSet<String> {
    let mut last_error = String::new();
    for _ in 0..20 {
        match StoreReader::open(data) {
            Ok(store) => {
                let mut urls = BTreeSet::new();
                let mut failed = false;
                for page in store.pages() {
                    match page {
                        Ok(page) if page.fetched_at_ms < before_ms => {
                            urls.insert(page.url);
                        }
                        Ok(_) => {}
                        Err(e) => {
                            last_error = e.to_string();
                            failed = true;
                            break;
                        }
                    }
                }
                if !failed {
                    return urls;
                }
            }
            Err(e) => last_error = e.to_string(),
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("the store could not be read after a kill: {last_error}");
}

fn spawn_child(args: &[String], log: &Path) -> Child {
    let stderr = File::create(log).expect("run log");
    child_command(args)
        // Each request the crawler lets go, with its send time (see `Sends`).
        .env("RUST_LOG", "warn,crawler::sent=debug")
        .stdout(Stdio::null())
        .stderr(Stdio::from(stderr))
        .spawn()
        .expect("child crawler starts")
}

/// A time between 70% and 130% of `mean`, from a seeded sequence (the same every soak).
fn jittered(mean: Duration, k: usize) -> Duration {
    let fraction =
        ((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f64 / (1u64 << 24) as f64;
    mean.mul_f64(0.7 + 0.6 * fraction)
}

/// Runs a soak and checks its end; panics with every violation found.
async fn soak(plan: Plan) -> Outcome {
    let mut report = Report::new(plan.report.as_deref());
    report.line(format!("plan: {plan:?}"));
    let web = TestWeb::start_with(plan.web).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("crawl.toml");
    write_config_file(&web, &config, &plan.config());
    let seeds = dir.path().join("seeds.txt");
    let mut seed_list: Vec<String> = plan
        .web
        .host_names()
        .iter()
        .map(|h| web.url(h, "/"))
        .collect();
    seed_list.push(web.url("stalls.test", "/"));
    seed_list.push(web.url("traps.test", "/"));
    std::fs::write(&seeds, seed_list.join("\n")).expect("seeds written");
    let data = dir.path().join("data");
    let path = |p: &Path| p.to_str().expect("UTF-8 path").to_string();
    let args: Vec<String> = vec![
        "crawl".into(),
        "--data".into(),
        path(&data),
        "--seeds".into(),
        path(&seeds),
        "--config".into(),
        path(&config),
        "--delay-ms".into(),
        plan.delay_ms.to_string(),
    ];
    let reachable = plan.web.reachable();
    report.line(format!(
        "web: {} soak hosts, {} soak pages reachable; crawler {}",
        plan.web.hosts,
        reachable.len(),
        args.join(" ")
    ));

    let started = Instant::now();
    let mut runs: Vec<Run> = Vec::new();
    let mut samples: Vec<Sample> = Vec::new();
    let mut snapshots = Vec::new();
    let mut next_sample = started + plan.sample_every;
    let final_status = loop {
        let index = runs.len();
        let log = dir.path().join(format!("run-{index}.log"));
        let mut child = spawn_child(&args, &log);
        let run_started = Instant::now();
        let pid = child.id();
        let kill_at = Some(run_started + jittered(plan.kill_every, index))
            .filter(|at| *at < started + plan.duration);
        let limit = run_started + plan.final_limit;
        report.line(format!(
            "run {index} (pid {pid}) starts{}",
            if kill_at.is_some() {
                ""
            } else {
                ": the final run, to the end"
            }
        ));
        runs.push(Run { killed: None, log });
        let status = loop {
            if let Some(status) = child.try_wait().expect("child status") {
                break Some(status);
            }
            let now = Instant::now();
            if now >= next_sample {
                next_sample += plan.sample_every;
                if let Some(rss) = rss_kib(pid) {
                    let sample = Sample {
                        at: (now - started).as_secs_f64(),
                        in_run: (now - run_started).as_secs_f64(),
                        run: index,
                        rss_kib: rss,
                    };
                    report.line(format!(
                        "rss run {index}: {:.1} MiB ({} requests so far)",
                        rss as f64 / 1024.0,
                        web.requests().len()
                    ));
                    samples.push(sample);
                }
            }
            if kill_at.is_some_and(|at| now >= at) {
                child.kill().expect("SIGKILL");
                child.wait().expect("reaped");
                break None;
            }
            if now >= limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!("run {index} took longer than {:?}", plan.final_limit);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        match status {
            Some(status) => break status,
            None => {
                let killed = (Instant::now(), wall_ms());
                runs[index].killed = Some(killed);
                let data = data.clone();
                snapshots.push(tokio::task::spawn_blocking(move || {
                    stored_before(&data, killed.1)
                }));
                report.line(format!(
                    "run {index} killed after {:.1} s",
                    (killed.0 - run_started).as_secs_f64()
                ));
            }
        }
    };
    let kills = runs.len() - 1;
    report.line(format!(
        "final run ended ({final_status}) {:.1} s after the soak began; {kills} kills",
        started.elapsed().as_secs_f64()
    ));
    let mut at_kill: Vec<BTreeSet<String>> = Vec::new();
    for snapshot in snapshots {
        at_kill.push(snapshot.await.expect("snapshot task"));
    }

    let mut failures: Vec<String> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let log = std::fs::read_to_string(&run.log).unwrap_or_default();
        if log.contains("panicked") {
            failures.push(format!("run {i} panicked:\n{log}"));
        }
    }
    if !final_status.success() {
        let log = std::fs::read_to_string(&runs[kills].log).unwrap_or_default();
        failures.push(format!("the final run failed ({final_status}):\n{log}"));
    }

    let requests = web.requests();
    if web.requests_dropped() > 0 {
        failures.push(format!(
            "the request log dropped {} requests",
            web.requests_dropped()
        ));
    }
    let sends: Vec<Sends> = (0..runs.len())
        .map(|index| Sends::read(&dir.path().join(format!("run-{index}.log"))))
        .collect();
    let check = Check {
        plan: &plan,
        web: &web,
        runs: &runs,
        requests: &requests,
        sends: &sends,
    };
    let store = StoreReader::open(&data).expect("store opens read-only");
    failures.extend(check.complete(&store, &reachable, &mut report));
    failures.extend(check.reasons(&store));
    failures.extend(check.refetches(&store, &at_kill, &mut report));
    failures.extend(check.politeness(&mut report));
    failures.extend(check.memory(&samples, &mut report));
    report.line(format!(
        "soak over: {:.1} s, {kills} kills, {} requests, {} violations",
        started.elapsed().as_secs_f64(),
        requests.len(),
        failures.len()
    ));
    for failure in &failures {
        report.line(format!("VIOLATION: {failure}"));
    }
    assert!(
        failures.is_empty(),
        "{} violations: {failures:#?}",
        failures.len()
    );
    Outcome { kills }
}

/// The end-of-soak checks, each returning what it found wrong.
struct Check<'a> {
    plan: &'a Plan,
    web: &'a TestWeb,
    runs: &'a [Run],
    requests: &'a [Request],
    sends: &'a [Sends],
}

/// The page number of a soak path (`/` is 0, `/p/7.html` is 7).
fn soak_page_number(path: &str) -> Option<usize> {
    if path == "/" {
        return Some(0);
    }
    path.strip_prefix("/p/")?
        .strip_suffix(".html")?
        .parse()
        .ok()
}

/// `stalls.test` URLs that fail every time (retried up to `page_attempts`).
const STALLS_FAILING: [&str; 3] = ["/hang", "/drip", "/trickle"];

impl Check<'_> {
    /// The run that was going at `at`: the number of kills before it.
    fn run_of(&self, at: Instant) -> usize {
        self.runs
            .iter()
            .take_while(|r| r.killed.is_some_and(|(k, _)| k < at))
            .count()
    }

    fn url(&self, host: &str, path: &str) -> String {
        self.web.url(host, path)
    }

    /// Every URL of `stalls.test`, all reachable from its home page.
    fn stalls_urls(&self) -> BTreeSet<String> {
        ["/", "/hang", "/drip", "/trickle", "/big", "/bomb"]
            .into_iter()
            .chain(STALLS_PAGES)
            .map(|p| self.url("stalls.test", p))
            .collect()
    }

    /// Whether `traps.test/slow` (2 s) runs past the header deadline.
    fn slow_fails(&self) -> bool {
        Duration::from_millis(self.plan.header_timeout_ms) <= testweb::SLOW_DELAY
    }

    /// How many requests a URL costs a crawl that is never killed (robots.txt aside).
    fn attempts(&self, host: &str, path: &str) -> usize {
        let attempts = self.plan.page_attempts;
        if let (Some(n), Some(i)) = (self.plan.web.host_number(host), soak_page_number(path)) {
            return match self.plan.web.answer_of(n, i) {
                SoakAnswer::Page => 1,
                SoakAnswer::FailsOnce => 2,
                SoakAnswer::Fails => attempts,
            };
        }
        match (host, path) {
            ("stalls.test", p) if STALLS_FAILING.contains(&p) => attempts,
            ("traps.test", "/error") => attempts,
            ("traps.test", "/slow") if self.slow_fails() => attempts,
            _ => 1,
        }
    }

    /// The frontier is empty and the stored URLs are the reachable ones.
    fn complete(
        &self,
        store: &StoreReader,
        reachable: &BTreeSet<(String, String)>,
        report: &mut Report,
    ) -> Vec<String> {
        let mut failures = Vec::new();
        let frontier = store.frontier_len();
        if frontier != 0 {
            failures.push(format!("{frontier} URLs left in the frontier"));
        }
        let stored: BTreeSet<String> = store
            .pages()
            .map(|p| p.expect("page decodes").url)
            .collect();
        let traps_prefix = self.url("traps.test", "/");
        let (traps, rest): (BTreeSet<String>, BTreeSet<String>) = stored
            .iter()
            .cloned()
            .partition(|u| u.starts_with(&traps_prefix));
        let mut expected: BTreeSet<String> = reachable
            .iter()
            .map(|(host, path)| self.url(host, path))
            .collect();
        expected.extend(self.stalls_urls());
        let missing: Vec<&String> = expected.difference(&rest).collect();
        let extra: Vec<&String> = rest.difference(&expected).collect();
        if !missing.is_empty() {
            failures.push(format!(
                "{} reachable URLs not stored: {:?}",
                missing.len(),
                &missing[..missing.len().min(20)]
            ));
        }
        if !extra.is_empty() {
            failures.push(format!(
                "{} URLs stored that the web does not reach: {:?}",
                extra.len(),
                &extra[..extra.len().min(20)]
            ));
        }
        // Its home page and the pages it links to: a complete crawl stores them all, whatever
        // the budget does to the endless ones behind them.
        for path in std::iter::once("/").chain(TRAPS_LINKED) {
            if !traps.contains(&self.url("traps.test", path)) {
                failures.push(format!("traps.test{path} not stored"));
            }
        }
        if traps.len() > self.plan.traps_budget {
            failures.push(format!(
                "traps.test: {} pages stored, over its budget of {}",
                traps.len(),
                self.plan.traps_budget
            ));
        }
        report.line(format!(
            "stored {} URLs: {} of {} expected, {} of traps.test (budget {}); frontier {frontier}",
            stored.len(),
            expected.len() - missing.len(),
            expected.len(),
            traps.len(),
            self.plan.traps_budget
        ));
        failures
    }

    /// Failures are stored with their reasons.
    fn reasons(&self, store: &StoreReader) -> Vec<String> {
        let mut failures = Vec::new();
        let mut expect =
            |host: &str,
             path: &str,
             what: &str,
             ok: &dyn Fn(&shared::record::PageRecord) -> bool| {
                let url = self.url(host, path);
                match store.page(&url).expect("read") {
                    Some(page) if ok(&page) => {}
                    Some(page) => failures.push(format!(
                        "{url}: expected {what}, stored status {} error {:?} truncated {}",
                        page.status, page.error, page.truncated
                    )),
                    None => failures.push(format!("{url}: expected {what}, not stored")),
                }
            };
        let error_has = |parts: &'static [&'static str]| {
            move |p: &shared::record::PageRecord| {
                p.error
                    .as_deref()
                    .is_some_and(|e| parts.iter().all(|part| e.contains(part)))
            }
        };
        expect(
            "stalls.test",
            "/hang",
            "a header timeout",
            &error_has(&["timeout: timed out after", "waiting for headers"]),
        );
        expect(
            "stalls.test",
            "/drip",
            "a least-rate cut-off",
            &error_has(&["slow: dripped under"]),
        );
        expect(
            "stalls.test",
            "/trickle",
            "a whole-answer timeout",
            &error_has(&["timeout: timed out after", "the answer was not whole"]),
        );
        expect("stalls.test", "/bomb", "a body cut at the limit", &|p| {
            p.status == 200 && p.truncated
        });
        expect("stalls.test", "/big", "a whole 256 KiB page", &|p| {
            p.status == 200 && !p.truncated
        });
        expect("traps.test", "/huge", "a body cut at the limit", &|p| {
            p.status == 200 && p.truncated
        });
        expect("traps.test", "/error", "status 500", &|p| p.status == 500);
        if self.slow_fails() {
            expect(
                "traps.test",
                "/slow",
                "a header timeout",
                &error_has(&["waiting for headers"]),
            );
        } else {
            expect("traps.test", "/slow", "status 200", &|p| p.status == 200);
        }
        let web = self.plan.web;
        for (host, path) in web.reachable() {
            let (Some(n), Some(i)) = (web.host_number(&host), soak_page_number(&path)) else {
                continue;
            };
            match web.answer_of(n, i) {
                SoakAnswer::Fails => expect(&host, &path, "status 500", &|p| p.status == 500),
                SoakAnswer::FailsOnce => {
                    expect(&host, &path, "status 200 after a 503", &|p| p.status == 200)
                }
                SoakAnswer::Page => {}
            }
        }
        failures
    }

    /// Nothing stored was fetched again; only fetches in flight at a kill were repeated.
    fn refetches(
        &self,
        store: &StoreReader,
        at_kill: &[BTreeSet<String>],
        report: &mut Report,
    ) -> Vec<String> {
        let mut failures = Vec::new();
        // Requests per URL, per run and in all.
        let mut counts: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        let mut after_store = 0;
        for request in self.requests {
            if request.path_and_query == "/robots.txt" {
                continue;
            }
            let run = self.run_of(request.at);
            let per_run = counts
                .entry((request.host.clone(), request.path_and_query.clone()))
                .or_insert_with(|| vec![0; self.runs.len()]);
            per_run[run] += 1;
            // Stored before an earlier kill, asked again after it.
            let url = self.url(&request.host, &request.path_and_query);
            if let Some(k) = (0..run.min(at_kill.len())).find(|&k| at_kill[k].contains(&url)) {
                after_store += 1;
                failures.push(format!(
                    "{url} was stored before kill {k} and fetched again in run {run}"
                ));
            }
        }
        let mut excess = 0;
        for ((host, path), per_run) in &counts {
            let attempts = self.attempts(host, path);
            for (run, &n) in per_run.iter().enumerate() {
                if n > attempts {
                    failures.push(format!(
                        "{host}{path} asked {n} times in run {run} (attempts {attempts})"
                    ));
                }
            }
            excess += per_run.iter().sum::<usize>().saturating_sub(attempts);
        }
        // A stored fetch is the last: no two answers kept in a URL's history.
        let mut kept_twice = 0;
        for page in store.pages() {
            let page = page.expect("page decodes");
            let history = store.history(&page.url).expect("history");
            let kept = history
                .0
                .iter()
                .filter(|e| (200..500).contains(&e.status) && e.status != 429)
                .count();
            if kept > 1 {
                kept_twice += 1;
                failures.push(format!("{} stored {kept} times: {:?}", page.url, history.0));
            }
        }
        let kills = self.runs.len() - 1;
        let bound = kills * self.plan.max_in_flight;
        if excess > bound {
            failures.push(format!(
                "{excess} repeated fetches, more than {kills} kills can lose ({bound})"
            ));
        }
        let robots = self
            .requests
            .iter()
            .filter(|r| r.path_and_query == "/robots.txt")
            .count();
        report.line(format!(
            "refetches: {excess} repeated fetches beyond each URL's attempts (at most {bound} \
             for {kills} kills), {after_store} of URLs stored before a kill, {kept_twice} URLs \
             stored twice; robots.txt asked {robots} times"
        ));
        failures
    }

    /// Every gap between two requests to a host, and to the address, held its delay.
    fn politeness(&self, report: &mut Report) -> Vec<String> {
        let mut failures = Vec::new();
        let mut by_host: HashMap<&str, Vec<&Request>> = HashMap::new();
        for request in self.requests {
            by_host.entry(&request.host).or_default().push(request);
        }
        let delay = Duration::from_millis(self.plan.delay_ms);
        let (mut host_gaps, mut host_violations, mut across_restarts) = (0, 0, 0);
        let mut shortest: Option<(f64, String)> = None;
        for (host, requests) in &by_host {
            let crawl_delay = self
                .plan
                .web
                .host_number(host)
                .and_then(|n| self.plan.web.crawl_delay_of(n));
            for pair in requests.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                // A Crawl-delay holds from the end of the robots.txt answer that says it.
                let wanted = crawl_delay.map_or(delay, |c| delay.max(c));
                let gap = b.at.saturating_duration_since(a.at);
                host_gaps += 1;
                let ratio = gap.as_secs_f64() / wanted.as_secs_f64().max(1e-9);
                if shortest.as_ref().is_none_or(|(r, _)| ratio < *r) {
                    shortest = Some((ratio, format!("{host}: {gap:?} of {wanted:?}")));
                }
                if gap < polite_gap(wanted) {
                    host_violations += 1;
                    let (ra, rb) = (self.run_of(a.at), self.run_of(b.at));
                    if ra != rb {
                        across_restarts += 1;
                    }
                    failures.push(format!(
                        "{host}: {} (run {ra}) then {} (run {rb}) after {gap:?}, delay {wanted:?}",
                        a.path_and_query, b.path_and_query
                    ));
                }
            }
        }
        let ip_delay = Duration::from_millis(self.plan.ip_delay_ms);
        let (mut ip_gaps, mut ip_violations, mut spaced_when_sent) = (0, 0, 0);
        let mut ip_shortest = Duration::MAX;
        for pair in self.requests.windows(2) {
            let gap = pair[1].at.saturating_duration_since(pair[0].at);
            ip_gaps += 1;
            ip_shortest = ip_shortest.min(gap);
            if gap < polite_gap(ip_delay) {
                let (ra, rb) = (self.run_of(pair[0].at), self.run_of(pair[1].at));
                // Arrivals logged too close: the crawler's own send times say whose it was.
                let sent = (ra == rb)
                    .then(|| self.sends.get(ra))
                    .flatten()
                    .and_then(|sends| {
                        sends.gap(
                            &self.url(&pair[0].host, &pair[0].path_and_query),
                            &self.url(&pair[1].host, &pair[1].path_and_query),
                        )
                    });
                if sent.is_some_and(|sent| sent >= polite_gap(ip_delay)) {
                    spaced_when_sent += 1;
                    continue;
                }
                ip_violations += 1;
                failures.push(format!(
                    "127.0.0.1: {}{} (run {ra}) then {}{} (run {rb}) after {gap:?} ({}), delay {ip_delay:?}",
                    pair[0].host,
                    pair[0].path_and_query,
                    pair[1].host,
                    pair[1].path_and_query,
                    sent.map_or("no send time logged".to_string(), |s| format!("sent {s:?} apart")),
                ));
            }
        }
        report.line(format!(
            "politeness: {host_gaps} gaps between requests to one host checked, \
             {host_violations} under 90% of the delay less {JITTER:?} ({across_restarts} across \
             a restart); shortest against its delay: {}; {ip_gaps} gaps to the address \
             checked, {ip_violations} under {:?} when sent (shortest arrival gap \
             {ip_shortest:?}; {spaced_when_sent} more arrived closer but were sent apart; \
             {} sends logged by the crawler)",
            shortest.map_or("none".to_string(), |(r, s)| format!(
                "{:.0}% ({s})",
                r * 100.0
            )),
            polite_gap(ip_delay),
            self.sends.iter().map(Sends::count).sum::<usize>(),
        ));
        // Every request the web saw went through the crawler's send gate, which logs it.
        let logged = self.sends.iter().map(Sends::count).sum::<usize>();
        if logged < self.requests.len() {
            failures.push(format!(
                "the crawler logged {logged} sends for {} requests: its send log is incomplete",
                self.requests.len()
            ));
        }
        failures
    }

    /// The memory samples and their slopes; over the bound, a failure.
    fn memory(&self, samples: &[Sample], report: &mut Report) -> Vec<String> {
        let mib = |kib: u64| kib as f64 / 1024.0;
        let across: Vec<(f64, f64)> = samples
            .iter()
            .map(|s| (s.at / 3600.0, mib(s.rss_kib)))
            .collect();
        // Within runs: each run's samples against its own mean, pooled.
        let mut within: Vec<(f64, f64)> = Vec::new();
        for run in 0..self.runs.len() {
            let of_run: Vec<&Sample> = samples.iter().filter(|s| s.run == run).collect();
            if of_run.len() < 2 {
                continue;
            }
            let mean_t = of_run.iter().map(|s| s.in_run).sum::<f64>() / of_run.len() as f64;
            let mean_m = of_run.iter().map(|s| mib(s.rss_kib)).sum::<f64>() / of_run.len() as f64;
            within.extend(
                of_run
                    .iter()
                    .map(|s| ((s.in_run - mean_t) / 3600.0, mib(s.rss_kib) - mean_m)),
            );
        }
        let listed: Vec<String> = samples
            .iter()
            .map(|s| format!("{:.0}s/r{}:{:.1}", s.at, s.run, mib(s.rss_kib)))
            .collect();
        let across_slope = slope(&across);
        let within_slope = slope(&within);
        let peak = samples.iter().map(|s| s.rss_kib).max().map_or(0.0, mib);
        report.line(format!(
            "rss: {} samples (seconds/run:MiB) {}",
            samples.len(),
            listed.join(" ")
        ));
        report.line(format!(
            "rss slope across the soak {} MiB/hour, within runs {} MiB/hour, peak {peak:.1} MiB",
            across_slope.map_or("n/a".into(), |s| format!("{s:+.1}")),
            within_slope.map_or("n/a".into(), |s| format!("{s:+.1}")),
        ));
        match (self.plan.max_slope_mib_per_hour, across_slope) {
            (Some(bound), Some(s)) if s > bound => {
                vec![format!(
                    "memory grew {s:.1} MiB/hour, over {bound} MiB/hour"
                )]
            }
            (Some(_), None) => vec!["too few memory samples for a slope".to_string()],
            _ => Vec::new(),
        }
    }
}
