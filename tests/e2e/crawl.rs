//! The crawler against the test web: what it fetches, what it stores, what it sends.

use std::collections::BTreeSet;
use std::time::Duration;

use shared::StoreReader;
use testweb::TestWeb;

use crate::support::{Rig, crawl, crawler_config, paths_requested};

fn host_of(request_host: &str) -> &str {
    request_host.split(':').next().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sample_site_crawl_obeys_robots_and_meta() {
    let mut rig = Rig::start().await;
    rig.config.from = Some("crawler-tests@example.org".into());
    let summary = rig.crawl(&[rig.web.url("sample.test", "/")]).await;

    let requested = rig.requested("sample.test");
    assert_eq!(
        requested.first().map(String::as_str),
        Some("/robots.txt"),
        "robots.txt comes first"
    );
    let unique: BTreeSet<&String> = requested.iter().collect();
    assert_eq!(
        unique.len(),
        requested.len(),
        "no URL requested twice: {requested:?}"
    );
    for path in &requested {
        assert!(
            !path.starts_with("/private/"),
            "robots.txt disallows /private/ for everyone: {path}"
        );
        assert!(
            !path.starts_with("/drafts/"),
            "robots.txt disallows /drafts/ for siftbot: {path}"
        );
    }
    for never in testweb::SAMPLE_NEVER_FETCHED {
        assert!(
            !requested.iter().any(|p| p == never),
            "{never} must not be fetched (nofollow)"
        );
    }

    let store = rig.store();
    // Each disallowed URL is kept with the robots.txt line that refused it (the siftbot
    // group of data/site/robots.txt: lines 11 and 12).
    for path in testweb::SAMPLE_DISALLOWED {
        let skipped = store
            .skipped(&rig.web.url("sample.test", path))
            .expect("read")
            .unwrap_or_else(|| panic!("{path}: no record of why it was not fetched"));
        let expected = if path.starts_with("/drafts/") {
            (12, "Disallow: /drafts/")
        } else {
            (11, "Disallow: /private/")
        };
        assert_eq!(
            skipped.reason,
            shared::record::SkipReason::RobotsRule {
                line: expected.0,
                rule: expected.1.into()
            },
            "{path}"
        );
    }
    assert_eq!(
        store.all_skipped().count(),
        testweb::SAMPLE_DISALLOWED.len(),
        "only the disallowed URLs are recorded as not fetched"
    );
    let stored: BTreeSet<String> = store.pages().map(|p| p.expect("page").url).collect();
    let expected: BTreeSet<String> = testweb::SAMPLE_STORED
        .iter()
        .map(|p| rig.web.url("sample.test", p))
        .collect();
    assert_eq!(
        stored, expected,
        "every allowed reachable page is stored, nothing else"
    );
    assert_eq!(summary.pages_stored, expected.len() as u64);

    let noindex = store
        .page(&rig.web.url("sample.test", testweb::SAMPLE_NOINDEX))
        .expect("read")
        .expect("stored");
    assert!(
        noindex.robots.noindex,
        "the noindex page is stored with its directive"
    );
    let nofollow = store
        .page(&rig.web.url("sample.test", testweb::SAMPLE_NOFOLLOW))
        .expect("read")
        .expect("stored");
    assert!(nofollow.robots.nofollow);

    let requests = rig.web.requests();
    let page_request = requests
        .iter()
        .find(|r| {
            host_of(&r.host) == "sample.test"
                && r.path_and_query != "/robots.txt"
                && r.path_and_query != "/"
        })
        .expect("a page request");
    let agent = page_request.user_agent.as_deref().unwrap_or_default();
    assert!(
        agent.starts_with("siftbot/") && agent.contains("(+http"),
        "User-Agent names the bot: {agent}"
    );
    assert_eq!(
        page_request.from.as_deref(),
        Some("crawler-tests@example.org")
    );
    assert!(
        page_request
            .accept
            .as_deref()
            .unwrap_or_default()
            .contains("text/html")
    );
    let referer = page_request.referer.as_deref().unwrap_or_default();
    assert!(
        referer.starts_with(&rig.web.url("sample.test", "/")),
        "Referer is the linking page: {referer:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_status_decides_what_is_fetched() {
    let mut rig = Rig::start().await;
    rig.config.robots_attempts = 2;
    let seeds = ["norobots.test", "forbidden.test", "flaky.test"].map(|h| rig.web.url(h, "/"));
    rig.crawl(&seeds).await;

    let norobots = rig.requested("norobots.test");
    assert!(
        norobots.len() > 2,
        "robots.txt 404: crawl freely ({norobots:?})"
    );
    assert_eq!(
        rig.requested("forbidden.test"),
        vec!["/robots.txt"],
        "robots.txt 403: nothing else"
    );
    assert_eq!(
        rig.requested("flaky.test"),
        vec!["/robots.txt", "/robots.txt"],
        "robots.txt 503: retried, never a page"
    );
    let store = rig.store();
    assert!(
        store
            .page(&rig.web.url("flaky.test", "/"))
            .expect("read")
            .is_none()
    );
    // The forbidden host's seed is dropped as disallowed; the unreachable host's seed waits
    // in the frontier for the next run.
    assert_eq!(
        store.frontier_len(),
        1,
        "only the unreachable host's seed is left"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_followed_and_bounded() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let seeds = ["/start", "/loop-a", "/offsite"].map(|p| web.url("redirect.test", p));
    let config = crawler_config(&web);
    let mut config_scope = config.clone();
    config_scope.max_redirects = 5;
    crawl(dir.path(), &seeds, config_scope).await;

    let store = StoreReader::open(dir.path()).expect("store");
    let start = store
        .page(&web.url("redirect.test", "/start"))
        .expect("read")
        .expect("stored");
    assert_eq!(start.status, 301);
    assert_eq!(
        start.redirect_to.as_deref(),
        Some(web.url("redirect.test", "/middle").as_str())
    );
    let end = store
        .page(&web.url("redirect.test", "/end"))
        .expect("read")
        .expect("the chain's end is stored");
    assert_eq!(end.status, 200);
    let requested = paths_requested(&web, "redirect.test");
    let loops = requested.iter().filter(|p| p.starts_with("/loop-")).count();
    assert_eq!(
        loops, 2,
        "a redirect loop ends at the seen-set: {requested:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_is_refused_unless_allowed() {
    let mut rig = Rig::start().await;
    rig.config.allow_loopback = false;
    rig.config.robots_attempts = 1;
    let summary = rig.crawl(&[rig.web.url("sample.test", "/")]).await;
    assert!(
        rig.web.requests().is_empty(),
        "no request may reach a loopback address: {:?}",
        rig.web.requests()
    );
    assert_eq!(summary.pages_stored, 0);
    assert_eq!(
        summary.frontier_left, 1,
        "the seed waits for a run that allows it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_addresses_are_refused_even_with_loopback_allowed() {
    let mut rig = Rig::start().await;
    rig.config.robots_attempts = 1;
    let scope = [
        rig.web.url("redirect.test", "/"),
        testweb::PRIVATE_ADDRESS_URL.to_string(),
    ];
    rig.crawl_in_scope(&[rig.web.url("redirect.test", "/to-private")], &scope)
        .await;
    let store = rig.store();
    let hop = store
        .page(&rig.web.url("redirect.test", "/to-private"))
        .expect("read")
        .expect("the redirect is stored");
    assert_eq!(
        hop.redirect_to.as_deref(),
        Some(testweb::PRIVATE_ADDRESS_URL)
    );
    assert!(
        store
            .page(testweb::PRIVATE_ADDRESS_URL)
            .expect("read")
            .is_none(),
        "10.0.0.1 is never fetched"
    );
    assert_eq!(store.frontier_len(), 1, "its URL stays queued, refused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_hosts_at_once_each_get_one_request_at_a_time_and_their_gap() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let hosts = [
        "sample.test",
        "norobots.test",
        "ranked.test",
        "redirect.test",
        "fresh.test",
        "maps.test",
        "charsets.test",
        "meta.test",
        "moved.test",
    ];
    let mut config = crawler_config(&web);
    config.delay_ms = 50;
    let seeds: Vec<String> = hosts.iter().map(|h| web.url(h, "/")).collect();
    crawl(dir.path(), &seeds, config).await;

    let requests = web.requests();
    for host in hosts {
        let mine: Vec<_> = requests.iter().filter(|r| r.host == host).collect();
        assert!(mine.len() > 1, "{host} was crawled");
        assert_eq!(
            mine[0].path_and_query, "/robots.txt",
            "{host}: robots.txt first"
        );
        for pair in mine.windows(2) {
            let answered = pair[0].answered_at.expect("answered");
            assert!(
                pair[1].at >= answered,
                "{host}: {} asked before {} was answered",
                pair[1].path_and_query,
                pair[0].path_and_query
            );
            // The gap runs from when the crawler had the last answer, which is after the
            // server handed it back: no network jitter can shorten it.
            assert!(
                pair[1].at.duration_since(answered) >= Duration::from_millis(50),
                "{host}: less than the 50 ms gap before {}",
                pair[1].path_and_query
            );
        }
    }
    let disallowed = |r: &&testweb::Request| match r.host.as_str() {
        "sample.test" => {
            r.path_and_query.starts_with("/private/") || r.path_and_query.starts_with("/drafts/")
        }
        "maps.test" => r.path_and_query.starts_with("/hidden/"),
        "redirect.test" => r.path_and_query.starts_with("/secret/"),
        "moved.test" => r.path_and_query == testweb::MOVED_DISALLOWED,
        _ => false,
    };
    let broken: Vec<_> = requests.iter().filter(disallowed).collect();
    assert!(broken.is_empty(), "disallowed URLs requested: {broken:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hosts_on_one_address_share_its_limits() {
    let web = TestWeb::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    // Four hosts, all on 127.0.0.1: each alone may have a request every 100 ms; together
    // the address takes one request at a time, 40 ms after the last one ended.
    let hosts = ["norobots.test", "copies.test", "charsets.test", "meta.test"];
    let mut config = crawler_config(&web);
    config.delay_ms = 100;
    config.ip_concurrency = 1;
    config.ip_delay_ms = 40;
    let seeds: Vec<String> = hosts.iter().map(|h| web.url(h, "/")).collect();
    crawl(dir.path(), &seeds, config).await;

    let mut requests = web.requests();
    requests.sort_by_key(|r| r.at);
    for host in hosts {
        assert!(
            requests.iter().filter(|r| r.host == host).count() > 2,
            "{host} was crawled"
        );
    }
    for pair in requests.windows(2) {
        let answered = pair[0].answered_at.expect("answered");
        assert!(
            pair[1].at >= answered + Duration::from_millis(40),
            "{}{} asked less than 40 ms after {}{} was answered",
            pair[1].host,
            pair[1].path_and_query,
            pair[0].host,
            pair[0].path_and_query
        );
    }
}
