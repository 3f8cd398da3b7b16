//! The re-crawl schedule: when a stored page is fetched again, and with which validators.
//!
//! Every stored page has a [`RevisitRecord`]. The interval starts at `revisit_ms`, halves
//! after a visit that found a change and doubles after one that found none (a 304, or the same
//! status and text), always within `[min_revisit_ms, max_revisit_ms]` (the config file's
//! keys; `CrawlerConfig`'s `revisit`, `min_revisit` and `max_revisit`). A page's
//! `<meta name="revisit-after">` sets the interval instead (within the same bounds): the site
//! owner knows best how often it changes.

use std::time::Duration;

use shared::config::CrawlerConfig;
use shared::record::{PageRecord, RevisitRecord};

/// What a visit found.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Visit<'a> {
    /// 304 Not Modified: the stored copy stands.
    NotModified,
    /// An answer that replaces the stored copy.
    Fetched(&'a PageRecord),
}

/// The schedule's settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RevisitPolicy {
    first: Duration,
    min: Duration,
    max: Duration,
}

impl RevisitPolicy {
    /// From the crawler config.
    pub(crate) fn new(config: &CrawlerConfig) -> Self {
        Self {
            first: config.revisit,
            min: config.min_revisit,
            // Validation keeps min <= max; `clamp` panics otherwise, so make sure.
            max: config.max_revisit.max(config.min_revisit),
        }
    }

    /// The schedule after a visit at `now_ms`; `previous` is `None` on the first one.
    pub(crate) fn after(
        &self,
        previous: Option<&RevisitRecord>,
        visit: Visit<'_>,
        now_ms: u64,
    ) -> RevisitRecord {
        let mut next = previous.cloned().unwrap_or_default();
        next.queued = false;
        next.visits = next.visits.saturating_add(1);
        let previous_interval = |prev: &RevisitRecord| Duration::from_millis(prev.interval_ms);
        let interval = match (previous, visit) {
            (None, Visit::Fetched(page)) => page
                .revisit_after_secs
                .map_or(self.first, Duration::from_secs),
            (None, Visit::NotModified) => self.first,
            (Some(prev), Visit::NotModified) => previous_interval(prev).saturating_mul(2),
            (Some(prev), Visit::Fetched(page)) => {
                let changed = prev.status != page.status || prev.content_hash != page.content_hash;
                if changed {
                    next.changes = next.changes.saturating_add(1);
                }
                match page.revisit_after_secs {
                    Some(secs) => Duration::from_secs(secs),
                    None if changed => previous_interval(prev) / 2,
                    None => previous_interval(prev).saturating_mul(2),
                }
            }
        };
        // The record keeps milliseconds; the bounds fit (they came from milliseconds).
        let interval = interval.clamp(self.min, self.max);
        next.interval_ms = u64::try_from(interval.as_millis()).unwrap_or(u64::MAX);
        next.due_ms = now_ms.saturating_add(next.interval_ms);
        if let Visit::Fetched(page) = visit {
            next.depth = page.depth;
            next.status = page.status;
            next.content_hash = page.content_hash;
            let validator = |name| {
                (200..300)
                    .contains(&page.status)
                    .then(|| page.header(name).map(str::to_string))
                    .flatten()
            };
            next.etag = validator("etag");
            next.last_modified = validator("last-modified");
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::config::RawCrawlerConfig;

    const HOUR: u64 = 3_600_000;

    fn policy() -> RevisitPolicy {
        RevisitPolicy::new(
            &RawCrawlerConfig {
                revisit_ms: 24 * HOUR,
                min_revisit_ms: HOUR,
                max_revisit_ms: 30 * 24 * HOUR,
                ..RawCrawlerConfig::default()
            }
            .validate()
            .unwrap(),
        )
    }

    fn page(hash: u64, revisit_after_secs: Option<u64>) -> PageRecord {
        PageRecord {
            status: 200,
            content_hash: hash,
            revisit_after_secs,
            headers: vec![
                ("etag".into(), "\"v1\"".into()),
                (
                    "last-modified".into(),
                    "Sun, 06 Nov 1994 08:49:37 GMT".into(),
                ),
            ],
            ..PageRecord::default()
        }
    }

    #[test]
    fn interval_adapts_within_bounds() {
        let p = policy();
        let first = p.after(None, Visit::Fetched(&page(1, None)), 0);
        assert_eq!(first.interval_ms, 24 * HOUR);
        assert_eq!(first.due_ms, 24 * HOUR);
        assert_eq!(first.etag.as_deref(), Some("\"v1\""));
        assert!(first.last_modified.is_some());

        let same = p.after(Some(&first), Visit::NotModified, 10);
        assert_eq!(same.interval_ms, 48 * HOUR, "no change: longer");
        assert_eq!(same.etag, first.etag, "a 304 keeps the validators");
        let same_text = p.after(Some(&same), Visit::Fetched(&page(1, None)), 20);
        assert_eq!(same_text.interval_ms, 96 * HOUR, "same text: longer");
        let changed = p.after(Some(&same_text), Visit::Fetched(&page(2, None)), 30);
        assert_eq!(changed.interval_ms, 48 * HOUR, "a change: shorter");
        assert_eq!((changed.visits, changed.changes), (4, 1));

        let mut often = first.clone();
        for _ in 0..20 {
            often = p.after(
                Some(&often),
                Visit::Fetched(&page(often.content_hash + 1, None)),
                0,
            );
        }
        assert_eq!(often.interval_ms, HOUR, "never below the minimum");
        let mut rarely = first;
        for _ in 0..20 {
            rarely = p.after(Some(&rarely), Visit::NotModified, 0);
        }
        assert_eq!(
            rarely.interval_ms,
            30 * 24 * HOUR,
            "never above the maximum"
        );
    }

    #[test]
    fn revisit_after_sets_the_interval() {
        let p = policy();
        let weekly = p.after(None, Visit::Fetched(&page(1, Some(7 * 86_400))), 0);
        assert_eq!(weekly.interval_ms, 7 * 24 * HOUR);
        let again = p.after(Some(&weekly), Visit::Fetched(&page(2, Some(7 * 86_400))), 0);
        assert_eq!(
            again.interval_ms,
            7 * 24 * HOUR,
            "a change does not shorten it"
        );
        let silly = p.after(None, Visit::Fetched(&page(1, Some(1))), 0);
        assert_eq!(silly.interval_ms, HOUR, "bounded");
    }
}
