//! The indexer across machines (`indexer build --redis`): soak hosts crawled into three
//! partitions and indexed on one machine (the reference), then split over two machines'
//! data directories and indexed by two builds at once, exchanging link contributions through
//! a real `redis-server`. Every shard's documents have the reference's in-link counts
//! (external ones apart) and anchor words, read back from the indexes; a build of one
//! machine alone has fewer; the round leaves no stream behind. PageRank levels, approximated
//! per machine, are measured against the reference. The same on a web four times the size
//! with a memory bound a few contributions wide: what arrives is spilled to disk, and the
//! most either machine holds at once stays within the bound while the bytes it exchanges
//! grow with the web.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use indexer::{BuildMode, BuildProgress, BuildSummary, Exchange, ExchangeSummary, Links};
use shared::partition::{PartitionId, Partitions};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, DocSet, TERMINATED, TantivyDocument};
use testweb::{RedisServer, SoakWeb, TestWeb};

use crate::faults::child::{self, build_args};
use crate::support::{copy_dir, crawl, crawler_config, index};

/// Eight hosts of 40 pages (one of 160); one page in ten links to another host.
const WEB: SoakWeb = SoakWeb {
    hosts: 8,
    pages: 40,
    slow: Duration::from_millis(1),
    crawl_delay_ms: 0,
};
/// Four times [`WEB`]'s pages.
const WEB_4X: SoakWeb = SoakWeb {
    pages: 4 * WEB.pages,
    ..WEB
};
/// The memory bound of the builds on [`WEB_4X`]: a few contributions (one source page's
/// links to one partition: here, its one link to another host, about 200 bytes).
const SMALL_BUDGET: usize = 1 << 10;
/// More than one contribution takes on these webs (a URL and a link, its anchor text, the
/// estimate's overheads).
const LARGEST_CONTRIBUTION: u64 = 512;
const PARTITIONS: u32 = 3;
/// The partitions of the first machine; the second holds the rest.
const FIRST: [u32; 2] = [0, 1];
/// The builds' `--exchange-deadline` in the test of a killed machine: far longer than the
/// seconds it takes to name it.
const DEADLINE: Duration = Duration::from_secs(60);

/// What the index says of one document: in-links, external in-links, the words of its
/// anchor texts.
type Signals = (u64, u64, BTreeSet<String>);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_machines_exchanging_links_index_what_one_machine_does() {
    let (partitions, one) = crawled_partitions(WEB).await;
    // Each machine's data directory, and a copy of it indexed alone (without --redis).
    let machines = [[tempdir(), tempdir()], [tempdir(), tempdir()]];
    for p in partitions.all() {
        for dir in &machines[machine_of(p)] {
            copy_dir(&p.data_dir(one.path()), &p.data_dir(dir.path()));
        }
    }
    index(one.path()).await;
    let summaries = build_both([machines[0][0].path(), machines[1][0].path()], None);
    for [_, alone] in &machines {
        index(alone.path()).await;
    }
    for exchange in summaries.map(|summary| summary.exchange.expect("it exchanged")) {
        assert!(exchange.sent > 0 && exchange.arrived > 0, "{exchange:?}");
        assert_eq!(exchange.spilled_runs, 0, "within the default budget");
    }
    assert_indexed_as_one_machine(partitions, one.path(), |p| {
        machines[machine_of(p)][0].path()
    });

    // Documents whose signals only the exchange brings, per machine.
    let mut cross = [0, 0];
    for p in partitions.all() {
        let [_, alone] = &machines[machine_of(p)];
        let (expected, _) = signals(&p.data_dir(one.path()));
        let (without, _) = signals(&p.data_dir(alone.path()));
        cross[machine_of(p)] += expected
            .iter()
            .filter(|(url, signals)| without[*url] != **signals)
            .count();
    }
    assert!(
        cross.iter().all(|&c| c > 0),
        "each machine has documents linked from the other: {cross:?}"
    );
    eprintln!("documents with signals only the exchange brings: {cross:?}");
}

