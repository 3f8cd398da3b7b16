//! The crawl loop: one scheduler that owns the frontier and the store, and fetch tasks that
//! do the network and parsing work and hand their results back.
//!
//! The scheduler is the only code that writes the store, so "is this URL new?" and "queue it"
//! happen in one place, in one write batch per page, with no races between tasks.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use shared::config::CrawlerConfig;
use shared::record::{EntryKind, FrontierEntry};
use shared::store::MemoryBudget;
use shared::{CanonicalUrl, now_ms};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::breaker::Trip;
use crate::error::Error;
use crate::fetch::Fetcher;
use crate::frontier::{Frontier, Job, RobotsState};
use crate::kind::Kinds;
use crate::metrics::CrawlMetrics;
use crate::monitor::Monitor;
use crate::page;
use crate::params::ParamStrip;
use crate::politeness::Politeness;
use crate::render::Renderer;
use crate::retry::{RetryPolicy, Verdict, is_failure};
use crate::revisit::{RevisitPolicy, Visit};
use crate::robots_fetch::RobotsResult;
use crate::scope::Scope;
use crate::sitemap::SitemapIntake;
use crate::store::{PageCommit, PageStore};
use crate::traps::{TrapRule, TrapRules};
use robots::RobotsPolicy;

mod job;
mod parcel_send;
mod partition;
mod partition_backups;
mod rendering;
mod robots_state;

use job::{Outcome, PageResult, Parsed, perform};
pub(crate) use parcel_send::{OutboxSink, Receipt, SendError, SentOn};
pub(crate) use partition::{Delivery, EntryId, PartitionRole, PartitionState};
use rendering::{RenderTools, Rendering};

/// What to crawl and how.
#[derive(Clone, Debug)]
pub struct CrawlOptions {
    /// The data directory; the store is `DATA/store`.
    pub data: PathBuf,
    /// Seed URLs (queued at depth 0 unless already seen).
    pub seeds: Vec<String>,
    /// URL prefixes to stay under; empty: the seeds' origins.
    pub scope: Vec<String>,
    /// Settings, checked (`shared::config::RawCrawlerConfig::validate` makes them).
    pub config: CrawlerConfig,
    /// Stop after this long.
    pub max_time: Option<Duration>,
    /// The program that reads PDFs in a child process (`None`: this binary, re-entered as
    /// its `pdf-text` subcommand; see [`pdf_reader`]).
    pub pdf_child: Option<pdf_reader::ChildCommand>,
}

/// Figures of a running crawl.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrawlProgress {
    /// Pages in the store (all runs).
    pub pages_stored: u64,
    /// Pages fetched in this run.
    pub fetched: u64,
    /// Fetches that failed or answered 429/5xx in this run (retries included).
    pub errors: u64,
    /// URLs waiting.
    pub frontier: u64,
}

/// Why a crawl run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Nothing left that can be fetched in this run.
    FrontierDone,
    /// `--max-pages` reached.
    MaxPages,
    /// `--max-time` passed.
    MaxTime,
    /// Asked to stop (Ctrl-C).
    Shutdown,
    /// A distributed crawl's partition handed on (its worker lets it go to share the
    /// partitions again, or the crawl is done): the fetches in flight were finished first.
    LetGo,
}

/// What a crawl run did.
#[derive(Clone, Debug)]
pub struct CrawlSummary {
    /// Pages in the store (all runs).
    pub pages_stored: u64,
    /// Pages fetched in this run.
    pub fetched: u64,
    /// Failed fetches in this run.
    pub errors: u64,
    /// URLs left in the frontier.
    pub frontier_left: u64,
    /// Why it ended.
    pub stop: StopReason,
    /// Origins halted by their circuit breaker.
    pub halted_hosts: Vec<String>,
    /// How long it ran.
    pub elapsed: Duration,
}

