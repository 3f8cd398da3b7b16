//! A worker joining on a disk of its own after the first took every partition.

use std::time::Duration;

use crawler::cluster::run_worker;

/// The first worker holds every partition and has applied parcels in each of its stores;
/// the second, on a disk of its own, takes half of them over with fresh stores. Their marks
/// start where the first worker's stores confirmed (what those applied is not in the new
/// stores, and its senders let it go): the senders' later parcels are confirmed, and the
/// crawl ends with every page. (Before, the fresh stores held their marks at 0 for ever,
/// the senders waited for confirmations, and the crawl never ended.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_joining_on_a_disk_of_its_own_takes_partitions_over_and_the_crawl_ends() {
    let web = testweb::TestWeb::start_on(super::WEB, &super::addresses()).await;
    let redis = testweb::RedisServer::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    let options = super::options(&web, &redis.url(), &first, true);
    let first_worker = tokio::spawn(run_worker(options, std::future::pending()));
    // Until the first worker's stores confirmed parcels from several sources.
    let confirmations = || {
        (0..super::PARTITIONS)
            .map(|p| format!("sift:confirmed:p-{p:03}"))
            .filter_map(|key| redis.cli(&["HLEN", &key]).trim().parse::<u32>().ok())
            .sum::<u32>()
    };
    let waited = tokio::time::Instant::now();
    while confirmations() < super::PARTITIONS {
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
    let mut urls: std::collections::BTreeSet<String> = super::stored(&first).into_keys().collect();
    urls.extend(super::stored(&second).into_keys());
    assert_eq!(urls, super::expected(&web), "every reachable page stored");
}
