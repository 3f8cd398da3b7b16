//! The frontier's own tests, on tokio's paused clock: robots.txt expiry, retries behind the
//! host's other URLs, slow hosts, hosts sharing an address, a new run's first gaps, fair
//! shares, and memory per origin as origins grow.

use shared::config::RawCrawlerConfig;
use shared::record::{FetchEvent, RobotsFetch};

use super::*;

const LOCAL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

fn frontier() -> Frontier {
    Frontier::new(Politeness::new(
        &RawCrawlerConfig {
            delay_ms: 0,
            ..RawCrawlerConfig::default()
        }
        .validate()
        .unwrap(),
    ))
}

fn queue(store: &mut PageStore, urls: &[&str]) -> Vec<QueuedUrl> {
    let entries = urls
        .iter()
        .map(|u| (CanonicalUrl::parse(u).unwrap(), FrontierEntry::page(*u, 0)))
        .collect();
    store.enqueue(entries).unwrap()
}

fn known(fetch: RobotsFetch, expires: Instant) -> RobotsState {
    RobotsState::Known {
        policy: Arc::new(RobotsPolicy::from_fetch(&fetch, "siftbot")),
        expires,
    }
}

fn next(frontier: &mut Frontier, store: &mut PageStore) -> Option<Job> {
    frontier
        .next_job(Instant::now(), store, &mut |_| {})
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn an_expired_robots_txt_is_read_again_before_the_next_page() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let mut frontier = frontier();
    let origin = "http://a.test";
    let hour = Duration::from_secs(3600);
    frontier.load_origin(
        origin,
        known(RobotsFetch::NoRules, Instant::now() + hour),
        Instant::now(),
    );
    frontier.resolved(origin, Some(LOCAL), Instant::now());
    let queued = queue(&mut store, &["http://a.test/1", "http://a.test/2"]);
    frontier.push(queued, Instant::now());

    let Some(Job::Page { key, entry, .. }) = next(&mut frontier, &mut store) else {
        panic!("a page while robots.txt is fresh");
    };
    store.drop_queued(&key, &entry, 0).unwrap(); // as if stored
    frontier.page_done(origin, &key, Instant::now());
    tokio::time::advance(hour).await;
    assert!(
        matches!(next(&mut frontier, &mut store), Some(Job::Robots { .. })),
        "expired: robots.txt first"
    );
    assert!(
        next(&mut frontier, &mut store).is_none(),
        "nothing else meanwhile"
    );
    frontier.robots_done(
        origin,
        known(
            RobotsFetch::Rules("User-agent: *\nDisallow: /2\n".into()),
            Instant::now() + hour,
        ),
        Instant::now(),
    );
    let mut dropped = Vec::new();
    let job = frontier
        .next_job(Instant::now(), &mut store, &mut |e| {
            dropped.push(e.url.clone())
        })
        .unwrap();
    assert!(job.is_none(), "the new rules forbid /2");
    assert_eq!(dropped, vec!["http://a.test/2".to_string()]);
}

#[tokio::test(start_paused = true)]
async fn a_failed_url_goes_behind_its_hosts_others_and_the_host_waits() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let mut frontier = frontier();
    let origin = "http://b.test";
    let urls = ["http://b.test/x", "http://b.test/y", "http://b.test/z"];
    ready_origin(&mut frontier, &mut store, origin, LOCAL, &urls);

    let Some(Job::Page {
        key,
        mut entry,
        url,
        ..
    }) = next(&mut frontier, &mut store)
    else {
        panic!("a page");
    };
    assert_eq!(entry.url, "http://b.test/x");
    entry.attempts = 1;
    let failure = FetchEvent {
        at_ms: 1,
        status: 0,
        error: Some("timeout: timed out after 30 s waiting for headers".into()),
        content_hash: 0,
    };
    let requeued = store.requeue(&key, &entry, &url, failure).unwrap();
    let wait = Duration::from_secs(3);
    frontier.page_retry(origin, &key, requeued, entry, wait, Instant::now());
    assert_eq!(frontier.next_wake(), Some(Instant::now() + wait));

    tokio::time::advance(Duration::from_millis(2_999)).await;
    assert!(next(&mut frontier, &mut store).is_none(), "the host waits");
    tokio::time::advance(Duration::from_millis(1)).await;
    let mut order = Vec::new();
    while let Some(Job::Page { key, entry, .. }) = next(&mut frontier, &mut store) {
        order.push((entry.url.clone(), entry.attempts));
        store.drop_queued(&key, &entry, 0).unwrap();
        frontier.page_done(origin, &key, Instant::now());
    }
    assert_eq!(
        order,
        [
            ("http://b.test/y".to_string(), 0),
            ("http://b.test/z".to_string(), 0),
            ("http://b.test/x".to_string(), 1),
        ],
        "the other URLs first, the failed one last with its attempt count"
    );
    assert_eq!(
        store.history("http://b.test/x").unwrap().0.len(),
        1,
        "the failure is in the URL's history"
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_answer_lengthens_the_gap_until_answers_are_quick_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let mut frontier = frontier();
    let origin = "http://slow.test";
    let urls = [
        "http://slow.test/1",
        "http://slow.test/2",
        "http://slow.test/3",
    ];
    ready_origin(&mut frontier, &mut store, origin, LOCAL, &urls);

    let take = |frontier: &mut Frontier, store: &mut PageStore| {
        let Some(Job::Page { key, entry, .. }) = next(frontier, store) else {
            panic!("a page");
        };
        store.drop_queued(&key, &entry, 0).unwrap();
        key
    };
    let key = take(&mut frontier, &mut store);
    frontier.answered_in(origin, Duration::from_secs(3), Instant::now());
    frontier.page_done(origin, &key, Instant::now());
    tokio::time::advance(Duration::from_millis(5_999)).await;
    assert!(
        next(&mut frontier, &mut store).is_none(),
        "6 s after a 3 s answer"
    );
    tokio::time::advance(Duration::from_millis(1)).await;
    let key = take(&mut frontier, &mut store);
    frontier.answered_in(origin, Duration::from_millis(20), Instant::now());
    frontier.page_done(origin, &key, Instant::now());
    assert!(
        next(&mut frontier, &mut store).is_some(),
        "quick again: the configured gap (0 here)"
    );
}

