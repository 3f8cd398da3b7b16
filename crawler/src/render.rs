//! Rendering: a host's HTML pages run in headless Chromium (`render = "always"`, or
//! `"auto"` where a sample shows scripts add links or text), so links and text that scripts
//! build are read too.
//!
//! - [`browser`]: the browser process, started by the crawler with no network of its own and
//!   driven over a pipe ([`cdp`]); no browser outlives the crawler.
//! - [`page`]: one page in a fresh tab and context, to a wall-clock deadline.
//! - [`network`]: every request a page makes, answered by the crawler's fetcher under
//!   robots.txt, the host's delay, the address policy, the body limit and a per-page cap;
//!   scripts and style sheets kept for the run in [`cache`].
//! - [`auto`]: the sample that decides an `auto` host.
//! - [`retirement`]: why a browser is replaced, and the warning when its memory bound is too
//!   low for the pages rendered at once.
//!
//! [`Renderer`] holds one browser at a time, renders at most `render_concurrency` pages at
//! once, and replaces the browser every `render_recycle_pages` pages, when its memory passes
//! `render_max_browser_bytes`, and when it fails. A replaced browser finishes its pages and
//! is gone before its successor starts, so two never run side by side. What a render finds
//! is stored beside the static page ([`shared::record::RenderedPage`]).

mod auto;
mod browser;
mod cache;
mod cdp;
mod network;
mod page;
mod reply;
mod retirement;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use shared::CanonicalUrl;
use shared::config::{CrawlerConfig, RenderMode, RenderSettings};
use shared::store::AutoVerdict;
use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tracing::{info, warn};

use crate::fetch::Fetcher;
use crate::metrics::CrawlMetrics;
use browser::Browser;
use network::Network;
use page::{PageSource, Tab};
use retirement::{BoundWatch, Retirement};

pub(crate) use auto::Gain;
pub(crate) use network::{OriginRules, SentRequest};

/// After a browser fails to start, renders wait this long before it is tried again (pages
/// meanwhile are stored unrendered, with the reason).
const RELAUNCH_PAUSE: Duration = Duration::from_secs(60);
/// The browser's memory is measured after every this many pages.
const MEASURE_EVERY: u32 = 16;
/// How long past a page's deadline a retired browser waits for that page before its
/// successor starts anyway (closing a tab past its deadline takes up to 3 s).
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Why rendering cannot run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RenderError {
    /// The browser program is not installed.
    #[error(
        "rendering is on (render = \"always\" or \"auto\") but the browser `{program}` is not installed: install Debian's `chromium` package (apt-get install chromium), or set render = \"never\""
    )]
    BrowserMissing {
        /// The program looked for.
        program: String,
    },
    /// The browser did not start.
    #[error("the browser could not start: {0}")]
    Launch(String),
}

/// A page to render: the answer the crawl fetched, and the rules of its origin.
pub(crate) struct RenderRequest<'a> {
    /// The page's URL.
    pub url: &'a CanonicalUrl,
    /// The answer's headers.
    pub headers: &'a [(String, String)],
    /// Its body.
    pub body: &'a [u8],
    /// The robots.txt and gaps of the page's origin.
    pub own: OriginRules,
}

/// What a render came to.
pub(crate) struct Rendered {
    /// The document after scripts ran, or why the page was not rendered.
    pub document: Result<String, String>,
    /// Requests the page made that were answered.
    pub requests: u32,
    /// Requests refused.
    pub refused: u32,
    /// The requests sent to sites.
    pub sent: Vec<SentRequest>,
    /// How long it took (waiting for a free render slot or a browser's start not counted).
    pub elapsed: Duration,
}

struct Running {
    browser: Browser,
    /// Tabs free for the next page.
    tabs: std::sync::Mutex<Vec<Tab>>,
    /// One permit per page being rendered in this browser ([`OnBrowser`]); all of them
    /// taken means no page is.
    open_pages: Arc<Semaphore>,
    pages: AtomicU32,
    retired: AtomicBool,
}

/// A page's hold on the browser it renders in: a retired browser is stopped only once no
/// page holds it.
struct OnBrowser {
    // Dropped before the permit, so a successor that has every permit holds the last
    // reference to the browser.
    running: Arc<Running>,
    _page: OwnedSemaphorePermit,
}

impl Running {
    fn usable(&self) -> bool {
        !self.retired.load(Ordering::Acquire) && !self.browser.cdp().is_broken()
    }

    fn take_tab(&self) -> Option<Tab> {
        self.tabs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop()
    }

    fn give_back(&self, tab: Tab) {
        self.tabs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(tab);
    }
}

struct Inner {
    program: PathBuf,
    config: CrawlerConfig,
    settings: RenderSettings,
    network: Network,
    slots: Semaphore,
    running: Mutex<Option<Arc<Running>>>,
    launches: AtomicU64,
    failed_launch: std::sync::Mutex<Option<(Instant, String)>>,
    auto: auto::AutoDecisions,
    bound_watch: BoundWatch,
    profiles: PathBuf,
    /// Where browser replacements are counted, once a crawl with metrics says.
    metrics: std::sync::OnceLock<CrawlMetrics>,
}

