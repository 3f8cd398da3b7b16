//! Workers on disks of their own, without backups: a partition's store stays where it was
//! written while a worker there lives, and is started again elsewhere only when none does.

use std::time::Duration;

use crawler::cluster::run_worker;
use shared::partition::local_partitions;

use super::kills::{Machines, Rig, WEB};
use super::pauses::{until_done, until_requests};
use super::{PARTITIONS, assert_fetched_at_most_twice, expected_of, stored};
use crate::sends::SendLog;

/// The first worker holds every partition and has applied parcels in each of its stores;
/// the second joins on a disk of its own. It takes nothing: the stores cannot move to its
/// disk, and a fresh store there would lose what the first one's hold. The crawl ends with
/// every page in the first worker's stores. (Before, the second took half the partitions on
/// fresh stores whose marks stayed at 0: the senders never had their later parcels
/// confirmed, and the crawl never ended.)
///
/// On a [`SendLog`] runtime, as every test of crawlers sending beside another's send log
/// (see `cluster/restarts.rs`): on a plain one, `cluster::failover`'s log missed a send
/// beside it in a rehearsal of CI.
#[test]
fn a_worker_joining_on_a_disk_of_its_own_takes_no_store_it_cannot_open() {
    SendLog::new().runtime(2).block_on(joining());
}

async fn joining() {
    let web = testweb::TestWeb::start_on(super::WEB, &super::addresses()).await;
    let redis = testweb::RedisServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let options = super::options(&web, &redis.url(), &first, true);
    let first_worker = tokio::spawn(run_worker(options, std::future::pending()));
    // Until the first worker's stores confirmed parcels from several sources.
    let confirmations = || {
        (0..PARTITIONS)
            .map(|p| format!("sift:confirmed:p-{p:03}"))
            .filter_map(|key| redis.cli(&["HLEN", &key]).trim().parse::<u32>().ok())
            .sum::<u32>()
    };
    let waited = tokio::time::Instant::now();
    while confirmations() < PARTITIONS {
        assert!(
            waited.elapsed() < Duration::from_secs(30),
            "the first worker confirmed no parcels"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let options = super::options(&web, &redis.url(), &second, false);
    let second_worker = tokio::spawn(run_worker(options, std::future::pending()));
    for worker in [first_worker, second_worker] {
        let ended = tokio::time::timeout(Duration::from_secs(90), worker).await;
        if ended.is_err() {
            eprintln!("{}", super::coordination(&redis));
        }
        ended
            .expect("the crawl ends within 90 s")
            .expect("the worker task runs")
            .expect("the worker succeeds");
    }
    let urls: std::collections::BTreeSet<String> = stored(&first).into_keys().collect();
    assert_eq!(urls, super::expected(&web), "every reachable page stored");
    assert_eq!(
        local_partitions(&second).expect("second's partitions"),
        [],
        "no store on the second worker's disk"
    );
    assert_fetched_at_most_twice(&web, super::WEB);
}

/// Two workers on two disks without backups; one is killed (`kill -9`) and its disk
/// deleted. Its partitions are lost: once no live worker reaches their stores, the other
/// takes them on fresh stores, their marks where the lost stores confirmed, and the crawl
/// goes on from the links that arrive and ends (before the marks, the fresh stores held
/// every later parcel past a gap and the crawl never ended).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_machine_lost_without_backups_leaves_its_partitions_to_the_others() {
    let rig = Rig::start().await;
    // Warnings: a partition taken over is one.
    let Machines {
        data: machines,
        logs,
        mut workers,
    } = rig.machines(&[], Some("warn"));
    let web = &rig.web;
    let expected = expected_of(web, WEB);
    until_requests(web, expected.len() / 3).await;
    // Started together, they shared the new crawl's partitions.
    let held = local_partitions(&machines[0])
        .expect("a's partitions")
        .len();
    let b_held = local_partitions(&machines[1])
        .expect("b's partitions")
        .len();
    assert!(
        held > 0 && b_held > 0,
        "a holds {held} partitions, b {b_held}"
    );
    workers[0].child().kill().expect("SIGKILL");
    workers[0].child().wait().expect("killed");
    std::fs::remove_dir_all(&machines[0]).expect("machine a's disk deleted");
    let mut survivors = workers.split_off(1);
    until_done(&mut survivors, &rig.redis, Some(&logs)).await;

    let log = std::fs::read_to_string(logs.join("worker-1.log")).expect("b's log");
    let over = log.matches("taken over on this disk").count();
    assert_eq!(over, held, "each of a's partitions taken over once:\n{log}");
    assert_eq!(
        local_partitions(&machines[1])
            .expect("b's partitions")
            .len(),
        PARTITIONS as usize,
        "every partition on b's disk"
    );
    let pages = stored(&machines[1]);
    let strays: Vec<&String> = pages
        .keys()
        .filter(|url| !expected.contains(*url))
        .collect();
    assert!(
        !pages.is_empty() && strays.is_empty(),
        "{} pages, strays {strays:?}",
        pages.len()
    );
    assert_fetched_at_most_twice(web, WEB);
    eprintln!(
        "machine a held {held} partitions; b stored {} of {} pages",
        pages.len(),
        expected.len()
    );
}
