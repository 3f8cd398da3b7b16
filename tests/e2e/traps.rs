//! The crawler against hostile hosts: endless calendars, repeating paths and faceted search
//! cost no more than the trap rules allow; a failing host trips its circuit breakers.

use std::collections::{BTreeSet, HashMap};

use std::time::Duration;

use shared::StoreReader;
use testweb::TestWeb;

use crate::support::{Rig, crawl, crawled, crawler_config, paths_requested};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trap_site_costs_no_more_than_its_budget() {
    let mut rig = Rig::start().await;
    rig.config.max_pages_per_host = 40;
    rig.config.max_queries_per_path = 5;
    rig.config.max_body_bytes = 64 * 1024; // /huge is cut quickly
    rig.crawl(&[rig.web.url("traps.test", "/")]).await;

    let requested = rig.requested("traps.test");
    // Distinct URLs: a 500 is asked again (page_attempts), a new URL is not.
    let pages: BTreeSet<&String> = requested.iter().filter(|p| *p != "/robots.txt").collect();
    assert!(
        pages.len() <= 40,
        "the host budget bounds the whole site: {} pages",
        pages.len()
    );
    let facets = pages.iter().filter(|p| p.starts_with("/facets?")).count();
    assert!(
        (1..=5).contains(&facets),
        "distinct query strings per path capped at 5: {facets}"
    );
    for path in &pages {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for segment in path.split('/').filter(|s| !s.is_empty()) {
            *counts.entry(segment).or_default() += 1;
        }
        assert!(
            counts.values().all(|&n| n < 3),
            "no path with a segment three times: {path}"
        );
    }
    // Each URL kept out is recorded with its reason, for `crawler report` and `explain`.
    let store = rig.store();
    let mut reasons: HashMap<String, usize> = HashMap::new();
    for skipped in store.all_skipped() {
        let (url, record) = skipped.expect("a skip record");
        assert!(
            !pages.iter().any(|p| rig.web.url("traps.test", p) == url),
            "{url} was fetched yet recorded as skipped"
        );
        *reasons.entry(record.reason.to_string()).or_default() += 1;
    }
    for reason in [
        "cut off by the trap rule query_cap",
        "over its host's budget (host_budget)",
    ] {
        assert!(
            reasons.contains_key(reason),
            "{reason} missing: {reasons:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_host_pauses_at_ten_percent_and_halts_at_fifty_failures_in_a_row() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = crawler_config(&web);
    config.page_attempts = 1; // each failure is a new URL: the breaker alone decides
    config.breaker_pause_ms = 1_000;
    let seed = [web.url("down.test", "/")];
    let summary = crawl(dir.path(), &seed, config.clone()).await;

    let failing: Vec<_> = web
        .requests()
        .into_iter()
        .filter(|r| r.host == "down.test" && r.path_and_query.starts_with("/p/"))
        .collect();
    const { assert!(testweb::DOWN_PAGES > 50) };
    assert_eq!(failing.len(), 50, "halted at exactly 50 failures in a row");
    assert_eq!(summary.halted_hosts, vec![web.url("down.test", "")]);
    // The window holds "/" (an answer) and then failures: it trips at the 9th failure (9 of
    // 10 requests failed, over 10%), then at every 9th failure after each pause (the window
    // starts afresh), and never between.
    for (i, pair) in failing.windows(2).enumerate() {
        let since_answer = pair[1]
            .at
            .duration_since(pair[0].answered_at.expect("answered"));
        let failure = i + 1;
        if failure % 10 == 9 {
            assert!(
                since_answer >= Duration::from_millis(1_000),
                "paused after failure {failure}: {since_answer:?}"
            );
        } else {
            assert!(
                since_answer < Duration::from_millis(1_000),
                "no pause after failure {failure}: {since_answer:?}"
            );
        }
    }

    // Halted until an operator resumes it: the next run leaves it alone...
    let origin = web.url("down.test", "");
    let halted = StoreReader::open(dir.path())
        .expect("store")
        .halted_hosts()
        .expect("read");
    assert_eq!(halted.len(), 1);
    assert_eq!(halted[0].0, origin);
    let before = web.requests().len();
    crawl(dir.path(), &seed, config.clone()).await;
    assert_eq!(
        web.requests().len(),
        before,
        "a halted host gets no request"
    );
    // ... and after `resume` it is asked again, its 30 other pages included.
    let store = crawler::PageStore::open(dir.path()).expect("store");
    assert!(store.resume_host(&origin).expect("resumed"));
    drop(store);
    crawl(dir.path(), &seed, config).await;
    let asked_again = web.requests().len() - before;
    assert_eq!(asked_again, testweb::DOWN_PAGES - 50);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loops_are_cut_by_repeated_segments_without_a_budget() {
    let mut rig = Rig::start().await;
    rig.config.max_pages_per_host = 0;
    rig.crawl(&[rig.web.url("traps.test", "/a/")]).await;
    let requested = rig.requested("traps.test");
    let dirs = requested.iter().filter(|p| p.ends_with('/')).count();
    // Below `/a/` every directory links to `a/` and `b/`: the crawl reaches exactly the
    // paths that start with `a` and hold each segment at most twice (so at most 4 deep).
    let expected = (1..=4)
        .flat_map(sequences)
        .filter(|s| s.starts_with('a'))
        .count();
    assert_eq!(dirs, expected, "{requested:?}");
}

/// Every string of `a` and `b` of length `len` with each letter at most twice.
fn sequences(len: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    for _ in 0..len {
        out = out
            .into_iter()
            .flat_map(|s| ["a", "b"].map(|c| format!("{s}{c}")))
            .filter(|s| s.matches('a').count() <= 2 && s.matches('b').count() <= 2)
            .collect();
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_and_stalled_answers_are_cut_off() {
    let mut rig = Rig::start().await;
    rig.config.max_depth = 0;
    rig.config.page_attempts = 1;
    rig.config.header_timeout_ms = 1_000; // /slow answers after 2 s
    let seeds = [
        rig.web.url("traps.test", "/huge"),
        rig.web.url("traps.test", "/slow"),
    ];
    rig.crawl(&seeds).await;

    let store = rig.store();
    let huge = store
        .page(&seeds[0])
        .expect("read")
        .expect("the endless page is stored, cut");
    assert!(huge.truncated);
    assert_eq!(
        huge.body_len, rig.config.max_body_bytes as u64,
        "cut at max_body_bytes (10 MiB by default)"
    );
    assert_eq!(rig.config.max_body_bytes, 10 * 1024 * 1024);
    let slow = store
        .page(&seeds[1])
        .expect("read")
        .expect("the stalled fetch is recorded");
    assert_eq!(slow.status, 0);
    assert_eq!(
        slow.error.as_deref(),
        Some("timeout: timed out after 1 s waiting for headers")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_near_duplicate_is_stored_as_a_copy_and_its_links_are_not_followed() {
    let web = TestWeb::start().await;
    let dir = crawled(&web, "copies.test").await;

    let requested = paths_requested(&web, "copies.test");
    let (original, copy) = testweb::COPIES_NEAR_PAIR;
    for path in [original, copy, testweb::COPIES_OTHER] {
        assert!(requested.iter().any(|p| p == path), "{path} fetched");
    }
    assert!(
        !requested
            .iter()
            .any(|p| p == testweb::COPIES_BEHIND_NEAR_DUPLICATE),
        "a near-duplicate's links are not followed: {requested:?}"
    );

    let reader = StoreReader::open(dir.path()).expect("store");
    let page = |path: &str| {
        reader
            .page(&web.url("copies.test", path))
            .expect("read")
            .expect("stored")
    };
    assert_eq!(page(original).duplicate_of, None);
    assert_ne!(
        page(original).content_hash,
        page(copy).content_hash,
        "not an exact copy: the near-duplicate rule found it"
    );
    assert_eq!(
        page(copy).duplicate_of,
        Some(web.url("copies.test", original))
    );
    assert_eq!(
        page(testweb::COPIES_OTHER).duplicate_of,
        None,
        "the same boilerplate around another story is no copy"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operator_url_rules_deny_allow_and_strip_parameters() {
    let mut rig = Rig::start().await;
    rig.config.deny_urls = vec!["/calendar/".into()];
    rig.config.allow_urls = vec![r"^http://traps\.test:\d+/($|gzip$|facets\?)".into()];
    rig.config.strip_params = vec!["SORT".into()];
    rig.config.max_queries_per_path = 6;
    rig.crawl(&[rig.web.url("traps.test", "/")]).await;

    let requested: BTreeSet<String> = rig.requested("traps.test").into_iter().collect();
    // `?n=N&sort=desc` is `?n=N` once `sort` is stripped: six distinct query strings are
    // n=0..=5, and nothing outside the allow list or inside the deny list is asked for.
    let mut expected: BTreeSet<String> = ["/robots.txt", "/", "/gzip"]
        .into_iter()
        .map(String::from)
        .collect();
    expected.extend((0..6).map(|n| format!("/facets?n={n}")));
    assert_eq!(requested, expected);

    let reader = rig.store();
    let links = reader
        .outlinks(&rig.web.url("traps.test", "/facets?n=0"))
        .expect("read")
        .expect("stored");
    let targets: BTreeSet<&str> = links.0.iter().map(|l| l.target.as_str()).collect();
    assert_eq!(
        targets,
        BTreeSet::from([rig.web.url("traps.test", "/facets?n=1").as_str()]),
        "stored links are stripped too, so in-links meet their page"
    );
}
