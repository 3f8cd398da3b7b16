//! Frontier scale (issue 7): millions of synthetic URLs over many hosts through the crawler's
//! own [`Frontier`] and [`PageStore`] (RocksDB in a temporary directory), on a fake clock.
//!
//!     FRONTIER_URLS=10000000 FRONTIER_HOSTS=100000 cargo bench -p crawler --bench frontier_scale
//!
//! 1. Enqueue: every URL is queued twice, in batches that mix hosts as a crawl's pages do. The
//!    second time it is already seen: it is not queued again (it counts one more in-link and
//!    moves up its host's queue, which the in-memory frontier follows).
//! 2. Dequeue: jobs are taken in politeness order (default settings: 1 s between two requests
//!    to a host, one at a time) with the clock jumped to the next wake-up whenever no host is
//!    ready; each host's address lookup and robots.txt are answered at once, each page is
//!    ended as a crawl ends one (its frontier entry removed in one RocksDB batch).
//!
//! Checks, each counted in the figures and failing the run when not zero: URLs never handed
//! out (lost: a false "seen" or a dropped entry), URLs handed out twice, and requests to one
//! host closer together than its delay. The last line holds the figures:
//!
//!     frontier_scale urls=N hosts=H enqueue_s=.. dequeue_s=.. urls_per_s=.. peak_rss_kib=.. lost=0 duplicates=0 too_soon=0

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use crawler::{Frontier, Job, PageStore, Politeness, RobotsState};
use shared::CanonicalUrl;
use shared::config::RawCrawlerConfig;
use shared::record::FrontierEntry;
use tokio::time::Instant;

/// URLs per enqueue batch (a page's links).
const BATCH: usize = 256;

fn main() -> Result<()> {
    let urls = env_count("FRONTIER_URLS", 10_000_000)?;
    let hosts = env_count("FRONTIER_HOSTS", 100_000)?.min(urls).max(1);
    let dir = tempfile::tempdir()?;
    let mut store = PageStore::open(dir.path())?;
    let config = RawCrawlerConfig::default()
        .validate()
        .context("default config")?;
    let delay = config.delay;
    let mut frontier = Frontier::new(Politeness::new(&config));
    // The fake clock: starts now, jumps to each wake-up.
    let start = Instant::now();
    let mut now = start;

    let timer = std::time::Instant::now();
    for round in 0..2 {
        let mut id = 0;
        while id < urls {
            let end = (id + BATCH as u64).min(urls);
            let batch = (id..end)
                .map(|i| {
                    let url = url_of(i, hosts);
                    let parsed = CanonicalUrl::parse(&url).context("synthetic URL")?;
                    Ok((parsed, FrontierEntry::page(url, 1)))
                })
                .collect::<Result<Vec<_>>>()?;
            let queued = store.enqueue(batch)?;
            if round == 1 && queued.iter().any(|q| q.replaces.is_none()) {
                bail!("a URL pushed a second time was queued again");
            }
            frontier.push(queued, now);
            id = end;
        }
    }
    let enqueue = timer.elapsed();
    eprintln!(
        "enqueued {urls} URLs twice in {:.1} s",
        enqueue.as_secs_f64()
    );

    let timer = std::time::Instant::now();
    let allow_all = Arc::new(crawler::robots_policy_of_body(b"", "siftbot"));
    let mut handed_out = vec![false; usize::try_from(urls)?];
    let mut last_request: HashMap<String, Instant> = HashMap::with_capacity(hosts as usize);
    let (mut duplicates, mut too_soon) = (0u64, 0u64);
    loop {
        match frontier.next_job(now, &mut store, &mut |_| {})? {
            Some(Job::Resolve { origin, .. }) => {
                frontier.resolved(&origin, Some(address_of(&origin)), now);
            }
            Some(Job::Robots { origin, .. }) => {
                note_request(&mut last_request, &origin, now, delay, &mut too_soon);
                let known = RobotsState::Known {
                    policy: Arc::clone(&allow_all),
                    expires: now + Duration::from_secs(86_400),
                };
                frontier.robots_done(&origin, known, now);
            }
            Some(Job::Page {
                origin, key, entry, ..
            }) => {
                note_request(&mut last_request, &origin, now, delay, &mut too_soon);
                let id = id_of(&entry.url).context("a URL the bench did not queue")?;
                let seen = &mut handed_out[usize::try_from(id)?];
                duplicates += u64::from(*seen);
                *seen = true;
                store.commit_done(&key, None, Vec::new())?;
                frontier.page_done(&origin, &key, now);
            }
            None => match frontier.next_wake() {
                Some(at) => now = at.max(now),
                None => break,
            },
        }
    }
    let dequeue = timer.elapsed();
    let lost = handed_out.iter().filter(|&&done| !done).count();
    eprintln!(
        "dequeued in {:.1} s; {:.0} s on the fake clock",
        dequeue.as_secs_f64(),
        (now - start).as_secs_f64()
    );

    let seconds = (enqueue + dequeue).as_secs_f64();
    println!(
        "frontier_scale urls={urls} hosts={hosts} enqueue_s={:.2} dequeue_s={:.2} urls_per_s={:.0} peak_rss_kib={} lost={lost} duplicates={duplicates} too_soon={too_soon}",
        enqueue.as_secs_f64(),
        dequeue.as_secs_f64(),
        urls as f64 / seconds,
        peak_rss_kib().unwrap_or(0),
    );
    if lost > 0 || duplicates > 0 || too_soon > 0 {
        bail!("{lost} URLs lost, {duplicates} handed out twice, {too_soon} requests too soon");
    }
    Ok(())
}

/// URL `i`: on host `i % hosts`, so consecutive URLs are on different hosts.
fn url_of(i: u64, hosts: u64) -> String {
    format!("http://h{}.test/page/{i}", i % hosts)
}

/// The number a URL of [`url_of`] was made from.
fn id_of(url: &str) -> Option<u64> {
    url.rsplit_once("/page/")?.1.parse().ok()
}

/// A distinct (never contacted) address per host, so the per-address limits are per host.
fn address_of(origin: &str) -> IpAddr {
    let n: u32 = origin
        .trim_start_matches("http://h")
        .trim_end_matches(".test")
        .parse()
        .unwrap_or(0);
    IpAddr::V4(Ipv4Addr::from(0x0A00_0000 | n))
}

/// Records a request to `origin` at `now`, counting it in `too_soon` if it comes less than
/// `delay` after the last one.
fn note_request(
    last: &mut HashMap<String, Instant>,
    origin: &str,
    now: Instant,
    delay: Duration,
    too_soon: &mut u64,
) {
    if let Some(previous) = last.insert(origin.to_string(), now)
        && now - previous < delay
    {
        *too_soon += 1;
    }
}

fn env_count(name: &str, default: u64) -> Result<u64> {
    match std::env::var(name) {
        Ok(value) => value
            .replace('_', "")
            .parse()
            .with_context(|| format!("{name}: not a count: {value:?}")),
        Err(_) => Ok(default),
    }
}

/// The process's peak resident set (`VmHWM`), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
