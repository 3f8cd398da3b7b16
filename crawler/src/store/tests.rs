//! The writer's own tests: change numbers and history, one writer at a time, duplicate
//! lookups, queue order as URLs are found again, refills, memory within the budget.

use super::*;
use shared::StoreReader;
use shared::record::{FrontierEntry, Outlinks, RevisitRecord};

use crate::traps::TrapRule;

fn store_original(store: &mut PageStore, url: &str, text_hash: u64, simhash: u64) {
    let mut page = PageRecord {
        url: url.to_string(),
        title: "Herons of the marsh".into(),
        status: 200,
        body_len: 100,
        content_hash: text_hash,
        ..PageRecord::default()
    };
    commit_alone(store, &mut page, Some(simhash));
}

/// Commits `page` as a fetch with no links and no frontier entry of its own.
fn commit_alone(store: &mut PageStore, page: &mut PageRecord, simhash: Option<u64>) {
    commit_rendered(store, page, simhash, None);
}

/// [`commit_alone`], for a page whose render decided its copies when `static_text_hash` is
/// given.
fn commit_rendered(
    store: &mut PageStore,
    page: &mut PageRecord,
    simhash: Option<u64>,
    static_text_hash: Option<u64>,
) {
    store
        .commit_page(PageCommit {
            done: Some(b"no frontier key"),
            page,
            outlinks: &Outlinks::default(),
            discovered: Vec::new(),
            revisit: &RevisitRecord::default(),
            simhash,
            failed_before: 0,
            kind: KindCommit::default(),
            rendered: None,
            static_text_hash,
        })
        .unwrap();
}

#[test]
fn every_page_write_gets_the_next_change_number_and_joins_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    store_original(&mut store, "http://a.test/a", 1, 0x1111);
    store_original(&mut store, "http://a.test/b", 2, 0x2222);
    store_original(&mut store, "http://a.test/a", 3, 0x3333);
    let a = store.page("http://a.test/a").unwrap().unwrap();
    let b = store.page("http://a.test/b").unwrap().unwrap();
    assert_eq!((b.change, a.change), (2, 3), "the rewrite of /a came third");
    assert_eq!(store.counters().last_change(), 3);

    // A revisit answered 304 leaves the page as it is and is remembered.
    let revisit = RevisitRecord {
        content_hash: 3,
        ..RevisitRecord::default()
    };
    store.note_trapped(TrapRule::QueryCap, 5);
    store
        .commit_done(
            b"no frontier key",
            Some(("http://a.test/a", &revisit)),
            Vec::new(),
        )
        .unwrap();
    drop(store);

    let reader = StoreReader::open(dir.path()).unwrap();
    let history = reader.history("http://a.test/a").unwrap();
    let seen: Vec<(u16, u64)> = history
        .0
        .iter()
        .map(|e| (e.status, e.content_hash))
        .collect();
    assert_eq!(seen, [(200, 1), (200, 3), (304, 3)]);
    assert_eq!(reader.page("http://a.test/a").unwrap().unwrap().change, 3);
    let counters = reader.counters().unwrap();
    assert_eq!(counters.last_change(), 3, "a 304 writes no page");
    assert_eq!(
        counters.trapped.get(TrapRule::QueryCap.name()),
        Some(&5),
        "trap cut-offs outlive the run"
    );
}

#[test]
fn a_second_writer_is_told_the_store_is_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let _first = PageStore::open(dir.path()).unwrap();
    let second = PageStore::open(dir.path())
        .err()
        .expect("one writer at a time");
    assert!(matches!(second, StoreError::Locked(_)), "{second:?}");
    let line = second.to_string();
    assert!(line.contains("in use by another crawler"), "{line}");
    assert!(line.contains(&dir.path().display().to_string()), "{line}");
    // Readers are not kept out.
    assert!(StoreReader::open(dir.path()).is_ok());
}

