//! Rendering settings: whether a host's pages are run in a headless browser
//! ([`RenderMode`]), and the bounds every render keeps ([`RenderSettings`]).

use std::num::{NonZeroU32, NonZeroUsize};
use std::time::Duration;

use super::BadValue;
use super::check::{at_least_one, positive_millis};

/// Whether a host's HTML pages are rendered (their scripts run) before links and text are
/// read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RenderMode {
    /// Never: the static page is all there is (the default; no browser is started).
    #[default]
    Never,
    /// Every HTML page of the host.
    Always,
    /// A sample of the host's first pages; rendering goes on only where it finds materially
    /// more links or text than the static pages have.
    Auto,
}

impl RenderMode {
    /// The name as written in config.
    pub fn name(self) -> &'static str {
        match self {
            RenderMode::Never => "never",
            RenderMode::Always => "always",
            RenderMode::Auto => "auto",
        }
    }

    /// Reads `render = "..."` under `key`.
    pub(super) fn parse(key: &str, name: &str) -> Result<Self, BadValue> {
        match name.trim().to_ascii_lowercase().as_str() {
            "never" => Ok(RenderMode::Never),
            "always" => Ok(RenderMode::Always),
            "auto" => Ok(RenderMode::Auto),
            _ => Err(BadValue::new(
                key,
                format!("{name:?} is not a render mode (one of never, always, auto)"),
            )),
        }
    }
}

/// What a page's request is for, as the browser tells it: the types a render may fetch
/// are a setting (`render_fetch`), every other request is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// A frame's document (the page's own document is always answered).
    Document,
    /// A style sheet.
    Stylesheet,
    /// A script.
    Script,
    /// `XMLHttpRequest`.
    Xhr,
    /// `fetch()`.
    Fetch,
    /// An image.
    Image,
    /// A font.
    Font,
    /// Audio or video.
    Media,
    /// A subtitle track.
    TextTrack,
    /// Server-sent events.
    EventSource,
    /// A web app manifest.
    Manifest,
    /// Anything else the browser names (prefetches, pings, reports, WebSockets ...).
    Other,
}

impl Resource {
    /// Every type, in the order of [`Resource::name`]s listed in errors.
    pub const ALL: [Resource; 12] = [
        Resource::Document,
        Resource::Stylesheet,
        Resource::Script,
        Resource::Xhr,
        Resource::Fetch,
        Resource::Image,
        Resource::Font,
        Resource::Media,
        Resource::TextTrack,
        Resource::EventSource,
        Resource::Manifest,
        Resource::Other,
    ];

    /// The name in config: the DevTools protocol's resource type, lowercase.
    pub fn name(self) -> &'static str {
        match self {
            Resource::Document => "document",
            Resource::Stylesheet => "stylesheet",
            Resource::Script => "script",
            Resource::Xhr => "xhr",
            Resource::Fetch => "fetch",
            Resource::Image => "image",
            Resource::Font => "font",
            Resource::Media => "media",
            Resource::TextTrack => "texttrack",
            Resource::EventSource => "eventsource",
            Resource::Manifest => "manifest",
            Resource::Other => "other",
        }
    }

    /// The type of a DevTools `Network.ResourceType` (`"XHR"`, `"Script"` ...); types that
    /// are never fetched (`"WebSocket"`, `"Ping"`, `"Prefetch"` ...) are `None`.
    pub fn from_devtools(name: &str) -> Option<Self> {
        Resource::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(name))
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of [`Resource`] types.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResourceSet(u16);

impl ResourceSet {
    /// The set of `resources`.
    pub fn of(resources: &[Resource]) -> Self {
        Self(resources.iter().fold(0, |bits, r| bits | r.bit()))
    }

    /// Whether `resource` is in the set.
    pub fn contains(self, resource: Resource) -> bool {
        self.0 & resource.bit() != 0
    }
}

/// The bounds of rendering, the same for every host.
#[derive(Clone, Debug)]
pub struct RenderSettings {
    /// The browser program: Debian's `chromium` (a name looked up in `PATH`, or a path).
    pub browser: String,
    /// Wall-clock deadline of one page's render; past it the page is stored unrendered.
    pub timeout: Duration,
    /// How long a loaded page must go without an answered request before it is read.
    pub settle: Duration,
    /// Most requests one page may make (answered); past it all are refused.
    pub max_requests: NonZeroU32,
    /// Most pages rendered at once.
    pub concurrency: NonZeroUsize,
    /// A browser is replaced after rendering this many pages.
    pub recycle_pages: NonZeroU32,
    /// A browser is replaced once its processes together use more memory than this.
    pub max_browser_bytes: u64,
    /// The request types a page may make; others are refused without a request.
    pub fetch: ResourceSet,
}

/// `render_fetch`: known type names.
pub(super) fn resource_set(key: &str, names: &[String]) -> Result<ResourceSet, BadValue> {
    let mut resources = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let resource = Resource::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                let known: Vec<_> = Resource::ALL.iter().map(|r| r.name()).collect();
                BadValue::new(
                    format!("{key}[{i}]"),
                    format!(
                        "{name:?} is not a request type (one of {})",
                        known.join(", ")
                    ),
                )
            })?;
        resources.push(resource);
    }
    Ok(ResourceSet::of(&resources))
}

/// The raw `render_*` keys, checked.
pub(super) struct RawRender<'a> {
    pub browser: &'a str,
    pub timeout_ms: u64,
    pub settle_ms: u64,
    pub max_requests: u32,
    pub concurrency: usize,
    pub recycle_pages: u32,
    pub max_browser_bytes: u64,
    pub fetch: &'a [String],
}

impl RawRender<'_> {
    pub(super) fn validate(
        &self,
        key: impl Fn(&str) -> String,
    ) -> Result<RenderSettings, BadValue> {
        if self.browser.trim().is_empty() {
            return Err(BadValue::new(key("render_browser"), "names no program"));
        }
        if self.max_browser_bytes < 64 << 20 {
            return Err(BadValue::new(
                key("render_max_browser_bytes"),
                "must be at least 67108864 (64 MiB): a browser needs that much to start",
            ));
        }
        Ok(RenderSettings {
            browser: self.browser.trim().to_string(),
            timeout: positive_millis(&key("render_timeout_ms"), self.timeout_ms)?,
            settle: Duration::from_millis(self.settle_ms),
            max_requests: at_least_one(&key("render_max_requests"), self.max_requests)?,
            concurrency: at_least_one(&key("render_concurrency"), self.concurrency)?,
            recycle_pages: at_least_one(&key("render_recycle_pages"), self.recycle_pages)?,
            max_browser_bytes: self.max_browser_bytes,
            fetch: resource_set(&key("render_fetch"), self.fetch)?,
        })
    }
}
