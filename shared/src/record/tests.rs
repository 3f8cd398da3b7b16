//! The records' round trips, version checks and refusals of bad bytes.

use super::page_versions::{PageRecordV1, PageRecordV2, PageRecordV3, PageRecordV4, PageRecordV5};
use super::*;
use crate::kind::ContentKind;

#[test]
fn round_trip_and_version_check() {
    let links = Outlinks(vec![Outlink {
        target: "http://a.test/".into(),
        anchor: "home".into(),
        nofollow: false,
    }]);
    let bytes = links.encode();
    assert_eq!(bytes[0], Outlinks::VERSION);
    assert_eq!(Outlinks::decode(&bytes).unwrap(), links);

    let mut future = bytes.clone();
    future[0] = 99;
    assert!(matches!(
        Outlinks::decode(&future),
        Err(RecordError::UnknownVersion { found: 99, .. })
    ));
    assert!(matches!(Outlinks::decode(&[]), Err(RecordError::Empty(_))));
    assert!(matches!(
        Outlinks::decode(&[1, 200, 200]),
        Err(RecordError::Corrupt { .. })
    ));
}

#[test]
fn version_1_records_are_still_read() {
    #[derive(Serialize)]
    struct EntryV1 {
        url: String,
        depth: u32,
        referrer: Option<String>,
        redirects: u8,
    }
    let mut bytes = vec![1];
    bytes.extend(
        postcard::to_allocvec(&EntryV1 {
            url: "http://a.test/".into(),
            depth: 3,
            referrer: None,
            redirects: 2,
        })
        .unwrap(),
    );
    let entry = FrontierEntry::decode(&bytes).unwrap();
    assert_eq!((entry.url.as_str(), entry.depth), ("http://a.test/", 3));
    assert_eq!(entry.redirects(), 2, "the hop count survives");
    assert_eq!((entry.kind, entry.attempts), (EntryKind::Page, 0));

    #[derive(Serialize)]
    struct RobotsV1 {
        fetch: RobotsFetch,
        fetched_at_ms: u64,
        expires_at_ms: u64,
    }
    let mut bytes = vec![1];
    bytes.extend(
        postcard::to_allocvec(&RobotsV1 {
            fetch: RobotsFetch::Forbidden,
            fetched_at_ms: 5,
            expires_at_ms: 9,
        })
        .unwrap(),
    );
    let robots = RobotsRecord::decode(&bytes).unwrap();
    assert_eq!(robots.fetch, RobotsFetch::Forbidden);
    assert_eq!(
        (robots.expires_at_ms, robots.unreachable_since_ms),
        (9, None)
    );

    let page = PageRecord {
        url: "http://a.test/".into(),
        title: "T".into(),
        canonical: Some("http://a.test/c".into()),
        ..PageRecord::default()
    };
    let current = page.encode();
    assert_eq!(PageRecord::decode(&current).unwrap(), page);
    assert!(matches!(
        PageRecord::decode(&[7, 0]),
        Err(RecordError::UnknownVersion { found: 7, .. })
    ));
}

#[test]
fn version_2_and_1_page_records_are_read_without_a_canonical() {
    // The old versions' own layouts (they derive `Serialize` in tests).
    let v1 = PageRecordV1 {
        url: "http://a.test/p".into(),
        final_url: "http://a.test/p".into(),
        status: 200,
        error: None,
        truncated: false,
        headers: vec![("content-type".into(), "text/html".into())],
        body: CompressedBody::compress("<p>hi</p>"),
        body_len: 9,
        fetched_at_ms: 12,
        content_hash: 34,
        title: "Title".into(),
        description: "Desc".into(),
        robots: RobotsDirectives {
            noarchive: true,
            ..RobotsDirectives::default()
        },
        depth: 2,
        redirect_to: None,
        duplicate_of: Some("http://a.test/q".into()),
    };
    let v2 = PageRecordV2 {
        v1,
        keywords: "k".into(),
        revisit_after_secs: Some(60),
        aliases: vec!["http://a.test/old".into()],
    };
    let body = postcard::to_allocvec(&v2).unwrap();
    let page = PageRecord::decode(&[&[2], body.as_slice()].concat()).unwrap();
    assert_eq!(page.canonical, None);
    assert_eq!((page.title.as_str(), page.depth), ("Title", 2));
    assert_eq!(page.aliases, v2.aliases);
    // Every other field as written: version 6 is version 2, a `None` canonical (one zero
    // byte), four `false` header directives, change number 0, the HTML kind (variant 0) and
    // no dates (`None`).
    assert_eq!(
        postcard::to_allocvec(&page).unwrap(),
        [body.as_slice(), &[0; 8]].concat()
    );

    let v3 = PageRecordV3 {
        v2,
        canonical: Some("http://a.test/c".into()),
    };
    let body = postcard::to_allocvec(&v3).unwrap();
    let page = PageRecord::decode(&[&[3], body.as_slice()].concat()).unwrap();
    assert_eq!(page.canonical.as_deref(), Some("http://a.test/c"));
    assert_eq!(
        (page.change, page.robots_header),
        (0, RobotsDirectives::default())
    );
    assert_eq!(
        postcard::to_allocvec(&page).unwrap(),
        [body.as_slice(), &[0; 7]].concat()
    );

    let v4 = PageRecordV4 {
        v3,
        robots_header: RobotsDirectives {
            noindex: true,
            ..RobotsDirectives::default()
        },
        change: 41,
    };
    let body = postcard::to_allocvec(&v4).unwrap();
    let page = PageRecord::decode(&[&[4], body.as_slice()].concat()).unwrap();
    assert_eq!((page.change, page.robots_header.noindex), (41, true));
    assert_eq!(
        page.kind,
        ContentKind::Html,
        "every version 4 page was HTML"
    );
    assert_eq!(
        postcard::to_allocvec(&page).unwrap(),
        [body.as_slice(), &[0, 0]].concat()
    );

    let v5 = PageRecordV5 {
        v4,
        kind: ContentKind::Pdf,
    };
    let body = postcard::to_allocvec(&v5).unwrap();
    let page = PageRecord::decode(&[&[5], body.as_slice()].concat()).unwrap();
    assert_eq!((page.kind, page.dates), (ContentKind::Pdf, None));
    assert_eq!(
        postcard::to_allocvec(&page).unwrap(),
        [body.as_slice(), &[0]].concat(),
        "version 5 and no dates"
    );
    let v2 = v5.v4.v3.v2;

    let v1 = postcard::to_allocvec(&v2.v1).unwrap();
    let page = PageRecord::decode(&[&[1], v1.as_slice()].concat()).unwrap();
    let empty = postcard::to_allocvec(&(
        "",
        None::<u64>,
        Vec::<String>::new(),
        None::<String>,
        RobotsDirectives::default(),
        0u64,
        ContentKind::Html,
        None::<crate::dates::PageDates>,
    ));
    assert_eq!(
        postcard::to_allocvec(&page).unwrap(),
        [v1, empty.unwrap()].concat(),
        "version 1 with empty keywords, revisit-after, aliases, canonical, header \
         directives, change number and dates"
    );
}

