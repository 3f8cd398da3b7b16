//! Partitions that outlive their machine: two workers on two data directories back up the
//! partitions they hold (`--backup`, every 300 ms); one is killed (`kill -9`) and its
//! directory deleted. The other takes its partitions, restores each from its newest backup
//! and completes the crawl: every reachable page stored once, no page of a backup fetched
//! again, and a page fetched twice only when its partition's last backup lacked it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rocksdb::Env;
use rocksdb::backup::{BackupEngine, BackupEngineOptions, RestoreOptions};
use shared::StoreReader;
use shared::partition::{PartitionId, Partitions};

use super::kills::{MAX_IN_FLIGHT, Machines, Rig, WEB};
use super::pauses::{until_done, until_requests};
use super::{
    PARTITIONS, assert_fetched_at_most_twice, assert_status_from_redis_after_the_crawl,
    assert_stored_every_page, expected_of,
};
use crate::support::copy_dir;

/// How often the workers back up each partition.
const BACKUP_EVERY_MS: u64 = 300;

/// The pages held by the newest backups in `copies` (a copy of each partition's backup
/// directory), restored under `scratch`.
fn pages_backed_up(copies: &BTreeMap<PartitionId, PathBuf>, scratch: &Path) -> BTreeSet<String> {
    let mut pages = BTreeSet::new();
    for (p, copy) in copies {
        let options = BackupEngineOptions::new(copy).expect("backup options");
        let env = Env::new().expect("a RocksDB environment");
        let mut engine = BackupEngine::open(&options, &env).expect("the backups open");
        let data = scratch.join(p.dir_name());
        std::fs::create_dir_all(&data).expect("a partition's directory");
        let store = shared::store::store_dir(&data);
        engine
            .restore_from_latest_backup(&store, &store, &RestoreOptions::default())
            .expect("the newest backup restores");
        let reader = StoreReader::open(&data).expect("a restored store opens");
        for page in reader.pages() {
            pages.insert(page.expect("page decodes").url);
        }
    }
    pages
}