/// Four times the web, and a memory bound of [`SMALL_BUDGET`]: both machines spill what
/// arrives in several runs, neither ever holds more than the bound and one contribution,
/// though many times the bound goes through, and the shards are indexed as by one machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_web_four_times_the_size_is_exchanged_within_its_memory_bound() {
    let (partitions, one) = crawled_partitions(WEB_4X).await;
    let machines = [tempdir(), tempdir()];
    for p in partitions.all() {
        copy_dir(
            &p.data_dir(one.path()),
            &p.data_dir(machines[machine_of(p)].path()),
        );
    }
    index(one.path()).await;
    let summaries = build_both([machines[0].path(), machines[1].path()], Some(SMALL_BUDGET));
    let exchanges: Vec<ExchangeSummary> = summaries
        .into_iter()
        .map(|summary| summary.exchange.expect("it exchanged"))
        .collect();
    eprintln!("the exchange within {SMALL_BUDGET} bytes: {exchanges:?}");
    for exchange in &exchanges {
        assert!(
            exchange.arrived_bytes > 4 * SMALL_BUDGET as u64 && exchange.spilled_runs >= 4,
            "many times the bound arrived, spilled: {exchange:?}"
        );
        assert!(
            exchange.most_held >= SMALL_BUDGET as u64
                && exchange.most_held < SMALL_BUDGET as u64 + LARGEST_CONTRIBUTION,
            "held the bound and less than one contribution more: {exchange:?}"
        );
    }
    assert_indexed_as_one_machine(partitions, one.path(), |p| machines[machine_of(p)].path());
    for machine in &machines {
        for spill in ["exchange-spill", "anchor-spill"] {
            assert!(!machine.path().join(spill).exists(), "{spill} removed");
        }
    }
}

/// Both machines' builds at once, through a `redis-server` of their own, within `budget`
/// bytes of contributions each and as many of anchor texts (the defaults without): their
/// summaries. The round leaves nothing behind in Redis.
fn build_both(data: [&Path; 2], budget: Option<usize>) -> [BuildSummary; 2] {
    let redis = RedisServer::start();
    // The crawl's partition count, as its workers write it (these stores were crawled by
    // `crawler crawl` each, unstamped).
    redis.cli(&["HSET", "sift:crawl", "partitions", &PARTITIONS.to_string()]);
    let exchange = Exchange {
        deadline: Duration::from_secs(60),
        budget: budget.unwrap_or(indexer::DEFAULT_BUDGET),
        ..Exchange::new(&redis.url())
    };
    let builds = data.map(|data| {
        let (data, exchange) = (data.to_path_buf(), exchange.clone());
        std::thread::spawn(move || {
            let links = Links {
                exchange: Some(&exchange),
                anchor_budget: budget.unwrap_or(indexer::DEFAULT_ANCHOR_BUDGET),
            };
            indexer::build_exchanging(
                &data,
                BuildMode::Full,
                &BuildProgress::new(),
                links,
                indexer::DEFAULT_WRITER_BUDGET,
            )
        })
    });
    let summaries = builds.map(|build| {
        build
            .join()
            .expect("the build thread")
            .expect("the build exchanges and indexes")
    });
    eprintln!(
        "Redis: {:?} commands, peak memory {:?} bytes",
        redis.info("total_commands_processed"),
        redis.info("used_memory_peak")
    );
    let keys = redis.cli(&["KEYS", "sift:index:*"]);
    assert_eq!(keys.trim(), "sift:index:round", "the round's keys are gone");
    assert_eq!(redis.cli(&["HGET", "sift:index:round", "done"]).trim(), "1");
    summaries
}

