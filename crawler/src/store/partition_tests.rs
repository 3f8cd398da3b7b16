//! A partition store's own tests: links to other partitions wait in the outbox, then in
//! numbered parcels until confirmed, across runs; parcels that arrive twice or past a gap
//! are applied once; a fallen fence refuses every write; and a store is never claimed as
//! another partition or under an older lease.

use shared::partition::{PartitionId, Partitions};
use shared::record::FrontierEntry;
use shared::{CanonicalUrl, StoreError};
use tokio::time::{Duration, Instant};

use super::PageStore;
use super::parcels::ArrivedParcel;
use super::partition::Fence;

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

/// The numbers and links of the store's unconfirmed parcels.
fn unconfirmed(store: &PageStore) -> Vec<(u64, Vec<String>)> {
    store
        .unconfirmed(None, 100)
        .unwrap()
        .into_iter()
        .map(|(_, p)| (p.number, p.links.into_iter().map(|e| e.url).collect()))
        .collect()
}

#[test]
fn links_to_other_partitions_wait_in_numbered_parcels_until_confirmed_across_runs() {
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
        assert!(!store.has_unconfirmed());
        let parcels = store.parcel_outbox(10).unwrap();
        assert_eq!(parcels.len(), 1, "one parcel per target");
        let (to, parcel) = &parcels[0];
        assert_eq!(*to, target);
        assert_eq!(parcel.source, Some(own.get()));
        assert_eq!(parcel.number, 1, "parcels are numbered from 1");
        let urls: Vec<&str> = parcel.links.iter().map(|e| e.url.as_str()).collect();
        assert_eq!(
            urls,
            [theirs[0].as_str(), theirs[1].as_str()],
            "in the order found"
        );
        assert_eq!(store.outbox_len(), 0);
        assert!(store.has_unconfirmed());
        assert!(store.parcel_outbox(10).unwrap().is_empty());
    }
    // The next run still holds the parcel, and numbers on after it.
    let mut store = PageStore::open(dir.path()).unwrap();
    store
        .claim_partition(partitions(), own, 2, fence())
        .unwrap();
    assert!(store.has_unconfirmed());
    store.enqueue(entries(&theirs[2..])).unwrap();
    let parcels = store.parcel_outbox(10).unwrap();
    assert_eq!(parcels[0].1.number, 2);
    assert_eq!(
        unconfirmed(&store),
        vec![(1, theirs[..2].to_vec()), (2, theirs[2..].to_vec())]
    );
    // From a cursor: what comes after parcel 1.
    let after: Vec<u64> = store
        .unconfirmed(Some((target.get(), 1)), 100)
        .unwrap()
        .iter()
        .map(|(_, p)| p.number)
        .collect();
    assert_eq!(after, vec![2]);
    // Confirmed up to 1 by the target (a confirmation of another target changes nothing).
    store.confirmed(&[(own, 2), (target, 1)]).unwrap();
    assert_eq!(unconfirmed(&store), vec![(2, theirs[2..].to_vec())]);
    store.confirmed(&[(target, 2)]).unwrap();
    assert!(unconfirmed(&store).is_empty());
    assert!(!store.has_unconfirmed());
}