/// Renders pages in a browser it starts and replaces as needed. Cloning shares it.
#[derive(Clone)]
pub(crate) struct Renderer {
    inner: Arc<Inner>,
}

impl Renderer {
    /// The renderer of a crawl whose config renders some host; `None` when none does (no
    /// browser is looked for). The browser starts with the first render.
    pub(crate) fn new(config: &CrawlerConfig) -> Result<Option<Self>, RenderError> {
        if !config.renders() {
            return Ok(None);
        }
        let settings = config.rendering.clone();
        let program = browser::find_program(&settings.browser).ok_or_else(|| {
            RenderError::BrowserMissing {
                program: settings.browser.clone(),
            }
        })?;
        let profiles = profiles_dir();
        remove_orphan_profiles();
        Ok(Some(Self {
            inner: Arc::new(Inner {
                program,
                network: Network::new(config),
                slots: Semaphore::new(settings.concurrency.get()),
                config: config.clone(),
                settings,
                running: Mutex::new(None),
                launches: AtomicU64::new(0),
                failed_launch: std::sync::Mutex::new(None),
                auto: auto::AutoDecisions::default(),
                bound_watch: BoundWatch::default(),
                profiles,
                metrics: std::sync::OnceLock::new(),
            }),
        }))
    }

    /// Counts its browser replacements in `metrics` (the first metrics given stay).
    pub(crate) fn count_in(&self, metrics: CrawlMetrics) {
        let _ = self.inner.metrics.set(metrics);
    }

    /// Whether `host`'s page is to be rendered now.
    pub(crate) fn wants(&self, host: &str) -> bool {
        match self.inner.config.render_for(host) {
            RenderMode::Never => false,
            RenderMode::Always => true,
            RenderMode::Auto => self.inner.auto.wants(host),
        }
    }

    /// Tells an `auto` host's sample what a render of its page added.
    pub(crate) fn observe(&self, host: &str, gain: Gain) {
        if self.inner.config.render_for(host) == RenderMode::Auto {
            self.inner.auto.observe(host, gain);
        }
    }

    /// Starts an `auto` host from the verdict a former run stored.
    pub(crate) fn remember_auto(&self, host: &str, verdict: AutoVerdict) {
        if self.inner.config.render_for(host) == RenderMode::Auto {
            self.inner.auto.remember(host, verdict);
        }
    }

    /// An `auto` host's verdict when it changed since last asked, for the store.
    pub(crate) fn unsaved_auto(&self, host: &str) -> Option<AutoVerdict> {
        self.inner.auto.unsaved(host)
    }

    /// Renders one page, its requests answered through `fetcher`.
    pub(crate) async fn render(&self, fetcher: &Fetcher, request: RenderRequest<'_>) -> Rendered {
        let Ok(_slot) = self.inner.slots.acquire().await else {
            return not_rendered("rendering stopped".into());
        };
        // The page's deadline starts once it has a browser (starting one has its own).
        let on_browser = match self.browser().await {
            Ok(on_browser) => on_browser,
            Err(why) => return not_rendered(why),
        };
        let running = &on_browser.running;
        let started = Instant::now();
        let settings = &self.inner.settings;
        let mut network = self.inner.network.for_page(
            fetcher.clone(),
            request.url,
            request.own,
            settings.max_requests.get(),
        );
        let headers: Vec<(String, String)> = request
            .headers
            .iter()
            .filter(|(name, _)| !network::is_transfer_header(name))
            .cloned()
            .collect();
        let source = PageSource {
            url: request.url.as_str(),
            headers: &headers,
            body: request.body,
        };
        let deadline = started + settings.timeout;
        let max_chars = self.inner.config.max_body_bytes;
        let cdp = running.browser.cdp();
        let tab = match running.take_tab() {
            Some(tab) => Ok(tab),
            None => match tokio::time::timeout_at(deadline, Tab::open(cdp)).await {
                Ok(Ok(tab)) => Ok(tab),
                Ok(Err(error)) => Err(format!("the browser failed: {error}")),
                Err(_) => Err("the browser did not open a tab before the deadline".into()),
            },
        };
        let (document, unusable) = match tab {
            Ok(mut tab) => {
                let document = tab
                    .render(
                        cdp,
                        source,
                        &mut network,
                        (deadline, settings.settle),
                        max_chars,
                    )
                    .await
                    .map_err(|not| not.reason);
                let kept = document.is_ok() && tab.reset(cdp).await;
                let usable = if kept {
                    running.give_back(tab);
                    true
                } else {
                    tab.close(cdp).await
                };
                (document, !usable)
            }
            Err(why) => (Err(why), true),
        };
        self.after_page(running, unusable || cdp.is_broken());
        Rendered {
            document,
            requests: network.requests,
            refused: network.refused,
            sent: network.sent,
            elapsed: started.elapsed(),
        }
    }