#[test]
fn content_owner_finds_exact_and_near_duplicates_but_not_the_page_itself() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let hash = 0xfedc_ba98_7654_3210_u64;
    store_original(&mut store, "http://a.test/original", 1, hash);
    store_original(&mut store, "http://a.test/other", 2, !hash);

    let owner = |text_hash, simhash: Option<u64>, except| {
        let near = simhash.map(|h| (h, "Herons of the marsh (print)"));
        store.content_owner(text_hash, near, except).unwrap()
    };
    let original = Some("http://a.test/original".to_string());
    assert_eq!(owner(1, None, "http://a.test/copy"), original, "same text");
    // Three bits apart, one in each of three blocks; then in one block.
    let near = hash ^ (1 << 1) ^ (1 << 30) ^ (1 << 62);
    assert_eq!(owner(9, Some(near), "http://a.test/copy"), original);
    assert_eq!(owner(9, Some(hash ^ 0b111), "http://a.test/copy"), original);
    // Four bits apart is another page.
    assert_eq!(owner(9, Some(near ^ (1 << 45)), "http://a.test/copy"), None);
    // A revisit of the original is not a copy of itself.
    assert_eq!(owner(1, Some(hash), "http://a.test/original"), None);
    assert_eq!(
        owner(9, Some(!hash ^ 1), "http://a.test/copy"),
        Some("http://a.test/other".to_string())
    );
    // Near text under another title is another page.
    let other_title = store
        .content_owner(
            9,
            Some((near, "Gulls of the harbour")),
            "http://a.test/copy",
        )
        .unwrap();
    assert_eq!(other_title, None);
}

#[test]
fn a_rendered_page_is_found_by_its_variants_only_under_its_own_path() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let (static_text, rendered_text) = (0x5ca1_ab1e_u64, 0x0dd_ba11_u64);
    let route = "http://spa.test/shop/a.html";
    let mut page = PageRecord {
        url: route.into(),
        status: 200,
        body_len: 100,
        content_hash: rendered_text,
        ..PageRecord::default()
    };
    commit_rendered(&mut store, &mut page, None, Some(static_text));
    let check = store.copy_check();
    let variant_of = |hash, url: &str| check.variant_of(hash, &CanonicalUrl::parse(url).unwrap());
    // The same path under a query, with the same static text: a variant.
    assert_eq!(
        variant_of(static_text, "http://spa.test/shop/a.html?ref=home").as_deref(),
        Some(route)
    );
    // Another route with the same shell, another static text, the page itself: none.
    assert_eq!(variant_of(static_text, "http://spa.test/shop/b.html"), None);
    assert_eq!(
        variant_of(static_text, "http://spa.test/shop/a.html/x"),
        None
    );
    assert_eq!(
        variant_of(static_text ^ 1, "http://spa.test/shop/a.html?x=1"),
        None
    );
    assert_eq!(variant_of(static_text, route), None);
    // Its content is its rendered text's, and the static text's key is no text hash's.
    assert_eq!(
        store
            .content_owner(rendered_text, None, "http://spa.test/c")
            .unwrap()
            .as_deref(),
        Some(route)
    );
    assert_eq!(
        store
            .content_owner(static_text, None, "http://spa.test/c")
            .unwrap(),
        None
    );
}

fn links_from(page: &str, targets: &[&str], depth: u32) -> Vec<(CanonicalUrl, FrontierEntry)> {
    targets
        .iter()
        .map(|t| {
            let entry = FrontierEntry {
                referrer: Some(page.to_string()),
                ..FrontierEntry::page(*t, depth)
            };
            (CanonicalUrl::parse(t).unwrap(), entry)
        })
        .collect()
}

fn queue_order(store: &PageStore, origin: &str) -> Vec<String> {
    store
        .queued_for(origin, 100, &|_| false)
        .unwrap()
        .into_iter()
        .map(|q| q.entry.url)
        .collect()
}

