//! robots.txt: parsing (RFC 9309, read as Google's reference parser reads it) and the
//! allow/disallow decision for one product token.
//!
//! A body is parsed once per host for our token ([`RobotsRules::parse`]) and then asked about
//! many paths ([`RobotsRules::allows`]).
//!
//! - Lines (`line.rs`): CR, LF or CRLF; a byte order mark skipped; `#` comments; a
//!   missing colon forgiven; names case-insensitive, with the misspellings Google accepts.
//!   Lines longer than Google's limit are cut.
//! - Groups: one or more `User-agent` lines, then rules. A `User-agent` line after a rule
//!   starts the next group; other lines (`Sitemap`, `Crawl-delay`, unknown ones) end nothing.
//!   Rules before the first `User-agent` line belong to no group and are ignored.
//! - Agents: a `User-agent` value names our token when its leading run of `[A-Za-z_-]`
//!   equals the token, case-insensitively (`FooBot/2.1` and `foobot images` name `FooBot`).
//!   A value that is `*` alone, or `*` and then whitespace, is the global group. The groups
//!   naming us are merged and obeyed, even with no rule that matches; when none names us, the
//!   global groups are; when there is neither, everything is allowed.
//! - Rules (`pattern.rs`): paths and patterns percent-encoded alike; the longest
//!   matching pattern wins and `Allow` wins a tie; `*` and a final `$` are wildcards.
//!   `Allow: /dir/index.html` allows `/dir/` too (Google). `/robots.txt` is always allowed.
//! - Only the first [`MAX_ROBOTS_BYTES`] are read; a line cut there is dropped, not obeyed.
//! - Outside RFC 9309: `Crawl-delay` of the obeyed groups, and `Sitemap` lines (every agent).
//!
//! Fetching robots.txt, decoding its body, its cache lifetime and what a failure means are
//! the crawler's (`crawler/src/robots_fetch.rs`), as is the decision table every case is
//! checked against through that reading (`crawler/src/robots_fetch/cases.rs`). This crate
//! has no I/O and no dependency but `shared`, whose percent form and product-token
//! characters it shares with URL canonicalization and config checking.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod line;
mod pattern;

use shared::config::is_product_token_byte;
use shared::record::RobotsFetch;

use line::Directive;
use pattern::Pattern;

/// How much of a robots.txt is parsed; the rest is ignored (RFC 9309 2.5 asks for at least
/// 500 KiB).
pub const MAX_ROBOTS_BYTES: usize = 500 * 1024;

/// The rules of one robots.txt that apply to our token.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RobotsRules {
    rules: Vec<Rule>,
    /// `Crawl-delay` of the groups we obey (the last valid one), in seconds.
    pub crawl_delay: Option<f64>,
    /// `Sitemap` lines (they apply to every agent), in file order.
    pub sitemaps: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
struct Rule {
    allow: bool,
    pattern: Pattern,
    /// Where it was written: what a refusal quotes.
    source: RuleSource,
}

/// A robots.txt line, as a refusal quotes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSource {
    /// Its line number, from 1.
    pub line: u32,
    /// The line as written (trimmed, at most `MAX_QUOTED_CHARS` characters).
    pub text: String,
}

/// Characters of a robots.txt line kept to quote it.
const MAX_QUOTED_CHARS: usize = 200;

impl RuleSource {
    fn new(line: u32, text: &[u8]) -> Self {
        let text = String::from_utf8_lossy(text);
        Self {
            line,
            text: text.trim().chars().take(MAX_QUOTED_CHARS).collect(),
        }
    }
}

/// Why robots.txt keeps the crawler off a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A `Disallow` rule matched, and no `Allow` rule as specific.
    Rule(RuleSource),
    /// robots.txt answered 401 or 403: the whole site is off limits.
    Forbidden,
}

impl Refusal {
    /// The reason as the store keeps it.
    pub fn skip_reason(&self) -> shared::record::SkipReason {
        match self {
            Refusal::Rule(source) => shared::record::SkipReason::RobotsRule {
                line: source.line,
                rule: source.text.clone(),
            },
            Refusal::Forbidden => shared::record::SkipReason::RobotsForbidden,
        }
    }
}

/// What robots.txt says about a host, as the crawler acts on it: each variant carries the
/// policy.
#[derive(Clone, Debug, PartialEq)]
pub enum RobotsPolicy {
    /// A robots.txt was read: obey its rules.
    Rules(RobotsRules),
    /// No robots.txt (404, 410, other 4xx): crawl freely.
    NoRules,
    /// 401 or 403 on robots.txt: the whole site is off limits.
    Forbidden,
}

impl RobotsPolicy {
    /// The policy a cached fetch outcome stands for.
    pub fn from_fetch(fetch: &RobotsFetch, agent: &str) -> Self {
        match fetch {
            RobotsFetch::Rules(text) => RobotsPolicy::Rules(RobotsRules::parse(text, agent)),
            RobotsFetch::NoRules => RobotsPolicy::NoRules,
            RobotsFetch::Forbidden => RobotsPolicy::Forbidden,
        }
    }

    /// Whether `path_and_query` may be fetched.
    pub fn allows(&self, path_and_query: &str) -> bool {
        self.refusal(path_and_query).is_none()
    }

    /// Why `path_and_query` may not be fetched (`None`: it may).
    pub fn refusal(&self, path_and_query: &str) -> Option<Refusal> {
        match self {
            RobotsPolicy::Rules(rules) => rules.refusal(path_and_query),
            RobotsPolicy::NoRules => None,
            RobotsPolicy::Forbidden => Some(Refusal::Forbidden),
        }
    }

    /// The `Crawl-delay` asked for, if any.
    pub fn crawl_delay(&self) -> Option<f64> {
        match self {
            RobotsPolicy::Rules(rules) => rules.crawl_delay,
            _ => None,
        }
    }
}