/// Every shard of `partitions` indexed on its machine (`exchanged(p)`, a data directory) has
/// the documents, in-link counts and anchor words of the one machine's index in `one`, and
/// PageRank levels within 1 of its.
fn assert_indexed_as_one_machine<'a>(
    partitions: Partitions,
    one: &Path,
    exchanged: impl Fn(PartitionId) -> &'a Path,
) {
    let (mut levels, mut moved, mut most) = (0, 0, 0);
    for p in partitions.all() {
        let (expected, expected_levels) = signals(&p.data_dir(one));
        let (found, found_levels) = signals(&p.data_dir(exchanged(p)));
        assert_eq!(
            found.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>()
        );
        for (url, signals) in &expected {
            assert_eq!(&found[url], signals, "{url} in {p}");
        }
        for (url, level) in &expected_levels {
            let diff = level.abs_diff(found_levels[url]);
            levels += 1;
            moved += u64::from(diff > 0);
            most = most.max(diff);
        }
    }
    eprintln!(
        "PageRank levels per machine against one machine: {moved} of {levels} documents moved, \
         by at most {most}"
    );
    assert!(most <= 1, "PageRank levels stay within 1 of one machine's");
}

/// The machine holding partition `p`: 0 holds [`FIRST`], 1 the rest.
fn machine_of(p: PartitionId) -> usize {
    usize::from(!FIRST.contains(&p.get()))
}

/// The soak hosts of `soak` crawled into the [`PARTITIONS`] partitions of one data
/// directory, each partition's hosts by a crawl of its own.
async fn crawled_partitions(soak: SoakWeb) -> (Partitions, tempfile::TempDir) {
    let web = TestWeb::start_with(soak).await;
    let mut config = crawler_config(&web);
    for host in soak.host_names() {
        config
            .resolve
            .insert(host, "127.0.0.1".parse().expect("an address"));
    }
    let partitions = Partitions::new(PARTITIONS).expect("partitions");
    let mut owned: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for host in soak.host_names() {
        let p = partitions.of_host(&host).get();
        owned.entry(p).or_default().push(web.url(&host, "/"));
    }
    assert_eq!(owned.len(), 3, "every partition holds hosts: {owned:?}");
    let one = tempfile::tempdir().expect("tempdir");
    for (p, seeds) in &owned {
        crawl(
            &PartitionId::new(*p).data_dir(one.path()),
            seeds,
            config.clone(),
        )
        .await;
    }
    (partitions, one)
}

