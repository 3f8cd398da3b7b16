//! Errors and crashes at the indexer's failpoints in a generation switch: after the new
//! generation's commit and before `CURRENT` is replaced, and at each step of `CURRENT`'s
//! replacement (written, fsynced, renamed). After each, `CURRENT` names a whole generation
//! (the old one until the rename, the new one after) that searchd opens and searches, and
//! the next build switches to a new generation holding every document.

use std::path::Path;

use testweb::TestWeb;

use super::child::{self, build_args};
use super::indexed_docs;
use crate::support::{copy_dir, crawled};

/// The failpoints, each with whether `CURRENT` names the new generation once it is passed.
const POINTS: [(&str, bool); 4] = [
    ("index_format::generation::before_switch", false),
    ("index_format::generation::current_written", false),
    ("index_format::generation::current_synced", false),
    ("index_format::generation::current_renamed", true),
];

/// Generation directories on disk.
fn generations(data: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data.join("index"))
        .expect("index directory")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("gen-"))
        .collect();
    names.sort();
    names
}

/// searchd's searcher opens the current generation and finds the sample site's heron page.
fn searchd_finds_herons(data: &Path) {
    let searcher =
        gateway::Searcher::open(data, Default::default()).expect("searchd opens the index");
    let results = searcher.search("heron", 1, 10).expect("a search");
    assert!(results.total > 0, "the heron pages are found");
}

async fn switch_interrupted(crash: bool) {
    let web = TestWeb::start().await;
    let crawled = crawled(&web, "sample.test").await;
    let reference = crawled.path();
    let built = child::run("indexer", &build_args(reference), "").await;
    assert!(built.succeeded(), "{built:?}");
    let docs = indexed_docs(reference);
    assert!(docs > 0);
    for (point, switched) in POINTS {
        let case = tempfile::tempdir().expect("tempdir");
        let data = case.path();
        copy_dir(&reference.join("store"), &data.join("store"));
        copy_dir(&reference.join("index"), &data.join("index"));
        let old = index_format::current_generation(data)
            .expect("CURRENT")
            .expect("a generation");

        let action = if crash { "abort" } else { "return" };
        let ended = child::run("indexer", &build_args(data), &format!("{point}={action}")).await;
        if crash {
            assert!(ended.crashed(), "{point}: {ended:?}");
        } else {
            let line = ended.failed_in_one_line("indexer");
            assert!(line.contains(&format!("failpoint {point}")), "{line}");
            assert!(
                line.contains(&data.join("index").display().to_string()),
                "{line}"
            );
        }
        let current = index_format::current_generation(data)
            .expect("CURRENT reads")
            .expect("CURRENT names a generation");
        assert_eq!(current != old, switched, "{point}: CURRENT names {current}");
        assert_eq!(
            indexed_docs(data),
            docs,
            "{point}: the current generation is whole"
        );
        searchd_finds_herons(data);

        let again = child::run("indexer", &build_args(data), "").await;
        assert!(again.succeeded(), "{point}: the next build: {again:?}");
        let newest = index_format::current_generation(data)
            .expect("CURRENT reads")
            .expect("a generation");
        assert_eq!(
            generations(data).last(),
            Some(&newest),
            "{point}: the newest is current"
        );
        assert!(
            generations(data).len() <= 2,
            "{point}: {:?}",
            generations(data)
        );
        assert_eq!(indexed_docs(data), docs, "{point}: every document indexed");
        searchd_finds_herons(data);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_in_a_generation_switch_leaves_a_whole_index_current() {
    switch_interrupted(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_in_a_generation_switch_leaves_a_whole_index_current() {
    switch_interrupted(true).await;
}
