//! A record decodes to what was encoded (proptest), for every record the store holds,
//! generated field by field; and decoding any bytes at all gives a record or an error, never
//! a panic (a store may be damaged).
//!
//! Cases: 256 a run, `PROPTEST_CASES=100000 cargo test -p shared props` for more.

use proptest::prelude::*;

use super::*;
use crate::dates::{DateSource, PageDate};
use crate::kind::ContentKind;

/// Case count: `PROPTEST_CASES` when set, else a CI-sized default.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// Any text, short: the store keeps URLs, titles, header values.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![".{0,40}", "[a-z:/.]{0,20}"]
}

fn directives() -> impl Strategy<Value = RobotsDirectives> {
    any::<[bool; 4]>().prop_map(
        |[noindex, nofollow, noarchive, nosnippet]| RobotsDirectives {
            noindex,
            nofollow,
            noarchive,
            nosnippet,
        },
    )
}

fn dates() -> impl Strategy<Value = Option<PageDates>> {
    let source = prop::sample::select(vec![
        DateSource::JsonLd,
        DateSource::ArticleMeta,
        DateSource::TimeElement,
        DateSource::UrlPath,
        DateSource::LastModified,
    ]);
    let date =
        prop::option::of(
            (any::<i64>(), source).prop_map(|(unix_seconds, source)| PageDate {
                unix_seconds,
                source,
            }),
        );
    prop::option::of(
        (date.clone(), date).prop_map(|(published, modified)| PageDates {
            published,
            modified,
        }),
    )
}

fn page() -> impl Strategy<Value = PageRecord> {
    let strings = prop::collection::vec(text(), 5);
    let options = prop::collection::vec(prop::option::of(text()), 4);
    let numbers = any::<(u16, u64, u64, u64, u32, u64)>();
    let rest = (
        any::<bool>(),
        prop::collection::vec((text(), text()), 0..4),
        prop::option::of(any::<u64>()),
        prop::collection::vec(text(), 0..3),
        directives(),
        directives(),
        prop::sample::select(ContentKind::ALL.to_vec()),
        dates(),
    );
    (strings, options, numbers, rest).prop_map(|(s, o, n, r)| {
        let (truncated, headers, revisit_after_secs, aliases, robots, robots_header, kind, dates) =
            r;
        let (status, body_len, fetched_at_ms, content_hash, depth, change) = n;
        PageRecord {
            url: s[0].clone(),
            final_url: s[1].clone(),
            status,
            error: o[0].clone(),
            truncated,
            headers,
            body: CompressedBody::compress(&s[2]),
            body_len,
            fetched_at_ms,
            content_hash,
            title: s[3].clone(),
            description: s[4].clone(),
            robots,
            depth,
            redirect_to: o[1].clone(),
            duplicate_of: o[2].clone(),
            keywords: s[2].clone(),
            revisit_after_secs,
            aliases,
            canonical: o[3].clone(),
            robots_header,
            change,
            kind,
            dates,
        }
    })
}

fn frontier_entry() -> impl Strategy<Value = FrontierEntry> {
    let kind = prop_oneof![
        Just(EntryKind::Page),
        Just(EntryKind::Revisit),
        Just(EntryKind::Sitemap),
        Just(EntryKind::Image)
    ];
    (
        text(),
        any::<u32>(),
        prop::option::of(text()),
        prop::collection::vec(text(), 0..4),
        kind,
        any::<u8>(),
        any::<u32>(),
    )
        .prop_map(
            |(url, depth, referrer, redirected_from, kind, attempts, inlinks)| FrontierEntry {
                url,
                depth,
                referrer,
                redirected_from,
                kind,
                attempts,
                inlinks,
            },
        )
}

fn outlinks() -> impl Strategy<Value = Outlinks> {
    prop::collection::vec((text(), text(), any::<bool>()), 0..5).prop_map(|links| {
        Outlinks(
            links
                .into_iter()
                .map(|(target, anchor, nofollow)| Outlink {
                    target,
                    anchor,
                    nofollow,
                })
                .collect(),
        )
    })
}

fn revisit() -> impl Strategy<Value = RevisitRecord> {
    (
        any::<(u64, u64, u32, bool, u16, u64, u32, u32)>(),
        prop::option::of(text()),
        prop::option::of(text()),
    )
        .prop_map(|(n, etag, last_modified)| RevisitRecord {
            due_ms: n.0,
            interval_ms: n.1,
            depth: n.2,
            queued: n.3,
            etag,
            last_modified,
            status: n.4,
            content_hash: n.5,
            visits: n.6,
            changes: n.7,
        })
}