/// A machine's build killed (`kill -9`) in the round, before it sends: the other machine's
/// build, waiting for it, fails within seconds (not at its deadline) with one line naming
/// the dead machine (its process) and its partitions, and removes its spill; the builds run
/// again complete, the killed one's leftover spill removed, with the index of a clean run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_machine_killed_in_the_round_is_named_within_seconds_and_a_rerun_completes() {
    let (partitions, one) = crawled_partitions(WEB).await;
    let clean = [tempdir(), tempdir()];
    let killed = [tempdir(), tempdir()];
    for p in partitions.all() {
        for machine in [&clean, &killed] {
            let dir = machine[machine_of(p)].path();
            copy_dir(&p.data_dir(one.path()), &p.data_dir(dir));
        }
    }
    let redis = RedisServer::start();
    redis.cli(&["HSET", "sift:crawl", "partitions", &PARTITIONS.to_string()]);
    let build = |data: &Path| {
        let mut args = build_args(data);
        args.extend(["--redis".into(), redis.url()]);
        args.extend(["--exchange-deadline".into(), DEADLINE.as_secs().to_string()]);
        args
    };
    let both = |dirs: &[tempfile::TempDir; 2]| {
        let (a, b) = (build(dirs[0].path()), build(dirs[1].path()));
        async move { tokio::join!(child::run("indexer", &a, ""), child::run("indexer", &b, "")) }
    };
    let (a, b) = both(&clean).await;
    assert!(a.succeeded() && b.succeeded(), "a clean run: {a:?} {b:?}");

    // Machine 0 stops before it sends (a failpoint: it has joined, beats, and waits).
    let mut victim = child::spawn(
        "indexer",
        &build(killed[0].path()),
        "indexer::exchange::before_send=sleep(60000)",
        Stdio::null(),
    );
    let clean_round: u64 = redis
        .cli(&["HGET", "sift:index:round", "number"])
        .trim()
        .parse()
        .expect("the clean run's round");
    let round = clean_round + 1;
    let announced = format!("sift:index:{round}:announced");
    let sent = format!("sift:index:{round}:sent:0");
    let mut waited = 0;
    while redis.cli(&["HLEN", &announced]).trim() != "2" {
        waited += 1;
        assert!(waited < 600, "machine 0 never joined round {round}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let survivor = child::spawn("indexer", &build(killed[1].path()), "", Stdio::piped());
    while redis.cli(&["SISMEMBER", &sent, "p-002"]).trim() != "1" {
        waited += 1;
        assert!(waited < 600, "machine 1 never sent in round {round}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        redis.cli(&["SCARD", &sent]).trim(),
        "1",
        "machine 0 has not sent"
    );
    let victim_pid = victim.id();
    victim.kill().expect("kill -9");
    victim.wait().expect("the victim ends");
    let killed_at = Instant::now();
    let ended = tokio::task::spawn_blocking(move || survivor.wait_with_output())
        .await
        .expect("the wait")
        .expect("the survivor's output");
    let took = killed_at.elapsed();
    let ended = child::Ended {
        status: ended.status,
        stderr: String::from_utf8_lossy(&ended.stderr).into_owned(),
    };
    let line = ended.failed_in_one_line("indexer");
    assert!(
        line.contains(&format!(
            "exchange round {round}: machine {}:{victim_pid}:",
            host_name()
        )) && line.contains("stopped (no heartbeat for 3s) before sending p-000, p-001"),
        "{line}"
    );
    assert!(took < Duration::from_secs(8), "named after {took:?}");
    let spill = |data: &Path| data.join("exchange-spill");
    assert!(spill(killed[0].path()).exists(), "the killed build's spill");
    assert!(!spill(killed[1].path()).exists(), "removed on failure");

    let (a, b) = both(&killed).await;
    assert!(a.succeeded() && b.succeeded(), "the rerun: {a:?} {b:?}");
    for p in partitions.all() {
        let m = machine_of(p);
        assert!(!spill(killed[m].path()).exists());
        assert!(!killed[m].path().join("anchor-spill").exists());
        assert_eq!(
            signals(&p.data_dir(killed[m].path())),
            signals(&p.data_dir(clean[m].path())),
            "{p}: the rerun's index is the clean run's"
        );
    }
}

/// This machine's host name, as the exchange names a machine.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .expect("the host name")
        .trim()
        .to_string()
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

/// Every document of the shard in `data`: its signals, and its PageRank level apart.
fn signals(data: &Path) -> (BTreeMap<String, Signals>, BTreeMap<String, u64>) {
    let current = index_format::open_current(data)
        .expect("the index opens")
        .expect("an index was built");
    let fields = current.fields;
    let searcher = current.index.reader().expect("reader").searcher();
    let mut found = BTreeMap::new();
    let mut levels = BTreeMap::new();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let mut urls = BTreeMap::new();
        for doc in 0..segment.max_doc() {
            if segment
                .alive_bitset()
                .is_some_and(|alive| alive.is_deleted(doc))
            {
                continue;
            }
            let stored: TantivyDocument = searcher
                .doc(DocAddress::new(ord as u32, doc))
                .expect("stored fields");
            let number = |field| {
                stored
                    .get_first(field)
                    .and_then(|v| v.as_u64())
                    .unwrap_or(0)
            };
            let url = stored
                .get_first(fields.url)
                .and_then(|v| v.as_str())
                .expect("a url")
                .to_string();
            levels.insert(url.clone(), number(fields.rank_level));
            found.insert(
                url.clone(),
                (
                    number(fields.inlinks),
                    number(fields.external_inlinks),
                    BTreeSet::new(),
                ),
            );
            urls.insert(doc, url);
        }
        let anchors = segment.inverted_index(fields.anchor).expect("anchor terms");
        let mut terms = anchors.terms().stream().expect("term stream");
        while terms.advance() {
            let word = String::from_utf8_lossy(terms.key()).into_owned();
            let mut postings = anchors
                .read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)
                .expect("postings");
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if let Some(url) = urls.get(&doc) {
                    found
                        .get_mut(url)
                        .expect("a document")
                        .2
                        .insert(word.clone());
                }
                doc = postings.advance();
            }
        }
    }
    (found, levels)
}