/// The newest backup of each partition: when it was taken.
fn backed_up(backups: &Path) -> BTreeMap<PartitionId, SystemTime> {
    let mut newest = BTreeMap::new();
    for p in Partitions::new(PARTITIONS).expect("partitions").all() {
        let latest = backups.join(p.dir_name()).join("latest");
        let Ok(text) = std::fs::read_to_string(latest) else {
            continue;
        };
        let record: serde_json::Value = serde_json::from_str(&text).expect("a backup record");
        let at = record["at_ms"].as_u64().expect("at_ms");
        newest.insert(p, UNIX_EPOCH + Duration::from_millis(at));
    }
    newest
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_machine_lost_with_its_disk_is_restored_from_backups() {
    let rig = Rig::start().await;
    let backups = rig.dir.path().join("backups");
    let Machines {
        data: machines,
        logs,
        mut workers,
    } = rig.machines(
        &[
            "--backup".into(),
            backups.display().to_string(),
            "--backup-interval-ms".into(),
            BACKUP_EVERY_MS.to_string(),
        ],
        // Which partitions changed hands, and why, for a failure's message.
        Some("warn,crawler::cluster=info"),
    );
    let Rig { web, redis, .. } = &rig;
    let expected = expected_of(web, WEB);
    until_requests(web, expected.len() / 3).await;
    let started = Instant::now();
    while backed_up(&backups).len() < PARTITIONS as usize {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "every partition backed up: {:?}",
            backed_up(&backups)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Machine a is lost with its disk: its partitions (by its leases) are restored by b.
    let pid = workers[0].child().id();
    let held: Vec<PartitionId> = Partitions::new(PARTITIONS)
        .expect("partitions")
        .all()
        .filter(|p| {
            let lease = redis.cli(&["GET", &format!("sift:lease:{p}")]);
            lease.contains(&format!("-{pid}-"))
        })
        .collect();
    workers[0].child().kill().expect("SIGKILL");
    workers[0].child().wait().expect("killed");
    let killed_at = Instant::now();
    // A copy of the backups b restores, taken before b's leases on them begin (b backs up
    // over them once it holds them).
    let copies: BTreeMap<PartitionId, PathBuf> = held
        .iter()
        .map(|p| {
            let copy = rig.dir.path().join("a's last backups").join(p.dir_name());
            copy_dir(&backups.join(p.dir_name()), &copy);
            (*p, copy)
        })
        .collect();
    std::fs::remove_dir_all(&machines[0]).expect("machine a's disk deleted");
    assert!(!held.is_empty(), "machine a held partitions");
    let mut survivors = workers.split_off(1);
    until_done(&mut survivors, redis, Some(&logs)).await;

    let pages = assert_stored_every_page(&machines[1], &expected, redis);

    // Fetched again: the pages of a's partitions it fetched that their last backup lacks
    // (and at most the fetches in flight of a lease lost on the way, under load); never a
    // page a backup holds.
    let in_backups = pages_backed_up(&copies, &rig.dir.path().join("restored"));
    let partitions = Partitions::new(PARTITIONS).expect("partitions");
    let fetches = assert_fetched_at_most_twice(web, WEB);
    let url = |(host, path): &(String, String)| web.url(host, path);
    let again_from_backups: Vec<String> = fetches
        .iter()
        .filter(|(page, n)| **n > 1 && in_backups.contains(&url(page)))
        .map(|(page, _)| url(page))
        .collect();
    assert!(
        again_from_backups.is_empty(),
        "no page a backup held fetched again: {again_from_backups:?}"
    );
    let twice = fetches.values().filter(|&&n| n > 1).count();
    let requests = web.requests();
    let lacked = |page @ (host, path): &(String, String)| {
        held.contains(&partitions.of_host(host))
            && !in_backups.contains(&url(page))
            && requests
                .iter()
                .any(|r| r.host == *host && r.path_and_query == *path && r.at <= killed_at)
    };
    let lacking = fetches.keys().filter(|page| lacked(page)).count();
    // The others fetched twice, each with its partition and its fetches' times from the
    // kill, for a failure's message.
    let from_kill = |at: Instant| match at.checked_duration_since(killed_at) {
        Some(after) => format!("+{} ms", after.as_millis()),
        None => format!("-{} ms", (killed_at - at).as_millis()),
    };
    let otherwise: Vec<String> = fetches
        .iter()
        .filter(|(page, n)| **n > 1 && !lacked(page))
        .map(|(page @ (host, path), _)| {
            let times: Vec<String> = requests
                .iter()
                .filter(|r| r.host == *host && r.path_and_query == *path)
                .map(|r| from_kill(r.at))
                .collect();
            format!("{} ({}) at {times:?}", url(page), partitions.of_host(host))
        })
        .collect();
    assert!(
        otherwise.len() <= MAX_IN_FLIGHT,
        "{twice} pages fetched twice, {lacking} fetched by machine a and not in its last \
         backups; the others: {otherwise:?}"
    );
    eprintln!(
        "machine a held {held:?}; {} pages; {} in its last backups; {twice} fetched twice, \
         {lacking} fetched by machine a and not in its last backups; the others: {otherwise:?}",
        pages.len(),
        in_backups.len()
    );
    assert_status_from_redis_after_the_crawl(redis, pages.len()).await;
    let mut out = Vec::new();
    crawler::cluster::status::status(&redis.url(), true, &mut out)
        .await
        .expect("status reads Redis");
    let status: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
    let listed = status["backups"].as_array().expect("backups").len();
    assert_eq!(
        listed, PARTITIONS as usize,
        "each partition's backup: {status}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_ends_without_waiting_for_its_backup_interval() {
    // An hour between backups: the crawl ends only if a settled partition is backed up at
    // once, its senders waiting for the confirmations only a backup gives.
    let web = testweb::TestWeb::start_on(super::WEB, &super::addresses()).await;
    let redis = testweb::RedisServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let backups = dir.path().join("backups");
    let mut options = super::options(&web, &redis.url(), &data, true);
    options.backups = Some(crawler::cluster::Backups {
        dir: backups.clone(),
        every: Duration::from_secs(3600),
    });
    let worker = crawler::cluster::run_worker(options, std::future::pending());
    tokio::time::timeout(Duration::from_secs(90), worker)
        .await
        .expect("the crawl ends long before its first interval")
        .expect("the worker crawls");
    let urls: std::collections::BTreeSet<String> = super::stored(&data).into_keys().collect();
    assert_eq!(urls, super::expected(&web), "every reachable page stored");
    assert_eq!(
        backed_up(&backups).len(),
        PARTITIONS as usize,
        "every partition backed up"
    );
}