#[test]
fn a_url_found_again_moves_up_its_queue_unless_it_is_being_fetched() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let (popular, plain) = ("http://a.test/popular", "http://a.test/plain");
    let shallow = "http://a.test/shallow";
    store
        .enqueue(links_from("http://a.test/", &[shallow], 2))
        .unwrap();
    store
        .enqueue(links_from("http://a.test/x", &[plain, popular], 3))
        .unwrap();
    assert_eq!(
        queue_order(&store, "http://a.test"),
        [shallow, plain, popular]
    );

    // Three more pages link to `popular`: four in-links move it ahead of its level.
    let mut moved = Vec::new();
    for page in ["http://a.test/y", "http://a.test/z", "http://a.test/w"] {
        moved.extend(store.enqueue(links_from(page, &[popular], 3)).unwrap());
    }
    assert_eq!(store.counters().frontier_len, 3, "moved, not queued twice");
    assert_eq!(
        queue_order(&store, "http://a.test"),
        [shallow, popular, plain]
    );
    let last = moved.last().expect("moved up");
    assert_eq!((last.entry.inlinks, last.entry.depth), (4, 3));
    assert!(last.replaces.is_some());

    // Sixteen in-links: ahead of the level above.
    for i in 0..12 {
        store
            .enqueue(links_from(&format!("http://a.test/p{i}"), &[popular], 3))
            .unwrap();
    }
    assert_eq!(
        queue_order(&store, "http://a.test"),
        [popular, shallow, plain]
    );

    // A sitemap lists `plain`: depth 0, so it goes first.
    let listed = FrontierEntry::page(plain, 0);
    let moved = store
        .enqueue(vec![(CanonicalUrl::parse(plain).unwrap(), listed)])
        .unwrap();
    assert_eq!(moved.len(), 1);
    assert_eq!(
        queue_order(&store, "http://a.test"),
        [plain, popular, shallow]
    );

    // Handed to a fetch, an entry stays where it is.
    let key = moved[0].key.clone();
    store.hand_out(&key);
    let again = store
        .enqueue(links_from("http://a.test/v", &[plain], 0))
        .unwrap();
    assert!(again.is_empty());
    assert_eq!(
        store.queued_for("http://a.test", 1, &|_| false).unwrap()[0].key,
        key
    );
}

#[test]
fn a_refill_starts_past_fetched_entries_and_finds_those_queued_below_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let deep: Vec<String> = (0..5).map(|i| format!("http://a.test/deep{i}")).collect();
    let deep: Vec<&str> = deep.iter().map(String::as_str).collect();
    store
        .enqueue(links_from("http://a.test/", &deep[..3], 3))
        .unwrap();
    // The first two are fetched: the next refill starts at the third.
    for queued in store.queued_for("http://a.test", 2, &|_| false).unwrap() {
        store.hand_out(&queued.key);
        store.commit_done(&queued.key, None, Vec::new()).unwrap();
    }
    assert_eq!(queue_order(&store, "http://a.test"), [deep[2]]);
    // Queued later, above the floor and below it (a shallower link ranks first).
    store
        .enqueue(links_from("http://a.test/", &deep[3..], 3))
        .unwrap();
    store
        .enqueue(links_from("http://a.test/", &["http://a.test/shallow"], 0))
        .unwrap();
    assert_eq!(
        queue_order(&store, "http://a.test"),
        ["http://a.test/shallow", deep[2], deep[3], deep[4]]
    );
    // Emptied, then queued again.
    for queued in store.queued_for("http://a.test", 10, &|_| false).unwrap() {
        store.hand_out(&queued.key);
        store.commit_done(&queued.key, None, Vec::new()).unwrap();
    }
    assert!(queue_order(&store, "http://a.test").is_empty());
    store
        .enqueue(links_from("http://a.test/", &["http://a.test/late"], 5))
        .unwrap();
    assert_eq!(queue_order(&store, "http://a.test"), ["http://a.test/late"]);
}

