//! Sitemaps in the crawl: robots.txt `Sitemap:` lines and index entries become frontier
//! entries (in scope, bounded per host), and a fetched sitemap's URLs become seeds.

use shared::CanonicalUrl;
use shared::record::{EntryKind, FrontierEntry};
use tracing::{debug, info};

use super::Crawler;
use super::job::{PageResult, Parsed};
use crate::sitemap::SitemapEntries;

impl Crawler {
    /// Sitemap entries for `urls` (from robots.txt or a sitemap index), within scope and the
    /// per-host bound.
    pub(super) fn sitemap_entries(
        &mut self,
        urls: &[String],
        depth: u32,
    ) -> Vec<(CanonicalUrl, FrontierEntry)> {
        let mut out = Vec::new();
        if !self.options.config.sitemaps {
            return out;
        }
        for url in urls {
            let Ok(url) = CanonicalUrl::parse(url) else {
                debug!(%url, "sitemap URL does not parse");
                continue;
            };
            if !self.scope.contains(&url) {
                debug!(%url, "sitemap out of scope");
                continue;
            }
            let count = self.sitemaps_queued.entry(url.origin()).or_default();
            if *count >= self.options.config.max_sitemaps_per_host {
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

    /// What a fetched sitemap adds: its page URLs (in scope) as depth-0 seeds, for an index
    /// its child sitemaps (an index inside an index is not followed, as the protocol has no
    /// such thing), for a redirect its target.
    pub(super) fn sitemap_discovered(
        &mut self,
        url: &CanonicalUrl,
        entry: &FrontierEntry,
        result: PageResult,
    ) -> Vec<(CanonicalUrl, FrontierEntry)> {
        let parsed = match result {
            Ok((fetched, Parsed::Sitemap(parsed))) if (200..300).contains(&fetched.status) => {
                parsed
            }
            Ok((fetched, _)) if (300..400).contains(&fetched.status) => {
                // A moved sitemap: its target is a sitemap of the same standing.
                let target = fetched
                    .header("location")
                    .and_then(|location| CanonicalUrl::join(url.as_url(), location).ok());
                let Some(target) = target.filter(|_| entry.redirects() < 5) else {
                    return Vec::new();
                };
                let mut discovered = self.sitemap_entries(&[target.into()], entry.depth);
                for (_, next) in &mut discovered {
                    next.redirected_from = entry.redirected_from.clone();
                    next.redirected_from.push(url.as_str().to_string());
                }
                return discovered;
            }
            Ok((fetched, _)) => {
                info!(%url, status = fetched.status, "sitemap not read");
                return Vec::new();
            }
            Err(error) => {
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
                    .map(|target| self.params.apply(target))
                    .filter(|target| self.scope.contains(target))
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
                self.sitemap_entries(&children, entry.depth + 1)
            }
            SitemapEntries::Sitemaps(_) => {
                info!(%url, "a sitemap index inside an index is not followed");
                Vec::new()
            }
        }
    }
}
