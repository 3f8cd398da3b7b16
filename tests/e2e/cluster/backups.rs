//! Partitions that outlive their machine: two workers on two data directories back up the
//! partitions they hold (`--backup`, every 300 ms); one is killed (`kill -9`) and its
//! directory deleted. The other takes its partitions, restores each from its newest backup
//! and completes the crawl: every reachable page stored once, and a page fetched twice only
//! when its first fetch came after its partition's last backup.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use shared::partition::{PartitionId, Partitions};

use super::kills::{MAX_IN_FLIGHT, Machines, Rig, WEB};
use super::pauses::{until_done, until_requests};
use super::{
    PARTITIONS, assert_fetched_at_most_twice, assert_status_from_redis_after_the_crawl,
    assert_stored_every_page, expected_of,
};

/// How often the workers back up each partition.
const BACKUP_EVERY_MS: u64 = 300;

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
        None,
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
    let last_backups = backed_up(&backups);
    std::fs::remove_dir_all(&machines[0]).expect("machine a's disk deleted");
    assert!(!held.is_empty(), "machine a held partitions");
    let mut survivors = workers.split_off(1);
    until_done(&mut survivors, redis, Some(&logs)).await;

    let pages = assert_stored_every_page(&machines[1], &expected, redis);

    // Fetched again: the pages of a's partitions first fetched after their last backup (and
    // at most the fetches in flight of a lease lost on the way, under load).
    let partitions = Partitions::new(PARTITIONS).expect("partitions");
    let now = (Instant::now(), SystemTime::now());
    let instant_of = |at: SystemTime| now.0 - now.1.duration_since(at).unwrap_or_default();
    let fetches = assert_fetched_at_most_twice(web, WEB);
    let twice = fetches.values().filter(|&&n| n > 1).count();
    let requests = web.requests();
    let after_backup = fetches
        .keys()
        .filter(|(host, path)| {
            let p = partitions.of_host(host);
            let Some(backup) = last_backups.get(&p).filter(|_| held.contains(&p)) else {
                return false;
            };
            requests
                .iter()
                .find(|r| r.host == *host && r.path_and_query == *path)
                .is_some_and(|r| {
                    r.at + Duration::from_millis(100) >= instant_of(*backup) && r.at <= killed_at
                })
        })
        .count();
    assert!(
        twice <= after_backup + MAX_IN_FLIGHT,
        "{twice} pages fetched twice, {after_backup} fetched after their partition's last backup"
    );
    eprintln!(
        "machine a held {held:?}; {} pages; {twice} fetched twice, {after_backup} first fetched \
         after their partition's last backup",
        pages.len()
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