    /// The browser in use, started if there is none; a retired one is stopped first, once
    /// its pages are done (later pages wait for the successor meanwhile).
    async fn browser(&self) -> Result<OnBrowser, String> {
        let mut running = self.inner.running.lock().await;
        if let Some(current) = running.as_ref()
            && current.usable()
        {
            return hold(current);
        }
        if let Some(old) = running.take() {
            self.stop_when_idle(old).await;
        }
        if let Some((at, why)) = self.failed_launch()
            && at.elapsed() < RELAUNCH_PAUSE
        {
            return Err(format!("the browser could not start: {why}"));
        }
        let n = self.inner.launches.fetch_add(1, Ordering::Relaxed);
        let profile = self.inner.profiles.join(n.to_string());
        match Browser::launch(&self.inner.program, profile, self.inner.settings.fetch).await {
            Ok(browser) => {
                info!(program = %self.inner.program.display(), launch = n + 1, "browser started");
                let started = Arc::new(Running {
                    browser,
                    tabs: std::sync::Mutex::new(Vec::new()),
                    open_pages: Arc::new(Semaphore::new(self.inner.settings.concurrency.get())),
                    pages: AtomicU32::new(0),
                    retired: AtomicBool::new(false),
                });
                let on_browser = hold(&started);
                *running = Some(started);
                on_browser
            }
            Err(error) => {
                warn!(%error, "browser failed to start: pages are stored unrendered for a minute");
                let why = error.to_string();
                *self
                    .inner
                    .failed_launch
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) =
                    Some((Instant::now(), why.clone()));
                Err(why)
            }
        }
    }

    /// Waits until no page renders in `old` (each has a deadline; a page past it by more
    /// than [`CLOSE_GRACE`] is not waited for), then stops it and waits for its processes.
    async fn stop_when_idle(&self, old: Arc<Running>) {
        let all = u32::try_from(self.inner.settings.concurrency.get()).unwrap_or(u32::MAX);
        let idle = Arc::clone(&old.open_pages).acquire_many_owned(all);
        let drained = tokio::time::timeout(self.inner.settings.timeout + CLOSE_GRACE, idle).await;
        match Arc::try_unwrap(old) {
            Ok(old) => old.browser.shut_down().await,
            // A page still holds it: the browser stops when that page lets it go.
            Err(_) => warn!(
                drained = drained.is_ok(),
                "a retired browser still had a page: its successor starts beside it"
            ),
        }
    }

    fn failed_launch(&self) -> Option<(Instant, String)> {
        self.inner
            .failed_launch
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Counts a page on its browser and retires the browser when it is due: unusable, old,
    /// or too big. The next page to ask for a browser stops it and starts its successor.
    fn after_page(&self, running: &Running, unusable: bool) {
        let pages = running.pages.fetch_add(1, Ordering::Relaxed) + 1;
        let settings = &self.inner.settings;
        let recycle_pages = settings.recycle_pages.get();
        let why = if unusable {
            Retirement::Failed
        } else if pages >= recycle_pages {
            Retirement::Recycled { pages }
        } else if pages.is_multiple_of(MEASURE_EVERY) {
            let bytes = running.browser.memory_bytes();
            if bytes <= settings.max_browser_bytes {
                return;
            }
            Retirement::TooBig { bytes }
        } else {
            return;
        };
        if running.retired.swap(true, Ordering::AcqRel) {
            return;
        }
        info!(%why, "browser replaced");
        if let Some(metrics) = self.inner.metrics.get() {
            metrics.browser_replaced();
        }
        if self
            .inner
            .bound_watch
            .bound_too_low(why, pages, recycle_pages)
        {
            warn!(
                render_max_browser_bytes = settings.max_browser_bytes,
                render_concurrency = settings.concurrency.get(),
                "browsers keep passing their memory bound within a few dozen pages: each page \
                 rendered at once has a renderer process of its own, a few hundred MiB on a \
                 large page; raise render_max_browser_bytes (about 512 MiB per page rendered at \
                 once) or lower render_concurrency"
            );
        }
    }
}

/// A page's hold on `running`. A browser has a permit per render slot, and a page holds a
/// slot, so there is always one.
fn hold(running: &Arc<Running>) -> Result<OnBrowser, String> {
    let page = Arc::clone(&running.open_pages)
        .try_acquire_owned()
        .map_err(|_| "the browser has no room for another page".to_string())?;
    Ok(OnBrowser {
        running: Arc::clone(running),
        _page: page,
    })
}

fn not_rendered(reason: String) -> Rendered {
    Rendered {
        document: Err(reason),
        requests: 0,
        refused: 0,
        sent: Vec::new(),
        elapsed: Duration::ZERO,
    }
}

/// Where a renderer's browser profiles go: one folder per process (removed by the next
/// renderer once the process is gone), one per renderer in it, one profile per browser.
fn profiles_dir() -> PathBuf {
    static RENDERERS: AtomicU64 = AtomicU64::new(0);
    let n = RENDERERS.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir()
        .join(format!("sift-browser-{}", std::process::id()))
        .join(n.to_string())
}

/// Removes the profile folders of crawler processes that are gone (killed before they
/// could remove their own).
fn remove_orphan_profiles() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix("sift-browser-"))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
