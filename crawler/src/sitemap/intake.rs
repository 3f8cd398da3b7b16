//! Sitemaps in the crawl: robots.txt `Sitemap:` lines and index entries become frontier
//! entries (in scope, bounded per host), and a fetched sitemap's URLs become seeds.

use std::collections::HashMap;

use shared::CanonicalUrl;
use shared::config::CrawlerConfig;
use shared::record::{EntryKind, FrontierEntry};
use tracing::{debug, info};

use super::{Sitemap, SitemapEntries, SitemapError};
use crate::fetch::FetchError;
use crate::params::ParamStrip;
use crate::scope::Scope;

/// A fetched sitemap's answer, as the crawl hands it over.
pub(crate) enum SitemapAnswer {
    /// A 2xx answer, read (or not).
    Read(Result<Sitemap, SitemapError>),
    /// A 3xx answer, with its target when `Location` names one.
    Moved(Option<CanonicalUrl>),
    /// Any other answer, or a 2xx that was not read: its status.
    NotRead(u16),
    /// No answer.
    Failed(FetchError),
}

/// The crawl's sitemaps: which become frontier entries, and what a fetched one adds.
pub(crate) struct SitemapIntake {
    /// Whether sitemaps are read at all (`sitemaps`).
    enabled: bool,
    /// `max_sitemaps_per_host`.
    max_per_host: u32,
    /// Sitemap files queued per origin in this run (bounded by `max_sitemaps_per_host`).
    queued: HashMap<String, u32>,
}

impl SitemapIntake {
    /// No sitemap queued yet, with `config`'s switch and bound.
    pub(crate) fn new(config: &CrawlerConfig) -> Self {
        Self {
            enabled: config.sitemaps,
            max_per_host: config.max_sitemaps_per_host,
            queued: HashMap::new(),
        }
    }

    /// Sitemap entries for `urls` (from robots.txt or a sitemap index), within scope and the
    /// per-host bound.
    pub(crate) fn entries(
        &mut self,
        urls: &[String],
        depth: u32,
        scope: &Scope,
    ) -> Vec<(CanonicalUrl, FrontierEntry)> {
        let mut out = Vec::new();
        if !self.enabled {
            return out;
        }
        for url in urls {
            let Ok(url) = CanonicalUrl::parse(url) else {
                debug!(%url, "sitemap URL does not parse");
                continue;
            };
            if !scope.contains(&url) {
                debug!(%url, "sitemap out of scope");
                continue;
            }
            let count = self.queued.entry(url.origin()).or_default();
            if *count >= self.max_per_host {
                debug!(%url, "sitemap not read: max_sitemaps_per_host reached");
                continue;
            }
            *count += 1;
            let entry = FrontierEntry {
                kind: EntryKind::Sitemap,
                ..FrontierEntry::page(url.as_str(), depth)
            };
            out.push((url, entry));
        }
        out
    }

    /// What a fetched sitemap adds: its page URLs (in scope, `params` stripped) as depth-0
    /// seeds, for an index its child sitemaps (an index inside an index is not followed, as
    /// the protocol has no such thing), for a redirect its target.
    pub(crate) fn discovered(
        &mut self,
        url: &CanonicalUrl,
        entry: &FrontierEntry,
        answer: SitemapAnswer,
        scope: &Scope,
        params: &ParamStrip,
    ) -> Vec<(CanonicalUrl, FrontierEntry)> {
        let parsed = match answer {
            SitemapAnswer::Read(parsed) => parsed,
            SitemapAnswer::Moved(target) => {
                // A moved sitemap: its target is a sitemap of the same standing.
                let Some(target) = target.filter(|_| entry.redirects() < 5) else {
                    return Vec::new();
                };
                let mut discovered = self.entries(&[target.into()], entry.depth, scope);
                for (_, next) in &mut discovered {
                    next.redirected_from = entry.redirected_from.clone();
                    next.redirected_from.push(url.as_str().to_string());
                }
                return discovered;
            }
            SitemapAnswer::NotRead(status) => {
                info!(%url, status, "sitemap not read");
                return Vec::new();
            }
            SitemapAnswer::Failed(error) => {
                info!(%url, %error, "sitemap not fetched");
                return Vec::new();
            }
        };
        let sitemap = match parsed {
            Ok(sitemap) => sitemap,
            Err(error) => {
                info!(%url, %error, "sitemap unreadable");
                return Vec::new();
            }
        };
        if let Some(error) = &sitemap.stopped {
            info!(%url, %error, entries = sitemap.entries.len(), "sitemap read in part");
        }
        match sitemap.entries {
            SitemapEntries::Pages(pages) => {
                debug!(%url, urls = pages.len(), "sitemap read");
                pages
                    .into_iter()
                    .filter_map(|page| CanonicalUrl::parse(page.url.as_str()).ok())
                    .map(|target| params.apply(target))
                    .filter(|target| scope.contains(target))
                    .map(|target| {
                        let entry = FrontierEntry::page(target.as_str(), 0);
                        (target, entry)
                    })
                    .collect()
            }
            SitemapEntries::Sitemaps(children) if entry.depth == 0 => {
                debug!(%url, sitemaps = children.len(), "sitemap index read");
                let children: Vec<String> =
                    children.into_iter().map(|c| c.url.to_string()).collect();
                self.entries(&children, entry.depth + 1, scope)
            }
            SitemapEntries::Sitemaps(_) => {
                info!(%url, "a sitemap index inside an index is not followed");
                Vec::new()
            }
        }
    }
}