/// A crawl, ready to run.
pub struct Crawler {
    options: CrawlOptions,
    store: PageStore,
    fetcher: Fetcher,
    /// Renders the pages of hosts that ask for it; `None` when none does.
    renderer: Option<Renderer>,
    scope: Scope,
    seeds: Vec<CanonicalUrl>,
    progress: watch::Sender<CrawlProgress>,
    retry: RetryPolicy,
    revisit: RevisitPolicy,
    /// Sitemap files queued per origin in this run, and what fetched ones add.
    sitemaps: SitemapIntake,
    monitor: Monitor,
    /// The operator's extra query parameters to strip.
    params: ParamStrip,
    /// As one partition of a distributed crawl; `None` on one machine.
    role: Option<PartitionRole>,
}

impl Crawler {
    /// Opens the store (failing if another crawler holds it) and checks seeds and scope.
    pub fn open(options: CrawlOptions) -> Result<Self, Error> {
        let budget = MemoryBudget::new(
            options.config.store_cache_bytes,
            options.config.store_write_buffer_bytes,
        );
        let store = PageStore::open_within(&options.data, &budget)?;
        let kinds = Kinds::new(&options.config, options.pdf_child.as_ref());
        let renderer = Renderer::new(&options.config).map_err(|e| Error::Render(e.to_string()))?;
        let fetcher = Fetcher::new(&options.config, kinds)?;
        Self::with_store(options, store, fetcher, renderer, None)
    }

    /// A crawl of one partition of a distributed crawl, on its opened (and claimed) store,
    /// with the worker's fetcher and renderer. Its seeds only set its scope: seeds arrive as
    /// links.
    pub(crate) fn for_partition(
        options: CrawlOptions,
        store: PageStore,
        fetcher: Fetcher,
        renderer: Option<Renderer>,
        role: PartitionRole,
    ) -> Result<Self, Error> {
        Self::with_store(options, store, fetcher, renderer, Some(role))
    }

    fn with_store(
        options: CrawlOptions,
        mut store: PageStore,
        fetcher: Fetcher,
        renderer: Option<Renderer>,
        role: Option<PartitionRole>,
    ) -> Result<Self, Error> {
        let params = ParamStrip::new(&options.config);
        let parse = |what, input: &String| {
            CanonicalUrl::parse(input)
                .map(|url| params.apply(url))
                .map_err(|source| Error::BadUrl {
                    what,
                    input: input.clone(),
                    source,
                })
        };
        let seeds = options
            .seeds
            .iter()
            .map(|s| parse("seed", s))
            .collect::<Result<Vec<_>, _>>()?;
        let scope_urls = options
            .scope
            .iter()
            .map(|s| parse("scope", s))
            .collect::<Result<Vec<_>, _>>()?;
        store.set_trap_rules(TrapRules::new(&options.config));
        if let Some(renderer) = &renderer {
            for (host, verdict) in store.auto_verdicts()? {
                renderer.remember_auto(&host, verdict);
            }
        }
        let progress = watch::Sender::new(CrawlProgress {
            pages_stored: store.counters().pages_stored,
            frontier: store.counters().frontier_len,
            ..CrawlProgress::default()
        });
        Ok(Self {
            scope: Scope::new(&scope_urls, &seeds),
            retry: RetryPolicy::new(&options.config),
            revisit: RevisitPolicy::new(&options.config),
            sitemaps: SitemapIntake::new(&options.config),
            options,
            store,
            fetcher,
            renderer,
            seeds,
            progress,
            monitor: Monitor::new(Instant::now()),
            params,
            role,
        })
    }

    /// Counts its fetches, writes and gauges in `metrics` (see [`crate::metrics`]).
    pub fn with_metrics(mut self, metrics: CrawlMetrics) -> Self {
        self.fetcher = self.fetcher.with_metrics(metrics.clone());
        if let Some(renderer) = &self.renderer {
            renderer.count_in(metrics.clone());
        }
        self.monitor.count_in(metrics);
        self
    }

    /// Follows the crawl's figures as it runs.
    pub fn progress(&self) -> watch::Receiver<CrawlProgress> {
        self.progress.subscribe()
    }