/// An origin with no robots.txt rules (for a day), resolved to `ip`, with `urls` queued.
fn ready_origin(
    frontier: &mut Frontier,
    store: &mut PageStore,
    origin: &str,
    ip: IpAddr,
    urls: &[&str],
) {
    let far = Instant::now() + Duration::from_secs(86_400);
    frontier.load_origin(origin, known(RobotsFetch::NoRules, far), Instant::now());
    frontier.resolved(origin, Some(ip), Instant::now());
    let queued = queue(store, urls);
    frontier.push(queued, Instant::now());
}

fn ready_origins(
    frontier: &mut Frontier,
    store: &mut PageStore,
    origins: &[(&str, IpAddr)],
    per_origin: usize,
) {
    for (origin, ip) in origins {
        let urls: Vec<String> = (0..per_origin).map(|i| format!("{origin}/{i}")).collect();
        let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
        ready_origin(frontier, store, origin, *ip, &urls);
    }
}

fn origin_of(job: &Job) -> &str {
    match job {
        Job::Page { origin, .. } | Job::Robots { origin, .. } | Job::Resolve { origin, .. } => {
            origin
        }
    }
}

#[tokio::test(start_paused = true)]
async fn hosts_on_one_address_share_its_slot_and_its_gap() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let mut frontier = Frontier::new(Politeness::new(
        &RawCrawlerConfig {
            delay_ms: 1_000,
            ip_concurrency: 1,
            ip_delay_ms: 300,
            ..RawCrawlerConfig::default()
        }
        .validate()
        .unwrap(),
    ));
    tokio::time::advance(Duration::from_secs(1)).await; // the run's first gap
    let shared_ip: IpAddr = "10.0.0.1".parse().unwrap();
    let other_ip: IpAddr = "10.0.0.2".parse().unwrap();
    let origins = [
        ("http://a.test", shared_ip),
        ("http://b.test", shared_ip),
        ("http://c.test", shared_ip),
        ("http://d.test", other_ip),
    ];
    ready_origins(&mut frontier, &mut store, &origins, 2);

    let mut first = Vec::new();
    while let Some(job) = next(&mut frontier, &mut store) {
        first.push(job);
    }
    let mut origins_now: Vec<&str> = first.iter().map(origin_of).collect();
    origins_now.sort();
    assert_eq!(
        origins_now.len(),
        2,
        "one request per address: {origins_now:?}"
    );
    assert_eq!(
        origins_now[1], "http://d.test",
        "another address is not held back"
    );
    let Some(Job::Page {
        origin,
        key,
        spacing,
        ..
    }) = first.iter().find(|job| origin_of(job) != "http://d.test")
    else {
        panic!("a page from the shared address")
    };
    assert_eq!(
        spacing,
        &Spacing {
            origin_gap: Duration::from_secs(1),
            address: Some((shared_ip, Duration::from_millis(300))),
        },
        "its fetch task keeps the host's and the address's gaps again when it sends"
    );
    let shared_origin = (origin.clone(), key.clone());

    tokio::time::advance(Duration::from_millis(100)).await;
    frontier.page_done(&shared_origin.0, &shared_origin.1, Instant::now());
    assert!(
        next(&mut frontier, &mut store).is_none(),
        "the slot is free, but the address's 300 ms gap after the answer is not over"
    );
    tokio::time::advance(Duration::from_millis(299)).await;
    assert!(next(&mut frontier, &mut store).is_none(), "299 ms after");
    tokio::time::advance(Duration::from_millis(1)).await;
    let job = next(&mut frontier, &mut store).expect("300 ms after");
    assert_ne!(
        origin_of(&job),
        shared_origin.0,
        "another host on the address (the first waits its own second)"
    );
}

