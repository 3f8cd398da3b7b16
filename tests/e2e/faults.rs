//! Faults lose nothing (issue 20). Each fault is made real, in a child process running the
//! real command line ([`child`]): an error or a crash (`abort`) at a failpoint of a page
//! commit, a sitemap read, a revisit ([`store_writes`]) or a generation switch
//! ([`generations`]); a full disk ([`full_disk`]); a store another crawler holds, a corrupt
//! record, an index removed under a serving searchd ([`damage`]). After each: a clear error
//! (one line, no panic), the store and the index open, nothing committed is lost, nothing
//! half-written is visible, and the next run finishes the work.

pub(crate) mod child;
mod damage;
mod full_disk;
mod generations;
mod store_writes;

use std::collections::BTreeSet;
use std::path::Path;

use shared::StoreReader;

/// Checks that the store at `data` opens and that every page in it was written whole: its
/// outlinks, its schedule and its fetch history (all in the page's write batch) are there,
/// and the counters (in every batch) agree with what is stored. Returns the stored URLs.
pub fn stored_whole(data: &Path) -> BTreeSet<String> {
    let store = StoreReader::open(data).expect("the store opens");
    let mut urls = BTreeSet::new();
    for page in store.pages() {
        let page = page.expect("every stored page decodes");
        let url = &page.url;
        assert!(
            store.outlinks(url).expect("outlinks read").is_some(),
            "{url}: stored without its outlinks"
        );
        assert!(
            store.revisit(url).expect("schedule read").is_some(),
            "{url}: stored without its revisit schedule"
        );
        assert!(
            !store.history(url).expect("history read").0.is_empty(),
            "{url}: stored without its fetch history"
        );
        urls.insert(page.url);
    }
    let counters = store.counters().expect("counters read");
    assert_eq!(
        counters.pages_stored,
        urls.len() as u64,
        "the page count is written with the pages"
    );
    assert_eq!(
        counters.frontier_len,
        store.frontier_len() as u64,
        "the frontier count is written with the frontier"
    );
    urls
}

/// The number of documents in the index `CURRENT` names, opened as searchd opens it.
pub fn indexed_docs(data: &Path) -> u64 {
    let current = index_format::open_current(data)
        .expect("the current index opens")
        .expect("an index is current");
    current
        .index
        .reader()
        .expect("a reader")
        .searcher()
        .num_docs()
}