#[test]
fn parcels_that_arrive_twice_or_past_a_gap_are_applied_once() {
    let dir = tempfile::tempdir().unwrap();
    let (own_host, own, _, source) = two_hosts();
    let mut store = PageStore::open(dir.path()).unwrap();
    store
        .claim_partition(partitions(), own, 1, fence())
        .unwrap();
    let url = |path: &str| format!("http://{own_host}/{path}");
    let parcel = |number: u64, paths: &[&str]| ArrivedParcel {
        source: Some(source),
        number,
        links: paths
            .iter()
            .map(|path| FrontierEntry::page(url(path), 1))
            .collect(),
    };
    let new_urls = |queued: &[crate::store::QueuedUrl]| -> Vec<String> {
        queued
            .iter()
            .filter(|q| q.replaces.is_none())
            .map(|q| q.entry.url.clone())
            .collect()
    };
    let inlinks = |store: &PageStore, path: &str| {
        store
            .queued_for(&format!("http://{own_host}"), 10, &|_| false)
            .unwrap()
            .into_iter()
            .find(|q| q.entry.url == url(path))
            .map(|q| q.entry.inlinks)
    };
    let (queued, marks) = store.apply_parcels(vec![parcel(1, &["a", "b"])]).unwrap();
    assert_eq!(new_urls(&queued), [url("a"), url("b")]);
    assert_eq!(marks, vec![(source, 1)]);
    // Redelivered after a crash before its acknowledgement, then a new one: only the new.
    let (queued, marks) = store
        .apply_parcels(vec![parcel(1, &["a", "b"]), parcel(2, &["a", "c"])])
        .unwrap();
    assert_eq!(new_urls(&queued), [url("c")], "only the new URL is queued");
    assert_eq!(marks, vec![(source, 2)]);
    // Found again in parcel 2: one more in-link; the redelivered parcel counted none.
    assert_eq!(inlinks(&store, "a"), Some(2));
    assert_eq!(inlinks(&store, "b"), Some(1));

    // Parcel 3 lost (Redis lost it): 4 is applied past the gap, the mark stays at 2.
    let (queued, marks) = store.apply_parcels(vec![parcel(4, &["d", "a"])]).unwrap();
    assert_eq!(new_urls(&queued), [url("d")]);
    assert_eq!(marks, vec![(source, 2)], "a gap holds the mark back");
    assert_eq!(inlinks(&store, "a"), Some(3));
    // Sent again (unconfirmed): skipped, nothing counted twice.
    let (queued, marks) = store.apply_parcels(vec![parcel(4, &["d", "a"])]).unwrap();
    assert!(queued.is_empty(), "{queued:?}");
    assert_eq!(marks, vec![(source, 2)]);
    assert_eq!(inlinks(&store, "a"), Some(3));
    // Parcel 3 sent again fills the gap: the mark moves past 4.
    let (queued, marks) = store
        .apply_parcels(vec![parcel(3, &["e"]), parcel(4, &["d", "a"])])
        .unwrap();
    assert_eq!(new_urls(&queued), [url("e")]);
    assert_eq!(marks, vec![(source, 4)]);
    assert_eq!(inlinks(&store, "a"), Some(3));
    assert_eq!(inlinks(&store, "d"), Some(1));
    // The marks outlive the store's run.
    drop(store);
    let mut store = PageStore::open(dir.path()).unwrap();
    store
        .claim_partition(partitions(), own, 2, fence())
        .unwrap();
    let (queued, marks) = store.apply_parcels(vec![parcel(3, &["e"])]).unwrap();
    assert!(queued.is_empty(), "{queued:?}");
    assert_eq!(marks, vec![(source, 4)]);

    // An earlier holder of the partition, on a store this one is not, applied the source's
    // parcels 5 to 7 and confirmed them; this store got 8 and 9, past the gap.
    let (_, marks) = store
        .apply_parcels(vec![parcel(8, &["f"]), parcel(9, &["g"])])
        .unwrap();
    assert_eq!(marks, vec![(source, 4)]);
    assert_eq!(
        store.raise_marks(&vec![(source, 3)]).unwrap(),
        vec![],
        "a confirmation behind the mark changes nothing"
    );
    assert_eq!(
        store.raise_marks(&vec![(source, 7)]).unwrap(),
        vec![(source, 9)],
        "raised to what was confirmed, then over what was applied past it"
    );
    let (queued, marks) = store
        .apply_parcels(vec![parcel(9, &["g"]), parcel(10, &["h"])])
        .unwrap();
    assert_eq!(new_urls(&queued), [url("h")], "9 skipped, 10 applied");
    assert_eq!(marks, vec![(source, 10)]);

    // Seeds carry no number: always applied, the seen-set keeps them once.
    let seed = ArrivedParcel {
        source: None,
        number: 0,
        links: vec![FrontierEntry::page(url(""), 0)],
    };
    let (queued, marks) = store.apply_parcels(vec![seed.clone()]).unwrap();
    assert_eq!(new_urls(&queued), [url("")]);
    assert!(marks.is_empty());
    let (again, _) = store.apply_parcels(vec![seed]).unwrap();
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