#[test]
fn a_page_linking_to_itself_is_not_queued_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let url = "http://a.test/self";
    let queued = store
        .enqueue(links_from("http://a.test/", &[url], 1))
        .unwrap();
    store.hand_out(&queued[0].key);
    let mut page = PageRecord {
        url: url.to_string(),
        status: 200,
        body_len: 10,
        ..PageRecord::default()
    };
    let again = store
        .commit_page(PageCommit {
            done: Some(&queued[0].key),
            page: &mut page,
            outlinks: &Outlinks::default(),
            discovered: links_from(url, &[url, url], 2),
            revisit: &RevisitRecord::default(),
            simhash: None,
            failed_before: 0,
            kind: KindCommit::default(),
            rendered: None,
            static_text_hash: None,
        })
        .unwrap();
    assert!(again.is_empty(), "{again:?}");
    assert_eq!(store.counters().frontier_len, 0);
    assert!(queue_order(&store, "http://a.test").is_empty());
    // Later links find it done.
    assert!(
        store
            .enqueue(links_from("http://a.test/x", &[url], 1))
            .unwrap()
            .is_empty()
    );
    assert!(queue_order(&store, "http://a.test").is_empty());
}

#[test]
fn a_store_holds_its_blocks_and_memtables_within_its_budget() {
    // 1 MiB of cache and 1 MiB of memtables, against about 16 MiB of pages written, then read
    // back from table files: the default budget holds 24 MiB of those memtables and 19 MiB
    // of those blocks (RocksDB's own defaults, a cache and 64 MiB memtables per family, more).
    const BUDGET: usize = 1 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open_within(dir.path(), &MemoryBudget::new(BUDGET, BUDGET)).unwrap();
    let mut written = 0;
    let urls: Vec<String> = (0..4_000).map(|i| format!("http://a.test/{i}")).collect();
    for (i, url) in urls.iter().enumerate() {
        // Words that do not repeat, so compression leaves the records their size.
        let description: String = (0..256)
            .map(|w| {
                format!(
                    "{:x} ",
                    xxhash_rust::xxh3::xxh3_64(&[i as u8, (i >> 8) as u8, w as u8])
                )
            })
            .collect();
        written += description.len();
        let mut page = PageRecord {
            url: url.clone(),
            status: 200,
            description,
            ..PageRecord::default()
        };
        commit_alone(&mut store, &mut page, None);
    }
    assert!(
        written > 8 * BUDGET,
        "the pages outweigh the budget: {written} bytes"
    );
    let property = |store: &PageStore, cf: Cf, name: &str| {
        store
            .db
            .property_int_value_cf(store.cf(cf), name)
            .unwrap()
            .unwrap_or(0) as usize
    };
    let memtables: usize = Cf::ALL
        .iter()
        .map(|&cf| property(&store, cf, "rocksdb.cur-size-all-mem-tables"))
        .sum();
    // Full memtables wait for their flush in the background, and count until it is done
    // (seen: 2.8 MiB while the machine was busy).
    assert!(memtables <= 4 * BUDGET, "{memtables} bytes of memtables");

    // Every page read back from table files, through the cache.
    store.flush().unwrap();
    for url in &urls {
        assert!(store.page(url).unwrap().is_some(), "{url} reads back");
    }
    // One cache for every family: any family reports its usage.
    let cached = property(&store, Cf::Pages, "rocksdb.block-cache-usage");
    assert!(
        cached <= BUDGET + BUDGET / 4,
        "{cached} bytes of cached blocks"
    );
}

#[test]
fn many_stores_within_one_budget_flush_only_when_their_writes_fill_it() {
    // Sixteen stores, as a worker holding partitions opens them, sharing 32 MiB of
    // memtables, each given 40 pages of 2 KiB (about 1.5 MiB in all): no memtable is
    // flushed. Counted a block of 1 MiB per family written, they passed the budget while
    // nearly empty and every write flushed one.
    const STORES: usize = 16;
    let budget = MemoryBudget::new(1 << 20, 32 << 20);
    let dirs: Vec<_> = (0..STORES).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut stores: Vec<PageStore> = dirs
        .iter()
        .map(|d| PageStore::open_within(d.path(), &budget).unwrap())
        .collect();
    for round in 0..40u64 {
        for (s, store) in stores.iter_mut().enumerate() {
            let n = round * STORES as u64 + s as u64;
            let mut page = PageRecord {
                url: format!("http://s{s}.test/{round}"),
                status: 200,
                body_len: 100,
                content_hash: n,
                description: (0..300).map(|w| format!("w{n}x{w} ")).collect(),
                ..PageRecord::default()
            };
            commit_alone(store, &mut page, Some(n << 20));
        }
    }
    for store in &stores {
        let tables = store.db.live_files().unwrap().len();
        assert_eq!(tables, 0, "a store flushed its memtables {tables} times");
    }
}

