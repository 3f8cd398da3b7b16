//! A failing web never stalls the crawl: a URL that hangs goes behind its host's other URLs
//! and costs the host a short pause, and every deadline (headers, whole answer, least rate,
//! body size after decompression) cuts a hostile answer off with its reason stored.

use std::time::Duration;

use shared::StoreReader;
use shared::record::PageRecord;
use testweb::{Request, STALLS_PAGES, TestWeb};

use crate::support::Rig;

fn stored(store: &StoreReader, url: &str) -> PageRecord {
    store
        .page(url)
        .expect("read")
        .unwrap_or_else(|| panic!("{url} stored"))
}

fn explained(rig: &Rig, url: &str) -> String {
    let mut out = Vec::new();
    crawler::inspect::explain(&rig.crawl_stores(), url, &mut out).expect("explain");
    String::from_utf8(out).expect("UTF-8")
}

/// The requests to `stalls.test` other than robots.txt, in arrival order.
fn page_requests(web: &TestWeb) -> Vec<Request> {
    web.requests()
        .into_iter()
        .filter(|r| r.host == "stalls.test" && r.path_and_query != "/robots.txt")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_url_goes_behind_its_hosts_other_pages() {
    let mut rig = Rig::start().await;
    rig.config.delay_ms = 100;
    rig.config.header_timeout_ms = 1_000;
    rig.config.page_attempts = 3;
    rig.config.retry_ms = 300;
    rig.config.deny_urls = vec!["/(drip|trickle|big|bomb)$".into()];
    let home = rig.web.url("stalls.test", "/");
    let summary = rig.crawl(std::slice::from_ref(&home)).await;
    assert_eq!(summary.halted_hosts, Vec::<String>::new());

    let requests = page_requests(&rig.web);
    // The host's timeline, for `--nocapture` readers: when each request came, after the first.
    for r in &requests {
        let at = r.at.saturating_duration_since(requests[0].at);
        eprintln!("{:>8.3} s  {}", at.as_secs_f64(), r.path_and_query);
    }
    let order: Vec<&str> = requests.iter().map(|r| r.path_and_query.as_str()).collect();
    for path in STALLS_PAGES {
        assert_eq!(
            order.iter().filter(|p| **p == path).count(),
            1,
            "{path} fetched once: {order:?}"
        );
    }
    let hangs: Vec<usize> = (0..order.len()).filter(|&i| order[i] == "/hang").collect();
    assert_eq!(hangs.len(), 3, "page_attempts = 3: {order:?}");
    assert_eq!(
        order[..hangs[1]]
            .iter()
            .filter(|p| p.starts_with("/page/"))
            .count(),
        STALLS_PAGES.len(),
        "every ordinary page before /hang is asked again: {order:?}"
    );
    assert!(
        order[hangs[0] + 1].starts_with("/page/"),
        "the request after the hang is another page: {order:?}"
    );

    // The host waits only a short back-off after the hang's header deadline (1 s), not a
    // back-off that grows with the URL's own failures.
    let deadline = Duration::from_millis(1_000);
    for &hang in &hangs[..2] {
        let cut_at = requests[hang].at + deadline;
        let next = requests[hang + 1].at;
        let pause = next.saturating_duration_since(cut_at);
        assert!(
            pause < Duration::from_millis(1_500),
            "after the hang the host waited {pause:?} (retry_ms = 300)"
        );
    }
    // And it stays polite: never two requests closer than the host's delay.
    for pair in requests.windows(2) {
        let gap = pair[1].at.saturating_duration_since(pair[0].at);
        assert!(
            gap >= Duration::from_millis(90),
            "{} then {} after {gap:?}",
            pair[0].path_and_query,
            pair[1].path_and_query
        );
    }

    let store = rig.store();
    let hang_url = rig.web.url("stalls.test", "/hang");
    let hang = stored(&store, &hang_url);
    assert_eq!(
        hang.error.as_deref(),
        Some("timeout: timed out after 1 s waiting for headers")
    );
    let explain = explained(&rig, &hang_url);
    assert!(
        explain.contains("fetch failed: timeout: timed out after 1 s waiting for headers"),
        "{explain}"
    );
    let attempts = explain
        .lines()
        .filter(|line| line.starts_with("    "))
        .filter(|line| line.ends_with(" failed: timeout: timed out after 1 s waiting for headers"))
        .count();
    assert_eq!(attempts, 3, "each attempt in the fetch history: {explain}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drips_trickles_big_bodies_and_bombs_are_cut_with_their_reasons() {
    let mut rig = Rig::start().await;
    rig.config.max_depth = 0;
    rig.config.page_attempts = 1;
    rig.config.host_concurrency = 4;
    rig.config.request_timeout_ms = 3_000;
    rig.config.min_transfer_rate = 1024;
    rig.config.transfer_window_ms = 1_000;
    rig.config.max_body_bytes = 64 * 1024;
    let url = |path| rig.web.url("stalls.test", path);
    let seeds = ["/drip", "/trickle", "/big", "/bomb"].map(url);
    rig.crawl(&seeds).await;

    let store = rig.store();
    let [drip, trickle, big, bomb] = seeds.each_ref().map(|u| stored(&store, u));
    assert_eq!(
        drip.error.as_deref(),
        Some("slow: dripped under 1 KiB/s over 1 s"),
        "a byte a second is under the least rate"
    );
    assert_eq!(
        trickle.error.as_deref(),
        Some("timeout: timed out after 3 s: the answer was not whole"),
        "20 KiB/s passes the least rate but not the request deadline"
    );
    for (page, what) in [
        (&big, "256 KiB page"),
        (&bomb, "64 MiB after decompression"),
    ] {
        assert_eq!(page.status, 200, "{what}");
        assert!(page.truncated, "{what}");
        assert_eq!(page.body_len, 64 * 1024, "{what}: cut at the limit");
    }
    let explain = explained(&rig, &seeds[3]);
    assert!(
        explain.contains("body cut at 64 KiB (the body limit)"),
        "{explain}"
    );
    let explain = explained(&rig, &seeds[0]);
    assert!(
        explain.contains("fetch failed: slow: dripped under 1 KiB/s over 1 s"),
        "{explain}"
    );
}
