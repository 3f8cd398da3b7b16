//! A partition store's own tests: links to other partitions wait in the outbox and keep
//! their order across runs, links that arrive twice are applied once, a fallen fence refuses
//! every write, and a store is never claimed as another partition or under an older lease.

use shared::partition::{PartitionId, Partitions};
use shared::record::FrontierEntry;
use shared::{CanonicalUrl, StoreError};
use tokio::time::{Duration, Instant};

use super::PageStore;
use super::partition::{ArrivedLink, Fence};

const PARTITIONS: u32 = 4;

fn partitions() -> Partitions {
    Partitions::new(PARTITIONS).unwrap()
}

/// Two hosts in different partitions, the first one's partition, the second's.
fn two_hosts() -> (String, PartitionId, String, PartitionId) {
    let p = partitions();
    let first = "a.test".to_string();
    let own = p.of_host(&first);
    let other = (0..100)
        .map(|i| format!("h{i}.test"))
        .find(|h| p.of_host(h) != own)
        .unwrap();
    let target = p.of_host(&other);
    (first, own, other, target)
}

fn fence() -> Fence {
    Fence::until(Instant::now() + Duration::from_secs(3600))
}

fn entries(urls: &[String]) -> Vec<(CanonicalUrl, FrontierEntry)> {
    urls.iter()
        .map(|u| {
            (
                CanonicalUrl::parse(u).unwrap(),
                FrontierEntry::page(u.as_str(), 1),
            )
        })
        .collect()
}

#[test]
fn links_to_other_partitions_wait_in_the_outbox_in_order_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (own_host, own, other_host, target) = two_hosts();
    let mine = format!("http://{own_host}/x");
    let theirs: Vec<String> = (0..3).map(|i| format!("http://{other_host}/{i}")).collect();
    {
        let mut store = PageStore::open(dir.path()).unwrap();
        store
            .claim_partition(partitions(), own, 1, fence())
            .unwrap();
        let mut urls = vec![mine.clone()];
        urls.extend(theirs[..2].iter().cloned());
        let queued = store.enqueue(entries(&urls)).unwrap();
        assert_eq!(queued.len(), 1, "only the own host's URL is queued here");
        assert_eq!(queued[0].entry.url, mine);
        assert_eq!(store.outbox_len(), 2);
        let outbox = store.outbox(10).unwrap();
        let seqs: Vec<u64> = outbox.iter().map(|(seq, _)| *seq).collect();
        assert_eq!(
            seqs,
            vec![1, 2],
            "sequence numbers start at 1, in the order found"
        );
        assert!(outbox.iter().all(|(_, link)| link.target == target.get()));
        store.outbox_sent(1, 1).unwrap();
        assert_eq!(store.outbox(10).unwrap().len(), 1);
    }
    // The next run goes on numbering after the last.
    let mut store = PageStore::open(dir.path()).unwrap();
    store
        .claim_partition(partitions(), own, 2, fence())
        .unwrap();
    assert_eq!(store.outbox_len(), 1);
    store.enqueue(entries(&theirs[2..])).unwrap();
    let seqs: Vec<u64> = store.outbox(10).unwrap().iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, vec![2, 3]);
}

#[test]
fn links_that_arrive_twice_are_applied_once() {
    let dir = tempfile::tempdir().unwrap();
    let (own_host, own, _, source) = two_hosts();
    let mut store = PageStore::open(dir.path()).unwrap();
    store
        .claim_partition(partitions(), own, 1, fence())
        .unwrap();
    let link = |seq: u64, path: &str| ArrivedLink {
        from: Some((source, seq)),
        entry: FrontierEntry::page(format!("http://{own_host}/{path}"), 1),
    };
    let first = vec![link(1, "a"), link(2, "b")];
    assert_eq!(store.apply_links(first.clone()).unwrap().len(), 2);
    // Redelivered after a crash before its acknowledgement, then a new one: only the new.
    let mut again = first;
    again.push(link(3, "a"));
    again.push(link(4, "c"));
    let queued = store.apply_links(again).unwrap();
    let new: Vec<&str> = queued
        .iter()
        .filter(|q| q.replaces.is_none())
        .map(|q| q.entry.url.as_str())
        .collect();
    assert_eq!(
        new,
        vec![format!("http://{own_host}/c")],
        "only the new URL is queued"
    );
    // The one found again (sequence 3) counts one more in-link; the redelivered ones none.
    let a = store
        .queued_for(&format!("http://{own_host}"), 10, &|_| false)
        .unwrap()
        .into_iter()
        .find(|q| q.entry.url.ends_with("/a"))
        .unwrap();
    assert_eq!(a.entry.inlinks, 2);
    let b = store
        .queued_for(&format!("http://{own_host}"), 10, &|_| false)
        .unwrap()
        .into_iter()
        .find(|q| q.entry.url.ends_with("/b"))
        .unwrap();
    assert_eq!(b.entry.inlinks, 1);
    // Seeds carry no sequence number: always applied, the seen-set keeps them once.
    let seed = ArrivedLink {
        from: None,
        entry: FrontierEntry::page(format!("http://{own_host}/"), 0),
    };
    assert_eq!(store.apply_links(vec![seed.clone()]).unwrap().len(), 1);
    let again = store.apply_links(vec![seed]).unwrap();
    assert!(
        again.iter().all(|q| q.replaces.is_some()),
        "nothing new: {again:?}"
    );
}

#[test]
fn a_fallen_fence_refuses_every_write() {
    let dir = tempfile::tempdir().unwrap();
    let (own_host, own, _, _) = two_hosts();
    let mut store = PageStore::open(dir.path()).unwrap();
    let fence = fence();
    store
        .claim_partition(partitions(), own, 1, fence.clone())
        .unwrap();
    let url = format!("http://{own_host}/x");
    store.enqueue(entries(std::slice::from_ref(&url))).unwrap();
    fence.drop_now();
    let refused = store.enqueue(entries(&[format!("http://{own_host}/y")]));
    assert!(
        matches!(refused, Err(StoreError::LeaseLost(_))),
        "{refused:?}"
    );
    let refused = store.halt_host(&format!("http://{own_host}"), "test");
    assert!(
        matches!(refused, Err(StoreError::LeaseLost(_))),
        "{refused:?}"
    );
    drop(store);
    let reader = shared::StoreReader::open(dir.path()).unwrap();
    assert_eq!(
        reader.frontier_len(),
        1,
        "only the write made under the lease"
    );
}

#[test]
fn a_store_is_claimed_only_as_its_partition_and_never_under_an_older_lease() {
    let dir = tempfile::tempdir().unwrap();
    let (_, own, _, other) = two_hosts();
    {
        let mut store = PageStore::open(dir.path()).unwrap();
        store
            .claim_partition(partitions(), own, 5, fence())
            .unwrap();
    }
    let mut store = PageStore::open(dir.path()).unwrap();
    let older = store.claim_partition(partitions(), own, 4, fence());
    assert!(
        matches!(
            older,
            Err(StoreError::StaleEpoch {
                stamp: 5,
                epoch: 4,
                ..
            })
        ),
        "{older:?}"
    );
    let wrong = store.claim_partition(partitions(), other, 6, fence());
    assert!(
        matches!(wrong, Err(StoreError::WrongPartition { .. })),
        "{wrong:?}"
    );
    let eight = Partitions::new(8).unwrap();
    let resized = store.claim_partition(eight, own, 6, fence());
    assert!(
        matches!(resized, Err(StoreError::WrongPartition { .. })),
        "{resized:?}"
    );
    store
        .claim_partition(partitions(), own, 5, fence())
        .unwrap();
}