    /// Crawls until the frontier is done, a limit is hit, or `shutdown` completes.
    pub async fn run(
        mut self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<CrawlSummary, Error> {
        let started = Instant::now();
        let mut role = self.role.take();
        let seeds = std::mem::take(&mut self.seeds);
        if role.is_none() {
            let seed_entries = seeds
                .into_iter()
                .map(|url| {
                    let entry = FrontierEntry::page(url.as_str(), 0);
                    (url, entry)
                })
                .collect();
            self.store.enqueue(seed_entries)?;
        }
        let due = self.store.queue_due_revisits(now_ms())?;
        if due > 0 {
            info!(pages = due, "stored pages due for a revisit queued");
        }
        if role.is_none()
            && self.store.counters().frontier_len == 0
            && self.store.counters().pages_stored == 0
        {
            return Err(Error::NoSeeds);
        }

        let config = self.options.config.clone();
        let mut frontier = Frontier::new(Politeness::new(&config));
        let now = Instant::now();
        for origin in self.store.queued_origins()? {
            let robots = self.cached_robots(&origin)?;
            frontier.load_origin(&origin, robots, now);
        }
        for (origin, why) in self.store.halted_hosts()? {
            warn!(%origin, %why, "host halted: left alone until `crawler resume` lifts it");
            frontier.halt(&origin, now);
        }
        info!(
            hosts = frontier.host_count(),
            queued = self.store.counters().frontier_len,
            "crawl starting"
        );

        let deadline = self.options.max_time.map(|d| started + d);
        let mut tasks: JoinSet<Outcome> = JoinSet::new();
        let mut pages_in_flight = 0u64;
        let mut run = CrawlProgress::default();
        let mut next_report = Instant::now() + Duration::from_secs(5);
        let shutdown = shutdown;
        tokio::pin!(shutdown);
        let mut stop: Option<StopReason> = None;

        loop {
            let now = Instant::now();
            if stop.is_none()
                && config.max_pages > 0
                && self.store.counters().pages_stored >= config.max_pages
            {
                stop = Some(StopReason::MaxPages);
            }
            // Hand out work while there are free slots and no limit is hit.
            let page_budget_left = |in_flight: u64, store: &PageStore| {
                config.max_pages == 0
                    || store.counters().pages_stored + in_flight < config.max_pages
            };
            let mut slot_wanted = false;
            while stop.is_none() && tasks.len() < config.max_in_flight.get() {
                if !page_budget_left(pages_in_flight, &self.store) {
                    break;
                }
                // A partition's fetches also take one of its worker's slots.
                let slot = match role.as_mut().map(PartitionRole::slot) {
                    Some(None) => {
                        slot_wanted = true;
                        break;
                    }
                    Some(slot) => slot,
                    None => None,
                };
                let job = frontier.next_job(now, &mut self.store, &mut |entry| {
                    debug!(url = %entry.url, "disallowed by robots.txt");
                })?;
                let Some(job) = job else { break };
                if matches!(job, Job::Page { .. }) {
                    pages_in_flight += 1;
                }
                let plan = match &job {
                    Job::Page { entry, url, .. } => Some(self.fetch_plan(entry, url)?),
                    Job::Robots { .. } | Job::Resolve { .. } => None,
                };
                let fetcher = self.fetcher.clone();
                let render = self.renderer.clone().map(|renderer| RenderTools {
                    renderer,
                    copies: self.store.copy_check(),
                });
                let agent = config.agent.clone();
                tasks.spawn(async move {
                    let _slot = slot;
                    perform(job, plan, fetcher, render, agent).await
                });
            }
            if let Some(role) = role.as_mut() {
                role.pump(&mut self.store, now)?;
                // Told before the loop waits: what it waits in is the state.
                let settled = tasks.is_empty() && frontier.is_idle();
                role.report(settled, &self.store, &frontier, &run);
            }
            // A partition's crawl waits for links from the others until it is let go.
            if tasks.is_empty() && (stop.is_some() || (frontier.is_idle() && role.is_none())) {
                break;
            }
            if matches!(stop, Some(StopReason::Shutdown | StopReason::MaxTime)) {
                tasks.abort_all();
            }

            let can_hand_out = stop.is_none()
                && tasks.len() < config.max_in_flight.get()
                && page_budget_left(pages_in_flight, &self.store);
            let wake = frontier.next_wake().filter(|_| can_hand_out);
            tokio::select! {
                joined = tasks.join_next(), if !tasks.is_empty() => {
                    match joined {
                        Some(Ok(outcome)) => {
                            if matches!(outcome, Outcome::Page { .. }) {
                                pages_in_flight = pages_in_flight.saturating_sub(1);
                            }
                            self.handle(outcome, &mut frontier, &mut run)?;
                        }
                        Some(Err(e)) if e.is_cancelled() => pages_in_flight = 0,
                        Some(Err(e)) => warn!(error = %e, "fetch task failed"),
                        None => {}
                    }
                }
                () = sleep_until_opt(wake) => {}
                () = &mut shutdown, if stop.is_none() => {
                    info!("shutting down: fetches in flight are dropped and retried next run");
                    stop = Some(StopReason::Shutdown);
                }
                () = sleep_until_opt(deadline), if stop.is_none() => {
                    stop = Some(StopReason::MaxTime);
                }
                event = PartitionRole::next_event_of(&mut role, slot_wanted) => {
                    if let Some(role) = role.as_mut()
                        && role.handle(event, &mut self.store, &mut frontier)?
                        && stop.is_none()
                    {
                        info!("partition let go: finishing the fetches in flight");
                        stop = Some(StopReason::LetGo);
                    }
                }
            }

            run.pages_stored = self.store.counters().pages_stored;
            run.frontier = self.store.counters().frontier_len;
            self.progress.send_replace(run.clone());
            let mut line = None;
            if Instant::now() >= next_report {
                next_report = Instant::now() + Duration::from_secs(5);
                line = Some(self.monitor.line(
                    Instant::now(),
                    run.pages_stored,
                    run.frontier,
                    &frontier,
                    self.store.trapped(),
                ));
            }
            match role.as_mut() {
                // The worker logs one line for all its partitions.
                Some(role) => role.keep_line(line),
                None => {
                    if let Some(line) = line {
                        info!(target: "crawler::monitor", "{line}");
                    }
                }
            }
        }

        let summary = CrawlSummary {
            pages_stored: self.store.counters().pages_stored,
            fetched: run.fetched,
            errors: run.errors,
            frontier_left: self.store.counters().frontier_len,
            stop: stop.unwrap_or(StopReason::FrontierDone),
            halted_hosts: frontier.halted_hosts(),
            elapsed: started.elapsed(),
        };
        if !self.store.trapped().is_empty() {
            info!(trapped = ?self.store.trapped(), "URLs kept out by trap rules");
        }
        self.store.flush()?;
        // A partition let go (or done) leaves a backup of all it holds for its next holder.
        if let Some(role) = role.as_mut()
            && matches!(summary.stop, StopReason::LetGo | StopReason::FrontierDone)
        {
            role.last_backup(&self.store).await;
        }
        info!(?summary, "crawl finished");
        Ok(summary)
    }

    fn handle(
        &mut self,
        outcome: Outcome,
        frontier: &mut Frontier,
        run: &mut CrawlProgress,
    ) -> Result<(), Error> {
        let now = Instant::now();
        match outcome {
            Outcome::Resolved { origin, result } => {
                let ip = match result {
                    Ok(ip) => Some(ip),
                    Err(why) => {
                        // Its requests fail the same way, under the robots.txt and retry
                        // rules of any failure.
                        info!(%origin, %why, "name lookup failed");
                        None
                    }
                };
                frontier.resolved(&origin, ip, now);
            }
            Outcome::Robots { origin, result } => {
                self.monitor.robots(&result);
                let state = match result {
                    RobotsResult::Answer(record) => {
                        self.store.put_robots(&origin, &record)?;
                        let state = self.known_robots(&record);
                        if let RobotsState::Known { policy, .. } = &state
                            && let RobotsPolicy::Rules(rules) = policy.as_ref()
                            && !rules.sitemaps.is_empty()
                        {
                            let entries = self.sitemaps.entries(&rules.sitemaps, 0, &self.scope);
                            let queued = self.store.enqueue(entries)?;
                            frontier.push(queued, now);
                        }
                        state
                    }
                    RobotsResult::Refused(why) => {
                        run.errors += 1;
                        warn!(%origin, %why, "host refused: its URLs stay queued");
                        RobotsState::Parked
                    }
                    RobotsResult::Unavailable { why, retry_after } => {
                        run.errors += 1;
                        self.robots_unavailable(&origin, &why, retry_after, frontier, now)?
                    }
                };
                frontier.robots_done(&origin, state, now);
            }
            Outcome::Page {
                origin,
                key,
                mut entry,
                url,
                fetched_at_ms,
                elapsed,
                result,
                rendering,
            } => {
                run.fetched += 1;
                for sent in rendering.iter().flat_map(|r| &r.sent) {
                    self.monitor
                        .record(&sent.origin, sent.status, is_failed_status(sent.status));
                }
                let answer = result.as_ref().map(|(fetched, _)| fetched);
                if answer.is_ok() {
                    // How long the server took to answer; a request cut off measured only
                    // our deadline, and its failure backs the host off below.
                    frontier.answered_in(&origin, elapsed, now);
                }
                let failed = is_failure(answer);
                if failed {
                    run.errors += 1;
                }
                let render = rendering.as_ref().map(|r| &r.record.outcome);
                self.monitor
                    .fetched(&origin, entry.kind, (answer, failed), elapsed, render);
                match frontier.record_outcome(&origin, failed, now) {
                    Trip::Closed => {}
                    Trip::PauseUntil(until) => warn!(
                        %origin,
                        pause = ?until.duration_since(now),
                        "over 10% errors in the last minute: host paused"
                    ),
                    Trip::Halt => {
                        warn!(
                            %origin,
                            "50 failures in a row: host halted until `crawler resume` lifts it"
                        );
                        self.store
                            .halt_host(&origin, "50 failures in a row (circuit breaker)")?;
                    }
                }
                let host_failures = frontier.failures_in_row(&origin);
                match self.retry.verdict(answer, entry.attempts, host_failures) {
                    Verdict::RetryAfter(wait) => {
                        entry.attempts += 1;
                        let failure = page::failure_event(answer, fetched_at_ms);
                        info!(%url, attempts = entry.attempts, ?wait, why = failure.error.as_deref().unwrap_or_default(), "not now: the host waits, the URL goes to the back of its queue");
                        let requeued = self.store.requeue(&key, &entry, &url, failure)?;
                        frontier.page_retry(&origin, &key, requeued, entry, wait, now);
                        return Ok(());
                    }
                    Verdict::GiveUp if entry.kind == EntryKind::Revisit => {
                        // A revisit that fails keeps the stored copy; the page is tried
                        // again at its next visit.
                        return self.finish_revisit(&origin, &key, &url, frontier, now);
                    }
                    Verdict::Keep | Verdict::GiveUp => {}
                }
                let queued = match (entry.kind, result) {
                    (EntryKind::Sitemap, result) => {
                        let discovered = self.sitemaps.discovered(
                            &url,
                            &entry,
                            job::sitemap_answer(&url, result),
                            &self.scope,
                            &self.params,
                        );
                        self.store.commit_done(&key, None, discovered)?
                    }
                    (EntryKind::Revisit, Ok((fetched, _))) if fetched.status == 304 => {
                        return self.finish_revisit(&origin, &key, &url, frontier, now);
                    }
                    (_, result) => self.store_page(
                        &key,
                        &url,
                        &entry,
                        result,
                        rendering.as_ref(),
                        fetched_at_ms,
                    )?,
                };
                if let Some(verdict) = rendering
                    .as_ref()
                    .and(self.renderer.as_ref())
                    .and_then(|renderer| renderer.unsaved_auto(url.host()))
                {
                    self.store.put_auto_verdict(url.host(), verdict)?;
                }
                frontier.push(queued, now);
                frontier.page_done(&origin, &key, now);
            }
        }
        Ok(())
    }
}

impl Crawler {
    /// Writes a fetched page (or its failure) with its links and its next visit.
    fn store_page(
        &mut self,
        key: &[u8],
        url: &CanonicalUrl,
        entry: &FrontierEntry,
        result: PageResult,
        rendering: Option<&Rendering>,
        fetched_at_ms: u64,
    ) -> Result<Vec<crate::store::QueuedUrl>, Error> {
        let mut stored = match result {
            Ok((fetched, parsed)) => {
                let read = match parsed {
                    Parsed::Content(read) => Some(read),
                    Parsed::Nothing | Parsed::Sitemap(_) => None,
                };
                if let Some(read) = &read {
                    self.store
                        .note_trapped(TrapRule::TooLong, read.extracted.too_long_links as u64);
                }
                let store = &self.store;
                let variant_of = rendering.and_then(Rendering::variant_of);
                let mut stored = page::answered(
                    url,
                    entry,
                    fetched,
                    read,
                    fetched_at_ms,
                    page::Reading {
                        agent: &self.options.config.agent,
                        params: &self.params,
                    },
                    |hash, near| match variant_of {
                        Some(original) => Ok(Some(original.to_string())),
                        None => store.content_owner(hash, near, url.as_str()),
                    },
                )?;
                // A variant, not rendered, is its original's copy by `duplicate_of`; its own
                // static text hash says nothing of what it shows (a rendered page may show
                // that text as its own), so it carries none.
                if variant_of.is_some() {
                    stored.record.content_hash = 0;
                }
                stored
            }
            Err(error) => {
                debug!(%url, %error, "fetch failed");
                page::failed(url, entry, &error, fetched_at_ms)
            }
        };
        if stored.record.duplicate_of.is_some() {
            self.monitor.duplicate();
        }
        let discovered = page::discovered(&stored, url, entry, &self.scope, &self.options.config);
        // Only a revisit has a schedule already: a page entry is a URL never seen before.
        let previous = match entry.kind {
            EntryKind::Revisit => self.store.revisit(url.as_str())?,
            EntryKind::Page | EntryKind::Sitemap | EntryKind::Image => None,
        };
        let revisit = self.revisit.after(
            previous.as_ref(),
            Visit::Fetched(&stored.record),
            fetched_at_ms,
        );
        let images = page::page_images(&stored, &self.scope, &self.options.config);
        self.monitor.metrics().page_written();
        Ok(self.store.commit_page(PageCommit {
            done: Some(key),
            page: &mut stored.record,
            outlinks: &stored.outlinks,
            discovered,
            revisit: &revisit,
            simhash: stored.simhash,
            failed_before: entry.attempts,
            kind: stored.extra.commit(images.as_ref()),
            rendered: rendering.map(|r| &r.record),
            static_text_hash: rendering.and_then(Rendering::static_text_hash),
        })?)
    }

    /// Ends a revisit that leaves the stored copy as it is (a 304, or a failure): only its
    /// schedule moves on.
    fn finish_revisit(
        &mut self,
        origin: &str,
        key: &[u8],
        url: &CanonicalUrl,
        frontier: &mut Frontier,
        now: Instant,
    ) -> Result<(), Error> {
        let previous = self.store.revisit(url.as_str())?;
        let revisit = self
            .revisit
            .after(previous.as_ref(), Visit::NotModified, now_ms());
        debug!(%url, next_in = ?Duration::from_millis(revisit.interval_ms), "stored copy stands");
        self.store
            .commit_done(key, Some((url.as_str(), &revisit)), Vec::new())?;
        frontier.page_done(origin, key, now);
        Ok(())
    }
}

/// A render's request failed: no answer, or a 429 or 5xx.
fn is_failed_status(status: Option<u16>) -> bool {
    status.is_none_or(|status| status == 429 || status >= 500)
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