fn skip() -> impl Strategy<Value = SkipRecord> {
    let reason = prop_oneof![
        (any::<u32>(), text()).prop_map(|(line, rule)| SkipReason::RobotsRule { line, rule }),
        Just(SkipReason::RobotsForbidden),
        text().prop_map(|rule| SkipReason::Trap { rule }),
        text().prop_map(|rule| SkipReason::Budget { rule }),
    ];
    (reason, any::<u64>()).prop_map(|(reason, at_ms)| SkipRecord { reason, at_ms })
}

fn robots() -> impl Strategy<Value = RobotsRecord> {
    let fetch = prop_oneof![
        text().prop_map(RobotsFetch::Rules),
        Just(RobotsFetch::NoRules),
        Just(RobotsFetch::Forbidden),
    ];
    (fetch, any::<(u64, u64)>(), prop::option::of(any::<u64>())).prop_map(
        |(fetch, (fetched_at_ms, expires_at_ms), unreachable_since_ms)| RobotsRecord {
            fetch,
            fetched_at_ms,
            expires_at_ms,
            unreachable_since_ms,
        },
    )
}

fn counters() -> impl Strategy<Value = CrawlCounters> {
    (
        any::<(u64, u64, u64, u64)>(),
        prop::collection::btree_map(text(), any::<u64>(), 0..4),
    )
        .prop_map(|(n, trapped)| CrawlCounters {
            pages_stored: n.0,
            next_seq: n.1,
            frontier_len: n.2,
            next_change: n.3,
            trapped,
        })
}

fn history() -> impl Strategy<Value = FetchHistory> {
    prop::collection::vec(
        (
            any::<u64>(),
            any::<u16>(),
            prop::option::of(text()),
            any::<u64>(),
        ),
        0..5,
    )
    .prop_map(|events| {
        FetchHistory(
            events
                .into_iter()
                .map(|(at_ms, status, error, content_hash)| FetchEvent {
                    at_ms,
                    status,
                    error,
                    content_hash,
                })
                .collect(),
        )
    })
}

fn rendered() -> impl Strategy<Value = RenderedPage> {
    (
        any::<u64>(),
        prop::option::of(text()),
        prop::option::of(text()),
        any::<(u32, u32, u32)>(),
    )
        .prop_map(
            |(rendered_at_ms, reason, html, (requests, refused, elapsed_ms))| RenderedPage {
                rendered_at_ms,
                outcome: match reason {
                    Some(reason) => RenderOutcome::NotRendered { reason },
                    None => RenderOutcome::Rendered,
                },
                html: html.as_deref().map(CompressedBody::compress),
                requests,
                refused,
                elapsed_ms,
            },
        )
}

/// Asserts that `record` decodes to itself, behind its version byte.
fn round_trips<R: Record + PartialEq + std::fmt::Debug>(record: R) -> Result<(), TestCaseError> {
    let bytes = record.encode();
    prop_assert_eq!(bytes.first(), Some(&R::VERSION));
    prop_assert_eq!(R::decode(&bytes).map_err(|e| e.to_string()), Ok(record));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn page_records_round_trip(record in page()) {
        let body = record.body.decompress().map_err(|e| e.to_string());
        prop_assert_eq!(body.as_deref(), Ok(record.keywords.as_str()));
        round_trips(record)?;
    }

    #[test]
    fn frontier_entries_round_trip(record in frontier_entry()) {
        round_trips(record)?;
    }

    #[test]
    fn other_records_round_trip(
        links in outlinks(),
        revisit in revisit(),
        skip in skip(),
        robots in robots(),
        counters in counters(),
        history in history(),
        rendered in rendered(),
    ) {
        round_trips(links)?;
        round_trips(revisit)?;
        round_trips(skip)?;
        round_trips(robots)?;
        round_trips(counters)?;
        round_trips(history)?;
        round_trips(rendered)?;
    }

    #[test]
    fn any_bytes_decode_or_fail(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = PageRecord::decode(&bytes);
        let _ = FrontierEntry::decode(&bytes);
        let _ = Outlinks::decode(&bytes);
        let _ = RevisitRecord::decode(&bytes);
        let _ = SkipRecord::decode(&bytes);
        let _ = RobotsRecord::decode(&bytes);
        let _ = CrawlCounters::decode(&bytes);
        let _ = FetchHistory::decode(&bytes);
        let _ = MediaRecord::decode(&bytes);
        let _ = Thumbnail::decode(&bytes);
        let _ = PageImages::decode(&bytes);
        let _ = RenderedPage::decode(&bytes);
    }
}