/// The group being read: which agents it names so far and what it says.
#[derive(Default)]
struct Group {
    /// A `User-agent` line was seen: rules from here on belong to this group.
    started: bool,
    /// A rule was seen: the next `User-agent` line starts a new group.
    has_rules: bool,
    ours: bool,
    global: bool,
    rules: Vec<Rule>,
    crawl_delay: Option<f64>,
}

impl Group {
    fn add_rule(&mut self, allow: bool, value: &[u8], source: RuleSource) {
        self.has_rules = true;
        if allow && let Some(pattern) = Pattern::index_html_directory(value) {
            self.rules.push(Rule {
                allow,
                pattern,
                source: source.clone(),
            });
        }
        if let Some(pattern) = Pattern::new(value) {
            self.rules.push(Rule {
                allow,
                pattern,
                source,
            });
        }
    }
}

/// The groups that name us and the global ones, each merged.
#[derive(Default)]
struct Merged {
    named_us: bool,
    ours: RobotsRules,
    global: RobotsRules,
}

impl Merged {
    fn close(&mut self, group: Group) {
        let targets = [
            (group.ours, &mut self.ours),
            (group.global, &mut self.global),
        ];
        for (applies, merged) in targets {
            if applies {
                merged.rules.extend(group.rules.iter().cloned());
                merged.crawl_delay = group.crawl_delay.or(merged.crawl_delay);
            }
        }
    }
}

impl RobotsRules {
    /// Parses a robots.txt body for the product token `agent` (see the module docs).
    pub fn parse(text: &str, agent: &str) -> Self {
        let mut merged = Merged::default();
        let mut group = Group::default();
        let mut sitemaps = Vec::new();
        for (number, line) in line::numbered_lines(within_limit(text)) {
            let source = || RuleSource::new(number, line);
            match line::directive(line) {
                Directive::UserAgent(value) => {
                    if group.has_rules {
                        merged.close(std::mem::take(&mut group));
                    }
                    group.started = true;
                    if is_global(value) {
                        group.global = true;
                    } else if names_agent(value, agent) {
                        group.ours = true;
                        merged.named_us = true;
                    }
                }
                Directive::Allow(value) if group.started => group.add_rule(true, value, source()),
                Directive::Disallow(value) if group.started => {
                    group.add_rule(false, value, source());
                }
                Directive::CrawlDelay(value) if group.started => {
                    if let Some(seconds) = parse_delay(value) {
                        group.crawl_delay = Some(seconds);
                    }
                }
                Directive::Sitemap(value) if !value.is_empty() => {
                    sitemaps.push(String::from_utf8_lossy(value).into_owned());
                }
                _ => {}
            }
        }
        merged.close(group);
        let mut rules = if merged.named_us {
            merged.ours
        } else {
            merged.global
        };
        rules.sitemaps = sitemaps;
        rules
    }

    /// Whether `path_and_query` (starting with `/`, as `CanonicalUrl::path_and_query` gives
    /// it) may be fetched.
    pub fn allows(&self, path_and_query: &str) -> bool {
        self.refusal(path_and_query).is_none()
    }

    /// The `Disallow` rule that keeps the crawler off `path_and_query` (`None`: it may be
    /// fetched): the most specific matching rule wins, `Allow` wins a tie.
    pub fn refusal(&self, path_and_query: &str) -> Option<Refusal> {
        if path_and_query == "/robots.txt" {
            return None;
        }
        let path = pattern::compared_path(path_and_query);
        // The most specific match of each kind (the first written among equals); `None`
        // ranks below any match.
        let mut allow: Option<(usize, &Rule)> = None;
        let mut disallow: Option<(usize, &Rule)> = None;
        for rule in &self.rules {
            let best = if rule.allow {
                &mut allow
            } else {
                &mut disallow
            };
            let specificity = rule.pattern.specificity();
            if best.is_none_or(|(best, _)| best < specificity) && rule.pattern.matches(&path) {
                *best = Some((specificity, rule));
            }
        }
        match (disallow, allow) {
            (Some((refused, rule)), allowed) if allowed.is_none_or(|(a, _)| a < refused) => {
                Some(Refusal::Rule(rule.source.clone()))
            }
            _ => None,
        }
    }
}

/// The body up to [`MAX_ROBOTS_BYTES`]. A body that reaches the limit was cut (by the fetch
/// or here), so its last line, if it does not end at a line break, is dropped: a rule cut
/// short would match more than it says.
fn within_limit(text: &str) -> &str {
    if text.len() < MAX_ROBOTS_BYTES {
        return text;
    }
    let mut end = MAX_ROBOTS_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let text = &text[..end];
    text.rfind(['\n', '\r']).map_or("", |at| &text[..=at])
}

/// Whether a `User-agent` value is the global `*`: alone or followed by whitespace (Google).
fn is_global(value: &[u8]) -> bool {
    match value {
        [b'*'] => true,
        [b'*', next, ..] => line::is_space(*next),
        _ => false,
    }
}

/// Whether a `User-agent` value names `agent`: its leading run of token characters
/// (`FooBot` in `FooBot/2.1` or `FooBot Images`) equals it, case-insensitively.
fn names_agent(value: &[u8], agent: &str) -> bool {
    let end = value
        .iter()
        .position(|&b| !is_product_token_byte(b))
        .unwrap_or(value.len());
    end > 0 && value[..end].eq_ignore_ascii_case(agent.as_bytes())
}

/// A `Crawl-delay` value: a finite, non-negative number of seconds.
fn parse_delay(value: &[u8]) -> Option<f64> {
    let seconds: f64 = std::str::from_utf8(value).ok()?.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then_some(seconds)
}

#[cfg(test)]
mod reference_tests;
