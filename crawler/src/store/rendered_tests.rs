//! A page's render in its batch: stored under its URL, dropped when the page is written
//! again without one (no stale render), no tombstone for a page that never had one, and a
//! store made before the `rendered` family opens for writing.

use super::*;
use shared::StoreReader;
use shared::record::{CompressedBody, Outlinks, RenderOutcome, RenderedPage, RevisitRecord};

const URL: &str = "http://spa.test/app";

fn render(html: &str) -> RenderedPage {
    RenderedPage {
        rendered_at_ms: 1_700_000_000_000,
        outcome: RenderOutcome::Rendered,
        html: Some(CompressedBody::compress(html)),
        requests: 4,
        refused: 1,
        elapsed_ms: 310,
    }
}

/// Writes the page at [`URL`] as a fetch, with `rendered`.
fn commit(store: &mut PageStore, rendered: Option<&RenderedPage>) {
    let mut page = PageRecord {
        url: URL.into(),
        status: 200,
        body_len: 20,
        ..PageRecord::default()
    };
    store
        .commit_page(PageCommit {
            done: Some(b"no frontier key"),
            page: &mut page,
            outlinks: &Outlinks::default(),
            discovered: Vec::new(),
            revisit: &RevisitRecord::default(),
            simhash: None,
            failed_before: 0,
            kind: KindCommit::default(),
            rendered,
            static_text_hash: None,
        })
        .unwrap();
}

/// Deletes waiting in the `rendered` family's memtable.
fn rendered_deletes(store: &PageStore) -> u64 {
    store
        .db
        .property_int_value_cf(
            store.cf(Cf::Rendered),
            "rocksdb.num-deletes-active-mem-table",
        )
        .unwrap()
        .unwrap()
}

#[test]
fn a_render_is_stored_beside_its_page_and_a_write_without_one_drops_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    let rendered = render("<p>built by a script</p>");
    commit(&mut store, Some(&rendered));
    drop(store);
    let reader = StoreReader::open(dir.path()).unwrap();
    assert_eq!(reader.rendered(URL).unwrap(), Some(rendered));
    assert!(reader.page(URL).unwrap().is_some());
    drop(reader);

    let mut store = PageStore::open(dir.path()).unwrap();
    commit(&mut store, None);
    assert_eq!(rendered_deletes(&store), 1);
    drop(store);
    let reader = StoreReader::open(dir.path()).unwrap();
    assert_eq!(reader.rendered(URL).unwrap(), None, "no stale render");
    assert!(reader.page(URL).unwrap().is_some());
}

#[test]
fn a_page_never_rendered_written_again_leaves_no_tombstone_in_the_family() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = PageStore::open(dir.path()).unwrap();
    commit(&mut store, None);
    commit(&mut store, None);
    assert_eq!(rendered_deletes(&store), 0);
}

#[test]
fn a_store_made_before_the_rendered_family_opens_for_writing_and_keeps_renders() {
    let dir = tempfile::tempdir().unwrap();
    let budget = MemoryBudget::default();
    let older: Vec<_> = Cf::ALL
        .iter()
        .filter(|&&cf| cf != Cf::Rendered)
        .map(|cf| cf.descriptor(&budget))
        .collect();
    let path = store_dir(dir.path());
    drop(DB::open_cf_descriptors(&open_options(&budget), &path, older).unwrap());
    let existing = DB::list_cf(&rocksdb::Options::default(), &path).unwrap();
    assert!(!existing.iter().any(|name| name == "rendered"));

    let mut store = PageStore::open(dir.path()).unwrap();
    let rendered = render("<p>after scripts</p>");
    commit(&mut store, Some(&rendered));
    drop(store);
    assert_eq!(
        StoreReader::open(dir.path())
            .unwrap()
            .rendered(URL)
            .unwrap(),
        Some(rendered)
    );
}