#[test]
fn a_kinds_records_join_the_page_write_and_leave_when_the_url_changes_kind() {
    use shared::record::{ImageInfo, ImageRef, MediaRecord, PageImages, Thumbnail};
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let url = "http://a.test/cat.png";
    let media = MediaRecord::Image(ImageInfo {
        format: "png".into(),
        width: 640,
        height: 480,
        content_hash: 99,
        thumbnail: true,
        ..ImageInfo::default()
    });
    let thumbnail = Thumbnail {
        media_type: "image/jpeg".into(),
        width: 256,
        height: 192,
        bytes: vec![0xFF, 0xD8, 0xFF, 0xD9],
    };
    let images = PageImages(vec![ImageRef {
        url: "http://a.test/dog.png".into(),
        alt: "a dog".into(),
        ..ImageRef::default()
    }]);
    let mut page = PageRecord {
        url: url.into(),
        status: 200,
        kind: shared::ContentKind::Image,
        ..PageRecord::default()
    };
    let commit = |store: &mut PageStore, page: &mut PageRecord, kind: KindCommit<'_>| {
        store
            .commit_page(PageCommit {
                done: Some(b"no frontier key"),
                page,
                outlinks: &Outlinks::default(),
                discovered: Vec::new(),
                revisit: &RevisitRecord::default(),
                simhash: None,
                failed_before: 0,
                kind,
                rendered: None,
                static_text_hash: None,
            })
            .unwrap();
    };
    commit(
        &mut store,
        &mut page,
        KindCommit {
            media: Some(&media),
            thumbnail: Some((99, &thumbnail)),
            images: Some(&images),
        },
    );
    drop(store);
    let reader = StoreReader::open(dir.path()).unwrap();
    assert_eq!(reader.media(url).unwrap(), Some(media));
    assert_eq!(reader.thumbnail(99).unwrap(), Some(thumbnail.clone()));
    let all: Vec<_> = reader.all_page_images().map(Result::unwrap).collect();
    assert_eq!(all, [(url.to_string(), images)]);
    drop(reader);

    // Fetched again, the URL is an HTML page: its image records go; the thumbnail, shared
    // by content, stays.
    let mut store = PageStore::open(dir.path()).unwrap();
    page.kind = shared::ContentKind::Html;
    commit(&mut store, &mut page, KindCommit::default());
    drop(store);
    let reader = StoreReader::open(dir.path()).unwrap();
    assert_eq!(reader.media(url).unwrap(), None);
    assert_eq!(reader.all_page_images().count(), 0);
    assert_eq!(reader.thumbnail(99).unwrap(), Some(thumbnail));
}

#[test]
fn auto_render_verdicts_are_kept_for_later_runs_and_the_last_one_stands() {
    use shared::store::AutoVerdict;
    let dir = tempfile::tempdir().unwrap();
    {
        let store = PageStore::open(dir.path()).unwrap();
        assert_eq!(store.auto_verdicts().unwrap(), Vec::new());
        store.put_auto_verdict("a.test", AutoVerdict::Skip).unwrap();
        store
            .put_auto_verdict("b.test", AutoVerdict::Render)
            .unwrap();
        store
            .put_auto_verdict("a.test", AutoVerdict::Render)
            .unwrap();
        store.halt_host("http://c.test", "breaker").unwrap();
    }
    let store = PageStore::open(dir.path()).unwrap();
    assert_eq!(
        store.auto_verdicts().unwrap(),
        vec![
            ("a.test".to_string(), AutoVerdict::Render),
            ("b.test".to_string(), AutoVerdict::Render)
        ]
    );
}
