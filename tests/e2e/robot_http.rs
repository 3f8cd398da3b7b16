//! The robot's HTTP against the test web: robots.txt statuses and caching, redirects into
//! disallowed paths, meta refresh, sitemaps, character sets, retries and `Retry-After`, and
//! re-crawls with conditional requests.

use std::collections::BTreeSet;
use std::time::Duration;

use shared::StoreReader;
use shared::record::PageRecord;
use testweb::TestWeb;

use crate::support::{
    Rig, crawl, crawl_in_scope, crawler_config, paths_requested, stored_urls, urls_of,
};

fn stored(store: &StoreReader, url: &str) -> PageRecord {
    store
        .page(url)
        .expect("read")
        .unwrap_or_else(|| panic!("{url} is stored"))
}

fn body(page: &PageRecord) -> String {
    page.body.decompress().expect("body decompresses")
}

#[test]
fn robots_check_prints_what_the_crawler_decides() {
    let dir = tempfile::tempdir().expect("tempdir");
    let robots = dir.path().join("robots.txt");
    // A byte order mark, CRLF, a misspelling, our group overriding `*`, longest match with
    // `Allow` winning a tie, `$`, and percent-encoding compared normalized.
    std::fs::write(
        &robots,
        "\u{feff}User-agent: *\r\nDisallow: /\r\n\r\nUser-agent: SiftBot/2.0\r\n\
         Disalow: /private/\r\nAllow: /private/open\r\nDisallow: /*.pdf$\r\n\
         Allow: /tie\r\nDisallow: /tie\r\nDisallow: /caf%C3%A9\r\n",
    )
    .expect("robots.txt written");
    let urls = [
        ("http://a.test/", "allowed"),
        ("http://a.test/private/x", "disallowed"),
        ("http://a.test/private/open/x", "allowed"),
        ("http://a.test/doc.pdf", "disallowed"),
        ("http://a.test/doc.pdf?page=2", "allowed"),
        ("http://a.test/tie", "allowed"),
        ("http://a.test/café", "disallowed"),
        ("http://a.test/robots.txt", "allowed"),
        // A path alone, and nothing at all (the root), as Google's library reads them.
        ("/private/y", "disallowed"),
        ("", "allowed"),
    ];
    let mut args = vec![
        "robots".to_string(),
        "check".into(),
        "--agent".into(),
        "siftbot".into(),
        "--robots".into(),
        robots.display().to_string(),
    ];
    args.extend(urls.iter().map(|(url, _)| url.to_string()));
    let stdout = crate::resume::crawler_stdout(&args);
    // libtest prints its own "test ... " before the child's first line.
    let verdicts: Vec<&str> = stdout
        .lines()
        .map(|l| l.trim_start_matches("test resume::child_crawler ... "))
        .filter(|l| l.starts_with("allowed ") || l.starts_with("disallowed "))
        .collect();
    let expected: Vec<String> = urls
        .iter()
        .map(|(url, verdict)| format!("{verdict} {url}"))
        .collect();
    assert_eq!(verdicts, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_401_keeps_the_whole_site_off_limits() {
    let rig = Rig::start().await;
    let summary = rig.crawl(&[rig.web.url("locked.test", "/")]).await;
    assert_eq!(rig.requested("locked.test"), vec!["/robots.txt"]);
    assert_eq!(summary.pages_stored, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirected_robots_txt_is_followed_and_obeyed() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("moved.test", "/")]).await;
    let requested = rig.requested("moved.test");
    assert_eq!(
        &requested[..3],
        ["/robots.txt", "/policies/robots.txt", "/rules.txt"],
        "robots.txt and its redirects before any page"
    );
    assert_eq!(
        rig.web
            .request_count("moved.test", testweb::MOVED_DISALLOWED),
        0
    );
    assert_eq!(
        stored_urls(rig.data()),
        urls_of(&rig.web, "moved.test", testweb::MOVED_PATHS)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_429_makes_the_host_wait_its_retry_after() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = crawler_config(&web);
    config.robots_retry_ms = 10; // Retry-After (1 s) is longer: it wins.
    crawl(dir.path(), &[web.url("busy.test", "/")], config).await;
    let requests: Vec<_> = web
        .requests()
        .into_iter()
        .filter(|r| r.host == "busy.test")
        .collect();
    let paths: Vec<&str> = requests.iter().map(|r| r.path_and_query.as_str()).collect();
    assert_eq!(&paths[..2], ["/robots.txt", "/robots.txt"], "{paths:?}");
    assert!(
        requests[1]
            .at
            .duration_since(requests[0].answered_at.expect("answered"))
            >= Duration::from_secs(1),
        "Retry-After: 1 honoured for robots.txt"
    );
    assert_eq!(web.request_count("busy.test", "/no.html"), 0);
    assert_eq!(
        stored_urls(dir.path()),
        urls_of(&web, "busy.test", testweb::BUSY_PATHS)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_robots_txt_is_fetched_again() {
    let mut rig = Rig::start().await;
    rig.config.max_depth = 0;
    rig.crawl(&[rig.web.url("fresh.test", "/")]).await;
    {
        // The cached answer's lifetime runs out (as two hours would); the store closes at
        // the end of the block.
        let store = crawler::PageStore::open(rig.data()).expect("store");
        let origin = rig.web.url("fresh.test", "");
        let mut record = store.robots(&origin).expect("read").expect("cached");
        record.expires_at_ms = shared::now_ms() - 1;
        store.put_robots(&origin, &record).expect("written");
    }
    rig.crawl(&[rig.web.url("fresh.test", "/static.html")])
        .await;
    let requested = rig.requested("fresh.test");
    assert_eq!(
        requested,
        vec!["/robots.txt", "/", "/robots.txt", "/static.html"],
        "expired: read again before the host's next page"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_txt_is_cached_for_what_its_headers_say() {
    let mut rig = Rig::start().await;
    rig.config.max_depth = 0;
    rig.crawl(&[rig.web.url("fresh.test", "/")]).await;
    rig.crawl(&[rig.web.url("fresh.test", "/static.html")])
        .await;
    let store = rig.store();
    let origin = rig.web.url("fresh.test", "");
    let record = store.robots(&origin).expect("read").expect("cached");
    assert_eq!(
        record.expires_at_ms - record.fetched_at_ms,
        2 * 3_600_000,
        "Cache-Control: max-age=7200"
    );
    assert_eq!(
        rig.web.request_count("fresh.test", "/robots.txt"),
        1,
        "a second run within the lifetime reads the cached copy"
    );
    assert_eq!(rig.web.request_count("fresh.test", "/static.html"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_chain_into_a_disallowed_path_is_not_followed() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("redirect.test", "/into-secret")])
        .await;
    let requested = rig.requested("redirect.test");
    assert_eq!(
        requested,
        vec!["/robots.txt", "/into-secret", "/via-secret"],
        "every hop is checked against robots.txt"
    );
    let store = rig.store();
    let hop = stored(&store, &rig.web.url("redirect.test", "/via-secret"));
    assert_eq!(
        hop.redirect_to.as_deref(),
        Some(rig.web.url("redirect.test", "/secret/page.html").as_str())
    );
    assert!(
        store
            .page(&rig.web.url("redirect.test", "/secret/page.html"))
            .expect("read")
            .is_none()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn meta_refresh_is_a_redirect_and_the_target_records_its_aliases() {
    let mut rig = Rig::start().await;
    rig.config.max_depth = 0;
    rig.crawl(&[
        rig.web.url("redirect.test", "/meta-refresh"),
        rig.web.url("redirect.test", "/start"),
    ])
    .await;
    let store = rig.store();
    let refresh = stored(&store, &rig.web.url("redirect.test", "/meta-refresh"));
    assert_eq!(refresh.status, 200);
    assert_eq!(
        refresh.redirect_to.as_deref(),
        Some(rig.web.url("redirect.test", "/end").as_str())
    );
    let end = stored(&store, &rig.web.url("redirect.test", "/end"));
    let aliases: BTreeSet<String> = end.aliases.iter().cloned().collect();
    let meta_hop = BTreeSet::from([rig.web.url("redirect.test", "/meta-refresh")]);
    let http_hops = BTreeSet::from([
        rig.web.url("redirect.test", "/start"),
        rig.web.url("redirect.test", "/middle"),
    ]);
    assert!(
        aliases == meta_hop || aliases == http_hops,
        "the page under its final URL names the chain that reached it first: {aliases:?}"
    );
    assert_eq!(
        rig.web.request_count("redirect.test", "/end"),
        1,
        "two chains to one page: fetched once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitemaps_add_pages_no_link_reaches() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = crawler_config(&web);
    config.delay_ms = 100;
    crawl(dir.path(), &[web.url("maps.test", "/")], config).await;

    let requests: Vec<_> = web
        .requests()
        .into_iter()
        .filter(|r| r.host == "maps.test")
        .collect();
    for pair in requests.windows(2) {
        // The gap runs from the crawler's receipt of the last answer (after the server's).
        let answered = pair[0].answered_at.expect("answered");
        assert!(
            pair[1].at.duration_since(answered) >= Duration::from_millis(100),
            "sitemaps wait in the host's politeness queue like pages: {}",
            pair[1].path_and_query
        );
    }

    let requested = paths_requested(&web, "maps.test");
    assert_eq!(requested.first().map(String::as_str), Some("/robots.txt"));
    for sitemap in testweb::MAPS_SITEMAPS {
        assert_eq!(
            web.request_count("maps.test", sitemap),
            1,
            "{sitemap} read once: {requested:?}"
        );
    }
    assert_eq!(web.request_count("maps.test", testweb::MAPS_DISALLOWED), 0);
    assert_eq!(
        stored_urls(dir.path()),
        urls_of(&web, "maps.test", testweb::MAPS_PAGES),
        "linked pages and sitemap pages, nothing disallowed or out of scope"
    );
    let unique: BTreeSet<&String> = requested.iter().collect();
    assert_eq!(
        unique.len(),
        requested.len(),
        "nothing twice: {requested:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_headers_meta_and_rel_decide_what_is_followed() {
    let rig = Rig::start().await;
    rig.crawl(&[rig.web.url("meta.test", "/")]).await;
    for path in testweb::META_FOLLOWED {
        assert_eq!(
            rig.web.request_count("meta.test", path),
            1,
            "{path} is followed"
        );
    }
    for path in testweb::META_NOT_FOLLOWED {
        assert_eq!(rig.web.request_count("meta.test", path), 0, "{path} is not");
    }
    let store = rig.store();
    for path in [
        "/header-noindex.html",
        "/header-ours.html",
        "/header-other.html",
        "/meta-combined.html",
        "/meta-none.html",
    ] {
        let page = stored(&store, &rig.web.url("meta.test", path));
        assert_eq!(
            page.robots.noindex,
            testweb::META_NOINDEX.contains(&path),
            "{path}: noindex"
        );
        assert_eq!(
            page.robots_header.noindex,
            path == "/header-noindex.html",
            "{path}: noindex came from the header"
        );
    }
    // `crawler explain` says where each directive came from.
    let explain = |path: &str| {
        let mut out = Vec::new();
        crawler::inspect::explain(
            &rig.crawl_stores(),
            &rig.web.url("meta.test", path),
            &mut out,
        )
        .expect("explain");
        String::from_utf8(out).expect("UTF-8")
    };
    let header = explain("/header-noindex.html");
    assert!(
        header.contains("robots directives: noindex (X-Robots-Tag header)")
            && header.contains("not indexed: robots noindex (X-Robots-Tag header)"),
        "{header}"
    );
    let meta = explain("/meta-none.html");
    assert!(
        meta.contains("noindex (robots META tag), nofollow (robots META tag)"),
        "{meta}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_charsets_are_stored_as_utf8() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let seeds = [
        web.url("charsets.test", "/"),
        web.url("traps.test", "/latin1"),
    ];
    let mut config = crawler_config(&web);
    config.max_depth = 1;
    crawl_in_scope(dir.path(), &seeds, &seeds, config).await;

    let store = StoreReader::open(dir.path()).expect("store");
    for (path, (title, sentence)) in [
        ("/sjis-header.html", testweb::SJIS_HEADER_TEXT),
        ("/sjis-meta.html", testweb::SJIS_META_TEXT),
        ("/latin1-meta.html", testweb::LATIN1_META_TEXT),
    ] {
        let page = stored(&store, &web.url("charsets.test", path));
        assert_eq!(page.title, title, "{path}");
        assert!(body(&page).contains(sentence), "{path}: {}", body(&page));
    }
    let latin1 = stored(&store, &web.url("traps.test", "/latin1"));
    assert!(body(&latin1).contains(testweb::LATIN1_WORD));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_are_retried_a_bounded_number_of_times() {
    let mut rig = Rig::start().await;
    rig.config.page_attempts = 3;
    rig.config.retry_ms = 20;
    rig.crawl(&[rig.web.url("traps.test", "/error")]).await;
    assert_eq!(
        rig.web.request_count("traps.test", "/error"),
        3,
        "page_attempts = 3"
    );
    let store = rig.store();
    assert_eq!(
        stored(&store, &rig.web.url("traps.test", "/error")).status,
        500
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recrawl_sends_conditional_requests_and_a_304_changes_nothing() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = crawler_config(&web);
    // Every stored page is due again at once.
    config.revisit_ms = 0;
    config.min_revisit_ms = 0;
    config.max_revisit_ms = 0;
    config.retry_ms = 10;
    let seed = [web.url("fresh.test", "/")];
    crawl(dir.path(), &seed, config.clone()).await;

    // The busy page answered 503 + Retry-After: 1, and was asked again no sooner.
    let busy: Vec<_> = web
        .requests()
        .into_iter()
        .filter(|r| r.host == "fresh.test" && r.path_and_query == "/busy.html")
        .collect();
    assert_eq!(busy.len(), 2, "retried once");
    assert!(
        busy[1]
            .at
            .duration_since(busy[0].answered_at.expect("answered"))
            >= Duration::from_secs(1),
        "Retry-After: 1 honoured"
    );
    let url = |path| web.url("fresh.test", path);
    let first: Vec<PageRecord> = {
        let store = StoreReader::open(dir.path()).expect("store");
        let meta = stored(&store, &url("/meta.html"));
        assert_eq!(meta.keywords, testweb::META_KEYWORDS);
        assert_eq!(meta.revisit_after_secs, Some(7 * 86_400));
        testweb::FRESH_PATHS
            .iter()
            .map(|p| stored(&store, &url(p)))
            .collect()
    };
    let first_run_requests = web.requests().len();

    web.set_fresh_edition(2);
    crawl(dir.path(), &seed, config).await;
    let second: Vec<_> = web.requests().split_off(first_run_requests);
    let second_paths: BTreeSet<&str> = second.iter().map(|r| r.path_and_query.as_str()).collect();
    let expected: BTreeSet<&str> = testweb::FRESH_PATHS.iter().copied().collect();
    assert_eq!(
        second_paths, expected,
        "every due page revisited, robots.txt cached"
    );
    assert_eq!(second.len(), expected.len(), "each once");
    let sent = |path: &str| {
        second
            .iter()
            .find(|r| r.path_and_query == path)
            .expect("requested")
    };
    assert_eq!(sent("/").if_none_match.as_deref(), Some("\"home\""));
    assert_eq!(
        sent("/news.html").if_none_match.as_deref(),
        Some("\"news-1\"")
    );
    assert_eq!(
        sent("/static.html").if_modified_since.as_deref(),
        Some(testweb::STATIC_LAST_MODIFIED)
    );
    assert_eq!(
        sent("/meta.html").if_none_match,
        None,
        "no validator, no condition"
    );

    let store = StoreReader::open(dir.path()).expect("store");
    for (path, before) in testweb::FRESH_PATHS.iter().zip(&first) {
        let after = stored(&store, &url(path));
        if *path == "/news.html" {
            assert!(body(&after).contains(&testweb::news_word(2)));
            assert!(after.fetched_at_ms >= before.fetched_at_ms);
        } else if matches!(*path, "/" | "/static.html") {
            assert_eq!(&after, before, "{path}: a 304 changes nothing stored");
        }
    }
    assert!(
        sent("/")
            .accept_encoding
            .as_deref()
            .is_some_and(|e| { ["gzip", "br", "deflate"].iter().all(|c| e.contains(c)) }),
        "Accept-Encoding: {:?}",
        sent("/").accept_encoding
    );
}