#[test]
fn version_1_counters_are_read_with_no_changes_or_traps_yet() {
    let v1 = postcard::to_allocvec(&(7u64, 9u64, 2u64)).unwrap();
    let mut counters = CrawlCounters::decode(&[&[1], v1.as_slice()].concat()).unwrap();
    assert_eq!(
        (
            counters.pages_stored,
            counters.next_seq,
            counters.frontier_len
        ),
        (7, 9, 2)
    );
    assert_eq!(counters.last_change(), 0);
    assert_eq!((counters.take_change(), counters.take_change()), (1, 2));
    assert_eq!(counters.last_change(), 2);
    assert!(counters.trapped.is_empty());
}

#[test]
fn a_history_keeps_the_last_fetches_and_short_errors() {
    let mut history = FetchHistory::default();
    for at_ms in 0..(FetchHistory::KEPT as u64 + 3) {
        let page = PageRecord {
            fetched_at_ms: at_ms,
            error: Some("é".repeat(FetchEvent::MAX_ERROR)),
            ..PageRecord::default()
        };
        history.push(FetchEvent::of(&page));
    }
    assert_eq!(history.0.len(), FetchHistory::KEPT);
    assert_eq!(history.0[0].at_ms, 3, "the three oldest are gone");
    let error = history.0[0].error.as_deref().unwrap();
    assert_eq!(error.len(), FetchEvent::MAX_ERROR, "cut at a char boundary");
    assert_eq!(FetchHistory::decode(&history.encode()).unwrap(), history);
}

#[test]
fn version_2_frontier_entries_are_read_as_found_once() {
    #[derive(Serialize)]
    struct EntryV2 {
        url: String,
        depth: u32,
        referrer: Option<String>,
        redirected_from: Vec<String>,
        kind: EntryKind,
        attempts: u8,
    }
    let mut bytes = vec![2];
    bytes.extend(
        postcard::to_allocvec(&EntryV2 {
            url: "http://a.test/map.xml".into(),
            depth: 0,
            referrer: None,
            redirected_from: vec!["http://a.test/old.xml".into()],
            kind: EntryKind::Sitemap,
            attempts: 2,
        })
        .unwrap(),
    );
    let entry = FrontierEntry::decode(&bytes).unwrap();
    assert_eq!(entry.redirected_from, vec!["http://a.test/old.xml"]);
    assert_eq!(
        (entry.kind, entry.attempts, entry.inlinks),
        (EntryKind::Sitemap, 2, 1)
    );
}

#[test]
fn rank_is_breadth_first_and_in_links_move_a_url_up() {
    let rank = |depth, inlinks| {
        FrontierEntry {
            inlinks,
            ..FrontierEntry::page("http://a.test/", depth)
        }
        .rank()
    };
    assert!(rank(0, 1) < rank(1, 1) && rank(1, 1) < rank(2, 1));
    assert_eq!(rank(3, 0), rank(3, 1), "an old entry counts as found once");
    assert!(rank(3, 2) < rank(3, 1));
    assert!(rank(3, 4) < rank(3, 3));
    assert!(rank(3, 16) < rank(2, 1), "16 in-links beat a level");
    assert!(rank(3, 1000) > rank(1, 1), "never two levels");
    assert_eq!(rank(0, 16), 0);
    let failed = FrontierEntry {
        attempts: 1,
        inlinks: 1000,
        ..FrontierEntry::page("http://a.test/", 0)
    };
    assert_eq!(failed.rank(), RETRY_RANK);
    assert!(
        failed.rank() > rank(1_000_000, 1),
        "behind every URL not failed"
    );
}

#[test]
fn body_bytes_keep_the_sequence_format() {
    #[derive(Serialize)]
    struct AsSequence(Vec<u8>);
    let body = CompressedBody::compress("some page text");
    let as_bytes = postcard::to_allocvec(&body).unwrap();
    assert_eq!(
        as_bytes,
        postcard::to_allocvec(&AsSequence(body.0.clone())).unwrap()
    );
    assert_eq!(
        postcard::from_bytes::<CompressedBody>(&as_bytes).unwrap(),
        body
    );
}

#[test]
fn body_compression_round_trips() {
    let text = "<p>héllo</p>".repeat(100);
    let body = CompressedBody::compress(&text);
    assert!(body.compressed_len() < text.len());
    assert_eq!(body.decompress().unwrap(), text);
}