#[tokio::test(start_paused = true)]
async fn a_new_run_waits_each_gap_from_its_start_and_keeps_the_cached_crawl_delay() {
    // A run killed a moment ago may just have asked the host and the address: the next run
    // waits the host's gap from its start, here the 3 s `Crawl-delay` of the robots.txt
    // an earlier run cached, which holds between its pages too.
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let mut frontier = Frontier::new(Politeness::new(
        &RawCrawlerConfig {
            delay_ms: 1_000,
            ip_delay_ms: 100,
            ..RawCrawlerConfig::default()
        }
        .validate()
        .unwrap(),
    ));
    let origin = "http://a.test";
    let far = Instant::now() + Duration::from_secs(86_400);
    let rules = RobotsFetch::Rules("User-agent: *\nCrawl-delay: 3\n".into());
    frontier.load_origin(origin, known(rules, far), Instant::now());
    frontier.resolved(origin, Some(LOCAL), Instant::now());
    let queued = queue(&mut store, &["http://a.test/1", "http://a.test/2"]);
    frontier.push(queued, Instant::now());
    tokio::time::advance(Duration::from_millis(2_999)).await;
    assert!(
        next(&mut frontier, &mut store).is_none(),
        "not before the Crawl-delay has passed since the run began"
    );
    tokio::time::advance(Duration::from_millis(1)).await;
    let Some(Job::Page { key, entry, .. }) = next(&mut frontier, &mut store) else {
        panic!("the first page 3 s after the start");
    };
    store.drop_queued(&key, &entry, 0).unwrap(); // as if stored
    frontier.page_done(origin, &key, Instant::now());
    tokio::time::advance(Duration::from_millis(2_999)).await;
    assert!(
        next(&mut frontier, &mut store).is_none(),
        "the cached Crawl-delay between pages, not the operator's 1 s"
    );
    tokio::time::advance(Duration::from_millis(1)).await;
    assert!(
        next(&mut frontier, &mut store).is_some(),
        "3 s after the page"
    );

    // A host the new run finds (no cached robots.txt) waits the operator's gap.
    let mut frontier = Frontier::new(Politeness::new(
        &RawCrawlerConfig {
            delay_ms: 1_000,
            ..RawCrawlerConfig::default()
        }
        .validate()
        .unwrap(),
    ));
    let queued = queue(&mut store, &["http://b.test/1"]);
    frontier.push(queued, Instant::now());
    tokio::time::advance(Duration::from_millis(999)).await;
    assert!(
        next(&mut frontier, &mut store).is_none(),
        "999 ms after the start"
    );
    tokio::time::advance(Duration::from_millis(1)).await;
    assert!(
        matches!(next(&mut frontier, &mut store), Some(Job::Resolve { .. })),
        "1 s after the start: its address first"
    );
}

#[tokio::test(start_paused = true)]
async fn a_host_holds_a_fair_share_of_the_slots() {
    // Eight slots; each host would take all eight.
    let fresh = || {
        Frontier::new(Politeness::new(
            &RawCrawlerConfig {
                delay_ms: 0,
                host_concurrency: 8,
                max_in_flight: 8,
                ip_concurrency: 0,
                ..RawCrawlerConfig::default()
            }
            .validate()
            .unwrap(),
        ))
    };
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let mut frontier = fresh();
    let ip: IpAddr = "10.0.0.1".parse().unwrap();
    ready_origins(&mut frontier, &mut store, &[("http://a.test", ip)], 12);
    let mut alone = 0;
    while next(&mut frontier, &mut store).is_some() {
        alone += 1;
    }
    assert_eq!(alone, 8, "alone, a host may use every slot");

    let mut frontier = fresh();
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let two = [("http://a.test", ip), ("http://b.test", ip)];
    ready_origins(&mut frontier, &mut store, &two, 12);
    let mut per_origin: HashMap<String, usize> = HashMap::new();
    while let Some(job) = next(&mut frontier, &mut store) {
        *per_origin.entry(origin_of(&job).to_string()).or_default() += 1;
    }
    assert_eq!(
        per_origin,
        HashMap::from([("http://a.test".into(), 2), ("http://b.test".into(), 2)]),
        "a quarter of the capacity each while the other has work"
    );
}

#[tokio::test(start_paused = true)]
async fn memory_per_origin_shrinks_as_origins_grow_and_nothing_is_lost() {
    let mut many = frontier();
    assert_eq!(many.buffer_cap(), BUFFER_PER_HOST);
    let now = Instant::now();
    for i in 0..70_000 {
        many.load_origin(&format!("http://h{i}.test"), RobotsState::Unknown, now);
    }
    assert_eq!(many.buffer_cap(), MIN_BUFFER_PER_HOST);

    // One origin with more URLs than its buffer: every one comes out, in order.
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let mut frontier = frontier();
    let ip: IpAddr = "10.0.0.1".parse().unwrap();
    ready_origins(&mut frontier, &mut store, &[("http://a.test", ip)], 600);
    let mut seen = Vec::new();
    while let Some(Job::Page {
        origin, key, entry, ..
    }) = next(&mut frontier, &mut store)
    {
        store.drop_queued(&key, &entry, 0).unwrap();
        frontier.page_done(&origin, &key, Instant::now());
        seen.push(entry.url);
    }
    let expected: Vec<String> = (0..600).map(|i| format!("http://a.test/{i}")).collect();
    assert_eq!(seen, expected);
}
